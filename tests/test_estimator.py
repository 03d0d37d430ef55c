"""The nobrainer-style Dataset builder is the training pipeline, not a second one."""

import contextlib
import csv
import dataclasses
import json
import faulthandler
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
import torch

from accelerated_seg.config import ConfigError, DataConfig
from accelerated_seg.data.cache import PreprocessedCache
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.loader import patch_dataset, train_loader
from accelerated_seg.data.manifest import load_cases, load_msd
from accelerated_seg.data.prepare import preprocess_settings
from accelerated_seg.data.splits import unused_split_settings_warning
from accelerated_seg.estimator import Dataset, Segmentation


def _pairs(tiny_dataset):
    manifest = load_msd(tiny_dataset)
    return ([(str(c.images[0]), str(c.label)) for c in manifest.training],
            [(str(c.images[0]), str(c.label)) for c in manifest.validation])


def test_builder_chain_sets_the_same_settings_the_yaml_path_uses(tiny_dataset, tmp_path):
    train_pairs, val_pairs = _pairs(tiny_dataset)
    base = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0)
    data = base.batch(4).binarize().augment("standard")
    assert (data.batch_size, data.data.patch_size, data.data.binarize, data.data.augment) == (
        4, (16, 16, 16), True, "standard")
    assert data.manifest.num_classes == 2 and base.manifest.num_classes == 3  # builders are immutable
    assert [c.id for c in data.manifest.validation] == [c.id for c in load_msd(tiny_dataset).validation]
    cfg = data.config(max_steps=7)
    assert cfg.train.batch_size == 4 and cfg.train.max_steps == 7 and cfg.data == data.data
    assert data.config(compile=True).train.compile.enabled  # Segmentation(..., compile=True)
    # One line of what training sees (the dataclass's repr listed every case, and dataset='synthetic')
    assert repr(base) == ("<Dataset: 6 training and 3 validation cases, split: given (validation_pairs); 1 channel "
                          "(none named); 3 classes (background, class_1, class_2); block_shape (16, 16, 16); batch the "
                          "training default; augment none>")
    # augmentation is asked for, as in nobrainer: it was on by default, and augment() changed nothing
    assert base.augment().data.augment == "light" and data.n_classes == 2 and base.n_classes == 3
    assert Dataset.from_files(train_pairs, augment="standard").data.augment == "standard"
    # binarize=True among the data settings is binarize(): 2 classes, however many the labels hold
    given = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs, binarize=True)
    assert (given.n_classes, given.manifest.num_classes, given.binarize().n_classes) == (2, 2, 2)
    assert repr(data.augment("heavy", on="cpu")).endswith(
        "; 2 classes (background, foreground), binarized; block_shape (16, 16, 16); batch 4; augment heavy on the cpu>")


def test_a_datasets_summary_says_its_channels_as_check_does(tiny_dataset, tmp_path):
    """Channels nothing names were said by the names a Dataset gives them, "2 channels (image_0, image_1)" and "1
    channel (image)", as if a user had given them, until the hundred-and-twenty-fourth session (helper h132), where
    ``accelerated-seg check`` says "0, 1 (none named)" and the refusals a channel by its index alone."""
    train_pairs, _ = _pairs(tiny_dataset)
    (tmp_path / "copies").mkdir()  # one case's channels: two files
    two_files = [([image, shutil.copy(image, tmp_path / "copies")], label) for image, label in train_pairs]

    def channels_said(pairs, **names):
        return re.search(r"; (\d+ channels? \([^)]*\));", repr(Dataset.from_files(pairs, n_classes=3, **names)))[1]

    assert channels_said(train_pairs) == "1 channel (none named)"
    assert channels_said(two_files) == "2 channels (none named)"
    assert channels_said(two_files, channel_names=["T1", "T2"]) == "2 channels (T1, T2)"
    assert channels_said(train_pairs, channel_names=["T1w"]) == "1 channel (T1w)"
    # a name a Dataset gives is no user's: by index, the named one with its name, as check says a mix
    assert channels_said(two_files, channel_names=["image_0", "T2"]) == "2 channels (0, 1 T2)"


def test_builder_loader_gives_the_batches_of_the_csv_config_path(tiny_dataset, tmp_path):
    train_pairs, val_pairs = _pairs(tiny_dataset)
    settings = dict(cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0))
    built = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                               **settings).batch(2).augment("light")

    # The same cases as a CSV read through load_cases, the same DataConfig: the loop's construction.
    table_csv = tiny_dataset.parent / "cases.csv"
    with open(table_csv, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "label", "split"])
        writer.writerows([(i, l, "train") for i, l in train_pairs] + [(i, l, "validation") for i, l in val_pairs])
    manifest = load_cases(table_csv, labels=3)
    data_cfg = DataConfig(patch_size=(16, 16, 16), augment="light", **settings)
    cache = PreprocessedCache(data_cfg.cache_dir, manifest.root, preprocess_settings(data_cfg, manifest), 3)
    cache.build(manifest.training)
    loop_loader = train_loader(patch_dataset(cache.load_table(cache.write_table(manifest.training)), data_cfg, 0),
                               2, 0, 0)

    pairs = list(zip(built.loader(), loop_loader, range(4)))
    assert len(pairs) == min(4, len(loop_loader)) > 0  # a loader that gave nothing compared nothing
    for a, b, _ in pairs:
        assert torch.equal(a["image"], b["image"]) and torch.equal(a["label"], b["label"])


def test_fit_with_a_config_refuses_settings_it_would_drop(tiny_dataset, tmp_path):
    """fit(config, max_steps=3) trained the config's steps and learning rate, and a config made before
    .batch(4).augment("none") trained batch 2 with the light profile (the default then), without a word (seventy-third
    session's review); the config made from the Dataset itself trains."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0)
    cfg = data.config(output_dir=str(tmp_path / "run"), max_steps=2)
    with pytest.raises(ConfigError, match=r"Dataset.fit: lr, max_steps given with a config, which holds the "
                                          r"training settings: set them in Dataset.config\(...\)"):
        data.fit(cfg, max_steps=3, lr=0.5)
    with pytest.raises(ConfigError, match=r"the config's data.augment \('none', and the Dataset's 'light'\), "
                                          r"train.batch_size \(None, and Dataset.batch\(4\)\) differ from this "
                                          r"Dataset's"):
        data.batch(4).augment("light").fit(cfg)
    assert not (tmp_path / "run").exists()


def test_a_config_owns_its_data_settings_and_fit_refuses_them_edited(tiny_dataset, tmp_path):
    """The config held the Dataset's own DataConfig: editing cfg.data changed the Dataset, which the user
    fits again, and fit's check compared it with itself (a review, ninety-third session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0)
    cfg = data.config(output_dir=str(tmp_path / "run"), max_steps=2)
    cfg.data.validation_fraction = 0.5
    assert data.data.validation_fraction == 0.2 and data.config().data.validation_fraction == 0.2
    with pytest.raises(ConfigError, match=r"^Dataset.fit: the config's data.validation_fraction \(0.5, and the "
                                          r"Dataset's 0.2\) differ from this Dataset's .*its data settings edited"
                                          r"\?\): the data settings are the Dataset's; give them to "
                                          r"Dataset.from_files"):
        data.fit(cfg)
    assert not (tmp_path / "run").exists()


def test_fit_trains_with_the_one_loop_and_binarize_reaches_the_export(tiny_dataset, tmp_path, monkeypatch):
    # n_classes=2 over labels holding 0, 1 and 2: binarize merges every non-zero value, declared or not.
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=2, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0,
                              spacing=(2.0, 2.0, 2.0)).batch(2).binarize()
    out = tmp_path / "run"
    cfg = data.config(output_dir=str(out), max_steps=2, val_every=2, save_every=0, trackers="none",
                      progress_bar=False)
    cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
    summary = data.fit(cfg)
    assert summary["step"] == 2
    exported = json.loads((out / "model" / "config.json").read_text())
    assert exported["num_classes"] == 2 and exported["labels"] == {"0": "background", "1": "foreground"}
    assert all(set(torch.unique(b["label"]).tolist()) <= {0, 1} for b, _ in zip(data.loader(num_workers=0), range(3)))

    # The binarized model writes its foreground as 1 (the export's labels), not a raw value (2), and
    # evaluate scores the binarized references; a second call with fewer cases keeps none of the first's.
    import nibabel as nib

    model = Segmentation.load(out / "model")
    prediction = model.predict(str(val_pairs[0][0]))
    assert set(np.unique(np.asanyarray(prediction.dataobj)).tolist()) <= {0, 1}
    one_piece = np.asanyarray(model.predict(str(val_pairs[0][0]), keep_largest=True).dataobj)
    assert ((one_piece == np.asanyarray(prediction.dataobj)) | (one_piece == 0)).all()  # pieces gone, nothing added
    import accelerated_seg.ensemble
    import accelerated_seg.exported_model

    loads = []

    def counted(*args, **kwargs):
        loads.append(args[0])
        return load_exported(*args, **kwargs)

    load_exported = accelerated_seg.exported_model.load_exported
    for module in (accelerated_seg.exported_model, accelerated_seg.ensemble):  # where evaluate and predict load
        monkeypatch.setattr(module, "load_exported", counted)
    scored = model.evaluate(data, output_dir=tmp_path / "eval")
    assert scored["num_cases"] == len(val_pairs) == 3
    assert scored["classes"] == {"1": "foreground"}  # as training named it (dice_foreground); class_1 before
    # The references merged by evaluate_folders, as the command merges them given the model's config.json, and
    # said alike: the method merged them itself before the ninety-ninth session, and its summary said nothing
    from accelerated_seg.evaluate import evaluate_folders

    assert scored["merged_foreground"] is True
    by_command = evaluate_folders(tmp_path / "eval" / "predictions", tmp_path / "eval" / "labels",
                                  dataset_json=out / "model", output_dir=tmp_path / "by_command")
    assert scored["conventions"]["merged_foreground"] == by_command["conventions"]["merged_foreground"]
    assert "as a model trained with data.binarize saw them" in scored["conventions"]["merged_foreground"]
    assert scored["per_class"] == by_command["per_class"]
    # The model is loaded once for every case (once per case before the thirty-third session), the cases
    # go through predict's pipeline, and each scored prediction is what predict gives for that case.
    assert len(loads) == 1
    for case in data.manifest.validation:
        scored = nib.load(tmp_path / "eval" / "predictions" / f"{case.id}.nii.gz").get_fdata()
        np.testing.assert_array_equal(scored, np.asanyarray(model.predict(str(case.images[0])).dataobj))
    monkeypatch.undo()
    fewer = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=2, validation_pairs=val_pairs[:1],
                               cache_dir=str(tmp_path / "cache"), spacing=(2.0, 2.0, 2.0)).binarize()
    # The post-processing scored as predict applies it (keep_largest), and a label the model lacks refused
    # before the folders of the earlier call go.
    assert model.evaluate(fewer, output_dir=tmp_path / "eval", keep_largest=True)["num_cases"] == 1
    with pytest.raises(ConfigError, match="^evaluate: keep_largest: 2 is not a foreground label of the model"):
        model.evaluate(fewer, output_dir=tmp_path / "eval", keep_largest=[2])
    assert list((tmp_path / "eval" / "predictions").glob("*.nii.gz"))
    assert model.evaluate(fewer, output_dir=tmp_path / "eval")["num_cases"] == 1
    (written,) = (tmp_path / "eval" / "labels").glob("*.nii.gz")
    # an export of older preprocessing code is scored with predict's warning (load_exported said nothing)
    from accelerated_seg.data.preprocess_settings import CODE_VERSION_KEY, PREPROCESS_VERSION

    exported_text = (out / "model" / "config.json").read_text()
    (out / "model" / "config.json").write_text(exported_text.replace(f'"{CODE_VERSION_KEY}": {PREPROCESS_VERSION}',
                                                                     f'"{CODE_VERSION_KEY}": {PREPROCESS_VERSION - 1}'))
    with pytest.warns(UserWarning, match="learned from volumes prepared otherwise than predict prepares them now"):
        Segmentation.load(out / "model").evaluate(fewer, output_dir=tmp_path / "eval")  # loaded as it is now
    (out / "model" / "config.json").write_text(exported_text)
    model = Segmentation.load(out / "model")
    # the reference as the dataset holds it (its 2 too), which evaluate_folders merges
    values = set(np.unique(nib.load(written).get_fdata()))
    assert values == set(np.unique(nib.load(val_pairs[0][1]).get_fdata())) and 2 in values
    # A predictions folder that evaluate did not write (accelerated-seg predict's, say) is not deleted.
    (tmp_path / "mine" / "predictions").mkdir(parents=True)
    (tmp_path / "mine" / "predictions" / "case.nii.gz").write_bytes(b"the user's")
    with pytest.raises(FileExistsError, match=r"^evaluate: .*mine.predictions exists and was not written by "
                                              r"Segmentation.evaluate"):
        model.evaluate(fewer, output_dir=tmp_path / "mine")
    assert (tmp_path / "mine" / "predictions" / "case.nii.gz").read_bytes() == b"the user's"
    # A dataset the model cannot be scored on is refused before any prediction (twenty-ninth session):
    # classes the model cannot predict were scored without a word (fewer than the model's failed on a
    # prediction, in --num-classes' terms), and no validation cases failed on the empty references
    # folder evaluate had made.
    kept = sorted((tmp_path / "eval").rglob("*"))
    for n_classes, binarized in ((3, False), (4, False)):
        other = Dataset.from_files(train_pairs, block_shape=16, n_classes=n_classes, validation_pairs=val_pairs[:1],
                                   spacing=(2.0, 2.0, 2.0))
        with pytest.raises(ConfigError, match=f"evaluate: the model has 2 classes and the dataset {n_classes}; give "
                                              r"the Dataset the model's n_classes \(and binarize\(\) for a model"):
            model.evaluate(other, output_dir=tmp_path / "eval")
    unsplit = Dataset.from_files(train_pairs[:1], block_shape=16, n_classes=2, spacing=(2.0, 2.0, 2.0)).binarize()
    with pytest.raises(ConfigError, match=r"evaluate: the dataset has no validation cases to score \(its split: "
                                          r"fraction 0.2 \(seed 0\)\); give the cases to score as "):
        model.evaluate(unsplit, output_dir=tmp_path / "eval")
    # A validation case that cannot be scored (here a label resampled with linear interpolation) is found by
    # fit's pre-flight check, naming the user's file, before the last call's summary and folders go: found
    # while scoring, it had deleted them and stopped half-way, naming the copy in evaluate's labels folder.
    image, label = val_pairs[0]
    smeared = nib.load(str(label))
    nib.save(nib.Nifti1Image(smeared.get_fdata() * 0.9999, smeared.affine), tmp_path / "smeared.nii.gz")
    smeared_pair = (image, tmp_path / "smeared.nii.gz")
    bad = Dataset.from_files(train_pairs, block_shape=16, n_classes=2, validation_pairs=[smeared_pair],
                             spacing=(2.0, 2.0, 2.0)).binarize()
    with pytest.raises(DataError, match=rf"fix them before evaluation:\n  - .*{smeared_pair[1]}: non-integer"):
        model.evaluate(bad, output_dir=tmp_path / "eval")
    assert sorted((tmp_path / "eval").rglob("*")) == kept


def test_problems_in_pairs_given_in_python_are_said_of_the_pairs_not_of_a_folder(tiny_dataset, tmp_path):
    """evaluate's (and fit's) checks said "1 problem(s) in the dataset <the files' common parent folder>", a folder
    the user of Dataset.from_files never named, until the ninety-third session."""
    import nibabel as nib

    from test_inference import export

    train_pairs, val_pairs = _pairs(tiny_dataset)
    image, label = val_pairs[0]
    marked = nib.load(str(label))
    values = np.asanyarray(marked.dataobj).copy()
    values[0, 0, 0] = 7  # a class the dataset does not have
    nib.save(nib.Nifti1Image(values, marked.affine, marked.header), tmp_path / "marked.nii.gz")
    bad = (image, str(tmp_path / "marked.nii.gz"))
    model = Segmentation.load(export(tmp_path / "model"), output_dir=str(tmp_path / "run"), val_every=0,
                              trackers="none", progress_bar=False)
    problem = rf":\n  - marked \(label\): {re.escape(bad[1])}: label values \[7\] are not declared"
    given = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[bad], num_workers=0,
                               cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=r"^1 problem\(s\) in the validation_pairs given to Dataset.from_files; fix "
                                        r"them before evaluation" + problem):
        model.evaluate(given, output_dir=tmp_path / "eval")
    held_out = Dataset.from_files([*train_pairs, bad], block_shape=16, n_classes=3, validation_fraction=0.5,
                                  split_seed=next(seed for seed in range(50) if bad in _validation_pairs_of(
                                      [*train_pairs, bad], seed)), num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=r"^1 problem\(s\) in the validation cases held out of the pairs given to "
                                        r"Dataset.from_files; fix them before evaluation" + problem):
        model.evaluate(held_out, output_dir=tmp_path / "eval")
    with pytest.raises(DataError, match=r"^1 problem\(s\) in the pairs and validation_pairs given to "
                                        r"Dataset.from_files; fix them before training" + problem):
        model.fit(given.batch(2), steps=1)
    assert not (tmp_path / "eval").exists() and not (tmp_path / "run" / "model").exists()


def test_fit_refuses_a_label_in_another_unit_than_its_image_before_any_work(tiny_dataset, tmp_path):
    """fit runs the pre-flight check of each case, a label against its image's unit among them: a label
    declaring micrometres with its image's numbers trained unjudged, one with micrometre numbers was told to be
    resampled onto the image's grid, until the hundred-and-seventh session."""
    import nibabel as nib

    train_pairs, val_pairs = _pairs(tiny_dataset)
    for source, unit, name in zip(train_pairs[0], ("mm", "micron"), ("mm.nii.gz", "micrometres.nii.gz")):
        loaded = nib.load(source)
        declared = nib.Nifti1Image(np.asanyarray(loaded.dataobj), loaded.affine, loaded.header)
        declared.header.set_xyzt_units(unit)  # the label: the image's numbers, declared micrometres
        nib.save(declared, tmp_path / name)
    image = str(tmp_path / "mm.nii.gz")
    data = Dataset.from_files([(image, str(tmp_path / "micrometres.nii.gz")), *train_pairs[1:]], block_shape=16,
                              n_classes=3, validation_pairs=val_pairs, num_workers=0, cache_dir=str(tmp_path / "c"))
    problem = (rf"\(label vs image\): {re.escape(str(tmp_path / 'micrometres.nii.gz'))}: its header declares its "
               rf"voxel sizes in micrometres \(xyzt_units\), that of {re.escape(image)}, the case's image, in mm\. ")
    with pytest.raises(DataError, match=r"^1 problem\(s\) in .*fix them before training:\n  - \S+ " + problem):
        Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(tmp_path / "run"), trackers="none", progress_bar=False).fit(data, steps=1)
    assert not (tmp_path / "run" / "model").exists()


def _validation_pairs_of(pairs, seed):
    manifest = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_fraction=0.5, split_seed=seed).manifest
    return [(str(case.images[0]), str(case.label)) for case in manifest.validation]


def test_evaluate_refuses_an_output_dir_among_the_datasets_files(tiny_dataset, tmp_path):
    """Each was taken, predictions/, labels/, metrics.csv and summary.json written beside the user's scans and
    labels, until the ninety-third session; the command line refuses --output in LABELS since the ninety-second."""
    from test_inference import export

    data_dir = tmp_path / "data"
    (data_dir / "images").mkdir(parents=True)
    (data_dir / "labels").mkdir()
    train_pairs, val_pairs = ([(shutil.copy(image, data_dir / "images"), shutil.copy(label, data_dir / "labels"))
                               for image, label in listed] for listed in _pairs(tiny_dataset))
    (data_dir / "training").mkdir()  # a training case's label apart: the user's files too
    train_pairs[0] = (train_pairs[0][0], shutil.move(train_pairs[0][1], data_dir / "training"))
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs[:1], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    model = Segmentation.load(export(tmp_path / "model"))
    given = sorted(data_dir.rglob("*"))
    among = r": its predictions/, labels/, metrics.csv and summary.json would lie among the dataset's files; "
    refusals = {data_dir / "labels": rf"is the folder of the dataset's labels {data_dir / 'labels'}{among}"
                                     r"give a folder outside it$",
                data_dir / "labels" / "scores": rf"is inside the folder of the dataset's labels "
                                                rf"{data_dir / 'labels'}{among}give a folder outside it$",
                data_dir / "images": rf"is the folder of the dataset's images{among}give a folder of its own$",
                data_dir / "training": rf"is the folder of the dataset's labels {data_dir / 'training'}{among}",
                data_dir: rf"is the folder of the pairs' files{among}give a folder of its own, such as "
                          rf"{data_dir / 'evaluation'}$"}
    for output_dir, refusal in refusals.items():
        with pytest.raises(DataError, match=rf"^evaluate: output_dir {output_dir} {refusal}"):
            model.evaluate(data, output_dir=output_dir)
        assert sorted(data_dir.rglob("*")) == given
    assert model.evaluate(data, output_dir=data_dir / "evaluation")["num_cases"] == 1  # a folder of its own there


def _refused_by_evaluate_and_predict(model, data, output_dir, files) -> tuple[str, str]:
    """What ``model.evaluate(data)`` and predict of ``files`` (one validation case's) by the same model raise."""
    from accelerated_seg.inference import predict_file

    with pytest.raises(DataError) as refused:
        model.evaluate(data, output_dir=output_dir)
    with pytest.raises(DataError) as predicted:
        predict_file(model.model_dir, files, Path(output_dir).parent / "predicted.nii.gz")
    return str(refused.value), str(predicted.value)


def test_evaluates_output_dir_too_long_or_in_a_loop_is_told_as_the_commands_output_is(tiny_dataset, tmp_path):
    """h120 put the command's --output through check_output_folder first; Segmentation.evaluate's output_dir still
    met a look at its predictions/ and a resolve before it: a name too long was the bare "[Errno 36] File name too
    long", a link in a loop pathlib's "RuntimeError: Symlink loop" (review of h120,
    benchmarks/results/review_estimator_evaluate_output_2026-12-07/)."""
    from test_inference import export

    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs[:1], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    model = Segmentation.load(export(tmp_path / "model"))
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    refusals = {tmp_path / ("a" * 300): r" .*: a name on its path is 300 bytes long \(a{24}\.\.\.\), and a file or "
                                        r"folder name takes at most 255: give a shorter one$",
                tmp_path / "loop": r": .*loop is a symbolic link in a loop .*; or give another folder$"}
    for output_dir, refusal in refusals.items():
        with pytest.raises(DataError, match=rf"^evaluate: output_dir{refusal}"):
            model.evaluate(data, output_dir=output_dir)


def test_evaluate_judges_a_cases_channel_units_as_predict_does_before_the_check(tiny_dataset, tmp_path):
    """evaluate's pre-flight check of its validation cases has no model's spacing: a channel of no unit on micrometre
    numbers beside one in mm was told ``resample the channels onto one grid`` there, while predict, reading the
    files together against the model's spacing (h72), tells the channel to be rewritten from micrometres (review of
    h72); and a case the check passes but predict refuses (every file in micrometres for a model in mm) stopped
    evaluate after its folders were rebuilt. Each is refused before the check, in predict's words, and predict's
    line run as written has the first case scored."""
    import nibabel as nib

    from test_inference import export, in_unit, run_first_lines

    training, validation = _pairs(tiny_dataset)
    (train_image, train_label), (image_path, label_path) = training[0], validation[0]
    image, label = nib.load(image_path), nib.load(label_path)
    model = Segmentation.load(export(tmp_path / "model", in_channels=2, spacing_unit="mm"))
    train_images = [train_image, shutil.copy(train_image, tmp_path / "t_0001.nii.gz")]

    def refused_as_predict_refuses(name, units, per_mm, label_unit):
        """The dataset of one validation case of channels in ``units`` (``per_mm`` each), its label in
        ``label_unit``, refused by evaluate before its check with predict's words."""
        (tmp_path / name).mkdir()
        channels = [str(in_unit(image, tmp_path / name / f"v_000{number}.nii.gz", unit, scale))
                    for number, (unit, scale) in enumerate(zip(units, per_mm))]
        validation = [(channels, str(in_unit(label, tmp_path / name / "v.nii.gz", label_unit, 1.0)))]
        data = Dataset.from_files([(train_images, train_label)], block_shape=16, n_classes=3,
                                  validation_pairs=validation, num_workers=0, cache_dir=str(tmp_path / "cache"))
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", channels)
        assert said.startswith("1 problem(s) in the validation_pairs given to Dataset.from_files; fix them before "
                               f"evaluation:\n  - v (image channels): {predicted}"), said
        assert "onto one grid" not in said and not (tmp_path / "eval" / "predictions").exists(), said
        return data, said

    refused_as_predict_refuses("micrometres", ("micron", "micron"), (1.0, 1.0), "micron")
    data, said = refused_as_predict_refuses("no_unit", ("mm", "unknown"), (1.0, 1000.0), "mm")
    assert run_first_lines(said) == 1  # channel 1 rewritten from micrometres: every file at its voxel size in mm
    assert model.evaluate(data, output_dir=tmp_path / "eval")["num_cases"] == 1


def test_evaluate_refuses_a_case_predict_refuses_as_far_finer_before_its_folders_are_rebuilt(tiny_dataset, tmp_path):
    """A validation case whose voxels predict refuses as far finer than the model's spacing (a header in metres: one
    declaring mm 100 times finer than the training cases' median too, cases_median_spacing, since helper h105 of the
    hundred-and-nineteenth session; one of no unit against any spacing) passed evaluate's checks, which have no
    model's spacing: evaluate rebuilt its folders, deleting the last call's summary.json, predicted the other cases
    and stopped there (the review of h105, ``benchmarks/results/review_predict_training_voxels_2026-12-06/``). Each
    is refused before the check, in predict's words, the last call's evaluation left whole."""
    import nibabel as nib

    from test_inference import export, in_unit

    training, validation = _pairs(tiny_dataset)
    (image_path, label_path) = validation[0]
    image, label = nib.load(image_path), nib.load(label_path)
    model = Segmentation.load(export(tmp_path / "model", spacing_set=True, cases_median_spacing=[2.0, 2.0, 2.0]))
    kept = model.evaluate(Dataset.from_files(training[:1], block_shape=16, n_classes=3, validation_pairs=validation,
                                             num_workers=0), output_dir=tmp_path / "eval")
    summary = (tmp_path / "eval" / "summary.json").read_text()
    assert kept["num_cases"] == len(validation)
    for unit in ("mm", "unknown"):  # taken at its word against a spacing set but for the median; refused alike
        (tmp_path / unit).mkdir()  # beside no folder evaluate writes
        scan = in_unit(image, tmp_path / unit / "metres.nii.gz", unit, 0.001)
        metres = [*validation[1:], (str(scan), str(in_unit(label, tmp_path / unit / "m.nii.gz", unit, 0.001)))]
        data = Dataset.from_files(training[:1], block_shape=16, n_classes=3, validation_pairs=metres, num_workers=0)
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", scan)
        assert said.startswith("1 problem(s) in the validation_pairs given to Dataset.from_files; fix them before "
                               f"evaluation:\n  - m (image channels): {predicted}"), said
        assert (tmp_path / "eval" / "summary.json").read_text() == summary, unit  # the last evaluation whole
        assert sorted(path.name for path in (tmp_path / "eval" / "predictions").iterdir()) == sorted(
            [".written_by_segmentation_evaluate", *(Path(path).name for _, path in validation)]), unit


def _one_case_of_4d_files(folder: Path, volumes: dict[str, tuple]) -> dict[str, str]:
    """Files of 8^3 voxels at the export's 2.5 mm, each of a shape in ``volumes`` by name, and a 3D label, ``label``."""
    import nibabel as nib

    folder.mkdir()
    rng, affine, paths = np.random.default_rng(0), np.diag([2.5, 2.5, 2.5, 1.0]), {}
    label = np.zeros((8, 8, 8), np.uint8)
    label[2:6, 2:6, 2:6] = 1
    for name, shape in {**volumes, "label": None}.items():
        array = label if shape is None else rng.uniform(10, 100, shape).astype(np.float32)
        nib.save(nib.Nifti1Image(array, affine), folder / f"{name}.nii.gz")
        paths[name] = str(folder / f"{name}.nii.gz")
    return paths


def test_evaluate_takes_a_case_of_one_4d_file_of_the_models_channels_as_predict_does(tmp_path):
    """A case given as one (x, y, z, 2) file, as the Decathlon's BrainTumour keeps its channels, for a model of 2:
    predict segments it, but evaluate of a Dataset naming no channels refused it, "the model has 2 image channels and
    the dataset 1" (review r92; the hundred-and-twentieth session's helper h109, probed in
    benchmarks/results/four_d_cases_2026-12-07/).
    The model's channels are what such a case is judged by, so a file of 3 volumes is refused by both in one wording,
    and NIfTI's vector layout (x, y, z, 1, 2) alike, named with channel_names too."""
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"two": (8, 8, 8, 2), "three": (8, 8, 8, 3),
                                                       "vector": (8, 8, 8, 1, 2)})
    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    assert model.predict(files["two"]).shape == (8, 8, 8)
    for names in (None, ["MRI0", "MRI1"]):
        data = Dataset.from_files([], validation_pairs=[(files["two"], files["label"])], n_classes=3,
                                  channel_names=names, block_shape=16, num_workers=0)
        assert model.evaluate(data, output_dir=tmp_path / "eval")["num_cases"] == 1, names
    words = {}
    for name, names in (("three", None), ("vector", None), ("vector", ["MRI0", "MRI1"])):
        data = Dataset.from_files([], validation_pairs=[(files[name], files["label"])], n_classes=3,
                                  channel_names=names, block_shape=16, num_workers=0)
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", files[name])
        assert said.endswith(f"evaluation:\n  - label (image channels): {predicted}"), (name, said)
        words[name] = predicted
    assert "is 4D with 3 volumes, but the model takes 2 channels and this one file is given for them" in words["three"]
    assert "is NIfTI's vector layout" in words["vector"]
    # a model of one channel: predict's words too, not the dataset's "declare its channels ... channel_names", which
    # evaluate then refuses as more channels than the model's
    single = Segmentation.load(export(tmp_path / "single"))
    data = Dataset.from_files([], validation_pairs=[(files["two"], files["label"])], n_classes=3, block_shape=16,
                              num_workers=0)
    said, predicted = _refused_by_evaluate_and_predict(single, data, tmp_path / "eval", files["two"])
    assert said.endswith(f"evaluation:\n  - label (image channels): {predicted}") and "one channel" in predicted, said


def test_a_4d_file_among_a_cases_channel_files_is_told_one_3d_volume_each_by_evaluate_and_predict(tmp_path):
    """An (x, y, z, 2) file beside a 3D one for a 2-channel model: evaluate and predict said "the model takes one
    channel: give the one 3D volume it was trained on" of a model of 2, until review r94 of the
    hundred-and-twentieth session (benchmarks/results/review_four_d_cases_2026-12-07/)."""
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"two": (8, 8, 8, 2), "one": (8, 8, 8)})
    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    for images in ([files["two"], files["one"]], [files["one"], files["two"]]):
        data = Dataset.from_files([], validation_pairs=[(images, files["label"])], n_classes=3, block_shape=16,
                                  num_workers=0)
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", images)
        assert said.endswith(f"evaluation:\n  - label (image channels): {predicted}"), said
        assert predicted.endswith(f"{files['two']}: shape (8, 8, 8, 2) is 4D with 2 volumes, but the model takes 2 "
                                  f"channels and it is one of the 2 files given for them, one 3D volume each: give "
                                  f"one 3D file per channel, in the order channel 0 (MRI0), channel 1 (MRI1), or one "
                                  f"file of them all as (x, y, z, 2)"), predicted


def test_a_case_of_a_volumes_and_a_grid_fault_is_told_its_volumes_first_by_evaluate_and_predict(tmp_path):
    """A 2-channel model's case of two files, one of 3 volumes, the other on another grid: evaluate named the volumes
    first and predict the grid, for the same case, until the hundred-and-twenty-first session (helper h112,
    benchmarks/results/channel_words_2026-12-07/); both now say predict's one check's words
    (inference_reading.channel_files_refusal), the volumes first. A grid fault alone is predict's words in both too."""
    import nibabel as nib
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"three": (8, 8, 8, 3), "one": (8, 8, 8)})
    files["apart"] = str(tmp_path / "cases" / "apart.nii.gz")
    nib.save(nib.Nifti1Image(np.ones((8, 8, 8), np.float32), np.diag([3.0, 3.0, 3.0, 1.0])), files["apart"])
    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    both = ([files["three"], files["apart"]], [files["apart"], files["three"]])
    grid_alone = [files["one"], files["apart"]]
    for images in (*both, grid_alone):
        data = Dataset.from_files([], validation_pairs=[(images, files["label"])], n_classes=3, block_shape=16,
                                  num_workers=0)
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", images)
        assert said.endswith(f"evaluation:\n  - label (image channels): {predicted}"), (said, predicted)
        if files["three"] in images:
            assert predicted.startswith(f"{files['three']}: shape (8, 8, 8, 3) is 4D with 3 volumes, but the model "
                                        f"takes 2 channels and it is one of the 2 files given for them"), predicted
        else:
            assert predicted == (f"{files['apart']} and {files['one']} are channels of one case but do not share a "
                                 f"voxel grid: channel 1 (MRI1) voxels are 3 x 3 x 3 mm, channel 0 (MRI0) voxels 2.5 x "
                                 f"2.5 x 2.5 mm; resample every channel onto the first one's grid"), predicted


def test_a_truncated_channel_on_another_grid_is_told_both_by_evaluate_and_predict(tmp_path):
    """A case's channel file truncated and on another grid than the first: told the grid alone by predict and
    evaluate (the headers judged before a voxel is read), the truncation once the grid was mended, a round later,
    until the hundred-and-twenty-second session (helper h119, benchmarks/results/channel_words_left_2026-12-07/);
    both now read a case refused for its grids whole and name the damaged file first, in the same refusal, which
    channel it is. A truncated file on the first one's grid is told its truncation alone, as before."""
    import nibabel as nib
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"one": (8, 8, 8), "two": (8, 8, 8)})
    apart = tmp_path / "cases" / "apart.nii.gz"
    nib.save(nib.Nifti1Image(np.random.default_rng(1).uniform(10, 100, (8, 8, 8)).astype(np.float32),
                             np.diag([3.0, 3.0, 3.0, 1.0])), apart)
    for name, source in (("apart_cut", apart), ("one_cut", files["one"]), ("two_cut", files["two"])):
        whole = Path(source).read_bytes()
        files[name] = str(tmp_path / "cases" / f"{name}.nii.gz")
        Path(files[name]).write_bytes(whole[:len(whole) // 2])
    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    cut = "truncated (the gzip stream ends early, e.g. an interrupted copy); re-export or re-download this file"
    grid = ("are channels of one case but do not share a voxel grid: channel 1 (MRI1) voxels are 3 x 3 x 3 mm, "
            "channel 0 (MRI0) voxels 2.5 x 2.5 x 2.5 mm; resample every channel onto the first one's grid")
    for images, expected in (
            ([files["one"], files["apart_cut"]], f"{files['apart_cut']}: {cut}; besides, {files['apart_cut']} and "
                                                 f"{files['one']} {grid}"),
            ([files["one_cut"], str(apart)], f"{files['one_cut']}: {cut}; besides, {apart} and {files['one_cut']} "
                                             f"{grid}"),
            ([files["one"], files["two_cut"]], f"{files['two_cut']}: {cut}")):
        data = Dataset.from_files([], validation_pairs=[(images, files["label"])], n_classes=3, block_shape=16,
                                  num_workers=0)
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", images)
        assert predicted == expected, predicted
        assert said.endswith(f"evaluation:\n  - label (image {'channels' if 'besides' in expected else 'channel 1'})"
                             f": {predicted}"), said


def test_a_one_channel_models_channel_is_said_by_its_name_by_predict_and_evaluate(tmp_path):
    """A one-channel model's channel: predict said "the model takes one channel (channel 0 (MRI0))", brackets in
    brackets, predict of a 4D file and evaluate "one channel" unnamed, and evaluate of a case of another number of
    files "the model has 1 image channels and the dataset 2 ... in its order", an order never said, until the
    hundred-and-twenty-second session (helper h119, benchmarks/results/channel_words_left_2026-12-07/): each now
    names the lone channel "one channel (MRI0)" and several in predict's order (data.cases' channel_said)."""
    from accelerated_seg.inference import predict_file
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"one": (8, 8, 8), "other": (8, 8, 8), "third": (8, 8, 8),
                                                       "two": (8, 8, 8, 2)})
    single = Segmentation.load(export(tmp_path / "single"))
    with pytest.raises(DataError) as two_files:
        single.predict([files["one"], files["one"]])
    with pytest.raises(DataError) as four_d:
        predict_file(single.model_dir, files["two"], tmp_path / "predicted.nii.gz")
    data = Dataset.from_files([], validation_pairs=[([files["one"], files["other"]], files["label"])], n_classes=3,
                              block_shape=16, num_workers=0)
    with pytest.raises(ConfigError) as evaluated:
        single.evaluate(data, output_dir=tmp_path / "eval")
    assert "but the model takes one channel (MRI0): to segment them as 2 cases" in str(two_files.value), two_files
    assert str(four_d.value).endswith("holds 2 3D volume(s), but the model takes one channel (MRI0): give the one 3D "
                                      "volume it was trained on"), four_d
    assert str(evaluated.value) == ("evaluate: the model takes one channel (MRI0) and the dataset gives each case 2: "
                                    "give each case one file, of that channel"), evaluated
    pair = Segmentation.load(export(tmp_path / "pair", in_channels=2))
    data = Dataset.from_files([], validation_pairs=[([files["one"], files["other"], files["third"]], files["label"])],
                              n_classes=3, block_shape=16, num_workers=0)
    with pytest.raises(ConfigError) as evaluated:
        pair.evaluate(data, output_dir=tmp_path / "eval")
    assert str(evaluated.value) == ("evaluate: the model takes 2 channels and the dataset gives each case 3: give one "
                                    "file per channel, in the order channel 0 (MRI0), channel 1 (MRI1), or one 4D "
                                    "file (x, y, z, 2) of them all"), evaluated


def test_a_model_naming_no_channels_has_them_named_alike_by_predict_evaluate_and_fit(tmp_path):
    """An export whose config.json names no channels: predict said "channel 0, channel 1" of them, evaluate's
    manifest and fit's advice image_0, image_1, until the hundred-and-twenty-first session (helper h112); all say
    the names a Dataset gives channels nothing names (data.cases.unnamed_channels), as an export of such a Dataset
    records them. An export recording image_0, image_1 (as every earlier version's estimator wrote a Dataset's that
    named none) still loads, predicts, and is told in the very same words: since the hundred-and-twenty-third session
    (helper h125) by their indices alone, "channel 0, channel 1", as a name nobody gave (data.cases.channel_said)."""
    import json

    from accelerated_seg.estimator_predict_checks import evaluated_manifest
    from test_inference import export

    files = _one_case_of_4d_files(tmp_path / "cases", {"two": (8, 8, 8, 2), "three": (8, 8, 8, 3)})
    unnamed, recorded = export(tmp_path / "unnamed", in_channels=2), export(tmp_path / "recorded", in_channels=2)
    config = json.loads((unnamed / "config.json").read_text())
    del config["channels"]
    (unnamed / "config.json").write_text(json.dumps(config))
    (recorded / "config.json").write_text(json.dumps({**config, "channels": {"0": "image_0", "1": "image_1"}}))
    words = []
    for folder in (unnamed, recorded):
        model = Segmentation.load(folder)
        assert model.predict(files["two"]).shape == (8, 8, 8)
        data = Dataset.from_files([], validation_pairs=[(files["three"], files["label"])], n_classes=3,
                                  block_shape=16, num_workers=0)
        assert evaluated_manifest(data, json.loads((folder / "config.json").read_text())).channels == \
            {0: "image_0", 1: "image_1"}
        said, predicted = _refused_by_evaluate_and_predict(model, data, tmp_path / "eval", files["three"])
        assert said.endswith(f"evaluation:\n  - label (image channels): {predicted}"), said
        words.append(predicted)
    # by their indices alone since the hundred-and-twenty-third session (helper h125): image_0 is no user's name
    assert words[0] == words[1] and words[0].endswith("one 3D file per channel, in the order channel 0, channel 1"), \
        words
    data = Dataset.from_files([(files["two"], files["label"])], validation_pairs=[], n_classes=3, block_shape=16,
                              num_workers=0, cache_dir=str(tmp_path / "cache"), spacing=(2.5, 2.5, 2.5))
    with pytest.raises(ConfigError, match=r"name them as the model's channels, Dataset.from_files\(\.\.\., "
                                          r"channel_names=\['image_0', 'image_1'\]\)\)"):
        Segmentation.load(unnamed, output_dir=str(tmp_path / "run"), trackers="none", progress_bar=False,
                          val_every=0, save_every=0).fit(data, steps=1)


def test_fit_of_a_loaded_model_on_one_4d_file_a_case_names_channel_names_as_the_way(tmp_path):
    """A loaded model of 2 channels fit on cases of one (x, y, z, 2) file, a Dataset naming no channels (which
    evaluate and predict take for that model): refused before the run folder exists, as "image channels: 2 in the
    model, 1 in the dataset: give a Dataset the model fits" alone until review r94 of the hundred-and-twentieth
    session; the way, channel_names, is said, and taken."""
    import nibabel as nib
    from test_inference import export

    rng, affine, pairs = np.random.default_rng(0), np.diag([2.5, 2.5, 2.5, 1.0]), []
    label = np.zeros((16, 16, 16), np.uint8)
    label[4:12, 4:12, 4:12] = 1
    for index in range(3):
        nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16, 2)).astype(np.float32), affine),
                 tmp_path / f"scan_{index}.nii.gz")
        nib.save(nib.Nifti1Image(label, affine), tmp_path / f"case_{index}.nii.gz")
        pairs.append((str(tmp_path / f"scan_{index}.nii.gz"), str(tmp_path / f"case_{index}.nii.gz")))
    model = export(tmp_path / "model", in_channels=2)
    quiet = {"trackers": "none", "progress_bar": False, "val_every": 0, "save_every": 0}
    for names in (None, ["MRI0", "MRI1"]):
        data = Dataset.from_files(pairs, n_classes=3, block_shape=16, num_workers=0, channel_names=names,
                                  cache_dir=str(tmp_path / f"cache_{names is None}"), spacing=(2.5, 2.5, 2.5))
        run = tmp_path / f"run_{names is None}"
        if names is None:
            with pytest.raises(ConfigError, match=r"image channels: 2 in the model, 1 in the dataset\): give a Dataset "
                                                  r"the model fits \(its first case's one file, .*scan_0.nii.gz, holds "
                                                  r"2 volumes \(x, y, z, 2\): name them as the model's channels, "
                                                  r"Dataset.from_files\(\.\.\., channel_names=\['MRI0', 'MRI1'\]\)\)"):
                Segmentation.load(model, output_dir=str(run), **quiet).fit(data, steps=1)
            assert not run.exists()
        else:
            Segmentation.load(model, output_dir=str(run), **quiet).fit(data, steps=1, warmup_steps=0)
            assert (run / "model" / "model.safetensors").is_file()


def test_segmentation_fit_predict_evaluate_save_load(tiny_dataset, tmp_path, monkeypatch):
    import nibabel as nib
    import numpy as np

    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=3, save_every=0, trackers="none",
                         progress_bar=False)
    design = "model_args={'channels': [4, 8, 16], 'strides': [2, 2], 'num_res_units': 1}"
    assert repr(model) == f"<Segmentation 'unet', {design}: not trained yet>"
    model.fit(data, epochs=1)
    assert model.summary["step"] == 6 * 4 // 2  # one pass: 6 cases x 4 patches, batch 2
    assert repr(model) == (f"<Segmentation 'unet', {design}: trained 12 steps in {tmp_path / 'run'}, best validation "
                           f"mean Dice {model.summary['best_dice']:.4f} at step {model.summary['best_step']}; "
                           f"predicts with {tmp_path / 'run' / 'best_model'}>")
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match=r"or set Segmentation\(\.\.\., overwrite=True\) to delete it"):
        model.fit(data, steps=1)  # a second fit would replace the first run: refused, in the estimator's terms
    # overwrite would delete the run's train/ folder, where this dataset's cache lies: refused before any work
    (tmp_path / "run" / "train").mkdir()
    cached_there = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                                      cache_dir=str(tmp_path / "run" / "train" / "cache"), num_workers=0)
    with pytest.raises(ConfigError, match=r"Segmentation\(\.\.\., overwrite=True\) would delete .*run/train with "
                                          r"the earlier run"):
        model.fit(cached_there, steps=1, overwrite=True)
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()  # the first run is still there
    # fit's own output_dir is where evaluate writes by default (the constructor's, before the twenty-ninth session)
    loaded = Segmentation.load(model.model_dir)
    assert repr(loaded).endswith(f": loaded from {model.model_dir}>")
    elsewhere = loaded.fit(data, steps=1, output_dir=str(tmp_path / "elsewhere"),
                           val_every=0, trackers="none", progress_bar=False)
    # no validation, so no Dice; the weights it started from
    assert repr(elsewhere).endswith(f": trained 1 step in {tmp_path / 'elsewhere'}, from {model.model_dir}; "
                                    f"predicts with {tmp_path / 'elsewhere' / 'model'}>")
    elsewhere.evaluate(data)
    assert (tmp_path / "elsewhere" / "evaluation" / "summary.json").is_file()
    # load takes the constructor's settings, output_dir among them: a loaded model evaluated into
    # ./runs/segmentation of whatever folder the script ran from (sixty-seventh session)
    placed = Segmentation.load(model.model_dir, output_dir=str(tmp_path / "placed"))
    placed.evaluate(data)
    assert (tmp_path / "placed" / "evaluation" / "summary.json").is_file()
    # A test set is its validation pairs alone, scored whole; a Dataset split by its fraction says that
    # it scores the cases held out (a test set given as the pairs was scored on 1 case in 6, unsaid)
    settings = dict(block_shape=16, n_classes=3, spacing=(2.0, 2.0, 2.0), cache_dir=str(tmp_path / "cache"))
    assert placed.evaluate(Dataset.from_files([], validation_pairs=val_pairs, **settings))["num_cases"] == 3
    with pytest.warns(UserWarning, match=r"^evaluate: scoring the Dataset's \d validation case\(s\) alone, held "
                                         r"out by its split \(fraction 0.2 \(seed 0\)\); its \d training case\(s\)"):
        placed.evaluate(Dataset.from_files(train_pairs + val_pairs, **settings))
    with pytest.raises(ConfigError, match="Segmentation.load: model_args are the saved model's"):
        Segmentation.load(model.model_dir, model_args={"channels": [4, 8]})

    case = load_msd(tiny_dataset).validation[1]  # a non-RAS or anisotropic one
    reference = nib.load(case.images[0])
    image = model.predict(str(case.images[0]))
    assert image.shape == reference.shape
    np.testing.assert_allclose(image.affine, reference.affine, atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its own affine given: nothing to say
        labels = model.predict(np.asanyarray(reference.dataobj), affine=reference.affine)
    np.testing.assert_array_equal(labels, np.asanyarray(image.dataobj))  # the same case as an array
    # without it, read as 1 mm voxels for a model of 2 mm ones: resampled as another head, said (unsaid before)
    with pytest.warns(UserWarning, match=r"^predict: the array has no affine, so its voxels are read as 1 mm \(RAS\), "
                                         r"and the model was trained at 2 x 2 x 2 mm"):
        model.predict(np.asanyarray(reference.dataobj))
    as_tensor = model.predict(torch.as_tensor(np.asanyarray(reference.dataobj)), affine=reference.affine)
    np.testing.assert_array_equal(as_tensor, labels)  # and as a torch tensor
    # channels last, as get_fdata() gives a (X, Y, Z, 1) file: "gives 64 channel(s)" before the sixty-seventh session
    channels_last = model.predict(np.asanyarray(reference.dataobj)[..., None], affine=reference.affine)
    np.testing.assert_array_equal(channels_last, labels)
    # nib.load's image itself ("an array of shape ()" before): the path's result, on its grid
    as_image = model.predict(reference)
    assert isinstance(as_image, nib.Nifti1Image)
    np.testing.assert_array_equal(np.asanyarray(as_image.dataobj), labels)
    np.testing.assert_allclose(as_image.affine, reference.affine, atol=1e-5)
    from accelerated_seg.config import ConfigError
    from accelerated_seg.data.errors import DataError

    # An image predict cannot segment is named as the image given, not as the temporary file it was saved to
    four_d = nib.Nifti1Image(np.stack([np.asanyarray(reference.dataobj)] * 2, axis=-1), reference.affine)
    with pytest.raises(DataError, match=r"^predict: the image: a 4D image") as refused:
        model.predict(four_d)
    assert "input_0000" not in str(refused.value)
    volume = np.asanyarray(reference.dataobj).astype(np.float32)
    nan_volume = volume.copy()
    nan_volume[0, 0, 0] = np.nan
    for bad, message in ((volume[:, :, 0], r"predict: an array of shape \(\d+, \d+\); give \(X, Y, Z\)"),
                         (np.stack([volume, volume]), r"gives 2 channel\(s\) .* but the model expects 1"),
                         (nan_volume, r"predict: the array holds 1 non-finite value"),
                         (volume.astype(np.complex64), "predict: the array holds complex64 values"),
                         # MONAI's reorientation traceback, and read_nifti's words for a dataset, before
                         (volume[:0], r"predict: an array of shape \(0, \d+, \d+\) holds no voxels"),
                         ({"image": str(case.images[0])}, r"predict: a dict \(keys \['image'\]\); give the scan"),
                         (str(tmp_path), r"^predict: x names the folder .*, but takes one case's files"),
                         (str(tmp_path / "no_such.nii.gz"), r"no_such.nii.gz: no such file; give the scan's NIfTI")):
        with pytest.raises(DataError, match=message):
            model.predict(bad)
    for affine in (np.zeros((4, 4)), np.eye(3)):
        with pytest.raises(ConfigError, match="predict: affine must be a finite 4x4 voxel-to-mm matrix"):
            model.predict(volume, affine=affine)
    with pytest.raises(ConfigError, match="predict: an image carries its own affine; drop affine="):
        model.predict(reference, affine=np.eye(4))
    # with the closest option, as every other keyword of the estimator (none until the ninety-fifth session)
    with pytest.raises(ConfigError, match=r"^predict: overlapp is not an option \(did you mean 'overlap'\?\); the "
                                          r"options are batch_size, affine, overlap"):
        model.predict(volume, overlapp=0.5)
    with pytest.raises(ConfigError, match=r"^predict: batch_sise is not an option \(did you mean 'batch_size'\?\)"):
        model.predict(volume, batch_sise=2)
    with pytest.raises(ConfigError, match="^predict: tta 'bogus' is not known"):
        model.predict(volume, tta="bogus")
    with pytest.raises(ConfigError, match=r"^predict: tta=True: name the flips instead: 'axes' .* 'all' .* or 'none'"):
        model.predict(volume, tta=True)
    # A warning about the input names it as the caller gave it, not the temporary file behind it
    with pytest.warns(UserWarning, match=r"^predict: the array: a single slice") as seen:
        model.predict(volume[..., :1], affine=np.diag([2.0, 2.0, 2.0, 1.0]))
    assert not any("input_0000" in str(w.message) for w in seen)
    assert seen[0].filename == __file__  # the caller's line, so Python's default says it once for a loop

    # evaluate's options, checked before its folders are rebuilt (predict_file's TypeError before)
    with pytest.raises(ConfigError, match=r"^evaluate: overlapp is not an option \(did you mean 'overlap'\?\); the "
                                          r"options are batch_size, overlap"):
        model.evaluate(data, overlapp=0.5)
    for method in (model.evaluate, model.predict):  # by the name given ("sw_batch_size must be" before)
        with pytest.raises(ConfigError, match=r"(evaluate|predict): batch_size \(windows per forward pass\) must "
                                              r"be a whole number >= 1, got 0"):
            method(data if method == model.evaluate else volume, batch_size=0)
    assert not (tmp_path / "run" / "evaluation").exists()
    summary = model.evaluate(data, batch_size=2)
    assert (tmp_path / "run" / "evaluation" / "summary.json").is_file()
    assert json.dumps(summary)  # plain JSON, per class and overall
    # Into the run's own folder: its training summary.json was deleted before the thirtieth session
    run_summary = (tmp_path / "run" / "summary.json").read_text()
    with pytest.raises(DataError, match="holds summary.json that evaluate did not write"):
        model.evaluate(data, output_dir=tmp_path / "run")
    assert (tmp_path / "run" / "summary.json").read_text() == run_summary

    assert model.save(model.model_dir) == model.model_dir  # saving where it already is: nothing to copy
    (tmp_path / "taken").write_text("a file of the user's")
    for target in (tmp_path / "taken", tmp_path / "taken" / "model"):  # errno 17 and 20 before
        with pytest.raises(ConfigError, match=f"save: {tmp_path / 'taken'} is a file, so the model folder"):
            model.save(target)
    assert (tmp_path / "taken").read_text() == "a file of the user's"
    (tmp_path / "project").mkdir()  # a config.json of its own: replaced by the model's before the thirty-first session
    (tmp_path / "project" / "config.json").write_text('{"name": "my project"}')
    with pytest.raises(ConfigError, match="project holds a config.json or model.safetensors that is not an exported"):
        model.save(tmp_path / "project")
    assert (tmp_path / "project" / "config.json").read_text() == '{"name": "my project"}'
    assert not (tmp_path / "project" / "model.safetensors").exists()
    for empty in ("", " "):  # "" was the working directory: the model was copied there
        with pytest.raises(ConfigError, match=f"save: an empty path '{empty}'; give the folder"):
            model.save(empty)
    assert not Path("model.safetensors").exists()
    model.save(tmp_path / "saved")
    again = Segmentation.load(model.save(tmp_path / "saved"))  # a model saved there earlier is replaced
    np.testing.assert_array_equal(np.asanyarray(again.predict(str(case.images[0])).dataobj),
                                  np.asanyarray(image.dataobj))

    # A save that fails midway (a full disk at the second file) leaves the earlier model there whole:
    # the new weights were left under the earlier config.json before the seventy-fourth session.
    from safetensors.torch import load_file, save_file

    saved = tmp_path / "saved"
    save_file({name: tensor * 2 for name, tensor in load_file(saved / "model.safetensors").items()},
              str(saved / "model.safetensors"))  # another model's weights, as far as bytes tell
    before = {name: (saved / name).read_bytes() for name in ("model.safetensors", "config.json")}
    real_copy = shutil.copy2

    def disk_full_at_the_config(source, target, **kwargs):
        if Path(source).name == "config.json":
            raise OSError(28, "No space left on device", str(target))
        return real_copy(source, target, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(shutil, "copy2", disk_full_at_the_config)
        with pytest.raises(OSError, match="No space left"):
            model.save(saved)
    assert {name: (saved / name).read_bytes() for name in before} == before
    assert sorted(path.name for path in saved.iterdir()) == ["config.json", "model.safetensors"]  # no temporaries
    # A run's folder is no place for a saved model: load and predict --model took it for an export
    with pytest.raises(ConfigError, match=r"save: .*run is a training run's folder \(it holds checkpoints up to "
                                          r"step_12\)"):
        model.save(tmp_path / "run")
    assert not (tmp_path / "run" / "config.json").exists()
    (tmp_path / "results" / "model").mkdir(parents=True)  # a summary.json or a model/ may be anyone's: not a run
    (tmp_path / "results" / "summary.json").write_text("{}")
    shutil.copytree(saved, tmp_path / "results" / "model", dirs_exist_ok=True)
    assert Segmentation.load(model.save(tmp_path / "results")).model_dir == tmp_path / "results"
    with pytest.raises(ConfigError, match="Segmentation.load: the model is the saved model's"):  # a TypeError before
        Segmentation.load(saved, model="unet")
    with pytest.raises(ConfigError, match="Segmentation.load: an empty path ''"):
        Segmentation.load("")


def test_segmentation_loads_refusals_of_a_folder_name_the_method(tmp_path):
    """No export there, or a damaged config.json: said bare, without the method's name its other refusals
    carry, until the ninety-first session."""
    from accelerated_seg.data.errors import DataError

    with pytest.raises(FileNotFoundError, match=f"^Segmentation.load: {re.escape(str(tmp_path))}.*config.json is "
                                                f"missing"):
        Segmentation.load(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(DataError, match=r"^Segmentation.load: .*config.json is not valid JSON"):
        Segmentation.load(tmp_path)


def test_segmentation_load_given_the_networks_arguments_says_what_load_can_do(tmp_path):
    """The constructor's "pass them in model_args", which load refuses, until the ninety-sixth session."""
    from test_inference import export

    with pytest.raises(ConfigError, match=re.escape(
            "Segmentation.load: channels, num_res_units: argument(s) of the network, which the saved model holds "
            "(channels=[4, 8, 16], num_res_units=1): load it without them; to train another design, construct "
            "Segmentation('unet', model_args={'channels': ...}) and fit it")) as refused:
        Segmentation.load(export(tmp_path / "model"), channels=[8, 16], num_res_units=2)
    assert "pass them in model_args" not in str(refused.value)


def test_an_epoch_is_counted_with_the_batch_training_resolves(tiny_dataset, tmp_path):
    from accelerated_seg.config import ConfigError
    from accelerated_seg.estimator import steps_for_epochs

    train_pairs, val_pairs = _pairs(tiny_dataset)  # 6 training cases x 4 patches = 24 patches
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"))
    assert steps_for_epochs(1, data, data.batch(2).config(), processes=1) == 12
    assert steps_for_epochs(1, data, data.config(global_batch_size=8), processes=1) == 3  # was 12: 4 epochs
    assert steps_for_epochs(1, data, data.batch(2).config(grad_accum_steps=2), processes=2) == 3
    # an epoch shorter than a step (24 patches, steps of 32): 4 epochs are 3 steps, not 4 (5.3 epochs)
    assert steps_for_epochs(4, data, data.batch(4).config(grad_accum_steps=8), processes=1) == 3
    for bad in (dict(epochs=0), dict(epochs=-1), dict(epochs=1, steps=5)):
        with pytest.raises(ConfigError, match="fit: "):
            Segmentation("unet", output_dir=str(tmp_path / "run")).fit(data, **bad)


def _tiny_unet_and_data(tiny_dataset, tmp_path, **settings):
    """The tiny dataset, 16^3 blocks of it at 2 mm in batches of 2, and a quiet three-level U-Net for it."""
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), trackers="none", progress_bar=False, val_every=0,
                         save_every=0, **settings)
    return data, model


def test_max_steps_given_to_the_estimator_is_the_length_of_the_run(tiny_dataset, tmp_path):
    from accelerated_seg.config import ConfigError

    data, model = _tiny_unet_and_data(tiny_dataset, tmp_path, max_steps=2)
    with pytest.raises(ConfigError, match="fit: give one of epochs, steps \\(or max_steps\\), not epochs and max_steps"):
        model.fit(data, epochs=1, max_steps=3)
    (tmp_path / "taken").write_text("a file")  # named as the estimator's setting, not as train.output_dir
    with pytest.raises(ConfigError, match=f"Segmentation's output_dir='{tmp_path / 'taken'}': .* is a file"):
        model.fit(data, output_dir=str(tmp_path / "taken"))
    assert model.fit(data).summary["step"] == 2  # was one epoch (12 steps) whatever max_steps said
    assert model.fit(data, steps=1, overwrite=True).summary["step"] == 1  # this call's length wins


def test_a_resume_shorter_than_its_checkpoint_is_told_the_estimators_length_and_way_to_a_new_run(tiny_dataset,
                                                                                                   tmp_path):
    """It named train.max_steps and train.fit's max_epochs beside fit(epochs=/steps=), and sent a new run to
    fit(init_from=...) of the checkpoint, which init_from refuses (a notebook audit, hundred-and-fourth session)."""
    from accelerated_seg.config import ConfigError

    data, model = _tiny_unet_and_data(tiny_dataset, tmp_path, warmup_steps=0)
    model.fit(data, steps=2, save_every=1)
    checkpoint = tmp_path / "run" / "checkpoints" / "step_2"
    with pytest.raises(ConfigError) as refused:
        model.fit(data, steps=1, resume="latest")
    assert str(refused.value) == (
        f"{checkpoint} is at step 2, beyond the 1 optimizer step this run asks for (fit's epochs or steps): a "
        f"resumed run goes on from its step and cannot go back. Ask for more than 2 steps to train on, or start a "
        f"new run from its weights: accelerated-seg export {checkpoint} --output <folder>, then fit(..., "
        f"init_from=<folder>) (the optimizer and schedule start fresh; <run>/model is the last step's weights, not "
        f"necessarily this step's)")


def test_a_second_fit_of_a_constructed_estimator_says_that_it_starts_a_new_network(tiny_dataset, tmp_path, capsys):
    """nobrainer's (Keras') second fit goes on from the weights the first trained; this one's starts a new network,
    which it did unsaid (a notebook journey, ninety-fifth session): a note says so and how to train them on."""
    data, model = _tiny_unet_and_data(tiny_dataset, tmp_path, warmup_steps=0)
    model.fit(data, steps=1)
    assert "new network" not in capsys.readouterr().out  # the first fit's is new, as asked
    first = model.model_dir
    model.fit(data, steps=1, output_dir=str(tmp_path / "second"))
    said = capsys.readouterr().out
    assert f"note: this fit trains a new network, not the weights of the last fit ({first})" in said
    assert f"fit(..., init_from={str(first)!r}, output_dir=<another folder>) trains those on" in said
    model.fit(data, steps=1, init_from=str(model.model_dir), output_dir=str(tmp_path / "third"))
    assert "new network" not in capsys.readouterr().out  # they are trained on


def test_a_nobrainer_port_is_pointed_to_this_apis_names(tiny_dataset, tmp_path):
    """A nobrainer user's names and idioms got a list of fifty fields, or Python's own TypeError
    (eighty-fifth session's probe): each now names what this API takes."""
    from accelerated_seg.config import ConfigError

    train_pairs, val_pairs = _pairs(tiny_dataset)
    for given, meant in ((dict(n_class=3), "'n_classes'"), (dict(blockshape=16), "'block_shape'"),
                         (dict(eval_size=0.3), "'validation_fraction'")):
        with pytest.raises(ConfigError, match=rf"is not a data setting \(did you mean {meant}\?\)"):
            Dataset.from_files(train_pairs, **given)
    with pytest.raises(ConfigError, match=r"binary segmentation is n_classes=2 here: nobrainer's n_classes=1"):
        Dataset.from_files(train_pairs, n_classes=1)
    with pytest.raises(ConfigError, match=r"^Segmentation: epochs is not a training or optimizer setting \(did you "
                                          r"mean fit\(dataset, epochs=N\)\?\)"):
        Segmentation("unet", epochs=3)
    data = Dataset.from_files(train_pairs, block_shape=16, validation_pairs=val_pairs)
    for given, meant in (("epoch", "'epochs'"), ("step", "'steps'"), ("learning_rate", "'lr'")):
        with pytest.raises(ConfigError, match=rf"^fit: {given} is not a training or optimizer setting \(did you mean "
                                              rf"{meant}\?\)"):
            Segmentation("unet").fit(data, **{given: 2})
    with pytest.raises(ConfigError, match=r"^Dataset.from_files returns one Dataset that holds the training and"):
        train, validate = data
    with pytest.raises(ConfigError, match=r"^fit: the Dataset is fit's first argument, fit\(dataset, epochs=N\)"):
        Segmentation("unet").fit(dataset_train=data, epochs=1)
    # Validation pairs alone are a test set: evaluate scores it whole, and training on it is refused
    test_set = Dataset.from_files([], block_shape=16, validation_pairs=val_pairs)
    assert (len(test_set.manifest.training), len(test_set.manifest.validation)) == (0, len(val_pairs))
    for train_on_it in (lambda: Segmentation("unet").fit(test_set, steps=1), lambda: test_set.loader(),
                        lambda: test_set.fit(output_dir=str(tmp_path / "run"))):
        with pytest.raises(ConfigError, match=r"the Dataset has no training cases, only the 3 of its validation_pairs"):
            train_on_it()
    assert not (tmp_path / "run").exists()
    from accelerated_seg.train import train  # its config given to train itself: one message, not "0 patches"

    with pytest.raises(ConfigError, match=r"^the dataset has no training cases, only 3 validation case\(s\) \(given "
                                          r"\(validation_pairs\)\): give it cases to train on"):
        held_out = Dataset.from_files([], block_shape=16, n_classes=3, validation_pairs=val_pairs)
        train(held_out.config(output_dir=str(tmp_path / "direct"), max_steps=1), manifest=held_out.manifest)
    # a batch larger than an epoch, in this API's words before any process starts (the config's, inside train)
    with pytest.raises(ConfigError, match=r"^fit: the Dataset's 6 training case\(s\) x samples_per_volume 1 make 6 "
                                          r"patches an epoch, fewer than one batch of 8 .* lower Dataset.batch\(n\)"):
        Segmentation("unet").fit(Dataset.from_files(train_pairs, block_shape=16, validation_pairs=val_pairs,
                                                    samples_per_volume=1).batch(8), steps=1)


def test_estimator_settings_are_checked_where_they_are_given(tiny_dataset):
    from accelerated_seg.config import ConfigError

    train_pairs, _ = _pairs(tiny_dataset)
    with pytest.raises(ConfigError, match="Dataset.from_files: patch is not a data setting"):
        Dataset.from_files(train_pairs, patch=(16, 16, 16))
    # What from_files sets itself: patch_size was a TypeError, and labels= was kept beside n_classes
    for name, given_as in (("patch_size", "block_shape="), ("labels", "n_classes="), ("dataset", "the pairs"),
                           ("synthetic", "the pairs")):
        with pytest.raises(ConfigError, match=f"Dataset.from_files: {name} is given here as {given_as}"):
            Dataset.from_files(train_pairs, **{name: None})
    # A setting given where the API does not take it names where it does
    with pytest.raises(ConfigError, match=r"Dataset.from_files: lr is not a data setting but an optimizer setting: "
                                          r"give it to Segmentation\(...\) or fit\(...\)$"):
        Dataset.from_files(train_pairs, lr=1e-3)
    with pytest.raises(ConfigError, match=r"batch_size is not a data setting but the per-device batch: give it as "
                                          r"Dataset.batch\(n\), or to Segmentation"):
        Dataset.from_files(train_pairs, batch_size=2)
    with pytest.raises(ConfigError, match=r"Segmentation: num_workers is not a training or optimizer setting but a "
                                          r"data setting: give it to Dataset.from_files\(pairs, ..., "
                                          r"num_workers=...\)$"):
        Segmentation("unet", num_workers=0)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3)
    for name in ("precision", "multi_gpu"):  # Segmentation's own arguments, given to fit: every field was listed
        with pytest.raises(ConfigError, match=rf"fit: {name} is not a training or optimizer setting but an argument "
                                              rf"of Segmentation: give it there, Segmentation\(..., {name}=...\)"):
            Segmentation("unet").fit(data, **{name: "bf16" if name == "precision" else True})
    with pytest.raises(ConfigError, match=r"Segmentation: patch_size is not a training or optimizer setting but a "
                                          r"data setting: give it to Dataset.from_files as block_shape="):
        Segmentation("unet", patch_size=(16, 16, 16))
    # from_files' own arguments, given to the estimator: every training setting was listed (sixty-seventh session)
    for name in ("block_shape", "n_classes", "validation_pairs", "ignore_value"):
        with pytest.raises(ConfigError, match=rf"^Segmentation: {name} is not a training or optimizer setting but an "
                                              rf"argument of Dataset.from_files: give it there, Dataset.from_files\("
                                              rf"pairs, ..., {name}=...\)$"):
            Segmentation("unet", **{name: 2})
    with pytest.raises(ConfigError, match=r"^fit: block_shape is not a training or optimizer setting but an argument"):
        Segmentation("unet").fit(Dataset.from_files(train_pairs, block_shape=16), steps=1, block_shape=32)
    # and from_files' list of its settings leaves out those it takes by other names
    with pytest.raises(ConfigError, match="Dataset.from_files: patch is not a data setting") as listed:
        Dataset.from_files(train_pairs, patch=(16, 16, 16))
    assert "spacing" in str(listed.value) and not {"patch_size", "labels", "dataset", "synthetic"} & set(
        str(listed.value).split(": ")[-1].split(", "))
    misplaced = Dataset.from_files(train_pairs, block_shape=16)
    with pytest.raises(ConfigError, match=r"^fit: spacing is not a training or optimizer setting but a data setting"):
        Segmentation("unet").fit(misplaced, steps=1, spacing=(1, 1, 1))
    with pytest.raises(ConfigError, match=r"^Dataset.fit: augment is not a training or optimizer setting but a data"):
        misplaced.fit(augment="light")
    # Named as given: the errors spoke of data.patch_size, and 16.0 or None were TypeErrors
    for bad in ((16, 16), (16, 16, 16, 16), (16.5, 16, 16), (0, 16, 16), 16.0, None, "16", (True, 16, 16)):
        with pytest.raises(ConfigError, match=r"Dataset.from_files: block_shape must be one edge or 3 edges, whole "
                                              r"numbers of voxels >= 1 \(e.g. 128 or \(128, 128, 96\)\), got"):
            Dataset.from_files(train_pairs, block_shape=bad)
    # One edge is a cube ("'int' object is not iterable" before); n_classes a count, not a declaration
    assert Dataset.from_files(train_pairs, block_shape=16, n_classes=3).data.patch_size == (16, 16, 16)
    for given in ([np.int64(16), 16, 8], np.array([16, 16, 8])):
        assert Dataset.from_files(train_pairs, block_shape=given, n_classes=3).data.patch_size == (16, 16, 8)
    with pytest.raises(ConfigError, match="block_shape must be one edge or 3 edges"):
        Dataset.from_files(train_pairs, block_shape=np.array([16.0, 16.0, 8.0]))
    for bad in ("3", 1, 2.0, True):
        with pytest.raises(ConfigError, match=r"Dataset.from_files: n_classes must be a whole number >= 2 \(the "
                                              r"classes including background\), got"):
            Dataset.from_files(train_pairs, block_shape=16, n_classes=bad)
    assert Dataset.from_files(train_pairs, block_shape=16, n_classes=np.int64(3)).manifest.num_classes == 3
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3)
    with pytest.raises(ConfigError, match="^Dataset.augment: profile must be one of none, light, standard, heavy; "
                                          "got 'strong'"):
        data.augment("strong")
    with pytest.raises(ConfigError, match="^Dataset.augment: on must be one of auto, cpu, gpu; got 'GPU'"):
        data.augment("light", on="GPU")
    with pytest.raises(ConfigError, match="max_step is not a training or optimizer setting"):
        data.config(max_step=3)
    for bad in (0, -2, 2.5, "2", True):
        with pytest.raises(ConfigError, match="Dataset.batch: the per-device batch size must be a whole number"):
            data.batch(bad)
    assert data.batch(np.int64(3)).batch_size == 3
    with pytest.raises(ConfigError, match="Segmentation: model 'unet9' is not known; choose one of: unet, "):
        Segmentation("unet9")
    with pytest.raises(ConfigError, match="Segmentation: learning_rate is not a training or optimizer setting "
                                          r"\(did you mean 'lr'\?\); the settings are TrainConfig's fields: .*; "
                                          "OptimConfig's fields: optimizer, lr, "):
        Segmentation("unet", learning_rate=1e-3)
    with pytest.raises(ConfigError, match="Segmentation: precision 'fp64' is not known; choose one of: fp32, bf16"):
        Segmentation("unet", precision="fp64")
    # model_args: a TypeError for a list, and a misspelt name accepted until fit, before the 27th session
    with pytest.raises(ConfigError, match="Segmentation: model_args must be a dict of MONAI constructor arguments"):
        Segmentation("unet", model_args=[16, 32])
    with pytest.raises(ConfigError, match=r"Segmentation: model_args\['chanels'\] is not an argument of "
                                          r"monai.networks.nets.UNet"):  # model.args, the config's word, before
        Segmentation("unet", model_args={"chanels": [4, 8]})
    assert Segmentation("unet3d_mlperf", model_args={"filters": [8, 16, 32, 64, 128, 128]}).model_args
    # a value not of its kind: MONAI's "not all arguments converted during string formatting" at fit, before
    with pytest.raises(ConfigError, match=r"Segmentation: model_args\['channels'\] must be a list of whole numbers "
                                          r"\(monai.networks.nets.UNet's channels\), got \[8, 'x'\]"):
        Segmentation("unet", model_args={"channels": [8, "x"], "strides": [2]})
    # A network argument beside the settings is named as one (before: "not a training or optimizer setting")
    with pytest.raises(ConfigError, match=r"Segmentation: channels, strides: argument\(s\) of the network, not "
                                          r"training settings; pass them in model_args, e.g. model_args=\{'channels'"):
        Segmentation("unet", channels=[4, 8], strides=[2])
    # Accepted before the thirtieth session: multi_gpu="no" is truthy (every GPU), output_dir="" the working
    # directory, None or a number a TypeError when fit made the folder
    for bad in ("no", 1, None):
        with pytest.raises(ConfigError, match=f"Segmentation: multi_gpu must be True or False, got {bad!r}"):
            Segmentation("unet", multi_gpu=bad)
    for bad in ("", "  ", None, 3):
        with pytest.raises(ConfigError, match=f"Segmentation: output_dir must be a folder path, got {bad!r}"):
            Segmentation("unet", output_dir=bad)
    # fit's own arguments (an AttributeError for a list of pairs before)
    with pytest.raises(ConfigError, match=r"fit: give a Dataset, e.g. Dataset.from_files\(pairs, .*got list"):
        Segmentation("unet").fit(train_pairs, epochs=1)
    # nobrainer's fit(dataset_train, dataset_validate): the place of the validation cases named (a
    # 40-line repr of the Dataset as "epochs", before the forty-fourth session)
    for second in ((data,), ()):
        with pytest.raises(ConfigError, match=r"fit: a second Dataset to validate on \(nobrainer's dataset_validate\) "
                                              r"is not taken: .* Dataset.from_files\(pairs, validation_pairs="):
            Segmentation("unet").fit(data, *second, **({} if second else {"dataset_validate": data}))
    for length in (dict(epochs=1.5), dict(steps=2.0), dict(epochs=True)):
        with pytest.raises(ConfigError, match=r"fit: (epochs|steps) must be a whole number >= 1"):
            Segmentation("unet").fit(data, **length)
    # Nothing to validate on, in the estimator's terms (train.val_every, data.validation_fraction before)
    one_case = Dataset.from_files(train_pairs[:1], block_shape=16, n_classes=3)
    with pytest.raises(ConfigError, match=r"fit: the dataset has no validation cases \(fraction 0.2 \(seed 0\)\) to "
                                          r"validate on every 50 steps \(val_every\): set val_every=0 to train "
                                          r"without validation, or add cases: one case cannot be both trained on and "
                                          r"held out, or give validation_pairs=\[\(image, label\), \.\.\.\] to "
                                          r"Dataset.from_files$"):
        Segmentation("unet").fit(one_case, steps=1)
    # Their values too, as a YAML config's (accepted until the fit before the twenty-sixth session)
    for bad, message in ((dict(lr=-1.0), "lr must be >= 0"), (dict(lr=float("nan")), "lr must be a finite"),
                         (dict(lr="fast"), "lr must be float"),
                         (dict(batch_size=0), "batch_size must be >= 1"),
                         (dict(max_steps=0), "max_steps must be >= 1")):
        with pytest.raises(ConfigError, match=f"Segmentation: {message}"):
            Segmentation("unet", **bad)
    # Optimizer settings go to OptimConfig, training ones to TrainConfig, by name.
    cfg = data.batch(2).config(lr=1e-2, weight_decay=0.0, warmup_steps=0, val_every=3)
    assert (cfg.optim.lr, cfg.optim.weight_decay, cfg.optim.warmup_steps) == (1e-2, 0.0, 0)
    assert (cfg.train.val_every, cfg.train.batch_size) == (3, 2)
    cfg = data.config(optimizer="sgd", momentum=0.9, schedule="poly")  # nnU-Net's optimizer and schedule
    assert (cfg.optim.optimizer, cfg.optim.momentum, cfg.optim.schedule) == ("sgd", 0.9, "poly")
    with pytest.raises(ConfigError, match=r"Segmentation: nesterov needs a momentum"):
        Segmentation("unet", optimizer="sgd", momentum=0.0)
    # The batch as a setting (a TypeError from dataclasses.replace before), once
    assert data.config(batch_size=3).train.batch_size == 3
    assert data.batch(3).config(batch_size=3).train.batch_size == 3
    # said by the method called, as every other refusal (bare before the ninety-first session)
    for call, said in ((lambda: data.batch(2).config(batch_size=3), "Dataset.config"),
                       (lambda: data.batch(2).fit(batch_size=3), "Dataset.fit"),
                       (lambda: Segmentation("unet").fit(data.batch(2), batch_size=3), "fit")):
        with pytest.raises(ConfigError, match=rf"^{said}: the per-device batch is given twice, as Dataset.batch\(2\) "
                                              rf"and as batch_size=3; give it once"):
            call()
    # the run config before its values are checked, public for Segmentation.fit, which checks them in its own
    # words (it called the private Dataset._config until the ninety-ninth session)
    assert data.unchecked_config({"lr": -1.0}, "fit").optim.lr == -1.0
    assert data.batch(2).unchecked_config({}, "fit").train.batch_size == 2
    with pytest.raises(ConfigError, match=r"^fit: the per-device batch is given twice"):
        data.batch(2).unchecked_config({"batch_size": 3}, "fit")


def test_the_estimators_precision_is_the_runs_and_never_leaks_into_the_next_fit(tiny_dataset, tmp_path, monkeypatch):
    """accelerate keeps one precision per process once its state exists; each fit sets its own."""
    from accelerated_seg.config import ConfigError

    monkeypatch.delenv("ACCELERATE_MIXED_PRECISION", raising=False)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    tiny = dict(model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}, trackers="none",
                progress_bar=False, val_every=0, save_every=0)

    def strategy_of(run):
        return json.loads((tmp_path / run / "run_info.json").read_text())["strategy"]

    Segmentation("unet", output_dir=str(tmp_path / "bf16"), precision="bf16", lr=1e-2, **tiny).fit(data, steps=1)
    assert strategy_of("bf16").endswith("mixed precision bf16")
    assert yaml.safe_load((tmp_path / "bf16" / "config.yaml").read_text())["optim"]["lr"] == 1e-2
    Segmentation("unet", output_dir=str(tmp_path / "default"), **tiny).fit(data, steps=1)
    assert strategy_of("default").endswith("mixed precision no")  # was bf16: the first fit's state
    Segmentation("unet", output_dir=str(tmp_path / "fp32"), precision="fp32", **tiny).fit(data, steps=1)
    assert strategy_of("fp32").endswith("mixed precision no")
    # Nor into a run that does not go through Segmentation: Dataset.fit and train() after a bf16 fit ran
    # in bf16 until the sixty-ninth session (the state was reset only on the way into Segmentation.fit).
    from accelerated_seg.train import train

    for run, start in (("dataset_fit", data.fit), ("train", lambda cfg: train(cfg, manifest=data.manifest))):
        Segmentation("unet", output_dir=str(tmp_path / f"bf16_before_{run}"), precision="bf16", **tiny).fit(
            data, steps=1)
        cfg = data.config(output_dir=str(tmp_path / run), max_steps=1, trackers="none", progress_bar=False,
                          val_every=0, save_every=0)
        cfg.model.args = tiny["model_args"]
        start(cfg)
        assert strategy_of(run).endswith("mixed precision no"), run
    with pytest.raises(ConfigError, match=r"mixed precision fp16 on the CPU.*Segmentation\(precision='bf16'\) or "
                                          r"'fp32'"):
        Segmentation("unet", output_dir=str(tmp_path / "fp16"), precision="fp16", **tiny).fit(data, steps=1)
    assert not (tmp_path / "fp16").exists()

    # a launch's precision asked for (not its default "no", which precision= wins over: tests/test_estimator_launch.py)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "fp16")
    with pytest.raises(ConfigError, match=r"^fit: Segmentation\(precision='bf16'\), but the launch "
                                          r"\(ACCELERATE_MIXED_PRECISION\) asks for mixed precision fp16.*"
                                          r"--mixed_precision bf16"):
        Segmentation("unet", output_dir=str(tmp_path / "clash"), precision="bf16", **tiny).fit(data, steps=1)
    assert not (tmp_path / "clash").exists()


def test_a_loaded_model_is_trained_on_from_its_weights(tiny_dataset, tmp_path):
    """Segmentation.load(...).fit(...) fine-tunes, as nobrainer's fit goes on from the model it holds.

    Before the forty-fourth session the loaded weights were silently replaced by a new network; before
    the fifty-first a dataset with other classes was refused instead of fine-tuned.
    """
    from safetensors.torch import load_file

    train_pairs, val_pairs = _pairs(tiny_dataset)
    settings = dict(block_shape=16, validation_pairs=val_pairs, cache_dir=str(tmp_path / "cache"), num_workers=0,
                    spacing=(2.0, 2.0, 2.0))
    data = Dataset.from_files(train_pairs, n_classes=3, **settings).batch(2)
    quiet = dict(val_every=0, save_every=0, trackers="none", progress_bar=False, warmup_steps=0)
    first = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "first"), **quiet).fit(data, steps=3)
    loaded = Segmentation.load(first.save(tmp_path / "saved"))

    # A step at a learning rate of 1e-9 leaves the weights where the loaded model had them (the first
    # run's third step moved them by ~1e-3, so a new network of the same seed is far from them).
    loaded.fit(data, steps=1, lr=1e-9, output_dir=str(tmp_path / "tuned"), **quiet)
    before, after = (load_file(folder / "model.safetensors") for folder in (tmp_path / "saved", loaded.model_dir))
    assert before.keys() == after.keys()
    for name in before:
        torch.testing.assert_close(after[name], before[name], atol=1e-6, rtol=0, msg=name)
    run_config = yaml.safe_load((tmp_path / "tuned" / "config.yaml").read_text())
    assert run_config["train"]["init_from"] == str(tmp_path / "saved")

    # Other classes fine-tune: the output layers start afresh, every other tensor is the loaded model's
    binarized = Dataset.from_files(train_pairs, n_classes=2, **settings).batch(2).binarize()
    again = Segmentation.load(tmp_path / "saved")
    again.fit(binarized, steps=2, lr=1e-9, head_only_steps=1, output_dir=str(tmp_path / "binary"), **quiet)
    assert yaml.safe_load((tmp_path / "binary" / "config.yaml").read_text())["train"]["head_only_steps"] == 1
    tuned = load_file(again.model_dir / "model.safetensors")
    fresh = sorted(name for name in before if tuned[name].shape != before[name].shape)
    assert fresh and all(name.startswith("model.2.") for name in fresh)  # MONAI UNet's last up-sampling layer
    for name in set(before) - set(fresh):
        torch.testing.assert_close(tuned[name], before[name], atol=1e-6, rtol=0, msg=name)
    assert json.loads((again.model_dir / "config.json").read_text())["model"]["args"]["out_channels"] == 2

    # Two channels from the one-channel model: its input layers' weights are spread over them
    (tmp_path / "copies").mkdir()

    def with_a_second_channel(pairs):  # the same image again, from another file
        return [([image, shutil.copy(image, tmp_path / "copies")], label) for image, label in pairs]

    two_channels = Dataset.from_files(with_a_second_channel(train_pairs), n_classes=3,
                                      **{**settings, "validation_pairs": with_a_second_channel(val_pairs)})
    spread = Segmentation.load(tmp_path / "saved")
    spread.fit(two_channels.batch(2), steps=1, lr=1e-9, output_dir=str(tmp_path / "two"), **quiet)
    widened = load_file(spread.model_dir / "model.safetensors")["model.0.conv.unit0.conv.weight"]
    torch.testing.assert_close(widened, before["model.0.conv.unit0.conv.weight"].repeat(1, 2, 1, 1, 1) / 2,
                               atol=1e-6, rtol=0)
    # A dataset the model does not fit (two channels are not made one): named in the Dataset's terms,
    # before anything is written
    with pytest.raises(ConfigError, match=r"does not fit this dataset \(image channels: 2 in the model, 1 in "
                                          r"the dataset\): give a Dataset the model fits, or fit\(\.\.\., "
                                          r"init_from=None\) to train a new unet"):
        Segmentation.load(spread.model_dir).fit(binarized, steps=1, output_dir=str(tmp_path / "one"), **quiet)
    assert not (tmp_path / "one").exists()
    # init_from=None: a new network of the loaded design, with the dataset's classes
    new = Segmentation.load(tmp_path / "saved")
    new.fit(binarized, steps=1, init_from=None, output_dir=str(tmp_path / "new"), **quiet)
    exported = json.loads((new.model_dir / "config.json").read_text())["model"]["args"]
    assert exported["out_channels"] == 2 and exported["channels"] == [4, 8, 16]
    restarted = load_file(new.model_dir / "model.safetensors")
    assert not torch.allclose(restarted["model.0.conv.unit0.conv.weight"], before["model.0.conv.unit0.conv.weight"])
    # One part of it alone, as a weights file (an encoder from other pretraining), into a new network
    torch.save({f"module.{name[len('model.0.'):]}": before[name] for name in before if name.startswith("model.0.")},
               tmp_path / "block.pt")
    part = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                        output_dir=str(tmp_path / "part"), **quiet)
    part.fit(binarized, steps=1, lr=1e-9, init_from=str(tmp_path / "block.pt"), init_into="model.0")
    placed = load_file(part.model_dir / "model.safetensors")
    for name in before:
        close = torch.allclose(placed[name], before[name], atol=1e-6, rtol=0) if name in placed and (
            placed[name].shape == before[name].shape) else False
        assert close == name.startswith("model.0."), name


def _another_thread_imports() -> bool:
    """Whether another thread's look for a module (under the import lock, as every import's) ends within 5 s."""
    import importlib.util
    import threading

    looking = threading.Thread(target=importlib.util.find_spec, args=("no_module_of_this_name_h104",), daemon=True)
    looking.start()
    looking.join(5)
    return not looking.is_alive()


@pytest.mark.parametrize("method", ["fit", "predict", "evaluate"])
def test_an_import_lock_a_ctrl_c_left_held_is_given_back_before_the_next_call(method):
    """A KeyboardInterrupt as importlib's _imp.acquire_lock() returns leaves the main thread holding the import lock:
    the next fit's case-building threads waited on it for ever (a notebook audit, hundred-and-fourth session: a fit
    stopped 0.2-0.4 s in, while it imported, then fit again). Each call of the estimator gives it back first."""
    import _imp

    _imp.acquire_lock()  # as the interrupted import left it
    try:
        with pytest.raises((ConfigError, RuntimeError)):  # refused at once: it is what comes before that matters
            getattr(Segmentation("unet"), method)(None)
        assert not _imp.lock_held() and _another_thread_imports()
    finally:
        with contextlib.suppress(RuntimeError):  # held still where it was not given back: the next tests would hang
            while True:
                _imp.release_lock()


def test_predicting_without_a_model_says_what_to_do(tmp_path):
    import pytest

    from accelerated_seg.data.errors import DataError
    from accelerated_seg.estimator import Segmentation

    with pytest.raises(RuntimeError, match=r"^predict: this Segmentation has no trained model yet: call fit\(\), or "
                                           r"Segmentation.load\(dir\)"):
        Segmentation("unet").predict("scan.nii.gz")
    with pytest.raises(RuntimeError, match="^save: this Segmentation has no trained model yet"):
        Segmentation("unet").save("somewhere")
    # in the API's terms, not the command line's ("--model must be a folder" before)
    with pytest.raises(FileNotFoundError, match="config.json is missing: give a model folder exported by training"):
        Segmentation.load(tmp_path / "nowhere")
    # A file for the folder, and another program's folder of the same two file names
    (tmp_path / "scan.nii.gz").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="scan.nii.gz is a file, not a model folder: give a folder exported"):
        Segmentation.load(tmp_path / "scan.nii.gz")
    (tmp_path / "bert").mkdir()
    (tmp_path / "bert" / "config.json").write_text('{"architectures": ["BertModel"], "hidden_size": 768}')
    (tmp_path / "bert" / "model.safetensors").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match=f"{tmp_path / 'bert' / 'config.json'} is a file, not a model "
                                                f"folder: give the folder that holds it, {tmp_path / 'bert'}$"):
        Segmentation.load(tmp_path / "bert" / "config.json")
    with pytest.raises(DataError, match=r"bert/config.json has no model section, so it is not an accelerated_seg "
                                        r"export \(another program's config.json\?\): give a folder exported by"):
        Segmentation.load(tmp_path / "bert")
    # A training run's folder for its export: the choice named ("config.json is missing" before)
    for export in ("model", "best_model"):
        (tmp_path / "run" / export).mkdir(parents=True)
        (tmp_path / "run" / export / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"run is a training run's folder, not an exported model: give "
                                                r".*run/best_model or .*run/model \(best_model: the best"):
        Segmentation.load(tmp_path / "run")


@pytest.fixture
def launch_leaves_no_temporary_folder(tmp_path, monkeypatch):
    """A user's own ``tempfile.tempdir`` (which the launched processes inherit too) for the test, left as it was and
    holding no folder of the estimator's launches however they ended: each left torch elastic's log folder
    (``torchelastic_*``, ~20 KB) there until the hundred-and-eleventh session (``torch_elastic_files_in``), and
    torch's functions that it wraps for the launch put back. Nor multiprocessing's (``pymp-*``) but this test
    process's own, which lives as long as it does: a launched process ending with os._exit left its own until the
    hundred-and-twelfth session (exit_now). A guard only: the launches of the tests using this have no loader workers,
    and make no ``pymp-*`` folder (its makers logged in that session's review), and their ranks, forked from this
    process, would inherit its folder where it has one; the launched removal is tested by test_preemption's
    SIGINT-to-one-rank launch (with a worker per rank) and test_exit_now."""
    import multiprocessing

    import torch.multiprocessing
    from torch.distributed.launcher import api as launcher_api

    torchs = launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes
    users = tmp_path / "users_temporary_folder"
    users.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(users))
    yield
    assert tempfile.tempdir == str(users)
    assert (launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes) == torchs
    this_processs = multiprocessing.current_process()._config.get("tempdir")  # made here during the test, if at all
    assert not [entry.name for entry in users.iterdir() if str(entry) != this_processs
                and entry.name.startswith(("torchelastic_", "accelerated_seg_fit_", "pytorch-errorfile-", "pymp-"))]


def _raises_in_the_second(index: int) -> None:
    """A process of torch.multiprocessing's: the second raises, as a launched fit's error does."""
    if index == 1:
        raise RuntimeError("an error in a launched process")


def test_torch_elastics_files_of_a_launch_go_to_its_folder_and_no_other_temporary_file(tmp_path, monkeypatch):
    """torch_elastic_files_in, without a launch: the log folder of a launch this thread makes is in the launch's
    folder, one made by another thread or given a log_dir is torch's own, a process's error file is removed after,
    and torch's functions are put back however the launch ends. Until the hundred-and-eleventh session's review
    tempfile.tempdir pointed at the launch's folder instead: what another thread made meanwhile went with it."""
    import threading

    import torch.multiprocessing
    from torch.distributed.launcher import api as launcher_api

    from accelerated_seg.estimator_launch import torch_elastic_files_in

    torchs = launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes
    users, launch = tmp_path / "users", tmp_path / "launch"
    users.mkdir(), launch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(users))
    another_threads = []
    for ending in (None, RuntimeError, KeyboardInterrupt):
        with contextlib.suppress(RuntimeError, KeyboardInterrupt), torch_elastic_files_in(str(launch)):
            config = launcher_api.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2)
            assert Path(config.logs_specs.root_log_dir) == launch / "torchelastic"
            given = launcher_api.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
                                              logs_specs=launcher_api.DefaultLogsSpecs(str(tmp_path / "given")))
            assert Path(given.logs_specs.root_log_dir) == tmp_path / "given"
            thread = threading.Thread(target=lambda: another_threads.append(
                (tempfile.mkdtemp(prefix="another_thread_"),
                 launcher_api.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2).logs_specs.root_log_dir)))
            thread.start(), thread.join()
            if ending is None:  # a process that raises: torch leaves its pickled traceback in the temporary folder
                context = torch.multiprocessing.start_processes(_raises_in_the_second, nprocs=2, join=False,
                                                                start_method="fork")
                with pytest.raises(torch.multiprocessing.ProcessRaisedException):
                    while not context.join():
                        pass
                error_file = context.error_files[1]
                assert Path(error_file).is_file() and Path(error_file).parent == users
            else:
                raise ending
        assert (launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes) == torchs
        assert tempfile.tempdir == str(users)
    # the other thread's: made in the user's temporary folder, kept
    assert all(Path(made).parent == users and Path(made).is_dir() and Path(logs).parent == users
               for made, logs in another_threads)
    assert sorted(entry.name[:8] for entry in users.iterdir()) == ["another_"] * 3 + ["torchela"] * 3
    assert not Path(error_file).exists()  # removed after its launch


@pytest.mark.distributed
def test_multi_gpu_fit_goes_through_the_notebook_launcher_with_two_processes(tiny_dataset, tmp_path, monkeypatch,
                                                                            ctrl_c_raises,
                                                                            launch_leaves_no_temporary_folder):
    # The path a notebook user with 2 GPUs takes, on 2 CPU processes: accelerate's notebook_launcher
    # starts them and every one joins DDP (gloo, as ACCELERATE_USE_CPU makes accelerate launch do).
    import accelerated_seg.estimator as estimator
    import accelerated_seg.estimator_launch as estimator_launch

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    handlers = {signum: signal.getsignal(signum) for signum in estimator_launch.ELASTIC_SIGNALS}
    monkeypatch.delenv("MASTER_PORT", raising=False)
    one_thread, temporary_folders = estimator_launch._one_thread_after_the_fork, tmp_path / "processes_tempdir"

    def one_thread_noting_the_temporary_folder():  # in the launched processes
        with open(temporary_folders, "a") as noted:
            noted.write(tempfile.gettempdir() + "\n")
        one_thread()

    monkeypatch.setattr(estimator_launch, "_one_thread_after_the_fork", one_thread_noting_the_temporary_folder)
    # as a notebook's kernel after other work: notebook_launcher's default port taken (the launch failed on it),
    # the garbage of an earlier launch, torch on two threads
    with _taken_by_another_launch(29500), _after_an_earlier_launch(monkeypatch), _on_two_threads():
        model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                             multi_gpu=True, output_dir=str(tmp_path / "run"), trackers="none", progress_bar=False,
                             val_every=2, save_every=0, precision="bf16").fit(data, steps=2)
    assert model.summary["step"] == 2 and "DDP (MULTI_CPU) on 2 process(es)" in model.summary["strategy"]
    # torch elastic's launch took over SIGINT, SIGTERM, SIGHUP and SIGQUIT here for good, until the
    # fifty-first session: a later Ctrl-C in the notebook raised its SignalException
    assert {signum: signal.getsignal(signum) for signum in handlers} == handlers
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert model.summary["strategy"].endswith("mixed precision bf16")  # notebook_launcher's default is "no"
    assert model.summary["global_batch"] == 4 and len(model.summary["peak_memory_gb"]) == 2
    assert (model.model_dir / "model.safetensors").is_file()
    # the user's temporary folder, not the launch's that torch elastic's logs go to (torch_elastic_files_in)
    assert temporary_folders.read_text().splitlines() == [tempfile.gettempdir()] * 2


@contextlib.contextmanager
def _after_an_earlier_launch(monkeypatch):
    """An earlier launch's rendezvous store left unreachable in a reference cycle (as an interrupted fit's
    traceback leaves it), not collected before the fork (the collector paused: by chance otherwise), and a full
    collection in each launched process once it has threads of its own (its process group's). The store's
    destructor joins its server's thread, a thread of this process: in the forked one, glibc had given that
    thread's stack to one of the process group's, which the join then waited for, for ever. A launched fit hung
    so before its first step in the CI of the hundred-and-second and hundred-and-third sessions."""
    import gc

    import torch.distributed as dist

    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    cycle = [store]
    cycle.append(cycle)
    del store, cycle
    init_process_group = dist.init_process_group

    def collected_after(*args, **kwargs):
        init_process_group(*args, **kwargs)
        gc.collect()

    monkeypatch.setattr(dist, "init_process_group", collected_after)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def _on_two_threads():
    """torch on two threads, a parallel operator run: GNU OpenMP's pool, which a fork does not carry, in use."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        torch.nn.functional.conv3d(torch.ones(1, 4, 32, 32, 32), torch.ones(8, 4, 3, 3, 3))
        yield
    finally:
        torch.set_num_threads(threads)


@contextlib.contextmanager
def _taken_by_another_launch(port: int):
    """``port`` listened on for the block, as another launch on the machine would (another notebook's fit, a
    training job): already taken, by another test's launch, it is left to that one."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:  # in use already: the condition the block needs
            yield
            return
        listener.listen()
        yield


def test_a_launched_fit_meets_on_a_free_port_unless_master_port_names_one(monkeypatch):
    """notebook_launcher's default port is accelerate launch's and torchrun's, 29500: a fit with several processes
    beside another launch failed with torch's DistNetworkError (address already in use) until the
    hundred-and-second session."""
    import socket

    from accelerated_seg.estimator_launch import port_to_launch_on

    monkeypatch.delenv("MASTER_PORT", raising=False)
    port = int(port_to_launch_on())
    assert port != 29500
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as launch:
        launch.bind(("127.0.0.1", port))  # free, as the launch finds it a moment later
    monkeypatch.setenv("MASTER_PORT", "29617")
    assert port_to_launch_on() == "29617"


@pytest.mark.parametrize("master_port, said", [("taken", "is in use on this machine, by another program or launch"),
                                                ("29_500", "is not a port number")])
def test_a_master_port_taken_or_not_a_port_is_refused_before_a_launched_fit_writes_anything(
        tiny_dataset, tmp_path, monkeypatch, master_port, said):
    """A MASTER_PORT that another program holds (a kernel started from a job script, an earlier launch's export)
    failed the launch with torch's DistNetworkError traceback, after the run's folder was made, until the
    hundred-and-third session."""
    import socket

    import accelerated_seg.estimator as estimator

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = str(other.getsockname()[1]) if master_port == "taken" else master_port
        monkeypatch.setenv("MASTER_PORT", port)
        with pytest.raises(ConfigError) as refused:
            model.fit(data, steps=2)
    assert str(refused.value).startswith(f"fit: MASTER_PORT={port if master_port == 'taken' else repr(port)} (this "
                                         f"process's environment) ")
    assert said in str(refused.value) and str(refused.value).endswith(
        "unset MASTER_PORT to let fit take a free port, or set it to a free one")
    assert not (tmp_path / "run").exists()


@contextlib.contextmanager
def _signalled_once_a_checkpoint_is_whole(run: Path, signum: int):
    """``signum`` sent to this process once, as soon as the run holds a whole checkpoint, by another process: a
    thread of this one, running as notebook_launcher forks the fit's processes from it, may hold a lock they then
    wait for (a launched fit hung before its first step in the hundred-and-second session's CI, its sender thread
    polling the run). Yields the file the sender writes its time.time() in as it sends."""
    import subprocess

    sent_at = run.parent / f"{run.name}.signal_sent_at"
    waits = (f"import os, sys, time\nfrom pathlib import Path\n"
             f"from accelerated_seg.model_folders import complete_checkpoints\n"
             f"deadline = time.monotonic() + 300\n"
             f"while not complete_checkpoints(Path({str(run / 'checkpoints')!r})) and time.monotonic() < deadline:\n"
             f"    time.sleep(0.1)\n"
             f"Path({str(sent_at)!r}).write_text(repr(time.time()))\n"
             f"os.kill({os.getpid()}, {int(signum)})\n")
    sender = subprocess.Popen([sys.executable, "-c", waits])
    try:
        yield sent_at
    finally:
        sender.kill()  # where the fit ended first
        sender.wait()


def _torch_logs_on_this_tests_stderr(monkeypatch) -> None:
    """torch's log handlers (on its "torch" and "torch.distributed" loggers, which do not propagate) write to this
    test's sys.stderr, which capfd reads: they hold the sys.stderr of torch's import, pytest's capture of another
    stage, where a notebook's or a script's is the terminal's."""
    import logging

    for name in ("torch", "torch.distributed"):
        for handler in logging.getLogger(name).handlers:
            if type(handler) is logging.StreamHandler:  # not pytest's own capture, a subclass
                monkeypatch.setattr(handler, "stream", sys.stderr)


#: torch elastic's lines of a launch's shutdown: its traceback of a process's status, the agent's received signal and
#: its close of the processes, which read as a crash under a Ctrl-C's one line (until the hundred-and-ninth session).
_TORCH_SHUTDOWN_LINES = re.compile(r"failed \(exitcode|death signal|Closing process|Terminating process")


@pytest.mark.distributed
def test_ctrl_c_in_a_fit_of_two_launched_processes_is_a_keyboard_interrupt_naming_the_checkpoint(
        tiny_dataset, tmp_path, monkeypatch, capfd, ctrl_c_raises, launch_leaves_no_temporary_folder):
    """SIGINT to the launching process alone, as Jupyter's "interrupt kernel" sends it (a terminal's Ctrl-C reaches
    the launched processes too, and torch elastic's agent sends it on to them either way). Until the
    hundred-and-second session the processes, forked with torch's handler, raised its SignalException and said
    nothing, and the fit raised it too, a traceback of torch's agent, and recorded no interrupted fit. Until the
    hundred-and-tenth, repr said the newest checkpoint's step, "after step N or later of 100000 (its newest
    checkpoint's step)", the step the main process's line names reaching no one here (stopped_step)."""
    import accelerated_seg.estimator as estimator
    from accelerated_seg.model_folders import complete_checkpoints

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True, save_every=2)
    run = tmp_path / "run"
    _torch_logs_on_this_tests_stderr(monkeypatch)
    # once only: a second SIGINT to torch's agent cuts short its wait for the processes
    with _signalled_once_a_checkpoint_is_whole(run, signal.SIGINT), pytest.raises(KeyboardInterrupt) as stopped:
        model.fit(data, steps=100_000)
    assert type(stopped.value) is KeyboardInterrupt and stopped.value.__cause__ is None
    assert not [entry.path for entry in stopped.traceback if "torch" in Path(entry.path).parts]
    newest = complete_checkpoints(run / "checkpoints")[-1]
    said, logged = capfd.readouterr()
    assert not _TORCH_SHUTDOWN_LINES.search(logged), logged[-3000:]  # torch's agent logged its SIGINT and closes
    line = re.search(r"interrupted \(Ctrl-C\) after step (\d+); the newest whole checkpoint is "
                     rf"{re.escape(str(newest))}: call fit\(\.\.\., resume='latest'\)", said)
    assert line, said
    assert repr(model).endswith(f": no trained model: a fit interrupted (Ctrl-C) after step {line[1]} of 100000 in "
                                f"{run}; its newest whole checkpoint is {newest}: call fit(..., resume='latest') again "
                                f"to continue from it>")
    assert model._interrupted.step == int(line[1]) >= model._interrupted.checkpoint_step == int(newest.name[5:])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process's own again

    # Its resume stopped in its setup, once it has written the run's run_info.json, before its first step: the main
    # process stopped with no loop, wrote no step, and repr said its newest checkpoint's, "after step N or later of
    # 100000", until the hundred-and-eleventh session; it has taken no step beyond the checkpoint it resumes.
    from accelerate import Accelerator

    start_trackers = Accelerator.init_trackers

    def interrupted_as_the_main_process_starts_its_trackers(self, *args, **kwargs):  # in the launched processes
        if os.environ.get("RANK") == "0":
            os.kill(os.getpid(), signal.SIGINT)
        return start_trackers(self, *args, **kwargs)

    monkeypatch.setattr(Accelerator, "init_trackers", interrupted_as_the_main_process_starts_its_trackers)
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=100_000, resume="latest")
    said = capfd.readouterr().out
    assert (f"interrupted (Ctrl-C) before training began; the newest whole checkpoint is {newest}: call "
            f"fit(..., resume='latest') again") in said, said[-2000:]
    assert f"a fit interrupted (Ctrl-C) after step {newest.name[5:]} of 100000 in {run}; " in repr(model)
    assert model._interrupted.step == model._interrupted.checkpoint_step == int(newest.name[5:])


@pytest.fixture
def torch_launch_log():
    """The messages torch's launch loggers (``TORCH_LAUNCH_LOGGERS``) hand their handlers during the test. Read from a
    handler of our own, not from capfd's stderr: torch's handler writes to the stream it took at its import, which
    pytest's capture of the test does not see."""
    import logging

    from accelerated_seg.launch_interrupt_logs import TORCH_LAUNCH_LOGGERS

    class Kept(logging.Handler):
        def emit(self, record):
            said.append(record.getMessage() + (" Traceback" if record.exc_info else ""))

    said, kept = [], Kept()
    loggers = [logging.getLogger(name) for name in TORCH_LAUNCH_LOGGERS]
    for logger in loggers:
        logger.addHandler(kept)
    try:
        yield said
    finally:
        for logger in loggers:
            logger.removeHandler(kept)


def _a_launch_whose_process_is_killed(tiny_dataset, tmp_path, monkeypatch, processes: int, rank: int):
    """A ``multi_gpu`` estimator of ``processes`` CPU processes training into ``tmp_path/run`` (save_every=2), its
    Dataset, and the DiceCELoss.forward under which process ``rank`` SIGKILLs itself at its third step's forward, as the
    OOM killer kills, step_2 saved."""
    import accelerated_seg.estimator as estimator
    from faults import loss_forward_with

    def killed(call, loss):  # in the launched processes
        if call == 2 and os.environ.get("RANK") == str(rank):
            os.kill(os.getpid(), signal.SIGKILL)
        return loss

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: processes)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True, save_every=2)
    return model, data, loss_forward_with(killed)


@pytest.mark.distributed
def test_a_process_of_the_launch_killed_outright_is_one_process_lost_error_and_its_resume_continues(
        tiny_dataset, tmp_path, monkeypatch, capfd, launch_leaves_no_temporary_folder, torch_launch_log):
    """Process 1 of the estimator's own launch SIGKILLs itself at its third step's forward (as the OOM killer kills),
    step_2 saved. The processes said the line naming it lost and the checkpoint, but fit raised torch's
    ChildFailedError (its agent's traceback and table) and its repr said "not trained yet", until the
    hundred-and-fifteenth session's helper h80 (benchmarks/results/estimator_process_lost_2026-12-06/)."""
    from monai.losses import DiceCELoss

    import accelerated_seg

    model, data, killed = _a_launch_whose_process_is_killed(tiny_dataset, tmp_path, monkeypatch, processes=2, rank=1)
    run = tmp_path / "run"
    newest = run / "checkpoints" / "step_2"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", killed)
        with pytest.raises(accelerated_seg.ProcessLost) as lost:
            model.fit(data, steps=4)
    assert lost.value.__cause__ is None and isinstance(lost.value, RuntimeError)
    assert not [entry.path for entry in lost.traceback if "torch" in Path(entry.path).parts]
    assert str(lost.value) == (f"fit: process 1 of 2 died of SIGKILL (killed outright: the OOM killer, or a kill -9), "
                               f"and the other processes stopped after step 2 of 4 in {run}; its newest whole "
                               f"checkpoint is {newest}: call fit(..., resume='latest') again to continue from it")
    assert (lost.value.process, lost.value.processes, lost.value.signal, lost.value.step,
            lost.value.checkpoint) == (1, 2, "SIGKILL", 2, newest)
    assert "was lost: its connection closed in a collective" in capfd.readouterr().err
    # torch's log of the death (its agent's traceback of the process's status) left out under ProcessLost, which says it
    # all (logged until the hundred-and-sixteenth session)
    assert not [said for said in torch_launch_log if re.search(r"exitcode|Terminating process", said)], \
        torch_launch_log
    assert repr(model).endswith(f": no trained model: a fit stopped by the loss of process 1 of 2 (SIGKILL) after step "
                                f"2 of 4 in {run}; its newest whole checkpoint is {newest}: call fit(..., "
                                f"resume='latest') again to continue from it>")
    with pytest.raises(RuntimeError, match="no trained model: a fit stopped by the loss of process 1 of 2"):
        model.save(tmp_path / "saved")

    model.fit(data, steps=4, resume="latest")
    assert f"resumed from {newest} at step 2" in capfd.readouterr().out
    assert model.summary["step"] == 4 and model._interrupted is None
    assert (model.model_dir / "model.safetensors").is_file()


@pytest.mark.distributed
def test_a_process_killed_is_the_one_process_lost_names_where_torchs_agent_polls_late(
        tiny_dataset, tmp_path, monkeypatch, launch_leaves_no_temporary_folder, torch_launch_log):
    """Process 1 SIGKILLs itself, and torch's agent (in this launching process) polls its processes 1 s late, as one
    held up would (a busy machine, a notebook kernel's other threads). Process 0, which sees process 1 ended on its
    node at once (processes_beside), ended 0.2-1 s after the kill, and the agent's late poll took process 0's status
    1 for the launch's failure, the first of those ended: fit raised torch's ChildFailedError, torch's traceback
    logged, 2 of 2 launches (the hundred-and-sixteenth session's review of h82:
    benchmarks/results/review_process_lost_order_2026-12-06/agent_late_main.txt). Now process 0 ends only once the
    agent has reaped process 1 (lost_processes)."""
    from monai.losses import DiceCELoss
    from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent

    import accelerated_seg

    model, data, killed = _a_launch_whose_process_is_killed(tiny_dataset, tmp_path, monkeypatch, processes=2, rank=1)
    monitor = LocalElasticAgent._monitor_workers

    def late(self, *args, **kwargs):
        time.sleep(1.0)
        return monitor(self, *args, **kwargs)

    monkeypatch.setattr(LocalElasticAgent, "_monitor_workers", late)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", killed)
        with pytest.raises(accelerated_seg.ProcessLost) as lost:
            model.fit(data, steps=4)
    assert (lost.value.process, lost.value.signal, lost.value.step) == (1, "SIGKILL", 2)
    assert not [said for said in torch_launch_log if re.search(r"exitcode|Terminating process", said)], \
        torch_launch_log


@pytest.mark.distributed
def test_the_main_process_of_a_launch_of_three_killed_outright_is_named_lost_without_torchs_log_of_its_death(
        tiny_dataset, tmp_path, monkeypatch, capfd, launch_leaves_no_temporary_folder, torch_launch_log):
    """The main process of three SIGKILLs itself at its third step's forward, step_2 saved: the two left each name it
    lost and each writes the step (stopped_step), one says the line, and fit raises ProcessLost naming process 0 of 3,
    step 2 and step_2, without torch's log of the death (its "failed (exitcode: -9)" record, the traceback of its
    ProcessExitedException, its stop of the others), which was logged under it until the hundred-and-sixteenth
    session (benchmarks/results/estimator_process_lost_three_2026-12-06/: 2 processes alone were tested before)."""
    from monai.losses import DiceCELoss

    import accelerated_seg

    model, data, killed = _a_launch_whose_process_is_killed(tiny_dataset, tmp_path, monkeypatch, processes=3, rank=0)
    newest = tmp_path / "run" / "checkpoints" / "step_2"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", killed)
        with pytest.raises(accelerated_seg.ProcessLost) as lost:
            model.fit(data, steps=4)
    assert (lost.value.process, lost.value.processes, lost.value.signal, lost.value.step,
            lost.value.checkpoint) == (0, 3, "SIGKILL", 2, newest)
    assert str(lost.value).startswith("fit: process 0 of 3 died of SIGKILL (killed outright: the OOM killer, or a kill "
                                      "-9), and the other processes stopped after step 2 of 4 in ")
    said = capfd.readouterr().err
    assert len(re.findall(r"error: process 0 \(node 0, [^)]*\) was lost: ", said)) == 1, said[-3000:]
    assert not [said for said in torch_launch_log if re.search(r"exitcode|Terminating process", said)], \
        torch_launch_log


def test_a_resume_whose_launch_lost_a_process_before_it_wrote_the_run_names_the_checkpoint_it_offers(
        tiny_dataset, tmp_path, monkeypatch):
    """A new estimator's fit(..., resume='latest') of a folder holding step_2, its launch losing a process before the
    run wrote anything there (run_info.json as it was: killed in the setup, loading the checkpoint), stood in for by
    the ProcessLost the launch raises. Its message offered step_2 to resume from, but its ``checkpoint`` was None (read
    only where the fit had written the run) until the hundred-and-fifteenth session's review of h80
    (benchmarks/results/review_estimator_process_lost_2026-12-06/killed_in_a_resumes_setup.txt)."""
    import accelerated_seg.estimator as estimator
    from accelerated_seg import ProcessLost

    def killed_in_the_setup(cfg, manifest, processes, mixed_precision, out, names):
        raise ProcessLost("fit: process 1 of 2 died of SIGKILL, and the other processes stopped", 1, 2, "SIGKILL", 2)

    first, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    first.fit(data, steps=2)  # one process: step_2, the run's run_info.json
    newest = tmp_path / "run" / "checkpoints" / "step_2"
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    monkeypatch.setattr(estimator, "_trained_in_launched_processes", killed_in_the_setup)
    again, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True)
    with pytest.raises(ProcessLost) as lost:
        again.fit(data, steps=4, resume="latest")
    assert str(lost.value).endswith(f"its newest whole checkpoint is {newest}: call fit(..., resume='latest') again "
                                    f"to continue from it")
    assert lost.value.checkpoint == newest and lost.value.step == 2


@pytest.mark.distributed
def test_a_process_of_the_launch_dying_of_a_signal_once_the_run_finished_loses_nothing(
        tiny_dataset, tmp_path, monkeypatch, launch_leaves_no_temporary_folder):
    """Process 1 SIGABRTs once train has returned in it and the main process has written summary.json (gloo's abort
    at exit, docs/strategies.md): the run finished and exported its model, so fit returns and takes it, warning of
    the death. It raised ProcessLost saying "the other processes stopped after step 4 or later of 4 ...: call
    fit(..., resume='latest') again" and left the model untaken (h80's change), until that session's review
    (benchmarks/results/review_estimator_process_lost_2026-12-06/abort_at_exit.txt)."""
    import accelerated_seg.estimator as estimator
    import accelerated_seg.estimator_launch as estimator_launch
    from accelerated_seg.own_warnings import AcceleratedSegWarning

    run = tmp_path / "run"
    returned = estimator_launch._exit_once_returned

    def aborted_once_returned():  # in the launched processes
        if os.environ.get("RANK") == "1":
            deadline = time.monotonic() + 20
            while not (run / "summary.json").is_file() and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGABRT)
        returned()

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    monkeypatch.setattr(estimator_launch, "_exit_once_returned", aborted_once_returned)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True)
    with pytest.warns(AcceleratedSegWarning) as warned:
        model.fit(data, steps=2)
    assert [str(warning.message) for warning in warned] == [
        f"fit: process 1 of 2 died of SIGABRT after the run in {run} had finished and exported its model (step 2, its "
        f"summary.json written): what it wrote is taken, nothing was lost"]
    assert warned[0].filename == __file__  # said at the fit's line
    assert model.summary["step"] == 2 and model._interrupted is None and model.model_dir == run / "model"
    assert repr(model).endswith(f"trained 2 steps in {run}; predicts with {run / 'model'}>")


@contextlib.contextmanager
def _ctrl_c_to_this_process_after(started: Path, seconds: float):
    """SIGINT to this process ``seconds`` after the file ``started`` appears, from another process (a thread of this one
    may hold a lock the forked processes wait for: ``_signalled_once_a_checkpoint_is_whole``): a fit that does not end
    by itself ends then, and the test fails on the time, rather than waiting for the rendezvous' 30-minute timeout."""
    waits = (f"import os, time\nfrom pathlib import Path\ndeadline = time.monotonic() + 600\n"
             f"while not Path({str(started)!r}).exists() and time.monotonic() < deadline:\n    time.sleep(0.1)\n"
             f"time.sleep({seconds})\nos.kill({os.getpid()}, {int(signal.SIGINT)})\n")
    sender = subprocess.Popen([sys.executable, "-c", waits])
    try:
        yield
    finally:
        sender.kill()
        sender.wait()


@pytest.mark.distributed
def test_sigint_to_one_launched_process_before_the_processes_meet_ends_the_fit_at_once_as_ctrl_c(
        tiny_dataset, tmp_path, monkeypatch, capfd, ctrl_c_raises, launch_leaves_no_temporary_folder):
    """Rank 1 of the estimator's own launch interrupted alone in its settings' checks, once rank 0 is on its way into
    the rendezvous (making its Accelerator). torch.multiprocessing's wrapper took the KeyboardInterrupt for its
    parent's stop and ended rank 1 with status 0: torch's agent saw no failure, rank 0 waited in the rendezvous, and
    fit had not returned 293 s later (benchmarks/results/sigint_one_rank_outside_steps/
    estimator_sigint_before_the_processes_meet.txt), until the hundred-and-eighth session's review: 0.1 s then."""
    import accelerated_seg.configured_run as configured_run
    import accelerated_seg.estimator as estimator

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    meeting, signalled = tmp_path / "rank0_meeting", tmp_path / "signalled_at"
    checks, make = configured_run._checks_before_anything_is_written, configured_run.make_accelerator

    def interrupted_once_rank_0_meets(*args, **kwargs):  # in the forked processes, as everything below
        if os.environ.get("RANK") == "1":
            deadline = time.monotonic() + 60
            while not meeting.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            signalled.write_text(repr(time.time()))
            os.kill(os.getpid(), signal.SIGINT)
        return checks(*args, **kwargs)

    def meets(*args, **kwargs):
        if os.environ.get("RANK") == "0":
            meeting.touch()
        return make(*args, **kwargs)

    monkeypatch.setattr(configured_run, "_checks_before_anything_is_written", interrupted_once_rank_0_meets)
    monkeypatch.setattr(configured_run, "make_accelerator", meets)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True)
    _torch_logs_on_this_tests_stderr(monkeypatch)
    with _ctrl_c_to_this_process_after(signalled, 60), pytest.raises(KeyboardInterrupt) as stopped:
        model.fit(data, steps=2)
    after, said = time.time() - float(signalled.read_text()), capfd.readouterr()
    line = "interrupted (Ctrl-C) before training began; nothing was saved: start the run again"
    assert after < 20, f"{after:.1f} s\n{said.out[-2000:]}\n{said.err[-3000:]}"  # measured 0.1 s; 60 s and more before
    assert type(stopped.value) is KeyboardInterrupt and stopped.value.__cause__ is None
    assert said.out.splitlines().count(line) == 1, said.out[-2000:]
    # torch's traceback of rank 1's status 130 and its stop of rank 0, logged until the hundred-and-ninth session
    assert not _TORCH_SHUTDOWN_LINES.search(said.err), said.err[-3000:]
    assert repr(model).endswith(f"a fit interrupted (Ctrl-C) in {tmp_path / 'run'}; nothing was saved: fit again>")
    assert not (tmp_path / "run" / "checkpoints").exists()


@pytest.mark.distributed
@pytest.mark.parametrize("preemption", ["SIGTERM", "SIGUSR1"])
def test_a_scheduler_signal_to_a_fit_of_two_launched_processes_returns_it_preempted(
        tiny_dataset, tmp_path, monkeypatch, capfd, preemption, launch_leaves_no_temporary_folder):
    """SIGTERM or SIGUSR1 to the launching process alone (``kill``, a notebook kernel's stop, SLURM's signal to the
    batch script), which stops a one-process fit by returning it preempted. Until the hundred-and-second session
    fit raised torch's SignalException for SIGTERM (its processes had saved), and SIGUSR1 ended the launching
    process at once. Until the hundred-and-third session fit returned some 30 s after the signal: the saved
    processes waited for torch's agent, which killed them when its TORCH_ELASTIC_SHUTDOWN_TIMEOUT ran out (a
    step and a save take a second or two here)."""

    import accelerated_seg.estimator as estimator
    from accelerated_seg.model_folders import complete_checkpoints

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True, save_every=2)
    run, signum = tmp_path / "run", getattr(signal, preemption)
    handler_before = signal.getsignal(signum)
    with _signalled_once_a_checkpoint_is_whole(run, signum) as sent_at:
        model.fit(data, steps=100_000)
    assert time.time() - float(sent_at.read_text()) < 20  # 30 s and more before the hundred-and-third session
    newest = complete_checkpoints(run / "checkpoints")[-1]
    assert model.summary["preempted"] and newest.name == f"step_{model.summary['step']}"
    assert "preempted: SIGTERM/SIGUSR1 reached a rank" in capfd.readouterr().out
    assert repr(model).endswith(f"(stopped by a signal); no model exported yet: its newest whole checkpoint is "
                                f"{newest}: call fit(..., resume='latest') again to continue from it>")
    assert signal.getsignal(signum) is handler_before


#: A launched process as notebook_launcher forks it from a kernel that has not imported train (a notebook's first
#: fit): its status says whether train was imported before what it inherited was frozen.
_FROZEN_BEFORE_TRAINS_IMPORT = """
import sys
from accelerated_seg import estimator_launch

class Frozen(Exception):
    pass

def forked_for_one_job():
    raise Frozen("accelerated_seg.train" in sys.modules)

estimator_launch.forked_for_one_job = forked_for_one_job
try:
    estimator_launch.fit_in_launched_process(None, None)
except Frozen as frozen:
    sys.exit(int(frozen.args[0]))
"""


def test_a_launched_process_freezes_what_it_inherited_before_it_imports_train():
    """A launched process freezes what it inherited before anything else (collector.forked_for_one_job): a
    collection there frees the launching process's garbage, whose destructors may join threads the fork has not
    (docs/known_issues.md). It imported train first (the hundred-and-third session's fix), where a notebook's first
    fit had not: thousands of objects, enough for a full collection."""
    first = subprocess.run([sys.executable, "-c", _FROZEN_BEFORE_TRAINS_IMPORT], capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0, first.stderr[-3000:] or "train was imported before the freeze"


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="SIGUSR1")
def test_sigusr1_to_the_launching_process_is_taken_as_torch_takes_sigterm_during_the_launch_alone():
    """torch's launch handles SIGTERM, SIGINT, SIGHUP and SIGQUIT alone: SIGUSR1's default action ended the launching
    process at once (status 138), its processes saving with no one to return to, until the hundred-and-second
    session. (A real 2-process fit signalled with SIGTERM hung before its first step in that session's CI, twice,
    where it passed alone: the end-to-end test was left out, the cause not found.)"""

    from torch.distributed.elastic.multiprocessing.api import SignalException, _terminate_process_handler

    from accelerated_seg.estimator_launch import preemption_sent_on, signal_handlers_kept

    before = signal.getsignal(signal.SIGUSR1)
    with signal_handlers_kept(), preemption_sent_on():
        assert signal.getsignal(signal.SIGUSR1) is _terminate_process_handler
        with pytest.raises(SignalException) as raised:
            os.kill(os.getpid(), signal.SIGUSR1)
            for _ in range(100):  # the handler runs between bytecodes, soon after
                time.sleep(0.01)
        assert raised.value.sigval == signal.SIGUSR1
    assert signal.getsignal(signal.SIGUSR1) is before


def test_a_signal_out_of_the_launch_is_a_preemption_only_where_the_processes_saved_since(tmp_path):
    """A summary.json older than the launch is an earlier fit's: torch's error stands then, as for other errors."""
    from torch.distributed.elastic.multiprocessing.api import SignalException

    from accelerated_seg.estimator_launch import preempted_summary_of_the_launch

    summary, before = tmp_path / "summary.json", time_ns_before_a_write()
    summary.write_text(json.dumps({"step": 4, "preempted": True}))
    term = SignalException("got 15", sigval=signal.SIGTERM)
    assert preempted_summary_of_the_launch(term, summary, before) == {"step": 4, "preempted": True}
    assert preempted_summary_of_the_launch(term, summary, summary.stat().st_mtime_ns + 1) is None  # an earlier fit's
    assert preempted_summary_of_the_launch(term, tmp_path / "none.json", before) is None
    assert preempted_summary_of_the_launch(RuntimeError("a rank failed"), summary, before) is None
    summary.write_text(json.dumps({"step": 4, "preempted": False}))
    assert preempted_summary_of_the_launch(term, summary, before) is None


def time_ns_before_a_write() -> int:

    return time.time_ns() - 1_000_000_000  # a filesystem's coarser clock may date the write a little earlier


def test_only_sigint_out_of_the_launch_is_taken_for_ctrl_c():
    from torch.distributed.elastic.multiprocessing.api import SignalException

    from accelerated_seg.estimator_launch import interrupt_of_the_launch

    assert type(interrupt_of_the_launch(SignalException("got 2", sigval=signal.SIGINT))) is KeyboardInterrupt
    for other in (SignalException("got 15", sigval=signal.SIGTERM), RuntimeError("a rank failed")):
        assert interrupt_of_the_launch(other) is None
    # a launch whose first process to end was interrupted (status 130) is one too: rank 1 interrupted alone in the
    # setup raised torch's ChildFailedError out of fit until the hundred-and-eighth session's review; an error is not
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

    def ended(status: int) -> ChildFailedError:  # torch's agent names the one process it saw end first
        return ChildFailedError("fit_in_launched_process", {1: ProcessFailure(1, 10, status, "")})

    assert type(interrupt_of_the_launch(ended(130))) is KeyboardInterrupt
    for other in (1, -15):
        assert interrupt_of_the_launch(ended(other)) is None


def test_only_a_launch_whose_first_process_to_end_died_of_a_signal_is_a_process_lost(tmp_path):
    """torch's agent names the process it saw end first: one killed (its status below 0) is ProcessLost, its step
    the one the process saying the stop's line wrote (stopped_step); a process's own error (1) and an interrupt
    (130, KeyboardInterrupt: interrupt_of_the_launch) are not, nor any other error."""
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

    import pickle

    from accelerated_seg.estimator_process_lost import process_lost_in_the_launch
    from accelerated_seg.stopped_step import write_stopped_step

    def ended(rank: int, status: int) -> ChildFailedError:
        return ChildFailedError("fit_in_launched_process", {rank: ProcessFailure(rank, 10, status, "")})

    written = tmp_path / "stopped_step.json"
    write_stopped_step(written, 5)
    lost = process_lost_in_the_launch(ended(0, -signal.SIGKILL), 4, written)
    assert (lost.process, lost.processes, lost.signal, lost.step) == (0, 4, "SIGKILL", 5)
    again = pickle.loads(pickle.dumps(lost))
    assert (str(again), again.process, again.signal, again.step) == (str(lost), 0, "SIGKILL", 5)
    assert str(lost) == "fit: process 0 of 4 died of SIGKILL (killed outright: the OOM killer, or a kill -9), and " \
                        "the other processes stopped"
    segfault = process_lost_in_the_launch(ended(1, -signal.SIGSEGV), 2, tmp_path / "never_written.json")
    assert (segfault.signal, segfault.step) == ("SIGSEGV", None) and "died of SIGSEGV, and" in str(segfault)
    for other in (ended(1, 1), ended(1, 130), RuntimeError("a rank failed")):
        assert process_lost_in_the_launch(other, 2, written) is None


def test_a_launchs_interrupt_carries_the_step_its_main_process_wrote_and_none_of_a_file_cut_short(tmp_path):
    """A launch's processes end with os._exit: the step the main process's line names reached the launching process
    only through the file it writes (stopped_step), and the estimator said the newest checkpoint's, "after step N or
    later", until the hundred-and-tenth session. A file cut short, or none (stopped before the loop, killed), gives
    no step: the estimator says those words then."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

    from accelerated_seg.estimator_launch import interrupt_of_the_launch
    from accelerated_seg.stopped_step import write_stopped_step

    written, cut_short = tmp_path / "stopped_step.json", tmp_path / "cut_short.json"
    write_stopped_step(written, 7)
    cut_short.write_text('{"step": 7', encoding="utf-8")
    for interrupt in (SignalException("got 2", sigval=signal.SIGINT),
                      ChildFailedError("fit_in_launched_process", {1: ProcessFailure(1, 10, 130, "")})):
        assert interrupt_of_the_launch(interrupt, written).step == 7
        for none in (cut_short, tmp_path / "never_written.json", None):
            assert not hasattr(interrupt_of_the_launch(interrupt, none), "step")
    assert interrupt_of_the_launch(RuntimeError("a rank failed"), written) is None


@pytest.mark.parametrize("main_process, node_first", [(True, True), (False, True), (False, False)])
def test_the_main_process_alone_writes_the_step_its_interrupted_line_names(tmp_path, capsys, main_process, node_first):
    """Where the launch's store cannot carry the interrupt (or in one process), the rank's own except says the line:
    the main process writes the step it names for the launching process (stopped_step), another process nothing;
    each interrupt keeps its step, as ever. The line is said once on each node, by its first process, as
    accelerate's print says it: in the hundred-and-tenth session until its review the main process alone said it,
    another node's terminal left without one (node_first, not main_process)."""
    from types import SimpleNamespace

    from accelerate.state import PartialState

    from accelerated_seg.interrupted_run import saying_where_to_resume_after_ctrl_c
    from accelerated_seg.model_folders import Names
    from accelerated_seg.stopped_step import stopped_step_read

    stopped_step = tmp_path / "stopped_step.json"
    accelerator = SimpleNamespace(is_main_process=main_process, is_local_main_process=node_first)
    accelerator.print = lambda *args, **kwargs: PartialState.print(accelerator, *args, **kwargs)  # accelerate's rule
    loop = SimpleNamespace(progress=SimpleNamespace(step=5), accelerator=accelerator)
    with pytest.raises(KeyboardInterrupt) as interrupted:
        with saying_where_to_resume_after_ctrl_c(tmp_path / "run" / "checkpoints", Names(), stopped_step) as so_far:
            so_far.set_up(loop)
            raise KeyboardInterrupt
    assert interrupted.value.step == 5
    assert stopped_step_read(stopped_step) == (5 if main_process else None)
    assert ("interrupted (Ctrl-C) after step 5; no checkpoint was saved yet" in capsys.readouterr().out) is node_first


@pytest.mark.parametrize("resumes", [True, False])
def test_a_resume_stopped_in_its_setup_is_said_to_stop_after_its_checkpoints_step(tmp_path, capsys, monkeypatch,
                                                                                  resumes):
    """Before its loop is set up a resume has taken no step beyond its checkpoint: that step is the one it stopped
    after, written for a launching process (stopped_step) and carried by the interrupt, where None was until the
    hundred-and-eleventh session (the estimator said "after step 4 or later", or no step); a new run has none."""
    from accelerated_seg.interrupted_run import saying_where_to_resume_after_ctrl_c
    from accelerated_seg.model_folders import Names
    from accelerated_seg.stopped_step import stopped_step_read

    checkpoint, stopped_step = tmp_path / "run" / "checkpoints" / "step_4", tmp_path / "stopped_step.json"
    checkpoint.mkdir(parents=True)
    # the rank's own except (one process, or a launch whose store cannot carry it): rank 0 writes, others do not
    for rank, written in (("1", None), ("0", 4 if resumes else None)):
        monkeypatch.setenv("RANK", rank)
        with pytest.raises(KeyboardInterrupt) as interrupted:
            with saying_where_to_resume_after_ctrl_c(checkpoint.parent, Names(), stopped_step) as so_far:
                so_far.starts_from(checkpoint if resumes else None)
                raise KeyboardInterrupt
        assert stopped_step_read(stopped_step) == written
        assert getattr(interrupted.value, "step", None) == (4 if resumes else None)
    stopped_step.unlink(missing_ok=True)
    assert "interrupted (Ctrl-C) before training began" in capsys.readouterr().out
    # the main process's line, as a launch's store carries the interrupt to it (ranks_stop_together)
    assert so_far.said_by_the_main_process()[1] == (4 if resumes else None)
    assert stopped_step_read(stopped_step) == (4 if resumes else None)


def _ends_with_or_waits(index: int, status: int) -> None:
    """A process of torch.multiprocessing's: the second ends with ``status`` (below 0: dies of that signal), the first
    waits to be stopped."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the test process's handler, which a fork keeps
    if index == 1:
        if status < 0:
            faulthandler.disable()  # pytest's, which a fork keeps: no dump of this process's SIGSEGV on stderr
            os.kill(os.getpid(), -status)
        os._exit(status)
    time.sleep(60)


def test_torchs_log_of_a_launchs_shutdown_is_dropped_where_the_fit_says_it_and_a_failures_logged_as_it_comes():
    """Without a launch: the records torch logs as a launch ends (torch.multiprocessing's stop of the others once a
    process has ended, that process's status, the agent's signal and its stop of the processes) are dropped where
    the fit says that end in its own words, a Ctrl-C's (status 130, SIGINT: KeyboardInterrupt) or a process's death of
    a signal (SIGKILL's -9, SIGSEGV's -11: ProcessLost), and logged at once otherwise, while the launch still runs;
    another record passes. A failure's were held until the launch had ended in the hundred-and-ninth session's first
    version: its "Terminating process" line came 30.1 s late where a process was deaf to SIGTERM, and never where a
    Ctrl-C then ended the wait. A death's were logged under ProcessLost until the hundred-and-sixteenth session. The
    launches' stderr: test_sigint_to_one_launched_process_..., test_ctrl_c_in_a_fit_of_two_launched_processes_...,
    test_a_process_of_the_launch_killed_outright_..."""
    import logging

    import torch.multiprocessing as torch_mp

    from accelerated_seg.launch_interrupt_logs import TORCH_LAUNCH_LOGGERS, shutdown_logged_unless_the_fit_says_it

    class Kept(logging.Handler):
        def emit(self, record):
            message = record.getMessage().split(" via")[0].split(" local_rank")[0]
            said.append(re.sub(r"process \d+", "process N", message))

    said, kept = [], Kept()
    processes, spawn, agent = (logging.getLogger(name) for name in TORCH_LAUNCH_LOGGERS)
    for logger in (processes, spawn, agent):
        logger.addHandler(kept)
    try:
        # 2: a status, not SIGINT's number
        for status, said_by_the_fit in ((130, True), (1, False), (2, False), (-signal.SIGKILL, True),
                                        (-signal.SIGSEGV, True)):
            said.clear()
            with shutdown_logged_unless_the_fit_says_it():
                context = torch_mp.start_processes(_ends_with_or_waits, args=(status,), nprocs=2, join=False,
                                                   start_method="fork")
                with pytest.raises(torch_mp.ProcessExitedException):  # torch logs its stop of the first
                    while not context.join():
                        pass
                processes.error("failed (exitcode: %s) local_rank: %s", status, 1)
                agent.warning("an unrelated warning")
                shut_down = [] if said_by_the_fit else ["Terminating process N", f"failed (exitcode: {status})"]
                assert said == [*shut_down, "an unrelated warning"], (status, said)  # as they come, not at the end
            said.clear()
            with shutdown_logged_unless_the_fit_says_it():
                for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C to the launching process, a preemption
                    agent.warning("Received %s death signal, shutting down workers", signum)
                    processes.warning("Closing process %s via signal %s", 10, signum.name)
            assert said == ["Received 15 death signal, shutting down workers", "Closing process N"], said
        assert not processes.filters and not spawn.filters and not agent.filters  # taken off
    finally:
        for logger in (processes, spawn, agent):
            logger.removeHandler(kept)


def test_no_validation_pairs_trains_on_every_pair(tiny_dataset):
    """validation_pairs=[] is "no validation cases", as from_pairs reads it, not "split pairs for me"."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[])
    for built in (data, data.binarize()):  # binarize rebuilds the manifest from the pairs
        assert len(built.manifest.training) == len(train_pairs) and built.manifest.validation == []
    split = Dataset.from_files(train_pairs, block_shape=16, n_classes=3)  # None: the seeded fraction
    assert len(split.manifest.validation) > 0


def test_the_split_settings_out_of_their_range_are_refused_in_from_files_words(tmp_path):
    """Dataset.from_files said the split settings' DataErrors in its keywords (num_folds=, fold=), but the range and
    type checks of check_values in the config's: split_seed=-1 was "setting data.split_seed must be >= 0 ...", a
    setting its user never wrote (a review of the ninetieth session). A config's user reads them as before."""
    from accelerated_seg.config import Config, check_values

    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    for given, said in (
            ({"split_seed": -1}, "split_seed must be >= 0 and < 2**32 (numpy's and torch's seed range), got -1"),
            ({"split_seed": 2**32}, "split_seed must be >= 0 and < 2**32 (numpy's and torch's seed range), got "
                                    "4294967296"),
            ({"num_folds": -1}, "num_folds must be >= 0, got -1"), ({"fold": -1}, "fold must be >= 0, got -1"),
            ({"num_folds": 2.5}, "num_folds must be int, got 2.5"),
            ({"validation_fraction": 1.5}, "validation_fraction must be >= 0.0 and < 1.0, got 1.5")):
        with pytest.raises(ConfigError, match=f"^{re.escape(f'Dataset.from_files: {said}')}$"):
            Dataset.from_files(pairs, block_shape=16, **given)
    with pytest.raises(ConfigError, match=r"^setting data.split_seed must be >= 0 and < 2\*\*32 "):  # the config's
        check_values(Config(data=DataConfig(split_seed=-1)))


def test_every_data_setting_out_of_its_range_is_refused_in_from_files_words(tmp_path):
    """The split settings' range and type errors were said in from_files' keywords, the other data settings' in the
    config's: spacing=(-1, 1, 1) was "setting data.spacing must be 3 sizes > 0 mm ...", num_workers=-1 "setting
    data.num_workers must be >= 0", settings its user never wrote (ninety-first session). Each is
    named as the keyword it was given as; a config's user reads them as before."""
    from accelerated_seg.config import Config, check_values

    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    for given, said in (
            ({"spacing": (-1, 1, 1)}, "spacing must be 3 sizes > 0 mm (or None for the median), got [-1.0, 1.0, 1.0]"),
            ({"spacing": -1}, "spacing must be a list of 3 values, got -1"),
            ({"num_workers": -1}, "num_workers must be >= 0, got -1"), ({"max_voxels": 0}, "max_voxels must be >= 1, "
                                                                                           "got 0"),
            ({"num_workers": 1.5}, "num_workers must be int, got 1.5"),
            ({"cache_dir": ""}, "cache_dir is an empty path ''; give a file or folder, or leave it out (None)"),
            ({"foreground_fraction": 1.5}, "foreground_fraction must be >= 0.0 and <= 1.0, got 1.5"),
            ({"ct_window": (1, 0)}, "ct_window must be [low, high], finite, with low < high, got [1.0, 0.0]"),
            ({"augment_on": "tpu"}, "augment_on must be one of auto, cpu, gpu; got 'tpu'"),
            ({"class_balanced": 2}, "class_balanced must be True or False, got 2"),
            ({"region_order": [1]}, "region_order orders regions, which is not set; declare the regions, or leave"),
            ({"regions": {"a": [1]}, "binarize": True}, "regions and binarize exclude each other: binarize merges")):
        with pytest.raises(ConfigError, match=f"^{re.escape(f'Dataset.from_files: {said}')}"):
            Dataset.from_files(pairs, block_shape=16, **given)
    with pytest.raises(ConfigError, match=r"^setting data.spacing must be 3 sizes > 0 mm \(or null for the median\)"):
        check_values(Config(data=DataConfig(spacing=(-1, 1, 1))))  # the config's, as before


def test_a_value_the_configs_words_say_null_is_said_none_to_the_keywords_user(tmp_path):
    """from_files(spacing=(-1, 1, 1)) was told "(or null for the median)", cache_dir="" "leave it out (null)",
    Segmentation(init_from="") the same: YAML's word, where its user writes None (a review of the ninety-first
    session). The keywords' users read None; a value of theirs in quotes is given back as it was, and a config's
    user reads null as before."""
    from accelerated_seg.config import Config, check_values

    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    for call, said in (
            (lambda: Dataset.from_files(pairs, block_shape=16, spacing=(0, 1, 1)),
             "Dataset.from_files: spacing must be 3 sizes > 0 mm (or None for the median), got [0.0, 1.0, 1.0]"),
            (lambda: Segmentation(init_from=""),
             "Segmentation: init_from is an empty path ''; give a file or folder, or leave it out (None)"),
            (lambda: Dataset.from_files(pairs, block_shape=16).augment("heavy", on="null"),
             "Dataset.augment: on must be one of auto, cpu, gpu; got 'null'")):
        with pytest.raises(ConfigError, match=f"^{re.escape(said)}$"):
            call()
    with pytest.raises(ConfigError, match=r"or leave it out \(null\)$"):
        check_values(Config(data=DataConfig(cache_dir="")))


def test_fold_keys_beside_validation_pairs_are_chosen_by_num_folds_in_from_files_words(tmp_path):
    """A MONAI datalist's entries with "fold" keys, given with validation_pairs: fold=1 was refused as "the
    dataset gives its own split (validation_pairs) ...: folds split a dataset that has none of its own; remove
    data.fold", and num_folds=3 "not used". num_folds now picks the keys, as for a datalist JSON, each error
    naming what Dataset.from_files was given: num_folds= and fold= (data.num_folds to a config's user)."""
    entries = [{"image": str(tmp_path / f"case_{index}.nii.gz"), "label": str(tmp_path / f"seg_{index}.nii.gz"),
                "fold": index % 3} for index in range(7)]
    held_out = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in (7, 8)]
    refusal = ("fold=1 is set, but Dataset.from_files is given two splits: the pairs' 'fold' keys (3 folds) and "
               "validation_pairs (2 case(s)); set num_folds=3 to validate on fold 1 of the 'fold' keys "
               "(validation_pairs are then left out), or remove fold to validate on validation_pairs")
    with pytest.raises(DataError, match=f"^{re.escape(refusal)}$"):
        Dataset.from_files(entries, block_shape=16, validation_pairs=held_out, fold=1)
    with pytest.raises(DataError, match=r"^Dataset.from_files: the pairs' 'fold' keys make 3 fold\(s\) but "
                                        r"num_folds=5; set num_folds to 3 to use them \(0 validates on "
                                        r"validation_pairs\)"):
        Dataset.from_files(entries, block_shape=16, validation_pairs=held_out, num_folds=5)
    # the keys alone: "fold=5 is out of range: Dataset.from_files: pairs's 'fold' keys ..." until a review
    with pytest.raises(DataError, match=r"^fold=5 is out of range: the pairs' 'fold' keys make 3 fold\(s\); use 0..2$"):
        Dataset.from_files(entries, block_shape=16, fold=5)
    with pytest.raises(DataError, match=r"^fold=3 is out of range for num_folds=3; use 0..2$"):  # the settings' own
        Dataset.from_files(entries, block_shape=16, validation_pairs=held_out, num_folds=3, fold=3)
    keyed = Dataset.from_files(entries, block_shape=16, validation_pairs=held_out, num_folds=3, fold=1)
    assert [case.id for case in keyed.manifest.validation] == ["seg_1", "seg_4"]
    assert "split: given (datalist 'fold' keys: fold 1 of 3; validation_pairs (2 case(s)) not used)" in repr(keyed)
    listed = Dataset.from_files(entries, block_shape=16, validation_pairs=held_out)
    assert [case.id for case in listed.manifest.validation] == ["seg_7", "seg_8"]
    assert listed.manifest.split == "given (validation_pairs; the 'fold' keys (3 folds) not used)"


def test_the_builders_loader_runs_the_pre_flight_checks_first(tiny_dataset, tmp_path):
    """Dataset.loader() preprocessed without them: a broken file was nibabel's traceback."""
    from accelerated_seg.data.errors import DataError

    train_pairs, val_pairs = _pairs(tiny_dataset)
    broken = tmp_path / "broken.nii.gz"
    broken.write_text("not an image")
    data = Dataset.from_files([*train_pairs, (str(broken), val_pairs[0][1])],
                              block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=f"{broken}: corrupt or not a gzip file"):
        data.loader()
    assert not (tmp_path / "cache").exists()  # refused before any preprocessing


def test_the_training_settings_and_augments_are_refused_in_the_keywords_given(tmp_path):
    """Segmentation(...), fit(...) and Dataset.fit(...) take the training and optimizer settings as keywords, and
    augment() its profile and on, but said their range and type errors in the config's words: batch_size=0 was
    "Segmentation: setting train.batch_size must be >= 1", channels_last_norm=True "needs train.channels_last:
    true", augment(on="tpu") "setting data.augment_on must be ..." (ninety-first session). They name
    the keywords, with a value as Python writes it; a config given to Dataset.fit is named as it names itself."""
    from accelerated_seg.config import Config

    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    data = Dataset.from_files(pairs, block_shape=16, validation_pairs=[])
    for call, said in (
            (lambda: Segmentation(batch_size=0), "Segmentation: batch_size must be >= 1, got 0"),
            (lambda: Segmentation(channels_last_norm=True), "Segmentation: channels_last_norm keeps the channels-last "
                                                            "layout through the norms, and needs channels_last=True;"),
            (lambda: Segmentation(optimizer="sgd", momentum=0), "Segmentation: nesterov needs a momentum (momentum > 0, "
                                                                "nnU-Net's is 0.99); set one, or nesterov=False for"),
            (lambda: Segmentation(output_dir=str(tmp_path / "run")).fit(data, warmup_steps=-1, val_every=0),
             "fit: warmup_steps must be >= 0, got -1"),
            (lambda: data.fit(sw_overlap=1.5), "Dataset.fit: sw_overlap must be >= 0.0 and < 1.0, got 1.5"),
            (lambda: data.fit(Config(data=data.data, train=dataclasses.replace(Config().train, batch_size=0))),
             "Dataset.fit: setting train.batch_size must be >= 1, got 0"),  # the config's own words
            # Dataset.config(...) took them unchecked, and Dataset.fit(config) said "setting optim.lr", beside its
            # run's lr (until the ninety-third session)
            (lambda: data.config(lr=-1), "Dataset.config: lr must be >= 0, got -1"),
            (lambda: data.config(optimizer="sgd", momentum=0), "Dataset.config: nesterov needs a momentum (momentum > "
                                                               "0, nnU-Net's is 0.99); set one, or nesterov=False for"),
            (lambda: data.augment("heavy", on="tpu"), "Dataset.augment: on must be one of auto, cpu, gpu; got 'tpu'")):
        with pytest.raises(ConfigError, match=f"^{re.escape(said)}"):
            call()
    assert not (tmp_path / "run").exists()


def test_an_ignore_value_below_the_classes_or_pairs_that_are_a_number_are_refused_naming_the_keyword(tmp_path):
    """from_files' keywords given a bad value that no check of its own took: ignore_value=-1 (or 2.5) was
    from_pairs' 'labels argument: the "ignore" label has value -1 ... e.g. "ignore": 3', of an argument and a
    label its user never wrote; pairs=3 Python's "'int' object is not iterable" (ninety-first
    session). Each is refused naming the keyword."""
    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    for ignore_value in (-1, 2.5, "3"):
        with pytest.raises(DataError, match=re.escape(f"Dataset.from_files: ignore_value must be a whole number above "
                                                      f"the classes' values (0..2), e.g. 3, got {ignore_value!r}")):
            Dataset.from_files(pairs, block_shape=16, n_classes=3, ignore_value=ignore_value)
    for name, given in (("pairs", {"pairs": 3}), ("validation_pairs", {"pairs": pairs, "validation_pairs": 3})):
        with pytest.raises(ConfigError, match=rf"^Dataset.from_files: {name} must be a list of \(image, label\) "
                                              rf"pairs, MONAI datalist dicts or an HF datasets.Dataset of rows, got "
                                              rf"int$"):
            Dataset.from_files(**given, block_shape=16)
    assert Dataset.from_files(pairs, block_shape=16, n_classes=3, ignore_value=np.int64(3)).ignore_value == 3


def test_an_ignore_value_beside_256_classes_is_told_that_255_classes_fit_with_it(tmp_path):
    """The unannotated voxels take a class index of their own, and the stored labels hold 256: 256 classes
    leave no room for an ignore value. n_classes=256 with ignore_value=255 was told to choose 256, which was
    refused as 'labels argument: 256 classes and an ignore label ...', of an argument never given and naming
    neither setting (a review of the estimator)."""
    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(4)]
    no_room = ("Dataset.from_files: n_classes=256 and ignore_value {}: the unannotated voxels take a class "
               "index of their own, and the stored labels hold 256 (one byte per voxel), so at most 255 classes "
               "(background included) train beside an ignore_value. Merge classes into 255 and give ignore_value "
               "255 (n_classes=255, ignore_value=255), or leave ignore_value out to train the 256 classes")
    for ignore_value in (255, 0, 256, 300, -1):  # inside the classes, just above them, far above, below
        with pytest.raises(DataError, match=f"^{re.escape(no_room.format(ignore_value))}$"):
            Dataset.from_files(pairs, block_shape=16, n_classes=256, ignore_value=ignore_value)
    with pytest.raises(DataError, match=r"^Dataset.from_files: label_values' 256 classes and ignore_value 301: "
                                        r".* Merge classes into 255 and give ignore_value a value above theirs, or "
                                        r"leave ignore_value out to train the 256 classes$"):
        Dataset.from_files(pairs, block_shape=16, label_values=list(range(255)) + [300], ignore_value=301)
    with pytest.raises(DataError, match=r"^Dataset.from_files: n_classes=257 and ignore_value 300: .* at most "
                                        r"255 classes .* Merge classes into 255 and give ignore_value 255 "
                                        r"\(n_classes=255, ignore_value=255\)$"):  # leaving it out: 257 do not fit
        Dataset.from_files(pairs, block_shape=16, n_classes=257, ignore_value=300)
    with pytest.raises(DataError, match=r"^Dataset.from_files: ignore_value 256 and .binarize\(\) \(data.binarize\) "
                                        r"do not go together"):  # whatever the count: binarizing takes no ignore value
        Dataset.from_files(pairs, block_shape=16, n_classes=256, ignore_value=256, binarize=True)
    # the way said is taken, and beside 255 classes a class's value is told the one free value
    assert Dataset.from_files(pairs, block_shape=16, n_classes=255, ignore_value=255).manifest.ignore_index == 255
    with pytest.raises(DataError, match=r"^Dataset.from_files: ignore_value 254 is a class's value \(the classes are "
                                        r"0..254\); give the unannotated voxels a value of their own, e.g. 255$"):
        Dataset.from_files(pairs, block_shape=16, n_classes=255, ignore_value=254)


def test_pairs_given_as_columns_a_path_or_one_pair_alone_are_told_what_to_give(tiny_dataset):
    """tuple() took them apart first: 'pairs[0] is 'image'' for a dict of columns or a DataFrame,
    'pairs[0] is '/'' for a path, the image path for one pair alone (seventy-first session's probe)."""
    import datasets

    train_pairs, _ = _pairs(tiny_dataset)
    image, label = train_pairs[0]
    columns = {"image": [image], "label": [label]}
    for given, said in ((columns, r"got dict: a dict of columns is list\(zip\(d\['image'\], d\['label'\]\)\)"),
                        (image, r"got str: a dataset's CSV, dataset.json or folder is read by "
                                r"accelerated_seg.data.manifest.load_cases: m = load_cases\(path\); .*"
                                r"label_values=m.label_values, class_names=list\(m.labels.values\(\)\), "
                                r"channel_names=list\(m.channels.values\(\)\), ignore_value=m.ignore_value, "),
                        ((image, label), r"holds two paths, not pairs: give a list of \(image, "
                                                             r"label\) pairs, \[\(.*\)\] for one case"),
                        # one pair of channel files alone read its channels as an image and a label (ninety-first)
                        (([image, image], label), r"holds one pair, not pairs: give a list of \(image, label\) "
                                                  r"pairs, \[\(\[.*, .*\], .*\)\] for one case")):
        with pytest.raises(ConfigError, match=rf"Dataset.from_files: pairs.*{said}"):
            Dataset.from_files(given, block_shape=16, n_classes=3)
    rows = np.array([[str(i), str(l)] for i, l in train_pairs])  # a NumPy array of pairs: its rows are pairs
    table = datasets.Dataset.from_list([{"image": str(i), "label": str(l), "subject": n}  # an HF table of paths
                                        for n, (i, l) in enumerate(train_pairs)])
    for given in (rows, table):
        built = Dataset.from_files(given, block_shape=16, n_classes=3, validation_pairs=[])
        assert [case.label for case in built.manifest.training] == [Path(l) for _, l in train_pairs]
    # what the path's message says to do works as written, the dataset's classes and channel names kept: without
    # them the 3 classes were 2, and a CT channel "image", normalized by z-score (hundredth session)
    m = load_cases(tiny_dataset)
    built = Dataset.from_files([(c.images, c.label) for c in m.training],
                               validation_pairs=[(c.images, c.label) for c in m.validation],
                               label_values=m.label_values, class_names=list(m.labels.values()),
                               channel_names=list(m.channels.values()), ignore_value=m.ignore_value, block_shape=16)
    assert built.manifest.training == m.training and built.manifest.validation == m.validation
    assert (built.manifest.labels, built.manifest.channels) == (m.labels, m.channels) != (
        {0: "background", 1: "class_1"}, {0: "image"})


def test_a_path_of_regions_is_told_to_give_its_regions_with_its_classes(tmp_path):
    """The recipe a path is told passed the classes' names of an nnU-Net dataset of regions, which are its regions'
    (value 1 "whole"), without the regions: exclusive classes, value 1 alone scored as "dice_whole" (a review in the
    hundredth session). It names the regions too, and followed, the Dataset has the dataset's regions."""
    import nibabel as nib

    for sub in ("imagesTr", "labelsTr"):
        (tmp_path / sub).mkdir()
    label = np.zeros((16, 16, 16), np.uint8)
    label[2:12, 2:12, 2:12], label[4:10, 4:10, 4:10], label[6:8, 6:8, 6:8] = 1, 2, 3
    for case in ("a", "b", "c"):
        nib.save(nib.Nifti1Image(label.astype(np.float32), np.eye(4)), tmp_path / f"imagesTr/{case}_0000.nii.gz")
        nib.save(nib.Nifti1Image(label, np.eye(4)), tmp_path / f"labelsTr/{case}.nii.gz")
    (tmp_path / "dataset.json").write_text(json.dumps({
        "channel_names": {"0": "MRI"}, "labels": {"background": 0, "whole": [1, 2, 3], "core": [2, 3], "enh": 3},
        "regions_class_order": [1, 2, 3], "numTraining": 3, "file_ending": ".nii.gz"}))
    with pytest.raises(ConfigError, match=r"\.\.\.\), and, where m.regions is not None \(an nnU-Net dataset of "
                                          r"regions\), regions=dict\(zip\(m.regions.names, m.regions.values\)\), "
                                          r"region_order=list\(m.regions.order\)$"):
        Dataset.from_files(str(tmp_path), block_shape=16)
    m = load_cases(tmp_path)
    built = Dataset.from_files([(c.images, c.label) for c in m.training],
                               validation_pairs=[(c.images, c.label) for c in m.validation],
                               label_values=m.label_values, class_names=list(m.labels.values()),
                               channel_names=list(m.channels.values()), ignore_value=m.ignore_value, block_shape=16,
                               regions=dict(zip(m.regions.names, m.regions.values)),
                               region_order=list(m.regions.order))
    assert m.regions is not None and (built.manifest.regions, built.manifest.labels) == (m.regions, m.labels)


def test_a_malformed_entry_among_the_pairs_is_named_with_the_forms_an_entry_takes(tmp_path):
    """[(a, a_seg), b], a list of pairs with a path alone for an entry, was told "pairs holds one pair,
    not pairs" and shown (['a', 'a_seg'], 'b') as one case's channels (ninety-second session's probe).
    Each malformed entry is named by its index and value, with the forms an entry takes."""
    a, a_seg, b, b_seg = (str(tmp_path / f"{name}.nii.gz") for name in ("a", "a_seg", "b", "b_seg"))
    forms = re.escape("each entry must be an (image, label) pair, (image path or [channel paths], label path), "
                      "or MONAI's {'image': ..., 'label': ...}")
    for pairs, said in (([(a, a_seg), b], rf"pairs\[1\] is {re.escape(repr(b))}, a path alone; {forms}$"),
                        ([b, (a, a_seg)], rf"pairs\[0\] is {re.escape(repr(b))}, a path alone; {forms}$"),
                        ([(a,), (b, b_seg)], rf"pairs\[0\] is {re.escape(repr((a,)))}, 1 item where a pair has 2; "
                                             rf"{forms}$"),
                        # three paths: most often a case's channels, not in their list
                        ([(a, a_seg), (a, b, b_seg)],
                         rf"pairs\[1\] is {re.escape(repr((a, b, b_seg)))}, 3 items where a pair has 2 \(where all "
                         rf"but the last are a case's channel files: {re.escape(repr(([a, b], b_seg)))}\); {forms}$"),
                        ([(a, a_seg), {"img": b, "seg": b_seg}],
                         r"pairs\[1\] is a dict without 'image' and 'label' \(its keys: 'img', 'seg'\); a MONAI "
                         r"datalist entry names its files"),
                        # a list of two lists: a list of pairs or one case's channels and label; both are said
                        ([[a, a_seg], b], rf"pairs\[1\] is {re.escape(repr(b))}, a path alone; {forms}; or, where "
                                          rf"pairs is one case \(its channel files, then its label\), give it in a "
                                          rf"list: {re.escape(repr([([a, a_seg], b)]))}$")):
        with pytest.raises(DataError, match=rf"^Dataset.from_files: {said}"):
            Dataset.from_files(pairs, block_shape=16, validation_pairs=[])
    with pytest.raises(DataError, match=rf"^Dataset.from_files: validation_pairs\[1\] is {re.escape(repr(b))}, "
                                        rf"a path alone; {forms}$"):
        Dataset.from_files([(a, a_seg)], validation_pairs=[(b, b_seg), b], block_shape=16)


def test_an_empty_path_of_pathlib_is_refused_as_an_empty_text_is(tmp_path):
    """Path("") is Path("."), the working folder: from_files took it for a case's image until the ninety-third
    session, while "" was refused."""
    a_seg, b, b_seg = (str(tmp_path / f"{name}.nii.gz") for name in ("a_seg", "b", "b_seg"))
    with pytest.raises(DataError, match=rf"^Dataset.from_files: pairs\[0\] is {re.escape(repr((Path('.'), a_seg)))}: "
                                        r"the image path is '\.', the folder itself \(Path\(''\) is '\.'\); give "
                                        r"the file's path$"):
        Dataset.from_files([(Path(""), a_seg), (b, b_seg)], block_shape=16)


def test_pairs_in_a_set_or_a_dict_of_paths_are_told_the_list_to_give(tmp_path):
    """A set of pairs was taken, in its order of the run: the seeded split held out another case each
    run (and on each process of a launch); a dict of image -> label paths was told of a dict of
    columns (ninety-second session's probe)."""
    pairs = [(str(tmp_path / f"case_{index}.nii.gz"), str(tmp_path / f"seg_{index}.nii.gz")) for index in range(3)]
    start = r"^Dataset.from_files: pairs must be a list of \(image, label\) pairs, MONAI datalist dicts or an HF " \
            r"datasets.Dataset of rows, got "
    with pytest.raises(ConfigError, match=start + r"set, whose order changes from one run to the next, and so would "
                                                  r"the seeded split of its cases: give a list, sorted\(pairs\)$"):
        Dataset.from_files(set(pairs), block_shape=16)
    with pytest.raises(ConfigError, match=start + r"dict: a dict of image -> label paths is list\(d.items\(\)\)$"):
        Dataset.from_files(dict(pairs), block_shape=16)
    assert Dataset.from_files(dict(pairs).items(), block_shape=16).pairs == tuple(pairs)  # as the message says


def test_the_builders_loader_refuses_its_arguments_before_the_preprocessing(tiny_dataset, tmp_path):
    """A seed numpy refuses or a float worker count failed at the first batch in numpy's or the
    DataLoader's words, a batch above the epoch in the sampler's (seventy-first session's probe)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    for seed in (-1, 1.5, "a", True, 2**40):
        with pytest.raises(ConfigError, match=rf"Dataset.loader: seed must be a whole number >= 0 and < 2\*\*32, "
                                              rf"got {re.escape(repr(seed))}"):
            data.loader(seed=seed)
    with pytest.raises(ConfigError, match=r"Dataset.loader: num_workers must be a whole number >= 0, got 1.5"):
        data.loader(num_workers=1.5)
    epoch = len(train_pairs) * data.data.samples_per_volume
    # samples_per_volume as from_files takes it, twice: data.samples_per_volume first until the ninety-third session
    with pytest.raises(ConfigError, match=rf"^Dataset.loader: Dataset.batch\({epoch + 1}\) is more than one epoch's "
                                          rf"{epoch} patches "
                                          rf"\({len(train_pairs)} case\(s\) x samples_per_volume \d+\): lower the "
                                          rf"batch, or raise samples_per_volume$"):
        data.batch(epoch + 1).loader()
    assert not (tmp_path / "cache").exists()


def test_the_pre_flight_advice_speaks_of_from_files_arguments(tiny_dataset, tmp_path):
    """The checks' remedies named a labels argument from_files refuses and a dataset description a
    Python user never wrote (sixty-seventh session)."""
    train_pairs, val_pairs = _pairs(tiny_dataset)  # labels holding 0, 1 and 2
    settings = dict(block_shape=16, validation_pairs=[], num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=r"label values \[2\] are not declared \(declared: 0..1, n_classes=2\); fix "
                                        r"the label file, or declare the missing classes in Dataset.from_files' "
                                        r"n_classes \(the classes are the values 0..n_classes-1\), or its "
                                        r"label_values"):
        Dataset.from_files(train_pairs, n_classes=2, **settings).loader()
    missing = tmp_path / "missing.nii.gz"
    with pytest.raises(DataError, match=f"{missing}: file not found; check the path where the dataset lists it "
                                        r"\(dataset.json, CSV, nnU-Net folder or the pairs given in Python\)"):
        Dataset.from_files([*train_pairs, (str(missing), val_pairs[0][1])], n_classes=3, **settings).loader()
    assert not (tmp_path / "cache").exists()


def test_model_args_monai_refuses_are_named_as_the_estimator_takes_them(tiny_dataset, tmp_path):
    """As its keyword's dict is indexed, not as training's model.args.channels reworded (model_args.channels);
    "these model_args" until the ninety-third session."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    model = Segmentation("unet", model_args={"channels": [4, 8, 16, 32], "strides": [2, 2]},
                         output_dir=str(tmp_path / "run"), val_every=0, trackers="none")
    with pytest.raises(ConfigError, match=r"^fit: model 'unet': MONAI's UNet refuses model_args\['channels'\] "
                                          r"\[4, 8, 16, 32\] with model_args\['strides'\] \[2, 2\], and builds no "
                                          r"network of them: .*Change model_args\['channels'\] or "
                                          r"model_args\['strides'\]$"):
        model.fit(data, steps=1)
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache").exists()


def test_model_args_monai_refuses_are_named_as_dataset_fits_config_has_them(tiny_dataset, tmp_path):
    """Dataset.fit's network is its config's model.args: it was told model_args['channels'], the estimator's
    keyword, when both fits' early checks were merged (ninety-third session's review)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    cfg = data.config(max_steps=1, val_every=0, output_dir=str(tmp_path / "run"), trackers="none")
    cfg.model.args = {"channels": [4, 8, 16, 32], "strides": [2, 2]}
    with pytest.raises(ConfigError, match=r"^Dataset.fit: model 'unet': MONAI's UNet refuses model.args.channels "
                                          r"\[4, 8, 16, 32\] with model.args.strides \[2, 2\], .*Change "
                                          r"model.args.channels or model.args.strides$"):
        data.fit(cfg)
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache").exists()


def test_a_block_shape_too_small_for_the_network_is_refused_in_the_estimators_words(tiny_dataset, tmp_path):
    """It was refused as data.patch_size and model.args, after the strategy lines, with an empty
    parent of output_dir left behind (sixty-ninth session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    out = tmp_path / "runs" / "unet"
    with pytest.raises(ConfigError, match=r"^fit: model 'unet' cannot train on block_shape \(16, 16, 16\) with these "
                                          r"model_args: .*Raise block_shape, or give model_args fewer down-sampling"):
        Segmentation("unet", output_dir=str(out), val_every=0, trackers="none").fit(data, steps=1)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "cache").exists()  # refused before any work
    # the builder's own fit too: it said data.patch_size and model.args (seventy-second session's probe), and then
    # "fit:" and the estimator's model_args, where its network is the config's model.args (until the ninety-third)
    with pytest.raises(ConfigError, match=r"^Dataset\.fit: model 'unet' cannot train on block_shape \(16, 16, 16\) "
                                          r"with these model\.args: .*Raise block_shape, or give model\.args fewer "
                                          r"down-sampling"):
        data.fit(output_dir=str(out), max_steps=1, val_every=0, trackers="none")
    assert not (tmp_path / "runs").exists() and not (tmp_path / "cache").exists()
    # a loaded model's fit too: its fine-tuning check said "data.patch_size (16, 16, 3) must be divisible ..."
    # (an audit of the README's Python API, ninety-first session)
    from test_inference import export

    loaded = Segmentation.load(export(tmp_path / "saved", spacing=None), output_dir=str(out), val_every=0)
    flat = Dataset.from_files(train_pairs, block_shape=(16, 16, 3), n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    with pytest.raises(ConfigError, match=r"^fit: block_shape \(16, 16, 3\) must be divisible by \(4, 4, 4\) for "
                                          r"model 'unet'"):
        loaded.fit(flat, steps=1)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "cache").exists()


def test_nobrainers_shuffle_and_repeat_say_what_takes_their_place(tiny_dataset):
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[])
    with pytest.raises(ConfigError, match=r"Dataset.shuffle: the loader already draws .* every epoch, seeded by the "
                                          r"training setting seed .*; leave shuffle\(\) out"):
        data.shuffle(10)
    with pytest.raises(ConfigError, match=r"Dataset.repeat: fit\(epochs=N\) or fit\(steps=N\) sets how long"):
        data.repeat()


def test_the_package_gives_the_estimator_by_name_without_importing_torch_before_its_use():
    """``from accelerated_seg import Dataset, Segmentation``, as nobrainer's users write it; ``import
    accelerated_seg``, every command's first step, still imports neither torch nor MONAI."""
    import subprocess
    import sys

    import accelerated_seg
    import accelerated_seg.estimator as estimator
    import accelerated_seg.estimator_dataset as estimator_dataset
    from accelerated_seg import Dataset, Segmentation

    assert Segmentation is accelerated_seg.Segmentation is estimator.Segmentation
    # Dataset lives in estimator_dataset; estimator's import of it is the name its older users import
    assert Dataset is accelerated_seg.Dataset is estimator_dataset.Dataset is estimator.Dataset
    assert {"Dataset", "Segmentation"} <= set(dir(accelerated_seg))
    with pytest.raises(AttributeError, match="module 'accelerated_seg' has no attribute 'Segmentaton'"):
        accelerated_seg.Segmentaton
    probe = ("import sys, accelerated_seg; "
             "print(sorted(m for m in ('torch', 'monai', 'accelerate') if m in sys.modules), "
             "'Segmentation' in dir(accelerated_seg))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.split() == ["[]", "True"], result.stderr[-2000:]
    # the Dataset alone is taken from its own module, not through Segmentation's
    probe = ("import sys; from accelerated_seg import Dataset; "
             "print(Dataset.__module__, 'accelerated_seg.estimator' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    its_own_module_alone = ["accelerated_seg.estimator_dataset", "False"]
    assert result.returncode == 0 and result.stdout.split() == its_own_module_alone, result.stderr[-2000:]


def test_a_preempted_fit_says_so_when_asked_to_predict_and_resumes(tiny_dataset, tmp_path, monkeypatch, capsys):
    """A preempted fit exports no model: predict then failed on a model/ that was not there (seventy-third
    session's review). The stop itself said `Run the same command with --train.resume=latest` until the
    ninety-second session."""
    import signal

    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=0, save_every=0, trackers="none",
                         progress_bar=False)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGUSR1)))
        model.fit(data, steps=4)
    assert model.summary["preempted"] and model.summary["step"] == 2 and model.model_dir is None
    assert (f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 2 and the training state is "
            f"saved in {tmp_path / 'run' / 'checkpoints' / 'step_2'}: call fit(..., resume='latest') again to "
            f"continue, or make a model of it with accelerated-seg export {tmp_path / 'run'} --output "
            f"<new folder>.") in capsys.readouterr().out
    checkpoint = tmp_path / "run" / "checkpoints" / "step_2"
    # the checkpoint and both ways on, as after Ctrl-C: only the resume, in the run's folder, until the hundredth
    # session
    resume = f"its newest whole checkpoint is {checkpoint}: call fit(..., resume='latest') again to continue from it"
    assert repr(model).endswith(f"(stopped by a signal); no model exported yet: {resume}>")
    with pytest.raises(RuntimeError) as refused:
        model.predict(str(train_pairs[0][0]))
    assert str(refused.value) == (
        f"predict: this Segmentation has no trained model: a fit preempted (SIGTERM/SIGUSR1) after step 2 of 4 in "
        f"{tmp_path / 'run'}; {resume}; or, for a model of that checkpoint's weights as they are, "
        f"export_checkpoint({str(checkpoint)!r}, <folder>) (accelerated_seg.checkpoint_export), then "
        f"Segmentation.load(<folder>)")
    model.fit(data, steps=4, resume="latest")
    assert model.summary["step"] == 4 and model.model_dir == tmp_path / "run" / "model"


def test_a_preempted_fit_that_exported_a_best_model_predicts_with_it_and_says_where_a_resume_continues(
        tiny_dataset, tmp_path, monkeypatch):
    """A validation's best_model, exported before the signal, is what a preempted fit predicts with, as it should;
    its repr named that model but neither the run's newest checkpoint nor the resume, which it names where no model
    was exported (until the hundred-and-first session)."""
    import nibabel as nib
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, val_every=1)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGUSR1)))
        model.fit(data, steps=4)
    run, summary = tmp_path / "run", model.summary
    assert summary["preempted"] and summary["step"] == 2 and model.model_dir == run / "best_model"
    resume = (f"the run's newest whole checkpoint is {run / 'checkpoints' / 'step_2'}: call fit(..., "
              f"resume='latest') again to continue from it")
    assert repr(model).endswith(f"(stopped by a signal), best validation mean Dice {summary['best_dice']:.4f} at "
                                f"step {summary['best_step']}; predicts with {run / 'best_model'}; {resume}>")
    scan = _pairs(tiny_dataset)[0][0][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the best_model is the model asked for: nothing to warn of
        assert model.predict(scan).shape == nib.load(scan).shape
        assert model.save(tmp_path / "saved") == tmp_path / "saved"
    assert Segmentation.load(tmp_path / "saved").predict(scan).shape == nib.load(scan).shape
    with pytest.warns(UserWarning, match=r"^evaluate: scoring the Dataset's \d validation case\(s\) alone"):
        assert model.evaluate(data)["num_cases"] >= 1
    # Its checkpoints deleted since: "its checkpoints" read as the best_model's, which repr offered to load to predict
    # with, the model it predicts with already (the hundred-and-second session's review)
    shutil.rmtree(run / "checkpoints")
    assert repr(model).endswith(
        f"; predicts with {run / 'best_model'}; the run's checkpoints are no longer there (the newest as it stopped "
        f"was {run / 'checkpoints' / 'step_2'}: deleted since, or replaced by a later fit there), so a new fit starts "
        f"over>")


def test_an_estimator_fit_resuming_a_checkpoint_gone_while_it_is_loaded_is_told_in_its_own_words(tiny_dataset,
                                                                                                  tmp_path,
                                                                                                  monkeypatch):
    """The estimator trains through train, whose refusal of a checkpoint rotated away (keep_last) by the run
    still training into it, once found, named train.resume and train.keep_last (and, before the ninety-second
    session, was a FileNotFoundError traceback of its optimizer.bin)."""
    import accelerate.checkpointing

    from faults import folder_removed_at

    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)

    def estimator(folder):
        return Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                            output_dir=str(tmp_path / folder), val_every=0, save_every=1, keep_last=2,
                            trackers="none", progress_bar=False)

    estimator("other").fit(data, steps=2)
    rotating = tmp_path / "other" / "checkpoints" / "step_1"
    folder_removed_at(monkeypatch, accelerate.checkpointing, "load_model", rotating)
    with pytest.raises(ConfigError) as refused:
        estimator("run").fit(data, steps=3, resume=str(rotating))
    assert str(refused.value) == (
        f"resume={str(rotating)!r} was removed after the resume found it ({rotating.parent} holds step_2; a run "
        f"still training there removes older checkpoints as it saves, keeping the newest keep_last): give one of "
        f"them, or 'latest'")
    assert not (tmp_path / "run").exists()


def test_an_estimator_whose_model_another_fit_replaced_refuses_to_predict_with_it(tiny_dataset, tmp_path, monkeypatch):
    """Every predict reads the model from model_dir: after another estimator's fit into the same output_dir
    (overwrite=True), the first predicted with the second's model without a word (seventy-eighth session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    settings = dict(model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                    output_dir=str(tmp_path / "run"), val_every=0, save_every=0, trackers="none", progress_bar=False)
    first = Segmentation("unet", **settings).fit(data, steps=1)
    scan = str(train_pairs[0][0])
    first.predict(scan)
    second = Segmentation("unet", **settings, seed=7).fit(data, steps=1, overwrite=True)
    assert second.model_dir == first.model_dir
    with pytest.raises(RuntimeError, match=rf"^predict: {re.escape(str(first.model_dir))} no longer holds the model "
                                           rf"this Segmentation trained in .*run: it was replaced or removed since"):
        first.predict(scan)
    second.predict(scan)
    # what does not replace the files is no refusal: a chmod, a backup's hard link (a review)
    (second.model_dir / "model.safetensors").chmod(0o600)
    os.link(second.model_dir / "config.json", tmp_path / "backup_config.json")
    second.predict(scan)
    # a relative path names the folder it named at load, whatever the working folder is later
    second.save(tmp_path / "saved")
    with monkeypatch.context() as patched:
        patched.chdir(tmp_path)
        relative = Segmentation.load("saved")
        patched.chdir(tmp_path / "cache")
        relative.predict(scan)
    loaded = Segmentation.load(second.model_dir)
    shutil.rmtree(tmp_path / "run")
    with pytest.raises(RuntimeError, match=r"no longer holds the model this Segmentation loaded from it: .*"
                                           r"Segmentation\.load\("):
        loaded.predict(scan)


def test_predicts_library_deprecation_notes_stay_where_they_were_raised(monkeypatch, tmp_path):
    """Re-raised at the caller's line, a library's DeprecationWarning recorded under predict's
    simplefilter("always") showed there, where Python's default filter shows them (a review)."""
    import warnings

    import accelerated_seg.inference as inference
    from test_inference import export

    real = inference.predict_file

    def noting(*args, **kwargs):
        warnings.warn_explicit("an old argument", DeprecationWarning, "/site-packages/somelib.py", 7)
        return real(*args, **kwargs)

    monkeypatch.setattr(inference, "predict_file", noting)
    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model.predict(np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32))
    (noted,) = [w for w in seen if w.category is DeprecationWarning]
    assert (noted.filename, noted.lineno) == ("/site-packages/somelib.py", 7)


def test_a_loop_of_predicts_says_each_warning_of_its_inputs_once_as_python_does(tmp_path):
    """Segmentation.predict in a loop, under Python's default filter, says once that the paths' dataset.json names
    the model's channels otherwise, and once that a case (its paths, its images) has no orientation: predict's record
    of what predict_file says (catch_warnings(record=True), simplefilter("always")) changed the warning filters three
    times a call, each change resetting what Python keeps of the lines that said a warning, so each was said again
    at every call (until the hundred-and-twenty-fifth session)."""
    import nibabel as nib

    from test_inference import _dataset_named_otherwise, export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2))
    folder = _dataset_named_otherwise(tmp_path, "abc", bare="a")
    images = [nib.load(folder / f"a_{channel:04d}.nii.gz") for channel in range(2)]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # Python's own for these; the filters change here, before the loop alone
        for _ in range(2):
            for case in "abc":
                model.predict([str(folder / f"{case}_0000.nii.gz"), str(folder / f"{case}_0001.nii.gz")])
            model.predict(images)  # in temporary files: their warnings said in the caller's words
    said = [str(warning.message) for warning in seen]
    assert [message.split(", as ")[0] for message in said if "channels otherwise" in message] == ["predict: x"], said
    assert [message.split(": its header")[0] for message in said if "gives no orientation" in message] == [
        f"predict: {folder / 'a_0000.nii.gz'}", "predict: image 0 of the list"], said
    with warnings.catch_warnings():  # the caller's filters judge them as said again: an "error" raised at the call,
        warnings.simplefilter("error")  # in the caller's words (not at predict_file's, naming its temporary file)
        filters = list(warnings.filters)
        with pytest.raises(UserWarning, match=r"^predict: image 0 of the list: its header gives no orientation"):
            model.predict(images)
        assert warnings.filters == filters  # predict's own record of them taken out


def test_a_loop_of_evaluates_says_each_warning_of_its_cases_once_as_python_does(tmp_path):
    """Segmentation.evaluate in a loop, under Python's default filter, says once that a validation case has no
    orientation: its record of what predict's and the scoring's code says (catch_warnings(record=True),
    simplefilter("always")) and binary_metrics' silence of a MONAI FutureWarning (a catch_warnings a case) changed
    the warning filters six times a call, each change resetting what Python keeps of the lines that said a warning,
    so it was said again at every call (until r118's review: own_warnings.recorded and quieted)."""
    import nibabel as nib

    from test_inference import export, save_without_orientation

    model = Segmentation.load(export(tmp_path / "model"))
    data = tmp_path / "data"  # apart from the outputs
    data.mkdir()
    oriented, bare, label = data / "oriented.nii.gz", data / "bare.nii.gz", data / "bare_label.nii.gz"
    nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])), oriented)
    save_without_orientation(oriented, bare)
    labels = np.zeros((16, 16, 16), np.uint8)
    labels[4:12, 4:12, 4:12] = 1
    nib.save(nib.Nifti1Image(labels, nib.load(bare).affine, nib.load(bare).header), label)
    nib.save(nib.Nifti1Image(labels, np.diag([2.5, 2.5, 2.5, 1])), data / "oriented_label.nii.gz")
    dataset = Dataset.from_files([(str(oriented), str(data / "oriented_label.nii.gz"))], block_shape=16,
                                 n_classes=3,
                                 validation_pairs=[(str(bare), str(label))], cache_dir=str(tmp_path / "cache"))
    with warnings.catch_warnings():  # the first call's imports change the filters: before the loop
        warnings.simplefilter("ignore")
        model.evaluate(dataset, output_dir=tmp_path / "first")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for index in range(3):
            model.evaluate(dataset, output_dir=tmp_path / f"evaluation{index}")
    said = [str(warning.message) for warning in seen]
    assert len([message for message in said if "gives no orientation" in message]) == 1, said


def test_predicts_of_two_threads_overlapping_each_record_their_own_and_leave_the_callers_hook():
    """Two threads' predicts overlapping (A in, B in, A out, B out, as a thread pool's may): each records the
    warnings of its own thread, and after both the caller's ``warnings.showwarning`` is back and a warning is
    said. Each record put its own hook in and took it out: B's put A's back for good, and every later warning of the
    process went into A's list, said nowhere (r118's review of the hundred-and-twenty-fifth session). An interrupt
    inside, and a caller's entry equal to the record's own ("always"), leave the filters and the hook as they were."""
    import threading

    from accelerated_seg.own_warnings import recorded

    shown, records = [], {}
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def a():
        with recorded() as raised:
            a_in.set()
            b_in.wait(10)
            warnings.warn("of A", UserWarning)
        records["a"] = raised
        a_out.set()

    def b():
        a_in.wait(10)
        with recorded() as raised:
            b_in.set()
            a_out.wait(10)
            warnings.warn("of B", UserWarning)
        records["b"] = raised

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        hook = warnings.showwarning = lambda message, *_, **__: shown.append(str(message))
        filters = list(warnings.filters)
        threads = [threading.Thread(target=a), threading.Thread(target=b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert warnings.showwarning is hook and warnings.filters == filters
        warnings.warn("after both", UserWarning)
    assert {name: [str(w.message) for w in raised] for name, raised in records.items()} == {
        "a": ["of A"], "b": ["of B"]}
    assert shown == ["after both"]
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # the caller's, equal to recorded()'s own entry: it stays
        filters, hook = list(warnings.filters), warnings.showwarning
        with pytest.raises(KeyboardInterrupt):
            with recorded() as raised:
                warnings.warn("before the interrupt", UserWarning)
                raise KeyboardInterrupt
        assert warnings.filters == filters and warnings.showwarning is hook
        assert [str(w.message) for w in raised] == ["before the interrupt"]


def test_a_fit_says_how_to_prune_the_cache_by_a_command_that_finds_its_dataset(tiny_dataset, tmp_path, monkeypatch,
                                                                               capsys):
    """The run names the command that removes the dataset's other cached versions. A Dataset's run named
    `cache --config <run>/config.yaml`, whose data.dataset is the default `synthetic`, not the pairs: that
    command found "nothing of it is cached" (and a path relative to where fit ran)."""
    from accelerated_seg.cli import main

    train_pairs, val_pairs = _pairs(tiny_dataset)
    monkeypatch.chdir(tmp_path)
    for spacing, out in (((2.0, 2.0, 2.0), "first"), ((3.0, 3.0, 3.0), "second")):
        data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                                  cache_dir="cache", num_workers=0, spacing=spacing).batch(2)
        cfg = data.config(output_dir=out, max_steps=1, val_every=0, save_every=0, trackers="none", progress_bar=False)
        cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
        data.fit(cfg)
    said = capsys.readouterr().out
    assert "also holds 1 other preprocessed version(s) of this dataset" in said
    command = re.search(r"`accelerated-seg (cache [^`]*)`", said).group(1).split()
    assert "--config" not in command and all(Path(word).is_absolute() for word in command[1:] if "/" in word)
    monkeypatch.chdir(tmp_path / "second")  # named so that it works from any folder
    assert main([word for word in command if word != "--prune"]) == 0
    listed = capsys.readouterr().out
    assert "2 preprocessed version(s) of this dataset" in listed and listed.count("not in use") == 2


def test_a_run_of_cases_given_in_python_in_any_format_says_how_to_prune_by_a_command_that_finds_them(
        tiny_dataset, tmp_path, monkeypatch, capsys):
    """train(cfg, manifest=load_cases("dataset.json")) (or a CSV) is given its cases in Python as a Dataset's
    run is, and its config.yaml names data.dataset's default, synthetic; the hint, decided by the cases'
    format (pairs alone), named `cache --config <run>/config.yaml`, which found "nothing of it is cached"
    (a review's probe)."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import load_config
    from accelerated_seg.train import train
    from conftest import tiny_overrides

    for spacing, out in (("[2.0,2.0,2.0]", "first"), ("[3.0,3.0,3.0]", "second")):
        overrides = tiny_overrides(tiny_dataset, tmp_path / out, data__spacing=spacing, data__cache_dir=tmp_path / "c",
                                   train__max_steps=1, train__val_every=0, train__save_every=0)
        cfg = load_config(None, [o for o in overrides if not o.startswith("--data.dataset=")])  # the default
        train(cfg, manifest=load_cases(tiny_dataset))
    said = capsys.readouterr().out
    assert cfg.data.dataset == "synthetic" and "also holds 1 other preprocessed version(s) of this dataset" in said
    command = re.search(r"`accelerated-seg (cache [^`]*)`", said).group(1).split()
    assert "--config" not in command
    monkeypatch.chdir(tmp_path)
    assert main([word for word in command if word != "--prune"]) == 0
    listed = capsys.readouterr().out
    assert "2 preprocessed version(s) of this dataset" in listed and listed.count("not in use") == 2


@pytest.mark.parametrize("edit, refusal", [
    (lambda model: {**model, "name": "unett"}, r"model.name 'unett' is not known; choose one of: unet, "),
    (lambda model: {**model, "args": {**model["args"], "chanels": [4, 8]}},
     r"model.args.chanels is not an argument of monai.networks.nets.UNet \(did you mean 'channels'\?\)"),
    (lambda model: {**model, "args": "oops"}, r"model.args 'oops' is not a mapping of the network's arguments"),
])
def test_a_saved_models_config_naming_no_network_it_can_build_is_refused_naming_the_file(tmp_path, edit, refusal):
    """A hand edit of config.json's model section was refused as the constructor's ("Segmentation: model 'unett'
    is not known", model_args the user never gave), naming no file, or was Python's AttributeError ('str' object
    has no attribute 'items'), until the ninety-third session (a probe of the estimator's inference side)."""
    from test_inference import export

    saved = export(tmp_path / "model", spacing=None)
    config = json.loads((saved / "config.json").read_text())
    (saved / "config.json").write_text(json.dumps({**config, "model": edit(config["model"])}))
    with pytest.raises(DataError, match=rf"^Segmentation.load: {re.escape(str(saved / 'config.json'))}: {refusal}.*"
                                        r"copy the export's config.json again from the run folder that wrote it"):
        Segmentation.load(saved)


@pytest.mark.parametrize("edit, difference", [
    (lambda model: {**model, "args": {**model["args"], "channels": [8, 16, 32]}},  # edited by hand
     r"model.0.conv.unit0.conv.weight \(4, 1, 3, 3, 3\) in the file, \(8, 1, 3, 3, 3\) as config.json builds it; "
     r".*; 14 more tensors of other shapes\. "),
    (lambda model: {**model, "args": {**model["args"], "num_res_units": 0}},  # fewer layers: names, not shapes
     r"^14 of the network's tensors are not in the file, e.g. model.0.adn.A.weight, model.0.conv.bias, "
     r"model.0.conv.weight; \d+ of the file's tensors are not in the network, e.g. model.0.conv.unit0.adn.A.weight, "),
])
def test_a_saved_model_whose_config_does_not_build_its_weights_network_is_refused_by_load(tmp_path, capsys, edit,
                                                                                         difference):
    """Segmentation.load took it without a word, and predict (and predict --model) then refused with torch's
    size-mismatch message of every tensor, cut at 600 characters, until the ninety-third session."""
    import nibabel as nib

    from accelerated_seg.cli import main
    from test_inference import export

    saved = export(tmp_path / "model", spacing=None)
    config = json.loads((saved / "config.json").read_text())
    (saved / "config.json").write_text(json.dumps({**config, "model": edit(config["model"])}))
    said = (rf"{re.escape(str(saved / 'config.json'))} does not describe the network whose weights "
            rf"{re.escape(str(saved / 'model.safetensors'))} holds: (?s:.*)They are not of one export \(a config.json "
            r"edited by hand, or copied from another\): copy both files again from the same export$")
    with pytest.raises(DataError, match=r"^Segmentation.load: " + said) as refused:
        Segmentation.load(saved)
    assert re.search(difference, str(refused.value).split(" holds: ", 1)[1]), refused.value
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((8, 8, 8), np.float32), np.eye(4)), scan)
    assert main(["predict", "--model", str(saved), str(scan), "--output", str(tmp_path / "out.nii.gz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search("^error: " + said, err[0]), err


@pytest.mark.parametrize("given, folder", [([("image.nii.gz", "label.nii.gz")], False), ("predictions", True)])
def test_evaluate_given_pairs_or_a_folder_says_to_give_a_dataset(tmp_path, given, folder):
    """A list of pairs or a folder, as a notebook has them, was Python's AttributeError ("'list' object has no
    attribute 'manifest'") until the ninety-third session (a probe of the estimator's inference side)."""
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    with pytest.raises(ConfigError, match=r"^evaluate: give a Dataset of the cases to score, e.g. Dataset.from_files"
                                          r"\(\[\], validation_pairs=test_pairs, n_classes=N\) for a test set, got "
                                          + type(given).__name__) as refused:
        model.evaluate(given, output_dir=tmp_path / "evaluation")
    assert ("evaluate_folders" in str(refused.value)) == folder
    assert not (tmp_path / "evaluation").exists()


@pytest.mark.parametrize("where", ["second", "output_path", "output"])
def test_an_output_path_given_to_predict_says_that_it_returns_the_image(tmp_path, where):
    """predict(x, "seg.nii.gz") was told that batch_size must be a whole number, and predict(x, output_path=...)
    that output_path is not an option, neither saying how the label image is written, until the ninety-third
    session (a probe of the estimator's inference side). Nothing is written, the file there kept."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    scan, out = tmp_path / "scan.nii.gz", tmp_path / "seg.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.eye(4)), scan)
    out.write_bytes(b"an earlier segmentation")
    given = f"the path {str(out)!r} is given as batch_size (its second argument)" if where == "second" else \
        f"{where} is not an option"
    with pytest.raises(ConfigError, match=rf"^predict: {re.escape(given)}: predict writes no file, it returns the "
                                          r"label image \(on the input's grid\): write it with nib.save\("
                                          r"model.predict\(x\), path\)"):
        model.predict(scan, out) if where == "second" else model.predict(scan, **{where: str(out)})
    assert out.read_bytes() == b"an earlier segmentation"


@pytest.mark.parametrize("name", ["model.safetensors", "model.h5", "weights.pt"])
def test_save_to_a_file_name_says_a_model_is_saved_as_a_folder(tmp_path, name):
    """save("model.safetensors") (or Keras' "model.h5") made a folder of that name, which other tools then failed
    to open as the file it seemed, until the ninety-third session (a probe of the estimator's inference side)."""
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    stem = name.rsplit(".", 1)[0]
    with pytest.raises(ConfigError, match=rf"^save: {re.escape(str(tmp_path / name))} names a \.\w+ file, but a "
                                          rf"model is saved as a folder .*: give a folder path, e.g. "
                                          rf"{re.escape(str(tmp_path / stem))}$"):
        model.save(tmp_path / name)
    assert not (tmp_path / name).exists()
    (tmp_path / name).mkdir()  # a folder of that name already (an earlier version's save): saved into, as before
    assert Segmentation.load(model.save(tmp_path / name)).predict(np.zeros((16, 16, 16), np.float32)).shape == (
        16, 16, 16)


def test_loading_a_runs_checkpoints_folder_names_its_exports_and_its_newest_checkpoint(tmp_path):
    """Told "checkpoints/config.json is missing" until the ninety-third session (a probe of the estimator's
    inference side); a step_N folder itself and the run's folder were told what to give already."""
    for step in (2, 10):
        (tmp_path / "run" / "checkpoints" / f"step_{step}").mkdir(parents=True)
    folder = re.escape(str(tmp_path / "run" / "checkpoints"))
    with pytest.raises(FileNotFoundError, match=rf"^Segmentation.load: {folder} "
                                                rf"is a training run's checkpoints folder, not an exported model: "
                                                rf"export its newest checkpoint with accelerated-seg export "
                                                rf".*checkpoints/step_10 --output <new folder>$"):
        Segmentation.load(tmp_path / "run" / "checkpoints")
    (tmp_path / "run" / "model").mkdir()
    (tmp_path / "run" / "model" / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"checkpoints folder, not an exported model: give .*run/model, the "
                                                r"run's exports, or export its newest checkpoint"):
        Segmentation.load(tmp_path / "run" / "checkpoints")


def test_an_affine_given_with_a_path_is_refused_not_dropped(tmp_path):
    """predict(path, affine=A) segmented the file on its own grid and dropped A without a word, where
    an image given with one is refused (an audit of the estimator)."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.eye(4)), scan)
    for given in (str(scan), scan, [str(scan)]):
        with pytest.raises(ConfigError, match=r"predict: a file carries its own affine, which predict uses; drop "
                                              r"affine= \(it is for arrays\)"):
            model.predict(given, affine=np.diag([2.0, 2.0, 2.0, 1.0]))
    assert model.predict(scan).shape == (16, 16, 16)  # without it, as before


def test_what_is_no_scan_is_named_as_given_to_predict(tmp_path):
    """A list of arrays of other shapes was numpy's inhomogeneous-shape ValueError; None, a number or a list
    mixing a path and an image was "an array of shape ()" or "(2,)" (an audit of the estimator)."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    volume = np.zeros((16, 16, 16), np.float32)
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(volume, np.eye(4)), scan)
    with pytest.raises(DataError, match=r"^predict: a list of arrays of different shapes \(\(16, 16, 16\), "
                                        r"\(8, 16, 16\)\); give one array per channel"):
        model.predict([volume, volume[:8]])
    for given, named in ((None, "NoneType None"), (5, "int 5"), (b"scan.nii.gz", "bytes b'scan.nii.gz'"),
                         ([str(scan), nib.load(scan)], "list ['")):
        with pytest.raises(DataError, match=rf"^predict: x is {re.escape(named)}.*; give the scan as a path"):
            model.predict(given)
    assert model.predict([volume]).shape == (16, 16, 16)  # one channel's array in a list, as before
    # A (B, C, X, Y, Z) batch, as a loader gives it: what to give said, since the ninety-third session
    with pytest.raises(DataError, match=r"^predict: an array of shape \(1, 1, 16, 16, 16\); give \(X, Y, Z\), or "
                                        r"\(C, X, Y, Z\) with the model's 1 channel\(s\) first \(a batch of 1: give "
                                        r"one case, x\[0\], per call\)$"):
        model.predict(torch.from_numpy(volume)[None, None])
    # A list of paths is one case's channels: said by predict, its channel in words (config.json's dict, bare,
    # until the ninety-first session; "(channel 0 (MRI0))" until the hundred-and-twenty-second), of its x (the
    # ninety-fifth session)
    with pytest.raises(DataError, match=r"^predict: x gives 2 files .* but the model takes one channel \(MRI0\): to "
                                        r"segment them as 2 cases, call predict once per case"):
        model.predict([str(scan), str(scan)])


def test_an_array_of_a_volume_stored_behind_size_1_axes_is_predicted_as_the_volume(tmp_path):
    """get_fdata() of a file stored (x, y, z, 1, 1), which predict reads from its path or image as its (x, y, z)
    volume, was refused as a batch of x cases and told to give x[0], a slice (until the ninety-ninth session)."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    volume = np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32)
    stored = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(volume[..., None, None], np.eye(4)), stored)
    by_path = np.asanyarray(model.predict(str(stored)).dataobj)  # an image, as the path's
    assert by_path.shape == (16, 16, 16) and len(np.unique(by_path)) > 1
    np.testing.assert_array_equal(model.predict(nib.load(stored).get_fdata()), by_path)
    np.testing.assert_array_equal(model.predict(volume), by_path)


def test_channels_given_as_arrays_behind_size_1_axes_are_predicted_as_their_files_are(tmp_path):
    """One array per channel, each get_fdata() of a file stored (x, y, z, 1, 1) or (x, y, z, 1), which predict
    reads from the files as (x, y, z) channels, was refused as a 6D (or 5D, "a batch of 2") array, as were those
    arrays stacked, (C, X, Y, Z, 1, 1), and a list of tensors requiring grad (until the hundredth session)."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2, spacing=None))
    first, second = np.random.default_rng(0).normal(size=(2, 16, 16, 16)).astype(np.float32)
    paths = [tmp_path / f"scan_{c:04d}.nii.gz" for c in range(2)]
    for channel, path in zip((first, second), paths):
        nib.save(nib.Nifti1Image(channel[..., None, None], np.eye(4)), path)
    by_paths = np.asanyarray(model.predict([str(path) for path in paths]).dataobj)
    assert by_paths.shape == (16, 16, 16) and len(np.unique(by_paths)) > 1
    stored = [nib.load(path).get_fdata() for path in paths]
    for given in (stored, [channel[..., 0] for channel in stored], np.stack(stored),
                  [torch.from_numpy(channel).requires_grad_() for channel in stored], [first, second]):
        np.testing.assert_array_equal(model.predict(given), by_paths)
    # (X, Y, Z, 2, 1): not one volume behind size-1 axes, as its file is refused; what to take of it is said
    with pytest.raises(DataError, match=r"^predict: an array of shape \(16, 16, 16, 2, 1\); give \(X, Y, Z\), or "
                                        r"\(C, X, Y, Z\) with the model's 2 channel\(s\) first \(a batch of 16: .*"
                                        r"\(X, Y, Z, C, 1\), x\[\.\.\., 0\]\)$"):
        model.predict(np.stack([first, second], axis=-1)[..., None])


def test_an_array_in_niftis_vector_layout_is_told_what_its_file_is_told(tmp_path):
    """get_fdata() of an (x, y, z, 1, C) file, NIfTI's vector layout, whose path predict refuses with how to store
    it as channels, was refused as "a batch of x: give x[0]", a slice (until the hundredth session). Its fourth
    axis dropped, as said, it is segmented as the channels-last file is."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", in_channels=2, spacing=None))
    channels = np.random.default_rng(0).normal(size=(16, 16, 16, 2)).astype(np.float32)
    vector, last = tmp_path / "vector.nii.gz", tmp_path / "last.nii.gz"
    nib.save(nib.Nifti1Image(channels[:, :, :, None, :], np.eye(4)), vector)
    nib.save(nib.Nifti1Image(channels, np.eye(4)), last)
    said = r"shape \(16, 16, 16, 1, 2\) is NIfTI's vector layout \(x, y, z, 1, 2: 2 values per voxel, .*\); drop its "
    with pytest.raises(DataError, match=rf"vector\.nii\.gz: {said}fourth axis to store them as channels"):
        model.predict(str(vector))
    with pytest.raises(DataError, match=rf"^predict: the array's {said}fourth axis, x\[:, :, :, 0\], to give its 2 "
                                        r"channels as \(X, Y, Z, 2\)$"):
        model.predict(nib.load(vector).get_fdata())
    by_path = np.asanyarray(model.predict(str(last)).dataobj)
    assert len(np.unique(by_path)) > 1
    np.testing.assert_array_equal(model.predict(nib.load(vector).get_fdata()[:, :, :, 0]), by_path)


def test_a_list_of_arrays_in_niftis_vector_layout_is_told_what_its_files_are_told():
    """A list of get_fdata()s of (x, y, z, 1, C) files, one per channel, as a list of their paths is given: stacked,
    it was refused as "an array of shape (2, 16, 16, 16, 1, 2); give (X, Y, Z), or (C, X, Y, Z)" until the
    hundredth session, where the paths are told of the vector layout."""
    from accelerated_seg.estimator_arrays import checked_channels

    vector = np.zeros((16, 16, 16, 1, 2), np.float32)
    with pytest.raises(DataError, match=r"^predict: the list's array 0: shape \(16, 16, 16, 1, 2\) is NIfTI's vector "
                                        r"layout .*; drop its fourth axis, x\[0\]\[:, :, :, 0\], and give its 2 "
                                        r"channels as one \(X, Y, Z, 2\) array, not in a list, or one \(X, Y, Z\) "
                                        r"array per channel$"):
        checked_channels([vector, vector], in_channels=2)
    assert checked_channels([vector[:, :, :, 0, 0], vector[:, :, :, 0, 1]], in_channels=2).shape == (2, 16, 16, 16)


def test_a_batch_of_volumes_one_voxel_thick_is_told_it_is_a_batch_not_the_vector_layout():
    """A (B, C, X, 1, Z) batch whose second axis is the model's channels was told, once predict knew the vector
    layout, that it held Z values per voxel and to drop its fourth axis (a review in the hundredth session): it is
    told it is a batch, as before; a vector layout of the model's channels is still told its own advice."""
    from accelerated_seg.estimator_arrays import checked_channels

    with pytest.raises(DataError, match=r"^predict: an array of shape \(2, 1, 16, 1, 16\); .*a batch of 2: give one "
                                        r"case, x\[0\], per call"):
        checked_channels(np.zeros((2, 1, 16, 1, 16), np.float32), in_channels=1)
    with pytest.raises(DataError, match=r"^predict: the array's shape \(16, 16, 16, 1, 2\) is NIfTI's vector layout"):
        checked_channels(np.zeros((16, 16, 16, 1, 2), np.float32), in_channels=2)


def _fits_started(monkeypatch) -> list:
    """Each fit's train.init_from, in place of the training itself."""
    import accelerated_seg.train as training

    started = []
    monkeypatch.setattr(training, "train", lambda cfg, manifest, **_: started.append(cfg.train.init_from) or {"step": 1})
    return started


def test_an_export_whose_config_json_has_a_byte_order_mark_is_taken_for_one_by_save_and_fit(tiny_dataset, tmp_path,
                                                                                             monkeypatch):
    """Segmentation.load and predict read an export's config.json saved as "UTF-8 with BOM" (hand_edited.py), but
    save and fit recognised one by files.is_json_object_with, which read strict UTF-8 (review of h120): save
    refused to replace such a model as "not an exported model's", and fit wrote its run beside it."""
    from test_inference import export

    def with_a_mark(folder):
        config = folder / "config.json"
        config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())
        return folder

    loaded = Segmentation.load(export(tmp_path / "model"), val_every=0, trackers="none", progress_bar=False)
    earlier = with_a_mark(export(tmp_path / "earlier", seed=1))
    assert loaded.save(earlier) == earlier  # replaced, as a model saved there without the mark is
    assert (earlier / "config.json").read_bytes() == (tmp_path / "model" / "config.json").read_bytes()
    saved = with_a_mark(export(tmp_path / "saved"))
    started = _fits_started(monkeypatch)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    with pytest.raises(ConfigError, match=r"^fit: output_dir .*saved holds a saved model \(config.json, "):
        loaded.fit(data, steps=1, output_dir=str(saved))
    assert started == [] and sorted(p.name for p in saved.iterdir()) == ["config.json", "model.safetensors"]


def test_a_fits_repr_names_the_weights_it_started_from(tiny_dataset, tmp_path, monkeypatch):
    """A loaded estimator's repr said "from" the folder it loaded after fit(init_from=None), which trains a new
    network, and after another init_from (an audit of the README's Python API, ninety-first session)."""
    from test_inference import TINY_UNET, export

    saved, other = export(tmp_path / "saved", spacing=None), export(tmp_path / "other", spacing=None, seed=1)
    started = _fits_started(monkeypatch)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    loaded = Segmentation.load(saved, output_dir=str(tmp_path / "run"))
    loaded.fit(data, steps=1)
    assert started[-1] == str(saved)
    assert repr(loaded).endswith(f"trained 1 step in {tmp_path / 'run'}, from {saved}; no model exported yet>")
    loaded.fit(data, steps=1, init_from=None)
    assert started[-1] is None
    assert repr(loaded).endswith(f"trained 1 step in {tmp_path / 'run'}; no model exported yet>")
    loaded.fit(data, steps=1, init_from=str(other))
    assert repr(loaded).endswith(f"trained 1 step in {tmp_path / 'run'}, from {other}; no model exported yet>")
    # a new network's fit from an export says it too
    constructed = Segmentation("unet", model_args=TINY_UNET, output_dir=str(tmp_path / "new"))
    constructed.fit(data, steps=1, init_from=str(other))
    assert repr(constructed).endswith(f"trained 1 step in {tmp_path / 'new'}, from {other}; no model exported yet>")


def test_a_model_loaded_by_a_relative_path_is_trained_on_after_a_change_of_folder(tiny_dataset, tmp_path,
                                                                                  monkeypatch):
    """Segmentation.load("saved") kept the relative path for fit, which predict held as an absolute one:
    after os.chdir (a notebook's %cd) predict still used the model and fit failed on "saved/config.json
    is missing", or started from another folder of that name (an audit of the estimator)."""
    from test_inference import export

    export(tmp_path / "saved", spacing=None)
    monkeypatch.chdir(tmp_path)
    loaded = Segmentation.load("saved", output_dir=str(tmp_path / "run"), val_every=0, trackers="none",
                               progress_bar=False)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    started = _fits_started(monkeypatch)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    loaded.fit(data, steps=1)
    assert started == [str(tmp_path / "saved")]
    assert repr(loaded).endswith(f", from {tmp_path / 'saved'}; no model exported yet>")


def test_a_loaded_model_replaced_since_is_not_trained_on(tiny_dataset, tmp_path, monkeypatch):
    """Another model saved over the loaded folder was fine-tuned without a word, where predict refuses it
    (an audit of the estimator); a folder removed since failed in the command line's words."""
    from test_inference import export

    loaded = Segmentation.load(export(tmp_path / "saved", spacing=None), output_dir=str(tmp_path / "run"),
                               val_every=0, trackers="none", progress_bar=False)
    Segmentation.load(export(tmp_path / "other", spacing=None, seed=1)).save(tmp_path / "saved")
    started = _fits_started(monkeypatch)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    for since in ("replaced", "removed"):
        if since == "removed":
            shutil.rmtree(tmp_path / "saved")
        with pytest.raises(RuntimeError, match=rf"^fit: {re.escape(str(tmp_path / 'saved'))} no longer holds the "
                                               rf"model this Segmentation loaded from it: .*Segmentation.load\("):
            loaded.fit(data, steps=1)
    assert started == [] and not (tmp_path / "run").exists()
    loaded.fit(data, steps=1, init_from=None)  # a new network of its design needs none of it
    assert started == [None]
    # Its own model saved over the folder it loaded (fine-tuned, then saved in place) is no other's: trained on
    tuned = Segmentation.load(export(tmp_path / "saved", spacing=None), output_dir=str(tmp_path / "tuned"),
                              val_every=0, trackers="none", progress_bar=False)
    tuned._take_model(export(tmp_path / "tuned_model", spacing=None, seed=2))  # as a fit leaves it
    tuned.save(tmp_path / "saved")
    tuned.fit(data, steps=1)
    assert started == [None, str(tmp_path / "saved")]


def test_a_learning_rate_given_as_text_is_read_as_a_yaml_file_reads_it(tiny_dataset, tmp_path, monkeypatch):
    """Segmentation(lr="1e-3") was accepted, as config.yaml's 1e-3 is, and fit then failed on Python's
    TypeError "can't multiply sequence by non-int of type 'float'" in the batch plan; fit(lr="fast") the
    same, where the constructor names the setting (an audit of the estimator)."""
    import accelerated_seg.train as training

    trained = []
    monkeypatch.setattr(training, "train", lambda cfg, manifest, **_: trained.append(cfg.optim.lr) or {"step": 1})
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=32, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    quiet = dict(val_every=0, trackers="none", progress_bar=False)
    Segmentation("unet", output_dir=str(tmp_path / "run"), lr="1e-3", **quiet).fit(data, epochs=1)
    Segmentation("unet", output_dir=str(tmp_path / "run2"), **quiet).fit(data, steps=1, lr="2e-3")
    data.fit(lr="3e-3", max_steps=1, output_dir=str(tmp_path / "run3"), **quiet)
    assert trained == [1e-3, 2e-3, 3e-3]
    with pytest.raises(ConfigError, match=r"^fit: lr must be float, got 'fast'"):
        Segmentation("unet", output_dir=str(tmp_path / "run4"), **quiet).fit(data, steps=1, lr="fast")
    with pytest.raises(ConfigError, match=r"^Dataset.fit: lr must be float, got 'fast'"):
        data.fit(lr="fast", max_steps=1, output_dir=str(tmp_path / "run5"), **quiet)


def test_save_leaves_a_training_runs_own_exports_alone(tmp_path):
    """save(run/"model") replaced the export of a training run, whose summary, metrics and checkpoints
    then described another model, without a word (an audit of the estimator)."""
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "other", spacing=None, seed=1))
    for export_name in ("model", "best_model"):
        run = tmp_path / f"run_{export_name}"
        export(run / export_name, spacing=None)
        (run / "run_info.json").write_text("{}")  # what every training run writes at its start
        before = (run / export_name / "model.safetensors").read_bytes()
        with pytest.raises(ConfigError, match=rf"^save: .*{export_name} is the {export_name} exported by the "
                                              rf"training run in .*{run.name}, whose summary"):
            model.save(run / export_name)
        assert (run / export_name / "model.safetensors").read_bytes() == before
    # a folder named model elsewhere is anyone's: saved into
    assert Segmentation.load(model.save(tmp_path / "mine" / "model")).model_dir == tmp_path / "mine" / "model"


def test_the_builders_loader_takes_a_numpy_seed_and_worker_count(tiny_dataset, tmp_path):
    """loader(seed=np.random.randint(...)) was refused as "must be a whole number", where block_shape
    and batch take NumPy integers (an audit of the estimator)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache")).batch(np.int64(2))
    batches = [[batch["image"] for batch in data.loader(seed=seed, num_workers=workers)]
               for seed, workers in ((np.int64(3), np.int64(0)), (3, 0))]
    assert len(batches[0]) == len(batches[1]) > 0
    for numpy_given, plain in zip(*batches):
        torch.testing.assert_close(numpy_given, plain)  # the same patches as the plain int's
    with pytest.raises(ConfigError, match=r"Dataset.loader: seed must be a whole number >= 0 and < 2\*\*32"):
        data.loader(seed=np.int64(-1))


def test_a_fit_into_a_saved_models_folder_is_refused(tiny_dataset, tmp_path, monkeypatch):
    """Segmentation.load("saved").fit(data, output_dir="saved") wrote its run beside the saved model, and
    a later Segmentation.load("saved") loaded the model from before the fit, unsaid (an audit of the
    estimator)."""
    from test_inference import export

    loaded = Segmentation.load(export(tmp_path / "saved", spacing=None), val_every=0, trackers="none",
                               progress_bar=False)
    started = _fits_started(monkeypatch)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    with pytest.raises(ConfigError, match=r"^fit: output_dir .*saved holds a saved model \(config.json, "
                                          r"model.safetensors\), and a run written beside it"):
        loaded.fit(data, steps=1, output_dir=str(tmp_path / "saved"))
    assert started == [] and sorted(p.name for p in (tmp_path / "saved").iterdir()) == ["config.json",
                                                                                         "model.safetensors"]
    loaded.fit(data, steps=1, output_dir=str(tmp_path / "saved" / "run"))  # a folder of its own
    assert started == [str(tmp_path / "saved")]


def test_keras_fit_arguments_are_pointed_to_this_apis_names(tiny_dataset, tmp_path):
    """Keras' fit(validation_data=...) and verbose=, initial_epoch=, and train.fit's checkpoint_dir= were
    each answered with the fifty setting names alone (an audit of the estimator)."""
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"))
    model = Segmentation("unet", output_dir=str(tmp_path / "run"))
    with pytest.raises(ConfigError, match=r"^fit: a second Dataset to validate on \(nobrainer's dataset_validate\) "
                                          r"is not taken: nor Keras' validation_data; .*validation_pairs="):
        model.fit(data, epochs=1, validation_data=data)
    for keras, ours in (("verbose", "progress_bar"), ("initial_epoch", "resume"), ("checkpoint_dir", "output_dir")):
        with pytest.raises(ConfigError, match=rf"^fit: {keras} is not a training or optimizer setting \(did you mean "
                                              rf"'{ours}'\?\)"):
            model.fit(data, epochs=1, **{keras: 0})
    assert not (tmp_path / "run").exists()


def test_a_run_in_a_relative_output_dir_is_evaluated_beside_it_after_a_change_of_folder(tiny_dataset, tmp_path,
                                                                                       monkeypatch):
    """fit into output_dir="run" kept run_dir relative, where model_dir is absolute: after os.chdir (a
    notebook's %cd) evaluate() wrote its default evaluation/ under the new folder, away from the run whose
    model it scored (an audit of the estimator)."""
    import accelerated_seg.train as training
    from test_inference import export

    def trains(cfg, manifest, **_):  # the export a run leaves, in place of the training
        export(Path(cfg.train.output_dir) / "model", spacing=None)
        return {"step": 1}

    monkeypatch.setattr(training, "train", trains)
    monkeypatch.chdir(tmp_path)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir="run", val_every=0).fit(data, steps=1)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    model.evaluate(data)
    assert (tmp_path / "run" / "evaluation" / "summary.json").is_file()
    assert not (tmp_path / "elsewhere" / "run").exists()
    assert repr(model).endswith(f"trained 1 step in {tmp_path / 'run'}; predicts with {tmp_path / 'run' / 'model'}>")


def test_evaluates_refusals_of_its_output_dir_name_output_dir_not_the_command_lines_flag(tiny_dataset, tmp_path):
    """Segmentation.evaluate(output_dir=...) refused a file, a folder it cannot make, one holding a folder
    named metrics.csv or another program's summary.json as "--output <folder> ...", the flag of
    `accelerated-seg evaluate`, which a Python user never gave (a report)."""
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs[:1],
                              spacing=(2.0, 2.0, 2.0))
    (tmp_path / "taken").write_text("a file of the user's")
    (tmp_path / "run" / "metrics.csv").mkdir(parents=True)
    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / "summary.json").write_text('{"step": 1}')
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "run_info.json").write_text('{"strategy": "single process"}')
    for output_dir, said in ((tmp_path / "taken", " is a file, not a folder"),
                             (tmp_path / "training", r" is a training run's folder \(it holds run_info.json\)"),
                             (tmp_path / "taken" / "sub", ": .*taken is a file, so the folder cannot be made there"),
                             (tmp_path / "run", " holds a folder named metrics.csv"),
                             (tmp_path / "trained", " holds summary.json that evaluate did not write")):
        with pytest.raises(DataError, match=rf"^evaluate: output_dir {re.escape(str(output_dir))}{said}") as refused:
            model.evaluate(data, output_dir=output_dir)
        assert "--output" not in str(refused.value)
    assert (tmp_path / "taken").read_text() == "a file of the user's"
    assert (tmp_path / "trained" / "summary.json").read_text() == '{"step": 1}'


def test_a_fit_refused_by_the_data_check_leaves_nothing_in_the_working_folder(tiny_dataset, tmp_path, monkeypatch):
    """Segmentation().fit(data) with label values the Dataset does not declare left runs/, the parent of its
    default output_dir runs/segmentation, empty in the working folder (an audit of the estimator)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=2, cache_dir=str(tmp_path / "cache"),
                              num_workers=0).batch(2)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    model = Segmentation(model_args={"channels": [4, 8, 16], "strides": [2, 2]}, val_every=0, trackers="none",
                         progress_bar=False)
    with pytest.raises(DataError, match=r"label values \[2\] are not declared"):
        model.fit(data, steps=1)
    assert list((tmp_path / "work").iterdir()) == []


def test_a_predict_or_evaluate_option_refused_is_said_by_the_method_called(tiny_dataset, tmp_path):
    """overlap=2 was a bare "ValueError: overlap must be in [0, 1), got 2", as were tta, precision, device and
    transforms_on_device, and keep_largest named no method, where every other refusal of predict and evaluate
    names it (an audit of the estimator). All before any file is written."""
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.eye(4)), scan)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=16, n_classes=3, validation_pairs=val_pairs)
    refused = {"overlap": (2, r"overlap must be in \[0, 1\), got 2"),
               "tta": ("bogus", "tta 'bogus' is not known; choose one of: none, axes, all"),
               "precision": ("fp64", "precision 'fp64' is not known; choose one of: fp32, bf16, fp16"),
               "transforms_on_device": ("no", "transforms_on_device must be True or False, got 'no'"),
               "aggregate_on_cpu": ("no", r"aggregate_on_cpu must be True, False or None \(decided per case\)"),
               "device": ("bogus", "device 'bogus' is not a device name torch knows"),
               "keep_largest": ([7], "keep_largest: 7 is not a foreground label of the model")}
    if not torch.cuda.is_available():
        refused["device "] = ("cuda", r"device 'cuda': this machine has 0 CUDA GPU\(s\) visible")
        refused["precision "] = ("fp16", r"precision fp16 needs a CUDA GPU, but inference runs on cpu; use "
                                         r"--precision bf16 \(precision=\"bf16\" in Python\) or fp32 on the CPU")
    for method, call in (("predict", lambda **option: model.predict(str(scan), **option)),
                         ("predict", lambda **option: model.predict(np.zeros((16, 16, 16), np.float32), **option)),
                         ("evaluate", lambda **option: model.evaluate(data, output_dir=tmp_path / "eval", **option))):
        for name, (value, message) in refused.items():
            with pytest.raises(ConfigError, match=rf"^{method}: {message}"):
                call(**{name.strip(): value})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "scan.nii.gz"]


def _lines_with(words, output: str) -> str:
    """The lines of ``output`` that hold one of ``words`` (a stop's, a resume's messages; not the warnings of
    settings that name the config's keys)."""
    return "\n".join(line for line in output.splitlines() if any(word in line for word in words))


def _tiny_segmentation(tiny_dataset, tmp_path, **settings):
    """A tiny U-Net estimator training into ``tmp_path/run`` without validation, and a Dataset of the tiny cases."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    settings = {"val_every": 0, "save_every": 0, "trackers": "none", "progress_bar": False, **settings}
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), **settings)
    return model, data


def test_an_estimators_fit_stopped_by_ctrl_c_or_a_failed_save_is_told_of_its_keywords(tiny_dataset, tmp_path,
                                                                                       monkeypatch, capsys,
                                                                                       ctrl_c_raises):
    """The estimator trains through train, whose Ctrl-C said `run the same command with --train.resume=latest`,
    `(train.save_every)` and `--train.overwrite=true`, and whose failed save said the same (until the
    ninety-second session)."""
    from monai.losses import DiceCELoss

    from accelerated_seg.checkpoint import CheckpointNotSaved
    from faults import checkpoint_folder_read_only, loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    run = tmp_path / "run"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))  # step 3's forward
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=9)
    said = capsys.readouterr().out
    assert (f"interrupted (Ctrl-C) after step 2; the newest whole checkpoint is {run / 'checkpoints' / 'step_2'}: "
            f"call fit(..., resume='latest') again to continue from it") in said
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):  # a validation's export and no checkpoint
            model.fit(data, steps=9, output_dir=str(tmp_path / "exported"), val_every=1, save_every=0)
    said += capsys.readouterr().out
    assert (f"interrupted (Ctrl-C) after step 2; no checkpoint was saved yet (save_every), so a new run starts over: "
            f"an exported model in {tmp_path / 'exported' / 'best_model'} is kept, which a new run there replaces "
            f"with Segmentation(..., overwrite=True)") in said
    with monkeypatch.context() as patched:
        checkpoint_folder_read_only(patched, 4)
        with pytest.raises(CheckpointNotSaved, match=re.escape(
                f"the newest whole checkpoint, {run / 'checkpoints' / 'step_2'}, is untouched: make room (or make the "
                f"folder writable) and call fit(..., resume='latest') again to continue from it")) as refused:
            model.fit(data, steps=9, resume="latest")
    said = _lines_with(("interrupted", "preempted", "resum"), said + capsys.readouterr().out) + str(refused.value)
    assert "train." not in said and "--resume" not in said


def test_an_estimators_fit_whose_loss_stays_non_finite_is_told_of_save_every_and_lr(tiny_dataset, tmp_path,
                                                                                    monkeypatch):
    """`(train.save_every). Lower optim.lr`, settings the estimator names otherwise (until the ninety-second
    session)."""
    from monai.losses import DiceCELoss

    from accelerated_seg.train import TrainingDiverged
    from faults import loss_forward_with, nan_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(nan_on(set(range(1000)))))
    with pytest.raises(TrainingDiverged, match=r"non-finite for 5 optimizer steps in a row; no checkpoint was saved "
                                               r"before \(save_every\)\. Lower lr or check the data") as refused:
        model.fit(data, steps=9)
    assert "train." not in str(refused.value) and "optim." not in str(refused.value)


def test_an_estimators_resume_at_its_end_of_an_older_step_or_under_another_layout_speaks_its_words(
        tiny_dataset, tmp_path, capsys):
    """`which is train.max_steps already`, `out of --resume latest's way` and `then --train.init_from=<folder>`
    (until the ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    checkpoints = tmp_path / "run" / "checkpoints"
    model.fit(data, steps=4)
    capsys.readouterr()
    model.fit(data, steps=4, resume="latest")
    said = capsys.readouterr().out
    assert "at step 4, which is max_steps already: nothing to train; the export and summary are written" in said
    model.fit(data, steps=4, resume=str(checkpoints / "step_2"))
    said += (out := capsys.readouterr().out)
    assert re.search(r"resuming step_2: the later checkpoints and exports of the earlier course are kept in \S+, out "
                     r"of the way of fit\(\.\.\., resume='latest'\)", out), out
    layout = checkpoints / "step_4" / "strategy.json"
    # As if written under ZeRO-3: DeepSpeed's partitioned files cannot load into this launch.
    layout.write_text(json.dumps({**json.loads(layout.read_text()), "format": "deepspeed", "zero_stage": 3,
                                  "strategy": "DeepSpeed"}))
    with pytest.raises(ConfigError, match=re.escape(
            f"start a new run from its weights: accelerated-seg export {checkpoints / 'step_4'} --output <folder>, "
            f"then fit(..., init_from=<folder>) (the optimizer")) as refused:
        model.fit(data, steps=6, resume="latest")
    said = _lines_with(("interrupted", "preempted", "resum"), said) + str(refused.value)
    assert "train." not in said and "--resume" not in said


def test_an_estimators_fit_into_a_folder_in_use_or_seen_otherwise_by_a_rank_names_its_output_dir(
        tiny_dataset, tmp_path, monkeypatch):
    """`or train into another --train.output_dir`, `train.output_dir must be one folder` (until the ninety-second
    session)."""
    from accelerated_seg.run_lock import hold_run_folder
    from faults import a_second_rank_resuming_elsewhere

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    live = hold_run_folder(tmp_path / "run")
    try:
        with pytest.raises(ConfigError, match=r"is in use by another run .* or train into Segmentation\(output_dir="
                                              r"\.\.\.\) of its own$"):
            model.fit(data, steps=1)
    finally:
        live.release()
    a_second_rank_resuming_elsewhere(monkeypatch)
    with pytest.raises(ConfigError, match=r"the ranks see the run folder differently \(rank 0: a new run; rank 1: "
                                          r"resume /elsewhere/step_4\): Segmentation's output_dir must be one folder "
                                          r"that every node sees alike"):
        model.fit(data, steps=1)


def test_an_estimators_warm_up_longer_than_its_run_and_a_resume_with_other_settings_name_its_keywords(
        tiny_dataset, tmp_path, capsys):
    """`optim.warmup_steps=20 is not below train.max_steps=2`, `train.max_steps 2 -> 4: the learning-rate schedule`
    and `optim.lr 0.001 -> 0.002`: the config's keys, which the estimator takes as keywords (until the
    ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=2)
    said = capsys.readouterr().out
    assert "warning: warmup_steps=20 is not below max_steps=2: the learning rate rises for the whole run" in said
    model.fit(data, steps=4, resume="latest", lr=2e-3)
    said += (resumed := capsys.readouterr().out)
    assert "this run's from here on: lr 0.001 -> 0.002" in resumed
    assert "max_steps 2 -> 4: the learning-rate schedule (cosine, after 20 warm-up steps) now decays over 4" in resumed
    assert "optim." not in said and "train." not in said


def test_an_estimators_head_only_steps_or_init_into_without_weights_name_its_keywords(tiny_dataset, tmp_path):
    """`train.head_only_steps=1 ... (train.init_from) or set train.head_only_steps=0` and `train.init_into=model.0 says
    ... but no train.init_from is given` (until the ninety-second session). val_distances with an ignore label, once
    refused here too, measures the validation cases annotated in full since the ninety-third session."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, head_only_steps=1)
    with pytest.raises(ConfigError, match=re.escape(
            "head_only_steps=1 trains the output layers of a fine-tuning run alone, but this run starts a new network, "
            "whose every layer starts afresh: give the export to fine-tune (init_from) or set head_only_steps=0")):
        model.fit(data, steps=2)
    with pytest.raises(ConfigError, match=re.escape(
            "init_into='model.0' says which part of the network init_from's weights file holds, but no init_from is "
            "given: give the file, or unset init_into")):
        model.fit(data, steps=2, head_only_steps=0, init_into="model.0")


def test_an_estimators_resume_onto_other_data_is_sent_to_a_new_run_in_its_words(tiny_dataset, tmp_path):
    """A resume onto another split, other class names' order or other preprocessing was sent to
    `--train.init_from=<its export> in another train.output_dir` and `data.spacing`, `data.num_folds` ... (until the
    ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    model.fit(data, steps=2)
    train_pairs, _ = _pairs(tiny_dataset)
    common = dict(block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"), num_workers=0)
    other_split = Dataset.from_files(train_pairs, spacing=(2.0, 2.0, 2.0), validation_fraction=0.5, **common)
    new_run = "fit(..., init_from=<its export>, output_dir=<another folder>)"
    with pytest.raises(ConfigError, match=re.escape(
            f"Resume with the split that wrote it (num_folds, fold, split_seed, validation_fraction and the same cases "
            f"as in {tmp_path / 'run' / 'checkpoints' / 'step_2' / 'config.yaml'}), or start this split as a new run "
            f"in another folder ({new_run} only where none of its validation cases trained those weights)")) as split:
        model.fit(other_split.batch(2), steps=4, resume="latest")
    swapped = Dataset.from_files(train_pairs, spacing=(2.0, 2.0, 2.0), class_names=["background", "class_2", "class_1"],
                                 **common)
    with pytest.raises(ConfigError, match=re.escape(f"train these weights on as a new run ({new_run})")) as classes:
        model.fit(swapped.batch(2), steps=4, resume="latest")
    coarser = Dataset.from_files(train_pairs, spacing=(4.0, 4.0, 4.0), **common)
    with pytest.raises(ConfigError, match=re.escape(
            f"can be pinned with spacing), or train these weights on under the new preprocessing as a new run: "
            f"fit(..., init_from={str(tmp_path / 'run' / 'model')!r}, output_dir=<another folder>)")) as preprocessing:
        model.fit(coarser.batch(2), steps=4, resume="latest")
    said = " ".join(str(refused.value) for refused in (split, classes, preprocessing))
    assert "train." not in said and "data." not in said


def test_what_an_estimators_run_says_of_its_data_names_from_files_keywords(tiny_dataset, tmp_path, capsys):
    """`(data.normalization: auto, ...)`, `(data.spacing: null, ...)`, `a data.samples_per_volume or a global
    batch` and `data.augment_on: gpu on a cpu device`, on every such fit (until the ninety-second session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, samples_per_volume=3).batch(4).augment(on="gpu")
    model, _ = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    said = capsys.readouterr().out
    assert "normalization (normalization: 'auto', from the channels' names)" in said
    assert "(spacing: None, the training cases' median)" in said
    assert "a samples_per_volume or a global batch that divides the epoch trains on every patch" in said
    assert "note: augment_on: gpu on a cpu device resamples the patches in the training process" in said
    assert "data." not in said


def test_an_estimators_resume_with_another_network_names_its_arguments_and_output_dir(tiny_dataset, tmp_path):
    """`model.name, model.args ... differ ...; start the new network in another train.output_dir` (until the
    ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    model.fit(data, steps=2)
    wider = Segmentation("unet", model_args={"channels": [8, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=0, trackers="none", progress_bar=False)
    with pytest.raises(ConfigError, match=r"it holds another network than this run builds \(.*\)\. Segmentation's "
                                          r"model, model_args, the image channels or the classes differ from the run "
                                          r"that wrote it; resume with its config \(.*config.yaml\), or start the new "
                                          r"network in Segmentation\(output_dir=\.\.\.\) of its own$") as refused:
        wider.fit(data, steps=4, resume="latest")
    assert "train." not in str(refused.value) and "model.args" not in str(refused.value)


def test_an_estimators_resume_with_another_optimizer_names_its_keywords(tiny_dataset, tmp_path):
    """`trained with optim.optimizer adamw ... Resume with optim.optimizer: adamw, or start a new run from its
    weights (train.init_from)` (until the ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    model.fit(data, steps=2)
    with pytest.raises(ConfigError, match=re.escape(
            "it was trained with optimizer adamw and holds adamw's state, and this run asks for sgd. Resume with "
            "optimizer='adamw', or start a new run from its weights (init_from) with a fresh sgd and schedule")):
        model.fit(data, steps=4, resume="latest", optimizer="sgd")


def test_an_estimators_fine_tuning_names_head_only_steps_as_its_keyword(tiny_dataset, tmp_path, capsys):
    """A fine-tuning fit was told `--train.head_only_steps=1 would train them alone first`, and a refused one to
    `set train.head_only_steps=0` (until the ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    settings = dict(val_every=0, save_every=0, trackers="none", progress_bar=False)
    Segmentation.load(model.model_dir, output_dir=str(tmp_path / "tuned"), **settings).fit(data.binarize(), steps=3)
    said = capsys.readouterr().out
    assert "; fit(..., head_only_steps=1) would train them alone first (better on the phantoms" in said
    Segmentation.load(model.model_dir, output_dir=str(tmp_path / "alone"), **settings).fit(
        data.binarize(), steps=3, head_only_steps=1)
    said += (alone := capsys.readouterr().out)
    assert re.search(r"the first step trains the output layers alone \(\d+ tensors\); the rest of the network then "
                     r"joins them, its rate warmed up over 20 steps \(head_only_steps\)", alone), alone
    with pytest.raises(ConfigError, match=r"^head_only_steps=1 trains the output layers that start afresh alone, but "
                                          r"every layer of .* fits this run's network \(the same 3 outputs\): set "
                                          r"head_only_steps=0$"):
        Segmentation.load(model.model_dir, output_dir=str(tmp_path / "same"), **settings).fit(
            data, steps=3, head_only_steps=1)
    assert "train." not in _lines_with(("initial weights", "alone"), said)


def test_an_estimators_channels_last_norm_on_a_network_without_instance_norms_names_its_keyword(tiny_dataset,
                                                                                                 tmp_path, capsys):
    """`train.channels_last_norm: this network has no InstanceNorm` (until the ninety-second session)."""
    _, data = _tiny_segmentation(tiny_dataset, tmp_path)
    batch_normed = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "norm": "batch"},
                                output_dir=str(tmp_path / "run"), channels_last=True, channels_last_norm=True,
                                val_every=0, trackers="none", progress_bar=False)
    batch_normed.fit(data, steps=1)
    said = capsys.readouterr().out
    assert "\nchannels_last_norm: this network has no InstanceNorm (without running statistics) to change" in said


def _tiny_dataset_config(tiny_dataset, tmp_path, **settings):
    """A Dataset of the tiny cases and a config of a tiny U-Net made from it, training into ``tmp_path/run``
    without validation: what ``Dataset.fit(config)`` trains."""
    _, data = _tiny_segmentation(tiny_dataset, tmp_path)
    cfg = data.config(output_dir=str(tmp_path / "run"), **{"val_every": 0, "save_every": 0, "trackers": "none",
                                                           "progress_bar": False, **settings})
    cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
    return data, cfg


def test_a_dataset_fit_stopped_by_ctrl_c_and_resumed_to_its_end_is_told_of_its_keywords(tiny_dataset, tmp_path,
                                                                                          monkeypatch, capsys,
                                                                                          ctrl_c_raises):
    """Dataset.fit trains through train, whose Ctrl-C said `run the same command with --train.resume=latest`,
    whose resume at its end said `which is train.max_steps already` and whose resume with another network
    `start the new network in another train.output_dir` (until the ninety-second session)."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    data, cfg = _tiny_dataset_config(tiny_dataset, tmp_path, save_every=2, max_steps=4)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))  # step 3's forward
        with pytest.raises(KeyboardInterrupt):
            data.fit(cfg)
    said = capsys.readouterr().out
    assert (f"interrupted (Ctrl-C) after step 2; the newest whole checkpoint is "
            f"{tmp_path / 'run' / 'checkpoints' / 'step_2'}: call Dataset.fit again with resume='latest' to continue "
            f"from it") in said
    cfg.train.resume = "latest"
    data.fit(cfg)
    data.fit(cfg)
    said += (out := capsys.readouterr().out)
    assert "at step 4, which is max_steps already: nothing to train; the export and summary are written" in out
    said = _lines_with(("interrupted", "preempted", "resum"), said)
    assert "train." not in said and "--" not in said
    cfg.model.args = {"channels": [8, 8, 16], "strides": [2, 2], "num_res_units": 1}  # another network
    with pytest.raises(ConfigError, match=r"\. model\.name, model\.args, the image channels or the classes differ from "
                                          r"the run that wrote it; .* start the new network in another output_dir$"):
        data.fit(cfg)


def test_a_dataset_fit_into_a_folder_in_use_or_whose_loss_stays_non_finite_names_its_keywords(tiny_dataset, tmp_path,
                                                                                               monkeypatch):
    """`or train into another --train.output_dir` and `(train.save_every). Lower optim.lr` (until the
    ninety-second session)."""
    from monai.losses import DiceCELoss

    from accelerated_seg.run_lock import hold_run_folder
    from accelerated_seg.train import TrainingDiverged
    from faults import loss_forward_with, nan_on

    data, cfg = _tiny_dataset_config(tiny_dataset, tmp_path, max_steps=9)
    live = hold_run_folder(tmp_path / "run")
    try:
        with pytest.raises(ConfigError, match=r"is in use by another run .* or train into another output_dir$"):
            data.fit(cfg)
    finally:
        live.release()
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(nan_on(set(range(1000)))))
    with pytest.raises(TrainingDiverged, match=r"non-finite for 5 optimizer steps in a row; no checkpoint was saved "
                                               r"before \(save_every\)\. Lower lr or check the data") as refused:
        data.fit(cfg)
    assert "train." not in str(refused.value) and "optim." not in str(refused.value)


def test_an_estimators_start_from_other_weights_names_init_from_and_from_files_keywords(tiny_dataset, tmp_path,
                                                                                          capsys):
    """`train.init_from='...' learned from volumes prepared otherwise ... (data.spacing, data.normalization, ...)`,
    `train.init_from='...' names this run's classes in another order`, a weights file's `prepare the volumes as its
    training did (data.spacing, data.normalization)` and `train.init_from='...' holds another network ...: use the
    same model.name, model.args` (`model.args.channels: ...`): the config's keys, to a fine-tuning estimator (until the
    ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    export = model.model_dir
    settings = dict(val_every=0, save_every=0, trackers="none", progress_bar=False)
    train_pairs, _ = _pairs(tiny_dataset)
    common = dict(block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"), num_workers=0)
    swapped = Dataset.from_files(train_pairs, spacing=(3.0, 3.0, 3.0), class_names=["background", "class_2", "class_1"],
                                 **common).batch(2)
    capsys.readouterr()
    Segmentation.load(export, output_dir=str(tmp_path / "tuned"), **settings).fit(swapped, steps=1)
    said = capsys.readouterr().out
    assert (f"warning: init_from={str(export)!r} learned from volumes prepared otherwise than this run's "
            f"(spacing") in said
    assert ("To prepare them as the export's were, set those data settings (spacing, normalization, ct_window, "
            "crop_foreground) to its values") in said
    assert f"warning: init_from={str(export)!r} names this run's classes in another order" in said
    assert "where they are not, name them so (Dataset.from_files' class_names)" in said
    model, _ = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1, output_dir=str(tmp_path / "from_a_file"), init_from=str(export / "model.safetensors"))
    said += (from_a_file := capsys.readouterr().out)
    assert "it records no preprocessing: prepare the volumes as its training did (spacing, normalization)" in from_a_file
    wider = Segmentation("unet", model_args={"channels": [8, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "wider"), **settings)
    with pytest.raises(ConfigError, match=re.escape(
            f"init_from={str(export)!r} holds another network than this run builds (")) as refused:
        wider.fit(data, steps=1, init_from=str(export))
    assert ("match Segmentation's model, model_args and the image channels to the run that exported it (the classes "
            "may differ") in str(refused.value)
    assert re.search(r"\(model_args\['channels'\]: \[\d+(, \d+)*\] in the export, \[8, 8, 16\] here\)",
                     str(refused.value)), str(refused.value)  # model.args.channels until the ninety-second session
    assert "train." not in _lines_with(("init_from", "preprocessing"), said) + str(refused.value)
    assert "data." not in _lines_with(("init_from", "records no preprocessing"), said)


def test_a_loaded_model_that_another_design_would_fine_tune_names_its_model_args(tiny_dataset, tmp_path):
    """A loaded model fit with model_args changed since was refused as `model.args.channels: [4, 8, 16] in the model,
    ...`: the config's key, to an estimator whose user wrote model_args={...} (until the ninety-third session); and
    as `[4, 8, 32] in the dataset`, whose remedy was another Dataset (until a review of that session)."""
    from safetensors.torch import save_file

    from accelerated_seg.models import ModelSpec, build_from_spec

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    quiet = {"output_dir": str(tmp_path / "tuned"), "val_every": 0, "trackers": "none", "progress_bar": False}
    loaded = Segmentation.load(model.model_dir, **quiet)
    loaded.model_args = {**loaded.model_args, "channels": [4, 8, 32]}
    with pytest.raises(ConfigError, match=r"is not the network this Segmentation builds \(model_args\['channels'\]: "
                                          r"\[4, 8, 16\] in the model, \[4, 8, 32\] in this Segmentation\): give "
                                          r"model_args as the model has them, or fit\(\.\.\., init_from=None\) to "
                                          r"train a new unet of this Segmentation's design from scratch$") as refused:
        loaded.fit(data, steps=1)
    assert "model.args" not in str(refused.value) and "dataset" not in str(refused.value)
    # The one-channel model spreads over two channels: only the design's difference stands in the way
    (tmp_path / "copies").mkdir()  # the same image again, from another file
    two_channels = Dataset.from_files([([image, shutil.copy(image, tmp_path / "copies")], label)
                                       for image, label in _pairs(tiny_dataset)[0]],
                                      block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                                      num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    with pytest.raises(ConfigError, match=r"\(model_args\['channels'\]: \[4, 8, 16\] in the model, \[4, 8, 32\] "
                                          r"in this Segmentation\): give model_args as the model has them, or"):
        loaded.fit(two_channels, steps=1)
    # A model of two channels, on one-channel cases with other model_args: each difference with its own remedy
    shutil.copytree(model.model_dir, tmp_path / "two")
    exported = json.loads((tmp_path / "two" / "config.json").read_text())
    exported["model"]["args"]["in_channels"] = exported["in_channels"] = 2
    exported["channels"] = {"0": "image_0", "1": "image_1"}
    (tmp_path / "two" / "config.json").write_text(json.dumps(exported))
    # and weights of two channels: Segmentation.load refuses a config.json edited alone since the ninety-third session
    save_file(build_from_spec(ModelSpec.from_dict(exported["model"])).state_dict(),
              tmp_path / "two" / "model.safetensors")
    two = Segmentation.load(tmp_path / "two", **quiet)
    two.model_args = {**two.model_args, "channels": [4, 8, 32]}
    with pytest.raises(ConfigError, match=r"does not fit this dataset \(image channels: 2 in the model, 1 in the "
                                          r"dataset\), and is not the network this Segmentation builds "
                                          r"\(model_args\['channels'\]: \[4, 8, 16\] in the model, \[4, 8, 32\] in "
                                          r"this Segmentation\): give a Dataset the model fits, and give model_args as "
                                          r"the model has them, or fit\(\.\.\., init_from=None\)"):
        two.fit(data, steps=1)
    assert not (tmp_path / "tuned").exists()


def test_an_estimators_settings_left_without_effect_are_named_as_its_keywords(tiny_dataset, tmp_path, capsys):
    """`optim.momentum=0.9 has no effect in this run: optim.optimizer is adamw ...; set optim.optimizer: sgd`,
    `train.sw_overlap=0.5 ...: train.val_every is 0` and `data.ct_window=[...] ...: under data.normalization: ct`
    (until the ninety-second session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0, spacing=(2.0, 2.0, 2.0), normalization="zscore",
                              ct_window=(-100.0, 200.0)).batch(2)
    model, _ = _tiny_segmentation(tiny_dataset, tmp_path, momentum=0.9, poly_exponent=0.8, sw_overlap=0.5)
    model.fit(data, steps=1)
    said = _lines_with(("has no effect",), capsys.readouterr().out)
    assert ("warning: momentum=0.9 has no effect in this run: optimizer is 'adamw', whose moments are its own "
            "(betas); set optimizer='sgd' to train with momentum, or leave it out") in said
    assert ("warning: poly_exponent=0.8 has no effect in this run: schedule is 'cosine'; set schedule='poly' to decay "
            "by it") in said
    assert "warning: sw_overlap=0.5 has no effect in this run: val_every is 0, so the run never validates" in said
    assert ("warning: ct_window=[-100.0, 200.0] has no effect in this run: the images are z-scored; the window clips "
            "Hounsfield units under normalization='ct'") in said
    assert "train." not in said and "optim." not in said and "data." not in said


def test_an_estimators_cache_dir_in_a_file_or_not_shared_by_the_nodes_is_named_as_its_keyword(tiny_dataset, tmp_path):
    """`data.cache_dir='...': ... is a file` and `data.cache_dir must be a folder that every node sees`, to an
    estimator given Dataset.from_files(..., cache_dir=...) (until the ninety-second session)."""
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.training_data import _every_case_in_the_cache, _every_table_seen

    (tmp_path / "notes").write_text("a file where the cache would go")
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, num_workers=0,
                              cache_dir=str(tmp_path / "notes" / "cache")).batch(2)
    model, _ = _tiny_segmentation(tiny_dataset, tmp_path)
    with pytest.raises(ConfigError, match=rf"^cache_dir='{re.escape(str(tmp_path / 'notes' / 'cache'))}': "
                                          rf"{re.escape(str(tmp_path / 'notes'))} is a file"):
        model.fit(data, steps=1)
    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    cache = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)), 3)
    cache.build(cases, shard=(0, 2))  # rank 0's share here; rank 1's went into its node's own cache
    with pytest.raises(ConfigError, match=r"as the main process sees it \(.*\): cache_dir must be a folder that every "
                                          r"node sees"):
        _every_case_in_the_cache(cache, cases, ESTIMATOR_NAMES)
    with pytest.raises(ConfigError, match=r"which the main process wrote, is not there as rank 1 sees it: cache_dir "
                                          r"must be"):
        _every_table_seen([tmp_path / "elsewhere"], 1, ESTIMATOR_NAMES)


def test_an_estimators_launch_whose_strategy_cannot_take_effect_is_told_of_its_keyword(tiny_dataset, tmp_path,
                                                                                        monkeypatch):
    """`or set train.allow_strategy_fallback=true (fit: allow_strategy_fallback=True)`: the config's key, and
    train.fit's (until the ninety-second session)."""
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")  # an FSDP profile launched where there is no GPU
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    with pytest.raises(ConfigError, match=r"asked for FSDP, which accelerate enables only on GPUs, so it is NOT in "
                                          r"effect.*, or set "
                                          r"allow_strategy_fallback=True to run anyway\.$"):
        model.fit(data, steps=1)


def test_an_estimators_settings_a_strategy_refuses_are_named_as_its_keywords(tiny_dataset, tmp_path, monkeypatch):
    """`train.channels_last makes the weights channels-last, but DeepSpeed ...`, `train.head_only_steps under FSDP1
    needs fsdp_use_orig_params ... or set train.head_only_steps=0` and `asked twice: by
    train.activation_checkpointing and by the accelerate config's` (until the ninety-second session)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    import accelerated_seg.configured_run as configured_run
    from accelerated_seg.config import Config
    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.models import model_spec
    from accelerated_seg.preparation import channels_last_error, check_groups_apart, model_for_strategy

    deepspeed = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED, state=SimpleNamespace(fsdp_plugin=None))
    monkeypatch.setattr(configured_run, "channels_last_error",  # as a DeepSpeed launch would find it
                        lambda _, setting="train.channels_last": channels_last_error(deepspeed, setting))
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, channels_last=True)
    with pytest.raises(ConfigError, match=r"^channels_last makes the weights channels-last, but DeepSpeed broadcasts"):
        model.fit(data, steps=1)
    with pytest.raises(ConfigError, match=r"^head_only_steps under FSDP1 needs fsdp_use_orig_params: true .* or set "
                                          r"head_only_steps=0$"):
        check_groups_apart(SimpleNamespace(fsdp_version=1, use_orig_params=False), ESTIMATOR_NAMES)
    cfg = Config()
    cfg.train.activation_checkpointing = True
    fsdp = SimpleNamespace(distributed_type=DistributedType.FSDP, print=print,
                           state=SimpleNamespace(fsdp_plugin=SimpleNamespace(activation_checkpointing=True)))
    spec = model_spec("unet", 1, 3, (16, 16, 16), {"channels": [4, 8, 16], "strides": [2, 2]})
    with pytest.raises(ConfigError, match=r"^activation checkpointing is asked twice: by activation_checkpointing and "
                                          r"by the accelerate config's"):
        model_for_strategy(cfg, spec, fsdp, names=ESTIMATOR_NAMES)


def test_an_estimators_compile_settings_refused_are_named_as_its_keyword(tiny_dataset, tmp_path, monkeypatch):
    """`train.compile.backend='inductr' is not a torch.compile backend`, `train.compile.mode=max-autotune is an
    inductor mode; with train.compile.backend=aot_eager` and `or switch train.compile off` (until the ninety-second
    session)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.compilation import check_compilable, compile_settings
    from accelerated_seg.config import CompileConfig
    from accelerated_seg.model_folders import ESTIMATOR_NAMES

    for name in ("BACKEND", "MODE"):
        monkeypatch.delenv(f"ACCELERATE_DYNAMO_{name}", raising=False)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, compile=CompileConfig(enabled=True, backend="inductr"))
    with pytest.raises(ConfigError, match=r"^compile.backend='inductr' is not a torch.compile backend here"):
        model.fit(data, steps=1)
    with pytest.raises(ConfigError, match=r"^compile.mode='max-autotune' is an inductor mode; with "
                                          r"compile.backend='aot_eager' leave the mode at default$"):
        compile_settings(CompileConfig(enabled=True, backend="aot_eager", mode="max-autotune"), ESTIMATOR_NAMES)
    plugin = SimpleNamespace(fsdp_version=1, use_orig_params=False)
    fsdp1 = SimpleNamespace(distributed_type=DistributedType.FSDP, state=SimpleNamespace(fsdp_plugin=plugin))
    with pytest.raises(ConfigError, match=r"use an FSDP2 profile, or switch compile off$"):
        check_compilable(fsdp1, ESTIMATOR_NAMES)



def test_an_unknown_key_in_an_estimators_compile_or_ddp_settings_is_named_as_its_keyword(tiny_dataset, tmp_path):
    """`Segmentation(compile={"enabld": True})` was told of "unknown setting 'train.compile.enabld' (did you mean
    'train.compile.enabled'?); valid keys under train.compile are: ...", and `ddp={"lr": ...}` that "it is optim.lr",
    the config's words, in every entry point that takes the settings as keywords (until the ninety-fifth session)."""
    _, data = _tiny_segmentation(tiny_dataset, tmp_path)
    compile_typo = (r"unknown setting 'compile.enabld' \(did you mean 'compile.enabled'\?\); valid keys under "
                    r"compile are: backend, enabled, mode$")
    ddp_typo = (r"unknown setting 'ddp.static_grap' \(did you mean 'ddp.static_graph'\?\); valid keys under ddp are: "
                r"bucket_cap_mb, gradient_as_bucket_view, static_graph$")
    for where, call in (("Segmentation", lambda **given: Segmentation(**given)),
                        ("fit", lambda **given: Segmentation().fit(data, **given)),
                        ("Dataset.config", lambda **given: data.config(**given)),
                        ("Dataset.fit", lambda **given: data.fit(**given))):
        with pytest.raises(ConfigError, match=f"^{where}: {compile_typo}"):
            call(compile={"enabld": True})
        with pytest.raises(ConfigError, match=f"^{where}: {ddp_typo}"):
            call(ddp={"static_grap": True})
    with pytest.raises(ConfigError, match=r"^Segmentation: unknown setting 'ddp.lr' \(it is lr\); valid keys under "
                                          r"ddp are: "):
        Segmentation(ddp={"lr": 0.1})
    # another tool's name is answered in the config's and the command line's ways there (train.max_steps, --config)
    with pytest.raises(ConfigError, match=r"^Segmentation: unknown setting 'ddp.epochs'; valid keys under ddp are: "
                                          r"bucket_cap_mb, gradient_as_bucket_view, static_graph$"):
        Segmentation(ddp={"epochs": 3})


def test_an_estimators_zero3_note_names_its_keyword():
    """`ZeRO-3 gathers N block(s) whole (train.zero3_leaf_blocks)` under the estimator's DeepSpeed launch (until the
    ninety-second session)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.models import build_from_spec, model_spec
    from accelerated_seg.preparation import adapt_to_strategy

    said = []
    zero3 = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED, print=said.append,
                            state=SimpleNamespace(deepspeed_plugin=SimpleNamespace(deepspeed_config={}, zero_stage=3)))
    model = build_from_spec(model_spec("unet", 1, 3, (16, 16, 16), {"channels": [4, 8, 16], "strides": [2, 2]}))
    leaves = adapt_to_strategy(zero3, model, (1, 1, 16, 16, 16), True, names=ESTIMATOR_NAMES)
    assert said[-1] == f"ZeRO-3 gathers {len(leaves)} block(s) whole (zero3_leaf_blocks)"


def test_a_dataset_fit_without_validation_cases_or_a_batch_an_epoch_names_its_keywords(tiny_dataset, tmp_path):
    """Dataset.fit, which Segmentation.fit's own checks of these do not guard, was told `but train.val_every=500: set
    train.val_every=0` and `raise data.samples_per_volume` (until the ninety-second session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    common = dict(block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"), num_workers=0,
                  spacing=(2.0, 2.0, 2.0))

    def config_of(data, **settings):  # a tiny U-Net's (the default one's patch is larger)
        cfg = data.config(output_dir=str(tmp_path / "run"), max_steps=1, trackers="none", progress_bar=False,
                          **settings)
        cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
        return cfg

    alone = Dataset.from_files(train_pairs, validation_pairs=[], **common).batch(2)
    with pytest.raises(ConfigError, match=r"^the dataset has no validation cases \(.*\), but val_every=\d+: set "
                                          r"val_every=0 to train without validation, or .*validation_fraction") as no:
        alone.fit(config_of(alone))
    few = Dataset.from_files(train_pairs[:1], validation_pairs=[], samples_per_volume=1, **common).batch(4)
    with pytest.raises(ConfigError, match=r"fewer than one batch of every process's, 4: raise samples_per_volume or "
                                          r"lower the batch$") as fewer:
        few.fit(config_of(few, val_every=0))
    assert "train." not in str(no.value) and "data." not in str(no.value) + str(fewer.value)


def test_a_datasets_unused_split_settings_are_named_as_its_keywords(tiny_dataset, tmp_path, capsys):
    """from_files(..., validation_fraction=0.3) beside validation_pairs: Dataset.fit(config) was told `no validation
    cases (given (validation_pairs; data.validation_fraction=0.3 not used)) ... so that validation_fraction or
    num_folds holds cases out`, both words in one message, and warned `so data.validation_fraction holds nothing
    out ... give the dataset without it (the MSD 'validation' list ...)`, files it never gave (until the
    ninety-third session). Its refusal went on saying `list validation cases in the dataset's own split`, and
    Segmentation.fit's `give validation_pairs (or a larger validation_fraction)`, which they override (also
    until the ninety-third session)."""
    train_pairs, val_pairs = _pairs(tiny_dataset)
    common = dict(block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"), num_workers=0,
                  spacing=(2.0, 2.0, 2.0))
    alone = Dataset.from_files(train_pairs, validation_pairs=[], validation_fraction=0.3, **common).batch(2)
    assert "split: given (validation_pairs; validation_fraction=0.3 not used)" in repr(alone)
    cfg = alone.config(output_dir=str(tmp_path / "run"), max_steps=1, trackers="none", progress_bar=False)
    cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
    with pytest.raises(ConfigError, match=r"^the dataset has no validation cases \(given \(validation_pairs; "
                                          r"validation_fraction=0\.3 not used\)\), but val_every=\d+: set val_every=0 "
                                          r".* so that validation_fraction or num_folds holds cases out$") as no:
        alone.fit(cfg)
    # its remedy in its words: the validation_pairs it gave, not "the dataset's own split" of files it never wrote
    assert str(no.value).endswith("or give validation_pairs=[(image, label), ...] to Dataset.from_files, or leave "
                                  "validation_pairs out so that validation_fraction or num_folds holds cases out")
    with pytest.raises(ConfigError, match=r"^fit: the dataset has no validation cases \(given \(validation_pairs; "
                                          r".*\(val_every\): set val_every=0 to train without validation, or give "
                                          ) as seg:
        Segmentation("unet", output_dir=str(tmp_path / "seg"), model_args=cfg.model.args).fit(alone, steps=1)
    assert str(seg.value).endswith(str(no.value).partition("train without validation")[2])  # one remedy, not
    # "a larger validation_fraction", which the validation_pairs override
    assert ("warning: the split is given (validation_pairs; validation_fraction=0.3 not used): the dataset gives its "
            "own, so validation_fraction holds nothing out. For a split by it, leave validation_pairs out\n"
            ) in capsys.readouterr().out
    # the other settings a given split leaves unused, and the pairs' own 'fold' keys
    folds = Dataset.from_files(train_pairs, validation_pairs=val_pairs, num_folds=3, split_seed=4, **common)
    keyed = Dataset.from_files([{"image": image, "label": label, "fold": k % 3}
                                for k, (image, label) in enumerate(train_pairs)], num_folds=3, fold=1, split_seed=7,
                               **common)
    said = [unused_split_settings_warning(data.manifest) for data in (folds, keyed)]
    assert said == ["warning: the split is given (validation_pairs; num_folds=3 and split_seed=4 not used): the "
                    "dataset gives its own, so every fold trains on that one split. For k-fold, leave validation_pairs "
                    "out",
                    "warning: the split is given (datalist 'fold' keys: fold 1 of 3; split_seed=7 not used): the "
                    "dataset gives its own, so split_seed chooses nothing. For a split of its seed, give the pairs "
                    "without their 'fold' keys"]
    assert "data." not in str(no.value) + repr(folds) + repr(keyed) + "".join(said)


def test_an_estimators_step_beyond_the_hosts_memory_names_block_shape_and_its_keywords(tiny_dataset, tmp_path,
                                                                                        monkeypatch):
    """`data.patch_size [...] at train.batch_size 2 cannot train in this machine's memory ... Lower data.patch_size or
    train.batch_size, or set train.activation_checkpointing=true` to a Segmentation on a CPU (until the ninety-second
    session)."""
    import accelerated_seg.cpu_step_fit as cpu_step_fit

    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: 1024)  # a kilobyte: no step fits
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    with pytest.raises(ConfigError, match=r"^block_shape \[16, 16, 16\] at batch_size 2 cannot train in this machine's "
                                          r"memory: .* Lower block_shape or batch_size, or set "
                                          r"activation_checkpointing=True \(`accelerated-seg plan`"):
        model.fit(data, steps=1)


def test_an_estimators_init_from_that_is_no_weights_is_refused_as_its_keyword(tiny_dataset, tmp_path):
    """`train.init_from='...' must be an exported model folder ...`, `... is the description of the export in ...:
    give the folder, train.init_from='...'` and `train.init_from='...' holds Python objects besides tensors`
    (until the ninety-second session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    export = model.model_dir
    fresh, _ = _tiny_segmentation(tiny_dataset, tmp_path)
    fresh.output_dir = str(tmp_path / "fresh")
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(tmp_path / 'modle')!r} must be an exported model "
                                                    f"folder")) as mistyped:
        fresh.fit(data, steps=1, init_from=str(tmp_path / "modle"))
    with pytest.raises(ConfigError, match=re.escape(f"give the folder, init_from={str(export)!r}")) as description:
        fresh.fit(data, steps=1, init_from=str(export / "config.json"))
    torch.save({"network": object}, pickled := tmp_path / "whole.pt")
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(pickled)!r} holds Python objects")) as objects:
        fresh.fit(data, steps=1, init_from=str(pickled))
    torch.save({"epoch": 3}, other := tmp_path / "other.pt")
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(other)!r} holds a dict of 'epoch'")) as no_dict:
        fresh.fit(data, steps=1, init_from=str(other))
    (text := tmp_path / "notes.txt").write_text("not weights")
    with pytest.raises(DataError, match="cannot be read as a PyTorch weights file") as not_weights:
        fresh.fit(data, steps=1, init_from=str(text), init_into="model")
    with pytest.raises(ConfigError, match=re.escape("init_into='encoder' is not a part of this run's unet")) as part:
        fresh.fit(data, steps=1, init_from=str(export / "model.safetensors"), init_into="encoder")
    assert "name the part that init_from's weights file holds" in str(part.value)
    torch.save({"alpha.weight": torch.zeros(1), "beta.bias": torch.zeros(1)}, foreign := tmp_path / "foreign.pt")
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(foreign)!r} does not hold the weights of this "
                                                    f"run's unet")) as foreign_file:
        fresh.fit(data, steps=1, init_from=str(foreign))
    assert ("Set Segmentation's model and model_args to the network the weights were trained as"
            in str(foreign_file.value))
    refusals = [str(error.value) for error in (mistyped, description, objects, no_dict, not_weights, part, foreign_file)]
    assert not [said for said in refusals if "train." in said], refusals


def test_a_checkpoint_given_as_init_from_is_told_the_way_on_in_the_callers_words(tmp_path):
    """A step_N folder given as init_from was told `make one of this training-state checkpoint with accelerated-seg
    export ... --output <new folder>` alone, the estimator too (until the ninety-second session): now the export,
    then the caller's init_from."""
    from accelerated_seg.model_folders import DATASET_FIT_NAMES, ESTIMATOR_NAMES, Names, check_initial_weights

    step = tmp_path / "run" / "checkpoints" / "step_4"
    step.mkdir(parents=True)
    (step / "strategy.json").write_text("{}")
    for names, then in ((ESTIMATOR_NAMES, "fit(..., init_from=<folder>)"), (DATASET_FIT_NAMES, "init_from=<folder>"),
                        (Names(), "--train.init_from=<folder>")):
        with pytest.raises(ConfigError, match=re.escape(
                f"to start from this training-state checkpoint's weights: accelerated-seg export {step} --output "
                f"<folder>, then {then} (the optimizer and schedule start fresh")):
            check_initial_weights(step, names)


def test_a_dataset_fit_over_cases_shorter_than_its_blocks_is_told_of_block_shape(tiny_dataset, tmp_path, capsys):
    """docs/data.md's builder run on small cases was told `warning: data.patch_size [32, 32, 32] is longer than every
    preprocessed training case ... A patch such as data.patch_size: [32, 32, 16]`: a setting Dataset.fit's caller
    never gave (until the ninety-third session)."""
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, validation_pairs=[], block_shape=(48, 48, 48), n_classes=3,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    cfg = data.config(output_dir=str(tmp_path / "run"), max_steps=1, val_every=0, save_every=0, trackers="none",
                      progress_bar=False)
    cfg.model.args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
    data.fit(cfg)
    warning = next(line for line in capsys.readouterr().out.splitlines() if "longer than every" in line)
    assert warning.startswith("warning: block_shape [48, 48, 48] is longer than every preprocessed training "), warning
    assert warning.endswith("A patch such as block_shape=(32, 32, 16) sees as much of each case"), warning
    assert "data." not in warning


def test_from_files_names_the_pairs_paths_as_given_whatever_their_folders_are_called(tmp_path):
    """Dataset.from_files said from_pairs' messages in its words by a regular expression over their text, paths
    included: pairs under a folder named from_pairs/data.fold were said to lie in "Dataset.from_files/fold/", a
    folder that is not there (until the ninety-fourth session). The words are said where the message is made."""
    folder = tmp_path / "from_pairs" / "data.fold"
    shared = [(folder / "a.nii.gz", folder / "seg.nii.gz"), (folder / "b.nii.gz", folder / "seg.nii.gz")]
    said = f"Dataset.from_files: 2 cases list the label {folder / 'seg.nii.gz'} with other images"
    with pytest.raises(DataError, match=f"^{re.escape(said)}"):
        Dataset.from_files(shared, block_shape=16)


def test_a_keyword_setting_refused_names_its_value_as_given_whatever_its_folders_are_called(tmp_path):
    """check_values' messages were said in from_files' words by a regular expression over their text, the value
    given included: a cache_dir under a folder named data.fold was said to be "/.../fold/cache", a folder that is
    not there (until the ninety-fourth session). The settings are named as keywords where the message is made."""
    cache = os.fsencode(tmp_path / "data.fold" / "cache")  # bytes, as os takes paths: the setting takes a str
    said = f"Dataset.from_files: cache_dir must be str, got {cache!r}"
    with pytest.raises(ConfigError, match=f"^{re.escape(said)}$"):
        Dataset.from_files([(tmp_path / "a.nii.gz", tmp_path / "a_seg.nii.gz")], block_shape=16, cache_dir=cache)


def test_segmentation_loads_refusal_of_a_setting_names_load(tmp_path):
    # Segmentation.load(folder, output_dri=...) was told "Segmentation: output_dri is not ...", the constructor the
    # user did not call (a notebook journey, ninety-fifth session); the setting's checks are the constructor's.
    from test_inference import export

    model_dir = export(tmp_path / "model", spacing=None)
    for given, refused in ((dict(output_dri="runs"), r"output_dri is not a training or optimizer setting \(did you "
                                                     r"mean 'output_dir'\?\)"),
                           (dict(lr=-1), "lr"), (dict(multi_gpu="no"), "multi_gpu must be True or False")):
        with pytest.raises(ConfigError, match=rf"^Segmentation.load: {refused}"):
            Segmentation.load(model_dir, **given)


def test_a_misspelling_of_another_tools_name_is_answered_as_that_name():
    # learning_rate was told 'lr', learnin_rate nothing, its closest names (lr, ...) too far in spelling from it (a
    # notebook journey, ninety-fifth session): it is taken as the other tool's name it nearly is.
    for given, meant in (("learnin_rate", "'lr'"), ("num_epoch", r"fit\(dataset, epochs=N\)"),
                         ("modalitys", r"Dataset.from_files\(pairs, channel_names=\[...\]\)")):
        with pytest.raises(ConfigError, match=rf"^Segmentation: {given} is not a training or optimizer setting \(did "
                                              rf"you mean {meant}\?\)"):
            Segmentation("unet", **{given: 1})


def test_monai_tutorials_names_are_answered_with_this_apis_own():
    # A config's roi_size or pixdim was told data.patch_size or data.spacing; the same names as keywords got the
    # list of fifty names alone, until the hundred-and-fifth session. No file is read before these refusals.
    pairs = [("image.nii.gz", "label.nii.gz")]
    for given, meant in (("roi_size", r"Dataset.from_files\(pairs, block_shape=\(X, Y, Z\)\)"),
                         ("pixdim", r"Dataset.from_files\(pairs, spacing=\(X, Y, Z\)\)"),
                         ("amp", r"Segmentation\(model, precision='bf16'\)"),
                         ("gpus", r"Segmentation\(model, multi_gpu=True\)")):
        with pytest.raises(ConfigError, match=rf"^Segmentation: {given} is not a training or optimizer setting \(did "
                                              rf"you mean {meant}\?\)"):
            Segmentation("unet", **{given: 1})
    # val_interval counts epochs in MONAI, val_every steps: "did you mean 'val_every'?" alone, until the
    # hundred-and-fifth session's review, had val_interval=2 validate every second step (a config's key was told)
    with pytest.raises(ConfigError, match=re.escape("Segmentation: val_interval is not a training or optimizer setting "
                                                    "(did you mean 'val_every'? It counts optimizer steps, where "
                                                    "MONAI's val_interval counts epochs)")):
        Segmentation("unet", val_interval=2)
    with pytest.raises(ConfigError, match=r"^fit: mixed_precision is not a training or optimizer setting \(did you "
                                          r"mean Segmentation\(model, precision='bf16'\)\?\)"):
        Segmentation("unet").fit(Dataset.from_files(pairs, block_shape=16), mixed_precision="bf16")
    for given, meant in (("spatial_size", "block_shape"), ("pixdim", "spacing")):
        with pytest.raises(ConfigError, match=rf"^Dataset.from_files: {given} is not a data setting \(did you mean "
                                              rf"'{meant}'\?\)"):
            Dataset.from_files(pairs, **{given: 1})


def test_a_misspelt_predict_option_is_answered_with_the_closest_name(tmp_path):
    # fit, Segmentation and from_files said "(did you mean 'steps'?)"; predict(x, overlapp=0.5) listed the options
    # alone (a notebook journey, ninety-fifth session). evaluate's: test_segmentation_fit_predict_evaluate_save_load.
    import nibabel as nib
    from test_inference import export

    model = Segmentation.load(export(tmp_path / "model", spacing=None))
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.eye(4)), scan)
    for typo, meant in (("overlapp", "overlap"), ("afine", "affine"), ("keeplargest", "keep_largest")):
        with pytest.raises(ConfigError, match=rf"^predict: {typo} is not an option \(did you mean '{meant}'\?\); "
                                              r"the options are batch_size, affine"):
            model.predict(scan, **{typo: 1})


def test_a_mask_saved_as_0_and_255_is_told_of_dataset_binarize_first(tiny_dataset, tmp_path):
    """The estimator's user was told `data.binarize: true (Dataset.binarize())`, `num_classes=2` and to declare 255
    the "ignore" label in n_classes, the config's words first, until the ninety-sixth session."""
    import nibabel as nib

    train_pairs, _ = _pairs(tiny_dataset)
    image, label = train_pairs[0]
    mask = nib.load(label)
    saved = np.where(np.asanyarray(mask.dataobj) > 0, 255, 0).astype(np.uint8)
    nib.save(nib.Nifti1Image(saved, mask.affine), tmp_path / "mask.nii.gz")
    data = Dataset.from_files([(image, str(tmp_path / "mask.nii.gz"))], validation_pairs=[], block_shape=16,
                              n_classes=2, num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=r"train every value above 0 as the one foreground class: Dataset\.binarize\(\) "
                                        r"\(data\.binarize: true in a config file\)") as refused:
        data.loader()
    said = str(refused.value)
    assert "data.binarize: true (Dataset.binarize())" not in said and "num_classes" not in said
    assert ("are not declared (declared: 0..1, n_classes=2) (255 often marks unlabelled voxels: to leave them out of "
            "the loss and the metrics, give Dataset.from_files ignore_value=255, nnU-Net's \"ignore\" label") in said


def test_label_value_minus_1_is_told_of_from_files_ignore_value_first(tiny_dataset, tmp_path):
    """-1 for unannotated voxels: the estimator's user was told to declare the "ignore" label, the config's words,
    with ignore_value= in brackets after them, until the ninety-seventh session."""
    import nibabel as nib

    train_pairs, _ = _pairs(tiny_dataset)
    image, label = train_pairs[0]
    mask = nib.load(label)
    values = np.asanyarray(mask.dataobj).astype(np.int16)
    values[0] = -1  # a slab nobody annotated
    nib.save(nib.Nifti1Image(values, mask.affine), tmp_path / "sparse.nii.gz")
    data = Dataset.from_files([(image, str(tmp_path / "sparse.nii.gz"))], validation_pairs=[], block_shape=16,
                              n_classes=3, num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match=r"label values \[-1\] are not declared .*-1 often marks unlabelled voxels: "
                                        r"to leave them out of the loss and the metrics, give them a value above "
                                        r"the classes', 3, and Dataset\.from_files\(\.\.\., ignore_value=3\)"
                       ) as refused:
        data.loader()
    assert "declare it the \"ignore\" label" not in str(refused.value)


def test_too_many_classes_is_told_of_dataset_binarize_first(tiny_dataset):
    """n_classes=300 was told of a "labels argument" and to "set data.binarize", the config's words, until the
    ninety-seventh session."""
    train_pairs, val_pairs = _pairs(tiny_dataset)
    for given, said in ((dict(n_classes=300), "n_classes=300"), (dict(label_values=range(0, 600, 2)),
                                                                 "label_values gives 300")):
        with pytest.raises(DataError, match=rf"^Dataset\.from_files: {said} classes, but at most 256 \(background "
                                            r"included\) .*or train one foreground class, as Dataset\.binarize\(\) "
                                            r"does: Dataset\.from_files\(\.\.\., binarize=True\)$"):
            Dataset.from_files(train_pairs, validation_pairs=val_pairs, **given)
    assert Dataset.from_files(train_pairs, n_classes=300, binarize=True, validation_pairs=val_pairs).n_classes == 2


def test_repr_after_ctrl_c_in_a_fit_that_overwrote_the_model_says_it_is_gone(tiny_dataset, tmp_path, monkeypatch,
                                                                            ctrl_c_raises):
    """overwrite=True deletes the earlier run, its model/ too, before the new one trains: stopped by Ctrl-C, the
    estimator's repr still said it predicts with that model until the ninety-sixth session (predict refused it)."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    assert repr(model).endswith(f"; predicts with {tmp_path / 'run' / 'model'}>")
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGINT)))
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=9, overwrite=True)
    assert not (tmp_path / "run" / "model").exists()
    assert (f"; its model {tmp_path / 'run' / 'model'} was replaced or removed since: fit again to predict; since "
            f"then, a fit interrupted (Ctrl-C) after step 1 of 9 in {tmp_path / 'run'}") in repr(model)
    with pytest.raises(RuntimeError, match="no longer holds the model"):
        model.predict(np.zeros((16, 16, 16), np.float32))


def test_an_estimator_stopped_by_ctrl_c_names_its_run_checkpoint_and_the_ways_on(tiny_dataset, tmp_path,
                                                                                  monkeypatch, ctrl_c_raises):
    """After Ctrl-C in its first fit, repr said "not trained yet" and predict "call fit(), or
    Segmentation.load(dir)", naming neither the run nor its checkpoint (until the hundredth session). The
    checkpoint's weights are predicted with only once exported and loaded; a later interrupted fit leaves the
    earlier model the one predicted with, which repr and a warning say."""
    import nibabel as nib
    from monai.losses import DiceCELoss

    from accelerated_seg.checkpoint_export import export_checkpoint
    from accelerated_seg.own_warnings import AcceleratedSegWarning
    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    run, scan = tmp_path / "run", _pairs(tiny_dataset)[0][0][0]
    checkpoint = run / "checkpoints" / "step_2"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))  # step 3's forward
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=9)
    stopped = (f"a fit interrupted (Ctrl-C) after step 2 of 9 in {run}; its newest whole checkpoint is {checkpoint}: "
               f"call fit(..., resume='latest') again to continue from it")
    assert repr(model).endswith(f": no trained model: {stopped}>")
    for method, call in (("predict", lambda: model.predict(scan)), ("evaluate", lambda: model.evaluate(data)),
                         ("save", lambda: model.save(tmp_path / "saved"))):
        with pytest.raises(RuntimeError, match=re.escape(
                f"{method}: this Segmentation has no trained model: {stopped}; or, for a model of that checkpoint's "
                f"weights as they are, export_checkpoint({str(checkpoint)!r}, <folder>) "
                f"(accelerated_seg.checkpoint_export), then Segmentation.load(<folder>)")):
            call()
    export_checkpoint(checkpoint, tmp_path / "step_2")  # the way the refusal names works
    assert Segmentation.load(tmp_path / "step_2").predict(scan).shape == nib.load(scan).shape
    model.fit(data, steps=9, resume="latest")
    assert repr(model).endswith(f"trained 9 steps in {run}; predicts with {run / 'model'}>")
    with monkeypatch.context() as patched:  # a later fit stopped before any checkpoint: the model is the earlier one
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=9, output_dir=str(tmp_path / "later"), save_every=0)
    stopped = (f"a fit interrupted (Ctrl-C) after step 1 of 9 in {tmp_path / 'later'}; no checkpoint was saved yet "
               f"(save_every), so a new fit starts over")
    assert repr(model).endswith(f"; predicts with {run / 'model'}; since then, {stopped}>")
    with pytest.warns(AcceleratedSegWarning, match=re.escape(
            f"predict: with {run / 'model'}, not the weights of the last fit: {stopped}")):
        model.predict(scan)


@pytest.mark.parametrize("processes", [1, 2])
def test_evaluates_warnings_point_at_the_callers_line_in_a_launch_of_one_process_or_several(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises, processes):
    """Under a launch of several processes evaluate runs through ranks.on_main, two frames deeper, so its warnings
    (the model is an earlier fit's; the split's held-out cases alone are scored), at a fixed stacklevel, pointed
    into accelerated_seg/ranks.py rather than the caller's line (until the hundred-and-first session). One process
    stands for the main rank here: on_main's broadcast is a no-op without a process group."""
    from monai.losses import DiceCELoss

    import accelerated_seg.estimator as estimator
    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    with monkeypatch.context() as patched:  # a later fit stopped: the model predicted with is the earlier one
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(0, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=9, output_dir=str(tmp_path / "later"))
    monkeypatch.setattr(estimator, "launched_processes", lambda: processes)
    # and one raised deep in the prediction, as check_precision warns of bf16 emulated on a CPU: it named
    # estimator.py, and its text did not say evaluate (until the hundred-and-first session)
    import accelerated_seg.inference as inference
    from accelerated_seg.own_warnings import AcceleratedSegWarning

    monkeypatch.setattr(inference, "check_precision", lambda *given: warnings.warn(
        "a warning of the prediction's own", AcceleratedSegWarning, stacklevel=3))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model.evaluate(data)
    said = ("evaluate: with ", "evaluate: scoring the Dataset's", "evaluate: a warning of the prediction's own")
    where = {start: [warning.filename for warning in seen if str(warning.message).startswith(start)] for start in said}
    assert where == {start: [__file__] for start in said}, where


def test_evaluates_warning_raised_at_one_line_for_each_case_is_said_once_as_python_says_it(tiny_dataset, tmp_path,
                                                                                            monkeypatch):
    """A warning evaluate says again at the line that raised it (one not about one's input: a RuntimeWarning of the
    scoring) is said once under Python's default filter, however many cases raised it: said without a registry, it
    was said as often as it came (until the hundred-and-first session)."""
    import accelerated_seg.evaluate as evaluate

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    scoring = evaluate.evaluate_folders

    def scored_with_a_note_for_each_case(*given, **settings):
        for _ in range(3):  # as for three cases, at one line
            warnings.warn("a note of the scoring's own", RuntimeWarning)
        return scoring(*given, **settings)

    monkeypatch.setattr(evaluate, "evaluate_folders", scored_with_a_note_for_each_case)
    with warnings.catch_warnings(record=True) as seen:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        model.evaluate(data)
    assert [str(warning.message) for warning in seen if warning.category is RuntimeWarning] == [
        "a note of the scoring's own"]


@contextlib.contextmanager
def _ctrl_c_as_the_fit_preprocesses():
    """SIGINT to this process as the fit inside preprocesses its data (train's ``cached_tables``, before the run's
    folder is written); the fit must raise KeyboardInterrupt (the test takes ``ctrl_c_raises``: Python's own handler).

    Sent with ``signal.raise_signal``, as a notebook's "interrupt kernel" sends SIGINT to its kernel, not a ``raise
    KeyboardInterrupt``: the signal goes through whatever handlers the fit has set by then, and their
    KeyboardInterrupt comes out where the interpreter happens to be, as a real Ctrl-C's does."""
    import accelerated_seg.configured_run as configured_run

    cached_tables = configured_run.cached_tables

    def interrupted(*args, **kwargs):
        signal.raise_signal(signal.SIGINT)
        return cached_tables(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(configured_run, "cached_tables", interrupted)
        yield


def test_an_estimators_fit_stopped_by_ctrl_c_in_its_setup_says_nothing_was_saved_and_fits_again(
        tiny_dataset, tmp_path, capsys, ctrl_c_raises):
    """A notebook's Ctrl-C as the first fit preprocesses its data, before the run's folder exists: train says nothing
    was saved, and so does repr, which said the folder was "no longer there (moved or deleted since)" and to resume
    it where it was moved until the hundred-and-seventh session's review. The next fit in the process trains."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    run = tmp_path / "run"
    with _ctrl_c_as_the_fit_preprocesses():
        model.fit(data, steps=2)
    assert capsys.readouterr().out.splitlines()[-1] == ("interrupted (Ctrl-C) before training began; nothing was "
                                                         "saved: start the run again")
    assert not run.exists() and repr(model).endswith(f"a fit interrupted (Ctrl-C) in {run}; nothing was saved: "
                                                     f"fit again>"), repr(model)
    model.fit(data, steps=2)
    assert (run / "model" / "model.safetensors").is_file() and "trained 2 steps" in repr(model)


def test_an_overwrite_fit_stopped_by_ctrl_c_in_its_setup_does_not_offer_the_earlier_runs_checkpoint(
        tiny_dataset, tmp_path, capsys, ctrl_c_raises):
    """An overwrite fit stopped as it preprocesses, before it deletes the earlier run: train's line says nothing was
    saved, and so does repr. Until the hundred-and-seventh session's second review repr said, under that line, "its
    newest whole checkpoint is <run>/checkpoints/step_2: call fit(..., resume='latest') again", which continues the
    earlier run, not the new one asked for (the bug train's own line had had until that session)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    run = tmp_path / "run"
    model.fit(data, steps=2)
    with _ctrl_c_as_the_fit_preprocesses():
        model.fit(data, steps=4, overwrite=True, seed=7)
    assert capsys.readouterr().out.splitlines()[-1] == ("interrupted (Ctrl-C) before training began; nothing was "
                                                        "saved: start the run again")
    assert (run / "checkpoints" / "step_2").is_dir()  # the earlier run's, not deleted yet
    assert repr(model).endswith(f"predicts with {run / 'model'}; since then, a fit interrupted (Ctrl-C) in {run}; "
                                f"nothing was saved: fit again>"), repr(model)


def test_a_resume_of_another_folders_checkpoint_stopped_in_its_setup_names_no_step_in_the_folder_it_left_empty(
        tiny_dataset, tmp_path, capsys, ctrl_c_raises):
    """A fit into a new folder resuming another folder's checkpoint (step_2), stopped as it preprocesses, before it
    wrote anything there. Its interrupt carries that checkpoint's step since the hundred-and-eleventh session
    (RunSoFar.stopped_after), and repr took it for the new folder's: "a fit interrupted (Ctrl-C) after step 2 of 4 in
    <new folder>; nothing was saved: fit again" (its review); no step of that folder's is said, as before."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    model.fit(data, steps=2)
    elsewhere = tmp_path / "elsewhere"
    with _ctrl_c_as_the_fit_preprocesses():
        model.fit(data, steps=4, output_dir=str(elsewhere), resume=str(tmp_path / "run" / "checkpoints" / "step_2"))
    assert capsys.readouterr().out.splitlines()[-1] == ("interrupted (Ctrl-C) before training began; nothing was "
                                                        "saved: start the run again")
    assert repr(model).endswith(f"; since then, a fit interrupted (Ctrl-C) in {elsewhere}; nothing was saved: "
                                f"fit again>"), repr(model)


def test_an_estimators_fit_stopped_by_ctrl_c_with_its_checkpoints_unreadable_is_still_a_keyboard_interrupt(
        tiny_dataset, tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """A checkpoints folder that cannot be listed as Ctrl-C stops the fit (its permissions taken away, a mount gone):
    its PermissionError was raised over the KeyboardInterrupt, by train's line and then by the estimator's record of
    the stop, until the hundred-and-seventh session. Said unreadable while it is; its newest checkpoint named once
    it can be read again (looked up each time)."""
    from monai.losses import DiceCELoss

    import accelerated_seg.estimator_interrupted as estimator_interrupted
    import accelerated_seg.interrupted_run as interrupted_run
    from faults import loss_forward_with, signal_on

    def unreadable(folder):
        raise PermissionError(13, "Permission denied", str(folder))

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    run = tmp_path / "run"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))  # step 3's forward
        # where train's interrupted line lists them: train's own listing was patched until the hundred-and-seventh
        # session's review, which the line had moved out of (interrupted_run.py), and this test failed on main
        patched.setattr(interrupted_run, "complete_checkpoints", unreadable)
        patched.setattr(estimator_interrupted, "complete_checkpoints", unreadable)
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=9)
        unread = (f"{run / 'checkpoints'} could not be read (Permission denied), so no checkpoint is named: once it "
                  f"can be read again, call fit(..., resume='latest') again to continue from its newest whole "
                  f"checkpoint")
        assert f"interrupted (Ctrl-C) after step 2; {unread}" in capsys.readouterr().out
        assert repr(model).endswith(f": no trained model: a fit interrupted (Ctrl-C) after step 2 of 9 in {run}; "
                                    f"{unread}>")
        with pytest.raises(RuntimeError, match=re.escape(f"predict: this Segmentation has no trained model: a fit "
                                                         f"interrupted (Ctrl-C) after step 2 of 9 in {run}; {unread}")):
            model.predict(np.zeros((16, 16, 16), np.float32))
    assert repr(model).endswith(f"its newest whole checkpoint is {run / 'checkpoints' / 'step_2'}: call fit(..., "
                                f"resume='latest') again to continue from it>")
    # Its checkpoints gone once readable: the stop could not read them, so they are not said never saved ("no
    # checkpoint was saved yet (save_every)", of a run that saved step_2, until the hundred-and-seventh session's
    # review)
    shutil.rmtree(run / "checkpoints" / "step_2")
    assert repr(model).endswith(f"; no whole checkpoint is there (as it stopped, {run / 'checkpoints'} could not be "
                                f"read (Permission denied)), so a new fit starts over>"), repr(model)


def test_a_loaded_estimators_fit_stopped_by_ctrl_c_and_resumed_still_names_its_start(tiny_dataset, tmp_path,
                                                                                      monkeypatch, ctrl_c_raises):
    """The resume of a fit Ctrl-C stopped carries on the weights that fit started from, as a resume of a run the
    estimator finished does: its repr's ", from <folder>" was lost until the hundredth session, the estimator
    having kept nothing of the interrupted run. Until it is resumed, the loaded model is the one predicted with."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    loaded = Segmentation.load(tmp_path / "run" / "model", output_dir=str(tmp_path / "tuned"), val_every=0,
                               save_every=2, trackers="none", progress_bar=False)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):
            loaded.fit(data, steps=4)
    assert repr(loaded).endswith(f": loaded from {tmp_path / 'run' / 'model'}; since then, a fit interrupted (Ctrl-C) "
                                 f"after step 2 of 4 in {tmp_path / 'tuned'}; its newest whole checkpoint is "
                                 f"{tmp_path / 'tuned' / 'checkpoints' / 'step_2'}: call fit(..., resume='latest') "
                                 f"again to continue from it>")
    loaded.fit(data, steps=4, resume="latest")
    assert repr(loaded).endswith(f"trained 4 steps in {tmp_path / 'tuned'}, from {tmp_path / 'run' / 'model'}; "
                                 f"predicts with {tmp_path / 'tuned' / 'model'}>")


def _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch):
    """A Segmentation whose fit of 4 steps into tmp_path/run, saving every 2, Ctrl-C stopped after step 2 (its
    checkpoint step_2 whole), and the data it was fitting."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):
            model.fit(data, steps=4)
    return model, data


def _says_it_has_no_trained_model(model, said: str) -> None:
    """``said`` is what repr and predict's refusal say of the stopped fit."""
    assert repr(model).endswith(f": no trained model: {said}>")
    with pytest.raises(RuntimeError, match=re.escape(f"predict: this Segmentation has no trained model: {said}")):
        model.predict(np.zeros((16, 16, 16), np.float32))


def test_an_estimators_run_moved_after_ctrl_c_is_not_said_to_have_saved_no_checkpoint(tiny_dataset, tmp_path,
                                                                                        monkeypatch, ctrl_c_raises):
    """The interrupted run's checkpoints are looked up when asked; a run folder moved (or deleted) since was said
    to have "no checkpoint saved yet (save_every), so a new fit starts over" (the hundredth session's review), though
    its checkpoint, moved with it, continues it where it went."""
    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    shutil.move(tmp_path / "run", moved := tmp_path / "moved")
    gone = (f"a fit interrupted (Ctrl-C) after step 2 of 4 in {tmp_path / 'run'}; that folder is no longer there "
            f"(moved or deleted since): where it was moved, fit(..., output_dir=<its new place>, resume='latest') "
            f"continues it")
    _says_it_has_no_trained_model(model, gone)
    model.fit(data, steps=4, output_dir=str(moved), resume="latest")  # the way the message names works
    assert repr(model).endswith(f"trained 4 steps in {moved}; predicts with {moved / 'model'}>")


def test_an_estimators_run_whose_checkpoints_were_deleted_after_ctrl_c_is_not_said_to_have_saved_none(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises):
    """The run's checkpoints/ deleted after Ctrl-C: repr and predict said "no checkpoint was saved yet (save_every),
    so a new fit starts over", as of a run that never saved one (until the hundred-and-second session); they name
    the checkpoint that was there as it stopped, and a new fit still starts over."""
    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    run = tmp_path / "run"
    shutil.rmtree(run / "checkpoints")
    gone = (f"a fit interrupted (Ctrl-C) after step 2 of 4 in {run}; its checkpoints are no longer there (the newest "
            f"as it stopped was {run / 'checkpoints' / 'step_2'}: deleted since, or replaced by a later fit there), "
            f"so a new fit starts over")
    _says_it_has_no_trained_model(model, gone)


@pytest.mark.parametrize("later", ["overwrite", "resume"])
def test_a_later_fit_of_another_estimator_in_the_stopped_run_is_not_offered_as_its_own(tiny_dataset, tmp_path,
                                                                                      monkeypatch, ctrl_c_raises,
                                                                                      later):
    """Another estimator's fit into the stopped run's folder (replacing the run, or resuming it) wrote checkpoints
    there, which the stopped estimator's repr and refusals offered as its own to resume and export (until the
    hundred-and-fifth session): step_4 of a run it never trained."""
    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    run = tmp_path / "run"
    other, _ = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    other.fit(data, steps=4, **({"overwrite": True} if later == "overwrite" else {"resume": "latest"}))
    written_over = (f"a fit interrupted (Ctrl-C) after step 2 of 4 in {run}; a later fit has written that folder "
                    f"since (its run_info.json was written anew: the run replaced or resumed), so what it holds is "
                    f"not offered as this fit's: fit again, or call fit(..., resume='latest') again to continue the "
                    f"folder's run as it is now")
    _says_it_has_no_trained_model(model, written_over)
    with pytest.raises(RuntimeError) as refused:
        model.evaluate(data)
    assert str(refused.value).endswith(written_over)  # no export of that run's checkpoint offered


def test_a_later_overwrite_is_told_from_the_stopped_fit_where_its_run_info_has_the_same_inode_and_time(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises):
    """An overwrite deletes run_info.json before it writes its own, whose inode number ext4 may give again, and a
    file system whose times are coarse (1 s on ext4 with 128-byte inodes, 2 s on FAT) may give it the same time:
    the inode and time alone told the later fit from the stopped one in the hundred-and-fifth session, until its
    review; run_info.json now says when its fit wrote it. The file here is the later fit's, put in the stopped
    one's inode with its time."""
    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    run_info = tmp_path / "run" / "run_info.json"
    stopped = run_info.stat()
    os.link(run_info, kept := tmp_path / "kept")  # the stopped fit's inode, for the later fit's file to take
    other, _ = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    other.fit(data, steps=4, overwrite=True)
    kept.write_text(run_info.read_text())  # the same settings: the same file but for when it was written
    os.replace(kept, run_info)
    os.utime(run_info, ns=(stopped.st_atime_ns, stopped.st_mtime_ns))
    assert (run_info.stat().st_ino, run_info.stat().st_mtime_ns) == (stopped.st_ino, stopped.st_mtime_ns)
    _says_it_has_no_trained_model(model, f"a fit interrupted (Ctrl-C) after step 2 of 4 in {tmp_path / 'run'}; a "
                                         f"later fit has written that folder since (its run_info.json was written "
                                         f"anew: the run replaced or resumed), so what it holds is not offered as "
                                         f"this fit's: fit again, or call fit(..., resume='latest') again to "
                                         f"continue the folder's run as it is now")


@pytest.mark.parametrize("copy", [shutil.copy2, shutil.copy], ids=["times kept", "times not kept"])
def test_a_stopped_runs_folder_copied_back_is_still_the_stopped_fits_run(tiny_dataset, tmp_path, monkeypatch,
                                                                        ctrl_c_raises, copy):
    """A run folder copied away and back (a backup restored, cp -r, rsync without -a) holds the stopped fit's
    run_info.json in another inode, and without -p at another time: it read as written by a later fit (its
    checkpoints not offered) until the hundred-and-sixth session; its written_at, which a copy keeps, tells."""
    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    run = tmp_path / "run"
    shutil.copytree(run, backup := tmp_path / "backup", copy_function=copy)
    shutil.rmtree(run)
    shutil.copytree(backup, run, copy_function=copy)
    _says_it_has_no_trained_model(model, f"a fit interrupted (Ctrl-C) after step 2 of 4 in {run}; its newest whole "
                                         f"checkpoint is {run / 'checkpoints' / 'step_2'}: call fit(..., "
                                         f"resume='latest') again to continue from it")


def test_a_run_info_without_written_at_is_told_by_its_inode_and_time():
    """written_at decides where both files say one; a file without (written before the hundred-and-fifth session,
    or by hand) is told by its inode and time alone, as before."""
    from accelerated_seg.estimator_interrupted import same_run_info

    assert same_run_info((1, 10, "2026-12-05T09:00:00.000001+00:00"), (2, 20, "2026-12-05T09:00:00.000001+00:00"))
    assert not same_run_info((1, 10, "2026-12-05T09:00:00.000001+00:00"), (1, 10, "2026-12-05T09:00:00.000002+00:00"))
    assert same_run_info((1, 10, None), (1, 10, None)) and not same_run_info((1, 10, None), (2, 10, None))
    assert not same_run_info((1, 10, None), (1, 10, "2026-12-05T09:00:00.000001+00:00"))
    assert same_run_info(None, None) and not same_run_info(None, (1, 10, None))


@pytest.mark.parametrize("stop", ["Ctrl-C", "preemption"])
def test_the_estimators_own_failed_resume_of_its_stopped_run_leaves_it_offered(tiny_dataset, tmp_path, monkeypatch,
                                                                                ctrl_c_raises, stop):
    """A resume refused before it wrote anything leaves the stopped run as it was; one that failed after train
    wrote run_info.json anew (here its first step's loss) was said to be "a later fit" that had "written that folder
    since", the run's checkpoint no longer offered (until the hundred-and-sixth session): it is the run's going on,
    and the run is still resumed from its newest checkpoint."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    if stop == "Ctrl-C":
        model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    else:
        model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
        with monkeypatch.context() as patched:
            patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGUSR1)))
            model.fit(data, steps=4)
    run = tmp_path / "run"
    stopped = (f"its newest whole checkpoint is {run / 'checkpoints' / 'step_2'}: call fit(..., resume='latest') "
               f"again to continue from it>")
    with pytest.raises(ConfigError, match="beyond the 1 optimizer step"):
        model.fit(data, steps=1, resume="latest")
    assert repr(model).endswith(stopped)
    written_at = json.loads((run / "run_info.json").read_text())["written_at"]
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(_failed_step))
        with pytest.raises(RuntimeError, match="a failure of the resumed step"):
            model.fit(data, steps=4, resume="latest")
    assert json.loads((run / "run_info.json").read_text())["written_at"] != written_at  # the resume wrote it
    assert repr(model).endswith(stopped)
    model.fit(data, steps=4, resume="latest")
    assert repr(model).endswith(f"trained 4 steps in {run}; predicts with {run / 'model'}>")


def test_a_failed_resume_whose_run_folder_cannot_be_read_afterwards_raises_its_own_error(tiny_dataset, tmp_path,
                                                                                         monkeypatch, ctrl_c_raises):
    """The stopped run is read anew as the resume's error is raised: a checkpoints folder unreadable by then (chmod,
    here its listing's PermissionError) raised that, the step's error its __context__, until the hundred-and-sixth
    session's review. The error is the step's own, its traceback from the step, the records as they were."""
    from monai.losses import DiceCELoss

    import accelerated_seg.estimator_interrupted as estimator_interrupted
    from faults import loss_forward_with

    def unreadable(folder):
        raise PermissionError(13, "Permission denied", str(folder))

    def fails_and_leaves_the_run_unreadable(call, loss):
        monkeypatch.setattr(estimator_interrupted, "complete_checkpoints", unreadable)
        _failed_step(call, loss)

    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    stopped = model._interrupted
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(fails_and_leaves_the_run_unreadable))
        with pytest.raises(RuntimeError, match="a failure of the resumed step") as raised:
            model.fit(data, steps=4, resume="latest")
    assert raised.value.__context__ is None and raised.traceback[-1].name == "_failed_step"
    assert model._interrupted is stopped


def _another_estimators_run_of_2_steps(tiny_dataset, tmp_path) -> Path:
    """The checkpoint step_2 of a run another estimator fitted into tmp_path/other."""
    other, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    other.fit(data, steps=2, output_dir=str(tmp_path / "other"))
    return tmp_path / "other" / "checkpoints" / "step_2"


def test_a_failed_resume_of_another_folders_checkpoint_into_the_stopped_runs_folder_is_not_that_run(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises):
    """A checkpoint of another folder resumed into the stopped run's folder (overwrite) starts a new run there: its
    failure, after a checkpoint of its own, was taken for the stopped run's going on (said "after step 2 of 4", its
    step_3 offered as the stopped fit's) in the hundred-and-sixth session, until its review."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with

    def fails_after_a_checkpoint(call, loss):
        return loss if call == 0 else _failed_step(call, loss)

    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    checkpoint = _another_estimators_run_of_2_steps(tiny_dataset, tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(fails_after_a_checkpoint))
        with pytest.raises(RuntimeError, match="a failure of the resumed step"):
            model.fit(data, steps=6, resume=str(checkpoint), overwrite=True, save_every=1)
    assert "; a later fit has written that folder since (its run_info.json was written anew" in repr(model)


def test_a_resume_of_a_stopped_runs_folder_another_estimator_wrote_since_does_not_name_the_stopped_fits_start(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises):
    """A loaded estimator's fit stopped by Ctrl-C, another estimator's new network fitted into its folder with
    overwrite, and the loaded one's resume there: it continues that network, which its repr said was trained on
    from the loaded model (", from <run>/model") until the hundred-and-fifth session's review."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    tuned = tmp_path / "tuned"
    loaded = Segmentation.load(tmp_path / "run" / "model", output_dir=str(tuned), val_every=0, save_every=2,
                               trackers="none", progress_bar=False)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))
        with pytest.raises(KeyboardInterrupt):
            loaded.fit(data, steps=4)
    other, _ = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    other.fit(data, steps=2, output_dir=str(tuned), overwrite=True)
    loaded.fit(data, steps=4, resume="latest")
    assert repr(loaded).endswith(f"trained 4 steps in {tuned}; predicts with {tuned / 'model'}>")


def test_a_resume_of_the_stopped_run_stopped_before_it_wrote_anything_leaves_the_stop_as_it_was(
        tiny_dataset, tmp_path, monkeypatch, ctrl_c_raises):
    """The resume stopped by Ctrl-C in its data work, before train wrote run_info.json, took the stop's place: "a fit
    interrupted (Ctrl-C) in <run>", the run's step no longer said (until the hundred-and-sixth session), though the
    folder's run is still the one the first stop left."""
    import accelerated_seg.configured_run as configured_run

    def stopped_before_the_first_step(*args, **kwargs):
        raise KeyboardInterrupt

    model, data = _fit_of_4_steps_stopped_by_ctrl_c_after_step_2(tiny_dataset, tmp_path, monkeypatch)
    run = tmp_path / "run"
    monkeypatch.setattr(configured_run, "delete_earlier_run", stopped_before_the_first_step)
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=6, resume="latest")
    _says_it_has_no_trained_model(model, f"a fit interrupted (Ctrl-C) after step 2 of 4 in {run}; its newest whole "
                                         f"checkpoint is {run / 'checkpoints' / 'step_2'}: call fit(..., "
                                         f"resume='latest') again to continue from it")


def _a_loaded_estimators_finished_run_of_2_steps(tiny_dataset, tmp_path):
    """(an estimator loaded from tmp_path/run/model that fitted 2 steps into tmp_path/tuned, saving every 2; the data;
    that folder)."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    model.fit(data, steps=1)
    tuned = tmp_path / "tuned"
    loaded = Segmentation.load(tmp_path / "run" / "model", output_dir=str(tuned), val_every=0, save_every=2,
                               trackers="none", progress_bar=False)
    loaded.fit(data, steps=2)
    return loaded, data, tuned


def _failed_step(call, loss):
    """A loss hook (faults.loss_forward_with) that fails the step, as an error of the data or the network would."""
    raise RuntimeError("a failure of the resumed step")


def test_a_resume_of_a_finished_runs_folder_another_estimator_wrote_since_does_not_name_the_finished_runs_start(
        tiny_dataset, tmp_path):
    """As of a stopped fit's (the test before): a finished run's folder that another estimator's new network was
    fitted into since, with overwrite, resumed by the estimator that finished it, was said to be trained on from
    its start (", from <run>/model") until the hundred-and-fifth session's review."""
    loaded, data, tuned = _a_loaded_estimators_finished_run_of_2_steps(tiny_dataset, tmp_path)
    other, _ = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    other.fit(data, steps=2, output_dir=str(tuned), overwrite=True)
    loaded.fit(data, steps=4, resume="latest")
    assert repr(loaded).endswith(f"trained 4 steps in {tuned}; predicts with {tuned / 'model'}>")


def test_a_failed_resume_of_a_finished_run_leaves_its_start_named_by_the_next(tiny_dataset, tmp_path, monkeypatch):
    """The estimator's own resume of the run it finished, failed after it wrote run_info.json anew, was taken for
    another fit's, and the next resume's repr named no start (", from <run>/model") until the hundred-and-sixth
    session."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with

    loaded, data, tuned = _a_loaded_estimators_finished_run_of_2_steps(tiny_dataset, tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(_failed_step))
        with pytest.raises(RuntimeError, match="a failure of the resumed step"):
            loaded.fit(data, steps=4, resume="latest")
    loaded.fit(data, steps=4, resume="latest")
    assert repr(loaded).endswith(f"trained 4 steps in {tuned}, from {tmp_path / 'run' / 'model'}; "
                                 f"predicts with {tuned / 'model'}>")


def test_a_resume_of_another_folders_checkpoint_into_a_finished_runs_folder_does_not_name_that_runs_start(
        tiny_dataset, tmp_path):
    """A checkpoint of another folder resumed into the folder of a run the estimator finished (overwrite) is a new
    run there, from that checkpoint: its repr named the finished run's start (", from <run>/model") until the
    hundred-and-sixth session's review."""
    loaded, data, tuned = _a_loaded_estimators_finished_run_of_2_steps(tiny_dataset, tmp_path)
    checkpoint = _another_estimators_run_of_2_steps(tiny_dataset, tmp_path)
    loaded.fit(data, steps=4, resume=str(checkpoint), overwrite=True)
    assert repr(loaded).endswith(f"trained 4 steps in {tuned}; predicts with {tuned / 'model'}>")


def test_a_launched_fit_stopped_by_ctrl_c_says_its_newest_checkpoints_step(tiny_dataset, tmp_path, monkeypatch,
                                                                          ctrl_c_raises):
    """A launch's processes say their step to no one in the launching process: the estimator said none (a fit
    interrupted (Ctrl-C) in <run>) until the hundred-and-fifth session. It says the newest whole checkpoint's, as
    that: the fit had reached it, or passed it. The launch stands in for two processes that saved steps 2 and 4
    and were stopped (the real one: test_ctrl_c_in_a_fit_of_two_launched_processes_...)."""
    import accelerated_seg.estimator as estimator

    def launched_and_stopped(cfg, manifest, processes, mixed_precision, out, names):
        for step in (2, 4):
            (out / "checkpoints" / f"step_{step}").mkdir(parents=True)
        (out / "run_info.json").write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.delenv("MASTER_PORT", raising=False)
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    monkeypatch.setattr(estimator, "_trained_in_launched_processes", launched_and_stopped)
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True, save_every=2)
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=9)
    run = tmp_path / "run"
    _says_it_has_no_trained_model(model, f"a fit interrupted (Ctrl-C) after step 4 or later of 9 (its newest "
                                         f"checkpoint's step) in {run}; its newest whole checkpoint is "
                                         f"{run / 'checkpoints' / 'step_4'}: call fit(..., resume='latest') again "
                                         f"to continue from it")
    assert model._interrupted.step is None and model._interrupted.checkpoint_step == 4


def test_a_launched_fits_failed_resume_leaves_the_stop_said_after_its_own_checkpoints_step(tiny_dataset, tmp_path,
                                                                                           monkeypatch, ctrl_c_raises):
    """The launch's stop is said to be after its newest checkpoint's step (the test before). Its resume, failed
    after it saved step_3, was then said of the stop ("after step 3 or later of 9") in the hundred-and-sixth
    session, until its review; step_3 is offered to continue from. The launches stand in for two processes, the
    resume's checkpoint for the one resume_or_replace would find."""
    import accelerated_seg.estimator as estimator

    def launched(cfg, manifest, processes, mixed_precision, out, names):
        resumed = (out / "checkpoints").is_dir()
        (out / "checkpoints" / f"step_{3 if resumed else 2}").mkdir(parents=True)
        (out / "run_info.json").write_text(json.dumps({"written_at": "resumed" if resumed else "stopped"}))
        if resumed:
            raise RuntimeError("a failure in a launched process")
        raise KeyboardInterrupt

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    monkeypatch.delenv("MASTER_PORT", raising=False)
    monkeypatch.setattr(estimator, "gpus_to_launch", lambda: 2)
    monkeypatch.setattr(estimator, "_trained_in_launched_processes", launched)
    monkeypatch.setattr(estimator, "resume_or_replace",
                        lambda out, resume, *args, **kwargs: (out / "checkpoints" / "step_2" if resume else None, False))
    model, data = _tiny_segmentation(tiny_dataset, tmp_path, multi_gpu=True, save_every=2)
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=9)
    with pytest.raises(RuntimeError, match="a failure in a launched process"):
        model.fit(data, steps=9, resume="latest")
    run = tmp_path / "run"
    _says_it_has_no_trained_model(model, f"a fit interrupted (Ctrl-C) after step 2 or later of 9 (its newest "
                                         f"checkpoint's step) in {run}; its newest whole checkpoint is "
                                         f"{run / 'checkpoints' / 'step_3'}: call fit(..., resume='latest') again "
                                         f"to continue from it")


def test_a_fit_stopped_before_its_first_step_says_no_step_of_an_earlier_runs_checkpoint(tiny_dataset, tmp_path,
                                                                                        monkeypatch, ctrl_c_raises):
    """A fit with overwrite=True stopped by Ctrl-C before it replaced the earlier run in its folder (in its data work,
    before its first step) said the earlier run's newest checkpoint's step as its own (a fit interrupted (Ctrl-C)
    after step 4 or later of 9 (its newest checkpoint's step)) in the hundred-and-fifth session, until its review:
    the folder's run_info.json, which train writes before the first step, is still the one the fit began with."""
    import accelerated_seg.configured_run as configured_run

    def stopped_before_the_deletion(*args, **kwargs):
        raise KeyboardInterrupt

    model, data = _tiny_segmentation(tiny_dataset, tmp_path, save_every=2)
    model.fit(data, steps=4)
    monkeypatch.setattr(configured_run, "delete_earlier_run", stopped_before_the_deletion)
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=9, overwrite=True)
    run = tmp_path / "run"
    assert f"; since then, a fit interrupted (Ctrl-C) in {run}; " in repr(model)
    assert model._interrupted.step is None and model._interrupted.checkpoint_step is None


def _open_files() -> list[str]:
    """What this process's file descriptors point to (Linux' /proc)."""
    folder = Path("/proc/self/fd")
    return sorted(os.readlink(fd) for fd in folder.iterdir() if fd.exists())


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files through Linux' /proc")
def test_an_interrupted_fit_leaves_no_batch_files_open_while_its_exception_lives(tiny_dataset, tmp_path, monkeypatch,
                                                                                ctrl_c_raises):
    """The traceback of the KeyboardInterrupt kept the training loop's frames, and in them the batch in flight,
    whose tensors from the loader's workers hold shared-memory files open: 2 stayed open (until the exception was
    dropped and collected, which a notebook's sys.last_traceback never does) until the ninety-sixth session."""
    import threading

    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    model, _ = _tiny_segmentation(tiny_dataset, tmp_path)
    train_pairs, _ = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=2, spacing=(2.0, 2.0, 2.0)).batch(2)
    model.fit(data, steps=1, output_dir=str(tmp_path / "first"))  # the fork server and its pipes, which stay
    threads, files = set(threading.enumerate()), _open_files()
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))
    with pytest.raises(KeyboardInterrupt) as interrupted:
        model.fit(data, steps=9)
    # the batch's shared-memory files at once; the workers' queues' pipes close as their feeder threads end, which
    # a loaded CPU delays (two pipes still open here, in two of many runs: hundred-and-fifth and -sixth sessions)
    assert [name for name in _open_files() if name not in files and not name.startswith("pipe:")] == []
    for thread in set(threading.enumerate()) - threads:  # the workers' queues' feeders end once the queues close
        thread.join(timeout=10)
    assert set(threading.enumerate()) <= threads
    deadline = time.monotonic() + 10
    while (left := [name for name in _open_files() if name not in files]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []
    assert interrupted.traceback  # the exception, and its lines, are still there


def test_from_files_takes_the_label_files_own_values_of_the_classes(tiny_dataset, tmp_path):
    """BraTS' 0/1/2/4: a dataset.json's "labels" and a config's data.labels declared them, and from_files, which
    declared 0..n_classes-1, refused the 4 until the ninety-sixth session (label_values=)."""
    import nibabel as nib

    remapped = []
    for index, (image, label) in enumerate(_pairs(tiny_dataset)[0]):
        mask = nib.load(label)
        values = np.asanyarray(mask.dataobj).astype(np.uint8)
        values[values == 2] = 4  # the tiny phantoms' class 2, as BraTS' enhancing tumour is written
        nib.save(nib.Nifti1Image(values, mask.affine), tmp_path / f"label_{index}.nii.gz")
        remapped.append((image, str(tmp_path / f"label_{index}.nii.gz")))
    settings = dict(block_shape=16, validation_pairs=remapped[:2], num_workers=0, cache_dir=str(tmp_path / "cache"))
    data = Dataset.from_files(remapped[2:], label_values=[0, 1, 4], **settings)
    manifest = data.manifest
    assert (data.n_classes, manifest.label_values, manifest.label_map) == (3, [0, 1, 4], {0: 0, 1: 1, 4: 2})
    assert "3 classes (background, class_1, class_4) of label values 0, 1, 4;" in repr(data)
    batch = next(iter(data.loader()))
    assert set(torch.unique(batch["label"]).tolist()) <= {0, 1, 2}  # classes, as training sees them
    with pytest.raises(DataError, match=r"label values \[4\] are not declared \(declared: 0\.\.2, n_classes=3\).* or "
                                        r"its label_values \(the label files' own values"):
        Dataset.from_files(remapped[2:], n_classes=3, **settings).loader()  # the refusal names the way
    assert Dataset.from_files(remapped[2:], n_classes=3, label_values=[0, 1, 4], ignore_value=5,
                              **settings).manifest.ignore_value == 5
    for given, refusal in ((dict(label_values=[1, 2, 4]), r"label_values \[1, 2, 4\] must start with the background"),
                           (dict(label_values=[0, 4, 1]), r"label_values \[0, 4, 1\] must start with the "
                                                          r"background, 0, and go up"),
                           (dict(label_values="0124"), r"label_values must be a list of the label files' whole"),
                           (dict(label_values=[0, 1, 4], n_classes=4), r"n_classes=4, but label_values gives 3"),
                           (dict(label_values=[0, 1, 4], ignore_value=4), r"ignore_value 4 is a class's value "
                                                                          r"\(the classes are 0, 1, 4\).* e\.g\. 5")):
        with pytest.raises((ConfigError, DataError), match=rf"^Dataset.from_files: {refusal}"):
            Dataset.from_files(remapped[2:], **{**settings, **given})
    assert Dataset.from_files(remapped[2:], **settings).n_classes == 2  # the default without label_values
    regions = Dataset.from_files(remapped[2:], label_values=[0, 1, 4], regions={"any": [1, 4], "four": [4]},
                                 **settings).manifest.regions  # in the files' own values, as BraTS' are declared
    assert (regions.names, regions.values) == (("any", "four"), ((1, 4), (4,)))


def test_a_model_trained_on_label_values_predicts_the_label_files_own_values(tiny_dataset, tmp_path):
    """BraTS' 0/1/2/4 given as label_values, fit, then predict: the label map holds the files' values (4 where
    the network says class 3), not the class indices 0..3 that training saw."""
    import nibabel as nib
    from safetensors.torch import load_file, save_file

    pairs = []
    for index, (image, label) in enumerate(_pairs(tiny_dataset)[0]):
        mask = nib.load(label)
        values = np.asanyarray(mask.dataobj).astype(np.uint8)
        values[values == 2] = 4  # the phantoms' class 2 as BraTS' enhancing tumour is written
        values[:values.shape[0] // 2][values[:values.shape[0] // 2] == 1] = 2  # and half of class 1 as its edema
        nib.save(nib.Nifti1Image(values, mask.affine), tmp_path / f"label_{index}.nii.gz")
        pairs.append((image, str(tmp_path / f"label_{index}.nii.gz")))
    data = Dataset.from_files(pairs[2:], label_values=[0, 1, 2, 4], validation_pairs=pairs[:2], block_shape=16,
                              num_workers=0, cache_dir=str(tmp_path / "cache")).batch(2)
    model = Segmentation("unet", model_args={"channels": [8, 16, 32], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=0, save_every=0, trackers="none",
                         progress_bar=False)
    model.fit(data, steps=2)
    written = set(np.unique(np.asanyarray(model.predict(pairs[0][0]).dataobj)).tolist())
    assert written and written <= {0, 1, 2, 4}, written

    # Two steps decide little: a copy whose output layer says class 3 everywhere shows where class 3 goes (the
    # last layer of 4 biases is the output's: the others have 8 channels or more)
    weights = load_file(model.model_dir / "model.safetensors")
    output_bias = [name for name, tensor in weights.items() if name.endswith("bias") and tensor.shape == (4,)][-1]
    weights[output_bias] = torch.tensor([0.0, 0.0, 0.0, 1e4])
    class_3 = tmp_path / "class_3"
    shutil.copytree(model.model_dir, class_3)
    save_file(weights, class_3 / "model.safetensors")
    assert set(np.unique(np.asanyarray(Segmentation.load(class_3).predict(pairs[0][0]).dataobj)).tolist()) == {4}


def test_evaluate_refuses_every_case_predict_would_refuse_for_its_voxel_sizes_before_its_folders_are_rebuilt(
        tiny_dataset, tmp_path, monkeypatch):
    """predict refuses a scan whose voxels are far finer than the model's spacing (a header of no unit on metres'
    numbers) or, its header declaring mm against a spacing set, than the training cases' median too (h105), and one whose
    resampling would not fit the host's memory, from its header: evaluate met those refusals only while predicting,
    the last call's summary.json and metrics.csv deleted, one case named, until the hundred-and-nineteenth session
    (helper h106). Every such case is refused first, one line each in predict's words, the last call's files kept."""
    import nibabel as nib

    import accelerated_seg.inference_reading as inference_reading
    from accelerated_seg.inference import predict_file
    from test_inference import export, in_unit

    training, validation = _pairs(tiny_dataset)
    model_dir = export(tmp_path / "model", spacing=(2.5, 2.5, 2.5), cases_median_spacing=[2.0, 2.0, 2.0])
    model, out = Segmentation.load(model_dir), tmp_path / "eval"
    settings = dict(block_shape=16, n_classes=3, num_workers=0, cache_dir=str(tmp_path / "cache"))
    assert model.evaluate(Dataset.from_files(training[:1], validation_pairs=validation, **settings),
                          output_dir=out)["num_cases"] == 3
    kept = {path.relative_to(out): path.read_bytes() for path in out.rglob("*") if path.is_file()}

    def refused(pairs) -> str:
        """evaluate's refusal of ``pairs``, out's files as the last call left them."""
        with pytest.raises(DataError) as refusal:
            model.evaluate(Dataset.from_files(training[:1], validation_pairs=pairs, **settings), output_dir=out)
        assert {path.relative_to(out): path.read_bytes() for path in out.rglob("*") if path.is_file()} == kept
        return str(refusal.value)

    def predicts(image) -> str:
        with pytest.raises(DataError) as refusal:
            predict_file(model_dir, image, tmp_path / "p.nii.gz")
        return str(refusal.value)

    in_metres = []
    for unit, (image, label) in zip(("unknown", "mm"), validation[1:]):
        (tmp_path / unit / "labels").mkdir(parents=True)
        in_metres.append(tuple(str(in_unit(nib.load(path), tmp_path / unit / folder / Path(path).name, unit, 1e-3))
                               for path, folder in ((image, ""), (label, "labels"))))
    said = refused([validation[0], *in_metres])
    lines = [f"  - {Path(image).name.removesuffix('.nii.gz')} (image channels): {predicts(image)}"
             for image, _ in in_metres]
    assert said == "\n".join(["2 problem(s) in the validation_pairs given to Dataset.from_files; fix them before "
                              "evaluation:", *lines]), said
    assert "cases_median_spacing" in lines[1] and "cases_median_spacing" not in lines[0], said

    monkeypatch.setattr(inference_reading, "memory_available", lambda: 1000)  # no case's resampling fits
    said = refused(validation)
    assert said.startswith("3 problem(s) in the validation_pairs given to Dataset.from_files; fix them before "
                           "evaluation:\n"), said
    for image, _ in validation:
        assert predicts(image) in said, said


def test_evaluate_says_a_2d_slice_in_metres_is_2d_as_predict_does_not_to_rewrite_it_in_mm(tiny_dataset, tmp_path):
    """predict refuses a 2D file for being 2D before it judges any voxel size (inference_reading.read_channels), but
    evaluate's header check (helper h106) judged its voxel sizes all the same and, for a slice in metres, told it to
    be rewritten in mm in predict's words, which predict never says of it, until h106's review (probe
    benchmarks/results/review_evaluate_precheck_2026-12-06/verdicts.txt). The check leaves it to the pre-flight check,
    which says it is 2D, as predict does."""
    import nibabel as nib

    from accelerated_seg.inference import predict_file
    from test_inference import export

    training, validation = _pairs(tiny_dataset)
    model_dir = export(tmp_path / "model", spacing=(2.5, 2.5, 2.5))
    flat = []
    for path, name, dtype in zip(validation[0], ("slice.nii.gz", "slice_label.nii.gz"), (np.float32, np.uint8)):
        source = nib.load(path)  # its first slice alone, its numbers in metres (a header of no unit)
        nib.save(nib.Nifti1Image(np.asanyarray(source.dataobj)[:, :, 0].astype(dtype),
                                 np.diag([1e-3, 1e-3, 1e-3, 1.0]) @ source.affine), tmp_path / name)
        flat.append(str(tmp_path / name))
    with pytest.raises(DataError, match="2D") as predicted:
        predict_file(model_dir, flat[0], tmp_path / "p.nii.gz")
    assert "metres" not in str(predicted.value)
    dataset = Dataset.from_files(training[:1], validation_pairs=[tuple(flat)], block_shape=16, n_classes=3,
                                 num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match="2D") as evaluated:
        Segmentation.load(model_dir).evaluate(dataset, output_dir=tmp_path / "eval")
    assert "metres" not in str(evaluated.value) and not (tmp_path / "eval").exists(), str(evaluated.value)


def test_evaluate_lists_a_case_in_metres_with_another_cases_truncated_file_in_one_refusal(tiny_dataset, tmp_path):
    """evaluate's header check (helper h106) raised alone, before the pre-flight check read the other cases: a case
    in metres was listed, another case's truncated file said only once it was fixed, a call later, until h106's
    review. Both are listed in one refusal, the case in metres in predict's words, nothing written."""
    import gzip

    import nibabel as nib

    from test_inference import export, in_unit

    training, validation = _pairs(tiny_dataset)
    model_dir = export(tmp_path / "model", spacing=(2.5, 2.5, 2.5))
    (tmp_path / "metres" / "labels").mkdir(parents=True)
    in_metres = tuple(str(in_unit(nib.load(path), tmp_path / "metres" / folder / Path(path).name, "unknown", 1e-3))
                      for path, folder in zip(validation[0], ("", "labels")))
    truncated = tmp_path / Path(validation[1][0]).name
    whole = gzip.compress(gzip.decompress(Path(validation[1][0]).read_bytes()))
    truncated.write_bytes(whole[: len(whole) // 2])
    dataset = Dataset.from_files(training[:1], validation_pairs=[in_metres, (str(truncated), validation[1][1])],
                                 block_shape=16, n_classes=3, num_workers=0, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError) as refused:
        Segmentation.load(model_dir).evaluate(dataset, output_dir=tmp_path / "eval")
    said = str(refused.value)
    assert said.startswith("2 problem(s) in the validation_pairs given to Dataset.from_files"), said
    assert "probably in metres" in said and "truncated" in said and not (tmp_path / "eval").exists(), said


def test_predict_locks_no_temporary_file_of_its_own_where_predict_file_locks_its_output(tmp_path, monkeypatch):
    """Segmentation.predict writes its label map into a temporary folder of its own, which no other run can name.
    Since the hundred-and-twenty-second session predict_file (predict --input) locks the files it writes, and
    Segmentation.predict, through it, locked that temporary map too: needlessly, and where the temporary folder could
    not be locked (a TMPDIR without flock) every call warned `--output /tmp/.../prediction.nii.gz cannot be locked ...
    give each predict its own --output`, of a flag and a path its caller never gave (that session's review r103)."""
    from test_inference import export

    import accelerated_seg.inference_outputs as inference_outputs
    from accelerated_seg.inference import predict_file

    locked = []
    real_hold = inference_outputs.hold_run_folder

    def hold_run_folder(folder, *args, **kwargs):
        locked.append(Path(folder))
        return real_hold(folder, *args, **kwargs)

    monkeypatch.setattr(inference_outputs, "hold_run_folder", hold_run_folder)
    files = _one_case_of_4d_files(tmp_path / "cases", {"one": (8, 8, 8)})
    model_dir = export(tmp_path / "model", in_channels=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of a lock, nor of anything else
        assert Segmentation.load(model_dir).predict(files["one"]).shape == (8, 8, 8)
    assert locked == []
    predict_file(model_dir, files["one"], tmp_path / "out" / "seg.nii.gz", device="cpu")
    assert locked == [tmp_path / "out"]


def test_a_misspelt_tracker_is_refused_at_fits_call_before_the_earlier_run_and_anything_written(tiny_dataset,
                                                                                                tmp_path):
    """fit(trackers=["tensorbord"]) was refused by the Accelerator only, after the run folder's checks (into a used
    folder: the earlier run said first) and the data's, until the hundred-and-twenty-fourth session (helper h132);
    now at the call, by its keyword, the closest name offered, nothing written."""
    model, data = _tiny_segmentation(tiny_dataset, tmp_path)
    used = tmp_path / "run"
    used.mkdir()
    for name in ("run_info.json", "summary.json"):  # a finished run's (run_folder.earlier_run)
        (used / name).write_text("{}")
    with pytest.raises(ConfigError, match=r"^fit: trackers must be none, or tracker names accelerate knows, comma "
                                          r"separated or a list: .*; got 'tensorbord' \(did you mean "
                                          r"'tensorboard'\?\)$"):
        model.fit(data, steps=1, trackers=["tensorbord"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]  # no cache either
    assert sorted(path.name for path in used.iterdir()) == ["run_info.json", "summary.json"]
    with pytest.raises(ConfigError, match=r"^Segmentation: trackers must be none, .*; got 'wandbb' \(did you mean "
                                          r"'wandb'\?\)$"):  # the constructor's, as its other settings
        Segmentation("unet", output_dir=str(used), trackers="wandbb")
