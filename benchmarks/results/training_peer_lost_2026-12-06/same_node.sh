#!/bin/bash
# The hundred-and-fifteenth session: the same kill on ONE node (one launch of two processes), whose agent sees the death
# and sends SIGTERM (a notice to save, to training). Usage: same_node.sh <checkout>  (run from the worktree /tmp/wt_h77)
CHECKOUT=$1; T=$(mktemp -d)
cd /tmp/wt_h77
PYTHONPATH=$CHECKOUT:/tmp/wt_h77/tests /work/main/.venv/bin/python - "$T" <<'PY'
import sys; from pathlib import Path
from accelerated_seg.data.synthetic import write_synthetic_dataset
from conftest import tiny_overrides
top = Path(sys.argv[1]); ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
(top / "args").write_text("\n".join(tiny_overrides(ds, top / "run", **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})))
PY
mapfile -t ARGS < $T/args
ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 KILLED_RANK=1 KILLED_CALL=2 KILLED_AT=$T/killed PYTHONPATH=$CHECKOUT:/tmp/wt_h77/tests \
  /work/main/.venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --main_process_port 29577 --mixed_precision no --dynamo_backend no /tmp/wt_h77/tests/killed_in_training_cli.py "${ARGS[@]}" > $T/out 2> $T/err
rc=$?; end=$(date +%s.%N)
echo "status $rc; ended $(python3 -c "print(round($end - float(open('$T/killed').read()), 2))") s after the kill"
grep -E "^error: |Traceback|exitcode" $T/err | cut -c1-250
