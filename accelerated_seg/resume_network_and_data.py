"""A checkpoint's network and data against this run's, with torch, as the run is built: each
difference refused (or warned of) with the way on, before accelerate's ``load_state`` fails deep
inside or, worse, loads and trains on. The network: its files' layout under the strategy that saved
them, and its tensors' shapes (from the settings before the data work, from the built network before
the load). The data: the preprocessing its weights were trained under, the cases it was validated on,
its image channels and classes (``check_resume_data``, once the cases are checked).

What a resume changed from its checkpoint's config, read from the two configs alone, is judged earlier
and without torch (resume_config_changes.py); the load itself is resume.py's. Named resume_checks.py
until the ninety-fifth session.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch
import yaml
from accelerate import Accelerator
from accelerate.utils import DistributedType
from safetensors import safe_open

from .checkpoint import PREPROCESSING_FILE, SPLIT_FILE
from .checkpoint_files import EXPORT_DESCRIPTION_FILE, gone_if_rotated_away
from .config import ConfigError
from .data.cases import Case, Manifest, is_unnamed_channel
from .data.errors import DataError
from .data.preprocess_settings import code_version_difference
from .data.splits import SplitSettings, cases_sharing_an_image, seeded_settings
from .exported_model import shared_tensor_names
from .files import by_a_utf8_name
from .model_folders import LAYOUT_FILE, Names, saved_by_fit
from .models import meta_network, model_spec
from .strategy import checkpoint_layout, resume_conflict


def check_resume_layout(checkpoint: Path, accelerator, names: Names = Names()) -> str | None:
    """Refuse a checkpoint this launch cannot load; a warning where it loads but will not continue exactly.
    ``names``: the caller's (``FIT_NAMES`` for ``fit``, which has no init_from and whose checkpoints
    ``accelerated-seg export`` cannot build).

    Raises:
        ConfigError: saved under a strategy whose files this one cannot read (see ``resume_conflict``).
    """
    path = Path(checkpoint) / LAYOUT_FILE
    if not path.is_file():  # written before layouts were recorded: let accelerate try
        return None
    saved = json.loads(path.read_text())
    if saved.get("format") == "deepspeed" and "bf16" not in saved:  # recorded since the seventy-second session
        saved["bf16"] = any(Path(checkpoint).glob("*/bf16_zero_pp_rank_*"))
    error, warning = resume_conflict(saved, checkpoint_layout(accelerator))
    if error:
        raise ConfigError(f"cannot resume from {checkpoint}: {error}. To continue under this launch, start a new "
                          f"run from its weights: {names.way_to_a_new_run_from(checkpoint)}, or "
                          f"resume with the launch that wrote it (docs/checkpoints.md).")
    return warning and f"warning: resuming from {checkpoint}: {warning}"


def check_resume_network(checkpoint: Path, accelerator, model: torch.nn.Module, names: Names = Names()) -> None:
    """Refuse a checkpoint whose network is not this run's, before accelerate's ``load_state``.

    Resuming with other ``model.args`` (or classes, or channels) failed deep in the load, with
    PyTorch's "size mismatch for model.2.conv.weight" traceback. Compared from the safetensors
    header (names and shapes, no weights read), where the state is one unsharded file: FSDP and ZeRO
    keep their own layouts, which ``check_resume_layout`` guards.

    Raises:
        ConfigError: naming the first differences and the config that wrote the checkpoint.
    """
    weights = Path(checkpoint) / "model.safetensors"
    if accelerator.distributed_type in (DistributedType.FSDP, DistributedType.DEEPSPEED) or not weights.is_file():
        return
    with by_a_utf8_name(weights) as name, safe_open(name, framework="pt") as saved_file:
        # DDP's wrapper adds "module." to every name it saves; the network is what is compared.
        saved = {key.removeprefix("module."): tuple(saved_file.get_slice(key).get_shape()) for key in saved_file.keys()}
    network = accelerator.unwrap_model(model)
    current = {key: tuple(value.shape) for key, value in network.state_dict().items()}
    # A tensor registered under two names (DynUNet's skip_layers) is saved under one of them only.
    aliases = shared_tensor_names(network)
    written_under = {name: aliases.get(name, name) for name in current}  # each name -> its tensor's first name
    if differences := _shape_differences(saved, current, written_under):
        raise _another_network_to_resume(checkpoint, differences, names)


def check_resume_model_settings(checkpoint: Path, name: str, patch_size, args: dict | None,
                                names: Names = Names()) -> None:
    """Refuse a checkpoint whose run built a network of other shapes than ``model.name``,
    ``model.args`` and ``data.patch_size`` build here, from the two configs, before the data work.

    ``check_resume_network`` compares the checkpoint's tensors with the network itself, which needs the
    channels and classes that the checked cases decide: a resume with other ``model.args`` was refused
    once every case was checked and preprocessed and the model prepared. Here both networks are built
    on the meta device (shapes only) with the same channels and classes, so only what the settings
    change is compared; other arguments that keep every shape (a dropout rate) may change on a resume,
    as before. Nothing is refused where the checkpoint's config is missing (``fit``'s checkpoints) or
    no longer describes a network this version builds: the later check still runs.

    Raises:
        ConfigError: naming the first differences, as ``check_resume_network`` does.
    """
    saved_config = Path(checkpoint) / "config.yaml"
    saved = yaml.safe_load(saved_config.read_text(encoding="utf-8")) if saved_config.is_file() else None
    if not (isinstance(saved, dict) and isinstance(saved.get("model"), dict) and isinstance(saved.get("data"), dict)):
        return
    saved_model, saved_patch = saved["model"], saved["data"].get("patch_size")
    if (saved_model.get("name"), saved_model.get("args"), saved_patch) == (name, args, list(patch_size)):
        return
    saved_shapes = _settings_shapes(saved_model.get("name"), saved_patch, saved_model.get("args"))
    current = _settings_shapes(name, patch_size, args)
    if saved_shapes is None or current is None:
        return
    if differences := _shape_differences(saved_shapes, current, {key: key for key in current}):
        raise _another_network_to_resume(checkpoint, differences, names)


def _settings_shapes(name, patch_size, args) -> dict | None:
    """The state dict's shapes of the network these settings build, with one channel and two classes
    unless ``args`` name them (the data decides them, and the run checks them); None where the
    settings build no network here, which the run itself then refuses or the later check compares."""
    args = args or {}
    try:
        spec = model_spec(name, args.get("in_channels", 1), args.get("out_channels", 2), patch_size, args)
    except (ConfigError, TypeError, ValueError):
        return None
    return {key: tuple(value.shape) for key, value in meta_network(spec).state_dict().items()}


def _shape_differences(saved: dict, current: dict, written_under: dict) -> list[str]:
    """Each tensor whose shape differs, or that one side lacks; ``written_under``: each of
    ``current``'s names -> the name its tensor is saved under."""
    saved_tensors = {written_under.get(name, name) for name in saved}
    differences = [f"{key}: {saved[key]} saved, {current[key]} here" for key in current
                   if key in saved and saved[key] != current[key]]
    differences += [f"{key} saved only" for key in saved if key not in current]
    return differences + [f"{key} here only" for key in current if written_under[key] not in saved_tensors]


def _another_network_to_resume(checkpoint: Path, differences: list[str], names: Names = Names()) -> ConfigError:
    more = f" (and {len(differences) - 3} more)" if len(differences) > 3 else ""
    if saved_by_fit(checkpoint):  # fit's: no config to resume with (its config.yaml is empty), no train.output_dir
        return ConfigError(f"fit: cannot resume from {checkpoint}: it holds another network than the one given "
                           f"({'; '.join(differences[:3])}{more}): resume it with the network that wrote it, or "
                           f"fit the new network into another checkpoint_dir")
    return ConfigError(f"cannot resume from {checkpoint}: it holds another network than this run builds "
                       f"({'; '.join(differences[:3])}{more}). {names.network}, the image channels or the "
                       f"classes differ from the run that wrote it; resume with its config "
                       f"({Path(checkpoint) / 'config.yaml'}), or start the new network in {names.elsewhere}")


def check_resume_preprocessing(checkpoint: Path, preprocessing: dict, output_dir: Path, names: Names = Names()) -> None:
    """Refuse a checkpoint whose weights were trained on data preprocessed otherwise than this run's.

    A run resumed with another normalization, spacing, crop or label mapping went on training the
    weights on differently prepared volumes, and its export described only the new preprocessing: a
    resume at train.max_steps trained nothing and still rewrote the export's config.json, so
    ``predict`` then prepared scans in a way the weights had never seen. Compared on the resolved
    settings (the median spacing, not ``data.spacing: null``); checkpoints written before this file
    existed are not checked.

    Raises:
        ConfigError: naming each difference, the saved config, and the way to train on under new settings.
    """
    path = Path(checkpoint) / PREPROCESSING_FILE
    if not path.is_file():
        return
    # PreprocessSettings.to_dict leaves binarize out unless it is set: absent is false ("None saved" before)
    differences = preprocessing_differences({"binarize": False, **json.loads(path.read_text())},
                                            {"binarize": False, **preprocessing}, "saved")
    try:  # the code that prepared them, which its export description records (seventy-sixth session on)
        described = json.loads((Path(checkpoint) / EXPORT_DESCRIPTION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none: an older checkpoint (export says so), or unreadable
        described = {}
    code = code_version_difference(described, "saved") if isinstance(described, dict) else None
    if differences or code:
        # no setting brings older preprocessing code back: the version that wrote the checkpoint does
        ways = ([f"resume with the settings that wrote it ({Path(checkpoint) / 'config.yaml'}; a median spacing "
                 f"that moved with the cases can be pinned with {names.setting('data.spacing')})"]
                if differences else [])
        commit = described.get("accelerated_seg_commit") if isinstance(described, dict) else None
        ways += ["resume with the accelerated_seg version that wrote it"
                 + (f" (commit {commit.removesuffix('+modified')}" + (", with local changes)" if
                                                                   commit.endswith("+modified") else ")")
                    if isinstance(commit, str) else "")] if code else []
        way = " and ".join(ways)
        raise ConfigError(
            f"cannot resume from {checkpoint}: its weights were trained on volumes preprocessed otherwise "
            f"({'; '.join(differences + [code] if code else differences)}). {way[0].upper()}{way[1:]}, or "
            f"train these weights on under the new preprocessing as a new run: "
            f"{names.elsewhere_from(Path(output_dir) / 'model')}")


def check_resume_split(checkpoint: Path, split: dict, names: Names = Names(), cases: list[Case] | None = None,
                       given_as: str = "the dataset's own split", spacing_to_pin=None) -> str | None:
    """Refuse a checkpoint that was validated on other cases than this run's; warn where only the
    training cases differ.

    A resume with another ``data.fold`` (or number of folds, split seed, validation fraction, or with
    cases added, which reshuffles the folds) went on silently: the weights were then validated on
    cases they had trained on, the held-out Dice rose (0.758 -> 0.815 in the seventy-first session's
    probe), one metrics curve mixed two validation sets and ``best_model`` was chosen across them.
    Compared with the checkpoint's ``split.json``, or for checkpoints written before it existed, the
    split its run folder's ``run_info.json`` records (that folder's last run's); neither there: not
    checked. A case is the same case where its id or its label file is: ids named after their folders
    change when cases from another folder join (``unique_ids``), files when the dataset moves.

    ``cases``: this run's cases, from which a seeded split of the same settings is told what moved it
    (``_what_moved_the_split``): other cases, another order, or, since the hundred-and-fifth session, the
    grouping of cases that share an image file, which alone was said until the hundred-and-sixth session, of a
    dataset merely re-sorted too. ``given_as``: how this run's source gives a split of its own (a dataset.json's
    'validation' list, validation_pairs), the way on then. ``spacing_to_pin``: the spacing the checkpoint trained
    at, where data.spacing is unset, which a fold's split given as the dataset's own would move (``median_cases``).

    Returns:
        a warning when the validation cases are the same but the training cases are not, else None.

    Raises:
        ConfigError: naming the cases that moved, the saved config, and the ways on.
    """
    saved = _saved_split(Path(checkpoint))
    if saved is None:
        return None
    trained, validated = _SplitSide(saved, "training"), _SplitSide(saved, "validation")
    training, validation = _SplitSide(split, "training"), _SplitSide(split, "validation")
    leaked = validation.cases_in(trained)
    new = [case for case in validation.cases_not_in(validated) if case not in leaked]
    dropped = validated.cases_not_in(validation)
    if leaked or new or dropped:
        moved = [f"{len(ids)} {what} ({_named(ids)})" for ids, what in (
            (leaked, "validation case(s) of this run that its weights trained on"),
            (new, "validation case(s) new to it"),
            (dropped, "case(s) it validated on that this run does not")) if ids]
        way = (f"Resume with the split that wrote it ("
               f"{', '.join(map(names.setting, ('data.num_folds', 'data.fold', 'data.split_seed')))}, "
               f"{names.setting('data.validation_fraction')} and the same cases as in "
               f"{Path(checkpoint) / 'config.yaml'})")
        if cause := _what_moved_the_split(saved, split, cases):
            pinned = (f", with {names.setting('data.spacing')} set to {_shown(list(spacing_to_pin))}, the spacing "
                      f"it trained at (unset, a fold resamples to every case's median, a split given as the "
                      f"dataset's own to its training cases')" if spacing_to_pin and saved["how"].startswith("fold ")
                      else "")
            way = (f"{cause}given as {given_as}: the {len(validated.ids)} validation case(s) "
                   f"{_saved_split_file(Path(checkpoint))} records ({_named(validated.ids)}){pinned}")
        raise ConfigError(
            f"cannot resume from {checkpoint}: it was validated on other cases than this run would be "
            f"({saved.get('how', 'its split')} there, {split.get('how', 'this split')} here: {'; '.join(moved)}), "
            f"so the validation Dice would not be held out and one metrics curve and best_model would mix two "
            f"validation sets. {way}, or start this split as a new run in another folder "
            f"({names.elsewhere_from()} only where none of its validation cases trained those weights)")
    added, left_out = training.cases_not_in(trained), trained.cases_not_in(training)
    if added or left_out:
        return (f"warning: resuming {checkpoint} on other training cases than it trained on ("
                + "; ".join(f"{len(ids)} {what} ({_named(ids)})" for ids, what in (
                    (added, "added"), (left_out, "left out")) if ids)
                + "): the validation cases are the same; the data stream does not continue where it stopped")
    return None


def _named(ids: list) -> str:
    """The cases a refusal names: the first five ids, sorted, and how many more ("a, b, c, d, e and 3 more")."""
    shown = sorted(ids)
    return ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")


# Why a seeded split permutes what it does: a re-sorted CSV was told of the grouping of cases sharing an image (a
# review of the hundred-and-fifth session's change), which played no part there
_PLACES = "the seeded split permutes places in the list of cases, not cases"


def _what_moved_the_split(saved: dict, split: dict, cases: list[Case] | None) -> str | None:
    """Why the same seeded split settings hold out other cases than the saved split, in words that end in the way
    on ("... Resume with that split "), or None where the settings differ or a split was given: 'the split that
    wrote it' is then the way. Told from the cases: other ones (added, renamed), the same in another order (a
    CSV re-sorted; the split picks places), or the same in the order the split of before the hundred-and-fifth
    session, case by case, split as saved (``SplitSettings.listed_before_grouping``), which the grouping of
    cases sharing an image file alone then moved."""
    settings = seeded_settings(saved.get("how"))
    if settings is None or saved.get("how") != split.get("how"):
        return None
    cases = cases or []
    sharing = [case.id for case in cases_sharing_an_image(cases)]
    together = (f" ({len(sharing)} cases here share an image file, {_named(sharing)}, which the seeded split keeps "
                f"together since the hundred-and-fifth session, so the list of then may not make it again either)"
                if sharing else "")
    there, here = _SplitSide(_both_sides(saved), "cases"), _SplitSide(_both_sides(split), "cases")
    new, gone = here.cases_not_in(there), there.cases_not_in(here)
    if new or gone:
        other = "; ".join(f"{len(ids)} {what} ({_named(ids)})" for ids, what in (
            (new, "not in it then"), (gone, "no longer in it")) if ids)
        return (f"The split settings are the same, but the dataset holds other cases than when it was saved "
                f"({other}), and {_PLACES}{together}. "
                + ("Resume with that split " if sharing else "Resume with the cases it was saved with, in their "
                                                             "order, or with that split "))
    if moved := _listed_otherwise(saved, split):
        return (f"The split settings and cases are the same, but listed in another order than when it was saved "
                f"({moved}), and {_PLACES}: a CSV or JSON re-sorted splits otherwise{together}. "
                + ("Resume with that split " if sharing else "List the cases in their order of then, or resume "
                                                             "with that split "))
    if sharing and _grouping_alone_moved(settings, saved, split, cases):
        return (f"The split settings, cases and their order are the same: since the hundred-and-fifth session the "
                f"seeded split keeps cases that share an image file together ({len(sharing)} here: "
                f"{_named(sharing)}), where it split them one by one before, so no setting makes the split that "
                f"wrote it again. Resume with that split ")
    return (f"The split settings and cases are the same, but split otherwise: listed in another order than when "
            f"it was saved ({_PLACES}), or cases share image files otherwise than then. Resume with that split ")


def _both_sides(record: dict) -> dict:
    """A split record's cases, training then validation, as one side named "cases" (``_SplitSide``'s)."""
    labels = record.get("labels") or {}
    both = [*(labels.get("training") or []), *(labels.get("validation") or [])]
    return {"cases": [*record["training"], *record["validation"]], "labels": {"cases": both}}


def _listed_otherwise(saved: dict, split: dict) -> str | None:
    """Two cases listed in the other order than the saved split lists them, said ("a before b there, after it
    here"), or None. Each side of a split keeps the source order, so two cases on one side there and on one side
    here show their order in both lists; the same cases in the order of then never differ so."""
    here_of = _ids_here(saved, split)
    for saved_side in ("training", "validation"):
        for side in ("training", "validation"):
            on_both = {here_of.get(str(case_id)) for case_id in saved[saved_side]} & set(map(str, split[side]))
            then = [here_of.get(str(case_id)) for case_id in saved[saved_side] if here_of.get(str(case_id)) in on_both]
            now = [case_id for case_id in map(str, split[side]) if case_id in on_both]
            if differing := next(((a, b) for a, b in zip(then, now) if a != b), None):
                return f"{differing[0]} before {differing[1]} there, after it here"
    return None


def _ids_here(saved: dict, split: dict) -> dict:
    """Each saved case's id -> this run's id of the same case (by id, or by label file: ``_SplitSide``)."""
    there, here = _both_sides(saved), _both_sides(split)
    here_ids = set(map(str, here["cases"]))
    by_label = {str(label): str(case_id) for case_id, label in zip(here["cases"], here["labels"]["cases"])}
    labels = there["labels"]["cases"] if len(there["labels"]["cases"]) == len(there["cases"]) else []
    return {str(case_id): str(case_id) if str(case_id) in here_ids else by_label.get(str(label))
            for case_id, label in zip(there["cases"], labels or [None] * len(there["cases"]))}


def _grouping_alone_moved(settings: SplitSettings, saved: dict, split: dict, cases: list[Case]) -> bool:
    """Whether the list the split of before the grouping split as saved, with this run's cases, is split by these
    settings into this run's split: then the grouping of cases sharing an image file alone moved it."""
    listed = settings.listed_before_grouping(list(map(str, saved["training"])), list(map(str, saved["validation"])))
    here_of, case_of = _ids_here(saved, split), {case.id: case for case in cases}
    if listed is None or any(case_of.get(here_of.get(case_id)) is None for case_id in listed):
        return False
    try:
        training, validation, _ = settings.split([case_of[here_of[case_id]] for case_id in listed])
    except DataError:  # more folds than groups: no such split here
        return False
    return ([case.id for case in training], [case.id for case in validation]) == (
        list(map(str, split["training"])), list(map(str, split["validation"])))


def _saved_split_file(checkpoint: Path) -> Path:
    """The file ``_saved_split`` read the checkpoint's split from."""
    return checkpoint / SPLIT_FILE if (checkpoint / SPLIT_FILE).is_file() else checkpoint.parent.parent / "run_info.json"


class _SplitSide:
    """The training or validation cases of a split record (``Manifest.split_record``): ids, and their
    label files where recorded (run_info.json files from before the seventy-first session have none)."""

    def __init__(self, record: dict, side: str):
        self.ids = [str(case_id) for case_id in record[side]]
        labels = (record.get("labels") or {}).get(side)
        self.labels = [str(label) for label in labels] if isinstance(labels, list) and len(labels) == len(
            self.ids) else [None] * len(self.ids)
        self._ids, self._labels = set(self.ids), {label for label in self.labels if label is not None}

    def _holds(self, case_id: str, label: str | None) -> bool:
        return case_id in self._ids or (label is not None and label in self._labels)

    def cases_in(self, other: "_SplitSide") -> list[str]:
        """The ids of this side's cases that are cases of ``other`` too (by id or by label file)."""
        return [case_id for case_id, label in zip(self.ids, self.labels) if other._holds(case_id, label)]

    def cases_not_in(self, other: "_SplitSide") -> list[str]:
        return [case_id for case_id, label in zip(self.ids, self.labels) if not other._holds(case_id, label)]


def _saved_split(checkpoint: Path) -> dict | None:
    """The split the checkpoint records, or, for older checkpoints, the one its run folder's
    ``run_info.json`` records (``<run>/checkpoints/step_N``: the run that wrote it, not the folder
    the resumed run trains into, which may be another)."""
    if (checkpoint / SPLIT_FILE).is_file():
        return json.loads((checkpoint / SPLIT_FILE).read_text())
    try:
        split = json.loads((checkpoint.parent.parent / "run_info.json").read_text()).get("split")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(split, dict) and isinstance(split.get("training"), list) and isinstance(split.get("validation"),
                                                                                        list):
        return split
    return None


def preprocessing_differences(saved: dict, here: dict, saved_where: str) -> list[str]:
    """Each preprocessing setting (``PreprocessSettings.to_dict``) that differs, as "key: saved's
    value <saved_where>, here's value here"; tuples compare equal to the lists JSON gives back. The CT
    window is compared only where a side clips with it: until the seventy-first session a zscore run
    recorded its data.ct_window, which had done nothing."""
    here = json.loads(json.dumps(here))
    keys = sorted({*saved, *here})
    if "ct" not in (saved.get("normalization", "zscore"), here.get("normalization", "zscore")):
        keys = [key for key in keys if key != "ct_window"]
    return [f"{key}: {_shown(saved.get(key))} {saved_where}, {_shown(here.get(key))} here" for key in keys
            if not _same_setting(saved.get(key), here.get(key))]


def _same_setting(saved, here) -> bool:
    """Equal, with numbers equal to float32's precision: a median spacing comes from the headers'
    float32 voxel sizes (1.2000000476837158), a spacing given in the config as 1.2."""
    if isinstance(saved, list) and isinstance(here, list) and len(saved) == len(here):
        return all(_same_setting(a, b) for a, b in zip(saved, here))
    if all(isinstance(value, float | int) and not isinstance(value, bool) for value in (saved, here)):
        return math.isclose(saved, here, rel_tol=1e-6)
    return saved == here


def _shown(value):
    """A setting as the user would write it: float32 noise left out (1.2, not 1.2000000476837158)."""
    if isinstance(value, list):
        return "[" + ", ".join(str(_shown(item)) for item in value) + "]"
    return repr(float(f"{value:.7g}")) if isinstance(value, float) else value


def channel_name_differences(saved: dict, channels: dict) -> list[str]:
    """"channel 0: FLAIR there, T1w here" for each channel both sides name, and name otherwise
    (case aside). Pairs and CSV tables call theirs image, image_N, as every channel nothing names is called
    (``cases.is_unnamed_channel``): no name to compare."""
    named = {str(k): str(v) for k, v in saved.items() if not is_unnamed_channel(str(v))}
    return [f"channel {index}: {named[index]} there, {name} here" for index, name in
            ((str(k), str(v)) for k, v in channels.items())
            if index in named and not is_unnamed_channel(name) and _said(named[index]) != _said(name)]


def _said(name: str) -> str:
    """A channel's name as compared: case and surrounding spaces aside ("T2 " is "t2")."""
    return name.strip().casefold()


def check_resume_channels(checkpoint: Path, channels: dict, names: Names = Names()) -> str | None:
    """Refuse a checkpoint whose weights learned from other image channels than this run's data has:
    another number of them, or the same names in another order; return a warning where only names
    differ otherwise (the same scans named anew, "T2" and "T2w", is the user's to judge), else None.

    MSD's BraTS and an nnU-Net conversion of it order the modalities differently: a resume onto the
    other went on training without a word, the validation Dice collapsed and the export
    recorded the new order for weights that had learned the old (seventy-fourth session's probe).
    Another number of channels failed only after the preprocessing, on the tensors' shapes. Compared
    with the checkpoint's export description; checkpoints without one are not checked.
    """
    path = Path(checkpoint) / EXPORT_DESCRIPTION_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8")).get("channels") or {}
    except (OSError, ValueError, AttributeError):  # none (an old checkpoint), or unreadable: export says so
        return None
    if not saved:
        return None

    def listed(names: dict) -> str:
        return ", ".join(str(names[key]) for key in sorted(names, key=int))

    if len(saved) != len(channels):
        differences = [f"{len(saved)} image channel(s) there ({listed(saved)}), {len(channels)} here "
                       f"({listed(channels)})"]
    elif not (differences := channel_name_differences(saved, channels)):
        return None
    elif sorted(map(_said, map(str, saved.values()))) != sorted(map(_said, map(str, channels.values()))):
        return (f"warning: resuming {checkpoint}, whose weights learned from image channels named otherwise "
                f"({'; '.join(differences)}): if these are other scans, not the same ones named anew, stop and "
                f"give the images in its order ({listed(saved)})")
    raise ConfigError(
        f"cannot resume from {checkpoint}: its weights learned from other image channels than this run's data has "
        f"({'; '.join(differences)}). Give the images in its order ({listed(saved)}), or train these weights on "
        f"as a new run: {names.elsewhere_from()}")


def check_resume_classes(checkpoint: Path, labels: dict, regions: dict | None, names: Names = Names()) -> str | None:
    """Refuse a checkpoint whose outputs stand for other classes than this run's data names: the same
    class names in another order, or other regions (a dataset.json's: other names or values); return a
    warning where only names differ otherwise (a class renamed, or another task's) or the regions are
    painted in another order (``regions_class_order``), else None.

    A dataset.json whose labels were listed anew between a run and its resume (its names swapped)
    went on without a word: each output went on learning the class it had learned, under the other's
    name, so metrics.json's per-class curves swapped at the resume and the export named each output
    after the other class (a training audit's probe). Another number of classes is another
    network (``check_resume_network``). Compared with the checkpoint's export description; checkpoints
    without one are not checked.
    """
    path = Path(checkpoint) / EXPORT_DESCRIPTION_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        saved_labels, saved_regions = saved.get("labels") or {}, saved.get("regions")
    except (OSError, ValueError, AttributeError):  # none (an old checkpoint), or unreadable: export says so
        return None
    # The regions the outputs learned are their values, by name (case and spaces aside, as for classes);
    # the order they are painted in (a dataset.json's regions_class_order) is no part of what they learned:
    # one changed alone was refused with the same regions shown there and here (a review's probe)
    if _learned(saved_regions) != _learned(regions):
        raise ConfigError(
            f"cannot resume from {checkpoint}: its network learned other outputs than this run's data declares "
            f"(regions {_shown_regions(saved_regions)} there, {_shown_regions(regions)} here). Resume with the "
            f"dataset's regions as they were, or train these weights on as a new run: {names.elsewhere_from()}")
    if regions is not None and saved_regions.get("order") != regions.get("order"):
        return (f"warning: resuming {checkpoint}, whose regions are painted in another order than this run's data "
                f"paints them (the label value each region paints: {saved_regions.get('order')} there, "
                f"{regions.get('order')} here): its outputs learned the same regions, and the export paints them "
                f"as this run's data says")
    if regions is not None or len(saved_labels) != len(labels):
        return None
    there = {index: str(saved_labels.get(str(index), "")) for index in labels}
    moved = [f"class {index}: {there[index]} there, {labels[index]} here" for index in sorted(labels)
             if _said(there[index]) != _said(str(labels[index]))]
    if not moved:
        return None
    listed = ", ".join(there[index] for index in sorted(labels))
    if sorted(map(_said, there.values())) != sorted(_said(str(name)) for name in labels.values()):
        return (f"warning: resuming {checkpoint}, whose outputs learned classes named otherwise "
                f"({'; '.join(moved)}): if these are other classes, not the same ones named anew, stop and give "
                f"the labels as it had them ({listed})")
    raise ConfigError(
        f"cannot resume from {checkpoint}: its outputs learned the same classes in another order than this run's "
        f"data names them ({'; '.join(moved)}), so each output would go on under another class's name. A class's "
        f"index is its label value's rank: name the classes as the checkpoint does ({listed}) where its names are "
        f"right, else relabel the files and train these weights on as a new run ({names.elsewhere_from()})")


def _learned(regions) -> list | None:
    """What the outputs of ``regions`` (an export's ``Regions.to_dict()``) learned: each one's name (as
    compared) and label values, in output order; None for no regions."""
    if not isinstance(regions, dict):
        return None if regions is None else [regions]  # malformed: unequal to any regions
    return [(_said(str(name)), sorted(values)) for name, values in zip(regions.get("names") or [],
                                                                         regions.get("values") or [])]


def _shown_regions(regions: dict | None) -> str:
    if not regions:
        return "none"
    return ", ".join(f"{name}: {list(values)}" for name, values in zip(regions["names"], regions["values"]))


def check_resume_data(accelerator: Accelerator, checkpoint: Path, settings, manifest: Manifest, out: Path,
                       names: Names, spacing_set: bool = True) -> None:
    """What ``checkpoint`` saved of its data (preprocessing, channels, classes, split) against this run's,
    once the cases are checked and before they are preprocessed: refused, or said, in the caller's ``names``.
    ``spacing_set``: whether data.spacing is set; unset, a fold given back as the dataset's own moves the median."""
    with gone_if_rotated_away(checkpoint, names):  # else an older checkpoint's or another run's records
        check_resume_preprocessing(checkpoint, settings.to_dict(), out, names)
        if warning := check_resume_channels(checkpoint, manifest.channels, names):
            accelerator.print(warning)
        regions = manifest.regions.to_dict() if manifest.regions is not None else None
        if warning := check_resume_classes(checkpoint, manifest.labels, regions, names):
            accelerator.print(warning)
        if warning := check_resume_split(checkpoint, manifest.split_record(), names,
                                         manifest.training + manifest.validation, _split_given_as(manifest, names),
                                         None if spacing_set else _trained_spacing(checkpoint)):
            accelerator.print(warning)


def _trained_spacing(checkpoint: Path) -> list | None:
    """The spacing the checkpoint's volumes were resampled to, as its PREPROCESSING_FILE records it, else None (a
    checkpoint written before that file): the split's refusal named this run's median, which moves with cases added
    or removed, as "the spacing it trained at" until a review in the hundred-and-sixth session."""
    try:
        spacing = json.loads((Path(checkpoint) / PREPROCESSING_FILE).read_text()).get("spacing")
    except (OSError, ValueError, AttributeError):
        return None
    return spacing if isinstance(spacing, list) and len(spacing) == 3 else None


def _split_given_as(manifest: Manifest, names: Names) -> str:
    """How ``manifest``'s source gives a split of its own, the way a resume is told to give its checkpoint's."""
    source = manifest.source_file.name if manifest.source_file is not None else "the dataset's JSON"
    # every row of a CSV with a 'split' column needs a value (csv_table._split_value): the others' was unsaid
    return {"csv": "the CSV's 'split' column ('validation' on those cases' rows, 'train' on the others)",
            "nnunet": f"a splits_final.json beside {source} whose entry {names.setting('data.fold')} holds it",
            # pairs have no file to list it in: the keyword of what made them (Dataset.from_files was told of
            # "a 'validation' list in the dataset's JSON", a file it never read, in the hundred-and-fifth session)
            "pairs": "validation_pairs to from_pairs",
            "load_cases": "validation_pairs to from_pairs, in place of load_cases",
            "from_files": "validation_pairs to Dataset.from_files"}.get(manifest.source_format,
                                                                        f"a 'validation' list in {source}")
