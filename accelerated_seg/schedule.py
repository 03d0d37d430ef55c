"""How many samples one optimizer step sees, and the learning rate for each step.

The user states either a per-device batch or a global batch; the number of processes is only known
at launch, so the split into per-device batch x processes x accumulation steps is resolved here, and
the learning rate is scaled from the base batch it was tuned for:

    plan = resolve_batch(batch_size=None, global_batch_size=16, grad_accum_steps=None,
                         num_processes=4, lr=1e-3, base_batch_size=2, lr_scaling="sqrt")
    # plan.per_device == 4, plan.accum_steps == 1, plan.lr == 1e-3 * sqrt(16 / 2)

The schedule is a function of the optimizer step only. It is stepped once per optimizer step by
the loop itself (not prepared by accelerate, whose wrapper steps it once per process), so it is the
same for any number of processes. A warm-up as long as the run, whose rate never decays, is warned of
(``warmup_warning``; in train.py until the ninety-sixth session), and so is a rate of 0 (``zero_lr_warning``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from .config import ConfigError, OptimConfig

if TYPE_CHECKING:
    from .model_folders import Names

DEFAULT_PER_DEVICE_BATCH = 2


@dataclass(frozen=True)
class BatchPlan:
    per_device: int
    num_processes: int
    accum_steps: int
    lr: float  # after scaling for the global batch

    @property
    def global_batch(self) -> int:
        return self.per_device * self.num_processes * self.accum_steps

    def describe(self) -> str:
        return (f"global batch {self.global_batch} = {self.per_device} per device x {self.num_processes} "
                f"process(es) x {self.accum_steps} accumulation step(s); lr {self.lr:.3g}")


def resolve_batch(batch_size: int | None, global_batch_size: int | None, grad_accum_steps: int | None,
                  num_processes: int, lr: float, base_batch_size: int, lr_scaling: str) -> BatchPlan:
    """Resolve per-device batch, accumulation and learning rate; any impossible request is an error.

    Args:
        batch_size: per-device batch (``train.batch_size``), or None.
        global_batch_size: samples per optimizer step over all processes, or None.
        grad_accum_steps: accumulation steps, or None (1, or whatever the global batch needs).
        num_processes: processes launched.
        lr: learning rate tuned at ``base_batch_size``.
        base_batch_size: the global batch ``lr`` was tuned for.
        lr_scaling: ``none``, ``linear`` (Goyal et al.) or ``sqrt`` (common for Adam).
    """
    for name, value in (("train.batch_size", batch_size), ("train.global_batch_size", global_batch_size),
                        ("train.grad_accum_steps", grad_accum_steps), ("optim.base_batch_size", base_batch_size)):
        if value is not None and value < 1:
            raise ConfigError(f"{name} must be >= 1, got {value}")
    if global_batch_size is None:
        per_device = batch_size or DEFAULT_PER_DEVICE_BATCH
        accum = grad_accum_steps or 1
    elif batch_size is not None:
        accum, rest = divmod(global_batch_size, batch_size * num_processes)
        if rest or accum == 0:
            # with train.grad_accum_steps set the one global batch that splits is the product: "a multiple of 16"
            # was said of batch 2 x 8 processes x 2 steps, whose 48 was then refused for its 3 steps; without it
            # the steps are whatever splits, and two settings were set (it said "x train.grad_accum_steps ?" and
            # "drop one of the three", until the hundred-and-twenty-seventh session's review r129)
            one = batch_size * num_processes
            raise ConfigError(
                f"train.global_batch_size {global_batch_size} cannot be split into train.batch_size {batch_size} x "
                f"{num_processes} process(es) x train.grad_accum_steps {grad_accum_steps}; choose a global batch of "
                f"{one * grad_accum_steps}, or drop one of the three settings" if grad_accum_steps is not None else
                f"train.global_batch_size {global_batch_size} cannot be split into train.batch_size {batch_size} x "
                f"{num_processes} process(es) x accumulation steps; choose a global batch that is a multiple of "
                f"{one}, or drop train.batch_size or train.global_batch_size"
            )
        if grad_accum_steps is not None and grad_accum_steps != accum:  # the global batch divides; the three disagree
            raise ConfigError(
                f"train.global_batch_size {global_batch_size} = train.batch_size {batch_size} x {num_processes} "
                f"process(es) x {accum} accumulation step(s), not the {grad_accum_steps} of train.grad_accum_steps; "
                f"drop one of the three settings (the other two decide it)"
            )
    else:
        accum = grad_accum_steps or 1
        per_device, rest = divmod(global_batch_size, num_processes * accum)
        if rest or per_device == 0:
            raise ConfigError(
                f"train.global_batch_size {global_batch_size} is not divisible by {num_processes} "
                f"process(es) x {accum} accumulation step(s); choose a multiple of {num_processes * accum}"
            )
    if global_batch_size is not None and batch_size is not None:
        per_device = batch_size
    plan = BatchPlan(per_device=per_device, num_processes=num_processes, accum_steps=accum, lr=lr)
    return BatchPlan(per_device, num_processes, accum, lr * lr_scale(plan.global_batch, base_batch_size, lr_scaling))


def lr_scale(global_batch: int, base_batch_size: int, rule: str) -> float:
    ratio = global_batch / base_batch_size
    if rule == "none":
        return 1.0
    if rule == "linear":
        return ratio
    if rule == "sqrt":
        return math.sqrt(ratio)
    raise ConfigError(f"optim.lr_scaling must be none, linear or sqrt, got {rule!r}")


def lr_multiplier(step: int, optim: OptimConfig, max_steps: int) -> float:
    """Multiplier of the base lr at optimizer step ``step`` (0-based): a linear warm-up over
    ``optim.warmup_steps``, then ``optim.schedule``'s decay to ``optim.min_lr_ratio`` at ``max_steps``,
    along a half cosine or as nnU-Net's poly, ``(1 - progress) ** optim.poly_exponent``."""
    if step < optim.warmup_steps:
        return (step + 1) / optim.warmup_steps
    progress = min(1.0, (step - optim.warmup_steps) / max(1, max_steps - optim.warmup_steps))
    if optim.schedule == "poly":
        decay = (1.0 - progress) ** optim.poly_exponent
    else:
        decay = 0.5 * (1.0 + math.cos(math.pi * progress))
    return optim.min_lr_ratio + (1.0 - optim.min_lr_ratio) * decay


def held_then_warmed(step: int, optim: OptimConfig, max_steps: int, held_steps: int) -> float:
    """Multiplier for the part of the network that ``train.head_only_steps`` holds: none for the first
    ``held_steps``, then the run's (``lr_multiplier``) ramped in over ``optim.warmup_steps`` as a run's
    start is, so the pretrained layers do not meet the full rate in one step."""
    if step < held_steps:
        return 0.0
    ramp = min(1.0, (step - held_steps + 1) / optim.warmup_steps) if optim.warmup_steps else 1.0
    return ramp * lr_multiplier(step, optim, max_steps)


def lr_multipliers(optim: OptimConfig, max_steps: int, head_only_steps: int = 0) -> list[Callable[[int], float]]:
    """One multiplier per ``optimizers.parameter_groups`` group, for torch's LambdaLR: the run's schedule;
    with ``train.head_only_steps``, the output layers' and then the rest's (``held_then_warmed``)."""
    multipliers = [lambda step: lr_multiplier(step, optim, max_steps)]
    if head_only_steps:
        multipliers.append(lambda step: held_then_warmed(step, optim, max_steps, head_only_steps))
    return multipliers


def warmup_warning(optim: OptimConfig, max_steps: int, lr: float, names: Names) -> str | None:
    """The warning where ``optim.warmup_steps`` is not below ``train.max_steps``: the learning rate (``lr``, the
    plan's, after scaling) would rise for the whole run and never decay. ``names``: the caller's words for the
    settings (the estimator's keywords since the ninety-second session), and how to give fewer warm-up steps or a
    longer run: a notebook's first short fit met it, of a default warm-up it never set, with no way on until the
    hundred-and-fourth session. None where the warm-up ends in time."""
    if optim.warmup_steps < max_steps:
        return None
    return (f"warning: {names.set_to('optim.warmup_steps', optim.warmup_steps)} is not below "
            f"{names.set_to('train.max_steps', max_steps)}: the learning rate rises for the whole run, reaches "
            f"{max_steps / optim.warmup_steps:.0%} of {lr:g} and never decays; give fewer warm-up steps "
            f"({names.give('optim.warmup_steps', 0)} for none) or a longer run ({names.length})")


def zero_lr_warning(optim: OptimConfig, names: Names) -> str | None:
    """The warning where ``optim.lr`` is 0: no step moves the weights, and the run exports the ones it started from.
    Warned of, not refused as a negative rate is: the tests that check ``train.init_from`` train at 0 to compare
    the export with the weights given. Accepted without a word until the hundred-and-fifth session. ``names``: the
    caller's words for the settings (the estimator's ``lr``). None where the rate is above 0."""
    if optim.lr > 0:
        return None
    start = names.setting("train.init_from")
    return (f"warning: {names.set_to('optim.lr', optim.lr)}: no step moves the weights (batch norms' running "
            f"statistics alone change), so the run exports the weights it starts from, {start}'s or untrained "
            f"ones; give {names.setting('optim.lr')} > 0 to train")
