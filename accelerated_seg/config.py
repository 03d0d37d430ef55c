"""Typed run configuration: one dataclass per component, loaded from YAML plus dotted overrides.

    cfg = load_config("configs/demo.yaml", ["--optim.lr=3e-4", "--train.max_steps=200"])

Every key is checked against the dataclasses, so a typo (``--optim.lrr``) is an error naming the
key instead of a setting that silently does nothing. The resolved config is written next to every
run and checkpoint (``dump_config``) so a result can always be traced back to its settings.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import enum
import itertools
import math
import numbers
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Optional

import yaml

from .hand_edited import not_utf8, utf8_text
from .shell_words import shell_word

if TYPE_CHECKING:  # model_folders imports this module's ConfigError
    from .model_folders import Names


class ConfigError(ValueError):
    """A setting that cannot work; the message names the setting and what to do."""


@dataclass
class SyntheticConfig:
    """The embedded phantom dataset, written on first use when ``data.dataset`` is ``synthetic``."""

    num_cases: int = 24
    num_validation: int = 4
    seed: int = 0


@dataclass
class DataConfig:
    # An MSD dataset.json, an nnU-Net v2 raw dataset folder, a CSV (image or image_0, image_1, ...; label), or
    # "synthetic" for the embedded phantoms.
    dataset: str = "synthetic"
    synthetic: SyntheticConfig = field(default_factory=SyntheticConfig)
    validation_fraction: float = 0.2  # used only when the dataset gives no validation list and num_folds is 0
    num_folds: int = 0  # > 1: seeded k-fold split, validating on fold `fold`
    fold: int = 0
    split_seed: int = 0  # seeds the split; the split is saved with the run (run_info.json)
    binarize: bool = False  # every non-background label value becomes class 1
    # A CSV's label values, which the file cannot declare: {value: name} ({0: background, 4: enhancing})
    # or {name: value}. None: binary, {0: background, 1: foreground}. dataset.json declares its own.
    labels: Optional[dict] = None
    # Region-based training (regions.py): {name: [label values]}, one sigmoid output per region, such as
    # BraTS' {whole_tumor: [1, 2, 4], tumor_core: [1, 4], enhancing_tumor: [4]} (the Decathlon's BrainTumour
    # holds 1 edema, 2 non-enhancing, 3 enhancing: [1, 2, 3], [2, 3], [3]); over what dataset.json
    # declares. None: the classes, exclusive, one softmax. region_order: the value each region paints in
    # a label map (nnU-Net's regions_class_order); None derives it where it is unambiguous.
    regions: Optional[dict] = None
    region_order: Optional[list[int]] = None
    # Preprocessing, done once and cached (see docs/data.md):
    spacing: Optional[tuple[float, float, float]] = None  # mm; None = a median (spacing.median_cases)
    # zscore (per channel, nonzero voxels) | ct (clip to ct_window, scale to [-1, 1]) | auto: ct where the
    # dataset names every channel CT (MSD's "modality", nnU-Net's "channel_names"), else zscore
    normalization: Literal["auto", "zscore", "ct"] = "auto"
    ct_window: tuple[float, float] = (-1000.0, 1000.0)
    # Crop each case to the bounding box of its image voxels above 0. None: on for zscore, off for ct (auto:
    # as resolved), where air is -1000 HU and tissue below 0 HU (fat) would be cut away.
    crop_foreground: Optional[bool] = None
    cache_dir: Optional[str] = None  # None = $XDG_CACHE_HOME/accelerated_seg (or ~/.cache/accelerated_seg)
    max_voxels: int = 512**3  # pre-flight: a larger volume is an error (resample or crop it first)
    # Sampling and augmentation:
    patch_size: tuple[int, int, int] = (64, 64, 64)
    foreground_fraction: float = 0.67  # share of patches centred on a labelled (non-background) voxel
    class_balanced: bool = False  # foreground patches pick each class equally often (rare classes)
    samples_per_volume: int = 4  # patches per case per epoch
    augment: Literal["none", "light", "standard", "heavy"] = "light"  # none | light | standard | heavy
    # Where the spatial (affine) part of the augmentation runs: cpu (loader workers) | gpu (one batched
    # resampling on the training device) | auto: gpu when training on a CUDA device, else cpu. On an
    # H100 the workers could not keep up at 128^3 (data wait 34.6% against 10.8%; docs/augmentation.md).
    augment_on: Literal["auto", "cpu", "gpu"] = "auto"
    num_workers: int = 2


# The names of the model registry (models.MODELS, which imports MONAI; tests/test_models.py keeps the
# two the same), so that an unknown network is refused as the config is read: before the demo data is
# written and before the 8-15 s of importing MONAI and torch.
NetworkName = Literal["unet", "segresnet", "swinunetr", "unetr", "dynunet", "unet3d_mlperf"]


def check_network_name(name: str, setting: str) -> None:
    """A ConfigError naming ``setting`` and the registry's networks, unless ``name`` is one of them."""
    known = typing.get_args(NetworkName)
    if name not in known:
        raise ConfigError(f"{setting} {name!r} is not known; choose one of: {', '.join(known)}"
                          + did_you_mean(name, known, cutoff=0.8))  # not vnet: MONAI's VNet, no misspelt unet


@dataclass
class ModelConfig:
    name: NetworkName = "unet"
    args: dict = field(default_factory=dict)  # passed to the MONAI network, over our defaults


@dataclass
class OptimConfig:
    # AdamW, or SGD with (Nesterov) momentum as nnU-Net trains (lr 0.01, momentum 0.99, schedule poly).
    optimizer: Literal["adamw", "sgd"] = "adamw"
    lr: float = 1e-3  # learning rate at base_batch_size; scaled by lr_scaling for the global batch
    lr_scaling: Literal["none", "linear", "sqrt"] = "none"  # none | linear | sqrt
    base_batch_size: int = 2
    weight_decay: float = 1e-5  # AdamW's decoupled decay; SGD's L2 term
    momentum: float = 0.99  # sgd only; 0 is plain SGD, which keeps no state
    nesterov: bool = True  # sgd only; needs momentum > 0
    # After a linear warm-up the rate decays to lr * min_lr_ratio at max_steps: along a half cosine,
    # or as nnU-Net's poly, (1 - step / max_steps) ** poly_exponent.
    schedule: Literal["cosine", "poly"] = "cosine"
    poly_exponent: float = 0.9
    warmup_steps: int = 20
    min_lr_ratio: float = 0.01
    max_grad_norm: float = 12.0  # 0 disables clipping
    fused: bool = False  # torch's fused optimizer kernel (CUDA and CPU): one kernel for all parameters


@dataclass
class DDPConfig:
    """torch DistributedDataParallel options (through accelerate's DistributedDataParallelKwargs)."""

    bucket_cap_mb: Optional[int] = None  # gradient bucket size; None = PyTorch's default (25 MB)
    gradient_as_bucket_view: bool = False  # gradients alias the all-reduce buckets: saves one gradient copy
    static_graph: bool = False  # the same graph every step: lets DDP skip per-step graph checks


@dataclass
class CompileConfig:
    """``torch.compile`` of the prepared model, applied in place (compilation.compile_in_place; docs/performance.md)."""

    enabled: bool = False
    backend: str = "inductor"  # any torch.compile backend; "aot_eager" traces without generating code
    mode: Literal["default", "reduce-overhead", "max-autotune",
                  "max-autotune-no-cudagraphs"] = "default"  # inductor only


@dataclass
class TrainConfig:
    output_dir: str = "output"
    max_steps: int = 300  # optimizer steps
    # Give either batch_size (per device) or global_batch_size; the rest is resolved at start:
    # global = per-device x processes x accumulation.
    batch_size: Optional[int] = None
    global_batch_size: Optional[int] = None
    grad_accum_steps: Optional[int] = None
    seed: int = 0
    val_every: int = 50  # optimizer steps; 0 disables validation
    save_every: int = 100  # optimizer steps; 0 saves only at the end
    keep_last: int = 2  # training-state checkpoints kept in output_dir/checkpoints
    log_every: int = 10
    max_nonfinite_steps: int = 5  # stop after this many optimizer steps in a row with a non-finite loss
    # The loss (losses.py): a MONAI loss on softmax probabilities and one-hot labels, and its keyword
    # arguments (a class `weight` list, DiceFocal's `gamma`, Tversky's `alpha`/`beta`, ...).
    loss: Literal["dice_ce", "dice_focal", "dice", "generalized_dice", "tversky"] = "dice_ce"
    loss_args: dict = field(default_factory=dict)
    resume: Optional[str] = None  # "latest" or a checkpoint folder
    # A new run into an output_dir that holds an earlier run's checkpoints or exports is an error
    # unless this is true; then that run's outputs are deleted first (run_folder.py).
    overwrite: bool = False
    trackers: str = "tensorboard"  # accelerate tracker name(s), comma separated or a list, or "none"
    # An FSDP/DeepSpeed profile that cannot take effect here (e.g. on a CPU) is an error unless this
    # is true; then the run goes on with what accelerate runs instead and says so.
    allow_strategy_fallback: bool = False
    progress_bar: bool = True
    sw_batch_size: int = 4  # sliding-window batch during validation
    # Validation's sliding-window overlap: MONAI's default, under a third of the windows of predict's
    # --overlap 0.5, so validation's Dice differs somewhat from predict's (docs/inference.md "Metrics").
    sw_overlap: float = 0.25
    # Validation also computes HD95 and surface Dice (as `accelerated-seg evaluate` does; the distance
    # transforms cost more than Dice), with this surface-Dice tolerance in mm.
    val_distances: bool = False
    val_tolerance_mm: float = 1.0
    # Start from the weights of an exported model folder (config.json + model.safetensors) with a new
    # optimizer and schedule: how a run continues under another strategy (see docs/checkpoints.md).
    init_from: Optional[str] = None
    # With init_from a weights file that holds one part of the network alone (an encoder from
    # self-supervised pretraining: SwinUNETR's swinViT, UNETR's vit), that part's name: the file is
    # loaded into it and the rest of the network starts as built (docs/checkpoints.md).
    init_into: Optional[str] = None
    # Fine-tuning on another label set (init_from's output layers start afresh): the first this many
    # steps train the new output layers alone (with init_into, every layer outside that part), then the
    # rest of the network warms up over optim.warmup_steps and joins them (docs/checkpoints.md). 0 trains
    # the whole network from the start.
    head_only_steps: int = 0
    # Memory levers (docs/strategies.md): recompute each block's activations in backward, and
    # BatchNorm statistics over all ranks under DDP (GPUs only).
    activation_checkpointing: bool = False
    sync_batchnorm: bool = False
    ddp: DDPConfig = field(default_factory=DDPConfig)
    # Speed levers on GPUs (docs/performance.md): cuDNN autotuning for the fixed patch shape, and
    # channels-last 3D weights (slower with instance norm on some GPUs: measure before keeping it).
    cudnn_benchmark: bool = True
    channels_last: bool = False
    # With channels_last: each InstanceNorm as the identical GroupNorm with one group per channel, which
    # keeps the channels-last layout that InstanceNorm drops (norm_layout.py; exports are unchanged).
    # Faster compiled on 2 CPU cores; slower on an H200 (eager -5.5% with twice the peak memory,
    # compiled -1.4%; docs/performance.md), hence off.
    channels_last_norm: bool = False
    # Under ZeRO-3: the network's blocks as DeepSpeed leaf modules, each gathered whole, which removes
    # much of ZeRO-3's per-step host work (wrapping.mark_zero3_leaf_blocks).
    zero3_leaf_blocks: bool = True
    # torch.compile of the prepared model (the first steps pay the compilation: about 90 s for the
    # demo U-Net on one CPU core). The launch's --dynamo_backend is honoured the same way.
    compile: CompileConfig = field(default_factory=CompileConfig)


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    """Build a Config from an optional YAML file and ``--section.key=value`` overrides.

    Args:
        path: YAML file whose top-level keys are data/model/optim/train.
        overrides: strings such as ``--optim.lr=3e-4`` or ``train.max_steps=10``; values are parsed
            as YAML (so ``[64,64,32]``, ``null`` and ``true`` work).
    """
    raw: dict = {}
    if path is not None:
        path = Path(path)
        if path.is_dir():
            raise ConfigError(f"config file {path} is a folder; give the experiment's YAML file (configs/*.yaml)")
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        data = path.read_bytes()
        if fault := not_utf8(data):  # saved as UTF-16 by an editor: a traceback before
            raise ConfigError(f"{path} {fault}")
        text = utf8_text(data)  # a byte-order mark dropped, as an export's config.json's (hand_edited.py)
        raw = _parse_yaml(text, f"{path} is not valid YAML")
        if raw is None:  # empty or all comments: it trained the demo's phantoms without a word before
            raise ConfigError(f"config file {path} holds no settings (it is empty, or only comments): give the "
                              f"experiment's YAML, or leave --config out for the defaults")
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: expected a mapping of sections (data, model, optim, train)")
        if "distributed_type" in raw:  # said "unknown setting 'compute_environment'" of the launch's own file
            raise ConfigError(f"{path} is an accelerate config file (it sets accelerate's distributed_type), not an "
                              f"experiment config of data, model, optim and train sections (configs/*.yaml): "
                              f"accelerate launch takes it as --config_file, and plan as --accelerate-config")
        _refuse_keys_joined_to_values(raw, str(path))
        try:  # the file alone first, so a key or value it gets wrong is reported with its name
            _build(Config, copy.deepcopy(raw), prefix="")
        except ConfigError as error:
            raise ConfigError(f"{path}: {error}") from None
    file_network = _network_of(raw)
    overridden = set()
    for item in joined_overrides(overrides or []):
        key, value = _split_override(item)
        # An empty value of a path is the empty path, not YAML's null: `--train.output_dir=` (an unset
        # "$OUT") read "must be str, got None" rather than check_values' empty-path error
        parsed = "" if key in _PATHS and not value.strip() else _path_value(value, f"override {item!r}") \
            if key in _PATHS else setting_value(_in_utf8(value, f"override {item!r}"), f"override {item!r}")
        _set_dotted(raw, key, parsed)
        overridden.add(key)
    if "model.name" in overridden and "model.args" not in overridden and _network_of(raw) != file_network:
        # The file's model.args are its network's constructor arguments (a U-Net's channels and strides):
        # another network given on the command line starts from its own defaults, as `plan --model` does,
        # and takes only the arguments given for it there (`--model.args.init_filters=8`). They were kept,
        # and the README's `--model.name=segresnet` over demo.yaml failed on them; with an argument given
        # by its dotted name too, until the eighty-fourth session.
        given = {key.split(".")[2] for key in overridden if key.startswith("model.args.")}
        kept = {name: value for name, value in (raw["model"].get("args") or {}).items() if name in given}
        raw["model"].pop("args", None)
        if kept:
            raw["model"]["args"] = kept
    try:
        return check_values(_build(Config, raw, prefix=""))
    except ConfigError as error:  # a value out of range: the file's is named with it, as a wrong type is
        named = re.match(r"settings? ([\w.]+)", str(error))
        if path is not None and named and named.group(1) not in overridden:
            raise ConfigError(f"{path}: {error}") from None
        raise


def _network_of(raw: dict) -> Any:
    model = raw.get("model")
    return model.get("name", ModelConfig.name) if isinstance(model, dict) else ModelConfig.name


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping: PyYAML keeps the last one, so
    a second ``max_steps:`` further down a section silently overrode the first. Keys brought in by a
    merge (``<<: *defaults``) may still be overridden, as YAML intends."""

    def construct_mapping(self, node, deep=False):
        first_line = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, typing.Hashable):  # PyYAML's own error for it follows
                continue
            if key in first_line:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice (first at line {first_line[key]})", key_node.start_mark)
            first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def is_whole_number(value, minimum: int) -> bool:
    """An int or NumPy integer (not a bool, a float or a string) of at least ``minimum``."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= minimum


def setting_value(text: str, where: str) -> Any:
    """A setting's value as a command line gives it (an override's, check's --labels), read as YAML.

    Raises:
        ConfigError: ``where``, then what is wrong: not YAML, or a mapping's key joined to its value.
    """
    value = _parse_yaml(text, f"{where}: the value is not valid YAML")
    _refuse_keys_joined_to_values(value, where)
    return value


# A byte of a name that is not UTF-8 (a folder named in Latin-1, as Linux allows), as Python holds it: a surrogate
# escape, '\udce9' for 0xE9, which YAML refuses ("unacceptable character #xdce9"); and, for _path_value, a character
# of Unicode's last private-use plane for each, which YAML takes as any other in a plain or quoted scalar.
_ESCAPED_BYTES = {code: 0x10FF00 + code - 0xDC00 for code in range(0xDC80, 0xDD00)}
_ESCAPED_BACK = {stand_in: code for code, stand_in in _ESCAPED_BYTES.items()}


def _path_value(text: str, where: str) -> Any:
    """A path setting's value (``_PATHS``) given on the command line, read as YAML as any other, with a byte that
    is not UTF-8 taken as the name's: ``--train.output_dir=<a folder named in Latin-1>`` was refused as "not valid
    YAML: unacceptable character #xdce9" until the hundred-and-twenty-third session, so a run folder, a cache or
    a dataset so named could not be given at all. Each such byte is read as a stand-in character, put back in the
    string read; any other setting's value, and a path's holding a stand-in itself, is YAML as it was."""
    if not any(ord(character) in _ESCAPED_BYTES for character in text) or text != text.translate(_ESCAPED_BACK):
        return setting_value(text, where)
    return _put_back(setting_value(text.translate(_ESCAPED_BYTES), where))


def _put_back(value: Any) -> Any:
    """``value`` read with its stand-ins (``_path_value``) and each put back, in a list's or mapping's strings too:
    a path setting given a list was refused naming a character nobody typed, ``got ['a\\U0010ffe9']``, until the
    hundred-and-twenty-third session's review."""
    if isinstance(value, str):
        return value.translate(_ESCAPED_BACK)
    if isinstance(value, list):
        return [_put_back(item) for item in value]
    if isinstance(value, dict):
        return {_put_back(key): _put_back(item) for key, item in value.items()}
    return value


def _in_utf8(text: str, where: str) -> str:
    """``text``, a value of a setting that is not a path, refused where it holds a byte that is not UTF-8: YAML's
    "unacceptable character #xdce9: special characters are not allowed" named neither the byte nor the way on
    (the hundred-and-twenty-third session's review)."""
    if escaped := next((ord(character) - 0xDC00 for character in text if ord(character) in _ESCAPED_BYTES), None):
        raise ConfigError(f"{where}: byte 0x{escaped:02x} is not UTF-8 (a name in Latin-1 or Windows-1252?), which "
                          f"only a path setting takes ({', '.join(_PATHS)}): give this setting's value in UTF-8")
    return text


# A key that YAML read as one with its value: it ends a key at a colon only where a space follows.
_JOINED_TO_ITS_VALUE = re.compile(r":\S")


def _refuse_keys_joined_to_values(value: Any, where: str) -> None:
    """Refuse ``{0:background}``, which YAML reads as ``{"0:background": null}``: "keys must be label values
    ... got ['0:background']" came only when the dataset was read, and said nothing of the colon (a
    user-journey probe of check --labels, ninety-second session). Whatever the setting: a key of one of
    ours holds no colon.

    Raises:
        ConfigError: naming the key and the mapping as it was meant, a space after each colon.
    """
    if isinstance(value, list):
        for item in value:
            _refuse_keys_joined_to_values(item, where)
        return
    if not isinstance(value, dict):
        return
    joined = [key for key, item in value.items()
              if item is None and isinstance(key, str) and _JOINED_TO_ITS_VALUE.search(key)]
    if joined:
        raise ConfigError(f"{where}: {joined[0]!r} reads as one key with no value, since YAML ends a key only at "
                          f"a colon followed by a space: put a space after the colon, {_as_meant(value)}")
    for item in value.values():
        _refuse_keys_joined_to_values(item, where)


def _as_meant(mapping: dict) -> str:
    """A mapping with its joined keys split at their colon, in YAML's flow style: ``{0: background}``."""
    meant = {}
    for key, item in mapping.items():
        if item is None and isinstance(key, str) and _JOINED_TO_ITS_VALUE.search(key):
            name, rest = key.split(":", 1)
            try:
                meant.update(yaml.safe_load(f"{{{name}: {rest}}}"))
                continue
            except (yaml.YAMLError, TypeError, ValueError):  # shown as written, the space added
                key, item = f"{name}: {rest}", None
        meant[key] = item
    return yaml.safe_dump(meant, default_flow_style=True, sort_keys=False, width=math.inf).strip()


def yaml_with_unique_keys(text: str) -> Any:
    """``yaml.safe_load`` of ``text``, a key given twice in one mapping refused: the reading of every YAML file
    edited by hand, ``--config``'s and an accelerate config file's (``accelerate_profile``, which imported this
    module's private loader until the hundred-and-twenty-third session's review).

    Raises:
        yaml.YAMLError: not YAML; a key given twice is a ``yaml.constructor.ConstructorError`` whose problem is
            "key 'name' given twice (first at line N)", at the second's mark.
    """
    return yaml.load(text, Loader=_UniqueKeyLoader)


def _parse_yaml(text: str, what: str) -> Any:
    """``yaml.safe_load`` (a key given twice refused), with a syntax error as one ConfigError line rather
    than PyYAML's traceback."""
    try:
        return yaml_with_unique_keys(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{what}: {yaml_problem(error)}") from None


def yaml_problem(error: yaml.YAMLError) -> str:
    """A YAML syntax error as one line, the problem and where it is: PyYAML's own text is several lines,
    quoting the file with a caret under the place."""
    mark = getattr(error, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    # PyYAML's words for a tab (an editor's indentation) name the character alone (hundred-and-fourth session)
    tab = "; YAML takes no tab there (it indents with spaces): replace the tab with spaces" if "'\\t'" in problem else ""
    return problem + where + tab


# Numbers a run cannot work with, each named with the smallest allowed value. Types are checked by
# _build; these are the ranges, checked before any data or training work. (train.log_every=0 used
# to divide by zero after the first step; a negative max_steps exported an untrained model.) An optim.lr of 0,
# which trains nothing, is warned of at the run's start (schedule.zero_lr_warning), not refused: the init_from
# tests train at 0 to compare the export with the weights given.
_AT_LEAST = {
    "data.synthetic.num_cases": 2, "data.synthetic.num_validation": 0, "data.num_folds": 0, "data.fold": 0,
    "data.max_voxels": 1, "data.samples_per_volume": 1, "data.num_workers": 0,
    "optim.lr": 0, "optim.base_batch_size": 1, "optim.weight_decay": 0, "optim.warmup_steps": 0,
    "optim.max_grad_norm": 0, "optim.poly_exponent": 0,
    "train.max_steps": 1, "train.batch_size": 1, "train.global_batch_size": 1, "train.grad_accum_steps": 1,
    "train.val_every": 0, "train.save_every": 0, "train.keep_last": 1, "train.log_every": 1,
    "train.max_nonfinite_steps": 1, "train.sw_batch_size": 1, "train.val_tolerance_mm": 0,
    "train.ddp.bucket_cap_mb": 1, "train.head_only_steps": 0,
}
# Shares: (lowest, highest, whether the highest itself is allowed).
_SHARES = {
    "data.validation_fraction": (0.0, 1.0, False), "data.foreground_fraction": (0.0, 1.0, True),
    "optim.min_lr_ratio": (0.0, 1.0, True), "optim.momentum": (0.0, 1.0, False), "train.sw_overlap": (0.0, 1.0, False),
}


# Seeds reach numpy's and torch's generators, which take 0 <= seed < 2**32 (np.random.seed).
_SEEDS = ("train.seed", "data.split_seed", "data.synthetic.seed")
# Paths for which an empty string means nothing: "" is the working directory to pathlib, so an empty
# train.output_dir wrote the run's checkpoints and export into whatever folder the job started in, and an
# empty resume, init_from or cache_dir was taken for "not given" (a fresh run, the default cache).
_PATHS = ("data.dataset", "data.cache_dir", "train.output_dir", "train.resume", "train.init_from")


def check_values(cfg: Config, names: Names | None = None) -> Config:
    """The config rebuilt from its values, with every value of its type and choice and every number
    in range; else one ConfigError (or DataError, for the split) naming the setting as ``names`` does:
    the config's key (``setting data.spacing``) by default, the caller's keyword (``spacing``) for the
    estimator's. Said here since the ninety-fourth session: the estimator rewrote the config's words
    by a regular expression over the whole message, the value given in it too (a cache_dir under a
    folder named data.fold was said to lie under fold/).

    A Config built in Python (the estimator, a notebook) has not been through load_config. Rebuilt
    as a YAML file is, its types, choices and lengths are checked, and what Python hands over where
    YAML gives plain values (numpy numbers, arrays, Paths) becomes plain: the run writes its config
    as YAML and JSON. Use the returned config.
    """
    from .model_folders import Names  # beside checkpoint resolution's words, which import this module's error

    names = names or Names()  # the config's own words
    cfg = _build(Config, cfg.to_dict(), prefix="", names=names)

    def setting(*keys: str) -> str:
        return _setting(names, *keys)

    def value(key: str):
        node = cfg
        for part in key.split("."):
            node = getattr(node, part)
        return node

    for key, lowest in _AT_LEAST.items():
        number = value(key)
        if number is None:
            continue
        # NaN passes `< lowest` (optim.lr=nan was torch's traceback at the optimizer), and inf
        # trains to non-finite losses (optim.lr=inf) after the data work: refuse both here.
        if not math.isfinite(number):
            raise ConfigError(f"{setting(key)} must be a finite number >= {lowest}, got {number!r}")
        if number < lowest:
            raise ConfigError(f"{setting(key)} must be >= {lowest}, got {number!r}")
    for key, (lowest, highest, highest_allowed) in _SHARES.items():
        share = value(key)
        if not (lowest <= share < highest or (highest_allowed and share == highest)):
            bound = "<=" if highest_allowed else "<"
            raise ConfigError(f"{setting(key)} must be >= {lowest} and {bound} {highest}, got {share!r}")
    if len(cfg.data.patch_size) != 3 or any(edge < 1 for edge in cfg.data.patch_size):
        raise ConfigError(f"{setting('data.patch_size')} must be 3 edges >= 1 voxel, "
                          f"got {list(cfg.data.patch_size)}")
    if cfg.data.spacing is not None and any(not 0 < mm < math.inf for mm in cfg.data.spacing):
        raise ConfigError(f"{setting('data.spacing')} must be 3 sizes > 0 mm (or {names.value(None)} for the "
                          f"median), got {list(cfg.data.spacing)}")
    low, high = cfg.data.ct_window
    if not (math.isfinite(low) and math.isfinite(high) and low < high):  # an infinite bound scales CT to 0
        raise ConfigError(f"{setting('data.ct_window')} must be [low, high], finite, with low < high, "
                          f"got {[low, high]}")
    for key in _PATHS:
        path = value(key)
        if path is not None and not path.strip():
            unset = "" if key in ("data.dataset", "train.output_dir") else f", or leave it out ({names.value(None)})"
            raise ConfigError(f"{setting(key)} is an empty path {path!r}; give a file or folder{unset}")
        if path is not None and path.startswith("~"):
            # The home folder's, as a shell reads it; neither YAML nor a shell after "--key=" expands
            # it, and only the data paths did: a run wrote a folder named "~" in the working folder,
            # and train.init_from refused an export that exists (seventy-third session)
            section, name = key.split(".")
            expanded = dataclasses.replace(getattr(cfg, section), **{name: os.path.expanduser(path)})
            cfg = dataclasses.replace(cfg, **{section: expanded})
    for key in _SEEDS:
        if not 0 <= value(key) < 2**32:
            raise ConfigError(f"{setting(key)} must be >= 0 and < 2**32 (numpy's and torch's seed range), "
                              f"got {value(key)!r}")
    from .data.splits import SplitSettings  # the split's own checks (data.num_folds, data.fold)

    SplitSettings(cfg.data.validation_fraction, cfg.data.num_folds, cfg.data.fold, cfg.data.split_seed, names)
    if cfg.train.channels_last_norm and not cfg.train.channels_last:  # else a setting that does nothing
        raise ConfigError(f"{setting('train.channels_last_norm')} keeps the channels-last layout through the norms, "
                          f"and needs {_set(names, 'train.channels_last', True)}; set both, or leave it out")
    # else torch's "Nesterov momentum requires a momentum" at the optimizer, after the preprocessing
    if cfg.optim.optimizer == "sgd" and cfg.optim.nesterov and cfg.optim.momentum == 0:
        momentum = names.setting("optim.momentum")
        raise ConfigError(f"{setting('optim.nesterov')} needs a momentum ({momentum} > 0, nnU-Net's is 0.99); set "
                          f"one, or {_set(names, 'optim.nesterov', False)} for plain SGD")
    if cfg.data.regions is not None and cfg.data.binarize:  # one region would be the one foreground class
        raise ConfigError(f"{setting('data.regions', 'data.binarize')} exclude each other: binarize merges every "
                          "label value into one class, regions unite values themselves; drop one of the two")
    if cfg.data.region_order is not None and cfg.data.regions is None:
        # An nnU-Net dataset.json's regions are ordered by its own "regions_class_order" (a probe took
        # "which is not set" for a bug: its regions were declared, in the dataset.json)
        raise ConfigError(f"{setting('data.region_order')} orders {names.setting('data.regions')}, which is not "
                          "set; declare the regions, or leave the order out (regions declared in an nnU-Net "
                          "dataset.json are painted in its \"regions_class_order\")")
    tracker_names(cfg.train.trackers, setting("train.trackers"))  # by name: whether installed is the Accelerator's
    if cfg.data.synthetic.num_validation >= cfg.data.synthetic.num_cases:
        raise ConfigError(f"{setting('data.synthetic.num_validation')} ({cfg.data.synthetic.num_validation}) must "
                          f"be below {names.setting('data.synthetic.num_cases')} ({cfg.data.synthetic.num_cases}): "
                          "some cases must train")
    return cfg


def _setting(names, *keys: str) -> str:
    """The settings ``keys`` at the head of a message as ``names`` says them: "setting data.spacing" in the
    config's words, the keyword alone ("spacing") where the caller takes it as one."""
    said = [names.setting(key) for key in keys]
    head = ("settings " if len(keys) > 1 else "setting ") if said == list(keys) else ""
    return head + " and ".join(said)


def _said(names: Names | None, key: str) -> str:
    """:func:`_setting` of one key, the config's "setting data.spacing" where no ``names`` are given."""
    return f"setting {key}" if names is None else _setting(names, key)


def _set(names, key: str, value) -> str:
    """``key`` given ``value`` as ``names`` writes it: YAML's "train.channels_last: true" in the config's words,
    Python's "channels_last=True" where the caller takes it as a keyword."""
    return f"{key}: {names.value(value)}" if names.setting(key) == key else names.set_to(key, value)


def dump_config(cfg: Config) -> str:
    """The resolved config as YAML that ``load_config`` reads back, in UTF-8: a path such as "wé 日本"
    is written as it reads, not escaped ("w\\xE9 \\u65E5\\u672C", as before the seventy-fifth session).
    Relative paths are written absolute (``with_absolute_paths``), each on one line (YAML folds a value
    at 80 columns, and an absolute path is often longer)."""
    return yaml.safe_dump(with_absolute_paths(plain_data(cfg.to_dict())), sort_keys=False, allow_unicode=True,
                          width=2 ** 20)


# What two of the path settings (_PATHS) take that names no path.
_NOT_A_PATH = {"data.dataset": "synthetic", "train.resume": "latest"}


def with_absolute_paths(raw: dict) -> dict:
    """``raw`` (a config as ``Config.to_dict`` gives it, or as read back from a run's YAML) with each
    relative path setting made absolute against the working folder, in place.

    The run's config.yaml is read from other folders than the one it was launched from: by ``cache
    --config`` (which the run's note names), by a rerun of it, by someone reading what a run trained on.
    Kept relative, as typed until the eightieth session, its data.dataset and data.cache_dir named
    another dataset and cache there, or none. (``load_config`` expands ``~``; an older file's is kept.)"""
    for key in _PATHS:
        section, name = key.split(".")
        part = raw.get(section)
        value = part.get(name) if isinstance(part, dict) else None
        if isinstance(value, str) and value and value != _NOT_A_PATH.get(key) and not value.startswith("~") \
                and not os.path.isabs(value):
            raw[section][name] = os.path.abspath(value)
    return raw


def path_as_moved(saved, was: Path, now: Path) -> str | None:
    """Where the absolute path ``saved`` lies now if it moved along with the folder ``was``, which is
    ``now`` here; None where it is no path or lay outside what moved.

    What moved is the widest folder the two names share the end of: a run folder
    /home/me/project/output/demo now at /scratch/me/project/output/demo took /home with it, as far
    as the names tell. Wider than the project, perhaps: a caller compares the result with the path
    it has now, so a path that did not move (/home/me/data, named so still) is no change either way.
    """
    if not isinstance(saved, str) or not os.path.isabs(saved):
        return None
    while was.name and was.name == now.name and len(was.parts) > 2 and len(now.parts) > 2:
        was, now = was.parent, now.parent
    path = Path(os.path.normpath(saved))
    return str(now / path.relative_to(was)) if path.is_relative_to(was) else None


# What a resume is expected to change: the run's length and how this launch resumes it.
_RESUME_SETTINGS = ("train.max_steps", "train.resume", "train.overwrite")


def settings_changed(saved_config: Path, config_yaml: str, moved: tuple[Path, Path] | None = None
                     ) -> dict[str, tuple]:
    """``{key: (saved, now)}`` for each setting in which ``config_yaml`` differs from a checkpoint's saved
    config (none when either is missing or empty, as for ``fit``'s checkpoints), leaving out what a
    resume is expected to change: a run resumed as it was written says nothing. A setting the saved
    config lacks (added to the package after the checkpoint was written) is compared as its default.
    ``moved``: (was, now), the saved run's folder as it wrote it and as it is reached now
    (``resume_config_changes.run_folder_moved``): a path setting that moved with it is no change."""
    saved = yaml.safe_load(saved_config.read_text(encoding="utf-8")) if Path(saved_config).is_file() else None
    now = yaml.safe_load(config_yaml) if config_yaml else None
    if not isinstance(saved, dict) or not isinstance(now, dict):
        return {}
    # a checkpoint's config.yaml from before the paths were written absolute: relative to where it ran,
    # most likely where this run runs (the same project folder)
    saved = with_absolute_paths(saved)

    def flat(node, prefix=""):
        if not isinstance(node, dict):
            return {prefix.rstrip("."): node}
        return {key: value for name, child in node.items() for key, value in flat(child, f"{prefix}{name}.").items()}

    before, after = flat(saved), flat(now)
    # A setting added since the checkpoint was written is not in its config: it ran as the default.
    defaults = flat(plain_data(Config().to_dict()))
    before.update({key: defaults[key] for key in after.keys() - before.keys() if key in defaults})
    return {key: (before.get(key), after.get(key)) for key in sorted({*before, *after})
            if before.get(key) != after.get(key) and key not in _RESUME_SETTINGS
            and not (moved and key in _PATHS and path_as_moved(before.get(key), *moved) == after.get(key))}


def joined_overrides(items: list[str]) -> list[str]:
    """``--section.key value``, as argparse users write options, joined into ``--section.key=value``."""
    joined, index = [], 0
    while index < len(items):
        item = items[index]
        has_value_next = index + 1 < len(items) and not items[index + 1].startswith("--")
        if item.startswith("--") and "=" not in item and has_value_next:
            values = [items[index + 1]]
            while index + 1 + len(values) < len(items) and _a_bare_word(items[index + 1 + len(values)]):
                values.append(items[index + 1 + len(values)])
            if len(values) > 1 and (split := _split_by_the_shell(item, values)):
                raise ConfigError(split)
            if len(values) > 1 and not _takes_a_list(item):  # `--train.output_dir out/my run`: not a list
                raise ConfigError(f"{item} takes one value, got {' '.join(values)}: if it is one value with spaces "
                                  f"(the shell splits a value at its spaces), quote it, {item}='{' '.join(values)}'")
            if len(values) > 1:  # `--data.patch_size 32 32 32`, as plan's --patch takes it: "override '32'" before
                raise ConfigError(f"{item} takes one value, got {' '.join(values)}: give a list as one YAML value, "
                                  f"{item}=[{','.join(values)}]")
            joined.append(f"{item}={values[0]}")
            index += 2
        else:
            key, _, value = item.partition("=")
            rest = list(itertools.takewhile(_a_bare_word, items[index + 1:]))
            if item.startswith("--") and value and rest:  # `--model.args={channels: [4, 8]}` unquoted
                raise ConfigError(_split_by_the_shell(key, [value, *rest]) or
                                  f"{key}={value} is followed by {' '.join(rest)}, which is no setting: if it is part "
                                  f"of the value (the shell splits a value at its spaces), quote it, "
                                  f"{key}='{' '.join([value, *rest])}'")
            joined.append(item)
            index += 1
    return joined


def _split_by_the_shell(key: str, words: list[str]) -> str | None:
    """The error for a value the shell split at its spaces (``--model.args={channels: [4, 8]}`` unquoted),
    where the words joined again are one YAML list or mapping, else None. Each word was taken for a value
    of its own: "not valid YAML ... column 11" named no cause, and "give a list as one YAML value" proposed
    ``--model.args=[{channels:,[4,8]}]`` (a training audit's probe)."""
    text = " ".join(words)
    try:
        if not isinstance(yaml.safe_load(text), (list, dict)):
            return None
    except yaml.YAMLError:
        return None
    return (f"{key}'s value was split by the shell at its spaces ({' | '.join(words)}): quote it, {key}='{text}' "
            f"(or write it without spaces)")


def _takes_a_list(option: str) -> bool:
    """Whether the setting ``--section.key`` may be a list (True where it is no setting: its own error
    follows). An unquoted path with a space, ``--train.output_dir out/my run``, was told to be given as
    the list ``--train.output_dir=[out/my,run]`` (a review's probe)."""
    if option.lstrip("-") in NAME_LISTS:  # names, comma separated or a list
        return True
    cls, (*sections, name) = Config, option.lstrip("-").split(".")
    for section in sections:
        cls = typing.get_type_hints(cls).get(section)
        if not dataclasses.is_dataclass(cls):
            return True
    hint = typing.get_type_hints(cls).get(name)
    if hint is None:
        return True
    kinds = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    return any(kind is typing.Any or typing.get_origin(kind) in (list, tuple) or kind in (list, tuple)
               for kind in kinds)


def _a_bare_word(item: str) -> bool:
    """Neither an option, an override nor a config file: a second value after ``--section.key value``."""
    return not item.startswith("--") and "=" not in item and not item.lower().endswith((".yaml", ".yml"))


def _split_override(item: str) -> tuple[str, str]:
    body = item[2:] if item.startswith("--") else item
    if "=" not in body:
        if item.lower().endswith((".yaml", ".yml")):  # the experiment file given without its flag
            raise ConfigError(f"{item!r} looks like a config file; give it as --config {shell_word(item)}")
        raise ConfigError(f"override {item!r} must look like --section.key=value (or --section.key value)")
    key, value = body.split("=", 1)
    return key.strip(), value


def _set_dotted(raw: dict, key: str, value: Any) -> None:
    parts = key.split(".")
    node = raw
    for part in parts[:-1]:
        if node.get(part) is None:  # `train:` with every key commented out is an empty section in YAML
            node[part] = {}
        node = node[part]
        if not isinstance(node, dict):
            raise ConfigError(f"override {key!r}: {part!r} is a value, not a section")
    node[parts[-1]] = value


def did_you_mean(name: str, choices, cutoff: float = 0.75) -> str:
    """" (did you mean 'x'?)" for the closest of ``choices`` to a misspelled ``name``, else ""."""
    close = closest_key(name, choices, cutoff)
    return f" (did you mean {close!r}?)" if close else ""


def closest_key(name: str, choices, cutoff: float = 0.75) -> str | None:
    """The closest of ``choices`` to a misspelled ``name`` in spelling, else None. One written in other case or
    without (or with other) separators is that choice whatever the cutoff: MONAI's and accelerate's spellings
    (UNet, SegResNet, DiceCE, AdamW, BF16) were offered nothing, or were told the list alone, until the
    ninety-sixth session. Offered, not taken: a config, a checkpoint and an export hold one spelling each."""
    choices = sorted(map(str, choices))
    if same := [choice for choice in choices if _folded(choice) == _folded(name) and choice != str(name)]:
        return same[0]
    close = difflib.get_close_matches(str(name), choices, n=1, cutoff=cutoff)
    return close[0] if close else None


def _folded(text) -> str:
    """``text`` without case, spaces, '_' and '-': the spelling a choice's other writings share."""
    return re.sub(r"[\s_-]", "", str(text)).casefold()


def _sections(cls, prefix: str = "") -> dict[str, tuple[str, ...]]:
    """{prefix: the names of its sub-sections}: {"": ("data", "model", ...), "data.": ("synthetic",)}."""
    hints = typing.get_type_hints(cls)
    found = {prefix: tuple(name for name, hint in hints.items() if dataclasses.is_dataclass(hint))}
    for name in found[prefix]:
        found.update(_sections(hints[name], f"{prefix}{name}."))
    return found


_SECTIONS = _sections(Config)


def _every_setting(cls=None, prefix: str = "") -> list[str]:
    """Every setting's dotted name (data.synthetic.seed, optim.lr, ...)."""
    cls, keys = cls or Config, []
    for name, hint in typing.get_type_hints(cls).items():
        if dataclasses.is_dataclass(hint):
            keys += _every_setting(hint, f"{prefix}{name}.")
        else:
            keys.append(prefix + name)
    return keys


_STEPS = "it is train.max_steps here: training is counted in optimizer steps"
_LAUNCH = ("precision is the launch's, not the experiment's: accelerate launch --mixed_precision bf16, "
           "or mixed_precision in the accelerate config file")
_CLASSES = ("the classes are the dataset's own, and the network's outputs follow them: dataset.json's 'labels', or "
            "data.labels for a CSV ({0: background, 1: liver})")
_CHANNELS = "the input channels are the dataset's: dataset.json's 'modality' or 'channel_names', a CSV's image columns"
_DEVICES = ("the devices are the launch's: accelerate launch --num_processes N (one process a GPU), or the "
            "accelerate config file")
#: Names other tools give these settings (accelerate, PyTorch Lightning, nnU-Net), and where each is
#: here: a probe's ``--train.epochs 1`` or ``--train.mixed_precision=bf16`` got the list of thirty-three
#: valid keys alone, none of them close in spelling.
NAMED_ELSEWHERE = {"epochs": _STEPS, "num_epochs": _STEPS, "max_epochs": _STEPS,
                   "mixed_precision": _LAUNCH, "precision": _LAUNCH,
                   "gradient_accumulation_steps": "it is train.grad_accum_steps here",
                   "learning_rate": "it is optim.lr here",
                   "config": "the experiment file is given as --config FILE",
                   # MONAI's tutorials' names (hundred-and-fourth session's probe: the list of valid keys alone)
                   **dict.fromkeys(("roi_size", "spatial_size"), "it is data.patch_size here"),
                   "pixdim": "it is data.spacing here, the voxel size in mm every case is resampled to",
                   "val_interval": "it is train.val_every here, counted in optimizer steps",
                   "amp": _LAUNCH,
                   **dict.fromkeys(("num_classes", "out_channels", "classes"), _CLASSES),
                   "in_channels": _CHANNELS,
                   **dict.fromkeys(("device", "gpus", "num_gpus"), _DEVICES)}
#: Names whose setting is another than the one of the same name in another section: optim.name was told
#: "it is model.name", the network's name, where the optimizer was meant (hundred-and-fourth session)
NAMED_IN_SECTION = dict.fromkeys(("optim.name", "optim.type"), "the optimizer is optim.optimizer")


def _where_it_may_be(name: str, names: set[str], prefix: str, section: bool, said: Names | None = None) -> str:
    """For an unknown key: a close spelling in its section, else the sections that have it
    (``train.lr`` is ``optim.lr``), else where another tool's name for it is here (NAMED_ELSEWHERE).
    A list of thirty valid keys alone left the user to find it.
    A mapping (``section``) is first read as a misspelled section, then as a setting whose value is one.
    Each key as ``said`` names it (the config's where None): the estimator's ``compile={"enabld": True}`` was
    offered 'train.compile.enabled' until the ninety-fifth session. NAMED_ELSEWHERE's ways are the config's and
    the command line's (--config FILE, the launch's precision), so where the settings are keywords it says none."""
    setting = said.setting if said is not None else str
    if said is None and (meant := NAMED_IN_SECTION.get(prefix + str(name))):
        return f" ({meant})"
    sections = [key for key in names if key in _SECTIONS.get(prefix, ())]
    if section and (close := closest_key(name, sections, cutoff=0.6)):
        return f" (did you mean {setting(prefix + close)!r}?)"
    # The same name in another section before a close spelling in this one: data.batch_size was "did you
    # mean 'data.patch_size'?" (until the hundred-and-fourth session), where train.batch_size was meant
    elsewhere = [key for key in _every_setting() if key.rsplit(".", 1)[-1] == name]
    if elsewhere:
        return f" (it is {' or '.join(map(setting, elsewhere))})"
    # a mapping may also be a setting's value (model.args, data.labels, train.loss_args)
    if close := closest_key(name, names):
        return f" (did you mean {setting(prefix + close)!r}?)"
    if setting("optim.lr") != "optim.lr":  # keywords: these ways are not theirs
        return ""
    alias = difflib.get_close_matches(str(name), NAMED_ELSEWHERE, n=1, cutoff=0.8)
    return f" ({NAMED_ELSEWHERE[alias[0]]})" if alias else ""


def _build(cls, raw: Any, prefix: str, names: Names | None = None):
    """``cls`` of ``raw``'s values, each checked and converted (``_coerce``); a ConfigError says a value's setting as
    ``names`` does (the config's key by default)."""
    said = names
    if raw is None:
        raw = {}
    names = {f.name for f in dataclasses.fields(cls)}
    if not isinstance(raw, dict):
        switch = f" (to switch it on or off: {prefix}enabled={str(raw).lower()})" if (
            isinstance(raw, bool) and "enabled" in names) else ""  # the README's "train.compile" read as a switch
        raise ConfigError(f"{_said(said, prefix.rstrip('.') or '<root>')} must be a mapping, got {raw!r}{switch}")
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(raw) - names)
    if unknown:  # each key as ``said`` names it: the config's under a keyword's dict until the ninety-fifth session
        setting = said.setting if said is not None else str
        raise ConfigError(
            f"unknown setting '{setting(prefix + str(unknown[0]))}'"
            f"{_where_it_may_be(unknown[0], names, prefix, isinstance(raw[unknown[0]], dict), said)}; valid keys "
            f"under {setting(prefix.rstrip('.')) or 'the top level'} are: {', '.join(sorted(names))}"
        )
    values = {name: _coerce(hints[name], raw[name], f"{prefix}{name}", said) for name in raw}
    return cls(**values)


#: Settings held as comma-separated names that may also be given as a list of names (YAML
#: ``trackers: [tensorboard, wandb]``, as accelerate's ``log_with`` takes them; refused before the
#: thirty-second session as "must be str").
NAME_LISTS = frozenset({"train.trackers"})

#: The tracker names accelerate 1.16 takes (``accelerate.utils.LoggerType.list()``, "all" the installed ones), kept
#: here so that a misspelt one is refused with the other settings, before torch, MONAI and accelerate are imported:
#: ``--train.trackers=tensorbord`` was refused after them (8 s) and after the earlier-run check until the
#: hundred-and-twenty-fourth session (helper h132). tests/test_config.py checks it against accelerate's own.
ACCELERATE_TRACKERS = ("all", "aim", "tensorboard", "wandb", "trackio", "comet_ml", "mlflow", "clearml", "dvclive",
                       "swanlab")
#: The accelerate release ACCELERATE_TRACKERS was read from: a newer one may know a tracker it does not (review r116).
ACCELERATE_TRACKERS_OF = (1, 16)


def _newer_accelerate() -> bool:
    """Whether the installed accelerate is newer than ``ACCELERATE_TRACKERS_OF``, read from its metadata, without
    importing it (torch): a tracker it added is then left to the Accelerator, which checks by accelerate's own list
    (``preparation._trackers``); it was refused by name here until review r116, a right run refused."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        release = tuple(int(part) for part in re.findall(r"\d+", version("accelerate"))[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return release > ACCELERATE_TRACKERS_OF


def tracker_names(names, setting: str = "setting train.trackers", known=None) -> list[str]:
    """The accelerate trackers that ``names`` gives: comma-separated names or a list of them, as
    ``train.trackers`` takes them (``NAME_LISTS``); "none", [], None or False for none ([]). Else a ConfigError
    naming ``setting`` as its caller's user says it, with the closest known name: accelerate would raise a bare
    ValueError for a misspelt one; ``fit(trackers=[...])`` or ``None`` was an AttributeError traceback
    (seventy-sixth session's probe). ``known``: the names to check by, accelerate's own where it is imported (the
    Accelerator's); else ``ACCELERATE_TRACKERS``, unless the installed accelerate is newer. Two misspelt names are
    each offered its closest (the first alone until review r116)."""
    names = _by_name(names)
    if names is None or names is False:
        names = []
    elif isinstance(names, str):
        names = names.split(",")
    elif not (isinstance(names, (list, tuple)) and all(isinstance(name, str) for name in names)):
        raise ConfigError(_not_tracker_names(setting, names))
    names = [n.strip() for n in names if n.strip() and n.strip() != "none"]
    ours = known is None
    known = ACCELERATE_TRACKERS if ours else tuple(known)
    if (unknown := [name for name in names if name not in known]) and ours and _newer_accelerate():
        return names  # accelerate's own list, which may hold them, is the Accelerator's to read
    if unknown:
        raise ConfigError(f"{setting} must be none, or tracker names accelerate knows, comma separated or a list: "
                          f"{', '.join(known)}; got {', '.join(map(repr, unknown))}" + (
                              did_you_mean(unknown[0], known) if len(unknown) == 1 else _each_closest(unknown, known)))
    return names


def _by_name(trackers):
    """accelerate's ``LoggerType`` members (``LoggerType.TENSORBOARD``, as ``log_with`` takes them), alone or in a
    list, as their names: refused as "must be str" (the estimator's) or "must be tracker names" until review r116."""
    def named(tracker):
        return tracker.value if isinstance(tracker, enum.Enum) and isinstance(tracker.value, str) else tracker
    return [named(tracker) for tracker in trackers] if isinstance(trackers, (list, tuple)) else named(trackers)


def _not_tracker_names(setting: str, value) -> str:
    """The refusal of a tracker setting that is no names: a tracker object of one's own too (accelerate's
    ``log_with`` takes a ``GeneralTracker``), which a run cannot save in its config.yaml to resume with."""
    mine = any(type(v).__module__ != "builtins" for v in (value if isinstance(value, (list, tuple)) else [value]))
    return (f"{setting} must be tracker names, comma separated or a list of them, or none; got {value!r}"
            + ("; a tracker object of your own (accelerate's GeneralTracker) is not taken: a run's trackers are "
               "named, as its config.yaml keeps them" if mine else ""))


def _each_closest(names, choices) -> str:
    """" (did you mean 'x' for 'y', ...?)" for those of several misspelt ``names`` that have a closest choice."""
    pairs = [f"{close!r} for {name!r}" for name in names if (close := closest_key(name, choices))]
    return f" (did you mean {', '.join(pairs)}?)" if pairs else ""


#: Values a setting took before it became a choice, read as the choice they became: data.augment
#: was a boolean until the profiles, and ``light`` is exactly its ``true`` (docs/augmentation.md), so
#: an older config or a checkpoint's config.yaml loads (it was refused as "must be one of").
FORMER_VALUES = {"data.augment": {True: "light", False: "none"}}


def _coerce(hint, value, key: str, names: Names | None = None):
    """Check and convert one value to its annotated type, naming the key on failure (as ``names`` says it)."""
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, prefix=key + ".", names=names)
    setting = _said(names, key)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(value, bool) and key in FORMER_VALUES:  # bool only: YAML's 1 is no former value
        value = FORMER_VALUES[key][value]
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{setting} must be one of {', '.join(map(str, args))}; got {value!r}"
                              + did_you_mean(value, args))
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(inner, value, key, names)
    if origin is tuple:
        if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):  # a numpy array
            value = value.tolist()
        if not isinstance(value, (list, tuple)) or len(value) != len(args):
            raise ConfigError(f"{setting} must be a list of {len(args)} values, got {value!r}"
                              + _on_every_axis(value, args))
        return tuple(_coerce(a, v, key, names) for a, v in zip(args, value))
    if origin is list:  # any length, each value of the element type
        if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):  # a numpy array
            value = value.tolist()
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{setting} must be a list, got {value!r}")
        return [_coerce(args[0], v, key, names) for v in value]
    if hint is dict or origin is dict:
        if value is None:  # model.args=None in Python: no arguments over the defaults
            return {}
        if not isinstance(value, dict):
            raise ConfigError(f"{setting} must be a mapping, got {value!r}{_as_a_mapping(key, value)}")
        return dict(value)
    if hint is bool:
        if not isinstance(value, bool):
            true_or_false = "true or false" if names is None else f"{names.value(True)} or {names.value(False)}"
            raise ConfigError(f"{setting} must be {true_or_false}, got {value!r}")
        return value
    # numbers.Integral/Real and os.PathLike: a config built in Python may hold numpy numbers (a patch
    # size from an array) or Paths (cache_dir=Path(...)); YAML gives plain ints, floats and strings.
    # Each becomes the plain value.
    if hint is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if hint is float and isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
        try:
            return float(value)
        except ValueError:
            pass
    if hint is int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if key in NAME_LISTS:  # LoggerType.TENSORBOARD as its name (review r116)
        value = _by_name(value)
    if hint is str and isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if key in NAME_LISTS and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return ",".join(value) or "none"  # the list accelerate's log_with takes; [] is none
    if key in NAME_LISTS and (value is None or value is False):  # YAML's null, false, off, no: none (a probe's
        return "none"  # natural ways to turn the trackers off were "must be str, got None")
    if key in NAME_LISTS:  # "must be str" of a list, which it takes, until review r116
        raise ConfigError(_not_tracker_names(setting, value))
    raise ConfigError(f"{setting} must be {getattr(hint, '__name__', hint)}, got {value!r}")


def _on_every_axis(value, args: tuple) -> str:
    """"; [16, 16, 16] for the same on every axis" where one number was given for a setting of three (a patch edge,
    a voxel size, as MONAI's ``roi_size=96`` and ``plan --patch`` take one): "must be a list of 3 values, got 16"
    alone said nothing of the list meant (the eleventh new user's walk). "" for any other value, and for one the list
    would not take (a patch edge of 16.5). The number is written as given: ``{:g}`` offered a spacing of 0.7421875 mm
    (a 512-voxel CT row) as 0.742188 and a patch of 1234567 as 1.23457e+06, until the review r131."""
    if len(args) != 3 or isinstance(value, bool):
        return ""
    number = value
    if isinstance(value, str) and all(a is float for a in args):  # YAML 1.1 reads 1e-3 (no dot) as a string
        try:
            number = float(value)
        except ValueError:
            return ""
    if not isinstance(number, numbers.Real) or not 0 < number < math.inf:
        return ""
    if all(a is int for a in args):
        if not float(number).is_integer():
            return ""
        value = int(number)  # 16.0: [16, 16, 16], which the setting takes
    return f"; [{value}, {value}, {value}] for the same on every axis"


def _as_a_mapping(key: str, value) -> str:
    """The mapping a list of class names given as ``data.labels`` means, to say beside its refusal; "" for any other
    setting or value. A list (nnU-Net's and MONAI's habit of naming the classes in order) was refused with its
    type alone until the hundred-and-fourth session."""
    if key != "data.labels" or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        return ""
    meant = ", ".join(f"{index}: {name}" for index, name in enumerate(value))
    return f"; as a mapping of label value to class name, the list's names in order are {{{meant}}}"


def plain_data(obj):
    """Tuples to lists, recursively, so YAML/JSON written from it is plain and loads back as written."""
    if isinstance(obj, dict):
        return {k: plain_data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_data(v) for v in obj]
    return obj
