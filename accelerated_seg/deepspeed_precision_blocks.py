"""The bf16 and fp16 blocks of a DeepSpeed json, read as accelerate and DeepSpeed read them: which one a launch
runs, and what to write in them for a launch to run another precision.

    switched_on(config, "bf16")                  # "bf16": {"enabled": true} (or "true", "yes", 1...)
    blocks_to_train(config, "fp16", asked="fp16") # ['"bf16": {"enabled": false}']

accelerate (1.16, ``DeepSpeedPlugin.set_mixed_precision``) fills a block with the precision the launch asks for only
where the block is missing or its "enabled" is "auto"; an explicit true or false wins over the launch, and it refuses
a low precision asked for beside the other one's block switched on. A remedy that named one block to change where
another had to change too left the run refused, or training a precision nobody asked for (ninety-eighth session).
"""

from __future__ import annotations

import json

#: The precision blocks of a DeepSpeed json, by accelerate's name of the precision each switches on.
PRECISION_BLOCKS = ("bf16", "fp16")

#: The "enabled" strings DeepSpeed (its settings' pydantic bool) and accelerate (``AcceleratorState.mixed_precision``,
#: the value's truth) both read as on; 1 and true too. The strings DeepSpeed reads as off ("false", "no", "off", "0",
#: "f", "n") are true to accelerate, which then says the run is in that precision while DeepSpeed trains fp32.
_BOTH_READ_AS_ON = ("true", "t", "yes", "y", "on", "1")


def precision_block_problem(file, config: dict) -> str | None:
    """Why the DeepSpeed json ``file``'s (read as ``config``) bf16 or fp16 entry is refused, else None: one that is
    no block of settings, ``"bf16": true`` or ``"fp16": "auto"`` (or null). DeepSpeed builds its settings from the
    block's keys (``DeepSpeedBF16Config(**entry)``, a TypeError) and accelerate reads its "enabled" (an
    AttributeError as the Accelerator is built); this package's own checks of the precision died of it alike, or
    passed a false and a null, until the ninety-eighth session. The form to write keeps the value where it is one
    "enabled" takes. Both blocks switched on, which DeepSpeed refuses ("bfloat16 and fp16 modes cannot be simultaneously
    enabled"), too; and DeepSpeed's older "bfloat16" key, or an "enabled" :func:`enabled_of` reads as "read apart"
    (ninety-eighth session)."""
    if "bfloat16" in config:  # DeepSpeed's older name, read where "bf16" is absent, which accelerate never leaves it
        return (f"the DeepSpeed json {file} has \"bfloat16\", DeepSpeed's older name of the bf16 block, which "
                f"accelerate does not read: it writes \"bf16\": {{\"enabled\": false}} where that block is missing, "
                f"and DeepSpeed then trains fp32: write \"bf16\" in its place")
    for name in PRECISION_BLOCKS:
        if name not in config:
            continue
        if isinstance(entry := config[name], dict):
            if enabled_of(config, name) == "read apart":
                return _enabled_read_apart_problem(file, name, entry["enabled"])
            continue
        enabled = entry if isinstance(entry, bool) or str(entry).lower() in ("true", "false", "auto") else True
        return (f"the DeepSpeed json {file} has \"{name}\": {json.dumps(entry)}, and DeepSpeed takes a block of "
                f"settings there, not a value: write \"{name}\": {{\"enabled\": {json.dumps(enabled)}}} (true "
                f"trains {name}, false does not, \"auto\" takes the precision the launch asks for)")
    if all(switched_on(config, name) for name in PRECISION_BLOCKS):  # DeepSpeed's own AssertionError
        return (f"the DeepSpeed json {file} switches bf16 and fp16 on together (bf16.enabled and fp16.enabled are "
                f"true), which DeepSpeed refuses: write \"enabled\": false in the block of the precision not to train")
    return None


def _enabled_read_apart_problem(file, name: str, enabled) -> str:
    """Why the DeepSpeed json ``file``'s ``name`` block's "enabled" (``enabled``: one :func:`enabled_of` reads as
    "read apart") is refused."""
    return (f"the DeepSpeed json {file} has {name}.enabled {json.dumps(enabled)}, which DeepSpeed and accelerate read "
            f"apart (a word DeepSpeed reads as false is true to accelerate) or DeepSpeed refuses: write "
            f"\"{name}\": {{\"enabled\": false}} (true trains {name}, \"auto\" takes the precision the launch asks for)")


def enabled_of(config: dict, name: str) -> str:
    """The ``name`` block's "enabled" as accelerate and DeepSpeed both read it: "true", "false", "auto", "missing" (no
    block), "not set" (no "enabled": DeepSpeed's default is false, accelerate fills only a missing block), "no block"
    or "read apart" (entries :func:`precision_block_problem` refuses: "no", "off", "0"... are false to DeepSpeed and
    true to accelerate; null, 2 or another word DeepSpeed refuses). Until the ninety-eighth session "yes", "on" or 1,
    which both train, read as off."""
    if name not in config:
        return "missing"
    if not isinstance(block := config[name], dict):
        return "no block"
    if "enabled" not in block:
        return "not set"
    enabled = block["enabled"]
    if isinstance(enabled, bool) or (isinstance(enabled, (int, float)) and enabled in (0, 1)):
        return "true" if enabled else "false"
    if enabled == "auto":
        return "auto"
    return "true" if isinstance(enabled, str) and enabled.lower() in _BOTH_READ_AS_ON else "read apart"


def switched_on(config: dict, name: str) -> bool:
    """Whether a DeepSpeed json's ``name`` block (bf16, fp16) switches it on: ``"enabled": true`` (or "true", "yes",
    1...: :func:`enabled_of`)."""
    return enabled_of(config, name) == "true"


def blocks_to_train(config: dict, train: str, asked: str) -> list[str]:
    """The json's blocks to write, each as ``"bf16": {"enabled": false}``, for a launch asking for ``asked`` to train
    ``train`` (accelerate's names: "no", "bf16", "fp16"), else [] where it trains it already. The block of ``train``
    is written "auto" where the launch asks for it (it then takes the precision asked), else true; any other block
    switched on, false."""
    writes = []
    for name in PRECISION_BLOCKS:
        enabled = enabled_of(config, name)
        if name != train:  # switched on, or filled by the launch asking for it
            if enabled in ("true", "no block") or (asked == name and enabled in ("auto", "missing")):
                writes.append(f'"{name}": {{"enabled": false}}')
        elif asked == name and enabled not in ("true", "auto", "missing"):
            writes.append(f'"{name}": {{"enabled": "auto"}}')
        elif asked != name and enabled != "true":
            writes.append(f'"{name}": {{"enabled": true}}')
    return writes
