"""Where ``accelerated-seg evaluate`` writes: the output folder (``pred_dir/evaluation`` by default), refused
before any case is scored where evaluate cannot write or would replace what it did not write
(``check_output_folder``), or where it lies among the reference labels (``check_output_outside_the_labels``);
an earlier evaluation there replaced only where it scored the same folders (or the same files, moved) with the
same settings, or the caller said to (``check_earlier_evaluation``); and ``metrics.csv`` and ``summary.json``,
written there together at the end (``write_evaluation``). Moved out of ``evaluate.py`` in the ninety-sixth
session; the checks are importable from there as before.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .data.errors import DataError
from .evaluate_setting_names import SettingNames
from .files import (NAME_MAX, file_in_the_way, is_json_object_with, link_problem, name_too_long,
                    no_file_made_in, temporary_name, write_files_together)
from .printed_paths import SHOWN_AS_BYTES
from .shell_words import shell_word

# The settings that say where the inputs lie: a folder moved or renamed since holds the same evaluation where its
# files hold what they held (summary.json's inputs_sha256)
INPUT_PLACES = ("prediction_folder", "label_folder", "dataset_json")


def check_output_outside_the_labels(output_dir: Path, label_dir: Path, pred_dir: Path,
                                    setting_names: SettingNames = SettingNames()) -> None:
    """Refuse an ``output_dir`` that is the reference labels' folder or one inside it (unless inside the
    predictions' own): metrics.csv and summary.json were written among a dataset's labels, mixing an
    evaluation's outputs with its references (ninety-second session's probe)."""
    output, labels = output_dir.resolve(), label_dir.resolve()
    if (output == labels or labels in output.parents) and not output.is_relative_to(pred_dir.resolve()):
        raise DataError(f"{setting_names.output_dir} {output_dir} is {'' if output == labels else 'inside '}the "
                        f"reference labels' folder {setting_names.label_dir} {label_dir}: metrics.csv and "
                        f"summary.json would lie among the dataset's labels; give a folder outside it")


def check_output_folder(output_dir: Path, setting: str = "output_dir", written_below: Sequence[str] = ()) -> None:
    """Refuse, before any case is scored, a folder where evaluate cannot write or would replace what it
    did not write: ``metrics.csv`` and ``summary.json`` are replaced only when an earlier evaluation
    wrote them. ``--output`` pointing at a training run's folder wrote the evaluation's summary over the
    run's own ``summary.json`` before the thirtieth session (``Segmentation.evaluate`` deleted it).

    ``setting`` names the folder as the caller gave it: ``evaluate_folders``' ``output_dir`` (the default), the
    command line's ``--output``, or ``Segmentation.evaluate``'s ``output_dir``, whose user never typed the flag.
    ``written_below``: the NIfTI files the caller writes in the folder besides the two, as paths relative to it
    (``Segmentation.evaluate``'s ``predictions/<case>.nii.gz``), whose length is judged with the folder's.

    Raises:
        DataError: naming the folder or file and what to do.
    """
    output_dir = Path(output_dir)
    # The path itself first, as predict's and train's checks take it: a dangling link or one in a loop failed at
    # the write (mkdir's FileExistsError), once every case was scored; a name too long, or a folder on the way
    # this user may not search, was Path.exists' bare OSError here ("[Errno 36] File name too long: ...", the
    # hundred-and-twenty-first session's line), naming neither the setting nor what to do, until the
    # hundred-and-twenty-second session
    if problem := link_problem(output_dir):
        raise DataError(f"{setting}: {problem}; or give another folder")
    if too_long := _too_long(output_dir, written_below):
        raise DataError(f"{setting} {output_dir}: {too_long}")
    try:
        _check_folder_takes_the_files(output_dir, setting)
    except OSError as error:  # Path.exists raises every OSError but ENOENT, ENOTDIR, EBADF and ELOOP
        raise DataError(f"{setting} {output_dir} {_not_looked_at(output_dir, error)}") from None


# A path a file system takes, Linux's PATH_MAX (with its closing NUL); the longest name evaluate makes in its
# folder, summary.json's temporary as files.write_files_together names it (".<name>.<32 hex>.tmp")
_PATH_MAX = 4096
_LONGEST_WRITTEN = f".summary.json.{'0' * 32}.tmp"


def _too_long(output_dir: Path, written_below: Sequence[str] = ()) -> str | None:
    """What of ``output_dir`` is longer than a file system takes, and what to give; None where nothing is. Told
    from the path, as predict tells it of its outputs (``files.name_too_long``): the OSError of a
    look at it ("File name too long") names neither the name nor the limit, and a path that is short enough only
    without the files written in it passes every look and fails at the write, after the scoring. The NIfTI files
    ``written_below`` it are counted as written (data/io.write_nifti: through a temporary name 45 bytes longer):
    ``Segmentation.evaluate``'s ``predictions/<case>.nii.gz`` failed at its write ("File name too long") once its
    first case was predicted, its earlier evaluation deleted, until the hundred-and-twenty-third session."""
    if too_long := name_too_long(output_dir):
        name, length = too_long
        return (f"a name on its path is {length} bytes long ({name[:24]}...), and a file or folder name takes at "
                f"most {NAME_MAX}: give a shorter one")
    written = {_LONGEST_WRITTEN: "the files evaluate writes in it"}
    for below in written_below:
        temporary = Path(below).with_name(temporary_name(Path(below).name, "tmp.nii.gz"))
        written[os.fspath(temporary)] = f"{below}, which evaluate writes in it through a temporary name"
    longest, what = max((len(os.fsencode(output_dir / below)), what) for below, what in written.items())
    if longest >= _PATH_MAX:
        return (f"the path is {len(os.fsencode(output_dir))} bytes long, and with {what} ({longest} bytes) over "
                f"the {_PATH_MAX - 1} a path may be: give a shorter one")
    return None


def _not_looked_at(output_dir: Path, error: OSError) -> str:
    """Why ``output_dir`` could not be looked at (``error``, of a stat on its way) and what to do, as words after
    the setting and the folder (the setting is said once, first: Segmentation.evaluate's is "evaluate:
    output_dir", a phrase the advice cannot repeat)."""
    where = (f" at {error.filename}" if error.filename is not None and
             os.fspath(error.filename) != os.fspath(output_dir) else "")
    if error.errno in (errno.EACCES, errno.EPERM):
        return (f"cannot be reached: a folder on its way is not open to this user ({error.strerror}{where}); give a "
                f"folder you can write to, or get access to that one")
    return (f"cannot be looked at ({error.strerror or error}{where}); check that its file system is mounted and "
            f"readable, or give another folder")


def _check_folder_takes_the_files(output_dir: Path, setting: str) -> None:
    """``check_output_folder``'s refusals of what lies at ``output_dir``.

    Raises:
        DataError: naming the folder or file and what to do.
        OSError: a look at the path failed (a folder on the way this user may not search).
    """
    # Found here, not as an OSError after every case is scored.
    if output_dir.exists() and not output_dir.is_dir():
        raise DataError(f"{setting} {output_dir} is a file, not a folder; metrics.csv and summary.json go into a "
                        f"folder: give a new or existing folder")
    if blocking := file_in_the_way(output_dir):
        raise DataError(f"{setting} {output_dir}: {blocking} is a file, so the folder cannot be made there; give a "
                        f"folder path")
    if refused := no_file_made_in(output_dir):  # a read-only folder: an OSError once every case was scored
        raise DataError(f"{setting} {output_dir}: no file can be made in {refused[0]} ({refused[1]}); give a folder "
                        f"you can write to")
    for name in ("metrics.csv", "summary.json"):
        if (output_dir / name).is_dir():
            raise DataError(f"{setting} {output_dir} holds a folder named {name}, where that file goes: remove it "
                            f"or give another folder")
    if foreign := [path for path in (output_dir / "metrics.csv", output_dir / "summary.json")
                   if path.is_file() and not _written_by_evaluate(path)]:
        raise DataError(f"{setting} {output_dir} holds {' and '.join(p.name for p in foreign)} that evaluate did not "
                        f"write (a training run's summary?); evaluate replaces only its own: give another folder")
    # A run's folder before its summary.json (a live run, or one stopped by Ctrl-C or a kill): the evaluation's
    # summary.json was written there, to be replaced by the run's at its end (or preemption) or its resume's.
    if (output_dir / "run_info.json").is_file():
        raise DataError(f"{setting} {output_dir} is a training run's folder (it holds run_info.json), whose run writes "
                        f"its own summary.json when it ends or is resumed: give another folder, such as "
                        f"{output_dir / 'evaluation'}")


def check_earlier_evaluation(output_dir: Path, settings: dict, overwrite: bool,
                             setting_names: SettingNames = SettingNames(),
                             digests: Callable[[], dict[str, str]] | None = None) -> None:
    """Refuse, before any case is scored, to replace an earlier evaluation in ``output_dir`` that scored
    other folders or with other settings (``settings``, as ``evaluation_settings`` records them in
    summary.json), unless ``overwrite``. The same evaluation again (predictions made anew, say) replaces the
    earlier one: what a rerun means; so does one whose folders (or dataset.json) were moved or renamed since,
    where their files hold what the earlier one scored (``digests``: ``input_digests`` of the files now, worked
    out only then). Before the ninety-seventh session any earlier evaluation was replaced without a word: one
    against another annotator's labels, in the default ``PRED/evaluation``, was lost; until the ninety-ninth
    session a folder moved with its evaluation inside was refused as another evaluation.

    Raises:
        DataError: naming the folder, what differs, and how to keep or replace it.
    """
    if overwrite or not ((output_dir / "summary.json").is_file() or (output_dir / "metrics.csv").is_file()):
        return
    earlier = earlier_evaluation(output_dir)
    if isinstance(earlier.get("settings"), dict):
        earlier = {**earlier, "settings": _merge_as_taken(earlier)}
    if earlier.get("settings") == settings:
        return
    if isinstance(earlier.get("settings"), dict):
        differing, moved = _differences(earlier, settings, digests)
        if set(differing) <= moved:  # the same files and settings, from folders moved or renamed
            return
        what = "; ".join(said for key, said in differing.items() if key not in moved)  # a move is no difference
    else:  # written before the ninety-seventh session, or its summary.json removed
        what = "its folders and settings are not recorded in a summary.json"
    raise DataError(f"{setting_names.output_dir} {output_dir} holds an earlier evaluation of other inputs or "
                    f"settings ({what}), which this one would replace: give {setting_names.output_dir} another "
                    f"folder to keep it, or {setting_names.overwrite} to replace it")


def _merge_as_taken(earlier: dict) -> dict:
    """An earlier summary.json's settings with ``merge_foreground`` as evaluate records it since the ninety-ninth
    session, as it took effect: true (the references and the predictions merged), "references" (the references
    alone, as a binarized model's config.json or dataset implies) or false. One written before recorded it as
    given (null, false or true, and ``binarized_references`` true where that was given); what it merged is
    told by its ``merged_foreground``, so that it stays the same evaluation as one of the same effect."""
    settings = {key: value for key, value in earlier["settings"].items() if key != "binarized_references"}
    if "merge_foreground" in settings:  # recorded with the settings since the ninety-seventh session
        settings["merge_foreground"] = (True if settings["merge_foreground"] is True
                                        else "references" if earlier.get("merged_foreground") else False)
    return settings


def earlier_evaluation(output_dir: Path) -> dict:
    """The summary.json of the evaluation in ``output_dir``; {} where there is none or it cannot be read."""
    try:
        # utf-8-sig: as _written_by_evaluate (is_json_object_with) reads it, which took it for evaluate's
        earlier = json.loads((output_dir / "summary.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):  # gone, unreadable: nothing tells what it scored
        return {}
    return earlier if isinstance(earlier, dict) else {}


def _differences(earlier: dict, settings: dict, digests: Callable[[], dict[str, str]] | None
                 ) -> tuple[dict[str, str], set[str]]:
    """({setting that differs: how it is said}, those of them that name a folder or file moved since, whose files
    hold what the earlier evaluation's held). A folder that holds other files is said so."""
    before, recorded = earlier["settings"], earlier.get("inputs_sha256")
    recorded = recorded if isinstance(recorded, dict) else {}  # none before the ninety-ninth session
    differing, moved = {}, set()
    for key in [*settings, *(key for key in before if key not in settings)]:
        if before.get(key) == settings.get(key):
            continue
        differing[key] = f"{key} {json.dumps(before.get(key))}, now {json.dumps(settings.get(key))}"
        if (key in INPUT_PLACES and key in recorded and None not in (before.get(key), settings.get(key))
                and digests is not None):
            if recorded[key] == digests().get(key):
                moved.add(key)
            else:
                differing[key] += " (other files)"
    return differing, moved


def input_digests(pairs: Sequence[tuple[str, Path, Path]], dataset_json: Path | None,
                  taken: Mapping[Path, bytes] | None = None) -> dict[str, str]:
    """What the inputs held, as summary.json's ``inputs_sha256`` records it: SHA-256 of the files scored in each
    folder (by name: each one's name and bytes), and of ``dataset_json``'s bytes. An evaluation from folders
    moved since is the same one where these agree (``check_earlier_evaluation``). ``taken``: the SHA-256 of
    files already hashed as scoring read them (``read_label_map``'s ``digest``), not read again here."""
    taken = taken or {}
    digests = {"prediction_folder": _files_digest([pred for _, pred, _ in pairs], taken),
               "label_folder": _files_digest([label for _, _, label in pairs], taken)}
    if dataset_json is not None:
        digests["dataset_json"] = _bytes_digest(dataset_json).hex()
    return digests


def _files_digest(paths: Sequence[Path], taken: Mapping[Path, bytes]) -> str:
    """SHA-256 over each file's name and the SHA-256 of its bytes (``taken``'s, where given), in the order of
    the names. A name as the OS stores it (os.fsencode: UTF-8, a Latin-1 byte as itself), which str.encode refused,
    every case scored, until the hundred-and-twenty-third session."""
    whole = hashlib.sha256()
    for path in sorted(paths, key=lambda path: path.name):
        whole.update(os.fsencode(path.name) + b"\0" + (taken.get(path) or _bytes_digest(path)))
    return whole.hexdigest()


def _bytes_digest(path: Path) -> bytes:
    """SHA-256 of the file's bytes, read a MiB at a time. hashlib.file_digest does this from Python 3.11 on; the
    package supports 3.10 (pyproject's requires-python), where every evaluation failed on it with an AttributeError
    (ninety-ninth session)."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()


def evaluation_settings(pred_dir: Path, label_dir: Path, **given) -> dict:
    """What makes an evaluation the same as another, as summary.json records it: the folders scored (absolute)
    and the settings (``given``, in JSON's terms: a {1: 2.0} tolerance reads back as {"1": 2.0}); evaluate gives
    them as given, but ``merge_foreground`` as it took effect (``_merge_as_taken``)."""
    def plain(value):  # a Regions, numpy's numbers and arrays, a mapping or sequence of another type
        if hasattr(value, "to_dict") or hasattr(value, "tolist"):
            return value.to_dict() if hasattr(value, "to_dict") else value.tolist()
        return dict(value) if isinstance(value, Mapping) else list(value)

    settings = json.loads(json.dumps({"prediction_folder": str(pred_dir.resolve()),
                                      "label_folder": str(label_dir.resolve()), **given}, default=plain))
    # the command's --tolerance is a list: its one value and Python's tolerance_mm=1.0 are one setting
    if isinstance(tolerance := settings.get("tolerance_mm"), list) and len(tolerance) == 1:
        settings["tolerance_mm"] = tolerance[0]
    return settings


def _written_by_evaluate(path: Path) -> bool:
    """Whether ``path`` is a metrics.csv or summary.json as evaluate writes them."""
    if path.name == "summary.json":
        return is_json_object_with(path, {"prediction_folder", "label_folder", "conventions"})
    try:
        return path.read_text(encoding="utf-8").startswith(",".join(_CSV_COLUMNS) + "\n")
    except (OSError, ValueError):  # unreadable or not UTF-8: not ours
        return False


class EvaluationNotWritten(DataError):
    """metrics.csv and summary.json could not be written into the output folder (a full disk, a quota, an I/O error)
    once every case was scored. ``summary``: the evaluation's summary, as summary.json would have held it (the
    command says its lines from it); ``kept_in``: the folder that holds both files instead, None where they could
    not be kept anywhere."""

    def __init__(self, message: str, summary: dict, kept_in: Path | None):
        super().__init__(message)
        self.summary, self.kept_in = summary, kept_in


def write_evaluation(output_dir: Path, rows: Sequence[dict], summary: dict, setting: str = "output_dir") -> None:
    """Write ``metrics.csv`` (``rows``) and ``summary.json`` into ``output_dir``, both or neither; ``setting``
    names the folder in the error, as ``check_output_folder``'s do.

    Raises:
        EvaluationNotWritten: neither file could be written there (a full disk, a quota), every score kept: both
            files written into a folder of the temporary folder (``tempfile.gettempdir``) instead, which the error
            names with the ``mv`` that puts them in place, and the summary on the error.
    """
    # Both or neither: written one after the other, a full disk or Ctrl-C at the second left this evaluation's
    # metrics.csv beside an earlier one's summary.json (ninety-second session's probe)
    texts = {"metrics.csv": _csv_text(rows), "summary.json": json.dumps(summary, indent=2, allow_nan=False) + "\n"}
    try:
        _write_texts(output_dir, texts)
    except OSError as error:  # a full disk, a quota: "[Errno 28] No space left on device" named no file
        # Every case is scored by now, which can have taken hours: until the hundred-and-twenty-third session the
        # scores were lost with this line, the command saying none of them
        not_written = (f"{setting} {output_dir}: metrics.csv and summary.json cannot be written "
                       f"({error.strerror or error}); neither file there was replaced")
        kept_in, why_not = _kept_elsewhere(texts)
        if kept_in is None:
            raise EvaluationNotWritten(f"{not_written}, and the scores could not be kept in the temporary folder "
                                       f"{tempfile.gettempdir()} either ({why_not}): free some space or give another "
                                       f"folder", summary, None) from None
        raise EvaluationNotWritten(f"{not_written}; every score is kept in {kept_in} instead (in the temporary "
                                   f"folder, which a job's end may clean): {_put_in_place(error, kept_in, output_dir)}",
                                   summary, kept_in) from None


def _put_in_place(error: OSError, kept_in: Path, output_dir: Path) -> str:
    """What to do, then the command that moves the kept files into ``output_dir``: with its ``mkdir -p`` where the
    folder is not there (a full disk refuses a new folder too, and ``mv`` into none failed, "No such file or
    directory"); "free some space" where the disk or a quota is full, else the error's own cause to mend (a folder
    made read-only, "Permission denied": "free some space" named the wrong one), until review r107."""
    full = error.errno in (errno.ENOSPC, errno.EDQUOT)
    what = "free some space" if full else f"once {output_dir} can be written to ({error.strerror or error})"
    folder = shell_word(output_dir)
    move = f"mv {' '.join(shell_word(kept_in / name) for name in ('metrics.csv', 'summary.json'))} {folder}/"
    return f"{what}, then {move if output_dir.is_dir() else f'mkdir -p {folder} && {move}'}"


def _write_texts(folder: Path, texts: Mapping[str, str]) -> None:
    """``texts`` written into ``folder`` as UTF-8 files of their names, together (files.write_files_together). A
    name's byte that is not UTF-8 (a case named in Latin-1) is written as ``\\xNN``, as the commands print it
    (printed_paths.py): the strict codec raised UnicodeEncodeError at metrics.csv's write, every score lost, until
    the hundred-and-twenty-third session."""
    write_files_together(folder, {name: lambda temporary, text=text: temporary.write_bytes(
        text.encode("utf-8", SHOWN_AS_BYTES)) for name, text in texts.items()})


def _kept_elsewhere(texts: Mapping[str, str]) -> tuple[Path | None, str]:
    """(a new folder of the temporary folder that holds ``texts``' files, ""), or (None, why) where none could be
    written there either (the same full disk)."""
    try:
        kept_in = Path(tempfile.mkdtemp(prefix="accelerated_seg_evaluation_"))
    except OSError as error:
        return None, error.strerror or str(error)
    try:
        _write_texts(kept_in, texts)
    except OSError as error:
        shutil.rmtree(kept_in, ignore_errors=True)
        return None, error.strerror or str(error)
    return kept_in, ""


_CSV_COLUMNS = ("case", "class", "name", "dice", "hd95_mm", "surface_dice", "tolerance_mm", "label_voxels",
                "pred_voxels")


def _csv_text(rows: Sequence[dict]) -> str:
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(_CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        # Each float as the shortest text that reads back as the same number (inf -> "inf"), so the
        # means of summary.json are the means of these rows: 6 significant digits until the 85th session
        writer.writerow({k: (repr(float(v)) if isinstance(v, float) else v) for k, v in row.items()})
    return text.getvalue()
