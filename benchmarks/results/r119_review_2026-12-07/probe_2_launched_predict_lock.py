# cd /tmp/wt_r119/benchmarks/results/r119_review_2026-12-07 && R119_CODE=/work/main /work/main/.venv/bin/python \
#   probe_2_launched_predict_lock.py > probe_2_launched_predict_lock_before.txt 2>&1   (main's code)
# and with the worktree's (the fix): /work/main/.venv/bin/python probe_2_launched_predict_lock.py > ..._after.txt
# known_issues' Open "A stopped launched predict leaves its output folder's .run.lock": `accelerate launch -m
# accelerated_seg predict` on 2 CPU processes, stopped after its first "wrote" line by SIGTERM to the group, SIGUSR1 to
# the processes, and Ctrl-C to the group: what the output folder holds once the launch has ended.
import os
import shutil
import signal

import psutil

from probe_lib import CODE, HOME, LAUNCH, Run

print(f"code: {CODE}")
TAG = "main" if CODE == "/work/main" else "wt"
for how in ("SIGTERM", "SIGUSR1", "SIGINT"):
    out = HOME / f"lpreds_{TAG}_{how}"
    shutil.rmtree(out, ignore_errors=True)
    run = Run([*LAUNCH, "-m", "accelerated_seg", "predict", "--model", "output/model_run/model",
               "data/phantoms/imagesTr", "--tta", "all", "--output", str(out)],
              f"launched predict, {how} after its first map")
    run.wait_for(r"wrote \S+", timeout=240)
    if how == "SIGUSR1":  # to the processes: torch's agent has no handler of it
        for child in psutil.Process(run.process.pid).children(recursive=True):
            line = " ".join(child.cmdline())
            if "accelerated_seg" in line and "accelerate.commands" not in line:
                print(f"  SIGUSR1 to pid {child.pid}")
                os.kill(child.pid, signal.SIGUSR1)
    else:
        run.group(getattr(signal, how))
    run.finish()
    print("  stop lines:", [line for line in run.text().splitlines() if "stopped" in line or "interrupted" in line][:2])
    print("  hidden in the folder:", sorted(p.name for p in out.iterdir() if p.name.startswith(".")))
    print("  maps:", len(list(out.glob("*.nii.gz"))))
