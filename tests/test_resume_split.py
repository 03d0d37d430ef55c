"""What a resume is told where its seeded split holds out other cases than its checkpoint's: the cause it can tell
(other cases, another order, or the grouping of cases that share an image file): hundred-and-sixth session."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.checkpoint import PREPROCESSING_FILE, SPLIT_FILE
from accelerated_seg.config import ConfigError, DataConfig
from accelerated_seg.data.cases import Case, Manifest
from accelerated_seg.data.preprocess import PreprocessSettings
from accelerated_seg.data.spacing import target_spacing
from accelerated_seg.data.splits import SplitSettings, seeded_settings
from accelerated_seg.model_folders import Names
from accelerated_seg.resume_network_and_data import check_resume_data

GROUPING = "since the hundred-and-fifth session the seeded split keeps cases that share an image file together"


def _cases(folder: Path, names: list[str], image_of=lambda name: name) -> list[Case]:
    return [Case(id=name, images=(folder / f"{image_of(name)}.nii.gz",), label=folder / f"{name}_seg.nii.gz")
            for name in names]


def _manifest(folder: Path, cases: list[Case], settings: SplitSettings, source_format="csv") -> Manifest:
    training, validation, how = settings.split(cases)
    return Manifest(root=folder, labels={0: "background", 1: "a"}, channels={0: "image"}, training=training,
                    validation=validation, split=how, source_format=source_format)


def _saved(folder: Path, manifest: Manifest, spacing=None) -> Path:
    """A checkpoint of a run of ``manifest``'s split (and preprocessed at ``spacing``, where given)."""
    checkpoint = folder / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    (checkpoint / SPLIT_FILE).write_text(json.dumps(manifest.split_record()))
    if spacing is not None:
        (checkpoint / PREPROCESSING_FILE).write_text(json.dumps(PreprocessSettings(spacing=spacing).to_dict()))
    return checkpoint


def _refusal(checkpoint: Path, manifest: Manifest, settings=PreprocessSettings()) -> str:
    with pytest.raises(ConfigError) as refused:
        check_resume_data(SimpleNamespace(print=print), checkpoint, settings, manifest, checkpoint / "new", Names())
    return str(refused.value)


NAMES = [f"case_{index}" for index in range(8)]
SETTINGS = SplitSettings(validation_fraction=0.25, seed=0)


def test_the_seeded_split_of_before_the_grouping_is_recomputed_from_a_saved_split():
    """The list the case-by-case split of before the hundred-and-fifth session split as saved: a resume tells by
    it whether the grouping alone moved its split, or the dataset's order did."""
    cases = [Case(id=name, images=(Path(f"/d/{name}.nii.gz"),), label=None) for name in NAMES]
    for settings in (SETTINGS, SplitSettings(num_folds=3, fold=1, seed=4)):
        training, validation, how = settings.split(cases)
        assert seeded_settings(how) == settings
        assert settings.listed_before_grouping(training, validation) == cases
    assert SETTINGS.listed_before_grouping(cases[:5], cases[5:]) is None  # 3 held out of 8: no such split
    assert seeded_settings("given (dataset.json 'validation')") is None
    assert seeded_settings("fold 7 of 5 (seed 0)") is None  # no settings say it


def test_a_resume_of_a_re_sorted_dataset_is_told_of_the_order_not_of_settings_or_grouping(tmp_path):
    """A CSV re-sorted since the run was saved splits otherwise by the same settings: it was told to resume with
    "the split settings and the same cases", which it had, and where cases shared an image, that the grouping of
    the hundred-and-fifth session moved its split, which played no part (a review of that session)."""
    checkpoint = _saved(tmp_path, _manifest(tmp_path, _cases(tmp_path, NAMES), SETTINGS))
    said = _refusal(checkpoint, _manifest(tmp_path, _cases(tmp_path, NAMES[::-1]), SETTINGS))
    assert ("The split settings and cases are the same, but listed in another order than when it was saved "
            "(case_0 before case_7 there, after it here), and the seeded split permutes places in the list of "
            "cases, not cases: a CSV or JSON re-sorted splits otherwise. List the cases in their order of then, or "
            "resume with that split given as the CSV's 'split' column") in said
    assert "Resume with the split that wrote it" not in said and GROUPING not in said
    # two raters of one scan: the grouping changes nothing of the order's say, nor makes the order of then a way
    raters = _cases(tmp_path, [*NAMES, "case_0_b"], lambda name: name.removesuffix("_b"))
    checkpoint = _saved(tmp_path / "raters", _manifest(tmp_path, _cases(tmp_path, [*NAMES, "case_0_b"]), SETTINGS))
    said = _refusal(checkpoint, _manifest(tmp_path, raters[::-1], SETTINGS))
    assert "listed in another order than when it was saved" in said and GROUPING not in said
    assert ("2 cases here share an image file, case_0, case_0_b, which the seeded split keeps together since the "
            "hundred-and-fifth session, so the list of then may not make it again either). Resume with that split "
            "given as") in said


def test_a_resume_whose_dataset_holds_other_cases_is_told_so_not_of_the_grouping(tmp_path):
    """Cases added (or renamed: another id and label file) move every place the seeded split picks."""
    checkpoint = _saved(tmp_path, _manifest(tmp_path, _cases(tmp_path, NAMES), SETTINGS))
    said = _refusal(checkpoint, _manifest(tmp_path, _cases(tmp_path, [*NAMES[:3], "case_9", *NAMES[3:]]), SETTINGS))
    assert ("The split settings are the same, but the dataset holds other cases than when it was saved (1 not in "
            "it then (case_9)), and the seeded split permutes places in the list of cases, not cases. Resume with "
            "the cases it was saved with, in their order, or with that split given as the CSV's") in said


def test_a_resume_of_other_cases_sharing_an_image_is_sent_to_the_saved_split_alone(tmp_path):
    """Where cases share an image file the cases of then, listed as then, may split otherwise still (grouped):
    the saved split given as the source's own is the way on, the cases of then none."""
    saved_names = [*NAMES, "case_0_b"]
    checkpoint = _saved(tmp_path, _manifest(tmp_path, _cases(tmp_path, saved_names), SETTINGS))
    now = _cases(tmp_path, [*saved_names[:3], "case_9", *saved_names[3:]], lambda name: name.removesuffix("_b"))
    said = _refusal(checkpoint, _manifest(tmp_path, now, SETTINGS))
    assert "holds other cases than when it was saved (1 not in it then (case_9))" in said
    assert "the list of then may not make it again either). Resume with that split given as the CSV's" in said
    assert "the cases it was saved with" not in said
