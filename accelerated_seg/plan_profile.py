"""What an accelerate config file (configs/accelerate/*.yaml, or one ``accelerate config`` wrote) asks
for, in ``plan``'s terms: the strategy row of its table, the precision and the number of processes.

    profile = read_launch_profile("configs/accelerate/fsdp.yaml")
    profile.strategy, profile.precision, profile.processes      # ("fsdp_full_shard", "bf16", 2)

The file is read as accelerate launch reads it, as training's ranks read it too (accelerate_profile.read_profile:
a .json as JSON, an older accelerate's keys rewritten); nothing is launched. A
profile that plan does not model (HYBRID_SHARD, offloading other than ZeRO-3's) has no strategy and
says why, so the table is still printed, without a row marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .accelerate_profile import read_profile_as_written
from .config import ConfigError
from .deepspeed_precision_blocks import PRECISION_BLOCKS, switched_on
from .strategy import (COPIED_SECTIONS, JSON_DECIDES, MIXED_PRECISION, PRECISION_OF_MIXED, deepspeed_json_problem,
                       fields_beside_a_json_problem, fsdp2_sharding_problem, mixed_precision_beside_a_json_problem,
                       parallelism_problem, precision_against_the_json_problem, read_deepspeed_json,
                       unknown_section_keys, unlaunched_distributed_type_problem, with_the_closest, zero_stage_problem)

#: FSDP1's sharding strategies that plan models, by their row.
FSDP1_ROWS = {"FULL_SHARD": "fsdp_full_shard", "SHARD_GRAD_OP": "fsdp_shard_grad_op", "NO_SHARD": "fsdp_no_shard"}


@dataclass(frozen=True)
class LaunchProfile:
    path: str
    strategy: str | None  # a row of plan.STRATEGIES, or None where plan does not model the profile
    precision: str  # fp32, bf16 or fp16
    processes: int  # over all machines: the processes a global batch is split over
    not_modelled: str | None = None  # why strategy is None
    on_cpu: bool = False  # use_cpu or MULTI_CPU: a CPU run, for which plan's GPU memory says nothing
    fsdp1: bool = False  # FSDP version 1, which training refuses for a network with modules registered twice

    def describe(self) -> str:
        what = self.strategy or f"a strategy plan does not model ({self.not_modelled})"
        cpu = ("; it runs on the CPU, and what follows is GPU memory, for the same run on GPUs (a CPU run "
               "is bounded by host memory)") if self.on_cpu else ""
        return f"{self.path}: {what}, {self.processes} process(es), {self.precision}{cpu}"


#: plan's --precision, which stands for the launch's --mixed_precision, as strategy's messages name a precision's
#: setting (``strategy.precision_against_the_json_problem``).
PLAN_PRECISION = "--precision {precision} (accelerate launch's --mixed_precision {mixed})"


def read_launch_profile(path: str | Path, precision: str | None = None) -> LaunchProfile:
    """The strategy, precision and processes of an accelerate config file, for a launch asking for ``precision``
    (plan's --precision: fp32, bf16, fp16), else for the profile's own.

    Raises:
        ConfigError: the file is missing or not a mapping (accelerate_profile.read_profile); a key accelerate
            launch does not know; a parallelism_config of tensor, context or sequence parallel sizes other than
            1; a distributed_type, mixed_precision or num_processes that a launch of this package cannot take (fp8,
            say); then, the profile's own errors said first, a DeepSpeed json it names
            that cannot be read, or that training would refuse for what it holds (``_deepspeed_problem``), named
            with the profile; last, a ``precision`` that json's bf16/fp16 blocks contradict, in training's words
            (``strategy.precision_against_the_json_problem``): plan printed a table "for fp16, as --precision asks"
            of a launch training refuses, until the ninety-eighth session.
    """
    where = str(path)
    written, profile = read_profile_as_written(path, f"--accelerate-config {where}")  # written: as its file holds it
    # the profile's own errors first, then its DeepSpeed json's: a typo'd key beside a missing json was
    # refused for the json alone, which did not name the profile (ninety-fifth session)
    mixed = profile.get("mixed_precision")
    if mixed is False:  # YAML 1.1 reads an unquoted `no` as false; accelerate's launcher then fails on it
        raise ConfigError(f"{where}: mixed_precision: no is read by YAML as false, which accelerate launch cannot "
                          f"take: write it quoted, mixed_precision: 'no'")
    named_json = _deepspeed_json_file(profile)
    # before the keys: fp8_config's as `accelerate config` writes them matter to no run (that fp8 refusal came
    # second: h15's probe); beside a DeepSpeed json too, as training's ranks refuse the fp8 the launch exports first
    _refuse_a_precision_not_trained(where, mixed)
    if problem := unknown_keys_problem(profile) or parallelism_problem(profile.get("parallelism_config") or {}):
        raise ConfigError(f"{where}: {problem}")
    processes = profile.get("num_processes", 1)
    if not isinstance(processes, int) or isinstance(processes, bool) or processes < 1:
        raise ConfigError(f"{where}: num_processes must be a whole number >= 1, got {processes!r}")
    try:
        deepspeed_json = None if named_json is None else read_deepspeed_json(named_json)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None
    if problem := _deepspeed_problem(profile, named_json, deepspeed_json, written) or (
            precision and deepspeed_json is not None and precision_against_the_json_problem(
                named_json, deepspeed_json, MIXED_PRECISION[precision], PLAN_PRECISION)):
        raise ConfigError(f"{where}: {problem}")
    precision = _refuse_a_precision_not_trained(where, _json_precision(deepspeed_json) or mixed)
    strategy, not_modelled = _row(profile, where, deepspeed_json)
    on_cpu = bool(profile.get("use_cpu")) or str(profile.get("distributed_type")) == "MULTI_CPU"
    fsdp1 = str(profile.get("distributed_type")) == "FSDP" and int((profile.get("fsdp_config") or {}).get(
        "fsdp_version", 1)) == 1
    return LaunchProfile(where, strategy, precision, processes, not_modelled, on_cpu, fsdp1)


def unknown_keys_problem(profile: dict) -> str | None:
    """Why accelerate launch would not take a key of the profile, else None: one at the top it refuses with a
    traceback; one in a section whose keys it copies onto its options (fsdp_config, deepspeed_config, dynamo_config,
    fp8_config, ...: ``strategy.COPIED_SECTIONS``) it drops without a word (``strategy.unknown_section_keys``), and
    the run shards or compiles otherwise than asked. Each is named with the known key it is closest to."""
    from accelerate.commands.config.config_args import ClusterConfig, SageMakerConfig
    from accelerate.utils import ComputeEnvironment

    cluster = profile.get("compute_environment", ComputeEnvironment.LOCAL_MACHINE) == ComputeEnvironment.LOCAL_MACHINE
    known = set((ClusterConfig if cluster else SageMakerConfig).__dataclass_fields__)
    if unknown := sorted(map(str, set(profile) - known)):
        slipped = {key: section for key in unknown if (section := _section_of(key, profile))}
        said = []
        if others := [with_the_closest(key, known) for key in unknown if key not in slipped]:
            said.append(f"{', '.join(others)}, which accelerate launch does not know and refuses: correct or remove "
                        f"{'them' if len(others) > 1 else 'it'} (`accelerate config` writes the keys it knows)")
        for section in sorted(set(slipped.values())):
            keys = [key for key in slipped if slipped[key] == section]
            them = "them" if len(keys) > 1 else "it"
            said.append(f"{', '.join(keys)} at the top, where accelerate launch refuses {them}: "
                        f"{'keys' if len(keys) > 1 else 'a key'} of {section} (an indentation slip?), so indent "
                        f"{them} under {section}, as its other keys are")
        return f"the accelerate config has {'; and '.join(said)}"
    if not cluster:  # the launch copies the sections' keys onto its options on a local machine only
        return None
    for section in COPIED_SECTIONS:
        if isinstance(keys := profile.get(section), dict) and (problem := unknown_section_keys(section, keys)):
            return problem
    return None


#: How the keys of a section whose keys the launch copies onto its options begin (``strategy.COPIED_SECTIONS``), as
#: `accelerate config` writes them: a top-level key that begins so and that the section knows, where the profile has
#: the section, is one of its keys indented out of it, ``dynamo_mode`` below ``dynamo_config:``. Told as a key the
#: launch does not know, with no word of the section, until the hundred-and-twenty-third session's review.
_SECTION_KEYS_BEGIN = {"fsdp_config": ("fsdp_",), "dynamo_config": ("dynamo_",), "fp8_config": ("fp8_",),
                       "deepspeed_config": ("deepspeed_", "zero", "offload_", "gradient_"),
                       "megatron_lm_config": ("megatron_lm_",), "mpirun_config": ("mpirun_",),
                       "parallelism_config": ("parallelism_config_",)}


def _section_of(key: str, profile: dict) -> str | None:
    """The section of ``profile`` (:data:`_SECTION_KEYS_BEGIN`) a top-level ``key`` the launch refuses there is a key
    of, else None. A section the profile lacks is not named: a DDP profile's top-level gradient_accumulation_steps,
    which a DeepSpeed section knows, is a setting of the experiment config (train.grad_accum_steps), not a slip."""
    return next((section for section, begins in _SECTION_KEYS_BEGIN.items()
                 if isinstance(profile.get(section), dict) and key.startswith(begins)
                 and unknown_section_keys(section, [key]) is None), None)


def _deepspeed_json_file(profile: dict) -> str | None:
    """The DeepSpeed json a DeepSpeed profile names (``deepspeed_config_file``), else None. Its ZeRO stage,
    offloading and precision are the launch's: plan read such a profile as "ZeRO stage None", fp32,
    where training ran bf16 ZeRO-2 (eighty-fourth session's probe)."""
    if str(profile.get("distributed_type")) != "DEEPSPEED":
        return None
    file = (profile.get("deepspeed_config") or {}).get("deepspeed_config_file")
    return file if file not in (None, "none") else None


def _deepspeed_problem(profile: dict, named_json: str | None, deepspeed_json: dict | None,
                       written: dict) -> str | None:
    """Why accelerate or DeepSpeed would refuse a DeepSpeed profile's ZeRO settings, as training's ranks say it
    (``strategy.deepspeed_launch_error``), else None: a zero_stage outside 0 to 3; beside a json, profile fields the
    json decides, a json without zero_optimization or with a stage outside 0 to 3. Until the ninety-fifth session
    plan printed these as a strategy it does not model ("ZeRO stage 4"), and training refused them naming the json
    alone. A top-level mixed_precision beside a json, which the launch refuses, or ignores where it is given
    --mixed_precision (``strategy.mixed_precision_beside_a_json_problem``), after those fields and before the json's
    content, as the ranks say them; until the ninety-sixth session plan passed it, and took its precision. ``written``
    is the profile as its file holds it, whose own precision key that message quotes."""
    if str(profile.get("distributed_type")) != "DEEPSPEED":
        return None
    section = profile.get("deepspeed_config") or {}
    if named_json is None:
        return zero_stage_problem(section["zero_stage"]) if "zero_stage" in section else None
    beside = [field for field in map(str, section) if field in JSON_DECIDES]
    return (fields_beside_a_json_problem(named_json, beside)
            or mixed_precision_beside_a_json_problem(named_json, profile.get("mixed_precision"), deepspeed_json,
                                                     written)
            or deepspeed_json_problem(named_json, deepspeed_json))


def _refuse_a_precision_not_trained(where: str, mixed) -> str:
    """plan's precision for the launch's mixed_precision (None, "no", "bf16", "fp16"), else ConfigError."""
    if (precision := PRECISION_OF_MIXED.get(str(mixed or "no"))) is None:
        raise ConfigError(f"{where}: mixed_precision: {mixed!r} is not one this package trains with; use no, bf16 "
                          f"or fp16")
    return precision


def _json_precision(config: dict | None) -> str | None:
    """The mixed precision a DeepSpeed json's bf16/fp16 block switches on (accelerate takes it from there), else
    None (the profile's own, "no" by default): "enabled": "true" as true, as accelerate and DeepSpeed read it (plan
    read it as fp32 until the ninety-eighth session)."""
    return next((name for name in PRECISION_BLOCKS if config is not None and switched_on(config, name)), None)


def _sync_module_states_problem(fsdp: dict) -> str | None:
    """Why accelerate launch refuses the profile's ``fsdp_config`` for its ``fsdp_sync_module_states: false``,
    else None. The launch takes ``fsdp_cpu_ram_efficient_loading`` as true where the profile leaves it out, and
    refuses that without the sync, under FSDP1 and FSDP2 alike, with a traceback before any of our code runs
    (a probe of the ninety-third session): plan marked the profile's row as fitting. Read as the launch reads
    them (a value's truth, the launch's default where it is missing)."""
    if fsdp.get("fsdp_sync_module_states", True) or not fsdp.get("fsdp_cpu_ram_efficient_loading", True):
        return None
    loading = ("sets fsdp_cpu_ram_efficient_loading: true" if "fsdp_cpu_ram_efficient_loading" in fsdp else
               "leaves out fsdp_cpu_ram_efficient_loading, true by accelerate launch's default")
    return (f"the accelerate config's fsdp_config sets fsdp_sync_module_states: false and {loading}; that loading "
            f"needs the sync, so accelerate launch refuses the profile (\"When using --fsdp_cpu_ram_efficient_loading "
            f"set --fsdp_sync_module_states to True\"). Add fsdp_cpu_ram_efficient_loading: false to fsdp_config "
            f"(each rank then keeps the weights it built, which training checks are alike), or set "
            f"fsdp_sync_module_states: true")


def _row(profile: dict, where: str, deepspeed_json: dict | None = None) -> tuple[str | None, str | None]:
    """plan's row for the profile's strategy, or (None, why not)."""
    kind = str(profile.get("distributed_type", "NO"))
    if kind == "MULTI_CPU" and profile.get("num_processes", 1) != 1 \
            and not (profile.get("mpirun_config") or {}).get("mpirun_hostfile"):
        return None, ("MULTI_CPU without mpirun_config.mpirun_hostfile: accelerate launch starts one process for it, "
                      "not num_processes (ACCELERATE_USE_CPU=true with ddp.yaml runs DDP over gloo)")
    if kind in ("NO", "MULTI_GPU", "MULTI_CPU"):  # one process, or DDP
        return "ddp", None
    if kind == "FSDP":
        fsdp = profile.get("fsdp_config") or {}
        if problem := _sync_module_states_problem(fsdp):
            raise ConfigError(f"{where}: {problem}")
        if fsdp.get("fsdp_offload_params"):
            return None, "FSDP with fsdp_offload_params"
        if int(fsdp.get("fsdp_version", 1)) == 2:  # FSDP2 shards fully; without resharding it keeps them whole
            # training refuses an FSDP1 strategy that FSDP2 would not run (strategy.fsdp2_sharding_error)
            if problem := fsdp2_sharding_problem(fsdp.get("fsdp_sharding_strategy", "FULL_SHARD"),
                                                 fsdp.get("fsdp_reshard_after_forward", True)):
                raise ConfigError(f"{where}: {problem}")
            return ("fsdp_full_shard" if fsdp.get("fsdp_reshard_after_forward", True) else "fsdp_shard_grad_op"), None
        # accelerate config writes FSDP1's strategy as fsdp_reshard_after_forward (strategy.honour_fsdp1_sharding)
        written = str(fsdp.get("fsdp_reshard_after_forward", "")).upper()
        sharding = str(fsdp.get("fsdp_sharding_strategy", written if written in FSDP1_ROWS or written.startswith(
            "HYBRID") else "FULL_SHARD"))
        if sharding not in FSDP1_ROWS:
            return None, f"FSDP's {sharding}: read fsdp_full_shard with --gpus set to one node's GPUs"
        return FSDP1_ROWS[sharding], None
    if kind == "DEEPSPEED":
        deepspeed = profile.get("deepspeed_config") or {}
        stage = deepspeed.get("zero_stage")
        offloads = {str(deepspeed.get(key, "none")) for key in ("offload_optimizer_device", "offload_param_device")}
        if deepspeed_json is not None:  # the json decides these; accelerate refuses them beside it
            zero = deepspeed_json.get("zero_optimization") or {}
            stage = zero.get("stage", 0)
            offloads = {str((zero.get(f"offload_{what}") or {}).get("device", "none"))
                        for what in ("optimizer", "param")}
        if stage == 3 and offloads == {"cpu"}:
            return "zero3_offload", None
        if offloads - {"none"}:
            return None, f"ZeRO-{stage} with offloading to {', '.join(sorted(offloads - {'none'}))}"
        if stage in (1, 2, 3):
            return f"zero{stage}", None
        return None, f"ZeRO stage {stage!r}"
    # the value as the file holds it (a number unquoted), not its str()
    raise ConfigError(f"{where}: {unlaunched_distributed_type_problem(profile.get('distributed_type'))}")
