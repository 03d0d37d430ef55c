"""Review r113, probe 3: `accelerated-seg cache DATASET`, its dataset.json a link to nothing (h128's Left: the cache
command's _cache_folder_given_as_dataset passes such a link over as no file): what is said.

Run: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_r113_2026-12-07/probe_cache.py \
    > benchmarks/results/review_r113_2026-12-07/cache_<when>.txt
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

tmp = Path(tempfile.mkdtemp())
folder = tmp / "Task01"
(folder / "imagesTr").mkdir(parents=True)
os.symlink("/mnt/not_mounted/Task01/dataset.json", folder / "dataset.json")
for extra in ([], ["--cache-dir", str(tmp / "cache")]):
    done = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "cache", str(folder), *extra],
                          capture_output=True, text=True, cwd=tmp)
    print(f"cache Task01 {' '.join(extra).replace(str(tmp), '<tmp>')}: status {done.returncode}")
    print((done.stdout + done.stderr).replace(str(tmp), "<tmp>").strip())
