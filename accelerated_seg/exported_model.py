"""The exported model: a folder of ``model.safetensors`` (the full-precision state dict of the
unwrapped network) and ``config.json`` (MONAI class and arguments, labels, patch size, spacing,
normalisation), which loads into the plain MONAI network with ``strict=True`` (``load_exported``).

A tensor that the network registers under two names (DynUNet's ``skip_layers`` repeat its encoder
and decoder) is written once; ``load_weights`` (or ``safetensors.torch.load_model``) fills the
other name. Training writes it with ``export_model``, on every rank (under FSDP or ZeRO-3 the
weights are gathered); the files are written by the main process into a sibling folder that is then
swapped in, so a reader never sees half an export.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

import torch
from accelerate.utils import DistributedType
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from .checkpoint import not_saved
from .config import is_whole_number
from .data.cases import channel_names_fit
from .data.errors import DataError
from .data.formats.paths import NIFTI_SUFFIXES
from .data.preprocess_settings import CASES_MEDIAN_KEY, SPACING_SET_KEY, SPACING_UNIT_KEY, SPATIAL_UNITS
from .files import (by_a_utf8_name, finish_an_interrupted_replace, folders_to_make, remove_if_empty, replace_folder,
                    sync_folder, with_the_usual_mode, written_through)
from .model_folders import Names, read_export_json, unreadable_safetensors
from .models import ModelSpec, build_from_spec
from .parameters_on_meta import parameters_on_meta
from .ranks import on_main


EXPORT_FORMAT_VERSION = 1

# The keys of an export's config.json that loading it and predicting with it cannot do without.
EXPORT_MODEL_KEYS = ("name", "monai_class", "args")
EXPORT_KEYS = ("in_channels", "num_classes", "patch_size")


def export_model(accelerator, model, spec: ModelSpec | None, metadata: dict, out_dir: Path, *,
                 aliases: dict[str, str], step: int, names: Names = Names()) -> Path | None:
    """Write ``model.safetensors`` + ``config.json`` for the plain network; call on every rank.

    ``step``: the optimizer step of these weights, recorded in ``config.json``.

    ``spec`` None (a user's own network, ``train.fit``): ``config.json`` names only its class.
    ``names``: how a failed write's message says to resume (``FIT_NAMES`` for fit).
    ``aliases``: ``shared_tensor_names`` of the network before ``prepare``. Not of the prepared one:
    under FSDP1 the units nested inside the root stay wrapped after ``unwrap_model``, and their
    state-dict hooks all-gather, which the main process alone would start while the others wait.
    """
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import _CHECKPOINT_PREFIX

    state = accelerator.get_state_dict(model)  # collective: gathers FSDP/ZeRO-3 shards on every rank
    # ZeRO-3's consolidated state dict names parameters as named_parameters does, with the
    # activation-checkpoint wrappers' prefix that every other state dict leaves out.
    state = {key.replace(_CHECKPOINT_PREFIX, ""): value for key, value in (state or {}).items()}
    if accelerator.distributed_type == DistributedType.DEEPSPEED:
        _take_deepspeed_master_weights(accelerator, model, state)
    model_class = type(accelerator.unwrap_model(model))
    description = spec.to_dict() if spec else {"class": f"{model_class.__module__}.{model_class.__qualname__}"}

    def write() -> Path | None:
        try:
            write_state_as_export(state, description, metadata, out_dir, aliases=aliases, step=step)
        except NonFiniteWeights as error:  # said, not raised: training goes on
            accelerator.print(f"warning: {error}; an earlier export there is kept")
            return None
        except (OSError, SafetensorError) as error:  # a full disk: safetensors' traceback before the 72nd session
            raise not_saved(error, f"the export {out_dir.name}/ (an earlier one there is kept)", out_dir.parent,
                             out_dir.parent / "checkpoints", names) from error
        return out_dir

    # on_main: a failed write raises on every rank, not on the main one alone while the others wait
    return on_main(accelerator, write)


class NonFiniteWeights(ValueError):
    """An export asked of weights that hold NaN or infinite values."""


def write_state_as_export(state: dict, model: dict, metadata: dict, out_dir: Path, *, aliases: dict[str, str],
                          step: int) -> None:
    """A network's full state dict written as an export: float32 on the CPU, a tensor registered twice
    under its first name only, and config.json with the step and the second names. The one rule for
    what an export holds, for training (``export_model``) and ``accelerated-seg export`` alike."""
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous() for k, v in state.items() if k not in aliases}
    # A diverged network exported as best_model/ at its first validation, all 63 tensors NaN, from a
    # bf16 run on the CPU (sixty-eighth session): no prediction could come of it
    if broken := [name for name, tensor in tensors.items() if not torch.isfinite(tensor).all()]:
        raise NonFiniteWeights(f"{len(broken)} of {len(tensors)} tensors of the weights at step {step} hold NaN or "
                               f"infinite values (the first: {broken[0]}), so nothing was written to {out_dir}")
    write_export(tensors, model, {**metadata, "step": step, **({"shared_tensors": aliases} if aliases else {})},
                 out_dir)


def _take_deepspeed_master_weights(accelerator, model, state: dict) -> None:
    """Put the fp32 master weights into ``state`` (on the main process); every rank takes part.

    DeepSpeed's engine casts the module itself to bf16/fp16, so ``get_state_dict`` gives 16-bit
    weights (stored as float32 they are still rounded to 8 bits of mantissa); the fp32 weights the
    optimizer updates live in the ZeRO optimizer, partitioned over the ranks. Each parameter is one
    all-reduce (ZeRO-1/2) or all-gather (ZeRO-3), in ``parameters()`` order on every rank. A
    parameter the optimizer does not hold (frozen) has none and keeps its 16-bit value. Each goes
    under its state-dict name: without the activation-checkpoint wrappers' prefix, which
    ``named_parameters`` keeps, and the first of two names of a twice-registered tensor.
    """
    from deepspeed.utils import safe_get_full_fp32_param

    module = accelerator.unwrap_model(model)
    names: dict[int, str] = {}
    for name, value in module.state_dict(keep_vars=True).items():
        names.setdefault(id(value), name)
    for parameter in module.parameters():
        full = safe_get_full_fp32_param(parameter)
        if full is not None and accelerator.is_main_process:
            state[names[id(parameter)]] = full


def shared_tensor_names(model: torch.nn.Module) -> dict[str, str]:
    """{second name: first name} for each parameter or buffer that ``model`` registers under more
    than one name.

    safetensors refuses to write tensors that share memory, and a name written twice would be two
    tensors when read back. MONAI's DynUNet (and so the MLPerf U-Net) registers most of its layers a
    second time under ``skip_layers``. Whether a gathered state dict still shares them depends on the
    strategy (one tensor in one process and under ZeRO-3, separate copies from FSDP2's CPU offload),
    so the names come from the network itself: ``state_dict(keep_vars=True)`` holds the registered
    objects under the names every state dict uses (wrapper prefixes removed), and one object under
    two names is one tensor. The first name, in registration order (``input_block``, ...), is kept.
    """
    first: dict[int, str] = {}
    aliases: dict[str, str] = {}
    for name, value in model.state_dict(keep_vars=True).items():
        if not isinstance(value, torch.Tensor):
            continue
        if id(value) in first:
            aliases[name] = first[id(value)]
        else:
            first[id(value)] = name
    return aliases


class _ExpectedSharedTensors(logging.Filter):
    """Drops accelerate's "Removed shared tensor {...} while saving" notice when every name in it is
    one the network registers twice (``shared_tensor_names``). accelerate (1.15) logs it at every
    ``save_state`` of DynUNet, so at every checkpoint of the MLPerf U-Net, as a set of some fifty
    names; it asks to check that reloading warns of nothing, and our loaders fill the second names in
    (tested). A notice naming any other tensor still shows."""

    def __init__(self) -> None:
        super().__init__()
        self.aliases: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "Removed shared tensor" not in message:
            return True
        names = {re.sub(r"^(module\.|_orig_mod\.)+", "", name) for name in re.findall(r"'([^']+)'", message)}
        return not (names and names <= self.aliases)


_EXPECTED_SHARED_TENSORS = _ExpectedSharedTensors()


def expect_shared_tensors(aliases: dict[str, str]) -> None:
    """Quiet accelerate's notice for these second names (``shared_tensor_names``) in this process."""
    if not aliases:
        return
    _EXPECTED_SHARED_TENSORS.aliases.update(aliases)
    notices = logging.getLogger("accelerate.utils.other")  # where accelerate's clean_state_dict_for_safetensors logs
    if _EXPECTED_SHARED_TENSORS not in notices.filters:
        notices.addFilter(_EXPECTED_SHARED_TENSORS)


def write_export(tensors: dict, model: dict, metadata: dict, out_dir: Path) -> None:
    """Write into a sibling temp folder, then swap it in, so readers never see half an export (nor,
    where the filesystem can swap two folders, none). A write that fails (a full disk) leaves neither
    the temp folder nor the parents made for it: until the ninety-second session its half-written
    ``<out_dir>.partial/`` stayed beside where the export was to go. An ``out_dir`` that is a symbolic link is
    written through (``files.written_through``): the export replaces the folder the link names, and the link
    stays; until the hundred-and-twentieth session the link itself was put aside as ``<out_dir>.previous`` and a
    new folder took its name, the link's target keeping the old model."""
    out_dir = written_through(out_dir)
    partial = _being_written(out_dir)
    shutil.rmtree(partial, ignore_errors=True)
    new_parents = folders_to_make(partial.parent)
    partial.mkdir(parents=True)
    try:
        save_file(tensors, str(partial / "model.safetensors"), metadata={"format": "pt"})
        with_the_usual_mode(partial / "model.safetensors")  # save_file's is owner-only
        config = {"format_version": EXPORT_FORMAT_VERSION, "model": model, **metadata}
        (partial / "config.json").write_text(json.dumps(config, indent=2))
        sync_folder(partial)  # whole on the disk before it takes the name (files.py)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        remove_if_empty(new_parents)
        raise
    replace_folder(partial, out_dir)


def _being_written(out_dir: Path) -> Path:
    """Where ``write_export`` writes the export ``out_dir`` (a link's target: ``_in_place_of``) before it takes the
    name."""
    return out_dir.with_name(out_dir.name + ".partial")


def _in_place_of(out_dir: Path) -> Path:
    """The folder an export to ``out_dir`` replaces: ``out_dir``, or where it is a symbolic link, the path it names
    (one a kill between ``replace_folder``'s renames left dangling too)."""
    return Path(os.path.realpath(out_dir)) if out_dir.is_symlink() else out_dir


#: The exports a run writes into its folder: train's final and best models, fit's final one.
RUN_EXPORTS = ("model", "best_model")


def remove_interrupted_exports(out: Path) -> list[Path]:
    """What exports in the run folder ``out`` left where their process was ended as they were written (a launch's
    interrupt ends every rank at once, wherever the main process is; a kill): their ``<export>.partial`` and
    ``<export>.previous`` folders, removed, each export whole as it was before or as written
    (``files.finish_an_interrupted_replace``). Returns what was removed. Call with ``out``'s run lock held."""
    return [path for name in RUN_EXPORTS
            for path in finish_an_interrupted_replace(_being_written(_in_place_of(out / name)),
                                                      _in_place_of(out / name))]


def previous_exports_left(out: Path) -> list[Path]:
    """The ``<export>.previous`` folders in the run folder ``out`` that ``remove_interrupted_exports`` leaves: beside
    their whole export, a hand's or what a replace killed while deleting the old export left; with no export beside
    it, a hand's (``mv model model.previous``: no kill leaves that, files.finish_an_interrupted_replace)."""
    return [out / f"{name}.previous" for name in RUN_EXPORTS if (out / f"{name}.previous").is_dir()]


def load_exported(model_dir: str | Path, map_location: str = "cpu") -> tuple[torch.nn.Module, dict]:
    """Build the plain MONAI network from ``config.json`` and load ``model.safetensors`` strictly."""
    config = read_export_config(model_dir)
    model = build_exported_network(config, model_dir)
    check_weights_fit(model, model_dir)
    load_weights(model, Path(model_dir) / "model.safetensors", map_location)
    return model.eval(), config


def build_exported_network(config: dict, model_dir: str | Path) -> torch.nn.Module:
    """The network ``config.json`` describes, built with its initial weights; a DataError naming the file
    where its args build none, or where MONAI has no network class of its ``monai_class`` (a hand edit: a
    traceback ending in AttributeError until the hundred-and-twenty-fifth session's helper h136)."""
    import monai.networks.nets as monai_nets

    monai_class = config["model"]["monai_class"]
    if not (isinstance(monai_class, str) and isinstance(getattr(monai_nets, monai_class, None), type)):
        raise DataError(f"{Path(model_dir) / 'config.json'}: its model.monai_class {monai_class!r} is no network "
                        f"class of monai.networks.nets (a hand edit?); copy the export's config.json again from the "
                        f"run folder that wrote it")
    try:
        return build_from_spec(ModelSpec.from_dict(config["model"]))
    except (TypeError, ValueError, KeyError, AssertionError) as error:  # a hand edit of config.json
        raise DataError(f"{Path(model_dir) / 'config.json'}: its network {config['model']['monai_class']} cannot "
                        f"be built from its args ({type(error).__name__}: {error}); use the config.json written "
                        f"with these weights") from None


def check_export_fits(model_dir: str | Path, config: dict) -> None:
    """Refuse an export whose config.json and model.safetensors are not one export's, reading neither the
    weights nor making the network's: its parameters stay on the meta device and the file's tensor shapes
    come from its header. With one torch thread, 0.046 s for SwinUNETR's 67 MB export at 128^3 (MONAI computes
    its attention's position tables at build), of 0.107 s for the whole load; 0.009-0.024 s for the other
    networks (benchmarks/results/export_check_cost.json). What ``Segmentation.load`` checks, so that a mismatch
    is said there, not at a predict."""
    # buffers stay real (MONAI's SwinUNETR computes with some at build), and other threads' networks are not touched:
    # accelerate's init_empty_weights, used until the hundred-and-twenty-seventh session, was process-wide
    with parameters_on_meta():
        model = build_exported_network(config, model_dir)
    check_weights_fit(model, model_dir)


def check_weights_fit(model: torch.nn.Module, model_dir: str | Path) -> None:
    """Refuse, naming both files, an export's model.safetensors whose tensors (names and shapes, read from
    its header) are not those of ``model``, the network its config.json builds. torch's refusal, given
    before the ninety-third session, listed every tensor of the wrong size and named no remedy; the usual
    cause is a config.json edited by hand (``channels``) or copied from another export."""
    config_path, weights_path = Path(model_dir) / "config.json", Path(model_dir) / "model.safetensors"
    stored = with_every_name(model, safetensors_shapes(weights_path))
    built = {name: tuple(tensor.shape) for name, tensor in model.state_dict().items()}
    shapes = [f"{name} {stored[name]} in the file, {shape} as config.json builds it"
              for name, shape in built.items() if name in stored and stored[name] != shape]
    names = [f"{len(listed)} {what}, e.g. {', '.join(listed[:3])}" for listed, what in (
        (sorted(built.keys() - stored.keys()), "of the network's tensors are not in the file"),
        (sorted(stored.keys() - built.keys()), "of the file's tensors are not in the network")) if listed]
    if shapes or names:
        more = [f"{len(shapes) - 3} more tensors of other shapes"] if len(shapes) > 3 else []
        raise DataError(f"{config_path} does not describe the network whose weights {weights_path} holds: "
                        f"{'; '.join(shapes[:3] + more + names)}. They are not of one export (a config.json edited "
                        f"by hand, or copied from another): copy both files again from the same export")


def safetensors_shapes(path: str | Path) -> dict[str, tuple[int, ...]]:
    """Each tensor's shape in a safetensors file, read from its header alone (not the weights)."""
    from safetensors import safe_open

    try:
        with by_a_utf8_name(path) as name, safe_open(name, framework="pt") as opened:
            return {name: tuple(opened.get_slice(name).get_shape()) for name in opened.keys()}
    except SafetensorError as error:
        raise not_safetensors(path, error, "from the run folder that wrote it") from None


def read_export_config(model_dir: str | Path) -> dict:
    """The ``config.json`` of an exported model folder, checked: both files there, valid JSON, a
    registry network.

    Raises:
        FileNotFoundError: a file of the export is missing.
        DataError: config.json is not JSON (a hand edit gone wrong) or describes no registry network.
    """
    model_dir = Path(model_dir)
    config = read_export_json(model_dir)
    config_path, weights_path = model_dir / "config.json", model_dir / "model.safetensors"
    spec = config["model"]
    if "monai_class" not in spec:
        raise DataError(f"{config_path} describes {spec}, not a registry network: load {weights_path} into your "
                        f"own network (safetensors.torch.load_model)")
    # What building the network and predicting read; an export written by training has them all.
    missing = [f"model.{key}" for key in EXPORT_MODEL_KEYS if key not in spec]
    missing += [key for key in EXPORT_KEYS if key not in config]
    if missing:
        raise DataError(f"{config_path} lacks {', '.join(missing)}, which loading and predict read; an export "
                        f"written by training holds them: copy its config.json again, or add them")
    version = config.get("format_version", EXPORT_FORMAT_VERSION)
    if is_whole_number(version, EXPORT_FORMAT_VERSION + 1):
        raise DataError(f"{config_path} has format_version {version}, newer than this accelerated_seg reads "
                        f"({EXPORT_FORMAT_VERSION}): upgrade accelerated_seg to load it")
    if errors := export_value_errors(config):
        raise DataError(f"{config_path}: {'; '.join(errors)}. Training writes these from the run's settings: "
                        f"copy the export's config.json again from the run folder that wrote it")
    from .inference import export_regions  # the regions' values must be those the classes are written as

    export_regions(config, where=config_path)
    return config


def export_value_errors(config: dict) -> list[str]:
    """What in an export's ``config.json`` training cannot have written: a hand edit, or a file from
    elsewhere. Each value here decides how predict prepares a scan or reads the network's output; an
    unknown normalization was once z-scored without a word, and a patch size of two edges reached
    MONAI's sliding window as a 2D window."""
    import math

    from .data.preprocess import NORMALIZATIONS

    def positive_sizes(value) -> bool:
        return (isinstance(value, list) and len(value) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf for v in value))

    errors = []
    version = config.get("format_version", EXPORT_FORMAT_VERSION)
    if not is_whole_number(version, 1):
        errors.append(f"format_version {version!r} is not a format this package writes (1 ..)")
    for key, least in (("in_channels", 1), ("num_classes", 2)):
        if not is_whole_number(config[key], least):
            errors.append(f"{key} {config[key]!r} is not a whole number >= {least}")
    if "ignore_value" in config and not is_whole_number(config["ignore_value"], 1):  # evaluate --labels reads it
        errors.append(f"ignore_value {config['ignore_value']!r} is not a whole number >= 1 (the labels' value of "
                      "unannotated voxels)")
    args = config["model"]["args"] if isinstance(config["model"]["args"], dict) else {}
    if not isinstance(config["model"]["args"], dict):  # Segmentation.load read its items: an AttributeError
        errors.append(f"model.args {config['model']['args']!r} is not a mapping of the network's arguments")
    regions = config.get("regions")
    if regions is not None and (region_error := _regions_error(regions)):
        return errors + [region_error]
    outputs = ("num_classes", config["num_classes"]) if regions is None else ("regions", len(regions["names"]))
    for (key, value), arg in ((("in_channels", config["in_channels"]), "in_channels"), (outputs, "out_channels")):
        if arg in args and args[arg] != value:
            errors.append(f"{key} is {value!r} but the network's model.args.{arg} is {args[arg]!r}")
    patch = config["patch_size"]
    if not (isinstance(patch, list) and len(patch) == 3 and all(is_whole_number(edge, 1) for edge in patch)):
        errors.append(f"patch_size {patch!r} is not 3 whole numbers >= 1 (voxels)")
    labels = config.get("labels")
    if labels is not None and not (isinstance(labels, dict) and all(str(k).isdigit() for k in labels)):
        errors.append(f"labels {labels!r} is not a mapping of class index to name ({{\"0\": \"background\", ...}})")
    channels = config.get("channels")
    if channels is not None and not channel_names_fit(channels, config["in_channels"]):
        # predict groups a case's files by these names: a list or a string was an AttributeError there, a key not an
        # index an int() error said as if of the input, an index past in_channels a name nothing reads
        errors.append(f"channels {channels!r} is not a mapping of channel index (0 to in_channels - 1) to name "
                      f"({{\"0\": \"T1\", \"1\": \"FLAIR\"}})")
    ending = config.get("file_ending", NIFTI_SUFFIXES[0])
    if not (isinstance(ending, str) and ending.lower() in NIFTI_SUFFIXES):  # predict names the label maps with it
        errors.append(f"file_ending {ending!r} is not a NIfTI ending ({', '.join(NIFTI_SUFFIXES)}), which the label "
                      f"maps are named with")
    if not isinstance(config.get(SPACING_SET_KEY, True), bool):  # predict judges a scan's far finer voxels by it
        errors.append(f"{SPACING_SET_KEY} {config[SPACING_SET_KEY]!r} is not true or false (whether data.spacing set "
                      f"the spacing, or the training cases' median)")
    if config.get(SPACING_UNIT_KEY) not in (None, *SPATIAL_UNITS):  # predict judges a scan's unit by it
        errors.append(f"{SPACING_UNIT_KEY} {config[SPACING_UNIT_KEY]!r} is not one of {', '.join(SPATIAL_UNITS)} or "
                      f"null (the unit the training cases' headers declared)")
    if config.get(CASES_MEDIAN_KEY) is not None and not positive_sizes(config[CASES_MEDIAN_KEY]):
        # predict weighs a scan declaring mm against it: a hand edit's "2" or [2, 2] was a TypeError there
        errors.append(f"{CASES_MEDIAN_KEY} {config[CASES_MEDIAN_KEY]!r} is not 3 sizes > 0 (or null: the training "
                      f"cases' median voxel size)")
    settings = config.get("preprocessing")
    if settings is None:  # an export from before preprocessing was recorded: only its spacing is read
        if config.get("spacing") is not None and not positive_sizes(config["spacing"]):
            errors.append(f"spacing {config['spacing']!r} is not 3 sizes > 0 mm")
        return errors
    if not isinstance(settings, dict):
        return errors + [f"preprocessing {settings!r} is not a mapping of settings"]
    if settings.get("normalization", "zscore") not in NORMALIZATIONS:
        errors.append(f"preprocessing.normalization {settings['normalization']!r} is not one of "
                      f"{', '.join(NORMALIZATIONS)}")
    if settings.get("spacing") is not None and not positive_sizes(settings["spacing"]):
        errors.append(f"preprocessing.spacing {settings['spacing']!r} is not 3 sizes > 0 mm (or null)")
    window = settings.get("ct_window", [-1000.0, 1000.0])
    if not (isinstance(window, list) and len(window) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in window)
            and window[0] < window[1]):
        errors.append(f"preprocessing.ct_window {window!r} is not [low, high] with low < high")
    for key in ("crop_foreground", "binarize"):
        if not isinstance(settings.get(key, False), bool):
            errors.append(f"preprocessing.{key} {settings[key]!r} is not true or false")
    label_map = settings.get("label_map")
    if label_map is not None and not (isinstance(label_map, list) and all(
            isinstance(pair, list) and len(pair) == 2 and all(is_whole_number(v, 0) for v in pair)
            for pair in label_map)):
        errors.append(f"preprocessing.label_map {label_map!r} is not a list of [label value, class index] pairs")
    return errors


def _regions_error(regions) -> str | None:
    """What is wrong with an export's ``regions`` (``Regions.to_dict``), or None."""
    def values(items) -> bool:
        return isinstance(items, list) and all(is_whole_number(v, 1) for v in items)

    if not (isinstance(regions, dict) and isinstance(regions.get("names"), list) and regions["names"]
            and isinstance(regions.get("values"), list) and all(values(v) and v for v in regions["values"])
            and values(regions.get("order"))
            and len(regions["names"]) == len(regions["values"]) == len(regions["order"])):
        return (f"regions {regions!r} is not {{\"names\": [...], \"values\": [[label values], ...], \"order\": "
                f"[value painted per region]}} with one entry per region")
    if outside := [v for v, region in zip(regions["order"], regions["values"]) if v not in region]:
        return f"regions.order paints value(s) {outside} outside their regions"
    return None


def load_weights(model: torch.nn.Module, weights_path: str | Path, device: str = "cpu") -> None:
    """``load_state_dict(strict=True)`` of a safetensors file, where a tensor the network registers
    under two names may be stored under either one of them (``shared_tensor_names``).

    Raises:
        DataError: the file is not safetensors (truncated by a copy, say), or its tensors are not the
            network's (a config.json edited by hand).
    """
    load_strictly(model, read_weights_of(model, weights_path, device), weights_path)


def read_weights_of(model: torch.nn.Module, weights_path: str | Path, device: str) -> dict[str, torch.Tensor]:
    """A safetensors file's tensors, each shared tensor under both of ``model``'s names for it."""
    return with_every_name(model, read_safetensors(weights_path, device, "from the run folder that wrote it"))


def read_safetensors(path: str | Path, device: str = "cpu", copy_from: str = "") -> dict[str, torch.Tensor]:
    """A safetensors file's tensors, or a DataError naming the file (``copy_from``: where a good copy is)."""
    try:
        with by_a_utf8_name(path) as name:  # safetensors takes a path in UTF-8 alone
            return load_file(name, device=device)
    except SafetensorError as error:  # the library's own traceback named neither the file nor a remedy
        raise not_safetensors(path, error, copy_from) from None


def not_safetensors(path: str | Path, error: SafetensorError, copy_from: str = "") -> DataError:
    return unreadable_safetensors(path, error, copy_from)


def with_every_name(model: torch.nn.Module, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``tensors`` with each tensor that ``model`` registers twice under both of its names, where the
    file wrote one (``shared_tensor_names``)."""
    for second, first in shared_tensor_names(model).items():
        if second not in tensors and first in tensors:
            tensors[second] = tensors[first]
        elif first not in tensors and second in tensors:
            tensors[first] = tensors[second]
    return tensors


def load_strictly(model: torch.nn.Module, tensors: dict[str, torch.Tensor], weights_path: str | Path) -> None:
    try:
        model.load_state_dict(tensors, strict=True)
    except RuntimeError as error:
        detail = " ".join(str(error).split())[:600]
        raise DataError(f"{weights_path} does not hold the weights of the network its config.json describes "
                        f"({detail}); use the config.json written with these weights") from None
