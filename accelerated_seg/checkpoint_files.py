"""A training-state checkpoint's files, checked on disk: which checkpoint ``train.resume`` names, and
whether each of its files is whole.

Kept apart from checkpoint.py, which imports torch and accelerate, so that ``accelerated-seg
train``, examples/train.py and ``accelerated-seg export`` refuse a mistyped or damaged checkpoint (the
export also one without export.json or without its weights, one of DeepSpeed's where DeepSpeed is not
installed, and an --output in the way) before those imports: in 0.2-0.4 s rather than 11-14 s on 2
cores (benchmarks/results/resume_refusal_2cpu.json), as they refuse a mistyped setting. The files are
read by their headers only: JSON and YAML parsed, torch.save's zip archives by their central directory,
safetensors by its header."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
import zipfile
from pathlib import Path

import yaml
from safetensors import SafetensorError

from .config import ConfigError, yaml_problem
from .data.errors import DataError
from .files import file_in_the_way, link_problem, unwritable
from .launch_env import launched_processes
from .model_folders import (LAYOUT_FILE, STEP_DIR, Names, check_safetensors_header, checkpoint_gone,
                            complete_checkpoints, saved_by_fit)
from .shell_words import shell_word

# What the export's config.json holds besides the weights and their step (the network's spec, labels,
# channels, patch, preprocessing): with it, ``accelerated-seg export`` makes a model of any checkpoint.
EXPORT_DESCRIPTION_FILE = "export.json"
# accelerate's names, within a checkpoint folder, for the first (only) model's weights
FULL_WEIGHTS = "model.safetensors"  # one process, DDP
FSDP_SHARDED_WEIGHTS = "pytorch_model_fsdp_0"  # torch.distributed.checkpoint folder, SHARDED_STATE_DICT
FSDP_FULL_WEIGHTS = "pytorch_model_fsdp.bin"  # FULL_STATE_DICT
DEEPSPEED_WEIGHTS = "pytorch_model"  # DeepSpeed's tag folder (accelerate's MODEL_NAME), which its "latest" names
# The files of a checkpoint that ``accelerated-seg export`` reads (checkpoint_export.py), by the first
# part of their path: its description and layout, and the weights in each strategy's layout (DeepSpeed's
# tag folder holds them with the optimizer states, whose fp32 copies of the weights the export gathers).
# The run's config.yaml and records, the optimizer, schedule and random states are the resume's alone.
EXPORT_READS = frozenset({EXPORT_DESCRIPTION_FILE, LAYOUT_FILE, FULL_WEIGHTS, FSDP_SHARDED_WEIGHTS, FSDP_FULL_WEIGHTS,
                          DEEPSPEED_WEIGHTS, "latest"})

WRITTEN_BYTES = "file_bytes"  # in LAYOUT_FILE: the size of each text file saved beside it
# In LAYOUT_FILE: the size of each file of the training state that the main process wrote into the folder
# itself (weights, optimizer, schedule, progress, its random states); every rank's random states are
# expected by their names from the layout's num_processes.
STATE_BYTES = "state_bytes"
# The files accelerate's save_state writes at the top of a checkpoint, of the main process (one process,
# DDP; FSDP's and DeepSpeed's shards go into folders of their own, with their own readers), and scaler.pt,
# which every rank writes alike.
_MAIN_STATE_FILE = re.compile(r"^(model.*\.safetensors|pytorch_model.*\.bin|optimizer.*\.bin|scheduler.*\.bin|"
                              r"sampler.*\.bin|dl_state_dict.*\.bin|custom_checkpoint_\d+\.pkl|scaler\.pt|"
                              r"random_states_0\.pkl)$")


def resolve_resume(resume: str, checkpoints_dir: Path, names: Names = Names()) -> Path:
    """``latest`` -> newest complete checkpoint; otherwise the given folder, which must exist.

    Raises:
        ConfigError: there is no such checkpoint (checked before any data or training work), said in
            ``names``: the caller's (train's settings, fit's and the estimator's keywords).
    """
    if resume == "latest":
        found = complete_checkpoints(checkpoints_dir)
        if not found:
            # as it was given: train's flag (train.resume=latest, without the dashes), fit's or the estimator's keyword
            raise ConfigError(f"{names.resume.removeprefix('--')} but {checkpoints_dir} holds no complete "
                              f"checkpoint: check {names.folder}, or drop {names.setting('train.resume')} to start a "
                              f"new run")
        path = found[-1]
    else:
        path = Path(resume)
        if not path.exists() and STEP_DIR.match(path.name):  # a typo, or rotated away (keep_last)
            raise ConfigError(resume_gone(path, names))
        if not (path.is_dir() and STEP_DIR.match(path.name)):
            raise ConfigError(f"{names.setting('train.resume')}={resume!r} is not a checkpoint folder: give 'latest' "
                              f"or a <run>/checkpoints/step_N folder")
    with gone_if_rotated_away(path, names):  # while its files are checked: not "damaged", each file missing
        check_checkpoint_files(path, whole_state=True)
    return path


def resume_gone(checkpoint: Path, names: Names = Names(), found: bool = False) -> str:
    """The refusal of a resume from ``checkpoint``, a ``step_N`` folder that is not there, in the caller's
    ``names``: mistyped, or deleted by its run's rotation (``keep_last``) or a user, before it was found or
    (``found``) at any time after, until its state is loaded."""
    gone = checkpoint_gone(checkpoint, instead=repr("latest"), prefix=names.prefix,
                           found_by="the resume" if found else None)
    return f"{names.setting('train.resume')}={str(checkpoint)!r} {gone}"


# Files of a checkpoint that can be checked whole cheaply: torch.save's zip archives (accelerate's
# optimizer, scheduler, sampler and random states; DeepSpeed's shards) by their central directory, at
# their end, and safetensors files by their header, which must cover the file.
_TORCH_ARCHIVES = (".bin", ".pt", ".pkl")


def state_file_sizes(folder: Path) -> dict[str, int]:
    """``{name: bytes}`` of the training-state files at the top of ``folder`` (``STATE_BYTES``), but other
    ranks' random states, expected by name. Call once every rank's ``save_state`` has returned: each rank
    writes ``scaler.pt`` (fp16), and one measured while another rank wrote it was recorded empty."""
    return {path.name: path.stat().st_size for path in sorted(Path(folder).iterdir())
            if path.is_file() and _MAIN_STATE_FILE.match(path.name)}


def check_checkpoint_files(checkpoint: Path, whole_state: bool = False, for_export: bool = False) -> None:
    """Refuse a checkpoint with a file cut short or unreadable, before any data or training work;
    with ``whole_state`` (a resume, which loads all of it) also one whose state files are missing or
    not of the size they were written; with ``for_export``, of the files an export reads alone
    (``EXPORT_READS``): a config.yaml edited by hand or cut short refused the export of whole weights,
    which the export does not read (a user's report), as did a damaged optimizer state.

    Checkpoints are written whole or not at all, so such a file was damaged after the save: a copy
    between machines cut short, a full disk. Each gave its reader's traceback on resume (safetensors'
    "incomplete metadata", PyTorch's "failed finding central directory", a JSONDecodeError, YAML's
    parser after the data work), and a damaged random state was skipped by accelerate with a log
    line, the run resuming without it. A state file deleted afterwards (to make room, or left out of a
    copy) failed the resume after the data work with accelerate's FileNotFoundError, or "Number of
    custom checkpoints ... does not match" for the progress or the schedule, and a missing random
    state was skipped without a word; an export reads the weights alone, and does without the rest.

    Raises:
        DataError: naming each damaged file and the checkpoint before it (else a later one of its run), to
            resume from (or export) instead.
    """
    damaged, reads = [], EXPORT_READS if for_export else None
    for path in sorted(p for p in Path(checkpoint).rglob("*") if p.is_file()):
        if reads is not None and path.relative_to(checkpoint).parts[0] not in reads:
            continue
        try:
            if path.suffix == ".json":
                parsed = json.loads(path.read_text(encoding="utf-8"))
                # Whole JSON but no layout ([], a number): the resume's and the export's AttributeError traceback
                if path == Path(checkpoint) / LAYOUT_FILE and not isinstance(parsed, dict):
                    damaged.append(f"{LAYOUT_FILE} (a JSON {type(parsed).__name__}, not the object of its layout)")
            elif path.suffix == ".yaml":  # the run's config.yaml, which the resume compares with its own
                yaml.safe_load(path.read_text(encoding="utf-8"))
            elif path.suffix == ".safetensors":
                check_safetensors_header(path)
            elif path.suffix in _TORCH_ARCHIVES:
                with zipfile.ZipFile(path):
                    pass
        except yaml.YAMLError as error:  # PyYAML's own text is several lines, quoting the file under a caret
            damaged.append(f"{path.relative_to(checkpoint)} ({type(error).__name__}: {yaml_problem(error)})")
        # JSONDecodeError and UnicodeDecodeError are ValueErrors
        except (OSError, ValueError, SafetensorError, zipfile.BadZipFile) as error:
            damaged.append(f"{path.relative_to(checkpoint)} ({type(error).__name__}: {error})")
    damaged += _not_as_written(Path(checkpoint), {entry.split(" (")[0] for entry in damaged}, whole_state, reads)
    damaged += _missing_deepspeed_partitions(Path(checkpoint))
    if not damaged:
        return
    way_on = _way_on(Path(checkpoint), for_export)
    raise DataError(f"checkpoint {checkpoint} is damaged: {'; '.join(damaged)}. A checkpoint is saved whole, so "
                    f"the file was cut short, changed or deleted afterwards (an interrupted copy, a full disk, a "
                    f"clean-up): {way_on}")


def check_exportable(checkpoint: Path, output: Path) -> dict:
    """Every refusal of an export that the file system tells, in the order ``accelerated-seg export`` gives
    them before torch and MONAI import and ``export_checkpoint`` again: an ``output`` in the way, a file it
    reads cut short, no export.json, no weights, DeepSpeed's without DeepSpeed. Returns the export.json.

    Raises:
        ConfigError, DataError: as check_export_output, check_checkpoint_files, read_export_description and
            weights_to_export; a checkpoint rotated away meanwhile as ``gone_if_rotated_away``.
    """
    with gone_if_rotated_away(checkpoint):
        check_export_output(output, checkpoint)
        check_checkpoint_files(checkpoint, for_export=True)
        description = read_export_description(checkpoint)
        weights_to_export(checkpoint)
        return description


@contextlib.contextmanager
def gone_if_rotated_away(checkpoint: Path, resumed: Names | None = None):
    """Whatever reading ``checkpoint`` raises is its ``checkpoint_gone`` refusal (a ConfigError) where the
    folder is no longer there: a run still training deleted it (``train.keep_last``) after it was found,
    or a user did. Said as an export's, or with ``resumed`` (the caller's names) as a resume's
    (``resume_gone``): removed after it was found, as every caller found it before (``checkpoint_folder``,
    ``resolve_resume``, which say "does not exist" of one never there; it was said of these too until the
    ninety-third session). The checks met a folder gone in their own words: an export, deleted between
    its checks, was told the checkpoint had "no export.json" (saved before the forty-fifth session), was
    "damaged" (each file missing) or held "none of the weight files", and DeepSpeed's reader raised a
    ValueError traceback ("Unable to find 'latest' file"); a resume, deleted after it was found, went
    through the data work to accelerate's ValueError traceback ("Tried to find ... but folder does not
    exist") or, while it was loaded, a FileNotFoundError's; until the ninety-second session."""
    try:
        yield
    except Exception:  # any reader's error: none is the cause once the folder is gone
        if not checkpoint.is_dir():
            raise ConfigError(resume_gone(checkpoint, resumed, found=True) if resumed is not None else
                              f"{checkpoint} {checkpoint_gone(checkpoint, found_by='the export')}") from None
        raise


def check_export_output(output: Path, checkpoint: Path) -> None:
    """The export's ``output`` for ``checkpoint``: nothing already there is replaced, and nothing is put
    where rotation deletes. Here, without torch, so that ``accelerated-seg export`` refuses it before
    torch and MONAI import (it came after them, in checkpoint_export.py, until the ninetieth session).

    Raises:
        ConfigError: naming the folder and what to give instead.
    """
    if problem := link_problem(output):  # the export's write refuses it (files.written_through), after the reading
        raise ConfigError(f"{problem}; or give another folder for the exported model")
    if output.exists() and not (output.is_dir() and not any(output.iterdir())):
        raise ConfigError(f"{output} already exists: give a new folder for the exported model (export replaces "
                          f"nothing)")
    if checkpoint.parent.resolve() in output.resolve().parents or output.resolve() == checkpoint.parent.resolve():
        raise ConfigError(f"{output} is inside {checkpoint.parent}, whose folders training rotates away: give a "
                          f"folder outside it, e.g. {checkpoint.parent.parent / f'model_{checkpoint.name}'}")
    # Before the checkpoint is read (minutes for a large one): the folder must be one that can be made.
    # Below a file it was mkdir's traceback at the end.
    if blocking := file_in_the_way(output):
        raise ConfigError(f"{output} cannot be made: {blocking} is a file; give a folder path for the exported model")
    if why := unwritable(output):
        raise ConfigError(f"the exported model cannot be written to {output} ({why}); give a folder that can be "
                          f"written")


def read_export_description(checkpoint: Path) -> dict:
    """The checkpoint's ``export.json`` (check_checkpoint_files first, which parses it), or the refusal of a
    checkpoint without one, which needs its files alone: here, so that ``accelerated-seg export`` refuses
    it before torch and MONAI import (it came after them, in checkpoint_export.py, until the ninetieth
    session).

    Raises:
        ConfigError: no export.json: train.fit's with a network of the user's own, or saved before
            checkpoints recorded one.
    """
    path = checkpoint / EXPORT_DESCRIPTION_FILE
    if path.is_file():
        description = json.loads(path.read_text(encoding="utf-8"))
        # Whole JSON but no network in it (edited by hand, or another program's file of that name): it was
        # a KeyError traceback from ModelSpec.from_dict, after the imports
        model = description.get("model") if isinstance(description, dict) else None
        if not isinstance(model, dict) or not {"name", "monai_class", "args"} <= set(model) or \
                not isinstance(model["args"], dict):
            raise DataError(f"{path} describes no network (a 'model' with its name, monai_class and args), as "
                            f"training writes it: the file was edited or replaced after the save; copy the "
                            f"checkpoint again from where it was written, or export another of its run's")
        return description
    if saved_by_fit(checkpoint):  # the export checks no more of its config.yaml (the resume's)
        raise ConfigError(f"{checkpoint} was saved by train.fit with a network of your own, which this package "
                          f"cannot build: load it with accelerator.load_state({str(checkpoint)!r}) after preparing "
                          f"that network")
    raise ConfigError(f"{checkpoint} has no {EXPORT_DESCRIPTION_FILE}: checkpoints saved before accelerated_seg "
                      f"recorded it (the forty-fifth session) cannot be exported. Resume the run from it in a copy "
                      f"of the run folder with --train.max_steps set to its step, which exports it and trains nothing")


def weights_to_export(checkpoint: Path) -> str:
    """The weights' file or folder of ``checkpoint`` that the export reads, by the layout its strategy's
    save gave it: ``DEEPSPEED_WEIGHTS``, ``FSDP_SHARDED_WEIGHTS``, ``FSDP_FULL_WEIGHTS`` or ``FULL_WEIGHTS``.
    Here, with the file system alone, so that ``accelerated-seg export`` refuses a checkpoint without
    them, or DeepSpeed's where DeepSpeed is not installed, before torch and MONAI import (it came after
    them, in checkpoint_export.py, until the ninety-first session).

    Raises:
        DataError: none of them there (check_checkpoint_files first, which names a damaged file).
        ConfigError: DeepSpeed's, and DeepSpeed not installed.
    """
    layout = _layout(checkpoint)
    if layout.get("format") == "deepspeed":
        _check_deepspeed_weights(checkpoint)
        return DEEPSPEED_WEIGHTS
    for name, there in ((FSDP_SHARDED_WEIGHTS, Path.is_dir), (FSDP_FULL_WEIGHTS, Path.is_file),
                        (FULL_WEIGHTS, Path.is_file)):
        if there(checkpoint / name):
            return name
    saved = f"saved by {layout['strategy']}" if layout.get("strategy") else f"no strategy recorded in {LAYOUT_FILE}"
    raise DataError(f"{checkpoint} holds none of the weight files accelerate writes ({FULL_WEIGHTS}, "
                    f"{FSDP_SHARDED_WEIGHTS}/, {FSDP_FULL_WEIGHTS}, DeepSpeed's {DEEPSPEED_WEIGHTS}/) ({saved}): "
                    f"{_way_on(checkpoint, for_export=True)}")


def deepspeed_not_installed(checkpoint: Path) -> ConfigError:
    """The refusal of DeepSpeed's ``checkpoint`` where DeepSpeed is not found (or, in checkpoint_export.py,
    does not import)."""
    return ConfigError(f"{checkpoint} was saved by DeepSpeed, whose files only DeepSpeed reads: install the "
                       f"deepspeed extra (pip install 'accelerated_seg[deepspeed]'), then export it again")


def _check_deepspeed_weights(checkpoint: Path) -> None:
    # The fp32 weights are in the optimizer's partitions, in the tag folder that the "latest" file names;
    # without either, DeepSpeed's reader failed with a ValueError or FileNotFoundError after the imports.
    missing = [what for what, there in ((f"{DEEPSPEED_WEIGHTS}/", (checkpoint / DEEPSPEED_WEIGHTS).is_dir()),
                                        ("latest", (checkpoint / "latest").is_file())) if not there]
    if missing:
        raise DataError(f"{checkpoint} lacks the weight files DeepSpeed writes ({' and '.join(missing)} missing; "
                        f"{DEEPSPEED_WEIGHTS}/ holds the weights, 'latest' names that folder): "
                        f"{_way_on(checkpoint, for_export=True)}")
    # After the files: a checkpoint without its weights is not made exportable by installing DeepSpeed.
    # find_spec imports nothing (DeepSpeed itself imports torch).
    if importlib.util.find_spec("deepspeed") is None:
        raise deepspeed_not_installed(checkpoint)


def _missing_deepspeed_partitions(checkpoint: Path) -> list[str]:
    """The files of DeepSpeed's tag folder that ``checkpoint`` lacks, named as DeepSpeed names them from its
    layout: each rank's optimizer partition (which holds the fp32 weights the export gathers) and the
    model's states, one per rank under ZeRO-3. One deleted, or left out of a copy, was DeepSpeed's
    FileNotFoundError on resume, after the data work, and zero_to_fp32's at the export (an audit's probe,
    ninety-first session). A tag folder missing whole is the weights' check's (``_check_deepspeed_weights``)."""
    try:
        layout = _layout(checkpoint)
    except (OSError, ValueError):  # damaged, and named so already
        return []
    folder = checkpoint / DEEPSPEED_WEIGHTS
    if not isinstance(layout, dict) or layout.get("format") != "deepspeed" or not folder.is_dir():
        return []
    ranks, stage = layout.get("num_processes"), layout.get("zero_stage")
    if not isinstance(ranks, int) or not isinstance(stage, int) or stage < 1:  # no partitions to expect
        return []
    optimizer = "bf16_" if layout.get("bf16") else ""  # DeepSpeed's bf16 optimizer names its files so
    expected = {f"{optimizer}zero_pp_rank_{rank}_mp_rank_00_optim_states.pt": rank for rank in range(ranks)}
    if stage == 3:  # the model's parameters are partitioned too
        expected.update({f"zero_pp_rank_{rank}_mp_rank_00_model_states.pt": rank for rank in range(ranks)})
    else:
        expected["mp_rank_00_model_states.pt"] = 0
    return [f"{DEEPSPEED_WEIGHTS}/{name} (missing; rank {rank} wrote it)" for name, rank in expected.items()
            if not (folder / name).is_file()]


def _layout(checkpoint: Path) -> dict:
    path = checkpoint / LAYOUT_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _way_on(checkpoint: Path, for_export: bool) -> str:
    """What to do instead of using the damaged ``checkpoint``: the newest complete checkpoint of its run
    before it by step, else the first one after it, said as such. The newest of the others was named as
    "the checkpoint before it" until the ninetieth session, a later one where an older checkpoint was
    named (resuming from step_2 while step_4 exists)."""
    step = int(STEP_DIR.match(checkpoint.name).group(1)) if STEP_DIR.match(checkpoint.name) else None
    others = [p for p in complete_checkpoints(checkpoint.parent) if p.name != checkpoint.name]
    before = [p for p in others if step is not None and int(STEP_DIR.match(p.name).group(1)) < step]
    later = [p for p in others if p not in before]
    # Before it: the run's own state, fewer steps trained. Else the nearest after it, the closest to what
    # was asked for; a later one is no replacement for it, so copying it again is said first.
    if for_export:  # "resume from the checkpoint before it, --train.resume=..." was no way to an export
        if before:
            return f"copy it again from where it was written, or export the checkpoint before it, {before[-1]}"
        if later:
            return f"copy it again from where it was written, or export a later checkpoint of the run, {later[0]}"
        return "copy it again from where it was written"
    if before:
        return f"resume from the checkpoint before it, --train.resume={shell_word(before[-1])} (resume= in fit)"
    if later:
        return (f"copy it again from where it was written, or resume from a later checkpoint of the run, "
                f"--train.resume={shell_word(later[0])} (resume= in fit)")
    return "copy it again from where it was written, or start a new run"


def _not_as_written(checkpoint: Path, already: set[str], whole_state: bool = False,
                    reads: frozenset[str] | None = None) -> list[str]:
    """The text files (with ``whole_state``, also the state files) whose size is not the one the layout
    file recorded when they were saved (none for checkpoints saved before sizes were recorded), leaving
    out those in ``already`` and, where ``reads`` is given, those not in it."""
    try:
        layout = json.loads((checkpoint / LAYOUT_FILE).read_text(encoding="utf-8"))
        written = dict(layout.get(WRITTEN_BYTES, {}))
    except (OSError, ValueError, AttributeError, TypeError):  # missing, or itself damaged (reported already)
        return []
    if whole_state and isinstance(layout.get(STATE_BYTES), dict):  # not recorded by older checkpoints
        written.update(layout[STATE_BYTES])
        ranks = layout.get("num_processes")
        # Only those of ranks this launch has: accelerate's load_state reads its own rank's alone, so a
        # 2-process run's checkpoint resumes in one process without random_states_1.pkl (refused before)
        ranks = min(ranks, launched_processes()) if isinstance(ranks, int) else 1
        others = [f"random_states_{rank}.pkl" for rank in range(1, ranks)]
        missing = [name for name in others if name not in already and not (checkpoint / name).is_file()]
        already = already | set(missing)
    else:
        missing = []
    changed = [f"{name} (missing; rank {name[len('random_states_'):-len('.pkl')]} wrote it)" for name in missing]
    for name, expected in written.items():
        path = checkpoint / name
        if name in already or (reads is not None and name not in reads):
            continue
        if not path.is_file():
            changed.append(f"{name} (missing; {expected} bytes were written)")
        elif path.stat().st_size != expected:
            changed.append(f"{name} ({path.stat().st_size} bytes where {expected} were written)")
    return changed
