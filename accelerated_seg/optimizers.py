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


def param_group_settings(optimizer: torch.optim.Optimizer, scheduled: bool) -> list[dict]:
    """Each param group's settings, as plain values, for ``settings_the_load_brought_back``: all it
    holds but its parameters. ``scheduled``: a schedule steps the optimizer, so the rate in the group is
    the step's, not a setting; the base rate every torch schedule keeps there (``initial_lr``) stands
    for it. A schedule that cycles the momentum (OneCycleLR, CyclicLR: they keep ``max_momentum`` in the
    group) makes ``betas`` and ``momentum`` the step's too."""
    settings = []
    for group in optimizer.param_groups:
        of_the_step = {"params", "param_names"}
        if scheduled and "initial_lr" in group:
            of_the_step.add("lr")
        if "max_momentum" in group:
            of_the_step |= {"betas", "momentum"}
        settings.append({key: _plain(value) for key, value in group.items() if key not in of_the_step})
    return settings


def settings_the_load_brought_back(given: list[dict], loaded: list[dict]) -> dict[str, tuple]:
    """``{name: (loaded, given)}`` for each param-group setting (``param_group_settings``) that loading a
    checkpoint's optimizer state replaced: torch's ``load_state_dict`` puts the saved groups' settings back
    whatever the optimizer was built with. One value for all groups, or a list of each group's where
    they differ. A setting that one side lacks (a checkpoint of another torch) is left out."""
    keys = [key for key in loaded[0] if all(key in group for group in (*given, *loaded))] if loaded else []
    brought_back = {}
    for key in keys:
        was, now = [group[key] for group in given], [group[key] for group in loaded]
        if was != now:
            brought_back[_SETTING_NAMES.get(key, key)] = (_one_or_each(now), _one_or_each(was))
    return brought_back


# the base rate a schedule keeps in each group: LambdaLR's base_lrs, which its saved state brings back too
_SETTING_NAMES = {"initial_lr": "base lr"}


def _plain(value):
    """``value`` comparable across a save and a load: a one-number tensor (an lr given as
    ``torch.tensor(1e-3)``) as its number, a list (``betas`` after a load) as a tuple."""
    if isinstance(value, torch.Tensor):
        return value.item() if value.numel() == 1 else tuple(value.tolist())
    if isinstance(value, (list, tuple)):
        return tuple(_plain(each) for each in value)
    return value


def _one_or_each(values: list):
    return values[0] if all(value == values[0] for value in values) else values
