"""``accelerated-seg plan``: plan.py's per-GPU memory table and proposals for the settings given, each resolved
from the option, else the experiment config (``--config``), else the default, with an accelerate profile's
strategy row marked.

The options are checked (plan_checks.py) before plan.py imports torch and MONAI, inside ``_planned``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from .result_file_stop import ResultFile
from .written_since import said_if_stopped


def run(args, _) -> int:
    """The plan said, and with --json written; a stop (Ctrl-C, SIGTERM, SIGUSR1) then says whether that file is
    whole (result_file_stop.py: nothing said until the hundred-and-twenty-first session). Without --json plan writes
    nothing, and its stop says nothing: its table, printed, is all it makes."""
    if not args.json:
        return _planned(args)
    return said_if_stopped("plan", lambda noted: ResultFile(args.json, noted, again="writes it"),
                           lambda _: _planned(args))


def _planned(args) -> int:
    """plan's table and proposals said, and written to --json where given; its status, 2 where a setting is
    refused."""
    from .config import ConfigError, check_network_name
    from .files import check_output_file

    try:  # before torch and MONAI import
        if args.config is None and (args.model is None or args.patch is None):
            raise ConfigError("give --model and --patch, or --config with an experiment YAML (configs/*.yaml)")
        if args.model is not None:
            check_network_name(args.model, "model.name (--model)")
        _check_plan_options_given(args)
        if args.json:
            check_output_file(args.json, "--json", result_key="strategies")
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from . import plan

    try:
        args = _plan_settings(args)
        plan.check_settings(args.batch, args.gpus, args.gpu_memory, args.global_batch)
        if args.measure:
            plan.require_cuda()
        # measured at the table's batch: a BatchNorm network whose deepest stage is one voxel cannot train on
        # one patch, and a plan of the run training accepts at batch 8 was refused for batch 1's step
        facts = plan.measure_model(args.model, args.patch, args.precision, args.in_channels, args.classes,
                                   args.model_args, args.optim, smallest_batch=args.batch)
        estimates = plan.estimate(facts, args.batch, args.gpus)
        proposals = plan.propose(facts, args.gpus, args.gpu_memory, args.global_batch)
        comparison = None
        if args.measure:
            comparison = plan.compare_with_measured(facts, args.batch, plan.measure_peak_on_gpu(facts, args.batch))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.config:
        print(f"from {args.config}: model {args.model}, patch {'x'.join(map(str, args.patch))}, batch {args.batch}"
              f"{f', global batch {args.global_batch}' if args.global_batch else ''}, {args.in_channels} image "
              f"channel(s), {args.classes} {args.outputs_are}")
        if args.activation_checkpointing:  # training's memory refusal advises it, and names plan
            print(f"note: {args.config} sets train.activation_checkpointing, which this table does not model: its "
                  f"activ and work columns are without it, more than the run keeps (an upper bound)")
    marked = args.profile.strategy if args.profile else None
    refusal = replaced = None
    if args.profile:
        replaced = _replaced_by_command_line(args.profile, args.gpus, args.precision)
        print(f"accelerate profile {args.profile.describe()}{_said_of_replaced(replaced)}")
        if refusal := _fsdp1_refusal(args.profile, facts):  # the row would say it fits a run that cannot start
            print(refusal)
            marked = None
    print(plan.format_table(facts, estimates, args.batch, args.gpus, args.gpu_memory, marked))
    print(plan.format_proposals(proposals, args.gpus, args.global_batch, marked))
    if comparison:
        print(plan.format_comparison(comparison))
    if args.json:
        result = plan.to_dict(facts, estimates, args.batch, args.gpus, args.gpu_memory, proposals, args.global_batch,
                              comparison)
        if args.activation_checkpointing:
            result["activation_checkpointing"] = "set by the config, not modelled"
        if args.profile:
            result["accelerate_profile"] = dataclasses.asdict(args.profile) | (
                {"refused_by_training": refusal} if refusal else {}) | (
                {"replaced_by_command_line": replaced} if replaced else {})
        from .benchmark import provenance
        from .files import write_text_atomically

        # which machine and stack (with --measure: the GPU measured) and which command, as a benchmark's JSON
        write_text_atomically(args.json, json.dumps(provenance(args.command_line) | result, indent=1))
        print(f"wrote {args.json}")
    return 0


def _check_plan_options_given(args) -> None:
    """The numbers given as plan's options, checked before torch and MONAI import: a --batch 0 waited for them,
    5-13 s on a busy 2-core machine, to be refused. Each is checked again once the config's settings are in."""
    from .plan_checks import check_network_inputs, check_settings

    batch, gpus = (1 if value is None else value for value in (args.batch, args.gpus))  # 1: not given, nothing amiss
    check_settings(batch, gpus, args.gpu_memory)
    if args.config is not None and args.gpus is not None and (args.global_batch is None or args.global_batch >= 1):
        # the config's batch over --gpus, in training's words: over --gpus alone, a config's batch_size 2 on --gpus
        # 3 --global-batch 8 was told to choose "a multiple of 3", which training refuses too (6 splits), and a
        # config's own global batch that does not split waited for the imports (8-19 s on a busy 2-core machine)
        from .config import load_config  # YAML and dataclasses: no torch

        _check_config_batch(load_config(args.config), args, gpus)
    check_settings(batch, gpus, args.gpu_memory, args.global_batch)
    check_network_inputs(args.patch, args.in_channels, args.classes)


def _runs_batch(args) -> bool:
    """Whether the table's per-GPU batch is the config's run's (``--config`` without ``--batch``), which
    ``_run_batch`` resolves as training does, and so refuses a global batch in training's words."""
    return args.config is not None and args.batch is None


# The option that replaces each of an accelerate profile's settings for plan's table.
_REPLACING_OPTION = {"processes": "--gpus", "precision": "--precision"}


def _replaced_by_command_line(profile, gpus: int, precision: str) -> dict:
    """The profile's settings that --gpus and --precision replaced for the table, with the table's values
    (the profile's own stay in its JSON beside them, as on its line)."""
    table = {"processes": gpus, "precision": precision}
    return {setting: value for setting, value in table.items() if value != getattr(profile, setting)}


def _said_of_replaced(replaced: dict) -> str:
    """The profile line's end for ``replaced``: "; the table is for 4 GPU(s), as --gpus asks". The line
    said the profile's process count alone above a table for --gpus' until the ninety-first session."""
    if not replaced:
        return ""
    values = " and ".join(f"{value} GPU(s)" if setting == "processes" else str(value)
                          for setting, value in replaced.items())
    options = " and ".join(_REPLACING_OPTION[setting] for setting in replaced)
    return f"; the table is for {values}, as {options} ask{'s' if len(replaced) == 1 else ''}"


def _fsdp1_refusal(profile, facts) -> str | None:
    """What training says of an FSDP1 profile for a network that registers modules twice (DynUNet,
    unet3d_mlperf): ``plan`` marked the profile's row as fitting a run that stops before it starts."""
    from .models import meta_network
    from .wrapping import shared_modules

    if not profile.fsdp1 or not (again := shared_modules(meta_network(facts.spec))):
        return None
    return (f"training refuses this profile for {facts.spec.name}: FSDP1 cannot wrap a network that registers "
            f"modules twice ({again[0]} and {len(again) - 1} more); an FSDP2 profile (configs/accelerate/fsdp2.yaml) "
            f"shards as the fsdp_full_shard row counts")


def _plan_settings(args) -> argparse.Namespace:
    """``plan``'s arguments with each setting resolved: the option given, else the experiment config's
    (``--config``), else the default. ``model_args`` comes back parsed.

    Without ``--config``, ``--model`` and ``--patch`` are given (``run`` refuses it otherwise).

    Raises:
        ConfigError: a config that does not load; a dataset that cannot be read for channels and
            classes that were not given.
    """
    from . import plan
    from .config import OptimConfig, load_config
    from .plan_profile import read_launch_profile

    profile = read_launch_profile(args.accelerate_config, args.precision) if args.accelerate_config else None
    resolved = vars(args) | {"profile": profile, "model_args": plan.parse_model_args(args.model_args),
                             "precision": args.precision or (profile.precision if profile else "bf16"),
                             "gpus": args.gpus if args.gpus is not None else (profile.processes if profile else 1)}
    gpus = resolved["gpus"]
    # the GPUs first: the batch needs them. The global batch over them where the table's batch is the run's is
    # _run_batch's, with the config's batch_size and grad_accum_steps: "x 1 accumulation step(s); choose a
    # multiple of 8" was said of a config's global batch 12 and grad_accum_steps 2, which needs 16
    plan.check_settings(1, gpus, args.gpu_memory, None if _runs_batch(args) else args.global_batch)
    defaults, from_config, optim = {"batch": 2, "in_channels": 1, "classes": 3}, {}, OptimConfig()
    resolved["outputs_are"] = "classes"
    if args.config is not None:
        cfg = load_config(args.config)
        optim = cfg.optim
        run_batch = _check_config_batch(cfg, args, gpus)
        from_config = {"model": cfg.model.name, "patch": list(cfg.data.patch_size), "batch": run_batch,
                       "global_batch": cfg.train.global_batch_size,
                       # the config's model.args are its network's: not another --model's
                       "model_args": cfg.model.args if args.model in (None, cfg.model.name) else None}
        if args.in_channels is None or args.classes is None:
            from_config["in_channels"], from_config["classes"], regions = _channels_and_classes(cfg, args.config)
            # a region model's outputs are its regions, fewer than the dataset's classes (BraTS: 3 of 4)
            resolved["outputs_are"] = "regions" if regions and args.classes is None else "classes"
    for key in ("model", "patch", "batch", "global_batch", "model_args", "in_channels", "classes"):
        if resolved[key] is None:
            resolved[key] = from_config.get(key) if from_config.get(key) is not None else defaults.get(key)
    resolved["optim"] = dataclasses.replace(optim, optimizer=args.optimizer) if args.optimizer else optim
    # not modelled (the table counts every activation): said beside the table rather than ignored
    resolved["activation_checkpointing"] = bool(args.config is not None and cfg.train.activation_checkpointing)
    return argparse.Namespace(**resolved)


def _check_config_batch(cfg, args, gpus: int) -> int | None:
    """The config's batch settings checked over ``gpus`` GPUs; returns the run's per-GPU batch where the table's
    is the run's (no --batch), else None. With --batch, only a config's global batch that --global-batch does not
    replace is checked, as the proposals' (a config whose global batch cannot split over --gpus was refused even
    with --batch and --global-batch given, until commit b77a27fd)."""
    if _runs_batch(args):
        return _run_batch(cfg, gpus, args.config, args.global_batch)
    if args.global_batch is None:
        _check_config_global_batch(cfg.train.global_batch_size, gpus, args.config)
    return None


def _run_batch(cfg, gpus: int, config_path: str, global_batch: int | None = None) -> int:
    """The per-GPU batch the config's run would train with on ``gpus`` GPUs: its train.batch_size, or
    what its train.global_batch_size (and grad_accum_steps) resolve to, as training resolves them, with
    ``global_batch`` (--global-batch) in place of train.global_batch_size where given, as the option wins over
    the config. Until the hundred-and-twenty-seventh session the config's decided: a config's global batch of 16
    on --gpus 8 --global-batch 64 gave a table at 2 per GPU for a run that trains 8, and one that --global-batch
    replaced was refused for not splitting over --gpus, named as the config's."""
    from .config import ConfigError
    from .schedule import resolve_batch

    t, o = cfg.train, cfg.optim
    given = global_batch is not None
    try:
        return resolve_batch(t.batch_size, global_batch if given else t.global_batch_size, t.grad_accum_steps, gpus,
                             o.lr, o.base_batch_size, o.lr_scaling).per_device
    except ConfigError as error:
        said = str(error).replace("train.global_batch_size", "train.global_batch_size (--global-batch)", 1) \
            if given else str(error)
        whole = global_batch if given else t.global_batch_size
        if whole is not None and whole >= 1 and whole % gpus:  # the proposals cannot split it either: --batch
            way = "" if given else " (or give the table's global batch with --global-batch)"  # would be refused
        else:
            way = " (or give the table's per-GPU batch with --batch)"
        raise ConfigError(f"{config_path} on --gpus {gpus}: {said}{way}") from None


def _check_config_global_batch(global_batch: int | None, gpus: int, config_path: str) -> None:
    """The config's train.global_batch_size over ``gpus`` GPUs, named as the config's. With --batch it was
    refused as an --global-batch that was not given, and without, the error advised --batch, which does not
    split it over the GPUs."""
    from .config import ConfigError
    from .schedule import resolve_batch

    if global_batch is None:
        return
    try:
        resolve_batch(None, global_batch, None, gpus, lr=1.0, base_batch_size=1, lr_scaling="none")
    except ConfigError as error:
        raise ConfigError(f"{config_path} on --gpus {gpus}: {error} (or give the table's global batch with "
                          f"--global-batch)") from None


def _channels_and_classes(cfg, config_path: str) -> tuple[int, int, bool]:
    """The image channels and the network's outputs (classes, or regions) of the config's dataset, from its
    description only (no image is read, and the embedded demo data is not written), and whether the outputs
    are regions (``data.regions``, or an nnU-Net dataset.json's own)."""
    from .config import ConfigError
    from .data.errors import DataError
    from .data.prepare import load_manifest
    from .data.synthetic import LABELS

    regions = len(cfg.data.regions) if cfg.data.regions else None  # one output each, over the dataset's
    if cfg.data.dataset == "synthetic":
        return 1, regions or (2 if cfg.data.binarize else len(LABELS)), regions is not None
    try:
        manifest = load_manifest(cfg.data, cfg.train.output_dir)
    except (DataError, OSError) as error:
        raise ConfigError(f"{config_path}: the image channels and classes come from its dataset, which cannot be "
                          f"read here ({error}); give --in-channels and --classes") from None
    return manifest.num_channels, regions or manifest.num_outputs, bool(regions or manifest.regions is not None)
