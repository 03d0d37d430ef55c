"""Which distributed strategy is really in effect, compared with what the launch asked for.

accelerate silently falls back to DDP (or a single process) when a FSDP or DeepSpeed profile cannot
take effect, e.g. FSDP on a CPU. A user who asked for ZeRO-3 to fit a model must not believe they
got it, so the run states both and warns loudly when they differ.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from accelerate.utils import DistributedType, parse_flag_from_env, patch_environment

from .accelerate_profile import as_written, mixed_precision_keys
from .config import ConfigError
from .data.errors import DataError
from .deepspeed_precision_blocks import (PRECISION_BLOCKS, blocks_to_train, enabled_of, precision_block_problem,
                                        switched_on)
from .hand_edited import KeyGivenTwice, loads_once, read_json_file
from .launch_env import launched_processes
from . import launched_profile
from .launched_profile import launch_parser, profile_keys_error

_SHARDED = {DistributedType.FSDP: "FSDP", DistributedType.DEEPSPEED: "DeepSpeed"}

# Our precision names (the CLI's --precision) -> accelerate's mixed_precision values.
MIXED_PRECISION = {"fp32": "no", "bf16": "bf16", "fp16": "fp16"}
#: accelerate's mixed_precision as this package names the precision: the other way round.
PRECISION_OF_MIXED = {mixed: precision for precision, mixed in MIXED_PRECISION.items()}


def requested_strategy() -> str | None:
    """What the launcher was configured for (accelerate launch exports these from the config file)."""
    if os.environ.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true":
        return "DeepSpeed"
    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true":
        return "FSDP"
    return None


def strategy_in_effect(accelerator) -> str:
    """What runs, as the run prints and records it (run_info.json, each checkpoint's strategy.json); where
    the launch asked for FSDP or DeepSpeed and accelerate runs something else, it says so and why."""
    line = _what_runs(accelerator)
    if requested := _fallen_back_from(accelerator):
        line += f", in place of {requested}, {_why_not_in_effect(requested)}"
    return line


def _what_runs(accelerator) -> str:
    state = accelerator.state
    name = _SHARDED.get(state.distributed_type)
    if name is None:
        # accelerate wraps a MULTI_CPU model in DDP whatever the number of processes: a DeepSpeed or ddp.yaml
        # launch of one process under ACCELERATE_USE_CPU trains a DDP of one gloo rank (it said "single
        # process (MULTI_CPU)", a probe of the ninety-second session); MULTI_GPU wraps from two processes
        name = "DDP" if state.num_processes > 1 or state.distributed_type == DistributedType.MULTI_CPU \
            else "single process"
    return f"{name} ({state.distributed_type.value}) on {state.num_processes} process(es), " \
           f"device {accelerator.device}, mixed precision {accelerator.mixed_precision}" \
           + "".join(f", {detail}" for detail in _sharding(state))


def _fallen_back_from(accelerator) -> str | None:
    """The sharded strategy the launch asked for where accelerate runs another, else None."""
    requested = requested_strategy()
    return requested if requested and _SHARDED.get(accelerator.state.distributed_type) != requested else None


def _why_not_in_effect(requested: str) -> str:
    """Why accelerate set up no ``requested`` (accelerate 1.15's AcceleratorState: FSDP on GPUs alone,
    DeepSpeed in a launch's processes (LOCAL_RANK) whose Accelerator is not ``cpu``)."""
    if requested == "FSDP":
        return "which accelerate enables only on GPUs"
    if parse_flag_from_env("ACCELERATE_USE_CPU"):
        return "which accelerate does not set up under ACCELERATE_USE_CPU=true"
    return "which accelerate sets up only in the processes of accelerate launch, and not for Accelerator(cpu=True)"


def _sharding(state) -> list[str]:
    """How FSDP or DeepSpeed shards, as the plugin in effect says: "FSDP (FSDP)" alone hid an FSDP1
    profile of accelerate config's running FULL_SHARD, and a typo'd zero_stage running ZeRO-2
    (seventy-fifth session's probe)."""
    if state.distributed_type == DistributedType.FSDP:
        plugin = state.fsdp_plugin
        if plugin.fsdp_version == 2:
            details = ["FSDP2", "resharding after forward" if plugin.reshard_after_forward else "not resharding"]
        else:
            details = ["FSDP1", getattr(plugin.sharding_strategy, "name", str(plugin.sharding_strategy))]
        if getattr(plugin.cpu_offload, "offload_params", False):
            details.append("parameters offloaded to the CPU")
        return details
    if state.distributed_type == DistributedType.DEEPSPEED:
        zero = state.deepspeed_plugin.deepspeed_config.get("zero_optimization") or {}
        details = [f"ZeRO-{zero.get('stage', state.deepspeed_plugin.zero_stage)}"]
        for what in ("optimizer", "param"):
            device = (zero.get(f"offload_{what}") or {}).get("device", "none")
            if device not in ("none", None):
                details.append(f"{what} offloaded to {device}")
        return details
    return []


def honour_fsdp1_sharding(accelerator) -> str | None:
    """Give an FSDP1 plugin the sharding an ``accelerate config`` profile asked for; a note, else None.

    accelerate config writes FSDP1's sharding strategy as ``fsdp_reshard_after_forward:
    SHARD_GRAD_OP``, but accelerate launch always exports its ``--fsdp_sharding_strategy`` default
    (FULL_SHARD), which the plugin prefers: SHARD_GRAD_OP, NO_SHARD and HYBRID_SHARD all ran FULL_SHARD
    without a word (seventy-fifth session's probe, accelerate 1.15). Only such a profile puts a
    strategy's name in FSDP_RESHARD_AFTER_FORWARD; the shipped ones set fsdp_sharding_strategy.
    """
    if accelerator.distributed_type != DistributedType.FSDP or accelerator.state.fsdp_plugin.fsdp_version != 1:
        return None
    from torch.distributed.fsdp import ShardingStrategy

    asked = os.environ.get("FSDP_RESHARD_AFTER_FORWARD", "").upper()
    plugin = accelerator.state.fsdp_plugin
    if asked not in ShardingStrategy.__members__ or plugin.sharding_strategy == ShardingStrategy[asked]:
        return None
    launched = os.environ.get("FSDP_SHARDING_STRATEGY", "FULL_SHARD").upper()
    if launched not in ("FULL_SHARD", "1"):  # both keys name a strategy, and not the same one
        raise ConfigError(f"the accelerate profile names two FSDP sharding strategies: fsdp_sharding_strategy "
                          f"{launched} and fsdp_reshard_after_forward {asked}; keep one of them")
    plugin.sharding_strategy = ShardingStrategy[asked]
    return (f"FSDP1 shards as the profile's fsdp_reshard_after_forward says ({asked}; accelerate launch would "
            f"have run its FULL_SHARD default)")


def _named_with_the_profile(problem: str) -> str:
    """``problem`` said of the profile the launch read, "/abs/fsdp.yaml: ...", where the rank can tell it
    (``launched_profile.launched_config_file``), as plan names it; else ``problem`` alone."""
    return f"{profile}: {problem}" if (profile := launched_profile.launched_config_file()) else problem


def _the_accelerate_config(article: str = "the") -> str:
    """"the accelerate config" with the file the launch read where the rank can tell it
    (``launched_profile.launched_config_file``), as the profile's other refusals name it: the refusals of a profile
    this machine cannot run (FSDP without a GPU, processes not joined) named no file until the hundred-and-twenty-
    eighth session's walk of docs/strategies.md."""
    profile = launched_profile.launched_config_file()
    return f"{article} accelerate config" + (f" {profile}" if profile else "")


def lone_process_warning(accelerator) -> str | None:
    """A warning when the launcher was set up for several processes but this is the only one, else None.

    accelerate launch's simple launcher (one process, no torchrun) sets MASTER_ADDR only when the
    profile asks for more than one process or machine: a ``distributed_type: MULTI_CPU`` profile,
    what accelerate config writes for several CPU processes, starts them only through mpirun
    (``mpirun_hostfile``), and otherwise trained one process without a word (seventy-fifth
    session's probe). A warning, not an error: MASTER_ADDR may come from a job script too.
    """
    launched_alone = "WORLD_SIZE" not in os.environ and "MASTER_ADDR" in os.environ
    if not (launched_alone and accelerator.num_processes == 1 and "ACCELERATE_MIXED_PRECISION" in os.environ):
        return None
    return ("this launch runs ONE process, and MASTER_ADDR is set without WORLD_SIZE, as accelerate launch sets "
            "it for a profile of several processes that it starts as one: if the profile asked for several, an "
            "accelerate profile with distributed_type MULTI_CPU starts them only through mpirun (mpirun_hostfile); "
            "for DDP over gloo on one machine launch configs/accelerate/ddp.yaml with ACCELERATE_USE_CPU=true and "
            "--mixed_precision no. (A job script's own MASTER_ADDR makes this warning too)")


def launch_error(accelerator) -> str | None:
    """A message when more processes were launched than accelerate joined into one run, else None.

    A GPU profile (ddp, fsdp, deepspeed) launched with N processes on a machine without GPUs gives N
    processes that each believe they are a lone main process: N independent trainings writing the
    same checkpoints. That must stop before anything is written.
    """
    launched = launched_processes()  # a cluster's WORLD_SIZE around a plain `python` is no launch
    if launched > accelerator.num_processes:
        return (f"{launched} processes were launched but accelerate joined {accelerator.num_processes} "
                f"(distributed type {accelerator.distributed_type.value}): {_the_accelerate_config('this')} needs GPUs "
                f"and none was found, so each process would train alone over the same output folder. "
                f"On a machine without GPUs run DDP over gloo with `ACCELERATE_USE_CPU=true accelerate launch "
                f"--config_file configs/accelerate/ddp.yaml --mixed_precision no ...`, or use "
                f"configs/accelerate/cpu.yaml for one process.")
    return None


def refuse_an_unjoined_launch(state) -> None:
    """Raise ConfigError with :func:`launch_error`'s message for a PartialState (or Accelerator) that did
    not join the launch's processes: a script that writes files before training (the examples write
    their phantoms) saw its lone "main processes" write the same files, and one died of the other's
    with a traceback (FileNotFoundError) before training could say which launch works."""
    if error := launch_error(state):
        raise ConfigError(error)


def construction_error() -> str | None:
    """A message when accelerate cannot even build the Accelerator this launch asks for, else None.

    Mixed precision fp8 (an accelerate config's choice) is not one we train with: accelerate's fp8
    backends (Transformer Engine, MS-AMP, torchao) convert linear layers, and these networks are 3D
    convolutions; without one of them installed accelerate raised a bare ValueError.

    FSDP1 with ``fsdp_sync_module_states`` (or ``fsdp_cpu_ram_efficient_loading``, which switches it
    on) makes accelerate's FSDP plugin look up the current GPU in its constructor; without one it
    raises a bare RuntimeError, before any fallback could be reported. Every FSDP1 profile in
    configs/accelerate/ sets it, because on GPUs it lets rank 0's weights reach the others.

    A DeepSpeed launch accelerate or DeepSpeed would refuse with a traceback: ``deepspeed_launch_error``, after
    the profile's own keys (``_unknown_deepspeed_fields``, ``profile_keys_error``), as plan says them; each names
    the profile where it can be told.

    A MEGATRON_LM launch, which plan refuses as a distributed_type this package does not launch
    (``unlaunched_distributed_type_problem``), in plan's words.

    A key of the launched profile's ``fsdp_config``, ``dynamo_config``, ``mpirun_config``, ``fp8_config``,
    ``megatron_lm_config`` or ``parallelism_config`` that accelerate launch does not know, and drops without a word,
    where the profile can be told (``launched_profile.profile_keys_error``), as plan refuses it.

    A ``parallelism_config`` of tensor, context or sequence parallel sizes other than 1, which the loop does not run
    (``parallelism_error``), after the profile's keys, as plan refuses it; accelerate took them without a word until
    the ninety-seventh session.

    A profile of ``fsdp_sync_module_states: false`` with ``fsdp_cpu_ram_efficient_loading`` true (or left out,
    true by the launch's default) is not met here: accelerate launch refuses it with a traceback before any of
    our code runs, and plan refuses it naming both keys (``plan_profile._sync_module_states_problem``). Those
    variables exported by hand, without the launch, are no error either: accelerate's FSDP1 plugin switches the
    sync on with a warning, and FSDP2 needs none.
    """
    import torch
    from accelerate.utils import parse_flag_from_env

    if (launched := os.environ.get("ACCELERATE_MIXED_PRECISION", "no")).lower() == "fp8":
        # the setting as it was written (the ninety-ninth session's form), "mixed_precision fp8" until the hundredth
        return (f"the launch asks for fp8 ({launched_profile.launch_precision_setting(launched)}), which "
                f"accelerated_seg does not train with: accelerate's fp8 converts linear layers (Transformer Engine, "
                f"MS-AMP, torchao), and these networks are mostly 3D convolutions. Choose bf16 (or fp16) in the "
                f"accelerate config or with --mixed_precision.")
    if requested_strategy() == "DeepSpeed":
        # the profile's own keys before the json it names, as plan says them
        return _unknown_deepspeed_fields() or profile_keys_error() or parallelism_error() or deepspeed_launch_error()
    if requested_strategy() == "FSDP" and (error := fsdp2_sharding_error()):
        return _named_with_the_profile(error)  # as plan names it (no file until the walk of 2026-12-08)
    if error := profile_keys_error() or parallelism_error():
        return error
    if os.environ.get("ACCELERATE_USE_MEGATRON_LM", "false").lower() == "true":  # accelerate's ImportError else
        problem = unlaunched_distributed_type_problem("MEGATRON_LM")  # after the profile's keys, as plan says them
        return _named_with_the_profile(problem)
    if requested_strategy() != "FSDP" or torch.cuda.is_available() or os.environ.get("FSDP_VERSION", "1") != "1":
        return None
    asked = [f"fsdp_{name.lower()}: true" for name in ("SYNC_MODULE_STATES", "CPU_RAM_EFFICIENT_LOADING")
             if parse_flag_from_env(f"FSDP_{name}")]
    if not asked:
        return None
    return (f"{_the_accelerate_config()} asks for FSDP1 with {' and '.join(asked)}, which accelerate can set up only "
            f"on a GPU, and no GPU is visible. On a machine without GPUs use configs/accelerate/cpu.yaml, or "
            f"ddp.yaml with ACCELERATE_USE_CPU=true; an FSDP2 profile (fsdp.yaml) launched with --num_processes 1 "
            f"falls back to one process where train.allow_strategy_fallback allows it.")


#: FSDP1's sharding strategies in accelerate's order: the launch may export one as its number (1 to 5).
_FSDP1_STRATEGIES = ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2")


def fsdp2_sharding_error() -> str | None:
    """A message when an FSDP2 launch's profile names an FSDP1 sharding strategy that FSDP2 would not run, else
    None (:func:`fsdp2_sharding_problem`, read from what accelerate launch exports). The launch exports FULL_SHARD
    where the profile names none, and the strategy may come as its number (1 to 5)."""
    if os.environ.get("FSDP_VERSION", "1") != "2":
        return None
    asked = os.environ.get("FSDP_SHARDING_STRATEGY", "FULL_SHARD").upper()
    if asked.isdigit() and 1 <= int(asked) <= len(_FSDP1_STRATEGIES):
        asked = _FSDP1_STRATEGIES[int(asked) - 1]
    return fsdp2_sharding_problem(asked, os.environ.get("FSDP_RESHARD_AFTER_FORWARD", "true"))


def fsdp2_sharding_problem(asked: str, resharding: str | bool) -> str | None:
    """A message when an FSDP2 profile's ``fsdp_sharding_strategy`` (``asked``) is not what FSDP2 runs under its
    ``fsdp_reshard_after_forward`` (``resharding``), else None.

    FSDP2 has that one switch (true shards as FULL_SHARD, false as SHARD_GRAD_OP); accelerate's plugin does not
    read ``fsdp_sharding_strategy`` under FSDP2, and says nothing of it. A profile of FSDP2 with
    ``fsdp_sharding_strategy: SHARD_GRAD_OP`` (or NO_SHARD, HYBRID_SHARD) ran resharding after forward, the
    strategy line's "FSDP2, resharding after forward" its only trace (a probe of the ninety-third session).
    """
    resharding = str(resharding).lower() not in ("false", "0", "no")
    asked = str(asked).upper()
    if asked == "FULL_SHARD" or (asked == "SHARD_GRAD_OP" and not resharding):
        return None
    ignored = (f"the accelerate config asks FSDP2 (fsdp_version: 2) for fsdp_sharding_strategy {asked}, an FSDP1 "
               f"setting that FSDP2 ignores: it would run fsdp_reshard_after_forward: {str(resharding).lower()}, "
               f"which shards as {'FULL_SHARD' if resharding else 'SHARD_GRAD_OP'}.")
    if asked == "SHARD_GRAD_OP":
        return f"{ignored} Remove fsdp_sharding_strategy and set fsdp_reshard_after_forward: false"
    return (f"{ignored} FSDP2 has no {asked}: remove fsdp_sharding_strategy (fsdp_reshard_after_forward: true "
            f"shards as FULL_SHARD, false as SHARD_GRAD_OP), or launch an FSDP1 profile of configs/accelerate/ "
            f"(fsdp_no_shard.yaml, fsdp_hybrid.yaml)")


def unlaunched_distributed_type_problem(kind) -> str:
    """Why a profile's ``distributed_type`` ``kind`` (XLA, MEGATRON_LM, ...) is refused, as plan and the ranks say
    it: this package launches none but NO, MULTI_CPU, MULTI_GPU, FSDP and DEEPSPEED. A MEGATRON_LM launch stopped
    every rank with accelerate's ImportError (Megatron-LM not installed) until the ninety-sixth session, and
    Megatron-LM's tensor and pipeline parallelism are for transformer language models in any case. The setting
    is quoted as its file writes it, ``distributed_type: 'XLA'``, as the profile's other messages quote theirs
    (``accelerate_profile.as_written``); ``distributed_type 'XLA'`` until the hundredth session."""
    # MULTI_CPU was left out of the list, though plan and the ranks take it (a CPU's DDP), until review r129
    return f"distributed_type: {kind!r} is not one this package launches (NO, MULTI_CPU, MULTI_GPU, FSDP or " \
           f"DEEPSPEED)"


#: accelerate's ParallelismConfig sizes (as a profile's parallelism_config names them) that split a network or its
#: input over processes otherwise than by data, with the parallelism each is.
MODEL_PARALLEL_SIZES = {"parallelism_config_tp_size": "tensor", "parallelism_config_cp_size": "context",
                        "parallelism_config_sp_size": "sequence"}


def parallelism_problem(sizes: dict) -> str | None:
    """Why a profile's ``parallelism_config`` (``sizes``: its keys as written, the launch's options) cannot run in
    this package's loop, else None: a tensor, context or sequence parallel size other than 1. accelerate applies them
    to a model with a tensor-parallel plan and to batches of token sequences (transformers' language models); the
    loop shards a 3D network by FSDP or DeepSpeed alone, and batches of volumes by data parallelism. A non-empty
    section switches accelerate's parallelism config on in every launch; sizes of 1 change nothing and pass."""
    asked = {key: value for key, value in sizes.items() if key in MODEL_PARALLEL_SIZES and str(value) != "1"}
    if not asked:
        return None
    named = ", ".join(f"{key} {value}" for key, value in asked.items())
    kinds = " and ".join(MODEL_PARALLEL_SIZES[key] for key in asked)
    return (f"the accelerate config's parallelism_config asks for {named} ({kinds} "
            f"parallelism), which this package's training loop does not run: it shards a network by FSDP or "
            f"DeepSpeed alone (accelerate's tensor, context and sequence parallelism are for transformer language "
            f"models). Remove {'them' if len(asked) > 1 else 'it'} from parallelism_config (a size of 1 changes "
            f"nothing), or shard with an FSDP or DeepSpeed profile of configs/accelerate/")


def parallelism_error() -> str | None:
    """:func:`parallelism_problem`, named with the launched profile where the rank can tell it, else None: read from
    what accelerate launch exports (a non-empty parallelism_config sets ACCELERATE_USE_PARALLELISM_CONFIG and each
    size as PARALLELISM_CONFIG_*, through torchrun and DeepSpeed's launcher), else from the launched profile's
    section, which a one-process launch drops: a run of the profile plan refuses does not start either way."""
    sizes = {}
    if os.environ.get("ACCELERATE_USE_PARALLELISM_CONFIG", "false").lower() == "true":
        sizes = {key: os.environ[key.upper()] for key in MODEL_PARALLEL_SIZES if key.upper() in os.environ}
    if (problem := parallelism_problem(sizes or launched_profile.launched_parallelism_config())) is None:
        return None
    return _named_with_the_profile(problem)


#: The accelerate-profile fields that accelerate refuses beside a DeepSpeed json (its
#: DeepSpeedPlugin._deepspeed_config_checks), as ACCELERATE_CONFIG_DS_FIELDS names them.
JSON_DECIDES = ("gradient_accumulation_steps", "gradient_clipping", "zero_stage", "offload_optimizer_device",
                 "offload_param_device", "offload_param_nvme_path", "offload_optimizer_nvme_path",
                 "zero3_save_16bit_model", "mixed_precision")


def deepspeed_launch_error() -> str | None:
    """A message when accelerate cannot set up the DeepSpeed launch it was given, else None.

    Each of these stopped the run in accelerate or DeepSpeed with a traceback (a probe of the
    eighty-fourth session): a ``deepspeed_config_file`` missing or not JSON, a ZeRO stage that does
    not exist (``zero_stage: 4`` was printed as "ZeRO-4" and refused by DeepSpeed's pydantic model at
    ``prepare``, after the whole data work), and profile fields beside a json that accelerate ignores
    and therefore refuses. Each is named with the profile the launch read, where the rank can tell it
    (``launched_profile.launched_config_file``), as plan names it: until the ninety-fifth session only an
    unreadable json was, and a json without zero_optimization named the json alone.
    """
    if problem := _deepspeed_launch_problem():
        return _named_with_the_profile(problem)
    return None


def _deepspeed_launch_problem() -> str | None:
    """:func:`deepspeed_launch_error`'s message, read from what accelerate launch exports, without the profile."""
    file = os.environ.get("ACCELERATE_DEEPSPEED_CONFIG_FILE", "none")
    if file == "none":
        return zero_stage_problem(os.environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", "2"))
    try:
        config = read_deepspeed_json(file)
    except ConfigError as error:
        return str(error)
    fields = os.environ.get("ACCELERATE_CONFIG_DS_FIELDS", "").split(",")
    clash = [field for field in fields if field in JSON_DECIDES and field != "mixed_precision"]
    if problem := fields_beside_a_json_problem(file, clash):
        return problem
    # the launch names mixed_precision among the fields where it took the profile's, without --mixed_precision;
    # with one, the profile's is ignored, and only the profile tells it
    mixed, written = launched_profile.launched_mixed_precision_as_written()
    if mixed is None and "mixed_precision" in fields:  # the profile cannot be told: the value the launch took
        mixed = os.environ.get("ACCELERATE_MIXED_PRECISION", "no")
    asked = os.environ.get("ACCELERATE_MIXED_PRECISION", "no")
    return (mixed_precision_beside_a_json_problem(file, mixed, config, written) or deepspeed_json_problem(file, config)
            or precision_against_the_json_problem(file, config, asked, precision_asked_by(asked)))


def zero_stage_problem(stage) -> str | None:
    """Why a profile's ``deepspeed_config.zero_stage`` (without a json) is no ZeRO stage, else None."""
    return None if str(stage) in ("0", "1", "2", "3") else (
        f"the accelerate config asks for DeepSpeed zero_stage {stage}, and ZeRO has stages 0 to 3 "
        f"(3 shards parameters too, 2 gradients and optimizer state): set deepspeed_config.zero_stage")


def fields_beside_a_json_problem(file, clash: list[str]) -> str | None:
    """Why accelerate refuses the profile's fields ``clash`` (of :data:`JSON_DECIDES`) beside the DeepSpeed json
    ``file``, else None (none)."""
    return (f"the accelerate config names a DeepSpeed json ({file}) and also sets {', '.join(clash)} beside it, "
            f"which accelerate refuses: the json decides those (zero_optimization, bf16/fp16 blocks). Remove "
            f"them from the accelerate config (a json's 'auto' entries take the experiment's values)") if clash else None


def mixed_precision_beside_a_json_problem(file, mixed, config: dict, written: dict | None = None) -> str | None:
    """Why the top-level ``mixed_precision`` (``mixed``: None where the profile sets none) of a profile that names
    the DeepSpeed json ``file`` (read as ``config``) is refused, else None; ``written``: the profile as its file
    holds it, where it can be told, whose own key and value the message quotes and the remedy names (an older
    accelerate's ``fp16: 'yes'``, read as mixed_precision fp16: ``accelerate_profile.mixed_precision_keys``; it was
    quoted ``fp16: true`` until the ninety-ninth session, and a mixed_precision without the colon its file writes,
    ``mixed_precision 'bf16'``). Beside mixed_precision, an older fp16 of truth is named too, in one message: the
    launch reads it once mixed_precision is removed, and it was refused in turn (until the ninety-ninth session).
    A launch without ``--mixed_precision`` takes the profile's and names it among the fields accelerate refuses
    beside a json (its ``_deepspeed_config_checks``: a ValueError in every rank); a launch with one ignores it, and
    ``--mixed_precision`` meets the json. Either way the json's bf16/fp16 blocks decide the precision, and the
    profile's says nothing: refused alike whatever the json holds, bf16/fp16 blocks, "auto" or none, as `accelerate
    config` writes no mixed_precision beside a json. The remedy says what the json's blocks must hold to train the
    profile's precision once it is removed (until the ninety-eighth session it showed "bf16": {"enabled": true} to a
    profile asking for fp16)."""
    if mixed is None:
        return None
    written = written or {}
    keys = mixed_precision_keys(written)
    # a rank that cannot tell its profile quotes the precision the launch took
    setting = " and ".join(as_written(written, key) if key in written else f"{key}: {mixed!r}" for key in keys)
    if keys == ["fp16"]:
        setting += f" (read as mixed_precision: {mixed!r})"
    refused = (f"the accelerate config names a DeepSpeed json ({file}) and also sets {setting} at its "
               f"top, which accelerate refuses beside a json (or ignores, where accelerate launch is given "
               f"--mixed_precision): the json's bf16/fp16 blocks decide the precision. Remove "
               f"{' and '.join(keys)} from the accelerate config")
    if str(mixed) not in PRECISION_OF_MIXED:  # none this package trains with: any block to write is a guess
        return (f"{refused} and set the precision in the json (\"bf16\": {{\"enabled\": true}}, or \"enabled\": "
                f"\"auto\" to take accelerate launch's --mixed_precision)")
    wanted = _precision_in_words(mixed)
    if not (writes := blocks_to_train(config, str(mixed), asked="no")):  # the launch's "no" once it is removed
        return f"{refused}: the json trains {wanted} as it is"
    return (f"{refused}, and to train {wanted} write {' and '.join(writes)} in {file} (or \"enabled\": \"auto\" "
            f"there, to take accelerate launch's --mixed_precision)")


def _precision_in_words(mixed: str) -> str:
    """accelerate's mixed_precision as the messages say it: "no" is fp32."""
    return "fp32" if mixed == "no" else mixed


def precision_against_the_json_problem(file, config: dict, asked: str, setting: str | None = None) -> str | None:
    """Why the precision the run asks for (``asked``: accelerate's mixed_precision, as ACCELERATE_MIXED_PRECISION
    holds it; ``setting``: how the user gave it, :func:`precision_asked_by`, None where it was not given) cannot
    run beside the DeepSpeed json ``file`` (read as ``config``), else None.

    fp16 where the json switches bf16 on, or bf16 where it switches fp16 on, accelerate refuses (its
    DeepSpeedPlugin.set_mixed_precision, a ValueError as the Accelerator is built; a rank cannot tell it before from
    plan, which does not see the launch's options). "no" given (``accelerate launch --mixed_precision no``,
    ``Segmentation(precision='fp32')``) where the json switches either on, accelerate runs as the json says, without a
    word: its DeepSpeed state takes the precision from the json's blocks, and only the strategy line's "mixed
    precision bf16" told it (a probe of the ninety-seventh session); refused since. "no" not given (the launch's
    default) leaves the json to decide, as the profiles' comments advise. "auto" blocks take the precision asked.
    bf16 or fp16 asked where the json's own block switches it off (``"bf16": {"enabled": false}``, or a block without
    ``enabled``: DeepSpeed's default is false) trained fp32 without a word, its strategy line's "mixed precision no"
    the only trace: accelerate fills a block only where it is missing or "auto" (its DeepSpeedPlugin
    .set_mixed_precision); refused since the ninety-seventh session.

    Each says both ways out: what to write in the json to train the precision asked (every block that must change:
    until the ninety-eighth session it named one, and fp16 asked beside bf16 on and fp16 off stayed refused, or trained
    fp32), and the setting that asked, given the json's precision in its place."""
    if problem := precision_block_problem(file, config):  # before reading the blocks' "enabled"
        return problem
    asked = str(asked).lower()
    if asked not in PRECISION_OF_MIXED or (asked == "no" and setting is None):
        return None  # the launch's "no" by default leaves the json to decide
    on = next((name for name in PRECISION_BLOCKS if switched_on(config, name)), None)
    if on is not None and on != asked:
        json_trains = on
        outcome = f"{on}.enabled is true in the DeepSpeed json {file}, " + (
            f"so accelerate would train {on} all the same, without a word" if asked == "no"
            else "which accelerate refuses beside it")
    elif on is None and asked != "no" and (enabled := enabled_of(config, asked)) not in ("auto", "missing"):
        json_trains = "no"
        said = "not set (DeepSpeed's default: false)" if enabled == "not set" else enabled
        outcome = (f"{asked}.enabled is {said} in the DeepSpeed json {file}, so accelerate would train fp32 all the "
                   f"same, without a word")
    else:
        return None
    who = _precision_given(setting, asked) if setting else _SOMEONE_ASKED
    writes = " and ".join(blocks_to_train(config, asked, asked))
    auto = ' ("auto" takes the precision asked)' if '"auto"' in writes else ""
    instead = (f"give {_precision_given(setting, json_trains)} in its place" if setting
               else f"ask for {_precision_in_words(json_trains)} in its place")
    return (f"{who} asks for {'no mixed precision' if asked == 'no' else f'mixed precision {asked}'}, and {outcome}: "
            f"to train {_precision_in_words(asked)}, write {writes} in {file}{auto}; to train "
            f"{_precision_in_words(json_trains)}, {instead}")


#: Who asked for a precision where the rank cannot tell how it was given (:func:`precision_asked_by` is None).
_SOMEONE_ASKED = "the launch (accelerate launch's --mixed_precision, or the precision given to the run)"


def _precision_given(setting: str, mixed: str) -> str:
    """``setting`` (how the user gives a precision: "accelerate launch's --mixed_precision {mixed}",
    "Segmentation(precision='{precision}')") giving accelerate's mixed_precision ``mixed``, in the setting's own names
    of it: accelerate's ({mixed}: no, bf16, fp16) or this package's ({precision}: fp32, bf16, fp16)."""
    return setting.format(mixed=mixed, precision=PRECISION_OF_MIXED[mixed])


def json_switching_on(name: str) -> str | None:
    """The DeepSpeed json of this DeepSpeed launch (its ``deepspeed_config_file``) where it switches ``name`` (bf16,
    fp16) on, else None: a message on the precision then names the json's own field, ``fp16.enabled``, which
    decides it whatever the launch says."""
    if (launched := _launched_deepspeed_json()) is None:
        return None
    file, config = launched
    return file if switched_on(config, name) else None


def precision_against_the_launched_json(precision: str, setting: str) -> str | None:
    """:func:`precision_against_the_json_problem` for ``precision`` (fp32, bf16, fp16), asked for by ``setting``
    ("benchmark train's --precision {precision}"), beside this DeepSpeed launch's json, else None (no such json, or
    one that runs the precision asked). For a caller that sets its own precision over the launch's
    (:func:`next_accelerator_in`) and can say so before it builds an Accelerator."""
    if (launched := _launched_deepspeed_json()) is None:
        return None
    file, config = launched
    return precision_against_the_json_problem(file, config, MIXED_PRECISION[precision], setting)


def _launched_deepspeed_json() -> tuple[str, dict] | None:
    """The ``deepspeed_config_file`` of this DeepSpeed launch and its settings, else None (none, or not readable:
    deepspeed_launch_error says that first)."""
    file = os.environ.get("ACCELERATE_DEEPSPEED_CONFIG_FILE", "none")
    if requested_strategy() != "DeepSpeed" or file == "none":
        return None
    try:
        return file, read_deepspeed_json(file)
    except ConfigError:
        return None


#: How a caller of :func:`next_accelerator_in` names the precision it sets, as its user gave it
#: ("Segmentation(precision='{precision}')", :func:`_precision_given`), for the ranks' messages: the processes
#: notebook_launcher starts inherit it.
PRECISION_GIVEN_AS = "ACCELERATED_SEG_PRECISION_GIVEN_AS"


def precision_asked_by(asked: str) -> str | None:
    """How the user gave the precision ``asked`` (accelerate's mixed_precision, as the run asks for it), as a setting
    of :func:`_precision_given`, else None where it was not given: the launch's "no" by default, or the launch cannot
    be told. The estimator's ``precision=`` (:data:`PRECISION_GIVEN_AS`), else the launcher's own
    ``--mixed_precision``, else ACCELERATE_MIXED_PRECISION set for torchrun run directly, which exports none of its
    own (``launched_profile.environment_precision_setting``)."""
    if given := os.environ.get(PRECISION_GIVEN_AS):
        return given
    if launched_profile.launched_mixed_precision_option() == asked:
        return "accelerate launch's --mixed_precision {mixed}"
    return launched_profile.environment_precision_setting()


def deepspeed_json_problem(file, config: dict) -> str | None:
    """Why accelerate or DeepSpeed would refuse the content of the DeepSpeed json ``file`` (read as ``config``),
    else None: no zero_optimization block, a ZeRO stage outside 0 to 3, or a bf16/fp16 entry that is no block
    (:func:`precision_block_problem`)."""
    zero = config.get("zero_optimization")
    if not isinstance(zero, dict):  # accelerate's "Please specify the ZeRO optimization config" ValueError
        return (f"the DeepSpeed json {file} has no zero_optimization block, which accelerate needs: add "
                f'"zero_optimization": {{"stage": 2}} (or the stage you want, 0 to 3)')
    if zero.get("stage", 0) not in (0, 1, 2, 3, "auto"):
        return (f"the DeepSpeed json {file} asks for zero_optimization.stage {zero.get('stage')!r}, and ZeRO has "
                f"stages 0 to 3 (3 shards parameters too, 2 gradients and optimizer state)")
    return precision_block_problem(file, config)


def _unknown_deepspeed_fields() -> str | None:
    """A message naming the keys of the profile's ``deepspeed_config`` that accelerate launch does not know,
    else None. accelerate refuses an unknown key at the top of a profile, but drops one in this section
    without a word: ``offload_optimizer_devices: cpu`` trained ZeRO-2 with no offloading (a probe of the
    ninety-third session). The launch names the section's keys in ACCELERATE_CONFIG_DS_FIELDS."""
    given = [field for field in os.environ.get("ACCELERATE_CONFIG_DS_FIELDS", "").split(",") if field]
    return unknown_section_keys("deepspeed_config", given)


#: The fsdp_config keys accelerate launch exports without a command-line option of theirs (utils/launch.py
#: prepare_multi_gpu_env reads it with getattr).
_FSDP_KEYS_WITHOUT_AN_OPTION = {"fsdp_ignored_modules"}

#: The sections of a profile whose keys accelerate launch copies onto its options (``_validate_launch_command``,
#: for each dict field of its ClusterConfig), each with the start a key keeps as written and the prefix put before
#: any other key: ``dynamo_config: {mode: max-autotune}`` is the option dynamo_mode, ``fp8_config: {backend: TE}``
#: fp8_backend (as `accelerate config` writes it). The others' keys are the options' names as they are.
COPIED_SECTIONS = {"fsdp_config": ("fsdp", "fsdp_"), "deepspeed_config": ("", ""),
                   "dynamo_config": ("dynamo_", "dynamo_"), "fp8_config": ("fp8", "fp8_"), "mpirun_config": ("", ""),
                   "megatron_lm_config": ("", ""), "parallelism_config": ("", "")}


#: Keys that `accelerate config` writes into a section under another name than the launch's option takes, by the
#: name the launch takes (as written in the section): accelerate 1.16's commands/config/cluster.py writes
#: fp8_config's amax_history_length and amax_compute_algorithm, and the launch has fp8_amax_history_len and
#: fp8_amax_compute_algo, so it drops them. Named as accelerate's own mismatch: "`accelerate config` writes the keys
#: it knows" was untrue of them (h15's probe). test_plan checks both sides against the accelerate installed.
WRITTEN_OTHERWISE_BY_ACCELERATE_CONFIG = {"fp8_config": {"amax_history_length": "amax_history_len",
                                                         "amax_compute_algorithm": "amax_compute_algo"}}


def unknown_section_keys(section: str, keys) -> str | None:
    """A message naming the keys of a profile's ``section`` (one of :data:`COPIED_SECTIONS`) that accelerate launch
    does not know, each with the known key it is closest to, else None.

    The launch copies a section's keys onto its command line's options, prefixed as :data:`COPIED_SECTIONS` says,
    and exports as environment variables only the options it has: any other key is dropped without a word.
    ``fsdp_offload_param: true`` (for ``fsdp_offload_params``) ran without offloading.
    """
    known = set(vars(launch_parser().parse_args(["script.py"]))) | _FSDP_KEYS_WITHOUT_AN_OPTION
    kept, prefix = COPIED_SECTIONS[section]
    # an unprefixed key is named with the right one as written unprefixed: `versoin` -> `version`
    known_as_written = known | {name[len(prefix):] for name in known if prefix and name.startswith(prefix)}
    unknown = [key for key in map(str, keys) if (key if key.startswith(kept) else prefix + key) not in known]
    renamed = WRITTEN_OTHERWISE_BY_ACCELERATE_CONFIG.get(section, {})
    said = []
    if guesses := [with_the_closest(key, known_as_written) for key in unknown if key not in renamed]:
        said.append(f"{', '.join(guesses)}, which accelerate launch does not know and would ignore: correct or remove "
                    f"it (`accelerate config` writes the keys it knows)")
    if mismatched := [key for key in unknown if key in renamed]:
        taken = [renamed[key] for key in mismatched]
        them, options = ("them", "options") if len(taken) > 1 else ("it", "option")
        said.append(f"{', '.join(mismatched)}, as `accelerate config` writes {them}, but accelerate launch takes "
                    f"{', '.join(taken)} (its {options} {', '.join('--' + prefix + key for key in taken)}) and would "
                    f"ignore {them}: rename {them} so (a mismatch of accelerate's own)")
    return f"the accelerate config's {section} has {'; and '.join(said)}" if said else None


def with_the_closest(key: str, known) -> str:
    """``key``, followed by the name in ``known`` it is closest to where one is close: "num_process (did you mean
    num_processes?)". Closer than difflib's default asks (0.6): an older accelerate's ipex_config was "did you
    mean fp8_config?" (0.76), where the typos it is for are 0.85 and more (versoin, num_process)."""
    import difflib

    close = difflib.get_close_matches(key, known, 1, cutoff=0.8)
    return f"{key} (did you mean {close[0]}?)" if close else key


def read_deepspeed_json(file: str | os.PathLike) -> dict:
    """The DeepSpeed config an accelerate profile's ``deepspeed_config_file`` names, read as accelerate
    reads it (``HfDeepSpeedConfig``): a path as given, so a relative one from the folder the launch
    runs in; else the value itself as JSON, or as base64 of it.

    A file is read as a hand-edited one that accelerate reads again with ``json.load``
    (``hand_edited.read_json_file``): a byte-order mark, which json.load refuses, is refused saying so; a
    key given twice, which json.load and so DeepSpeed read as the last, is refused too.

    Raises:
        ConfigError: naming the file, what is wrong and what to do (where a json is broken, the line and column).
    """
    import base64
    import binascii

    if not os.path.exists(file):
        for decode in (lambda text: text, lambda text: base64.urlsafe_b64decode(text).decode("utf-8")):
            # a key given twice refused as a file's is, which DeepSpeed read as the last until the
            # hundred-and-twenty-fourth session
            try:
                config = loads_once(decode(str(file)), "the accelerate config's deepspeed_config_file (a DeepSpeed "
                                                       "config written inline)", "accelerate's DeepSpeed plugin")
            except KeyGivenTwice as error:
                raise ConfigError(str(error)) from None
            except (ValueError, UnicodeDecodeError, binascii.Error):  # JSONDecodeError is a ValueError
                continue
            if isinstance(config, dict):
                return config
        where = f" (relative to {os.getcwd()}, where the launch runs)" if not Path(file).is_absolute() else ""
        raise ConfigError(f"the accelerate config's deepspeed_config_file {file}{where} cannot be read "
                          f"(FileNotFoundError: no such file, nor a DeepSpeed config written inline as JSON): "
                          f"give the path of a DeepSpeed json")
    # read as hand-edited files are (hand_edited): the codec's or the parser's words, and "mend it" for any fault,
    # until the hundred-and-twenty-third session
    try:
        config = read_json_file(Path(file), "copy it again from where it was written",
                                named=f"the DeepSpeed json {file}", reader="accelerate's DeepSpeed plugin",
                                bom_refused_by="accelerate's DeepSpeed plugin")
    except OSError as error:
        raise ConfigError(f"the accelerate config's deepspeed_config_file {file} cannot be read "
                          f"({error.__class__.__name__}: {error.strerror or error}): "
                          f"give the path of a DeepSpeed json") from None
    except DataError as error:  # not UTF-8, a byte-order mark (which accelerate's json.load refuses), not JSON
        raise ConfigError(str(error)) from None
    if not isinstance(config, dict):
        raise ConfigError(f"the DeepSpeed json {file} holds a {type(config).__name__}, not a JSON object of "
                          f"DeepSpeed settings")
    return config


def join_deepspeed_ranks_over_gloo() -> bool:
    """On a machine without GPUs, join the processes of a DeepSpeed launch into one gloo group.

    accelerate (1.15) takes the process-group backend of a DeepSpeed launch from the GPU; without one
    it picks none, still lets DeepSpeed join the processes, and then records each rank as a lone
    process (``launch_error`` refuses that run). Naming gloo up front, through the process-wide
    ``PartialState`` that the Accelerator then reuses, gives the run its real world size: ZeRO's
    sharding, its sharded checkpoints and the gathered export run on CPUs as on GPUs, which is how
    the tests check them. Returns whether it joined them (a DeepSpeed launch of several processes,
    no GPU, and ACCELERATE_USE_CPU unset: that variable switches DeepSpeed off).
    """
    import torch
    from accelerate import PartialState
    from accelerate.utils import parse_flag_from_env

    if (requested_strategy() != "DeepSpeed" or torch.cuda.is_available() or parse_flag_from_env("ACCELERATE_USE_CPU")
            or int(os.environ.get("WORLD_SIZE", "1")) < 2 or "LOCAL_RANK" not in os.environ):
        return False
    PartialState(backend="gloo")
    return True


def fallback_warning(accelerator) -> str | None:
    """A message when the launch asked for a sharded strategy that is not in effect, else None."""
    requested = _fallen_back_from(accelerator)
    if requested is None:
        return None
    # DeepSpeed needs no GPU: without ACCELERATE_USE_CPU it runs on CPU processes (tests/test_deepspeed_cpu.py)
    remedy = (" Launch without ACCELERATE_USE_CPU to run DeepSpeed on the CPU."
              if requested == "DeepSpeed" and parse_flag_from_env("ACCELERATE_USE_CPU") else "")
    # {requested} and why it is not in effect said once: the strategy line (strategy_in_effect), said after "asked
    # for DeepSpeed, but it is NOT in effect", told of DeepSpeed a second time ("in place of DeepSpeed", until the
    # ninety-third session)
    return (f"{_the_accelerate_config()} asked for {requested}, {_why_not_in_effect(requested)}, so it is NOT in "
            f"effect: this run is {_what_runs(accelerator)}, without the memory savings and sharded checkpoints of "
            f"{requested}.{remedy}")


def deepspeed_batch_settings(per_device: int, accum_steps: int, num_processes: int, max_grad_norm: float) -> dict:
    """The DeepSpeed config entries our experiment config decides.

    Left to accelerate, DeepSpeed's own gradient_accumulation_steps (1 unless set in the profile)
    replaces the resolved accumulation ("Using DeepSpeed's value"), and gradient_clipping defaults
    to 1.0; DeepSpeed also clips by itself (in its engine step), so the loop does not clip there.
    """
    return {"train_micro_batch_size_per_gpu": per_device, "gradient_accumulation_steps": accum_steps,
            "train_batch_size": per_device * accum_steps * num_processes,
            "gradient_clipping": float(max_grad_norm or 0.0)}


#: Where each entry deepspeed_batch_settings decides comes from in our experiment config.
_DECIDED_BY = {"train_micro_batch_size_per_gpu": "train.batch_size",
               "gradient_accumulation_steps": "train.grad_accum_steps or train.global_batch_size",
               "train_batch_size": "train.global_batch_size", "gradient_clipping": "optim.max_grad_norm"}


def configure_deepspeed(accelerator, per_device: int, accum_steps: int, max_grad_norm: float) -> str | None:
    """Write ``deepspeed_batch_settings`` into the DeepSpeed config, if DeepSpeed is in effect; returns
    a note naming the values of the user's profile (its ``deepspeed_config`` section, the DeepSpeed
    json, or ``accelerate launch --gradient_accumulation_steps``) that this replaces, else None.

    ``accelerate config`` asks for gradient accumulation and clipping, so a profile of a user's own
    holds them; replaced without a word, its accumulation of 4 trained at 1 (seventy-fourth session).
    accelerate leaves every entry the user did not set at "auto".
    """
    plugin = accelerator.state.deepspeed_plugin if accelerator.distributed_type == DistributedType.DEEPSPEED else None
    if plugin is None:
        return None
    config = plugin.deepspeed_config
    # HF-style DeepSpeed jsons carry these blocks; accelerate then refuses the loop's own optimizer
    # and schedule at prepare, a traceback after the whole data work (seventy-fifth session's probe)
    if blocks := [block for block in ("optimizer", "scheduler") if block in config]:
        raise ConfigError(f"the DeepSpeed config (the accelerate profile's deepspeed_config_file, or its "
                          f"deepspeed_config) has {' and '.join(repr(b) for b in blocks)} block(s), but the "
                          f"experiment config decides the optimizer and learning-rate schedule (optim.optimizer, "
                          f"optim.lr, optim.schedule ...): remove those blocks from the DeepSpeed config")
    ours = deepspeed_batch_settings(per_device, accum_steps, accelerator.num_processes, max_grad_norm)
    replaced = [f"{key} {given} -> {ours[key]} ({_DECIDED_BY[key]})" for key, given in
                ((key, config.get(key)) for key in ours)
                if given not in (None, "auto") and float(given) != float(ours[key])]
    config.update(ours)
    zero = config.get("zero_optimization")
    if isinstance(zero, dict) and zero.get("stage") == 3:
        # The exports gather ZeRO-3's partitions into whole weights (get_state_dict), which DeepSpeed
        # does only with this flag; accelerate config's default answer leaves it false, and the run
        # then trained and failed at its first export (seventy-fifth session's probe).
        # Older templates name it stage3_gather_fp16_weights_on_model_save; DeepSpeed refuses both
        # names together (an AssertionError in deepspeed.initialize), so the old one gives way.
        given = zero.pop(_GATHER_BEFORE, None) if _GATHER_BEFORE in zero else zero.get(_GATHER)
        if given not in (None, "auto", True):
            replaced.append(f"zero_optimization.{_GATHER} {given} -> true (the exports model/ and "
                            f"best_model/ gather the whole network)")
        zero[_GATHER] = True
    if not replaced:
        return None
    return (f"note: the experiment config decides DeepSpeed's batch and clipping, and the exports need whole "
            f"weights, so the accelerate profile's (or its DeepSpeed json's) values are replaced: "
            f"{'; '.join(replaced)}. Set those settings to change them")


_GATHER = "stage3_gather_16bit_weights_on_model_save"
_GATHER_BEFORE = "stage3_gather_fp16_weights_on_model_save"  # its name before DeepSpeed 0.6


def checkpoint_layout(accelerator) -> dict:
    """How ``accelerator.save_state`` lays out the model and optimizer under this launch.

    ``full``: one model.safetensors + optimizer.bin (one process, DDP, and the FSDP/DeepSpeed
    fallbacks); ``fsdp``: FSDP's (sharded or full) state dict files; ``deepspeed``: DeepSpeed's
    per-rank partitioned files. Stored with every checkpoint (checkpoint.LAYOUT_FILE).
    """
    state = accelerator.state
    layout = {"format": "full", "strategy": strategy_in_effect(accelerator), "num_processes": state.num_processes,
              "mixed_precision": accelerator.mixed_precision}
    if state.distributed_type == DistributedType.FSDP:
        plugin = state.fsdp_plugin
        state_dict_type = getattr(plugin.state_dict_type, "name", str(plugin.state_dict_type))
        layout.update(format="fsdp", fsdp_version=plugin.fsdp_version, state_dict_type=state_dict_type)
    elif state.distributed_type == DistributedType.DEEPSPEED:
        # bf16: DeepSpeed's optimizer files are named bf16_zero_pp_rank_*; fp32's and fp16's are not
        layout.update(format="deepspeed", zero_stage=state.deepspeed_plugin.zero_stage,
                      bf16=state.mixed_precision == "bf16")
    return layout


def resume_conflict(saved: dict, current: dict) -> tuple[str | None, str | None]:
    """(error, warning) for resuming a checkpoint of layout ``saved`` under layout ``current``.

    An error where the files cannot be loaded (another format, another FSDP state-dict type or
    version, another ZeRO stage or world size: DeepSpeed partitions the optimizer state per rank; bf16
    against another precision under DeepSpeed: its files have other names, FileNotFoundError on every
    rank until the seventy-second session);
    a warning where they load but the run will not continue bit-identically (another number of
    processes: the per-rank RNG states no longer correspond; train's data position is converted,
    resume.continue_the_data_stream).
    """
    where = f"it was saved by {saved.get('strategy', saved['format'])}, this launch runs {current['strategy']}"
    keys = {"full": ("format",), "fsdp": ("format", "fsdp_version", "state_dict_type"),
            "deepspeed": ("format", "zero_stage", "num_processes", "bf16")}[current["format"]]
    different = [k for k in keys if saved.get(k) != current.get(k)]
    if different:
        detail = ", ".join(f"{k} {saved.get(k)} -> {current.get(k)}" for k in different)
        return f"{where} ({detail})", None
    # Another precision resumed without a word (eighty-fourth session's probe); a checkpoint from before
    # the layout recorded it says so in its strategy line alone, and is not judged here.
    was, now = saved.get("mixed_precision"), current.get("mixed_precision")
    if was is not None and was != now and now == "fp16" and current["format"] != "deepspeed":
        # accelerate's load_state reads scaler.pt for an fp16 run, and a checkpoint of another precision has none
        return (f"{where} (mixed precision {was} -> fp16): the checkpoint holds no fp16 loss scale. Resume with "
                f"--mixed_precision {was}, or start a new run from its weights (train.init_from)"), None
    changes = []
    if saved["num_processes"] != current["num_processes"]:
        changes.append(f"{saved['num_processes']} -> {current['num_processes']} processes")
    if was is not None and was != now:
        changes.append(f"mixed precision {was} -> {now}")
    if changes:
        return None, (f"{where}: {', '.join(changes)}; training continues, but not exactly as the original launch "
                      f"would have")
    return None, None


def forget_the_last_accelerator() -> None:
    """Drop accelerate's process-wide state of an earlier run, so that the next ``Accelerator`` reads
    the precision (and the rest of the launch) afresh; the process group, in PartialState, is kept.

    accelerate reads the precision from the environment (``ACCELERATE_MIXED_PRECISION``, which
    ``accelerate launch`` sets), but only when that state is first built: a second Accelerator in the
    same process silently kept the first one's. Called by ``preparation.make_accelerator`` for every
    run: a ``Segmentation(precision="bf16").fit`` made the next ``Dataset.fit`` or ``train`` in the
    same notebook train in bf16 too (sixty-ninth session).
    """
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state(reset_partial_state=False)
    GradientState._reset_state()
    _undo_fsdp_promotion()


@contextlib.contextmanager
def next_accelerator_in(precision: str | None, given_as: str | None = None):
    """The next ``Accelerator`` built inside this block runs in ``precision`` (fp32, bf16, fp16), or
    in the launch's precision when it is None (``make_accelerator`` forgets the last one's). ``given_as``: how the
    user gave it, for the ranks' messages (:func:`precision_asked_by`)."""
    if precision is None:
        yield
        return
    named = {PRECISION_GIVEN_AS.lower(): given_as} if given_as else {}
    with patch_environment(accelerate_mixed_precision=MIXED_PRECISION[precision], **named):
        yield


def _undo_fsdp_promotion() -> None:
    """Put back the distributed type that accelerate's first FSDP state wrote over in PartialState.

    Building an AcceleratorState under an FSDP launch promotes the process-wide PartialState's type
    from the device's (``MULTI_GPU``) to ``FSDP``, and accelerate builds the FSDP plugin only for a
    state of the device's type. A second Accelerator in the same process (the next configuration of
    ``benchmark train``, a second ``fit``) then had no plugin: "'AcceleratorState' object has no
    attribute 'fsdp_plugin'" (accelerate 1.15, seen on an H200 in the thirtieth session).
    """
    from accelerate.state import PartialState

    shared = PartialState._shared_state
    if shared.get("distributed_type") != DistributedType.FSDP or shared.get("device") is None:
        return
    device_type = shared["device"].type
    name = "MULTI_GPU" if device_type == "cuda" else f"MULTI_{device_type.upper()}"  # MULTI_XPU, MULTI_CPU ...
    if name in DistributedType.__members__:
        shared["distributed_type"] = DistributedType[name]
