"""Command: cd <checkout> && [AGENT_LATE_S=1] PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    <this folder>/killed_in_predict.py RUNS WHERE KILLED_RANK [PROCESSES]
(from <checkout>, the package it runs: accelerate's launch puts its working folder on the launched processes' path)
The hundred-and-seventeenth session (helper h87): a launched ``accelerated-seg predict`` (accelerate launch, PROCESSES
CPU processes, default 2, gloo, one node, a tiny U-Net) whose process KILLED_RANK is SIGKILLed (the OOM killer) at
WHERE: ``inference`` (its share of a case's windows, --split windows: the others in the case's reduction) or ``write``
(its first label map's write, --split cases) or ``last_wait`` (as it comes to predict's last wait for every process,
--split cases: the others wait there for it). The launcher is tests/late_agent_launch.py (accelerate's own launch,
torch's agent noting its first look that finds a process ended, each look held AGENT_LATE_S late where set). RUNS
launches; each says: the launcher table's "Root Cause (first observed failure)" (rank, exitcode), every row (rank,
exitcode), the local ranks the agent found ended at its first look that found one (more than the killed one: a
survivor had ended before the agent reaped the dead one) and how long after the kill, the lines said ("error: ...",
"predict ..."), seconds from the kill to the launcher's end, its status, the files left in the output folder; and
under it, when each survivor's peer_death look began and returned, and its end_at_once (the worker's ENDS_LOG)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from launching import LAUNCHER, free_port  # beside this script

HERE = Path(__file__).resolve().parent

#: test_inference_distributed's tiny U-Net and scan sizes, not imported: its conftest puts its own checkout first on
#: PYTHONPATH, for every process launched after it (the package PYTHONPATH named was not the one run).
PATCH, TINY_UNET = [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
SIZES_MM = {"small": (40.0, 40.0, 32.0), "medium": (60.0, 56.0, 48.0)}

runs, where, killed_rank = int(sys.argv[1]), sys.argv[2], sys.argv[3]
processes = int(sys.argv[4]) if len(sys.argv) > 4 else 2
top = Path(tempfile.mkdtemp(prefix="predict_killed_"))
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
size = "medium" if where == "inference" else "small"
write_synthetic_dataset(top / "scans", num_cases=2 * processes, num_validation=0, seed=1, size_mm=SIZES_MM[size],
                        spacing_mm=2.0)
scans = sorted((top / "scans" / "imagesTr").glob("*.nii.gz"))
print(f"# {runs} launch(es) of {processes}, process {killed_rank} killed in {where}; agent "
      f"{os.environ.get('AGENT_LATE_S', '0')} s late; {time.strftime('%H:%M:%S', time.gmtime())} UTC, load "
      f"{' '.join(Path('/proc/loadavg').read_text().split()[:3])}", flush=True)
for run in range(runs):
    out, killed, agent_log, ends = top / "out", top / "killed", top / "agent.jsonl", top / "ends.log"
    shutil.rmtree(out, ignore_errors=True)
    for path in (killed, agent_log, ends):
        path.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
           "KILLED_RANK": killed_rank, "KILL_WHERE": where, "AGENT_LOG": str(agent_log),
           "ENDS_LOG": str(ends)}
    cmd = [sys.executable, str(LAUNCHER), "--multi_gpu", "--num_processes", str(processes),
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
           str(free_port()), str(HERE / "killed_in_predict_worker.py"), "predict", "--model", str(top / "model"),
           *map(str, scans), "--output", str(out), "--split", "windows" if where == "inference" else "cases",
           "--sw-batch-size", "1"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    ended = time.time()
    kill = float(killed.read_text()) if killed.exists() else None
    root = re.search(r"rank\s*:\s*(\d+).*?exitcode\s*:\s*(-?\d+)",
                     proc.stderr.split("Root Cause (first observed failure):")[-1], re.S)
    table = re.findall(r"rank\s*:\s*(\d+) \(local_rank.*?exitcode\s*:\s*(-?\d+)", proc.stderr, re.S)
    look = json.loads(agent_log.read_text().splitlines()[0]) if agent_log.exists() else None
    said = [line[:110] for line in proc.stderr.splitlines() if line.startswith(("error:", "predict "))]
    files = sorted(p.name for p in out.iterdir()) if out.exists() else []
    right = bool(root) and root[1] == killed_rank and root[2] == "-9"
    print(f"run {run + 1}: root cause rank {root and root[1]} exitcode {root and root[2]} "
          f"({'RIGHT' if right else 'WRONG'}); table {table}; agent's first look found ended "
          f"{look and look['ended']} {kill and look and round(look['at'] - kill, 2)} s after the kill; launch ended "
          f"{kill and round(ended - kill, 2)} s after the kill, status {proc.returncode}; said {said}; files {files}",
          flush=True)
    for line in ends.read_text().splitlines() if ends.exists() and kill else []:
        at, rank, what = line.split(" ", 2)
        print(f"   process {rank}: {what}, {float(at) - kill:.2f} s after the kill", flush=True)
    if os.environ.get("STDERR_TO"):
        Path(os.environ["STDERR_TO"]).with_suffix(f".{run + 1}.txt").write_text(proc.stderr)
