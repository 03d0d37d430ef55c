"""Training-state checkpoints and the exported model.

Two kinds of output, both written so that an interruption never leaves a half-written one behind:

- ``checkpoints/step_N``: ``accelerator.save_state`` (model, optimizer, grad scaler, RNG states and
  every object registered for checkpointing, e.g. the LR schedule and the loop's progress), plus
  the resolved config. Written under a temporary name and renamed when every rank has finished, so
  a folder named ``step_N`` is always complete and ``--resume latest`` can trust it.
- an exported model folder: ``model.safetensors`` (full-precision state dict of the unwrapped
  network) + ``config.json`` (MONAI class and arguments, labels, patch size, spacing,
  normalisation). It loads into the plain MONAI network with ``strict=True`` (``load_exported``).
  A tensor that the network registers under two names (DynUNet's ``skip_layers`` repeat its
  encoder and decoder) is written once; ``load_weights`` (or ``safetensors.torch.load_model``)
  fills the other name.

Saving is collective: ``save_state`` and ``get_state_dict`` run on every rank (under FSDP or ZeRO-3
they gather shards), while files that exist once are written by the main process only.

``PreemptionSignals`` turns a scheduler's notice (SIGTERM or SIGUSR1) into a flag that the loop
acts on at its next collective; see docs/checkpoints.md.
"""

from __future__ import annotations

import json
import logging
import math
import re
import shutil
import signal
import threading
from pathlib import Path
from typing import NamedTuple

import torch
import yaml
from accelerate.utils import DistributedType
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from .checkpoint_files import WRITTEN_BYTES
from .config import ConfigError, is_whole_number
from .data.errors import DataError
from .data.preprocess_settings import code_version_difference
from .data.workers import PREEMPTION_SIGNALS
from .files import remove_stale_temporaries, replace_folder, sync_directory, sync_folder, with_the_usual_mode
from .model_folders import (LAYOUT_FILE, STEP_DIR, check_initial_weights, complete_checkpoints,
                            read_export_json)
from .models import (ModelSpec, bridgeable, build_from_spec, input_layer_names, meta_network, model_spec,
                     output_layer_names, spec_differences)
from .ranks import on_every_rank, on_main
from .strategy import checkpoint_layout, resume_conflict

# Hidden step folders: one being written (.partial) or one being deleted (.old). Neither is ever
# resumed from, and the next save removes any a killed process left behind.
HIDDEN_STEP_DIR = re.compile(r"^\.step_(\d+)\.(partial|old)$")
EXPORT_FORMAT_VERSION = 1
# The keys of an export's config.json that loading it and predicting with it cannot do without.
EXPORT_MODEL_KEYS = ("name", "monai_class", "args")
EXPORT_KEYS = ("in_channels", "num_classes", "patch_size")
# The resolved preprocessing the checkpoint's weights were trained under (train only; fit's loader is the user's).
PREPROCESSING_FILE = "preprocessing.json"
# What the export's config.json holds besides the weights and their step (the network's spec, labels,
# channels, patch, preprocessing): with it, ``accelerated-seg export`` makes a model of any checkpoint.
EXPORT_DESCRIPTION_FILE = "export.json"
# The cases the checkpoint's weights trained on and were validated on (train only), ``Manifest.split_record``.
SPLIT_FILE = "split.json"


class CheckpointNotSaved(RuntimeError):
    """A checkpoint could not be written (a full disk, a folder made read-only); the message says why,
    what is free there, and which whole checkpoint a resume continues from."""


def _not_saved(error: Exception, what: str, folder: Path, checkpoints_dir: Path) -> CheckpointNotSaved:
    """``what`` (the checkpoint step_N, the export model/) could not be written into ``folder``."""
    try:
        free = f"{shutil.disk_usage(folder).free / 2**30:.1f} GiB free there"
    except OSError:
        free = "its free space unknown"
    saved = complete_checkpoints(checkpoints_dir) if checkpoints_dir.is_dir() else []
    where = (f"the newest whole checkpoint, {saved[-1]}, is untouched: make room (or make the folder writable) and "
             f"run the same command with --train.resume=latest (resume='latest' from Python) to continue from it"
             if saved else "no whole checkpoint was saved before it: make room (or make the folder writable) and "
             "start again")
    # torch's own message for a full disk names neither the file nor the cause ("unexpected pos 39616 vs
    # 39504"), and a traceback from the loop read as a bug (sixty-ninth session): one line instead.
    return CheckpointNotSaved(f"saving {what} into {folder} failed "
                              f"({type(error).__name__}: {error}); {free}. {where}")


def _every_ranks_files_there(partial: Path, processes: int) -> None:
    """Refuse a checkpoint that lacks another rank's files as the main process sees the folder.

    Each rank writes its own random states into the checkpoint folder; a node whose train.output_dir
    was a folder of its own wrote them there, and the run went on saving checkpoints that lacked them
    (a resume then only logged "Could not load random states", sixty-ninth session).
    """
    from accelerate.utils.constants import RNG_STATE_NAME

    missing = [rank for rank in range(processes) if not (partial / f"{RNG_STATE_NAME}_{rank}.pkl").is_file()]
    if missing:
        raise ConfigError(f"the checkpoint {partial.name} lacks the files of rank(s) "
                          f"{', '.join(map(str, missing))}, which they wrote into train.output_dir as they see it: "
                          f"train.output_dir must be one folder that every node sees (a shared filesystem), not "
                          f"a folder of each node's own")


def save_training_state(accelerator, checkpoints_dir: Path, step: int, keep_last: int, config_yaml: str,
                        records: dict[str, dict] | None = None) -> Path:
    """Save the full training state as ``checkpoints_dir/step_<step>``; keep the newest ``keep_last``.

    Beside accelerate's files go the run's ``config.yaml`` and ``records``, JSON files by name: train
    saves what its weights were trained on (``PREPROCESSING_FILE``, ``check_resume_preprocessing``),
    the cases it trained and validated on (``SPLIT_FILE``, ``check_resume_split``) and what exporting
    it needs (``EXPORT_DESCRIPTION_FILE``, ``checkpoint_export``).
    """
    final = checkpoints_dir / f"step_{step}"
    partial = checkpoints_dir / f".step_{step}.partial"
    # What the main process alone writes goes through on_main, what every rank writes through
    # on_every_rank: an error is then raised on every rank. Raised on the main process alone, it left
    # the others in the barrier that followed (gloo: "Connection closed by peer" after our message;
    # NCCL: its timeout), the seventy-third session's review.

    def make_the_folder():
        for stale in _hidden_checkpoints(checkpoints_dir):  # left over from runs killed while saving or rotating
            shutil.rmtree(stale, ignore_errors=True)
        try:  # a folder gone read-only: a traceback before the seventy-second session
            partial.mkdir(parents=True)
        except OSError as error:
            raise _not_saved(error, f"the checkpoint {final.name}", checkpoints_dir, checkpoints_dir) from error

    def write_the_state():
        try:
            accelerator.save_state(str(partial))  # every rank writes its own RNG state file
            if accelerator.is_main_process:
                with_the_usual_mode(*partial.glob("*.safetensors"))  # accelerate's save_file's are owner-only
                (partial / "config.yaml").write_text(config_yaml, encoding="utf-8")
                for name, content in (records or {}).items():
                    (partial / name).write_text(json.dumps(content, indent=1))
                # The sizes of the text files beside it: YAML cut at a line's end still parses, as a shorter
                # config, which no reader notices (check_checkpoint_files compares them).
                written = {name: (partial / name).stat().st_size for name in ("config.yaml", *(records or {}))}
                (partial / LAYOUT_FILE).write_text(json.dumps({**checkpoint_layout(accelerator),
                                                               WRITTEN_BYTES: written}, indent=1))
            # Each rank flushes what it wrote (and, on one machine, finds the rest flushed already)
            # before the main process renames the folder into place: see files.py.
            sync_folder(partial)
        # the hidden .partial stays; the next save removes it. SafetensorError: a full disk while the
        # weights were written (no OSError: a traceback before the seventy-third session)
        except (OSError, RuntimeError, SafetensorError) as error:
            raise _not_saved(error, f"the checkpoint {final.name}", checkpoints_dir, checkpoints_dir) from error

    def name_it_and_rotate():
        # The same step saved by an earlier attempt is replaced. Every folder is renamed out of the
        # step_N names before it is deleted: a kill during the deletion must not leave half a
        # checkpoint under a name that --resume latest trusts.
        try:
            replaced = _retire(final) if final.exists() else None
            partial.rename(final)  # atomic on one filesystem: from here on the checkpoint exists whole
            sync_directory(checkpoints_dir)
        except OSError as error:
            raise _not_saved(error, f"the checkpoint {final.name}", checkpoints_dir, checkpoints_dir) from error
        if replaced is not None:
            shutil.rmtree(replaced)
        # The one just written is never rotated away, even where higher-numbered folders are left
        # from an earlier course (set_aside_later_course moves those out of the way when a run
        # resumes an older step; fit's or a user's may remain): it is the state this run continues from.
        for old in complete_checkpoints(checkpoints_dir)[:-max(1, keep_last)]:
            if old != final:
                shutil.rmtree(_retire(old))

    on_main(accelerator, make_the_folder)
    on_every_rank(accelerator, write_the_state)  # every rank has written its files
    processes = accelerator.state.num_processes
    if processes > 1:  # and they are where the main process renames them (a collective)
        on_main(accelerator, lambda: _every_ranks_files_there(partial, processes))
    on_main(accelerator, name_it_and_rotate)
    return final


def remove_killed_writers_leftovers(out: Path) -> list[Path]:
    """Delete what runs killed while writing into the run folder ``out`` left there: hidden checkpoint
    folders (``.step_N.partial`` being saved, ``.step_N.old`` being rotated away) and our writers'
    stale temporaries (``.summary.json.<uuid>.tmp``...). Returns what was removed.

    Call with ``out``'s run lock held, so no live run is writing them. The next save removes the
    hidden folders anyway, but a resume that trains nothing more (at train.max_steps already) or a
    run that is refused later never saves, and a kill there left a whole checkpoint's size of
    ``.step_N.old`` for good (seventy-fourth session's probe). The temporaries keep their hour of
    grace (``remove_stale_temporaries``): a user's own tool may write into the folder as well.
    """
    checkpoints_dir = out / "checkpoints"
    removed = []
    for hidden in _hidden_checkpoints(checkpoints_dir):
        shutil.rmtree(hidden, ignore_errors=True)
        removed.append(hidden)
    removed += remove_stale_temporaries(out)
    if checkpoints_dir.is_dir():  # a file of that name is refused after this, naming it (run_folder)
        removed += remove_stale_temporaries(checkpoints_dir)
    return removed


def _hidden_checkpoints(checkpoints_dir: Path) -> list[Path]:
    if not checkpoints_dir.is_dir():
        return []
    return [p for p in checkpoints_dir.iterdir() if HIDDEN_STEP_DIR.match(p.name)]


def _retire(step_dir: Path) -> Path:
    """Rename ``step_N`` to the hidden ``.step_N.old`` (atomic), to be deleted from there."""
    retired = step_dir.with_name(f".{step_dir.name}.old")
    shutil.rmtree(retired, ignore_errors=True)
    step_dir.rename(retired)
    return retired


def set_aside_later_course(resume_from: Path, out: Path) -> Path | None:
    """Move what the run in ``out`` saved after ``resume_from`` (its checkpoints, and the exports
    ``model/`` and ``best_model/`` whose config.json records a later step) into a sub-folder of
    ``out/checkpoints`` where ``--resume latest`` and the rotation do not look; returns that folder
    (None: nothing was later).

    Resuming an older step starts another course (the loss diverged at step 5000; go back to 4000 with
    a lower rate). The later steps were left beside it under their names until this course saved the
    same steps, so a requeued job's ``--resume latest`` went back to the abandoned course, and its
    best_model/ stood for the new course. They are kept, not deleted: a course the user may still
    want to compare. An export written before the thirty-first session records no step and stays.

    Resuming the newest checkpoint (``--resume latest``) is no other course, and moves nothing: an
    export of a later step is the same course's, written after its last checkpoint and before it was
    stopped, and the resumed steps replace it. It was moved aside as an abandoned course's until the
    sixty-ninth session, so a run killed between a new best and its next checkpoint had no
    ``best_model/`` until it validated that step again, and each such kill left a copy of it behind.
    """
    step = int(STEP_DIR.match(resume_from.name).group(1))
    later = [path for path in complete_checkpoints(resume_from.parent)
             if int(STEP_DIR.match(path.name).group(1)) > step]
    if not later:
        return None
    later += [out / name for name in ("model", "best_model") if _export_step(out / name) > step]
    aside, attempt = resume_from.parent / f"superseded_by_resuming_{resume_from.name}", 1
    while aside.exists():  # a second return to the same step
        attempt += 1
        aside = resume_from.parent / f"superseded_by_resuming_{resume_from.name}_{attempt}"
    aside.mkdir()
    for path in later:
        path.rename(aside / path.name)  # atomic: each checkpoint or export is whole here or there
    return aside


def _export_step(folder: Path) -> int:
    """The step an export's config.json records; -1 where it records none or cannot be read."""
    try:
        step = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("step")
    except (OSError, ValueError, AttributeError):
        return -1
    return step if isinstance(step, int) and not isinstance(step, bool) else -1


def check_resume_layout(checkpoint: Path, accelerator) -> str | None:
    """Refuse a checkpoint this launch cannot load; a warning where it loads but will not continue exactly.

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
                          f"run from its weights: accelerated-seg export {checkpoint} --output <folder>, then "
                          f"--train.init_from=<folder> (the optimizer and schedule start fresh; <run>/model is the "
                          f"last step's weights, not necessarily this step's), or resume with the launch that wrote "
                          f"it (docs/checkpoints.md).")
    return warning and f"WARNING: resuming from {checkpoint}: {warning}"


def check_resume_network(checkpoint: Path, accelerator, model: torch.nn.Module) -> None:
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
    with safe_open(str(weights), framework="pt") as saved_file:
        # DDP's wrapper adds "module." to every name it saves; the network is what is compared.
        saved = {key.removeprefix("module."): tuple(saved_file.get_slice(key).get_shape()) for key in saved_file.keys()}
    network = accelerator.unwrap_model(model)
    current = {key: tuple(value.shape) for key, value in network.state_dict().items()}
    # A tensor registered under two names (DynUNet's skip_layers) is saved under one of them only.
    aliases = shared_tensor_names(network)
    written_under = {name: aliases.get(name, name) for name in current}  # each name -> its tensor's first name
    if differences := _shape_differences(saved, current, written_under):
        raise _another_network_to_resume(checkpoint, differences)


def check_resume_model_settings(checkpoint: Path, name: str, patch_size, args: dict | None) -> None:
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
        raise _another_network_to_resume(checkpoint, differences)


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


def _another_network_to_resume(checkpoint: Path, differences: list[str]) -> ConfigError:
    more = f" (and {len(differences) - 3} more)" if len(differences) > 3 else ""
    return ConfigError(f"cannot resume from {checkpoint}: it holds another network than this run builds "
                       f"({'; '.join(differences[:3])}{more}). model.name, model.args, the image channels or the "
                       f"classes differ from the run that wrote it; resume with its config "
                       f"({Path(checkpoint) / 'config.yaml'}), or start the new network in another train.output_dir")


def check_resume_preprocessing(checkpoint: Path, preprocessing: dict, output_dir: Path) -> None:
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
    differences = preprocessing_differences(json.loads(path.read_text()), preprocessing, "saved")
    try:  # the code that prepared them, which its export description records (seventy-sixth session on)
        described = json.loads((Path(checkpoint) / EXPORT_DESCRIPTION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none: an older checkpoint (export says so), or unreadable
        described = {}
    code = code_version_difference(described, "saved") if isinstance(described, dict) else None
    if differences or code:
        # no setting brings older preprocessing code back: the version that wrote the checkpoint does
        ways = ([f"resume with the settings that wrote it ({Path(checkpoint) / 'config.yaml'}; a median spacing "
                 f"that moved with the cases can be pinned with data.spacing)"] if differences else [])
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
            f"--train.init_from={Path(output_dir) / 'model'} in another train.output_dir")


def check_resume_split(checkpoint: Path, split: dict) -> str | None:
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

    def named(ids: list) -> str:
        shown = sorted(ids)
        return ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")

    leaked = validation.cases_in(trained)
    new = [case for case in validation.cases_not_in(validated) if case not in leaked]
    dropped = validated.cases_not_in(validation)
    if leaked or new or dropped:
        moved = [f"{len(ids)} {what} ({named(ids)})" for ids, what in (
            (leaked, "validation case(s) of this run that its weights trained on"),
            (new, "validation case(s) new to it"),
            (dropped, "case(s) it validated on that this run does not")) if ids]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it was validated on other cases than this run would be "
            f"({saved.get('how', 'its split')} there, {split.get('how', 'this split')} here: {'; '.join(moved)}), "
            f"so the validation Dice would not be held out and one metrics curve and best_model would mix two "
            f"validation sets. Resume with the split that wrote it (data.num_folds, data.fold, data.split_seed, "
            f"data.validation_fraction and the same cases as in {Path(checkpoint) / 'config.yaml'}), or start "
            f"this split as a new run in another train.output_dir (from train.init_from only where none of its "
            f"validation cases trained those weights)")
    added, left_out = training.cases_not_in(trained), trained.cases_not_in(training)
    if added or left_out:
        return (f"WARNING: resuming {checkpoint} on other training cases than it trained on ("
                + "; ".join(f"{len(ids)} {what} ({named(ids)})" for ids, what in (
                    (added, "added"), (left_out, "left out")) if ids)
                + "): the validation cases are the same; the data stream does not continue where it stopped")
    return None


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


def load_initial_weights(model: torch.nn.Module, spec: ModelSpec, model_dir: str | Path) -> InitialWeights:
    """Load an exported model's weights into ``model`` (built from ``spec``), which must be the same
    network, or the same with another number of outputs (fine-tuning on another label set, whose
    output layers then start as built, as nnU-Net's ``-pretrained_weights`` does) or with several
    image channels where it had one (its input layers' weights spread over them). Returns what was not
    loaded as saved (``InitialWeights``), nothing for the same network. A weights file instead of an
    export folder (a MONAI network's state dict) is matched by name and shape (weights_file.py).

    Raises:
        ConfigError: the folder is not an export, or it holds another network or other arguments.
        DataError: its files are damaged (``read_export_config``, ``load_weights``).
    """
    model_dir = Path(model_dir)
    if model_dir.is_file():
        from .weights_file import load_weights_file  # it builds on this module's helpers

        return load_weights_file(model, spec, model_dir)
    check_initial_weights(model_dir)
    weights_path = model_dir / "model.safetensors"
    saved = ModelSpec.from_dict(read_export_config(model_dir)["model"])  # a damaged config.json: one DataError
    if saved == spec:
        load_weights(model, weights_path)
        return InitialWeights([], [])
    if bridgeable(saved, spec):
        return load_weights_adapted(model, weights_path, spec)
    raise _another_network(model_dir, saved, spec)


def check_initial_network(model_dir: str | Path, name: str, patch_size, args: dict | None) -> None:
    """Refuse an export of another network than ``model.name`` and ``model.args`` build, before the
    data work. Until the fifty-ninth session this came from load_initial_weights, once the cases
    were checked (every header read; the demo's phantoms written into the new run's folder) and the
    Accelerator made: 18-20 s in for the demo on 2 cores, 14 s now, the imports alone
    (benchmarks/results/init_from_network_refusal_2cpu.json). The channels and classes, which the data
    decides, are taken as the export's here; load_initial_weights checks them.

    Raises:
        ConfigError: another network or other arguments, each difference named.
        DataError: the export's config.json is damaged (``read_export_config``).
    """
    if Path(model_dir).is_file():  # a weights file: weights_file.py matches it by names and shapes
        return
    saved = ModelSpec.from_dict(read_export_config(model_dir)["model"])
    decided = {key: saved.args[key] for key in ("in_channels", "out_channels") if key in saved.args}
    configured = {key: value for key, value in (args or {}).items() if key not in decided}
    built = model_spec(name, decided.get("in_channels", 1), decided.get("out_channels", 2), patch_size, configured)
    if saved != built:
        raise _another_network(model_dir, saved, built)


def _another_network(model_dir: str | Path, saved: ModelSpec, built: ModelSpec) -> ConfigError:
    # each difference named (the two whole specs, printed, hid a one-number change)
    return ConfigError(f"train.init_from={str(model_dir)!r} holds another network than this run builds "
                       f"({'; '.join(spec_differences(saved, built))}): use the same model.name, model.args "
                       f"and channels as the run that exported it (the classes may differ: the output layers "
                       f"then start afresh; and one channel may become several)")


_UNNAMED_CHANNEL = re.compile(r"image(_\d+)?")


def channel_name_differences(saved: dict, channels: dict, there: str = "there") -> list[str]:
    """"channel 0: FLAIR there, T1w here" for each channel both sides name, and name otherwise
    (case aside). Pairs and CSV tables call theirs image, image_N: no name to compare."""
    named = {str(k): str(v) for k, v in saved.items() if not _UNNAMED_CHANNEL.fullmatch(str(v))}
    return [f"channel {index}: {named[index]} {there}, {name} here" for index, name in
            ((str(k), str(v)) for k, v in channels.items())
            if index in named and not _UNNAMED_CHANNEL.fullmatch(name) and _said(named[index]) != _said(name)]


def _said(name: str) -> str:
    """A channel's name as compared: case and surrounding spaces aside ("T2 " is "t2")."""
    return name.strip().casefold()


def check_resume_channels(checkpoint: Path, channels: dict) -> str | None:
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
        return (f"WARNING: resuming {checkpoint}, whose weights learned from image channels named otherwise "
                f"({'; '.join(differences)}): if these are other scans, not the same ones named anew, stop and "
                f"give the images in its order ({listed(saved)})")
    raise ConfigError(
        f"cannot resume from {checkpoint}: its weights learned from other image channels than this run's data has "
        f"({'; '.join(differences)}). Give the images in its order ({listed(saved)}), or train these weights on "
        f"as a new run: --train.init_from=<its export> in another train.output_dir")


def initial_weights_preparation_note(model_dir: str | Path, preprocessing: dict, channels: dict) -> str | None:
    """A warning when the volumes an export's weights learned from were prepared otherwise than this
    run's (``train.init_from``): another spacing, normalization or crop, or image channels named
    otherwise. Not an error: fine-tuning under new preprocessing is a choice (the way on that a
    refused resume offers), but features learned at another voxel size or intensity scale are a worse
    start, and nothing else would say so. The label mapping is left out: a new label set changes it.
    None when nothing differs, or when ``model_dir`` is no export (``load_initial_weights`` says so).
    """
    if not (Path(model_dir) / "config.json").is_file():
        return None
    export = read_export_config(model_dir)
    # A setting the export does not record (written before it existed) is not compared.
    saved = {key: value for key, value in (export.get("preprocessing") or {}).items() if key != "label_map"}
    settings = preprocessing_differences(saved, {key: preprocessing.get(key) for key in saved}, "there")
    code = code_version_difference(export, "there")
    named = channel_name_differences(export.get("channels") or {}, channels)
    if not (settings or code or named):
        return None
    ways = (["set those data settings (data.spacing, data.normalization, data.ct_window, data.crop_foreground) to "
             "its values"] if settings else []) + (["give the images in its order"] if named else [])
    return (f"WARNING: train.init_from={str(model_dir)!r} learned from volumes prepared otherwise than this run's "
            f"({'; '.join(settings + ([code] if code else []) + named)}); fine-tuning goes on under this run's"
            + (", whose preprocessing code the fine-tuning adapts the weights to" if code else "") + "."
            + (f" To prepare them as the export's were, {' and '.join(ways)}" if ways else ""))


class PreemptionSignals:
    """While active, SIGTERM and SIGUSR1 only record that the job should stop (``received``).

    Schedulers send one of them some time before they kill a job (SLURM: ``--signal``, preemption,
    the time limit). Acting inside the handler would stop this rank alone, at an arbitrary point,
    leaving the other ranks waiting in a collective; instead the loop reads the flag at its
    per-step all-reduce, so every rank learns at the same step that some rank was signalled.
    Handlers can only be installed from the main thread; elsewhere (e.g. training from a thread)
    the signals keep their previous behaviour. On exit the previous handlers are restored.
    """

    def __init__(self):
        self.received: int | None = None  # the signal number, once one arrived
        self._previous: dict = {}

    def __enter__(self) -> "PreemptionSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in PREEMPTION_SIGNALS:
                self._previous[sig] = signal.signal(sig, self._record)
        return self

    def __exit__(self, *exc) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    def _record(self, signum, frame) -> None:
        self.received = signum


def export_model(accelerator, model, spec: ModelSpec | None, metadata: dict, out_dir: Path, *,
                 aliases: dict[str, str], step: int) -> Path | None:
    """Write ``model.safetensors`` + ``config.json`` for the plain network; call on every rank.

    ``step``: the optimizer step of these weights, recorded in ``config.json``.

    ``spec`` None (a user's own network, ``train.fit``): ``config.json`` names only its class.
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
            accelerator.print(f"WARNING: {error}; an earlier export there is kept")
            return None
        except (OSError, SafetensorError) as error:  # a full disk: safetensors' traceback before the 72nd session
            raise _not_saved(error, f"the export {out_dir.name}/ (an earlier one there is kept)", out_dir.parent,
                             out_dir.parent / "checkpoints") from error
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
    where the filesystem can swap two folders, none)."""
    out_dir = Path(out_dir)
    partial = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    save_file(tensors, str(partial / "model.safetensors"), metadata={"format": "pt"})
    with_the_usual_mode(partial / "model.safetensors")  # save_file's is owner-only
    config = {"format_version": EXPORT_FORMAT_VERSION, "model": model, **metadata}
    (partial / "config.json").write_text(json.dumps(config, indent=2))
    sync_folder(partial)  # whole on the disk before it takes the name (files.py)
    replace_folder(partial, out_dir)


def load_exported(model_dir: str | Path, map_location: str = "cpu") -> tuple[torch.nn.Module, dict]:
    """Build the plain MONAI network from ``config.json`` and load ``model.safetensors`` strictly."""
    config = read_export_config(model_dir)
    try:
        model = build_from_spec(ModelSpec.from_dict(config["model"]))
    except (TypeError, ValueError, KeyError, AssertionError) as error:  # a hand edit of config.json
        raise DataError(f"{Path(model_dir) / 'config.json'}: its network {config['model']['monai_class']} cannot "
                        f"be built from its args ({type(error).__name__}: {error}); use the config.json written "
                        f"with these weights") from None
    load_weights(model, Path(model_dir) / "model.safetensors", map_location)
    return model.eval(), config


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
    _load_strictly(model, _read_weights(model, weights_path, device), weights_path)


class InitialWeights(NamedTuple):
    """What ``load_initial_weights`` did not load as saved: the output layers left as built (another
    number of outputs) and the input layers whose one channel was spread over the run's several."""
    fresh: list[str]
    spread: list[str]


def load_weights_adapted(model: torch.nn.Module, weights_path: str | Path, spec: ModelSpec) -> InitialWeights:
    """``load_weights`` into ``model`` (built from ``spec``) of an export of the same network with another
    number of outputs, or with one image channel where ``spec`` has several (``models.bridgeable``).

    Output layers (and deep-supervision heads) keep the values ``model`` was built with; the input
    layers' weights of the one channel are spread over the run's N, each copy divided by N, so the
    network answers N copies of an image as it answered the image. Which tensors those are is read off
    the shapes rather than listed per network (``models.output_layer_names``, ``input_layer_names``).
    A shape that differs otherwise is a weights file that is not its config.json's network, and is
    refused as ``load_weights`` refuses it.
    """
    tensors = _read_weights(model, weights_path, "cpu")
    adapted, unexplained = adapt_to_network(tensors, model.state_dict(), spec)
    if unexplained:
        name = unexplained[0]
        raise DataError(f"{weights_path} does not hold the weights of the network its config.json describes "
                        f"({name} has the shape {tuple(tensors[name].shape)}, which neither another number of "
                        f"outputs nor of channels explains); use the config.json written with these weights")
    _load_strictly(model, tensors, weights_path)
    return adapted


def adapt_to_network(tensors: dict[str, torch.Tensor], built: dict[str, torch.Tensor],
                     spec: ModelSpec) -> tuple[InitialWeights, list[str]]:
    """Make ``tensors`` (a saved state dict, changed in place) fit the network ``built`` from ``spec``
    where fine-tuning can bridge the difference: output layers of another number of outputs are
    replaced by the built ones, input layers of one channel spread over ``spec``'s channels. Returns
    what was done and the names of the tensors whose shapes neither explains."""
    differing = sorted(n for n in built if n in tensors and tensors[n].shape != built[n].shape)
    if not differing:  # the layer names cost two network builds each (on the meta device): only when needed
        return InitialWeights([], []), []
    heads, inputs = output_layer_names(spec), input_layer_names(spec)
    outputs, channels = spec.args["out_channels"], spec.args["in_channels"]
    fresh, spread, unexplained, saved_outputs = [], [], [], set()
    for name in differing:
        saved, here = tuple(tensors[name].shape), tuple(built[name].shape)
        pairs = {(a, b) for a, b in zip(saved, here) if a != b}
        if name in heads and len(saved) == len(here) and {b for _, b in pairs} == {outputs}:
            saved_outputs |= {a for a, _ in pairs}
            tensors[name] = built[name]  # as built: the strict load still checks every other name and shape
            fresh.append(name)
        elif name in inputs and len(here) > 1 and here[1] == channels and saved == (here[0], 1, *here[2:]):
            tensors[name] = tensors[name].repeat(1, channels, *[1] * (len(here) - 2)) / channels
            spread.append(name)
        else:
            unexplained.append(name)
    if len(saved_outputs) > 1:  # output layers that disagree on how many outputs they had
        unexplained += fresh
    return InitialWeights(fresh, spread), unexplained


def _read_weights(model: torch.nn.Module, weights_path: str | Path, device: str) -> dict[str, torch.Tensor]:
    """A safetensors file's tensors, each shared tensor under both of ``model``'s names for it."""
    return with_every_name(model, read_safetensors(weights_path, device, "from the run folder that wrote it"))


def read_safetensors(path: str | Path, device: str = "cpu", copy_from: str = "") -> dict[str, torch.Tensor]:
    """A safetensors file's tensors, or a DataError naming the file (``copy_from``: where a good copy is)."""
    try:
        return load_file(str(path), device=device)
    except SafetensorError as error:  # the library's own traceback named neither the file nor a remedy
        raise DataError(f"{path} cannot be read as safetensors ({error}): the file is damaged or truncated; "
                        f"copy it again" + (f" {copy_from}" if copy_from else "")) from None


def with_every_name(model: torch.nn.Module, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``tensors`` with each tensor that ``model`` registers twice under both of its names, where the
    file wrote one (``shared_tensor_names``)."""
    for second, first in shared_tensor_names(model).items():
        if second not in tensors and first in tensors:
            tensors[second] = tensors[first]
        elif first not in tensors and second in tensors:
            tensors[first] = tensors[second]
    return tensors


def _load_strictly(model: torch.nn.Module, tensors: dict[str, torch.Tensor], weights_path: str | Path) -> None:
    try:
        model.load_state_dict(tensors, strict=True)
    except RuntimeError as error:
        detail = " ".join(str(error).split())[:600]
        raise DataError(f"{weights_path} does not hold the weights of the network its config.json describes "
                        f"({detail}); use the config.json written with these weights") from None
