"""What a resume is told where its seeded split holds out other cases than its checkpoint's: the cause it can tell
(other cases, another order, or the grouping of cases that share an image file), and the spacing a split given
back by hand resamples to (hundred-and-sixth session)."""

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
from accelerated_seg.resume_network_and_data import check_resume_data, check_resume_split

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


def _refusal(checkpoint: Path, manifest: Manifest, settings=PreprocessSettings(), spacing_set=True) -> str:
    with pytest.raises(ConfigError) as refused:
        check_resume_data(SimpleNamespace(print=print), checkpoint, settings, manifest, checkpoint / "new", Names(),
                          spacing_set=spacing_set)
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


def test_a_resume_moved_by_the_grouping_alone_is_told_so_and_to_pin_a_folds_median_spacing(tmp_path):
    """The same cases in the same order, split one by one before the hundred-and-fifth session: the grouping's
    refusal. A fold's split given back as the dataset's own resamples to its training cases' median where the
    fold took every case's: the refusal says to pin data.spacing to the checkpoint's, where it is unset."""
    names = ["s0_a", "s1", "s2", "s0_b", "s3", "s4"]
    settings = SplitSettings(num_folds=3, fold=0, seed=4)
    before = _manifest(tmp_path, _cases(tmp_path, names), settings)  # every image its own: the split of before
    now = _manifest(tmp_path, _cases(tmp_path, names, lambda name: name.split("_")[0]), settings)
    # s0_a and s0_b on one side, as a saved split's had to be (reject_duplicate_cases): seed 0's split them apart
    assert before.split_record()["validation"] == ["s1", "s2"] and now.split_record()["validation"] == ["s2", "s4"]
    checkpoint = _saved(tmp_path, before, spacing=(1.1, 1.2, 2.0))
    said = _refusal(checkpoint, now, PreprocessSettings(spacing=(1.1, 1.2, 2.0)), spacing_set=False)
    assert ("The split settings, cases and their order are the same: " + GROUPING + " (2 here: s0_a, s0_b)") in said
    assert ("with data.spacing set to [1.1, 1.2, 2.0], the spacing it trained at (unset, a fold resamples to every "
            "case's median, a split given as the dataset's own to its training cases'), or start") in said
    assert "data.spacing set" not in _refusal(checkpoint, now, PreprocessSettings(spacing=(1.1, 1.2, 2.0)))


def test_a_folds_split_given_back_by_hand_resumes_at_its_spacing_only_where_data_spacing_pins_it(tmp_path):
    """With data.spacing unset a fold of several resamples to every case's median, the same split given as the
    dataset's own (a CSV 'split' column) to its training cases': the resume is refused as preprocessed otherwise,
    told to pin data.spacing, and pinned it resumes, as the grouping's refusal advises."""
    cases = []
    for index, size in enumerate((0.8, 0.9, 1.0, 1.2, 1.4, 1.5)):
        for kind in ("image", "label"):
            nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.diag([size, size, 2 * size, 1.0])),
                     tmp_path / f"{kind}_{index}.nii.gz")
        cases.append(Case(id=f"c{index}", images=(tmp_path / f"image_{index}.nii.gz",),
                          label=tmp_path / f"label_{index}.nii.gz"))
    fold = _manifest(tmp_path, cases, SplitSettings(num_folds=3, fold=0, seed=0))
    spacing = target_spacing(DataConfig(num_folds=3), fold)
    assert spacing == pytest.approx((1.1, 1.1, 2.2))  # all six's median
    checkpoint = _saved(tmp_path, fold, spacing)
    given = Manifest(root=tmp_path, labels=fold.labels, channels=fold.channels, training=fold.training,
                     validation=fold.validation, source_format="csv")  # its split written as the 'split' column
    median = target_spacing(DataConfig(), given)
    assert median == pytest.approx((1.15, 1.15, 2.3))  # its training cases' median, four of the six
    said = _refusal(checkpoint, given, PreprocessSettings(spacing=median), spacing_set=False)
    assert ("its weights were trained on volumes preprocessed otherwise (spacing: [1.1, 1.1, 2.2] saved, "
            "[1.15, 1.15, 2.3] here)") in said
    assert "a median spacing that moved with the cases can be pinned with data.spacing" in said
    pinned = target_spacing(DataConfig(spacing=[1.1, 1.1, 2.2]), given)
    check_resume_data(SimpleNamespace(print=print), checkpoint, PreprocessSettings(spacing=pinned), given,
                      tmp_path / "new", Names(), spacing_set=True)


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


def test_a_folds_refusal_names_the_spacing_its_checkpoint_records_and_none_where_it_records_none(tmp_path):
    """The spacing to pin is the one the checkpoint trained at: this run's median moves with cases added, and a
    checkpoint written before preprocessing.json records none, where the refusal named this run's as trained at."""
    settings = SplitSettings(num_folds=3, fold=0, seed=0)
    then = _manifest(tmp_path, _cases(tmp_path, NAMES), settings)
    now = _manifest(tmp_path, _cases(tmp_path, ["case_9", *NAMES]), settings)  # other cases
    unrecorded = _refusal(_saved(tmp_path, then), now, PreprocessSettings(spacing=(1.3, 1.3, 2.6)), spacing_set=False)
    assert "holds other cases than when it was saved" in unrecorded and "data.spacing set" not in unrecorded
    recorded = _saved(tmp_path / "recorded", then, spacing=(1.2, 1.2, 2.4))
    said = _refusal(recorded, now, PreprocessSettings(spacing=(1.2000000476837158, 1.2, 2.4)), spacing_set=False)
    assert "with data.spacing set to [1.2, 1.2, 2.4], the spacing it trained at" in said


def test_a_split_record_in_words_no_run_writes_is_refused_without_a_crash(tmp_path):
    """A seed below 0, which numpy's generator refuses and no run writes (data.split_seed is checked), read back
    from a split.json made by hand: the refusal's way is the settings that wrote it, not a ValueError."""
    assert seeded_settings("fraction 0.5 (seed -1)") is None
    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    how = "fraction 0.5 (seed -1)"
    (checkpoint / SPLIT_FILE).write_text(json.dumps({"how": how, "training": ["a", "b"], "validation": ["c", "d"]}))
    cases = _cases(tmp_path, ["a", "b", "c", "d"], lambda name: "ab" if name in "ab" else name)
    with pytest.raises(ConfigError, match="Resume with the split that wrote it"):
        check_resume_split(checkpoint, {"how": how, "training": ["c", "d"], "validation": ["a", "b"]}, cases=cases)
