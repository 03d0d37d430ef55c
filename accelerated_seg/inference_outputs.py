"""Which files a prediction writes, and which of those already there it may replace.

``output_paths`` says where each case's label map goes (``probabilities_path``: its probabilities), and
``check_outputs`` refuses, before anything is segmented, every output that would overwrite an input, a file
predict did not write (or has changed since: ``predict_marks``), or another output; ``checked_outputs`` does both
for a run's cases. In a folder of cases, a case's map under the other NIfTI ending (``case.nii.gz`` where the
model names it ``case.nii``) is replaced where predict wrote it and refused otherwise, as evaluate takes two maps
of one case for an error (``under_the_other_ending``, ninety-seventh session). ``check_one_case_call`` is every
refusal of a call that segments one case, ``done_as_written`` what ``--continue`` passes over,
``remove_earlier_prediction`` what a case that failed removes of an earlier run's outputs, and
``holding_output_folder`` refuses a second predict into a folder one is writing. The cases and their files are
``inference_inputs``'s; nothing here knows the network, and voxels are read only to tell whether an existing label
map is still as predict wrote it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import warnings
from collections import Counter
from pathlib import Path
from typing import Collection, Iterable, Sequence

from .config import ConfigError
from .data.errors import DataError
from .data.formats.paths import nifti_stem
from .dropped_interrupts import between_files, interrupts_kept
from .files import (NAME_MAX, file_in_the_way, link_problem, name_too_long, no_file_made_in, remove_stale_temporaries,
                    remove_written)
from .inference_inputs import CHANNEL_FILE, InputCase, check_channel_count, check_no_folder_as_a_channel
from .own_warnings import AcceleratedSegWarning
from .predict_marks import written_before, written_by_predict
from .predict_names import PREDICT_FILE_NAMES, PredictNames
from .run_lock import LOCK_NAME, RunLock, file_lock_name, hold_run_folder, in_use, live_holder
from .stops_held import stops_held


def _check_inputs_are_spared(inputs: Iterable[str | Path], outputs: Iterable[str | Path | None],
                             setting: str = "--output") -> None:
    """Refuse to write a label map or probabilities over an input image (``--output`` = the scans' folder).

    Raises:
        DataError: an output path is one of the inputs; nothing has been written.
    """
    sources = {Path(p).resolve(): Path(p) for p in inputs}
    for output in outputs:
        if output is not None and (source := sources.get(Path(output).resolve())) is not None:
            raise DataError(f"writing {output} would overwrite the input image {source}; give {setting} a new "
                            f"folder or file name")


def _check_links(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse an output that is a symbolic link naming nothing there (dangling) or leading back to itself
    (``files.link_problem``): each file is written through a link, its target replaced and the link kept
    (``files.written_through``), and through these nothing can be; a loop raised pathlib's "RuntimeError: Symlink
    loop" from the checks, and a dangling link became a regular file in its place, until the hundred-and-twentieth
    session. First of the checks: the others follow the links.

    Raises:
        DataError: naming the link, what it names and what to do; nothing has been written.
    """
    for output in outputs:
        try:
            problem = output is not None and link_problem(output)
        except OSError:  # a name too long to look at: _check_name_lengths says so
            continue
        if problem:
            raise DataError(f"{problem}; or give {setting} another path")


def _check_nifti_names(outputs: Iterable[str | Path | None], names: PredictNames = PredictNames()) -> None:
    """Refuse an output file name without ``.nii.gz``/``.nii``: nibabel would write an uncompressed
    NIfTI under it that no viewer or ``evaluate`` recognises as one. Only a label map's path can be so named
    (the probabilities' is refused before, by ``check_probabilities_output``, or made of the label map's), and a
    label map's so named is one case's: the argument as ``names`` say it (of none until the ninety-fifth session).

    Raises:
        DataError: an output is not named as NIfTI; nothing has been written.
    """
    for output in outputs:
        if output is not None and nifti_stem(output) is None:
            raise DataError(f"{names.given(output)} is no NIfTI name: a label map is written as NIfTI; end the file "
                            f"name in .nii.gz (or .nii), e.g. {names.given(Path(output).with_suffix('.nii.gz'))}")


def check_one_case_call(channels: Sequence[str | Path], output: str | Path, probabilities_output: str | Path | None,
                        config: dict | None, names: PredictNames = PredictNames()) -> None:
    """Every refusal of a call that segments one case (``predict_file``, ``predict --input``), from its arguments
    and the model's config.json alone, so before the model loads: a folder as ``output``, files that are not
    one case's channels, an output over an input, a misnamed ``probabilities_output`` (``check_probabilities_output``)
    and what ``check_outputs`` refuses. ``config``: as
    ``channels_config`` gives it (None: the channels are not counted). ``names``: the caller's (the command's
    flags by default, ``PREDICT_FILE_NAMES`` from Python).

    Raises:
        DataError: naming the argument as the caller gives it; nothing has been written.
    """
    check_one_case_output(output, channels, names)
    _check_links([output], names.output)  # before the checks that follow it (resolve raised at a loop)
    _check_links([probabilities_output], names.probabilities)
    check_no_folder_as_a_channel(channels, names)
    check_channel_count(channels, config, names)
    _check_inputs_are_spared(channels, [output], names.output)
    _check_inputs_are_spared(channels, [probabilities_output], names.probabilities)
    if names.probabilities != names.output:  # the command's --probabilities: beside --output, a NIfTI name of its own
        check_probabilities_output(output, probabilities_output, names)
    check_outputs(channels, [output, probabilities_output], names, [probabilities_output], one_file=True)


def check_probabilities_output(output: str | Path, probabilities_output: str | Path | None,
                               names: PredictNames = PREDICT_FILE_NAMES) -> None:
    """Refuse a ``probabilities_output`` (``predict_file``'s, ``predict_case``'s) that is not one NIfTI file of its
    own. Until the ninety-fifth session a folder (``"probs/"``) or a name without .nii.gz was told "a label map is
    written as NIfTI", of no argument, and the probabilities are no label map; the label map's own path, predict_cases'
    "a case's label map and another case's <case>_probs.nii.gz have one name", of cases one case has not.
    ``output``: the label map's path, a file (``check_one_case_output`` refuses a folder first).

    Raises:
        DataError: naming the argument as the caller gives it, what the probabilities are, and a path to give.
    """
    if probabilities_output is None:
        return
    given, text = names.given(probabilities_output, names.probabilities), str(probabilities_output)
    what = "the probabilities are one NIfTI file (float32, one volume per class)"
    if text.endswith(("/", os.sep)) or Path(text).is_dir():
        example = Path(text) / probabilities_path(output).name
        raise DataError(f"{given} is a folder, but {what}: give e.g. {names.given(example, names.probabilities)}")
    if nifti_stem(text) is None:
        example = Path(text).with_suffix(".nii.gz")
        raise DataError(f"{given} is no NIfTI name, but {what}: end it in .nii.gz (or .nii), e.g. "
                        f"{names.given(example, names.probabilities)}")
    if Path(text).resolve() == Path(output).resolve():
        raise DataError(f"{given} is {names.output}'s path too, so the probabilities would be written over the label "
                        f"map: give {names.probabilities} a path of its own, e.g. "
                        f"{names.given(probabilities_path(output), names.probabilities)}")


def check_one_case_output(output: str | Path, channels: Sequence[str | Path],
                          names: PredictNames = PredictNames()) -> None:
    """Refuse a folder as the output of one case (``predict --input``, ``predict_file``), which writes that
    case's label map itself. ``output`` as given: the command's text typed, whose ``p2d/`` was said as "p2d: a
    label map is written as NIfTI", its ``/`` gone with pathlib's, and nothing said that the output is one file
    (h15's probe); ``predict_file(..., "p2d/")`` was told so, after its model loaded, until the ninety-fifth session.

    Raises:
        DataError: naming the output as given, the file name to give, and the form that writes into a folder.
    """
    text = str(output)  # a str keeps its "/", which a Path has not
    if nifti_stem(text) is not None or not (text.endswith(("/", os.sep)) or Path(text).is_dir()):
        return  # a NIfTI name, or a name without .nii.gz that check_outputs refuses as such
    stem = nifti_stem(channels[0]) if channels else None
    case = (match["case"] if (match := CHANNEL_FILE.match(stem)) else stem) if stem else "case"
    raise DataError(f"{names.given(output)} is a folder, but {names.one_case}: give e.g. "
                    f"{names.given(Path(output) / f'{case}.nii.gz')}, or {names.several_cases_into(output)} "
                    f"to write {Path(output) / '<case>.nii.gz'}")


def _check_name_lengths(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse an output whose name (or a folder's above it) is longer than a file name can be (``NAME_MAX``
    bytes): a scan of a 250-character name gave its label map, and then failed at the probabilities'
    write (``<case>_probs.nii.gz``, 6 characters longer), after its case was segmented, with an OSError
    naming the hidden temporary; with the output folder there, the checks' own look at the name raised
    "File name too long" (a review's probe).

    Raises:
        DataError: naming the output and what to shorten; nothing has been written.
    """
    for output in outputs:
        if output is None:
            continue
        if too_long := name_too_long(output):
            raise DataError(f"{output}: {too_long[0]!r} is {too_long[1]} bytes long, and a file or "
                            f"folder name takes at most {NAME_MAX}; give {setting} a shorter name, or rename the scan "
                            f"whose name it takes (the probabilities add _probs to the label map's)")


def _check_writable(outputs: Iterable[str | Path | None], setting: str = "--output",
                    probabilities: Collection[str | Path | None] = (), probabilities_setting: str = "--output",
                    one_file: bool = False) -> None:
    """Refuse an output path that is a folder, or below a file: the label map is written to a
    temporary file and renamed, and either would fail there with an OSError, after the inference.
    ``probabilities``: the outputs that are probabilities, whose folder was said "so the label map cannot be
    written there" until the ninety-fifth session, and ``--output`` to be given a name that is no folder, which it
    was; ``probabilities_setting`` names where their path comes from. ``one_file``: ``setting`` names one case's
    label map itself rather than the folder of the cases'; until the ninety-sixth session either was told to give
    it "a file name that is not a folder, or another folder for <case>.nii.gz", half of which did not apply.

    Raises:
        DataError: naming the output and what is in its way; nothing has been written.
    """
    for output in outputs:
        if output is None:
            continue
        if Path(output).is_dir() and output in probabilities:
            raise DataError(f"{output} is a folder, so the probabilities cannot be written there; move that folder "
                            f"away, or give {probabilities_setting} another name")
        if Path(output).is_dir():
            another = "another file name (one case's label map is one file)" if one_file else "another folder"
            raise DataError(f"{output} is a folder, so the label map cannot be written there; give {setting} "
                            f"{another}, or move that folder away")
        if blocking := file_in_the_way(Path(output).parent):
            raise DataError(f"{output}: {blocking} is a file, so the folder for {Path(output).name} cannot be "
                            f"made; give {setting} a folder path, or a file name in one")


def _check_folders_take_files(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse an output whose folder no file can be made in (``files.no_file_made_in``: a read-only
    filesystem, another user's folder): the first label map's write failed there only after its case was
    segmented, naming the hidden temporary, and the lock's "cannot be locked" warning before it spoke of
    a second predict (an audit's probe). One file made and removed per folder; nothing is left behind.

    Raises:
        DataError: naming the output, the folder and why; nothing has been written.
    """
    tried = set()
    for output in outputs:
        if output is None or (folder := _written_in(Path(output))) in tried:
            continue
        tried.add(folder)
        if refused := no_file_made_in(folder):
            raise DataError(f"{output} cannot be written: no file can be made in {refused[0]} ({refused[1]}); give "
                            f"{setting} a folder you can write to")


def _written_in(output: Path) -> Path:
    """The folder ``output``'s file is made in: its own, or where it is a symbolic link, its target's
    (``files.written_through``), which until the hundred-and-twentieth session was not tried."""
    return Path(os.path.realpath(output)).parent if output.is_symlink() else output.parent.absolute()


def under_the_other_ending(label_map: str | Path) -> Path:
    """The same name under the other NIfTI ending: ``case.nii`` for ``case.nii.gz``, and the other way round."""
    label_map = Path(label_map)
    stem = nifti_stem(label_map) or label_map.name
    return label_map.with_name(stem + (".nii" if label_map.name.lower().endswith(".nii.gz") else ".nii.gz"))


def done_as_written(label_map: Path, probabilities: Path | None, key: bytes, other_ending: bool) -> Path | None:
    """``--continue``: the case's label map that an earlier run wrote as ``key`` says (``written_before``), which
    the run passes over; None where the case is to be predicted. ``other_ending``: in a folder of cases, one under
    the other NIfTI ending (a map named by the caller, or decompressed since) counts too: until the ninety-seventh
    session it was predicted again beside it, and evaluate refused the two maps of one case."""
    for path in (label_map, *([under_the_other_ending(label_map)] if other_ending else [])):
        if written_before(path, probabilities, key):
            return path
    return None


def _check_only_predictions_replaced(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse to write over a file that is not one of our predictions as predict left it: a rerun
    replaces its own outputs, but ``--output labelsTr`` wrote each case's label map over its reference
    segmentation, of the same name, without a word; and a label map corrected by hand in place, in an
    editor that keeps the header, was replaced by the next run (seventieth session).

    Raises:
        DataError: naming the files; nothing has been written.
    """
    with interrupts_kept():  # a Ctrl-C as nibabel closes an output's file raised, not dropped (dropped_interrupts.py)
        refused = [(str(output), why) for output in between_files(outputs)
                   if output is not None and Path(output).is_file() and (why := written_by_predict(output))]
    if refused:
        shown = ", ".join(f"{path} ({why})" for path, why in refused[:5]) + (
            f" (and {len(refused) - 5} more)" if len(refused) > 5 else "")
        what = f"{shown} already exists" if len(refused) == 1 else f"{len(refused)} outputs already exist: {shown}"
        raise DataError(f"{what}; predict replaces only its own outputs as it wrote them (a reference segmentation, "
                        f"or a label map corrected by hand, is kept): give {setting} another folder, or move the "
                        f"file(s) away")


def _check_written_once(outputs: list, names: PredictNames = PredictNames()) -> None:
    """Refuse two outputs at one path: a case named ``x_probs`` had its label map written over case
    ``x``'s probabilities (``x_probs.nii.gz``), or the other way round, without a word. The way without
    them in the caller's words (``names.without_probabilities``): "leave the probabilities out", of no
    argument, until the ninety-sixth session."""
    counts = Counter(Path(path).resolve() for path in outputs if path is not None)
    if twice := sorted(str(path) for path, count in counts.items() if count > 1):
        # Two outputs that are symbolic links to one file (written through: files.written_through) were said to be a
        # map and a <case>_probs of one name, and told to rename an input, until the hundred-and-twentieth
        # session's review.
        if linked := sorted(str(path) for path in outputs if path is not None and Path(path).is_symlink()
                            and str(Path(path).resolve()) in twice):
            raise DataError(f"{', '.join(twice)} would be written twice by this prediction: {', '.join(linked)} "
                            f"are symbolic links to it, and each output is written through its link: point each "
                            f"at a file of its own, or remove the links")
        raise DataError(f"{', '.join(twice)} would be written twice by this prediction (a case's label map and another "
                        f"case's <case>_probs.nii.gz have one name): rename one of those inputs, or "
                        f"{names.without_probabilities}")


def check_outputs(inputs: Iterable[str | Path], outputs: Iterable[str | Path | None],
                  names: PredictNames = PredictNames(), probabilities: Collection[str | Path | None] = (),
                  one_file: bool = False) -> None:
    """Every check of the files a prediction will write, before it segments anything: none is an
    input image, each is named as NIfTI, no two share a path, each can be written (no folder in its
    place, no file above it), none replaces a file that predict did not write, and a file can be made
    in each one's folder (not a read-only one). Called with every
    case's outputs, so a refusal leaves nothing half done. ``names``: the caller's (the command's flags by default).
    ``probabilities``: those of ``outputs`` that are probabilities, so that a refusal says which file it is;
    ``one_file``: the output names one case's label map itself (a NIfTI name), not the folder of the cases'.

    Raises:
        DataError: naming the output and what to do; nothing has been written.
    """
    outputs = list(outputs)
    for output in outputs:  # before the checks that follow a link (resolve raised at a loop)
        _check_links([output], names.probabilities if output in probabilities else names.output)
    _check_inputs_are_spared(inputs, outputs, names.output)
    _check_nifti_names(outputs, names)
    _check_name_lengths(outputs, names.output)  # before any look at the files: a stat of such a name raises
    _check_written_once(outputs, names)
    _check_writable(outputs, names.output, probabilities, names.probabilities, one_file)
    _check_only_predictions_replaced(outputs, names.output)
    _check_folders_take_files(outputs, names.output)


def checked_outputs(cases: Sequence[InputCase], output: str | Path, probabilities: bool,
                    names: PredictNames = PredictNames(), ending: str = ".nii.gz") -> tuple[list[Path], list[Path]]:
    """Each case's label map (``output_paths``, named with ``ending``) and every file the prediction writes (with
    ``probabilities``, each case's ``probabilities_path`` too), refused as ``check_outputs`` refuses them, and in a
    folder of cases as ``_check_other_endings_replaced`` does. One function for ``predict_cases``,
    ``predict_distributed`` and the command line, which checks before the inference stack imports (ninety-second
    session), so that each says a refusal alike; ``names``: the caller's words for them.

    Raises:
        DataError: as ``output_paths`` and ``check_outputs``; nothing has been written.
    """
    outputs = output_paths(cases, output, names, ending)
    probabilities_paths = [probabilities_path(path) for path in outputs] if probabilities else []
    written = [*outputs, *probabilities_paths]
    # every case's, before the first
    one_file = nifti_stem(output) is not None
    check_outputs([path for case in cases for path in case.channels], written, names, set(probabilities_paths),
                  one_file=one_file)
    if not one_file:  # a name given is the caller's, whatever lies beside it
        _check_other_endings_replaced(outputs, ending, names.output)
    return outputs, written


def _check_other_endings_replaced(outputs: Sequence[Path], ending: str, setting: str = "--output") -> None:
    """Refuse a folder of cases where a case's file under the other NIfTI ending (``case.nii.gz`` beside the
    ``case.nii`` to write) is not one of predict's label maps as it wrote them: evaluate refuses two predictions of
    one case, and predict replaces only its own (``remove_under_the_other_ending``). A model whose dataset.json
    declares ".nii" wrote its maps beside an earlier model's ``.nii.gz`` until the ninety-seventh session.

    Raises:
        DataError: naming the files and why each is kept; nothing has been written.
    """
    with interrupts_kept():  # as _check_only_predictions_replaced
        refused = [(str(other), why) for path in between_files(outputs)
                   if os.path.isfile(other := under_the_other_ending(path)) and (why := written_by_predict(other))]
    if refused:
        shown = ", ".join(f"{path} ({why})" for path, why in refused[:5]) + (
            f" (and {len(refused) - 5} more)" if len(refused) > 5 else "")
        raise DataError(f"{shown}: the label maps of these cases would be written beside them as <case>{ending}, and "
                        f"evaluate refuses two predictions of one case; predict replaces only its own outputs as it "
                        f"wrote them (a reference segmentation, or a label map corrected by hand, is kept): give "
                        f"{setting} another folder, or move the file(s) away")


def remove_under_the_other_ending(label_map: str | Path) -> None:
    """Delete the case's label map under the other NIfTI ending that an earlier run of predict wrote, as this run
    wrote ``label_map`` (or could not: ``remove_earlier_prediction``) in a folder of cases: a map of the same name
    is replaced, and one beside it would be a second prediction of the case. ``_check_other_endings_replaced``
    refused any other file there first."""
    other = under_the_other_ending(label_map)
    if os.path.isfile(other) and written_by_predict(other) is None:  # os.path's: a name too long is no file
        remove_written(other)  # a link's target too


def probabilities_path(label_path: str | Path) -> Path:
    """Where the probabilities of the label map ``x.nii.gz`` go: ``x_probs.nii.gz`` beside it."""
    label_path = Path(label_path)
    stem = nifti_stem(label_path) or label_path.name
    return label_path.with_name(f"{stem}_probs.nii.gz")


def remove_earlier_prediction(label_map: str | Path, probabilities: str | Path | None = None,
                              other_ending: bool = False) -> str:
    """For a case this run could not segment: delete the label map and probabilities that an earlier
    run of predict wrote at its outputs, as its success would have replaced them. A rerun with another
    model left the first model's map of the failed case among the new ones, taken for this run's by
    whatever read the folder next (eighty-third session's review). A file predict did not write, or
    changed since, stays. ``probabilities``: theirs, where not beside the label map (``predict_file``);
    ``other_ending``: in a folder of cases, the map under the other NIfTI ending too, which success replaces
    (``remove_under_the_other_ending``). Returns what the case's error line adds ("" where nothing was there)."""
    removed = []
    others = [under_the_other_ending(label_map)] if other_ending else []
    for path in (Path(label_map), *others, Path(probabilities or probabilities_path(label_map))):
        # os.path's test: Path.is_file raised at a probabilities name too long (a map's of 250-255 bytes)
        if os.path.isfile(path) and written_by_predict(path) is None:
            remove_written(path)  # a link's target too: the link alone left the earlier map there
            removed.append(path.name)
    return f" (an earlier run's {' and '.join(removed)} removed: it was not this run's)" if removed else ""


def clear_stale_temporaries(outputs: Iterable[str | Path | None]) -> None:
    """Delete the hidden temporaries that a killed predict left in the output folders: each file is
    written under one and renamed when whole, and a kill (or a SIGTERM at a time limit) left them
    there for good (seventieth session). Only old ones with our writers' names (``files``), in the folder of
    each output and of what a link among them names."""
    # a write through a link makes its temporary beside the link's target (files.written_through): swept there too
    for folder in {path.parent for output in outputs if output is not None
                   for path in (Path(output), Path(os.path.realpath(output)))}:
        remove_stale_temporaries(folder)


# What a run that writes into a folder another run writes into does (run_lock.in_use's message), one label map, and
# another file of one map's predict (its probabilities, which may be another predict's label map).
_CLASH = "two runs writing into one folder mix their outputs there"
_FILE_CLASH = "two runs writing one label map replace each other's"
_ONE_FILE_CLASH = "two runs writing one file replace each other's"


@dataclasses.dataclass(frozen=True)
class _Lock:
    """One lock a predict holds (run_lock.hold_run_folder's arguments): the folder, the lock file's name, how a
    refusal names what is in use, where else to predict, and what two runs there do."""
    folder: Path
    name: str
    shown: str
    elsewhere: str
    clash: str


def _locks_to_hold(output: Path, outputs: Iterable[str | Path | None]) -> list[_Lock]:
    """The locks a predict into ``output`` holds, each on what its writes really reach (``files.written_through``):
    a folder of cases, its folder's, and that of every other folder a symbolic link among ``outputs`` leads into;
    one label map, the lock of each file its writes reach (``run_lock.file_lock_name``), whatever path or link
    leads there: the map's, and its probabilities' (``outputs``). Taken on ``--output`` as given until the
    hundred-and-twenty-first session, so two predicts writing into one folder (or file) through links from two
    folders did not exclude each other; the probabilities were not locked until the hundred-and-twenty-second, so
    two predicts of ``seg.nii`` and ``seg.nii.gz`` both wrote ``seg_probs.nii.gz``, as did one whose map was the
    other's probabilities (benchmarks/results/output_locks_left_2026-12-07)."""
    if nifti_stem(output) is not None:
        locks: dict[Path, _Lock] = {}
        for path in (output, *(Path(path) for path in outputs if path is not None)):
            target = Path(os.path.realpath(path))
            shown = f"{target} (which {path} is a symbolic link to)" if path.is_symlink() else str(target)
            # once each: a second flock on one file is refused, in this process too
            locks.setdefault(target, _Lock(target.parent, file_lock_name(target), shown, "another file",
                                           _FILE_CLASH if not locks else _ONE_FILE_CLASH))
        return list(locks.values())
    locks = [_Lock(output, LOCK_NAME, str(output), "another --output folder", _CLASH)]
    folders = {Path(os.path.realpath(output))}
    for path in outputs:
        if path is not None and Path(path).is_symlink() and (folder := _written_in(Path(path))) not in folders:
            folders.add(folder)  # once: a second flock on one file is refused, in this process too
            locks.append(_Lock(folder, LOCK_NAME, f"{folder} (which {path} is a symbolic link into)",
                               f"another --output folder, or point {path} elsewhere", _CLASH))
    return locks


def _refuse_a_map_another_predict_holds(outputs: Iterable[str | Path | None]) -> None:
    """Refuse a folder's predict where one of its files is a live single-map predict's (its ``file_lock_name``
    lock, beside the file its write reaches). Until the hundred-and-twenty-first session's review a folder's predict
    looked at the folder's lock alone, and both wrote that map, the last one's left, unsaid."""
    for path in outputs:
        if path is not None:
            target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path).absolute()
            if (holder := live_holder(target.parent, file_lock_name(target))) is not None:
                raise ConfigError(in_use(target, holder, "another --output folder", _FILE_CLASH, "predict"))


@contextlib.contextmanager
def holding_output_folder(output: str | Path, outputs: Iterable[str | Path | None], main_process=None):
    """Hold the locks (run_lock.py) on what predict writes (``_locks_to_hold``) while it writes, then clear the
    temporaries a killed predict left there (``clear_stale_temporaries``).

    Two predicts into one folder at once each wrote their own cases whole, so the folder ended up
    holding label maps of both models, and nothing said so. The second is now refused, naming the
    first's process and command; called after ``check_outputs``, so a refusal there makes no folder.
    A single file as ``--output`` locks that file alone, and its probabilities (its folder may hold unrelated
    files), and is refused where either lies in a folder a live run holds. What cannot be locked (a filesystem
    without ``flock``, or a place that cannot be written: writing there names the file) goes unguarded, with a
    warning.

    Args:
        output: predict's ``--output``: a folder, or one label map's file name.
        outputs: every file the run writes (temporaries are cleared in their folders; links among them locked where
            they lead; for one label map, each file locked).
        main_process: None in a single process; else the ``Accelerator``/``PartialState``, whose
            main process alone takes the lock, and whose refusal every process raises.

    Raises:
        ConfigError: another live predict (or training run) holds the folder, or the file.
    """
    held: list[RunLock] = []
    unguarded_in: set[Path] = set()  # said once a folder: one map's probabilities beside it are unguarded alike

    def hold(lock: _Lock) -> None:
        try:
            with stops_held():  # a stop as the lock is returned is raised once it is in ``held``, released below
                held.append(hold_run_folder(lock.folder, lock.elsewhere, lock.clash, "predict", name=lock.name,
                                            shown=lock.shown))
            unguarded = held[-1].unsupported
        except OSError as error:
            unguarded = os.strerror(error.errno) if error.errno else str(error)
        if unguarded and lock.folder not in unguarded_in:
            unguarded_in.add(lock.folder)
            what = f"--output {output}" if lock.shown == str(output) else lock.shown
            warnings.warn(f"{what} cannot be locked ({unguarded}), so a second predict into it would not be refused: "
                          f"give each predict its own --output", AcceleratedSegWarning, stacklevel=5)

    def hold_and_clear() -> None:
        one_file = nifti_stem(output) is not None
        for lock in _locks_to_hold(Path(output), outputs):
            hold(lock)
        # The other kind's locks looked at once ours are held: of a folder's predict and one map's starting together,
        # the second to take its lock sees the first's.
        if one_file:  # a folder's lock, where a live run holds it, refuses a file in it too
            written = [Path(path) for path in (output, *outputs) if path is not None]
            for folder in dict.fromkeys(folder for path in written for folder in (path.parent, _written_in(path))):
                if (holder := live_holder(folder)) is not None:
                    raise ConfigError(in_use(folder, holder, "another folder", _CLASH, "predict"))
        else:
            _refuse_a_map_another_predict_holds(outputs)
        try:
            clear_stale_temporaries(outputs)
        except OSError as error:  # another user's leftovers in a shared folder: said, and the cases go on
            warnings.warn(f"what killed predicts left in the output folder could not all be removed ({error})",
                          AcceleratedSegWarning, stacklevel=4)

    try:
        if main_process is None:
            hold_and_clear()
        else:
            from .ranks import on_main

            on_main(main_process, hold_and_clear)
        yield
    finally:
        # Last taken first: a lock removes the folders it made once empty, and one map's first lock made the folder
        # its probabilities' lock lies in (released first, that folder was left, empty: the hundred-and-twenty-second
        # session's review)
        for lock in reversed(held):
            lock.release()


def prediction_ending(config: dict) -> str:
    """The ending of the label maps predict names for the model of ``config`` (its config.json): the one its
    nnU-Net dataset.json declared (``".nii"``), else ``.nii.gz``."""
    return config.get("file_ending") or ".nii.gz"


def output_paths(cases: Sequence[InputCase], output: str | Path, names: PredictNames = PredictNames(),
                 ending: str = ".nii.gz") -> list[Path]:
    """The label map of each case: ``output/<case><ending>`` (``prediction_ending``), or ``output`` itself for
    one case.

    Raises:
        DataError: ``output`` is a file name (``.nii.gz``/``.nii``) but there is not exactly one case,
            an existing file where the folder must go, or the folder of the scans themselves.
    """
    if nifti_stem(output) is not None:  # a file name: the inputs must be exactly one case
        if len(cases) != 1:
            raise DataError(f"{names.given(output)} is one file, but the inputs hold {len(cases)} cases "
                            f"({', '.join(c.id for c in cases[:5])}{', ...' if len(cases) > 5 else ''}); "
                            f"give a folder as {names.output}")
        return [Path(output)]
    if Path(output).exists() and not Path(output).is_dir():  # else errno 17 from a mkdir, after the first case
        raise DataError(f"{names.given(output)} is a file, not a folder; the label maps go into a folder as "
                        f"<case>{ending}: give a new or existing folder")
    refuse_the_folder_of_the_scans([path for case in cases for path in case.channels], output, names)
    return [Path(output) / f"{case.id}{ending}" for case in cases]


def refuse_the_folder_of_the_scans(scans: Sequence[str | Path], output: str | Path,
                                   names: PredictNames = PredictNames()) -> None:
    """A DataError where the folder ``output`` holds one of ``scans``: the label maps would sit among them. With
    nnU-Net's names (<case>_0000.nii.gz in, <case>.nii.gz out) nothing collides, and the next run took them
    for channels of the cases (seventieth session). Paths alone decide it, alike on every process of a launch."""
    folders = {Path(path).resolve().parent: Path(path) for path in scans}
    if (scan := folders.get(Path(output).resolve())) is not None:
        raise DataError(f"{names.given(output)} is the folder of the scans ({scan}): the label maps would lie among "
                        f"them, and a later run would read them as scans; give {names.output} another folder")
