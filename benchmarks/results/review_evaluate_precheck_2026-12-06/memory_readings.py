"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/review_evaluate_precheck_2026-12-06/memory_readings.py <empty folder> > memory_readings.txt
Review of helper h106: evaluate's header check refuses a case whose resampling would not fit the memory available
when it checks (refuse_beyond_host_memory, per case, not summed); predict judges each case again while the cases are
predicted, pipelined (the next read while the network runs). Is the check's reading a fair one? Every call of
host_memory.memory_available is recorded, by whom (the header check, or predict's prepare_case), during one evaluate
of 6 phantoms that passes; printed: each reading in MiB. The check refuses a case predict would take only where
more memory is free at a case's prediction than when the check ran."""
import sys
import traceback
import warnings
from pathlib import Path

import accelerated_seg.inference_reading as inference_reading
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.host_memory import memory_available
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
data = load_msd(write_synthetic_dataset(root / "data", num_cases=8, num_validation=6, seed=0,
                                        size_mm=(96.0, 96.0, 80.0), spacing_mm=1.0))
readings = []


def recorded():
    said = memory_available()
    caller = "header check" if any("estimator_predict_checks" in frame.filename
                                   for frame in traceback.extract_stack()) else "predict's prepare_case"
    readings.append((caller, said))
    return said


inference_reading.memory_available = recorded
dataset = Dataset.from_files([(str(c.images[0]), str(c.label)) for c in data.training], block_shape=16, n_classes=3,
                             validation_pairs=[(str(c.images[0]), str(c.label)) for c in data.validation],
                             num_workers=0, cache_dir=str(root / "cache"))
summary = Segmentation.load(export(root / "model", spacing=(1.0,) * 3)).evaluate(dataset, output_dir=root / "out")
print("scored", summary["num_cases"], "cases; memory_available's readings (MiB), in order:")
for caller, said in readings:
    print(f"  {caller}: {said / 2**20:,.0f}")
checks = [said for caller, said in readings if caller == "header check"]
predicts = [said for caller, said in readings if caller != "header check"]
print(f"header check: min {min(checks) / 2**20:,.0f}; predict: max {max(predicts) / 2**20:,.0f}, "
      f"min {min(predicts) / 2**20:,.0f}")
