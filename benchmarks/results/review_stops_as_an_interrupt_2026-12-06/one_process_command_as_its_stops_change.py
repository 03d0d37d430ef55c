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

SENT_THERE = """
import os, signal, sys
import accelerated_seg.sigterm as sigterm
taken, put_back = sigterm.taken_over, sigterm._put_back_the_default
def signalled_as_sigusr1_is_taken(signum, handler):
    if signum == signal.SIGUSR1 and {when!r} == "taken":
        os.kill(os.getpid(), signal.SIGTERM)
    return taken(signum, handler)
def signalled_as_sigusr1_is_put_back(signum=signal.SIGTERM):
    if signum == signal.SIGUSR1 and {when!r} == "put back":
        os.kill(os.getpid(), signal.SIGTERM)
    return put_back(signum)
sigterm.taken_over, sigterm._put_back_the_default = signalled_as_sigusr1_is_taken, signalled_as_sigusr1_is_put_back
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""


def main():
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    tmp = Path(tempfile.mkdtemp())
    labels = write_synthetic_dataset(tmp / "data", num_cases=2, num_validation=0, size_mm=(16.0, 16.0, 16.0),
                                     spacing_mm=4.0).parent / "labelsTr"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    for when in ("taken", "put back"):
        for command in ("synth", "evaluate"):
            case = tmp / f"{command}_{when.replace(' ', '_')}"
            case.mkdir()
            if command == "synth":
                argv = ["accelerated-seg", "synth", str(case / "out"), "--cases", "1", "--validation", "0"]
            else:
                predictions = shutil.copytree(labels, case / "predictions")
                argv = ["accelerated-seg", "evaluate", str(predictions), str(labels), "--output", str(case / "eval")]
            done = subprocess.run([sys.executable, "-c", SENT_THERE.format(when=when, argv=argv)], capture_output=True,
                                  text=True, timeout=300, env=env)
            print(f"{command:8s} SIGTERM as SIGUSR1's stop is {when:8s}: status {done.returncode}, "
                  f"stdout {done.stdout.strip()[-160:]!r}, stderr {done.stderr.strip()[-300:]!r}", flush=True)


if __name__ == "__main__":
    main()
