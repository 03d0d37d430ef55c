"""Command: cd <checkout> && PYTHONPATH=<checkout>:<checkout>/tests python \
    benchmarks/results/estimator_process_lost_2026-12-06/estimator_fit_killed.py  (KILL_RANK=0: the main process)
The estimator's own launch (Segmentation(..., multi_gpu=True).fit, notebook_launcher's two CPU processes, gloo):
process 1 (KILL_RANK) SIGKILLs itself at its third step's forward (step_2 saved), as the OOM killer would. What fit raises and
how long after the kill, what repr says after, and whether fit(..., resume='latest') continues from the checkpoint.
(The review's estimator_fit.py in review_training_peer_lost_2026-12-06, with the resume added.)"""
import os
import signal
import tempfile
import time
import traceback
from pathlib import Path

os.environ.update(ACCELERATE_USE_CPU="true", OMP_NUM_THREADS="1")
import accelerated_seg.estimator as estimator  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from faults import loss_forward_with  # noqa: E402
from monai.losses import DiceCELoss  # noqa: E402
from test_estimator import _tiny_segmentation  # noqa: E402

top = Path(tempfile.mkdtemp(prefix="estimator_process_lost_"))
ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                             spacing_mm=2.0)
estimator.gpus_to_launch = lambda: 2
forward = DiceCELoss.forward


def killed(call, loss):
    if call == 2 and os.environ.get("RANK") == os.environ.get("KILL_RANK", "1"):
        (top / "killed").write_text(repr(time.time()))
        os.kill(os.getpid(), signal.SIGKILL)
    return loss


DiceCELoss.forward = loss_forward_with(killed)
model, data = _tiny_segmentation(ds, top, multi_gpu=True, save_every=2)
try:
    model.fit(data, steps=6)
    print("fit returned", model.summary)
except BaseException as error:  # noqa: BLE001 - what a user sees
    ended = time.time()
    print(f"fit raised {type(error).__module__}.{type(error).__name__} "
          f"{ended - float((top / 'killed').read_text()):.2f} s after the kill:")
    print("".join(traceback.format_exception_only(type(error), error))[:1500])
    print("its attributes:", {name: getattr(error, name) for name in ("process", "signal", "step", "checkpoint")
                               if hasattr(error, name)})
print("repr after:", repr(model)[:600])
print("checkpoints/:", sorted(p.name for p in (top / "run" / "checkpoints").iterdir()))
DiceCELoss.forward = forward
try:
    model.fit(data, steps=6, resume="latest")
    print("resume: fit returned, step", model.summary["step"], "; repr:", repr(model)[:300])
except BaseException as error:  # noqa: BLE001
    print("resume raised", type(error).__name__, str(error)[:800])
