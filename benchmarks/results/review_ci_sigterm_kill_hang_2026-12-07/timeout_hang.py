"""Command: cd /tmp/wt_r124 && PYTHONPATH=$PWD /work/main/.venv/bin/python \
    benchmarks/results/review_ci_sigterm_kill_hang_2026-12-07/timeout_hang.py VARIANT LABEL [CHECKOUT]
(r124, the hundred-and-twenty-sixth session's review of h142; output beside it: timeout_hang_<VARIANT>_<LABEL>.txt.)

The failure message of test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_naming_both[1
after it answered] where its launch never ends and the test's own bound (run_bounded's timeout) fails it: run as
.ci/run runs pytest (-n 2 --dist worksteal, pyproject's -ra), from a scratch copy of CHECKOUT's tests/ (this
worktree's by default) whose launch is bounded at 40 s instead of 150 s, and whose worker's killed process (no
SIGTERM: torch's agent never SIGKILLs) waits for ever:

  unsignalled: once it has written KILLED_AT, instead of signalling the agent and the other process (the stacks are
      due 12 s after KILLED_AT);
  before_the_stop: as it would write KILLED_AT, before the stop begins (the stacks due only by STOOD_BY, where the
      test sets it).

The checkout's tests/ are not changed.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEST = ("test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_"
        "naming_both[1 after it answered]")
HANGS = {
    "unsignalled": '''
def forced_hang(killed_rank):
    import threading

    if os.environ.get("RANK") == killed_rank:
        os.kill = lambda pid, number: threading.Event().wait() if number == signal.SIGKILL else kill(pid, number)
''',
    "before_the_stop": '''
def forced_hang(killed_rank):
    import threading
    import killed_at_the_last_wait_predict as at_the_last_wait

    noted = at_the_last_wait.time_noted
    if os.environ.get("RANK") == killed_rank:
        at_the_last_wait.time_noted = lambda at: threading.Event().wait() if at.name == "killed" else noted(at)
''',
}
WORKER_MAIN = "    killed_as_it_comes_to_the_last_wait()\n"
CALL = 'predict_two_scans(data, tmp_path, "sigterm_before_a_kill_predict.py", "--split", "cases")'
BOUND = "    bound = 150\n"  # where the test names its bound (r124's change)


def run(variant: str, checkout: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="timeout_hang_") as root:
        tests = Path(root) / "tests"
        shutil.copytree(checkout / "tests", tests, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(checkout / "pyproject.toml", root)  # its markers and options (-ra)
        worker = tests / "sigterm_before_a_kill_predict.py"
        text = worker.read_text()
        assert text.count(WORKER_MAIN) == 1
        text = text.replace('\nif __name__ == "__main__":', HANGS[variant] + '\n\nif __name__ == "__main__":')
        # after the killed process's os.kill is the test's own (the_jobs_stop_first), whose kill() it keeps
        text = text.replace(WORKER_MAIN, "    forced_hang(KILLED_RANK)\n" + WORKER_MAIN)
        worker.write_text(text)
        test = tests / "test_inference_distributed.py"
        text = test.read_text()
        if BOUND in text:
            assert text.count(BOUND) == 1
            test.write_text(text.replace(BOUND, "    bound = 40\n"))
        else:
            assert text.count(CALL) == 1
            test.write_text(text.replace(CALL, CALL[:-1] + ", timeout=40)"))
        done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "worksteal", str(tests / TEST),
                               "-p", "no:cacheprovider"], cwd=root, capture_output=True, text=True)
        return done.stdout + done.stderr


def main(variant: str, label: str, checkout: Path) -> None:
    output = run(variant, checkout)
    held = {name: name in output for name in ("stood.0.stacks", "stood.0.txt", "stood.1.stacks", "stood.1.txt")}
    threads = len(re.findall(r"^(?:E\s+)?(?:Thread 0x|Current thread 0x)", output, re.M))
    timed_out = "timed out after 40 s" in output
    summary = f"# {variant}, {label}: timed out {timed_out}; files in the message {held}; {threads} thread stacks\n"
    (HERE / f"timeout_hang_{variant}_{label}.txt").write_text(summary + output)
    print(summary, end="")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]) if len(sys.argv) > 3 else HERE.parents[2])
