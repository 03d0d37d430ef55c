"""What a resumed run may not change from the run that wrote its checkpoint, read from the two runs'
configs alone: the optimizer (its saved state is another optimizer's), how the optimizer's parameter
groups were made (train.head_only_steps, train.init_into), and the regions the outputs stand for.

Torch-free, so that ``accelerated-seg train`` and examples/train.py refuse such a resume before the
imports, and ``train()`` before the data work and the Accelerator, as it refuses a mistyped setting.
Until the sixtieth session these refusals came from the resume itself: after the imports, the check
of every case, the preprocessing, the model's preparation (and DeepSpeed's engine).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .config import ConfigError, settings_changed


def check_resume_settings(checkpoint: Path, config_yaml: str) -> dict[str, tuple]:
    """Raise where this run's settings (``config_yaml``, as ``dump_config`` writes it) cannot continue
    ``checkpoint``'s run; otherwise return ``{key: (saved, now)}`` for each setting that differs
    (``settings_changed``: nothing for ``fit``'s checkpoints, which hold no config).

    Raises:
        ConfigError: naming the setting, its value in the checkpoint's run and here, and the way on.
    """
    changed = settings_changed(checkpoint / "config.yaml", config_yaml)
    if "optim.optimizer" in changed:  # else torch loads one's state into the other and fails at the first step
        saved, asked = changed["optim.optimizer"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it was trained with optim.optimizer {saved} and holds {saved}'s "
            f"state, and this run asks for {asked}. Resume with optim.optimizer: {saved}, or start a new run "
            f"from its weights (train.init_from) with a fresh {asked} and schedule")
    if "train.init_into" in changed and yaml.safe_load(config_yaml)["train"]["head_only_steps"]:
        # head_only_steps' groups: the layers outside the part where it is set, else the output layers
        saved, asked = changed["train.init_into"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it trained with train.init_into={saved}, and its optimizer state "
            f"is grouped for that by train.head_only_steps; this run asks for {asked}. Resume with "
            f"train.init_into={saved}")
    if "train.head_only_steps" in changed and 0 in changed["train.head_only_steps"]:
        # one param group against two (parameter_groups): torch would refuse the optimizer's state, unnamed
        saved, asked = changed["train.head_only_steps"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it trained with train.head_only_steps={saved}, and its optimizer "
            f"state is grouped for that; this run asks for {asked}. "
            + (f"Resume with train.head_only_steps={saved} (after step {saved} it holds nothing back)" if saved else
               "Resume with train.head_only_steps=0: only a fine-tuning run's start trains its output layers alone"))
    # the outputs would mean something else than what the checkpoint's network learned
    if outputs := [key for key in changed if key == "data.region_order" or key.split(".")[:2] == ["data", "regions"]]:
        raise ConfigError(
            f"cannot resume from {checkpoint}: its network learned other regions than this run asks for ("
            + "; ".join(f"{key} {changed[key][0]} there, {changed[key][1]} here" for key in outputs)
            + "). Resume with the checkpoint's data.regions, or start a new run from its weights (train.init_from)")
    return changed
