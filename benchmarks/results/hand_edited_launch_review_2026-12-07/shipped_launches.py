"""Real launches of the shipped profiles and of a profile with a key given twice, each one training step of
examples/train.py on 4 tiny phantoms, on this CPU-only machine as the tests launch them (review r109, the
hundred-and-twenty-third session):

    cd /tmp/wt_r109 && PYTHONPATH=/tmp/wt_r109 /work/main/.venv/bin/python \
        benchmarks/results/hand_edited_launch_review_2026-12-07/shipped_launches.py \
        > benchmarks/results/hand_edited_launch_review_2026-12-07/shipped_launches_<at_main|after>.txt 2>&1

(at main: PYTHONPATH=/tmp/r109_main, a `git archive` of main 6deb21cf's accelerated_seg, examples, tests, configs)

ddp.yaml under ACCELERATE_USE_CPU=true, 2 ranks (gloo DDP); fsdp.yaml with --num_processes 1 and the fallback allowed
(docs/strategies.md: FSDP needs GPUs); deepspeed_zero2.yaml and deepspeed_zero3.yaml without ACCELERATE_USE_CPU, 2 CPU
ranks (DeepSpeed needs no GPU), the tests' compiler and extension folder. Then ddp.yaml with its mixed_precision
given twice, once differing and once alike, 2 ranks: how many lines say it, and whether the run folder was begun.
Each line: the launch, its status, seconds, the strategy line or the error lines, and whether run/ exists.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import accelerated_seg
from accelerated_seg.data.synthetic import write_synthetic_dataset

ROOT = Path(accelerated_seg.__file__).resolve().parents[1]
PROFILES = ROOT / "configs" / "accelerate"
EXTENSIONS = {"CXX": str(ROOT / "tests" / "cxx_for_test_extensions"),
              "TORCH_EXTENSIONS_DIR": str(Path.home() / ".cache" / "torch_extensions" / "accelerated_seg_tests")}
DDP = (PROFILES / "ddp.yaml").read_text()
LAUNCHES = {  # name: (profile text or shipped name, processes, extra options, environment)
    "ddp.yaml, 2 ranks, ACCELERATE_USE_CPU": ("ddp", 2, ["--mixed_precision", "no"], {"ACCELERATE_USE_CPU": "true"}),
    "fsdp.yaml, 1 process, fallback allowed": ("fsdp", 1, [], {"ACCELERATE_USE_CPU": "true", "FALLBACK": "1"}),
    "deepspeed_zero2.yaml, 2 CPU ranks": ("deepspeed_zero2", 2, [], EXTENSIONS),
    "deepspeed_zero3.yaml, 2 CPU ranks": ("deepspeed_zero3", 2, [], EXTENSIONS),
    "ddp.yaml with mixed_precision bf16 then 'no', 2 ranks":
        (DDP.replace("mixed_precision: bf16", "mixed_precision: bf16\nmixed_precision: 'no'"), 2, [],
         {"ACCELERATE_USE_CPU": "true"}),
    "ddp.yaml with mixed_precision 'no' twice, 2 ranks":
        (DDP.replace("mixed_precision: bf16", "mixed_precision: 'no'\nmixed_precision: 'no'"), 2, [],
         {"ACCELERATE_USE_CPU": "true"}),
}

with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    data = write_synthetic_dataset(tmp / "data", num_cases=4, num_validation=1, seed=0, size_mm=(32.0, 32.0, 32.0),
                                   spacing_mm=2.0)
    base = {k: v for k, v in os.environ.items() if k != "ACCELERATE_USE_CPU"}
    for number, (name, (profile, processes, options, extra)) in enumerate(LAUNCHES.items()):
        folder = tmp / f"launch_{number}"
        folder.mkdir()
        if "\n" in profile:
            (folder / "p.yaml").write_text(profile)
            profile_path = folder / "p.yaml"
        else:
            profile_path = PROFILES / f"{profile}.yaml"
        extra = dict(extra)
        fallback = ["--train.allow_strategy_fallback=true"] if extra.pop("FALLBACK", None) else []
        environment = {**base, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), **extra}
        with __import__("socket").socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        command = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(profile_path),
                   "--num_processes", str(processes), "--main_process_port", str(port), *options,
                   str(ROOT / "examples" / "train.py"),
                   "--no-report", f"--data.dataset={data}", f"--data.cache_dir={folder / 'cache'}",
                   "--data.patch_size=[16,16,16]", "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=0",
                   "--model.args={channels: [4, 8], strides: [2], num_res_units: 1}", "--train.max_steps=1",
                   "--train.val_every=0", "--train.save_every=0", "--train.progress_bar=false",
                   "--train.trackers=none", f"--train.output_dir={folder / 'run'}", *fallback]
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=ROOT, timeout=900)
        said = done.stdout + done.stderr
        strategy = [line for line in said.splitlines() if line.startswith("strategy:")]
        errors = [line for line in said.splitlines() if line.startswith("error:")]
        exported = (folder / "run" / "model" / "model.safetensors").is_file()
        print(f"{name}: rc={done.returncode} {time.monotonic() - start:.0f} s; run/ "
              f"{'exists' if (folder / 'run').exists() else 'absent'}{', model exported' if exported else ''}, "
              f"cache/ {'written' if (folder / 'cache').exists() else 'absent'}; {len(errors)} error line(s)")
        for line in strategy[:1] + errors:
            print(f"    {line}")
        if done.returncode and not errors:
            print("    " + "\n    ".join(said.strip().splitlines()[-6:]))
