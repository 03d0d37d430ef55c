"""What DeepSpeed's ZeRO engine itself costs, with neither accelerate nor our loop in the way.

`accelerated-seg benchmark train` under a DeepSpeed profile measures our loop sharded against the
plain (unsharded) loop. When that ratio is low, this script says whose cost it is: it builds raw
DeepSpeed engines with `deepspeed.initialize` (the config accelerate writes for our profiles:
client AdamW, buckets sized to the model, fp32) next to a plain PyTorch loop in one process, and
times them in rotating blocks (the order reverses every round, medians over rounds), so that a
machine whose speed drifts affects every variant alike.

Variants: plain, ZeRO-2, ZeRO-3, and two ZeRO-3 settings meant to cut its host work:
  - zero3_persistent: stage3_param_persistence_threshold above every parameter's size, so nothing
    is gathered or released around modules (no memory saving left: it tells whether gathering is
    the cost);
  - zero3_leaf_blocks: the network's blocks as ZeRO-3 leaf modules (one fetch per block instead of
    one per layer), chosen as training chooses them (wrapping.mark_zero3_leaf_blocks: every block
    but the first, whose input is the image).

    OMP_NUM_THREADS=1 python benchmarks/deepspeed_without_accelerate.py \
        --output benchmarks/results/train_2cpu/deepspeed_without_accelerate.json

One process (world size 1; gloo on the CPU, NCCL on a GPU): nothing is sharded, so this is each
stage's fixed cost.
"""

from __future__ import annotations

import argparse
import copy
import os
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the bucket size and leaf blocks come from accelerated_seg, as in training


def deepspeed_step(network, stage: int, batch: int, inputs, labels, loss_fn, max_grad_norm: float, **zero):
    """One training step of ``network`` wrapped in a fresh DeepSpeed engine of ZeRO ``stage``."""
    import deepspeed
    import torch

    from accelerated_seg.wrapping import deepspeed_bucket_elements

    bucket = deepspeed_bucket_elements(sum(p.numel() for p in network.parameters()))
    config = {"train_micro_batch_size_per_gpu": batch, "gradient_accumulation_steps": 1,
              "gradient_clipping": max_grad_norm, "zero_allow_untested_optimizer": True,
              "zero_optimization": {"stage": stage, "reduce_bucket_size": bucket, "allgather_bucket_size": bucket,
                                    **zero}}
    engine, *_ = deepspeed.initialize(model=network, optimizer=torch.optim.AdamW(network.parameters()),
                                      config=config)

    def step():
        loss = loss_fn(engine(inputs), labels)
        engine.backward(loss)
        engine.step()
    return step


def plain_step(network, inputs, labels, loss_fn, max_grad_norm: float):
    import torch

    optimizer = torch.optim.AdamW(network.parameters())

    def step():
        loss = loss_fn(network(inputs), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(network.parameters(), max_grad_norm)
        optimizer.step()
        optimizer.zero_grad()
    return step


def python_calls(step) -> int:
    """Python function calls in one step (cProfile's count): the host work that, unlike kernels,
    does not get faster with the device."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    step()
    profile.disable()
    return pstats.Stats(profile).total_calls


def measure(patch: int, batch: int, rounds: int, steps: int, seed: int = 0) -> dict:
    import deepspeed
    import torch
    from monai.losses import DiceCELoss
    from monai.networks.nets import UNet

    from accelerated_seg.wrapping import mark_zero3_leaf_blocks

    for name, value in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29781"), ("RANK", "0"),
                        ("WORLD_SIZE", "1"), ("LOCAL_RANK", "0")):
        os.environ.setdefault(name, value)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    deepspeed.init_distributed("nccl" if device.type == "cuda" else "gloo")
    torch.manual_seed(seed)
    network = UNet(3, 1, 3, channels=(16, 32, 64, 128, 256), strides=(2, 2, 2, 2), num_res_units=2,
                   norm="INSTANCE").to(device)
    parameters = sum(p.numel() for p in network.parameters())
    inputs = torch.randn(batch, 1, patch, patch, patch, device=device)
    labels = torch.randint(0, 3, (batch, 1, patch, patch, patch), device=device).float()
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    loss_fn, clip = DiceCELoss(to_onehot_y=True, softmax=True), 12.0
    leaf_network = copy.deepcopy(network)
    leaves = len(mark_zero3_leaf_blocks(leaf_network, tuple(inputs.shape)))
    loops = {
        "plain": plain_step(copy.deepcopy(network), inputs, labels, loss_fn, clip),
        "zero2": deepspeed_step(copy.deepcopy(network), 2, batch, inputs, labels, loss_fn, clip),
        "zero3": deepspeed_step(copy.deepcopy(network), 3, batch, inputs, labels, loss_fn, clip),
        "zero3_persistent": deepspeed_step(copy.deepcopy(network), 3, batch, inputs, labels, loss_fn, clip,
                                           stage3_param_persistence_threshold=parameters + 1),
        "zero3_leaf_blocks": deepspeed_step(leaf_network, 3, batch, inputs, labels, loss_fn, clip),
    }
    for step in loops.values():  # warm-up: first-step allocations; ZeRO-3 traces the module order over
        step()                    # its first steps (the second one makes 1.4 M Python calls here)
        step()
    synchronize()
    calls = {name: python_calls(step) for name, step in loops.items()}
    blocks = {name: [] for name in loops}
    for r in range(rounds):
        order = list(loops) if r % 2 == 0 else list(reversed(loops))
        for name in order:
            start = time.perf_counter()
            for _ in range(steps):
                loops[name]()
            synchronize()
            blocks[name].append((time.perf_counter() - start) / steps * 1000)
    median = {name: sorted(ms)[len(ms) // 2] for name, ms in blocks.items()}
    return {"model": "MONAI UNet (16, 32, 64, 128, 256), 2 residual units, instance norm", "parameters": parameters,
            "patch": [patch] * 3, "batch": batch, "precision": "fp32", "device": str(device), "rounds": rounds, "steps_per_block": steps,
            "deepspeed": deepspeed.__version__, "leaf_blocks": leaves,
            "step_ms_median": {k: round(v, 1) for k, v in median.items()},
            "python_calls_per_step": calls,
            "plain_to_variant": {k: round(median["plain"] / v, 3) for k, v in median.items()},
            "step_ms_blocks": {k: [round(v, 1) for v in ms] for k, ms in blocks.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patch", type=int, default=64,
                        help="cubic patch edge, 32 at least (its U-Net halves it four times)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3, help="steps per timed block")
    parser.add_argument("--output", help="JSON file for the result")
    args = parser.parse_args()
    if args.patch < 32:  # else the instance norm's traceback after the imports and DeepSpeed's set-up (50 s)
        parser.error(f"--patch {args.patch}: 32 at least, as its U-Net halves it four times")
    from accelerated_seg.files import check_script_output

    check_script_output(parser, args.output, result_key="benchmark", kind="deepspeed_without_accelerate")
    result = measure(args.patch, args.batch, args.rounds, args.steps)
    print({k: result[k] for k in ("step_ms_median", "plain_to_variant", "python_calls_per_step")})
    if args.output:
        from accelerated_seg.benchmark import write_result

        command = " ".join(shlex.quote(a) for a in ["python", Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
        write_result("deepspeed_without_accelerate", result, args.output, command=command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
