# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_6_second_signal.py > walk_6_second_signal.txt 2>&1
# and, before the fix (main's code, /work/main at a0fde56d): WALK_CODE=/work/main ... > walk_6_second_signal_before.txt
# walk_6_second_signal.txt's train part ran before the second commit (train's own fix); with it:
# WALK_PARTS=train ... > walk_6_second_signal_train_after.txt
# stopping.md "A second signal": "The ... stopped by SIGTERM handling (the one-process commands, predict) acts on the
# first SIGTERM or SIGUSR1 alone: a second, of either, changes nothing (the case being written is still finished and
# said, the line names the first)"; "Training records SIGTERM and SIGUSR1: a second is the same notice." Here the
# second comes once the first's line is said (as the process ends): predict (SIGTERM, then SIGUSR1 or SIGTERM) and
# train (SIGTERM, then SIGTERM), each 3 times. A program reading the status: 143 (-15, -10 where the second killed it).
import os
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import Run, setup  # noqa: E402

setup()
TAG = "before" if os.environ.get("WALK_CODE") else "after"  # fresh folders for each run of the probe
PARTS = os.environ.get("WALK_PARTS", "predict,train").split(",")  # WALK_PARTS=train: the training part alone
TAG += "" if PARTS == ["predict", "train"] else "_" + "_".join(PARTS)
PREDICT = "accelerated-seg predict --model output/model_run/model data/phantoms/imagesTr --tta all"
for first, second in ((signal.SIGTERM, signal.SIGUSR1), (signal.SIGTERM, signal.SIGTERM)) * ("predict" in PARTS):
    for attempt in range(3):
        run = Run(f"{PREDICT} --output preds_second_{TAG}_{attempt}_{second.name}",
                  f"predict: {first.name}, then {second.name} once its line is said ({attempt + 1})")
        run.wait_for(r"wrote \S+")
        run.group(first)
        said = run.wait_for(r"predict stopped by \w+", timeout=30)
        if run.process.poll() is None:
            run.group(second, f"{second.name} (second)")
        else:
            print("  ended before the second")
        run.finish()

for attempt in range(4 if "train" in PARTS else 0):
    run = Run(f"accelerated-seg train --config tiny.yaml --train.output_dir=output/second_{TAG}_{attempt}",
              f"train: SIGTERM, then SIGTERM once its preempted line is said ({attempt + 1})")
    run.wait_for(r"step 10: validation mean Dice")
    run.group(signal.SIGTERM)
    run.wait_for(r"preempted: [^\n]*", timeout=60)
    if run.process.poll() is None:
        run.group(signal.SIGTERM, "SIGTERM (second)")
    else:
        print("  ended before the second")
    run.finish()
    time.sleep(0.5)
