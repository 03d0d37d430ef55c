"""Why a ZeRO-3-offload resume matches the uninterrupted run only to float32 rounding.

Under offload DeepSpeed steps the parameters with its CPU Adam (``DeepSpeedCPUAdam``), whose C++
side keeps beta1^t and beta2^t for the bias correction as float32 running products, multiplied by
beta at each step, and recomputes them with ``pow`` only where the step it is given is not the one
after its last (deepspeed/ops/csrc/includes/cpu_adam.h, ``IncrementStep``). A resumed run's
optimizer is a fresh one whose first step is t > 1: it takes ``pow``, the uninterrupted run the
product, and the two differ in float32's last bits. torch's AdamW computes ``1 - beta ** step``
afresh at each step, so it resumes exactly.

This probe steps the optimizers directly, on the same fixed gradients: ``STEPS`` steps straight,
and a few steps, a ``state_dict`` round trip into a new optimizer, then the rest, resumed after each
of ``RESUMED_AFTER``. The bias correction the C++ side takes, 1 - beta^t in float32, differs between
product and pow for beta 0.999 at t = 3 and for beta 0.9 at t = 14, for neither at t = 4, and never
for 0.5, whose powers float32 holds exactly. If it is the cause, the resumed run differs where the
first resumed step t is such a t, with the default betas (0.9, 0.999) only, and torch's AdamW (the
control) never. ``replay_cpu_adams_step_count``, which a resumed training run calls after the load,
should take the difference away.

Every AdamW run comes before DeepSpeed's first step: in some processes that stepped
DeepSpeedCPUAdam first, the first AdamW run after it ended away from every later one, resumed or
straight (not explained). ``--control-processes N`` counts it: N fresh processes with DeepSpeed's
steps first, N without. It also times the replay at ``REPLAYED_STEPS``.

    PYTHONPATH=. python benchmarks/deepspeed_cpu_adam_resume.py --control-processes 16 \
        --output benchmarks/results/deepspeed_cpu_adam_resume_2cpu.json

Needs DeepSpeed (the [deepspeed] extra); its CPU Adam is compiled at the first use (about a minute).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

from accelerated_seg.accelerate_workarounds import replay_cpu_adams_step_count

STEPS, RESUMED_AFTER = 16, (2, 3, 13)
LR = 3e-3
REPLAYED_STEPS = 100_000


def gradients(shape: tuple[int, ...]) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return [torch.randn(shape, generator=generator) for _ in range(STEPS)]


def trained(make_optimizer, resume_at: int | None, replay: bool = False) -> torch.Tensor:
    """The parameter after STEPS steps on the fixed gradients, the optimizer rebuilt from its
    state_dict after ``resume_at`` of them (None: never), and with ``replay`` given its step count
    as a resumed run gives it (``replay_cpu_adams_step_count``)."""
    parameter = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 4096))
    optimizer = make_optimizer([parameter])
    for step, gradient in enumerate(gradients(tuple(parameter.shape)), start=1):
        parameter.grad = gradient.clone()
        optimizer.step()
        if step == resume_at:
            state = optimizer.state_dict()
            optimizer = make_optimizer([parameter])
            optimizer.load_state_dict(state)
            if replay:
                replay_cpu_adams_step_count(optimizer)
    return parameter.detach().clone()


def resume_difference(make_optimizer, resume_at: int, replay: bool = False) -> dict:
    straight, resumed = trained(make_optimizer, None), trained(make_optimizer, resume_at, replay)
    difference = (straight - resumed).abs()
    return {"max_abs": float(difference.max()), "max_relative": float((difference / straight.abs()).max()),
            "elements_differing": int((difference > 0).sum()), "elements": straight.numel()}


def bias_correction_terms(beta: float, step: int) -> dict:
    """beta^step as the C++ optimizer keeps it in float32: the running product (uninterrupted) and pow
    (the first step after a resume), and how far apart the bias corrections 1 - beta^step it takes
    from them are (in float32 too, where they often round alike)."""
    product = np.float32(1.0)
    for _ in range(step):
        product = np.float32(product * np.float32(beta))
    power = np.float32(np.float64(np.float32(beta)) ** step)
    return {"running_product": float(product), "pow": float(power),
            "bias_correction_relative_difference": float(abs((1 - product) - (1 - power)) / (1 - power))}


def first_adamw_runs(cpu_adam_first: bool) -> dict:
    """In this fresh process: AdamW straight twice and resumed once, after DeepSpeedCPUAdam's steps
    or not; how far the first straight run ends from the second, and the resumed one from it."""
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    def adamw(params):
        return torch.optim.AdamW(params, lr=LR, weight_decay=0.01)

    if cpu_adam_first:
        trained(lambda params: DeepSpeedCPUAdam(params, lr=LR, weight_decay=0.01, adamw_mode=True), RESUMED_AFTER[0])
    first, second, resumed = trained(adamw, None), trained(adamw, None), trained(adamw, RESUMED_AFTER[0])
    return {"first_vs_second": float((first - second).abs().max()), "resumed_vs_second": float(
        (resumed - second).abs().max())}


def control_processes(count: int) -> dict:
    """first_adamw_runs in ``count`` fresh processes each way."""
    counted = {}
    for way in ("cpu_adam_first", "adamw_alone"):
        runs = [json.loads(subprocess.run([sys.executable, __file__, "--one-control", way], check=True,
                                          capture_output=True, text=True).stdout.splitlines()[-1])
                for _ in range(count)]
        counted[way] = {"processes": count, "first_run_differing": sum(r["first_vs_second"] > 0 for r in runs),
                        "resumed_differing_from_second": sum(r["resumed_vs_second"] > 0 for r in runs),
                        "largest_difference": max(r["first_vs_second"] for r in runs)}
    return counted


def replay_seconds(steps: int) -> float:
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    parameter = torch.nn.Parameter(torch.zeros(8))
    optimizer = DeepSpeedCPUAdam([parameter], lr=LR)
    parameter.grad = torch.ones(8)
    optimizer.step()
    optimizer.state[parameter]["step"] = steps
    started = time.perf_counter()
    replay_cpu_adams_step_count(optimizer)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path)
    parser.add_argument("--control-processes", type=int, default=0)
    parser.add_argument("--one-control", choices=("cpu_adam_first", "adamw_alone"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one_control:
        print(json.dumps(first_adamw_runs(arguments.one_control == "cpu_adam_first")))
        return
    if arguments.output is None:
        parser.error("--output is required")
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, arguments.output, result_key="benchmark", kind="deepspeed_cpu_adam_resume")
    output = arguments.output
    from deepspeed.ops.adam import DeepSpeedCPUAdam
    import deepspeed

    cases = [(f"{name}_resumed_after_{after}", betas, after) for name, betas in (
        ("default_betas_0.9_0.999", (0.9, 0.999)), ("betas_0.5_0.5", (0.5, 0.5))) for after in RESUMED_AFTER]
    # every AdamW run before DeepSpeed's first step: see the module's docstring
    results = {case: {"torch_adamw": resume_difference(
        lambda params, b=betas: torch.optim.AdamW(params, lr=LR, betas=b, weight_decay=0.01), after)}
        for case, betas, after in cases}
    for case, betas, after in cases:
        def cpu_adam(params, b=betas):
            return DeepSpeedCPUAdam(params, lr=LR, betas=b, weight_decay=0.01, adamw_mode=True)

        results[case].update({
            "deepspeed_cpu_adam": resume_difference(cpu_adam, after),
            "deepspeed_cpu_adam_step_count_replayed": resume_difference(cpu_adam, after, replay=True),
            "beta1_at_first_resumed_step": bias_correction_terms(betas[0], after + 1),
            "beta2_at_first_resumed_step": bias_correction_terms(betas[1], after + 1),
        })
        row = results[case]
        print(f"{case}: DeepSpeedCPUAdam max |difference| "
              f"{row['deepspeed_cpu_adam']['max_abs']:.3g} (step count replayed: "
              f"{row['deepspeed_cpu_adam_step_count_replayed']['max_abs']:.3g}), "
              f"AdamW {row['torch_adamw']['max_abs']:.3g}; 1 - beta^t "
              f"differs: beta1 {row['beta1_at_first_resumed_step']['bias_correction_relative_difference'] > 0}"
              f", beta2 {row['beta2_at_first_resumed_step']['bias_correction_relative_difference'] > 0}")
    replay = replay_seconds(REPLAYED_STEPS)
    print(f"replay of {REPLAYED_STEPS} steps: {replay:.3f} s")
    controls = control_processes(arguments.control_processes) if arguments.control_processes else None
    if controls:
        print("first AdamW run after DeepSpeedCPUAdam's steps:", json.dumps(controls))
    write_text_atomically(output, json.dumps({
        "benchmark": "deepspeed_cpu_adam_resume", "machine": {
            "cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
            "torch": torch.__version__, "deepspeed": deepspeed.__version__},
        "command": f"PYTHONPATH=. python benchmarks/deepspeed_cpu_adam_resume.py --control-processes "
                   f"{arguments.control_processes} --output {output}",
        "steps": STEPS, "lr": LR, "results": results,
        "replay_seconds": {"steps": REPLAYED_STEPS, "seconds": round(replay, 4),
                           "microseconds_per_step": round(replay / REPLAYED_STEPS * 1e6, 2)},
        "first_adamw_run_after_cpu_adam": controls}, indent=1) + "\n")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
