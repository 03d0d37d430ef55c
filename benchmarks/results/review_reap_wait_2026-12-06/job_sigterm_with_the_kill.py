"""Command: cd /tmp/wt_r78 && [AGENT_LATE_S=1] [JOB_AFTER=1] STDERR_TO=<folder>/job PYTHONPATH=/tmp/wt_r78 \
    /work/main/.venv/bin/python <this folder>/job_sigterm_with_the_kill.py RUNS last_wait 1
Review of h87 (r78), its "left edge": h87's probe ../predict_killed_first_failure_2026-12-06/killed_in_predict.py
(its arguments, its lines), its launched worker swapped for job_sigterm_with_the_kill_worker.py: a job's SIGTERM to
every process of the launch (the agent and each process beside the killed one) just before the kill (SIGKILL), or with
JOB_AFTER just after it, before the agent's reap, as a scheduler's stop meeting an OOM kill. Does the launcher's table
name a survivor's -15? STDERR_TO keeps each launch's stderr (the agent's own end: its SignalException). The outputs in
job_sigterm_with_the_kill.txt were made by a copy of h87's driver with that one path changed, which this runs in its
place (duplicates flagged the copy)."""
import runpy
import subprocess
import sys
from pathlib import Path

H87 = Path(__file__).resolve().parents[1] / "predict_killed_first_failure_2026-12-06"
WORKER = Path(__file__).resolve().with_name("job_sigterm_with_the_kill_worker.py")
run = subprocess.run


def with_this_worker(cmd, *args, **kwargs):
    return run([str(WORKER) if str(part).endswith("killed_in_predict_worker.py") else part for part in cmd], *args,
               **kwargs)


subprocess.run = with_this_worker
sys.path.insert(0, str(H87))  # its launching.py
sys.argv[0] = str(H87 / "killed_in_predict.py")
runpy.run_path(sys.argv[0], run_name="__main__")
