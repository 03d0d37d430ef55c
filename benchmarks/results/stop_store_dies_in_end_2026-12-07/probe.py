"""Process 0 of two launches of one process each (two "nodes" on this machine) stops the launch, process 1's watcher
reads the stop, and the store ends (node 0's agent, which keeps it, ends with process 0) before process 1's ``_end``
has read it: (a) a predict, process 0 meeting a bug of its own (``bug``) or a SIGTERM to it alone (``sigterm``); (b) a
training, process 0 sent SIGINT at its third step (``sigint``). The widening: process 1's ``_end`` held
PROBE_END_DELAY_S before it reads the store (../flaky_lost_at_once_2026-12-07/widen/sitecustomize.py, KILLED_RANK=0:
every process but 0), past the main process's line, its LEFT_WAIT_S (3 s) and its node's agent's end, as a loaded host
can hold a watcher's thread; 0: none. Prints, each run, what each node's launch said: its status, its launcher's table
(exitcode, error_file, and the traceback row our error file fills), and its processes' lines.

Command (from the repository root), its output saved beside this file:
  PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/stop_store_dies_in_end_2026-12-07/probe.py \
    --runs 2 --delays 0,6 > benchmarks/results/stop_store_dies_in_end_2026-12-07/probe_<tree>.txt 2>&1
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TESTS = ROOT / "tests"
WIDEN = HERE.parent / "flaky_lost_at_once_2026-12-07" / "widen"
sys.path.insert(0, str(TESTS))
from conftest import tiny_overrides  # noqa: E402  (sets the tests' environment too)

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402


def free_port() -> int:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        return listening.getsockname()[1]


def predict_data(root: Path) -> list[str]:
    """A random-weight export and two small scans, as test_inference_distributed's ``data``: predict's arguments."""
    import torch

    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec

    spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "ventricles", "2": "lesion"},
                                           "in_channels": 1, "num_classes": 3, "patch_size": [16, 16, 16],
                                           "spacing": [2.0, 2.0, 2.0]}, root / "model")
    write_synthetic_dataset(root / "small", num_cases=2, num_validation=0, seed=1, size_mm=(40.0, 40.0, 32.0),
                            spacing_mm=2.0)
    scans = sorted(str(path) for path in (root / "small" / "imagesTr").glob("*.nii.gz"))
    return ["predict", "--model", str(root / "model"), *scans, "--split", "windows"]


def launched_as_two_nodes(script: Path, args: list[str], env: dict) -> list[tuple[subprocess.CompletedProcess, float]]:
    port = str(free_port())

    def node(rank: int):
        proc = subprocess.run(
            [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
             "--num_machines", "2", "--machine_rank", str(rank), "--main_process_ip", "127.0.0.1",
             "--main_process_port", port, "--mixed_precision", "no", "--dynamo_backend", "no", str(script), *args],
            env=env, capture_output=True, text=True, timeout=300)
        return proc, time.time()

    with ThreadPoolExecutor(2) as nodes:
        return list(nodes.map(node, (0, 1)))


def said(proc: subprocess.CompletedProcess) -> list[str]:
    """What a node's launch said that a user reads: our lines, and its launcher's table's rows."""
    rows = [f"status {proc.returncode}"]
    rows += [f"stderr: {line}" for line in proc.stderr.splitlines()
             if line.startswith(("error", "predict", "interrupted", "warning"))]
    rows += [f"stdout: {line}" for line in proc.stdout.splitlines() if re.match(r"\s*(interrupted|error)", line)]
    rows += [f"table: {line.strip()}" for line in proc.stderr.splitlines()
             if re.match(r"\s+(exitcode|error_file|traceback)\s*:", line)]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--delays", default="0,6")
    parser.add_argument("--cases", default="bug,sigterm,sigint")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="stop_store_dies_"))
    predict_args = predict_data(root / "predict")
    dataset = write_synthetic_dataset(root / "tiny", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                      spacing_mm=2.0)
    for case in options.cases.split(","):
        for delay in options.delays.split(","):
            for run in range(1, options.runs + 1):
                work = root / f"{case}_{delay}_{run}"
                work.mkdir()
                mark = work / "marks"
                env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_RANK": "0",
                       "PROBE_STOP": case, "PROBE_MARK": str(mark),
                       "PYTHONPATH": os.pathsep.join([str(WIDEN), str(ROOT), str(TESTS)])}
                if float(delay):
                    env["PROBE_END_DELAY_S"] = delay
                if case == "sigint":
                    script = HERE / "process_0_interrupted_training.py"
                    args = tiny_overrides(dataset, work / "run", **{"train.max_steps": 6, "train.val_every": 0,
                                                                    "train.save_every": 2})
                else:
                    script, args = HERE / "process_0_stops_predict.py", [*predict_args, "--output", str(work / "out")]
                started = time.time()
                (node_0, ended_0), (node_1, ended_1) = launched_as_two_nodes(script, args, env)
                print(f"== {case}, process 1's _end held {delay} s, run {run}: node 0 ended {ended_0 - started:.1f} s, "
                      f"node 1 {ended_1 - started:.1f} s after the launch; marks: "
                      f"{mark.read_text().strip().replace(chr(10), '; ') if mark.exists() else 'none'}")
                for name, node in (("node 0", node_0), ("node 1", node_1)):
                    for row in said(node):
                        print(f"  {name} {row[:400]}")
                sys.stdout.flush()
                shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
