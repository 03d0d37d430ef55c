"""Run as: cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
    benchmarks/results/launched_predict_warnings_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/launched_predict_warnings_2026-12-07/<before|after>.txt 2>&1
(branch h143; before.txt at main 0fccaffe, after.txt with the fix.) What a user is told of scans that each raise a
warning when predict is launched on 2 CPU processes (gloo): 4 scans without orientation (qform and sform codes 0),
so 4 warnings, one naming each scan. (1) `accelerate launch ... -m accelerated_seg.cli predict` by cases and by
windows: how many times each scan's warning is on stderr. (2) A script's loop under one launch: predict_distributed
called 3 times on the same 4 scans (each into its own folder; loop_worker.py beside this), by cases and by windows:
each process's warnings shown per call, and its changes of the warning filters per call (each resets every
module's once-per-line registry), with the function that made each. Python's default filter says a warning of one
line once: a loop in one process says each scan's warning once in 3 calls (inference.md)."""
import collections
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from test_inference import export, save_without_orientation  # noqa: E402

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()).absolute()
model = export(root / "model", spacing=(2.0, 2.0, 2.0))
write_synthetic_dataset(root / "phantoms", num_cases=4, num_validation=0, seed=1, size_mm=(40.0, 40.0, 32.0),
                        spacing_mm=2.0)
scans = root / "scans"
scans.mkdir()
for index, path in enumerate(sorted((root / "phantoms" / "imagesTr").glob("*.nii.gz"))):
    save_without_orientation(path, scans / f"bare_{index}.nii.gz")
NAMES = [f"bare_{index}.nii.gz" for index in range(4)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
               "--main_process_port", str(free_port()), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=root)


def said(stderr: str) -> dict:
    return {name: len(re.findall(re.escape(name) + r": its header gives no orientation", stderr)) for name in NAMES}


print(f"python {sys.version.split()[0]}; 4 scans without orientation: {', '.join(NAMES)}\n")
print("(1) accelerated-seg predict launched on 2 processes: how often each scan's warning is on stderr")
for split in ("cases", "windows"):
    proc = launch("-m", "accelerated_seg.cli", "predict", "--model", str(model), str(scans), "--output",
                  str(root / f"cli_{split}"), "--split", split)
    plan = [line for line in proc.stdout.splitlines() if line.startswith(("split:", "[process"))]
    print(f"  --split {split}: status {proc.returncode}; said {said(proc.stderr)}")
    for line in plan:
        print(f"      {line}")
    for line in proc.stderr.splitlines():
        if "warning" in line.lower():
            print(f"      stderr: {line[:150]}")

print("\n(2) predict_distributed in a script's loop, 3 calls on the same 4 scans under one launch")
for split in ("cases", "windows"):
    prefix = root / f"loop_{split}"
    jobs = [{"model_dir": str(model), "inputs": [str(scans)], "output": str(root / f"loop_{split}_{call}"),
             "split": split} for call in range(3)]
    proc = launch(str(HERE / "loop_worker.py"), str(prefix), json.dumps(jobs))
    print(f"  split={split}: status {proc.returncode}; said on stderr (both processes) {said(proc.stderr)}")
    for rank in range(2):
        notes = json.loads(Path(f"{prefix}.rank{rank}.json").read_text())
        if "error" in notes:
            print(f"    process {rank}: {notes['error']}")
            continue
        for call in range(3):
            shown = [message for job, message in notes["shown"] if job == call]
            bare = sorted(name for name in NAMES for message in shown if message.startswith(str(scans / name)))
            other = [message for message in shown if not any(message.startswith(str(scans / n)) for n in NAMES)]
            changes = collections.Counter(where for job, where in notes["filter_changes"] if job == call)
            wrote = [line.split("] ")[1].split(":")[0] for line in notes["jobs"][call] if ": wrote " in line]
            print(f"    process {rank}, call {call + 1}: wrote {wrote or '-'}; said {bare or '-'}"
                  f"{'; other warnings ' + repr(other) if other else ''}; filter changes {dict(changes) or 0}")
shutil.rmtree(root / "phantoms")
