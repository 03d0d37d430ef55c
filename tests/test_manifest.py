"""load_msd: parsing a Decathlon dataset.json into cases, labels, channels and a split."""

import json

import pytest

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import Case, Manifest, load_msd

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


def test_malformed_json_is_a_data_error(tmp_path):
    path = tmp_path / "dataset.json"
    path.write_text('{"labels": {"0": "background",')
    with pytest.raises(DataError, match="not valid JSON") as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


def test_missing_training_key_is_a_data_error(tmp_path):
    path = write_dataset_json(tmp_path, {"labels": LABELS})
    with pytest.raises(DataError, match="no 'training' list") as raised:
        load_msd(path)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize("labels", [{"0": "background", "2": "tumour"}, {"1": "a", "2": "b"}])
def test_non_contiguous_labels_are_a_data_error(tmp_path, labels):
    path = write_dataset_json(tmp_path, {"labels": labels, "training": msd_entries(2)})
    with pytest.raises(DataError, match=r"0\.\.C-1") as raised:
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
