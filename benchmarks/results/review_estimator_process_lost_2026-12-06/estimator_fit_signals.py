"""Command: cd <checkout> && MODE=<mode> PYTHONPATH=<checkout>:<checkout>/tests python \
    benchmarks/results/review_estimator_process_lost_2026-12-06/estimator_fit_signals.py
The review of h80's ProcessLost (estimator_process_lost.py): the estimator's own launch (2 CPU processes, gloo, 4 steps,
save_every=2), one process ending on a signal other than the OOM killer's mid-run kill. MODE:
  abort_at_exit  process 1 SIGABRTs once train has returned in it (the fit finished: gloo's abort at exit, DESIGN.md)
  abort_at_exit0 the same, process 0 (the main process, which wrote the summary and the export)
  abort_at_once  process 1 SIGABRTs as soon as train has returned in it (no wait for the main process's summary)
  segv           process 1 segfaults (a real SIGSEGV: ctypes reads address 0) at its third step's forward
  early          process 1 SIGKILLed at its first forward (no checkpoint yet)
  kill_bar       process 1 SIGKILLed at its third step's forward, the progress bar on (the resume's too): no hang
What fit raises, repr, what the run folder holds, then fit(..., resume='latest')."""
import ctypes
import faulthandler
import os
import signal
import tempfile
import time
import traceback
from pathlib import Path

os.environ.update(ACCELERATE_USE_CPU="true", OMP_NUM_THREADS="1")
import accelerated_seg.estimator as estimator  # noqa: E402
import accelerated_seg.estimator_launch as estimator_launch  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from faults import loss_forward_with  # noqa: E402
from monai.losses import DiceCELoss  # noqa: E402
from test_estimator import _tiny_segmentation  # noqa: E402

MODE = os.environ["MODE"]
top = Path(tempfile.mkdtemp(prefix="review_process_lost_"))
ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                             spacing_mm=2.0)
estimator.gpus_to_launch = lambda: 2
forward, exit_once_returned = DiceCELoss.forward, estimator_launch._exit_once_returned


def at_forward(call, loss):
    if os.environ.get("RANK") == "1":
        if MODE == "segv" and call == 2:
            faulthandler.disable()
            ctypes.string_at(0)
        if (MODE == "early" and call == 0) or (MODE == "kill_bar" and call == 2):
            os.kill(os.getpid(), signal.SIGKILL)
    return loss


def abort_once_returned():
    if os.environ.get("RANK") == ("0" if MODE == "abort_at_exit0" else "1"):
        if MODE != "abort_at_once":
            time.sleep(1.0)  # the other process's export and summary written meanwhile (the main process's own here)
        os.kill(os.getpid(), signal.SIGABRT)
    exit_once_returned()


DiceCELoss.forward = loss_forward_with(at_forward)
if MODE.startswith("abort_at"):
    estimator_launch._exit_once_returned = abort_once_returned
model, data = _tiny_segmentation(ds, top, multi_gpu=True, save_every=2, progress_bar=MODE == "kill_bar")
try:
    model.fit(data, steps=4)
    print("fit returned", model.summary)
except BaseException as error:  # noqa: BLE001 - what a user sees
    print(f"fit raised {type(error).__module__}.{type(error).__name__}:")
    print("".join(traceback.format_exception_only(type(error), error))[:1500])
print("repr after:", repr(model)[:700])
run = top / "run"
print("run/:", sorted(p.name for p in run.iterdir()), "checkpoints/:",
      sorted(p.name for p in (run / "checkpoints").iterdir()) if (run / "checkpoints").is_dir() else None)
if (run / "summary.json").is_file():
    print("summary.json:", (run / "summary.json").read_text()[:300])
DiceCELoss.forward, estimator_launch._exit_once_returned = forward, exit_once_returned
resumed_at = time.time()
try:
    model.fit(data, steps=4, resume="latest")
    print(f"resume took {time.time() - resumed_at:.1f} s")
    print("resume: fit returned, step", model.summary["step"], "; repr:", repr(model)[:300])
except BaseException as error:  # noqa: BLE001
    print("resume raised", type(error).__name__, str(error)[:800])
