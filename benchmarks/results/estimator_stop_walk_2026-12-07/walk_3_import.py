# cd benchmarks/results/estimator_stop_walk_2026-12-07 && /work/main/.venv/bin/python walk_3_import.py \
#   > walk_3_import.txt 2>&1
# stopping.md, "The estimator and notebooks": "A Ctrl-C in the first second or two of a session's first fit ... while a
# package imports, is held until that import is done (`interrupt: a module is being imported; stopping once it is
# ...`)". walk_user_fit.py in a fresh folder, SIGINT to its group 0.1-0.8 s after it prints "WALK fit begins" (the
# line before its first fit): what it says, its status.
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import probe_lib
from probe_lib import Run

HERE = Path(__file__).resolve().parent
walk = Path(tempfile.mkdtemp(prefix="h141_import_"))
probe_lib.HOME = walk
shutil.copy(HERE / "walk_user_fit.py", walk)
print(f"code: {probe_lib.CODE}; folder: {walk}")
Run([sys.executable, "-m", "accelerated_seg", "synth", "data", "--cases", "10", "--validation", "2"], "setup").finish()
for delay in (0.1, 0.3, 0.5, 0.8):
    run = Run([sys.executable, "walk_user_fit.py"], f"Ctrl-C {delay} s after 'WALK fit begins'")
    run.wait_for("WALK fit begins", timeout=120)
    time.sleep(delay)
    run.group(signal.SIGINT)
    run.finish()
    for line in re.split(r"[\r\n]", run.text()):
        if re.search(r"^(interrupt|WALK|KeyboardInterrupt|Traceback)", line.strip()):
            print(f"  | {line.strip()}", flush=True)
