"""Which kind of folder a path is, told from its files alone: an exported model (config.json and
model.safetensors), a training run's folder that holds exports (best_model, model), or a
training-state checkpoint (step_N, with its strategy.json); and of an export, whether its config.json
is JSON with a model section (another program's folder may hold the same two file names) and its
model.safetensors whole, by its header.

Kept apart from exported_model.py and checkpoint.py, which import torch, accelerate (and MONAI):
``accelerated-seg predict`` and ``benchmark predict|infer`` refuse a --model that is no export, and
``export`` a folder that is no checkpoint, before they import them, which takes 7-15 s on 2 cores
(on a cluster's shared filesystem often longer), as ``train`` refuses a mistyped setting at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from safetensors import SafetensorError, safe_open

from .config import ConfigError, did_you_mean
from .data.errors import DataError
from .data.formats.paths import nifti_stem
from .hand_edited import read_json_file
from .shell_words import shell_word

STEP_DIR = re.compile(r"^step_(\d+)$")
# In every training-state checkpoint: the strategy and process count that saved it (checkpoint.py).
LAYOUT_FILE = "strategy.json"
# The way to an export's config.json whole again, where it was cut short or cannot be read
COPY_AGAIN = "copy the export's config.json again from the run folder that wrote it"


@dataclass(frozen=True)
class Names:
    """How the caller spells the ways on and the settings, for the message (the CLI, ``fit``, the estimator
    differ; ``train(names=...)``). Here, beside ``resolve_resume`` and ``checkpoint_gone`` below it, whose messages
    name them too."""

    resume: str = "--train.resume=latest"
    elsewhere: str = "another --train.output_dir"
    overwrite: str = "--train.overwrite=true"
    folder: str = "train.output_dir"
    # before a setting's name where the message names one (resume, keep_last): fit's and the estimator's are
    # keywords; until the ninety-first session a fit was told of train.resume and train.keep_last
    prefix: str = "train."
    # the way on after a stop or a failed save (a Ctrl-C, a full disk); until the ninety-first session a fit's
    # failed save said the command line's
    resume_again: str = "run the same command with --train.resume=latest (resume='latest' from Python)"
    rate: str = "optim.lr"  # what to lower when the loss stays non-finite: fit's is its optimizer's own
    # how a new run there replaces an interrupted one's exports: the command line's words, and the keyword's for
    # train() called from Python (the estimator's own since the ninety-second session)
    overwrite_again: str = "--train.overwrite=true (overwrite=True from Python)"
    written_at_the_end: str = "the export and summary are"  # what a resume at its last step writes (fit: no summary)
    # how a run starts from a checkpoint's weights under another launch ({checkpoint}, {start_from}): fit has no
    # init_from, and the export cannot build its user's network, so until the ninety-first session a fit was sent
    # the wrong way
    new_run_from_the_weights: str = (
        "accelerated-seg export {checkpoint} --output <folder>, then {start_from} (the optimizer and "
        "schedule start fresh; <run>/model is the last step's weights, not necessarily this step's)")
    start_from: str = "--train.init_from=<folder>"  # a new run from an export's weights
    # a new run elsewhere from a checkpoint's export ({export}), where a resume cannot go on with its data
    new_run_elsewhere: str = "--train.init_from={export} in another train.output_dir"
    giving: str = "--{setting}"  # how a run is given a setting ({setting}: as set_to writes it)
    # how a message tells its caller's user to set a setting ({setting}: as set_to writes it): in the config or as a
    # keyword; a script with no flag for it names its own call to edit (examples/estimator.py's Segmentation(...)),
    # whose user was told the estimator's keyword until the hundred-and-twenty-eighth session
    set_in: str = "set {setting}"
    # how a stopped run's saved state (of {folder}'s run, at {step}) becomes a model without resuming it: fit's
    # checkpoints hold a network of its user's, which accelerated-seg export cannot build. {folder} is quoted for a
    # shell, {export} (the run's model/) is the path as prose names it
    model_of_the_state: str = "make a model of it with accelerated-seg export {folder} --output <new folder>"
    # where the run's classes are named (in index order): the estimator's Dataset alone by from_files' class_names
    class_naming: str = "data.labels, a dataset.json's labels, Dataset.from_files' class_names"
    # the config's keys the caller takes by another name than the field's: the patch is from_files' block_shape,
    # the network the estimator's model, model_args (Dataset.fit's the config's model.name, model.args: cfg.model)
    renamed: tuple[tuple[str, str], ...] = ()
    global_batch: bool = True  # whether a global batch size is set: fit's batch is its loader's alone
    # how the run trains in fp32 (fit's and Dataset.fit's precision is the launch's: they have no keyword for it),
    # and how its model then predicts in fp32 (fit's network is its user's, which predict cannot build: none)
    fp32: str = "--mixed_precision no"
    # what sets the run's length in optimizer steps, which a resume beyond it is told to raise: the estimator's
    # fit(epochs=) or (steps=) (told of train.max_steps and train.fit's max_epochs too until the hundred-and-fourth
    # session)
    length: str = "train.max_steps"
    predict_fp32: str = "--precision fp32 for predict"

    def setting(self, key: str) -> str:
        """A config key (``train.max_steps``, ``optim.warmup_steps``) as the caller names it: the key itself on the
        command line, the field's name where the settings are keywords (the estimator's, fit's: no ``prefix``),
        or the name the caller gives it instead (``renamed``: block_shape for data.patch_size)."""
        if key in (renamed := dict(self.renamed)):
            return renamed[key]
        return key if self.prefix or "." not in key else key.partition(".")[2]

    def value(self, value) -> str:
        """A setting's ``value`` as the caller writes it: YAML's words on the command line (false, null), Python's
        where the settings are keywords (False, None)."""
        if not self.prefix:
            return repr(value)
        return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

    def set_to(self, key: str, value) -> str:
        """``key`` given ``value`` as the caller writes it: ``train.val_distances=false`` on the command line,
        ``val_distances=False`` as a keyword."""
        return f"{self.setting(key)}={self.value(value)}"

    @property
    def network(self) -> str:
        """The settings that build the network, as the caller names them (``setting``): model.name, model.args
        in a config, Segmentation's model, model_args to the estimator."""
        return f"{self.setting('model.name')}, {self.setting('model.args')}"

    def model_arg(self, key: str) -> str:
        """An argument of the network as the caller names it: ``model.args.channels`` in a config,
        ``model_args['channels']`` where the arguments are a keyword's dict (the estimator's)."""
        args = self.setting("model.args")
        return f"{args}[{key!r}]" if args.isidentifier() else f"{args}.{key}"

    def elsewhere_from(self, export: str | Path = "<its export>") -> str:
        """``new_run_elsewhere`` from ``export``, in the caller's words: a path quoted for a shell on the command
        line, as Python's string where it is a keyword (the run's own folder's was neither until the
        hundred-and-nineteenth session)."""
        if isinstance(export, Path):
            export = shell_word(export) if self.prefix else repr(str(export))
        return self.new_run_elsewhere.format(export=export)

    def give(self, key: str, value) -> str:
        """How the run is given ``key`` = ``value``: ``--train.head_only_steps=50`` on the command line,
        ``fit(..., head_only_steps=50)`` to the estimator."""
        return self.giving.format(setting=self.set_to(key, value))

    def to_set(self, key: str, value) -> str:
        """``set_in`` of ``key`` = ``value``: ``set train.activation_checkpointing=true`` on the command line, ``set
        activation_checkpointing=True`` to the estimator, the script's own call to edit where it has no flag."""
        return self.set_in.format(setting=self.set_to(key, value))

    def way_to_a_new_run_from(self, checkpoint: Path) -> str:
        """``new_run_from_the_weights`` of ``checkpoint``, in the caller's words."""
        return self.new_run_from_the_weights.format(checkpoint=shell_word(checkpoint), start_from=self.start_from)


FIT_NAMES = Names(resume="resume='latest'", elsewhere="another checkpoint_dir", overwrite="overwrite=True",
                  folder="fit's checkpoint_dir", prefix="", resume_again="call fit again with resume='latest'",
                  rate="the lr of the optimizer given to fit", overwrite_again="overwrite=True",
                  written_at_the_end="the export is", global_batch=False, predict_fp32="",
                  length="fit's max_steps or max_epochs",
                  model_of_the_state=("for a model of it now, call fit again with resume='latest' and max_steps="
                                      "{step}, which trains nothing and exports it to {export}"),
                  new_run_from_the_weights=(
                      "resume it under the launch that wrote it with max_steps at its step, which trains nothing and "
                      "exports them to <checkpoint_dir>/model, then load that model.safetensors into your network "
                      "(safetensors.torch.load_model) and fit it into another checkpoint_dir (the optimizer starts "
                      "fresh)"))


def estimator_fp32(method: str) -> str:
    """How the estimator's ``method`` (predict, evaluate) is asked for fp32, which bf16's emulation warning names:
    its precision keyword. One spelling for ESTIMATOR_NAMES' predict_fp32 and the estimator's own warnings (spelt
    in both until the ninety-third session)."""
    return f"{method}(..., precision='fp32')"


# The estimator trains through train, which says these since the ninety-second session (train's words before, in
# its Ctrl-C, preemption, failed save, lock, layout and resume messages, and wherever it names a setting)
ESTIMATOR_NAMES = Names(resume="fit(..., resume='latest')", elsewhere="Segmentation(output_dir=...) of its own",
                        overwrite="Segmentation(..., overwrite=True)", folder="Segmentation's output_dir", prefix="",
                        resume_again="call fit(..., resume='latest') again", rate="lr",
                        overwrite_again="Segmentation(..., overwrite=True)", start_from="fit(..., init_from=<folder>)",
                        new_run_elsewhere="fit(..., init_from={export}, output_dir=<another folder>)",
                        giving="fit(..., {setting})",
                        class_naming="Dataset.from_files' class_names",
                        renamed=(("data.patch_size", "block_shape"), ("model.name", "Segmentation's model"),
                                 ("model.args", "model_args")),
                        fp32="Segmentation(precision='fp32')", predict_fp32=estimator_fp32("predict"),
                        length="fit's epochs or steps")
# Dataset.fit trains through train too, its settings keywords of its own or of the Dataset.config(...) given it
# (resume='latest' either way), its network the config's model.name, model.args (cfg.model): it was told train's
# command-line words until the ninety-second session
DATASET_FIT_NAMES = Names(resume="resume='latest'", elsewhere="another output_dir", overwrite="overwrite=True",
                          folder="Dataset.fit's output_dir", prefix="",
                          resume_again="call Dataset.fit again with resume='latest'", rate="lr",
                          overwrite_again="overwrite=True", start_from="init_from=<folder>",
                          new_run_elsewhere="init_from={export} in another output_dir", giving="{setting}",
                          class_naming="Dataset.from_files' class_names",
                          renamed=(("data.patch_size", "block_shape"), ("model.name", "model.name"),
                                   ("model.args", "model.args")),
                          length="Dataset.fit's max_steps")

# The fields of Names that are templates, and the names each may use, with a value of the type its message gives
# (``{export.name}``, ``{step:d}``): the others are said as they are given
_TEMPLATES = {"model_of_the_state": {"folder": "run", "export": Path("run/model"), "step": 1},
              "new_run_from_the_weights": {"checkpoint": "run/checkpoints/step_1", "start_from": "init_from"},
              "new_run_elsewhere": {"export": "run/model"}, "giving": {"setting": "lr=0.001"},
              "set_in": {"setting": "lr=0.001"}}


def callers_names(given, own: Names, caller: str) -> Names:
    """The words ``caller``'s messages say its ways on in (``caller``: fit, Segmentation.fit's ``fit`` or Dataset.fit,
    each with its ``names=``): ``own`` (its Python keywords, ``FIT_NAMES``...) where None; a dict of Names' fields
    said in place of ``own``'s (a script's flags: ``{"resume_again": "run the same command with --resume latest"}``),
    its ``renamed`` pairs over ``own``'s; a Names as it is. Until the hundred-and-twenty-seventh session none took its
    caller's, and a preempted examples/estimator.py said its fit's Python call above the script's own line.

    Raises:
        ConfigError: naming ``names`` and what it takes, before anything is written: a template naming what its
            message does not give (``{stpe}``) was a KeyError at the stop, after the training.
    """
    if given is None:
        return own
    fields = [field.name for field in dataclasses.fields(Names)]
    if isinstance(given, dict):
        for key in given:
            if key not in fields:
                raise ConfigError(f"{caller}: names[{key!r}] is not one of the words its messages say"
                                  f"{did_you_mean(str(key), fields)}; give Names' fields (accelerated_seg."
                                  f"model_folders.Names): {', '.join(fields)}")
        if "renamed" in given:  # pairs over the caller's own (the estimator's block_shape, model_args): replaced
            _check_the_words(given["renamed"], own.renamed, "renamed", caller)  # whole, they were lost (r128)
            given = {**given, "renamed": tuple({**dict(own.renamed), **dict(map(tuple, given["renamed"]))}.items())}
        given = dataclasses.replace(own, **given)
    elif not isinstance(given, Names):
        raise ConfigError(f"{caller}: names must be a dict of the words its messages say in place of its own, such "
                          f"as {{'resume_again': 'run the same command with --resume latest'}} (Names' fields), or a "
                          f"Names (accelerated_seg.model_folders), got {given!r}")
    for key in fields:
        _check_the_words(getattr(given, key), getattr(own, key), key, caller)
    return dataclasses.replace(given, renamed=tuple(tuple(pair) for pair in given.renamed))


def _check_the_words(value, own, key: str, caller: str) -> None:
    """One field of a caller's Names: of the type of ``own`` (the caller's own value), a template naming only what
    its message gives (``_TEMPLATES``)."""
    if isinstance(own, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{caller}: names[{key!r}] must be True or False, got {value!r}")
    elif isinstance(own, tuple):  # renamed: (config key, the caller's name) pairs
        if not (isinstance(value, (tuple, list)) and all(
                isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
                for pair in value)):
            raise ConfigError(f"{caller}: names[{key!r}] must be (config key, your name) pairs, such as "
                              f"[('train.resume', '--resume')], got {value!r}")
    elif not isinstance(value, str):
        raise ConfigError(f"{caller}: names[{key!r}] must be a str, the words said, got {value!r}")
    elif key in _TEMPLATES:
        try:  # with the types its message gives: one checked with "" for each was refused a format its message
            value.format(**_TEMPLATES[key])  # takes ({step:d}) and let one it cannot out, AttributeError (r128)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as error:
            raise ConfigError(f"{caller}: names[{key!r}] is a template that may name "
                              f"{', '.join('{' + name + '}' for name in _TEMPLATES[key])} alone (double a brace "
                              f"said as it is: {{{{ }}}}), got {value!r} ({type(error).__name__}: {error})") from None


def exported_models_in(folder: str | Path) -> list[Path]:
    """``folder`` itself when it is an exported model (it holds a config.json), else a training run's
    exports in it (best_model, model); empty for anything else."""
    folder = Path(folder)
    if (folder / "config.json").is_file():
        return [folder]
    return [folder / name for name in ("best_model", "model") if (folder / name / "config.json").is_file()]


def model_folder_kind(folder: str | Path) -> tuple[str, list[Path]] | None:
    """What model folder ``folder`` is where images (or label maps) are expected, and the exports to give as
    ``--model``: ("an exported model", [folder]) or ("a training run's folder", its best_model and model); None
    where it is no such folder, or where what it holds is read as images (inference_inputs._nifti_files says how):
    a NIfTI file itself, a dataset.json, or, beside a config.json, NIfTI files in its subfolders, or a config.json
    that is no export's without a model.safetensors beside it (another program's, a viewer's). ``predict --model a
    b scans/``, an ensemble's second member without its --model, was "folder b holds no .nii/.nii.gz file; check
    the path" until the hundred-and-eighteenth session; that session's review found a folder of per-case subfolders
    beside another program's config.json, and a dataset folder a run had written its model/ into, called models
    (they were told the pattern over their subfolders, and the dataset's scans).

    Raises:
        DataError: an export's two files, no NIfTI file, and a config.json that is not JSON or no export's
            (read_export_json's words), or cannot be read (config_json_fault): "holds no .nii/.nii.gz file; check
            the path" until the hundred-and-nineteenth session (and review r91), which left the user to find the
            broken file.
    """
    folder = Path(folder)
    if not folder.is_dir() or not (exports := exported_models_in(folder)):
        return None
    try:
        if any(nifti_stem(path) for path in folder.iterdir()) or (folder / "dataset.json").is_file():
            return None
        if exports != [folder]:
            return "a training run's folder", exports
        if any(nifti_stem(path) for path in folder.glob("*/*")):
            return None
    except OSError:  # a folder that cannot be listed: the inputs' own check says why (a traceback, in the review)
        return None
    if (fault := config_json_fault(folder / "config.json")) is None:
        return "an exported model", exports
    if not (folder / "model.safetensors").is_file():  # a config.json alone: any program's, read as images
        return None
    raise DataError(f"{folder} holds no .nii/.nii.gz file but an export's config.json and model.safetensors, "
                    f"and {fault}")


def config_json_fault(config_path: Path) -> str | None:
    """What is wrong with an export's ``config_path`` read alone (read_config_json's words), or that it cannot be
    read; None where it reads as an export's. A config.json that cannot be read (another user's export) was "holds
    no .nii/.nii.gz file; check the path" where images are expected, and "an exported model already ... take it as
    it is" as export's input, until review r91."""
    try:
        read_config_json(config_path)
    except DataError as fault:
        return str(fault)
    except OSError as error:
        return (f"{config_path} cannot be read ({error.strerror or error}): read it as a user who may, or copy the "
                f"export where you can")
    return None


def read_config_json(config_path: Path) -> dict:
    """An export's ``config_path`` read, as far as it tells alone: JSON with a model section. A UTF-8 byte-order
    mark (an editor's "UTF-8 with BOM") is dropped, as evaluate's --labels dropped it (hand_edited.py says why):
    predict refused it until the hundred-and-twenty-second session, as it refused a comma JSON does not allow
    with "copy the export's config.json again", which would lose the edit.

    Raises:
        DataError: not UTF-8 (UTF-16: Notepad's "Unicode"), not JSON (cut short, a hand edit gone wrong: said as
            which, hand_edited.json_fault), nested too deep to parse, a key given twice, or no model section
            (another program's config.json beside a model.safetensors).
        OSError: it cannot be read.
    """
    # hand_edited's one reader of hand-edited JSON: a key given twice (a label renamed into a copy of its line) is
    # refused, where it was read as the last until the hundred-and-twenty-fourth session; brackets nested past the
    # parser's depth (garbage of brackets: a traceback until review r91) said as a dataset.json's are
    config = read_json_file(config_path, COPY_AGAIN)
    if not isinstance(config, dict) or not isinstance(config.get("model"), dict):  # "describes None" before
        raise DataError(f"{config_path} has no model section, so it is not an accelerated_seg export (another "
                        f"program's config.json?): give a folder exported by training, or load "
                        f"{config_path.parent / 'model.safetensors'} into your own network "
                        f"(safetensors.torch.load_model)")
    return config


def check_export_files(model_dir: str | Path) -> None:
    """Both files of an export are in ``model_dir``; what it is instead, and what to give, if not.

    Raises:
        FileNotFoundError: naming the run's exports for a run's folder, ``accelerated-seg export`` for
            a training-state checkpoint, else the missing file.
    """
    model_dir = Path(model_dir)
    if model_dir.is_file():  # "<file>/config.json is missing" before: the folder, or the file's own, is what to give
        one_of_its_files = model_dir.name in ("config.json", "model.safetensors")
        raise FileNotFoundError(f"{model_dir} is a file, not a model folder: give "
                                + (f"the folder that holds it, {model_dir.parent}" if one_of_its_files else
                                   "a folder exported by training (it holds config.json and model.safetensors)"))
    config_path, weights_path = model_dir / "config.json", model_dir / "model.safetensors"
    exports = exported_models_in(model_dir)
    if not config_path.is_file() and exports:  # the run's folder given for its export: name the choice
        raise FileNotFoundError(f"{model_dir} is a training run's folder, not an exported model: give "
                                f"{' or '.join(map(str, exports))} (best_model: the best validation Dice; model: "
                                f"the last step)")
    if not config_path.is_file() and (model_dir / LAYOUT_FILE).is_file():  # a step_N folder given for a model
        raise FileNotFoundError(f"{model_dir} is a training-state checkpoint, not an exported model: make one of it "
                                f"with accelerated-seg export {shell_word(model_dir)} --output <new folder>")
    if not config_path.is_file() and (checkpoints := complete_checkpoints(model_dir)):
        # a run's checkpoints/ folder: "config.json is missing" there until the ninety-third session
        exports = exported_models_in(model_dir.parent)
        raise FileNotFoundError(f"{model_dir} is a training run's checkpoints folder, not an exported model: "
                                + (f"give {' or '.join(map(str, exports))}, the run's exports, or " if exports else "")
                                + f"export its newest checkpoint with accelerated-seg export "
                                  f"{shell_word(checkpoints[-1])} --output <new folder>")
    for path in (config_path, weights_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: give a model folder exported by training (it holds "
                                    f"config.json and model.safetensors)")  # --model, init_from or Segmentation.load


def read_export_json(model_dir: str | Path) -> dict:
    """The ``config.json`` of the export in ``model_dir`` (check_export_files first), as far as the file
    alone tells: valid JSON with a ``model`` section, beside a whole model.safetensors.
    exported_model.read_export_config checks the rest.

    Raises:
        FileNotFoundError: as check_export_files.
        DataError: config.json is not JSON (a hand edit gone wrong) or has no model section (another
            program's config.json beside a model.safetensors), or model.safetensors is cut short.
    """
    check_export_files(model_dir)
    config = read_config_json(Path(model_dir) / "config.json")
    weights_path = Path(model_dir) / "model.safetensors"
    try:
        check_safetensors_header(weights_path)
    except SafetensorError as error:  # the same refusal as exported_model.read_safetensors's, 15 s sooner
        raise unreadable_safetensors(weights_path, error, "from the run folder that wrote it") from None
    return config


def unreadable_safetensors(path: str | Path, error: SafetensorError, copy_from: str = "") -> DataError:
    """The refusal of a weights file safetensors cannot read, naming it and what to do: an export cloned from a
    Git repository (Hugging Face's) without Git LFS holds a text pointer in its place, which was "header too large:
    the file is damaged or truncated; copy it again" until the hundred-and-fourth session."""
    from .data.io import content_not_fetched  # nibabel's import, on this refusal's way alone

    if absent := content_not_fetched(path, "the weights themselves"):
        return DataError(f"{path}: {absent}")
    return DataError(f"{path} cannot be read as safetensors ({error}): the file is damaged or truncated; copy it "
                     f"again" + (f" {copy_from}" if copy_from else ""))


def check_safetensors_header(path: str | Path) -> None:
    """Parse a safetensors file's header, which must describe the whole file: a copy cut short fails
    here, without reading the tensors. Framework "numpy", since "pt" imports torch, which the checks
    of this module come before.

    Raises:
        SafetensorError: the header is cut short, not JSON, or does not cover the file.
    """
    with safe_open(str(path), framework="numpy"):
        pass


def complete_checkpoints(checkpoints_dir: Path) -> list[Path]:
    """Complete ``step_N`` folders, oldest first (partial saves have another name)."""
    if not checkpoints_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in checkpoints_dir.iterdir() if (m := STEP_DIR.match(p.name)) and p.is_dir()]
    return [p for _, p in sorted(found)]


def unreadable_folder(folder: Path, error: OSError) -> str:
    """``folder`` could not be read, and why: the OSError's words, with the path it names where that is another
    (the run folder above it). Said in place of a checkpoint where a listing failed (permissions taken away, a
    network mount gone), rather than the OSError raised over what the caller was saying (an interrupt's line)."""
    why = error.strerror or str(error)
    if error.filename is not None and os.fspath(error.filename) != os.fspath(folder):
        why = f"{why}: {error.filename}"
    return f"{folder} could not be read ({why})"


def saved_by_fit(checkpoint: Path) -> bool:
    """Whether ``checkpoint`` was saved by ``train.fit``, which trains a network of the user's own and has no
    config to save: its ``config.yaml`` is empty. Bytes that do not decode are no fit's file, and must not
    end the caller's refusal in a traceback."""
    config = Path(checkpoint) / "config.yaml"
    return config.is_file() and not config.read_text(encoding="utf-8", errors="replace").strip()


def checkpoint_folder(source: Path) -> Path:
    """``source`` itself if a ``step_N`` folder; the newest complete one of a run or its ``checkpoints``.

    Raises:
        ConfigError: nothing there to export, saying what to give.
    """
    if source.is_dir() and STEP_DIR.match(source.name):
        return source
    if STEP_DIR.match(source.name) and not source.exists():
        raise ConfigError(f"{source} {checkpoint_gone(source)}")
    checkpoints = source if source.name == "checkpoints" else source / "checkpoints"
    if found := complete_checkpoints(checkpoints):
        return found[-1]
    if checkpoints.is_dir():
        raise ConfigError(f"{checkpoints} holds no complete checkpoint (step_N folder) to export")
    if (source / "config.json").is_file() and (source / "model.safetensors").is_file():
        # "an exported model already: predict ... take it as it is", which they then refused, until the
        # hundred-and-nineteenth session (one that cannot be read until review r91)
        if fault := config_json_fault(source / "config.json"):
            raise ConfigError(f"{source} is no checkpoint but an export's config.json and model.safetensors, and "
                              f"{fault}; export makes a model of a checkpoint (<run>/checkpoints/step_N)")
        raise ConfigError(f"{source} is an exported model already (config.json + model.safetensors): predict, "
                          f"evaluate and train.init_from take it as it is; export makes one of a checkpoint "
                          f"(<run>/checkpoints/step_N)")
    if exports := exported_models_in(source):  # a run's folder without its checkpoints ("is not a checkpoint" alone)
        raise ConfigError(f"{source} holds no checkpoints/ folder to export, but its exports "
                          f"{' and '.join(map(str, exports))} are exported models already: predict, evaluate and "
                          f"train.init_from take them as they are")
    raise ConfigError(f"{source} is not a checkpoint: give a <run>/checkpoints/step_N folder, or a run folder for "
                      f"its newest checkpoint (a .step_N.partial folder is a save that never finished)")


def checkpoint_gone(checkpoint: Path, instead: str = "the run folder for its newest", prefix: str = "train.",
                    found_by: str | None = None) -> str:
    """Why a ``step_N`` folder is not there, said after its name by the caller, with the checkpoints its
    folder does hold and ``instead`` (``prefix``: before the setting's name, ``Names.prefix``):
    most often its run's rotation (``train.keep_last``) deleted it, also while it was read (an export
    of a run still training said "is not a checkpoint", or "holds none of the weight files", and a
    resume "is not a checkpoint folder", before the seventy-third session). ``found_by`` (the export,
    the resume) found it there before: it was removed since, which "does not exist" left the user to
    guess, looking for a typo (until the ninety-third session)."""
    held = complete_checkpoints(checkpoint.parent)
    there = f"{checkpoint.parent} holds {', '.join(p.name for p in held)}" if held else "nothing is there"
    if found_by is not None:
        return (f"was removed after {found_by} found it ({there}; a run still training there removes older "
                f"checkpoints as it saves, keeping the newest {prefix}keep_last): give one of them, or {instead}")
    return (f"does not exist ({there}; {prefix}keep_last keeps the newest checkpoints only, and a run still "
            f"training deletes older ones as it saves): give one of them, or {instead}")


def init_from_given(init_from: str | Path, names: Names = Names()) -> str:
    """``train.init_from='<folder>'`` as the caller names the setting: ``init_from='<folder>'`` to the estimator
    and Dataset.fit, which were told of the config's key until the ninety-second session."""
    return f"{names.setting('train.init_from')}={str(init_from)!r}"


def check_initial_weights(init_from: str | Path, names: Names = Names()) -> None:
    """``train.init_from`` as far as the file system tells: a weights file (``weights_file.py`` reads it),
    or an exported model folder whose config.json is an export's. Checked before the imports and before
    anything of the run is written (a typo was refused after 20 s, the demo's phantoms already written);
    ``initial_weights.load_initial_weights`` checks the network it holds against the run's. ``names``: the
    caller's.

    Raises:
        ConfigError: not a file, and not a folder with both files of an export.
        DataError: as read_export_json (its config.json is not JSON, or another program's).
    """
    path = Path(init_from)
    if _unfetched_link(path):  # a git-annex link, refused as such; another link to nothing is no file below
        refuse_unfetched_weights(path)
    if path.is_file():
        check_weights_file(path, names)
        return
    if not ((path / "config.json").is_file() and (path / "model.safetensors").is_file()):
        # A step_N folder: the weights are there, in its layout. The way on is the caller's (then
        # fit(..., init_from=<folder>) to the estimator); until the ninety-second session every caller was told of
        # accelerated-seg export alone
        checkpoint = (path / LAYOUT_FILE).is_file()
        raise ConfigError(f"{init_from_given(path, names)} must be an exported model folder "
                          f"(config.json + model.safetensors), e.g. <previous run>/model, or a weights file "
                          f"(a MONAI network's state dict, .pt or .safetensors)"
                          + (f"; to start from this training-state checkpoint's weights: "
                             f"{names.way_to_a_new_run_from(path)}" if checkpoint else ""))
    read_export_json(path)


# How each format that torch.load reads begins: torch.save's zip (torch 1.6 on), and before that its pickle,
# whose first object is a magic number (protocol 2 and up open with 0x80; 0 and 1 write the number as text)
TORCH_SAVE_STARTS = (b"PK\x03\x04", b"\x80", b"L119547037146038801333356")


def check_weights_file(path: Path, names: Names = Names()) -> None:
    """A weights file (``train.init_from=weights.pt``) as far as its first bytes tell, before torch is
    imported: a text file, an empty one or a NIfTI was refused by torch.load 3-12 s in, the demo's
    phantoms written into the new run's folder (ninety-second session). weights_file.read_state_dict
    reads the rest. ``names``: the caller's.

    Raises:
        ConfigError: an export's config.json, whose folder was meant.
        DataError: neither torch.save's nor safetensors' format, or a safetensors file cut short.
    """
    if _unfetched_link(path):  # git-annex's, refused as such; another link to nothing is a missing file
        refuse_unfetched_weights(path)
        raise DataError(f"{path} is a link to {os.path.realpath(path)}, which does not exist; give the weights "
                        f"file itself")
    if path.name == "config.json" and (path.parent / "model.safetensors").is_file():  # an export's description
        raise ConfigError(f"{init_from_given(path, names)} is the description of the export in {path.parent}: give "
                          f"the folder, {init_from_given(path.parent, names)}")
    if path.suffix == ".safetensors":
        try:
            check_safetensors_header(path)
        except SafetensorError as error:
            raise unreadable_safetensors(path, error) from None
        return
    with path.open("rb") as file:
        start = file.read(len(max(TORCH_SAVE_STARTS, key=len)))
    if not (start.startswith(TORCH_SAVE_STARTS) or _is_plain_tar(path)):
        refuse_unfetched_weights(path)
        if _is_safetensors(path):  # went to torch.load, and was told it was damaged or not torch.save's
            raise DataError(f"{path} is a safetensors file, which is read as one by its name: rename it "
                            f"{path.stem}.safetensors")
        raise not_a_weights_file(path)


def refuse_unfetched_weights(path: Path) -> None:
    """Refuse a weights file whose content was never fetched, as unreadable_safetensors does: a Git LFS pointer or a
    git-annex one, or an annex link that leads nowhere (a repository cloned without its large files), or an empty
    file. A .pt/.pth of them was "cannot be read as a PyTorch weights file: damaged, truncated, or not written by
    torch.save", or for the link, "must be an exported model folder", until the hundred-and-fifth session.
    Called where the first bytes are no torch.save's: nibabel's import (data.io) is on the refusal's way alone."""
    from .data.io import content_not_fetched

    if absent := content_not_fetched(path, "the weights themselves"):
        raise DataError(f"{path}: {absent}")


def _unfetched_link(path: Path) -> bool:
    """Whether ``path`` is a link that leads nowhere, as git-annex leaves a file it did not fetch."""
    return path.is_symlink() and not path.exists()


def not_a_weights_file(path: Path) -> DataError:
    return DataError(f"{path} cannot be read as a PyTorch weights file: it is damaged, truncated, or not written "
                     f"by torch.save (give a .pt/.pth of a state dict, a .safetensors, or an export folder)")


def _is_safetensors(path: Path) -> bool:
    """Whether ``path`` is a whole safetensors file, whatever its name."""
    try:
        check_safetensors_header(path)
        return True
    except (SafetensorError, OSError):
        return False


def _is_plain_tar(path: Path) -> bool:
    """torch.save's format before torch 0.4, an uncompressed tar, which torch.load still reads."""
    import tarfile

    try:
        with tarfile.open(path, mode="r:"):
            return True
    except (tarfile.TarError, OSError):
        return False


def check_init_from(train, names: Names = Names()) -> None:
    """check_initial_weights of a run's ``train`` settings where they start from weights: with
    train.init_into a file's format alone (initial_weights.check_init_into says what else it must be), and
    train.resume with train.init_from is refused there. ``names``: the caller's."""
    if not train.init_from or train.resume:
        return
    if train.init_into is None:
        check_initial_weights(train.init_from, names)
    elif Path(train.init_from).is_file() or _unfetched_link(Path(train.init_from)):
        check_weights_file(Path(train.init_from), names)


def exported_step(folder: Path) -> int | None:
    """The step whose weights the export ``folder`` (``best_model/``, ``model/``) holds: None where
    there is no whole export, -1 where it records no step (written before the thirty-first session)
    or its config.json cannot be read."""
    if not (folder / "config.json").is_file() or not (folder / "model.safetensors").is_file():
        return None
    return recorded_export_step(folder)


def recorded_export_step(folder: Path) -> int:
    """The step an export's config.json records, its weights whole or not; -1 where it records none or cannot be
    read."""
    try:
        # utf-8-sig: a byte-order mark of a hand edit, which predict and Segmentation.load read past (hand_edited.py)
        step = json.loads((folder / "config.json").read_text(encoding="utf-8-sig")).get("step")
    except (OSError, ValueError, AttributeError):
        return -1
    return step if isinstance(step, int) and not isinstance(step, bool) else -1


def ended_at_its_length(run: Path) -> bool:
    """Whether ``run`` (a run's folder) holds a run that ended at its length: its export (``model/``) is of its newest
    checkpoint's step. A stopped run's newest checkpoint is past its export (or it has none), and so is one resumed
    since its end and stopped, which a resume alone continues."""
    checkpoints = complete_checkpoints(run / "checkpoints")
    return bool(checkpoints) and exported_step(run / "model") == int(STEP_DIR.match(checkpoints[-1].name).group(1))
