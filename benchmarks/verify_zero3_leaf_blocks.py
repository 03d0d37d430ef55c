"""ZeRO-3 with every registry network's blocks gathered whole trains exactly as ZeRO-3 hooking each layer.

    PYTHONPATH=. python benchmarks/verify_zero3_leaf_blocks.py --out benchmarks/results/zero3_leaf_blocks_cpu.json

``train.zero3_leaf_blocks`` (on by default) marks the blocks whose inputs carry gradients as
DeepSpeed leaf modules (``wrapping.mark_zero3_leaf_blocks``). It must change how ZeRO-3 gathers
parameters, never what training computes. For each network, at a size that trains in seconds on a
CPU, this launches the shipped ``deepspeed_zero3.yaml`` profile (one process, fp32, 3 steps) with the
lever on and off, and compares the two exports tensor by tensor: they must be bit-identical. CI
runs the same check for the U-Net and DynUNet (tests/test_deepspeed_cpu.py); this covers all six.
Needs DeepSpeed (the ``deepspeed`` extra); ACCELERATE_USE_CPU must be unset (it switches DeepSpeed off).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file

from verify_strategies import run_profile  # benchmarks/ is on sys.path when run as a script

# (model.args, patch edge, spacing in mm): small networks; SwinUNETR and the MLPerf U-Net need 64^3.
NETWORKS = {
    "unet": ("{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}", 16, 2.0),
    "segresnet": ("{init_filters: 8}", 16, 2.0),
    "dynunet": ("{filters: [8, 16, 32]}", 16, 2.0),
    "unetr": ("{hidden_size: 48, mlp_dim: 96, num_heads: 4, feature_size: 8}", 32, 1.0),
    "swinunetr": ("{feature_size: 12, depths: [1, 1, 1, 1]}", 64, 1.0),
    "unet3d_mlperf": ("{filters: [4, 8, 8, 8, 8, 8]}", 64, 1.0),
}


def compare(name: str, work: Path, dataset: Path) -> dict:
    args, patch, spacing = NETWORKS[name]
    record, exports = {"model": name, "model_args": args, "patch": patch}, {}
    for leaves in ("true", "false"):
        out = work / f"{name}_leaves_{leaves}"
        overrides = [f"--data.dataset={dataset}", f"--data.cache_dir={work / f'cache_{spacing}'}",
                     f"--data.patch_size=[{patch},{patch},{patch}]", f"--data.spacing=[{spacing},{spacing},{spacing}]",
                     "--data.samples_per_volume=2", "--data.num_workers=0", f"--model.name={name}",
                     f"--model.args={args}", "--train.max_steps=3", "--train.batch_size=2", "--train.val_every=0",
                     "--train.save_every=0", "--train.trackers=none", "--train.progress_bar=false",
                     f"--train.zero3_leaf_blocks={leaves}"]
        run = run_profile("deepspeed_zero3", 1, {"ACCELERATE_USE_CPU": None}, out, overrides, fp32=True,
                          keep_stdout=True)
        record[f"leaves_{leaves}_wall_s"] = run["wall_s"]
        if run["exit"] != 0:
            record["error"] = run["error"]
            return record
        found = re.search(r"ZeRO-3 gathers (\d+) block\(s\) whole", run["stdout"])
        record[f"leaves_{leaves}_blocks_gathered_whole"] = int(found.group(1)) if found else 0
        exports[leaves] = load_file(out / "model" / "model.safetensors")
    on, off = exports["true"], exports["false"]
    record["tensors"] = len(off)
    record["bit_identical"] = on.keys() == off.keys() and all(torch.equal(on[k], off[k]) for k in off)
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="JSON file for the results")
    parser.add_argument("--models", nargs="*", default=list(NETWORKS), choices=list(NETWORKS))
    args = parser.parse_args()
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.out, result_key="networks", setting="--out")

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dataset = write_synthetic_dataset(work / "data", num_cases=6, num_validation=2, seed=0,
                                          size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        records = []
        for name in args.models:
            records.append(compare(name, work, dataset))
            print(json.dumps({k: v for k, v in records[-1].items() if k != "error"}), flush=True)
    if args.out:
        from accelerated_seg.benchmark import machine_info

        write_text_atomically(args.out, json.dumps({"machine": machine_info(), "command": " ".join(sys.argv),
                                                    "networks": records}, indent=1))
    return 0 if all(r.get("bit_identical") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
