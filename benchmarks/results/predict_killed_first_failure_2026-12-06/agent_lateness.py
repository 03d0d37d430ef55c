"""Command: cd <checkout> && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    benchmarks/results/predict_killed_first_failure_2026-12-06/agent_lateness.py RUNS BUSY
The hundred-and-seventeenth session (helper h87): how late torch's agent (accelerate launch, torch 2.13, its look at
its processes every 0.1 s) reaps a process killed outright, on this machine with BUSY busy loops beside it (Python
``while True``, each a runnable process: the load). The roll call's wait for that reap (``lost_processes._reaped_by``)
is bounded by ``ROLL_CALL_S`` (3.4 s) from the roll call's start; an agent later than that leaves a survivor's status
1 the launch's first failure again. RUNS launches of 2 CPU processes (a plain script: no torch imported in them),
process 1 SIGKILLing itself 1.5 s after its start, process 0 sleeping; each says how long after the kill the agent's
first look found it ended (tests/late_agent_launch.py notes it)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from launching import LAUNCHER, free_port  # beside this script

HERE = Path(__file__).resolve().parent

WORKER = """import os, signal, time
from pathlib import Path
time.sleep(1.5)
if os.environ["RANK"] == "1":
    Path(os.environ["KILLED_AT"] + ".part").write_text(repr(time.time()))
    os.rename(os.environ["KILLED_AT"] + ".part", os.environ["KILLED_AT"])
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(30)
"""

runs, busy = int(sys.argv[1]), int(sys.argv[2])
top = Path(tempfile.mkdtemp(prefix="agent_lateness_"))
(top / "worker.py").write_text(WORKER)
loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
lateness = []
try:
    time.sleep(2 if busy else 0)
    print(f"# {runs} launches of 2, {busy} busy loop(s) beside; {time.strftime('%H:%M:%S', time.gmtime())} UTC",
          flush=True)
    for run in range(runs):
        killed, agent_log = top / "killed", top / "agent.jsonl"
        killed.unlink(missing_ok=True)
        agent_log.unlink(missing_ok=True)
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
               "AGENT_LOG": str(agent_log)}
        subprocess.run([sys.executable, str(LAUNCHER), "--multi_gpu", "--num_processes", "2",
                        "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
                        "--main_process_port", str(free_port()), str(top / "worker.py")],
                       env=env, capture_output=True, text=True, timeout=300)
        look = json.loads(agent_log.read_text().splitlines()[0])
        lateness.append(look["at"] - float(killed.read_text()))
        print(f"run {run + 1}: the agent's first look found {look['ended']} ended {lateness[-1]:.3f} s after the "
              f"kill; load {' '.join(Path('/proc/loadavg').read_text().split()[:3])}", flush=True)
finally:
    for loop in loops:
        loop.kill()
        loop.wait()
print(f"# lateness: median {statistics.median(lateness):.3f} s, max {max(lateness):.3f} s over {len(lateness)}")
