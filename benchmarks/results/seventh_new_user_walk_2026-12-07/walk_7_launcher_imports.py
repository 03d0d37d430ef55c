# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_7_launcher_imports.py \
#   > walk_7_launcher_imports.txt 2>&1
# walk_4's 7th example again, its whole stderr shown: a terminal's Ctrl-C to `accelerate launch ... predict` 3 s after
# the start (stopping.md: "Before the processes have met ... Ctrl-C ends each at once ... the launch 130"), and
# where the launch's processes are there (timed after they appear), and 1 s after the start (the launcher's imports).
import re
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import LAUNCH, Run, setup  # noqa: E402

setup()
PREDICT = f"{LAUNCH} -m accelerated_seg predict --model output/model_run/model data/phantoms/imagesTr --tta all"
run = Run(f"{PREDICT} --output lpreds_early2", "Ctrl-C 3 s after the start")
time.sleep(3.0)
print(f"  processes under the launcher: {len(run.ranks())}")
run.group(signal.SIGINT, "Ctrl-C")
run.finish(show=re.compile("."))

run = Run(f"{PREDICT} --output lpreds_early3", "Ctrl-C 0.5 s after the launch's processes appear")
deadline = time.monotonic() + 60
while not run.ranks() and time.monotonic() < deadline:
    time.sleep(0.05)
print(f"  [{time.monotonic() - run.started:.1f} s] processes there")
time.sleep(0.5)
run.group(signal.SIGINT, "Ctrl-C")
run.finish(show=re.compile("."))

# In the launcher's own imports (accelerate launch importing torch, before it starts any process): 1 s in.
run = Run(f"{PREDICT} --output lpreds_early4", "Ctrl-C 1 s after the start (the launcher's imports)")
time.sleep(1.0)
print(f"  processes under the launcher: {len(run.ranks())}")
run.group(signal.SIGINT, "Ctrl-C")
run.finish(show=re.compile("."))
