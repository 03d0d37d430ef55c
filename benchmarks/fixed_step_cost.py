"""The training loop's fixed cost per optimizer step, with and without our accelerate workaround.

`benchmark train` on a tiny network shows that our loop costs a fixed amount per step on top of a
plain PyTorch loop. This script isolates that cost: a network of one 1x1x1 convolution on 4^3
patches, so that the step is almost nothing but the loop. In rotating blocks (the order reverses
every round; medians over rounds) it times:

  - plain: the bare PyTorch loop of `benchmark train`;
  - ours_shipped: our loop (`train.run_loop`) with accelerate as shipped, where every optimizer step
    searches sys.path twice for the LOMO package;
  - ours: our loop as training runs it, with that search made once per process
    (`accelerate_workarounds.look_up_lomo_once`).

For each it reports microseconds per step (CPU time of this thread, which a busy neighbour on a
shared machine disturbs less than wall time; wall time too) and the package searches per step. On a
GPU read the wall time: waiting for the device counts as this thread's CPU time there.

    OMP_NUM_THREADS=1 python benchmarks/fixed_step_cost.py --output benchmarks/results/fixed_step_cost_2cpu_r1.json
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from accelerated_seg import benchmark_train as bt  # noqa: E402
from accelerated_seg import plain_loop  # noqa: E402


def measure(steps: int, rounds: int) -> dict:
    from accelerate import optimizer as accelerated_optimizer
    from accelerate.utils import set_seed

    accelerator = bt.fresh_accelerator("fp32")  # as training builds it: the workaround is applied
    cached = accelerated_optimizer.is_lomo_available
    shipped = cached.__wrapped__  # functools.cache keeps the function it wraps
    cached()  # the one search per process, made before anything is counted
    set_seed(0)
    network = torch.nn.Conv3d(1, 2, kernel_size=1)
    patches = bt.SyntheticPatches(steps * 2, 2, 1, (4, 4, 4), 2, accelerator.device)
    ours = bt.our_loop(accelerator, copy.deepcopy(network), patches, 2)
    plain = plain_loop.make_plain_loop(copy.deepcopy(network), patches, 2, "fp32", accelerator)

    def our_block(lookup):
        def run():
            accelerated_optimizer.is_lomo_available = lookup
            try:
                bt.run_our_block(ours, steps)
            finally:
                accelerated_optimizer.is_lomo_available = cached
        return run

    blocks = {"plain": lambda: plain_loop.run_block(plain), "ours_shipped": our_block(shipped), "ours": our_block(cached)}
    searches = {name: _package_searches(run) / steps for name, run in blocks.items()}  # also the warm-up
    thread_us = {name: [] for name in blocks}
    wall_us = {name: [] for name in blocks}
    for round_ in range(rounds):
        order = list(blocks.items())
        for name, run in order if round_ % 2 == 0 else order[::-1]:
            wall, thread = time.perf_counter(), time.thread_time()
            run()
            bt.synchronize(accelerator.device)  # a GPU's queued work belongs to its block
            thread_us[name].append((time.thread_time() - thread) / steps * 1e6)
            wall_us[name].append((time.perf_counter() - wall) / steps * 1e6)
    result = {"settings": {"network": "Conv3d(1, 2, kernel_size=1)", "patch": [4, 4, 4], "batch": 2,
                           "steps_per_block": steps, "rounds": rounds, "device": str(accelerator.device)}}
    for name in blocks:
        result[name] = {"thread_us_per_step": round(statistics.median(thread_us[name]), 1),
                        "wall_us_per_step": round(statistics.median(wall_us[name]), 1),
                        "package_searches_per_step": round(searches[name], 3),
                        "thread_us_per_step_rounds": [round(x, 1) for x in thread_us[name]]}
    for name in ("ours_shipped", "ours"):  # per round against the plain block of the same round
        extra = [a - b for a, b in zip(thread_us[name], thread_us["plain"])]
        share = [a / b - 1 for a, b in zip(thread_us[name], thread_us["plain"])]
        result[name]["overhead_us_per_step"] = round(statistics.median(extra), 1)
        result[name]["overhead_share_of_plain_step"] = round(statistics.median(share), 3)
    return result


def _package_searches(run) -> int:
    """How many times ``run`` asks importlib to search for a package."""
    searches = 0
    find_spec = importlib.util.find_spec

    def counting(*args, **kwargs):
        nonlocal searches
        searches += 1
        return find_spec(*args, **kwargs)

    importlib.util.find_spec = counting
    try:
        run()
    finally:
        importlib.util.find_spec = find_spec
    return searches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="optimizer steps per block")
    parser.add_argument("--rounds", type=int, default=31, help="rounds of one block per variant")
    parser.add_argument("--output", help="JSON file (default: benchmarks/results/fixed_step_cost.json)")
    args = parser.parse_args()
    from accelerated_seg.files import check_script_output

    check_script_output(parser, args.output, result_key="benchmark", kind="fixed_step_cost")
    result = measure(args.steps, args.rounds)
    for name in ("plain", "ours_shipped", "ours"):
        row = result[name]
        print(f"{name:13s} {row['thread_us_per_step']:8.1f} us/step  searches/step {row['package_searches_per_step']}"
              + (f"  overhead {row['overhead_us_per_step']:.1f} us = {row['overhead_share_of_plain_step']:.3f}"
                 " of the plain step" if "overhead_us_per_step" in row else ""))
    from accelerated_seg.benchmark import write_result

    command = "python " + " ".join(shlex.quote(a) for a in sys.argv)
    print("wrote", write_result("fixed_step_cost", result, args.output, command=command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
