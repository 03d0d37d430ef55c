"""cd /tmp/walk_h150/clone && python /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/walk_6b_estimator.py \
    > /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/walk_6b_estimator.txt 2>&1  (after `source env.sh`)

docs/planning.md, "Before a CPU run": "The estimator says it in its words (block_shape [400, 400, 400] at batch_size 2
... Lower block_shape or batch_size, or set activation_checkpointing=True)", before anything is written (walk 6's
heredoc of this was refused: a loader's workers need the script as a file). 16 GB of address space at most.
"""
import os
import resource
import sys
from pathlib import Path

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset

if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_AS, (16 * 10**9, 16 * 10**9))  # a step let through fails, not the OOM killer
    T = Path(os.environ["T"])
    phantoms = load_msd(ensure_synthetic_dataset(str(T / "cpu_run/data"), num_cases=6, num_validation=2))
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
    data = Dataset.from_files(pairs, block_shape=400, n_classes=3).batch(2)
    try:
        Segmentation("unet", output_dir=str(T / "cpu_run/estimator")).fit(data, steps=1)
    except Exception as error:
        print(type(error).__name__, error)
    print("written:", sorted(str(p.relative_to(T)) for p in (T / "cpu_run/estimator").rglob("*"))
          if (T / "cpu_run/estimator").exists() else "nothing")
    sys.stdout.flush()
