"""Where ``accelerated-seg evaluate`` writes: the output folder (``pred_dir/evaluation`` by default), refused
before any case is scored where evaluate cannot write or would replace what it did not write
(``check_output_folder``), or where it lies among the reference labels (``check_output_outside_the_labels``);
and ``metrics.csv`` and ``summary.json``, written there together at the end (``write_evaluation``). Moved out
of ``evaluate.py`` in the ninety-sixth session; the checks are importable from there as before.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Sequence

from .data.errors import DataError
from .evaluate_setting_names import SettingNames
from .files import file_in_the_way, is_json_object_with, no_file_made_in, write_files_together

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


def check_output_folder(output_dir: Path, setting: str = "output_dir") -> None:
    """Refuse, before any case is scored, a folder where evaluate cannot write or would replace what it
    did not write: ``metrics.csv`` and ``summary.json`` are replaced only when an earlier evaluation
    wrote them. ``--output`` pointing at a training run's folder wrote the evaluation's summary over the
    run's own ``summary.json`` before the thirtieth session (``Segmentation.evaluate`` deleted it).

    ``setting`` names the folder as the caller gave it: ``evaluate_folders``' ``output_dir`` (the default), the
    command line's ``--output``, or ``Segmentation.evaluate``'s ``output_dir``, whose user never typed the flag.

    Raises:
        DataError: naming the folder or file and what to do.
    """
    output_dir = Path(output_dir)
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


def _written_by_evaluate(path: Path) -> bool:
    """Whether ``path`` is a metrics.csv or summary.json as evaluate writes them."""
    if path.name == "summary.json":
        return is_json_object_with(path, {"prediction_folder", "label_folder", "conventions"})
    try:
        return path.read_text(encoding="utf-8").startswith(",".join(_CSV_COLUMNS) + "\n")
    except (OSError, ValueError):  # unreadable or not UTF-8: not ours
        return False


def write_evaluation(output_dir: Path, rows: Sequence[dict], summary: dict, setting: str = "output_dir") -> None:
    """Write ``metrics.csv`` (``rows``) and ``summary.json`` into ``output_dir``, both or neither; ``setting``
    names the folder in the error, as ``check_output_folder``'s do."""
    # Both or neither: written one after the other, a full disk or Ctrl-C at the second left this evaluation's
    # metrics.csv beside an earlier one's summary.json (ninety-second session's probe)
    texts = {"metrics.csv": _csv_text(rows), "summary.json": json.dumps(summary, indent=2, allow_nan=False) + "\n"}
    try:
        write_files_together(output_dir, {name: lambda temporary, text=text: temporary.write_text(text, encoding="utf-8")
                                          for name, text in texts.items()})
    except OSError as error:  # a full disk, a quota: "[Errno 28] No space left on device" named no file
        raise DataError(f"{setting} {output_dir}: metrics.csv and summary.json cannot be written "
                        f"({error.strerror or error}); neither file there was replaced: free some space or give "
                        f"another folder") from None


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
