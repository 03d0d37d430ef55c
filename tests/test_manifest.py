"""Manifests: MSD, nnU-Net v2, CSV and pairs into cases, labels, channels and a split; load_cases dispatch."""

import dataclasses
import json
import shutil
import re
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.splits import SplitSettings, is_one_fold_of_several, unused_split_settings_warning
from accelerated_seg.data.manifest import (
    Case,
    Manifest,
    from_pairs,
    load_cases,
    load_csv,
    load_msd,
    load_nnunet,
)

LABELS = {"0": "background", "1": "tumour"}


def write_dataset_json(folder, content):
    """Write ``content`` as folder/dataset.json (no image files are needed to parse it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "dataset.json"
    path.write_text(json.dumps(content))
    return path


def msd_entries(count):
    return [
        {"image": f"./imagesTr/case_{i:03d}.nii.gz", "label": f"./labelsTr/case_{i:03d}.nii.gz"} for i in range(count)
    ]


def read_by_the_config(source, seed=0, **settings):
    """The dataset as training and check read data.dataset (load_manifest): its split, its errors and its warnings in
    the config's words (data.num_folds, data.split_seed), where load_cases called from Python says its keywords."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest

    return load_manifest(DataConfig(dataset=str(source), split_seed=seed, **settings), Path(source).parent)


# Where DataLad leaves a file it has not fetched: a link into the dataset's .git/annex that leads nowhere
ANNEX_LINK = "../../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.nii.gz/SHA256E-s7264--4d7a.nii.gz"


def test_string_images_resolved_against_json_folder(tmp_path):
    path = write_dataset_json(
        tmp_path / "Task01",
        {"labels": LABELS, "modality": {"0": "MRI"}, "training": msd_entries(2), "validation": msd_entries(3)[2:]},
    )
    manifest = load_msd(path)

    assert isinstance(manifest, Manifest)
    assert manifest.root == tmp_path / "Task01"
    assert manifest.labels == {0: "background", 1: "tumour"}
    assert manifest.channels == {0: "MRI"}
    assert (manifest.num_classes, manifest.num_channels) == (2, 1)
    first = manifest.training[0]
    assert first == Case(
        id="case_000",
        images=(tmp_path / "Task01" / "imagesTr" / "case_000.nii.gz",),
        label=tmp_path / "Task01" / "labelsTr" / "case_000.nii.gz",
    )
    assert first.images[0].is_absolute()


def test_folder_path_finds_dataset_json(tmp_path):
    write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(1), "validation": []})
    assert load_msd(tmp_path).training[0].id == "case_000"


def test_list_images_give_one_path_per_channel(tmp_path):
    entry = {"image": ["./imagesTr/a_0000.nii.gz", "imagesTr/a_0001.nii.gz"], "label": "./labelsTr/a.nii.gz"}
    path = write_dataset_json(
        tmp_path, {"labels": LABELS, "channel_names": {"0": "T1", "1": "T2"}, "training": [entry], "validation": []}
    )
    manifest = load_msd(path)

    case = manifest.training[0]
    assert case.id == "a"
    assert case.images == (tmp_path / "imagesTr" / "a_0000.nii.gz", tmp_path / "imagesTr" / "a_0001.nii.gz")
    assert manifest.channels == {0: "T1", 1: "T2"}
    assert manifest.num_channels == 2


def test_an_nnunet_v1_task_lists_each_case_by_the_name_its_channel_files_extend(tmp_path):
    """nnU-Net v1's dataset.json (nnUNet_raw_data/Task004_Hippocampus) lists ./imagesTr/<case>.nii.gz, where the
    files are <case>_0000.nii.gz, <case>_0001.nii.gz: every listed image was "file not found"."""
    for case in ("a", "b"):
        for channel in range(2):
            save_volume(tmp_path / "imagesTr" / f"{case}_{channel:04d}.nii.gz", np.full(SHAPE, channel, np.float32))
        save_volume(tmp_path / "labelsTr" / f"{case}.nii.gz")
    entries = [{"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"} for case in ("a", "b")]
    path = write_dataset_json(tmp_path, {"labels": LABELS, "modality": {"0": "T1", "1": "T2"},
                                         "training": entries[:1], "validation": entries[1:]})
    manifest = load_msd(path)

    assert manifest.training[0].images == (tmp_path / "imagesTr" / "a_0000.nii.gz",
                                           tmp_path / "imagesTr" / "a_0001.nii.gz")
    assert manifest.validation[0].images == (tmp_path / "imagesTr" / "b_0000.nii.gz",
                                             tmp_path / "imagesTr" / "b_0001.nii.gz")
    assert check_manifest(manifest).errors == []
    save_volume(tmp_path / "imagesTr" / "a.nii.gz", np.zeros((*SHAPE, 2), np.float32))  # the listed file, read as listed
    assert load_msd(path).training[0].images == (tmp_path / "imagesTr" / "a.nii.gz",)


def test_an_nnunet_v1_task_whose_first_entry_is_a_typo_is_read_as_v1_and_the_typo_alone_not_found(tmp_path):
    """The first entry decided alone: a typo there (no listed file, no _0000 file) sent every case of a v1 task back
    to "file not found" by its listed name, though their _0000 files were there (hundred-and-fifth session)."""
    for case in ("a", "b", "c"):
        save_volume(tmp_path / "imagesTr" / f"{case}_0000.nii.gz")
        save_volume(tmp_path / "labelsTr" / f"{case}.nii.gz")
    entries = [{"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"} for case in ("x", "b", "c")]
    path = write_dataset_json(tmp_path, {"labels": LABELS, "modality": {"0": "MRI"}, "training": entries,
                                         "validation": []})
    manifest = load_msd(path)

    assert [case.images for case in manifest.training] == [(tmp_path / "imagesTr" / f"{case}_0000.nii.gz",)
                                                           for case in ("x", "b", "c")]
    errors = check_manifest(manifest).errors
    assert len(errors) == 2 and all(error.startswith("x (") and "file not found" in error for error in errors)


def test_channels_default_to_one_image_channel(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(2), "validation": []})
    assert load_msd(path).channels == {0: "image"}


def test_nnunet_style_labels_name_to_index_accepted(tmp_path):
    path = write_dataset_json(
        tmp_path, {"labels": {"background": 0, "liver": 1, "tumour": 2}, "training": msd_entries(1), "validation": []}
    )
    assert load_msd(path).labels == {0: "background", 1: "liver", 2: "tumour"}


def test_given_validation_list_is_used_unchanged(tmp_path):
    entries = msd_entries(5)
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries[:3], "validation": entries[3:]})
    manifest = load_msd(path, validation_fraction=0.5, seed=7)

    assert [case.id for case in manifest.training] == ["case_000", "case_001", "case_002"]
    assert [case.id for case in manifest.validation] == ["case_003", "case_004"]


def test_seeded_split_is_deterministic_disjoint_and_covering(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(10)})

    first = load_msd(path, validation_fraction=0.3, seed=3)
    again = load_msd(path, validation_fraction=0.3, seed=3)
    training_ids = {case.id for case in first.training}
    validation_ids = {case.id for case in first.validation}

    assert (first.training, first.validation) == (again.training, again.validation)
    assert len(validation_ids) == 3
    assert training_ids.isdisjoint(validation_ids)
    assert training_ids | validation_ids == {f"case_{i:03d}" for i in range(10)}
    splits = {tuple(case.id for case in load_msd(path, validation_fraction=0.3, seed=s).validation) for s in range(5)}
    assert len(splits) > 1, "different seeds should give different splits"


def test_split_holds_out_at_least_one_case(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(2)})
    manifest = load_msd(path, validation_fraction=0.01)
    assert (len(manifest.training), len(manifest.validation)) == (1, 1)


def test_missing_json_is_a_data_error_naming_it(tmp_path):
    with pytest.raises(DataError, match="dataset.json not found") as raised:
        load_msd(tmp_path / "nowhere" / "dataset.json")
    assert str(tmp_path / "nowhere" / "dataset.json") in str(raised.value)
    assert f"a relative data path is read from the working folder ({Path.cwd()})" in str(raised.value)


def test_a_relative_dataset_missing_from_the_working_folder_but_beside_the_config_is_named(tmp_path, monkeypatch):
    """`train --config project/exp.yaml` run from another folder was told "cases.csv: CSV not found; check the data
    path" alone, though the CSV stood beside the config (hundredth session's walk through the docs): the path that
    is there is named, with the two ways to read it."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import refuse_a_missing_dataset

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "cases.csv").write_text("image,label\n")
    (project / "exp.yaml").write_text("data:\n  dataset: cases.csv\n")
    monkeypatch.chdir(elsewhere)
    with pytest.raises(DataError) as raised:
        refuse_a_missing_dataset(DataConfig(dataset="cases.csv"), project / "exp.yaml")
    assert str(raised.value).endswith(
        f"(data.dataset, read from the working folder {elsewhere}); {project / 'cases.csv'} is there, beside the "
        f"config file: run from {project}, or give data.dataset as that absolute path (a relative one is read from "
        f"the working folder, not the config file's)"), str(raised.value)
    (project / "cases.csv").unlink()  # in neither folder: the working folder's reading alone, as before
    with pytest.raises(DataError) as raised:
        refuse_a_missing_dataset(DataConfig(dataset="cases.csv"), project / "exp.yaml")
    assert str(raised.value).endswith(f"(data.dataset, read from the working folder {elsewhere})"), str(raised.value)


def test_the_config_folder_given_through_dot_dot_is_named_as_the_folder_it_is(tmp_path, monkeypatch):
    """`train --config ../project/exp.yaml` was told "/home/me/elsewhere/../project/cases.csv is there ... run from
    /home/me/elsewhere/../project" (hundredth session's review): the folder is named as it is, without the "..";
    from the config's own folder, given by a relative path, no hint (the working folder's reading is all there is)."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import refuse_a_missing_dataset

    project, elsewhere = tmp_path.resolve() / "project", tmp_path.resolve() / "elsewhere"
    (project / "data").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "exp.yaml").write_text("data:\n  dataset: data\n")
    monkeypatch.chdir(elsewhere)
    with pytest.raises(DataError) as raised:
        refuse_a_missing_dataset(DataConfig(dataset="data"), "../project/exp.yaml")
    assert f"; {project / 'data'} is there, beside the config file: run from {project}, or" in str(raised.value), (
        str(raised.value))
    assert "/../" not in str(raised.value), str(raised.value)


def test_malformed_json_is_a_data_error(tmp_path):
    path = tmp_path / "dataset.json"
    path.write_text('{"labels": {"0": "background",')
    with pytest.raises(DataError, match="not valid JSON") as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize("entry, content, said", [
    ({"image": "a.nii.gz", "lable": "b.nii.gz"}, {}, 'has no "label" (its keys: image, lable): a misspelt key?'),
    ("a.nii.gz", {}, "entry 0 is 'a.nii.gz', not an entry {\"image\": ..., \"label\": ...}"),
    ({"image": ["a.nii.gz", "b.nii.gz"], "label": "c.nii.gz"}, {},
     'lists 2 image file(s) but dataset.json names no channels, so one is assumed; name one per file: "modality"'),
    ({"image": ["a.nii.gz", "b.nii.gz"], "label": "c.nii.gz"}, {"modality": {"0": "CT"}},
     "lists 2 image file(s) but dataset.json declares 1 channel(s)"),
    # an empty path was the JSON's folder: "a folder, not a NIfTI file" of a folder never listed (ninety-second)
    ({"image": "", "label": "c.nii.gz"}, {},
     '''entry 0: "image" is an empty path (''); give the file's path (relative to dataset.json's folder)'''),
    ({"image": "a.nii.gz", "label": " "}, {}, '''entry 0: "label" is an empty path (' '); give the file's path'''),
    # "./" and "." were the JSON's folder once "./" was dropped, "imagesTr/" a folder: "a folder, not a NIfTI
    # file" at the checks, naming no entry (ninety-third session)
    ({"image": "./", "label": "c.nii.gz"}, {},
     '''dataset.json: 'training' entry 0: "image" is './', the folder itself; give the file's path (relative to '''
     "dataset.json's folder)"),
    ({"image": "a.nii.gz", "label": "."}, {}, '''entry 0: "label" is '.', the folder itself; give the file's path'''),
    ({"image": "imagesTr/", "label": "c.nii.gz"}, {}, '''entry 0: "image" is 'imagesTr/', a folder; give the file's'''),
    ({"image": ["a.nii.gz", "./."], "label": "c.nii.gz"}, {"modality": {"0": "T1", "1": "T2"}},
     '''entry 0: "image" channel 1 is './.', the folder itself'''),
    ({"image": "a.nii.gz", "label": "labelsTr/.."}, {}, '''entry 0: "label" is 'labelsTr/..', a folder'''),
    # a list or a number was made a path by its text: "['c.nii.gz']: file not found" (ninety-second session)
    ({"image": "a.nii.gz", "label": ["c.nii.gz"]}, {},
     '''entry 0: "label" must be the path of the case's label map, got ['c.nii.gz'] (one label map per case'''),
    ({"image": "a.nii.gz", "label": 3}, {}, '''entry 0: "label" must be the path of the case's label map, got 3'''),
])
def test_a_malformed_entry_of_dataset_json_is_told_what_it_has(tmp_path, entry, content, said):
    """A key typo read 'has no "label"; move unlabelled cases to "test"', a path alone 'has no "image"',
    two files without "modality" 'declares 1 channel(s)' (seventy-first session's probe)."""
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "training": [entry], **content}))
    with pytest.raises(DataError, match=re.escape(said)):
        load_msd(path)


def test_a_key_given_twice_in_dataset_json_is_a_data_error(tmp_path):
    """Python's json keeps the last of two equal keys: a hand-edited "labels" lost a class without a word
    (twenty-ninth session). The same reader serves evaluate's --labels."""
    from accelerated_seg.evaluate import class_names_from_json

    path = tmp_path / "dataset.json"
    path.write_text('{"labels": {"0": "background", "1": "liver", "1": "tumour"}, "training": []}')
    for read in (load_cases, class_names_from_json):
        with pytest.raises(DataError, match=rf"^{re.escape(str(path))}: key '1' given twice in labels, of which "
                                            r"nnU-Net's and MONAI's json.load takes the last without a word: keep "
                                            r"one$"):
            read(path)


def test_missing_training_key_is_a_data_error(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS})
    with pytest.raises(DataError, match="no 'training' list") as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize("labels", [{"1": "a", "2": "b"}, {"background": 2, "a": 1, "b": 3}])
def test_labels_without_background_zero_are_a_data_error(tmp_path, labels):
    path = write_dataset_json(tmp_path, {"labels": labels, "training": msd_entries(2)})
    with pytest.raises(DataError, match="background must be value 0") as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


def test_image_list_length_must_match_declared_channels(tmp_path):
    entry = {"image": ["./imagesTr/a_0000.nii.gz"], "label": "./labelsTr/a.nii.gz"}
    path = write_dataset_json(
        tmp_path, {"labels": LABELS, "modality": {"0": "T1", "1": "T2"}, "training": [entry], "validation": []}
    )
    with pytest.raises(DataError, match="2 channel"):
        load_msd(path)


def test_case_in_both_training_and_validation_is_a_data_error(tmp_path):
    entries = msd_entries(3)
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries, "validation": entries[2:]})
    with pytest.raises(DataError, match="case_002"):
        load_msd(path)



def test_a_scan_in_a_training_and_a_validation_case_is_a_data_error(tmp_path):
    # Two raters' labels of one scan, one listed for training and one for validation: the ids differ.
    entries = msd_entries(2)
    second_rater = {"image": entries[0]["image"], "label": "./labelsTr/case_000_rater2.nii.gz"}
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries, "validation": [second_rater]})
    with pytest.raises(DataError, match=r"imagesTr/case_000.nii.gz belongs to training case 'case_000' and "
                                        r"validation case 'case_000_rater2'"):
        load_msd(path)

# --- shared helpers for the other formats -----------------------------------------------------

SHAPE = (8, 8, 8)


def save_volume(path, array=None):
    """A tiny real NIfTI, so the loaded manifests can also pass the pre-flight checks."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if array is None:
        array = np.zeros(SHAPE, np.uint8)
        array[2:5, 2:5, 2:5] = 1
    nib.save(nib.Nifti1Image(np.asarray(array), np.eye(4)), path)
    return path


def write_nnunet(root, case_ids=("case_b", "case_a", "case_c"), channels=("T1", "T2"), labels=None, **extra):
    """An nnU-Net v2 raw dataset with one file per channel (_0000, _0001) and one label per case."""
    for case_id in case_ids:
        for channel in range(len(channels)):
            save_volume(root / "imagesTr" / f"{case_id}_{channel:04d}.nii.gz", np.full(SHAPE, channel, np.float32))
        save_volume(root / "labelsTr" / f"{case_id}.nii.gz")
    content = {
        "channel_names": {str(index): name for index, name in enumerate(channels)},
        "labels": labels or {"background": 0, "tumor": 1},
        "numTraining": len(case_ids),
        "file_ending": ".nii.gz",
        **extra,
    }
    (root / "dataset.json").write_text(json.dumps(content))
    return root


def ids(cases):
    return [case.id for case in cases]


# --- nnU-Net v2 -------------------------------------------------------------------------------


def test_nnunet_folder_gives_cases_channels_and_labels(tmp_path):
    root = write_nnunet(tmp_path / "Dataset001_Tiny")
    # Stray files nnU-Net itself would ignore: hidden files, an image without a label, notes.
    (root / "imagesTr" / ".DS_Store").write_bytes(b"\0")
    save_volume(root / "imagesTr" / "unlabelled_0000.nii.gz")
    (root / "labelsTr" / "README.txt").write_text("labels")
    (root / "labelsTr" / "._case_a.nii.gz").write_bytes(b"\0")  # macOS resource fork

    manifest = load_nnunet(root, validation_fraction=0.34)

    assert manifest.source_format == "nnunet"
    assert manifest.root == root
    assert manifest.channels == {0: "T1", 1: "T2"}
    assert manifest.labels == {0: "background", 1: "tumor"}
    assert manifest.label_map is None
    all_cases = manifest.training + manifest.validation
    assert sorted(ids(all_cases)) == ["case_a", "case_b", "case_c"]
    case_a = next(case for case in all_cases if case.id == "case_a")
    assert case_a.images == (root / "imagesTr" / "case_a_0000.nii.gz", root / "imagesTr" / "case_a_0001.nii.gz")
    assert case_a.label == root / "labelsTr" / "case_a.nii.gz"
    assert (len(manifest.training), len(manifest.validation)) == (2, 1)
    assert manifest.split == "fraction 0.34 (seed 0)"
    assert check_manifest(manifest).errors == []


def test_nnunet_files_not_fetched_by_datalad_keep_their_case_and_are_told_how_to_fetch_them(tmp_path):
    """A DataLad dataset installed without ``datalad get`` holds links into .git/annex that lead nowhere: a
    label's case was left out without a word, and an image's was "channel file(s) missing ... restore them"
    (until the hundred-and-fourth session). Both cases stay, and the checks say how to fetch their files."""
    root = write_nnunet(tmp_path / "Dataset001_Tiny")
    for path in (root / "labelsTr" / "case_a.nii.gz", root / "imagesTr" / "case_b_0001.nii.gz"):
        path.unlink()
        path.symlink_to(ANNEX_LINK)
    manifest = load_nnunet(root, validation_fraction=0.34)
    assert sorted(ids(manifest.training + manifest.validation)) == ["case_a", "case_b", "case_c"]
    errors = sorted(check_manifest(manifest).errors)
    assert len(errors) == 2 and all("a git-annex link whose content is not fetched" in error for error in errors)
    assert "labelsTr/case_a.nii.gz" in errors[0] and "imagesTr/case_b_0001.nii.gz" in errors[1], errors


def test_nnunet_channel_files_that_dataset_json_does_not_declare_are_a_warning_naming_them(tmp_path):
    # A fourth modality left out of channel_names trained on three without a word; predict refuses such a file.
    root = write_nnunet(tmp_path / "Dataset001_Tiny")
    for case_id in ("case_a", "case_c", "unlabelled"):  # the last is no case: not named
        save_volume(root / "imagesTr" / f"{case_id}_0002.nii.gz")
    manifest = load_nnunet(root)
    assert all(len(case.images) == 2 for case in manifest.training + manifest.validation)
    report = check_manifest(manifest)
    assert report.errors == []
    [warning] = [w for w in report.warnings if "channel_names" in w]  # (its phantoms' channels are flat too)
    assert warning.startswith("2 file(s) in imagesTr are named as channels that dataset.json's channel_names does "
                              "not declare, so training does not read them: ")
    assert f"{root / 'imagesTr' / 'case_a_0002.nii.gz'}, {root / 'imagesTr' / 'case_c_0002.nii.gz'}." in warning
    assert "It trains on channel(s) 0000 (T1), 0001 (T2)" in warning
    # An nnU-Net JSON of another name is named by it (the warning said dataset.json until the ninety-first session)
    (root / "dataset.json").rename(root / "Dataset001.json")
    [warning] = [w for w in check_manifest(load_cases(root / "Dataset001.json")).warnings if "channel_names" in w]
    assert "named as channels that Dataset001.json's channel_names does not declare" in warning


def test_nnunet_channel_named_by_a_normalization_scheme_not_applied_is_a_warning(tmp_path, capsys):
    # nnU-Net normalizes each channel by its name (CT, noNorm, rescale_to_0_1, rgb_to_0_1; others z-scored); here
    # one data.normalization serves all, so a noNorm channel and a CT one beside it were z-scored without a word.
    from accelerated_seg.cli import main

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.checks import check_as_configured

    def said(root, **settings):
        report = check_as_configured(DataConfig(**settings), load_nnunet(root))[1]
        return [w for w in report.warnings if "normalization scheme" in w]

    root = write_nnunet(tmp_path / "Dataset042_Tiny", channels=("CT", "noNorm", "T2"))
    [warning] = said(root)
    assert warning.startswith("dataset.json's channel_names name 2 channel(s) by an nnU-Net normalization scheme "
                              "that this run does not apply: 0000 (CT), where nnU-Net clips it to its foreground's "
                              "intensity percentiles and z-scores those; 0001 (noNorm), where nnU-Net leaves it as "
                              "stored. Here one normalization, data.normalization (zscore, as resolved)")
    assert "T2" not in warning.split(". Here")[0]  # a modality's name is z-scored by nnU-Net too
    assert main(["check", str(root)]) == 0  # a warning: the run is the user's choice
    assert "0001 (noNorm), where nnU-Net leaves it as stored" in capsys.readouterr().out
    # data.normalization given: the CT channel z-scored is the user's choice, noNorm still has none to follow
    [warning] = said(root, normalization="zscore")
    assert "0000 (CT)" not in warning and "1 channel(s)" in warning and "0001 (noNorm)" in warning
    # Each channel's name asks for what is applied (or what was chosen): nothing to say
    for channels, normalization in ((("CT",), "auto"), (("T1", "zscore"), "auto"), (("MR",), "ct"),
                                    (("CT",), "zscore")):
        shutil.rmtree(tmp_path / "again", ignore_errors=True)
        assert not said(write_nnunet(tmp_path / "again", channels=channels), normalization=normalization), channels


@pytest.mark.parametrize("labels", [None, {}, ["background", "tumour"]])
def test_nnunet_labels_missing_or_malformed_are_shown_in_nnunets_own_form(tmp_path, labels):
    # An nnU-Net v2 user was shown the Decathlon's {"0": "background", "1": "tumour"}, not their tool's form.
    root = write_nnunet(tmp_path / "Dataset042_Tiny")
    content = json.loads((root / "dataset.json").read_text())
    content.pop("labels") if labels is None else content.update(labels=labels)
    (root / "dataset.json").write_text(json.dumps(content))
    with pytest.raises(DataError) as raised:
        load_nnunet(root)
    assert str(raised.value).startswith(f'{root / "dataset.json"}: "labels": ')
    assert str(raised.value).endswith('{"background": 0, "tumour": 1}' + ("" if labels is None or labels == {} else
                                                                           ", got ['background', 'tumour']"))
    assert '"0": "background"' not in str(raised.value)


def test_nnunet_json_path_is_accepted_like_the_folder(tmp_path):
    root = write_nnunet(tmp_path)
    assert load_nnunet(root / "dataset.json").training == load_nnunet(root).training


def test_nnunet_missing_channel_file_names_case_and_file(tmp_path):
    root = write_nnunet(tmp_path)
    missing = root / "imagesTr" / "case_b_0001.nii.gz"
    missing.unlink()
    with pytest.raises(DataError) as raised:
        load_nnunet(root)
    message = str(raised.value)
    assert "case 'case_b'" in message and str(missing) in message and "restore" in message
    assert message.count("has no") == 1


def test_nnunet_channel_files_numbered_past_a_gap_are_named_beside_the_missing_ones(tmp_path):
    """Files _0000 and _0002 (a modality taken out) under channel_names 0 and 1 were told that _0001 was missing,
    the _0002 files beside it unsaid."""
    root = write_nnunet(tmp_path)
    for case in ("case_a", "case_b", "case_c"):
        (root / "imagesTr" / f"{case}_0001.nii.gz").rename(root / "imagesTr" / f"{case}_0002.nii.gz")
    with pytest.raises(DataError, match=r"imagesTr holds these cases' files of channel\(s\) 0002, which dataset.json "
                                        r"does not declare: .* without gaps; renumber the files \(and channel_names\)"):
        load_nnunet(root)


@pytest.mark.parametrize("numbered, said", [
    ({"0": "T1", "2": "T2"}, r'"channel_names" numbers its channels 0, 2; number them "0", "1", in the order'),
    ({"1": "T1", "2": "T2"}, r'"channel_names" numbers its channels 1, 2; number them "0", "1", in the order'),
    ({}, r'"channel_names" declares no channel; name each'),
])
def test_channels_numbered_with_a_gap_are_named_by_their_key_with_the_numbers_to_give(tmp_path, numbered, said):
    """It said "channel indices must be 0..N-1 without gaps; got [0, 2]", naming neither the key nor the way on."""
    root = write_nnunet(tmp_path)
    content = json.loads((root / "dataset.json").read_text())
    (root / "dataset.json").write_text(json.dumps({**content, "channel_names": numbered}))
    with pytest.raises(DataError, match=said):
        load_nnunet(root)
    path = write_dataset_json(tmp_path / "msd", {"labels": LABELS, "modality": numbered, "training": msd_entries(1)})
    with pytest.raises(DataError, match=said.replace("channel_names", "modality")):
        load_msd(path)


def test_nnunet_folders_named_as_case_files_are_named_as_folders(tmp_path):
    """A folder named as a label map was passed over, its case dropped without a word or "restore the missing
    files" said of a name in plain sight; one named as a channel file was said not to be there (ninety-third)."""
    root = write_nnunet(tmp_path / "label", numTraining=4)
    (root / "labelsTr" / "case_d.nii.gz").mkdir()
    with pytest.raises(DataError, match=rf"^{re.escape(str(root / 'labelsTr'))}: 1 folder\(s\) named as a case's "
                                        r"label map \(case_d\.nii\.gz\), not NIfTI files; labelsTr holds one label "
                                        r"file <case>\.nii\.gz per case: put the file there in its place, or move "
                                        r"the folder out of labelsTr$"):
        load_nnunet(root)
    root = write_nnunet(tmp_path / "image")
    (channel := root / "imagesTr" / "case_b_0001.nii.gz").unlink()
    channel.mkdir()
    with pytest.raises(DataError, match=re.escape(f"- case 'case_b' has no {channel} (a folder of that name is "
                                                  f"there, not a NIfTI file)")):
        load_nnunet(root)


def test_nnunet_region_based_labels_become_regions_painted_in_regions_class_order(tmp_path):
    labels = {"background": 0, "whole_tumor": [1, 2, 3], "enhancing": 3}
    root = write_nnunet(tmp_path / "ordered", labels=labels, regions_class_order=[1, 3])
    manifest = load_nnunet(root)
    # every foreground entry is a region (a single value too), as nnU-Net reads them
    assert manifest.regions.names == ("whole_tumor", "enhancing")
    assert manifest.regions.values == ((1, 2, 3), (3,)) and manifest.regions.order == (1, 3)
    assert manifest.label_values == [0, 1, 2, 3] and manifest.labels[3] == "enhancing"
    # the value 1 that whole_tumor paints was called "label_1" (check's classes, the export's config.json);
    # 2, which no entry names and no region paints, has no name of the dataset.json's own
    assert manifest.labels[1] == "whole_tumor" and manifest.labels[2] == "label_2"
    assert manifest.num_outputs == 2 and manifest.num_classes == 4
    assert load_nnunet(root, binarize=True).regions is None  # one foreground class, no regions
    # whole_tumor holds 1 and 2 that no later region holds: which one it paints must be given
    with pytest.raises(DataError, match="regions_class_order") as raised:
        load_nnunet(write_nnunet(tmp_path / "unordered", labels=labels))
    assert "whole_tumor" in str(raised.value) and "dataset.json" in str(raised.value)


def test_nnunet_regions_name_the_values_they_paint_in_checks_classes(tmp_path, capsys):
    """BraTS' declaration as nnU-Net's documentation writes it: the values 1 and 2, which only regions hold, were
    "label_1" and "label_2" in check's classes and the export's config.json; each is what the region painting it
    stands for in the predicted maps (regions_class_order, here derived: 1, 2, 3)."""
    from accelerated_seg.cli import main

    labels = {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3], "enhancing tumor": 3}
    root = write_nnunet(tmp_path, labels=labels)
    manifest = load_nnunet(root)
    assert manifest.regions.order == (1, 2, 3)
    assert manifest.labels == {0: "background", 1: "whole tumor", 2: "tumor core", 3: "enhancing tumor"}
    assert main(["check", str(root / "dataset.json")]) == 0
    assert ("classes: 0 background, 1 whole tumor, 2 tumor core, 3 enhancing tumor; regions: whole tumor, tumor "
            "core, enhancing tumor") in capsys.readouterr().out


def test_data_regions_over_a_datasets_own_regions_name_the_values_they_paint_as_the_user_named_them(tmp_path,
                                                                                                      capsys):
    """data.regions over an nnU-Net dataset.json's own regions: the values only regions hold kept the names of the
    dataset.json's regions, which the network no longer has (check's classes read "1 whole tumor, 2 tumor core"
    beside "regions: WT, TC, ET"). They are named after the override's region that paints each, as the user wrote
    it, label_<value> where none does; a value the dataset names on its own keeps that name, a Decathlon's too."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import with_regions

    labels = {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3], "enhancing tumor": 3}
    root = write_nnunet(tmp_path / "nnunet", labels=labels)
    override = {"Whole Tumour": [1, 2, 3], "TC": [2, 3], "et": [3]}
    manifest = with_regions(DataConfig(regions=override), load_nnunet(root))
    assert manifest.regions.names == ("Whole Tumour", "TC", "et")
    assert manifest.labels == {0: "background", 1: "Whole Tumour", 2: "TC", 3: "enhancing tumor"}
    fewer = with_regions(DataConfig(regions={"all": [1, 2, 3], "core": [2, 3]}, region_order=[1, 3]),
                         load_nnunet(root))  # 2 is painted by none of them now
    assert fewer.labels == {0: "background", 1: "all", 2: "label_2", 3: "enhancing tumor"}
    (root / "experiment.yaml").write_text(f"data:\n  dataset: {root / 'dataset.json'}\n"
                                          f"  regions: {{Whole Tumour: [1, 2, 3], TC: [2, 3], et: [3]}}\n")
    main(["check", "--config", str(root / "experiment.yaml")])
    assert ("classes: 0 background, 1 Whole Tumour, 2 TC, 3 enhancing tumor; regions: Whole Tumour, TC, et"
            in capsys.readouterr().out)
    decathlon = write_dataset_json(tmp_path / "msd", {
        "labels": {"0": "background", "1": "edema", "2": "non-enhancing", "3": "enhancing"},
        "modality": {"0": "FLAIR"}, "training": msd_entries(2)})
    assert with_regions(DataConfig(regions=override), load_msd(decathlon)).labels == {
        0: "background", 1: "edema", 2: "non-enhancing", 3: "enhancing"}


def test_from_files_regions_name_the_values_they_paint_as_a_configs_data_regions_do(tmp_path):
    """Dataset.from_files(..., regions=...) kept its classes class_1, class_2, class_3 beside the regions until the
    ninety-ninth session, where a config's data.regions over the same files names each value after the region
    that paints it (check's classes, the export's "labels"); class_names given still name them."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest, with_regions
    from accelerated_seg.estimator import Dataset

    regions = {"whole tumor": [1, 2, 3], "tumor core": [2, 3], "enhancing tumor": [3]}
    root = write_nnunet(tmp_path / "nnunet", channels=("T1",), labels={"background": 0, **regions})
    data = DataConfig(dataset=str(root / "dataset.json"), regions=regions)
    configured = with_regions(data, load_manifest(data, tmp_path))
    pairs = [(str(case.images[0]), str(case.label)) for case in configured.training + configured.validation]
    given = Dataset.from_files(pairs, block_shape=8, n_classes=4, regions=regions).manifest
    assert given.labels == configured.labels == {0: "background", 1: "whole tumor", 2: "tumor core",
                                                 3: "enhancing tumor"}
    assert given.regions == configured.regions
    named = ["background", "edema", "non-enhancing", "enhancing"]
    assert list(Dataset.from_files(pairs, block_shape=8, n_classes=4, regions=regions,
                                   class_names=named).manifest.labels.values()) == named
    fewer = Dataset.from_files(pairs, block_shape=8, n_classes=4, regions={"all": [1, 2, 3], "core": [2, 3]},
                               region_order=[1, 3]).manifest  # 2 is painted by none of them: its own name
    assert fewer.labels == {0: "background", 1: "all", 2: "class_2", 3: "core"}


def test_nnunet_ignore_label_is_read_as_the_value_of_unannotated_voxels(tmp_path):
    manifest = load_nnunet(write_nnunet(tmp_path, labels={"background": 0, "tumor": 1, "ignore": 2}))
    assert manifest.labels == {0: "background", 1: "tumor"} and manifest.label_values == [0, 1]
    assert manifest.ignore_value == 2 and manifest.ignore_index == 2 and manifest.num_outputs == 2


def test_nnunet_num_training_must_match_labels(tmp_path):
    root = write_nnunet(tmp_path, numTraining=5)
    with pytest.raises(DataError, match="numTraining is 5 but .* holds 3 label file"):
        load_nnunet(root)


def test_nnunet_num_training_that_is_no_whole_number_is_refused_naming_the_file_key_and_value(tmp_path):
    """A numTraining of "3", a list or true was passed over without a word, where an int was compared with
    the label files (hundred-and-fifth session). nnU-Net compares it by ==, so 3.0 counts as 3 there and here."""
    whole = load_nnunet(write_nnunet(tmp_path / "float", numTraining=3.0))
    assert len(whole.training + whole.validation) == 3
    with pytest.raises(DataError, match="numTraining is 5 but"):
        load_nnunet(write_nnunet(tmp_path / "five", numTraining=5.0))
    for name, value, said in (("string", "3", '"3"'), ("list", [3], "[3]"), ("true", True, "true"),
                              ("fraction", 2.5, "2.5"), ("null", None, "null")):
        root = write_nnunet(tmp_path / name, numTraining=value)
        with pytest.raises(DataError) as refused:
            load_nnunet(root)
        assert str(refused.value) == (
            f'{root / "dataset.json"}: "numTraining" is {said}, not a whole number: nnU-Net compares it with the '
            f'training cases it finds; write their count without quotes ("numTraining": 3 for the label files in '
            f"{root / 'labelsTr'}), or leave it out"), name
    root = write_nnunet(tmp_path / "absent")
    content = json.loads((root / "dataset.json").read_text())
    del content["numTraining"]
    (root / "dataset.json").write_text(json.dumps(content))
    absent = load_nnunet(root)
    assert len(absent.training + absent.validation) == 3  # no count: nothing to compare


def test_nnunet_label_files_whose_ending_differs_from_file_ending_are_named_with_the_way_on(tmp_path):
    """Upper-case endings (or .nii beside ".nii.gz") read as "no label files" or as files gone missing,
    without naming the files there (seventy-fifth session's probe)."""
    root = write_nnunet(tmp_path / "upper")
    for path in (root / "labelsTr").iterdir():
        path.rename(path.with_name(path.name.replace(".nii.gz", ".NII.GZ")))
    with pytest.raises(DataError) as refused:
        load_nnunet(root)
    assert str(refused.value) == (
        f"{root / 'labelsTr'}: no label files ending in .nii.gz, but 3 ending in .NII.GZ: case_a.NII.GZ, "
        "case_b.NII.GZ, case_c.NII.GZ. nnU-Net reads only the names that end exactly in dataset.json's "
        '"file_ending": rename those ending in .NII.GZ to end in .nii.gz')
    root = write_nnunet(tmp_path / "one_nii")
    first = sorted((root / "labelsTr").iterdir())[0]
    first.rename(first.with_name(first.name.replace(".nii.gz", ".nii")))
    with pytest.raises(DataError, match=r"holds 2 label file\(s\) ending in .nii.gz, but 1 ending in .nii: "
                                        r'case_a.nii\. .*: gzip those ending in .nii \(and their images\) to end in '
                                        r'.nii.gz, or set "file_ending": ".nii" if every image and label ends so; '
                                        r"or, if that is not all, restore the missing files"):
        load_nnunet(root)
    # two kinds at once: each its own way (gzip'ing a .NII.GZ would compress it twice)
    root = write_nnunet(tmp_path / "mixed", numTraining=3)
    first, second = sorted((root / "labelsTr").iterdir())[:2]
    first.rename(first.with_name(first.name.replace(".nii.gz", ".nii")))
    second.rename(second.with_name(second.name.replace(".nii.gz", ".NII.GZ")))
    with pytest.raises(DataError, match=r"rename those ending in .NII.GZ to end in .nii.gz; gzip those ending in "
                                        r".nii \(and their images\) to end in .nii.gz; or"):
        load_nnunet(root)
    # a stray copy of a case that is read, with a count too low, is no file "to rename" (over the good one)
    root = write_nnunet(tmp_path / "stray_copy", numTraining=2)
    shutil.copy(root / "labelsTr" / "case_a.nii.gz", root / "labelsTr" / "case_a.nii")
    with pytest.raises(DataError, match=r"holds 3 label file\(s\) ending in .nii.gz; restore the missing files "
                                        r"\(an incomplete copy\?\) or correct numTraining$"):
        load_nnunet(root)


def test_nnunet_non_nifti_file_ending_is_refused(tmp_path):
    root = write_nnunet(tmp_path, file_ending=".mha")
    with pytest.raises(DataError, match=r"only NIfTI \(\".nii.gz\", \".nii\"\) is read here: convert the images and "
                                        r"labels to NIfTI, e.g. with SimpleITK \(nnU-Net's own reader\): "
                                        r"SimpleITK.WriteImage\(SimpleITK.ReadImage\('case_0000.mha'\), "
                                        r"'case_0000.nii.gz'\), and set \"file_ending\": \".nii.gz\"$"):
        load_nnunet(root)


def write_splits(root, splits):
    root.mkdir(parents=True, exist_ok=True)
    (root / "splits_final.json").write_text(json.dumps(splits))


SPLITS = [
    {"train": ["case_a", "case_b"], "val": ["case_c"]},
    {"train": ["case_c", "case_a"], "val": ["case_b"]},
]


def test_nnunet_splits_final_is_honoured_and_fold_picks_the_entry(tmp_path):
    root = write_nnunet(tmp_path)
    write_splits(root, SPLITS)

    first = load_nnunet(root)
    second = load_nnunet(root, fold=1, num_folds=2)

    assert (ids(first.training), ids(first.validation)) == (["case_a", "case_b"], ["case_c"])
    assert (ids(second.training), ids(second.validation)) == (["case_c", "case_a"], ["case_b"])
    assert second.split == "given (splits_final.json fold 1 of 2)"


def test_a_dataset_json_and_splits_final_saved_with_a_byte_order_mark_are_read(tmp_path):
    """Windows editors and PowerShell put a byte-order mark before JSON they save as UTF-8; the CSV reader
    dropped it, but a dataset.json or splits_final.json so saved was refused ("Unexpected UTF-8 BOM")."""
    path = tmp_path / "msd" / "dataset.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"labels": LABELS, "training": msd_entries(4)}), encoding="utf-8-sig")
    assert len(load_cases(path).training) == 3
    root = write_nnunet(tmp_path / "nnunet")
    (root / "splits_final.json").write_text(json.dumps(SPLITS), encoding="utf-8-sig")
    assert ids(load_nnunet(root).validation) == ["case_c"]


def test_nnunet_splits_final_fold_out_of_range(tmp_path):
    root = write_nnunet(tmp_path)
    write_splits(root, SPLITS)
    with pytest.raises(DataError, match=r"^fold=2 is out of range.*holds 2 fold"):  # its keyword, called from Python
        load_nnunet(root, fold=2)
    with pytest.raises(DataError, match=r"^data\.fold=2 is out of range.*holds 2 fold"):  # the config's
        read_by_the_config(root, fold=2)


def test_nnunet_splits_final_disagreeing_with_num_folds(tmp_path):
    root = write_nnunet(tmp_path)
    write_splits(root, SPLITS)
    with pytest.raises(DataError, match=r"holds 2 fold\(s\) but num_folds=3; set num_folds to 0 or 2"):
        load_nnunet(root, num_folds=3)
    with pytest.raises(DataError, match=r"holds 2 fold\(s\) but data\.num_folds=3; set data\.num_folds to 0 or 2"):
        read_by_the_config(root, num_folds=3)
    (root / "splits_final.json").write_text("[{")
    # cut short, told so (hand_edited's reader), the way on still naming the keyword that splits without it
    with pytest.raises(DataError, match=r"so it was cut short; copy it again from nnU-Net's preprocessed folder, or "
                                        r"delete it to split by num_folds$"):
        load_nnunet(root, num_folds=3)


def test_nnunet_cases_the_fold_of_splits_final_leaves_out_are_a_warning_naming_them(tmp_path):
    """A case of labelsTr in neither 'train' nor 'val' of the fold taken (added after nnU-Net wrote the file) was
    neither trained nor validated on without a word; check counted the cases left."""
    root = write_nnunet(tmp_path, case_ids=("case_a", "case_b", "case_c", "case_d"))
    write_splits(root, SPLITS)
    warnings = check_manifest(load_nnunet(root)).warnings
    assert [warning for warning in warnings if "splits_final.json" in warning] == [
        f"1 case(s) of labelsTr are in neither the 'train' nor the 'val' list of the fold taken from "
        f"{root / 'splits_final.json'}, so they are neither trained nor validated on: case_d. Cases added since "
        f"nnU-Net wrote that file? List them in each fold, or delete it to split every case"]
    (root / "splits_final.json").unlink()
    assert not [warning for warning in check_manifest(load_nnunet(root)).warnings if "splits_final" in warning]


def test_nnunets_folds_in_its_preprocessed_folder_are_named_where_none_lies_beside_dataset_json(tmp_path,
                                                                                                   monkeypatch):
    """nnU-Net writes splits_final.json to $nnUNet_preprocessed/<dataset>/, which is not read: a run split by the
    seed validated on other cases than nnU-Net's fold of the same number without a word."""
    root = write_nnunet(tmp_path / "raw" / "Dataset001_Tiny")
    write_splits(tmp_path / "preprocessed" / "Dataset001_Tiny", SPLITS)
    folds = tmp_path / "preprocessed" / "Dataset001_Tiny" / "splits_final.json"

    def about_folds():
        return [warning for warning in check_manifest(load_nnunet(root)).warnings if "nnU-Net's folds" in warning]

    monkeypatch.delenv("nnUNet_preprocessed", raising=False)
    assert about_folds() == []  # no $nnUNet_preprocessed
    monkeypatch.setenv("nnUNet_preprocessed", str(tmp_path / "preprocessed"))
    assert about_folds() == [
        f"the split is fraction 0.2 (seed 0), not nnU-Net's: its folds of this dataset are in {folds}, which is read "
        f"beside dataset.json alone; copy it to {root} to train and validate on nnU-Net's folds (fold k as "
        f"nnU-Net's fold k), or, to keep this split on purpose, set nnUNet_preprocessed empty for the run "
        f"(nnUNet_preprocessed= accelerated-seg train ...)"]
    monkeypatch.setenv("nnUNet_preprocessed", "")  # the way it names: this split on purpose, said no more
    assert about_folds() == []
    monkeypatch.setenv("nnUNet_preprocessed", str(tmp_path / "preprocessed"))
    write_splits(root, SPLITS)
    assert about_folds() == []


def test_nnunets_folds_elsewhere_are_not_warned_of_where_no_case_is_validated_on(tmp_path, monkeypatch):
    """Every case trained on (validation_fraction 0, nnU-Net's fold 'all') validates on no fold to compare with
    nnU-Net's: it was warned of every run, with no way to say so (hundred-and-fifth session's review)."""
    root = write_nnunet(tmp_path / "raw" / "Dataset001_Tiny")
    write_splits(tmp_path / "preprocessed" / "Dataset001_Tiny", SPLITS)
    monkeypatch.setenv("nnUNet_preprocessed", str(tmp_path / "preprocessed"))
    manifest = load_nnunet(root, validation_fraction=0)

    assert manifest.validation == []
    assert not [warning for warning in check_manifest(manifest).warnings if "nnU-Net's folds" in warning]


def test_nnunet_splits_final_naming_unknown_cases(tmp_path):
    root = write_nnunet(tmp_path)
    write_splits(root, [{"train": ["case_a", "case_zzz"], "val": ["case_c"]}])
    with pytest.raises(DataError, match="case_zzz"):
        load_nnunet(root)


# --- CSV --------------------------------------------------------------------------------------


def test_csv_channels_relative_paths_and_split_column(tmp_path):
    (tmp_path / "study").mkdir()
    csv_path = tmp_path / "study" / "cases.csv"
    csv_path.write_text(
        "\ufeffImage_0,image_1,label,split,age\n"  # spreadsheet BOM and capitalised header are tolerated
        "t1/a.nii.gz,t2/a.nii.gz,seg/a.nii.gz,train,41\n"
        "t1/b.nii.gz,t2/b.nii.gz,seg/b.nii.gz,Validation,37\n"
        "\n"
        "t1/c.nii.gz,t2/c.nii.gz,seg/c.nii.gz,train,52\n"
        "t1/d.nii.gz,t2/d.nii.gz,,test,60\n",
        encoding="utf-8",
    )
    manifest = load_csv(csv_path, labels={0: "background", 1: "lesion"}, num_folds=3)

    root = tmp_path / "study"
    assert manifest.root == root and manifest.source_format == "csv"
    assert manifest.channels == {0: "image_0", 1: "image_1"}
    assert manifest.labels == {0: "background", 1: "lesion"}
    assert ids(manifest.training) == ["a", "c"] and ids(manifest.validation) == ["b"]
    assert manifest.training[0] == Case(
        id="a", images=(root / "t1" / "a.nii.gz", root / "t2" / "a.nii.gz"), label=root / "seg" / "a.nii.gz"
    )
    assert manifest.split == "given (CSV 'split' column; num_folds=3 not used)"


def test_csv_single_image_column_without_split_uses_the_seeded_split(tmp_path):
    rows = "\n".join(f"img/{i}.nii.gz,lab/{i}.nii.gz" for i in range(10))
    (tmp_path / "cases.csv").write_text(f"image,label\n{rows}\n")
    manifest = load_csv(tmp_path / "cases.csv", validation_fraction=0.3, seed=4)

    assert manifest.channels == {0: "image"}
    assert manifest.labels == {0: "background", 1: "foreground"}  # a CSV declares none: binary by default
    assert len(manifest.validation) == 3 and manifest.split == "fraction 0.3 (seed 4)"
    assert manifest.training[0].images == (tmp_path / "img" / f"{manifest.training[0].id}.nii.gz",)


@pytest.mark.parametrize(
    "labels, expected_labels, expected_values",
    [
        ({0: "background", 1: "edema", 4: "enhancing"}, {0: "background", 1: "edema", 2: "enhancing"}, [0, 1, 4]),
        ({"background": 0, "liver": 1}, {0: "background", 1: "liver"}, [0, 1]),
        (["background", "liver", "tumour"], {0: "background", 1: "liver", 2: "tumour"}, [0, 1, 2]),
        (3, {0: "background", 1: "class_1", 2: "class_2"}, [0, 1, 2]),
    ],
)
def test_csv_labels_argument_forms(tmp_path, labels, expected_labels, expected_values):
    (tmp_path / "cases.csv").write_text("image,label\na.nii.gz,a_seg.nii.gz\nb.nii.gz,b_seg.nii.gz\n")
    manifest = load_csv(tmp_path / "cases.csv", labels=labels)
    assert (manifest.labels, manifest.label_values) == (expected_labels, expected_values)


def test_label_values_are_whole_numbers_not_truncated_to_one(tmp_path):
    """A Python or YAML key 1.5 was int()-ed to 1 and then read as a repeat of 1; 1.0 is the value 1."""
    (tmp_path / "cases.csv").write_text("image,label\na.nii.gz,a_seg.nii.gz\nb.nii.gz,b_seg.nii.gz\n")
    with pytest.raises(DataError, match=re.escape("keys must be label values") + ".*1.5"):
        load_csv(tmp_path / "cases.csv", labels={0: "background", 1: "a", 1.5: "b"})
    manifest = load_csv(tmp_path / "cases.csv", labels={0.0: "background", 1.0: "a"})
    assert (manifest.labels, manifest.label_values) == ({0: "background", 1: "a"}, [0, 1])
    binarized = load_csv(tmp_path / "cases.csv", labels={0: "background", 1: "a", 2: "a"}, binarize=True)
    assert binarized.labels == {0: "background", 1: "foreground"}  # names are not used when binarized


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("image,mask\na.nii.gz,b.nii.gz\n", "no 'label' column"),
        ("image,image_0,label\na,b,c\n", "both 'image' and"),
        ("image_0,image_2,label\na,b,c\n", "without gaps"),
        ("path,label\na,b\n", "no image column"),
        ("image,label\na.nii.gz,\n", "line 2: empty 'label' cell"),
        # the file "<CSV's folder>/nan" was not found, the line not named (ninety-second session's probe)
        ("image,label\na.nii.gz,a_seg.nii.gz\nb.nii.gz,nan\n", "line 3: the 'label' cell is 'nan', a missing value as "
                                                             "a DataFrame writes it; give a path"),
        ("image,label\nNone,a_seg.nii.gz\n", "line 2: the 'image' cell is 'None'"),
        # "." and "./" were the CSV's folder, "imagesTr/" a folder: "a folder, not a NIfTI file" (ninety-third)
        ("image,label\na.nii.gz,a_seg.nii.gz\n./,b_seg.nii.gz\n", "line 3: the 'image' cell is './', the folder "
                                                                 "itself; give the file's path (relative to the CSV's "
                                                                 "folder)"),
        ("image_0,image_1,label\na.nii.gz,.,a_seg.nii.gz\n", "line 2: the 'image_1' cell is '.', the folder itself"),
        ("image,label\na.nii.gz,labelsTr/\n", "line 2: the 'label' cell is 'labelsTr/', a folder; give the file's"),
        ("image,label,split\na.nii.gz,a_seg.nii.gz,holdout\n",
         "line 2: split is 'holdout'; use train, validation or test"),
        ("image;label\na.nii.gz;a_seg.nii.gz\n", "not comma-separated"),
        ("image,label,split\na.nii.gz,a_seg.nii.gz,validation\n", "no row has split=train"),
        ("", "empty file"),
        # blank lines above the header were read as a header of no columns: "found columns []" (ninety-second)
        ("\n \n", "empty file"),
        ("\n\nimage,label\na.nii.gz,\n", "line 4: empty 'label' cell"),
        # a table without its header: its first case's paths were told they named no 'label' column
        ("a.nii.gz,a_seg.nii.gz\nb.nii.gz,b_seg.nii.gz\n", "its first line, read as the header, holds paths "
                                                            "(a.nii.gz, a_seg.nii.gz): the file has no header row; "
                                                            "add one, such as image,label"),
        ("id,image,label\nsub/01,a.nii.gz,a_seg.nii.gz\n", "line 2: id 'sub/01' contains a path separator"),
        # a spreadsheet's "Unicode text" export: UnicodeDecodeError's traceback before the 26th session, "not
        # UTF-8 text (byte 0xff at position 0)" before the hundred-and-twenty-second (hand_edited's reader)
        ("image,label\na.nii.gz,a_seg.nii.gz\n".encode("utf-16"),
         "is saved as UTF-16 (a Windows editor's \"Unicode\"), not UTF-8: save it again as UTF-8 (a spreadsheet's "
         "'CSV UTF-8')"),
        # A second column of one name replaced the first's cells (images paired with other labels), and
        # cells beyond the header were dropped, before the twenty-ninth session.
        ("image,label,Label\na.nii.gz,a_seg.nii.gz,b_seg.nii.gz\n", "column(s) ['label'] appear twice in the header"),
        ("image,label\na.nii.gz,a_seg.nii.gz,b_seg.nii.gz\n", "line 2: 3 cells but the header names 2 columns"),
        # ignored as another column before the sixty-seventh session: the seeded fraction split the cases
        ("image,label,spilt\na.nii.gz,a_seg.nii.gz,train\n", "column 'spilt' is not one this reader knows"),
        ("image,label,Splits\na.nii.gz,a_seg.nii.gz,train\n", "rename it to 'split'"),
        # load_csv's keyword, called from Python (data.validation_fraction until the ninety-fourth session)
        ("image,label,Splits\na.nii.gz,a_seg.nii.gz,train\n", "cases are split by validation_fraction: rename"),
    ],
)
def test_csv_mistakes_name_the_file_and_line(tmp_path, content, fragment):
    path = tmp_path / "cases.csv"
    path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    with pytest.raises(DataError) as raised:
        load_csv(path)
    assert fragment in str(raised.value) and str(path) in str(raised.value)


def test_csv_empty_cells_after_the_last_column_are_ignored(tmp_path):
    path = tmp_path / "cases.csv"  # a spreadsheet's export of a sheet with formatted empty columns
    path.write_text("image,label\na.nii.gz,a_seg.nii.gz,,\nb.nii.gz,b_seg.nii.gz, \n")
    manifest = load_csv(path, validation_fraction=0.5)
    assert sorted(case.label.name for case in manifest.training + manifest.validation) == ["a_seg.nii.gz",
                                                                                           "b_seg.nii.gz"]


def test_csv_repeated_label_names_get_ids_from_their_folders(tmp_path):
    (tmp_path / "cases.csv").write_text(
        "id,image,label\n,sub-01/t1.nii.gz,sub-01/mask.nii.gz\n,sub-02/t1.nii.gz,sub-02/mask.nii.gz\n"
        "special,sub-03/t1.nii.gz,sub-03/mask.nii.gz\n"
    )
    manifest = load_csv(tmp_path / "cases.csv", validation_fraction=0)
    assert ids(manifest.training) == ["sub-01_mask", "sub-02_mask", "special"]


def test_csv_listing_a_case_twice_is_a_data_error(tmp_path):
    (tmp_path / "cases.csv").write_text("image,label\na.nii.gz,a_seg.nii.gz\na.nii.gz,a_seg.nii.gz\n")
    with pytest.raises(DataError, match="case 'a_seg' is listed twice, among the training cases; remove the "
                                        "duplicates"):
        load_csv(tmp_path / "cases.csv", validation_fraction=0)


def test_a_case_listed_twice_is_told_where_and_a_label_shared_by_other_images_is_told_so(tmp_path):
    """Both were "case(s) listed more than once across training/validation: ['a_seg']; remove the
    duplicates": a pair in pairs and validation_pairs alike, and two images given one label file,
    which is no case repeated (ninety-second session's probe)."""
    a, b, a_seg = (str(tmp_path / name) for name in ("a.nii.gz", "b.nii.gz", "a_seg.nii.gz"))
    with pytest.raises(DataError, match=r"^from_pairs: case 'a_seg' is listed twice, among the training and the "
                                        r"validation cases; remove the duplicates$"):
        from_pairs([(a, a_seg), (b, str(tmp_path / "b_seg.nii.gz"))], validation_pairs=[(a, a_seg)])
    with pytest.raises(DataError, match=re.escape(f"from_pairs: 2 cases list the label {a_seg} with other images ({a}; "
                                                  f"{b}), and so have one id, 'a_seg' (a case's id is its label "
                                                  f"file's name): give each case a label map of its own, or, where "
                                                  f"the images are one case's channels, list them together as its "
                                                  f"image")):
        from_pairs([(a, a_seg), (b, a_seg)], validation_fraction=0)



def test_two_cases_whose_label_names_give_one_id_are_not_called_one_case_listed_twice(tmp_path):
    """lab_0.nii.gz and lab_0.nii are two files, one id: 'listed more than once ... remove the
    duplicates' (seventy-first session's probe)."""
    with pytest.raises(DataError, match=r"different cases have the same id 'lab_0' \(.*lab_0.nii and .*lab_0.nii.gz\): "
                                        r"a case's id is its label file's name without the extension"):
        from_pairs([(tmp_path / "a.nii.gz", tmp_path / "lab_0.nii.gz"),
                    (tmp_path / "b.nii.gz", tmp_path / "lab_0.nii")], validation_fraction=0)


def test_an_id_clash_from_the_folders_joined_in_front_says_so(tmp_path):
    """d1/seg.nii.gz and d2/seg.nii.gz become d1_seg and d2_seg, which a file d1_seg.nii.gz then
    clashes with: the message said an id is the label file's name, which neither d1_seg's is (the
    seventy-fifth session's probe)."""
    (tmp_path / "cases.csv").write_text("image,label\nd1/img.nii.gz,d1/seg.nii.gz\nd2/img.nii.gz,d2/seg.nii.gz\n"
                                        "x.nii.gz,d1_seg.nii.gz\n")
    with pytest.raises(DataError, match=r"different cases have the same id 'd1_seg' .* with its folders joined by "
                                        r"'_' in front where several labels share a name \(d1/seg.nii.gz is d1_seg\)"):
        load_csv(tmp_path / "cases.csv")


def test_csv_rows_with_their_own_ids_but_the_same_files_are_a_data_error(tmp_path):
    (tmp_path / "cases.csv").write_text("id,image,label\nfirst,a.nii.gz,a_seg.nii.gz\nsecond,./a.nii.gz,a_seg.nii.gz\n")
    with pytest.raises(DataError, match="cases 'first' and 'second' list the same files"):
        load_csv(tmp_path / "cases.csv", validation_fraction=0)


def test_csv_row_giving_one_file_as_two_channels_is_a_data_error(tmp_path):
    (tmp_path / "cases.csv").write_text("image_0,image_1,label\na_t1.nii.gz,a_t1.nii.gz,a_seg.nii.gz\n")
    with pytest.raises(DataError, match="case 'a_seg' lists .*a_t1.nii.gz twice"):
        load_csv(tmp_path / "cases.csv", validation_fraction=0)


def test_csv_cases_sharing_a_scan_may_stay_on_one_side_of_the_split(tmp_path):
    path = tmp_path / "cases.csv"  # two raters of scan a: both train, which is no leak
    path.write_text("id,image,label,split\na1,a.nii.gz,a_rater1.nii.gz,train\na2,a.nii.gz,a_rater2.nii.gz,train\n"
                    "b,b.nii.gz,b_seg.nii.gz,validation\n")
    assert ids(load_csv(path).training) == ["a1", "a2"]
    path.write_text(path.read_text().replace("a_rater2.nii.gz,train", "a_rater2.nii.gz,validation"))
    with pytest.raises(DataError, match="a.nii.gz belongs to training case 'a1' and validation case 'a2'"):
        load_csv(path)

# --- pairs ------------------------------------------------------------------------------------


def test_from_pairs_single_and_multichannel(tmp_path):
    single = from_pairs([(tmp_path / "a.nii.gz", tmp_path / "a_seg.nii.gz"),
                         (str(tmp_path / "b.nii.gz"), str(tmp_path / "b_seg.nii.gz"))], validation_fraction=0.5)
    assert single.source_format == "pairs" and single.root == tmp_path
    assert single.channels == {0: "image"} and single.labels == {0: "background", 1: "foreground"}
    assert sorted(ids(single.training + single.validation)) == ["a_seg", "b_seg"]

    multi = from_pairs(
        [(["x/a_t1.nii.gz", "x/a_t2.nii.gz"], "y/a.nii.gz"), (["x/b_t1.nii.gz", "x/b_t2.nii.gz"], "y/b.nii.gz")],
        {0: "background", 2: "tumour"}, root=tmp_path, validation_fraction=0,
    )
    assert multi.channels == {0: "image_0", 1: "image_1"}
    assert multi.training[0] == Case(
        id="a", images=(tmp_path / "x" / "a_t1.nii.gz", tmp_path / "x" / "a_t2.nii.gz"),
        label=tmp_path / "y" / "a.nii.gz"
    )
    assert multi.label_map == {0: 0, 2: 1}


def test_from_pairs_reads_a_monai_datalist_as_its_pairs(tmp_path):
    """MONAI's own form of a case list (``load_decathlon_datalist``'s): dicts naming the files, with
    keys of their own beside them; a multi-channel image is a list."""
    datalist = [{"image": ["x/a_t1.nii.gz", "x/a_t2.nii.gz"], "label": "y/a.nii.gz", "age": 41},
                {"image": ["x/b_t1.nii.gz", "x/b_t2.nii.gz"], "label": "y/b.nii.gz"}]
    as_dicts = from_pairs(datalist, validation_pairs=[{"image": ["x/c_t1.nii.gz", "x/c_t2.nii.gz"],
                                                       "label": "y/c.nii.gz"}], root=tmp_path)
    as_pairs = from_pairs([(e["image"], e["label"]) for e in datalist],
                          validation_pairs=[(["x/c_t1.nii.gz", "x/c_t2.nii.gz"], "y/c.nii.gz")], root=tmp_path)
    assert as_dicts == as_pairs and as_dicts.num_channels == 2 and ids(as_dicts.validation) == ["c"]


def test_from_pairs_validation_pairs_are_the_split(tmp_path):
    manifest = from_pairs([("a.nii.gz", "a_seg.nii.gz"), ("b.nii.gz", "b_seg.nii.gz")],
                          validation_pairs=[("c.nii.gz", "c_seg.nii.gz")], root=tmp_path)
    assert ids(manifest.training) == ["a_seg", "b_seg"] and ids(manifest.validation) == ["c_seg"]
    assert manifest.split == "given (validation_pairs)"


@pytest.mark.parametrize(
    "pairs, fragment",
    [
        ([("a.nii.gz", "a_seg.nii.gz"), (["b0.nii.gz", "b1.nii.gz"], "b_seg.nii.gz")],
         "pairs[1] has 2 image file(s) but pairs[0] has 1"),
        ([("a.nii.gz",)], "pairs[0]"),
        ([("a.nii.gz", None)], "the label must be a path"),
        ([([], "a_seg.nii.gz")], "non-empty list"),
        ([], "no pairs"),
        ("a.nii.gz", "must be a list"),
        ([{"image": "a.nii.gz"}], "pairs[0] is a dict without 'label'; a MONAI datalist entry names its files"),
        # an empty path was the working folder: "a folder, not a NIfTI file" at the checks (ninety-second session)
        ([("", "a_seg.nii.gz")], "pairs[0] is ('', 'a_seg.nii.gz'): the image path is empty; give the file's path"),
        ([(["a.nii.gz", " "], "a_seg.nii.gz")], "pairs[0] is (['a.nii.gz', ' '], 'a_seg.nii.gz'): image channel 1's "
                                                "path is empty"),
        ([{"image": "a.nii.gz", "label": ""}], "pairs[0] is {'image': 'a.nii.gz', 'label': ''}: the label path is "
                                               "empty"),
        # Path("") is Path("."), the same folder: let through until the ninety-third session
        ([(Path(""), "a_seg.nii.gz")], f"pairs[0] is ({Path('.')!r}, 'a_seg.nii.gz'): the image path is '.', the "
                                       "folder itself (Path('') is '.'); give the file's path"),
        ([(["a.nii.gz", "./"], "a_seg.nii.gz")], "pairs[0] is (['a.nii.gz', './'], 'a_seg.nii.gz'): image channel "
                                                 "1's path is './', the folder itself; give the file's path"),
        ([{"image": "a.nii.gz", "label": Path("")}], f"pairs[0] is {{'image': 'a.nii.gz', 'label': {Path('.')!r}}}: "
                                                     "the label path is '.', the folder itself"),
        ([("imagesTr/", "a_seg.nii.gz")], "pairs[0] is ('imagesTr/', 'a_seg.nii.gz'): the image path is 'imagesTr/', "
                                          "a folder; give the file's path"),
        ([("a.nii.gz", Path("labelsTr/.."))], "the label path is 'labelsTr/..', a folder"),
        ([{"img": "a.nii.gz", "seg": "a_seg.nii.gz"}], "pairs[0] is a dict without 'image' and 'label' (its keys: "
                                                        "'img', 'seg')"),
        ([("a.nii.gz", "a_seg.nii.gz"), "b.nii.gz"], "pairs[1] is 'b.nii.gz', a path alone; each entry must be an "
                                                     "(image, label) pair"),
        ([("a.nii.gz", "b.nii.gz", "a_seg.nii.gz")], "pairs[0] is ('a.nii.gz', 'b.nii.gz', 'a_seg.nii.gz'), 3 items "
                                                     "where a pair has 2 (where all but the last are a case's channel "
                                                     "files: (['a.nii.gz', 'b.nii.gz'], 'a_seg.nii.gz'))"),
    ],
)
def test_from_pairs_mistakes(tmp_path, pairs, fragment):
    with pytest.raises(DataError) as raised:
        from_pairs(pairs, root=tmp_path)
    assert fragment in str(raised.value)


def test_a_validation_pair_of_other_channels_is_named_as_given(tmp_path):
    """It was "pair 2", counted on from the pairs, of validation_pairs[0] (ninety-second session's probe)."""
    with pytest.raises(DataError, match=r"^from_pairs: validation_pairs\[0\] has 2 image file\(s\) but pairs\[0\] "
                                        r"has 1; give every case the same channels, in the same order$"):
        from_pairs([("a.nii.gz", "a_seg.nii.gz"), ("b.nii.gz", "b_seg.nii.gz")],
                   validation_pairs=[(["c0.nii.gz", "c1.nii.gz"], "c_seg.nii.gz")], root=tmp_path)


@pytest.mark.parametrize(
    "pairs, labels, said",
    [
        ([("a.nii.gz",)], None, "load_cases: source[0] is ('a.nii.gz',), 1 item where a pair has 2; "),
        ([("a.nii.gz", "a_seg.nii.gz"), (["b0.nii.gz", "b1.nii.gz"], "b_seg.nii.gz")], None,
         "load_cases: source[1] has 2 image file(s) but source[0] has 1; "),
        ([("a.nii.gz", "a_seg.nii.gz")], {"x": "y"}, "load_cases: the labels argument: keys must be label values"),
    ],
    ids=["malformed", "channels", "labels"],
)
def test_pairs_given_to_load_cases_are_refused_in_its_words(tmp_path, monkeypatch, pairs, labels, said):
    """Told "from_pairs: pairs[0] ...", a function and an argument the caller of load_cases(pairs) never named,
    until the ninety-ninth session."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataError) as raised:
        load_cases(pairs, labels=labels)
    assert str(raised.value).startswith(said), raised.value


# --- load_cases dispatch ----------------------------------------------------------------------


def test_load_cases_dispatches_on_the_source(tmp_path):
    msd = write_dataset_json(tmp_path / "msd", {"labels": LABELS, "training": msd_entries(3)})
    nnunet = write_nnunet(tmp_path / "nnunet")
    (tmp_path / "cases.csv").write_text("image,label\na.nii.gz,a_seg.nii.gz\nb.nii.gz,b_seg.nii.gz\n")

    assert load_cases(msd).source_format == "msd"
    assert load_cases(msd.parent).source_format == "msd"
    assert load_cases(nnunet).source_format == "nnunet"
    assert load_cases(nnunet / "dataset.json").source_format == "nnunet"
    assert load_cases(str(tmp_path / "cases.csv")).source_format == "csv"
    # pairs, made by load_cases (its advice names its keywords): "pairs" until the hundredth session
    assert load_cases([("a.nii.gz", "a_seg.nii.gz"), ("b.nii.gz", "b_seg.nii.gz")]).source_format == "load_cases"


def test_load_cases_passes_split_and_binarize_settings(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": {"0": "bg", "1": "a", "2": "b"}, "training": msd_entries(6)})
    manifest = load_cases(path, num_folds=3, fold=1, seed=2, binarize=True)
    assert manifest.split == "fold 1 of 3 (seed 2)" and len(manifest.validation) == 2
    assert manifest.labels == {0: "background", 1: "foreground"}


def test_json_with_a_training_list_is_msd_even_with_nnunet_keys(tmp_path):
    entry = {"image": ["./imagesTr/a_0000.nii.gz"], "label": "./labelsTr/a.nii.gz"}
    path = write_dataset_json(
        tmp_path, {"labels": LABELS, "channel_names": {"0": "CT"}, "file_ending": ".nii.gz", "training": [entry]}
    )
    assert load_cases(path).source_format == "msd"


@pytest.mark.parametrize("name", ["scan.nii.gz", "missing_folder", "empty_folder"])
def test_load_cases_unknown_source_lists_the_accepted_formats(tmp_path, name):
    source = tmp_path / name
    if name == "scan.nii.gz":
        source.write_bytes(b"\0")
    elif name == "empty_folder":
        source.mkdir()
    with pytest.raises(DataError) as raised:
        load_cases(source)
    message = str(raised.value)
    assert str(source) in message and "MSD dataset.json" in message and "nnU-Net" in message and ".csv" in message


@pytest.mark.parametrize("channels", [1, 2])
def test_a_folder_of_images_and_labels_without_dataset_json_is_told_the_csv_that_lists_it(tmp_path, channels):
    """The usual way to arrive with a folder nothing describes: the files collected, no dataset.json.
    The error shows the CSV that reads it, from the folder's own first case, and that CSV loads."""
    image, label = np.zeros((4, 4, 4), np.float32), np.zeros((4, 4, 4), np.uint8)
    for case in ("case_1", "case_10", "case_1_b"):  # neither case_10's nor case_1_b's images are case_1's
        names = [f"{case}.nii.gz"] if channels == 1 else [f"{case}_{k:04d}.nii.gz" for k in range(channels)]
        for name in names:
            (tmp_path / "imagesTr").mkdir(exist_ok=True)
            nib.save(nib.Nifti1Image(image, np.eye(4)), tmp_path / "imagesTr" / name)
        (tmp_path / "labelsTr").mkdir(exist_ok=True)
        nib.save(nib.Nifti1Image(label, np.eye(4)), tmp_path / "labelsTr" / f"{case}.nii.gz")
    with pytest.raises(DataError) as raised:
        load_cases(tmp_path)
    message = str(raised.value)
    header, row = (("image,label", "imagesTr/case_1.nii.gz,labelsTr/case_1.nii.gz") if channels == 1 else
                   ("image_0,image_1,label",
                    "imagesTr/case_1_0000.nii.gz,imagesTr/case_1_0001.nii.gz,labelsTr/case_1.nii.gz"))
    assert message.startswith(f"{tmp_path}: folder without dataset.json; its imagesTr/ ({3 * channels} NIfTI files) "
                              f"and labelsTr/ (3) can be listed in a CSV there, given in its place (data.dataset): "
                              f"the header "
                              f"{header} and one line per case, such as {row} (paths relative to the CSV)")
    assert "data.labels declares them" in message and "nnU-Net v2 dataset.json" in message
    rows = [row, row.replace("case_1", "case_10"), row.replace("case_1", "case_1_b")]
    (tmp_path / "cases.csv").write_text("\n".join([header, *rows]) + "\n")
    manifest = load_cases(tmp_path / "cases.csv", validation_fraction=0.5)
    assert len(manifest.training) + len(manifest.validation) == 3 and manifest.num_channels == channels
    # the folder given again, with the CSV now there: that CSV is named (it was told to write one)
    with pytest.raises(DataError, match=rf"folder without dataset.json; it holds cases.csv: give the CSV itself as "
                                        rf"data.dataset \({re.escape(str(tmp_path / 'cases.csv'))}\)"):
        load_cases(tmp_path)


def test_a_folder_without_dataset_json_counts_and_shows_its_scans_not_their_macos_resource_forks(tmp_path):
    """The Decathlon's archives hold a "._<case>.nii.gz" beside every scan: such a folder's error counted
    them as NIfTI files (12 of 6 cases) and showed the CSV line "imagesTr/._case_0.nii.gz,labelsTr/._case_0..."
    (ninety-seventh session's probe), a line whose files are not scans."""
    for case in ("case_0", "case_1"):
        for folder, dtype in (("imagesTr", np.float32), ("labelsTr", np.uint8)):
            array = np.zeros((4, 4, 4), dtype)
            (tmp_path / folder).mkdir(exist_ok=True)
            nib.save(nib.Nifti1Image(array, np.eye(4)), tmp_path / folder / f"{case}.nii.gz")
            (tmp_path / folder / f"._{case}.nii.gz").write_bytes(b"\x00\x05\x16\x07" + b"\x00" * 60)
    (tmp_path / "._cases.csv").write_bytes(b"\x00\x05\x16\x07" + b"\x00" * 60)  # a CSV's fork: not a CSV to name
    with pytest.raises(DataError, match=re.escape(
            "its imagesTr/ (2 NIfTI files) and labelsTr/ (2) can be listed in a CSV there, given in its place "
            "(data.dataset): the header image,label and one line per case, such as "
            "imagesTr/case_0.nii.gz,labelsTr/case_0.nii.gz (paths")):
        load_cases(tmp_path)


def test_a_folder_of_several_csv_files_is_told_each_and_to_name_one(tmp_path):
    """Given a folder holding notes.csv and cases.csv, the error told to give notes.csv, the first by
    name (ninety-second session's probe): which one lists the cases is the user's to say."""
    for name in ("notes.csv", "cases.csv", "test.csv"):
        (tmp_path / name).write_text("image,label\n")
    with pytest.raises(DataError) as raised:
        load_cases(tmp_path)
    assert str(raised.value) == (f"{tmp_path}: folder without dataset.json; it holds 3 CSV files (cases.csv, notes.csv, "
                                 f"test.csv): name the one that lists the cases, with its image and label columns, as "
                                 f"data.dataset ({tmp_path}/<name>.csv), or write an MSD or nnU-Net v2 dataset.json "
                                 f"there (docs/data.md)")
    for index in range(9):  # the first ten named, and how many more
        (tmp_path / f"more_{index}.csv").write_text("image,label\n")
    with pytest.raises(DataError, match=r"it holds 12 CSV files \(cases.csv, more_0.csv, .*, more_8.csv, and 2 more\): "
                                        r"name the one"):
        load_cases(tmp_path)


@pytest.mark.parametrize("part", ["imagesTr", "labelsTr"])
def test_a_folder_of_a_described_dataset_is_told_the_datasets_own_folder(tmp_path, part):
    """``check Dataset001/imagesTr`` was told the accepted forms alone, not that the folder above it,
    whose dataset.json lists it, is the one to give (a user-journey probe on an nnU-Net dataset)."""
    write_nnunet(tmp_path)
    with pytest.raises(DataError, match=rf"{re.escape(str(tmp_path / part))}: folder without dataset.json; it lies in "
                                        rf"{re.escape(str(tmp_path))}, whose dataset.json describes the dataset: give "
                                        rf"that folder \(or its dataset.json\) as data.dataset"):
        load_cases(tmp_path / part)


def test_load_cases_refuses_a_labels_argument_for_json_sources(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(2)})
    with pytest.raises(DataError, match="declared by dataset.json"):
        load_cases(path, labels=["background", "x"])


# --- label values: remap and binarize ---------------------------------------------------------

BRATS_LABELS = {"0": "background", "1": "edema", "2": "non-enhancing", "4": "enhancing"}


def test_declared_values_that_are_not_0_to_c_minus_1_are_remapped(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": BRATS_LABELS, "training": msd_entries(2)})
    manifest = load_msd(path)

    assert manifest.labels == {0: "background", 1: "edema", 2: "non-enhancing", 3: "enhancing"}
    assert manifest.label_values == [0, 1, 2, 4]
    assert manifest.label_map == {0: 0, 1: 1, 2: 2, 4: 3}
    assert manifest.num_classes == 4


def test_identity_labels_have_no_label_map(tmp_path):
    manifest = load_msd(write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(2)}))
    assert manifest.label_values == [0, 1] and manifest.label_map is None
    direct = Manifest(root=tmp_path, labels={0: "bg", 1: "a", 2: "b"}, channels={0: "image"}, training=[], validation=[])
    assert direct.label_values == [0, 1, 2] and direct.label_map is None and direct.split == "given"


def test_binarize_merges_every_foreground_value(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": BRATS_LABELS, "training": msd_entries(2)})
    manifest = load_msd(path, binarize=True)

    assert manifest.labels == {0: "background", 1: "foreground"} and manifest.num_classes == 2
    assert manifest.label_values == [0, 1, 2, 4] and manifest.binarized
    assert manifest.label_map == {0: 0, 1: 1, 2: 1, 4: 1}


def test_binarize_of_an_already_binary_dataset_needs_no_map(tmp_path):
    manifest = load_msd(write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(2)}), binarize=True)
    assert manifest.label_map is None and manifest.labels == {0: "background", 1: "foreground"}


def test_label_map_works_with_monai_map_label_value():
    """How preprocessing is meant to apply it: raw BraTS values in, class indices out."""
    from monai.transforms import MapLabelValued

    manifest = Manifest(root=Path("."), labels={0: "bg", 1: "ed", 2: "ne", 3: "en"}, channels={0: "image"},
                        training=[], validation=[], label_values=[0, 1, 2, 4])
    mapping = manifest.label_map
    remap = MapLabelValued("label", orig_labels=list(mapping), target_labels=list(mapping.values()))
    raw = np.array([[[0, 1, 2, 4]]], np.uint8)
    np.testing.assert_array_equal(remap({"label": raw})["label"], [[[0, 1, 2, 3]]])


@pytest.mark.parametrize(
    "labels, fragment",
    [
        ({"background": 0, "a": 1, "b": 1}, "value(s) [1] declared for more than one class"),
        ({"0": "background"}, "only the background is declared"),
        ({"zero": "background"}, "keys must be label values"),
        # below: "keys must be label values like "0" ... (or names mapped to values)", of names mapped to values
        ({"background": "0", "edema": "1"}, """its values are text ({"background": "0", "edema": "1"}); write """
                                            """each class's value as a number, as nnU-Net v2 does: {"background": """
                                            """0, "edema": 1}"""),
        ({}, "missing or empty"),
        # below: "background must be value 0" while 0 was declared, before the twenty-seventh session
        ({"background": -1, "a": 0, "b": 1}, "label value(s) [-1] are negative"),
        ({"0": "background", "-1": "unlabelled", "1": "a"}, "label value(s) [-1] are negative"),
        # below: accepted, the metrics of one class overwriting the other's (val/dice_<name>)
        ({"0": "background", "1": "kidney", "2": "kidney"}, "class name(s) ['kidney'] are given to more than one"),
        ({"0": "background", "1": " ", "2": "cyst"}, "value(s) [1] have an empty class name"),
        # below: a class called "None" or "5" before the twenty-ninth session
        ({"0": "background", "1": None, "2": "cyst"}, "value(s) [1] have no class name ({1: None}); a name is text"),
        ({"0": "background", "1": 5}, "value(s) [1] have no class name ({1: 5})"),
        # below: class 256 stored as 0 in the uint8 cache, class 300 as 44, before the thirty-first session
        ({str(v): f"region_{v}" for v in range(301)}, "301 classes declared, but at most 256"),
    ],
)
def test_malformed_label_declarations(tmp_path, labels, fragment):
    path = write_dataset_json(tmp_path, {"labels": labels, "training": msd_entries(2)})
    with pytest.raises(DataError, match=re.escape(fragment)) as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


def test_up_to_256_classes_train_and_any_number_binarized(tmp_path):
    many = {str(v): f"region_{v}" for v in range(1001)}  # a brain parcellation's values
    assert load_msd(write_dataset_json(tmp_path, {"labels": many, "training": msd_entries(2)}),
                    binarize=True).num_classes == 2
    most = {str(v): f"region_{v}" for v in range(256)}
    assert load_msd(write_dataset_json(tmp_path, {"labels": most, "training": msd_entries(2)})).num_classes == 256

def test_manifest_rejects_label_values_that_do_not_match_the_classes(tmp_path):
    with pytest.raises(ValueError, match="binarized=True"):
        Manifest(root=tmp_path, labels={0: "bg", 1: "a"}, channels={0: "image"}, training=[], validation=[],
                 label_values=[0, 1, 2])


# --- splits -----------------------------------------------------------------------------------


def make_cases(count):
    return [Case(id=f"case_{i:02d}", images=(Path(f"/d/{i}.nii.gz"),), label=Path(f"/d/{i}_seg.nii.gz"))
            for i in range(count)]


def test_k_fold_split_is_disjoint_covering_deterministic_and_balanced():
    cases = make_cases(11)
    held_out = []
    for fold in range(4):
        training, validation, how = SplitSettings(num_folds=4, fold=fold, seed=5).split(cases)
        again = SplitSettings(num_folds=4, fold=fold, seed=5).split(cases)
        assert (training, validation) == again[:2]
        assert set(ids(training)).isdisjoint(ids(validation))
        assert set(ids(training)) | set(ids(validation)) == set(ids(cases))
        assert ids(training) == sorted(ids(training))  # source order kept
        assert how == f"fold {fold} of 4 (seed 5)"
        held_out += ids(validation)
    assert sorted(held_out) == ids(cases), "every case is validated on in exactly one fold"
    sizes = [len(SplitSettings(num_folds=4, fold=f, seed=5).split(cases)[1]) for f in range(4)]
    assert sorted(sizes) == [2, 3, 3, 3]
    held_out_by = [SplitSettings(num_folds=4, fold=0, seed=seed).split(cases)[1] for seed in (5, 6)]
    assert held_out_by[0] != held_out_by[1]


def test_the_split_of_distinct_images_is_the_one_of_before_so_that_resumes_still_match():
    """A checkpoint's split.json is compared on resume: keeping raters' cases together (hundred-and-fifth session)
    must not move one case of a dataset whose images are all distinct."""
    cases = make_cases(11)
    assert ids(SplitSettings(validation_fraction=0.3, seed=3).split(cases)[1]) == ["case_00", "case_07", "case_09"]
    assert ids(SplitSettings(num_folds=4, fold=1, seed=5).split(cases)[1]) == ["case_02", "case_03", "case_04"]
    for count, seed in ((2, 0), (7, 1), (23, 4)):  # the permutation of the cases, as before
        order = np.random.default_rng(seed).permutation(count)
        cases = make_cases(count)
        held = sorted(order[: min(max(round(0.2 * count), 1), count - 1)])
        assert ids(SplitSettings(seed=seed).split(cases)[1]) == [cases[i].id for i in held]
        held = sorted(np.array_split(order, 2)[1])
        assert ids(SplitSettings(num_folds=2, fold=1, seed=seed).split(cases)[1]) == [cases[i].id for i in held]


def two_raters_pairs(scans):
    """Pairs of each scan with two raters' labels: (s0, s0_a), (s0, s0_b), (s1, s1_a), ..."""
    return [(f"s{i}.nii.gz", f"s{i}_{rater}.nii.gz") for i in range(scans) for rater in "ab"]


def sides_of_scans(manifest):
    return {side: {case.images[0].name for case in cases}
            for side, cases in (("training", manifest.training), ("validation", manifest.validation))}


@pytest.mark.parametrize("seed", range(4))
def test_cases_sharing_an_image_stay_on_one_side_of_the_seeded_split(tmp_path, seed):
    """Seeds 0 to 3 put one scan's raters on both sides, which was refused as a leak: no seed kept them together."""
    manifest = from_pairs(two_raters_pairs(5), root=tmp_path, validation_fraction=0.2, seed=seed)
    sides = sides_of_scans(manifest)
    assert sides["training"].isdisjoint(sides["validation"]) and len(sides["validation"]) == 1
    assert len(manifest.validation) == 2  # the fraction counts scans: one of five, with its two raters
    held_out = []
    for fold in range(3):
        manifest = from_pairs(two_raters_pairs(5), root=tmp_path, num_folds=3, fold=fold, seed=seed)
        sides = sides_of_scans(manifest)
        assert sides["training"].isdisjoint(sides["validation"])
        held_out += ids(manifest.validation)
    assert sorted(held_out) == sorted(f"s{i}_{rater}" for i in range(5) for rater in "ab")


def test_a_given_split_that_puts_one_image_on_both_sides_is_refused_naming_it_and_both_cases(tmp_path):
    """The seeded splits keep raters' cases together; a split the source gives is the user's (a dataset.json's
    'validation' list, validation_pairs; a CSV 'split' column above): one that splits them is refused, once."""
    entries = [{"image": f"./s{i}.nii.gz", "label": f"./s{i}_{rater}.nii.gz"} for i in range(2) for rater in "ab"]
    path = write_dataset_json(tmp_path, {"labels": LABELS, "modality": {"0": "CT"}, "training": entries[1:],
                                         "validation": entries[:1]})
    both_sides = re.escape(f"{tmp_path / 's0.nii.gz'} belongs to training case 's0_b' and validation case 's0_a', "
                           f"so validation would score a scan the network trained on")
    with pytest.raises(DataError, match=f"^{re.escape(str(path))}: {both_sides}"):
        load_msd(path)
    with pytest.raises(DataError, match=f"^from_pairs: {both_sides}"):
        from_pairs(two_raters_pairs(2)[1:], validation_pairs=two_raters_pairs(2)[:1], root=tmp_path)


def test_cases_sharing_a_channel_stay_together_and_folds_count_the_distinct_images(tmp_path):
    pairs = [(["a_t1.nii.gz", "a_t2.nii.gz"], "a_1.nii.gz"), (["b_t1.nii.gz", "a_t2.nii.gz"], "b_1.nii.gz"),
             (["c_t1.nii.gz", "c_t2.nii.gz"], "c_1.nii.gz")]
    for seed in range(6):
        validation = ids(from_pairs(pairs, root=tmp_path, validation_fraction=0.5, seed=seed).validation)
        assert validation in (["a_1", "b_1"], ["c_1"])
    # groups, not images: the five distinct image files were "2 distinct image(s)" (hundred-and-fifth session)
    with pytest.raises(DataError, match=re.escape("num_folds=3 but there are only 2 group(s) of cases among 3 (cases "
                                                  "that share an image file are one group and stay on one side of "
                                                  "the split); use at most 2 folds")):
        from_pairs(pairs, root=tmp_path, num_folds=3)


@pytest.mark.parametrize("pairs", [[([f"s{i}.nii.gz", "atlas.nii.gz"], f"l{i}.nii.gz") for i in range(10)],
                                   [("s.nii.gz", f"s_{rater}.nii.gz") for rater in "abc"]],
                         ids=["an atlas channel given with every scan", "three raters of one scan"])
def test_cases_that_all_share_an_image_are_told_to_add_cases_not_to_hold_some_out(tmp_path, pairs):
    """All the cases one group, which no seeded split cuts: the fraction held nothing out, and train was told to
    "hold cases out (data.validation_fraction > 0, ...)", a fraction already 0.2, and k-fold to "use at most 1
    folds", which num_folds refuses (hundred-and-fifth session)."""
    from accelerated_seg.data.splits import ways_to_validation_cases

    manifest = from_pairs(pairs, root=tmp_path, validation_fraction=0.2)
    shared = "atlas.nii.gz" if len(pairs) == 10 else "s.nii.gz"
    assert manifest.validation == [] and len(manifest.training) == len(pairs)
    assert ways_to_validation_cases(manifest, "data.validation_fraction", "data.num_folds") == (
        f"add cases: the {len(pairs)} cases share image files ({tmp_path / shared}, ...), and cases that share an "
        f"image file are one group and stay on one side of the split; a split needs 2 or more cases with images of "
        f"their own")
    with pytest.raises(DataError, match=re.escape(f"num_folds=2 but there are only 1 group(s) of cases among "
                                                  f"{len(pairs)} (cases that share an image file are one group and "
                                                  f"stay on one side of the split); add cases: folds need 2 or more "
                                                  f"cases with images of their own")):
        from_pairs(pairs, root=tmp_path, num_folds=2)


@pytest.mark.parametrize(
    "settings, fragment",
    [
        (dict(num_folds=5, fold=5), "data.fold=5 is out of range for data.num_folds=5; use 0..4"),
        (dict(num_folds=5, fold=-1), "data.fold=-1 is out of range"),
        (dict(num_folds=1), "data.num_folds=1"),
        (dict(num_folds=0, fold=2), "data.fold=2 is set but data.num_folds=0"),
        (dict(num_folds=20), "data.num_folds=20 but there are only 11 case(s)"),
        (dict(validation_fraction=1.0), "data.validation_fraction must be in [0, 1)"),
    ],
)
def test_bad_split_settings_name_the_setting(settings, fragment):
    with pytest.raises(DataError, match=re.escape(fragment)):
        SplitSettings(**settings).split(make_cases(11))


def test_fold_out_of_range_is_reported_by_every_loader(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(6)})
    with pytest.raises(DataError, match=r"^fold=3 is out of range for num_folds=3"):
        load_cases(path, num_folds=3, fold=3)
    with pytest.raises(DataError, match=r"^data\.fold=3 is out of range for data\.num_folds=3"):
        read_by_the_config(path, num_folds=3, fold=3)


def test_given_validation_list_wins_over_folds_and_says_so(tmp_path):
    entries = msd_entries(6)
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries[:4], "validation": entries[4:]})
    manifest = read_by_the_config(path, num_folds=2, fold=1)
    assert ids(manifest.validation) == ["case_004", "case_005"]
    assert manifest.split == "given (dataset.json 'validation'; data.num_folds=2 not used)"
    # and training says so on the console (only run_info.json did before the thirtieth session)
    assert "every data.fold trains on that one split" in unused_split_settings_warning(manifest)


def test_a_split_seed_the_datasets_own_split_overrides_is_said(tmp_path):
    """--data.split_seed=1 over a dataset.json with a validation list trained on that list, bit for bit
    as seed 0, without a word (a reproducibility probe, seventy-seventh session)."""
    entries = msd_entries(6)
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries[:4], "validation": entries[4:]})
    manifest = read_by_the_config(path, seed=1)
    assert manifest.split == "given (dataset.json 'validation'; data.split_seed=1 not used)"
    assert unused_split_settings_warning(manifest) == (
        "warning: the split is given (dataset.json 'validation'; data.split_seed=1 not used): the dataset gives its "
        "own, so data.split_seed chooses nothing. For a split of its seed, give the dataset without it (the MSD "
        "'validation' list or 'fold' keys, the CSV 'split' column, nnU-Net's splits_final.json)")
    # A validation fraction set (not the default's) went unsaid until the eighty-fourth session
    fraction = read_by_the_config(path, validation_fraction=0.5)
    assert fraction.split == "given (dataset.json 'validation'; data.validation_fraction=0.5 not used)"
    assert "data.validation_fraction holds nothing out" in unused_split_settings_warning(fraction)
    assert read_by_the_config(path, validation_fraction=0.2).split == "given (dataset.json 'validation')"
    both = read_by_the_config(path, num_folds=2, fold=1, seed=3)
    assert both.split == "given (dataset.json 'validation'; data.num_folds=2 and data.split_seed=3 not used)"
    assert "every data.fold trains on that one split" in unused_split_settings_warning(both)
    # A seed does not lift the refusal of a fold without folds (it did for a day: the review's find)
    with pytest.raises(DataError, match=r"data.fold=1 is set, but the dataset gives its own split"):
        read_by_the_config(path, fold=1, seed=7)
    # Folds the source gives ('fold' keys here; splits_final.json alike): the seed chose nothing there either
    keyed = [{**entry, "fold": index % 2} for index, entry in enumerate(entries)]
    folds = write_dataset_json(tmp_path / "keys", {"labels": LABELS, "training": keyed})
    split = read_by_the_config(folds, fold=1, seed=7)
    assert split.split == "given (dataset.json 'fold' keys: fold 1 of 2; data.split_seed=7 not used)"
    assert read_by_the_config(folds, fold=1, validation_fraction=0.1).split == (
        "given (dataset.json 'fold' keys: fold 1 of 2; data.validation_fraction=0.1 not used)")
    assert is_one_fold_of_several(split)
    assert "data.split_seed chooses nothing" in unused_split_settings_warning(split)


def test_a_fold_without_folds_is_refused_where_the_dataset_gives_its_split_too(tmp_path):
    """--data.fold=1 over the demo's dataset.json trained on its given split without a word (the
    sixty-eighth session's docs probe); without a split of its own it was refused already."""
    entries = msd_entries(6)
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": entries[:4], "validation": entries[4:]})
    refusal = ("data.fold=1 is set, but the dataset gives its own split (dataset.json 'validation') and "
               "data.num_folds=0: folds split a dataset")
    with pytest.raises(DataError, match=re.escape(refusal)):
        read_by_the_config(path, fold=1)
    assert read_by_the_config(path).split == "given (dataset.json 'validation')"


def test_fraction_split_is_described(tmp_path):
    manifest = load_msd(write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(5)}), seed=3)
    assert manifest.split == "fraction 0.2 (seed 3)"
    assert unused_split_settings_warning(manifest) is None


def test_what_the_split_decides_is_read_from_its_origin_not_from_its_words(tmp_path):
    """Whether a split was given, by what, and which settings it left unused were matched in Manifest.split's
    words (``split.startswith("given")``, "data.num_folds=" in split) until the ninety-third session: rewording a
    description changed the warnings and the advice. The words are only said now; SplitOrigin decides."""
    from dataclasses import replace

    from accelerated_seg.data.cases import SplitOrigin
    from accelerated_seg.data.splits import ways_to_validation_cases
    from accelerated_seg.model_folders import Names

    entries = msd_entries(6)
    listed = load_msd(write_dataset_json(tmp_path, {"labels": LABELS, "training": entries[:4],
                                                    "validation": entries[4:]}), num_folds=2, seed=3)
    assert listed.split_origin == SplitOrigin("dataset", unused_settings=("num_folds", "split_seed"))
    fraction = load_msd(write_dataset_json(tmp_path / "all", {"labels": LABELS, "training": entries}))
    assert fraction.split_origin == SplitOrigin("fraction") and not fraction.split_origin.given
    assert load_msd(tmp_path / "all" / "dataset.json", num_folds=3, fold=2).split_origin == SplitOrigin("folds", 3)
    # reworded, each still decides as it was made
    reworded = replace(listed, split="the file's own list (num_folds unused)")
    assert unused_split_settings_warning(reworded).startswith(
        "warning: the split is the file's own list (num_folds unused): the dataset gives its own, so every fold "
        "trains on that one split")  # load_msd's keyword: read by it, not by the config (SplitOrigin.by_the_config)
    assert ways_to_validation_cases(reworded, "f", "n").startswith("list validation cases in the dataset's own split")
    given_sounding = replace(fraction, split="given by data.validation_fraction=0.2 of seed 0")
    assert unused_split_settings_warning(given_sounding) is None
    assert ways_to_validation_cases(given_sounding, "f", "n").startswith("hold cases out (load_cases(")  # no config's
    by_the_config = replace(given_sounding, split_origin=replace(given_sounding.split_origin, by_the_config=True))
    assert ways_to_validation_cases(by_the_config, "f", "n") == "hold cases out (f > 0, n, or the dataset's own split)"
    # in the names its reader was given (SplitOrigin.names), as its split and warning: load_cases(..., names=Names())
    # was told of load_cases' keywords, and pairs read with names of their maker's, until the ninety-fifth session
    config_words = replace(given_sounding, split_origin=replace(given_sounding.split_origin, names=Names()))
    assert ways_to_validation_cases(config_words, "f", "n") == "hold cases out (f > 0, n, or the dataset's own split)"
    pairs = replace(config_words, source_format="pairs")
    assert ways_to_validation_cases(pairs, "f", "n").startswith(
        "hold cases out (data.validation_fraction > 0, data.num_folds, or validation_pairs=")
    # pairs read by load_cases, one of them: told of from_pairs as if they had called it (until the hundredth session)
    read = replace(given_sounding, source_format="load_cases", training=given_sounding.training[:1])
    assert ways_to_validation_cases(read, "f", "n") == (
        "add cases: one case cannot be both trained on and held out, or list the held-out pairs as from_pairs(pairs, "
        "validation_pairs=[(image, label), ...]) in place of load_cases")
    from accelerated_seg.data.manifest_named import pairs_checked
    from accelerated_seg.estimator_predict_checks import held_out_alone_warning

    assert "held out by its split (given by data.validation_fraction" in held_out_alone_warning(given_sounding)
    pairs = replace(given_sounding, source_format="from_files", split="given (validation_pairs)")
    assert pairs_checked(pairs, pairs.training) == "the pairs given to Dataset.from_files"  # none were listed


def test_a_monai_datalist_without_labels_takes_data_labels_and_says_so_when_it_has_none(tmp_path):
    """A MONAI datalist ({"training": [...], "validation": [...]}) declares no classes: "declare the
    classes" sent its user to data.labels, which was then refused as "declared by dataset.json"
    (seventy-sixth session's probe of a MONAI user's move)."""
    datalist = write_dataset_json(tmp_path / "monai", {"training": msd_entries(3), "validation": msd_entries(4)[3:]})
    with pytest.raises(DataError, match=r'"labels": missing or empty; declare the classes there .* or, for a MONAI '
                                        r"datalist without them, with data.labels"):
        load_cases(datalist)
    manifest = load_cases(datalist, labels={0: "background", 1: "spleen"})
    assert manifest.labels == {0: "background", 1: "spleen"} and len(manifest.validation) == 1
    assert manifest.source_format == "datalist"  # an undeclared value sends its user to data.labels
    declared = write_dataset_json(tmp_path / "msd", {"labels": LABELS, "training": msd_entries(3)})
    with pytest.raises(DataError, match="labels are declared by dataset.json; drop the labels argument"):
        load_cases(declared, labels={0: "background", 1: "spleen"})


def test_fold_keys_of_a_datalists_entries_make_the_split_as_monais_datafold_read(tmp_path):
    """Entries with "fold" keys (MONAI's datafold_read, Auto3DSeg's datalists) were ignored: a fraction
    split trained on the cases the file marks for validation, without a word."""
    entries = [{**entry, "fold": index % 3} for index, entry in enumerate(msd_entries(7))]
    path = write_dataset_json(tmp_path / "folds", {"labels": LABELS, "training": entries})
    manifest = load_cases(path, fold=1)
    assert ids(manifest.validation) == ["case_001", "case_004"] and len(manifest.training) == 5
    assert manifest.split == "given (dataset.json 'fold' keys: fold 1 of 3)"
    assert is_one_fold_of_several(manifest)  # a cross-validation: every fold's median spacing alike
    assert ids(load_cases(path, num_folds=3).validation) == ["case_000", "case_003", "case_006"]
    with pytest.raises(DataError, match=r"its 'fold' keys make 3 fold\(s\) but num_folds=5; set num_folds "
                                        r"to 0 or 3"):
        load_cases(path, num_folds=5)
    with pytest.raises(DataError, match=r"^fold=3 is out of range: .*'fold' keys make 3 fold\(s\); use 0..2"):
        load_cases(path, fold=3)
    gap = write_dataset_json(tmp_path / "gap", {"labels": LABELS, "training": [
        {**entry, "fold": 2 * (index % 2)} for index, entry in enumerate(msd_entries(4))]})
    with pytest.raises(DataError, match=r"'fold' keys run to 2 but no entry has fold 1: number the folds 0..1"):
        load_cases(gap)
    # keys that make no split of folds, or beside the file's own list (without data.num_folds; below): the file
    # splits as before, said where the keys went unused
    for name, training, extra, split in (
            ("partly", [*entries[:2], msd_entries(3)[2], *entries[3:]], {}, "fraction 0.2 (seed 0)"),
            ("words", [{**entry, "fold": "train"} for entry in entries], {}, "fraction 0.2 (seed 0)"),
            ("one_fold", [{**entry, "fold": 0} for entry in entries], {}, "fraction 0.2 (seed 0)"),
            ("listed", entries, {"validation": msd_entries(9)[8:]},
             "given (dataset.json 'validation'; the 'fold' keys (3 folds) not used)")):
        path = write_dataset_json(tmp_path / name, {"labels": LABELS, "training": training, **extra})
        assert load_cases(path).split == split, name


def test_fold_keys_beside_a_validation_list_are_chosen_by_num_folds_and_a_lone_fold_names_both(tmp_path):
    """A MONAI datalist whose training entries carry "fold" keys and which has a "validation" list too: --data.fold=1
    was refused as "folds split a dataset that has none of its own; remove data.fold" (it has them), and without it
    the keys went unused without a word. data.num_folds now picks the keys (as MONAI's datafold_read, Auto3DSeg
    reading the list only where its validation_key names it), 0 the list, and a data.fold alone names both."""
    entries = [{**entry, "fold": index % 3} for index, entry in enumerate(msd_entries(7))]
    path = tmp_path / "datalist.json"  # named as MONAI's tutorials name theirs: the messages name the file given
    path.write_text(json.dumps({"training": entries, "validation": msd_entries(9)[7:]}))
    labels = {0: "background", 1: "spleen"}
    refusal = (f"data.fold=1 is set, but {path} gives two splits: its training entries' 'fold' keys (3 folds) and "
               f"its 'validation' list (2 case(s)); set data.num_folds=3 to validate on fold 1 of the 'fold' keys "
               f"(the 'validation' list is then left out), or remove data.fold to validate on the 'validation' list")
    with pytest.raises(DataError, match=f"^{re.escape(refusal)}$"):
        read_by_the_config(path, labels=labels, fold=1)
    with pytest.raises(DataError, match=r"data.fold=3 is out of range: .*datalist.json's 'fold' keys make 3 fold\(s\); "
                                        r"use 0..2 with data.num_folds=3, or remove data.fold to validate on its"):
        read_by_the_config(path, labels=labels, fold=3)
    keyed = read_by_the_config(path, labels=labels, num_folds=3, fold=1)
    assert ids(keyed.validation) == ["case_001", "case_004"] and len(keyed.training) == 5
    assert keyed.split == "given (datalist.json 'fold' keys: fold 1 of 3; the 'validation' list (2 case(s)) not used)"
    assert is_one_fold_of_several(keyed)  # every fold resamples alike, as with the keys alone
    assert "the cases of its 'validation' list are neither trained nor validated on. To validate on that list " \
           "instead, set data.num_folds=0 and remove data.fold" in unused_split_settings_warning(keyed)
    listed = read_by_the_config(path, labels=labels)  # the file's own list, as before, now said with the keys it leaves
    assert ids(listed.validation) == ["case_007", "case_008"] and len(listed.training) == 7
    assert listed.split == "given (datalist.json 'validation'; the 'fold' keys (3 folds) not used)"
    assert "To validate on fold k of those keys instead, set data.num_folds=3 and data.fold=k" in \
        unused_split_settings_warning(listed)
    with pytest.raises(DataError, match=r"its 'fold' keys make 3 fold\(s\) but data.num_folds=5; set data.num_folds "
                                        r"to 3 to use them \(0 validates on its 'validation' list\)"):
        read_by_the_config(path, labels=labels, num_folds=5)


def test_fold_keys_with_a_gap_beside_a_validation_list_are_not_offered_as_a_split(tmp_path):
    """Keys of folds 0 and 2 alone make no folds: beside a "validation" list that list is the split, as before,
    and the split no longer says the keys are unused with a warning to set data.num_folds=3, which the gap then
    refused (a review of the ninetieth session); a data.fold is told of the gap."""
    entries = [{**entry, "fold": 2 * (index % 2)} for index, entry in enumerate(msd_entries(6))]
    path = tmp_path / "datalist.json"
    path.write_text(json.dumps({"training": entries, "validation": msd_entries(8)[6:]}))
    labels = {0: "background", 1: "spleen"}
    listed = load_cases(path, labels=labels)
    assert ids(listed.validation) == ["case_006", "case_007"] and listed.split == "given (datalist.json 'validation')"
    assert unused_split_settings_warning(listed) is None
    for settings in ({"fold": 1}, {"num_folds": 3, "fold": 1}):
        with pytest.raises(DataError, match=r"'fold' keys run to 2 but no entry has fold 1: number the folds 0..1"):
            load_cases(path, labels=labels, **settings)


def test_the_split_names_the_json_file_by_its_name_not_dataset_json(tmp_path):
    """Manifest.split (printed by training and check, saved in run_info.json) said "dataset.json" of every JSON: a
    MONAI datalist.json's fold was "given (dataset.json 'fold' keys: fold 1 of 3; ...)", a file the run never read
    (a review of the ninetieth session). It names the file given; a dataset.json, or its folder, reads as before."""
    entries = msd_entries(9)
    keyed = [{**entry, "fold": index % 3} for index, entry in enumerate(entries[:7])]
    labels = {0: "background", 1: "spleen"}
    for name, content in (("datalist.json", {"training": keyed, "validation": entries[7:]}),
                          ("folds.json", {"training": keyed}), ("held_out.json", {"training": entries[:7],
                                                                                  "validation": entries[7:]})):
        (tmp_path / name).write_text(json.dumps(content))
    both, folds, listed = (tmp_path / name for name in ("datalist.json", "folds.json", "held_out.json"))
    keys = load_cases(both, labels=labels, num_folds=3, fold=1)
    assert keys.split == "given (datalist.json 'fold' keys: fold 1 of 3; the 'validation' list (2 case(s)) not used)"
    assert is_one_fold_of_several(keys)
    assert "the cases of its 'validation' list are neither trained nor validated on" in \
        unused_split_settings_warning(keys)  # what reads the split reads it whatever the file's name
    the_list = load_cases(both, labels=labels)
    assert the_list.split == "given (datalist.json 'validation'; the 'fold' keys (3 folds) not used)"
    assert "read it by load_cases(..., num_folds=3, fold=k)" in unused_split_settings_warning(the_list)
    assert load_cases(folds, labels=labels, fold=1).split == "given (folds.json 'fold' keys: fold 1 of 3)"
    assert load_cases(listed, labels=labels, seed=2).split == "given (held_out.json 'validation'; seed=2 not used)"
    with pytest.raises(DataError, match=re.escape("the dataset gives its own split (held_out.json 'validation')")):
        load_cases(listed, labels=labels, fold=1)
    folder = write_dataset_json(tmp_path / "Task09", {"labels": LABELS, "training": keyed, "validation": entries[7:]})
    assert load_cases(folder.parent).split == "given (dataset.json 'validation'; the 'fold' keys (3 folds) not used)"


def test_the_json_files_refusals_name_it_by_its_name_not_dataset_json(tmp_path):
    """The split named the JSON by its name, but its refusals still said "dataset.json" of every file: a MONAI
    datalist.json listing two images per case was told "dataset.json names no channels", data.labels beside it
    "labels are declared by dataset.json ... edit 'labels' in dataset.json", a missing one "dataset.json not found"
    (ninety-first session). Each names the file given; a dataset.json reads as before."""
    two_files = [{"image": ["a_0000.nii.gz", "a_0001.nii.gz"], "label": "a.nii.gz"}]
    for extra, said in (({}, "but datalist.json names no channels, so one is assumed"),
                        ({"modality": {"0": "CT"}}, "but datalist.json declares 1 channel(s); give one file per")):
        (tmp_path / "datalist.json").write_text(json.dumps({"labels": LABELS, "training": two_files, **extra}))
        with pytest.raises(DataError, match=re.escape(said)):
            load_cases(tmp_path / "datalist.json")
    (tmp_path / "datalist.json").write_text(json.dumps({"labels": LABELS, "training": msd_entries(3)}))
    nnunet = write_nnunet(tmp_path / "nnunet", case_ids=("case_a", "case_b"))
    (nnunet / "dataset.json").rename(nnunet / "Dataset001.json")
    for path in (tmp_path / "datalist.json", nnunet / "Dataset001.json"):
        said = f"{path}: labels are declared by {path.name}; drop the labels argument (data.labels) or edit 'labels' in "
        with pytest.raises(DataError, match=f"^{re.escape(said + path.name)}$"):
            load_cases(path, labels={0: "background", 1: "spleen"})
    (nnunet / "imagesTr" / "case_a_0001.nii.gz").unlink()
    with pytest.raises(DataError, match=re.escape("channel file(s) missing; Dataset001.json declares channel(s) 0000")):
        load_cases(nnunet / "Dataset001.json")
    with pytest.raises(DataError, match=re.escape(f"{tmp_path / 'lost.json'}: lost.json not found; give the path")):
        load_cases(tmp_path / "lost.json")


def test_fold_keys_of_a_datalist_given_as_pairs_make_the_split_as_in_a_dataset_json(tmp_path):
    """A MONAI datalist's entries given to from_pairs (Dataset.from_files) had their "fold" keys ignored, which
    a dataset.json's were not: the seeded split validated on other cases, and trained on the fold held out."""
    entries = [{**entry, "fold": index % 3} for index, entry in enumerate(msd_entries(7))]
    manifest = from_pairs(entries, root=tmp_path, fold=1)
    assert ids(manifest.validation) == ["case_001", "case_004"] and len(manifest.training) == 5
    assert manifest.split == "given (datalist 'fold' keys: fold 1 of 3)" and is_one_fold_of_several(manifest)
    assert ids(from_pairs(entries, root=tmp_path, num_folds=3).validation) == ["case_000", "case_003", "case_006"]
    with pytest.raises(DataError, match=r"from_pairs: the pairs' 'fold' keys make 3 fold\(s\) but num_folds=5"):
        from_pairs(entries, root=tmp_path, num_folds=5)
    # validation pairs given are the split without num_folds, the keys said unused (below); entries without folds
    # split as before
    given = from_pairs(entries, root=tmp_path, validation_pairs=msd_entries(9)[8:])
    assert given.split == "given (validation_pairs; the 'fold' keys (3 folds) not used)" and len(given.training) == 7
    assert from_pairs(msd_entries(7), root=tmp_path).split == "fraction 0.2 (seed 0)"


def test_the_errors_of_the_pairs_fold_keys_name_the_pairs_as_pairs(tmp_path):
    """Pairs' 'fold' keys were named as a file's, "from_pairs: pairs" standing for its path: "data.fold=5 is out of
    range: from_pairs: pairs's 'fold' keys make 3 fold(s)", "from_pairs: pairs: its 'fold' keys make ...",
    "from_pairs: pairs: the training entries' 'fold' keys run to ..." (a review of the ninetieth session)."""
    entries = [{**entry, "fold": index % 3} for index, entry in enumerate(msd_entries(7))]
    with pytest.raises(DataError, match=r"^fold=5 is out of range: the pairs' 'fold' keys make 3 fold\(s\); use "
                                        r"0..2$"):
        from_pairs(entries, root=tmp_path, fold=5)
    with pytest.raises(DataError, match=r"^from_pairs: the pairs' 'fold' keys make 3 fold\(s\) but num_folds=5; "
                                        r"set num_folds to 0 or 3 to use them, or drop the keys to make 5 folds$"):
        from_pairs(entries, root=tmp_path, num_folds=5)
    gap = [{**entry, "fold": 2 * (index % 2)} for index, entry in enumerate(msd_entries(4))]
    with pytest.raises(DataError, match=r"^from_pairs: the pairs' 'fold' keys run to 2 but no entry has fold 1: "
                                        r"number the folds 0..1$"):
        from_pairs(gap, root=tmp_path)
    # a datalist JSON's are its file's, as before ("its training entries'" where "the training entries'" was)
    path = write_dataset_json(tmp_path / "gap", {"labels": LABELS, "training": gap})
    with pytest.raises(DataError, match=f"^{re.escape(str(path))}: its training entries' 'fold' keys run to 2 but"):
        load_cases(path)
    path = write_dataset_json(tmp_path / "keys", {"labels": LABELS, "training": entries})
    with pytest.raises(DataError, match=f"^fold=5 is out of range: {re.escape(str(path))}'s 'fold' keys make 3"):
        load_cases(path, fold=5)
    with pytest.raises(DataError, match=f"^{re.escape(str(path))}: its 'fold' keys make 3 fold\\(s\\) but"):
        load_cases(path, num_folds=5)


def test_fold_keys_of_pairs_beside_validation_pairs_are_chosen_by_num_folds_as_in_a_datalist_json(tmp_path):
    """Pairs carrying "fold" keys, given with validation_pairs too (from_pairs, Dataset.from_files): fold=1 was
    refused as "folds split a dataset that has none of its own; remove data.fold", and num_folds=3 said "not
    used", as a datalist JSON with a "validation" list was until the ninetieth session. They now split as it does:
    num_folds picks the keys, 0 validation_pairs, and a fold alone names both, in the words of what was given."""
    entries = [{**entry, "fold": index % 3} for index, entry in enumerate(msd_entries(7))]
    held_out = msd_entries(9)[7:]
    refusal = ("fold=1 is set, but from_pairs is given two splits: the pairs' 'fold' keys (3 folds) and "
               "validation_pairs (2 case(s)); set num_folds=3 to validate on fold 1 of the 'fold' keys "
               "(validation_pairs are then left out), or remove fold to validate on validation_pairs")
    with pytest.raises(DataError, match=f"^{re.escape(refusal)}$"):
        from_pairs(entries, root=tmp_path, validation_pairs=held_out, fold=1)
    with pytest.raises(DataError, match=r"^fold=3 is out of range: the pairs' 'fold' keys make 3 fold\(s\); use "
                                        r"0..2 with num_folds=3, or remove fold to validate on "
                                        r"validation_pairs$"):
        from_pairs(entries, root=tmp_path, validation_pairs=held_out, fold=3)
    keyed = from_pairs(entries, root=tmp_path, validation_pairs=held_out, num_folds=3, fold=1)
    assert ids(keyed.validation) == ["case_001", "case_004"] and len(keyed.training) == 5
    assert keyed.split == "given (datalist 'fold' keys: fold 1 of 3; validation_pairs (2 case(s)) not used)"
    assert is_one_fold_of_several(keyed)
    assert unused_split_settings_warning(keyed) == (
        f"warning: the split is {keyed.split}: num_folds picks the pairs' 'fold' keys, so validation_pairs are "
        f"neither trained nor validated on. To validate on validation_pairs instead, leave num_folds and fold out")
    listed = from_pairs(entries, root=tmp_path, validation_pairs=held_out)
    assert ids(listed.validation) == ["case_007", "case_008"] and len(listed.training) == 7
    assert listed.split == "given (validation_pairs; the 'fold' keys (3 folds) not used)"
    assert unused_split_settings_warning(listed) == (
        f"warning: the split is {listed.split}: validation_pairs are the split, and the pairs' 'fold' keys hold "
        f"nothing out. To validate on fold k of those keys instead, give num_folds=3 and fold=k (validation_pairs "
        f"are then left out)")
    with pytest.raises(DataError, match=r"^from_pairs: the pairs' 'fold' keys make 3 fold\(s\) but num_folds=5; "
                                        r"set num_folds to 3 to use them \(0 validates on validation_pairs\), "
                                        r"or drop the keys and validation_pairs to make 5 folds$"):
        from_pairs(entries, root=tmp_path, validation_pairs=held_out, num_folds=5)


def test_fold_keys_numbered_by_numpy_split_a_datalist_given_as_pairs(tmp_path):
    """Fold keys of NumPy's integers (sklearn's KFold, a DataFrame's column) were no folds to the reader, which
    took Python's int alone: the datalist was split by the fraction, and validated on cases its folds train on."""
    import numpy as np

    entries = [{**entry, "fold": fold} for entry, fold in zip(msd_entries(7), np.arange(7) % 3)]
    manifest = from_pairs(entries, root=tmp_path, fold=1)
    assert manifest.split == "given (datalist 'fold' keys: fold 1 of 3)"
    assert ids(manifest.validation) == ["case_001", "case_004"] and len(manifest.training) == 5


def test_a_manifest_built_by_hand_says_how_its_split_was_made_when_its_words_say_one():
    """A Manifest built by hand with split="fold 1 of 3 (seed 0)" took the default origin, "given by the dataset":
    its spacing was its training cases' median, unlike the loaded fold's (every fold's cases'), and its advice and
    warnings those of a dataset's own split, without a word (until the ninety-fourth session)."""
    from accelerated_seg.data.cases import SplitOrigin
    from accelerated_seg.data.spacing import median_cases

    cases = make_cases(6)
    built = dict(root=Path("/d"), labels={0: "bg", 1: "a"}, channels={0: "image"}, training=cases[2:],
                 validation=cases[:2])
    with pytest.raises(ValueError, match=re.escape(
            "Manifest: split='fold 1 of 3 (seed 0)' says how the cases were split in words alone; give "
            "split_origin=SplitOrigin(...) too")):
        Manifest(**built, split="fold 1 of 3 (seed 0)")
    folds = Manifest(**built, split="fold 1 of 3 (seed 0)", split_origin=SplitOrigin("folds", 3))
    assert median_cases(folds) == (cases[2:] + cases[:2], "every fold's cases' median")
    # the lists given as they are: the default words and origin agree, and a resume's copy keeps its origin
    assert Manifest(**built).split_origin == SplitOrigin("dataset")
    assert dataclasses.replace(folds, split="reworded").split_origin == SplitOrigin("folds", 3)


def test_nnunet_upper_case_nifti_file_ending_reads_its_cases(tmp_path):
    """A scanner's export written as ``case_a_0000.NII.GZ`` with ``"file_ending": ".NII.GZ"`` is NIfTI,
    which nibabel reads; it was refused as "only NIfTI is supported — convert the images to NIfTI"."""
    root = write_nnunet(tmp_path, file_ending=".NII.GZ")
    for path in sorted(root.rglob("*.nii.gz")):
        path.rename(path.with_name(path.name[:-len(".nii.gz")] + ".NII.GZ"))
    manifest = load_nnunet(root)
    assert sorted(ids(manifest.training + manifest.validation)) == ["case_a", "case_b", "case_c"]
    assert all(str(case.label).endswith("labelsTr/" + case.id + ".NII.GZ")
               for case in manifest.training + manifest.validation)
    assert all(path.endswith("_0001.NII.GZ") for path in map(str, manifest.training[0].images[1:]))


def test_from_pairs_names_its_split_settings_as_the_keywords_its_caller_gave(tmp_path):
    """from_pairs, called from Python with num_folds=, fold=, validation_fraction= and seed=, named them as a
    config does (data.num_folds, data.split_seed), settings its caller never wrote, and its unused-settings
    warning sent pairs to "the MSD 'validation' list" (until the ninety-fourth session). Its keywords now."""
    pairs = msd_entries(4)
    for given, said in (({"num_folds": 5}, "num_folds=5 but there are only 4 case(s); use at most 4 folds"),
                        ({"fold": 1}, "fold=1 is set but num_folds=0; set num_folds to 2 or more"),
                        ({"validation_fraction": 1.5}, "validation_fraction must be in [0, 1), got 1.5")):
        with pytest.raises(DataError, match=f"^{re.escape(said)}$"):
            from_pairs(pairs, root=tmp_path, **given)
    keyed = [{**entry, "fold": index % 2} for index, entry in enumerate(pairs)]
    with pytest.raises(DataError, match=r"^fold=2 is out of range: the pairs' 'fold' keys make 2 fold\(s\); use 0..1$"):
        from_pairs(keyed, root=tmp_path, fold=2)
    given = from_pairs(pairs[:3], root=tmp_path, validation_pairs=pairs[3:], seed=7)
    assert given.split == "given (validation_pairs; seed=7 not used)"
    assert unused_split_settings_warning(given) == (
        "warning: the split is given (validation_pairs; seed=7 not used): the dataset gives its own, so seed chooses "
        "nothing. For a split of its seed, leave validation_pairs out")


def test_load_cases_names_its_split_settings_as_the_keywords_its_caller_gave(tmp_path):
    """load_cases, called from Python with num_folds=, fold=, validation_fraction= and seed=, named them as a
    config does (data.num_folds, data.split_seed) in its errors and its split, settings its caller never wrote
    (until the ninety-fourth session): its readers split with the config's names. Its keywords now; the config's
    reading (load_manifest) passes the config's names."""
    path = write_dataset_json(tmp_path, {"labels": LABELS, "training": msd_entries(4)})
    for given, said in (({"num_folds": 5}, "num_folds=5 but there are only 4 case(s); use at most 4 folds"),
                        ({"fold": 1}, "fold=1 is set but num_folds=0; set num_folds to 2 or more"),
                        ({"num_folds": 3, "fold": 3}, "fold=3 is out of range for num_folds=3; use 0..2"),
                        ({"validation_fraction": 1.5}, "validation_fraction must be in [0, 1), got 1.5")):
        with pytest.raises(DataError, match=f"^{re.escape(said)}$"):
            load_cases(path, **given)
    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"{e['image']},{e['label']}\n" for e in msd_entries(4)))
    with pytest.raises(DataError, match=r"^num_folds=5 but there are only 4 case\(s\)"):
        load_cases(table, num_folds=5)
    misspelt = tmp_path / "misspelt.csv"
    misspelt.write_text("image,label,Splits\na.nii.gz,a_seg.nii.gz,train\n")
    with pytest.raises(DataError, match=r"cases are split by data\.validation_fraction: rename"):  # the config's
        read_by_the_config(misspelt)
    nnunet = write_nnunet(tmp_path / "nnunet")
    with pytest.raises(DataError, match=r"^fold=1 is set but num_folds=0; set num_folds to 2 or more$"):
        load_cases(nnunet, fold=1)
    listed = write_dataset_json(tmp_path / "listed", {"labels": LABELS, "training": msd_entries(6)[:4],
                                                      "validation": msd_entries(6)[4:]})
    assert load_cases(listed, seed=7).split == "given (dataset.json 'validation'; seed=7 not used)"
    with pytest.raises(DataError, match=r"^fold=1 is set, but the dataset gives its own split \(dataset.json "
                                        r"'validation'\) and num_folds=0: folds split a dataset that has none"):
        load_cases(listed, fold=1)


def test_the_unused_settings_warning_of_a_dataset_read_by_load_cases_names_its_keywords(tmp_path):
    """A manifest read by load_cases and given to train from Python was warned that "data.split_seed chooses
    nothing", and sent to "set data.num_folds=3 and data.fold=k" or "set data.num_folds=0 and remove data.fold",
    settings of a config that splits nothing there (until the ninety-fourth session). load_cases' keywords now,
    told by the manifest's origin (SplitOrigin.by_the_config); the config's reading keeps the config's words."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest

    entries = msd_entries(9)
    keyed = [{**entry, "fold": index % 3} for index, entry in enumerate(entries[:7])]
    listed = write_dataset_json(tmp_path / "listed", {"labels": LABELS, "training": entries[:7],
                                                      "validation": entries[7:]})
    both = write_dataset_json(tmp_path / "both", {"labels": LABELS, "training": keyed, "validation": entries[7:]})
    seeded = load_cases(listed, seed=7)
    assert unused_split_settings_warning(seeded) == (
        "warning: the split is given (dataset.json 'validation'; seed=7 not used): the dataset gives its own, so seed "
        "chooses nothing. For a split of its seed, give load_cases the dataset without it (the MSD 'validation' list "
        "or 'fold' keys, the CSV 'split' column, nnU-Net's splits_final.json)")
    assert "so every fold trains on that one split. For k-fold, give load_cases" in \
        unused_split_settings_warning(load_cases(listed, num_folds=2))
    assert unused_split_settings_warning(load_cases(both)) == (
        "warning: the split is given (dataset.json 'validation'; the 'fold' keys (3 folds) not used): the file's "
        "'validation' list is the split, and its training entries' 'fold' keys hold nothing out. To validate on fold "
        "k of those keys instead, read it by load_cases(..., num_folds=3, fold=k) (the 'validation' list is then left "
        "out)")
    assert unused_split_settings_warning(load_cases(both, num_folds=3, fold=1)).endswith(
        "so the cases of its 'validation' list are neither trained nor validated on. To validate on that list "
        "instead, read it by load_cases without num_folds and fold")
    config = load_manifest(DataConfig(dataset=str(listed), split_seed=7), tmp_path)  # the config's words, as before
    assert unused_split_settings_warning(config) == (
        "warning: the split is given (dataset.json 'validation'; data.split_seed=7 not used): the dataset gives its "
        "own, so data.split_seed chooses nothing. For a split of its seed, give the dataset without it (the MSD "
        "'validation' list or 'fold' keys, the CSV 'split' column, nnU-Net's splits_final.json)")
    assert "set data.num_folds=3 and data.fold=k" in \
        unused_split_settings_warning(load_manifest(DataConfig(dataset=str(both)), tmp_path))
    assert "set data.num_folds=0 and remove data.fold" in \
        unused_split_settings_warning(load_manifest(DataConfig(dataset=str(both), num_folds=3, fold=1), tmp_path))


def test_the_unused_settings_warning_says_the_settings_as_the_names_given_to_load_cases_do(tmp_path):
    """load_cases(..., names=Names()) from Python, not by the config, said its split in the config's words
    ("data.split_seed=7 not used") and its warning in load_cases' ("so seed chooses nothing", "read it by
    load_cases(..., num_folds=3, fold=k)"), and pairs' warnings said from_pairs' keywords whatever names they were
    read with (until the ninety-fifth session): the warning now says what the split says, as the names given do."""
    from accelerated_seg.model_folders import Names

    entries = msd_entries(9)
    keyed = [{**entry, "fold": index % 3} for index, entry in enumerate(entries[:7])]
    listed = write_dataset_json(tmp_path / "listed", {"labels": LABELS, "training": entries[:7],
                                                      "validation": entries[7:]})
    both = write_dataset_json(tmp_path / "both", {"labels": LABELS, "training": keyed, "validation": entries[7:]})
    seeded = load_cases(listed, seed=7, names=Names())
    assert unused_split_settings_warning(seeded) == (
        "warning: the split is given (dataset.json 'validation'; data.split_seed=7 not used): the dataset gives its "
        "own, so data.split_seed chooses nothing. For a split of its seed, give the dataset without it (the MSD "
        "'validation' list or 'fold' keys, the CSV 'split' column, nnU-Net's splits_final.json)")
    assert "so every data.fold trains on that one split" in \
        unused_split_settings_warning(load_cases(listed, num_folds=2, names=Names()))
    assert "so data.validation_fraction holds nothing out" in \
        unused_split_settings_warning(load_cases(listed, validation_fraction=0.3, names=Names()))
    assert "set data.num_folds=3 and data.fold=k" in unused_split_settings_warning(load_cases(both, names=Names()))
    assert unused_split_settings_warning(load_cases(both, num_folds=3, fold=1, names=Names())).endswith(
        "data.num_folds picks the file's 'fold' keys, so the cases of its 'validation' list are neither trained nor "
        "validated on. To validate on that list instead, set data.num_folds=0 and remove data.fold")
    pairs = [(entry["image"], entry["label"]) for entry in entries[:7]]
    held_out = [(entry["image"], entry["label"]) for entry in entries[7:]]
    from_python = from_pairs(pairs, validation_pairs=held_out, root=tmp_path, seed=7, names=Names())
    assert from_python.split == "given (validation_pairs; data.split_seed=7 not used)"
    assert "so data.split_seed chooses nothing" in unused_split_settings_warning(from_python)
    keys = from_pairs(keyed, validation_pairs=held_out, root=tmp_path, names=Names())
    assert "give data.num_folds=3 and data.fold=k (validation_pairs" in unused_split_settings_warning(keys)
    picked = from_pairs(keyed, validation_pairs=held_out, root=tmp_path, num_folds=3, fold=1, names=Names())
    assert unused_split_settings_warning(picked).endswith(
        "data.num_folds picks the pairs' 'fold' keys, so validation_pairs are neither trained nor validated on. To "
        "validate on validation_pairs instead, leave data.num_folds and data.fold out")
