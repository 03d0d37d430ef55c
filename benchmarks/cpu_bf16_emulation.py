"""Time a training step of the default U-Net in fp32 and under bf16 autocast on the CPU, with and
without the CPU's bf16 instructions, on one host.

    OMP_NUM_THREADS=1 python benchmarks/cpu_bf16_emulation.py --output benchmarks/results/cpu_bf16_emulation_2cpu.json

oneDNN, which runs torch's CPU convolutions, can be told to use no instruction set above a given one
(``ONEDNN_MAX_CPU_ISA``): ``AVX512_CORE`` leaves out AVX512-BF16 and AMX, as on an AVX-512 CPU without
them, and ``AVX2`` leaves out AVX-512 as well, as on an AVX2 CPU. Each cap runs in its own process (oneDNN
reads the variable once). A cap above what the host has changes nothing, so on a host without bf16
instructions the first row is already emulated; ``machine.cpu_bf16`` says which. Written for the
sixty-sixth session, to size the warning that training and prediction give for bf16 on a CPU without
bf16 instructions (``accelerated_seg/host_cpu.py``).

A step is forward under autocast, a float32 mean as the loss, backward and AdamW, as in
``benchmark train``'s plain loop. After two untimed steps of each, fp32 and bf16 alternate
``--rounds`` times, ``--steps`` timed steps each after one untimed; the result is the median over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CAPS = ("none", "AVX512_CORE", "AVX2")


def step_ms(patch: int, steps: int, rounds: int) -> dict:
    """In this process: the median ms per step of fp32 and bf16, alternating, over ``rounds``."""
    import torch

    from accelerated_seg.models import build_from_spec, model_spec

    torch.manual_seed(0)
    net = build_from_spec(model_spec("unet", 1, 2, (patch,) * 3))
    optimizer = torch.optim.AdamW(net.parameters(), 1e-4)
    image = torch.randn(2, 1, patch, patch, patch)

    def step(precision: str) -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            logits = net(image)
        logits.float().mean().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    rounds_ms: dict[str, list[float]] = {"fp32": [], "bf16": []}
    for precision in rounds_ms:  # a process's first steps are slower (allocations, oneDNN's primitives)
        step(precision), step(precision)
    for _ in range(rounds):
        for precision, times in rounds_ms.items():
            step(precision)  # untimed: the first step of a precision after the other sets up its kernels
            start = time.perf_counter()
            for _ in range(steps):
                step(precision)
            times.append(round((time.perf_counter() - start) / steps * 1000, 1))
    median = {precision: statistics.median(times) for precision, times in rounds_ms.items()}
    return {"ms_per_round": rounds_ms, "ms_median": median,
            "bf16_over_fp32": round(median["bf16"] / median["fp32"], 2)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patch", type=int, nargs="+", default=[32, 64],
                        help="cubic patch edges, 32 at least; batch 2")
    parser.add_argument("--caps", nargs="+", default=list(CAPS), help="ONEDNN_MAX_CPU_ISA values; none: no cap")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("PATCH", "CAP"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # one cap, one patch, in a process of its own
        print(json.dumps(step_ms(int(args.child[0]), args.steps, args.rounds)))
        return 0
    from accelerated_seg.benchmark import machine_info

    rows = []
    for patch in args.patch:
        for cap in args.caps:
            env = {key: value for key, value in os.environ.items() if key != "ONEDNN_MAX_CPU_ISA"}
            if cap != "none":
                env["ONEDNN_MAX_CPU_ISA"] = cap
            child = [sys.executable, __file__, "--steps", str(args.steps), "--rounds", str(args.rounds),
                     "--child", str(patch), cap]
            done = subprocess.run(child, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"error: patch {patch}, cap {cap}: the step failed:\n{done.stderr}")
            rows.append({"patch": [patch] * 3, "batch": 2, "onednn_max_cpu_isa": cap,
                         **json.loads(done.stdout.splitlines()[-1])})
            print(json.dumps(rows[-1]), flush=True)
    result = {"what": "ms per training step of the default U-Net, fp32 against bf16 autocast, by oneDNN's "
                      "instruction-set cap",
              "command": " ".join(["python", "benchmarks/cpu_bf16_emulation.py",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "machine": machine_info(), "results": rows}
    if args.output:
        args.output.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
