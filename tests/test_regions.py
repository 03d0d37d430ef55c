"""Region-based training (regions.py): overlapping regions declared in label values, one sigmoid per
region, trained with Dice + binary cross-entropy, painted back into a label map in order, and scored per
region by validation, predict's label maps and evaluate alike."""

import json
import math

import nibabel as nib
import numpy as np
import pytest
import torch
from monai.losses import DiceLoss
from monai.transforms import ConvertToMultiChannelBasedOnBratsClasses
from safetensors.torch import load_file, save_file

from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import case_metrics, evaluate_folders, region_metrics, regions_from_json
from accelerated_seg.exported_model import export_value_errors, load_exported
from accelerated_seg.inference import predict_cases, prepare_case, restore_case
from accelerated_seg.losses import RegionDiceCELoss, check_loss, training_loss
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.regions import Regions
from accelerated_seg.train import train
from conftest import tiny_overrides

# The Decathlon's Task01_BrainTumour (1 edema, 2 non-enhancing, 3 enhancing tumour), whose core is 2 and 3; in
# BraTS' own values the core is 1 and 4 (test_nested_regions_paint_the_one_value_no_later_region_holds)
BRATS = {"whole_tumor": [1, 2, 3], "tumor_core": [2, 3], "enhancing_tumor": [3]}


def test_nested_regions_paint_the_one_value_no_later_region_holds():
    regions = Regions.declared(BRATS, [0, 1, 2, 3], "data.regions")
    assert regions.names == ("whole_tumor", "tumor_core", "enhancing_tumor") and regions.order == (1, 2, 3)
    assert regions.count == 3
    # BraTS' own files (1 necrosis, 2 edema, 4 enhancing) and their regions, as MONAI's
    # ConvertToMultiChannelBasedOnBratsClasses makes them: whole tumour 1, 2, 4; core 1, 4; enhancing 4. The map
    # written back paints edema, necrosis, enhancing tumour in BraTS' values (docs/data.md, Regions). Until the
    # ninety-fifth session this example had the core as 2 and 4, edema and enhancing tumour.
    brats = Regions.declared({"wt": [1, 2, 4], "tc": [1, 4], "et": [4]}, [0, 1, 2, 4], "data.regions")
    assert brats.order == (2, 1, 4)
    label = torch.tensor([0, 1, 2, 4]).reshape(1, 1, 4)
    tc, wt, et = ConvertToMultiChannelBasedOnBratsClasses()(label[0, 0])  # MONAI's channels: TC, WT, ET
    assert torch.equal(brats.masks(label)[0], torch.stack([wt, tc, et]))
    assert brats.paint(torch.tensor([[0.9, 0.9, 0.9, 0.1], [0.1, 0.9, 0.9, 0.1], [0.1, 0.1, 0.9, 0.1]])).tolist() == [
        2, 1, 4, 0]
    # the same regions over the classes the cache holds (0..3, BraTS' 4 as class 3)
    in_classes = brats.in_classes({0: 0, 1: 1, 2: 2, 4: 3})
    assert in_classes.values == ((1, 2, 3), (1, 3), (3,)) and in_classes.order == (2, 1, 3)
    assert Regions.from_dict(json.loads(json.dumps(brats.to_dict()))) == brats


@pytest.mark.parametrize("raw, order, message", [
    ({"a": [1, 5]}, None, r"value\(s\) \[5\] are not among"),
    ({"a": [0, 1]}, None, "holds 0, the background"),
    ({"a": [1, 2], "b": [2, 1]}, None, "two regions hold the same values"),
    ({"a": [1, 2]}, None, "cannot tell which value region 'a' paints"),
    ({"a": []}, None, "a region is a non-empty list"),
    ([1, 2], None, "expected a mapping"),
    ({"a": [1, 2], "b": [2]}, [1], "gives 1 value"),
    ({"a": [1, 2], "b": [2]}, [1, 1], "outside its region"),
])
def test_a_declaration_that_cannot_work_is_one_error_naming_the_setting(raw, order, message):
    with pytest.raises(DataError, match=message) as raised:
        Regions.declared(raw, [0, 1, 2], "data.regions", order)
    assert str(raised.value).startswith("data.regions")


def test_masks_overlap_and_later_regions_paint_over_earlier_ones():
    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, [0, 1, 2], "data.regions")
    label = torch.tensor([0, 1, 2]).reshape(1, 1, 3, 1, 1)
    masks = regions.masks(label)
    assert masks.shape == (1, 2, 3, 1, 1)
    assert masks[0, :, :, 0, 0].tolist() == [[False, True, True], [False, False, True]]
    probabilities = torch.tensor([[0.2, 0.9, 0.9, 0.3], [0.9, 0.1, 0.8, 0.5]])  # (regions, voxels)
    # core alone predicted (voxel 0) paints 2 as well: a voxel takes the last region predicted there
    assert regions.paint(probabilities).tolist() == [2, 1, 2, 0]
    assert regions.paint(torch.logit(probabilities), threshold=0.0).tolist() == [2, 1, 2, 0]
    assert regions.paint(probabilities).dtype == torch.uint8


def test_the_loss_scores_each_region_with_a_sigmoid_dice_and_a_binary_cross_entropy():
    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, [0, 1, 2], "data.regions")
    torch.manual_seed(0)
    logits, label = torch.randn(2, 2, 8, 8, 8), torch.randint(0, 3, (2, 1, 8, 8, 8))
    targets = regions.masks(label).float()
    by_hand = DiceLoss(sigmoid=True)(logits, targets) + torch.nn.functional.binary_cross_entropy_with_logits(
        logits, targets)
    torch.testing.assert_close(training_loss(None, "dice_ce", {}, regions)(logits, label), by_hand)
    # a weight per region weighs that region's positives, along the channel axis (not the last spatial one)
    weighted = training_loss(None, "dice_ce", {"weight": [1.0, 3.0], "lambda_dice": 0.0}, regions)(logits, label)
    pos_weight = torch.tensor([1.0, 3.0]).reshape(2, 1, 1, 1)
    torch.testing.assert_close(weighted, torch.nn.functional.binary_cross_entropy_with_logits(
        logits, targets, pos_weight=pos_weight))
    assert isinstance(training_loss(None, "dice_ce", {}, regions).loss, RegionDiceCELoss)
    for name in ("dice_focal", "dice", "generalized_dice", "tversky"):  # each trains on the regions' masks
        value = training_loss(None, name, {}, regions)(logits.requires_grad_(), label)
        assert value.dim() == 0 and torch.isfinite(value)


def test_loss_arguments_that_contradict_regions_are_refused_before_the_data_work():
    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, [0, 1, 2], "data.regions")
    with pytest.raises(ConfigError, match=r"include_background is True, as the targets are the regions' masks"):
        training_loss(None, "dice_ce", {"include_background": False}, regions)
    with pytest.raises(ConfigError, match="softmax is False"):
        training_loss(None, "dice", {"softmax": True}, regions)
    with pytest.raises(ConfigError, match="cannot score 2 regions.*one value per region"):
        check_loss(training_loss(None, "dice_ce", {"weight": [1.0, 2.0, 3.0]}, regions), 3, "dice_ce", regions)


def test_regions_with_deep_supervision_score_every_head():
    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, [0, 1, 2], "data.regions")
    spec = model_spec("dynunet", 1, 2, (32, 32, 32), {"filters": [4, 8, 16, 16], "deep_supervision": True,
                                                      "deep_supr_num": 2})
    loss_fn = training_loss(spec, "dice_ce", {}, regions)
    stacked, label = torch.randn(2, 3, 2, 8, 8, 8), torch.randint(0, 3, (2, 1, 8, 8, 8))
    single = training_loss(None, "dice_ce", {}, regions)
    by_hand = sum(w * single(stacked[:, i], label) for i, w in enumerate([4 / 7, 2 / 7, 1 / 7]))
    torch.testing.assert_close(loss_fn(stacked, label), by_hand)


def test_region_metrics_score_the_voxels_holding_any_of_a_regions_values():
    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, [0, 1, 2], "data.regions")
    label = np.zeros((6, 6, 6), np.uint8)
    label[1:5, 1:5, 1:5] = 1
    label[2:4, 2:4, 2:4] = 2
    pred = label.copy()
    pred[pred == 2] = 1  # the core missed, the tumour whole
    scores = region_metrics(pred, label, regions, (1.0, 1.0, 1.0), distances=False)
    assert scores[0]["dice"] == 1.0 and scores[1]["dice"] == 0.0 and scores[1]["label_voxels"] == 8


@pytest.mark.parametrize("config_args, settings", [
    ({"data.regions": "{a: [1]}", "data.binarize": "true"}, "data.regions and data.binarize"),
    ({"data.region_order": "[1]"}, "data.region_order orders data.regions.*dataset.json are painted in its "
                                   "\"regions_class_order\""),
])
def test_settings_that_exclude_regions_are_refused_in_the_config(config_args, settings):
    with pytest.raises(ConfigError, match=settings):
        load_config(None, [f"--{key}={value}" for key, value in config_args.items()])


def test_an_export_whose_regions_do_not_fit_its_network_is_refused():
    config = {"in_channels": 1, "num_classes": 3, "patch_size": [16, 16, 16],
              "model": {"name": "unet", "monai_class": "UNet", "args": {"in_channels": 1, "out_channels": 2}},
              "regions": {"names": ["a", "b"], "values": [[1, 2], [2]], "order": [1, 2]}}
    assert export_value_errors(config) == []
    assert export_value_errors({**config, "regions": {**config["regions"], "order": [1, 1]}}) == [
        "regions.order paints value(s) [1] outside their regions"]
    assert "out_channels is 2" in export_value_errors({**config, "regions": {"names": ["a"], "values": [[1]],
                                                                             "order": [1]}})[0]
    assert "not {" in export_value_errors({**config, "regions": {"names": ["a", "b"]}})[0]


def test_a_model_whose_regions_hold_a_value_none_of_its_classes_is_written_as_is_refused_at_load(tmp_path):
    """Checked when the model is loaded (read_export_config), not once per case of a prediction."""
    network = model_spec("unet", 1, 2, (16, 16, 16), {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    folder = tmp_path / "model"
    folder.mkdir()
    save_file(build_from_spec(network).state_dict(), folder / "model.safetensors")
    config = {"in_channels": 1, "num_classes": 3, "patch_size": [16, 16, 16], "model": network.to_dict(),
              "regions": {"names": ["a", "b"], "values": [[1, 2], [2]], "order": [1, 2]}}
    (folder / "config.json").write_text(json.dumps(config))
    assert load_exported(folder)[1]["regions"] == config["regions"]
    config["regions"] = {"names": ["a", "b"], "values": [[1, 7], [7]], "order": [1, 7]}
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataError, match=r"config.json declares regions of label value\(s\) \[7\], which none of its 3 "
                                        r"classes \[0, 1, 2\] is"):
        load_exported(folder)


REGIONS = {"data.regions": "{findings: [1, 2], lesion: [2]}"}


def test_a_region_based_run_trains_validates_exports_predicts_and_evaluates_per_region(tiny_dataset, tmp_path,
                                                                                       capsys):
    """The demo's phantoms (1 ventricles, 2 lesion) as two overlapping regions: every finding, and the
    lesion. The export is a plain MONAI network with one output per region; predict paints the regions
    back into the dataset's values, consistently with the sigmoid probabilities it writes; evaluate,
    given the export's config.json, scores the regions."""
    out = tmp_path / "run"
    summary = train(load_config(None, tiny_overrides(tiny_dataset, out, train__max_steps=6, **REGIONS)))
    assert summary["step"] == 6
    history = json.loads((out / "metrics.json").read_text())["validation"]
    assert {"dice_findings", "dice_lesion"} <= set(history[-1]) and "dice_ventricles" not in history[-1]
    assert history[-1]["mean_dice"] == pytest.approx((history[-1]["dice_findings"] + history[-1]["dice_lesion"]) / 2)

    config = json.loads((out / "model" / "config.json").read_text())
    assert config["regions"] == {"names": ["findings", "lesion"], "values": [[1, 2], [2]], "order": [1, 2]}
    assert config["num_classes"] == 3 and config["model"]["args"]["out_channels"] == 2
    network, _ = load_exported(out / "model")
    assert network(torch.zeros(1, 1, 16, 16, 16)).shape == (1, 2, 16, 16, 16)
    assert set(load_file(out / "model" / "model.safetensors"))  # loads strictly (load_exported did)

    cases = load_msd(tiny_dataset).validation
    predictions, labels = tmp_path / "predictions", tmp_path / "labels"
    labels.mkdir()
    for case in cases:
        (labels / case.label.name).write_bytes(case.label.read_bytes())
    written = predict_cases(out / "model", [str(case.images[0]) for case in cases], predictions,
                            probabilities=True)
    for path in written:
        painted = np.asanyarray(nib.load(path).dataobj)
        probabilities = nib.load(str(path).replace(".nii.gz", "_probs.nii.gz")).get_fdata()
        assert probabilities.shape == (*painted.shape, 2) and 0 <= probabilities.min() <= probabilities.max() <= 1
        # the map is the regions' probabilities painted in order, in the dataset's values
        expected = Regions.from_dict(config["regions"]).paint(torch.from_numpy(np.moveaxis(probabilities, -1, 0)))
        np.testing.assert_array_equal(painted, expected.numpy())

    # where the network gave nothing (cropped away, outside the grid) no region is filled in, as the
    # background class is for exclusive classes
    prepared = prepare_case(config, [cases[0].images[0]])
    restored = restore_case(prepared, torch.zeros(2, *prepared.image.shape[1:]), keep_probabilities=True)
    assert restored.probabilities.max() == 0 and restored.classes.max() == 0

    assert main(["evaluate", str(predictions), str(labels), "--labels", str(out / "model" / "config.json"),
                 "--output", str(tmp_path / "evaluation")]) == 0
    assert "region 1 findings: Dice" in capsys.readouterr().out
    scored = json.loads((tmp_path / "evaluation" / "summary.json").read_text())
    assert scored["classes"] == {"1": "findings", "2": "lesion"} and scored["regions"] == config["regions"]
    again = evaluate_folders(predictions, labels, dataset_json=out / "model" / "config.json",
                             output_dir=tmp_path / "evaluation")
    assert again["per_class"]["2"]["dice"]["n"] == len(cases)
    with pytest.raises(ValueError, match="declares regions.*drop num_classes"):
        evaluate_folders(predictions, labels, num_classes=3, dataset_json=out / "model" / "config.json",
                         output_dir=tmp_path / "evaluation")


def test_an_nnunet_dataset_of_regions_in_nii_files_is_predicted_in_its_names_and_ending(tiny_dataset, tmp_path,
                                                                                        capsys):
    """nnU-Net's journey: a dataset.json declaring regions and "file_ending": ".nii", trained, predicted into a
    folder and evaluated against its labelsTs. The export named the value 1 that "findings" paints "label_1", and
    predict wrote <case>.nii.gz beside labelsTs' <case>.nii; both now follow the dataset.json."""
    raw = tmp_path / "Dataset001_Phantoms"
    manifest = load_msd(tiny_dataset)
    for folder in ("imagesTr", "labelsTr", "imagesTs", "labelsTs"):
        (raw / folder).mkdir(parents=True)
    for case in manifest.training + manifest.validation:
        nib.save(nib.load(case.images[0]), raw / "imagesTr" / f"{case.id}_0000.nii")
        nib.save(nib.load(case.label), raw / "labelsTr" / f"{case.id}.nii")
    for case in manifest.validation:
        nib.save(nib.load(case.images[0]), raw / "imagesTs" / f"{case.id}_0000.nii")
        nib.save(nib.load(case.label), raw / "labelsTs" / f"{case.id}.nii")
    (raw / "dataset.json").write_text(json.dumps({
        "channel_names": {"0": "MRI"}, "labels": {"background": 0, "findings": [1, 2], "lesion": 2},
        "numTraining": len(manifest.training + manifest.validation), "file_ending": ".nii"}))
    out = tmp_path / "run"
    train(load_config(None, tiny_overrides(raw / "dataset.json", out, train__max_steps=2, train__val_every=0)))
    config = json.loads((out / "model" / "config.json").read_text())
    assert config["labels"] == {"0": "background", "1": "findings", "2": "lesion"} and config["file_ending"] == ".nii"

    assert main(["predict", "--model", str(out / "model"), str(raw / "imagesTs"), "--output",
                 str(tmp_path / "predictions")]) == 0
    assert sorted(path.name for path in (tmp_path / "predictions").iterdir()) == sorted(
        f"{case.id}.nii" for case in manifest.validation)
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "predictions"), str(raw / "labelsTs"), "--labels", str(raw / "dataset.json"),
                 "--output", str(tmp_path / "evaluation")]) == 0
    assert "region 1 findings: Dice" in capsys.readouterr().out
    assert json.loads((tmp_path / "evaluation" / "summary.json").read_text())["classes"] == {"1": "findings",
                                                                                            "2": "lesion"}


def test_a_resume_with_other_regions_is_refused_before_the_load(tiny_dataset, tmp_path):
    out = tmp_path / "run"
    train(load_config(None, tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=0, **REGIONS)))
    other = {"data.regions": "{findings: [1, 2], ventricles: [1]}"}
    with pytest.raises(ConfigError, match=r"learned other regions .*data.regions.lesion \[2\] there, None here.*"
                                          r"train.init_from"):
        train(load_config(None, tiny_overrides(tiny_dataset, out, train__max_steps=4, train__val_every=0,
                                               train__resume="latest", **other)))


def test_one_region_trains_on_the_cpu_and_plan_counts_its_one_output(tiny_dataset, tmp_path, capsys):
    """One region is a network of one output (a sigmoid): training on the CPU was refused by its memory
    check as "classes including background (--classes) must be an integer >= 2", and so was plan of it."""
    out = tmp_path / "run"
    summary = train(load_config(None, tiny_overrides(tiny_dataset, out, train__max_steps=1,
                                                     data__regions="{lesion: [2]}")))
    assert summary["step"] == 1 and json.loads((out / "model" / "config.json").read_text())["regions"]["names"] == [
        "lesion"]
    capsys.readouterr()
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--classes", "1"]) == 0


def test_a_model_of_one_region_is_evaluated_against_its_datasets_references(tiny_dataset, tmp_path, capsys):
    """A region of some of the dataset's values ({lesion: [2]}): evaluate --labels <its config.json> refused the
    references it was trained on, "label value(s) [1] are not among the classes scored [0, 2] ... if 1 marks
    unannotated voxels, give --labels a dataset.json that names it the ignore label"; 1 is in no region,
    background to each, as training's validation scored it."""
    out = tmp_path / "run"
    train(load_config(None, tiny_overrides(tiny_dataset, out, train__max_steps=1, train__val_every=0,
                                           data__regions="{lesion: [2]}")))
    cases = load_msd(tiny_dataset).validation
    predictions, labels = tmp_path / "predictions", tmp_path / "labels"
    labels.mkdir()
    for case in cases:
        (labels / case.label.name).write_bytes(case.label.read_bytes())
    assert any(1 in np.unique(np.asanyarray(nib.load(case.label).dataobj)) for case in cases)
    predict_cases(out / "model", [str(case.images[0]) for case in cases], predictions)
    capsys.readouterr()
    assert main(["evaluate", str(predictions), str(labels), "--labels", str(out / "model" / "config.json"),
                 "--output", str(tmp_path / "evaluation")]) == 0
    assert "region 1 lesion: Dice" in capsys.readouterr().out
    # a value the model's dataset did not hold is still refused
    stray = np.asanyarray(nib.load(labels / cases[0].label.name).dataobj).copy()
    stray[0, 0, 0] = 7
    nib.save(nib.Nifti1Image(stray, nib.load(labels / cases[0].label.name).affine), labels / cases[0].label.name)
    with pytest.raises(DataError, match=r"label value\(s\) \[7\] are not among the classes scored"):
        evaluate_folders(predictions, labels, dataset_json=out / "model" / "config.json",
                         output_dir=tmp_path / "evaluation")


def test_the_estimator_trains_regions_from_files_and_evaluates_them(tiny_dataset, tmp_path):
    from accelerated_seg.estimator import Dataset, Segmentation

    manifest = load_msd(tiny_dataset)
    pairs = [(str(c.images[0]), str(c.label)) for c in manifest.training]
    held_out = [(str(c.images[0]), str(c.label)) for c in manifest.validation]
    with pytest.raises(DataError, match="Dataset.from_files: regions: label value\\(s\\) \\[7\\]"):
        Dataset.from_files(pairs, block_shape=16, n_classes=3, regions={"findings": [1, 7]})
    data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=held_out,
                              regions={"findings": [1, 2], "lesion": [2]}, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    assert data.manifest.num_outputs == 2
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=3, save_every=0, trackers="none",
                         progress_bar=False)
    model.fit(data, steps=3)
    config = json.loads((tmp_path / "run" / "model" / "config.json").read_text())
    assert config["regions"]["names"] == ["findings", "lesion"] and config["model"]["args"]["out_channels"] == 2
    # each value named after the region that paints it, as data.regions names them (class_1, class_2 before the
    # ninety-ninth session)
    assert config["labels"] == {"0": "background", "1": "findings", "2": "lesion"}
    summary = model.evaluate(data)
    assert summary["classes"] == {"1": "findings", "2": "lesion"}
    assert summary["per_class"]["1"]["dice"]["n"] == len(held_out)
    # the estimator's scores are those of the command line on the same maps
    folder = tmp_path / "run" / "evaluation"
    again = evaluate_folders(folder / "predictions", folder / "labels", regions=Regions(
        ("findings", "lesion"), ((1, 2), (2,)), (1, 2)), output_dir=tmp_path / "again")
    assert again["per_class"] == summary["per_class"]
    with pytest.raises(ValueError, match=r"tolerance_mm gives 3 value\(s\) for 2 region\(s\) \[1, 2\]; give one value "
                                         r"for all, or one per region"):  # said "class(es)" before
        evaluate_folders(folder / "predictions", folder / "labels", regions=Regions(
            ("findings", "lesion"), ((1, 2), (2,)), (1, 2)), tolerance_mm=[1, 2, 3], output_dir=tmp_path / "again")


def test_evaluate_reads_the_regions_of_an_nnunet_dataset_json_and_none_from_classes(tmp_path):
    nnunet = tmp_path / "nnunet.json"
    nnunet.write_text(json.dumps({"labels": {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3],
                                             "enhancing tumor": 3}, "regions_class_order": [1, 2, 3]}))
    assert regions_from_json(nnunet) == Regions(("whole tumor", "tumor core", "enhancing tumor"),
                                                ((1, 2, 3), (2, 3), (3,)), (1, 2, 3))
    msd = tmp_path / "msd.json"
    msd.write_text(json.dumps({"labels": {"0": "background", "1": "tumour"}}))
    assert regions_from_json(msd) is None


def test_overlapping_brats_regions_are_each_scored_as_the_union_of_their_values_with_distances():
    """Whole tumour {1, 2, 3} ⊃ tumour core {1, 3} ⊃ enhancing {3}: a prediction that calls the enhancing rim
    necrosis is perfect on the whole tumour and the core, and has no enhancing tumour (0 / inf / 0); a voxel of
    oedema predicted one slice (5 mm) too high moves the whole tumour alone, as its own binary masks score."""
    regions = Regions.declared({"whole": [1, 2, 3], "core": [1, 3], "enhancing": [3]}, [0, 1, 2, 3], "data.regions")
    label = np.zeros((10, 10, 8), np.uint8)
    label[1:9, 1:9, 1:7] = 2  # oedema
    label[3:7, 3:7, 2:6] = 3  # enhancing rim
    label[4:6, 4:6, 3:5] = 1  # necrosis
    pred = np.where(label == 3, 1, label).astype(np.uint8)
    pred[1, 1, 7] = 2
    spacing = (0.7, 0.7, 5.0)
    scores = region_metrics(pred, label, regions, spacing, tolerance_mm=1.0)
    whole = case_metrics((pred > 0).astype(np.uint8), (label > 0).astype(np.uint8), 2, spacing, tolerance_mm=1.0)[1]
    assert scores[0] == whole and whole["dice"] < 1.0 and whole["pred_voxels"] == whole["label_voxels"] + 1
    assert {k: scores[1][k] for k in ("dice", "hd95_mm", "surface_dice")} == {"dice": 1.0, "hd95_mm": 0.0,
                                                                          "surface_dice": 1.0}
    assert (scores[2]["dice"], scores[2]["hd95_mm"], scores[2]["surface_dice"], scores[2]["pred_voxels"]) == (
        0.0, math.inf, 0.0, 0)
