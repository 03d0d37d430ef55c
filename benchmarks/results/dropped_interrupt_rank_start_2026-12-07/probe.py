"""One SIGINT that lands inside a weakref callback (as in importlib's module-lock callback ``_get_module_lock.<locals>.
cb``, docs/known_issues.md) in a training's or a launched predict's start, before its processes meet: what a user
sees. Each case runs ``accelerated-seg`` through signalled_in_a_weakref_callback.py (the console script's main, the
signal sent by the process itself from inside the callback as it calls the function named):

- ``train1``: one process, ``accelerated-seg train``, signalled as it checks its settings
  (configured_run._checks_before_anything_is_written, after PreemptionSignals hands SIGINT back to Python);
- ``train2``: 2 CPU processes (accelerate launch, gloo), rank 1 alone signalled there (``kill -INT`` of one rank);
- ``predict2``: 2 CPU processes of ``accelerated-seg predict``, rank 1 alone signalled as it checks its options
  (predict_command._checked_options, its imports of the inference stack inside).

Printed for each: the status, the seconds in all, the lines saying the interrupt, the "Exception ignored" count, the
tracebacks, the ranks' exit codes in torch's table, and what was written (the run's model/, predict's maps).

    cd <checkout> && PYTHONPATH=$PWD .venv/bin/python benchmarks/results/dropped_interrupt_rank_start_2026-12-07/probe.py \
        train1 train2 predict2

The package imported is the one on PYTHONPATH: main's before, the branch's after. Needs tests/ of the checkout.
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = Path.cwd() / "tests"
PACKAGE = os.environ.get("PYTHONPATH", "")  # read before conftest puts the tests' checkout in front of it
sys.path.insert(0, str(TESTS))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from test_distributed import _free_port  # noqa: E402

WORKER = str(HERE / "signalled_in_a_weakref_callback.py")
LAUNCH = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
          "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no"]


def run(command: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, start_new_session=True)
    return done, time.monotonic() - started


def say(case: str, done: subprocess.CompletedProcess, took: float, written: str) -> None:
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if "interrupted" in line and "traceback :" not in line]
    print(f"{case}: status {done.returncode} in {took:.1f} s; lines saying it {lines}; 'Exception ignored' "
          f"{output.count('Exception ignored')}; tracebacks {output.count('Traceback')}; ranks' exit codes "
          f"{re.findall(r'exitcode  : (-?[0-9]+)', output)}; {written}", flush=True)
    if os.environ.get("PROBE_SHOW"):
        print("    " + "\n    ".join(output[-3000:].splitlines()))
    assert f"package: {PACKAGE}/accelerated_seg/" in done.stdout, done.stdout[:500]  # the package measured


def main(cases: list[str]) -> None:
    base = {**os.environ, "OMP_NUM_THREADS": "1", "ACCELERATE_USE_CPU": "true", "PYTHONPATH": PACKAGE}
    with tempfile.TemporaryDirectory() as top:
        top = Path(top)
        data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0,
                                       size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        train = ["train", *tiny_overrides(data, top / "out", **{"train.max_steps": 2, "train.val_every": 0})]
        for case in cases:
            out = top / "out"
            if case == "train1":
                env = {**base, "SIGNAL_RANK": "0",
                       "SIGNAL_IN": "accelerated_seg.configured_run:_checks_before_anything_is_written"}
                done, took = run([sys.executable, WORKER, *train], env)
                say(case, done, took, f"model/ written {(out / 'model').is_dir()}")
            elif case == "train2":
                env = {**base, "SIGNAL_RANK": "1",
                       "SIGNAL_IN": "accelerated_seg.configured_run:_checks_before_anything_is_written"}
                done, took = run([*LAUNCH, "--main_process_port", str(_free_port()), WORKER, *train], env)
                say(case, done, took, f"model/ written {(out / 'model').is_dir()}")
            elif case == "predict2":
                model = top / "model_run"
                if not (model / "model").is_dir():  # a real export to predict with, trained unpatched
                    subprocess.run([sys.executable, "-m", "accelerated_seg", "train",
                                    *tiny_overrides(data, model, **{"train.max_steps": 1, "train.val_every": 0})],
                                   env=base, capture_output=True, timeout=300, check=True)
                maps = top / "maps"
                env = {**base, "SIGNAL_RANK": "1", "SIGNAL_IN": "accelerated_seg.predict_command:_checked_options"}
                done, took = run([*LAUNCH, "--main_process_port", str(_free_port()), WORKER, "predict", "--model",
                                  str(model / "model"), str(data.parent / "imagesTr"), "--output", str(maps)], env)
                written = sorted(path.name for path in maps.glob("*.nii.gz")) if maps.is_dir() else []
                say(case, done, took, f"maps written {len(written)}")
            subprocess.run(["rm", "-rf", str(out), str(top / "maps")], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
