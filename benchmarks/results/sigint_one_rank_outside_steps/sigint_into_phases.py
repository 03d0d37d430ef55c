"""SIGINT to one rank alone of a 2-process CPU launch (accelerate launch, gloo) of tests/dist_worker.py on the suite's
tiny phantoms, sent as that rank calls a phase of train outside its steps (dist_worker's SIGNAL_IN): the data's
preprocessing (cached_tables), a resume's load (resume_the_loop), the final save (save_training_state, save_every=0),
the final export (export_model, val_every=0). Then: the launcher's status and seconds, the ranks' exit codes in its
table, the "interrupted (Ctrl-C)" lines, gloo's "Connection closed by peer", the checkpoints whole, what is left
hidden or as an export's temporary, and processes left.

    PYTHONPATH=<checkout> .venv/bin/python sigint_into_phases.py <checkout> <rank> <phase> [<rank> <phase> ...]
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(CHECKOUT / "tests"))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.model_folders import complete_checkpoints  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from processes import run_bounded  # noqa: E402
from test_distributed import WORKER, _free_port  # noqa: E402

ENV = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
       "PYTHONPATH": os.pathsep.join([str(CHECKOUT), str(WORKER.parent)])}


def launch(prefix: Path, out: Path, dataset: Path, extra: dict, env: dict) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", str(WORKER), str(prefix), *tiny_overrides(dataset, out, **extra)]
    return run_bounded(command, env={**ENV, **env}, timeout=240)


def one(rank: str, phase: str, dataset: Path, folder: Path) -> None:
    out = folder / "out"
    folder.mkdir()
    extra = {"train.max_steps": 4, "train.val_every": 0, "train.save_every": 0 if phase != "resume_the_loop" else 2}
    if phase == "resume_the_loop":  # a run to resume first, then its resume to 6 steps
        first = launch(folder / "first", out, dataset, extra, {})
        assert first.returncode == 0, first.stderr[-2000:]
        extra = {**extra, "train.max_steps": 6, "train.resume": "latest"}
    started = time.monotonic()
    done = launch(folder / "run", out, dataset, extra, {"SIGNAL_RANK": rank, "SIGNAL_IN": phase, "SIGNAL": "SIGINT"})
    seconds = time.monotonic() - started
    results = [Path(p).read_text() for p in sorted(folder.glob("run.rank*.json"))]
    output = done.stdout + done.stderr + "".join(results)  # a rank's error is in its result file (dist_worker.py)
    lines = [line for line in done.stdout.splitlines() if "interrupted (Ctrl-C)" in line]
    codes = re.findall(r"exitcode\s*:\s*(-?\d+)", output)
    left = [n for n in (os.listdir(out) if out.is_dir() else []) if n.startswith(".") or n.endswith((".partial", ".previous"))]
    checkpoints = out / "checkpoints"
    left += [f"checkpoints/{n}" for n in os.listdir(checkpoints) if n.startswith(".")] if checkpoints.is_dir() else []
    print(f"rank {rank} in {phase}: launcher {done.returncode} after {seconds:.1f} s; ranks' exit codes {codes}; "
          f"lines on stdout {lines}; Connection closed by peer {'Connection closed by peer' in output}; "
          f"Traceback {output.count('Traceback')}; whole {[p.name for p in complete_checkpoints(checkpoints)]}; "
          f"model/ {(out / 'model' / 'model.safetensors').is_file()}; left {sorted(left)}; "
          f"ranks' results {[result[:60] for result in results]}", flush=True)
    if os.environ.get("PROBE_SHOW"):
        print(output[-4000:])


with tempfile.TemporaryDirectory() as top:
    data = write_synthetic_dataset(Path(top) / "data", num_cases=9, num_validation=3, seed=0,
                                   size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    for number, (rank, phase) in enumerate(zip(sys.argv[2::2], sys.argv[3::2])):
        one(rank, phase, data, Path(top) / f"case{number}")
