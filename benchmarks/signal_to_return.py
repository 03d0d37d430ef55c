"""How soon a 2-process training run that a scheduler's signal stopped hands back control, once it has saved.

    PYTHONPATH=. python benchmarks/signal_to_return.py   # writes benchmarks/results/signal_to_return_2cpu.json
    PYTHONPATH=<another copy> python benchmarks/signal_to_return.py --label <its code> --output <file>   # its figures

Each repeat trains tiny phantoms on 2 CPU processes, waits for the first whole checkpoint, sends the signal to the
launching process alone, and times until it hands back: ``Segmentation(..., multi_gpu=True).fit`` (notebook_launcher's
ranks forked from it) returning preempted, for SIGTERM and SIGUSR1; ``accelerate launch examples/train.py`` (torchrun's
ranks as processes of their own) exiting, for SIGTERM. The fit returned some 30 s after the signal until the
hundred-and-third session (torch's TORCH_ELASTIC_SHUTDOWN_TIMEOUT; estimator_launch._exit_once_returned).
"""

import argparse
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIVE_UP_S = 240
TINY = {"data.patch_size": "[16,16,16]", "data.spacing": "[2.0,2.0,2.0]", "data.samples_per_volume": 2,
        "data.num_workers": 0, "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}",
        "train.max_steps": 100_000, "train.batch_size": 2, "train.val_every": 0, "train.save_every": 2,
        "train.progress_bar": "false", "train.trackers": "none"}
# The launched fit, in a process of its own: it prints the time fit returned, and whether it returned preempted.
FIT = """
import json, sys, time
import accelerated_seg
import accelerated_seg.estimator as estimator
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.estimator import Dataset, Segmentation

estimator.gpus_to_launch = lambda: 2  # the two CPU processes stand for two GPUs, as in tests/test_estimator.py
dataset, run = sys.argv[1], sys.argv[2]
pairs = [(str(case.images[0]), str(case.label)) for case in load_msd(dataset).training]
data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=run + ".cache", num_workers=0,
                          spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=run, multi_gpu=True, val_every=0, save_every=2, trackers="none", progress_bar=False)
model.fit(data, steps=100_000)
print(json.dumps({"returned": time.time(), "preempted": bool(model.summary.get("preempted")),
                  "package": accelerated_seg.__path__[0]}))
"""


def _free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def _signalled_once_saved(command: list[str], run: Path, signum: int, env: dict) -> tuple[float, subprocess.Popen]:
    """Start ``command``, send ``signum`` to it once ``run`` holds a whole checkpoint; the time sent and the process."""
    from accelerated_seg.model_folders import complete_checkpoints

    process = subprocess.Popen(command, env=env, cwd=run.parent, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, start_new_session=True)
    deadline = time.monotonic() + GIVE_UP_S
    while not complete_checkpoints(run / "checkpoints"):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{command[:4]} ended or did not save (exit status {process.poll()})")
        time.sleep(0.05)
    sent = time.time()
    process.send_signal(signum)
    return sent, process


def one_fit(dataset: Path, run: Path, signum: int, env: dict) -> dict:
    sent, fit = _signalled_once_saved([sys.executable, "-c", FIT, str(dataset), str(run)], run, signum, env)
    out, _ = fit.communicate(timeout=GIVE_UP_S)
    said = json.loads(out.strip().splitlines()[-1]) if fit.returncode == 0 else {}
    return {"signal": signal.Signals(signum).name, "exit_status": fit.returncode,
            "preempted": said.get("preempted"), "returned_s": round(said["returned"] - sent, 2) if said else None,
            "package": said.get("package")}


def one_launch(dataset: Path, run: Path, env: dict) -> dict:
    overrides = [f"--{key}={value}" for key, value in {**TINY, "data.dataset": dataset,
                                                       "data.cache_dir": f"{run}.cache",
                                                       "train.output_dir": run}.items()]
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", _free_port(), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
               str(ROOT / "examples" / "train.py"), "--no-report", *overrides]
    sent, launcher = _signalled_once_saved(command, run, signal.SIGTERM, env)
    launcher.communicate(timeout=GIVE_UP_S)
    summary = json.loads((run / "summary.json").read_text()) if (run / "summary.json").is_file() else {}
    return {"signal": "SIGTERM", "exit_status": launcher.returncode, "preempted": summary.get("preempted"),
            "exited_s": round(time.time() - sent, 2)}


def main(out: Path, label: str | None, repeats: int) -> None:
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.files import write_text_atomically

    # absolute: the processes start in the work folder, where `python -c` would import a checkout found in the
    # current folder before PYTHONPATH's (this one's, when run from it: the code of another went unmeasured)
    paths = os.pathsep.join(os.path.abspath(path) for path in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                            if path)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PYTHONPATH": paths}
    fits, launches = [], []
    with tempfile.TemporaryDirectory() as work:
        dataset = write_synthetic_dataset(Path(work) / "data", num_cases=9, num_validation=3,
                                          size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        for repeat in range(repeats):
            for signum in (signal.SIGTERM, signal.SIGUSR1):
                env["MASTER_PORT"] = _free_port()
                fits.append(one_fit(dataset, Path(work) / f"fit{repeat}{signum}", signum, env))
                print(fits[-1])
            launches.append(one_launch(dataset, Path(work) / f"launch{repeat}", env))
            print(launches[-1])
    import accelerated_seg

    package = Path(accelerated_seg.__file__).parent
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=package, capture_output=True,
                            text=True).stdout.strip()
    command = f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} python {shlex.join(sys.argv)}"
    write_text_atomically(out, json.dumps({"benchmark": "signal_to_return", "command": command,
                                           "code": label or commit or str(package), "machine": machine_info(),
                                           "estimator_fit_multi_gpu": fits, "accelerate_launch_train": launches},
                                          indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "signal_to_return_2cpu.json")
    parser.add_argument("--label", help="the code measured, where its folder is no git checkout")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    from accelerated_seg.files import check_script_output

    check_script_output(parser, args.output, result_key="benchmark", kind="signal_to_return")
    main(args.output, args.label, args.repeats)  # after the parser: --help (or a typo) ran the whole measurement
