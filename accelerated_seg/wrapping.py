"""How the plain MONAI network is adapted to the strategy before ``accelerator.prepare`` wraps it.

The unit of all of this is a network's *block*: the repeated building piece of each MONAI
architecture (a Swin or ViT transformer block, a residual unit). Blocks are where FSDP should cut
the model into separately gathered units, and where activation checkpointing pays: recomputing one
block's forward in backward saves all of its intermediate activations.

- ``fill_fsdp_wrap_classes``: a profile with ``fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP`` and no
  class names gets this network's block classes (accelerate would look for a transformers-style
  ``_no_split_modules`` attribute, which MONAI networks do not have, and wrap nothing).
- ``fsdp2_valid_units_only``: accelerate's FSDP2 size-based policy would make units of
  ``nn.ModuleList``/``nn.ModuleDict`` containers, which ``fully_shard`` refuses, and of DynUNet's
  skip layers, whose blocks the root reaches again under their other names.
- ``fsdp_mixed_precision``: under FSDP with bf16/fp16, parameters are gathered in low precision for
  compute, but gradients are reduced and buffers (norm running statistics) kept in fp32; accelerate's
  default casts both to the low precision.
- ``checkpoint_blocks``: activation checkpointing of every block, for any strategy.
- ``convert_sync_batchnorm``: BatchNorm statistics over the global batch under DDP.
- ``check_fsdp1_wrappable``: FSDP1 cannot wrap a network that registers a module twice (DynUNet).
- ``size_deepspeed_buckets``: DeepSpeed's communication buckets no larger than the model.
- ``mark_zero3_leaf_blocks``: under ZeRO-3, blocks become leaf modules, so DeepSpeed's per-module hooks
  run once per block instead of once per layer (its host work is most of ZeRO-3's cost here).

Model code never imports this; the training loop applies it to whatever the registry built.
"""

from __future__ import annotations

import functools
from typing import Callable

import torch
import torch.nn as nn

from .config import ConfigError

# Class names (MONAI 1.x) of the repeated blocks of the registry's networks. A block never contains
# another one listed here, so checkpointing all of them never nests.
BLOCK_CLASS_NAMES = (
    "SwinTransformerBlock",  # SwinUNETR's encoder stages
    "TransformerBlock",  # UNETR's ViT
    "ResidualUnit",  # UNet with num_res_units > 0
    "ResBlock",  # SegResNet
    "UnetResBlock",  # DynUNet (res_block=True), the CNN parts of UNETR/SwinUNETR
    "UnetBasicBlock",  # DynUNet (res_block=False), MLPerf 3D U-Net
)


def block_class_names(model: nn.Module) -> list[str]:
    """The block classes present in ``model``, in ``BLOCK_CLASS_NAMES`` order."""
    present = {type(m).__name__ for m in model.modules()}
    return [name for name in BLOCK_CLASS_NAMES if name in present]


def is_block(module: nn.Module) -> bool:
    return type(module).__name__ in BLOCK_CLASS_NAMES


def fill_fsdp_wrap_classes(plugin, model: nn.Module) -> list[str] | None:
    """Give a class-based FSDP wrap policy this model's block classes, unless the profile named some.

    Returns the class names set, or None when the policy is not class based or names were given.

    Raises:
        ConfigError: class-based wrapping asked for a network without any known block, or named a class
            the network does not have.
    """
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy

    policy = plugin.auto_wrap_policy
    policy = policy.func if isinstance(policy, functools.partial) else policy
    if policy is not transformer_auto_wrap_policy:
        return None
    if plugin.transformer_cls_names_to_wrap:
        _check_named_classes_present(plugin.transformer_cls_names_to_wrap, model)
        return None
    names = block_class_names(model)
    if not names:
        raise ConfigError(f"the accelerate config asks for fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP, but "
                          f"{type(model).__name__} has none of the block classes {', '.join(BLOCK_CLASS_NAMES)}; "
                          f"name the classes in fsdp_transformer_layer_cls_to_wrap or use SIZE_BASED_WRAP")
    plugin.transformer_cls_names_to_wrap = names
    return names


def is_container(module: nn.Module) -> bool:
    """A ``ModuleList``/``ModuleDict`` that does not define ``forward`` (torch's own test): its
    parent calls its children directly, so hooks on the container itself never run."""
    return isinstance(module, (nn.ModuleList, nn.ModuleDict)) and type(module).forward is nn.Module.forward


def modules_entangled_outside(model: nn.Module) -> set[int]:
    """The ids of modules with a descendant holding parameters that is also registered outside them.

    DynUNet's ``skip_layers`` chain holds ``input_block``, ``downsamples``, ``bottleneck`` and
    ``upsamples``, which the network registers again as its own attributes. Such a module cannot be
    an FSDP2 unit on its own: ``fully_shard`` makes DTensors of every parameter below it that no
    smaller unit took, and the root, reaching those blocks again by their other names, meets
    DTensors it did not make, takes them for tensor-parallel ones and fails
    ("Invariant encountered: value was None", torch 2.11 and 2.13). A shared module without
    parameters (SegResNet's activation, used twice) gets no DTensors and entangles nothing.
    """
    parents: dict[int, set[int]] = {}
    for module in model.modules():
        for child in module.children():
            parents.setdefault(id(child), set()).add(id(module))
    entangled = set()
    for module in model.modules():
        inside = {id(m): m for m in module.modules()}
        if any(parents[d] - inside.keys() for d, m in inside.items()
               if m is not module and next(m.parameters(), None) is not None):
            entangled.add(id(module))
    return entangled


def fsdp2_valid_units_only() -> None:
    """Make accelerate's FSDP2 wrap policies pass over modules ``fully_shard`` cannot take as units
    (idempotent).

    accelerate (1.15) turns ``SIZE_BASED_WRAP`` into "every module above fsdp_min_num_params" and
    calls ``fully_shard`` on each, then on the root. Two kinds of module break that:

    - containers (``nn.ModuleList``/``ModuleDict`` without ``forward``), which torch refuses
      ("fully_shard does not support containers that do not implement forward"): FSDP's hooks run
      around ``forward``, which a container never runs. With the shipped ``fsdp.yaml`` (1 M
      parameters), ``prepare`` failed for SegResNet (``down_layers``), SwinUNETR, UNETR, DynUNet and
      the MLPerf U-Net. torch's own size-based policy (FSDP1) excludes them too.
    - modules with descendants registered elsewhere as well (``modules_entangled_outside``):
      DynUNet's skip layers, above 1 M parameters. The root's ``fully_shard`` then failed for
      DynUNet and the MLPerf U-Net (seen on an H100; reproduced on the CPU in tests/test_fsdp_cpu.py).

    This wrapper of accelerate's policy builder passes over both: their large enough blocks become
    units themselves, and the rest of their parameters stay with the enclosing unit (for DynUNet's
    skip layers, the root).
    """
    from accelerate.utils import fsdp_utils

    build_policy = fsdp_utils.fsdp2_prepare_auto_wrap_policy
    if getattr(build_policy, "valid_units_only", False):
        return

    @functools.wraps(build_policy)
    def build_policy_for_valid_units(plugin, model):
        policy = build_policy(plugin, model)
        if policy is None:
            return None
        entangled = modules_entangled_outside(model)
        return lambda module: not is_container(module) and id(module) not in entangled and policy(module)

    build_policy_for_valid_units.valid_units_only = True
    fsdp_utils.fsdp2_prepare_auto_wrap_policy = build_policy_for_valid_units


_LOW_PRECISION = {"bf16": torch.bfloat16, "fp16": torch.float16}


def fsdp_mixed_precision(plugin, mixed_precision: str) -> None:
    """Compute in ``mixed_precision``, reduce gradients and keep buffers in fp32.

    accelerate's policy for ``mixed_precision: bf16`` also reduces gradients in bf16 (8 bits of
    mantissa: the sum over many ranks loses small gradients) and, with FSDP1, casts buffers to bf16:
    the running statistics of BatchNorm would then accumulate in bf16. FSDP2 never casts buffers.
    BatchNorm modules keep fp32 parameters under FSDP1 (its default ``_module_classes_to_ignore``).
    """
    dtype = _LOW_PRECISION.get(mixed_precision)
    if dtype is None:
        return
    if plugin.fsdp_version == 1:
        from torch.distributed.fsdp import MixedPrecision

        plugin.mixed_precision_policy = MixedPrecision(param_dtype=dtype, reduce_dtype=torch.float32,
                                                       buffer_dtype=torch.float32)
    else:
        from torch.distributed.fsdp import MixedPrecisionPolicy

        plugin.mixed_precision_policy = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32,
                                                             output_dtype=dtype)


def checkpoint_blocks(model: nn.Module) -> int:
    """Recompute every block's forward during backward instead of storing its activations.

    Uses PyTorch's non-reentrant checkpoint (works with DDP, FSDP and ``torch.compile``; the
    reentrant one breaks DDP's gradient hooks). The wrapper removes its prefix from ``state_dict``
    keys, so checkpoints and exports keep the plain network's names. Returns the number of blocks.

    Raises:
        ConfigError: the network has no known block to checkpoint.
    """
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
        CheckpointImpl,
        apply_activation_checkpointing,
        checkpoint_wrapper,
    )

    count = sum(1 for m in model.modules() if is_block(m))
    if count == 0:
        raise ConfigError(f"train.activation_checkpointing: {type(model).__name__} has none of the block classes "
                          f"{', '.join(BLOCK_CLASS_NAMES)} to checkpoint (e.g. UNet with num_res_units=0); "
                          f"set it to false")
    apply_activation_checkpointing(
        model, checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.NO_REENTRANT),
        check_fn=is_block)
    return count


def has_batchnorm(model: nn.Module) -> bool:
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())


def convert_sync_batchnorm(model: nn.Module, device: torch.device, num_processes: int) -> nn.Module:
    """BatchNorm layers that compute their statistics over every rank's batch (DDP with small batches).

    With one process there is nothing to sync: the model is returned unchanged, so the same
    experiment config runs on one GPU and on several.

    Raises:
        ConfigError: the network has no BatchNorm, or several processes run on CPUs (PyTorch's
            SyncBatchNorm needs GPUs).
    """
    if not has_batchnorm(model):
        raise ConfigError("train.sync_batchnorm: the network has no BatchNorm layer (MONAI's networks default to "
                          "instance norm; set model.args.norm=batch to use BatchNorm), so there is nothing to sync")
    if num_processes > 1 and device.type == "cpu":
        raise ConfigError("train.sync_batchnorm needs GPUs: PyTorch's SyncBatchNorm does not run on CPU processes; "
                          "set it to false")
    # The state dict keys stay those of BatchNorm, so exports load into the plain network.
    return nn.SyncBatchNorm.convert_sync_batchnorm(model) if num_processes > 1 else model


def shared_modules(model: nn.Module) -> list[str]:
    """Names under which a module already registered elsewhere is registered again.

    DynUNet keeps its blocks both as attributes (``input_block``, ``downsamples``, ...) and inside
    ``skip_layers``, the path its forward actually takes.
    """
    seen, again = set(), []
    for name, module in model.named_modules(remove_duplicate=False):
        if id(module) in seen and name:
            again.append(name)
        seen.add(id(module))
    return again


def _check_named_classes_present(names: list[str], model: nn.Module) -> None:
    """Refuse a profile's fsdp_transformer_layer_cls_to_wrap that names a class the network lacks: accelerate
    raised "Could not find the transformer layer class ..." with a traceback on every rank, under FSDP1 at
    prepare, after the data work (a probe of the ninety-third session, of a profile written for a language
    model)."""
    present = {type(m).__name__ for m in model.modules()}
    if missing := [name for name in names if name not in present]:
        blocks = block_class_names(model)
        instead = (f"name its blocks ({', '.join(blocks)}), or leave the key out and TRANSFORMER_BASED_WRAP wraps "
                   f"them" if blocks else f"it has none of the block classes {', '.join(BLOCK_CLASS_NAMES)}: use "
                   f"SIZE_BASED_WRAP")
        raise ConfigError(f"the accelerate config's fsdp_transformer_layer_cls_to_wrap names {', '.join(missing)}, "
                          f"which {type(model).__name__} does not have: {instead}")


def check_fsdp1_wrappable(plugin, model: nn.Module) -> None:
    """Refuse FSDP1 for a network with modules registered twice, before it fails half-way in wrapping.

    FSDP1's recursive wrapping meets such a module twice and asserts that its children are already
    wrapped; wrapping it once would leave the other registration (DynUNet's forward path) calling
    the bare module on sharded parameters. FSDP2 shards each module once, whatever its names.

    Raises:
        ConfigError: FSDP1 profile and a network such as DynUNet / unet3d_mlperf.
    """
    if plugin.fsdp_version != 1:
        return
    again = shared_modules(model)
    if again:
        raise ConfigError(f"FSDP1 cannot wrap {type(model).__name__}: it registers modules twice ({again[0]} "
                          f"and {len(again) - 1} more). Use an FSDP2 profile (configs/accelerate/fsdp2.yaml or "
                          f"fsdp2_blocks.yaml), DDP or DeepSpeed for this network")


# DeepSpeed's default bucket sizes (elements), made for LLMs: the gradient bucket is allocated at
# this size whatever the model's size (0.93 GiB in bf16), more than a 3D U-Net's whole state.
DEEPSPEED_DEFAULT_BUCKET = 500_000_000
# ZeRO-1/2 assert that the all-gather bucket is a multiple of this (stage_1_and_2.py:
# nccl_start_alignment_factor, "4-byte alignment / sizeof(fp16)"); a network with an odd parameter
# count sized it odd and failed in prepare.
DEEPSPEED_BUCKET_ALIGNMENT = 2


def deepspeed_bucket_elements(parameters: int) -> int:
    """ZeRO's reduce/all-gather bucket for a model of ``parameters`` elements where the profile sets
    none: the parameter count rounded up to the alignment, at most DeepSpeed's default (what training
    writes, and what ``plan`` counts)."""
    return min(DEEPSPEED_DEFAULT_BUCKET, -(-parameters // DEEPSPEED_BUCKET_ALIGNMENT) * DEEPSPEED_BUCKET_ALIGNMENT)


def size_deepspeed_buckets(deepspeed_config: dict, model: nn.Module) -> dict:
    """Cap ZeRO's reduce/all-gather buckets at the model's parameter count, unless the profile set them.

    Returns the entries set (empty when the profile chose them itself).
    """
    bucket = deepspeed_bucket_elements(sum(p.numel() for p in model.parameters()))
    zero = deepspeed_config.setdefault("zero_optimization", {})
    chosen = {key: bucket for key in ("reduce_bucket_size", "allgather_bucket_size") if zero.get(key, "auto") == "auto"}
    zero.update(chosen)
    return chosen


def mark_zero3_leaf_blocks(model: nn.Module, example_shape: tuple[int, ...]) -> list[str]:
    """Mark the network's blocks as ZeRO-3 leaf modules where that is safe; return the names marked.

    ZeRO-3 hooks every module's forward and backward to gather and release its parameters: about
    155,000 Python calls per step for MONAI's U-Net against 6,000 for a plain loop, a fixed host cost
    of about 150 ms per step on our CPU (docs/performance.md). A leaf module is gathered whole and its
    children get no hooks, which removes most of that work.

    DeepSpeed gathers a leaf's parameters again for backward only if the leaf's inputs require
    gradients. A block fed straight from the image (the first block of a U-Net, DynUNet's input
    block, SwinUNETR's and UNETR's encoder1) would run its backward on released, empty parameters
    and fail, so it stays an ordinary module. One forward of a copy of the network on the meta device
    (shapes only, no compute) with ``example_shape`` tells which blocks get inputs carrying
    gradients; those are marked, the outermost where blocks nest. Nothing is marked when the blocks
    are checkpointed (activation checkpointing re-runs their forward inside backward, which leaf
    modules were not made for) or when the meta forward is not possible.
    """
    from deepspeed.utils import set_z3_leaf_module

    modules = dict(model.named_modules())
    names = outermost_blocks_fed_gradients(model, example_shape)
    for name in names:
        set_z3_leaf_module(modules[name], True)
    return names


def outermost_blocks_fed_gradients(model: nn.Module, example_shape: tuple[int, ...]) -> list[str]:
    """Names of the outermost blocks whose inputs all require gradients in a forward of ``example_shape``.

    The forward runs on a copy of the network on the meta device: shapes and autograd flags only.
    Empty when blocks are checkpointed or the meta forward is not possible (``mark_zero3_leaf_blocks``).
    """
    if any(type(m).__name__ == "CheckpointWrapper" for m in model.modules()):
        return []
    receives_gradients = {}

    def note_the_blocks_inputs(probe: nn.Module) -> None:
        for name, module in probe.named_modules():
            if is_block(module) and any(p.requires_grad for p in module.parameters()):
                module.register_forward_pre_hook(functools.partial(_note_inputs, receives_gradients, name),
                                                 with_kwargs=True)

    if not forward_on_a_meta_copy(model, example_shape, note_the_blocks_inputs):
        return []  # leave ZeRO-3 as DeepSpeed sets it up
    outermost = []
    for name in sorted(n for n, receives in receives_gradients.items() if receives):  # a parent sorts first
        if not any(name.startswith(outer + ".") for outer in outermost):
            outermost.append(name)
    return outermost


def forward_on_a_meta_copy(model: nn.Module, example_shape: tuple[int, ...],
                           attach: Callable[[nn.Module], None]) -> bool:
    """One forward of ``example_shape`` through a copy of ``model`` on the meta device (shapes and
    autograd flags only, no compute), in the mode ``model`` is in, after ``attach(copy)`` registered
    its hooks on the copy's modules (whose names are the model's). False where an op has no meta
    kernel: then nothing is known."""
    import copy

    probe = copy.deepcopy(model).to("meta")
    attach(probe)
    try:
        with torch.enable_grad():
            probe(torch.zeros(example_shape, device="meta"))
    except Exception:  # noqa: BLE001 - any op the meta device cannot run
        return False
    return True


def _note_inputs(record: dict, name: str, module, args, kwargs) -> None:
    tensors = [t for t in (*args, *kwargs.values()) if isinstance(t, torch.Tensor)]
    record[name] = record.get(name, True) and any(t.requires_grad for t in tensors)
