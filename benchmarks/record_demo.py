"""Run the README demo (1 process) and the same demo under 2-process CPU DDP, and record what was
measured: wall time, steps/s, validation Dice per step, the strategy in effect, machine and versions.

    python benchmarks/record_demo.py            # writes benchmarks/results/demo_cpu.json

This is a measurement, not a test: it takes ~6 minutes on 2 cores and its numbers feed docs/demo.md.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACCELERATE = [sys.executable, "-m", "accelerate.commands.launch"]
RUNS = {
    "single_process": (ACCELERATE + ["--config_file", "configs/accelerate/cpu.yaml", "examples/train.py",
                                     "--config", "configs/demo.yaml", "--train.output_dir=output/bench_demo_1p"], {}),
    "ddp_2_processes_gloo": (ACCELERATE + ["--config_file", "configs/accelerate/ddp.yaml", "--mixed_precision", "no",
                                           "examples/train.py", "--config", "configs/demo.yaml",
                                           "--train.output_dir=output/bench_demo_ddp", "--no-report"],
                             {"ACCELERATE_USE_CPU": "true"}),
}


def machine() -> dict:
    import torch

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    import accelerate
    import monai

    return {"cpu": cpu, "cores": os.cpu_count(), "gpu": None, "python": platform.python_version(),
            "torch": torch.__version__, "accelerate": accelerate.__version__, "monai": monai.__version__}


def main() -> None:
    results = {"date": date.today().isoformat(), "machine": machine(), "runs": {}}
    for name, (cmd, env) in RUNS.items():
        out = ROOT / next(a.split("=", 1)[1] for a in cmd if a.startswith("--train.output_dir="))
        subprocess.run(["rm", "-rf", str(out)], check=True)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env={**os.environ, **env}, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        metrics = json.loads((out / "metrics.json").read_text())
        info = json.loads((out / "run_info.json").read_text())
        steps = metrics["validation"][-1]["step"]
        results["runs"][name] = {
            "command": " ".join(f"{k}={v}" for k, v in env.items()).strip() + " accelerate launch " + " ".join(cmd[3:]),
            "strategy": info["strategy"], "batch": info["batch"], "wall_seconds": round(wall, 1),
            "steps": steps, "samples_per_second_incl_validation": round(steps * info["batch"]["global"] / wall, 2),
            "validation": metrics["validation"],
            "final_mean_dice": metrics["validation"][-1]["mean_dice"],
        }
        print(f"{name}: {wall:.0f} s, final mean Dice {metrics['validation'][-1]['mean_dice']:.4f}", flush=True)
    from accelerated_seg.files import write_text_atomically

    path = write_text_atomically(ROOT / "benchmarks" / "results" / "demo_cpu.json", json.dumps(results, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()  # after the parser: --help (or a typo) ran the whole measurement and rewrote the committed result
