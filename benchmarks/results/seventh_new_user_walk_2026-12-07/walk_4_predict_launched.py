# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_4_predict_launched.py \
#   > walk_4_predict_launched.txt 2>&1
# stopping.md "Predict, launched on several processes": `accelerate launch ... -m accelerated_seg predict` on 2 CPU
# processes (strategies.md's launch), each signal after the first `wrote` line: a terminal's Ctrl-C and a job's
# SIGTERM to the launcher's group, SIGUSR1 to the processes and to the launcher, `| head -2`, then --continue.
import re
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import CLONE, LAUNCH, Run, files, setup  # noqa: E402

setup()
PREDICT = f"{LAUNCH} -m accelerated_seg predict --model output/model_run/model data/phantoms/imagesTr --tta all"


def maps(out):
    print(f"  maps: {len(list((CLONE / out).glob('*.nii.gz')))}")
    files(out, hidden_only=True)


for number, sig in enumerate((signal.SIGINT, signal.SIGTERM), 1):
    out = f"lpreds_{sig.name}"
    run = Run(f"{PREDICT} --output {out}", f"{number} launched predict, {sig.name} to the launcher's group")
    run.wait_for(r"wrote \S+")
    run.group(sig)
    run.finish()
    maps(out)

# 3. SIGUSR1 to the processes: each 138, the launch 1, its table's rows saying the line.
run = Run(f"{PREDICT} --output lpreds_SIGUSR1", "3 launched predict, SIGUSR1 to both processes")
run.wait_for(r"wrote \S+")
for process in run.ranks():
    run.to(process.pid, signal.SIGUSR1)
run.finish(show=re.compile(r"stopped|interrupt|exitcode|Traceback|rror|Failures|rank"))
maps("lpreds_SIGUSR1")

# 4. SIGUSR1 to the launcher: it alone dies, -10 (138 to a shell); the processes go on as orphans.
run = Run(f"{PREDICT} --output lpreds_launcher_usr1", "4 launched predict, SIGUSR1 to the launcher")
run.wait_for(r"wrote \S+")
processes = run.ranks()
run.to(run.launcher().pid, signal.SIGUSR1, "(the launcher)")
run.finish()
deadline = time.monotonic() + 120
while any(p.is_running() and p.status() != "zombie" for p in processes) and time.monotonic() < deadline:
    time.sleep(0.5)
print(f"  processes still running 120 s on: {[p.pid for p in processes if p.is_running() and p.status() != 'zombie']}")
maps("lpreds_launcher_usr1")

# 5. A reader gone: | head -2: each process 141, the launch 1, its table saying the line.
run = Run(f"{PREDICT} --output lpreds_head | head -2; echo \"PIPESTATUS launch ${{PIPESTATUS[0]}}\"",
          "5 launched predict | head -2")
run.finish(show=re.compile(r"PIPESTATUS|stopped|exitcode|Traceback|Broken|rror"))
maps("lpreds_head")

# 6. What to do next: the same launch with --continue after the Ctrl-C.
run = Run(f"{PREDICT} --output lpreds_SIGINT --continue", "6 launched predict --continue")
run.finish(show=re.compile(r"continu|pass|earlier|interrupt|rror|written|Traceback"))
maps("lpreds_SIGINT")

# 7. Ctrl-C in the first seconds, before the processes meet.
run = Run(f"{PREDICT} --output lpreds_early", "7 launched predict, Ctrl-C 3 s after the start")
time.sleep(3.0)
run.group(signal.SIGINT, "Ctrl-C")
run.finish()
maps("lpreds_early")
