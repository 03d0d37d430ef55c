"""The channel names of a model and of the data it is given (the hundred-and-twenty-third session, helper h127,
benchmarks/results/model_and_data_channel_names_2026-12-07/): ``Segmentation.evaluate`` of a Dataset giving the
model's channels in another order refused before anything is written, one naming them otherwise warned of, names
nothing gives compared with nothing; ``accelerated-seg check``'s summary saying a channel nothing names by its index
alone; a one-channel dataset's grid refusal naming its channel. Predict's scans against their dataset.json (one
folder up from an images* folder): the command, predict_cases (review r112), and predict_file, Segmentation.predict of
paths and predict_distributed under a launch (the hundred-and-twenty-fourth session, helper h131)."""

import json
import os
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.config import ConfigError
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.own_warnings import AcceleratedSegWarning

AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])


def _pair(folder, channels=2):
    """A case of ``channels`` 16^3 channel files and its label, on one grid."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    images = []
    for index in range(channels):
        nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16)).astype(np.float32), AFFINE),
                 folder / f"c_{index:04d}.nii.gz")
        images.append(str(folder / f"c_{index:04d}.nii.gz"))
    label = np.zeros((16, 16, 16), np.uint8)
    label[4:12, 4:12, 4:12] = 1
    nib.save(nib.Nifti1Image(label, AFFINE), folder / "c.nii.gz")
    return images, str(folder / "c.nii.gz")


def _dataset(tmp_path, names):
    from accelerated_seg.estimator import Dataset

    return Dataset.from_files([], validation_pairs=[_pair(tmp_path / "data")], n_classes=3, block_shape=16,
                              num_workers=0, channel_names=names)


def test_evaluate_refuses_a_dataset_giving_the_models_channels_in_another_order(tmp_path):
    """channel_names=['MRI1', 'MRI0'] for a model whose config.json names them MRI0, MRI1: each case's files were fed
    in the Dataset's order and scored without a word (review r108's probe, (D)); refused now, naming both orders and
    the way, before anything is written (case aside, as resume compares names)."""
    from accelerated_seg.estimator import Segmentation
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    for names in (["MRI1", "MRI0"], ["mri1 ", "MRI0"]):
        with pytest.raises(ConfigError) as refused:
            model.evaluate(_dataset(tmp_path, names), output_dir=tmp_path / "eval")
        said = str(refused.value)
        assert said.startswith("evaluate: the Dataset gives the model's channels in another order ("), said
        assert "the model's channel 1, given as channel 0" in said, said
        assert said.endswith("give each case's files in the model's order (channel 0 (MRI0), channel 1 (MRI1)), "
                             "channel_names=['MRI0', 'MRI1']"), said
        assert not (tmp_path / "eval").exists()


def test_evaluate_warns_of_a_dataset_naming_the_models_channels_otherwise(tmp_path):
    """T1, FLAIR against a model's MRI0, MRI1: perhaps the same scans named anew, the user's to judge (resume's and
    init_from's warnings): said once, the scores written; the Dataset's own names (image_0) and a model's blank ones
    are compared with nothing, and the same names (case aside) say nothing."""
    from accelerated_seg.estimator import Segmentation
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        summary = model.evaluate(_dataset(tmp_path, ["T1", "FLAIR"]), output_dir=tmp_path / "eval")
    assert summary["num_cases"] == 1
    said = [str(w.message) for w in raised if "channels otherwise" in str(w.message)]
    assert said == ["evaluate: the Dataset names the model's channels otherwise (channel 0: T1 in the Dataset, MRI0 "
                    "in the model's config.json; channel 1: FLAIR in the Dataset, MRI1 in the model's config.json); "
                    "each case's files are fed in the order given: if these are other scans, not the same ones named "
                    "anew, stop and give each case's files in the model's order (channel 0 (MRI0), channel 1 (MRI1)), "
                    "channel_names=['MRI0', 'MRI1']"], said
    from accelerated_seg.estimator_predict_checks import evaluation_channel_names_warning

    config = json.loads((tmp_path / "model" / "config.json").read_text())
    for names in (None, ["image_1", "image_0"], ["mri0", "MRI1 "]):
        assert evaluation_channel_names_warning(_dataset(tmp_path, names), config) is None, names
    blank = {**config, "channels": {"0": "", "1": " "}}
    assert evaluation_channel_names_warning(_dataset(tmp_path, ["MRI1", "MRI0"]), blank) is None
    unnamed = {key: value for key, value in config.items() if key != "channels"}
    assert evaluation_channel_names_warning(_dataset(tmp_path, ["T1", "FLAIR"]), unnamed) is None


def test_checks_summary_says_a_channel_nothing_names_by_its_index_alone(tmp_path):
    """`accelerated-seg check` said "channels: 0 image_0, 1 image_1" of a CSV's channels, the Dataset's names for
    channels nothing names, where the refusals say such a channel by its index alone (helper h125)."""
    from accelerated_seg.check_command import _what_training_reads

    images, label = _pair(tmp_path / "csv")
    (tmp_path / "cases.csv").write_text(f"image_0,image_1,label\n{images[0]},{images[1]},{label}\n")
    said = _what_training_reads(load_cases(tmp_path / "cases.csv", validation_fraction=0.0))
    assert said.startswith("channels: 0, 1 (none named); classes: "), said
    named = tmp_path / "dataset.json"
    named.write_text(json.dumps({"name": "n", "modality": {"0": "T1", "1": "FLAIR"},
                                 "labels": {"0": "background", "1": "lesion"},
                                 "training": [{"image": images, "label": label}]}))
    assert _what_training_reads(load_cases(named, validation_fraction=0.0)).startswith("channels: 0 T1, 1 FLAIR; ")


def test_a_one_channel_datasets_grid_refusal_names_its_channel(tmp_path):
    """A dataset.json naming its one channel CT, its label on another grid: "image voxels are 2.5 x 2.5 x 2.5 mm",
    where predict says "channel 0 (CT)", until the hundred-and-twenty-third session (helper h127)."""
    images, label = _pair(tmp_path / "one", channels=1)
    nib.save(nib.Nifti1Image(np.asanyarray(nib.load(label).dataobj), np.diag([3.0, 3.0, 3.0, 1.0])), label)
    declared = tmp_path / "dataset.json"
    declared.write_text(json.dumps({"name": "n", "modality": {"0": "CT"},
                                    "labels": {"0": "background", "1": "lesion"},
                                    "training": [{"image": images[0], "label": label}]}))
    errors = check_manifest(load_cases(declared, validation_fraction=0.0)).errors
    assert len(errors) == 1 and "label voxels are 3 x 3 x 3 mm, image (CT) voxels 2.5 x 2.5 x 2.5 mm" in errors[0], \
        errors


def test_predict_refuses_an_nnunet_folder_whose_dataset_json_orders_the_models_channels_otherwise(tmp_path, capsys):
    """`predict --model M Task/imagesTs` where Task/dataset.json names channel 0 MRI1 and channel 1 MRI0, the model
    MRI0, MRI1: each <case>_0000 (the dataset's MRI1) was fed as the model's MRI0 without a word; refused now before
    anything is written, the dataset.json named. Other names (T1, FLAIR) are warned of, and the case segmented."""
    from accelerated_seg.cli import main
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    _pair(tmp_path / "Task" / "imagesTs")
    declaration = tmp_path / "Task" / "dataset.json"
    declaration.write_text(json.dumps({"channel_names": {"0": "MRI1", "1": "MRI0"}, "labels": {"background": 0},
                                       "numTraining": 0, "file_ending": ".nii.gz"}))
    folder = tmp_path / "Task" / "imagesTs"
    (folder / "c.nii.gz").unlink()  # the label _pair writes
    assert main(["predict", "--model", str(model), str(folder), "--output", str(tmp_path / "out")]) == 2
    said = capsys.readouterr().err
    assert f"{declaration} (beside the scans in {folder}/) gives the model's channels in another order (MRI1, the " \
           f"model's channel 1, given as channel 0; MRI0, the model's channel 0, given as channel 1)" in said, said
    # which file is its channel 0, and where the dataset.json is another dataset's (the model's own scans put in its
    # folder) what to do: "give each case's files in the model's order" alone until review r112
    assert said.rstrip().endswith(f"give each case's files in the model's order (channel 0 (MRI0), channel 1 (MRI1)), "
                                  f"<case>_0000 its channel 0; if {declaration} does not describe these scans, move "
                                  f"them out of {folder}/"), said
    assert not (tmp_path / "out").exists()
    declaration.write_text(json.dumps({"channel_names": {"0": "T1", "1": "FLAIR"}, "labels": {"background": 0},
                                       "numTraining": 0, "file_ending": ".nii.gz"}))
    with pytest.warns(AcceleratedSegWarning) as raised:
        assert main(["predict", "--model", str(model), str(folder), "--output", str(tmp_path / "out")]) == 0
    said = [str(w.message) for w in raised if "channels otherwise" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(
        f"{declaration} (beside the scans in {folder}/) names the model's channels otherwise (channel 0: T1 in the "
        f"dataset.json, MRI0 in the model's config.json;"), said
    assert (tmp_path / "out" / "c.nii.gz").is_file()


def test_a_one_channel_models_name_is_not_compared(tmp_path):
    """No order to get wrong: a dataset.json's MRI beside a one-channel model's MRI0 would be a warning of every folder
    predict is given (an older test's scans, told so before its own refusal)."""
    from accelerated_seg.inference_inputs import channel_names_refused_or_warned
    from test_inference import export

    config = json.loads((export(tmp_path / "model") / "config.json").read_text())
    assert channel_names_refused_or_warned(config, {0: "CT"}, "the Dataset", "Dataset") is None
    two = json.loads((export(tmp_path / "two", in_channels=2) / "config.json").read_text())
    said = channel_names_refused_or_warned(two, {0: "T1", 1: "MRI1"}, "the Dataset", "Dataset")
    assert said.startswith("the Dataset names the model's channels otherwise (channel 0: T1 in the Dataset, MRI0 in "
                           "the model's config.json)"), said


def _nnunet_folder(tmp_path, channel_names, stems=("c_0000", "c_0001"), name="Task"):
    """``tmp_path/<name>/imagesTs`` holding a 16^3 scan for each of ``stems``, beside (one up) a dataset.json naming
    ``channel_names``."""
    folder = tmp_path / name / "imagesTs"
    folder.mkdir(parents=True)
    for stem in stems:
        nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), AFFINE), folder / f"{stem}.nii.gz")
    (folder.parent / "dataset.json").write_text(json.dumps(
        {"channel_names": dict(enumerate(channel_names)), "labels": {"background": 0}, "numTraining": 0,
         "file_ending": ".nii.gz"}))
    return folder


def test_a_name_given_to_several_channels_is_not_compared(tmp_path, capsys):
    """nnU-Net names each channel of a two-phase CT "CT" (its normalization's name, which training's
    normalization: auto reads as CT): predict of that dataset's own imagesTs/ by the model trained on it was refused,
    "CT, the model's channel 1, given as channel 0" (review r112's probe, (A)). Such a name says nothing of an order;
    a name given to one channel alone beside them still does."""
    from accelerated_seg.cli import main
    from accelerated_seg.inference_inputs import channel_names_refused_or_warned
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2, channels={"0": "CT", "1": "CT"})
    folder = _nnunet_folder(tmp_path, ["CT", "CT"])
    assert main(["predict", "--model", str(model), str(folder), "--output", str(tmp_path / "out")]) == 0, \
        capsys.readouterr().err
    assert "channel" not in capsys.readouterr().err
    three = {"in_channels": 3, "channels": {"0": "CT", "1": "CT", "2": "PET"}}
    assert channel_names_refused_or_warned(three, {0: "ct", 1: "CT ", 2: "PET"}, "the data", "data") is None
    with pytest.raises(ValueError, match=r"another order \(PET, the model's channel 2, given as channel 0\)"):
        channel_names_refused_or_warned(three, {0: "PET", 1: "CT", 2: "CT"}, "the data", "data")


def test_files_named_by_the_models_channels_are_not_compared(tmp_path):
    """BraTS' own names (p_T1.nii.gz, p_FLAIR.nii.gz) in an imagesTs/ whose dataset.json orders FLAIR, T1: predict
    feeds each file as the model's channel its name ends with, whatever the dataset.json's order, and was refused
    (review r112's probe, (B)). Numbered files and a 4D file beside them are still compared."""
    from accelerated_seg.inference_inputs import collect_cases, dataset_channel_names_warnings, expand_inputs

    config = {"in_channels": 2, "channels": {"0": "T1", "1": "FLAIR"}}
    folder = _nnunet_folder(tmp_path, ["FLAIR", "T1"], stems=("p_T1", "p_FLAIR"))
    assert [[path.name for path in case.channels] for case in collect_cases([folder], config)] == \
        [["p_T1.nii.gz", "p_FLAIR.nii.gz"]]
    assert dataset_channel_names_warnings(expand_inputs([folder]), config) == []
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16, 2), np.float32), AFFINE), folder / "q_T1.nii.gz")  # 4D: all
    with pytest.raises(ValueError, match="gives the model's channels in another order"):
        dataset_channel_names_warnings(expand_inputs([folder]), config)


def test_predict_input_compares_each_file_by_its_number(tmp_path, capsys):
    """--input's files are fed in the order given: imagesTs/c_0001 (the dataset's MRI0) before c_0000 (its MRI1) is
    the model's order, and was refused by the folder's order (review r112's probe, (E2)); c_0000 first is refused,
    saying --input and the dataset.json, before anything is written."""
    from accelerated_seg.cli import main
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    files = [str(folder / "c_0001.nii.gz"), str(folder / "c_0000.nii.gz")]
    assert main(["predict", "--model", str(model), "--input", *files, "--output", str(tmp_path / "a.nii.gz")]) == 0, \
        capsys.readouterr().err
    assert (tmp_path / "a.nii.gz").is_file()
    assert main(["predict", "--model", str(model), "--input", *reversed(files), "--output",
                 str(tmp_path / "b.nii.gz")]) == 2
    said = capsys.readouterr().err
    assert f"error: --input, as {folder.parent / 'dataset.json'} names its files, gives the model's channels in " \
           f"another order (MRI1, the model's channel 1, given as channel 0; " in said, said
    assert said.rstrip().endswith(f"--input's first file its channel 0; if {folder.parent / 'dataset.json'} does not "
                                  f"describe these scans, move them out of {folder}/"), said
    assert not (tmp_path / "b.nii.gz").exists()


def test_predict_cases_from_python_compares_as_the_command_does(tmp_path):
    """inference.predict_cases called from a script compared nothing (h127's Left): an imagesTs/ whose dataset.json
    gives the model's channels in another order is refused before anything is written, one naming them otherwise
    warned of once at the caller's line; scans in a folder not named images* stay uncompared."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference import predict_cases
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    with pytest.raises(DataError, match=r"dataset.json \(beside the scans in .*imagesTs/\) gives the model's "
                                        r"channels in another order \(MRI1, the model's channel 1, given as channel 0"):
        predict_cases(model, folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    named = _nnunet_folder(tmp_path, ["T1", "FLAIR"], name="Named")
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        predict_cases(model, [named], tmp_path / "named")
    said = [w for w in raised if "channels otherwise" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__, [(str(w.message), w.filename) for w in raised]
    assert (tmp_path / "named" / "c.nii.gz").is_file()
    (folder.parent / "scans").mkdir()
    for path in folder.iterdir():
        path.rename(folder.parent / "scans" / path.name)
    predict_cases(model, folder.parent / "scans", tmp_path / "scans_out")  # not an images* folder: not compared
    assert (tmp_path / "scans_out" / "c.nii.gz").is_file()


def test_a_dataset_jsons_warning_is_said_once_for_its_folders(tmp_path):
    """imagesTr/ and imagesTs/ of one dataset given together: its dataset.json naming the model's channels otherwise
    was warned of once per folder, two lines of one fault (review r112); one now, naming both folders."""
    from accelerated_seg.inference_inputs import dataset_channel_names_warnings, expand_inputs

    tests = _nnunet_folder(tmp_path, ["T1", "FLAIR"])
    training = tests.parent / "imagesTr"
    training.mkdir()
    for path in tests.iterdir():
        (training / path.name).write_bytes(path.read_bytes())
    said = dataset_channel_names_warnings(expand_inputs([training, tests]), {"in_channels": 2,
                                                                              "channels": {"0": "MRI0", "1": "MRI1"}})
    assert len(said) == 1 and said[0].startswith(f"{tests.parent / 'dataset.json'} (beside the scans in {training}/ "
                                                 f"and {tests}/) names the model's channels otherwise"), said


def test_predict_file_compares_its_files_as_predict_cases_does(tmp_path, capsys):
    """inference.predict_file of imagesTs/c_0000, c_0001 whose dataset.json names MRI1, MRI0 fed the dataset's MRI1 as
    the model's MRI0 without a word (review r112's Left; the hundred-and-twenty-fourth session, helper h131): refused
    now before anything is written, each file its dataset's channel of its number (c_0001 first is the model's order);
    other names warned of once at the caller's line; scans in a folder not named images* not compared; `predict
    --input` (which compares before its imports) warns once, not again in predict_file."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference import predict_file
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    declaration = folder.parent / "dataset.json"
    with pytest.raises(DataError) as refused:
        predict_file(model, [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"], tmp_path / "a.nii.gz")
    said = str(refused.value)
    assert said.startswith(f"inputs, as {declaration} names its files, gives the model's channels in another order "
                           f"(MRI1, the model's channel 1, given as channel 0; MRI0, the model's channel 0, given as "
                           f"channel 1)"), said
    assert said.endswith(f"the first file of inputs its channel 0; if {declaration} does not describe these scans, "
                         f"move them out of {folder}/"), said
    assert not (tmp_path / "a.nii.gz").exists()
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        predict_file(model, [folder / "c_0001.nii.gz", folder / "c_0000.nii.gz"], tmp_path / "b.nii.gz")
    assert (tmp_path / "b.nii.gz").is_file() and not [w for w in raised if "channel" in str(w.message)]
    named = _nnunet_folder(tmp_path, ["T1", "FLAIR"], name="Named")
    files = [str(named / "c_0000.nii.gz"), str(named / "c_0001.nii.gz")]
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        predict_file(model, files, tmp_path / "c.nii.gz")
    said = [w for w in raised if "channels otherwise" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__, [(str(w.message), w.filename) for w in raised]
    assert str(said[0].message).startswith(f"inputs, as {named.parent / 'dataset.json'} names its files, names the "
                                           f"model's channels otherwise (channel 0: T1 in the dataset.json"), said
    scans = folder.parent / "scans"
    folder.rename(scans)
    predict_file(model, [scans / "c_0000.nii.gz", scans / "c_0001.nii.gz"], tmp_path / "d.nii.gz")  # not images*
    assert (tmp_path / "d.nii.gz").is_file()
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        assert main(["predict", "--model", str(model), "--input", *files, "--output", str(tmp_path / "e.nii.gz")]) == 0
    assert len([w for w in raised if "channels otherwise" in str(w.message)]) == 1, \
        [str(w.message) for w in raised]
    capsys.readouterr()


def test_segmentation_predict_of_paths_compares_as_predict_cases_does(tmp_path):
    """Segmentation.predict of imagesTs/ paths is predict_file's: another order refused in its words (x), before
    anything is written; the same scans as an array, no path, have nothing to compare."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.estimator import Segmentation
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    paths = [str(folder / "c_0000.nii.gz"), str(folder / "c_0001.nii.gz")]
    with pytest.raises(DataError, match=r"^predict: x, as .*dataset.json names its files, gives the model's channels "
                                        r"in another order \(MRI1, the model's channel 1, given as channel 0.*the "
                                        r"first file of x its channel 0; "):
        model.predict(paths)
    assert model.predict(list(reversed(paths))).shape == (16, 16, 16)
    arrays = np.stack([np.asanyarray(nib.load(path).dataobj) for path in paths])
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        assert model.predict(arrays, affine=AFFINE).shape == (16, 16, 16)
    assert not [w for w in raised if "channel" in str(w.message)], [str(w.message) for w in raised]


def test_predict_distributed_compares_at_its_entry_on_every_process(tmp_path):
    """predict_distributed over several processes (a script's, under a launch) compared no dataset.json (review
    r112's Left): each process refuses another order in its checks before the work, before the model loads (a
    process but the main one here, no launch needed); the cases themselves (InputCase) each as one case's files, fed
    in the order given; those of one folder's numbering warned of once, naming the first."""
    from types import SimpleNamespace

    import torch

    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference_distributed import predict_distributed
    from accelerated_seg.inference_inputs import InputCase, channel_names_compared
    from accelerated_seg.predict_names import PREDICT_CASES_NAMES
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    helper = SimpleNamespace(num_processes=2, process_index=1, is_main_process=False, device=torch.device("cpu"))
    with pytest.raises(DataError, match=r"beside the scans in .*imagesTs/\) gives the model's channels in another "
                                        r"order \(MRI1, the model's channel 1, given as channel 0"):
        predict_distributed(model, [folder], tmp_path / "out", accelerator=helper)
    cases = [InputCase("c", (folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"))]
    with pytest.raises(DataError, match=r"^case c, as .*dataset.json names its files, gives the model's channels in "
                                        r"another order .*the first file of case c its channel 0; "):
        predict_distributed(model, cases, tmp_path / "out", accelerator=helper)
    assert not (tmp_path / "out").exists()
    named = _nnunet_folder(tmp_path, ["T1", "FLAIR"], name="Named")
    for case in ("p", "q"):
        for index in range(2):
            (named / f"{case}_{index:04d}.nii.gz").write_bytes((named / f"c_{index:04d}.nii.gz").read_bytes())
    config = json.loads((model / "config.json").read_text())
    cases = [InputCase(case, (named / f"{case}_0000.nii.gz", named / f"{case}_0001.nii.gz")) for case in "cpq"]
    for main_process in (True, False):
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            channel_names_compared(cases, config, PREDICT_CASES_NAMES, said=main_process)
        said = [str(w.message) for w in raised if "channels otherwise" in str(w.message)]
        assert len(said) == main_process and all(line.startswith("case c, as ") for line in said), said


@pytest.mark.distributed
def test_a_launched_predict_distributed_refuses_on_every_process_and_warns_once(tmp_path):
    """predict_distributed from a script under `accelerate launch` of 2 processes: a dataset.json naming the model's
    channels otherwise warned of by the main process alone, the cases written; another order refused by both
    processes, nothing written."""
    from test_inference import export
    from test_inference_distributed import WORKER, launch_two

    model = export(tmp_path / "model", in_channels=2)
    named = _nnunet_folder(tmp_path, ["T1", "FLAIR"], name="Named")
    other = _nnunet_folder(tmp_path, ["MRI1", "MRI0"])
    jobs = [{"model_dir": str(model), "inputs": [str(named)], "output": str(tmp_path / "named")},
            {"model_dir": str(model), "inputs": [str(other)], "output": str(tmp_path / "other")}]
    prefix = tmp_path / "result"
    proc = launch_two(prefix, [str(WORKER), str(prefix), json.dumps(jobs)])
    _every_process_refused(prefix, proc, f"DataError: {other.parent / 'dataset.json'} (beside the scans in {other}/) "
                                         f"gives the model's channels in another order")
    assert (tmp_path / "named" / "c.nii.gz").is_file() and not (tmp_path / "other").exists()
    assert proc.stderr.count("names the model's channels otherwise") == 1, proc.stderr[-3000:]
    # at the line of the script that called predict_distributed (review r115: its comparison moved into the checks)
    assert f"{WORKER}:" in next(line for line in proc.stderr.splitlines() if "channels otherwise" in line)


def test_a_4d_files_refusal_says_its_volume_0_not_a_first_file(tmp_path, capsys):
    """A dataset.json ordering the model's channels otherwise beside 4D files (the Decathlon's imagesTs/, every channel
    in one file) was refused rightly, but told "<case>_0000 its channel 0" (a folder) or "the first file of inputs
    its channel 0" (predict_file of one file): files none of them is (review r115). Now each 4D file's volume 0."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference import predict_file
    from test_inference import export

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI1", "MRI0"], stems=())
    nib.save(nib.Nifti1Image(np.full((16, 16, 16, 2), 50, np.float32), AFFINE), folder / "c.nii.gz")
    with pytest.raises(DataError) as refused:
        predict_file(model, folder / "c.nii.gz", tmp_path / "a.nii.gz")
    assert "(channel 0 (MRI0), channel 1 (MRI1)), volume 0 of inputs its channel 0; if " in str(refused.value), \
        str(refused.value)
    assert main(["predict", "--model", str(model), str(folder), "--output", str(tmp_path / "out")]) == 2
    said = capsys.readouterr().err
    assert "(channel 0 (MRI0), channel 1 (MRI1)), each 4D file's volume 0 its channel 0; if " in said, said
    assert not (tmp_path / "a.nii.gz").exists() and not (tmp_path / "out").exists()


_ONE_PROCESS_SEES_ANOTHER_ORDER = """import json, os, sys
sys.path.insert(0, sys.argv[1])
import accelerated_seg.inference_inputs as inference_inputs
from faults import write_result_and_exit
rank = int(os.environ.get("RANK", "0"))
if rank == 1:  # this process's copy of the dataset.json (another node's, or rewritten since) gives another order
    declared = inference_inputs._declared_channels
    inference_inputs._declared_channels = lambda folder, read: (None if declared(folder, read) is None
                                                                else {0: "MRI1", 1: "MRI0"})
from accelerated_seg.inference_distributed import predict_distributed, process_state
model, folder, output, prefix = sys.argv[2:]
try:
    predict_distributed(model, [folder], output, accelerator=process_state())
    result = {"ok": True}
except Exception as error:
    result = {"ok": False, "error": f"{type(error).__name__}: {error}"}
write_result_and_exit(prefix, rank, result)
"""


@pytest.mark.distributed
def test_a_launched_predict_distributed_refusal_of_one_process_is_said_by_every_one(tmp_path):
    """A launch whose process 1 alone reads the scans' dataset.json as another order (its node's copy, or one
    rewritten between the processes' reads): that process refused alone at predict_distributed's entry (helper
    h131), and the main process, waiting in its first collective, ended saying "process 1 was lost: its connection
    closed in a collective" (review r115, benchmarks/results/channel_order_review_r115_2026-12-07/). The comparison
    is one of the checks whose errors every process gathers now: each raises process 1's refusal, nothing written."""
    from test_inference import export
    from test_inference_distributed import launch_two

    model = export(tmp_path / "model", in_channels=2)
    folder = _nnunet_folder(tmp_path, ["MRI0", "MRI1"])
    script = tmp_path / "one_process_sees_another_order.py"
    script.write_text(_ONE_PROCESS_SEES_ANOTHER_ORDER)
    prefix = tmp_path / "result"
    proc = launch_two(prefix, [str(script), str(Path(__file__).parent), str(model), str(folder),
                               str(tmp_path / "out"), str(prefix)])
    _every_process_refused(prefix, proc, f"DataError: process 1: {folder.parent / 'dataset.json'} (beside the scans "
                                         f"in {folder}/) gives the model's channels in another order")
    assert not (tmp_path / "out").exists()


def _every_process_refused(prefix: Path, proc, start: str) -> None:
    """Each of a launch's 2 processes wrote its result (``<prefix>.rank<N>.json``), an error beginning ``start``."""
    for rank in range(2):
        path = Path(f"{prefix}.rank{rank}.json")
        assert path.is_file(), f"rank {rank} wrote no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        result = json.loads(path.read_text())
        assert not result["ok"] and result["error"].startswith(start), result


def test_a_dataset_json_is_read_once_a_call_as_it_stands(tmp_path, monkeypatch):
    """predict_file looped over a folder's cases by a script: its dataset.json was read twice a call (once per
    channel file); once now (the hundred-and-twenty-fourth session, helper h131). Kept across calls by its stat
    (h131), a dataset.json rewritten where the stat says nothing new (an NFS client's attributes, kept up to 60 s,
    while opening the file reads it anew) was judged by its old channels: review r115 reads it in each call, as it
    stands (stood in for by os.stat giving the old file's stat)."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.data.formats import dataset_json
    from accelerated_seg.inference_inputs import channel_names_compared
    from accelerated_seg.predict_names import PREDICT_FILE_NAMES

    reads = []
    read_json = dataset_json.read_json
    monkeypatch.setattr(dataset_json, "read_json", lambda path: reads.append(path) or read_json(path))
    folder = _nnunet_folder(tmp_path, ["MRI0", "MRI1"])
    declaration = folder.parent / "dataset.json"
    written = declaration.stat().st_mtime
    os.utime(declaration, (written - 10, written - 10))  # written 10 s ago
    config = {"in_channels": 2, "channels": {"0": "MRI0", "1": "MRI1"}}
    files = [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"]
    for _ in range(2):
        channel_names_compared(files, config, PREDICT_FILE_NAMES, one_case=True)
    assert reads == [declaration, declaration], reads  # once a call, not once per file
    old, stat = os.stat(declaration), os.stat
    declaration.write_text(declaration.read_text().replace("MRI0", "MRI2").replace("MRI1", "MRI0")
                           .replace("MRI2", "MRI1"))  # the same size, rewritten in place
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: old if Path(path) == declaration
                        else stat(path, *args, **kwargs))
    with pytest.raises(DataError, match="gives the model's channels in another order"):
        channel_names_compared(files, config, PREDICT_FILE_NAMES, one_case=True)
