"""Review r127 of h146's keeping of a Ctrl-C dropped in a finalizer in training's setup: what a user sees on paths
h146's probe did not drive. Each case's SIGINT is sent from inside a weakref callback as the function named is
called (h146's signalled_in_a_weakref_callback.py, the worker of its probe, for the command line; here in-process for
the estimator), as one Ctrl-C lands by chance while importlib's module-lock callback runs.

- ``after_meeting``: 2 CPU processes (accelerate launch, gloo), rank 1 alone signalled once the processes have met
  (configured_run.checked_epoch, after the Accelerator): every rank should stop, the line once, each 130.
- ``predict_as_met``: 2 CPU processes of ``accelerated-seg predict``, rank 1 signalled as it calls ``process_state``
  (its rendezvous, where SIGINT is held: the interrupt is noted, and raised once the processes have met, inside
  ``_run_launched``'s block): what the others do.
- ``fit_main``: ``Segmentation.fit`` in this process's main thread (a notebook's kernel), signalled as its settings
  are checked: should raise KeyboardInterrupt, the line said, nothing trained.
- ``fit_thread``: the same fit in a worker thread (no signal reaches it: the SIGINT's handler runs on the main
  thread, so this sends nothing, and an OSError raised in a __del__ stands in for another unraisable): unchanged.
- ``fit_plain``: the same fit, a KeyboardInterrupt raised as its settings are checked (not dropped): the line a
  dropped one should now say too.
- ``other_unraisable``: one-process ``accelerated-seg train`` whose settings' check runs a __del__ that raises
  OSError (not an interrupt): Python's "Exception ignored" once, the run going on (status 0).

    cd <checkout> && PYTHONPATH=$PWD .venv/bin/python \
        benchmarks/results/review_dropped_interrupt_rank_start_2026-12-07/probe.py after_meeting fit_main fit_thread \
        other_unraisable
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = Path.cwd() / "tests"
PACKAGE = os.environ.get("PYTHONPATH", "")
sys.path.insert(0, str(TESTS))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from test_distributed import _free_port  # noqa: E402

WORKER = str(HERE.parent / "dropped_interrupt_rank_start_2026-12-07" / "signalled_in_a_weakref_callback.py")
LAUNCH = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
          "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no"]


def say(case: str, status, took: float, output: str, written: str) -> None:
    lines = [line for line in output.splitlines() if "interrupted" in line and "traceback :" not in line]
    print(f"{case}: status {status} in {took:.1f} s; lines saying it {lines}; 'Exception ignored' "
          f"{output.count('Exception ignored')}; tracebacks {output.count('Traceback')}; ranks' exit codes "
          f"{re.findall(r'exitcode  : (-?[0-9]+)', output)}; {written}", flush=True)
    if os.environ.get("PROBE_SHOW"):
        print("    " + "\n    ".join(output[-2500:].splitlines()))


def in_a_weakref_callback(action) -> None:
    class Finalized:
        pass

    def callback(_reference):
        action()

    finalized = Finalized()
    reference = weakref.ref(finalized, callback)
    del finalized
    assert reference() is None


def sigint_here() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    until = time.monotonic() + 0.5
    while time.monotonic() < until:
        pass


def raise_oserror() -> None:
    raise OSError(5, "a finalizer's own error")


def raise_keyboard_interrupt() -> None:
    raise KeyboardInterrupt


def patched_checks(action, in_a_callback: bool = True):
    import accelerated_seg.configured_run as configured_run

    checking = configured_run._checks_before_anything_is_written

    def calling(*args, **kwargs):
        in_a_weakref_callback(action) if in_a_callback else action()
        return checking(*args, **kwargs)

    configured_run._checks_before_anything_is_written = calling
    return lambda: setattr(configured_run, "_checks_before_anything_is_written", checking)


def fit(data_json: Path, out: Path) -> tuple[str, str]:
    """A tiny Segmentation fit; (what it raised or 'returned', what it said)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from accelerated_seg.estimator import Segmentation
    from accelerated_seg.estimator_dataset import Dataset

    from accelerated_seg.data.manifest import load_msd

    manifest = load_msd(data_json)
    pairs = [[(str(c.images[0]), str(c.label)) for c in cases] for cases in (manifest.training, manifest.validation)]
    data = Dataset.from_files(pairs[0], block_shape=(16, 16, 16), n_classes=3, validation_pairs=pairs[1],
                              cache_dir=str(data_json.parent / "cache"), num_workers=0,
                              spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(out), val_every=0, save_every=0, trackers="none", progress_bar=False)
    said = io.StringIO()
    try:
        with redirect_stdout(said), redirect_stderr(said):
            model.fit(data, steps=2)
        return "returned", said.getvalue()
    except BaseException as error:  # noqa: BLE001 - the probe reports it
        return f"raised {type(error).__name__}({error})", said.getvalue()


def main(cases: list[str]) -> None:
    base = {**os.environ, "OMP_NUM_THREADS": "1", "ACCELERATE_USE_CPU": "true", "PYTHONPATH": PACKAGE}
    with tempfile.TemporaryDirectory() as top:
        top = Path(top)
        data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0,
                                       size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        train = ["train", *tiny_overrides(data, top / "out", **{"train.max_steps": 2, "train.val_every": 0})]
        for case in cases:
            out = top / "out"
            started = time.monotonic()
            if case == "after_meeting":
                env = {**base, "SIGNAL_RANK": "1", "SIGNAL_IN": "accelerated_seg.configured_run:checked_epoch"}
                done = subprocess.run([*LAUNCH, "--main_process_port", str(_free_port()), WORKER, *train], env=env,
                                      capture_output=True, text=True, timeout=300, start_new_session=True)
                say(case, done.returncode, time.monotonic() - started, done.stdout + done.stderr,
                    f"model/ written {(out / 'model').is_dir()}")
            elif case == "predict_as_met":
                model = top / "model_run"
                if not (model / "model").is_dir():  # a real export to predict with, trained unpatched
                    subprocess.run([sys.executable, "-m", "accelerated_seg", "train",
                                    *tiny_overrides(data, model, **{"train.max_steps": 1, "train.val_every": 0})],
                                   env=base, capture_output=True, timeout=300, check=True)
                maps = top / "maps"
                env = {**base, "SIGNAL_RANK": "1", "SIGNAL_IN": "accelerated_seg.inference_distributed:process_state"}
                done = subprocess.run([*LAUNCH, "--main_process_port", str(_free_port()), WORKER, "predict", "--model",
                                       str(model / "model"), str(data.parent / "imagesTr"), "--output", str(maps)],
                                      env=env, capture_output=True, text=True, timeout=300, start_new_session=True)
                written = sorted(path.name for path in maps.glob("*.nii.gz")) if maps.is_dir() else []
                say(case, done.returncode, time.monotonic() - started, done.stdout + done.stderr,
                    f"maps written {len(written)}")
                subprocess.run(["rm", "-rf", str(maps)], check=True)
            elif case in ("fit_main", "fit_thread", "fit_plain"):
                signal.signal(signal.SIGINT, signal.default_int_handler)
                stderr = sys.stderr
                put_back = patched_checks({"fit_main": sigint_here, "fit_thread": raise_oserror,
                                           "fit_plain": raise_keyboard_interrupt}[case], case != "fit_plain")
                result = {}
                try:
                    if case != "fit_thread":
                        result["fit"] = fit(data, out)
                    else:
                        worker = threading.Thread(target=lambda: result.update(fit=fit(data, out)))
                        worker.start()
                        worker.join()
                finally:
                    put_back()
                what, said = result["fit"]
                print(f"{case}: fit {what}; said: {[line for line in said.splitlines() if 'interrupted' in line]}; "
                      f"'Exception ignored' {said.count('Exception ignored')}; "
                      f"model/ written {(out / 'model').is_dir()}", file=stderr, flush=True)
            elif case == "other_unraisable":
                script = ("import sys, weakref, accelerated_seg.configured_run as c\n"
                          "from accelerated_seg.cli import end_process, main\n"
                          "checking = c._checks_before_anything_is_written\n"
                          "class Finalized:\n"
                          "    def __del__(self):\n"
                          "        raise OSError(5, \"a finalizer's own error\")\n"
                          "def calling(*a, **k):\n"
                          "    Finalized()\n"
                          "    return checking(*a, **k)\n"
                          "c._checks_before_anything_is_written = calling\n"
                          "end_process(main(sys.argv[1:]))\n")
                done = subprocess.run([sys.executable, "-c", script, *train], env=base, capture_output=True,
                                      text=True, timeout=300)
                output = done.stdout + done.stderr
                say(case, done.returncode, time.monotonic() - started, output,
                    f"'a finalizer's own error' said {output.count('a finalizer')}; "
                    f"model/ written {(out / 'model').is_dir()}")
            subprocess.run(["rm", "-rf", str(out)], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
