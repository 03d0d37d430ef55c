# cd /tmp/wt_r117 && PYTHONPATH=/tmp/wt_r117 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   benchmarks/results/r117_review_2026-12-07/probe_3_resume_without_run_info.py \
#   > benchmarks/results/r117_review_2026-12-07/probe_3_resume_without_run_info.txt 2>&1
# r117: the refusal of a folder holding checkpoints but no run_info.json still offers --train.resume=latest (as
# before the fix): is that way on true? A real run's folder with its run_info.json removed, resumed.
import sys, tempfile, warnings
from pathlib import Path
sys.path.insert(0, "/tmp/wt_r117/tests")
warnings.simplefilter("ignore")
from conftest import tiny_overrides
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.train import train
root = Path(tempfile.mkdtemp())
data = write_synthetic_dataset(root / "d", num_cases=5, num_validation=1, seed=0, size_mm=(32.0, 32.0, 32.0),
                               spacing_mm=2.0)
run = root / "run"
cfg = lambda **kw: load_config(None, tiny_overrides(data, run, **{"train.val_every": 0, **kw}))
print("first run:", train(cfg(**{"train.max_steps": 2, "train.save_every": 2}))["step"])
(run / "run_info.json").unlink()
try:
    train(cfg(**{"train.max_steps": 4}))
except ConfigError as e:
    print("new run:", str(e).replace(str(root), "…"))
print("resumed:", train(cfg(**{"train.max_steps": 4, "train.resume": "latest"}))["step"], "run_info.json again:",
      (run / "run_info.json").is_file())
