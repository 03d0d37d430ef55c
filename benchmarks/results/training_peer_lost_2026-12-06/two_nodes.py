"""The hundred-and-fifteenth session: `accelerated-seg train` where a process on another node is killed outright.

    PYTHONPATH=<checkout> python two_nodes.py <checkout> [launches] > two_nodes_<before|after>.txt

Two launches of one process each on this machine (--num_machines 2, 127.0.0.1), the command itself through
tests/killed_in_training_cli.py (this probe's checkout's tests/, with <checkout>'s accelerated_seg first on the path):
process 1 (node 1), then the main process (node 0), SIGKILLs itself at its third step's forward (step_2 saved, 6
steps, save_every 2). For each: how long after the kill each node's launch ended, its status, the survivor's
`error: ...` lines, whether its stderr holds a rank's traceback or gloo's words, and the
checkpoints' folder as it was left.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve()
TESTS = Path(__file__).resolve().parents[3] / "tests"
sys.path[:0] = [str(CHECKOUT), str(TESTS)]
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

top = Path(tempfile.mkdtemp())
dataset = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


print(f"(2 CPU processes in two launches of one, gloo, 2 shared cores; accelerated_seg from {CHECKOUT})", flush=True)
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
    for killed_rank in (1, 0):
        name = f"{launch_number}_{killed_rank}"
        killed, run = top / f"killed{name}", top / f"run{name}"
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
               "KILLED_RANK": str(killed_rank), "KILLED_CALL": "2",
               "PYTHONPATH": os.pathsep.join([str(CHECKOUT), str(TESTS), os.environ.get("PYTHONPATH", "")])}
        port = str(free_port())
        overrides = tiny_overrides(dataset, run, **{"train.max_steps": 6, "train.val_every": 0,
                                                    "train.save_every": 2})
        errs = [top / f"stderr{name}_{node}.txt" for node in (0, 1)]
        procs = [subprocess.Popen(
            [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
             "--num_machines", "2", "--machine_rank", str(node), "--main_process_ip", "127.0.0.1",
             "--main_process_port", port, "--mixed_precision", "no", "--dynamo_backend", "no",
             str(TESTS / "killed_in_training_cli.py"), *overrides],
            env=env, stdout=subprocess.DEVNULL, stderr=errs[node].open("w"), text=True) for node in (0, 1)]
        ended = [None, None]
        while None in ended:
            for node, proc in enumerate(procs):
                if ended[node] is None and proc.poll() is not None:
                    ended[node] = time.time()
            time.sleep(0.01)
        kill = float(killed.read_text())
        survivor = errs[1 - killed_rank].read_text()
        said = [line for line in survivor.splitlines() if line.startswith("error: ")]
        traceback = any(f"[rank{rank}]: Traceback" in survivor for rank in (0, 1))
        checkpoints = sorted(path.name for path in (run / "checkpoints").iterdir())
        print(f"process {killed_rank} killed ({launch_number}): node 0 ended {ended[0] - kill:.2f} s after the kill, "
              f"status {procs[0].returncode}; node 1 {ended[1] - kill:.2f} s, status {procs[1].returncode}; the "
              f"survivor (node {1 - killed_rank}): a rank's traceback: {traceback}, gloo's words: {'gloo' in survivor}, "
              f"its lines: {said}; checkpoints/: {checkpoints}", flush=True)
