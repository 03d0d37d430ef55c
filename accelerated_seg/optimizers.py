"""The optimizer a run trains with (``optim.optimizer``), and the state it keeps per parameter.

AdamW is the default. SGD with Nesterov momentum 0.99 and the poly schedule is how nnU-Net trains
(``optim.lr: 0.01``, ``optim.schedule: poly``); the MLPerf reference of the 3D U-Net uses SGD too.
Both are torch's own, so every strategy takes them as it takes any torch optimizer; ``optim.fused``
picks torch's fused kernel of either.
"""

from __future__ import annotations

from typing import Iterable

import torch
# Nothing here names torch._dynamo, but building any torch optimizer imports it (torch wraps
# Optimizer.add_param_group in torch._disable_dynamo, which imports it at the first call): about 2 s
# and 100,000 objects in every training process. Imported with this module, it arrives with the rest
# of the stack, inside collector.importing_without_collection() where a run imports the stack, rather
# than at the first optimizer with the collector running (which then walked it in ~300 collections).
import torch._dynamo  # noqa: F401

from .config import OptimConfig


def build_optimizer(parameters: Iterable[torch.nn.Parameter] | list[dict], optim: OptimConfig,
                    lr: float) -> torch.optim.Optimizer:
    """``optim.optimizer`` over ``parameters`` (or ``parameter_groups``) at learning rate ``lr`` (the
    batch-scaled one)."""
    fused = optim.fused or None  # None lets torch choose foreach where fused was not asked for
    if optim.optimizer == "sgd":
        return torch.optim.SGD(parameters, lr=lr, momentum=optim.momentum, nesterov=optim.nesterov,
                               weight_decay=optim.weight_decay, fused=fused)
    return torch.optim.AdamW(parameters, lr=lr, weight_decay=optim.weight_decay, fused=fused)


def parameter_groups(model: torch.nn.Module, trained_alone: list[torch.nn.Parameter]) -> list[dict]:
    """The optimizer's parameter groups: the whole network in one; or, where ``train.head_only_steps``
    trains the new layers alone first (the output layers; with ``train.init_into``, those outside the
    loaded part), those layers and then the rest in a second group, which the schedule holds at rate 0
    meanwhile (``schedule.held_then_warmed``).

    A rate of 0 rather than ``requires_grad=False``: DDP, FSDP and ZeRO fix which parameters train when
    they wrap the network, and every one of them takes a group's rate as it is at each step. At rate 0
    AdamW and SGD leave a parameter bit for bit as it was (their weight decay is scaled by the rate
    too); they still keep its moments, so the rest starts with averages of its gradients in place.
    """
    if not trained_alone:
        return [{"params": list(model.parameters())}]
    heads = {id(parameter) for parameter in trained_alone}
    return [{"params": list(trained_alone)},
            {"params": [parameter for parameter in model.parameters() if id(parameter) not in heads]}]


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
    on with the old values. Every param group of a run's optimizer has the settings ``build_optimizer``
    gave it (``parameter_groups`` differ in their rate alone), so the constructor defaults are the
    run's; under ZeRO offload the scheduler drives DeepSpeed's optimizer
    (``schedule_the_stepping_optimizer``), built from ours. The rate of the next step is each group's
    schedule at the resumed step with this run's ``lr`` (the batch-scaled one).
    """
    optimizer = scheduler.optimizer
    settings = {key: value for key, value in optimizer.defaults.items() if key != "lr"}
    scheduler.base_lrs = [lr] * len(optimizer.param_groups)
    for group, multiplier in zip(optimizer.param_groups, scheduler.lr_lambdas, strict=True):
        group.update({key: value for key, value in settings.items() if key in group})
        group["initial_lr"], group["lr"] = lr, lr * multiplier(scheduler.last_epoch)
