"""One launch of N processes on this machine (one node): process KILL_RANK SIGKILLs itself at a point (killed_at_cli);
what the launch says, its status, how long after the kill it ended, what checkpoints/ holds, and whether any process
of the launch (a loader worker, the fork server) is left. Usage:
  PYTHONPATH=<checkout> python same_node.py <checkout> <where> <rank> [<processes> [key=value overrides...]]"""
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

checkout, where, rank = sys.argv[1:4]
processes = sys.argv[4] if len(sys.argv) > 4 else "2"
extra = dict(arg.split("=", 1) for arg in sys.argv[5:])
here = Path(__file__).resolve().parent
tests = Path(checkout) / "tests"
sys.path[:0] = [str(tests)]
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

top = Path(tempfile.mkdtemp(prefix="review_r67_"))
ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                             spacing_mm=2.0)
settings = {"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2, **extra}
mark = f"r67probe{os.getpid()}"
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILL_RANK": rank, "KILL_WHERE": where,
       "KILL_AT": str(top / "killed"), "R67_MARK": mark,
       "PYTHONPATH": os.pathsep.join([checkout, str(tests)])}
import socket  # noqa: E402

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = str(s.getsockname()[1])
# FSDP=<profile>: that FSDP profile really in effect on the CPU processes (benchmarks/fsdp_on_cpu.py)
fsdp = os.environ.get("FSDP")
launch = (["--config_file", str(Path(checkout) / "configs" / "accelerate" / fsdp)] if fsdp else ["--multi_gpu"])
script = [str(Path(checkout) / "benchmarks" / "fsdp_on_cpu.py")] if fsdp else []
proc = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", *launch, "--num_processes", processes,
                       "--num_machines", "1", "--main_process_port", port, "--mixed_precision", "no",
                       "--dynamo_backend", "no", *script, str(here / "killed_at_cli.py"), *tiny_overrides(ds, top / "run",
                                                                                                 **settings)],
                      env=env, capture_output=True, text=True, timeout=300)
ended = time.time()
time.sleep(2)
left = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if mark.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                left.append((pid, Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:80].decode()))
        except OSError:
            pass
killed = top / "killed"
after = f"{ended - float(killed.read_text()):.2f} s after the kill" if killed.exists() else "NO KILL HAPPENED"
checkpoints = top / "run" / "checkpoints"
print(f"== kill {where} on process {rank} of {processes} ({extra}{', ' + fsdp if fsdp else ''}): status {proc.returncode}, ended {after}")
for line in proc.stderr.splitlines() + proc.stdout.splitlines():
    if re.match(r"(error: |preempted|interrupted|\[rank\d\]: Traceback|\[rank\d\]: \w*Error|.*exitcode|.*Traceback)",
                line) or "saved in" in line:
        print("  ", line[:400])
print("   checkpoints/:", sorted(p.name for p in checkpoints.iterdir()) if checkpoints.is_dir() else None,
      "model/:", (top / "run" / "model").exists())
print("   processes of the launch left 2 s after:", left)
print("   gloo words in stderr:", "gloo" in proc.stderr, "; Traceback lines:", proc.stderr.count("Traceback"))
(top / "stderr.txt").write_text(proc.stderr)
print("   full stderr:", top / "stderr.txt")
