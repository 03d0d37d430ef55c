# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_1_train_one.py > walk_1_train_one.txt 2>&1
# stopping.md "At a glance" (train's row), "Training: Ctrl-C", "Training: SIGTERM and SIGUSR1", "Training: stdout's
# reader gone", "What to do next": a one-process `accelerated-seg train` (and examples/train.py) stopped by each
# signal, timed after a line it prints ("step N: validation mean Dice", every 5 steps; a checkpoint every 5).
import json
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import CLONE, Run, files, setup  # noqa: E402

setup()
TRAIN = "accelerated-seg train --config tiny.yaml"


def summary(folder):
    path = CLONE / folder / "summary.json"
    if path.is_file():
        data = json.loads(path.read_text())
        print(f"  summary.json: preempted {data.get('preempted')}, step {data.get('step', data.get('steps'))}")
    else:
        print("  summary.json: not there")
    print(f"  model/ there: {(CLONE / folder / 'model').exists()}")


# 1. Ctrl-C mid-run: the line on stdout naming the newest whole checkpoint, 130.
run = Run(f"{TRAIN} --train.output_dir=output/one", "1 train, Ctrl-C after step 10's validation line")
run.wait_for(r"step 1[05]: validation mean Dice")
run.group(signal.SIGINT, "Ctrl-C")
run.finish()
files("output/one/checkpoints")

# 2. What to do next: the same command with --train.resume=latest; then SIGTERM after a validation line: saves.
run = Run(f"{TRAIN} --train.output_dir=output/one --train.resume=latest", "2 resume=latest, then SIGTERM")
run.wait_for(r"resumed from \S+ at step \d+")
run.wait_for(r"step (2|3)\d: validation mean Dice")
run.group(signal.SIGTERM)
run.finish()
files("output/one/checkpoints")
summary("output/one")

# 3. SIGUSR1 (to the group: the rank and its loader worker) mid-run: saves as SIGTERM, 0.
run = Run(f"{TRAIN} --train.output_dir=output/one --train.resume=latest", "3 resume again, then SIGUSR1")
run.wait_for(r"resumed from \S+ at step \d+")
run.wait_for(r"step (4|5)\d: validation mean Dice")
run.group(signal.SIGUSR1)
run.finish()
files("output/one/checkpoints")
summary("output/one")

# 4. The command's first seconds: SIGTERM (before train() runs) ends it at once with one line, 143.
for sig, after in ((signal.SIGTERM, 1.0), (signal.SIGINT, 1.0)):
    run = Run(f"{TRAIN} --train.output_dir=output/early_{sig.name}", f"4 {sig.name} {after} s after the start")
    time.sleep(after)
    run.group(sig)
    run.finish()
    files(f"output/early_{sig.name}")

# 5. SIGUSR1 in the first second: kept until the loop, acted on after the first step, 0.
run = Run(f"{TRAIN} --train.output_dir=output/early_usr1", "5 SIGUSR1 1 s after the start")
time.sleep(1.0)
run.group(signal.SIGUSR1)
run.finish()
files("output/early_usr1/checkpoints")
summary("output/early_usr1")

# 6. Ctrl-C in the setup (after the strategy line, before the first step): "before training began".
run = Run(f"{TRAIN} --train.output_dir=output/setup_int --data.cache_dir=cache_setup", "6 Ctrl-C in the setup")
run.wait_for(r"strategy: [^\n]*")
run.group(signal.SIGINT, "Ctrl-C")
run.finish()
files("output/setup_int")

# 7. examples/train.py, the script users launch: Ctrl-C and SIGTERM as train.
run = Run("python examples/train.py --config tiny.yaml --train.output_dir=output/script", "7 examples/train.py, Ctrl-C")
run.wait_for(r"step 10: validation mean Dice")
run.group(signal.SIGINT, "Ctrl-C")
run.finish()
run = Run("python examples/train.py --config tiny.yaml --train.output_dir=output/script --train.resume=latest",
          "7 examples/train.py resumed, SIGTERM")
run.wait_for(r"step (2|3)\d: validation mean Dice")
run.group(signal.SIGTERM)
run.finish()
files("output/script/checkpoints")

# 8. stdout's reader gone: `| head -1`; the run trains on to its end, 0.
run = Run(f"{TRAIN} --train.output_dir=output/head --train.max_steps=30 | head -1; "
          "echo \"PIPESTATUS train ${PIPESTATUS[0]} head ${PIPESTATUS[1]}\"", "8 train | head -1")
run.finish(show=__import__("re").compile(r"PIPESTATUS|Traceback|Broken|rror"))
print("  stdout:", bytes(run.out).decode(errors="replace")[:400])
files("output/head")
summary("output/head")
