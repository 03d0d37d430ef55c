"""synth and evaluate (cli's one-process commands) sent SIGTERM as ``stops_as_an_interrupt`` sets SIGUSR1's handler
(SIGTERM's already set), or as it puts SIGUSR1's default back once the command has returned: status and stderr.
The same windows predict had (its fix: predict_command._say_stopped_once); here cli catches the interrupt.

    cd /tmp/wt_r93 && PYTHONPATH=/tmp/wt_r93:/tmp/wt_r93/tests /work/main/.venv/bin/python \
        benchmarks/results/review_stops_as_an_interrupt_2026-12-06/one_process_command_as_its_stops_change.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))


def main():
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from test_early_signals import AS_THE_COMMAND_LINE, SIGTERM_AS_SIGUSR1S_STOP_CHANGES  # the tests' own

    tmp = Path(tempfile.mkdtemp())
    labels = write_synthetic_dataset(tmp / "data", num_cases=2, num_validation=0, size_mm=(16.0, 16.0, 16.0),
                                     spacing_mm=4.0).parent / "labelsTr"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    for when in ("as_the_stops_are_taken", "as_the_stops_are_put_back"):
        for command in ("synth", "evaluate"):
            case = tmp / f"{command}_{when}"
            case.mkdir()
            if command == "synth":
                argv = ["accelerated-seg", "synth", str(case / "out"), "--cases", "1", "--validation", "0"]
            else:
                predictions = shutil.copytree(labels, case / "predictions")
                argv = ["accelerated-seg", "evaluate", str(predictions), str(labels), "--output", str(case / "eval")]
            code = SIGTERM_AS_SIGUSR1S_STOP_CHANGES.format(when=when) + AS_THE_COMMAND_LINE.format(argv=argv)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
            print(f"{command:8s} SIGTERM {when:25s}: status {done.returncode}, "
                  f"stdout {done.stdout.strip()[-160:]!r}, stderr {done.stderr.strip()[-300:]!r}", flush=True)


if __name__ == "__main__":
    main()
