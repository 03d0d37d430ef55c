"""What a folder of the embedded phantoms holds: the phantoms whole, or a write of them stopped before its end.

Read by the file system and ``json`` alone, without the generator's numpy and nibabel (synthetic.py, which writes
them): ``synth``'s stop line asks it wherever the stop came, in that module's import too, where until the
hundred-and-twenty-first session it said "before it wrote anything" of a folder that held an earlier synth's
unfinished phantoms, without a word of them. Moved out of synthetic.py in that session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Made in the folder before the first case file and removed after dataset.json (written last): while it is there, a
#: write of the phantoms was stopped before its end, which a rerun finishes.
WRITING_MARKER = ".phantoms_being_written"


def phantoms_unfinished(out_dir: str | Path) -> bool:
    """Whether a write of the phantoms into ``out_dir`` was stopped before its dataset.json (written last); False
    where the folder cannot be looked into. ``os.path.exists``, not ``Path.exists``, which raises there (a folder
    one may not search, a name too long): asked by synth's stop line in its generator's import, it ended that stop
    in a traceback, status 1, where it said "before it wrote anything" before the hundred-and-twenty-first session
    (that session's review, benchmarks/results/review_stop_lines_2026-12-07/synth_folder.py)."""
    return os.path.exists(Path(out_dir) / WRITING_MARKER)


def case_files_there(out_dir: str | Path) -> bool:
    """Whether ``out_dir`` holds a phantom case file (imagesTr/, labelsTr/): a write stopped before its first leaves
    the marker and those folders alone. False where they cannot be looked into."""
    try:
        return any(any((Path(out_dir) / sub).glob("case_*.nii.gz")) for sub in ("imagesTr", "labelsTr"))
    except OSError:
        return False


def holds_the_phantoms(out_dir: str | Path, num_cases: int = 16, num_validation: int = 4, seed: int = 0,
                       size_mm: tuple[float, float, float] = (96.0, 96.0, 72.0), spacing_mm: float = 1.5) -> bool:
    """Whether ``out_dir`` holds the finished dataset.json of ``synthetic.write_synthetic_dataset``'s phantoms of
    these arguments, with every case file it lists in place: the one test of whether they need writing, for
    training's embedded dataset and the examples alike (training's compared the seed and counts alone)."""
    json_path = Path(out_dir) / "dataset.json"
    if phantoms_unfinished(out_dir):  # a write stopped midway: finished by a rewrite
        return False
    generator = {"num_cases": num_cases, "num_validation": num_validation,
                 "size_mm": [float(v) for v in size_mm], "spacing_mm": float(spacing_mm)}
    try:
        written = json.loads(json_path.read_text(encoding="utf-8"))
        recorded = {key: written["generator"][key] for key in generator}
    except (OSError, ValueError, KeyError, TypeError):
        return False
    entries = [*written.get("training", []), *written.get("validation", [])]
    return (written.get("seed") == seed and recorded == generator
            and all((json_path.parent / entry[key]).is_file() for entry in entries for key in ("image", "label")))
