"""How the refusals of a case's channel files name the channels: by index and name where the dataset or the model
names them ("channel 1 (FLAIR) voxels are 3 x 3 x 3 mm"), by index alone where nothing does, through training's
pre-flight check, predict and evaluate alike; and a CSV's image columns read as data.cases reads the names of channels
nothing names (the hundred-and-twenty-third session, helper h125,
benchmarks/results/channel_names_in_refusals_2026-12-07/)."""

import json
import re

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.config import ConfigError
from accelerated_seg.data import cases
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.csv_table import load_csv
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.own_warnings import AcceleratedSegWarning

NESTED = re.compile(r"\([^()]*channel \d+ \(")  # a channel's name in brackets in brackets: "(channel 1 (FLAIR) ..."


def _case(folder, second_affine, unit="mm"):
    """A case of two 8^3 channel files and a label, channel 0 at 2.5 mm in mm, channel 1 on ``second_affine``
    declaring ``unit``."""
    folder.mkdir(parents=True)
    rng, paths = np.random.default_rng(0), []
    for name, affine, declared in (("c_0000", np.diag([2.5, 2.5, 2.5, 1.0]), "mm"), ("c_0001", second_affine, unit)):
        image = nib.Nifti1Image(rng.uniform(10, 100, (8, 8, 8)).astype(np.float32), affine)
        image.header.set_xyzt_units(declared)
        nib.save(image, folder / f"{name}.nii.gz")
        paths.append(str(folder / f"{name}.nii.gz"))
    label = np.zeros((8, 8, 8), np.uint8)
    label[2:6, 2:6, 2:6] = 1
    nib.save(nib.Nifti1Image(label, np.diag([2.5, 2.5, 2.5, 1.0])), folder / "c.nii.gz")
    return paths, str(folder / "c.nii.gz")


def test_a_channel_nothing_names_is_said_by_its_index_alone():
    """image, image_1 are the names a Dataset gives channels nothing names, no user's: "one channel (image)" and
    "channel 1 (image_1)" said them as if a user had, from the hundred-and-twenty-first and -second sessions."""
    assert cases.channel_said(1, "FLAIR") == "channel 1 (FLAIR)"
    assert cases.one_channel_said("MRI0") == "one channel (MRI0)"
    assert cases.channel_said(1, "image_1") == "channel 1"
    assert cases.one_channel_said("image") == "one channel"


def test_trainings_check_names_a_channel_on_another_grid_or_in_another_unit_by_its_name(tmp_path):
    """training's pre-flight check said "image channel 1 voxels are 3 x 3 x 3 mm" of a dataset.json's FLAIR, by its
    index alone, until the hundred-and-twenty-third session; a CSV's image_0, image_1 name no channel."""
    for fault, affine, unit, said in (
            ("grid", np.diag([3.0, 3.0, 3.0, 1.0]), "mm",
             "image channel 1 (FLAIR) voxels are 3 x 3 x 3 mm, image channel 0 (T1) voxels 2.5 x 2.5 x 2.5 mm"),
            ("units", np.diag([2500.0, 2500.0, 2500.0, 1.0]), "micron", "(image channel 1, FLAIR): micrometres")):
        paths, label = _case(tmp_path / fault, affine, unit)
        named = tmp_path / fault / "dataset.json"
        named.write_text(json.dumps({"name": "n", "modality": {"0": "T1", "1": "FLAIR"},
                                     "labels": {"0": "background", "1": "lesion"},
                                     "training": [{"image": paths, "label": label}]}))
        unnamed = tmp_path / fault / "cases.csv"
        unnamed.write_text(f"image_0,image_1,label\n{paths[0]},{paths[1]},{label}\n")
        errors = [check_manifest(load_cases(source, validation_fraction=0.0)).errors for source in (named, unnamed)]
        assert len(errors[0]) == 1 and said in errors[0][0] and not NESTED.search(errors[0][0]), errors
        unnamed_said = said.replace(" (FLAIR)", "").replace(" (T1)", "").replace(", FLAIR", "")
        assert len(errors[1]) == 1 and unnamed_said in errors[1][0] and "image_1" not in errors[1][0], errors


def test_predict_and_evaluate_name_a_channel_on_another_grid_by_the_models_name_for_it(tmp_path):
    """predict and evaluate said "(channel 1 voxels are 3 x 3 x 3 mm, channel 0 voxels ...)" of an export's FLAIR,
    by its index alone, until the hundred-and-twenty-third session; now "channel 1 (FLAIR) voxels ...", after a colon
    as training's check says it (in brackets the name would nest), and the index alone for an export naming none."""
    from accelerated_seg.estimator import Dataset, Segmentation
    from test_inference import export

    paths, label = _case(tmp_path / "case", np.diag([3.0, 3.0, 3.0, 1.0]))
    named = export(tmp_path / "named", in_channels=2, channels={"0": "T1", "1": "FLAIR"})
    unnamed = export(tmp_path / "unnamed", in_channels=2, channels={"0": "image_0", "1": "image_1"})
    for model, said in (
            (named, "do not share a voxel grid: channel 1 (FLAIR) voxels are 3 x 3 x 3 mm, channel 0 (T1) voxels 2.5"),
            (unnamed, "do not share a voxel grid: channel 1 voxels are 3 x 3 x 3 mm, channel 0 voxels 2.5")):
        loaded = Segmentation.load(model)
        with pytest.raises(DataError) as predicted:
            loaded.predict(paths)
        data = Dataset.from_files([], validation_pairs=[(paths, label)], n_classes=3, block_shape=16, num_workers=0)
        with pytest.raises(DataError) as evaluated:
            loaded.evaluate(data, output_dir=tmp_path / "eval")
        for refused in (str(predicted.value), str(evaluated.value)):
            assert said in refused and not NESTED.search(refused), refused


def test_a_model_naming_no_channel_has_its_lone_channel_said_without_a_name(tmp_path):
    """An export naming no channels: its lone channel was "one channel (image)", the Dataset's name for it, in the
    refusal of a 4D file and evaluate's count, from the hundred-and-twenty-second session until the
    hundred-and-twenty-third."""
    from accelerated_seg.estimator import Dataset, Segmentation
    from test_inference import export

    model = export(tmp_path / "model")
    config = json.loads((model / "config.json").read_text())
    del config["channels"]
    (model / "config.json").write_text(json.dumps(config))
    paths, label = _case(tmp_path / "case", np.diag([2.5, 2.5, 2.5, 1.0]))
    four_d = tmp_path / "two.nii.gz"
    nib.save(nib.Nifti1Image(np.ones((8, 8, 8, 2), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])), four_d)
    loaded = Segmentation.load(model)
    with pytest.raises(DataError, match=r"holds 2 3D volume\(s\), but the model takes one channel: give the one 3D"):
        loaded.predict(str(four_d))
    data = Dataset.from_files([], validation_pairs=[(paths, label)], n_classes=3, block_shape=16, num_workers=0)
    with pytest.raises(ConfigError, match=r"^evaluate: the model takes one channel and the dataset gives each case 2"):
        loaded.evaluate(data, output_dir=tmp_path / "eval")


def test_a_csvs_image_columns_are_read_as_data_cases_reads_an_unnamed_channels_name(tmp_path, monkeypatch):
    """The CSV reader spelled the names of unnamed channels with a pattern of its own, image_(\\d+), until the
    hundred-and-twenty-third session: a column of another script's digits was its channel, a name data.cases took
    for a user's; now refused. Renamed in data.cases, both follow."""
    def read(*columns):
        table = tmp_path / f"{len(list(tmp_path.iterdir()))}.csv"
        table.write_text(",".join((*columns, "label")) + "\n" + ",".join(f"{c}.nii.gz" for c in (*columns, "l")) + "\n",
                         encoding="utf-8")
        return load_csv(table, validation_fraction=0.0)

    for columns in (("image",), ("image_0", "image_1"), ("image_0", "image_01")):
        names = list(read(*columns).channels.values())
        assert names == list(columns) and all(cases.is_unnamed_channel(name) for name in names), names
    with pytest.raises(DataError, match=r"image column\(s\) \['image_\u0661'\] are numbered in digits other than "
                                        r"0-9, .*; number them image_0, image_1, ... with the digits 0-9"):
        read("image_0", "image_\u0661")
    with pytest.raises(DataError, match=r"both 'image' and \['image_0'\] columns"):
        read("image", "image_0")
    with pytest.raises(DataError, match=r"no image column"):
        read("T1", "FLAIR")
    monkeypatch.setattr(cases, "UNNAMED_CHANNEL", "scan")
    assert read("scan_0", "scan_1").channels == {0: "scan_0", 1: "scan_1"}
    assert read("scan").channels == {0: "scan"}


def test_a_blank_channel_name_is_said_as_no_name(tmp_path):
    """A dataset.json's ``"0": " "`` (or a config.json's ``""``) names nothing: training's check said ``image channel
    0 ( )`` and predict's order ``channel 0 ()`` until review r108 of the hundred-and-twenty-third session."""
    assert cases.channel_said(0, "") == "channel 0"
    assert cases.channel_said(0, " ") == "channel 0"
    assert cases.one_channel_said(" ") == "one channel"
    paths, label = _case(tmp_path / "blank", np.diag([3.0, 3.0, 3.0, 1.0]))
    named = tmp_path / "blank" / "dataset.json"
    named.write_text(json.dumps({"name": "n", "modality": {"0": " ", "1": "FLAIR"},
                                 "labels": {"0": "background", "1": "lesion"},
                                 "training": [{"image": paths, "label": label}]}))
    errors = "\n".join(check_manifest(load_cases(named, validation_fraction=0.0)).errors)
    assert "image channel 1 (FLAIR) voxels are 3 x 3 x 3 mm, image channel 0 voxels 2.5" in errors, errors
    assert "( )" not in errors, errors


def test_a_csvs_two_columns_of_one_channel_are_refused_as_such(tmp_path):
    """``image_0,image_00`` (leading zeros read past: both channel 0) was told ``must be numbered image_0, image_1,
    ... without gaps``, which named no gap, until review r108 of the hundred-and-twenty-third session."""
    for index in range(2):
        nib.save(nib.Nifti1Image(np.ones((4, 4, 4), np.float32), np.eye(4)), tmp_path / f"{index}.nii.gz")
    table = tmp_path / "cases.csv"
    table.write_text("image_0,image_00,label\n0.nii.gz,1.nii.gz,0.nii.gz\n")
    with pytest.raises(DataError, match=r"image columns \['image_0', 'image_00'\] number one channel twice "
                                        r"\(channel 0, leading zeros aside\); keep one column per channel"):
        load_csv(table)


def test_the_rounding_advice_runs_as_it_is_said(tmp_path):
    """Channels an export tool's rounding apart (0.01 mm, 0.004 of a voxel): the advice's nibabel lines wrote the
    roles as variables, ``nib.Nifti1Image(data, image channel 0.affine, image channel 0.header)``, and two brackets in
    a row beside a channel's name, ``onto the image channel 1 (FLAIR) (SimpleITK's ...)``, until review r108 of the
    hundred-and-twenty-third session; run as said, they mend the case."""
    shifted = np.diag([2.5, 2.5, 2.5, 1.0])
    shifted[0, 3] = 0.01
    paths, label = _case(tmp_path / "rounding", shifted)
    named = tmp_path / "rounding" / "dataset.json"
    named.write_text(json.dumps({"name": "n", "modality": {"0": "T1", "1": "FLAIR"},
                                 "labels": {"0": "background", "1": "lesion"},
                                 "training": [{"image": paths, "label": label}]}))
    errors = check_manifest(load_cases(named, validation_fraction=0.0)).errors
    assert len(errors) == 1 and ") (" not in errors[0], errors
    lines = errors[0].split("CopyInformation or nibabel: ")[1]
    exec(lines, {"nib": nib, "np": np})  # noqa: S102 - the advice as a user would paste it
    assert check_manifest(load_cases(named, validation_fraction=0.0)).errors == []


def test_evaluate_says_a_channel_by_one_name_in_one_report(tmp_path):
    """A Dataset naming its channels T1, FLAIR, evaluated by a model naming them MRI0, MRI1: one report said case a's
    channels by the model's names (predict's check of the headers, ``channel 0 (MRI0)``) and case b's by the
    Dataset's (the pre-flight check, ``image channel 0 (T1)``), until review r108 of the hundred-and-twenty-third
    session; the model's in both, as evaluate's count and order say them."""
    from accelerated_seg.estimator import Dataset, Segmentation
    from test_inference import export

    off = np.diag([3.0, 3.0, 3.0, 1.0])
    pairs = [_case(tmp_path / "a", off), _case(tmp_path / "b", np.diag([2.5, 2.5, 2.5, 1.0]))]
    label = nib.load(pairs[1][1])
    nib.save(nib.Nifti1Image(np.asanyarray(label.dataobj), off), pairs[1][1])  # case b's label on another grid
    data = Dataset.from_files([], validation_pairs=pairs, n_classes=3, block_shape=16, num_workers=0,
                              channel_names=["T1", "FLAIR"])
    # the names differ: warned of since helper h127 (test_model_and_data_channel_names.py), then the cases refused
    with pytest.raises(DataError) as refused, pytest.warns(AcceleratedSegWarning, match="channels otherwise"):
        Segmentation.load(export(tmp_path / "model", in_channels=2)).evaluate(data, output_dir=tmp_path / "eval")
    said = str(refused.value)
    assert "channel 1 (MRI1) voxels are 3 x 3 x 3 mm, channel 0 (MRI0) voxels 2.5" in said, said
    assert "image channel 0 (MRI0)" in said and "T1" not in said and "FLAIR" not in said, said
