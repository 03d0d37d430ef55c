# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_3_predict_one.py > walk_3_predict_one.txt 2>&1
# stopping.md "Predict, one process", "A second signal", "What to do next" (--continue): `accelerated-seg predict`
# of the 24 phantoms with walk_0's model (--tta all, so a case takes a moment), each signal sent after its first
# `wrote` line; then `| head -1`, the one-case form, and a stop in the first second.
import re
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import CLONE, Run, files, setup  # noqa: E402

setup()
PREDICT = "accelerated-seg predict --model output/model_run/model data/phantoms/imagesTr --tta all"

for number, sig in enumerate((signal.SIGINT, signal.SIGTERM, signal.SIGUSR1), 1):
    out = f"preds_{sig.name}"
    run = Run(f"{PREDICT} --output {out}", f"{number} predict, {sig.name} to the group after its first map")
    run.wait_for(r"wrote \S+")
    run.group(sig)
    run.finish()
    files(out, hidden_only=True)
    print(f"  maps: {len(list((CLONE / out).glob('*.nii.gz')))}")

# 4. What to do next: the same command with --continue.
run = Run(f"{PREDICT} --output preds_SIGINT --continue", "4 predict --continue after the Ctrl-C")
run.finish(show=re.compile(r"continu|pass|earlier|interrupt|rror|written|Traceback"))
files("preds_SIGINT", hidden_only=True)

# 5. A second signal: SIGTERM then SIGUSR1 0.1 s later: the first's line, the map finished.
run = Run(f"{PREDICT} --output preds_second", "5 SIGTERM then SIGUSR1 0.1 s later")
run.wait_for(r"wrote \S+")
run.group(signal.SIGTERM)
time.sleep(0.1)
run.group(signal.SIGUSR1)
run.finish()
files("preds_second", hidden_only=True)

# 6. A reader gone: | head -1, status 141, nothing said.
run = Run(f"{PREDICT} --output preds_head | head -1; echo \"PIPESTATUS predict ${{PIPESTATUS[0]}}\"",
          "6 predict | head -1")
run.finish(show=re.compile(r"PIPESTATUS|wrote|Traceback|Broken|rror|stopped"))
files("preds_head", hidden_only=True)

# 7. The first second: SIGTERM before it began.
run = Run(f"{PREDICT} --output preds_early", "7 SIGTERM 0.5 s after the start")
time.sleep(0.5)
run.group(signal.SIGTERM)
run.finish()
files("preds_early")

# 8. The one-case form (--input scan --output seg.nii.gz), SIGTERM as its `wrote` line is said or just before.
run = Run("accelerated-seg predict --model output/model_run/model --input data/phantoms/imagesTr/case_000.nii.gz "
          "--output one/seg.nii.gz --probabilities --tta all; sleep 0", "8 the one-case form, SIGTERM at its model line")
run.wait_for(r"(wrote|model|predict)[^\n]*")
run.group(signal.SIGTERM)
run.finish()
files("one")
