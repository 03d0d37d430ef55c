"""Command: cd <checkout> && PYTHONPATH=<checkout>:<checkout>/tests python \
    benchmarks/results/review_estimator_process_lost_2026-12-06/killed_in_a_resumes_setup.py
A new estimator's fit(..., resume='latest') of a folder holding step_2, its launch losing a process before the run
wrote anything there (run_info.json not yet rewritten: killed in the setup), stood in for by the launch raising the
ProcessLost process_lost_in_the_launch makes (no launch: what fit makes of it is the question). Does the error's
``checkpoint`` name the checkpoint its message offers to resume from?"""
import tempfile
from pathlib import Path

import accelerated_seg.estimator as estimator
from accelerated_seg import ProcessLost
from accelerated_seg.data.synthetic import write_synthetic_dataset
from test_estimator import _tiny_segmentation

top = Path(tempfile.mkdtemp(prefix="review_killed_in_setup_"))
ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                             spacing_mm=2.0)
first, data = _tiny_segmentation(ds, top, save_every=2)
first.fit(data, steps=2)  # one process: step_2 saved, the run's run_info.json written


def killed_in_the_setup(cfg, manifest, processes, mixed_precision, out):
    raise ProcessLost("fit: process 1 of 2 died of SIGKILL, and the other processes stopped", 1, 2, "SIGKILL", 2)


estimator.gpus_to_launch = lambda: 2
estimator._trained_in_launched_processes = killed_in_the_setup
again, data = _tiny_segmentation(ds, top, multi_gpu=True)
try:
    again.fit(data, steps=4, resume="latest")
except ProcessLost as lost:
    print("message:", lost)
    print("checkpoint:", lost.checkpoint, "step:", lost.step)
    print("repr:", repr(again)[-400:])
