# cd benchmarks/results/r121_review_2026-12-07 && H141_CODE=/tmp/wt_r121 /work/main/.venv/bin/python \
#   probe_3_launched.py > probe_3_launched_after.txt 2>&1
# examples/estimator.py and fit_your_own.py launched on 2 CPU processes (ddp.yaml), stopped by a job's SIGTERM to the
# launcher's process group after the third step: what is said (once?), the launch's status (stopping.md's table:
# ranks 0, the launch 143), the checkpoint.
import signal
import sys

sys.path.insert(0, "../estimator_stop_walk_2026-12-07")
from probe_lib import CODE, HOME, Run  # noqa: E402

print(f"code: {CODE}")
launch = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", f"{CODE}/configs/accelerate/ddp.yaml",
          "--mixed_precision", "no", "--num_processes", "2", "--main_process_port", "29731"]
for name, args in (("estimator", ["--steps", "12", "--patch", "32"]),
                   ("fit_your_own", ["--epochs", "4", "--patch", "32"])):
    out = f"output/{name}_r121_launched"
    run = Run([*launch, f"{CODE}/examples/{name}.py", "--out", out, "--overwrite", *args],
              f"{name}.py launched: SIGTERM to the group after step 3", env={"ACCELERATE_USE_CPU": "true"})
    run.wait_for(r"\b([3-9]|1\d)/\d+ \[", timeout=400)
    run.group(signal.SIGTERM)
    run.finish(timeout=200, tail=8)
    text = run.text()
    print(f"  'preempted:' said {text.count('preempted:')} time(s); 'run the same command' "
          f"{text.count('run the same command')} time(s); checkpoints "
          f"{sorted(p.name for p in (HOME / out / 'run' / 'checkpoints').glob('step_*'))}", flush=True)
