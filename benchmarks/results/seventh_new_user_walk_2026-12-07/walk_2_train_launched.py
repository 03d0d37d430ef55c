# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_2_train_launched.py \
#   > walk_2_train_launched.txt 2>&1
# stopping.md "At a glance" (train launched), "Training: Ctrl-C" (launched), "Training: SIGTERM and SIGUSR1": a
# 2-process CPU launch (strategies.md's ACCELERATE_USE_CPU=true accelerate launch --config_file
# configs/accelerate/ddp.yaml --mixed_precision no --num_processes 2 examples/train.py ...), each signal sent after a
# validation line, to the launcher's group (a terminal's Ctrl-C, a job's stop), to one rank, or to the launcher.
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import LAUNCH, Run, files, setup  # noqa: E402

setup()
TRAIN = f"{LAUNCH} examples/train.py --config tiny.yaml --data.num_workers=0"


def ranks_left(run):
    time.sleep(0.5)
    print(f"  processes left under the command: {len(run.processes())}")


# 1. A terminal's Ctrl-C: every rank at once, the line once, the launch 130.
run = Run(f"{TRAIN} --train.output_dir=output/launch", "1 launch, Ctrl-C to the launcher's group")
run.wait_for(r"step 10: validation mean Dice")
run.group(signal.SIGINT, "Ctrl-C")
run.finish()
files("output/launch/checkpoints")

# 2. The same command with --train.resume=latest, then a job's SIGTERM to the launcher's group: every rank saves the
# same step, the line once, the launch 143.
run = Run(f"{TRAIN} --train.output_dir=output/launch --train.resume=latest", "2 launch resumed, SIGTERM to the group")
run.wait_for(r"resumed from \S+ at step \d+")
run.wait_for(r"step (2|3)\d: validation mean Dice")
run.group(signal.SIGTERM)
run.finish()
files("output/launch/checkpoints")

# 3. SIGTERM to one rank alone: every rank saves all the same, the launch 0.
run = Run(f"{TRAIN} --train.output_dir=output/launch --train.resume=latest", "3 SIGTERM to rank 1 alone")
run.wait_for(r"step (4|5)\d: validation mean Dice")
ranks = run.ranks()
print(f"  ranks: {[r.pid for r in ranks]}")
run.to(ranks[-1].pid, signal.SIGTERM, "(the last rank)")
run.finish()
files("output/launch/checkpoints")

# 4. SIGUSR1 to the ranks (never the launcher): every rank saves, the launch 0.
run = Run(f"{TRAIN} --train.output_dir=output/launch --train.resume=latest", "4 SIGUSR1 to both ranks")
run.wait_for(r"step (6|7)\d: validation mean Dice")
for rank in run.ranks():
    run.to(rank.pid, signal.SIGUSR1)
run.finish()
files("output/launch/checkpoints")

# 5. SIGINT to one rank alone: every rank 130, the launcher's table, status 1.
run = Run(f"{TRAIN} --train.output_dir=output/launch --train.resume=latest", "5 SIGINT to rank 1 alone")
run.wait_for(r"step (8|9)\d: validation mean Dice")
run.to(run.ranks()[-1].pid, signal.SIGINT)
run.finish()
files("output/launch/checkpoints", hidden_only=True)

# 6. SIGUSR1 to the launcher: it dies (-10 to us, 138 to a shell); its ranks hear of its death and save.
run = Run(f"{TRAIN} --train.output_dir=output/launch --train.resume=latest", "6 SIGUSR1 to the launcher")
run.wait_for(r"step 1\d\d: validation mean Dice")
ranks = run.ranks()
run.to(run.launcher().pid, signal.SIGUSR1, "(the launcher)")
run.finish()
deadline = time.monotonic() + 60
while any(r.is_running() and r.status() != "zombie" for r in ranks) and time.monotonic() < deadline:
    time.sleep(0.5)
print(f"  ranks still running 60 s on: {[r.pid for r in ranks if r.is_running() and r.status() != 'zombie']}")
files("output/launch/checkpoints")

# 7. SIGTERM in the launch's first seconds (before the processes meet): the launch 143, nothing saved.
run = Run(f"{TRAIN} --train.output_dir=output/launch_early", "7 SIGTERM to the group 2 s after the start")
time.sleep(2.0)
run.group(signal.SIGTERM)
run.finish()
files("output/launch_early")
