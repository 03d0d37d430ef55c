"""``accelerated-seg evaluate``: evaluate.py's scores of a folder of predictions, asked with the command's flags
and said per class (or region) on the terminal.

evaluate.py and nibabel are imported inside ``_evaluated``, as the command line's imports are; a stop anywhere in
it is said by ``run`` (evaluate_stop.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .collector import importing_without_collection
from .evaluate_stop import EvaluationFiles
from .shell_words import shell_word
from .written_since import said_if_stopped


def run(args, _) -> int:
    """evaluate, and its stop (Ctrl-C, SIGTERM, SIGUSR1) said here, once, naming what its output folder holds,
    wherever it came: its imports, its checks and scoring, its files' write, or as its lines were said. The imports
    and the lines were outside the line's try until the hundred-and-twenty-first session: a stop there said nothing,
    and one once its files were in place said "nothing written" (evaluate_stop.py)."""
    return said_if_stopped("evaluate", lambda noted: EvaluationFiles(_output_folder(args), args.overwrite, noted),
                           lambda files: _evaluated(args, files.output))


def _output_folder(args) -> Path:
    """The folder evaluate writes into: --output, else PRED/evaluation (``evaluate_folders``' default)."""
    return Path(args.output or Path(args.pred_dir) / "evaluation")


def _evaluated(args, output: Path) -> int:
    """The evaluation scored, written and said; its status, 2 where a file or setting is refused."""
    with importing_without_collection():  # collector.py says why
        from nibabel.filebasedimages import ImageFileError

        from .evaluate import SettingNames, evaluate_folders
        from .evaluate_output import EvaluationNotWritten, earlier_evaluation

    # its errors name these flags; from Python they name evaluate_folders' keyword arguments instead
    flags = SettingNames(output_dir="--output", label_dir="LABELS", num_classes="--num-classes",
                         dataset_json="--labels", merge_foreground="--merge-foreground", tolerance_mm="--tolerance",
                         overwrite="--overwrite")
    # evaluate_folders refuses an earlier evaluation of other folders or settings unless --overwrite
    # os.path's test, not Path's: a name too long (ENAMETOOLONG) or a folder not to be searched raised here, a
    # traceback before evaluate_folders' own refusal of --output (r100's probe, evaluate_long_output.sh)
    replaced = os.path.isfile(output / "summary.json") or os.path.isfile(output / "metrics.csv")
    earlier = earlier_evaluation(output).get("settings")  # where it scored them, to say a move
    try:
        summary = evaluate_folders(args.pred_dir, args.label_dir, num_classes=args.num_classes,
                                   dataset_json=args.dataset_json, tolerance_mm=args.tolerance,
                                   output_dir=args.output, merge_foreground=args.merge_foreground,
                                   setting_names=flags, overwrite=args.overwrite)
    except EvaluationNotWritten as error:  # every case scored, the files not written: the scores said, and where kept
        _scores_said(args, error.summary)
        kept = f" (kept in {error.kept_in} instead)" if error.kept_in is not None else ""
        print(f"{error.summary['num_cases']} case(s), mean Dice {_mean_std(error.summary['overall']['dice'])}; "
              f"metrics.csv and summary.json not written to {output}{kept}")
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (ValueError, OSError, ImageFileError) as error:  # DataError is a ValueError: bad files or settings
        print(f"error: {error}", file=sys.stderr)
        return 2
    _scores_said(args, summary)
    print(f"{summary['num_cases']} case(s), mean Dice {_mean_std(summary['overall']['dice'])}; wrote metrics.csv "
          f"and summary.json to {output}{_replaced(replaced, args.overwrite, earlier, summary['settings'])}")
    return 0


def _scores_said(args, summary: dict) -> None:
    """The evaluation's lines from its ``summary``: each class's (or region's) scores, and the notes and warnings of
    what they are made of; all but the last line, which says where the files went."""
    if args.dataset_json is None and args.num_classes is None and not summary.get("merged_foreground") and (
            said := _declaration_left_unused(Path(args.label_dir))):
        print(said)
    scored = "region" if "regions" in summary else "class"
    for c, scores in summary["per_class"].items():
        dice, hd95, nsd = scores["dice"], scores["hd95_mm"], scores["surface_dice"]
        annotated = " over the annotated voxels" if "ignore_value" in summary else ""
        if len(summary.get("cases_annotated_in_part", [])) == summary["num_cases"]:  # every case: no distances
            print(f"{scored} {c} {scores['name']}: Dice {_mean_std(dice)}{annotated}")
            continue
        print(f"{scored} {c} {scores['name']}: Dice {_mean_std(dice)}{annotated}, HD95 {_mean_std(hd95)} mm"
              f"{_hd95_cases(scores, summary['num_cases'])}, "
              f"surface Dice @{summary['tolerance_mm'][c]:g} mm {_mean_std(nsd)}")
    # Scored 1 in every case ("nothing to find, nothing found"): a --num-classes one too high, or a
    # value the labels never use, lifted the mean Dice without a word.
    # One line for them all: a --num-classes 60 for 6 printed 57 (ninety-second session's probe).
    if absent := [f"{c} {scores['name']}" for c, scores in summary["per_class"].items()
                  if summary["num_cases"] and scores["n_both_empty"] == summary["num_cases"]]:
        shown = ", ".join(absent[:5]) + (", ..." if len(absent) > 5 else "")
        plural = {"class": "classes", "region": "regions"}[scored]
        what, each, it = ((f"{scored} {absent[0]} is", "it", "it") if len(absent) == 1 else
                          (f"{len(absent)} {plural} ({shown}) are", "each", "they"))
        print(f"warning: {what} in no reference and no prediction, so {each} scores Dice 1 in every case and lifts "
              f"the mean; if {it} should not be scored, check --num-classes or --labels (with --overwrite, to replace "
              f"this evaluation)")
    if in_part := summary.get("cases_annotated_in_part"):  # since the ninety-third session the others are measured
        print(f"{len(in_part)} of {summary['num_cases']} case(s) annotated in part (the reference holds the ignore "
              f"label {summary['ignore_value']}): no HD95 or surface Dice there, a distance to a surface drawn in part "
              f"is not defined (NaN in metrics.csv, not averaged; summary.json cases_annotated_in_part names them)")
    if sheared := summary.get("sheared_grids"):
        worst = max(sheared.values())
        print(f"warning: {len(sheared)} reference(s) lie on a sheared grid (axes up to {worst:g} degrees from "
              f"perpendicular, e.g. a CT gantry tilt): HD95 and surface Dice take the voxel axes as perpendicular, "
              f"so they are approximate there (summary.json sheared_grids names them)")
    # scored as if stored on the label's grid, which is right, but a reader could not tell which (before the
    # ninety-sixth session): another tool's file written LPS against a RAS label is worth knowing of
    if reoriented := summary.get("reoriented_predictions"):
        shown = ", ".join(f"{case} ({axes['prediction']}, label {axes['label']})"
                          for case, axes in list(reoriented.items())[:5]) + (", ..." if len(reoriented) > 5 else "")
        print(f"{len(reoriented)} of {summary['num_cases']} prediction(s) stored in another orientation than their "
              f"label, laid onto the label's grid voxel for voxel (nothing resampled) and scored there: {shown}; "
              f"summary.json reoriented_predictions names them")
    # in summary.json alone before: scored by no one. predict's probability maps beside them are expected.
    if unmatched := [path for path in summary["predictions_without_label"]
                     if not Path(path).name.endswith(("_probs.nii.gz", "_probs.nii"))]:
        shown = ", ".join(Path(path).name for path in unmatched[:5]) + (" ..." if len(unmatched) > 5 else "")
        print(f"warning: {len(unmatched)} prediction(s) without a label of the same name, not scored: {shown}")
    if summary.get("merged_foreground"):
        print(_merged_line(summary, args))


# how the last line names each input of evaluate_output's INPUT_PLACES, and what one holding the same is
_INPUTS_SAID = {"prediction_folder": ("PRED", "folder of the same files"),
                "label_folder": ("LABELS", "folder of the same files"),
                "dataset_json": ("--labels", "file of the same bytes")}


def _replaced(replaced: bool, overwrite: bool, earlier, settings: dict) -> str:
    """What the last line says of an earlier evaluation replaced: by --overwrite, or as the same one, from the
    same folders or from folders moved since that hold the same files (evaluate_output's INPUT_PLACES). One still
    where the earlier evaluation named it was not moved: another folder or --labels file holding the same was
    given (a copy), said so; "it scored them in .../dataset.json, moved since" said of a copy of the same bytes,
    the first still there (until the hundred-and-twenty-fourth session's helper h133)."""
    if not replaced:
        return ""
    if overwrite:
        return ", replacing the earlier evaluation there (--overwrite)"
    given = [key for key in _INPUTS_SAID if isinstance(earlier, dict) and earlier.get(key) != settings.get(key)
             and None not in (earlier.get(key), settings.get(key))]
    moved = [str(earlier[key]) for key in given if not os.path.lexists(str(earlier[key]))]
    copies = [f"its {_INPUTS_SAID[key][0]} {earlier[key]} is still there, {settings[key]} given now another "
              f"{_INPUTS_SAID[key][1]}" for key in given if os.path.lexists(str(earlier[key]))]
    if given:
        said = ([f"it scored them in {' and '.join(moved)}, moved since"] if moved else []) + copies
        return f", replacing the earlier evaluation there (the same files and settings; {'; '.join(said)})"
    return ", replacing the earlier evaluation there (the same folders and settings)"


def _merged_line(summary: dict, args) -> str:
    """What class 1 is, in the words of summary.json's merged_foreground note (``merged_foreground_note``). It said
    "every non-zero value ... scored as class 1" until the ninety-ninth session, the note's old wording: a value
    below 0 and the ignore value are not merged."""
    but = f", but the ignore value {summary['ignore_value']}" if "ignore_value" in summary else ""
    if args.merge_foreground:
        return (f"class 1 is the foreground: every value above 0 in the references and in the predictions merged "
                f"into one{but} (--merge-foreground)")
    return (f"class 1 is the foreground: every value above 0 in the references merged into one{but}, as "
            f"{args.dataset_json}, a model trained with data.binarize, saw them; its predictions (0 and 1) taken "
            f"as written")


def _hd95_cases(scores: dict, num_cases: int) -> str:
    """What HD95's mean is made of where that is not every case's distance: the cases with the class
    in neither file count 0 mm, those with one side empty are left out (inf), and those annotated in part
    (NaN), the class in neither file there too. A class missed in the one case that has it read "HD95
    0.0000 ± 0.0000 mm", as if found perfectly; a case annotated in part with the class in neither file was
    said twice, NaN and "0 mm" (until the ninety-third session)."""
    neither = scores["n_both_empty"] - scores["n_both_empty_annotated_in_part"]
    parts = [f"{n} with one side empty: inf, not averaged" for n in [scores["hd95_mm"]["n_inf"]] if n]
    parts += [f"{n} annotated in part: NaN, not averaged" for n in [scores["hd95_mm"]["n_nan"]] if n]
    parts += [f"{n} in neither file: 0 mm" for n in [neither] if n]
    return f" (of {num_cases} case(s): {'; '.join(parts)})" if parts else ""


def _mean_std(stats: dict) -> str:
    return "n/a" if stats["mean"] is None else f"{stats['mean']:.4f} ± {stats['std']:.4f}"


def _declaration_left_unused(label_dir: Path) -> str | None:
    """What to say where LABELS is an nnU-Net or Decathlon dataset's labelsTs, its dataset.json one folder up,
    and no --labels was given: the maps' values were scored as classes named class_N, and a dataset.json of
    regions (whole tumour, core) had a region model's paint scored as classes, another figure than its
    regions' Dice, without a word (ninety-sixth session's probe). None where no dataset.json is there."""
    from .data.formats.dataset_json import dangling_link
    from .evaluate import regions_from_json

    declaration = label_dir.parent / "dataset.json"
    # a link to nothing (its storage not mounted) said, as load_cases and --labels say it: passed over as no
    # dataset.json until review r113, the classes named class_N and a dataset of regions scored as classes, no word
    if link := dangling_link(declaration, f"mount or make what it names, then give --labels {shell_word(declaration)} "
                                          f"to name the classes or regions (and --overwrite, to replace this "
                                          f"evaluation)"):
        return f"note: scored the values found in the files as classes class_1, ... (no --labels); {link}"
    if not declaration.is_file():
        return None
    try:
        regions = regions_from_json(declaration)
    except (ValueError, OSError):  # unreadable or not a declaration: not the one to offer
        return None
    if regions is None:
        return (f"note: scored the values found in the files as classes class_1, ... (no --labels); {declaration} "
                f"beside LABELS names them: give --labels {shell_word(declaration)} (and --overwrite, to replace this "
                f"evaluation)")
    return (f"warning: scored the values found in the files as classes (no --labels), but {declaration} beside "
            f"LABELS declares regions ({', '.join(regions.names)}), which a model trained on it predicts and "
            f"training scored: give --labels {shell_word(declaration)} to score the regions (and --overwrite, to "
            f"replace this evaluation)")
