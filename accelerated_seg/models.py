"""Model registry: a name from the config -> a plain MONAI ``nn.Module``.

Models know nothing about processes, devices or precision; accelerate wraps them later. Each
builder returns a ``ModelSpec``: the MONAI class name and the exact keyword arguments it was built
with. That spec is what ``config.json`` stores on export, so anyone can rebuild the network with
plain MONAI (``build_from_spec``) and load ``model.safetensors`` into it with ``strict=True``.

    spec = model_spec("unet", in_channels=1, out_channels=3, patch_size=(64, 64, 64))
    net = build_from_spec(spec)
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import monai.networks.nets as monai_nets
import torch.nn as nn

from .config import ConfigError, check_network_name, did_you_mean, plain_data
from .model_arg_kinds import mistyped_arg
from .model_folders import Names
from .own_warnings import quieted


@dataclass(frozen=True)
class ModelSpec:
    name: str  # our registry name
    monai_class: str  # attribute of monai.networks.nets
    args: dict  # keyword arguments, JSON-serialisable

    def to_dict(self) -> dict:
        return {"name": self.name, "monai_class": self.monai_class, "args": self.args}

    @classmethod
    def from_dict(cls, d: dict) -> "ModelSpec":
        return cls(name=d["name"], monai_class=d["monai_class"], args=dict(d["args"]))


def build_from_spec(spec: ModelSpec) -> nn.Module:
    """Instantiate the plain MONAI network described by ``spec``."""
    # Two of MONAI's warnings quieted, without a change of the warning filters (``quieted``): a catch_warnings' entry
    # and exit reset every module's record of what it said, so a loop of predict_file, whose every call loads the
    # model, said each warning of its scans at every call (until the hundred-and-twenty-fifth session; for a network
    # MONAI warns of building, until r118's review). MONAI's unused strides: said once before the run writes
    # anything, naming the settings (unused_strides_warning); MONAI's own came with every build (the check's, the
    # run's, each export's load), in words naming no setting. Its nvfuser norm without apex: said once, naming the
    # setting (nvfuser_norm_warning); MONAI's came from every norm layer built (9 to 25 a network) under an "always"
    # filter (the estimator's predict, -W always), and once a build otherwise.
    with quieted((re.escape(_UNUSED_STRIDES_RAW), UserWarning), (re.escape(_NVFUSER_MISSING_RAW), UserWarning)):
        model = getattr(monai_nets, spec.monai_class)(**spec.args)
    _freeze_never_used(model)
    return model


_UNUSED_STRIDES_RAW = "`len(strides) > len(channels) - 1`"  # how MONAI's UNet warns of strides it leaves unused


# how MONAI's norm factory warns that it builds nn.InstanceNorm3d for INSTANCE_NVFUSER, apex's kernel missing
_NVFUSER_MISSING_RAW = "`apex.normalization.InstanceNorm3dNVFuser` is not installed properly"


def network_warnings(spec: ModelSpec, given: dict | None = None, names: Names = Names()) -> list[str]:
    """What the network of ``spec`` does otherwise than ``given`` (``model.args``) says, each said once before the
    run writes anything (training, ``check --config``), MONAI's own repeats silenced (``build_from_spec``)."""
    return [warning for warning in (unused_strides_warning(spec, given, names),
                                    nvfuser_norm_warning(spec, given, names)) if warning]


def nvfuser_norm_warning(spec: ModelSpec, given: dict | None = None, names: Names = Names()) -> str | None:
    """A norm given as INSTANCE_NVFUSER where apex's InstanceNorm3dNVFuser cannot be imported, for which MONAI builds
    torch's nn.InstanceNorm3d; None otherwise. MONAI warned in its own words, naming no setting, at every build
    (the check's, the run's, each export's load) and, under an "always" filter, once per norm layer (until the
    ninety-third session).

    A warning and not a refusal: the network built is the one ``norm: INSTANCE`` builds, which trains as the apex
    kernel's instance norm does, only slower on a GPU; a config written for a cluster with apex then still runs
    on a laptop or in CI, where a refusal would ask for an edit that changes nothing trained."""
    if (key := nvfuser_norm_without_apex(spec, given or {})) is None:  # of model.args as given alone
        return None
    return (f"{names.model_arg(key)} {spec.args[key]} needs apex's InstanceNorm3dNVFuser (apex built with its "
            f"CUDA extensions), which cannot be imported here; MONAI falls back to torch's nn.InstanceNorm3d, "
            f"the network of {names.model_arg(key)} INSTANCE, without apex's faster kernel. Install apex "
            f"(https://github.com/NVIDIA/apex) for it, or give {names.model_arg(key)} INSTANCE")


def nvfuser_norm_without_apex(spec: ModelSpec, given: dict | None = None) -> str | None:
    """The argument of ``spec`` (``norm`` or ``norm_name``, of those ``given``: all of them by default, as an
    export's config.json gives them) that asks for INSTANCE_NVFUSER where apex's kernel cannot be imported,
    for which MONAI builds torch's nn.InstanceNorm3d; None otherwise."""
    from monai.networks.utils import has_nvfuser_instance_norm

    for key in ("norm", "norm_name"):  # UNet's and SegResNet's; DynUNet's, UNETR's and SwinUNETR's
        if key in (spec.args if given is None else given) and _norm_type(spec.args.get(key)) == "INSTANCE_NVFUSER":
            return None if has_nvfuser_instance_norm() else key
    return None


def _norm_type(norm) -> str | None:
    """The norm's type name, upper-cased as MONAI's factory reads it, of a name or a (name, arguments) pair."""
    name = norm[0] if isinstance(norm, (list, tuple)) and norm else norm
    return name.upper() if isinstance(name, str) else None


def unused_strides_warning(spec: ModelSpec, given: dict | None = None, names: Names = Names()) -> str | None:
    """A UNet given more ``strides`` than the steps between its ``channels``, which MONAI builds without the last
    ones, so that the network down-samples less than its strides say; None otherwise. ``given``: the arguments
    the user gave (``model.args``), the others named as the defaults they are. MONAI said it in its own words
    alone, a UserWarning from every build, and the run trained on (until the ninety-third session)."""
    if spec.monai_class != "UNet":
        return None
    strides, used = spec.args["strides"], unet_strides_used(spec.args)
    if len(strides) == len(used):
        return None
    steps = len(used)

    def said(key: str) -> str:
        return f"{names.model_arg(key)} {spec.args[key]}" if key in (given or {}) else \
            f"the default {key} {spec.args[key]}"

    unused = len(strides) - steps
    return (f"{said('strides')} has {unused} more value(s) than the {steps} down-sampling step(s) between "
            f"{said('channels')}: MONAI's UNet leaves the last {unused} unused, so the network down-samples by "
            f"{used} alone. Give {names.model_arg('strides')} {used}, or "
            f"{names.model_arg('channels')} {unused} more value(s) to down-sample by them all")


def _freeze_never_used(model: nn.Module) -> None:
    """Stop parameters that forward never touches from asking for gradients.

    MONAI's TransformerBlock (UNETR) builds ``norm_cross_attn`` even without cross-attention. A
    parameter that never gets a gradient makes DDP fail ("parameters that were not used in producing
    loss") or forces the slower ``find_unused_parameters``. Frozen, it stays in the state dict, so
    exports still load strictly into the plain MONAI network.
    """
    from monai.networks.blocks.transformerblock import TransformerBlock

    for module in model.modules():
        if isinstance(module, TransformerBlock) and not module.with_cross_attention:
            module.norm_cross_attn.requires_grad_(False)


def model_spec(name: str, in_channels: int, out_channels: int, patch_size: Sequence[int],
               args: dict | None = None, names: Names = Names()) -> ModelSpec:
    """Resolve our defaults + the user's ``model.args`` into the constructor arguments.

    Args:
        name: one of ``MODELS``.
        in_channels: image channels (modalities).
        out_channels: classes including background.
        patch_size: training patch; used where a network needs the input size (UNETR) and to
            check divisibility up front rather than failing inside the first forward pass.
        args: overrides of the defaults, as given in ``model.args``.
        names: how the caller names ``model.args`` and ``data.patch_size`` (the estimator's model_args and
            block_shape: it rewrote the command line's words in these messages until the ninety-third session).
    """
    check_network_name(name, "model.name")
    given, patch = names.setting("model.args"), names.setting("data.patch_size")
    monai_class, defaults, divisor = MODELS[name](tuple(patch_size))
    decided = {**defaults, "in_channels": in_channels, "out_channels": out_channels}
    if contradicted := sorted(key for key in set(args or {}) & set(SET_BY_THE_RUN)
                              if key in decided and plain_data(args[key]) != plain_data(decided[key])):
        raise ConfigError(f"{given} {contradicted} contradict the run: " + "; ".join(
            f"{key} is {decided_by(key, names)} ({plain_data(decided[key])})" for key in contradicted)
            + f". Leave them out of {given}")
    merged = {**decided, **(args or {})}
    _refuse_unknown_args(monai_class, args or {}, names)
    _refuse_entries_not_per_axis(monai_class, args or {}, merged["spatial_dims"], names)
    if name == "dynunet" and "strides" not in (args or {}) and len(merged["strides"]) < 3:
        # MONAI needs three levels; below that its constructor failed on an index (a traceback).
        raise ConfigError(f"{patch} {tuple(patch_size)} is too small for model 'dynunet': its strides, derived "
                          f"from the patch, halve an axis only while it has 8 voxels or more (leaving 4), and "
                          f"DynUNet needs at least two halvings; use a patch of 16 voxels or more along some axis, "
                          f"e.g. (16, 16, 16)")
    if name == "dynunet":
        _check_dynunet_levels(merged, set(args or {}), tuple(patch_size), names)
    divisors = divisor(merged)
    divisors = (divisors,) * 3 if isinstance(divisors, int) else tuple(divisors)
    if any(p % d for p, d in zip(patch_size, divisors)):
        # Twice the divisor at least: a patch of exactly the divisor leaves one voxel at the
        # bottleneck, where instance norm cannot train (check_trainable).
        suggestion = tuple(max(2 * d, p // d * d) for p, d in zip(patch_size, divisors))
        raise ConfigError(
            f"{patch} {tuple(patch_size)} must be divisible by {divisors} for model {name!r} "
            f"(its down-sampling); for example use {suggestion}"
        )
    if name in DEEPEST_STAGE and math.prod(p // DEEPEST_STAGE[name] for p in patch_size) <= 1:
        stage = DEEPEST_STAGE[name]
        deepest = tuple(p // stage for p in patch_size)
        larger = (max(patch_size[0], 2 * stage), *patch_size[1:])
        raise ConfigError(f"{patch} {tuple(patch_size)} is too small for model {name!r}: its deepest stage "
                          f"is 1/{stage} of the patch along each axis, {deepest} voxel(s) here, and instance norm "
                          f"needs more than one voxel there; use e.g. {larger}")
    return ModelSpec(name=name, monai_class=monai_class, args=plain_data(merged))


# The arguments that are one entry per level, each entry one number (the same on every axis) or one per axis
_PER_LEVEL_PER_AXIS = {"UNet": ("strides",), "DynUNet": ("strides", "kernel_size", "upsample_kernel_size")}


def _refuse_entries_not_per_axis(monai_class: str, args: dict, spatial_dims: int, names: Names) -> None:
    """Refuse a level's entry of ``args`` that is a list of other than one number per axis: ``strides: [..., [2, 2]]``
    failed in the patch check, an IndexError traceback, and a kernel of four values in MONAI's constructor, in numpy's
    words ("operands could not be broadcast together"), until the ninety-third session. Only what the user gave:
    the registry's defaults are whole."""
    for key in _PER_LEVEL_PER_AXIS.get(monai_class, ()):
        levels = args.get(key)
        for index, entry in enumerate(levels if isinstance(levels, (list, tuple)) else ()):
            if isinstance(entry, (list, tuple)) and (
                    len(entry) != spatial_dims or any(isinstance(value, (list, tuple)) for value in entry)):
                example = [2, 2, 1] if "strides" in key or "upsample" in key else [3, 3, 1]
                raise ConfigError(
                    f"{names.model_arg(key)}[{index}] (entry {index + 1} of {len(levels)}) is {entry}, {len(entry)} "
                    f"value(s) for {spatial_dims} axes: give each entry one number, the same on every axis, or "
                    f"{spatial_dims} numbers, one per axis (e.g. {example[0]} or {example})")


def _check_dynunet_levels(merged: dict, given: set[str], patch_size: tuple, names: Names) -> None:
    """Refuse DynUNet arguments of different depths where some were derived from the patch: MONAI's
    "length of kernel_size and strides should be the same" did not say that the others came from
    data.patch_size, so a user who gave only ``strides`` was left to guess (eighty-fourth session).
    MONAI takes more filters than levels (the first ones), not fewer."""
    if not all(isinstance(merged[key], (list, tuple)) for key in ("strides", "kernel_size", "upsample_kernel_size",
                                                                   "filters")):
        return  # a number where MONAI takes one entry per level: its constructor says so (check_trainable)
    levels = {"strides": len(merged["strides"]), "kernel_size": len(merged["kernel_size"]),
              "upsample_kernel_size": len(merged["upsample_kernel_size"]) + 1}
    depth = max(levels[key] for key in given & set(levels)) if given & set(levels) else levels["strides"]
    derived = sorted(key for key in set(levels) - given if levels[key] != depth)
    if "filters" not in given and len(merged["filters"]) < depth:
        derived.append("filters")
    if not derived:
        return  # what the user gave alone disagrees: MONAI's own message names it
    patch_depth = len(_dynunet(patch_size)[1]["strides"])
    raise ConfigError(
        f"{names.setting('model.args')} {sorted(given & set(levels))} make a DynUNet of {depth} levels, and {derived} "
        f"were derived from {names.setting('data.patch_size')} {patch_size} for {patch_depth}: give them too "
        f"(kernel_size, strides and filters one entry per level, upsample_kernel_size one fewer, e.g. strides[1:]), "
        f"or leave them all to the patch")


def check_model_settings(name: str, patch_size: Sequence[int], args: dict | None = None,
                         names: Names = Names()) -> ModelSpec:
    """Refuse what ``model_spec`` refuses of ``model.name``, ``model.args`` and ``data.patch_size`` alone,
    before the data decides the channels and classes (taken from ``args`` where given, else 1 and 2):
    a patch the network cannot take, an unknown argument. Training checked them only once every case
    was read (the demo's phantoms written first), and ``check --config`` passed a SwinUNETR patch of 18
    that training then refused (eighty-fourth session's probe).

    Returns:
        the network's spec for those channels and classes (``unused_strides_warning``'s).

    Raises:
        ConfigError: naming the setting, as ``model_spec`` does.
    """
    given = args or {}
    return model_spec(name, given.get("in_channels", 1), given.get("out_channels", 2), patch_size, given, names)


def network_takes_patch(name: str, args: dict | None = None, in_channels: int = 1,
                        out_channels: int = 2) -> Callable[[Sequence[int]], bool]:
    """Whether the network of ``model.name`` and ``model.args`` takes a patch, as ``model_spec`` checks it
    (divisible by its down-sampling, more than one voxel at its deepest stage): for suggesting one."""
    def takes(patch: Sequence[int]) -> bool:
        try:
            model_spec(name, in_channels, out_channels, patch, args)
        except ConfigError:
            return False
        return True

    return takes


def spec_differences(saved: ModelSpec, built: ModelSpec, names: dict[str, str] | None = None,
                     sides: tuple[str, str] = ("in the export", "here"), name: str = "model.name") -> list[str]:
    """How the network ``built`` differs from ``saved``, one "what: saved's value <sides[0]>, built's
    <sides[1]>" per difference. An argument is called ``model.args.<name>``, one the run decides by what
    decides it (``SET_BY_THE_RUN``), unless ``names`` calls it otherwise; the network's name ``name``."""
    names = {**{key: f"{key} ({what})" for key, what in SET_BY_THE_RUN.items()}, **(names or {})}
    first, second = sides
    differences = [f"{name}: {saved.name} {first}, {built.name} {second}"] if saved.name != built.name else []
    for key in sorted({*saved.args, *built.args}):
        was, now = saved.args.get(key, "unset"), built.args.get(key, "unset")
        if was != now:
            differences.append(f"{names.get(key, f'model.args.{key}')}: {was} {first}, {now} {second}")
    return differences


def bridgeable(saved: ModelSpec, built: ModelSpec) -> bool:
    """Whether fine-tuning can start ``built`` from ``saved``'s weights though they differ
    (``initial_weights.load_initial_weights``): in the number of outputs (new output layers start afresh),
    and from one image channel to several (the input layers' weights are spread over them), nothing else.

    Only one channel spreads: its weights, divided among N copies of themselves, answer N channels as
    they answered one (and one scan of several contrasts alike), where the weights of C > 1 channels
    say nothing about which of them a new channel is like.
    """
    if saved == built or (saved.name, saved.monai_class) != (built.name, built.monai_class):
        return False
    bridged = ("in_channels", "out_channels")
    same_otherwise = {k: v for k, v in saved.args.items() if k not in bridged} == {
        k: v for k, v in built.args.items() if k not in bridged}
    channels = (saved.args.get("in_channels"), built.args.get("in_channels"))
    return same_otherwise and (channels[0] == channels[1] or channels[0] == 1)


def output_layer_names(spec: ModelSpec) -> set[str]:
    """The names of the tensors whose shape the number of outputs decides: the output layers (and
    deep-supervision heads), which fine-tuning on another label set starts afresh. Read off the
    shapes of the network with one output more, on the meta device, as ``initial_weights.adapt_to_network``
    reads them off an export, so a resumed run (which has no export to compare) finds the same."""
    return _shaped_by(spec, "out_channels")


def input_layer_names(spec: ModelSpec) -> set[str]:
    """The names of the tensors whose shape the number of image channels decides: the input layers,
    each a convolution's weight with the channels along its second axis."""
    return _shaped_by(spec, "in_channels")


def _shaped_by(spec: ModelSpec, argument: str) -> set[str]:
    """The tensors whose shape changes with ``argument``, against the network with one and with two more.
    Two, because one more can change the structure instead: UNETR's and SwinUNETR's first block has a
    1x1 shortcut convolution only while its input and output channels differ."""
    shapes = meta_network(spec).state_dict()
    names = set()
    for more in (1, 2):
        other = meta_network(replace(spec, args={**spec.args, argument: spec.args[argument] + more})).state_dict()
        names |= {name for name, tensor in shapes.items() if name in other and tensor.shape != other[name].shape}
    return names


def check_trainable(spec: ModelSpec, patch_size: Sequence[int], batch: int = 1,
                    built: nn.Module | Exception | None = None, names: Names = Names()) -> None:
    """One training-mode forward pass of a ``batch`` of patches, on the meta device: shapes only,
    no memory and well under a second, before any data is read. ``batch``: the patches a
    normalisation sees at once (per device; over all devices for SyncBatchNorm). ``built``: the network
    of ``spec`` on the meta device (``constructed``), or what its constructor raised, not built again.
    ``names``: how the caller names ``model.args``, ``data.patch_size`` and the arguments MONAI's constructor
    refuses (the estimator rewrote the first two in the messages, the ninety-third session says them so).
    A check passed in this process is not made again (``_PASSED_HERE``).

    What MONAI's constructors reject (a UNet with more ``channels`` than ``strides`` + 1, DynUNet
    ``filters`` shorter than its depth) and what fails only in the first forward pass (instance
    norm over a one-voxel bottleneck, a patch the skip connections cannot match) would otherwise
    surface after the cache is built, or at the first step, as a traceback.

    Raises:
        ConfigError: naming ``model.args`` and ``data.patch_size`` (as ``names`` does), with MONAI's or torch's reason.
    """
    if (passed := _check_key(spec, patch_size, batch)) in _PASSED_HERE:
        return
    built = _built_or_refused(spec) if built is None else built
    refused = built if isinstance(built, Exception) else None
    failure = _forward_failure(spec, patch_size, batch, built)
    if failure is None:
        _PASSED_HERE.add(passed)
        return
    reason = str(failure).splitlines()[0].rstrip(".")
    args, patch = names.setting("model.args"), names.setting("data.patch_size")
    where = f"model {spec.name!r} cannot train on {patch} {tuple(patch_size)} with these {args}: {reason}"
    larger = [edge for edge in _CUBES_TRIED if edge > min(patch_size)]
    # Which of the two to change: the same design on larger cubes tells (shapes only, on the meta device).
    # from None: the message carries MONAI's or torch's reason; their traceback of a meta-device
    # forward says nothing more to the user (it printed above the error before the sixty-seventh session)
    if (edge := _larger_cube_it_trains_on(spec, patch_size, batch)) is not None:
        raise ConfigError(f"{where}. The patch is too small for this network: it trains on {edge}x{edge}x{edge} (each "
                          f"down-sampling stage halves the patch; the deepest needs more than one voxel). Raise "
                          f"{patch}, or give {args} fewer down-sampling stages"
                          f"{_fewer_unet_stages(spec, patch_size, batch, names)}") from None
    if refused is not None:  # no network to give a patch to: said to be the patch's until the ninety-second session
        raise ConfigError(_constructor_refusal(spec, patch_size, reason, names)) from None
    # only the cubes above the patch are tried: a 512^3 patch was told that it "fails on every patch up to
    # 256x256x256 too" (ninety-second session's audit)
    raise ConfigError(f"{where}. {_cubes_tried_said(larger)}: change {args}") from None


# The (network, patch, batch) whose check_trainable passed in this process, not checked again: the estimator checks
# before it launches or writes anything and training checks the same in the same process, and the CPU run's
# memory check (plan._trainable_spec) a third time, each a meta-device build and forward pass (a SwinUNETR's build
# alone takes up to a second on 2 cores). A multi-GPU fit's ranks, forked by the notebook launcher, inherit it.
# Failures are not kept: each is said again where it is met (ninety-ninth session).
_PASSED_HERE: set[tuple] = set()


def _check_key(spec: ModelSpec, patch_size: Sequence[int], batch: int) -> tuple:
    """What decides ``check_trainable``'s outcome: the network, the patch and the batch (the messages' ``names``
    do not)."""
    return _network_key(spec), tuple(int(edge) for edge in patch_size), int(batch)


def _network_key(spec: ModelSpec) -> tuple:
    return spec.name, spec.monai_class, json.dumps(spec.args, sort_keys=True, default=repr)


def _passed_here(spec: ModelSpec) -> bool:
    """Whether ``check_trainable`` passed a network of ``spec`` in this process, at some patch and batch: MONAI's
    constructor takes its arguments."""
    network = _network_key(spec)
    return any(key[0] == network for key in _PASSED_HERE)


def _constructor_refusal(spec: ModelSpec, patch_size: Sequence[int], reason: str, names: Names) -> str:
    """What MONAI's constructor refused, naming the arguments its ``reason`` names, each as the caller gives it
    (``model.args.channels`` on the command line, ``model_args['channels']`` to the estimator): it said
    "these model.args" and "Change model.args" of a UNet's channels and strides until the ninety-third session.
    One the run decides is named with what decides it, one the registry derived from the patch or took as its
    default as that, and only what the user gave is told to change: DynUNet's strides derived from the patch
    were named as model.args.strides, to change, beside the filters given (until the ninety-third session)."""
    named = [key for key in spec.args if re.search(rf"\b{re.escape(key)}\b", reason)]
    if not named:  # SegResNet's "num_channels (4) must be divisible by num_groups (8)" names none of its own
        args = names.setting("model.args")
        return (f"model {spec.name!r}: MONAI's {spec.monai_class} refuses these {args}, and builds no network of "
                f"them: {reason}. Change {args}")
    unchosen = _not_chosen(spec, patch_size)
    said = " with ".join(_argument_said(spec, key, patch_size, names) for key in named)
    # none given among them: what the user gave that the reason does not name is at fault
    given = [key for key in named if key not in SET_BY_THE_RUN and key not in unchosen]
    change = " or ".join(names.model_arg(key) for key in given) or names.setting("model.args")
    return (f"model {spec.name!r}: MONAI's {spec.monai_class} refuses {said}, and builds no network of them: "
            f"{reason}. Change {change}")


def _not_chosen(spec: ModelSpec, patch_size: Sequence[int]) -> set[str]:
    """The arguments of ``spec`` the registry set for ``patch_size``, not the user: its defaults, where ``spec``
    has them unchanged (one given equal to its default counts as the default, as ``_larger_cube_it_trains_on``
    counts it)."""
    _, defaults, _ = MODELS[spec.name](tuple(patch_size))
    return {key for key, value in defaults.items() if plain_data(value) == spec.args.get(key)}


def _argument_said(spec: ModelSpec, key: str, patch_size: Sequence[int], names: Names) -> str:
    """``key`` and its value as the refusal names it: by what decides it where the run or the registry does."""
    value = spec.args[key]
    if key in SET_BY_THE_RUN:
        return f"{key} {value} ({decided_by(key, names)})"
    if key not in _not_chosen(spec, patch_size):
        return f"{names.model_arg(key)} {value}"
    if key in _DERIVED_FROM_THE_PATCH.get(spec.name, set()):
        return f"{key} {value} (derived from {names.setting('data.patch_size')} {tuple(patch_size)})"
    return f"{key} {value} (the default)"


# The registry's arguments that it derives from the patch (_dynunet): given none, the patch decides them
_DERIVED_FROM_THE_PATCH = {"dynunet": {"strides", "kernel_size", "upsample_kernel_size", "filters"}}


def constructed(spec: ModelSpec, patch_size: Sequence[int], names: Names = Names()) -> nn.Module | None:
    """The network of ``spec`` on the meta device, for ``check_trainable`` to pass a batch through later;
    what MONAI's constructor refuses of ``model.args`` (a UNet's ``channels`` and ``strides`` of other
    lengths, a SwinUNETR ``feature_size`` not a multiple of 12) needs no batch, so training says it before
    the demo's phantoms, the run folder or the cache are written: it did so only once they were (ninety-third
    session). Well under a second; SwinUNETR's, built on the CPU and moved to the meta device, takes longest.
    None, nothing built, where ``check_trainable`` passed this network in this process (the estimator's check
    before it trains in the same process): its constructor took these arguments (ninety-ninth session).

    Raises:
        ConfigError: as ``check_trainable`` says a refused construction, whose retry on larger cubes tells
            whether the patch is to blame (DynUNet's levels derived from it).
    """
    if _passed_here(spec):
        return None
    built = _built_or_refused(spec)
    if isinstance(built, Exception):
        # batch 1: the forward passes on larger cubes are the only ones made, and one patch is the strictest
        # batch for a normalisation, so a cube said to train trains on any batch
        check_trainable(spec, patch_size, 1, built, names)  # raises: a network MONAI refuses fails on every patch
    return built


def _cubes_tried_said(larger: list[int]) -> str:
    """What the check tried beside the patch: the cubes above it, or none."""
    cubes = [f"{edge}x{edge}x{edge}" for edge in larger]
    if not cubes:
        return f"No cube tried (up to {_CUBES_TRIED[-1]}x{_CUBES_TRIED[-1]}x{_CUBES_TRIED[-1]}) is larger than the patch"
    if len(cubes) == 1:
        return f"It fails on the larger cube tried too, {cubes[0]}"
    return f"It fails on the larger cubes tried too, {cubes[0]} to {cubes[-1]}"


_CUBES_TRIED = (16, 32, 64, 128, 256)  # the edges above the patch's smallest that the check tries the design on


def _larger_cube_it_trains_on(spec: ModelSpec, patch_size: Sequence[int], batch: int) -> int | None:
    """The smallest cube edge of 16 to 256, above the patch's smallest axis, on which the same design
    trains; None where none does.

    What the registry derives from the patch (DynUNet's strides, kernels and filters, UNETR's
    img_size) is derived again for each cube, and only what the user chose is kept: DynUNet's
    strides for a 12^3 patch stop at two levels, which fail on every cube, so the message said
    "change model.args" to a user who had given none, where a 16^3 patch trains (seventy-fourth
    session). An argument given equal to its derived value counts as derived.
    """
    unchosen = _not_chosen(spec, patch_size) | {"in_channels", "out_channels"}
    chosen = {key: value for key, value in spec.args.items() if key not in unchosen}
    for edge in _CUBES_TRIED:
        if edge <= min(patch_size):
            continue
        try:
            candidate = model_spec(spec.name, spec.args["in_channels"], spec.args["out_channels"], (edge,) * 3,
                                   chosen)
        except ConfigError:  # the design's own rules refuse this cube (a stride product, a minimum)
            continue
        if _forward_failure(candidate, (edge,) * 3, batch) is None:
            return edge
    return None


def _fewer_unet_stages(spec: ModelSpec, patch_size: Sequence[int], batch: int, names: Names) -> str:
    """For a UNet, the most stages of its own that train on the patch, as the arguments to give: "fewer down-sampling
    stages" named none, and a notebook's first fit on 16^3 blocks was left to find that they are channels and
    strides (hundred-and-fourth session). Empty for other networks, or where no fewer stages train either."""
    if spec.name != "unet":
        return ""
    channels, strides = list(spec.args["channels"]), unet_strides_used(spec.args)
    for stages in range(len(strides) - 1, 0, -1):
        fewer = {**spec.args, "channels": channels[:stages + 1], "strides": list(spec.args["strides"][:stages])}
        if _forward_failure(replace(spec, args=fewer), patch_size, batch) is None:
            return (f": {stages} here, {names.model_arg('channels')}={fewer['channels']} with "
                    f"{names.model_arg('strides')}={fewer['strides']}")
    return ""


def _built_or_refused(spec: ModelSpec) -> nn.Module | Exception:
    """The network on the meta device, or what MONAI's constructor raises for ``spec``'s arguments."""
    try:
        return meta_network(spec)
    # MONAI raises NotImplementedError for an even kernel ("Same padding not available"), which passed
    # as the meta device's and failed later, a traceback
    except (NotImplementedError, ValueError, TypeError, AssertionError, RuntimeError, IndexError) as error:
        return error


def _forward_failure(spec: ModelSpec, patch_size: Sequence[int], batch: int,
                     built: nn.Module | Exception | None = None) -> Exception | None:
    """What building the network (unless ``built``), or a training-mode forward pass of ``batch`` patches
    on the meta device, raises, if anything the network is to blame for (an operation the meta device
    lacks is not)."""
    import torch

    built = _built_or_refused(spec) if built is None else built
    if isinstance(built, Exception):
        return built
    network = built.train()
    try:
        output = network(torch.empty(batch, spec.args["in_channels"], *patch_size, device="meta"))
    except NotImplementedError:  # an operation the meta device lacks: nothing known against the network
        return None
    # IndexError: MONAI's DynUNet indexes its filters by depth, and a depth below 3 (strides derived
    # from a patch under 16 voxels) failed there as a traceback (seventy-fourth session).
    except (ValueError, TypeError, AssertionError, RuntimeError, IndexError) as error:
        if isinstance(error, RuntimeError) and "meta" in str(error).lower():
            return None  # a value the meta device does not hold (.item(), a tensor's truth): the same
        return error
    return _wrong_output(output, spec.args["out_channels"], len(patch_size))


def _wrong_output(output, out_channels: int, spatial_dims: int) -> Exception | None:
    """An error where the network's output does not have one channel per output (class or region):
    SegResNet with ``use_conv_final: false`` gives its ``init_filters`` channels, and the loss then
    one-hot encoded 16 "classes", predict painted label values the data has none of, and config.json
    said 3 (eighty-fourth session's probe). Deep supervision's stacked heads have the channels at 2."""
    main = output[0] if isinstance(output, (list, tuple)) else output
    if not hasattr(main, "shape") or main.dim() < spatial_dims + 2:
        return None
    channels = main.shape[1] if main.dim() == spatial_dims + 2 else main.shape[2]
    if channels == out_channels:
        return None
    return ValueError(f"its output has {channels} channels, and the run needs one per class (or region), "
                      f"{out_channels}")


def convolutions_over_two_voxels(spec: ModelSpec, patch_size: Sequence[int]) -> list[str]:
    """The network's 3D convolutions (kernel wider than 1) whose input is 2 voxels along some axis for
    this patch, by name: a forward pass on the meta device. oneDNN's bf16 gradient of such a
    convolution is unreliable on the CPU (``host_cpu.bf16_two_voxel_warning``; Conv3d is what was
    measured, not the transposed kind); [] where the meta device cannot run the network."""
    import torch

    found: list[str] = []
    network = meta_network(spec).train()
    hooks = [module.register_forward_hook(
        lambda module, inputs, output, name=name: found.append(name) if 2 in inputs[0].shape[2:] else None)
        for name, module in network.named_modules()
        if isinstance(module, nn.Conv3d) and max(module.kernel_size) > 1]
    try:
        network(torch.empty(1, spec.args["in_channels"], *patch_size, device="meta"))
    except (NotImplementedError, ValueError, TypeError, AssertionError, RuntimeError):
        return []  # check_trainable has said what fails
    finally:
        for hook in hooks:
            hook.remove()
    return list(dict.fromkeys(found))


def meta_network(spec: ModelSpec) -> nn.Module:
    """The network with its parameters on the meta device: shapes without memory or initialisation.

    It leaves torch's random generator as it found it. SwinUNETR is built on the CPU and moved, which
    drew from the generator; the CPU run's host-memory check does this on the main process alone,
    so the ranks then built the real network from different states, and FSDP2, which keeps each
    rank's own shards, trained a mix of two initialisations (seventieth session).
    """
    import torch

    with torch.random.fork_rng(devices=[]):
        try:
            with torch.device("meta"):
                return build_from_spec(spec)
        except (RuntimeError, NotImplementedError):  # SwinUNETR's constructor calls .item(), which meta cannot do
            return build_from_spec(spec).to("meta")


def check_arg_names(name: str, args: dict, names: Names = Names()) -> None:
    """Refuse ``args`` that the registry network ``name`` does not take, before any patch is known
    (the estimator's constructor); the values are checked when the network is specified."""
    # Each registry entry picks its MONAI class whatever the patch; the patch shapes only the defaults.
    monai_class = MODELS[name]((128, 128, 128))[0]
    _refuse_unknown_args(monai_class, args, names)


def arg_names(name: str) -> set[str]:
    """The constructor arguments of the registry network ``name``'s MONAI class."""
    return _accepted_args(MODELS[name]((128, 128, 128))[0])


def _refuse_unknown_args(monai_class: str, args: dict, names: Names) -> None:
    """Refuse a name ``monai_class`` does not take, or a value not of the kind it takes (model_arg_kinds)."""
    accepted = _accepted_args(monai_class)
    if unknown := sorted(set(args) - accepted):
        are = "is not an argument" if len(unknown) == 1 else "are not arguments"
        raise ConfigError(f"{', '.join(map(names.model_arg, unknown))} {are} of monai.networks.nets.{monai_class}"
                          + did_you_mean(unknown[0], accepted))
    for name, value in args.items():
        if expected := mistyped_arg(monai_class, name, value):
            raise ConfigError(f"{names.model_arg(name)} must be {expected} (monai.networks.nets.{monai_class}'s "
                              f"{name}), got {value!r}")


def _accepted_args(monai_class: str) -> set[str]:
    import inspect

    return set(inspect.signature(getattr(monai_nets, monai_class).__init__).parameters) - {"self"}


def _unet(patch):
    defaults = dict(spatial_dims=3, channels=[16, 32, 64, 128, 256], strides=[2, 2, 2, 2],
                    num_res_units=2, norm="INSTANCE")
    return "UNet", defaults, lambda a: _strides_divisor(unet_strides_used(a))


def _segresnet(patch):
    defaults = dict(spatial_dims=3, init_filters=16, blocks_down=[1, 2, 2, 4], blocks_up=[1, 1, 1])
    return "SegResNet", defaults, lambda a: 2 ** (len(a["blocks_down"]) - 1)


def _swinunetr(patch):
    # Five 2x reductions (patch embedding + 4 merging stages) -> patch divisible by 32.
    return "SwinUNETR", dict(spatial_dims=3, feature_size=24), lambda a: 32


def _unetr(patch):
    # ViT with 16^3 patches: the input size is part of the network (positional embedding).
    return "UNETR", dict(spatial_dims=3, img_size=list(patch), feature_size=16), lambda a: 16


def _dynunet(patch):
    # nnU-Net-style topology from the patch: halve each axis while the result stays >= 4 voxels,
    # at most 5 times; filters double from 32 up to 320 as in nnU-Net.
    strides = [[1, 1, 1]]
    size = list(patch)
    for _ in range(5):
        step = [2 if s >= 8 else 1 for s in size]
        if step == [1, 1, 1]:
            break
        strides.append(step)
        size = [s // k for s, k in zip(size, step)]
    depth = len(strides)
    defaults = dict(spatial_dims=3, kernel_size=[[3, 3, 3]] * depth, strides=strides,
                    upsample_kernel_size=strides[1:], filters=[min(32 * 2**i, 320) for i in range(depth)],
                    norm_name="INSTANCE", res_block=True)

    return "DynUNet", defaults, lambda a: _strides_divisor(a["strides"])


def _strides_divisor(strides: Sequence) -> list[int]:
    """Per axis, the product of the ``strides`` the network uses (UNet's and DynUNet's, each a number or one per
    axis): what the patch must be a multiple of. UNet's per-axis strides were multiplied as numbers (a
    TypeError traceback, until the seventy-seventh session), though MONAI trains them."""
    return [math.prod(s[i] if isinstance(s, (list, tuple)) else s for s in strides) for i in range(3)]


def unet_strides_used(args: dict) -> list:
    """The strides a UNet of ``args`` down-samples by: one per step between its channels, MONAI leaving the others
    unused (``unused_strides_warning``). The patch had to be a multiple of them all until the ninety-third session:
    ``channels: [4, 8, 16]`` under the default four strides asked for 16 where 4 is enough."""
    return list(args["strides"][:len(args["channels"]) - 1])


def _unet3d_mlperf(patch):
    """The 3D U-Net of MLPerf Training's image segmentation benchmark (KiTS19), as a MONAI DynUNet.

    The reference (mlcommons/training, image_segmentation/pytorch/model/unet3d.py and layers.py) is
    an input block and five down-sampling stages, filters 32, 64, 128, 256, 320, 320, on a 128^3
    patch. Every block is two 3x3x3 convolutions (no bias), each followed by instance norm with
    affine parameters and leaky ReLU (slope 0.01); down-sampling is the first convolution of a
    block with stride 2; up-sampling is a 2x2x2 transposed convolution with stride 2 and a bias,
    concatenated with the skip ([up-sampled, skip] in that order) and followed by a block; the
    head is a 1x1x1 convolution with a bias.

    DynUNet configured below has exactly that structure and the reference's parameter count,
    31,190,243 at in_channels=1, out_channels=3 (counted layer by layer from the reference's
    definitions in tests/test_models.py). It differs from the reference only where no memory or
    FLOP count depends on it:

    - Initialisation: DynUNet draws convolution weights from kaiming_normal_(a=0.01) and zeroes
      biases; the reference keeps PyTorch's default init (kaiming_uniform_(a=sqrt(5)), uniform
      biases), optionally scaled by ``weights_init_scale``.
    - Parameter names: the state dicts have different keys (``input_block.conv1.conv.weight`` vs
      ``input_block.conv1.0.weight``), so reference checkpoints need a key mapping to load.
    - Leaky ReLU runs in place (MONAI's default); the values are identical.

    Deep supervision is off and there is no dropout, as in the reference. The patch must be a
    multiple of 32 on every axis (five stride-2 stages), and 64 along one axis at least, so that
    the deepest stage has more than one voxel for instance norm (64x32x32 trains).
    """
    depth = 6  # input block + 5 down-sampling stages
    defaults = dict(spatial_dims=3, kernel_size=[3] * depth, strides=[1] + [2] * (depth - 1),
                    upsample_kernel_size=[2] * (depth - 1), filters=[32, 64, 128, 256, 320, 320],
                    norm_name=("INSTANCE", {"affine": True}),
                    act_name=("leakyrelu", {"inplace": True, "negative_slope": 0.01}),
                    res_block=False, trans_bias=True, deep_supervision=False)
    return "DynUNet", defaults, lambda a: _strides_divisor(a["strides"])


# Constructor arguments that the run decides, which model.args may repeat but not contradict: another
# out_channels fails at the first loss (or trains outputs no label ever reaches).
SET_BY_THE_RUN = {"in_channels": "the number of image channels",
                  "out_channels": "the number of outputs, classes or regions",
                  "spatial_dims": "the volumes' number of axes",
                  "img_size": "data.patch_size"}


def decided_by(key: str, names: Names = Names()) -> str:
    """What decides the argument ``key`` that the run sets (``SET_BY_THE_RUN``), a setting as the caller names it:
    UNETR's img_size is the estimator's block_shape."""
    what = SET_BY_THE_RUN[key]
    return names.setting(what) if what == "data.patch_size" else what

# SwinUNETR's deepest stage is 1/32 of the input, as is the MLPerf U-Net's bottleneck; instance norm
# needs more than one voxel there in all. 64 on every axis was required until the seventy-seventh
# session, which refused anisotropic patches that train (64 x 64 x 32: 2 x 2 x 1 voxels there).
DEEPEST_STAGE = {"swinunetr": 32, "unet3d_mlperf": 32}

MODELS: dict[str, Callable] = {
    "unet": _unet,
    "segresnet": _segresnet,
    "swinunetr": _swinunetr,
    "unetr": _unetr,
    "dynunet": _dynunet,
    "unet3d_mlperf": _unet3d_mlperf,
}
