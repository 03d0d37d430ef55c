# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_2b_launcher_usr1.py \
#   > walk_2b_launcher_usr1.txt 2>&1
# walk_2's 6th example again, its whole stderr shown: SIGUSR1 to a training launch's launcher (stopping.md: "Send
# SIGUSR1 to the ranks, never to the launcher: torchrun ... dies of it, status 138 (-10 to a program reading it) ...
# Its ranks then hear of its death: from the training loop on they save and stop as on SIGTERM"). Then SIGTERM to
# the group once the ranks exist (their imports), stopping.md's "In a launch's first seconds".
import re
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import LAUNCH, Run, files, setup  # noqa: E402

setup()
TRAIN = f"{LAUNCH} examples/train.py --config tiny.yaml --data.num_workers=0"
run = Run(f"{TRAIN} --train.output_dir=output/launch2 --train.progress_bar=false", "SIGUSR1 to the launcher")
run.wait_for(r"step 20: validation mean Dice")
ranks = run.ranks()
run.to(run.launcher().pid, signal.SIGUSR1, "(the launcher)")
run.finish(show=re.compile("."))
deadline = time.monotonic() + 60
while any(r.is_running() and r.status() != "zombie" for r in ranks) and time.monotonic() < deadline:
    time.sleep(0.5)
print(f"  ranks still running: {[r.pid for r in ranks if r.is_running() and r.status() != 'zombie']}")
time.sleep(1)
files("output/launch2/checkpoints")

for delay in (1.0, 3.0):
    run = Run(f"{TRAIN} --train.output_dir=output/launch_early", f"SIGTERM to the group {delay} s after ranks exist")
    deadline = time.monotonic() + 60
    while not run.ranks() and time.monotonic() < deadline:
        time.sleep(0.05)
    print(f"  [{time.monotonic() - run.started:.1f} s] ranks there")
    time.sleep(delay)
    run.group(signal.SIGTERM)
    run.finish(show=re.compile("."))
    files("output/launch_early")
