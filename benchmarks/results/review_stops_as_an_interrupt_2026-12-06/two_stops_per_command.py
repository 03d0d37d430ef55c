"""Each one-process command cli.py wraps (synth, evaluate, export), stopped mid-work as tests/terminated_mid_work.py
stops it (its first signal sent on the main thread), and, where asked, a second signal sent by a timer thread
DELAY s after the first: status, last stderr line, and what is left beside the outputs (.tmp/.partial).

    cd /tmp/wt_r93 && PYTHONPATH=/tmp/wt_r93:/tmp/wt_r93/tests /work/main/.venv/bin/python \
        benchmarks/results/review_stops_as_an_interrupt_2026-12-06/two_stops_per_command.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests"))

#: Run as the command: terminated_mid_work's stop, and a timer sending SECOND_SIGNAL DELAY s after the first signal.
WRAPPED = """
import os, signal, sys, threading
sys.path.insert(0, {tests!r})
import terminated_mid_work as t
second = os.environ.get("SECOND_SIGNAL")
if second:
    kill = os.kill
    def first_then_second(pid, signum):
        kill(pid, signum)
        threading.Timer(float(os.environ["DELAY"]), kill, (pid, getattr(signal, second))).start()
    t.os = type("os", (), {{"kill": staticmethod(first_then_second), "getpid": os.getpid, "environ": os.environ}})
t.TERMINATED[sys.argv[1]]()
t.end_process(t.main(sys.argv[1:]))
"""


def run(arguments, first, second=None, delay=0.2):
    env = {**os.environ, "TERMINATED_MID_WORK_BY": first, "OMP_NUM_THREADS": "1"}
    if second:
        env.update(SECOND_SIGNAL=second, DELAY=str(delay))
    done = subprocess.run([sys.executable, "-c", WRAPPED.format(tests=str(ROOT / "tests")), *arguments],
                          capture_output=True, text=True, timeout=300, env=env)
    lines = done.stderr.strip().splitlines()
    return done.returncode, (lines[-1] if lines else "")


def main():
    from conftest import tiny_overrides
    from accelerated_seg.config import load_config
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.train import train

    tmp = Path(tempfile.mkdtemp())
    dataset = write_synthetic_dataset(tmp / "data", num_cases=9, num_validation=3, seed=0,
                                      size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    train(load_config(None, tiny_overrides(dataset, tmp / "run", train__max_steps=1, train__val_every=0)))
    labels = dataset.parent / "labelsTr"
    # a second signal 0.2 s after is sent only where the process lives that long (end_process ends the timer)
    patterns = [("SIGTERM", None, 0), ("SIGUSR1", None, 0), ("SIGTERM", "SIGUSR1", 0.2), ("SIGUSR1", "SIGTERM", 0.2),
                ("SIGTERM", "SIGUSR1", 0.0), ("SIGUSR1", "SIGTERM", 0.0)]
    for first, second, delay in patterns:
        name = f"{first}" + (f" then {second} {delay} s after" if second else "")
        for command in ("synth", "evaluate", "export"):
            case = tmp / f"{command}_{first}_{second}_{delay}"
            case.mkdir()
            if command == "synth":
                arguments = ["synth", str(case / "out"), "--cases", "3", "--validation", "1"]
            elif command == "evaluate":
                predictions = shutil.copytree(labels, case / "predictions")  # each case scored as perfect
                arguments = ["evaluate", str(predictions), str(labels), "--output", str(case / "evaluation")]
            else:
                arguments = ["export", str(tmp / "run"), "--output", str(case / "model")]
            status, line = run(arguments, first, second, delay)
            left = sorted(str(p.relative_to(case)) for p in case.rglob("*") if ".tmp" in p.name or ".partial" in p.name
                          or p.name.startswith("."))
            print(f"{command:8s} {name:34s} status {status:4d} hidden {left} | {line}", flush=True)


if __name__ == "__main__":
    main()
