"""What ``fit`` is given, refused where the loop cannot train it, before anything is made or written:
the numbers (one of max_epochs and max_steps, each in range), a loader the loop can count and shard
(a DataLoader of known length), an optimizer over the model's own parameters, and a scheduler the loop
can step once per optimizer step for the whole run (also as a resume restores it).
"""

from __future__ import annotations

from pathlib import Path

import torch

from .config import ConfigError
from .wording import counted


def check_fit_arguments(model: torch.nn.Module, loader, optimizer, scheduler, *, max_epochs: int | None,
                        max_steps: int | None, grad_accum_steps: int, log_every: int, keep_last: int,
                        save_every: int, max_grad_norm: float) -> None:
    """Refuse fit's arguments that cannot train, before anything is made or written."""
    if (max_epochs is None) == (max_steps is None):
        raise ConfigError("fit: give exactly one of max_epochs and max_steps")
    _check_the_loader(loader)
    _check_the_optimizer_and_schedule(model, optimizer, scheduler)
    for name, value, lowest in (("max_epochs", max_epochs, 1), ("max_steps", max_steps, 1),
                                ("grad_accum_steps", grad_accum_steps, 1), ("log_every", log_every, 1),
                                ("keep_last", keep_last, 1), ("save_every", save_every, 0),
                                ("max_grad_norm", max_grad_norm, 0)):
        if value is not None and value < lowest:
            raise ConfigError(f"fit: {name} must be >= {lowest}, got {value!r}")


def _check_the_loader(loader) -> None:
    """``fit``'s loader as the loop needs it, or one ConfigError: a list of batches or a generator was
    an AttributeError (``batch_size``), a loader without a length torch's TypeError (seventy-third
    session's probe)."""
    if not isinstance(loader, torch.utils.data.DataLoader):
        # accelerate shards a DataLoader over the processes and resumes it mid-epoch; anything else
        # it hands back as it is
        raise ConfigError(f"fit: loader must be a torch.utils.data.DataLoader, got a {type(loader).__name__}; "
                          f"give your samples to one (DataLoader(dataset, batch_size=...)), or use Dataset.loader()")
    try:
        len(loader)
    except TypeError:  # an IterableDataset without __len__
        raise ConfigError(f"fit: the loader's {type(loader.dataset).__name__} has no length, and the loop counts "
                          f"epochs, max_epochs' steps and a resume's position in batches: give the dataset a "
                          f"__len__ (the samples of one epoch), or make it a map-style Dataset") from None


def _check_the_optimizer_and_schedule(model: torch.nn.Module, optimizer, scheduler) -> None:
    """``fit``'s optimizer and scheduler as the loop can step them, or one ConfigError before any work.

    An optimizer built over another instance of the network (a notebook's model cell run again, its
    optimizer's not) trained nothing and exported the untrained weights without a word, and a
    ReduceLROnPlateau, which the loop steps without the metric it waits for, was torch's TypeError at
    the first step (a training audit's probes).
    """
    own = {id(parameter) for parameter in model.parameters()}
    stepped = [parameter for group in getattr(optimizer, "param_groups", []) for parameter in group["params"]]
    if own and stepped and not any(id(parameter) in own for parameter in stepped):
        raise ConfigError("fit: the optimizer holds none of the model's parameters (built over another instance "
                          "of the network, or before it was rebuilt?): build it over model.parameters(), e.g. "
                          "torch.optim.AdamW(model.parameters(), lr=...), after the model")
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        raise ConfigError("fit: scheduler ReduceLROnPlateau waits for a validation metric, and fit steps the "
                          "scheduler once per optimizer step without one (it does not validate): give a schedule "
                          "of the step (LambdaLR, CosineAnnealingLR, OneCycleLR, ...), or none")


def check_the_schedule_length(scheduler, max_steps: int, checkpoint: Path | None = None) -> None:
    """A scheduler built for a number of steps (OneCycleLR's ``total_steps``) fewer than the run takes
    raised torch's ValueError ("Tried to step 4 times") at its last step + 1, in the middle of training;
    refused before it, naming both (after a resume, the length its checkpoint restored). One inside a
    ChainedScheduler or SequentialLR is held to the steps it takes there: it was the same ValueError."""
    for inner, steps in _steps_of_each_schedule(scheduler, max_steps):
        total = getattr(inner, "total_steps", None)
        if not (isinstance(total, int) and total < steps):
            continue
        which = type(inner).__name__ + (f" inside {type(scheduler).__name__}" if inner is not scheduler else "")
        under = "" if steps == max_steps else f", {steps} of them under it"
        if checkpoint is None:
            restored, way = "", f"build it with total_steps={steps}, or train fewer steps"
        else:  # the schedule built is replaced by the checkpoint's: building it longer does not help
            restored = f" (as {checkpoint} restored it)"
            way = ("a resume goes on with the schedule its checkpoint saved, whatever the scheduler is built with: "
                   "resume with fewer steps, or train on from its weights as a new run (another checkpoint_dir) "
                   "with a schedule of its own")
        raise ConfigError(f"fit: the scheduler {which} is built for total_steps={total}{restored}, but the run takes "
                          f"{counted(max_steps, 'optimizer step')} (max_steps, or max_epochs x batches per process / "
                          f"grad_accum_steps){under}: {way}")


def _steps_of_each_schedule(scheduler, steps: int):
    """``(scheduler, steps it is stepped)`` for ``scheduler`` and each one it chains: every one of a
    ChainedScheduler's each step; a SequentialLR's each between its milestones (torch resets, not steps,
    the next one at a milestone)."""
    yield scheduler, steps
    inner = getattr(scheduler, "_schedulers", None)
    if not isinstance(inner, (list, tuple)):
        return
    if isinstance(scheduler, torch.optim.lr_scheduler.SequentialLR):
        milestones = list(scheduler._milestones)
        for index, each in enumerate(inner):
            start = milestones[index - 1] if index > 0 else 0
            end = milestones[index] - 1 if index < len(milestones) else steps
            yield from _steps_of_each_schedule(each, max(0, min(end, steps) - start))
    else:
        for each in inner:
            yield from _steps_of_each_schedule(each, steps)
