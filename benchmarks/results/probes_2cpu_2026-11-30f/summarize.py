"""Record the figures the seventieth session's probes gave, from their run folders (under /tmp on the
2-core CPU host where they ran; the harness beside this file made them):

- ``cell.sh NET PROFILE``: a 4-step run with a checkpoint at step 2 and its resume from step 2
  (``run.sh``, ``base.yaml``, ``nets.py``; ``check.py`` compares exports);
- FSDP2 and DDP SwinUNETR from the same seed, before and after ``models.meta_network`` forked the
  random generator (the later pair: ``PYTHONPATH=<the fixed tree> ./run.sh fsdp2|ddp <out>
  --model.name=swinunetr ...``);
- ZeRO-3 runs of 8 steps before and after the deprecation notice was dropped (counted lines);
- ``shear.py``: evaluate's HD95 on a grid sheared by 25 degrees against world-coordinate distances (``ref.py``);
- validation Dice (metrics.json of a 300-step demo run) against ``predict --overlap 0.25`` and the
  default 0.5, each scored by ``evaluate`` on the same three validation cases.

    python summarize.py > summary.json
"""

import json
import platform
import subprocess
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

RUNS, CHECK, METRICS = Path("/tmp/probe_strat/runs"), Path("/tmp/rngcheck"), Path("/tmp/probe_metrics")


def largest_differences(a: Path, b: Path) -> dict:
    x, y = load_file(a / "model" / "model.safetensors"), load_file(b / "model" / "model.safetensors")
    diffs = {k: (x[k].float() - y[k].float()).abs().max().item() for k in x}
    weights = [d for k, d in diffs.items() if x[k].dim() > 1]
    vectors = [d for k, d in diffs.items() if x[k].dim() <= 1]
    return {"max_abs_all": max(diffs.values()), "max_abs_weights": max(weights), "max_abs_1d": max(vectors),
            "tensors_over_1e-3": sum(d > 1e-3 for d in diffs.values()), "tensors": len(diffs)}


def future_warnings(log: Path) -> int:
    return sum("FutureWarning" in line for line in log.read_text().splitlines())


def dice_per_case(folder: Path) -> dict:
    from accelerated_seg.evaluate import evaluate_folders

    evaluate_folders(folder, METRICS / "val_lbl", dataset_json=METRICS / "run3" / "best_model" / "config.json",
                     output_dir=folder.parent / f"{folder.name}_evaluation")
    rows = (folder.parent / f"{folder.name}_evaluation" / "metrics.csv").read_text().splitlines()[1:]
    return {f"{row.split(',')[0]}/{row.split(',')[2]}": float(row.split(",")[3]) for row in rows}


def main() -> None:
    shear = subprocess.run([sys.executable, "shear.py"], capture_output=True, text=True, cwd=Path(__file__).parent,
                           check=True).stdout.splitlines()
    validation = json.loads((METRICS / "run3" / "metrics.json").read_text())["validation"][-1]
    print(json.dumps({
        "benchmark": "probes_2cpu_2026-11-30f",
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": 2, "torch": torch.__version__},
        "command": "python summarize.py > summary.json (after the runs named in its docstring)",
        "zero3_offload_resume_vs_uninterrupted_unet": largest_differences(RUNS / "zero3_offload_unet_full",
                                                                          RUNS / "zero3_offload_unet_res"),
        "zero2_resume_vs_uninterrupted_dynunet": largest_differences(RUNS / "zero2_dynunet_full",
                                                                     RUNS / "zero2_dynunet_res"),
        "zero3_resume_vs_uninterrupted_unet": largest_differences(RUNS / "zero3_unet_full", RUNS / "zero3_unet_res"),
        "swinunetr_fsdp2_vs_ddp_before_the_fix": largest_differences(RUNS / "fsdp2_swinunetr_full",
                                                                     RUNS / "ddp_swinunetr_full"),
        "swinunetr_fsdp2_vs_ddp_after_the_fix": largest_differences(CHECK / "fsdp2_swin", CHECK / "ddp_swin"),
        "fsdp2_guard_without_the_generator_fix": next(line for line in (CHECK / "guard.log").read_text().splitlines()
                                                      if "different starting weights" in line),
        "zero3_future_warning_lines_8_steps": {"before": future_warnings(CHECK / "z3w.log"),
                                               "after": future_warnings(CHECK / "z3w2.log")},
        "sheared_grid_25_degrees": shear,
        "validation_vs_predict": {"validation_step": validation["step"],
                                  "validation": {k: v for k, v in validation.items() if k.startswith("dice_")},
                                  "predict_overlap_0.25": dice_per_case(METRICS / "p3_0.25"),
                                  "predict_overlap_0.5": dice_per_case(METRICS / "p3_0.5")},
    }, indent=1))


if __name__ == "__main__":
    main()
