"""Launched by job_sigterm_with_the_kill.py: h87's killed_in_predict_worker.py, the process killed sending SIGTERM
to torch's agent (its parent) and to each process beside it, in that order, at once (a job's stop reaching every
process of the launch as the OOM killer kills one): with JOB_AFTER unset, just before its SIGKILL; with it set, just
after, by a child forked as it is killed, which sends them as soon as the killed one is a zombie (before the agent has
reaped it, as a rule: its look is every 0.1 s)."""
import os
import runpy
import signal
import sys
from pathlib import Path

kill = os.kill


def with_the_jobs_sigterm(pid, number):
    if pid == os.getpid() and number == signal.SIGKILL:
        from accelerated_seg.launched_sigterm import processes_beside_this_one

        others = [os.getppid(), *(processes_beside_this_one() or [])]
        if not os.environ.get("JOB_AFTER"):
            for other in others:
                kill(other, signal.SIGTERM)
        elif os.fork() == 0:  # sends them once the killed one (its parent) is a zombie
            killed = pid
            while True:
                try:
                    with open(f"/proc/{killed}/stat") as stat:
                        if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                            break
                except OSError:
                    break
            for other in others:
                kill(other, signal.SIGTERM)
            os._exit(0)
    kill(pid, number)


os.kill = with_the_jobs_sigterm
worker = Path(__file__).resolve().parents[1] / "predict_killed_first_failure_2026-12-06" / "killed_in_predict_worker.py"
sys.argv[0] = str(worker)
runpy.run_path(str(worker), run_name="__main__")
