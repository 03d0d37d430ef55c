"""Command: cd /tmp/wt_h142 && PYTHONPATH=$PWD /work/main/.venv/bin/python \
    benchmarks/results/ci_sigterm_kill_hang_2026-12-07/forced_hang.py [unpublished|unanswered ...]
(h142, the hundred-and-twenty-sixth session; output beside it: forced_hang_<variant>.txt.)

The failure message of tests/test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_
ends_the_launch_at_once_naming_both[1 after it answered] where its launch is held, as the CI run's was (known_issues,
Open): the test run from a scratch copy of tests/ whose worker (sigterm_before_a_kill_predict.py) is made to hang,
to show that the message now holds where each process stood 12 s after the stop began (tests/where_it_stood.py:
every thread's stack, the signal state, what each knows of the stop), both processes'. The checkout's tests/ are not
changed. Variants:

  unpublished: the survivor (process 0) never publishes its stop (``ranks_stop_together._publish`` waits for ever):
      the CI's case as far as it is known (neither process says a line; the agent SIGKILLs both 30 s after its
      SIGTERM).
  unanswered: the killed process's watcher sleeps instead of answering the stop: process 0 says its line without the
      loss 10 s on, process 1 waits for its answer to the agent's SIGKILL.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[2]
TEST = ("test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_"
        "naming_both[1 after it answered]")
HANGS = {
    "unpublished": '''
def forced_hang(killed_rank):
    import threading
    import accelerated_seg.ranks_stop_together as together

    if os.environ.get("RANK") != killed_rank:
        together._publish = lambda *args, **kwargs: threading.Event().wait()
''',
    "unanswered": '''
def forced_hang(killed_rank):
    import threading
    import accelerated_seg.ranks_stop_together as together

    if os.environ.get("RANK") == killed_rank:
        together._Watcher._end = lambda *args, **kwargs: threading.Event().wait()
''',
}
WORKER_MAIN = "    killed_as_it_comes_to_the_last_wait()\n"


def run(variant: str) -> str:
    with tempfile.TemporaryDirectory(prefix="forced_hang_") as root:
        tests = Path(root) / "tests"
        shutil.copytree(CHECKOUT / "tests", tests, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(CHECKOUT / "pyproject.toml", root)  # its markers and options
        worker = tests / "sigterm_before_a_kill_predict.py"
        text = worker.read_text()
        assert text.count(WORKER_MAIN) == 1
        text = text.replace('\nif __name__ == "__main__":', HANGS[variant] + '\n\nif __name__ == "__main__":')
        worker.write_text(text.replace(WORKER_MAIN, "    forced_hang(KILLED_RANK)\n" + WORKER_MAIN))
        done = subprocess.run([sys.executable, "-m", "pytest", str(tests / TEST), "-q", "-p", "no:cacheprovider"],
                              cwd=root, capture_output=True, text=True)
        return done.stdout + done.stderr


def main(variants: list[str]) -> None:
    for variant in variants:
        output = run(variant)
        held = {name: name in output for name in ("stood.0.stacks", "stood.0.txt", "stood.1.stacks", "stood.1.txt")}
        threads = len(re.findall(r"^(?:E\s+)?(?:Thread 0x|Current thread 0x)", output, re.M))
        summary = f"# {variant}: files in the message {held}; {threads} thread stacks\n"
        (HERE / f"forced_hang_{variant}.txt").write_text(summary + output)
        print(summary, end="")


if __name__ == "__main__":
    main(sys.argv[1:] or list(HANGS))
