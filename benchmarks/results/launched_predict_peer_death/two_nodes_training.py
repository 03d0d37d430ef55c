"""The hundred-and-fourteenth session: training's stop where a process on another node is killed outright. Two
launches of one process each on this machine (--num_machines 2, 127.0.0.1), the tests' training worker
(tests/dist_worker.py through killed_training_worker.py), process 1 (node 1) SIGKILLing itself at its 3rd loss
forward (step 2 of 6): how long after the kill node 0's launch ends, its status, and what its process wrote (the
worker catches train's error and writes it to its result file). With --cli, ``accelerated-seg train`` itself
(killed_training_cli.py): what node 0 says on stderr.

    PYTHONPATH=<checkout> python two_nodes_training.py <checkout>/tests [launches] [--cli]
"""
import json, os, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
from accelerated_seg.data.synthetic import write_synthetic_dataset
from conftest import tiny_overrides
from test_distributed import _free_port

top = Path(tempfile.mkdtemp())
dataset = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
cli = "--cli" in sys.argv
worker = Path(__file__).with_name("killed_training_cli.py" if cli else "killed_training_worker.py")
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "--cli" else 1):
    killed, run = top / f"killed{launch_number}", top / f"run{launch_number}"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
           "SIGNAL_RANK": "1", "SIGNAL": "SIGKILL", "SIGNAL_CALL": "2",
           "PYTHONPATH": os.pathsep.join([str(TESTS), str(worker.parent), os.environ.get("PYTHONPATH", "")])}
    port = str(_free_port())
    overrides = tiny_overrides(dataset, run, **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})
    procs = [subprocess.Popen(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "2", "--machine_rank", str(node), "--main_process_ip", "127.0.0.1", "--main_process_port", port,
         "--mixed_precision", "no", "--dynamo_backend", "no", str(worker), *([] if cli else [str(top / f"result{launch_number}")]),
         *overrides], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for node in (0, 1)]
    ended = [None, None]
    while None in ended:
        for node, proc in enumerate(procs):
            if ended[node] is None and proc.poll() is not None:
                ended[node] = time.time()
        time.sleep(0.01)
    kill = float(killed.read_text())
    result = top / f"result{launch_number}.rank0.json"
    written = json.loads(result.read_text()) if result.is_file() else {}
    # its lines up to the launcher's own report (torch's ChildFailedError traceback and table)
    stderr = procs[0].stderr.read().split("Traceback (most recent call last):\n  File \"<frozen runpy>\"")[0]
    said = [line[:150] for line in stderr.splitlines() if line.strip() and not line.startswith(("W1", "I1"))]
    what = f"node 0 said (stderr, cut at 150 characters): {said}" if cli else \
        f"its process wrote: {written.get('error', written)!s:.150}"
    print(f"launch {launch_number}: node 0 status {procs[0].returncode}, node 1 status {procs[1].returncode}; node 0 "
          f"ended {ended[0] - kill:.2f} s after the kill; {what}", flush=True)
