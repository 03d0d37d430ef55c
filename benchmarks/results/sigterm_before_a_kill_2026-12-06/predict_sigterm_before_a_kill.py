"""Command: cd <checkout> && STDERR_TO=<folder>/job PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    <this folder>/predict_sigterm_before_a_kill.py RUNS WHERE KILLED_RANK
The hundred-and-eighteenth session (helper h96): a launched predict (2 CPU processes, --split cases for last_wait and
write) whose process KILLED_RANK, as it is SIGKILLed at WHERE, first sends SIGTERM to the agent and to the other
process (a job's stop just before the kill: job_stop_beside_a_kill.py). h87's driver
(../predict_killed_first_failure_2026-12-06/killed_in_predict.py: its arguments, its lines; its RIGHT/WRONG is its
word for the table's root cause, and the agent signalled itself prints no table: WRONG means none) with its worker run
through job_stop_beside_a_kill.py. Each launch: its status, what was said, when it ended after the kill, and under it
each survivor's notes (where its stop's end waited, and for how long)."""
import runpy
import subprocess
import sys
from pathlib import Path

H87 = Path(__file__).resolve().parents[1] / "predict_killed_first_failure_2026-12-06"
STOP = Path(__file__).resolve().with_name("job_stop_beside_a_kill.py")
run = subprocess.run


def through_the_jobs_stop(cmd, *args, **kwargs):
    at = next(i for i, part in enumerate(cmd) if str(part).endswith("killed_in_predict_worker.py"))
    return run([*cmd[:at], str(STOP), *cmd[at:]], *args, **kwargs)


subprocess.run = through_the_jobs_stop
sys.path.insert(0, str(H87))  # its launching.py
sys.argv[0] = str(H87 / "killed_in_predict.py")
runpy.run_path(sys.argv[0], run_name="__main__")
