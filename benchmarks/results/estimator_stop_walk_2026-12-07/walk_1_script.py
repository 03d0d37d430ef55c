# cd benchmarks/results/estimator_stop_walk_2026-12-07 && /work/main/.venv/bin/python walk_1_script.py \
#   > walk_1_script.txt 2>&1          (H141_CODE=/work/main for main's code; the worktree's by default)
# stopping.md, "The estimator and notebooks", from a script: walk_user_fit.py's Segmentation(...).fit in a fresh
# temporary folder, stopped by SIGTERM after a step (A), resumed with resume="latest" (B), stopped by Ctrl-C (C),
# stopped by SIGTERM after a validation exported best_model/ (D). Each: its lines, status, checkpoints, what the
# estimator says after (repr, predict, evaluate, save).
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import probe_lib
from probe_lib import Run

HERE = Path(__file__).resolve().parent
walk = Path(tempfile.mkdtemp(prefix="h141_walk_"))
probe_lib.HOME = walk  # Run's working folder
shutil.copy(HERE / "walk_user_fit.py", walk)
print(f"code: {probe_lib.CODE}; folder: {walk}")


def checkpoints():
    folder = walk / "runs" / "segmentation"
    listing = sorted(p.name for p in (folder / "checkpoints").iterdir()) if (folder / "checkpoints").is_dir() else []
    hidden = sorted(str(p.relative_to(folder)) for p in folder.rglob(".*"))
    exports = [name for name in ("model", "best_model") if (folder / name).is_dir()]
    print(f"  checkpoints {listing}; hidden {hidden}; exports {exports}", flush=True)


def said(run, keep=r"^(WALK|preempted|interrupted|resuming|Traceback|KeyboardInterrupt|step \d+: valid|note|warning)"):
    for line in re.split(r"[\r\n]", run.text()):
        if re.search(keep, line.strip()):
            print(f"  | {line.strip()}", flush=True)


Run([sys.executable, "-m", "accelerated_seg", "synth", "data", "--cases", "10", "--validation", "2"], "setup").finish()

run = Run([sys.executable, "walk_user_fit.py"], "A: SIGTERM after step 7 (a job's notice)")
run.wait_for(r"\b7/200 \[", timeout=300)
run.group(signal.SIGTERM)
run.finish(tail=0)
said(run)
checkpoints()

run = Run([sys.executable, "walk_user_fit.py", "--resume", "--steps", "12"], "B: fit(..., resume='latest') to step 12")
run.finish()
said(run)
checkpoints()

run = Run([sys.executable, "walk_user_fit.py"], "C: Ctrl-C (SIGINT to the group) after step 7 of a new run")
run.wait_for(r"\b7/200 \[", timeout=300)
run.group(signal.SIGINT)
run.finish()
said(run)
checkpoints()

run = Run([sys.executable, "walk_user_fit.py", "--validate"], "D: SIGTERM after step 7, a validation at step 5")
run.wait_for(r"\b7/200 \[", timeout=300)
run.group(signal.SIGTERM)
run.finish()
said(run)
checkpoints()
