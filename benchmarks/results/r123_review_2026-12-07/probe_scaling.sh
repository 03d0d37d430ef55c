#!/bin/bash
# cd /tmp/wt_r123 && bash benchmarks/results/r123_review_2026-12-07/probe_scaling.sh > benchmarks/results/r123_review_2026-12-07/probe_scaling.txt 2>&1
# scaling_projection.py's refusal against the session routines: the CPU session's r1 pair, a rerun with r1-r3,
# a GPU-like pair (a one-GPU run, not launched, of 16 torch threads against a launched 2-GPU run: accelerate
# launch sets OMP_NUM_THREADS=1 where it is unset), an older file lacking fields, --assume alone.
PY=${PYTHON:-/work/main/.venv/bin/python}
T=$(mktemp -d)
S=$(ls -d benchmarks/results/train_2cpu/session_* | tail -1)
echo "== cpu_session.sh's call, $S r1"
$PY benchmarks/scaling_projection.py --one $S/unet64_1proc_r1.json --measured $S/unet64_2proc_r1.json \
    --output $T/s.json | tail -2; echo "exit $?"
R=benchmarks/results/train_2cpu
for f in $(ls -d $R/session_* | sort -r); do
  if [ -e $f/unet64_1proc_r3.json ]; then
    echo "== rerun r1-r3 $f"
    $PY benchmarks/scaling_projection.py --one $f/unet64_1proc_r{1,2,3}.json --measured $f/unet64_2proc_r{1,2,3}.json \
        2>&1 | tail -1; break
  fi
done
$PY - "$S" "$T" <<'PYEOF'
import json, sys
from pathlib import Path
s, t = Path(sys.argv[1]), Path(sys.argv[2])
one, two = (json.loads((s / f"unet64_{n}proc_r1.json").read_text()) for n in (1, 2))
# a one-GPU run not launched: torch's threads are the cores (16); a 2-GPU launch: OMP_NUM_THREADS=1
for result, threads, device in ((one, 16, "cuda"), (two, 1, "cuda")):
    result["settings"]["torch_threads"] = threads
    result["runs"][0]["strategy"] = result["runs"][0]["strategy"].replace("device cpu", "device cuda")
(t / "gpu1.json").write_text(json.dumps(one)); (t / "gpu2.json").write_text(json.dumps(two))
old = json.loads((s / "unet64_1proc_r1.json").read_text())
for key in ("augment_on", "num_workers", "data"):
    old["runs"][0].pop(key, None)
(t / "old1.json").write_text(json.dumps(old))
PYEOF
echo "== GPU-like pair: 1 GPU (16 torch threads, not launched) against 2 GPUs launched (1 thread)"
$PY benchmarks/scaling_projection.py --one $T/gpu1.json --measured $T/gpu2.json 2>&1 | tail -1
echo "== an older one-process file without data, num_workers, augment_on, against today's 2-process file"
$PY benchmarks/scaling_projection.py --one $T/old1.json --measured $S/unet64_2proc_r1.json 2>&1 | tail -1
echo "== --assume alone with a one-process file"
$PY benchmarks/scaling_projection.py --one $S/unet64_1proc_r1.json --assume mlperf 14.3 9 76 2>&1 | tail -1
rm -rf "$T"
