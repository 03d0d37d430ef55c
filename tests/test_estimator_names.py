"""The estimator's classes and channels are named: by Dataset.from_files' class_names and channel_names,
or else by the model a fit starts from. A command-line model's class names, fine-tuned through the
estimator, were exported as class_1, class_2 (a user-journey audit)."""

import dataclasses
import json

import pytest

from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import preprocess_settings
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.train import train

from conftest import tiny_overrides

TINY_UNET = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
QUIET = dict(val_every=0, save_every=0, trackers="none", progress_bar=False, warmup_steps=0)


def _pairs(tiny_dataset):
    manifest = load_msd(tiny_dataset)
    return ([(str(c.images[0]), str(c.label)) for c in manifest.training],
            [(str(c.images[0]), str(c.label)) for c in manifest.validation])


def _names(model_dir):
    config = json.loads((model_dir / "config.json").read_text())
    return config["labels"], config["channels"]


def test_a_command_line_models_names_survive_fine_tuning_through_the_estimator(tiny_dataset, tmp_path, capsys):
    # the phantoms' dataset.json names the classes (ventricles, lesion) and the channel (MRI)
    train(load_config(None, tiny_overrides(tiny_dataset, tmp_path / "cli", train__max_steps=1, train__val_every=0,
                                           train__save_every=0)))
    exported = tmp_path / "cli" / "model"
    assert _names(exported) == ({"0": "background", "1": "ventricles", "2": "lesion"}, {"0": "MRI"})
    train_pairs, val_pairs = _pairs(tiny_dataset)
    settings = dict(block_shape=16, validation_pairs=val_pairs, cache_dir=str(tmp_path / "cache"), num_workers=0,
                    spacing=(2.0, 2.0, 2.0))

    # A Dataset that names nothing, with as many classes and channels: the model's names are kept
    unnamed = Dataset.from_files(train_pairs, n_classes=3, **settings).batch(2)
    tuned = Segmentation.load(exported).fit(unnamed, steps=1, lr=1e-9, output_dir=str(tmp_path / "tuned"),
                                            **{**QUIET, "save_every": 1})
    assert _names(tuned.model_dir) == _names(exported)
    # said, since a dataset of another task with as many classes would take them too
    assert (f"note: the dataset's classes background, ventricles, lesion and channels MRI are named as {exported} "
            f"names them") in capsys.readouterr().out
    # so does a resume of that fine-tuning, and Dataset.fit from the export (train.init_from)
    tuned.fit(unnamed, steps=2, lr=1e-9, output_dir=str(tmp_path / "tuned"), resume="latest", **QUIET)
    assert _names(tuned.model_dir) == _names(exported)
    config = unnamed.config(max_steps=1, init_from=str(exported), output_dir=str(tmp_path / "from_data"), **QUIET)
    config.model = dataclasses.replace(config.model, args=TINY_UNET)  # the command line's (tiny_overrides)
    unnamed.fit(config)
    assert _names(tmp_path / "from_data" / "model") == _names(exported)

    # Names given win over the model's, as a run's data names its classes over train.init_from's
    named = Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "csf", "plaque"],
                               channel_names=["T1w"], **settings).batch(2)
    renamed = Segmentation.load(exported).fit(named, steps=1, lr=1e-9, output_dir=str(tmp_path / "renamed"), **QUIET)
    assert _names(renamed.model_dir) == ({"0": "background", "1": "csf", "2": "plaque"}, {"0": "T1w"})
    said = capsys.readouterr().out
    assert "channel 0: MRI there, T1w here" in said  # training's warning, as for the CLI
    assert "another order" not in said  # other names are a new task's, not a mistake to warn of

    # The model's classes in another order: its output layers answer for its own (the eighty-seventh session)
    swapped = Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "lesion", "ventricles"],
                                 **settings).batch(2)
    Segmentation.load(exported).fit(swapped, steps=1, lr=1e-9, output_dir=str(tmp_path / "swapped"), **QUIET)
    assert ("names this run's classes in another order (class 1: ventricles there, lesion here; class 2: lesion "
            "there, ventricles here)") in capsys.readouterr().out

    # Other classes (fine-tuned binarized) are the Dataset's own: the model's names are not theirs
    binary = Dataset.from_files(train_pairs, n_classes=2, **settings).batch(2).binarize()
    other = Segmentation.load(exported).fit(binary, steps=1, lr=1e-9, output_dir=str(tmp_path / "binary"), **QUIET)
    assert _names(other.model_dir) == ({"0": "background", "1": "foreground"}, {"0": "MRI"})


def test_class_and_channel_names_given_to_from_files(tiny_dataset, tmp_path):
    train_pairs, val_pairs = _pairs(tiny_dataset)
    settings = dict(block_shape=16, validation_pairs=val_pairs, num_workers=0, cache_dir=str(tmp_path / "cache"),
                    spacing=(2.0, 2.0, 2.0))
    data = Dataset.from_files(train_pairs, n_classes=3, class_names=("background", "ventricles", "lesion"),
                              channel_names=["T1w"], **settings)
    assert data.manifest.labels == {0: "background", 1: "ventricles", 2: "lesion"}
    assert data.manifest.channels == {0: "T1w"}
    assert "3 classes (background, ventricles, lesion)" in repr(data) and "1 channel (T1w)" in repr(data)
    # the metrics and the export (which predict and evaluate read) name them so
    model = Segmentation("unet", model_args=TINY_UNET, output_dir=str(tmp_path / "run"), **{**QUIET, "val_every": 1})
    model.fit(data.batch(2), steps=1)
    assert _names(model.model_dir) == ({"0": "background", "1": "ventricles", "2": "lesion"}, {"0": "T1w"})
    (scores,) = json.loads((tmp_path / "run" / "metrics.json").read_text())["validation"]
    assert {"dice_ventricles", "dice_lesion"} <= scores.keys()
    # binarize() trains 2 classes: 2 names name them
    brain = Dataset.from_files(train_pairs, n_classes=2, class_names=["background", "brain"], **settings).binarize()
    assert brain.manifest.labels == {0: "background", 1: "brain"} and brain.manifest.binarized
    # a channel named CT is normalized as CT under data.normalization auto, as a dataset.json's
    ct = Dataset.from_files(train_pairs, n_classes=3, channel_names=["CT"], **settings)
    assert preprocess_settings(ct.data, ct.manifest).normalization == "ct"

    with pytest.raises(ConfigError, match=r"Dataset.from_files: class_names gives 2 name\(s\) \(background, "
                                          r"lesion\), but n_classes is 3: name every class, background first"):
        Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "lesion"], **settings)
    with pytest.raises(ConfigError, match=r"Dataset.binarize: class_names gives 3 name\(s\) .*, but binarize\(\) "
                                          r"trains 2 classes, .*give Dataset.from_files\(\.\.\., binarize=True, "
                                          r"class_names=\['background', 'brain'\]\) in place of .binarize\(\)"):
        data.binarize()
    # the way it gives: 2 names given to from_files with n_classes 3 and a later binarize() are refused there
    with pytest.raises(ConfigError, match=r"class_names gives 2 name\(s\) \(background, brain\), but n_classes is 3"):
        Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "brain"], **settings).binarize()
    brain = Dataset.from_files(train_pairs, n_classes=3, binarize=True, class_names=["background", "brain"], **settings)
    assert brain.manifest.labels == {0: "background", 1: "brain"} and brain.manifest.binarized
    # a first case of one 3D file: in predict's and the checks' words for it (helper h112)
    with pytest.raises(ConfigError, match=r"^Dataset.from_files: .*: shape \(.*\) holds one 3D volume, but "
                                          r"channel_names declares 2 channels and this one file is given for them: "
                                          r"store them in it as \(x, y, z, 2\), or give one 3D file per channel, in "
                                          r"the order channel 0 \(T1w\), channel 1 \(T2w\); or, where its 1 volume is "
                                          r"the one channel, give channel_names one name, or none$"):
        Dataset.from_files(train_pairs, n_classes=3, channel_names=["T1w", "T2w"], **settings)
    for names, said in (("background lesion", "must be a list of names, one per class, background first"),
                        (["background", 1, 2], "must be a list of names"),
                        (["background", "lesion", "lesion"], r"repeats lesion; give each its own name"),
                        (["background", " ", "lesion"], "name 1 is empty"),
                        (["background", "lesion", "Ignore"], "names a class 'Ignore', the name of the unannotated")):
        with pytest.raises(ConfigError, match=said):
            Dataset.from_files(train_pairs, n_classes=3, class_names=names, **settings)
    # given to the estimator, they are pointed to from_files, as its other arguments
    with pytest.raises(ConfigError, match=r"but an argument of Dataset.from_files: give it there"):
        Segmentation("unet", class_names=["background", "lesion"])
    # and other tools' names for them are pointed to them
    with pytest.raises(ConfigError, match=r"modality is not a data setting \(did you mean 'channel_names'\?\)"):
        Dataset.from_files(train_pairs, n_classes=3, modality=["T1w"], **settings)
    with pytest.raises(ConfigError, match=r"did you mean Dataset.from_files\(pairs, class_names=\[\.\.\.\]\)\?"):
        Segmentation("unet", label_names=["background", "lesion"])


def test_a_models_ct_channel_name_does_not_switch_an_unnamed_datasets_normalization(tiny_dataset, tmp_path, capsys):
    """A name is no measurement: the CT of a model fit starts from, taken onto a Dataset that names no
    channel, made data.normalization auto clip its (MRI) images to data.ct_window and scale them, while
    the Dataset's repr and loader() said image and zscore (a review of the eighty-seventh session)."""
    from accelerated_seg.data.prepare import PreprocessSettings
    from accelerated_seg.estimator import named_as_its_start
    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec

    spec = model_spec("unet", 1, 3, [16, 16, 16], TINY_UNET)
    export = tmp_path / "ct_model"
    write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
                 {"labels": {"0": "background", "1": "liver", "2": "tumour"}, "channels": {"0": "CT"},
                  "in_channels": 1, "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0],
                  "preprocessing": PreprocessSettings(spacing=(2.0, 2.0, 2.0), normalization="ct").to_dict()}, export)
    train_pairs, val_pairs = _pairs(tiny_dataset)
    mri = Dataset.from_files(train_pairs, n_classes=3, block_shape=16, validation_pairs=val_pairs)
    assert preprocess_settings(mri.data, mri.manifest).normalization == "zscore"

    manifest = named_as_its_start(mri, None, export)
    assert preprocess_settings(mri.data, manifest).normalization == "zscore"  # was ct
    assert manifest.channels == {0: "image"} and manifest.labels == {0: "background", 1: "liver", 2: "tumour"}
    said = capsys.readouterr().out
    assert "note: the dataset's classes background, liver, tumour are named as" in said
    assert "not named CT" in said and "channel_names=['CT']" in said
    # the setting as from_files takes it, beside its normalization='ct': data.normalization until the ninety-third
    assert "a name normalization='auto' normalizes as CT" in said and "data." not in said
    # a model whose names are the Dataset's own (an estimator's that named none): nothing taken, nothing said
    config = json.loads((export / "config.json").read_text())
    config.update(labels={"0": "background", "1": "class_1", "2": "class_2"}, channels={"0": "image"})
    (export / "config.json").write_text(json.dumps(config))
    assert named_as_its_start(mri, None, export) == mri.manifest and "note:" not in capsys.readouterr().out
    (export / "config.json").write_text(json.dumps({**config, "channels": {"0": "CT"}}))
    # named CT by the user, or normalized as CT by its setting, the channel takes the model's name
    for ct in (Dataset.from_files(train_pairs, n_classes=3, block_shape=16, validation_pairs=val_pairs,
                                  normalization="ct"),
               Dataset.from_files(train_pairs, n_classes=3, block_shape=16, validation_pairs=val_pairs,
                                  channel_names=["CT"])):
        assert named_as_its_start(ct, None, export).channels == {0: "CT"}


def test_a_resumed_fit_keeps_the_names_its_run_trained_with(tiny_dataset, tmp_path):
    """A resume goes on with its run's names, which its checkpoint records: they were the loaded
    model's, or none (class_1, ...) for a fit from init_from, so the resumed export and metrics named
    the same classes otherwise (a review of the eighty-seventh session)."""
    train_pairs, val_pairs = _pairs(tiny_dataset)
    settings = dict(block_shape=16, validation_pairs=val_pairs, cache_dir=str(tmp_path / "cache"), num_workers=0,
                    spacing=(2.0, 2.0, 2.0))
    named = Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "ventricles", "lesion"],
                               **settings).batch(2)
    model = Segmentation("unet", model_args=TINY_UNET, output_dir=str(tmp_path / "model"), **QUIET).fit(named, steps=1)
    unnamed = Dataset.from_files(train_pairs, n_classes=3, **settings).batch(2)
    saving = {**QUIET, "save_every": 1}

    # a new network fine-tuned from init_from, resumed without it (a resume's weights are its checkpoint's)
    tuned = Segmentation("unet", model_args=TINY_UNET, output_dir=str(tmp_path / "tuned"), **saving)
    tuned.fit(unnamed, steps=1, init_from=str(model.model_dir))
    tuned.fit(unnamed, steps=2, resume="latest")
    assert _names(tuned.model_dir)[0] == {"0": "background", "1": "ventricles", "2": "lesion"}  # class_1, class_2
    # a loaded model fine-tuned under other names, resumed on a Dataset that names none
    other = Dataset.from_files(train_pairs, n_classes=3, class_names=["background", "csf", "plaque"],
                               **settings).batch(2)
    loaded = Segmentation.load(model.model_dir, output_dir=str(tmp_path / "other"), **saving)
    loaded.fit(other, steps=1)
    loaded.fit(unnamed, steps=2, resume="latest")
    assert _names(loaded.model_dir)[0] == {"0": "background", "1": "csf", "2": "plaque"}  # the loaded model's
    # Dataset.fit too: a config from init_from, resumed by one without it
    for settings_of_the_run in (dict(max_steps=1, init_from=str(model.model_dir)), dict(max_steps=2, resume="latest")):
        config = unnamed.config(output_dir=str(tmp_path / "from_data"), **settings_of_the_run, **saving)
        config.model = dataclasses.replace(config.model, args=TINY_UNET)
        unnamed.fit(config)
    assert _names(tmp_path / "from_data" / "model")[0] == {"0": "background", "1": "ventricles", "2": "lesion"}


def test_channel_names_declare_the_channels_of_one_4d_file_per_case_as_a_dataset_jsons_modality_does(tmp_path):
    """The Decathlon's BrainTumour keeps a case's channels in one (x, y, z, C) file, which its "modality" declares;
    from_files' channel_names of as many names were refused as more names than channels, so load_cases' recipe for
    from_files failed on such a dataset (hundred-and-fifth session)."""
    import nibabel as nib
    import numpy as np

    pairs = []
    for case in range(3):
        label = np.zeros((12, 12, 12), np.uint8)
        label[3:8, 3:8, 3:8] = 1
        image = np.stack([label * 50.0 + case, label * 20.0 + 1], axis=-1).astype(np.float32)
        nib.save(nib.Nifti1Image(image, np.eye(4)), tmp_path / f"case_{case}.nii.gz")
        nib.save(nib.Nifti1Image(label, np.eye(4)), tmp_path / f"case_{case}_seg.nii.gz")
        pairs.append((str(tmp_path / f"case_{case}.nii.gz"), str(tmp_path / f"case_{case}_seg.nii.gz")))
    settings = dict(n_classes=2, block_shape=16, cache_dir=str(tmp_path / "cache"), num_workers=0,
                    validation_pairs=pairs[2:])
    data = Dataset.from_files(pairs[:2], channel_names=["FLAIR", "T1w"], **settings).batch(2)
    assert data.manifest.channels == {0: "FLAIR", 1: "T1w"}
    assert tuple(next(iter(data.loader()))["image"].shape) == (2, 2, 16, 16, 16)
    # told what the first case's file holds, which the names are judged by, in the words predict, evaluate and the
    # checks use for such a file ("each case has 1 image channel(s): one file, whose first (...) holds 2 volumes
    # (x, y, z, 2): name each" until the hundred-and-twenty-first session, helper h112; "each case has 1 image
    # channel(s)" alone until the hundred-and-fifth's review)
    with pytest.raises(ConfigError, match=r"^Dataset.from_files: .*case_0.nii.gz: shape \(12, 12, 12, 2\) is 4D with 2 "
                                          r"volumes, but channel_names declares 3 channels and this one file is given "
                                          r"for them: store them in it as \(x, y, z, 3\), or give one 3D file per "
                                          r"channel, in the order channel 0 \(FLAIR\), channel 1 \(T1w\), channel 2 "
                                          r"\(T2w\); or, where its 2 volumes are the channels, give channel_names 2 "
                                          r"names, in the file's order$"):
        Dataset.from_files(pairs[:2], channel_names=["FLAIR", "T1w", "T2w"], **settings)
    nib.save(nib.Nifti1Image(np.zeros((12, 12, 12), np.float32), np.eye(4)), tmp_path / "case_3d.nii.gz")
    first_3d = [(str(tmp_path / "case_3d.nii.gz"), pairs[0][1]), *pairs[1:2]]  # judged by a 3D first case
    with pytest.raises(ConfigError, match=r"case_3d.nii.gz: shape \(12, 12, 12\) holds one 3D volume, but "
                                          r"channel_names declares 2 channels and this one file is given for them"):
        Dataset.from_files(first_3d, channel_names=["FLAIR", "T1w"], **settings)
    nib.save(nib.Nifti1Image(np.ones((12, 12, 12, 3), np.float32), np.eye(4)), tmp_path / "case_three.nii.gz")
    with pytest.raises(ConfigError, match=r"case_three.nii.gz: shape \(12, 12, 12, 3\) is 4D with 3 volumes, but "
                                          r"channel_names declares 2 channels and this one file is given for them"):
        Dataset.from_files([(str(tmp_path / "case_three.nii.gz"), pairs[0][1])], channel_names=["FLAIR", "T1w"],
                           **settings)
    # a PyTorch array saved as it was, (2, x, y, z), given its 2 channels' names: told to save them last, as predict
    # and the checks tell it, not "is 4D with 12 volumes ... give channel_names 12 names" (review of h112)
    nib.save(nib.Nifti1Image(np.ones((2, 12, 12, 12), np.float32), np.eye(4)), tmp_path / "case_first.nii.gz")
    with pytest.raises(ConfigError, match=r"^Dataset.from_files: .*case_first.nii.gz: shape \(2, 12, 12, 12\) holds 2 "
                                          r"channels first, as PyTorch and MONAI arrays are laid out .*save the "
                                          r"channels last, np.moveaxis\(array, 0, -1\), as \(x, y, z, 2\)") as refused:
        Dataset.from_files([(str(tmp_path / "case_first.nii.gz"), pairs[0][1])], channel_names=["FLAIR", "T1w"],
                           **settings)
    assert "12 names" not in str(refused.value)
    # a later case of 3 volumes is told by the checks in from_files' words of the first ("the dataset declares 2
    # channels" until the review of h112)
    with pytest.raises(DataError, match=r"case_three.nii.gz: shape \(12, 12, 12, 3\) is 4D with 3 volumes, but "
                                        r"channel_names declares 2 channels and this one file is given for them"):
        Dataset.from_files([*pairs[:2], (str(tmp_path / "case_three.nii.gz"), pairs[2][1])],
                           channel_names=["FLAIR", "T1w"], **{**settings, "validation_pairs": None}).loader()
    # NIfTI's vector layout, (x, y, z, 1, 2) as ITK writes 2 channels, given 2 names: told by the checks to drop its
    # fourth axis, in predict's words, not "each case has 1 image channel(s): name each" (helper h109)
    vector = np.stack([np.ones((12, 12, 12), np.float32)] * 2, axis=-1)[:, :, :, None]
    nib.save(nib.Nifti1Image(vector, np.eye(4)), tmp_path / "case_vector.nii.gz")
    with pytest.raises(DataError, match=r"case_vector.nii.gz: shape \(12, 12, 12, 1, 2\) is NIfTI's vector layout .*"
                                        r"drop its fourth axis to store them as channels \(x, y, z, 2\)"):
        Dataset.from_files([(str(tmp_path / "case_vector.nii.gz"), pairs[0][1]), *pairs[1:2]],
                           channel_names=["FLAIR", "T1w"], **settings).loader()
    with pytest.raises(DataError, match=r"declares one channel: declare its channels in an MSD dataset.json's "
                                        r"'modality' \(the Decathlon's own 4D files are read so\) or "
                                        r"Dataset.from_files' channel_names, or split it"):
        Dataset.from_files(pairs[:2], **settings).loader()
