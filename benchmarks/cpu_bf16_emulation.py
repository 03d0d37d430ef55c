"""Time a training step of the default U-Net in fp32 and under bf16 autocast on the CPU, with and
without the CPU's bf16 instructions, on one host.

    OMP_NUM_THREADS=1 python benchmarks/cpu_bf16_emulation.py --output benchmarks/results/cpu_bf16_emulation_2cpu.json

oneDNN, which runs torch's CPU convolutions, can be told to use no instruction set above a given one
(``ONEDNN_MAX_CPU_ISA``): ``AVX512_CORE`` leaves out AVX512-BF16 and AMX, as on an AVX-512 CPU without
them, and ``AVX2`` leaves out AVX-512 as well, as on an AVX2 CPU. Each cap runs in its own process (oneDNN
reads the variable once). A cap above what the host has changes nothing, so on a host without bf16
instructions the first row is already emulated; ``machine.cpu_bf16`` says which. Written for the
sixty-sixth session, to size the warning that training and prediction give for bf16 on a CPU without
bf16 instructions (``accelerated_seg/host_cpu.py``). ``--precisions fp32 bf16 fp16`` times fp16
autocast as well, which training refuses on a CPU (``preparation.check_launch``):

    OMP_NUM_THREADS=1 python benchmarks/cpu_bf16_emulation.py --precisions fp32 bf16 fp16 --caps none \
        --output benchmarks/results/cpu_fp16_2cpu.json

A step is forward under autocast, a float32 mean as the loss, backward and AdamW, as in
``benchmark train``'s plain loop (no loss scaling: fp16's gradient scaler would only add to its
time). After two untimed steps of each, the precisions alternate ``--rounds`` times, ``--steps``
timed steps each after one untimed; the result is the median over rounds.
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
#: autocast's dtype of each reduced precision (fp32: no autocast).
AUTOCAST = {"bf16": "bfloat16", "fp16": "float16"}
#: How its result's "what" begins, earlier ones' too: --output replaces only such a file.
WHAT = "ms per training step of the default U-Net, fp32 against"


def step_ms(patch: int, steps: int, rounds: int, precisions: list[str]) -> dict:
    """In this process: the median ms per step of each precision, alternating, over ``rounds``."""
    import torch

    from accelerated_seg.models import build_from_spec, model_spec

    torch.manual_seed(0)
    net = build_from_spec(model_spec("unet", 1, 2, (patch,) * 3))
    optimizer = torch.optim.AdamW(net.parameters(), 1e-4)
    image = torch.randn(2, 1, patch, patch, patch)

    def step(precision: str) -> None:
        dtype = getattr(torch, AUTOCAST.get(precision, "bfloat16"))
        with torch.autocast("cpu", dtype=dtype, enabled=precision in AUTOCAST):
            logits = net(image)
        logits.float().mean().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    rounds_ms: dict[str, list[float]] = {precision: [] for precision in precisions}
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
            **{f"{precision}_over_fp32": round(median[precision] / median["fp32"], 2)
               for precision in precisions if precision != "fp32"}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patch", type=int, nargs="+", default=[32, 64],
                        help="cubic patch edges, 32 at least; batch 2")
    parser.add_argument("--caps", nargs="+", default=list(CAPS), help="ONEDNN_MAX_CPU_ISA values; none: no cap")
    parser.add_argument("--precisions", nargs="+", default=["fp32", "bf16"], choices=["fp32", "bf16", "fp16"],
                        help="fp32 first: the others are reported over it")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("PATCH", "CAP"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.patch) < 32:  # else the instance norm's traceback from the child process
        parser.error(f"--patch {min(args.patch)}: 32 at least, as the registry's U-Net halves it four times")
    if args.child:  # one cap, one patch, in a process of its own
        print(json.dumps(step_ms(int(args.child[0]), args.steps, args.rounds, args.precisions)))
        return 0
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="what", kind=WHAT)

    rows = []
    for patch in args.patch:
        for cap in args.caps:
            env = {key: value for key, value in os.environ.items() if key != "ONEDNN_MAX_CPU_ISA"}
            if cap != "none":
                env["ONEDNN_MAX_CPU_ISA"] = cap
            child = [sys.executable, __file__, "--steps", str(args.steps), "--rounds", str(args.rounds),
                     "--precisions", *args.precisions, "--child", str(patch), cap]
            done = subprocess.run(child, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"error: patch {patch}, cap {cap}: the step failed:\n{done.stderr}")
            rows.append({"patch": [patch] * 3, "batch": 2, "onednn_max_cpu_isa": cap,
                         **json.loads(done.stdout.splitlines()[-1])})
            print(json.dumps(rows[-1]), flush=True)
    result = {"what": f"{WHAT} autocast in {', '.join(p for p in args.precisions if p != 'fp32')}, by oneDNN's "
                      "instruction-set cap",
              "command": " ".join(["python", "benchmarks/cpu_bf16_emulation.py",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "machine": machine_info(), "results": rows}
    if args.output:
        write_text_atomically(args.output, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
