"""Which prediction scores against which label, in ``accelerated-seg evaluate``: each label pairs with the
prediction of its case id (its file name without ``.nii.gz``/``.nii``), in the two folders given.

A label without a prediction is an error, never skipped; the error says where the prediction was looked for
and what to do in the words of the tool that wrote the folder (``predict``, nnU-Net v2 or v1, MONAI's SaveImage),
or where the predictions are instead (under other names, a folder down). Moved out of ``evaluate.py`` in the
ninety-sixth session; ``evaluate.py`` scores the pairs this module makes.
"""

from __future__ import annotations

from pathlib import Path

from .data.errors import DataError
from .data.formats.paths import nifti_stem, other_image_files
from .data.io import file_or_unfetched
from .model_folders import model_folder_kind
from .shell_words import shell_word

# What nnU-Net v2's predict writes beside its predictions (with its dataset.json and plans.json): its folder's mark.
NNUNET_PREDICT_ARGUMENTS = "predict_from_raw_data_args.json"
# What nnU-Net v1's nnUNet_predict copies from its model's folder beside its predictions: plans.pkl always
# (predict_from_folder), postprocessing.json where the model has one (predict_cases, unless postprocessing is
# disabled). v2 writes neither: its plans are plans.json, its postprocessing postprocessing.pkl.
NNUNET_V1_MARKS = ("plans.pkl", "postprocessing.json")


def case_id(path: str | Path) -> str | None:
    """The case id of a NIfTI file: its name without ``.nii.gz``/``.nii``; None for other files."""
    return None if Path(path).name.startswith(".") else nifti_stem(path)


def match_cases(pred_dir: str | Path, label_dir: str | Path) -> tuple[list[tuple[str, Path, Path]], list[Path]]:
    """Pair every label with the prediction of the same case id.

    Returns:
        ([(case id, prediction, label)], prediction files without a label, e.g. ``*_probs.nii.gz``).

    Raises:
        DataError: a folder is missing or holds no label, or a label has no prediction (a reviewer
            would count a missing prediction as a failure, so it is not silently skipped).
    """
    pred_dir, label_dir = Path(pred_dir), Path(label_dir)
    for folder, what in ((pred_dir, "prediction"), (label_dir, "label")):
        if folder.is_file():  # predict writes one file for one case: "folder not found" said nothing of why
            raise DataError(f"{folder}: a file, where evaluate takes the {what} folder (cases are paired by file "
                            f"name across the two folders); put the {what}(s) to score in a folder of their own")
        if not folder.is_dir():
            raise DataError(f"{folder}: {what} folder not found; give a folder of .nii.gz files")
    _refuse_a_model_folder(pred_dir, label_dir)
    if pred_dir.resolve() == label_dir.resolve():  # every label scored against itself: Dice 1, whatever the model
        raise DataError(f"{pred_dir} is both the prediction and the label folder, so each label would be scored "
                        f"against itself; give the folder predict wrote and the folder of reference labels")
    labels = _nifti_files_by_case(label_dir, "label", wanted=None)
    predictions = _nifti_files_by_case(pred_dir, "prediction", wanted=set(labels))
    if not labels and (others := other_image_files(label_dir)):
        raise DataError(f"{label_dir}: no .nii/.nii.gz label file{others}")
    if not labels:
        raise DataError(f"{label_dir}: no .nii/.nii.gz label file; give the folder of reference label maps"
                        f"{_label_folders_below(label_dir)}")
    missing = [case for case in labels if case not in predictions]
    if len(missing) == len(labels) and (elsewhere := _predictions_of_other_names(pred_dir, predictions, labels,
                                                                                  label_dir)):
        raise DataError(f"none of the {len(labels)} label(s) in {label_dir} ({', '.join(sorted(labels)[:3])}"
                        f"{', ...' if len(labels) > 3 else ''}) has a prediction of its name in {pred_dir}, "
                        f"{elsewhere}")
    if missing:
        shown = ", ".join(f"{pred_dir / (case + '.nii.gz')}" for case in missing[:10])
        raise DataError(f"{len(missing)} label(s) in {label_dir} have no prediction in {pred_dir}: evaluate looked "
                        f"for {shown}{' ...' if len(missing) > 10 else ''} (or .nii); "
                        f"{_missing_predictions_advice(pred_dir, predictions, missing)}")
    pairs = [(case, predictions[case], labels[case]) for case in sorted(labels)]
    unmatched = [path for case, path in predictions.items() if case not in labels]
    return pairs, unmatched


def _refuse_a_model_folder(pred_dir: Path, label_dir: Path) -> None:
    """An exported model (or a training run's folder) given as the predictions or the labels, the folders predict
    and --labels take: the predictions' was "write each case's prediction there, named as its label", the labels'
    "no .nii/.nii.gz label file", until the hundred-and-eighteenth session."""
    if model := model_folder_kind(pred_dir):
        raise DataError(f"{pred_dir} is {model[0]}, not predictions: evaluate scores the label maps predict writes; "
                        f"predict first (accelerated-seg predict --model {shell_word(model[1][0])} <scans> "
                        f"--output <folder>), then accelerated-seg evaluate <folder> {shell_word(label_dir)}")
    if model := model_folder_kind(label_dir):
        raise DataError(f"{label_dir} is {model[0]}, not reference label maps: give the folder of the references "
                        f"(a model's folder names the classes as --labels, dataset_json from Python)")


def _missing_predictions_advice(pred_dir: Path, predictions: dict[str, Path], missing: list[str]) -> str:
    """What to do of labels without a prediction, in the words of the tool that wrote the folder: "predict those
    cases (accelerated-seg predict)" was said of nnU-Net's and MONAI's folders too until the ninety-sixth session.
    Told by what each leaves there: MONAI's SaveImage a folder per case, nnU-Net v2's predict its arguments' file,
    nnU-Net v1's its model's plans.pkl and postprocessing.json (since the ninety-seventh session: "the tool that
    made the others" before), predict its mark in each header (``marked_by_predict``). The files are looked for
    by name first: the headers take 1.8-2.3 ms each to read, 0.38-0.40 s for 200 predictions
    (benchmarks/results/missing_case_header_cost_2cpu.json), which nnU-Net's folders need not wait for."""
    one = len(missing) == 1
    this, name, its, them = ("this case", "that name", "its label", "it") if one else (
        "these cases", "those names", "their labels", "them")
    if per_case := [case for case in missing if (pred_dir / case).is_dir() and _nifti_files_in(pred_dir / case)]:
        held = ", ".join(f"{case}/" for case in per_case[:4]) + (", ..." if len(per_case) > 4 else "")
        first = _nifti_files_in(pred_dir / per_case[0])[0]
        return (f"its folder{'' if len(per_case) == 1 else 's'} {held} hold{'s' if len(per_case) == 1 else ''} "
                f"{per_case[0]}/{first.name}, as MONAI's SaveImage writes a case: save with "
                f"SaveImage(separate_folder=False, output_postfix=\"\"), or move the file up to {name}")
    if (pred_dir / NNUNET_PREDICT_ARGUMENTS).is_file():
        return (f"the folder is nnU-Net v2's (it holds {NNUNET_PREDICT_ARGUMENTS}): predict {this} with "
                f"nnUNetv2_predict ... -o {shell_word(pred_dir)}, which names {them} so, or remove {its}")
    if v1 := [name for name in NNUNET_V1_MARKS if (pred_dir / name).is_file()]:
        return (f"the folder is nnU-Net v1's (it holds {' and '.join(v1)}, which nnUNet_predict copies beside its "
                f"predictions): predict {this} with nnUNet_predict ... -o {shell_word(pred_dir)}, which names {them} "
                f"so, or remove {its}")
    # imported here: the inference module's, not needed unless a case is missing (evaluate's refusals come fast)
    from .predict_marks import marked_by_predict

    if any(marked_by_predict(path) for path in predictions.values()):
        return (f"predict {this} (accelerated-seg predict ... --output {shell_word(pred_dir)}, which wrote the "
                f"others), or remove {its}")
    if predictions:
        whose = "this case's prediction" if one else "these cases' predictions"
        return f"write {whose} there under {name} with the tool that made the others, or remove {its}"
    return "the folder holds no NIfTI file: write each case's prediction there, named as its label"


def _nifti_files_in(folder: Path) -> list[Path]:
    """The NIfTI files of ``folder``, by name."""
    return [path for path in sorted(folder.iterdir()) if file_or_unfetched(path) and case_id(path)]


def _predictions_of_other_names(pred_dir: Path, predictions: dict[str, Path], labels: dict[str, Path],
                                label_dir: Path) -> str | None:
    """Where no label has a prediction of its name: the NIfTI files the prediction folder holds all the same,
    or a subfolder holding them. "predict those cases" was said of every case, their predictions there
    under other names (an image's channel suffix, _0000, in the labels' names) or one folder down
    (ninety-second session's probe)."""
    pairing = "cases are paired by file name"
    if predictions:
        names = sorted(path.name for path in predictions.values())
        return (f"which holds {len(names)} NIfTI file(s) of other names ({', '.join(names[:3])}"
                f"{', ...' if len(names) > 3 else ''}): {pairing}, so a label and its prediction need one name (an "
                f"image's channel suffix, _0000, is no part of either){_suffix_said(predictions, labels)}")
    # the one of the labels' names, never the labels' own folder: the first by name was given, so "evaluate .
    # labelsTs" beside predictions/ was told to give labelsTs as the predictions (ninety-second session's review)
    below = [folder for folder in _subfolders_with_nifti(pred_dir) if not _same_folder(folder, label_dir)]
    named = [folder for folder in below if any(case_id(path) in labels for path in folder.iterdir())]
    if len(named) == 1:
        return f"but its folder {named[0].name}/ holds NIfTI files: {pairing} within the folders given; give {named[0]}"
    if per_case := [folder for folder in below if folder.name in labels]:  # MONAI SaveImage's <case>/<case>_seg
        shown = ", ".join(f"{folder.name}/" for folder in per_case[:4]) + (", ..." if len(per_case) > 4 else "")
        first = _nifti_files_in(per_case[0])[0]
        return (f"but its folders {shown} are named as the labels' cases and hold their NIfTI files "
                f"({per_case[0].name}/{first.name}, ...), as MONAI's SaveImage writes them: put each case's prediction "
                f"in one folder under its label's name")
    if named:
        shown = ", ".join(f"{folder.name}/" for folder in named[:4]) + (", ..." if len(named) > 4 else "")
        return (f"but its folders {shown} hold NIfTI files of the labels' names: {pairing} within the folders "
                f"given; give the one of the predictions")
    return None


def _suffix_said(predictions: dict[str, Path], labels: dict[str, Path]) -> str:
    """Where every label's name and a prediction's differ by one suffix (MONAI's "_seg" on the predictions, an
    image's "_0000" on the labels), that suffix and the renaming, or ""."""
    first = min(labels)
    for suffix in sorted({case[len(first):] for case in predictions if case.startswith(first) and case != first}):
        if all(label + suffix in predictions for label in labels):
            return (f"; each prediction's name is a label's with \"{suffix}\" added ({predictions[first + suffix].name} "
                    f"for {labels[first].name}): rename them without it")
    for suffix in sorted({first[len(case):] for case in predictions if first.startswith(case) and case != first}):
        if all(label.endswith(suffix) and label[:-len(suffix)] in predictions for label in labels):
            return (f"; each label's name is a prediction's with \"{suffix}\" added ({labels[first].name} for "
                    f"{predictions[first[:-len(suffix)]].name}): rename them without it")
    return ""


def _same_folder(one: Path, other: Path) -> bool:
    """Whether two paths name one folder, however each is written (relative, through a link)."""
    try:
        return one.samefile(other)
    except OSError:
        return False


def _label_folders_below(label_dir: Path) -> str:
    """The folders below a label folder without NIfTI files that hold some (a dataset's folder given for its
    labelsTr/, say), as the error names them: "no .nii/.nii.gz label file" said no more."""
    if not (below := _subfolders_with_nifti(label_dir)):
        return ""
    labels = [folder for folder in below if folder.name.lower().startswith("label")]
    return (f" (NIfTI files are in its folder{'s' if len(below) > 1 else ''} "
            f"{', '.join(f'{folder.name}/' for folder in below[:4])}{', ...' if len(below) > 4 else ''}"
            + (f": {labels[0]}?)" if labels else ")"))


def _subfolders_with_nifti(folder: Path) -> list[Path]:
    """The folders right below ``folder`` that hold NIfTI files: where the files given for it are."""
    return sorted(sub for sub in folder.iterdir() if sub.is_dir() and any(
        case_id(path) for path in sub.iterdir() if path.is_file()))


def _nifti_files_by_case(folder: Path, what: str, wanted: set[str] | None) -> dict[str, Path]:
    """Case id -> NIfTI file of ``folder``; a case in ``wanted`` (None: any) held as both ``x.nii`` and
    ``x.nii.gz`` is an error, since either could be the stale one (the later name silently won before
    the thirty-first session)."""
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if file_or_unfetched(path) and (case := case_id(path)):
            found.setdefault(case, []).append(path)
    if twice := [paths for case, paths in found.items() if len(paths) > 1 and (wanted is None or case in wanted)]:
        names = " and ".join(path.name for path in twice[0])
        raise DataError(f"{folder} holds {names}: two {what}s of one case, and either could be an old one; "
                        f"remove the one that is not current")
    return {case: paths[0] for case, paths in found.items()}
