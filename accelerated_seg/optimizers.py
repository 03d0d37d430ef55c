"""The optimizer a run trains with (``optim.optimizer``), and the state it keeps per parameter.

AdamW is the default. SGD with Nesterov momentum 0.99 and the poly schedule is how nnU-Net trains
(``optim.lr: 0.01``, ``optim.schedule: poly``); the MLPerf reference of the 3D U-Net uses SGD too.
Both are torch's own, so every strategy takes them as it takes any torch optimizer; ``optim.fused``
picks torch's fused kernel of either.
"""

from __future__ import annotations

from typing import Iterable

import torch

from .config import OptimConfig


def build_optimizer(parameters: Iterable[torch.nn.Parameter], optim: OptimConfig, lr: float) -> torch.optim.Optimizer:
    """``optim.optimizer`` over ``parameters`` at learning rate ``lr`` (the batch-scaled one)."""
    fused = optim.fused or None  # None lets torch choose foreach where fused was not asked for
    if optim.optimizer == "sgd":
        return torch.optim.SGD(parameters, lr=lr, momentum=optim.momentum, nesterov=optim.nesterov,
                               weight_decay=optim.weight_decay, fused=fused)
    return torch.optim.AdamW(parameters, lr=lr, weight_decay=optim.weight_decay, fused=fused)


def state_bytes_per_parameter(optim: OptimConfig) -> int:
    """fp32 bytes the optimizer keeps per trainable parameter: AdamW's two moments, SGD's momentum
    buffer (none for plain SGD). The memory plan counts with it (plan.py)."""
    if optim.optimizer == "sgd":
        return 4 if optim.momentum > 0 else 0
    return 8


def continue_with_the_runs_settings(scheduler: torch.optim.lr_scheduler.LambdaLR, lr: float) -> None:
    """After a resume, step with this run's optimizer settings rather than the checkpoint's.

    Loading a training state puts the saved param groups back (torch's ``load_state_dict``: weight
    decay, momentum, ...) and LambdaLR's saved base rate, so a run resumed with ``--optim.lr`` or
    ``--optim.weight_decay`` listed the change ("resuming with settings other than ...") and trained
    on with the old values. A run's optimizer has the one param group ``build_optimizer`` gave it, so
    the optimizer's constructor defaults are the run's settings; under ZeRO offload the scheduler
    drives DeepSpeed's optimizer (``schedule_the_stepping_optimizer``), built from ours. The rate of the
    next step is the schedule's at the resumed step with this run's ``lr`` (the batch-scaled one).
    """
    optimizer = scheduler.optimizer
    settings = {key: value for key, value in optimizer.defaults.items() if key != "lr"}
    scheduler.base_lrs = [lr] * len(optimizer.param_groups)
    for group, multiplier in zip(optimizer.param_groups, scheduler.lr_lambdas, strict=True):
        group.update({key: value for key, value in settings.items() if key in group})
        group["initial_lr"], group["lr"] = lr, lr * multiplier(scheduler.last_epoch)
