"""SIGTERM to a launch of two sleeping processes (as a job's stop sends it to the launcher's process group), TRIES
times at a random moment after both started: how long the launcher took to end, how long its processes took, and
whether torch's agent logged its abandoned wait ("did not exit after SIGKILL ... abandoning"). Usage:
probe.py TRIES [WIDEN_S]."""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ended(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def one_try(widen_s):
    folder = Path(tempfile.mkdtemp())
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "WIDEN_S": str(widen_s)}
    cmd = [sys.executable, str(HERE / "launcher.py"), "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(free_port()),
           str(HERE / "sleeping_worker.py"), str(folder)]
    launch = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    while len(list(folder.glob("started_*"))) < 2:
        time.sleep(0.05)
    workers = [int(path.read_text()) for path in folder.glob("started_*")]
    time.sleep(random.uniform(0.2, 0.7))
    os.killpg(launch.pid, signal.SIGTERM)
    sent = time.monotonic()
    workers_ended_s = None
    while launch.poll() is None:
        if workers_ended_s is None and all(ended(pid) for pid in workers):
            workers_ended_s = time.monotonic() - sent
        time.sleep(0.01)
    launcher_ended_s = time.monotonic() - sent
    stderr = launch.stderr.read()
    return {"launcher_status": launch.returncode, "launcher_ended_s": round(launcher_ended_s, 2),
            "processes_ended_s": None if workers_ended_s is None else round(workers_ended_s, 2),
            "agent_abandoned_its_wait": "abandoning and continuing teardown" in stderr,
            "agent_sigkilled": "forcefully exiting via" in stderr}


if __name__ == "__main__":
    tries, widen_s = int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    for number in range(tries):
        print(json.dumps({"try": number + 1, "widen_s": widen_s, **one_try(widen_s)}), flush=True)
