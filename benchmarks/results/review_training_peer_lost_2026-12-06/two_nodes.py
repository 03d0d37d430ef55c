"""Two launches of one process each on this machine (--num_machines 2, as two nodes): process KILL_RANK SIGKILLs
itself at a point (killed_at_cli.py); how long after the kill each launch ended, its status, the survivor's `error:`
lines, a rank's traceback, checkpoints/ as left, processes of the launch left. Usage:
  PYTHONPATH=<checkout> python two_nodes.py <checkout> <where> <rank> [key=value overrides...]"""
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

checkout, where, rank = sys.argv[1:4]
extra = dict(arg.split("=", 1) for arg in sys.argv[4:])
here = Path(__file__).resolve().parent
tests = Path(checkout) / "tests"
sys.path[:0] = [str(tests)]
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

top = Path(tempfile.mkdtemp(prefix="review_r67_2n_"))
ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                             spacing_mm=2.0)
settings = {"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2, **extra}
mark = f"r67probe{os.getpid()}"
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILL_RANK": rank, "KILL_WHERE": where,
       "KILL_AT": str(top / "killed"), "R67_MARK": mark, "PYTHONPATH": os.pathsep.join([checkout, str(tests)])}
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = str(s.getsockname()[1])
errs = [top / f"stderr_{node}.txt" for node in (0, 1)]
procs = [subprocess.Popen(
    [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "2",
     "--machine_rank", str(node), "--main_process_ip", "127.0.0.1", "--main_process_port", port,
     "--mixed_precision", "no", "--dynamo_backend", "no", str(here / "killed_at_cli.py"),
     *tiny_overrides(ds, top / "run", **settings)],
    env=env, stdout=subprocess.DEVNULL, stderr=errs[node].open("w"), text=True) for node in (0, 1)]
ended = [None, None]
while None in ended:
    for node, proc in enumerate(procs):
        if ended[node] is None and proc.poll() is not None:
            ended[node] = time.time()
    time.sleep(0.01)
time.sleep(2)
left = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if mark.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                left.append((pid, Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:80].decode()))
        except OSError:
            pass
kill = float((top / "killed").read_text()) if (top / "killed").exists() else None
survivor = errs[1 - int(rank)].read_text()
checkpoints = top / "run" / "checkpoints"
print(f"== two nodes, kill {where} on process {rank} ({extra}): "
      + "; ".join(f"node {n} ended {ended[n] - kill:.2f} s after the kill, status {procs[n].returncode}" if kill else
                  f"node {n} status {procs[n].returncode} (NO KILL)" for n in (0, 1)))
for line in survivor.splitlines():
    if line.startswith("error: ") or "Traceback" in line or "preempted" in line:
        print("  ", line[:400])
print("   checkpoints/:", sorted(p.name for p in checkpoints.iterdir()) if checkpoints.is_dir() else None,
      "model/:", (top / "run" / "model").exists(), "; gloo words:", "gloo" in survivor,
      "; processes left 2 s after:", left, "; stderr:", errs[1 - int(rank)])
