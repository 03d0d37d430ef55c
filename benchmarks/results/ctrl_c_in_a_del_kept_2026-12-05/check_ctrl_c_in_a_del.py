"""How many Ctrl-Cs that land inside nibabel's ArrayProxy.__del__ does ``accelerated-seg check`` drop? (hundred-and-
seventh session)

Each trial runs ``accelerated-seg check`` on a small phantom dataset in a process of its own, whose
``ArrayProxy.__del__`` sends SIGINT (or SIGTERM) to the process from inside itself on its N-th call, N taken in turn
over the calls a whole check makes (the headers of the spacing checks, each case's files): where it lands there by
chance in a real check, here it lands there every time. Only the main thread's calls are counted and signalled:
Python runs a signal's handler on the main thread alone, so a Ctrl-C lands in the __del__s of the check's threads
(data.num_workers, 2 by default) never; --workers 0 checks the cases on the main thread too. A trial counts as dropped where the check went on to its
report (status 0 or 1), as stopped where it ended with the signal's status (130, 143); "Exception ignored" counts the
trials whose stderr holds CPython's traceback of the dropped interrupt.

    PYTHONPATH=<checkout> .venv/bin/python check_ctrl_c_in_a_del.py [--trials 20] [--signal INT] [--workers 0]

The package imported is the one on PYTHONPATH: the main branch's before, this branch's after.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: Run in each trial's process: the __del__ wrapped, then the command line's main.
TRIAL = """
import os, signal, sys, threading
from nibabel.arrayproxy import ArrayProxy
from accelerated_seg.cli import main
signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job's SIGINT is ignored: no Ctrl-C then
at, signum, calls = int(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2]), 0
closing = ArrayProxy.__del__
def signalled_while_closing(self):
    global calls
    if threading.current_thread() is not threading.main_thread():  # a check's thread: signals land on the main one
        closing(self)
        return
    calls += 1
    if calls == at:
        os.kill(os.getpid(), signum)  # its handler runs at the next instruction, still inside this __del__
    closing(self)
ArrayProxy.__del__ = signalled_while_closing
status = main(["check", *sys.argv[3:]])
import accelerated_seg
print(f"package: {os.path.dirname(accelerated_seg.__file__)}; __del__ calls: {calls}", file=sys.stderr)
sys.exit(status)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--signal", choices=["INT", "TERM"], default="INT")
    parser.add_argument("--workers", type=int, default=None, help="data.num_workers (default: the config's, 2)")
    args = parser.parse_args()
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    folder = Path(tempfile.mkdtemp())
    dataset = write_synthetic_dataset(folder / "data", num_cases=6, num_validation=2, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    command = [str(dataset)]
    if args.workers is not None:
        (folder / "experiment.yaml").write_text(f"data:\n  num_workers: {args.workers}\n")
        command += ["--config", str(folder / "experiment.yaml")]
    package, calls = _calls_of_a_whole_check(command)
    print(f"package: {package}")
    print(f"data.num_workers {2 if args.workers is None else args.workers}: ArrayProxy.__del__ calls on the main "
          f"thread in one whole check: {calls}")
    stopped = dropped = ignored = 0
    for trial in range(args.trials):
        at = 1 + trial * calls // args.trials  # spread over the check's calls
        done = _trial(at, args.signal, command)
        went_on = done.returncode in (0, 1)
        stopped += not went_on
        dropped += went_on
        ignored += "Exception ignored" in done.stderr
        print(f"SIG{args.signal} in __del__ call {at}: status {done.returncode}"
              f"{', went on' if went_on else ', stopped'}"
              f"{', Exception ignored printed' if 'Exception ignored' in done.stderr else ''}")
    print(f"dropped {dropped} of {args.trials}, stopped {stopped} of {args.trials}; "
          f"'Exception ignored' printed in {ignored} of {args.trials}")


def _trial(at: int, signal_name: str, command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", TRIAL, str(at), signal_name, *command], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"},
                          cwd=command[0].rsplit("/", 2)[0])  # not a checkout's: -c puts the working folder first


def _calls_of_a_whole_check(command: list[str]) -> tuple[str, int]:
    done = _trial(0, "INT", command)  # call 0 never comes: no signal
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stderr.rsplit("package: ", 1)[1]
    return said.split(";")[0], int(said.rsplit("__del__ calls: ", 1)[1].split()[0])


if __name__ == "__main__":
    main()
