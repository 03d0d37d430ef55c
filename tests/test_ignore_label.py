"""Sparse annotation (nnU-Net's "ignore" label): label maps whose unannotated voxels hold one declared value
train on the annotated voxels alone (a partial loss, patches centred on annotated voxels), validate and
evaluate on them alone, and predict dense segmentations."""

import dataclasses
import json
import math
import re
import shutil

import nibabel as nib
import numpy as np
import pytest
import torch

from accelerated_seg.cli import main
from accelerated_seg.config import load_config
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.labels import split_ignore
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.sampling import choose_centre
from accelerated_seg.evaluate import case_metrics, evaluate_folders, ignore_from_json, region_metrics
from accelerated_seg.exported_model import export_value_errors
from accelerated_seg.losses import AnnotatedVoxels, LOSSES, check_loss, training_loss
from accelerated_seg.models import model_spec
from accelerated_seg.regions import Regions
from accelerated_seg.train import train
from accelerated_seg.validation import empty_case_counts, empty_cases_note
from conftest import tiny_overrides

IGNORE = 3  # the phantoms' classes are 0 background, 1 ventricles, 2 lesion


@pytest.fixture(scope="module")
def sparse_dataset(tiny_dataset, tmp_path_factory):
    """The tiny phantoms with every third axial slice annotated and the rest marked 3, "ignore"."""
    root = tmp_path_factory.mktemp("sparse") / "data"
    shutil.copytree(tiny_dataset.parent, root)
    content = json.loads((root / "dataset.json").read_text())
    content["labels"][str(IGNORE)] = "ignore"
    (root / "dataset.json").write_text(json.dumps(content))
    for path in sorted((root / "labelsTr").glob("*.nii.gz")):
        image = nib.load(path)
        label = np.asanyarray(image.dataobj).copy()
        label[..., [z for z in range(label.shape[-1]) if z % 3]] = IGNORE
        nib.save(nib.Nifti1Image(label, image.affine, image.header), path)
    return root / "dataset.json"


@pytest.fixture(scope="module")
def partly_sparse_dataset(tiny_dataset, sparse_dataset, tmp_path_factory):
    """The sparse phantoms with all but the first validation case annotated in full again: the usual dataset of
    dense cases and a few sparse ones."""
    root = tmp_path_factory.mktemp("partly_sparse") / "data"
    shutil.copytree(sparse_dataset.parent, root)
    for case in load_msd(root / "dataset.json").validation[1:]:
        shutil.copy(tiny_dataset.parent / "labelsTr" / case.label.name, case.label)
    return root / "dataset.json"


@pytest.mark.parametrize("raw, expected", [
    ({"background": 0, "tumour": 1, "ignore": 2}, ({"background": 0, "tumour": 1}, 2)),  # nnU-Net v2
    ({"0": "background", "1": "tumour", "4": "Ignore"}, ({"0": "background", "1": "tumour"}, 4)),  # MSD
    ({"background": 0, "whole": [1, 2], "core": 2, "ignore": 3}, ({"background": 0, "whole": [1, 2], "core": 2}, 3)),
    ({"0": "background", "1": "tumour"}, ({"0": "background", "1": "tumour"}, None)),
])
def test_the_ignore_entry_is_taken_out_of_either_kind_of_declaration(raw, expected):
    assert split_ignore(raw, "dataset.json") == expected


@pytest.mark.parametrize("raw, binarize, message", [
    ({"background": 0, "tumour": 1, "ignore": 1}, False, "value 1 is a class's"),
    ({"background": 0, "whole": [1, 2], "ignore": 2}, False, "value 2 is a class's .or a region's"),
    ({"background": 0, "tumour": 1, "ignore": 0}, False, "a whole number above the classes"),
    ({"0": "background", "1": "tumour", "x": "ignore"}, False, "a whole number above the classes"),
    ({"0": "background", "1": "ignore", "2": "IGNORE"}, False, '2 entries are called "ignore"'),
    ({"background": 0, "tumour": 1, "ignore": 2}, True, "data.binarize would merge it into the foreground"),
])
def test_an_ignore_label_that_cannot_work_is_one_error_naming_the_file(raw, binarize, message):
    with pytest.raises(DataError, match=message) as raised:
        split_ignore(raw, "x/dataset.json", binarize)
    assert str(raised.value).startswith("x/dataset.json")


def test_an_ignore_label_leaves_room_for_one_class_fewer():
    many = {"background": 0, **{f"class_{v}": v for v in range(1, 256)}, "ignore": 256}
    with pytest.raises(DataError, match="256 classes and an ignore label.*at most 255 classes"):
        split_ignore(many, "dataset.json")
    del many["class_255"]
    assert split_ignore(many, "dataset.json")[1] == 256


@pytest.mark.parametrize("labels, binarize, way", [
    ({"background": 0, "tumour": 1, "ignore": 1}, False, r"give the unannotated voxels a value of their own, the "
                                                         r'highest, in the label files and here, e\.g\. "ignore": 2$'),
    ({"0": "background", "1": "tumour", "0.5": "ignore"}, False,
     r'above the classes\' values .*, e\.g\. "2": "ignore"$'),
    ({"0": "background", "1": "ignore", "2": "IGNORE"}, False, "keep one, the value of the unannotated voxels, and "
                                                               "rename or remove the others$"),
    ({"background": 0, "tumour": 1, "ignore": 2}, True, r"train the classes on the annotated voxels with "
                                                        r"{binarize_off}, or remove the \"ignore\" entry"),
    ({"background": 0, **{f"class_{v}": v for v in range(1, 256)}, "ignore": 256}, False,
     r"merge classes into at most 255, or remove the \"ignore\" entry and give those voxels a class"),
], ids=["a_class_value", "not_whole", "twice", "binarize", "no_room"])
def test_an_ignore_label_refused_is_said_of_the_labels_as_the_caller_gave_them_with_the_way_on(tmp_path, labels,
                                                                                              binarize, way):
    """A CSV's classes given as a config's data.labels were refused as a "labels argument", and a datalist's given
    as load_msd's labels= as data.labels, until the ninety-ninth session; binarize with an ignore label and no room
    for it gave no way on."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_csv, load_manifest

    for index in range(2):
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.eye(4)), tmp_path / f"case_{index}.nii.gz")
    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"case_{i}.nii.gz,case_{i}.nii.gz\n" for i in range(2)))
    datalist = tmp_path / "datalist.json"
    datalist.write_text(json.dumps({"training": [{"image": f"case_{i}.nii.gz", "label": f"case_{i}.nii.gz"}
                                                 for i in range(2)]}))
    config = DataConfig(dataset=str(table), labels=labels, binarize=binarize)
    for read, said, binarize_off in (
            (lambda: load_manifest(config, tmp_path), f"data.labels (the classes of {table})", "data.binarize=false"),
            (lambda: load_csv(table, labels=labels, binarize=binarize), f"the labels argument (the classes of {table})",
             "binarize=False"),
            (lambda: load_msd(datalist, labels=labels, binarize=binarize),
             f"the labels argument (the classes of {datalist})", "binarize=False")):
        with pytest.raises(DataError) as refused:
            read()
        assert str(refused.value).startswith(f"{said}: "), refused.value
        assert re.search(way.replace("{binarize_off}", re.escape(binarize_off)), str(refused.value)), refused.value


def test_evaluate_refuses_a_prediction_that_holds_the_ignore_value(tmp_path):
    for folder in ("pred", "label"):
        (tmp_path / folder).mkdir()
        label = np.zeros((4, 4, 4), np.uint8)
        label[0] = 9
        nib.save(nib.Nifti1Image(label, np.eye(4)), tmp_path / folder / "a.nii.gz")
    with pytest.raises(DataError, match=r"pred/a.nii.gz: label value\(s\) \[9\] are not among the classes"):
        evaluate_folders(tmp_path / "pred", tmp_path / "label", num_classes=2, ignore_value=9)


def test_evaluate_scores_no_class_of_the_ignore_value_where_the_classes_come_from_the_files(tmp_path):
    """evaluate_folders(..., ignore_value=9) without num_classes or dataset_json took the classes from the files,
    the ignore value among them: "class_9" was scored, Dice 1 wherever a reference held it, lifting the mean, and a
    prediction holding 9 passed as that class's (ninetieth session, found reading the merge's refusal rule)."""
    label = np.zeros((4, 4, 4), np.uint8)
    label[0], label[2] = 9, 1  # a slice unannotated, one of class 1
    prediction = (label == 1).astype(np.uint8)
    prediction[3, 0, 0] = 1  # one voxel too many: Dice 32 / 33
    for folder, array in (("pred", prediction), ("label", label)):
        (tmp_path / folder).mkdir()
        nib.save(nib.Nifti1Image(array, np.eye(4)), tmp_path / folder / "a.nii.gz")
    summary = evaluate_folders(tmp_path / "pred", tmp_path / "label", ignore_value=9)
    assert summary["classes"] == {"1": "class_1"}
    assert summary["overall"]["dice"]["mean"] == pytest.approx(2 * 16 / 33)
    prediction[0] = 9
    nib.save(nib.Nifti1Image(prediction, np.eye(4)), tmp_path / "pred" / "a.nii.gz")
    with pytest.raises(DataError, match=r"pred/a.nii.gz: label value\(s\) \[9\] are not among the classes scored "
                                        r"\[0, 1\]"):
        evaluate_folders(tmp_path / "pred", tmp_path / "label", ignore_value=9)


def test_the_manifest_maps_the_ignore_value_one_past_the_classes_and_the_checks_accept_it(sparse_dataset):
    manifest = load_msd(sparse_dataset)
    assert manifest.labels == {0: "background", 1: "ventricles", 2: "lesion"} and manifest.num_outputs == 3
    assert manifest.ignore_value == IGNORE and manifest.ignore_index == 3
    assert manifest.label_map is None  # 3 is class index 3 already
    assert dataclasses.replace(manifest, ignore_value=255).label_map == {0: 0, 1: 1, 2: 2, 255: 3}
    report = check_manifest(manifest)
    assert report.errors == [] and not any("ignore" in w or " 3" in w for w in report.warnings)
    # a value above it is still refused, naming it and the values declared
    relabelled = json.loads(sparse_dataset.read_text())
    relabelled["labels"] = {"0": "background", "1": "ventricles", "2": "lesion", "5": "ignore"}
    other = sparse_dataset.with_name("other.json")
    other.write_text(json.dumps(relabelled))
    errors = check_manifest(load_msd(other)).errors
    assert errors and "label values [3] are not declared (declared: [0, 1, 2, 5], 5 = ignore" in errors[0]
    # values 0..C: the ignore value is no class (it read "num_classes=3" for the 2 classes below)
    relabelled["labels"] = {"0": "background", "1": "ventricles", "2": "ignore"}
    other.write_text(json.dumps(relabelled))
    errors = check_manifest(load_msd(other)).errors
    assert errors and "(declared: 0..2, num_classes=2, 2 = ignore (unannotated))" in errors[0], errors[0]


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("batch", [False, True])
def test_with_nothing_ignored_the_partial_loss_is_the_loss_of_the_whole_patch(name, batch):
    torch.manual_seed(0)
    logits, label = torch.randn(2, 3, 6, 5, 4), torch.randint(0, 3, (2, 1, 6, 5, 4))
    whole = training_loss(None, name, {"batch": batch})
    partial = training_loss(None, name, {"batch": batch}, ignore_index=3)
    assert isinstance(partial, AnnotatedVoxels)
    torch.testing.assert_close(partial(logits, label), whole(logits, label))


@pytest.mark.parametrize("batch", [False, True])
def test_ignored_voxels_neither_count_nor_receive_a_gradient(batch):
    """Sample 0 annotated on its first 2 of 4 slices, sample 1 wholly: the loss is that of the annotated
    sub-volumes, per sample and averaged (each a batch of its own), or pooled with batch Dice."""
    torch.manual_seed(1)
    logits = torch.randn(2, 3, 6, 5, 4, requires_grad=True)
    label = torch.randint(0, 3, (2, 1, 6, 5, 4))
    label[0, ..., 2:] = 3
    loss = training_loss(None, "dice_ce", {"batch": batch}, ignore_index=3)(logits, label)
    plain = training_loss(None, "dice_ce", {"batch": batch})
    if batch:  # one sample of every annotated voxel: the same voxels in another arrangement
        pooled_logits = torch.cat([logits[0, :, :, :, :2].flatten(1), logits[1].flatten(1)], 1)
        pooled_label = torch.cat([label[0, :, :, :, :2].flatten(), label[1].flatten()])
        expected = plain(pooled_logits[None], pooled_label[None, None])
    else:
        expected = (plain(logits[:1, ..., :2], label[:1, ..., :2]) + plain(logits[1:], label[1:])) / 2
    torch.testing.assert_close(loss, expected)
    loss.backward()
    assert logits.grad[0, ..., 2:].abs().max() == 0 and logits.grad[0, ..., :2].abs().max() > 0


def test_a_batch_with_no_annotated_voxel_gives_zero_and_zero_gradients():
    logits = torch.randn(2, 3, 4, 4, 4, requires_grad=True)
    loss = training_loss(None, "dice_focal", {}, ignore_index=3)(logits, torch.full((2, 1, 4, 4, 4), 3))
    loss.backward()
    assert loss.item() == 0 and logits.grad.abs().max() == 0


def test_deep_supervision_and_regions_score_the_annotated_voxels_too():
    spec = model_spec("dynunet", 1, 2, (16, 16, 16), {"deep_supervision": True, "deep_supr_num": 1})
    regions = Regions.declared({"findings": [1, 2], "lesion": [2]}, [0, 1, 2], "data.regions")
    torch.manual_seed(2)
    heads, label = torch.randn(2, 2, 2, 4, 4, 4), torch.randint(0, 3, (2, 1, 4, 4, 4))  # (batch, heads, regions)
    partial = training_loss(spec, "dice_ce", {}, regions, ignore_index=3)
    torch.testing.assert_close(partial(heads, label), training_loss(spec, "dice_ce", {}, regions)(heads, label))
    label[:, ..., 2:] = 3
    torch.testing.assert_close(partial(heads, label),
                               training_loss(spec, "dice_ce", {}, regions)(heads[..., :2], label[..., :2]))


def test_regions_with_a_class_weight_score_the_annotated_voxels_too():
    """A weight per region, shaped for a patch, broadcast against the line of annotated voxels: the run was
    refused as "cannot score 2 regions ... A class weight has one value per region", which it had."""
    regions = Regions.declared({"findings": [1, 2], "lesion": [2]}, [0, 1, 2], "data.regions")
    torch.manual_seed(3)
    logits, label = torch.randn(2, 2, 4, 4, 4), torch.randint(0, 3, (2, 1, 4, 4, 4))
    args = {"weight": [1.0, 3.0]}
    partial, whole = (training_loss(None, "dice_ce", args, regions, ignore_index=index) for index in (3, None))
    check_loss(partial, 3, "dice_ce", regions)
    torch.testing.assert_close(partial(logits, label), whole(logits, label))
    label[:, ..., 2:] = 3
    torch.testing.assert_close(partial(logits, label), whole(logits[..., :2], label[..., :2]))


def test_patches_not_centred_on_a_class_are_centred_on_an_annotated_voxel():
    shape = (10, 10, 10)
    annotated = np.zeros(shape, bool)
    annotated[:, :, 7] = True  # one slice in ten
    rng = np.random.default_rng(0)
    centres = [choose_centre(rng, shape, [np.array([], np.int64)], [0], 0.0, False, lambda v: annotated[v])
               for _ in range(50)]
    assert all(c[2] == 7 for c in centres) and len(set(centres)) > 10
    # nothing annotated: a foreground voxel, if any, rather than an unannotated one
    nowhere = lambda v: False  # noqa: E731
    assert choose_centre(rng, shape, [np.array([123])], [1], 0.0, False, nowhere) == (1, 2, 3)


def test_the_metrics_leave_the_unannotated_voxels_out():
    label = np.zeros((6, 6, 6), np.uint8)
    label[1:3, 1:3, 1:3] = 1
    label[:, :, 4:] = 9  # unannotated
    pred = (label == 1).astype(np.uint8)
    pred[:, :, 4:] = 1  # wrong where nobody looked: not counted
    assert case_metrics(pred, label, 2, (1, 1, 1), distances=False, ignore=9)[1]["dice"] == 1.0
    assert case_metrics(pred, label, 2, (1, 1, 1), distances=False)[1]["dice"] < 1.0
    regions = Regions.declared({"all": [1]}, [0, 1], "regions")
    assert region_metrics(pred, label, regions, (1, 1, 1), distances=False, ignore=9)[0]["dice"] == 1.0


def test_a_sparse_run_trains_validates_on_annotated_voxels_exports_predicts_and_evaluates(sparse_dataset, tmp_path,
                                                                                        capsys):
    out = tmp_path / "run"
    summary = train(load_config(None, tiny_overrides(sparse_dataset, out)))
    assert summary["step"] == 4
    history = json.loads((out / "metrics.json").read_text())["validation"]
    assert {"dice_ventricles", "dice_lesion"} <= set(history[-1]) and "dice_ignore" not in history[-1]
    assert all(math.isfinite(row["mean_dice"]) for row in history)

    config = json.loads((out / "model" / "config.json").read_text())
    assert config["ignore_value"] == IGNORE and config["num_classes"] == 3
    assert config["labels"] == {"0": "background", "1": "ventricles", "2": "lesion"}
    assert config["model"]["args"]["out_channels"] == 3
    assert ignore_from_json(out / "model" / "config.json") == ignore_from_json(sparse_dataset) == IGNORE
    assert export_value_errors(config) == []
    assert export_value_errors({**config, "ignore_value": "3"}) == [
        "ignore_value '3' is not a whole number >= 1 (the labels' value of unannotated voxels)"]

    cases = load_msd(sparse_dataset).validation
    labels = tmp_path / "labels"
    labels.mkdir()
    for case in cases:
        (labels / case.label.name).write_bytes(case.label.read_bytes())
    predictions = tmp_path / "predictions"
    assert main(["predict", "--model", str(out / "model"), "--output", str(predictions),
                 *[str(case.images[0]) for case in cases]]) == 0
    for path in predictions.glob("*.nii.gz"):  # dense: every voxel a class, none "ignore"
        assert set(np.unique(np.asanyarray(nib.load(path).dataobj)).tolist()) <= {0, 1, 2}
    capsys.readouterr()
    assert main(["evaluate", str(predictions), str(labels), "--labels", str(sparse_dataset),
                 "--output", str(tmp_path / "evaluation")]) == 0
    assert "class 1 ventricles: Dice" in capsys.readouterr().out
    scored = json.loads((tmp_path / "evaluation" / "summary.json").read_text())
    assert scored["classes"] == {"1": "ventricles", "2": "lesion"} and scored["ignore_value"] == IGNORE
    assert scored["per_class"]["1"]["hd95_mm"]["n_nan"] == len(cases) and "ignore" in scored["conventions"]
    # the same Dice as the annotated slices' alone, by hand
    pred = np.asanyarray(nib.load(predictions / cases[0].label.name).dataobj)
    label = np.asanyarray(nib.load(cases[0].label).dataobj)
    kept = label != IGNORE
    by_hand = 2 * np.sum((pred == 1) & (label == 1) & kept) / (np.sum((pred == 1) & kept) + np.sum(label == 1))
    row = [line.split(",") for line in (tmp_path / "evaluation" / "metrics.csv").read_text().splitlines()]
    header = row[0]
    first = next(r for r in row[1:] if r[header.index("case")] == cases[0].id and r[header.index("class")] == "1")
    assert float(first[header.index("dice")]) == pytest.approx(by_hand, abs=1e-5)
    assert float(evaluate_folders(predictions, labels, num_classes=3, ignore_value=IGNORE,
                                  output_dir=tmp_path / "again")["overall"]["dice"]["mean"]) == pytest.approx(
        scored["overall"]["dice"]["mean"])


def test_the_estimator_takes_an_ignore_value_and_evaluates_the_annotated_voxels(sparse_dataset, tmp_path):
    from accelerated_seg.estimator import Dataset, Segmentation

    manifest = load_msd(sparse_dataset)
    pairs = [(str(c.images[0]), str(c.label)) for c in manifest.training]
    held_out = [(str(c.images[0]), str(c.label)) for c in manifest.validation]
    with pytest.raises(DataError, match="value 2 is a class's"):
        Dataset.from_files(pairs, block_shape=16, n_classes=3, ignore_value=2)
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=held_out, ignore_value=IGNORE,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    assert data.manifest.ignore_index == 3
    # in the words the user wrote: "from_pairs: labels argument" named an argument never given
    with pytest.raises(DataError, match=r"^Dataset.from_files: ignore_value 3 and \.binarize\(\) \(data.binarize\)"):
        data.binarize()
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=2, save_every=0, trackers="none",
                         progress_bar=False)
    model.fit(data, steps=2)
    summary = model.evaluate(data)
    assert summary["ignore_value"] == 3 and summary["per_class"]["2"]["dice"]["n"] == len(held_out)


def test_a_region_holding_the_ignore_value_is_refused_naming_the_ignore_label(sparse_dataset):
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import with_regions

    data = DataConfig(dataset=str(sparse_dataset), regions={"findings": [1, 2, IGNORE]})
    with pytest.raises(DataError, match=rf"\[{IGNORE}\] are not among .*; {IGNORE} is the ignore label, the voxels "
                                        r"nobody annotated, which are in no region"):
        with_regions(data, load_msd(sparse_dataset))


def test_a_class_predicted_only_where_nobody_annotated_is_in_neither_file_and_misses_count_where_annotated():
    label = np.zeros((6, 6, 6), np.uint8)
    label[1:3, 1:3, 1:3] = 1
    label[:, :, 4:] = 9  # unannotated
    pred = np.zeros_like(label)
    pred[1:3, 1:3, 1:2] = 1  # half of class 1 missed where annotated: counted
    pred[:, :, 5] = 2  # class 2 only where nobody looked: neither in the label nor, scored, in the prediction
    scores = case_metrics(pred, label, 3, (0.7, 0.7, 5.0), distances=False, ignore=9)
    assert scores[1] == {"dice": pytest.approx(2 * 4 / 12), "label_voxels": 8, "pred_voxels": 4}
    assert scores[2] == {"dice": 1.0, "label_voxels": 0, "pred_voxels": 0}


def _box_maps(ignored: bool) -> tuple[np.ndarray, np.ndarray]:
    """A prediction one slice off a box of class 1 (HD95 5 mm on 0.7 x 0.7 x 5 mm voxels), and its reference,
    annotated in full or with its last slices unannotated (9)."""
    label = np.zeros((8, 8, 8), np.uint8)
    label[2:5, 2:5, 2:5] = 1
    pred = np.roll(label, 1, axis=2)
    if ignored:
        label[:, :, 6:] = 9
    return pred, label


def test_a_fully_annotated_case_is_scored_as_without_an_ignore_label_distances_included():
    """The distances are not defined on a surface drawn in part, but a case with no ignored voxel has its surfaces
    drawn in full: HD95 and surface Dice as without the ignore label, the same numbers (they were refused for every
    case until the ninety-third session)."""
    pred, label = _box_maps(ignored=False)
    spacing, regions = (0.7, 0.7, 5.0), Regions.declared({"all": [1]}, [0, 1], "regions")
    assert case_metrics(pred, label, 2, spacing, ignore=9) == case_metrics(pred, label, 2, spacing)
    assert case_metrics(pred, label, 2, spacing, ignore=9)[1]["hd95_mm"] == pytest.approx(5.0)
    assert region_metrics(pred, label, regions, spacing, ignore=9) == region_metrics(pred, label, regions, spacing)
    pred, label = _box_maps(ignored=True)  # annotated in part: Dice of the annotated voxels, no distances
    partial = case_metrics(pred, label, 2, spacing, ignore=9)[1]
    assert partial["dice"] == case_metrics(pred, label, 2, spacing, distances=False, ignore=9)[1]["dice"]
    assert math.isnan(partial["hd95_mm"]) and math.isnan(partial["surface_dice"])
    assert math.isnan(region_metrics(pred, label, regions, spacing, ignore=9)[0]["surface_dice"])


def test_evaluate_measures_the_distances_of_the_fully_annotated_cases_and_says_how_many_are_left_out(tmp_path, capsys):
    """A dataset of dense cases and a few sparse ones lost HD95 and surface Dice for every case (NaN) until the
    ninety-third session; the dense cases' rows are now those scored without the ignore label."""
    dataset_json = tmp_path / "dataset.json"
    dataset_json.write_text(json.dumps({"labels": {"background": 0, "box": 1, "ignore": 9}}))
    affine = np.diag([0.7, 0.7, 5.0, 1.0])
    for folder in ("pred", "label", "dense_pred", "dense_label"):
        (tmp_path / folder).mkdir()
    for case, ignored in (("dense", False), ("sparse", True)):
        pred, label = _box_maps(ignored)
        for folder, array in (("pred", pred), ("label", label)):
            nib.save(nib.Nifti1Image(array, affine), tmp_path / folder / f"{case}.nii.gz")
    for folder in ("pred", "label"):
        shutil.copy(tmp_path / folder / "dense.nii.gz", tmp_path / f"dense_{folder}" / "dense.nii.gz")

    assert main(["evaluate", str(tmp_path / "pred"), str(tmp_path / "label"), "--labels", str(dataset_json),
                 "--output", str(tmp_path / "mixed")]) == 0
    said = capsys.readouterr().out
    summary = json.loads((tmp_path / "mixed" / "summary.json").read_text())
    hd95 = summary["per_class"]["1"]["hd95_mm"]
    assert (hd95["n"], hd95["n_nan"], hd95["mean"]) == (1, 1, pytest.approx(5.0))
    assert summary["cases_annotated_in_part"] == ["sparse"]
    assert "class 1 box: Dice" in said and "HD95 5.0000 ± 0.0000 mm" in said, said
    assert "1 of 2 case(s) annotated in part" in said, said
    # the dense case's row is the one scored without an ignore label, every column
    plain_json = tmp_path / "plain.json"
    plain_json.write_text(json.dumps({"labels": {"background": 0, "box": 1}}))
    evaluate_folders(tmp_path / "dense_pred", tmp_path / "dense_label", dataset_json=plain_json,
                     output_dir=tmp_path / "without")
    rows = {name: (tmp_path / name / "metrics.csv").read_text().splitlines() for name in ("mixed", "without")}
    assert [row for row in rows["mixed"] if row.startswith("dense,")] == rows["without"][1:]


def test_a_class_in_neither_file_of_a_case_annotated_in_part_is_counted_as_not_measured_not_as_0_mm(tmp_path,
                                                                                                   capsys):
    """Such a case's HD95 is NaN and not averaged, but evaluate's line counted it "in neither file: 0 mm" too, and
    validation's note "(Dice 1, HD95 0 mm)", so one case was said twice (until the ninety-third session)."""
    dataset_json = tmp_path / "dataset.json"
    dataset_json.write_text(json.dumps({"labels": {"background": 0, "box": 1, "ball": 2, "ignore": 9}}))
    for case, ignored in (("dense", False), ("sparse", True)):  # the ball in neither file of either
        for folder, array in zip(("pred", "label"), _box_maps(ignored)):
            (tmp_path / folder).mkdir(exist_ok=True)
            nib.save(nib.Nifti1Image(array, np.diag([0.7, 0.7, 5.0, 1.0])), tmp_path / folder / f"{case}.nii.gz")
    assert main(["evaluate", str(tmp_path / "pred"), str(tmp_path / "label"), "--labels", str(dataset_json),
                 "--output", str(tmp_path / "scored")]) == 0
    assert ("class 2 ball: Dice 1.0000 ± 0.0000 over the annotated voxels, HD95 0.0000 ± 0.0000 mm (of 2 case(s): "
            "1 annotated in part: NaN, not averaged; 1 in neither file: 0 mm)") in capsys.readouterr().out
    ball = json.loads((tmp_path / "scored" / "summary.json").read_text())["per_class"]["2"]
    assert (ball["n_both_empty"], ball["n_both_empty_annotated_in_part"], ball["hd95_mm"]["n_nan"]) == (2, 1, 1)
    # validation's note, from the scores validate gives (cases x classes; NaN in every class of the sparse case)
    scores = {"dice": np.array([[0.8, 1.0], [0.7, 1.0]]), "both_empty": np.array([[0.0, 1.0], [0.0, 1.0]]),
              "hd95_mm": np.array([[5.0, 0.0], [math.nan, math.nan]])}
    counts = empty_case_counts(["box", "ball"], scores, sparse=True)
    assert empty_cases_note(["box", "ball"], counts, 2) == (
        "\n  of 2 case(s): 1 annotated in part (no HD95 or surface Dice there); ball: 1 in neither file (Dice 1, "
        "HD95 0 mm), 1 in neither file of a case annotated in part (Dice 1, no HD95)")


def test_validation_measures_the_distances_of_the_validation_cases_annotated_in_full(partly_sparse_dataset, tmp_path,
                                                                                    capsys):
    """train.val_distances with an ignore label was refused until the ninety-third session, whatever the validation
    cases; it now measures HD95 and surface Dice of the cases annotated in full, as evaluate does, and says how many
    were left out."""
    cases = load_msd(partly_sparse_dataset).validation
    held = [bool(np.any(np.asanyarray(nib.load(case.label).dataobj) == IGNORE)) for case in cases]
    assert held == [True] + [False] * (len(cases) - 1)
    out = tmp_path / "run"
    train(load_config(None, tiny_overrides(partly_sparse_dataset, out, train__val_distances="true")))
    last = json.loads((out / "metrics.json").read_text())["validation"][-1]
    assert last["n_annotated_in_part"] == 1 and "hd95_mm_n_inf_ventricles" in last
    said = capsys.readouterr().out
    assert f"of {len(cases)} case(s): 1 annotated in part (no HD95 or surface Dice there)" in said, said
    # without validation it is only said to have no effect
    train(load_config(None, tiny_overrides(partly_sparse_dataset, tmp_path / "unvalidated", train__val_distances="true",
                                           train__val_every=0, train__max_steps=1)))
    assert "train.val_distances=true has no effect in this run" in capsys.readouterr().out
