"""The bf16 and fp16 blocks of a DeepSpeed json, read as accelerate and DeepSpeed read them: which one a launch
runs, and what to write in them for a launch to run another precision.

    switched_on(config, "bf16")                  # "bf16": {"enabled": true} (or "true")
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


def precision_block_problem(file, config: dict) -> str | None:
    """Why the DeepSpeed json ``file``'s (read as ``config``) bf16 or fp16 entry is refused, else None: one that is
    no block of settings, ``"bf16": true`` or ``"fp16": "auto"`` (or null). DeepSpeed builds its settings from the
    block's keys (``DeepSpeedBF16Config(**entry)``, a TypeError) and accelerate reads its "enabled" (an
    AttributeError as the Accelerator is built); this package's own checks of the precision died of it alike, or
    passed a false and a null, until the ninety-eighth session. The form to write keeps the value where it is one
    "enabled" takes. Both blocks switched on, which DeepSpeed refuses ("bfloat16 and fp16 modes cannot be simultaneously
    enabled"), too."""
    for name in PRECISION_BLOCKS:
        if name not in config or isinstance(entry := config[name], dict):
            continue
        enabled = entry if isinstance(entry, bool) or str(entry).lower() in ("true", "false", "auto") else True
        return (f"the DeepSpeed json {file} has \"{name}\": {json.dumps(entry)}, and DeepSpeed takes a block of "
                f"settings there, not a value: write \"{name}\": {{\"enabled\": {json.dumps(enabled)}}} (true "
                f"trains {name}, false does not, \"auto\" takes the precision the launch asks for)")
    if all(switched_on(config, name) for name in PRECISION_BLOCKS):  # DeepSpeed's own AssertionError
        return (f"the DeepSpeed json {file} switches bf16 and fp16 on together (bf16.enabled and fp16.enabled are "
                f"true), which DeepSpeed refuses: write \"enabled\": false in the block of the precision not to train")
    return None


def enabled_of(config: dict, name: str) -> str:
    """The ``name`` block's "enabled" as accelerate compares it: "true", "false", "auto", "missing" (no block, or
    no "enabled": DeepSpeed's default is false, accelerate fills only a missing block) or "no block" (an entry
    :func:`precision_block_problem` refuses)."""
    if name not in config:
        return "missing"
    if not isinstance(block := config[name], dict):
        return "no block"
    return str(block["enabled"]).lower() if "enabled" in block else "not set"


def switched_on(config: dict, name: str) -> bool:
    """Whether a DeepSpeed json's ``name`` block (bf16, fp16) switches it on: ``"enabled": true`` (or "true")."""
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
