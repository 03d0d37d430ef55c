"""Prediction lands on the input's grid (non-RAS, anisotropic, cropped), multi-channel cases, TTA,
precision, CPU aggregation and the ``predict`` command. No training: exports hold random weights."""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
import torch

from accelerated_seg.cli import build_parser, main
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.preprocess import ImagesReadAlready, PreprocessSettings, preprocess
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import (
    PredictOptions,
    aggregation_device,
    check_precision,
    class_map,
    class_values,
    inverse_bytes,
    label_dtype,
    mirror_axes,
    mirrored_probabilities,
    predict_case,
    predict_cases,
    predict_file,
    prepare_case,
    preprocess_bytes,
    preprocessed_on,
    resampled_voxels,
    resampling_bytes,
    restore_case,
    runs_transforms_on_device,
    sliding_window_logits,
    transforms_device,
)
from accelerated_seg.inference_files import probabilities_path
from accelerated_seg.models import build_from_spec, model_spec
from broken_cases import with_header_affine  # tests/ is on sys.path, as for conftest

PATCH = [16, 16, 16]
TINY_UNET = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """Six phantoms: RAS, LPS, permuted axes, and anisotropic (4 mm slices) among them."""
    root = tmp_path_factory.mktemp("scans")
    dataset = write_synthetic_dataset(root, num_cases=6, num_validation=6, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    geometry = json.loads(dataset.read_text())["generator"]["cases"]
    assert {g["orientation"] for g in geometry.values()} >= {"RAS", "LPS", "SRA"} and any(
        g["spacing_mm"][2] == 4.0 for g in geometry.values())
    return root


def export(out_dir, in_channels=1, preprocess=None, spacing=(2.5, 2.5, 2.5), seed=0, **recorded):
    """An exported model folder like training writes, with random weights; ``recorded``: more of config.json."""
    spec = model_spec("unet", in_channels, 3, PATCH, TINY_UNET)
    torch.manual_seed(seed)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "ventricles", "2": "lesion"},
                "channels": {str(c): f"MRI{c}" for c in range(in_channels)}, "in_channels": in_channels,
                "num_classes": 3, "patch_size": PATCH, "spacing": list(spacing) if spacing else None}
    if preprocess is not None:
        metadata["preprocessing"] = preprocess
    write_export(tensors, spec.to_dict(), {**metadata, **recorded}, out_dir)
    return out_dir


class IntensityClasses(torch.nn.Module):
    """A 'perfect' pointwise model for images whose intensity encodes the class (see ``label_image``).

    Class boundaries sit halfway between the normalised intensities of the classes, so its argmax
    is the label wherever the preprocessing put the right voxel in front of it.
    """

    def __init__(self, thresholds):
        super().__init__()
        self.low, self.high = thresholds

    def forward(self, x):
        return torch.cat([-(x - self.low), torch.zeros_like(x), x - self.high], dim=1) * 50


def label_image(label_path, out_path):
    """An image whose intensity is 10 / 60 / 110 for classes 0 / 1 / 2 (nonzero everywhere)."""
    label = nib.load(label_path)
    values = np.asanyarray(label.dataobj).astype(np.float32) * 50 + 10
    image = nib.Nifti1Image(values, label.affine, header=label.header)
    image.set_data_dtype(np.float32)
    nib.save(image, out_path)
    # The model's thresholds in z-scored units: halfway between the classes' intensities.
    mean, std = values.mean(), values.std()
    return ((35 - mean) / std, (85 - mean) / std)


def assert_same_geometry(pred_path, image_path):
    pred, image = nib.load(pred_path), nib.load(image_path)
    assert pred.shape[:3] == image.shape
    np.testing.assert_allclose(pred.affine, image.affine, atol=1e-5)
    for code in ("qform_code", "sform_code"):
        assert pred.header[code] == image.header[code]
    np.testing.assert_allclose(pred.header.get_zooms()[:3], image.header.get_zooms()[:3], atol=1e-6)


def read_labels(path):
    return np.asanyarray(nib.load(path).dataobj)


# --------------------------------------------------------------------------------------------------
# Geometry: the prediction lands on the scan
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [f"case_{i:03d}" for i in range(6)])
def test_a_perfect_model_reproduces_the_label_exactly_on_every_grid(scans, tmp_path, name):
    # No resampling (spacing None): reorientation and its inverse alone must put every voxel back.
    thresholds = label_image(scans / "labelsTr" / f"{name}.nii.gz", tmp_path / "image.nii.gz")
    config = {"in_channels": 1, "num_classes": 3, "patch_size": PATCH, "spacing": None}
    out = predict_case(IntensityClasses(thresholds), config, [tmp_path / "image.nii.gz"], tmp_path / "pred.nii.gz",
                       device=CPU)
    assert_same_geometry(out, tmp_path / "image.nii.gz")
    np.testing.assert_array_equal(np.asanyarray(nib.load(out).dataobj),
                                  np.asanyarray(nib.load(scans / "labelsTr" / f"{name}.nii.gz").dataobj))


def test_predict_case_and_segment_cases_take_a_device_by_name(scans, tmp_path):
    """``device="cpu"``, as predict_file takes it: an AttributeError ('str' object has no attribute 'type')
    inside before a user's probe of docs/inference.md's predict_case."""
    from accelerated_seg.inference import segment_cases
    from accelerated_seg.inference_files import InputCase

    label_path = scans / "labelsTr" / "case_002.nii.gz"
    thresholds = label_image(label_path, tmp_path / "image.nii.gz")
    config = {"in_channels": 1, "num_classes": 3, "patch_size": PATCH, "spacing": None}
    model = IntensityClasses(thresholds)
    out = predict_case(model, config, [tmp_path / "image.nii.gz"], tmp_path / "pred.nii.gz", device="cpu")
    np.testing.assert_array_equal(read_labels(out), read_labels(label_path))
    job = (InputCase("image", (tmp_path / "image.nii.gz",)), tmp_path / "many" / "image.nii.gz", None)
    assert [error for _, error in segment_cases(model, config, [job], device="cpu")] == [None]
    np.testing.assert_array_equal(read_labels(tmp_path / "many" / "image.nii.gz"), read_labels(label_path))
    with pytest.raises(ValueError, match="prediction runs on cpu, cuda or mps, not meta"):
        predict_case(model, config, [tmp_path / "image.nii.gz"], tmp_path / "meta.nii.gz", device="meta")
    # The stages one by one, as the docs name them.
    from accelerated_seg.inference import case_prediction, write_case

    prepared = prepare_case(config, [tmp_path / "image.nii.gz"])
    staged = write_case(prepared, case_prediction(model, config, prepared, device="cpu"), tmp_path / "staged.nii.gz")
    np.testing.assert_array_equal(read_labels(staged), read_labels(label_path))


def test_resampling_round_trip_keeps_the_label_on_an_anisotropic_lps_grid(scans, tmp_path):
    # Resampled to 1.5 mm and back: only boundary voxels may move.
    for name in ("case_000", "case_001"):  # anisotropic RAS (4 mm slices); LPS
        label_path = scans / "labelsTr" / f"{name}.nii.gz"
        thresholds = label_image(label_path, tmp_path / "image.nii.gz")
        config = {"in_channels": 1, "num_classes": 3, "patch_size": PATCH, "spacing": [1.5, 1.5, 1.5]}
        out = predict_case(IntensityClasses(thresholds), config, [tmp_path / "image.nii.gz"],
                           tmp_path / f"{name}_pred.nii.gz", device=CPU)
        assert_same_geometry(out, label_path)
        agree = np.mean(np.asanyarray(nib.load(out).dataobj) == np.asanyarray(nib.load(label_path).dataobj))
        assert agree > 0.97, f"{name}: only {agree:.3f} of the voxels agree after the resampling round trip"


def test_voxels_cropped_away_come_back_as_background(scans, tmp_path):
    label_path = scans / "labelsTr" / "case_001.nii.gz"  # LPS
    label = np.asanyarray(nib.load(label_path).dataobj).copy()
    thresholds = label_image(label_path, tmp_path / "image.nii.gz")
    image = nib.load(tmp_path / "image.nii.gz")
    values = image.get_fdata(dtype=np.float32)
    values[:3], label[:3] = 0, 0  # a zero slab the foreground crop removes
    nib.save(nib.Nifti1Image(values, image.affine, header=image.header), tmp_path / "image.nii.gz")
    config = {"in_channels": 1, "num_classes": 3, "patch_size": PATCH,
              "preprocessing": PreprocessSettings(spacing=None, crop_foreground=True).to_dict()}
    out = predict_case(IntensityClasses(thresholds), config, [tmp_path / "image.nii.gz"], tmp_path / "pred.nii.gz",
                       device=CPU, probabilities_output=tmp_path / "probs.nii.gz")
    assert_same_geometry(out, label_path)
    np.testing.assert_array_equal(np.asanyarray(nib.load(out).dataobj), label)
    probs = nib.load(tmp_path / "probs.nii.gz").get_fdata()
    np.testing.assert_allclose(probs[:3, ..., 0], 1.0)


@pytest.mark.parametrize("recorded", ["spacing only (older exports)", "preprocess settings"])
def test_predict_cases_writes_label_maps_and_probabilities_in_each_inputs_geometry(scans, tmp_path, recorded):
    settings = None if recorded.startswith("spacing") else PreprocessSettings(spacing=(2.5, 2.5, 2.5)).to_dict()
    model = export(tmp_path / "model", preprocess=settings)
    written = predict_cases(model, [scans / "imagesTr"], tmp_path / "pred", probabilities=True)

    assert [p.name for p in written] == [f"case_{i:03d}.nii.gz" for i in range(6)]
    for path in written:
        image_path = scans / "imagesTr" / path.name
        assert_same_geometry(path, image_path)
        labels = np.asanyarray(nib.load(path).dataobj)
        assert labels.dtype == np.uint8 and set(np.unique(labels)) <= {0, 1, 2}
        probs = nib.load(probabilities_path(path))
        assert_same_geometry(probabilities_path(path), image_path)
        assert probs.shape == (*labels.shape, 3) and probs.get_data_dtype() == np.float32
        values = probs.get_fdata()
        np.testing.assert_allclose(values.sum(-1), 1.0, atol=1e-5)
        np.testing.assert_array_equal(values.argmax(-1), labels)
    assert not [p for p in (tmp_path / "pred").iterdir() if p.name.startswith(".")], "temporary files left behind"


def test_the_probabilities_are_written_from_the_networks_output_without_a_copy(scans, tmp_path, monkeypatch):
    """A copy of a probability volume is one volume per class more memory at the write (4.4 GB for 14
    classes at 512 x 512 x 300): the 4D array handed to the writer is a view of the output."""
    import accelerated_seg.inference as inference_module

    handed = []
    write = inference_module.write_nifti
    monkeypatch.setattr(inference_module, "write_nifti", lambda path, array, *args, **kwargs:
                        handed.append(array) or write(path, array, *args, **kwargs))
    predict_file(export(tmp_path / "model"), scans / "imagesTr" / "case_000.nii.gz", tmp_path / "label.nii.gz",
                 probabilities_output=tmp_path / "probs.nii.gz")
    (probabilities,) = [array for array in handed if array.ndim == 4]
    assert probabilities.dtype == np.float32 and not probabilities.flags.owndata


def test_the_label_map_keeps_the_scans_geometry_but_not_its_display_range(scans, tmp_path):
    source = nib.load(scans / "imagesTr" / "case_000.nii.gz")
    header = source.header.copy()
    header["cal_min"], header["cal_max"] = 0, 1000  # the scan's window: labels 0..2 would show black
    header.set_intent("t test", (10,))
    scan = tmp_path / "scan.nii.gz"
    nib.save(nib.Nifti1Image(np.asanyarray(source.dataobj), source.affine, header=header), scan)
    written = nib.load(predict_file(export(tmp_path / "model"), scan, tmp_path / "label.nii.gz"))
    assert (written.header["cal_min"], written.header["cal_max"]) == (0, 0)
    assert written.header.get_intent()[0] == "none"
    assert_same_geometry(tmp_path / "label.nii.gz", scan)


def test_predict_file_keeps_its_signature_and_checks_the_channel_count(scans, tmp_path):
    model = export(tmp_path / "model")
    image = scans / "imagesTr" / "case_002.nii.gz"
    out = predict_file(model, image, tmp_path / "seg.nii.gz", None, 2, 0.25)
    assert_same_geometry(out, image)
    # a list is one case's channels: for a one-channel model, most likely several cases meant
    with pytest.raises(DataError, match=r"^inputs gives 2 files .* but the model takes one channel \(MRI0\): to "
                                        r"segment them as 2 cases, call predict_cases"):
        predict_file(model, [image, image], tmp_path / "seg.nii.gz")
    # the channels in words, not config.json's dict ("in the order {'0': 'MRI0'}" until the ninety-first session)
    config = json.loads((export(tmp_path / "two", in_channels=2) / "config.json").read_text())
    with pytest.raises(DataError, match=r"^channels gives 3 files .* but the model takes 2: give one file per channel, "
                                        r"in the order channel 0 \(MRI0\), channel 1 \(MRI1\), or one 4D file"):
        prepare_case(config, [image] * 3)
    # a model naming none: its channels by their indices alone, as evaluate names them ("channel 0 (image_0), channel
    # 1 (image_1)", the names a Dataset gives them, from the hundred-and-twenty-first session, helper h112, until the
    # hundred-and-twenty-third, helper h125)
    with pytest.raises(DataError, match=r"in the order channel 0, channel 1, or one 4D file"):
        prepare_case({**config, "channels": None}, [image] * 3)
    # one 3D file (--input FILE) for both channels: the files to give, in order, as the count's message names
    # them, not nnU-Net's folder names (<case>_0000.nii.gz ..., which --input does not read), until the
    # ninety-third session
    # (in the words of training's check of such a file since the hundred-and-twentieth session, helper h109)
    with pytest.raises(DataError, match=r"holds one 3D volume, but the model takes 2 channels and this one file is "
                                        r"given for them: store them in it as \(x, y, z, 2\), or give one 3D file per "
                                        r"channel, in the order channel 0 \(MRI0\), channel 1 \(MRI1\)$"):
        prepare_case(config, [image])


def test_label_values_of_a_remapped_dataset_are_written_back():
    assert class_values(PreprocessSettings(label_map=((0, 0), (1, 1), (4, 2))), 3).tolist() == [0, 1, 4]
    assert class_values(PreprocessSettings(), 3).tolist() == [0, 1, 2]
    binarized = PreprocessSettings(label_map=((0, 0), (1, 1), (2, 1), (4, 1)))  # data.binarize
    assert class_values(binarized, 2).tolist() == [0, 1]
    # Binarized over values the declaration does not list (an aseg's): foreground is still 1, not 4.
    assert class_values(PreprocessSettings(label_map=((0, 0), (4, 1)), binarize=True), 2).tolist() == [0, 1]


def test_the_class_map_is_argmax_ties_included():
    """max(dim).indices stands in for argmax (ten times faster on the CPU): the same classes, the
    first one on a tie, for predict's (C, X, Y, Z) and validation's (1, C, X, Y, Z)."""
    probabilities = torch.softmax(torch.randn(3, 9, 8, 7, generator=torch.Generator().manual_seed(0)), 0)
    tied = (probabilities * 2).round() / 2  # most voxels tie between two or three classes
    for volume in (probabilities, tied, torch.full((3, 4, 4, 4), 1 / 3)):
        assert torch.equal(class_map(volume), volume.argmax(0))
        assert torch.equal(class_map(volume[None], 1), volume[None].argmax(1))
    assert class_map(torch.full((3, 2, 2, 2), 1 / 3)).unique().tolist() == [0]

def test_written_label_maps_hold_every_value_in_a_type_nifti_tools_read():
    assert [label_dtype(np.array(values)) for values in ([0, 4], [0, 255], [0, 2035], [0, 32767], [0, 40000])] == \
        [np.uint8, np.uint8, np.int16, np.int16, np.int32]
    values = class_values(PreprocessSettings(label_map=((0, 0), (1000, 1), (40000, 2))), 3)
    written = values[np.array([0, 1, 2])]
    assert written.astype(label_dtype(written)).tolist() == [0, 1000, 40000]  # int16 gave -25536


def test_multi_channel_cases_are_predicted_into_one_label_map_each(scans, tmp_path):
    model = export(tmp_path / "model", in_channels=2)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for name in ("case_001", "case_003"):
        for channel in (0, 1):
            shutil.copy(scans / "imagesTr" / f"{name}.nii.gz", inputs / f"{name}_{channel:04d}.nii.gz")
    written = predict_cases(model, [str(inputs / "*.nii.gz")], tmp_path / "pred")
    assert [p.name for p in written] == ["case_001.nii.gz", "case_003.nii.gz"]
    assert_same_geometry(written[0], scans / "imagesTr" / "case_001.nii.gz")


def test_a_scan_in_niftis_vector_layout_is_told_to_drop_its_fourth_axis(scans, tmp_path):
    """(x, y, z, 1, C), as ITK writes multi-component images: "holds not 3D volume(s)" said nothing of it."""
    scan = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    voxels = np.asanyarray(scan.dataobj).astype(np.float32)
    nib.save(nib.Nifti1Image(np.stack([voxels, voxels], axis=-1)[:, :, :, None, :], scan.affine), tmp_path / "v.nii.gz")
    model = export(tmp_path / "model", in_channels=2)
    with pytest.raises(DataError, match=r"v\.nii\.gz: shape \(20, 20, 16, 1, 2\) is NIfTI's vector layout .* drop its "
                                        r"fourth axis to store them as channels \(x, y, z, 2\)"):
        predict_file(model, [tmp_path / "v.nii.gz"], tmp_path / "seg.nii.gz")


def test_a_scan_behind_trailing_size_1_axes_is_segmented_as_its_volume(scans, tmp_path):
    """(x, y, z, 1, 1), one volume behind size-1 axes, as some tools write it: refused until the ninety-ninth
    session (told of the vector layout, then to drop the axes). Its label map is the 3D scan's, on its grid, and
    a (x, y, z, 2, 1) scan is still refused."""
    scan = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    voxels = np.asanyarray(scan.dataobj)
    nib.save(nib.Nifti1Image(voxels[..., None, None], scan.affine, scan.header), tmp_path / "s.nii.gz")
    model = export(tmp_path / "model")
    written = predict_file(model, [tmp_path / "s.nii.gz"], tmp_path / "seg.nii.gz")
    assert_same_geometry(written, scans / "imagesTr" / "case_001.nii.gz")
    assert nib.load(written).shape == scan.shape
    plain = predict_file(model, [scans / "imagesTr" / "case_001.nii.gz"], tmp_path / "plain.nii.gz")
    np.testing.assert_array_equal(read_labels(written), read_labels(plain))
    nib.save(nib.Nifti1Image(np.stack([voxels, voxels], axis=-1)[..., None], scan.affine), tmp_path / "two.nii.gz")
    with pytest.raises(DataError, match=r"two\.nii\.gz: a 5D image \(20, 20, 16, 2, 1\) holds not 3D volume\(s\), but "
                                        r"the model takes one channel"):
        predict_file(model, [tmp_path / "two.nii.gz"], tmp_path / "two_seg.nii.gz")


def test_a_single_slice_is_segmented_with_a_warning(scans, tmp_path):
    """The demo's model reached Dice 0.44 and 0.11 on a phantom's middle slice alone, 0.98 and 0.88 on that slice
    of the whole phantom, without a word (benchmarks/results/header_variants_2cpu.json)."""
    scan = nib.load(scans / "imagesTr" / "case_002.nii.gz")
    nib.save(scan.slicer[:, :, 7:8], tmp_path / "slice.nii.gz")
    model = export(tmp_path / "model", spacing=None)
    with pytest.warns(UserWarning, match=r"slice\.nii\.gz: a single slice, shape \(20, 20, 1\): the 3D network sees "
                                         "it padded to its patch"):
        written = predict_file(model, [tmp_path / "slice.nii.gz"], tmp_path / "seg.nii.gz")
    assert_same_geometry(written, tmp_path / "slice.nii.gz")


def test_a_scan_one_voxel_of_which_makes_its_z_score_is_segmented_with_a_warning(scans, tmp_path):
    """As training's pre-flight check warns of such a case: the network sees the rest of the scan squeezed
    towards 0 (seventy-eighth session's probe: Dice 0, without a word)."""
    import warnings

    scan = nib.load(scans / "imagesTr" / "case_002.nii.gz")
    hot = np.asanyarray(scan.dataobj).astype(np.float32)
    hot[3, 4, 5] = 1e6
    nib.save(nib.Nifti1Image(hot, scan.affine, scan.header), tmp_path / "hot.nii.gz")
    model = export(tmp_path / "model")
    with pytest.warns(UserWarning, match=r"hot\.nii\.gz: one voxel, of 1e\+06, holds 100% of the intensity variance, "
                                         r"so z-score normalization .*near blank to the network.*, and the "
                                         r"network may segment less"):
        predict_file(model, [tmp_path / "hot.nii.gz"], tmp_path / "seg.nii.gz")
    hot[3, 4, 5] = np.asanyarray(scan.dataobj)[3, 4, 5]  # three voxels instead, none making it alone
    hot[7, 8, 2:5] = [1e6, 1.1e6, 0.9e6]
    nib.save(nib.Nifti1Image(hot, scan.affine, scan.header), tmp_path / "marker.nii.gz")
    with pytest.warns(UserWarning, match=r"marker\.nii\.gz: 3 voxels, of 900000 to 1\.1e\+06, hold 100% of the "
                                         r"intensity variance.*, and the network may segment less of it; set those"):
        predict_file(model, [tmp_path / "marker.nii.gz"], tmp_path / "marker_seg.nii.gz")
    with warnings.catch_warnings():  # the scan as it was: nothing to say; a CT-windowed model clips it instead
        warnings.simplefilter("error")
        predict_file(model, [scans / "imagesTr" / "case_002.nii.gz"], tmp_path / "clean.nii.gz")
        ct = export(tmp_path / "ct", preprocess={"spacing": [2.5, 2.5, 2.5], "normalization": "ct"})
        predict_file(ct, [tmp_path / "hot.nii.gz"], tmp_path / "ct.nii.gz")


def test_a_scan_without_orientation_is_segmented_with_a_warning(scans, tmp_path):
    """nibabel's guess (x flipped, no rotation) may mirror the anatomy or swap its axes: the demo's model reached
    Dice 0.90-0.92 on copies of a phantom in SLP and PIR without their codes, 0.96 and 0.93 with them
    (benchmarks/results/header_variants_2cpu.json)."""
    save_without_orientation(scans / "imagesTr" / "case_002.nii.gz", tmp_path / "bare.nii.gz")
    with pytest.warns(UserWarning, match=r"bare\.nii\.gz: its header gives no orientation \(qform_code and sform_code "
                                         r"0\), so nibabel guesses one from pixdim \(LAS, no rotation\)"):
        written = predict_file(export(tmp_path / "model"), [tmp_path / "bare.nii.gz"], tmp_path / "seg.nii.gz")
    assert_same_geometry(written, tmp_path / "bare.nii.gz")


def save_without_orientation(scan_path: Path, out_path: Path) -> None:
    """The scan's voxels under a header whose qform and sform codes are 0."""
    bare = nib.Nifti1Image(np.asanyarray(nib.load(scan_path).dataobj), None)
    bare.header.set_qform(None, code=0)
    bare.header.set_sform(None, code=0)
    nib.save(bare, out_path)


def _dataset_named_otherwise(root: Path, cases: str, bare: str = "") -> Path:
    """``root/Task/imagesTs`` holding two 16^3 channel files of each of ``cases`` (those of ``bare`` without
    orientation), beside a dataset.json naming the channels T1 and FLAIR, of a model's MRI0 and MRI1."""
    folder = root / "Task" / "imagesTs"
    folder.mkdir(parents=True)
    for case in cases:
        for channel in range(2):
            voxels = np.full((16, 16, 16), 50, np.float32)
            image = nib.Nifti1Image(voxels, None if case in bare else np.diag([2.5, 2.5, 2.5, 1]))
            image.header.set_zooms((2.5, 2.5, 2.5))  # without an affine: qform and sform codes 0 (else 1, from it)
            nib.save(image, folder / f"{case}_{channel:04d}.nii.gz")
    (folder.parent / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "FLAIR"},
                                                            "labels": {"background": 0}}))
    return folder


def test_a_loop_of_predict_file_or_predict_cases_says_each_warning_of_its_scans_once_as_python_does(tmp_path):
    """A script predicting a dataset's cases in a loop, one call each, twice over (as over two settings), under
    Python's default filter, is told once that the dataset.json names the model's channels otherwise (by each
    function), and once of a case without orientation: every call's model load changed the warning filters
    (models.build_from_spec's catch_warnings), which resets what Python keeps of the lines that said a warning, so
    each was said at every call (the hundred-and-twenty-fourth session's
    benchmarks/results/channel_order_for_every_predict_2026-12-07/loop_warnings.txt; until the
    hundred-and-twenty-fifth)."""
    model = export(tmp_path / "model", in_channels=2)
    folder = _dataset_named_otherwise(tmp_path, "abc", bare="a")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # Python's own for these; the filters change here, before the loop alone
        for run in range(2):
            for case in "abc":
                predict_file(model, [folder / f"{case}_0000.nii.gz", folder / f"{case}_0001.nii.gz"],
                             tmp_path / f"{case}_{run}.nii.gz")
                predict_cases(model, [folder / f"{case}_0000.nii.gz", folder / f"{case}_0001.nii.gz"],
                              tmp_path / f"maps_{run}")
    said = [str(warning.message) for warning in seen]
    otherwise = [message for message in said if "names the model's channels otherwise" in message]
    unoriented = [message for message in said if "its header gives no orientation" in message]
    assert len(otherwise) == 2 and len(set(otherwise)) == 2, said  # predict_file's once, predict_cases' once
    # of the case's first file, whose grid the case is read on; said at one line of inference.py for both functions
    assert [message.split(": ")[0] for message in unoriented] == [str(folder / "a_0000.nii.gz")], said
    assert len(list((tmp_path / "maps_1").glob("*.nii.gz"))) == 3


def test_the_predict_command_says_its_warnings_in_one_line_each(scans, tmp_path):
    """As evaluate and check say theirs. Python's form, "…/accelerated_seg/inference.py:436: UserWarning: …" with
    the source line that raised it under it, was noise to someone who typed a command (until the ninety-first
    session); from Python they stay warnings (the test above)."""
    (tmp_path / "scans").mkdir()
    save_without_orientation(scans / "imagesTr" / "case_002.nii.gz", tmp_path / "scans" / "bare.nii.gz")
    model = export(tmp_path / "model")
    proc = subprocess.run([sys.executable, "-m", "accelerated_seg", "predict", "--model", str(model),
                           str(tmp_path / "scans"), "--output", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = [line for line in proc.stderr.splitlines() if line.startswith("warning: ")]
    assert len(said) == 1 and said[0].startswith(f"warning: {tmp_path / 'scans' / 'bare.nii.gz'}: its header gives "
                                                 "no orientation (qform_code and sform_code 0)"), proc.stderr
    assert not re.search(r"UserWarning|Warning:|warnings\.warn|_read_channels|\.py:\d+", proc.stderr), proc.stderr


def test_channels_on_different_grids_are_refused(scans, tmp_path):
    model = export(tmp_path / "model", in_channels=2)
    with pytest.raises(DataError, match="do not share a voxel grid"):
        predict_file(model, [scans / "imagesTr" / "case_000.nii.gz", scans / "imagesTr" / "case_001.nii.gz"],
                     tmp_path / "seg.nii.gz")
    # One shape, another orientation: the message said "shape (64, 64, 48) vs (64, 64, 48)" (sixty-eighth session)
    first = nib.load(scans / "imagesTr" / "case_000.nii.gz")
    to_lps = nib.orientations.ornt_transform(nib.io_orientation(first.affine), nib.orientations.axcodes2ornt("LPS"))
    nib.save(first.as_reoriented(to_lps), tmp_path / "lps.nii.gz")
    axcodes = "".join(nib.aff2axcodes(first.affine))
    with pytest.raises(DataError, match=f"do not share a voxel grid: channel 1 \\(MRI1\\) is LPS, channel 0 \\(MRI0\\) "
                                        f"is {axcodes}; "):
        predict_file(model, [scans / "imagesTr" / "case_000.nii.gz", tmp_path / "lps.nii.gz"], tmp_path / "seg.nii.gz")


def test_channels_whose_headers_differ_by_a_rounding_are_one_case_as_training_takes_them(scans, tmp_path):
    """The checks take channels whose affines differ by up to 1e-3 (a header's rounding) as one grid. predict
    refused those 1e-4 apart, and MONAI's stacking stopped predict, and training's preprocessing, with a
    traceback where an entry of 0 was 1e-6 off (its np.allclose): an audit's probe. Such a case is now
    predicted on its first channel's grid, as if the headers were equal."""
    from accelerated_seg.cli import main as cli_main
    from accelerated_seg.data.cases import Case
    from accelerated_seg.data.checks import check_cases
    from accelerated_seg.data.preprocess import case_dict

    model = export(tmp_path / "model", in_channels=2)
    first = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    same = tmp_path / "same"
    same.mkdir()
    shutil.copy(scans / "imagesTr" / "case_001.nii.gz", same / "c_0000.nii.gz")
    shutil.copy(scans / "imagesTr" / "case_001.nii.gz", same / "c_0001.nii.gz")
    expected = read_labels(predict_cases(model, [same], tmp_path / "expected")[0])
    for name, entry, by in (("rotation_entry", (0, 1), 1e-6), ("origin", (0, 3), 5e-4), ("voxel_size", (2, 2), 5e-5)):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(scans / "imagesTr" / "case_001.nii.gz", folder / "c_0000.nii.gz")
        affine = first.affine.copy()
        affine[entry] += by
        nib.save(nib.Nifti1Image(np.asanyarray(first.dataobj), affine, first.header), folder / "c_0001.nii.gz")
        channels = (folder / "c_0000.nii.gz", folder / "c_0001.nii.gz")
        assert check_cases([Case(name, channels, None)], 3, num_channels=2).errors == []  # training takes it
        preprocess(keys=["image"])(case_dict(Case(name, channels, None)))  # and prepares it
        assert cli_main(["predict", "--model", str(model), str(folder), "--output", str(tmp_path / f"{name}_pred"),
                         "--device", "cpu"]) == 0
        np.testing.assert_array_equal(read_labels(tmp_path / f"{name}_pred" / "c.nii.gz"), expected)


def test_an_export_asking_for_apex_instance_norm_predicts_with_torchs_and_says_so_once(tmp_path):
    """config.json's norm INSTANCE_NVFUSER where apex cannot be imported (here): MONAI builds torch's
    nn.InstanceNorm3d, the network of INSTANCE, and said so in its own words; since that was silenced
    (models.build_from_spec) predict was silent, until the ninety-third session. Said once, as a note: the
    labels are those of the same export given INSTANCE."""
    from accelerated_seg.ensemble import load_for_prediction
    from accelerated_seg.estimator import Segmentation

    plain = export(tmp_path / "plain", spacing=None)
    asking = tmp_path / "asking"
    shutil.copytree(plain, asking)
    config = json.loads((asking / "config.json").read_text())
    config["model"]["args"]["norm"] = "INSTANCE_NVFUSER"
    (asking / "config.json").write_text(json.dumps(config))
    image = tmp_path / "scans" / "case.nii.gz"
    image.parent.mkdir()
    voxels = np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32)
    nib.save(nib.Nifti1Image(voxels, np.eye(4)), image)
    said = (rf"^{re.escape(str(asking))} \(norm INSTANCE_NVFUSER\): config.json asks for apex's "
            rf"InstanceNorm3dNVFuser, which cannot be imported here; predict runs torch's nn.InstanceNorm3d in its "
            rf"place, the same network with the same weights, without apex's faster kernel")
    for model in (plain, asking):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")  # MONAI's own came once per norm layer so
            assert main(["predict", "--model", str(model), str(image.parent), "--output", str(tmp_path / model.name),
                         "--device", "cpu"]) == 0
        about_apex = [str(warning.message) for warning in seen if "apex" in str(warning.message)]
        assert len(about_apex) == (model == asking) and all(re.match(said, message) for message in about_apex)
    np.testing.assert_array_equal(read_labels(tmp_path / "asking" / "case.nii.gz"),
                                  read_labels(tmp_path / "plain" / "case.nii.gz"))
    with pytest.warns(UserWarning, match="^predict: " + said.removeprefix("^")) as seen:
        Segmentation.load(asking).predict(voxels)
    assert len([warning for warning in seen if "InstanceNorm3dNVFuser" in str(warning.message)]) == 1
    shutil.copytree(asking, tmp_path / "fold_1")  # an ensemble's members: one line naming each
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        load_for_prediction([asking, tmp_path / "fold_1", plain])
    assert [str(warning.message).split(": config.json")[0] for warning in seen if "apex" in str(warning.message)] == [
        f"{asking} (norm INSTANCE_NVFUSER), {tmp_path / 'fold_1'} (norm INSTANCE_NVFUSER)"]


def test_channels_that_place_voxels_apart_by_more_than_a_rounding_are_refused_as_the_checks_refuse_them(tmp_path):
    """Stacked on the first channel's grid, a channel within 1e-3 an entry whose voxel size was 9e-4 mm off
    was predicted (and trained on) 0.056 of a voxel from where its header puts it at the far end of a
    32-voxel axis, where MONAI's stacking had refused it (a review's probe); predict refuses it as the
    checks do. A rounding (5e-5 mm) stays one case."""
    model = export(tmp_path / "model", in_channels=2)
    half_mm = np.diag([0.5, 0.5, 0.5, 1.0])
    voxels = np.random.default_rng(0).normal(size=(32, 32, 32)).astype(np.float32)
    first = tmp_path / "c_0000.nii.gz"
    nib.save(nib.Nifti1Image(voxels, half_mm), first)
    for by in (9e-4, 5e-5):
        nudged = half_mm.copy()
        nudged[0, 0] += by
        second = tmp_path / f"{by}" / "c_0001.nii.gz"
        second.parent.mkdir()
        nib.save(nib.Nifti1Image(voxels, nudged), second)
        if by == 9e-4:
            with pytest.raises(DataError, match=r"are channels of one case but do not share a voxel grid: their "
                                                r"affines differ by 0\.001 or less in every entry, yet channel 1 "
                                                r"\(MRI1\) places a voxel 0\.056 of a voxel from where channel 0 "
                                                r"\(MRI0\) does"):
                predict_file(model, [first, second], tmp_path / "off.nii.gz")
        else:
            assert predict_file(model, [first, second], tmp_path / "rounding.nii.gz").is_file()


def test_a_case_whose_channels_mix_x_y_z_1_and_x_y_z_files_is_one_case(scans, tmp_path):
    """The checks take a (x, y, z, 1) file for one volume, as a (x, y, z) one; MONAI's stacking of one
    beside the other stopped predict, and training's preprocessing, with numpy's "all the input arrays
    must have same number of dimensions" (an audit's probe). One stored (x, y, z, 1, 1) is read so too since the
    ninety-ninth session: the checks and predict refused it."""
    from accelerated_seg.data.cases import Case
    from accelerated_seg.data.checks import check_cases
    from accelerated_seg.data.preprocess import case_dict

    model = export(tmp_path / "model", in_channels=2)
    scan = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    expected = None
    for name, size_1_axes in (("3d", (0, 0)), ("first_4d", (1, 0)), ("second_4d", (0, 1)), ("second_5d", (0, 2))):
        channels = (tmp_path / name / "c_0000.nii.gz", tmp_path / name / "c_0001.nii.gz")
        channels[0].parent.mkdir()
        for path, axes in zip(channels, size_1_axes):
            voxels = np.asanyarray(scan.dataobj)
            nib.save(nib.Nifti1Image(voxels.reshape(voxels.shape + (1,) * axes), scan.affine, scan.header), path)
        assert check_cases([Case(name, channels, None)], 3, num_channels=2).errors == []  # training takes it
        assert preprocess(keys=["image"])(case_dict(Case(name, channels, None)))["image"].shape[0] == 2
        labels = read_labels(predict_cases(model, [channels[0].parent], tmp_path / f"{name}_pred")[0])
        assert labels.shape == scan.shape
        expected = labels if expected is None else expected
        np.testing.assert_array_equal(labels, expected)


def test_a_scan_whose_sform_and_pixdim_disagree_is_read_by_its_sform_with_a_warning(scans, tmp_path):
    """MONAI's reader put the qform (pixdim's size) in the place of a set sform, even of qform_code 0:
    predict resampled such a scan as if its voxels had pixdim's size, while its output and evaluation
    went by the sform; the demo's model reached Dice 0.13 instead of 0.96 on one (sixty-eighth session)."""
    source = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    stale = nib.Nifti1Image(np.asanyarray(source.dataobj), source.affine, source.header)
    stale.header.set_qform(np.diag([1.0, 1.0, 1.0, 1.0]), code=1)  # pixdim follows the qform: 1 mm
    nib.save(stale, tmp_path / "stale_qform.nii.gz")
    assert nib.load(tmp_path / "stale_qform.nii.gz").header.get_zooms() == (1.0, 1.0, 1.0)
    config = {"in_channels": 1, "spacing": [2.5, 2.5, 2.5]}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        expected = prepare_case(config, [scans / "imagesTr" / "case_001.nii.gz"]).image
    assert not [w for w in seen if "two voxel sizes" in str(w.message)]
    with pytest.warns(UserWarning, match=r"stale_qform.nii.gz: its header gives two voxel sizes \(sform 2 x 2 x 2 mm, "
                                         r"pixdim 1 x 1 x 1 mm\); read by the sform, as nibabel does"):
        prepared = prepare_case(config, [tmp_path / "stale_qform.nii.gz"])
    assert torch.equal(prepared.image.as_tensor(), expected.as_tensor())
    np.testing.assert_allclose(prepared.image.affine, expected.affine)
    consistent = prepare_case(config, [scans / "imagesTr" / "case_001.nii.gz"])
    assert resampled_voxels(prepared) == resampled_voxels(consistent)
    # one voxel size, but the qform 10 mm off: read by the sform, said (seventy-fourth session)
    shifted = nib.Nifti1Image(np.asanyarray(source.dataobj), source.affine, source.header)
    qform = source.affine.copy()
    qform[1, 3] += 10
    shifted.header.set_qform(qform, code=1)
    nib.save(shifted, tmp_path / "shifted_qform.nii.gz")
    with pytest.warns(UserWarning, match=r"shifted_qform.nii.gz: its qform and sform place the voxels apart \(the "
                                         r"qform puts voxel \(0, 0, 0\) 10 mm from where the sform does\)"):
        moved = prepare_case(config, [tmp_path / "shifted_qform.nii.gz"])
    assert torch.equal(moved.image.as_tensor(), expected.as_tensor())


# --------------------------------------------------------------------------------------------------
# How the network runs: TTA, precision, where the volume is stitched
# --------------------------------------------------------------------------------------------------


def test_mirror_axes():
    assert len(mirror_axes("none")) == 1 and len(mirror_axes("axes")) == 4
    assert sorted(mirror_axes("all")) == sorted([(), (2,), (3,), (4,), (2, 3), (2, 4), (3, 4), (2, 3, 4)])
    with pytest.raises(ValueError, match="tta 'some' is not known"):
        mirror_axes("some")


def test_tta_averages_the_softmax_over_every_flip():
    torch.manual_seed(0)
    net = build_from_spec(model_spec("unet", 1, 3, PATCH, TINY_UNET)).eval()
    image = torch.randn(1, 1, 20, 18, 16)
    with torch.no_grad():
        expected = torch.stack([
            torch.softmax(sliding_window_logits(net, image.flip(a) if a else image, PATCH, 2, 0.5), 1).flip(a)
            if a else torch.softmax(sliding_window_logits(net, image, PATCH, 2, 0.5), 1)
            for a in mirror_axes("all")]).mean(0)
    got = mirrored_probabilities(net, image, PATCH, PredictOptions(sw_batch_size=2, tta="all"), CPU)
    torch.testing.assert_close(got, expected)
    plain = mirrored_probabilities(net, image, PATCH, PredictOptions(sw_batch_size=2), CPU)
    assert not torch.allclose(got, plain), "a random U-Net is not flip-invariant, so TTA must change something"


def test_tta_leaves_a_flip_equivariant_model_unchanged():
    pointwise = IntensityClasses((-0.5, 0.5))
    image = torch.randn(1, 1, 20, 18, 16)
    for tta in ("axes", "all"):
        torch.testing.assert_close(mirrored_probabilities(pointwise, image, PATCH, PredictOptions(tta=tta), CPU),
                                   mirrored_probabilities(pointwise, image, PATCH, PredictOptions(), CPU))


def test_fp16_is_refused_on_the_cpu_and_bf16_runs(scans, tmp_path):
    with pytest.raises(ValueError, match=r"fp16 needs a CUDA GPU.*use --precision bf16 \(precision=\"bf16\" in "
                                         r"Python\) or fp32"):
        check_precision("fp16", CPU)
    with pytest.raises(ValueError, match="fp16 needs a CUDA GPU"):
        predict_file(export(tmp_path / "model"), scans / "imagesTr" / "case_000.nii.gz", tmp_path / "x.nii.gz",
                     precision="fp16")
    thresholds = label_image(scans / "labelsTr" / "case_002.nii.gz", tmp_path / "image.nii.gz")
    config = {"in_channels": 1, "num_classes": 3, "patch_size": PATCH, "spacing": None}
    out = predict_case(IntensityClasses(thresholds), config, [tmp_path / "image.nii.gz"], tmp_path / "bf16.nii.gz",
                       device=CPU, options=PredictOptions(precision="bf16"))
    agree = np.mean(np.asanyarray(nib.load(out).dataobj)
                    == np.asanyarray(nib.load(scans / "labelsTr" / "case_002.nii.gz").dataobj))
    assert agree > 0.99


def test_a_damaged_export_is_one_error_naming_its_file(scans, tmp_path, capsys):
    """Each of these was the parser's or the library's message without the file, or a traceback."""
    image = scans / "imagesTr" / "case_001.nii.gz"

    def edit(path, change):  # a hand edit of config.json
        config = json.loads(path.read_text())
        change(config)
        path.write_text(json.dumps(config))

    def edit_args(path, **changes):  # a hand edit of the network's arguments in config.json
        config = json.loads(path.read_text())
        config["model"]["args"] = {k: v for k, v in {**config["model"]["args"], **changes}.items() if v is not None}
        path.write_text(json.dumps(config))

    damages = {
        "config.json": lambda path: path.write_text("{broken"),
        "model.safetensors": lambda path: path.write_bytes(path.read_bytes()[:100]),  # a copy cut short
        # cloned from a Git repository without Git LFS: "header too large ... damaged" until the 104th session
        "lfs_pointer": lambda path: path.write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:"
                                                     b"4d7a2146\nsize 7264\n"),
        "channels": lambda path: edit_args(path, channels=[8, 16, 32]),
        "spatial_dims": lambda path: edit_args(path, spatial_dims=None),
        "patch_size": lambda path: path.write_text(json.dumps(  # a config.json written by hand: a KeyError before
            {k: v for k, v in json.loads(path.read_text()).items() if k not in ("patch_size", "num_classes")})),
        # values training cannot have written: each was accepted before, the first z-scoring without a word
        "normalization": lambda path: edit(path, lambda c: c.update(preprocessing={"normalization": "minmax"})),
        "num_classes": lambda path: edit(path, lambda c: c.update(num_classes=4)),
        "2d_patch": lambda path: edit(path, lambda c: c.update(patch_size=[16, 16])),
        "format_version": lambda path: edit(path, lambda c: c.update(format_version=2)),
        "file_ending": lambda path: edit(path, lambda c: c.update(file_ending=".mha")),  # the predictions' name
        "spacing_set": lambda path: edit(path, lambda c: c.update(spacing_set="no")),  # "no" read as set
        "spacing_unit": lambda path: edit(path, lambda c: c.update(spacing_unit="mm ")),  # a scan's unit judged by it
        # the names predict groups a case's files by: a list was an AttributeError, a key "x" an int() error
        "channel_list": lambda path: edit(path, lambda c: c.update(channels=["MRI0"])),
        "channel_index": lambda path: edit(path, lambda c: c.update(channels={"0": "MRI0", "x": "PD"})),
    }
    expected = {"config.json": r"config.json is not valid JSON \(Expecting property name",
                "model.safetensors": r"model.safetensors cannot be read as safetensors \(.*\): the file is damaged",
                "lfs_pointer": r"lfs_pointer/model.safetensors: a Git LFS pointer \(.*\), not the weights "
                               r"themselves: the repository was cloned without Git LFS; in it, run git lfs install",
                "channels": r"config.json does not describe the network whose weights .*model.safetensors holds: "
                            r"model.0.conv.unit0.conv.weight \(4, 1, 3, 3, 3\) in the file, \(8, 1, 3, 3, 3\) as",
                "spatial_dims": r"config.json: its network UNet cannot be built from its args \(.*spatial_dims",
                "patch_size": r"config.json lacks num_classes, patch_size, which loading and predict read",
                "normalization": r"config.json: preprocessing.normalization 'minmax' is not one of zscore, ct\. "
                                 r"Training writes these",
                "num_classes": r"config.json: num_classes is 4 but the network's model.args.out_channels is 3",
                "2d_patch": r"config.json: patch_size \[16, 16\] is not 3 whole numbers >= 1",
                "format_version": r"config.json has format_version 2, newer than this accelerated_seg reads \(1\)",
                "file_ending": r"config.json: file_ending '.mha' is not a NIfTI ending \(.nii.gz, .nii\), which the "
                               r"label maps are named with\. Training writes these",
                "spacing_set": r"config.json: spacing_set 'no' is not true or false \(whether data.spacing set the "
                               r"spacing, or the training cases' median\)",
                "spacing_unit": r"config.json: spacing_unit 'mm ' is not one of mm, meter, micron or null \(the unit "
                                r"the training cases' headers declared\)",
                "channel_list": r"config.json: channels \['MRI0'\] is not a mapping of channel index \(0 to "
                                r"in_channels - 1\) to name \(\{\"0\": \"T1\", \"1\": \"FLAIR\"\}\)\. "
                                r"Training writes these",
                "channel_index": r"config.json: channels \{'0': 'MRI0', 'x': 'PD'\} is not a mapping of channel index"}
    for damage, write in damages.items():
        model = export(tmp_path / damage)
        write(model / (damage if damage in ("config.json", "model.safetensors") else
                       "model.safetensors" if damage == "lfs_pointer" else "config.json"))
        assert main(["predict", "--model", str(model), str(image), "--output", str(tmp_path / f"{damage}.nii.gz")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.search(expected[damage], err[0]), err
        assert not (tmp_path / f"{damage}.nii.gz").exists()


def test_preprocessing_refuses_a_normalization_it_does_not_know():
    """Behind the export's check: an unknown name once fell through to the z-score."""
    with pytest.raises(ValueError, match="normalization 'minmax' is not known; choose one of: zscore, ct"):
        preprocess(keys=["image"], settings=PreprocessSettings(normalization="minmax"))


def test_an_exports_median_spacing_keeps_its_float32_bits_whose_short_decimal_would_resample_otherwise(tmp_path):
    """A median spacing is taken from the headers' float32 voxel sizes, and the export writes it as it is:
    1.2 mm is 1.2000000476837158. Its shortest decimal, 1.2, is another float: predict would resample to
    it, and where a scan's length in target voxels falls on a half (a 0.6 mm scan of 8 or 512 slices:
    3.5 and 255.5, rounded to even), to one voxel more than training did; the cache key changes with it,
    and a data.spacing given as 1.2 writes 1.2 (docs/checkpoints.md, "Why the spacing reads 1.2000000476837158")."""
    from types import SimpleNamespace

    from accelerated_seg.data.preprocess_settings import preprocess_settings
    from accelerated_seg.data.spacing import median_spacing, resampled_ras_shape
    from accelerated_seg.evaluate import float32_as_decimal
    from accelerated_seg.run_records import export_metadata

    headers = [tmp_path / f"median_{i}.nii.gz" for i in range(3)]
    for path in headers:
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.diag([1.2, 1.2, 1.2, 1.0])), path)
    median = median_spacing(headers)
    assert median == (1.2000000476837158,) * 3 and float32_as_decimal(median[0]) == 1.2
    manifest = SimpleNamespace(labels={0: "background", 1: "a"}, channels={0: "MRI"}, num_channels=1,
                               num_classes=2, regions=None, ignore_value=None, file_ending=None, training=[],
                               validation=[])
    trained = PreprocessSettings(spacing=median, crop_foreground=False)
    median_set = SimpleNamespace(data=SimpleNamespace(patch_size=PATCH, spacing=None))  # data.spacing: null
    written = json.loads(json.dumps(export_metadata(median_set, manifest, trained, None)))
    assert written["preprocessing"]["spacing"] == written["spacing"] == list(median)
    read = preprocess_settings(written)
    assert read == trained and read.fingerprint() == trained.fingerprint()  # predict's, and the cache's key
    short = PreprocessSettings(spacing=(1.2, 1.2, 1.2), crop_foreground=False)
    assert short.fingerprint() != trained.fingerprint()

    def resampled(path, settings):
        return tuple(preprocess(["image"], settings)({"image": str(path)})["image"].shape[1:])

    for zoom, slices in ((0.6, 8), (0.6, 512), (0.3, 7)):
        path = tmp_path / f"scan_{zoom}_{slices}.nii.gz"
        nib.save(nib.Nifti1Image(np.ones((3, 3, slices), np.float32), np.diag([1.2, 1.2, zoom, 1.0])), path)
        shape = resampled(path, read)
        assert shape == resampled_ras_shape(path, median)  # as training resampled it
        assert resampled(path, short) == (*shape[:2], shape[2] + 1), (zoom, slices)


def test_options_are_checked_before_any_work():
    with pytest.raises(ValueError, match="overlap must be in"):
        PredictOptions(overlap=1.0)
    with pytest.raises(ValueError, match="precision 'fp8' is not known"):
        PredictOptions(precision="fp8")


def test_aggregation_moves_to_the_cpu_only_for_a_gpu_when_the_volume_would_not_fit():
    gpu, gib = torch.device("cuda"), 2**30
    assert aggregation_device(gpu, 3 * gib, None, free_bytes=8 * gib) == gpu
    assert aggregation_device(gpu, 5 * gib, None, free_bytes=8 * gib) == CPU  # over half the free memory
    assert aggregation_device(gpu, 1, True) == CPU and aggregation_device(gpu, 10 * gib, False) == gpu
    assert aggregation_device(CPU, 10 * gib, True) == CPU


class _VoxelsNotRead:
    """A lazy image's voxels, their shape and type alone: reading them is a file read a second time."""

    def __init__(self, proxy):
        self.shape, self.dtype, self.ndim = proxy.shape, proxy.dtype, proxy.ndim

    def __array__(self, *args, **kwargs):
        raise AssertionError("a file was read again")

    __getitem__ = __array__


def test_each_scan_is_decompressed_once_and_loaded_as_monai_loads_it_from_disk(scans, tmp_path, monkeypatch):
    """prepare_case reads and checks the files, then MONAI's loader takes those images (ImagesReadAlready)
    rather than reading the files again; the result is what the loader makes of the file, also for a
    header whose zooms disagree with its affine, which MONAI's own reader rewrote and ours reads by its
    sform (the caller's image, whose header the label map takes, keeps its own). A lazy load is let be as long
    as its voxels are not read: the channels' units are judged from their headers before any is read whole."""
    source = nib.load(scans / "imagesTr" / "case_003.nii.gz")
    mismatched = nib.Nifti1Image(np.asanyarray(source.dataobj), source.affine, source.header)
    mismatched.header.set_zooms((9.0, 9.0, 9.0))  # the sform still says 2 mm, and places the voxels
    nib.save(mismatched, tmp_path / "mismatched.nii.gz")
    config = {"in_channels": 1, "spacing": [2.5, 2.5, 2.5]}
    for path in (scans / "imagesTr" / "case_003.nii.gz", tmp_path / "mismatched.nii.gz"):
        expected = preprocess(keys=["image"], settings=PreprocessSettings(spacing=(2.5, 2.5, 2.5)))(
            {"image": str(path)})["image"]
        with monkeypatch.context() as patched:
            load = nib.load

            def header_alone(*args, **kwargs):
                image = load(*args, **kwargs)
                image._dataobj = _VoxelsNotRead(image.dataobj)
                return image

            patched.setattr(nib, "load", header_alone)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*two voxel sizes")
                prepared = prepare_case(config, [path])
        assert torch.equal(prepared.image.as_tensor(), expected.as_tensor())
        np.testing.assert_array_equal(prepared.image.affine, expected.affine)
        assert prepared.reference.header.get_zooms() == nib.load(path).header.get_zooms()  # left as read
        served = ImagesReadAlready({str(path): prepared.reference})
        assert served.read(str(path)) is prepared.reference and served.images == {str(path): prepared.reference}


def test_the_resampling_runs_in_float32_there_and_back_and_lands_within_a_thousandth_of_float64(scans, monkeypatch):
    """The preprocessing resamples in float32, not in Spacingd's float64, and the inverse does as the trace
    says: for 3 classes of a 192x192x160 scan the inverse took 0.67x the time and 0.30x the memory
    (benchmarks/results/prepare_case_ab_float32_2cpu.json, transform_memory_2cpu_float32.json). Against
    float64 the z-scored image moves by less than a thousandth (the class map, in that benchmark, at 6 voxels
    in a million)."""
    import accelerated_seg.data.preprocess as preprocessing
    from monai.transforms import Spacingd

    scan = scans / "imagesTr" / "case_005.nii.gz"
    settings = PreprocessSettings(spacing=(1.5, 1.5, 1.5))
    ours = preprocess(keys=["image"], settings=settings)({"image": str(scan)})["image"]
    resampling = [op for op in ours.applied_operations if op["class"] == "SpatialResample"]
    assert [op["extra_info"]["dtype"] for op in resampling] == ["float32"]
    monkeypatch.setattr(preprocessing, "Spacingd", lambda *args, dtype=None, **kwargs: Spacingd(*args, **kwargs))
    in_float64 = preprocess(keys=["image"], settings=settings)({"image": str(scan)})["image"]
    assert [op["extra_info"]["dtype"] for op in in_float64.applied_operations
            if op["class"] == "SpatialResample"] == ["float64"]  # MONAI's default, as before
    assert ours.shape == in_float64.shape and ours.dtype == in_float64.dtype == torch.float32
    assert 0 < (ours - in_float64).abs().max() < 1e-3


# --------------------------------------------------------------------------------------------------
# The transforms on the device (--transforms-on-device)
# --------------------------------------------------------------------------------------------------


def test_the_transforms_run_on_the_device_by_default_on_a_gpu_unless_declined_or_too_big(scans):
    gpu, gib, declined = torch.device("cuda"), 2**30, PredictOptions(transforms_on_device=False)
    asked = PredictOptions()  # the default since the forty-sixth session's H200 measured it (docs/inference.md)
    assert runs_transforms_on_device(gpu, asked) and not runs_transforms_on_device(gpu, declined)
    assert not runs_transforms_on_device(CPU, asked)  # on a CPU everything is on the host anyway
    assert transforms_device(gpu, 3 * gib, asked, free_bytes=8 * gib) == gpu
    assert transforms_device(gpu, 5 * gib, asked, free_bytes=8 * gib) == CPU  # over half the free memory: the host
    assert transforms_device(gpu, 1, declined, free_bytes=80 * gib) == CPU
    parse = build_parser().parse_args
    assert parse(["predict", "--model", "m", "x.nii.gz", "--output", "o"]).transforms_on_device
    assert not parse(["predict", "--model", "m", "x.nii.gz", "--output", "o", "--no-transforms-on-device"]
                     ).transforms_on_device
    assert not parse(["benchmark", "predict", "--no-transforms-on-device"]).transforms_on_device
    assert transforms_device(CPU, 1, asked) == CPU
    # the estimates count the float32 resampling: a copy of its input, a grid of 4 coordinates per target voxel,
    # its output
    assert resampling_bytes(3, 1000, 2000) == 4 * 3 * 1000 + (16 + 4 * 3) * 2000
    prepared = prepare_case({"in_channels": 1, "spacing": [2.5, 2.5, 2.5]}, [scans / "imagesTr" / "case_000.nii.gz"],
                            read_only=True)
    assert prepared.pending is not None and prepared.image.shape[1:] == prepared.reference.shape
    read = prepared.image.numel()
    resampled = resampled_voxels(prepared)  # from the header: 2 mm (4 mm slices in some) to 2.5 mm
    assert resampled == int(read * np.prod(prepared.reference.header.get_zooms()[:3]) / 2.5**3) + 1
    assert preprocess_bytes(prepared) == 4 * read + resampling_bytes(1, read, resampled) + 16 * resampled
    assert inverse_bytes(prepared, 3) == 4 * 3 * resampled + resampling_bytes(3, resampled, read) + 4 * 4 * read
    done = preprocessed_on(prepared, CPU)
    assert done.pending is None and done.image.numel() <= resampled  # cropped, never larger
    with pytest.raises(ValueError, match="transforms_on_device must be True or False, got 'no'"):
        PredictOptions(transforms_on_device="no")
    # "no" stitched on the CPU, unsaid, until the ninety-first session
    with pytest.raises(ValueError, match=r"aggregate_on_cpu must be True, False or None \(decided per case\), got 'no'"):
        PredictOptions(aggregate_on_cpu="no")


def test_the_device_road_writes_what_the_host_road_writes(scans, tmp_path, monkeypatch):
    """--transforms-on-device (prepare only reads; the network's stage preprocesses, runs the network,
    inverts and takes the class map; write_case writes the RestoredCase) writes the same bytes as the
    default road, probabilities included, for scans that are resampled in and out. A CPU never takes
    that road, so it is forced here; the test marked cuda compares the two roads on a GPU."""
    import accelerated_seg.inference as inference

    model, inputs = export(tmp_path / "model"), str(scans / "imagesTr" / "case_00[12].nii.gz")
    argv = ["predict", "--model", str(model), inputs, "--probabilities", "--tta", "axes"]
    assert main([*argv, "--output", str(tmp_path / "host"), "--transforms-on-device"]) == 0  # a CPU: the host's road
    import accelerated_seg.inference_cases as inference_cases

    on_main_thread = {"preprocessed_on": [], "restore_case": []}

    def watched(name, function):
        def run(prepared, *args, **kwargs):
            if name == "preprocessed_on":
                assert prepared.pending is not None  # prepare_case only read the files
            on_main_thread[name].append(threading.current_thread() is threading.main_thread())
            return function(prepared, *args, **kwargs)
        return run

    for name in on_main_thread:
        monkeypatch.setattr(inference, name, watched(name, getattr(inference, name)))
    for asking in (inference, inference_cases):  # segment_cases asks whether to only read, case_prediction the rest
        monkeypatch.setattr(asking, "runs_transforms_on_device", lambda device, options: options.transforms_on_device)
    assert main([*argv, "--output", str(tmp_path / "device"), "--transforms-on-device"]) == 0
    assert on_main_thread == {"preprocessed_on": [True, True], "restore_case": [True, True]}  # the network's stage
    names = ["case_001.nii.gz", "case_001_probs.nii.gz", "case_002.nii.gz", "case_002_probs.nii.gz"]
    for name in names:
        assert (tmp_path / "device" / name).read_bytes() == (tmp_path / "host" / name).read_bytes(), name
    # without --probabilities none are kept to hand over
    prepared = inference.prepare_case(json.loads((model / "config.json").read_text()),
                                      [scans / "imagesTr" / "case_001.nii.gz"])
    restored = restore_case(prepared, torch.full((3, *prepared.image.shape[1:]), 1 / 3), keep_probabilities=False)
    assert restored.probabilities is None and restored.num_classes == 3
    assert restored.classes.shape == nib.load(scans / "imagesTr" / "case_001.nii.gz").shape


@pytest.mark.cuda
def test_the_transforms_on_the_gpu_write_the_label_maps_and_probabilities_of_the_host(scans, tmp_path):
    model, gpu = export(tmp_path / "model"), torch.device("cuda")
    for road, on_device in (("host", False), ("device", True)):
        predict_cases(model, [scans / "imagesTr"], tmp_path / road, device=gpu, probabilities=True,
                      transforms_on_device=on_device, aggregate_on_cpu=False)
    assert_same_predictions(tmp_path / "host", tmp_path / "device")


@pytest.mark.cuda
@pytest.mark.parametrize("on_host", ["preprocess", "inverse"])
def test_a_transform_too_big_for_the_gpu_runs_on_the_host_beside_the_other_on_the_gpu(scans, tmp_path,
                                                                                        monkeypatch, on_host):
    """The mixed roads of --transforms-on-device: one transform's estimate does not fit (forced here) and
    it runs on the host, the other on the GPU. The inverse then meets an image preprocessed on one
    device and probabilities on the other; both roads write what the host's road writes."""
    import accelerated_seg.inference as inference

    model, gpu = export(tmp_path / "model"), torch.device("cuda")
    predict_cases(model, [scans / "imagesTr"], tmp_path / "host", device=gpu, probabilities=True,
                  transforms_on_device=False, aggregate_on_cpu=False)
    monkeypatch.setattr(inference, f"{on_host}_bytes", lambda *args: 2**62)  # more than any GPU has
    chosen, choose = [], inference.transforms_device

    def recorded(*args, **kwargs):
        chosen.append(choose(*args, **kwargs).type)
        return torch.device(chosen[-1])

    monkeypatch.setattr(inference, "transforms_device", recorded)
    predict_cases(model, [scans / "imagesTr"], tmp_path / "device", device=gpu, probabilities=True,
                  transforms_on_device=True, aggregate_on_cpu=False)
    assert chosen == (["cpu", "cuda"] if on_host == "preprocess" else ["cuda", "cpu"]) * 6
    assert_same_predictions(tmp_path / "host", tmp_path / "device")


def assert_same_predictions(host: Path, device: Path) -> None:
    """The six scans' label maps and probabilities written by two roads agree (as a GPU's resampling
    allows)."""
    for index in range(6):
        name = f"case_{index:03d}"
        images = [nib.load(road / f"{name}.nii.gz") for road in (host, device)]
        np.testing.assert_allclose(images[1].affine, images[0].affine)
        labels = [np.asanyarray(image.dataobj) for image in images]
        assert labels[1].dtype == labels[0].dtype == np.uint8
        # the GPU's resampling (in and out) rounds differently: a voxel on a near-tie may change class
        assert (labels[0] != labels[1]).mean() < 1e-3, name
        probs = [nib.load(road / f"{name}_probs.nii.gz").get_fdata() for road in (host, device)]
        # On an H200 (forty-sixth session) the preprocessing on the GPU moved 0.3% of the probabilities by
        # more than 1e-4, at most 3.4e-4 (the inverse on the GPU alone stayed within 1e-4)
        np.testing.assert_allclose(probs[1], probs[0], atol=1e-3)


def test_stitching_device_is_passed_to_the_sliding_window():
    net = torch.nn.Conv3d(1, 3, 3, padding=1)
    image = torch.randn(1, 1, 20, 18, 16)
    with torch.no_grad():
        torch.testing.assert_close(sliding_window_logits(net, image, PATCH, 2, 0.25, sw_device=CPU, device=CPU),
                                   sliding_window_logits(net, image, PATCH, 2, 0.25))


# --------------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------------


def test_predict_command_folder_to_folder_with_tta_and_probabilities(scans, tmp_path, capsys):
    model = export(tmp_path / "model")
    assert main(["predict", "--model", str(model), str(scans / "imagesTr" / "case_00[01].nii.gz"),
                 "--output", str(tmp_path / "pred"), "--tta", "--probabilities", "--precision", "bf16"]) == 0
    assert "[2/2] case_001: wrote" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == [
        "case_000.nii.gz", "case_000_probs.nii.gz", "case_001.nii.gz", "case_001_probs.nii.gz"]


def test_predict_command_keeps_the_single_file_forms(scans, tmp_path, capsys):
    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    assert main(["predict", "--model", str(model), "--input", str(image), "--output", str(tmp_path / "a.nii.gz"),
                 "--tta", "axes", "--no-aggregate-on-cpu"]) == 0
    assert main(["predict", "--model", str(model), str(image), "--output", str(tmp_path / "b.nii.gz")]) == 0
    for name in ("a.nii.gz", "b.nii.gz"):
        assert_same_geometry(tmp_path / name, image)
    capsys.readouterr()

    many_to_one = ["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(tmp_path / "c.nii.gz")]
    assert main(many_to_one) == 2
    assert "is one file, but the inputs hold 6 cases" in capsys.readouterr().err
    (tmp_path / "taken").write_text("a file where the label maps' folder must go")
    assert main(["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(tmp_path / "taken")]) == 2
    assert f"--output {tmp_path / 'taken'} is a file, not a folder" in capsys.readouterr().err  # errno 17 before
    assert main(["predict", "--model", str(model), "--output", str(tmp_path / "d")]) == 2
    assert main(["predict", "--model", str(model), str(image), "--output", str(tmp_path / "e.nii.gz"),
                 "--precision", "fp16", "--device", "cpu"]) == 2
    assert "fp16 needs a CUDA GPU" in capsys.readouterr().err
    # One case to a name without .nii.gz: refused, not an uncompressed NIfTI under that name.
    assert main(["predict", "--model", str(model), "--input", str(image), "--output", str(tmp_path / "f")]) == 2
    said = capsys.readouterr().err  # of no flag until the ninety-fifth session
    assert f"--output {tmp_path / 'f'} is no NIfTI name: a label map is written as NIfTI; end the file name in " \
           f".nii.gz (or .nii), e.g. --output {tmp_path / 'f.nii.gz'}" in said and not (tmp_path / "f").exists(), said


def test_predict_writes_the_file_ending_of_the_nnunet_dataset_the_model_was_trained_on(scans, tmp_path, capsys):
    """An nnU-Net dataset.json's "file_ending": ".nii", recorded in the export's config.json: predict wrote
    <case>.nii.gz whatever it said, where nnU-Net's users expect their dataset's ending (their labelsTs'). A label
    map named by the caller keeps its name, and the probabilities stay compressed (<case>_probs.nii.gz)."""
    model, image = export(tmp_path / "model", file_ending=".nii"), scans / "imagesTr" / "case_001.nii.gz"
    assert main(["predict", "--model", str(model), str(scans / "imagesTr" / "case_00[01].nii.gz"),
                 "--output", str(tmp_path / "pred"), "--probabilities"]) == 0
    assert f"wrote {tmp_path / 'pred' / 'case_001.nii'}\n" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == [
        "case_000.nii", "case_000_probs.nii.gz", "case_001.nii", "case_001_probs.nii.gz"]
    assert (tmp_path / "pred" / "case_001.nii").read_bytes()[:2] != b"\x1f\x8b"  # not gzip: what .nii says
    assert_same_geometry(tmp_path / "pred" / "case_001.nii", image)
    # the functions (predict_distributed's road of cases given), an ensemble (its first member's ending), a name given
    from accelerated_seg.inference_distributed import predict_distributed
    from accelerated_seg.inference_files import InputCase

    assert predict_distributed(model, [InputCase("case_001", (image,))], tmp_path / "cases") == [
        tmp_path / "cases" / "case_001.nii"]
    with pytest.warns(UserWarning, match="the label maps are named <case>.nii, as the first member's"):
        assert predict_cases([model, export(tmp_path / "other", seed=1)], [image], tmp_path / "ensemble") == [
            tmp_path / "ensemble" / "case_001.nii"]
    assert main(["predict", "--model", str(model), str(image), "--output", str(tmp_path / "named.nii.gz")]) == 0
    assert (tmp_path / "named.nii.gz").is_file() and not (tmp_path / "named.nii").exists()


def test_predict_replaces_its_own_earlier_map_of_a_case_under_the_other_ending(scans, tmp_path, capsys):
    """A folder predicted before the model recorded its dataset's ".nii" held <case>.nii.gz; predicting into it
    again wrote <case>.nii beside each, which evaluate refuses as two predictions of one case. Predict's own earlier
    map (its header's mark) is replaced as one of the same name is, --continue or not; another tool's, or one
    changed since, is refused before anything is written."""
    images = [str(scans / "imagesTr" / "case_00[01].nii.gz")]
    before, model = export(tmp_path / "before"), export(tmp_path / "model", file_ending=".nii")
    assert main(["predict", "--model", str(before), *images, "--output", str(tmp_path / "pred")]) == 0
    assert main(["predict", "--model", str(model), *images, "--output", str(tmp_path / "pred"), "--continue"]) == 0
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_000.nii", "case_001.nii"]
    assert main(["predict", "--model", str(before), *images, "--output", str(tmp_path / "pred")]) == 0
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_000.nii.gz", "case_001.nii.gz"]
    capsys.readouterr()
    # another tool's file of the case (a reference segmentation), and predict's map corrected by hand since
    other = tmp_path / "other"
    other.mkdir()
    nib.save(nib.load(scans / "imagesTr" / "case_000.nii.gz"), other / "case_000.nii.gz")
    shutil.copy(tmp_path / "pred" / "case_001.nii.gz", other / "case_001.nii.gz")
    edited = nib.load(other / "case_001.nii.gz")
    nib.save(nib.Nifti1Image(np.asanyarray(edited.dataobj) + 1, edited.affine, edited.header), other / "case_001.nii.gz")
    assert main(["predict", "--model", str(model), *images, "--output", str(other)]) == 2
    said = capsys.readouterr().err
    assert (f"{other / 'case_000.nii.gz'} (not written by predict), {other / 'case_001.nii.gz'} (changed since predict "
            f"wrote it): the label maps of these cases would be written beside them as <case>.nii, and evaluate "
            f"refuses two predictions of one case" in said), said
    assert sorted(p.name for p in other.iterdir()) == ["case_000.nii.gz", "case_001.nii.gz"]


def test_continue_passes_over_a_case_predicted_by_the_same_run_under_the_other_ending(scans, tmp_path):
    """A case whose map these models and options wrote from these scans under the other ending (a label map named
    by the caller, or decompressed since) is done: --continue predicted it again beside it, two maps of one case."""
    model, image = export(tmp_path / "model", file_ending=".nii"), scans / "imagesTr" / "case_001.nii.gz"
    named = predict_cases(model, [image], tmp_path / "pred" / "case_001.nii.gz")
    said = []
    assert predict_cases(model, [image], tmp_path / "pred", continue_prediction=True, progress=said.append) == named
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_001.nii.gz"]
    assert said[0].startswith("continuing: 1 of 1 case(s) written before"), said
    # predict_distributed's own road (cases given), which without --continue replaces it as predict_cases does
    from accelerated_seg.inference_distributed import predict_distributed
    from accelerated_seg.inference_files import InputCase

    case = [InputCase("case_001", (image,))]
    assert predict_distributed(model, case, tmp_path / "pred", continue_prediction=True) == named
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_001.nii.gz"]
    assert predict_distributed(model, case, tmp_path / "pred") == [tmp_path / "pred" / "case_001.nii"]
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_001.nii"]


def test_an_ensemble_of_members_recording_other_file_endings_says_which_it_names_the_maps_with(scans, tmp_path):
    """The members' file endings name the label maps alone, so they may differ, but the first member's was taken
    without a word: a user putting a member trained on a ".nii" dataset second got <case>.nii.gz."""
    image = scans / "imagesTr" / "case_001.nii.gz"
    plain, nii = export(tmp_path / "plain"), export(tmp_path / "nii", seed=1, file_ending=".nii")
    with pytest.warns(UserWarning, match=re.escape(
            f"the ensemble's members record other file endings ({plain}: .nii.gz, {nii}: .nii): the label maps are "
            f"named <case>.nii.gz, as the first member's; list first the member whose ending the maps should have")):
        assert predict_cases([plain, nii], [image], tmp_path / "pred") == [tmp_path / "pred" / "case_001.nii.gz"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # members recording one ending: nothing to say
        predict_cases([nii, export(tmp_path / "nii2", seed=2, file_ending=".nii")], [image], tmp_path / "same")


def test_predict_input_form_to_a_folder_says_the_output_is_one_file(tmp_path, capsys):
    """`--input a_0000.nii.gz a_0001.nii.gz --output p2d/` said "p2d: a label map is written as NIfTI": the `/`
    typed was gone, and nothing said that with --input the output is the case's file (an h15 probe)."""
    model, folder = export(tmp_path / "model", in_channels=2), tmp_path / "p2d"
    channels = [str(tmp_path / f"a_000{c}.nii.gz") for c in range(2)]
    for typed in (f"{folder}/", str(folder)):
        folder.mkdir(exist_ok=True)  # the form without the slash: a folder that is there
        assert main(["predict", "--model", str(model), "--input", *channels, "--output", typed]) == 2
        said = capsys.readouterr().err
        assert f"--output {typed} is a folder" in said and "with --input" in said, said
        assert f"e.g. --output {folder / 'a.nii.gz'}" in said and f"{folder / '<case>.nii.gz'}" in said, said
        assert list(folder.iterdir()) == []


def test_predict_input_form_to_a_folder_is_refused_alike_under_a_launch(tmp_path, monkeypatch):
    """Under a launch the outputs wait for predict_distributed, but --output p2d/ with --input is refused from
    the text typed alone, the same on every process: it went on to the generic "a label map is written as
    NIfTI" there, the `/` dropped (ninety-fourth session)."""
    import argparse

    from accelerated_seg import predict_command

    channels = [str(tmp_path / f"a_000{c}.nii.gz") for c in range(2)]
    monkeypatch.setattr(predict_command, "launched_processes", lambda: 2)
    args = argparse.Namespace(inputs=[], input=channels, output=f"{tmp_path / 'p2d'}/", probabilities=False)
    with pytest.raises(DataError, match=re.escape(f"--output {tmp_path / 'p2d'}/ is a folder")):
        predict_command._check_outputs_before_the_imports(args, [])


def _loading_refused(monkeypatch):
    """No model may load: each refusal of a call's arguments comes before it."""
    from accelerated_seg import inference, inference_cases

    def load(*_, **__):
        raise AssertionError("the model was loaded before the arguments were refused")

    for loading in (inference, inference_cases):  # predict_file's, and predict_cases'
        monkeypatch.setattr(loading, "load_for_prediction", load)


def _reaches_the_loading(call) -> None:
    """``call``, whose arguments are fine, meets ``_loading_refused``'s stand-in: a stand-in put where prediction
    does not look the loading up lets every refusal before it pass unchecked (each of the three tests below passed
    with none patched at all, the hundred-and-twelfth session's review)."""
    with pytest.raises(AssertionError, match="the model was loaded before the arguments were refused"):
        call()


def test_predict_file_refuses_misuse_in_its_arguments_words_before_the_model_loads(scans, tmp_path, monkeypatch):
    """predict_file(model, scan, "p2d/") loaded the model, then said "p2d: a label map is written as NIfTI"; an
    array as inputs was Python's "expected str, bytes or os.PathLike object", a nibabel image "Cannot slice
    image objects"; two cases' files for a one-channel model were counted as they were read; an output over
    the input was told to give --output, a flag of the command line (ninety-fifth session's probe)."""
    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_000.nii.gz"
    other, folder = scans / "imagesTr" / "case_001.nii.gz", tmp_path / "p2d"
    folder.mkdir()
    voxels = np.zeros((8, 8, 8), np.float32)
    _loading_refused(monkeypatch)
    refusals = [
        (dict(inputs=image, output=f"{tmp_path / 'new'}/"), rf"^output='{tmp_path / 'new'}/' is a folder, but "
         r"predict_file segments one case .* give e.g. output='.*/new/case_000.nii.gz', or call predict_cases\("),
        (dict(inputs=image, output=folder), rf"^output='{folder}' is a folder, but predict_file segments one case"),
        (dict(inputs=[image, other], output=tmp_path / "o.nii.gz"), r"^inputs gives 2 files \(.*case_000.nii.gz, "
         r".*case_001.nii.gz\) as the channels of one case, but the model takes one channel .*: to segment them as "
         r"2 cases, call predict_cases\(model_dir, inputs, '<folder>'\)"),
        (dict(inputs=voxels, output=tmp_path / "o.nii.gz"), r"^inputs takes NIfTI files .* but was given an array "
         r"\(numpy.ndarray, shape \(8, 8, 8\)\); Segmentation.predict takes voxels"),
        (dict(inputs=nib.load(image), output=tmp_path / "o.nii.gz"), r"^inputs takes NIfTI files .* was given an "
         r"image \(nibabel.Nifti1Image"),
        (dict(inputs=[torch.zeros(8, 8, 8)], output=tmp_path / "o.nii.gz"), r"^inputs takes NIfTI files .* was given "
         r"an array \(torch.Tensor, shape \(8, 8, 8\)\) in the list"),
        (dict(inputs=image, output=voxels), r"^output takes a path \(str or pathlib.Path\), but was given an array"),
        (dict(inputs=scans / "imagesTr", output=tmp_path / "o.nii.gz"), r"^inputs names the folder .*imagesTr, but "
         r"takes one case's files \(one per channel\): to segment the cases in it, call predict_cases\(model_dir, "),
        (dict(inputs=image, output=image), r"would overwrite the input image .*; give output a new"),
        (dict(inputs=image, output=tmp_path / "o.nii.gz", probabilities_output=image),
         r"would overwrite the input image .*; give probabilities_output a new"),
        # said "a label map is written as NIfTI", of no argument, and the probabilities are no label map
        (dict(inputs=image, output=tmp_path / "o.nii.gz", probabilities_output=f"{tmp_path / 'probs'}/"),
         rf"^probabilities_output='{tmp_path / 'probs'}/' is a folder, but the probabilities are one NIfTI file .*: "
         rf"give e.g. probabilities_output='{tmp_path / 'probs' / 'o_probs.nii.gz'}'$"),
        (dict(inputs=image, output=tmp_path / "o.nii.gz", probabilities_output=folder),
         rf"^probabilities_output='{folder}' is a folder, but .* give e.g. probabilities_output='{folder}/o_probs"),
        (dict(inputs=image, output=tmp_path / "o.nii.gz", probabilities_output=tmp_path / "probs.npy"),
         rf"^probabilities_output='{tmp_path / 'probs.npy'}' is no NIfTI name, but the probabilities are one NIfTI "
         rf"file .*: end it in .nii.gz \(or .nii\), e.g. probabilities_output='{tmp_path / 'probs.nii.gz'}'$"),
        # said predict_cases' "a case's label map and another case's <case>_probs.nii.gz have one name"
        (dict(inputs=image, output=tmp_path / "o.nii.gz", probabilities_output=str(tmp_path / "o.nii.gz")),
         rf"^probabilities_output='{tmp_path / 'o.nii.gz'}' is output's path too, so the probabilities would be "
         rf"written over the label map: give probabilities_output a path of its own, e.g. "
         rf"probabilities_output='{tmp_path / 'o_probs.nii.gz'}'$"),
    ]
    for arguments, message in refusals:
        with pytest.raises(DataError, match=message) as refused:
            predict_file(model, **arguments)
        assert "--output" not in str(refused.value) and "accelerated-seg" not in str(refused.value)
        assert "label map is written" not in str(refused.value) and "another case" not in str(refused.value)
    with pytest.raises(DataError, match=rf"^output='{tmp_path / 'o.npy'}' is no NIfTI name: a label map is written "
                                        rf"as NIfTI; .* e.g. output='{tmp_path / 'o.nii.gz'}'$"):
        predict_file(model, image, tmp_path / "o.npy")  # of no argument until the ninety-fifth session
    with pytest.raises(DataError, match=r"^model_dir takes a path \(str or pathlib.Path\), but was given an array"):
        predict_file(voxels, image, tmp_path / "o.nii.gz")  # Python's "expected str, bytes or os.PathLike object"
    assert list(folder.iterdir()) == [] and not (tmp_path / "new").exists() and not (tmp_path / "probs").exists()
    _reaches_the_loading(lambda: predict_file(model, image, tmp_path / "o.nii.gz"))


def test_predict_input_of_several_cases_for_one_channel_is_refused_in_flag_words(scans, tmp_path, capsys):
    """The command line's --input a b for a one-channel model is told as its flags, before the imports."""
    model, images = export(tmp_path / "model"), [str(scans / "imagesTr" / f"case_00{c}.nii.gz") for c in (0, 1)]
    assert main(["predict", "--model", str(model), "--input", *images, "--output", str(tmp_path / "o.nii.gz")]) == 2
    said = capsys.readouterr().err
    assert "--input gives 2 files" in said and "give the files as INPUT... (without --input)" in said, said
    assert "predict_cases" not in said, said


def test_predict_cases_refuses_misuse_in_its_arguments_words_before_the_model_loads(scans, tmp_path, monkeypatch):
    """predict_cases given an array said "File name too long" of the array's printout, and an output file for
    two cases "give a folder as --output", each after the model loaded; one path given alone was read as its
    characters ("scans/" as "s", "c", ..., "/": the whole disk's root folder)."""
    model, images = export(tmp_path / "model"), scans / "imagesTr"
    with monkeypatch.context() as patched:
        _loading_refused(patched)
        with pytest.raises(DataError, match=r"^inputs takes NIfTI files .* was given an array \(numpy.ndarray"):
            predict_cases(model, np.zeros((8, 8, 8)), tmp_path / "out")
        with pytest.raises(DataError, match=r"^output='.*one.nii.gz' is one file, but the inputs hold 6 cases .*; "
                                            r"give a folder as output$"):
            predict_cases(model, [images], tmp_path / "one.nii.gz")
        with pytest.raises(DataError, match=r"would overwrite the input image .*; give output a new"):
            predict_cases(model, [images / "case_000.nii.gz"], images / "case_000.nii.gz")
        _reaches_the_loading(lambda: predict_cases(model, [images / "case_000.nii.gz"], tmp_path / "loaded"))
    written = predict_cases(model, str(images / "case_000.nii.gz"), tmp_path / "alone")
    assert written == [tmp_path / "alone" / "case_000.nii.gz"] and written[0].is_file()


def test_estimator_predict_refuses_several_cases_as_its_x_before_the_model_loads(scans, tmp_path, monkeypatch):
    """Segmentation.predict([a, b]) for a one-channel model was said as predict_file's "channel image(s)" and
    "a folder to accelerated-seg predict", and a folder as x as "run `accelerated-seg predict`", after the model
    loaded; each is said of x, with the ways for each."""
    from accelerated_seg.estimator import Segmentation

    model = Segmentation.load(export(tmp_path / "model"))
    paths = [scans / "imagesTr" / f"case_00{c}.nii.gz" for c in (0, 1)]
    _loading_refused(monkeypatch)
    with pytest.raises(DataError, match=r"^predict: x gives 2 files \(.*case_000.nii.gz, .*case_001.nii.gz\) as the "
                                        r"channels of one case, but the model takes one channel .*call predict once "
                                        r"per case, or for files accelerated_seg.inference.predict_cases\("):
        model.predict(paths)
    with pytest.raises(DataError, match=r"^predict: x gives 2 images \(image 0 of the list, image 1 of the list\)"):
        model.predict([nib.load(path) for path in paths])
    with pytest.raises(DataError, match=r"^predict: x names the folder .*imagesTr, but takes one case's files .*call "
                                        r"predict once per case, or for files accelerated_seg.inference.predict_cases"):
        model.predict(scans / "imagesTr")
    _reaches_the_loading(lambda: model.predict(paths[0]))


def test_predict_without_model_names_the_model_given_as_an_image(scans, tmp_path, capsys):
    """`predict output/model scans/` (export and evaluate take their folders positionally) was
    argparse's bare "the following arguments are required: --model"; now the folder is named, with
    the --model that takes it, before any image is read."""
    run = tmp_path / "run"
    for name in ("model", "best_model"):  # as training writes them
        export(run / name)
    images, out = str(scans / "imagesTr"), str(tmp_path / "out")
    assert main(["predict", str(run / "model"), images, "--output", out]) == 2
    assert f"{run / 'model'} is an exported model, given as an image to segment: give --model {run / 'model'}" \
        in capsys.readouterr().err
    assert main(["predict", str(run), images, "--output", out]) == 2
    assert (f"{run} is a training run's folder, given as an image to segment: give --model {run / 'best_model'} "
            f"or --model {run / 'model'}") in capsys.readouterr().err
    assert main(["predict", images, "--output", out]) == 2
    assert "error: --model is required: the exported model folder" in capsys.readouterr().err
    assert not Path(out).exists()


def test_a_model_folder_that_is_no_export_is_refused_before_the_inference_stack_imports(tmp_path):
    """Refused from the file system alone (model_folders.py): until the fifty-fifth session each of
    these waited 9-15 s for torch, accelerate and MONAI to import on 2 cores."""
    from refusals import run_probing_imports

    run = tmp_path / "run"
    (run / "checkpoints" / "step_4").mkdir(parents=True)
    (run / "checkpoints" / "step_4" / "strategy.json").write_text("{}")
    (run / "checkpoints" / "step_4" / "export.json").write_text('{"model": ')  # a copy cut short
    (run / "model").mkdir()
    (run / "model" / "config.json").write_text("{}")  # the run's export, its weights not yet written
    for name, text in (("bert", '{"architectures": ["BertModel"]}'), ("edited", '{"model": {"name": "unet",}')):
        (tmp_path / name).mkdir()  # another program's folder of the same two names, a hand edit gone wrong
        (tmp_path / name / "config.json").write_text(text)
        (tmp_path / name / "model.safetensors").write_bytes(b"")
    (tmp_path / "cut").mkdir()  # an export whose weights a copy cut short
    (tmp_path / "cut" / "config.json").write_text('{"model": {"name": "unet"}}')
    (tmp_path / "cut" / "model.safetensors").write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{\"w\":")
    refusals = {str(tmp_path / "typo"): f"{tmp_path / 'typo' / 'config.json'} is missing: give a model folder",
                str(tmp_path / "bert"): "bert/config.json has no model section, so it is not an accelerated_seg export",
                str(tmp_path / "edited"): "edited/config.json is not valid JSON (Expecting property name",
                str(tmp_path / "cut"): "cut/model.safetensors cannot be read as safetensors (Error while deserializing",
                str(tmp_path / "bert" / "config.json"): f"is a file, not a model folder: give the folder that holds "
                                                        f"it, {tmp_path / 'bert'}",
                str(run / "checkpoints" / "step_4"): "is a training-state checkpoint, not an exported model: make one",
                str(run): f"{run} is a training run's folder, not an exported model: give {run / 'model'}",
                str(run / "model"): f"{run / 'model' / 'model.safetensors'} is missing"}
    for model, message in refusals.items():
        proc, imported = run_probing_imports("accelerated_seg.cli", "predict", "--model", model,
                                             str(tmp_path / "scan.nii.gz"), "--output", str(tmp_path / "out"),
                                             module=True)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
        assert imported == [], imported
    assert not (tmp_path / "out").exists()
    # The benchmark of a model's prediction, and the export of a checkpoint, alike.
    for args, message in ((["benchmark", "predict", "--model", str(run)], "is a training run's folder"),
                          (["benchmark", "infer", "--model", str(tmp_path / "typo")], "config.json is missing"),
                          (["benchmark", "predict", "--model", str(tmp_path / "bert")], "has no model section"),
                          (["benchmark", "infer", "--model", str(tmp_path / "cut")],
                           "the file is damaged or truncated"),
                          (["export", str(tmp_path / "typo"), "--output", str(tmp_path / "out")],
                           "is not a checkpoint"),
                          (["export", str(run / "checkpoints" / "step_9"), "--output", str(tmp_path / "out")],
                           f"step_9 does not exist ({run / 'checkpoints'} holds step_4;"),
                          (["export", str(run), "--output", str(tmp_path / "out")],
                           f"checkpoint {run / 'checkpoints' / 'step_4'} is damaged: export.json (JSONDecodeError")):
        proc, imported = run_probing_imports("accelerated_seg.cli", *args, module=True)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert imported == [], (args, imported)
    assert not (tmp_path / "out").exists()


def test_an_input_that_names_no_nifti_file_is_refused_before_the_inference_stack_imports(tmp_path):
    """A mistyped input, an empty folder, another format's file, a folder of case folders: found with the
    file system alone (inference_inputs.expand_inputs), but refused only after torch, accelerate and MONAI
    had imported, 3-5 s on 2 cores, until the ninety-first session."""
    from refusals import run_probing_imports

    model = export(tmp_path / "model")
    (tmp_path / "empty").mkdir()
    (tmp_path / "scan.mgz").write_bytes(b"FreeSurfer's")
    (tmp_path / "cases" / "case_1").mkdir(parents=True)
    (tmp_path / "cases" / "case_1" / "image.nii.gz").write_bytes(b"")
    (tmp_path / "imagesTs").mkdir()  # another format's scans: "check the path" until the hundred-and-fifth session
    (tmp_path / "imagesTs" / "a_0000.mha").write_bytes(b"ObjectType = Image")
    for given, message in ((tmp_path / "scnas", "scnas: no such file or folder; give NIfTI files, folders holding"),
                           (tmp_path / "empty", "empty holds no .nii/.nii.gz file; check the path"),
                           (tmp_path / "imagesTs", "imagesTs holds no .nii/.nii.gz file, but 1 .mha file(s) "
                                                   "(a_0000.mha), which are not read: only NIfTI is; convert them to "
                                                   "NIfTI, e.g. with SimpleITK"),
                           (tmp_path / "scan.mgz", "scan.mgz: not a NIfTI file name (.nii or .nii.gz); convert it"),
                           (tmp_path / "cases", "cases holds no .nii/.nii.gz file itself, but its subfolders hold 1")):
        proc, imported = run_probing_imports("accelerated_seg.cli", "predict", "--model", str(model), str(given),
                                             "--output", str(tmp_path / "out"), module=True)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
        assert imported == [], (given, imported)
    assert not (tmp_path / "out").exists()


def test_outputs_and_settings_predict_cannot_work_with_are_refused_before_the_inference_stack_imports(scans,
                                                                                                        tmp_path):
    """An --output that is a file, holds a file predict did not write, lies below a file or where no file
    can be made, and --overlap 1.5, --sw-batch-size 0 or --precision fp16 --device cpu: found with the file
    system and the arguments alone, but refused only after torch, accelerate and MONAI had imported, 2-5 s
    on 2 cores, until the ninety-second session. The words are those of a call from Python, after them."""
    from refusals import run_probing_imports

    model, images = export(tmp_path / "model"), scans / "imagesTr"
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "references").mkdir()
    shutil.copy(scans / "labelsTr" / "case_000.nii.gz", tmp_path / "references" / "case_000.nii.gz")
    out = str(tmp_path / "out")
    refusals = (([str(images), "--output", str(tmp_path / "a_file")], f"--output {tmp_path / 'a_file'} is a file, "
                 "not a folder; the label maps go into a folder as <case>.nii.gz"),
                ([str(images), "--output", str(tmp_path / "references")], "case_000.nii.gz (not written by predict) "
                 "already exists; predict replaces only its own outputs"),
                ([str(images), "--output", str(tmp_path / "a_file" / "sub")], "a_file is a file, so the folder for "
                 "case_000.nii.gz cannot be made; give --output a folder path"),
                ([str(images), "--output", "/proc/accelerated_seg_predictions"], "cannot be written: no file can be "
                 "made in /proc"),
                (["--input", str(images / "case_000.nii.gz"), "--output", str(tmp_path / "references" /
                                                                            "case_000.nii.gz")],
                 "case_000.nii.gz (not written by predict) already exists"),
                ([str(images), "--output", out, "--overlap", "1.5"], "--overlap must be in [0, 1), got 1.5"),
                ([str(images), "--output", out, "--sw-batch-size", "0"], "--sw-batch-size must be at least 1, got 0"),
                ([str(images), "--output", out, "--precision", "fp16", "--device", "cpu"],
                 "precision fp16 needs a CUDA GPU, but inference runs on cpu; use --precision bf16"))
    for args, message in refusals:
        proc, imported = run_probing_imports("accelerated_seg.cli", "predict", "--model", str(model), *args,
                                             module=True)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
        assert proc.stderr.count("error: ") == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert imported == [], (args, imported)
    assert not Path(out).exists() and sorted(p.name for p in (tmp_path / "references").iterdir()) == [
        "case_000.nii.gz"]
    # A Python caller meets the same refusals, in the same words, after the imports.
    with pytest.raises(DataError, match="is a file, not a folder; the label maps go into a folder"):
        predict_cases(model, [images], tmp_path / "a_file")
    with pytest.raises(DataError, match=r"\(not written by predict\) already exists"):
        predict_file(model, images / "case_000.nii.gz", tmp_path / "references" / "case_000.nii.gz")
    with pytest.raises(ValueError, match=re.escape("overlap must be in [0, 1), got 1.5")):
        predict_cases(model, [images], out, overlap=1.5)
    with pytest.raises(ValueError, match="precision fp16 needs a CUDA GPU, but inference runs on cpu"):
        predict_cases(model, [images], out, precision="fp16", device="cpu")


def test_an_output_that_is_a_folder_or_below_a_file_is_refused_before_any_case(scans, tmp_path, capsys):
    """Each was an OSError traceback (errno 17, 20 or 21) after the inference, and a folder in the way of
    the second case's probabilities left the first cases written."""
    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "folder.nii.gz").mkdir()
    (tmp_path / "out" / "case_001_probs.nii.gz").mkdir(parents=True)
    (tmp_path / "one_probs.nii.gz").mkdir()
    (tmp_path / "cases" / "case_001.nii.gz").mkdir(parents=True)
    # A folder where the probabilities go was said "so the label map cannot be written there", and to give --output
    # a file name that is not a folder, which it was (ninety-fifth session's probe).
    probabilities_refused = "is a folder, so the probabilities cannot be written there; move that folder away, or " \
                            "give --output another name"
    # A folder where one case's label map goes (the output, a NIfTI name) was told to give --output "another folder
    # for <case>.nii.gz", and one where a case's goes in the output folder "a file name": each is told its own way
    # since the ninety-sixth session.
    one_case_refused = "is a folder, so the label map cannot be written there; give --output another file name (one " \
                       "case's label map is one file), or move that folder away"
    refusals = {(str(image), str(tmp_path / "folder.nii.gz")): f"folder.nii.gz {one_case_refused}",
                (str(scans / "imagesTr"), str(tmp_path / "cases")): "case_001.nii.gz is a folder, so the label map "
                "cannot be written there; give --output another folder, or move that folder away",
                (str(image), str(tmp_path / "a_file" / "x.nii.gz")): "a_file is a file, so the folder for x.nii.gz",
                (str(scans / "imagesTr"), str(tmp_path / "a_file" / "sub")): "a_file is a file, so the folder for",
                (str(scans / "imagesTr"), str(tmp_path / "out")): f"case_001_probs.nii.gz {probabilities_refused}",
                (str(image), str(tmp_path / "one.nii.gz")): f"one_probs.nii.gz {probabilities_refused}"}
    for (source, output), message in refusals.items():
        assert main(["predict", "--model", str(model), source, "--output", output, "--probabilities"]) == 2
        said = capsys.readouterr().err
        assert message in said, said
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["case_001_probs.nii.gz"]  # no case written
    with pytest.raises(DataError, match=f"case_001_probs.nii.gz {probabilities_refused.replace('--output', 'output')}"):
        predict_cases(model, [image], tmp_path / "out", probabilities=True)
    with pytest.raises(DataError, match=re.escape(one_case_refused.replace("--output", "output"))):
        predict_cases(model, [image], tmp_path / "folder.nii.gz")
    # Case x_probs's label map and case x's probabilities share a name: the second overwrote the first
    # without a word before the twenty-ninth session.
    import shutil

    inputs = tmp_path / "inputs"
    inputs.mkdir()
    shutil.copy(image, inputs / "x.nii.gz")
    shutil.copy(image, inputs / "x_probs.nii.gz")
    assert main(["predict", "--model", str(model), str(inputs), "--output", str(tmp_path / "both"),
                 "--probabilities"]) == 2
    # "leave the probabilities out" named no argument until the ninety-sixth session: each caller's own now.
    assert f"{tmp_path / 'both' / 'x_probs.nii.gz'} would be written twice by this prediction (a case's label map " \
           f"and another case's <case>_probs.nii.gz have one name): rename one of those inputs, or leave out " \
           f"--probabilities\n" in capsys.readouterr().err
    with pytest.raises(DataError, match=r"rename one of those inputs, or give probabilities=False$"):
        predict_cases(model, [inputs], tmp_path / "both", probabilities=True)
    assert not (tmp_path / "both").exists()
    assert len(predict_cases(model, [inputs], tmp_path / "labels only")) == 2  # without probabilities: no clash


def test_predict_replaces_its_own_outputs_but_no_other_file(scans, tmp_path, capsys):
    """--output labelsTr wrote each case's label map over its reference segmentation of the same name
    before the thirtieth session; a rerun into the same folder still replaces its own outputs."""
    import hashlib

    model, references = export(tmp_path / "model"), tmp_path / "labelsTr"
    shutil.copytree(scans / "labelsTr", references)
    before = {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in references.iterdir()}
    assert main(["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(references)]) == 2
    assert re.search(r"\d+ outputs already exist: .*labelsTr/case_000.nii.gz \(not written by predict\), .*; "
                     r"predict replaces only its own outputs as it wrote them \(a reference segmentation",
                     capsys.readouterr().err)
    assert {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in references.iterdir()} == before
    image, out = scans / "imagesTr" / "case_001.nii.gz", tmp_path / "pred" / "case_001.nii.gz"
    for _ in range(2):  # a rerun replaces the label map and probabilities it wrote
        predict_file(model, image, out, probabilities_output=probabilities_path(out))
    probabilities_path(out).write_bytes(b"not a NIfTI")  # no longer one of ours
    with pytest.raises(DataError, match=r"case_001_probs.nii.gz \(not written by predict\) already exists"):
        predict_file(model, image, out, probabilities_output=probabilities_path(out))


def test_a_label_map_corrected_by_hand_is_kept_and_an_earlier_runs_probabilities_go(scans, tmp_path):
    """Two ways a rerun lost or muddled what was there (seventieth session): a label map corrected by
    hand in an editor that keeps the header (its description said predict wrote it) was replaced; and
    a rerun without --probabilities left the earlier run's, whose argmax was no longer the label map."""
    import hashlib

    model, image, out = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz", tmp_path / "pred"
    predict_cases(model, [image], out, probabilities=True)
    labels, probabilities = out / "case_001.nii.gz", out / "case_001_probs.nii.gz"
    assert nib.load(labels).header["descrip"].item().startswith(b"accelerated_seg prediction ")  # with its digest
    predict_cases(model, [image], out)  # a rerun without them: the earlier ones would belie the new map
    assert labels.is_file() and not probabilities.exists()

    written = nib.load(labels)
    original = np.asanyarray(written.dataobj).copy()  # read now: the file changes below
    corrected = original.copy()
    corrected[0, 0, 0] = 1 - min(corrected[0, 0, 0], 1)  # one voxel corrected, saved with predict's header
    nib.save(nib.Nifti1Image(corrected, written.affine, written.header), labels)
    before = hashlib.md5(labels.read_bytes()).hexdigest()
    with pytest.raises(DataError, match=r"case_001.nii.gz \(changed since predict wrote it\) already exists; predict "
                                        r"replaces only its own outputs as it wrote them \(.*a label map corrected "
                                        r"by hand, is kept\)"):
        predict_cases(model, [image], out)
    assert hashlib.md5(labels.read_bytes()).hexdigest() == before
    nib.save(nib.Nifti1Image(original, written.affine, written.header), labels)  # the correction undone
    predict_cases(model, [image], out)  # as predict wrote it again: replaced


def test_predict_never_writes_over_its_input_images_nor_predicts_nan_images(scans, tmp_path, capsys):
    import hashlib
    import shutil

    model, folder = export(tmp_path / "model"), tmp_path / "scans"
    shutil.copytree(scans / "imagesTr", folder)
    before = {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in folder.iterdir()}
    image = folder / "case_001.nii.gz"
    assert main(["predict", "--model", str(model), str(folder), "--output", str(folder)]) == 2  # the scans' folder
    assert f"--output {folder} is the folder of the scans" in capsys.readouterr().err
    assert main(["predict", "--model", str(model), str(image), "--output", str(image)]) == 2
    assert "would overwrite the input image" in capsys.readouterr().err
    with pytest.raises(DataError, match="would overwrite the input image"):
        predict_file(model, image, tmp_path / "x.nii.gz", probabilities_output=image)

    broken = nib.load(image)
    values = broken.get_fdata().astype(np.float32)
    values[1, 1, 1] = np.nan
    nib.save(nib.Nifti1Image(values, broken.affine), tmp_path / "nan.nii.gz")
    with pytest.raises(DataError, match=r"nan.nii.gz: 1 non-finite voxel\(s\) \(1 NaN, 0 Inf\)"):
        predict_file(model, tmp_path / "nan.nii.gz", tmp_path / "y.nii.gz")
    # One case given alone: an earlier run's map and probabilities there go as well (eighty-third session).
    predict_file(model, image, tmp_path / "earlier.nii.gz", probabilities_output=tmp_path / "earlier_p.nii.gz")
    with pytest.raises(DataError, match=r"non-finite .*\(an earlier run's earlier.nii.gz and earlier_p.nii.gz removed"):
        predict_file(model, tmp_path / "nan.nii.gz", tmp_path / "earlier.nii.gz",
                     probabilities_output=tmp_path / "earlier_p.nii.gz")
    assert not (tmp_path / "earlier.nii.gz").exists() and not (tmp_path / "earlier_p.nii.gz").exists()
    # All NaN: the foreground crop (voxels above 0) leaves nothing, which once gave a background map.
    nib.save(nib.Nifti1Image(np.full_like(values, np.nan), broken.affine), tmp_path / "all_nan.nii.gz")
    with pytest.raises(DataError, match="all_nan.nii.gz: .* non-finite voxel"):
        predict_file(model, tmp_path / "all_nan.nii.gz", tmp_path / "y.nii.gz")
    # No voxel above 0 (a scan stored with another offset): the crop kept nothing, and the case came
    # back as an all-background map, exit 0 (seventy-second session's probe); training refuses it too
    finite = broken.get_fdata().astype(np.float32)
    nib.save(nib.Nifti1Image(finite - finite.max() - 1, broken.affine), tmp_path / "shifted.nii.gz")
    cropping = export(tmp_path / "cropping", preprocess=PreprocessSettings(spacing=(2.5,) * 3).to_dict())
    with pytest.raises(DataError, match=r"shifted.nii.gz: no image voxel is above 0, and this model's preprocessing "
                                        r"\(its training's data.crop_foreground, on for zscore\) keeps only"):
        predict_file(cropping, tmp_path / "shifted.nii.gz", tmp_path / "y.nii.gz")
    predict_file(model, tmp_path / "shifted.nii.gz", tmp_path / "shifted_seg.nii.gz")  # no crop: segmented
    values[1, 1, 1] = -np.inf
    nib.save(nib.Nifti1Image(values, broken.affine), tmp_path / "inf.nii.gz")
    with pytest.raises(DataError, match=r"inf.nii.gz: 1 non-finite voxel\(s\) \(0 NaN, 1 Inf\)"):
        predict_file(model, tmp_path / "inf.nii.gz", tmp_path / "y.nii.gz")
    # A damaged header geometry: MONAI's reorientation failed on it with a LinAlgError traceback.
    nib.save(nib.Nifti1Image(np.zeros_like(values), broken.affine), tmp_path / "flat.nii.gz")
    with_header_affine(tmp_path / "flat.nii.gz", [0.0, 0.0, 0.0, 0.0])
    with pytest.raises(DataError, match=r"flat.nii.gz: the affine \(voxel-to-world matrix\) is singular"):
        predict_file(model, tmp_path / "flat.nii.gz", tmp_path / "y.nii.gz")
    # Complex voxels lost their imaginary part with only NumPy's warning; RGB ones failed in MONAI's loader.
    nib.save(nib.Nifti1Image(values.astype(np.complex64), broken.affine), tmp_path / "complex.nii.gz")
    with pytest.raises(DataError, match="complex.nii.gz: its voxels are complex64 values, not real numbers"):
        predict_file(model, tmp_path / "complex.nii.gz", tmp_path / "y.nii.gz")
    nib.save(nib.Nifti1Image(values[:, :, 0], broken.affine), tmp_path / "slice.nii.gz")
    with pytest.raises(DataError, match="slice.nii.gz: a 2D image"):
        predict_file(model, tmp_path / "slice.nii.gz", tmp_path / "y.nii.gz")
    assert not (tmp_path / "y.nii.gz").exists()
    assert {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in folder.iterdir()} == before
    # Among other cases, a NaN one no longer stops the cases after it (twenty-ninth session): as with
    # several processes, the others are written and the failed ones named together at the end.
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("a_good.nii.gz", "c_good.nii.gz"):
        shutil.copy(image, mixed / name)
    shutil.copy(tmp_path / "nan.nii.gz", mixed / "b_nan.nii.gz")
    with pytest.raises(DataError, match=r"^1 of 3 case\(s\) could not be segmented \(the other 2 are written\):\n"
                                        r"case b_nan: .*b_nan.nii.gz: 1 non-finite voxel\(s\)"):
        predict_cases(model, [mixed], tmp_path / "labels")
    assert sorted(p.name for p in (tmp_path / "labels").iterdir()) == ["a_good.nii.gz", "c_good.nii.gz"]
    # A rerun into the same folder: the failed case's map from an earlier run (here, another case's)
    # stayed among the new ones, taken for this run's (eighty-third session's review). It goes, said.
    shutil.copy(tmp_path / "labels" / "a_good.nii.gz", tmp_path / "labels" / "b_nan.nii.gz")
    with pytest.raises(DataError, match=r"case b_nan: .*non-finite.* \(an earlier run's b_nan.nii.gz removed: it was "
                                        r"not this run's\)"):
        predict_cases(model, [mixed], tmp_path / "labels")
    assert sorted(p.name for p in (tmp_path / "labels").iterdir()) == ["a_good.nii.gz", "c_good.nii.gz"]
    # so does one under the other ending, which this run's b_nan.nii.gz would have replaced (ninety-seventh session)
    nib.save(nib.load(tmp_path / "labels" / "a_good.nii.gz"), tmp_path / "labels" / "b_nan.nii")
    with pytest.raises(DataError, match=r"case b_nan: .*non-finite.* \(an earlier run's b_nan.nii removed: it was "
                                        r"not this run's\)"):
        predict_cases(model, [mixed], tmp_path / "labels")
    assert sorted(p.name for p in (tmp_path / "labels").iterdir()) == ["a_good.nii.gz", "c_good.nii.gz"]
    assert main(["predict", "--model", str(model), str(mixed), "--output", str(tmp_path / "again")]) == 2
    assert "1 of 3 case(s) could not be segmented" in capsys.readouterr().err
    only = tmp_path / "only"
    only.mkdir()
    shutil.copy(tmp_path / "nan.nii.gz", only / "b_nan.nii.gz")
    with pytest.raises(DataError, match=r"^1 of 1 case\(s\) could not be segmented \(nothing is written\):\n"):
        predict_cases(model, [only], tmp_path / "only_labels")  # "(the others are written)" of none, before


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_device_the_machine_lacks_is_refused_by_name():
    from accelerated_seg.inference import default_device

    assert default_device(None) == torch.device("cpu")
    # the way in both spellings: the estimator's predict(device=) said "--device" alone
    with pytest.raises(ValueError, match="device 'cuda:1': this machine has 0 CUDA GPU.*--device cpu, device=\"cpu\""):
        default_device("cuda:1")
    with pytest.raises(ValueError, match="device 'gpu' is not a device name torch knows"):
        default_device("gpu")
    # Both were tracebacks: "PyTorch is not linked with support for mps devices", and MONAI's "Seems to be OOM".
    if not torch.backends.mps.is_available():
        with pytest.raises(ValueError, match="device 'mps': this machine has no Apple GPU"):
            default_device("mps")
    with pytest.raises(ValueError, match="device 'meta': prediction runs on cpu, cuda or mps, not meta"):
        default_device("meta")


# --------------------------------------------------------------------------------------------------
# Ensembles: several exported models predicting as one
# --------------------------------------------------------------------------------------------------


def test_an_ensemble_predicts_the_mean_of_its_members_probabilities(scans, tmp_path, capsys):
    from accelerated_seg.ensemble import ModelEnsemble

    a, b = export(tmp_path / "a", seed=0), export(tmp_path / "b", seed=1)
    a_again = shutil.copytree(a, tmp_path / "a_again")

    def probabilities(models, name):
        written = predict_cases(models, [scans / "imagesTr" / "case_001.nii.gz"], tmp_path / name, probabilities=True)
        return nib.load(probabilities_path(written[0])).get_fdata(), np.asanyarray(nib.load(written[0]).dataobj)

    (p_a, labels_a), (p_b, _) = probabilities(a, "a"), probabilities(b, "b")
    # Each member's stitched probabilities averaged: two copies of one model predict exactly as it does.
    p_aa, labels_aa = probabilities([a, a_again], "aa")
    np.testing.assert_array_equal(p_aa, p_a)
    np.testing.assert_array_equal(labels_aa, labels_a)
    p_ab, labels_ab = probabilities([a, b], "ab")
    assert np.abs(p_a - p_b).max() > 0.01  # two different networks
    np.testing.assert_allclose(p_ab, (p_a + p_b) / 2, atol=1e-5)
    np.testing.assert_array_equal(labels_ab, p_ab.argmax(-1))

    # From the command line, --model once per member; called directly, the ensemble gives log-probabilities.
    case = str(scans / "imagesTr" / "case_001.nii.gz")
    assert main(["predict", "--model", str(a), "--model", str(b), case, "--output", str(tmp_path / "cli")]) == 0
    assert "ensemble of 2 models: the mean of their probabilities" in capsys.readouterr().out
    np.testing.assert_array_equal(np.asanyarray(nib.load(tmp_path / "cli" / "case_001.nii.gz").dataobj), labels_ab)
    members = [build_from_spec(model_spec("unet", 1, 3, PATCH, TINY_UNET)).eval() for _ in range(2)]
    x = torch.randn(2, 1, *PATCH)
    with torch.no_grad():
        mean = torch.stack([torch.softmax(m(x), dim=1) for m in members]).mean(0)
        torch.testing.assert_close(torch.softmax(ModelEnsemble(members)(x), dim=1), mean)


def test_models_that_cannot_share_one_preprocessing_and_window_are_refused_as_an_ensemble(scans, tmp_path):
    from accelerated_seg.config import ConfigError

    a = export(tmp_path / "a", preprocess=PreprocessSettings(spacing=(2.5, 2.5, 2.5)).to_dict())
    other_spacing = export(tmp_path / "spacing", spacing=(2.0, 2.0, 2.0),
                           preprocess=PreprocessSettings(spacing=(2.0, 2.0, 2.0)).to_dict())
    other_patch = shutil.copytree(a, tmp_path / "patch")
    config = json.loads((other_patch / "config.json").read_text())
    (other_patch / "config.json").write_text(json.dumps({**config, "patch_size": [24, 24, 24]}))
    case = [scans / "imagesTr" / "case_001.nii.gz"]
    with pytest.raises(ConfigError, match=r"spacing cannot join .*a in an ensemble: preprocessing .*; spacing "
                                          r"\[2.5, 2.5, 2.5\] against \[2.0, 2.0, 2.0\].*set data.spacing") as refused:
        predict_cases([a, other_spacing], case, tmp_path / "out")
    # The folds of one cross-validation share one median since the seventy-fifth session: the hint
    # blamed "each fold's median" after that, sending their users to data.spacing for nothing
    assert "each fold's" not in str(refused.value) and "cross-validation share" in str(refused.value)
    with pytest.raises(ConfigError, match=r"patch_size \[16, 16, 16\] against \[24, 24, 24\]") as refused:
        predict_cases([a, other_patch], case, tmp_path / "out")
    assert "data.spacing" not in str(refused.value)  # the spacing hint followed every difference before
    with pytest.raises(ConfigError, match="lists the model .* twice"):
        predict_cases([a, tmp_path / "." / "a"], case, tmp_path / "out")
    with pytest.raises(ConfigError, match="no model given"):
        predict_cases([], case, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------------
# Post-processing: a class kept to its largest connected component
# --------------------------------------------------------------------------------------------------


def test_only_the_chosen_classes_lose_the_pieces_outside_their_largest_component():
    from accelerated_seg.postprocess import keep_largest_components

    classes = np.zeros((12, 12, 12), np.uint8)
    classes[1:5, 1:5, 1:5] = 1  # class 1: a big piece,
    classes[5, 5, 5] = 1  # a voxel touching it by a corner only (26-connected: the same piece),
    classes[9:11, 9:11, 9:11] = 1  # and a small piece apart
    classes[1:3, 8:10, 1:3] = 2  # class 2: two pieces (8 and 18 voxels), not chosen
    classes[8:11, 1:3, 8:11] = 2
    kept = keep_largest_components(classes, [1])
    expected = classes.copy()
    expected[9:11, 9:11, 9:11] = 0
    np.testing.assert_array_equal(kept, expected)
    both = keep_largest_components(classes, [1, 2])
    assert (both[1:3, 8:10, 1:3] == 0).all() and (both[8:11, 1:3, 8:11] == 2).all()
    assert classes[9, 9, 9] == 1  # the input is left as it was


def test_keep_largest_names_label_values_as_the_written_map_holds_them():
    from accelerated_seg.config import ConfigError
    from accelerated_seg.postprocess import largest_component_classes

    brats = np.array([0, 1, 2, 4])  # class index -> label value, as a remapped dataset writes them
    assert largest_component_classes(True, brats) == (1, 2, 3)
    assert largest_component_classes([4, 1], brats) == (1, 3)
    assert largest_component_classes(False, brats) == largest_component_classes(None, brats) == ()
    with pytest.raises(ConfigError, match="keep_largest: 3, 0 is not a foreground label of the model; its label "
                                          r"values are 1, 2, 4 \(background 0\)"):
        largest_component_classes([3, 0], brats)


def test_predict_keeps_each_chosen_class_to_one_piece_and_the_probabilities_as_they_were(scans, tmp_path, capsys):
    from scipy import ndimage

    model = export(tmp_path / "model", seed=3)
    case = scans / "imagesTr" / "case_002.nii.gz"
    (plain,) = predict_cases(model, [case], tmp_path / "plain", probabilities=True)
    (kept,) = predict_cases(model, [case], tmp_path / "kept", probabilities=True, keep_largest=True)
    before, after = read_labels(plain), read_labels(kept)
    pieces = {c: ndimage.label(before == c, structure=np.ones((3, 3, 3)))[1] for c in (1, 2)}
    assert max(pieces.values()) > 1, pieces  # random weights: scattered classes, something to remove
    for c in (1, 2):
        assert ndimage.label(after == c, structure=np.ones((3, 3, 3)))[1] == min(pieces[c], 1)
    changed = before != after
    assert changed.any() and (after[changed] == 0).all()  # pieces became background, nothing else moved
    np.testing.assert_array_equal(nib.load(probabilities_path(kept)).get_fdata(),
                                  nib.load(probabilities_path(plain)).get_fdata())
    # From the command line: --keep-largest alone is every foreground label, with values those labels.
    assert main(["predict", "--model", str(model), str(case), "--output", str(tmp_path / "cli"), "--keep-largest"]) == 0
    np.testing.assert_array_equal(read_labels(tmp_path / "cli" / "case_002.nii.gz"), after)
    assert main(["predict", "--model", str(model), str(case), "--output", str(tmp_path / "one"),
                 "--keep-largest", "2"]) == 0
    one = read_labels(tmp_path / "one" / "case_002.nii.gz")
    np.testing.assert_array_equal(one == 1, before == 1)
    np.testing.assert_array_equal(one == 2, after == 2)
    capsys.readouterr()
    assert main(["predict", "--model", str(model), str(case), "--output", str(tmp_path / "bad"),
                 "--keep-largest", "7"]) == 2
    assert "--keep-largest: 7 is not a foreground label of the model" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_predicts_refusals_of_its_options_name_the_commands_flags(scans, tmp_path, capsys):
    """predict --sw-batch-size 0 was "sw_batch_size must be at least 1, got 0", --overlap 1.5 "overlap must be in
    [0, 1)", --keep-largest 7 "keep_largest: 7 is not a foreground label": the keyword arguments of predict_cases,
    which the command's user never typed (ninety-first session). They name the flags; from Python,
    the keywords, as before."""
    model = export(tmp_path / "model")
    case = scans / "imagesTr" / "case_002.nii.gz"
    for flags, said in ((["--sw-batch-size", "0"], "--sw-batch-size must be at least 1, got 0"),
                        (["--overlap", "1.5"], "--overlap must be in [0, 1), got 1.5"),
                        (["--overlap", "-0.5"], "--overlap must be in [0, 1), got -0.5"),
                        (["--keep-largest", "7"], "--keep-largest: 7 is not a foreground label of the model")):
        assert main(["predict", "--model", str(model), str(case), "--output", str(tmp_path / "out"), *flags]) == 2
        assert capsys.readouterr().err.startswith(f"error: {said}"), flags
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match=re.escape("sw_batch_size must be at least 1, got 0")):  # Python's words
        predict_cases(model, [case], tmp_path / "out", sw_batch_size=0)
    assert main(["benchmark", "predict", "--overlap", "1", "--cases", "2", "--output", str(tmp_path / "bench")]) == 2
    assert capsys.readouterr().err.startswith("error: --overlap must be in [0, 1), got 1.0")


def test_a_killed_runs_temporaries_are_cleared_and_predictions_given_as_scans_are_said(scans, tmp_path):
    """A kill (or a time limit's SIGTERM) left predict's hidden temporaries in the output folder for
    good; and a folder of predict's label maps given as the scans was segmented without a word
    (seventieth session)."""
    import os
    import time

    model, image, out = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz", tmp_path / "pred"
    out.mkdir()
    killed = out / f".case_001.nii.gz.{'0' * 32}.tmp.nii.gz"  # as write_nifti names them
    killed.write_bytes(b"half a label map")
    hours_ago = time.time() - 2 * 3600
    os.utime(killed, (hours_ago, hours_ago))
    predict_cases(model, [image], out)
    assert sorted(p.name for p in out.iterdir()) == ["case_001.nii.gz"]
    with pytest.warns(UserWarning, match=r"case_001.nii.gz: its header says predict wrote it, so it is a label map"):
        predict_cases(model, [out / "case_001.nii.gz"], tmp_path / "again")
    four_d = nib.Nifti1Image(np.zeros((20, 20, 20, 2), np.float32), np.eye(4))
    nib.save(four_d, tmp_path / "two.nii.gz")
    with pytest.raises(DataError, match=r"two.nii.gz: a 4D image \(20, 20, 20, 2\) holds 2 3D volume\(s\), but the "
                                        r"model takes one channel"):  # "give one 3D file per channel" before
        predict_cases(model, [tmp_path / "two.nii.gz"], tmp_path / "four")


def test_a_second_predict_into_a_folder_in_use_is_refused_before_any_case(scans, tmp_path, capsys):
    """Two predicts into one --output at once each wrote their cases whole, leaving a folder that held
    label maps of two models without a word (until the seventy-seventh session); the second is refused,
    by the command, by predict_cases and by predict_distributed's path of given cases alike."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.inference_distributed import predict_distributed
    from accelerated_seg.inference_files import InputCase
    from accelerated_seg.run_lock import LOCK_NAME, hold_run_folder

    model, image, out = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz", tmp_path / "pred"
    first = hold_run_folder(out)  # a predict writing there (flock excludes a second open in this process too)
    assert main(["predict", "--model", str(model), str(image), "--output", str(out)]) == 2
    assert re.search(rf"{out} is in use by another run \(process \d+ on .*\): two runs writing into one folder mix "
                     r"their outputs there. Wait for it to end \(or stop it\), or predict into another "
                     r"--output folder", capsys.readouterr().err)
    with pytest.raises(ConfigError, match="two runs writing into one folder"):
        predict_distributed(model, [InputCase("case_001", (image,))], out)
    assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]  # nothing segmented
    first.release()
    predict_cases(model, [image], out)
    assert sorted(p.name for p in out.iterdir()) == ["case_001.nii.gz"]  # and no lock left behind
    # A file as --output locks nothing (its folder may hold unrelated files), but a live run's folder refuses it
    single = tmp_path / "single" / "case_001.nii.gz"
    held = hold_run_folder(single.parent)
    with pytest.raises(ConfigError, match=rf"{single.parent} is in use by another run"):
        predict_cases(model, [image], single)
    held.release()
    predict_cases(model, [image], single)
    assert sorted(p.name for p in single.parent.iterdir()) == ["case_001.nii.gz"]


def test_a_second_predict_writing_through_links_where_one_writes_is_refused_naming_both_paths(scans, tmp_path):
    """Predict locks what its writes reach (files.written_through), not --output as given: two predicts into two
    folders whose maps are links into one folder, or into one file through links from two folders, or one plain
    file twice, each wrote the other's maps over until the hundred-and-twenty-first session. The second is refused
    before any case, naming the real target, its link and the first run; the first leaves no lock behind."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.inference_files import holding_output_folder

    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    store, study = tmp_path / "store", tmp_path / "study"
    predict_cases(model, [image], store)  # earlier maps of predict's own, which a rerun may replace
    predict_cases(model, [image], study / "seg.nii.gz")
    for folder in ("out1", "out2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "case_001.nii.gz").symlink_to(store / "case_001.nii.gz")
        (tmp_path / folder / "seg.nii.gz").symlink_to(study / "seg.nii.gz")
    untouched = {path: os.stat(path).st_ino for path in (store / "case_001.nii.gz", study / "seg.nii.gz")}
    first_run = r"is in use by another run \(process \d+ on [^)]*\): "
    # the first holds what a live predict holds (flock excludes a second open, in this process too)
    with holding_output_folder(tmp_path / "out1", [tmp_path / "out1" / "case_001.nii.gz"]):
        with pytest.raises(ConfigError, match=rf"^{store} \(which {tmp_path / 'out2' / 'case_001.nii.gz'} is a "
                                              rf"symbolic link into\) {first_run}two runs writing into one folder"):
            predict_cases(model, [image], tmp_path / "out2")
        with pytest.raises(ConfigError, match=rf"^{store} {first_run}"):  # into the folder itself, plainly
            predict_cases(model, [image], store)
    with holding_output_folder(tmp_path / "out1" / "seg.nii.gz", [tmp_path / "out1" / "seg.nii.gz"]):
        with pytest.raises(ConfigError, match=rf"^{study / 'seg.nii.gz'} \(which {tmp_path / 'out2' / 'seg.nii.gz'} "
                                              rf"is a symbolic link to\) {first_run}two runs writing one label map "
                                              r"replace each other's. Wait for it to end \(or stop it\), or predict "
                                              r"into another file"):
            predict_cases(model, [image], tmp_path / "out2" / "seg.nii.gz")
        with pytest.raises(ConfigError, match=rf"^{study / 'seg.nii.gz'} {first_run}"):  # the file by its own path
            predict_cases(model, [image], study / "seg.nii.gz")
    assert {path: os.stat(path).st_ino for path in untouched} == untouched  # nothing written by the refused
    predict_cases(model, [image], tmp_path / "out2")
    predict_cases(model, [image], tmp_path / "out2" / "seg.nii.gz")
    assert sorted(p.name for p in store.iterdir()) == ["case_001.nii.gz"]  # no lock left where the links lead
    assert sorted(p.name for p in study.iterdir()) == ["seg.nii.gz"]
    assert (tmp_path / "out2" / "case_001.nii.gz").is_symlink() and (tmp_path / "out2" / "seg.nii.gz").is_symlink()


def test_a_folder_predict_writing_a_map_a_live_single_map_predict_holds_is_refused_and_two_files_are_not(scans,
                                                                                                     tmp_path):
    """A single-map predict holds its file's own lock, not its folder's: a folder's predict into that folder, one of
    whose cases is that map, looked at the folder's lock alone until the hundred-and-twenty-first session's review,
    and both wrote it. Now it is refused before any case, naming the map; two single-map predicts into two files of
    one folder each go on, as before; nothing is left beside the maps."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.inference_files import holding_output_folder

    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    out = tmp_path / "out"
    with holding_output_folder(out / "case_001.nii.gz", [out / "case_001.nii.gz"]):
        with pytest.raises(ConfigError, match=rf"^{out / 'case_001.nii.gz'} is in use by another run \(process \d+ "
                                              rf"on [^)]*\): two runs writing one label map replace each other's"):
            predict_cases(model, [image], out)
        assert not (out / "case_001.nii.gz").exists()
        predict_cases(model, [image], out / "other.nii.gz")
    predict_cases(model, [image], out)
    assert sorted(p.name for p in out.iterdir()) == ["case_001.nii.gz", "other.nii.gz"]


def test_a_single_maps_probabilities_are_locked_as_its_map_and_predict_input_locks_both(scans, tmp_path, capsys):
    """A single-map predict locked its map alone until the hundred-and-twenty-second session: two predicts into
    seg.nii and seg.nii.gz with --probabilities both wrote seg_probs.nii.gz, as did one whose map was the other's
    probabilities; and predict --input (predict_file) locked nothing, its map nor its probabilities. Each second
    predict is refused now before its case, naming the file both would write; a map of its own goes on, and nothing
    is left beside the maps (benchmarks/results/output_locks_left_2026-12-07)."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.inference_files import holding_output_folder

    model, image, out = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz", tmp_path / "out"
    first_run = r"is in use by another run \(process \d+ on [^)]*\): "
    probabilities = out / "seg_probs.nii.gz"
    with holding_output_folder(out / "seg.nii", [out / "seg.nii", probabilities]):  # --output seg.nii --probabilities
        with pytest.raises(ConfigError, match=rf"^{probabilities} {first_run}two runs writing one file replace each "
                                              r"other's. Wait for it to end \(or stop it\), or predict into another "
                                              r"file"):
            predict_cases(model, [image], out / "seg.nii.gz", probabilities=True)
        with pytest.raises(ConfigError, match=rf"^{probabilities} {first_run}two runs writing one label map"):
            predict_cases(model, [image], probabilities)
        with pytest.raises(ConfigError, match=rf"^{probabilities} {first_run}two runs writing one file"):
            predict_file(model, image, out / "other.nii.gz", probabilities_output=probabilities)
        capsys.readouterr()
        assert main(["predict", "--model", str(model), "--input", str(image), "--output", str(out / "seg.nii")]) == 2
        assert re.search(rf"{out / 'seg.nii'} {first_run}two runs writing one label map", capsys.readouterr().err)
        assert sorted(p.name for p in out.iterdir()) == [".seg.nii.run.lock", ".seg_probs.nii.gz.run.lock"]
        predict_cases(model, [image], out / "seg.nii.gz")  # a map of its own, no probabilities: goes on
    with holding_output_folder(probabilities, [probabilities]):  # --output seg_probs.nii.gz
        with pytest.raises(ConfigError, match=rf"^{probabilities} {first_run}two runs writing one file"):
            predict_cases(model, [image], out / "seg.nii.gz", probabilities=True)
    assert main(["predict", "--model", str(model), "--input", str(image), "--output", str(out / "seg.nii"),
                 "--probabilities"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["seg.nii", "seg.nii.gz", "seg_probs.nii.gz"]


def test_a_single_map_predict_that_writes_nothing_leaves_no_folder_its_two_locks_made(scans, tmp_path, capsys):
    """--input with --probabilities into a folder not there yet: the map's lock makes the folder, the probabilities'
    lock lies beside it. Released in the order taken, the map's lock found the folder still holding the other's file,
    and neither removed it: a case that failed after the locks (its voxels cut short here), or a stop before its
    write, left the empty folder, until the hundred-and-twenty-second session's review (r103; one lock, as before that
    session, removed it). Released last taken first, nothing is left."""
    model, scan = export(tmp_path / "model"), tmp_path / "cut.nii.gz"
    whole = (scans / "imagesTr" / "case_001.nii.gz").read_bytes()
    scan.write_bytes(whole[:len(whole) // 2])  # its header whole, its voxels cut short: refused once read
    output = tmp_path / "new" / "seg.nii.gz"
    with pytest.raises(DataError, match=rf"^{re.escape(str(scan))}: "):
        predict_file(model, scan, output, probabilities_output=output.parent / "seg_probs.nii.gz")
    assert not output.parent.exists()
    assert main(["predict", "--model", str(model), "--input", str(scan), "--output", str(output),
                 "--probabilities"]) == 2
    assert str(scan) in capsys.readouterr().err and not output.parent.exists()


def test_a_map_whose_name_leaves_no_room_for_probabilities_is_written_and_removed_without_an_error(scans, tmp_path):
    """A map's name of 250-255 bytes, without --probabilities: the look for an earlier run's <name>_probs.nii.gz
    beside it (Path.is_file) raised "File name too long" after the map was written, until the hundred-and-twenty-second
    session (benchmarks/results/output_locks_left_2026-12-07, 1b); so did a failed case's removal of its earlier
    files. No file can have that name: nothing to remove."""
    from accelerated_seg.inference_outputs import remove_earlier_prediction

    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    output = tmp_path / f"{'s' * 245}_3.nii.gz"
    assert predict_cases(model, [image], output) == [output]
    assert remove_earlier_prediction(output) == f" (an earlier run's {output.name} removed: it was not this run's)"
    assert sorted(tmp_path.iterdir()) == [tmp_path / "model"]


def test_an_output_folder_that_cannot_be_locked_is_written_with_a_warning(scans, tmp_path, monkeypatch):
    """Where the filesystem has no flock (Lustre without -o flock) predict went unguarded in silence,
    where training says so (the seventy-seventh session's review)."""
    import errno
    import fcntl
    import os

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    model, image, out = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz", tmp_path / "lustre"
    with pytest.warns(UserWarning, match=rf"--output {out} cannot be locked \(its filesystem does not lock files.*"
                                         r"a second predict into it would not be refused"):
        predict_cases(model, [image], out)
    assert sorted(p.name for p in out.iterdir()) == ["case_001.nii.gz"]
    with warnings.catch_warnings(record=True) as said:  # one map and its probabilities, locked each: said once
        warnings.simplefilter("always")
        predict_cases(model, [image], out / "one.nii.gz", probabilities=True)
    assert [str(warning.message).split(" cannot be locked")[0] for warning in said
            if "cannot be locked" in str(warning.message)] == [f"--output {out / 'one.nii.gz'}"]


def test_an_output_folder_no_file_can_be_made_in_is_refused_before_any_case(scans, tmp_path, monkeypatch):
    """A read-only --output folder (or a missing one below it) was found only when the first label map was
    written, after its case was segmented, and named the hidden temporary; the lock's warning before it
    spoke of a second predict (an audit's probe). Refused now, by every form, before any case is read."""
    import accelerated_seg.inference as inference
    import accelerated_seg.inference_cases as inference_cases
    from faults import read_only_below

    read_only = tmp_path / "read_only"
    read_only.mkdir()
    read_only_below(monkeypatch, read_only)
    read_cases = []
    for reading in (inference, inference_cases):  # predict_file's case, and predict_cases'
        monkeypatch.setattr(reading, "prepare_case", lambda *args, **kwargs: read_cases.append(args) or 1 / 0)
    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    why = (rf"no file can be made in {re.escape(str(read_only))} \(Read-only file system\); give output a folder "
           r"you can write to")  # the functions' keyword, as the command line says its --output
    for output in (read_only, read_only / "new" / "folder", read_only / "seg.nii.gz"):
        with pytest.raises(DataError, match=rf"^{re.escape(str(output))}\S* cannot be written: {why}"):
            predict_cases(model, [image], output)
    with pytest.raises(DataError, match=rf"^{re.escape(str(read_only / 'seg.nii.gz'))} cannot be written: {why}"):
        predict_file(model, image, read_only / "seg.nii.gz")
    assert read_cases == [] and list(read_only.iterdir()) == []
    for call in (lambda: predict_cases(model, [image], tmp_path / "writable"),  # each form reads its case
                 lambda: predict_file(model, image, tmp_path / "writable.nii.gz")):
        with pytest.raises(ZeroDivisionError):  # with an output it can write: the stand-in is where each looks it up
            call()
    assert len(read_cases) == 2


def test_a_symlinked_output_is_written_through_and_a_bad_link_refused_before_any_case(scans, tmp_path, monkeypatch):
    """`--output out/seg.nii.gz` a link to a study's map on shared storage: the rename replaced the link with a
    regular file, and the link's target kept the old map, which the user read (review r95). The map is written
    through the link now, as nibabel's own save and cp write; a dangling link, a loop, and a link into a folder no
    file can be made in are refused before any case, naming the link
    (benchmarks/results/symlinked_outputs_2026-12-07)."""
    import accelerated_seg.inference as inference
    import accelerated_seg.inference_cases as inference_cases
    from faults import read_only_below

    model, image = export(tmp_path / "model"), scans / "imagesTr" / "case_001.nii.gz"
    store, out = tmp_path / "store", tmp_path / "out"
    predict_file(model, image, store / "seg.nii.gz")
    predict_cases(model, [image], store / "cases")
    predict_file(model, image, tmp_path / "read_only" / "seg.nii.gz")  # read-only below, further down
    out.mkdir()
    (out / "seg.nii.gz").symlink_to(store / "seg.nii.gz")
    (out / "cases").mkdir()
    (out / "cases" / "case_001.nii.gz").symlink_to(store / "cases" / "case_001.nii.gz")
    before = {path: path.stat().st_ino for path in (store / "seg.nii.gz", store / "cases" / "case_001.nii.gz")}
    predict_file(model, image, out / "seg.nii.gz")
    predict_cases(model, [image], out / "cases")
    for link, target in ((out / "seg.nii.gz", store / "seg.nii.gz"),
                         (out / "cases" / "case_001.nii.gz", store / "cases" / "case_001.nii.gz")):
        assert link.is_symlink() and target.stat().st_ino != before[target]  # the target replaced, the link kept

    read_cases = []
    for reading in (inference, inference_cases):
        monkeypatch.setattr(reading, "prepare_case", lambda *args, **kwargs: read_cases.append(args) or 1 / 0)
    (out / "dangling.nii.gz").symlink_to(tmp_path / "unmounted" / "seg.nii.gz")
    (out / "loop.nii.gz").symlink_to(out / "loop2.nii.gz")
    (out / "loop2.nii.gz").symlink_to(out / "loop.nii.gz")
    read_only_below(monkeypatch, tmp_path / "read_only")  # the link's target is predict's: only its folder refuses
    (out / "read_only.nii.gz").symlink_to(tmp_path / "read_only" / "seg.nii.gz")
    refusals = {"dangling.nii.gz": rf"is a symbolic link to {re.escape(str(tmp_path))}/unmounted/seg.nii.gz, which "
                                   r"does not exist \(a dangling link\).*; or give output another path",
                "loop.nii.gz": r"is a symbolic link in a loop .*; or give output another path",
                "read_only.nii.gz": rf"cannot be written: no file can be made in {re.escape(str(tmp_path))}/read_only "
                                    r"\(Read-only file system\)"}
    for name, refusal in refusals.items():
        with pytest.raises(DataError, match=rf"^{re.escape(str(out / name))} {refusal}"):
            predict_file(model, image, out / name)
    (out / "cases" / "case_001.nii.gz").unlink()
    (out / "cases" / "case_001.nii.gz").symlink_to(tmp_path / "unmounted" / "case_001.nii.gz")
    with pytest.raises(DataError, match=rf"^{re.escape(str(out / 'cases' / 'case_001.nii.gz'))} is a symbolic link "
                                        r"to .*, which does not exist"):
        predict_cases(model, [image], out / "cases")
    assert read_cases == [] and not (tmp_path / "unmounted").exists()


def test_a_scan_with_a_long_name_gets_its_label_map(scans, tmp_path):
    """Each file is written under a hidden name 45 characters longer than its own, so an output name of
    211 to 255 characters (a label map named after such a scan) failed with "File name too long" at its
    write, after its case was segmented (an audit's probe). The hidden name is cut to fit, and a killed
    run's is still cleared by the next."""
    scan = tmp_path / "scans" / f"{'sub-01_ses-01_' * 17}T1w.nii.gz"  # a 248-character name
    scan.parent.mkdir()
    shutil.copy(scans / "imagesTr" / "case_001.nii.gz", scan)
    written = predict_cases(export(tmp_path / "model"), [scan.parent], tmp_path / "pred", probabilities=True)
    assert [path.name for path in written] == [scan.name]
    assert sorted(path.name for path in (tmp_path / "pred").iterdir()) == [scan.name, probabilities_path(scan).name]
    from accelerated_seg.files import _TEMPORARY_NAME, temporary_name

    for name in ("x" * 250 + ".nii.gz", "é" * 124 + ".nii.gz", "short.nii.gz"):
        temporary = temporary_name(name, "tmp.nii.gz")
        assert len(temporary.encode()) <= 255 and _TEMPORARY_NAME.match(temporary), temporary
    assert temporary_name("short.nii.gz", "tmp.nii.gz").startswith(".short.nii.gz.")


def test_a_nifti2_scan_gets_a_nifti2_label_map_without_nibabels_complaint(scans, tmp_path, caplog):
    """A NIfTI-2 scan's header was copied into a NIfTI-1 label map (and probabilities), and nibabel printed
    "sizeof_hdr should be 348; set sizeof_hdr to 348" for each, twice a case (an audit's probe)."""
    scan = nib.load(scans / "imagesTr" / "case_003.nii.gz")
    nib.save(nib.Nifti2Image(np.asanyarray(scan.dataobj), scan.affine, nib.Nifti2Header.from_header(scan.header)),
             tmp_path / "nifti2.nii.gz")
    caplog.clear()  # the conversion above says it too
    with caplog.at_level("INFO"):
        written = predict_cases(export(tmp_path / "model"), [tmp_path / "nifti2.nii.gz"], tmp_path / "pred",
                                probabilities=True)
    assert "sizeof_hdr" not in caplog.text
    for path in (written[0], probabilities_path(written[0])):
        assert type(nib.load(path)) is nib.Nifti2Image
    assert_same_geometry(written[0], tmp_path / "nifti2.nii.gz")


def test_a_tilde_in_pythons_paths_is_the_home_folder_for_the_outputs_too(scans, tmp_path, monkeypatch):
    """The command line expands "~" (cli.path_argument); from Python, predict_cases expanded its inputs'
    and not its output's: predict_cases(model, ["~/scans"], "~/preds") wrote into a folder named "~" in
    the working directory, which `rm -rf ~` deletes with one's home; and predict_file and
    Segmentation.predict said "~/scan.nii.gz: no such file" (an audit's probe)."""
    from accelerated_seg.estimator import Segmentation

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    export(home / "model")
    shutil.copy(scans / "imagesTr" / "case_001.nii.gz", home / "scan.nii.gz")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    written = predict_cases("~/model", ["~/scan.nii.gz"], "~/preds", probabilities=True)
    assert written == [home / "preds" / "scan.nii.gz"]
    assert predict_file("~/model", "~/scan.nii.gz", "~/one.nii.gz", probabilities_output="~/one_p.nii.gz") == \
        home / "one.nii.gz"
    assert (home / "preds" / "scan_probs.nii.gz").is_file() and (home / "one_p.nii.gz").is_file()
    assert Segmentation.load("~/model").predict("~/scan.nii.gz").shape == nib.load(home / "scan.nii.gz").shape
    assert list(work.iterdir()) == []


def test_an_output_name_too_long_for_a_file_is_refused_before_any_case(scans, tmp_path, monkeypatch):
    """A scan of a 255-character name gets a label map of that name, but its probabilities
    (<case>_probs.nii.gz) 6 characters more: their write failed after the case was segmented, with an
    OSError naming the hidden temporary, the label map left behind; with the output folder there, the
    checks' own look at the name raised "File name too long" (a review's probe)."""
    import accelerated_seg.inference_cases as inference_cases

    scan = tmp_path / "scans" / f"{'s' * 248}.nii.gz"  # 255 characters: a name the filesystem takes
    scan.parent.mkdir()
    shutil.copy(scans / "imagesTr" / "case_001.nii.gz", scan)
    model = export(tmp_path / "model")
    read_cases = []
    monkeypatch.setattr(inference_cases, "prepare_case", lambda *args, **kwargs: read_cases.append(args) or 1 / 0)
    for made in (False, True):
        if made:
            (tmp_path / "pred").mkdir()
        with pytest.raises(DataError, match=rf"^{re.escape(str(tmp_path / 'pred' / ('s' * 248)))}_probs\.nii\.gz: "
                                            rf"'s{{248}}_probs\.nii\.gz' is 261 bytes long, and a file or folder name "
                                            rf"takes at most 255; give output a shorter name"):  # its keyword
            predict_cases(model, [scan.parent], tmp_path / "pred", probabilities=True)
    assert read_cases == [] and list((tmp_path / "pred").iterdir()) == []
    with pytest.raises(ZeroDivisionError):  # its label map alone: the case is read, by the stand-in
        predict_cases(model, [scan.parent], tmp_path / "pred")
    assert len(read_cases) == 1


def test_a_label_map_that_cannot_be_written_names_its_file(tmp_path, monkeypatch):
    """A full disk in gzip's write names no file: predict's one line read "[Errno 28] No space left on
    device" alone, with no case or folder (seventy-third session's probe). Nothing is left under the name."""
    from accelerated_seg.data.io import write_nifti

    def full_disk(self, filename, *args, **kwargs):
        Path(filename).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(nib.Nifti1Image, "to_filename", full_disk)
    target = tmp_path / "out" / "case_000.nii.gz"
    with pytest.raises(OSError, match=r"\[Errno 28\] No space left on device: '.*case_000.nii.gz'"):
        write_nifti(target, np.zeros((2, 2, 2), np.uint8), np.eye(4))
    assert list((tmp_path / "out").iterdir()) == []


def test_continue_passes_over_the_cases_this_model_wrote_with_these_options(scans, tmp_path):
    """A run stopped by a time limit started again from the first case, and outputs recorded nothing
    of the model that made them (eighty-third session's review). Each header now records a key of the
    models, options and the case's input files; --continue passes over a case only where its files
    hold this run's key and are as predict left them."""
    import os

    from accelerated_seg.inference_files import PREDICTION_DESCRIP

    model, other = export(tmp_path / "model"), export(tmp_path / "other", seed=1)
    folder, out, said = tmp_path / "scans", tmp_path / "pred", []
    shutil.copytree(scans / "imagesTr", folder)
    written = predict_cases(model, [folder], out, probabilities=True)
    stamps = {path: path.stat().st_mtime_ns for path in out.iterdir()}
    # The description is as an earlier version writes it, which would otherwise refuse the file as changed.
    assert len(nib.load(written[0]).header["descrip"].item()) == len(PREDICTION_DESCRIP) + 17
    assert nib.load(probabilities_path(written[0])).header["descrip"].item() == PREDICTION_DESCRIP

    def rerun(model_dir, **options):
        said.clear()
        predict_cases(model_dir, [folder], out, probabilities=True, progress=said.append,
                      continue_prediction=True, **options)
        return [line.split("] ")[1].split(":")[0] for line in said if line.startswith("[")]

    assert rerun(model) == [] and said[0].startswith("continuing: 6 of 6 case(s) written before")
    assert {path: path.stat().st_mtime_ns for path in out.iterdir()} == stamps  # nothing rewritten
    written[1].unlink()  # the case a time limit stopped in
    probabilities_path(written[2]).unlink()  # its label map written, its probabilities not yet
    scan = folder / "case_003.nii.gz"  # converted again since
    os.utime(scan, ns=(scan.stat().st_atime_ns, scan.stat().st_mtime_ns + 10**9))
    assert rerun(model) == ["case_001", "case_002", "case_003"]
    assert rerun(model, tta="all") == [f"case_{i:03d}" for i in range(6)]  # another option: all again
    assert rerun(model) == [f"case_{i:03d}" for i in range(6)]  # those were tta's: all again
    assert rerun(other) == [f"case_{i:03d}" for i in range(6)]  # another model's weights
    assert rerun([model, other]) == [f"case_{i:03d}" for i in range(6)]  # an ensemble of it


def test_an_interrupted_predict_says_how_to_go_on(scans, tmp_path, monkeypatch, capsys):
    import accelerated_seg.inference as inference_module
    import accelerated_seg.inference_cases as inference_cases

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(inference_cases, "predict_cases", interrupted)
    monkeypatch.setattr(inference_module, "predict_file", interrupted)
    model, scan = str(export(tmp_path / "model")), str(scans / "imagesTr" / "case_000.nii.gz")
    assert main(["predict", "--model", model, str(scans / "imagesTr"), "--output", str(tmp_path / "pred")]) == 130
    assert "predict interrupted: every file it wrote is whole; the same command with --continue predicts the cases " \
        "not yet written" in capsys.readouterr().err
    assert main(["predict", "--model", model, "--input", scan, "--output", str(tmp_path / "one.nii.gz")]) == 130
    assert "predict interrupted: no file is half-written; the same command predicts the case" \
        in capsys.readouterr().err
    assert main(["predict", "--model", model, "--input", scan, "--output", str(tmp_path / "one.nii.gz"),
                 "--continue"]) == 2
    assert "--input FILE... is one case" in capsys.readouterr().err


def test_a_predict_interrupted_as_it_says_its_last_line_says_every_case_is_written(scans, tmp_path, monkeypatch,
                                                                                   capsys):
    """An interrupt (a time limit's SIGTERM, a Ctrl-C) as predict says its last line, a reader of its stdout slow:
    predict_cases has returned, every case written. Until the hundred-and-tenth session's review its line said "the
    same command with --continue predicts the cases not yet written", where none was left."""
    import builtins

    import accelerated_seg.inference_cases as inference_cases
    from accelerated_seg import predict_command

    monkeypatch.setattr(inference_cases, "predict_cases", lambda *args, **kwargs: [tmp_path / "a", tmp_path / "b"])

    def print_until_the_last_line(*args, **kwargs):
        if args and "segmented into" in str(args[0]):
            raise KeyboardInterrupt
        builtins.print(*args, **kwargs)

    monkeypatch.setattr(predict_command, "print", print_until_the_last_line, raising=False)
    model = str(export(tmp_path / "model"))
    assert main(["predict", "--model", model, str(scans / "imagesTr"), "--output", str(tmp_path / "pred")]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "predict interrupted: all 2 case(s) are written, each file whole"


def _from_monai_snippet() -> str:
    """docs/from_monai.md's plain-MONAI prediction, the one Python block under its heading."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "from_monai.md").read_text(encoding="utf-8")
    section = page.split("## Predicting with the export in plain MONAI", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^```python\n(.*?)^```", section, flags=re.S | re.M).group(1)


def test_the_plain_monai_prediction_of_from_monai_md_gives_predicts_label_map(tmp_path):
    """A MONAI user's own inference with an export (docs/from_monai.md), on a CT scan as MONAI users hold them
    (int16 Hounsfield units, float64 LPS affine, 0.8 x 0.8 x 2.5 mm voxels, air around the body that the
    foreground crop removes), equals predict's label map voxel for voxel. The crop's inverse pads with no
    probability and the linear resampling back blends that into the voxels at the box's edge: predict gives the
    missing probability to the background, and the page's last steps say so. A ninety-fourth-session probe that
    took the argmax of Invertd's output alone found 828 of 12288 voxels of another class."""
    shape, rng = (32, 32, 12), np.random.default_rng(0)
    x, y = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    values = np.full(shape, -1000, np.int16)
    values[((x - 16) ** 2 + (y - 16) ** 2) < 13 ** 2] = 40  # a body of soft tissue in air
    values[((x - 12) ** 2 + (y - 18) ** 2) < 5 ** 2, 3:9] = 120  # an organ
    values = (values + rng.normal(0, 15, shape)).astype(np.int16)
    affine = np.diag([-0.8, -0.8, 2.5, 1.0])  # float64, LPS on disk
    affine[:3, 3] = (100.3, 80.7, -200.1)
    scan = nib.Nifti1Image(values, affine)
    scan.set_data_dtype(np.int16)
    nib.save(scan, tmp_path / "scan.nii.gz")
    model_dir = export(tmp_path / "model", preprocess=PreprocessSettings(
        spacing=(1.5, 1.5, 2.0), normalization="ct", ct_window=(-57.0, 164.0), crop_foreground=True).to_dict())
    predicted = read_labels(predict_file(model_dir, tmp_path / "scan.nii.gz", tmp_path / "pred.nii.gz", device=CPU))
    snippet = re.sub(r"^model_dir, scan = .*$", f"model_dir, scan = {str(model_dir)!r}, "
                     f"{str(tmp_path / 'scan.nii.gz')!r}", _from_monai_snippet(), count=1, flags=re.M)
    namespace = {}
    exec(compile(snippet, "docs/from_monai.md", "exec"), namespace)
    labels = namespace["labels"].numpy()
    assert labels.shape == predicted.shape and len(np.unique(predicted)) > 1
    assert (labels != predicted).sum() == 0, f"{(labels != predicted).sum()} of {labels.size} voxels differ"


def test_the_plain_monai_prediction_of_from_monai_md_paints_a_brats_region_models_label_values(tmp_path):
    """The page's block on a BraTS-style region model (four MRI channel files, labels 0/1/2/4 trained as whole
    tumour, tumour core and enhancing tumour, one sigmoid each) writes predict's label map, in BraTS' values.
    Until the ninety-fifth session the block took a softmax and an argmax whatever the model: on such a model
    it gave region indices 0-2 where predict writes 0, 1, 2 and 4, and on a class model trained on 0/1/2/4 the
    index 3 where predict writes 4."""
    shape, rng = (20, 20, 20), np.random.default_rng(0)
    grid = np.stack(np.meshgrid(*[np.arange(20)] * 3, indexing="ij"))
    radius = np.sqrt(((grid - 10) ** 2).sum(0))
    scans = []
    for channel, gain in enumerate((-20, 80, 60, 120)):  # t1, t1ce, t2, flair
        values = np.where(radius < 9, 100.0, 0.0) + np.where(radius < 5, gain, 0) + rng.normal(0, 5, shape)
        scans.append(tmp_path / f"case_{channel:04d}.nii.gz")
        nib.save(nib.Nifti1Image(np.where(radius < 9, values, 0).astype(np.float32), np.diag([1.5] * 3 + [1])),
                 scans[-1])
    brats = {"names": ["whole_tumor", "tumor_core", "enhancing_tumor"], "values": [[1, 2, 4], [1, 4], [4]],
             "order": [2, 1, 4]}
    for regions in (brats, None):
        spec = model_spec("unet", 4, 3 if regions else 4, PATCH, TINY_UNET)
        torch.manual_seed(3)
        tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
        metadata = {"labels": {"0": "background", "1": "necrotic", "2": "edema", "3": "enhancing"},
                    "channels": {"0": "t1", "1": "t1ce", "2": "t2", "3": "flair"}, "in_channels": 4,
                    "num_classes": 4, "patch_size": PATCH, "spacing": [1.5, 1.5, 1.5],
                    "preprocessing": PreprocessSettings(spacing=(1.5, 1.5, 1.5),
                                                        label_map=((0, 0), (1, 1), (2, 2), (4, 3))).to_dict()}
        if regions:
            metadata.update(regions=regions, output_activation="sigmoid")
        model_dir = tmp_path / ("regions" if regions else "classes")
        write_export(tensors, spec.to_dict(), metadata, model_dir)
        predicted = read_labels(predict_file(model_dir, scans, tmp_path / f"{model_dir.name}.nii.gz", device=CPU))
        snippet = re.sub(r"^model_dir, scan = .*$", f"model_dir, scan = {str(model_dir)!r}, {[str(s) for s in scans]!r}",
                         _from_monai_snippet(), count=1, flags=re.M)
        namespace = {}
        exec(compile(snippet, "docs/from_monai.md", "exec"), namespace)
        labels = namespace["labels"].numpy()
        assert len(np.unique(predicted)) > 1 and set(np.unique(predicted)) <= {0, 1, 2, 4}, np.unique(predicted)
        assert (labels != predicted).sum() == 0, (f"{model_dir.name}: {(labels != predicted).sum()} of {labels.size} "
                                                  f"voxels differ; values {np.unique(labels)}")


def test_a_scan_whose_header_is_in_metres_is_refused_not_segmented_as_a_voxel(scans, tmp_path):
    """A scan whose header says metres (0.002 for 2 mm) was resampled to the model's 2.5 mm, a voxel or two, and
    segmented so, exit 0 (hundred-and-fourth session's probe): refused, naming the file and the rewrite."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    scaled = tmp_path / "metres.nii.gz"
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3, 1e-3, 1e-3, 1]) @ image.affine), scaled)
    with pytest.raises(DataError, match=rf"^{re.escape(str(scaled))}: voxels of .* mm, 1,250 times finer than the "
                                        r"model's spacing 2.5 x 2.5 x 2.5 mm, so resampling leaves it 1 x 1 x 1 "
                                        r"voxels, .* its header is probably in metres.*; or, if its voxels are "
                                        r"that fine indeed and the model was trained coarser on purpose, declare "
                                        r"the unit of its files mm"):
        predict_file(export(tmp_path / "model"), scaled, tmp_path / "y.nii.gz")
    assert not (tmp_path / "y.nii.gz").exists()
    # declared mm, as a model trained coarser on purpose takes its scans (hundred-and-fifth session): segmented
    declared, fine = nib.load(scaled), tmp_path / "fine.nii.gz"
    declared = nib.Nifti1Image(np.asanyarray(declared.dataobj), declared.affine, declared.header)
    declared.header.set_xyzt_units("mm")
    nib.save(declared, fine)
    assert read_labels(predict_file(tmp_path / "model", fine, tmp_path / "y.nii.gz")).shape == image.shape


def test_a_scan_declaring_mm_far_finer_than_a_median_spacing_is_refused_as_training_refuses_it(scans, tmp_path):
    """Training takes a header's mm at its word against a data.spacing set, not against the median
    (check_voxels_in_mm); predict took it for either, the export recording the spacing alone (a review of the
    hundred-and-fifth session). The export says which (spacing_set); one without the key is taken as set."""
    from types import SimpleNamespace

    from accelerated_seg.run_records import export_metadata

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    fine = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3, 1e-3, 1e-3, 1]) @ image.affine)
    fine.header.set_xyzt_units("mm")
    nib.save(fine, tmp_path / "fine.nii.gz")
    median = export(tmp_path / "median", spacing_set=False)
    with pytest.raises(DataError, match=rf"^{re.escape(str(tmp_path / 'fine.nii.gz'))}: voxels of .* 1,250 times "
                                        r"finer than the model's spacing \(its training cases' median\) 2.5 x 2.5 x "
                                        r"2.5 mm, .*\. Its header declares mm, which is taken at its word only "
                                        r"against a spacing set \(data.spacing\), and this model's is a median$"):
        predict_file(median, tmp_path / "fine.nii.gz", tmp_path / "y.nii.gz")
    assert not (tmp_path / "y.nii.gz").exists()
    for model in (export(tmp_path / "set", spacing_set=True), export(tmp_path / "older")):  # set, or not said
        assert read_labels(predict_file(model, tmp_path / "fine.nii.gz", tmp_path / f"{model.name}.nii.gz")).shape \
            == image.shape
    # an ensemble: members that differ in it alone join, and take the header at its word where each was set
    both = [tmp_path / "set", tmp_path / "older"]
    assert read_labels(predict_file(both, tmp_path / "fine.nii.gz", tmp_path / "both.nii.gz")).shape == image.shape
    # said of the members, not of "this model" (a review of the hundred-and-fifth session)
    with pytest.raises(DataError, match=r"finer than the members' spacing \(one member's or more is its training "
                                        r"cases' median\) .*, and a member's of this ensemble is a median: predict "
                                        r'with the members whose config.json says "spacing_set": true alone$'):
        predict_file([tmp_path / "set", median], tmp_path / "fine.nii.gz", tmp_path / "y.nii.gz")
    manifest = SimpleNamespace(labels={0: "background", 1: "a"}, channels={0: "MRI"}, num_channels=1,
                               num_classes=2, regions=None, ignore_value=None, file_ending=None, training=[],
                               validation=[])
    for given, said in ((None, False), ((2.5, 2.5, 2.5), True)):  # what training records
        cfg = SimpleNamespace(data=SimpleNamespace(patch_size=PATCH, spacing=given))
        assert export_metadata(cfg, manifest, PreprocessSettings(spacing=(2.5,) * 3), None)["spacing_set"] is said


def in_unit(image, path, unit: str, per_mm: float):
    """``image`` saved at ``path`` with its numbers ``per_mm`` of its unit to a mm and its header declaring it."""
    scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([per_mm] * 3 + [1.0]) @ image.affine)
    scaled.header.set_xyzt_units(unit)
    nib.save(scaled, path)
    return path


def refused_then_segmented(model, scan, output):
    """Predict ``scan``, refused: no ``output`` written, the refusal's first nibabel line run as written, and the
    scan then segmented whole; re-raises the refusal for the caller's ``pytest.raises`` to judge."""
    with pytest.raises(DataError) as refused:
        predict_file(model, scan, output)
    assert not output.exists()
    exec(re.search(r"nibabel: (img = .*?, path\))\)", str(refused.value)).group(1),
         {"nib": nib, "np": np, "path": str(scan)})
    assert read_labels(predict_file(model, scan, output)).shape == nib.load(scan).shape
    raise refused.value


def test_a_scan_declaring_another_unit_than_the_models_training_cases_is_refused_with_the_rewrite(scans, tmp_path):
    """Predict read a scan's numbers as they are, whatever its unit: a scan in mm for a model whose training cases
    were in micrometres, declaring mm, passed the far finer check as voxels resampled coarser on purpose and was
    segmented as a voxel or two, and one in micrometres for a model in mm was resampled to a billion times its
    voxels (hundred-and-sixth session). The export records its training cases' unit (spacing_unit): a scan
    declaring another is refused with the line that rewrites it, which makes it segmented; one declaring none, or
    a model that records none, is not judged."""
    from types import SimpleNamespace

    from accelerated_seg.run_records import export_metadata

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    in_mm = in_unit(image, tmp_path / "mm.nii.gz", "mm", 1.0)
    micrometres = export(tmp_path / "micrometres", spacing=(2500.0,) * 3, spacing_unit="micron")
    with pytest.raises(DataError, match=rf"^{re.escape(str(in_mm))}: its header declares its voxel sizes in mm "
                                        r"\(xyzt_units\), the model's training cases' in micrometres \(its "
                                        r"config.json's spacing_unit\)\. .* would scale it 1,000 times smaller than "
                                        r"the scans the model learned from\. Rewrite it in micrometres \(nibabel: "
                                        r"(img = .*, path\))\), or, where its numbers are micrometres already .*"
                                        r"declare it so \(nibabel: img = .*\)$"):
        refused_then_segmented(micrometres, in_mm, tmp_path / "y.nii.gz")
    in_micrometres = in_unit(image, tmp_path / "micrometres.nii.gz", "micron", 1000.0)
    with pytest.raises(DataError, match=r"in micrometres \(xyzt_units\), the model's training cases' in mm .* 1,000 "
                                        r"times larger .* Rewrite it in mm \(nibabel: .*np.diag\(\[0.001, "):
        predict_file(export(tmp_path / "mm", spacing_unit="mm"), in_micrometres, tmp_path / "z.nii.gz")
    # one declaring none whose numbers are mm, 1,000 times finer, was told "probably in metres" (review of then); the
    # model's spacing tells its numbers are mm since helper h81 of the hundred-and-fifteenth session
    with pytest.raises(DataError, match=r"its header declares no unit for its voxel sizes \(xyzt_units\), the "
                                        r"model's training cases' micrometres .* the one nearest it, .* mm: rewrite "
                                        r".* from mm in micrometres, its numbers mm under no unit \(nibabel: "
                                        r".*np.diag\(\[1000, "):
        predict_file(micrometres, in_unit(image, tmp_path / "unitless.nii.gz", "unknown", 1.0), tmp_path / "u.nii.gz")
    for model, scan in ((tmp_path / "mm", in_unit(image, tmp_path / "none.nii.gz", "unknown", 1.0)),
                        (export(tmp_path / "older"), in_unit(image, tmp_path / "metres.nii.gz", "meter", 1.0))):
        assert read_labels(predict_file(model, scan, tmp_path / f"by_{model.name}.nii.gz")).shape == image.shape
    # the export records the unit training found in its cases' headers (test_cache: settings_and_unit)
    manifest = SimpleNamespace(labels={0: "background", 1: "a"}, channels={0: "MRI"}, num_channels=1, num_classes=2,
                               regions=None, ignore_value=None, file_ending=None)
    cfg = SimpleNamespace(data=SimpleNamespace(patch_size=PATCH, spacing=(2.5,) * 3))
    for unit in (None, "micron"):
        assert export_metadata(cfg, manifest, PreprocessSettings(spacing=(2.5,) * 3), unit)["spacing_unit"] == unit


def test_every_channel_of_a_case_is_judged_by_the_models_unit_and_by_the_other_channels(scans, tmp_path):
    """The first channel's header alone was judged (hundred-and-sixth session): a second channel in micrometres beside
    one in mm, for a model in mm, was told to be resampled onto the first one's grid, and one declaring micrometres
    with the first one's numbers was segmented unjudged. Each is refused with the line that rewrites or declares it,
    which makes the case segmented; for a model recording no unit, against the other channel's unit. One holding
    the first one's numbers is read with it against the model's spacing, the declaring line first (for a model in mm
    the rewrite led until the hundred-and-fourteenth session, h72, 0.002 mm voxels once run). A channel declaring
    none agrees with any."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    first = in_unit(image, tmp_path / "mm_0000.nii.gz", "mm", 1.0)
    mm, older = export(tmp_path / "mm", in_channels=2, spacing_unit="mm"), export(tmp_path / "older", in_channels=2)
    # (model, the second channel's unit, its numbers per mm, what is said): micrometres' numbers, or the first
    # channel's numbers under another unit (one grid: unjudged until then), for a model in mm or of no unit
    cases = [(mm, "micron", 1000.0, r"the model's training cases' in mm \(its config.json's spacing_unit\)\. .* "
                                   r"Rewrite it in mm \(nibabel: (img = .*, path\))\), or"),
             # the first channel's numbers under another unit: read with it against the model's spacing (h72)
             (mm, "micron", 1.0, None),
             (older, "micron", 1000.0, rf"that of {re.escape(str(first))}, a channel of the same case, in mm\. .* "
                                       r"would scale one 1,000 times against the other\. Rewrite it in mm \(nibabel: "
                                       r"(img = .*, path\))\), or"),
             # the same numbers under two units: a unit alone is wrong, the declaring line first (h64; h72 above)
             (older, "meter", 1.0, None)]
    for index, (model, unit, per_mm, said) in enumerate(cases):
        second = in_unit(image, tmp_path / f"{unit}{index}_0001.nii.gz", unit, per_mm)
        output = tmp_path / f"{index}.nii.gz"
        named = dict(micron='micrometres', meter='metres')[unit]
        said = said or (rf"one declaring mm and one declaring {named}: .* the one nearest it, [^:]* mm: declare "
                        rf"{re.escape(str(second))} mm, its numbers mm already under a header of {named} \(nibabel: "
                        r"(img = .*?nib\.save\(img, path\))\); or, where the voxels are")
        with pytest.raises(DataError, match=rf"^{re.escape(str(second))}: its header declares its voxel sizes in "
                                            rf"{named} \(xyzt_units\), {said}" if per_mm != 1.0 else
                                            rf"^the case's files declare different units for their voxel sizes "
                                            rf"\(xyzt_units\), {said}") as refused:
            predict_file(model, [first, second], output)
        assert "share a voxel grid" not in str(refused.value) and not output.exists()
        # the line offered, run as written, makes the case segmented
        exec(re.search(said, str(refused.value)).group(1), {"nib": nib, "np": np, "path": str(second)})
        assert read_labels(predict_file(model, [first, second], output)).shape == image.shape
    unitless = in_unit(image, tmp_path / "unitless_0001.nii.gz", "unknown", 1.0)
    for model in (mm, older):
        assert read_labels(predict_file(model, [unitless, first], tmp_path / "u.nii.gz")).shape == image.shape


def test_of_two_channels_in_two_units_the_one_off_the_models_spacing_is_named(scans, tmp_path):
    """For a model recording no unit, the later of two channels was named whichever was off: a first channel in
    micrometres beside a second in mm, for a model at 2.5, was told to rewrite the second in micrometres, after which
    the first was refused by the host's memory (a review of the hundred-and-seventh session). The channel whose
    numbers are farther off the model's spacing is named, in either order, and its rewrite makes the case
    segmented."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    older = export(tmp_path / "older", in_channels=2)
    for order in ("micrometres first", "mm first"):
        off = in_unit(image, tmp_path / "off.nii.gz", "micron", 1000.0)
        mm = in_unit(image, tmp_path / "mm.nii.gz", "mm", 1.0)
        channels = [off, mm] if order == "micrometres first" else [mm, off]
        with pytest.raises(DataError, match=rf"^{re.escape(str(off))}: its header declares its voxel sizes in "
                                            rf"micrometres \(xyzt_units\), that of {re.escape(str(mm))}, .* "
                                            r"Rewrite it in mm \(nibabel: (img = .*?, path\))\)") as refused:
            predict_file(older, channels, tmp_path / "o.nii.gz")
        exec(re.search(r"Rewrite it in mm \(nibabel: (img = .*?, path\))\)", str(refused.value)).group(1),
             {"nib": nib, "np": np, "path": str(off)})
        assert read_labels(predict_file(older, channels, tmp_path / "o.nii.gz")).shape == image.shape


def test_the_memory_check_offers_no_line_to_mm_for_a_model_in_metres(tmp_path, monkeypatch):
    """The memory check told a scan 100 times coarser than the spacing of a model in metres `micrometres where theirs
    were mm: rewrite it in mm`, a line to another unit than the model's, which its unit check then refuses (a file
    declaring metres on 0.5 x 0.5 x 300, whose readings the spacing tells none of: the review of helper h81). Told to
    crop or resample it alone, as for a model in micrometres; for a model in mm the line stands. Since the
    hundred-and-sixteenth session (helper h84) it says that no unit's reading comes within 100 times of the spacing
    (any that does is told by the unit check before), and to check the voxel size."""
    import accelerated_seg.inference_reading as inference_reading

    image = nib.Nifti1Image(np.ones((8, 8, 8), np.float32), np.diag([0.5, 0.5, 300.0, 1.0]))
    image.header.set_xyzt_units("meter")
    monkeypatch.setattr(inference_reading, "memory_available", lambda: 8 * 2**30)
    config = {"in_channels": 1, "spacing_unit": "meter"}
    with pytest.raises(DataError, match=r"GiB is available\. Its voxels are [\d,]+ times coarser than the model's "
                                        r"spacing, and read in no other unit do its numbers come within 100 times of "
                                        r"it: check the voxel size it was acquired at; else, crop it") as refused:
        inference_reading.refuse_beyond_host_memory(config, tmp_path / "x.nii.gz", image, (0.0015,) * 3)
    assert "rewrite it in mm" not in str(refused.value)
    with pytest.raises(DataError, match=r"micrometres where theirs were mm: rewrite it in mm"):
        inference_reading.refuse_beyond_host_memory({**config, "spacing_unit": "mm"}, tmp_path / "x.nii.gz", image,
                                                    (0.0015,) * 3)


def test_a_scan_resampled_beyond_the_hosts_memory_is_refused_before_the_resampling(scans, tmp_path, monkeypatch):
    """A scan in micrometres for a model whose training cases declared no unit (an export made before the
    hundred-and-sixth session, or headers of nibabel's default), 800 times coarser than its spacing, was resampled
    to a billion times its voxels: torch's allocator traceback for 44 TB (hundred-and-sixth session's review).
    Refused from its header, naming the unit's rewrite, which makes it segmented; one merely too large for the
    memory left is told to crop or resample it."""
    import accelerated_seg.inference_reading as inference_reading

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    micrometres, model = in_unit(image, tmp_path / "um.nii.gz", "micron", 1000.0), export(tmp_path / "no_unit")
    monkeypatch.setattr(inference_reading, "memory_available", lambda: 8 * 2**30)
    with pytest.raises(DataError, match=rf"^{re.escape(str(micrometres))}: resampled to the model's spacing 2.5 x "
                                        r"2.5 x 2.5, its .* voxels of 2000 x 2000 x 2000 would become .*, at least "
                                        r"[\d,.]+ GiB, and 8.0 GiB is available\. Its voxels are 800 times coarser "
                                        r"than the model's spacing: .* \(micrometres where theirs were mm: rewrite it "
                                        r"in mm, nibabel: (img = .*, path\))\); else, crop it to the region of "
                                        r"interest or resample it coarser before predicting, or predict on a machine "
                                        r"with more memory$"):
        refused_then_segmented(model, micrometres, tmp_path / "y.nii.gz")
    monkeypatch.setattr(inference_reading, "memory_available", lambda: 2**10)  # a scan of its unit, too large
    with pytest.raises(DataError, match=r"GiB is available\. Crop it to the region of interest or resample it "
                                        r"coarser before predicting, or predict on a machine with more memory$"):
        predict_file(model, micrometres, tmp_path / "z.nii.gz")
    # A model in micrometres: a scan that coarse, declaring its unit or none, was told it was in micrometres where
    # the training scans were in mm, and given the line to mm, which then refused it as another unit than the
    # model's (the hundred-and-sixth session's read of the whole change)
    monkeypatch.setattr(inference_reading, "memory_available", lambda: 8 * 2**30)
    in_micrometres = export(tmp_path / "in_micrometres", spacing_unit="micron")
    for declared in ("micron", "unknown"):  # no unit's line, and none comes near it (h84)
        with pytest.raises(DataError, match=r"GiB is available\. Its voxels are 800 times coarser than the model's "
                                            r"spacing, and read in no other unit do its numbers come within 100 times "
                                            r"of it: check the voxel size it was acquired at; else, crop it to the "
                                            r"region of interest or resample it coarser before predicting, or predict "
                                            r"on a machine with more memory$"):
            predict_file(in_micrometres, in_unit(image, tmp_path / f"{declared}.nii.gz", declared, 1000.0),
                         tmp_path / "w.nii.gz")


def test_members_whose_training_cases_declared_different_units_cannot_join_an_ensemble(tmp_path):
    """Two members' spacings of the same numbers in mm and in micrometres are sizes 1000 times apart: refused,
    naming both; a member that records no unit (exported before the hundred-and-sixth session) joins either."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.ensemble import load_for_prediction

    mm, micrometres = export(tmp_path / "mm", spacing_unit="mm"), export(tmp_path / "um", spacing_unit="micron")
    with pytest.raises(ConfigError, match=r"um cannot join .*mm in an ensemble: its training cases' headers "
                                          r"declared their voxel sizes in micrometres, the other's in mm .*: "
                                          r"predict with the members of one unit, or train them on cases rewritten "
                                          r"in one unit$"):
        load_for_prediction([mm, export(tmp_path / "older"), micrometres])
    assert load_for_prediction([export(tmp_path / "older2"), mm])[1]["spacing_unit"] == "mm"


def test_a_cases_channels_in_another_unit_are_one_refusal_naming_every_one(scans, tmp_path):
    """Each channel was judged as it was read (until the hundred-and-eleventh session): two channels in micrometres
    beside a channel 0 in mm, for a model of no unit or one in mm, were refused one after the other, the second named
    once the first was rewritten; a channel 0 of no unit beside a channel 1 in micrometres and a channel 2 in mm was
    told to rewrite channel 1 alone.
    One refusal names every channel of the mix-up, as the pre-flight check does (``case_units``), and its lines,
    run as written on the channels it names, make the case segmented."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    model = export(tmp_path / "older", in_channels=3)
    first = in_unit(image, tmp_path / "a_0000.nii.gz", "mm", 1.0)
    others = [in_unit(image, tmp_path / f"a_000{index}.nii.gz", "micron", 1000.0) for index in (1, 2)]
    with pytest.raises(DataError, match=rf"^{re.escape(str(others[0]))} and {re.escape(str(others[1]))}: their "
                                        r"headers declare their voxel sizes in micrometres \(xyzt_units\), that of "
                                        rf"{re.escape(str(first))}, a channel of the same case, in mm\. ") as refused:
        predict_file(model, [first, *others], tmp_path / "a.nii.gz")
    assert "\n" not in str(refused.value)
    rewrite = re.search(r"Rewrite each in mm \(nibabel: (img = .*?, path\))\)", str(refused.value)).group(1)
    for path in others:
        exec(rewrite, {"nib": nib, "np": np, "path": str(path)})
    assert read_labels(predict_file(model, [first, *others], tmp_path / "a.nii.gz")).shape == image.shape

    none, micrometres, mm = (in_unit(image, tmp_path / f"b_000{index}.nii.gz", unit, per_mm) for index, (unit, per_mm)
                             in enumerate([("unknown", 1.0), ("micron", 1000.0), ("mm", 1.0)]))
    with pytest.raises(DataError, match=r"^the headers of the case's files declare different units for their voxel "
                                        rf"sizes \(xyzt_units\), and one none: {re.escape(str(none))} \(channel 0, "
                                        rf"MRI0\): none; {re.escape(str(micrometres))} \(channel 1, MRI1\): "
                                        rf"micrometres; {re.escape(str(mm))} \(channel 2, MRI2\): mm\. ") as refused:
        predict_file(model, [none, micrometres, mm], tmp_path / "b.nii.gz")
    rewrite, declare = re.findall(r"\(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)",
                                  str(refused.value))[:2]
    exec(rewrite, {"nib": nib, "np": np, "path": str(micrometres)})
    exec(declare, {"nib": nib, "np": np, "path": str(none)})
    assert read_labels(predict_file(model, [none, micrometres, mm], tmp_path / "b.nii.gz")).shape == image.shape

    # against the model's unit alike: two channels in micrometres for a model in mm, one refusal naming both
    in_mm = export(tmp_path / "mm", in_channels=3, spacing_unit="mm")
    others = [in_unit(image, tmp_path / f"c_000{index}.nii.gz", "micron", 1000.0) for index in (1, 2)]
    with pytest.raises(DataError, match=rf"^{re.escape(str(others[0]))} and {re.escape(str(others[1]))}: their "
                                        r"headers declare their voxel sizes in micrometres \(xyzt_units\), the "
                                        r"model's training cases' in mm .* Rewrite each in mm \(nibabel: ") as refused:
        predict_file(in_mm, [first, *others], tmp_path / "c.nii.gz")
    rewrite = re.search(r"Rewrite each in mm \(nibabel: (img = .*?, path\))\)", str(refused.value)).group(1)
    for path in others:
        exec(rewrite, {"nib": nib, "np": np, "path": str(path)})
    assert read_labels(predict_file(in_mm, [first, *others], tmp_path / "c.nii.gz")).shape == image.shape


def test_a_cases_channel_units_are_refused_from_the_headers_before_any_channel_is_read_whole(scans, tmp_path,
                                                                                             monkeypatch):
    """Every channel was read whole (its gzip stream decompressed, its voxels kept) before the units were judged
    together, so a case refused for its last channel's unit decompressed all of them first (hundred-and-eleventh
    session's review: 1.1-1.9 s and 81 MB more for 4 channels of 192^3): the headers are judged first. Channels in
    two other units than the model's are one refusal, a line for each unit."""
    import accelerated_seg.inference_reading as inference_reading

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    model = export(tmp_path / "mm", in_channels=3, spacing_unit="mm")
    channels = [in_unit(image, tmp_path / f"a_000{index}.nii.gz", unit, per_mm)
                for index, (unit, per_mm) in enumerate([("mm", 1.0), ("mm", 1.0), ("micron", 1000.0)])]
    read_whole, headers_read = [], []
    read_nifti = inference_reading.read_nifti

    def counted(path, **options):
        (read_whole if options.get("verify_stream", True) else headers_read).append(path)
        return read_nifti(path, **options)

    monkeypatch.setattr(inference_reading, "read_nifti", counted)
    with pytest.raises(DataError, match=rf"^{re.escape(str(channels[2]))}: its header declares its voxel sizes in "
                                        r"micrometres \(xyzt_units\), the model's training cases' in mm"):
        predict_file(model, channels, tmp_path / "a.nii.gz")
    assert read_whole == [] and headers_read == channels  # the stand-in read them: the reading looks it up there

    # a channel in metres beside one in micrometres, for a model in mm: one refusal, a line for each unit (the
    # metres one was refused once the micrometres one had been rewritten)
    channels[1] = in_unit(image, tmp_path / "a_0001.nii.gz", "meter", 0.001)
    with pytest.raises(DataError) as refused:
        predict_file(model, channels, tmp_path / "a.nii.gz")
    metres, micrometres = str(refused.value).split("\n")
    assert metres.startswith(f"{channels[1]}: its header declares its voxel sizes in metres")
    assert micrometres.startswith(f"{channels[2]}: its header declares its voxel sizes in micrometres")

    # a file that is not gzip at all keeps the words of the whole read (the lazy load's were "cannot be read as
    # NIfTI (ImageFileError: File … is not a gzip file)")
    channels[1].write_text("not a scan\n" * 20)
    with pytest.raises(DataError, match=rf"^{re.escape(str(channels[1]))}: corrupt or not a gzip file \(BadGzipFile"):
        predict_file(model, channels, tmp_path / "a.nii.gz")


def test_a_case_refused_for_its_grids_decompresses_no_file_as_long_as_its_header_needs(tmp_path, monkeypatch):
    """A case refused for its grids had every file read whole, to name a truncated one with the grid (helper h119):
    evaluate's refusal of 6 cases of 2 channels of 8.6 MB, each on two grids, took 1.4-4.4 s, not 0.03-0.15 s, as
    long as scoring them would read them (that session's review, benchmarks/results/review_channel_words_2026-12-07/).
    A file as long as its header needs is not decompressed (a gzip stream's ISIZE, an uncompressed file's size); one
    cut short, gzip or not, is read whole and named with the grid; one of several gzip members, whose ISIZE is the
    last one's, is read whole and not named."""
    import gzip

    import accelerated_seg.inference_reading as inference_reading

    rng, config = np.random.default_rng(0), {"in_channels": 2, "channels": {"0": "T1", "1": "FLAIR"}}
    voxels = rng.uniform(10, 100, (16, 16, 16)).astype(np.float32)
    first, other = tmp_path / "a.nii.gz", tmp_path / "b.nii.gz"
    nib.save(nib.Nifti1Image(voxels, np.diag([2.5, 2.5, 2.5, 1.0])), first)
    nib.save(nib.Nifti1Image(voxels, np.diag([3.0, 3.0, 3.0, 1.0])), other)
    plain = tmp_path / "b.nii"
    plain.write_bytes(gzip.decompress(other.read_bytes()))
    members = tmp_path / "b_members.nii.gz"  # the same bytes as two gzip members (bgzip's blocks, pigz -i)
    content = gzip.decompress(other.read_bytes())
    members.write_bytes(gzip.compress(content[:352]) + gzip.compress(content[352:]))
    read_whole, read_nifti = [], inference_reading.read_nifti

    def counted(path, **options):
        read_whole.append(Path(path).name)
        return read_nifti(path, **options)

    monkeypatch.setattr(inference_reading, "read_nifti", counted)
    grid = "are channels of one case but do not share a voxel grid: channel 1 (FLAIR) voxels are 3 x 3 x 3 mm"

    def refused(channel):
        headers = [nib.load(path) for path in (first, channel)]  # lazy: the headers alone, as predict's and evaluate's
        read_whole.clear()
        return inference_reading.channel_files_refusal(config, [first, channel], headers)

    for whole in (other, plain):
        assert refused(whole).startswith(f"{whole} and {first} {grid}") and read_whole == [], read_whole
    assert refused(members).startswith(f"{members} and {first} {grid}") and read_whole == [members.name]
    for whole in (other, plain):
        cut = tmp_path / f"cut_{whole.name}"
        cut.write_bytes(whole.read_bytes()[:-100])
        assert refused(cut).startswith(f"{cut}: truncated ("), cut
        assert f"; besides, {cut} and {first} {grid}" in refused(cut) and read_whole == [cut.name], read_whole

def test_a_scan_saved_channel_first_is_told_to_drop_its_channel_axis(scans, tmp_path):
    """A scan saved from a MONAI array, (1, x, y, z), was "a 4D image ... holds z 3D volume(s), but the model takes
    one channel" (hundred-and-fourth session's probe)."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    first = tmp_path / "first.nii.gz"
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj)[None], image.affine), first)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "a single slice, shape (1, 20, 20)" was warned of above the error
        with pytest.raises(DataError, match=re.escape(f"{first}: shape (1, {', '.join(map(str, image.shape))}) holds "
                                                      "a channel axis first, as PyTorch and MONAI arrays are laid")):
            predict_file(export(tmp_path / "model"), first, tmp_path / "y.nii.gz")


def test_a_channel_in_metres_with_mm_numbers_beside_one_of_no_unit_in_micrometres_is_told_by_the_spacing(scans,
                                                                                                        tmp_path):
    """A channel 0 declaring metres with mm numbers beside a channel 1 of no unit with micrometre numbers was told
    "declare channel 1 in mm, as its numbers are" and to rewrite channel 0 from metres, both then 1,000 times the
    model's spacing (the hundred-and-eleventh session's leftovers, h61): the way whose numbers are nearer the
    model's spacing is told, and its lines make the case segmented; for a model of no spacing both are offered."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    declared = in_unit(image, tmp_path / "metres.nii.gz", "meter", 1.0)
    unitless = in_unit(image, tmp_path / "none.nii.gz", "unknown", 1000.0)
    model = export(tmp_path / "older", in_channels=2)
    with pytest.raises(DataError) as refused:
        predict_file(model, [declared, unitless], tmp_path / "y.nii.gz")
    said = str(refused.value)
    # read with the other channel against the model's spacing since the hundred-and-fourteenth session (h72), as
    # "The numbers of … are nearer the model's spacing 2.5 x 2.5 x 2.5 than those of …" told it before
    assert (f"the model's spacing 2.5 x 2.5 x 2.5 tells which is the case's, the one nearest it, "
            f"{' x '.join(f'{size:.4g}' for size in nib.affines.voxel_sizes(image.affine))} mm: declare {declared} mm, "
            f"its numbers mm already under a header of metres (nibabel: ") in said and (
        f"; rewrite {unitless} from micrometres, its numbers micrometres under no unit (nibabel: ") in said, said
    assert "as its numbers are" not in said, said
    declare, rewrite = re.search(r"nibabel: (img = .*?, path\))\).*?nibabel: (img = .*?, path\))\)", said).group(1, 2)
    # a model of no spacing reads the case's files together too since h78, every way offered, what to check said
    with pytest.raises(DataError, match="the numbers cannot tell, nor the model, which has no spacing: check the "
                                        "voxel size"):
        predict_file(export(tmp_path / "unresampled", in_channels=2, spacing=None), [declared, unitless],
                     tmp_path / "n.nii.gz")
    exec(rewrite, {"nib": nib, "np": np, "path": str(unitless)})
    exec(declare, {"nib": nib, "np": np, "path": str(declared)})
    assert read_labels(predict_file(model, [declared, unitless], tmp_path / "y.nii.gz")).shape == image.shape


def run_first_lines(said: str) -> int:
    """Run, as written, every nibabel line a refusal offers before its first alternative ("; or,"), on the files each
    names; how many were run."""
    first, run = said.split("; or,")[0], 0
    for found in re.finditer(r"(?:[Dd]eclare|[Rr]ewrite) ((?:/\S+?\.nii\.gz(?:, | and )?)+).*?\(nibabel: "
                             r"(img = .*?nib\.save\(.*?path\))\)", first):
        for path in re.findall(r"/\S+?\.nii\.gz", found.group(1)):
            exec(found.group(2), {"nib": nib, "np": np, "path": path})
            run += 1
    return run


def test_a_cases_channel_files_that_disagree_on_units_are_read_together_against_the_models_spacing(scans, tmp_path):
    """Predict judged a case's channel files one by one, against the model's unit and then the first channel
    declaring one (until the hundred-and-fourteenth session, helper h72): channel 1 declaring micrometres (or metres)
    on the mm numbers of a channel 0 in mm, for a model in mm, was told to be rewritten from that unit first, after
    which the grid's check told it to be resampled onto channel 0's grid, 1,000 times apart; channel 1 of no unit on
    micrometre numbers beside a channel 0 of no unit was told only that. The files are read together, as the
    pre-flight check of a training case reads them (``case_readings``), the reading nearest the model's spacing told
    first, and its lines, run as written, make the case segmented with every file at its voxel size in mm."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    mm, older = export(tmp_path / "mm", in_channels=2, spacing_unit="mm"), export(tmp_path / "older", in_channels=2)
    for index, (model, first, second) in enumerate([
            (mm, ("mm", 1.0), ("micron", 1.0)), (older, ("mm", 1.0), ("micron", 1.0)), (mm, ("mm", 1.0), ("meter", 1.0)),
            (mm, ("unknown", 1.0), ("unknown", 1000.0)), (older, ("unknown", 1.0), ("unknown", 1000.0))]):
        channels = [in_unit(image, tmp_path / f"c{index}_000{number}.nii.gz", *kind)
                    for number, kind in enumerate((first, second))]
        with pytest.raises(DataError) as refused:
            predict_file(model, channels, tmp_path / "o.nii.gz")
        said = str(refused.value)
        assert "\n" not in said and "share a voxel grid" not in said, said
        assert said.startswith(("the case's files declare different units", "the voxel sizes of the case's files "
                                "differ as their headers hold them, every one declaring no unit")), said
        assert f"{channels[0]} (channel 0, MRI0): " in said and f"{channels[1]} (channel 1, MRI1): " in said, said
        assert re.search(r"Read together, (the files' numbers come to one voxel size \d ways, and the model's spacing "
                         r"2\.5 x 2\.5 x 2\.5 tells which is the case's, the one nearest it|every file's numbers "
                         rf"come to one voxel size one way alone), {' x '.join(f'{s:.4g}' for s in sizes)} mm: ",
                         said), said
        assert run_first_lines(said) >= 1
        for path in channels:  # at its voxel size in mm, as declared and as its numbers are read
            assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes), path
            assert nib.load(path).header.get_xyzt_units()[0] in ("mm", "unknown"), path
        assert read_labels(predict_file(model, channels, tmp_path / "o.nii.gz")).shape == image.shape
    # a model far from 1 mm (micro-CT at 0.01 mm): its spacing tells the case's reading where 1 mm would not. Readings
    # 0.01, 0.00001 and 10 mm: ordered nearer 1 mm, as the pre-flight check offers them, the metres reading (10 mm) led,
    # its lines leaving both files 1,000 times off (review of h72: these asserts passed with that ordering before)
    micro = export(tmp_path / "micro", in_channels=2, spacing=(0.01,) * 3, spacing_unit="mm")
    channels = [in_unit(image, tmp_path / f"m_000{number}.nii.gz", unit, 0.005) for number, unit in enumerate((
        "mm", "micron"))]
    with pytest.raises(DataError, match=rf"the model's spacing 0\.01 x 0\.01 x 0\.01 tells which is the case's, the "
                                        rf"one nearest it, {' x '.join(f'{s:.4g}' for s in sizes * 0.005)} mm: declare "
                                        rf"{re.escape(str(channels[1]))} mm, its numbers mm already under a header of "
                                        r"micrometres \(nibabel: ") as refused:
        predict_file(micro, channels, tmp_path / "m.nii.gz")
    assert run_first_lines(str(refused.value)) == 1
    assert all(np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes * 0.005) for path in channels)
    assert read_labels(predict_file(micro, channels, tmp_path / "m.nii.gz")).shape == image.shape
    # a spacing between two readings tells neither: each is offered, with what to check
    channels = [in_unit(image, tmp_path / f"f_000{number}.nii.gz", unit, 1.0) for number, unit in enumerate(("mm",
                                                                                                            "micron"))]
    fine = export(tmp_path / "fine", in_channels=2, spacing=(0.05,) * 3, spacing_unit="mm")
    with pytest.raises(DataError, match=r"ways, and which is the case's, neither the numbers nor the model's spacing "
                                        r"0\.05 x 0\.05 x 0\.05 can tell: check the voxel size the scans were acquired "
                                        r"at\. Where the voxels are "):
        predict_file(fine, channels, tmp_path / "f.nii.gz")
    # exactly ten times nearer one (0.2 mm: 2 mm ten times off, 0.002 mm a hundred) tells it, as "ten times" says
    tenth = export(tmp_path / "tenth", in_channels=2, spacing=(0.2,) * 3, spacing_unit="mm")
    with pytest.raises(DataError, match=r"the model's spacing 0\.2 x 0\.2 x 0\.2 tells which is the case's, the one "
                                        rf"nearest it, {' x '.join(f'{s:.4g}' for s in sizes)} mm: declare "):
        predict_file(tenth, channels, tmp_path / "f.nii.gz")


def test_a_case_of_one_file_is_told_the_line_the_models_spacing_tells_first(scans, tmp_path):
    """One file declaring micrometres (or metres) on mm numbers, for a model in mm, was told `Rewrite it in mm` first,
    where two such files are told to be declared mm (the review of h78): run, it left the file at 0.002 mm voxels,
    segmented as a voxel or two against the model's spacing, exit 0. The model's spacing tells its numbers are mm: the
    declaring line first, which, run, puts the file at its voxel size; a file whose numbers are micrometres indeed
    is told the rewrite first as before."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    model = export(tmp_path / "mm", spacing_unit="mm")
    for index, (unit, per_mm, first) in enumerate([
            ("micron", 1.0, "declare {} mm, its numbers mm already under a header of micrometres (nibabel: "),
            ("meter", 1.0, "declare {} mm, its numbers mm already under a header of metres (nibabel: "),
            ("micron", 1000.0, "Rewrite it in mm (nibabel: ")]):
        path = in_unit(image, tmp_path / f"a{index}_0000.nii.gz", unit, per_mm)
        with pytest.raises(DataError) as refused:
            predict_file(model, path, tmp_path / "a.nii.gz")
        said = str(refused.value)
        assert said.startswith(f"{path}: its header declares "), said
        before_others = re.split(r"; or,|, or, where", said)[0]
        assert first.format(path) in before_others, said
        code = re.search(r"(?:[Dd]eclare \S+ mm.*?|Rewrite it in mm) \(nibabel: (img = .*?nib\.save\(.*?path\))\)",
                         before_others)
        exec(code.group(1), {"nib": nib, "np": np, "path": path})
        assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes), (unit, per_mm, said)
        assert nib.load(path).header.get_xyzt_units()[0] == "mm"
        assert read_labels(predict_file(model, path, tmp_path / "a.nii.gz")).shape == image.shape


def test_a_case_of_one_file_for_a_model_in_micrometres_or_metres_is_told_the_line_its_spacing_tells(scans, tmp_path):
    """A single file for a model in micrometres or metres was judged against the model's unit alone until helper h81
    of the hundred-and-fifteenth session: one declaring micrometres on mm numbers for a model in micrometres was
    refused by the far finer check, told `Rewrite its geometry in mm` from metres; one declaring metres on mm numbers
    told to be rewritten from metres; for a model in metres, files of no unit and files declaring micrometres or
    metres on mm numbers were refused by the host's memory ("micrometres where theirs were mm") or told a rewrite
    from their header's unit (benchmarks/results/predict_one_file_units_2026-12-06/: 7 of 16 kinds at 2 mm). The
    spacing tells the reading: its line, run as written, leaves the file at its voxel size in the model's unit, and
    predict segments it."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    micro = export(tmp_path / "micro", spacing=(2500.0,) * 3, spacing_unit="micron")
    metres = export(tmp_path / "metres", spacing=(0.0025,) * 3, spacing_unit="meter")
    for index, (model, unit, per_mm, named, first) in enumerate([
            (micro, "micron", 1.0, "micrometres", "from mm in micrometres"),
            (micro, "meter", 1.0, "metres", "from mm in micrometres"),
            (metres, "unknown", 1.0, "no unit", "from mm in metres"),
            (metres, "unknown", 1000.0, "no unit", "from micrometres in metres"),
            (metres, "micron", 1.0, "micrometres", "from mm in metres"),
            (metres, "meter", 1.0, "metres", "from mm in metres")]):
        path = in_unit(image, tmp_path / f"o{index}_0000.nii.gz", unit, per_mm)
        with pytest.raises(DataError) as refused:
            predict_file(model, path, tmp_path / "o.nii.gz")
        said = str(refused.value)
        assert "\n" not in said and said.startswith(f"{path}: its header declares {named} for its voxel sizes"), said
        assert (f"tells which is the scan's, the one nearest it, {' x '.join(f'{size:.4g}' for size in sizes)} mm: "
                f"rewrite {path} {first}") in said, said
        assert run_first_lines(said) == 1
        model_unit = "micron" if model == micro else "meter"
        in_model_unit = sizes * (1000.0 if model == micro else 0.001)
        assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), in_model_unit), (index, said)
        assert nib.load(path).header.get_xyzt_units()[0] == model_unit
        assert read_labels(predict_file(model, path, tmp_path / "o.nii.gz")).shape == image.shape


def test_a_reading_a_hundred_times_off_the_models_spacing_is_not_told(scans, tmp_path):
    """The spacing "told" the nearest reading of a case where the next came ten times farther, however far the nearest
    was: one file declaring metres on micrometre numbers, for a model in mm, was told its numbers were mm already
    (1,000 times coarser than the spacing as mm, a million as metres), `Declare it mm` leaving it 1,000 times off; two
    files of no unit alike on numbers 1,000,000 times their size were told the spacing tells their micrometre reading,
    1,000 times off it (until helper h81 of the hundred-and-fifteenth session). A reading a hundred times off the
    spacing or more is not told: the file in metres is told its micrometre reading, whose line leaves it at its size
    in mm, and the two files are left to the memory check, which refuses them naming no reading the spacing tells."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    path = in_unit(image, tmp_path / "m_0000.nii.gz", "meter", 1000.0)
    model = export(tmp_path / "mm", spacing_unit="mm")
    with pytest.raises(DataError) as refused:
        predict_file(model, path, tmp_path / "m.nii.gz")
    said = str(refused.value)
    assert f"mm: rewrite {path} from micrometres, its numbers micrometres under a header of metres" in said, said
    assert run_first_lines(said) == 1
    assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes)
    assert read_labels(predict_file(model, path, tmp_path / "m.nii.gz")).shape == image.shape
    channels = [in_unit(image, tmp_path / f"k_000{c}.nii.gz", "unknown", 1e6) for c in range(2)]
    with pytest.raises(DataError) as refused:
        predict_file(export(tmp_path / "two", in_channels=2, spacing_unit="mm"), channels, tmp_path / "k.nii.gz")
    assert " tells " not in str(refused.value) and "GiB is available" in str(refused.value), str(refused.value)


def test_a_single_file_whose_readings_the_spacing_cannot_tell_apart_is_told_every_way_nearer_1mm_first(scans,
                                                                                                        tmp_path):
    """A model at 0.05 mm lies between a file's readings at 2 and 0.002 mm: a file declaring micrometres on mm numbers
    was told `Rewrite it in mm` alone, 0.002 mm voxels then (the review of h78's one_file.py, until helper h81). Every
    way is offered, the one nearer 1 mm first, with what to check; its line, run, leaves the file at its size in mm
    (the prediction itself, 40 times finer, is not run: too large for a test)."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    model = export(tmp_path / "fine", spacing=tuple(sizes / 40), spacing_unit="mm")
    path = in_unit(image, tmp_path / "u_0000.nii.gz", "micron", 1.0)
    with pytest.raises(DataError) as refused:
        predict_file(model, path, tmp_path / "u.nii.gz")
    said = str(refused.value)
    assert "can tell: check the voxel size it was acquired at. Where the voxels are " in said, said
    assert (f"Where the voxels are {' x '.join(f'{size:.4g}' for size in sizes)} mm: declare {path} mm, its numbers mm "
            "already under a header of micrometres (nibabel: ") in said, said
    assert run_first_lines(said) == 1
    assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes)
    assert nib.load(path).header.get_xyzt_units()[0] == "mm"


def test_files_declaring_mm_far_finer_than_a_spacing_set_are_taken_at_their_word(scans, tmp_path):
    """The far finer check takes a header declaring mm at its word against a spacing set (micro-CT for a model trained
    coarser on purpose): two channel files declaring mm alike at a thousandth of their size were told to be rewritten
    from metres since h78, and one file too with helper h81's reading of a single file, until that helper. Both are
    segmented; against a spacing that is a median they are refused."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    for channels in (1, 2):
        paths = [in_unit(image, tmp_path / f"f{channels}_000{c}.nii.gz", "mm", 0.001) for c in range(channels)]
        for spacing_set in (True, False):
            model = export(tmp_path / f"m{channels}{spacing_set}", in_channels=channels, spacing_unit="mm",
                           spacing_set=spacing_set)
            output = tmp_path / f"o{channels}{spacing_set}.nii.gz"
            if spacing_set:
                assert read_labels(predict_file(model, paths, output)).shape == image.shape
            else:
                with pytest.raises(DataError):
                    predict_file(model, paths, output)


def test_files_declaring_mm_on_micrometre_numbers_are_read_against_a_spacing_set(scans, tmp_path):
    """A header declaring mm is taken at its word against a spacing set for voxels far FINER alone, as the far finer
    check takes it: files declaring mm on micrometre numbers (2 mm voxels written 2000), 800 times coarser than the
    spacing, were taken at their word too by helper h81's rule, one file and two alike, left to the host's memory
    check, which passes a small scan (segmented resampled 200 times along each axis, the review's probe), until the
    review of h81. The spacing tells their micrometre reading; its line run, the scan is segmented at 2 mm."""
    from accelerated_seg.data.spacing import ras_spacing_of
    from accelerated_seg.inference_reading import channel_units_refusal

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    for channels in (1, 2):
        model = export(tmp_path / f"m{channels}", in_channels=channels, spacing_unit="mm", spacing_set=True)
        paths = [in_unit(image, tmp_path / f"f{channels}_000{c}.nii.gz", "mm", 1000.0) for c in range(channels)]
        said = channel_units_refusal(json.loads((model / "config.json").read_text()), paths, (2.5, 2.5, 2.5))
        assert said is not None and "micrometres" in said, said
        if channels == 1:
            with pytest.raises(DataError):
                refused_then_segmented(model, paths[0], tmp_path / "o.nii.gz")
            assert np.allclose(ras_spacing_of(nib.load(paths[0]).affine), ras_spacing_of(image.affine))


def test_channel_files_wrong_alike_are_one_error_for_the_case_read_against_the_models_spacing(scans, tmp_path):
    """Channel files alike (the same unit and numbers) were judged as a case of one file is, until the
    hundred-and-fifteenth session (helper h78): two declaring micrometres on mm numbers, for a model in mm, were told
    `Rewrite each in mm` first, 0.002 mm voxels then; two of no unit on micrometre numbers were refused by the host's
    memory, or resampled to the model's spacing 1,000 times their size, with no line; and, for a model of no unit, two
    declaring micrometres on micrometre numbers alike. They are read together as files that disagree are: one error
    naming every file, the reading the model's spacing tells first, whose lines, run as written, make the case
    segmented with every file at its voxel size."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    mm, older = export(tmp_path / "mm", in_channels=2, spacing_unit="mm"), export(tmp_path / "older", in_channels=2)
    for index, (model, kind, first_line) in enumerate([
            (mm, ("micron", 1.0), "declare {} mm, their numbers mm already under a header of micrometres"),
            (mm, ("meter", 1.0), "declare {} mm, their numbers mm already under a header of metres"),
            (mm, ("unknown", 1000.0), "rewrite {} from micrometres, their numbers micrometres under no unit"),
            (older, ("unknown", 1000.0), "rewrite {} from micrometres, their numbers micrometres under no unit"),
            (older, ("micron", 1000.0), "rewrite {} from micrometres (nibabel: ")]):
        channels = [in_unit(image, tmp_path / f"s{index}_000{number}.nii.gz", *kind) for number in range(2)]
        with pytest.raises(DataError) as refused:
            predict_file(model, channels, tmp_path / "o.nii.gz")
        said = str(refused.value)
        assert "\n" not in said and not (tmp_path / "o.nii.gz").exists(), said
        assert said.startswith("every one of the case's files declares "), said
        assert f"{channels[0]} (channel 0, MRI0): " in said and f"{channels[1]} (channel 1, MRI1): " in said, said
        assert (f"the model's spacing 2.5 x 2.5 x 2.5 tells which is the case's, the one nearest it, "
                f"{' x '.join(f'{size:.4g}' for size in sizes)} mm: "
                f"{first_line.format(f'{channels[0]} and {channels[1]}')}") in said, said
        assert run_first_lines(said) == 2
        for path in channels:
            assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), sizes), path
        assert read_labels(predict_file(model, channels, tmp_path / "o.nii.gz")).shape == image.shape


def test_a_model_in_metres_takes_channel_files_of_no_unit_on_metre_numbers(scans, tmp_path):
    """A file of no unit is read in the model's unit; for a model in metres, the case's readings read such a file in mm
    or micrometres alone (``case_readings.readings_of``), so two channels of no unit on metre numbers, or one beside a
    channel declaring metres, were told that the model's spacing 0.0025 m "tells" 0.002 mm voxels (750 times finer
    than it) and to be rewritten "from mm in metres", 0.002 mm voxels then, where they passed before h78 (its
    review). They pass; a channel of no unit on mm numbers beside one in metres is still told its rewrite."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    metres = export(tmp_path / "metres", in_channels=2, spacing=(0.0025,) * 3, spacing_unit="meter")
    for index, units in enumerate([("unknown", "unknown"), ("meter", "unknown"), ("unknown", "meter")]):
        channels = [in_unit(image, tmp_path / f"m{index}_000{c}.nii.gz", unit, 0.001) for c, unit in enumerate(units)]
        assert read_labels(predict_file(metres, channels, tmp_path / "m.nii.gz")).shape == image.shape, units
    channels = [in_unit(image, tmp_path / "x_0000.nii.gz", "meter", 0.001),
                in_unit(image, tmp_path / "x_0001.nii.gz", "unknown", 1.0)]
    with pytest.raises(DataError) as refused:
        predict_file(metres, channels, tmp_path / "x.nii.gz")
    said = str(refused.value)
    assert f"{' x '.join(f'{size:.4g}' for size in sizes)} mm: rewrite {channels[1]} from mm in metres" in said, said
    assert run_first_lines(said) == 1
    assert read_labels(predict_file(metres, channels, tmp_path / "x.nii.gz")).shape == image.shape


def test_a_model_in_micrometres_or_of_no_spacing_reads_a_cases_channel_files_together(scans, tmp_path):
    """A model whose spacing is in micrometres (config.json's spacing_unit) or that has none judged a case's channel
    files one by one until the hundred-and-fifteenth session (helper h78): for the model in micrometres, a channel of
    no unit on mm numbers beside one in micrometres was told to be declared mm and the other rewritten in mm, after
    which both were refused as another unit than the model's; for a model of no spacing, a channel in micrometres
    beside one in mm was told `resample every channel onto the first one's grid`. One error for the case, its lines
    put every file in the model's unit, and the case is segmented once they are run."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    sizes = nib.affines.voxel_sizes(image.affine)
    micro = export(tmp_path / "micro", in_channels=2, spacing=(2500.0,) * 3, spacing_unit="micron")
    channels = [in_unit(image, tmp_path / "u_0000.nii.gz", "micron", 1000.0),
                in_unit(image, tmp_path / "u_0001.nii.gz", "unknown", 1.0)]
    with pytest.raises(DataError) as refused:
        predict_file(micro, channels, tmp_path / "u.nii.gz")
    said = str(refused.value)
    assert "\n" not in said and said.startswith("none of the case's files declares mm"), said
    assert (f"every file's numbers come to one voxel size one way alone, {' x '.join(f'{size:.4g}' for size in sizes)}"
            f" mm: rewrite {channels[1]} from mm in micrometres, its numbers mm under no unit (nibabel: ") in said, said
    assert run_first_lines(said) == 1
    assert np.allclose(nib.affines.voxel_sizes(nib.load(channels[1]).affine), sizes * 1000)
    assert nib.load(channels[1]).header.get_xyzt_units()[0] == "micron"
    assert read_labels(predict_file(micro, channels, tmp_path / "u.nii.gz")).shape == image.shape
    # channel 1 declaring micrometres on mm numbers: told the grid's `resample every channel onto the first one's grid`
    channels = [channels[0], in_unit(image, tmp_path / "u_0002.nii.gz", "micron", 1.0)]
    with pytest.raises(DataError, match=re.escape(
            f"the model's spacing 2500 x 2500 x 2500 micrometres tells which is the case's, the one nearest it, "
            f"{' x '.join(f'{size:.4g}' for size in sizes)} mm: rewrite {channels[1]} from mm in micrometres, its "
            f"numbers mm under a header of micrometres (nibabel: ")) as refused:
        predict_file(micro, channels, tmp_path / "u.nii.gz")
    assert run_first_lines(str(refused.value)) == 1
    assert read_labels(predict_file(micro, channels, tmp_path / "u.nii.gz")).shape == image.shape
    unresampled = export(tmp_path / "unresampled", in_channels=2, spacing=None)
    channels = [in_unit(image, tmp_path / "n_0000.nii.gz", "mm", 1.0),
                in_unit(image, tmp_path / "n_0001.nii.gz", "micron", 1000.0)]
    with pytest.raises(DataError) as refused:
        predict_file(unresampled, channels, tmp_path / "n.nii.gz")
    said = str(refused.value)
    assert "share a voxel grid" not in said and "\n" not in said, said
    assert ("so their grids lie 1,000 times apart, and the model, which resamples nothing (its spacing is null), takes "
            "one grid. Read together, ") in said, said
    assert f"{' x '.join(f'{size:.4g}' for size in sizes)} mm: rewrite {channels[1]} from micrometres (nibabel: " in said
    assert run_first_lines(said) == 1
    assert read_labels(predict_file(unresampled, channels, tmp_path / "n.nii.gz")).shape == image.shape
    # files holding the same numbers share one grid, which a model of no spacing takes whatever their units say
    same = [in_unit(image, tmp_path / "s_0000.nii.gz", "mm", 1.0), in_unit(image, tmp_path / "s_0001.nii.gz", "micron",
                                                                          1.0)]
    assert read_labels(predict_file(unresampled, same, tmp_path / "s.nii.gz")).shape == image.shape


def test_a_channel_of_no_unit_beside_one_in_micrometres_their_factor_apart_is_told_the_unit(scans, tmp_path):
    """A channel declaring no unit beside one in micrometres or metres, voxel sizes that unit's factor apart, was told
    to be resampled onto the first channel's grid (a review's probe of the hundred-and-seventh session), where the
    pre-flight check says the unit is the likely cause (``case_units.judge_units``): so is predict, in either
    order, for a model recording no unit or no spacing, and the two lines offered, run as written, make the case
    segmented. Numbers 10 times apart are another grid still."""
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    models = [export(tmp_path / "older", in_channels=2), export(tmp_path / "unresampled", in_channels=2, spacing=None)]
    for index, (model, unit, order) in enumerate([(m, u, o) for m in models for u in ("micron", "meter")
                                                  for o in ("unitless first", "unit first")]):
        unitless = in_unit(image, tmp_path / f"none{index}.nii.gz", "unknown", 1.0)
        declared = in_unit(image, tmp_path / f"{unit}{index}.nii.gz", unit, {"micron": 1000.0, "meter": 0.001}[unit])
        channels = [unitless, declared] if order == "unitless first" else [declared, unitless]
        output = tmp_path / f"{index}.nii.gz"
        with pytest.raises(DataError, match=rf"^{re.escape(str(unitless))}(?: \(.*?\))?: its header declares no unit "
                                            r"for its voxel sizes .* the unit is the likely cause, not another grid.* "
                                            r"[Dd]eclare .* in mm(?:, as its numbers are)? \(nibabel: (img = .*?, "
                                            r"path\))\), "
                                            r"and rewrite .* in mm \(nibabel: (img = .*?, path\))\); or") as refused:
            predict_file(model, channels, output)
        assert "share a voxel grid" not in str(refused.value) and not output.exists(), (index, str(refused.value))
        assert str(refused.value).endswith("differ indeed, resample every channel onto the first one's grid")
        # a model of no spacing tells nothing of a file in metres: the way of numbers of none in mm comes first
        in_mm = str(refused.value).split("; or, where its numbers are micrometres")[0]
        assert (in_mm != str(refused.value)) == (unit == "meter" and model == models[1]), str(refused.value)
        declare, rewrite = re.search(r"nibabel: (img = .*?, path\))\).*nibabel: (img = .*?, path\))\)",
                                     in_mm).group(1, 2)
        exec(declare, {"nib": nib, "np": np, "path": str(unitless)})
        exec(rewrite, {"nib": nib, "np": np, "path": str(declared)})
        assert read_labels(predict_file(model, channels, output)).shape == image.shape
    apart = in_unit(image, tmp_path / "ten.nii.gz", "micron", 10.0)
    with pytest.raises(DataError, match=r"do not share a voxel grid"):
        predict_file(models[0], [in_unit(image, tmp_path / "n.nii.gz", "unknown", 1.0), apart], tmp_path / "t.nii.gz")


def test_predict_names_a_model_folder_among_the_images_beside_a_model(scans, tmp_path, capsys):
    """``predict --model a b scans/``, an ensemble's second member without its own --model (--model takes one folder
    each time), was "folder b holds no .nii/.nii.gz file; check the path" until the hundred-and-eighteenth session:
    the folder is named as the model it is, with the --model that takes it and the whole command, before any image
    is read; and so from Python (predict_cases' inputs), and for a run's folder or --model's own given again."""
    from accelerated_seg.model_folders import model_folder_kind
    from refusals import run_probing_imports

    a, b, run = export(tmp_path / "a"), export(tmp_path / "b"), tmp_path / "run"
    for name in ("best_model", "model"):  # as training writes them
        export(run / name)
    images, out = str(scans / "imagesTr"), str(tmp_path / "out")
    proc, imported = run_probing_imports("accelerated_seg.cli", "predict", "--model", str(a), str(b), images,
                                         "--output", out, module=True)
    assert proc.returncode == 2 and imported == [], (proc.stderr, imported)
    assert proc.stderr.splitlines()[0] == (
        f"error: {b} is an exported model, given as an image to segment: give --model {b} for an ensemble with {a} "
        f"(accelerated-seg predict --model {a} --model {b} {images} --output {out})")
    assert main(["predict", "--model", str(a), images, str(run), "--output", out]) == 2
    assert (f"error: {run} is a training run's folder, given as an image to segment: give --model {run / 'best_model'} "
            f"or --model {run / 'model'} for an ensemble with {a} (accelerated-seg predict --model {a} --model "
            f"<one of them> {images} --output {out})") in capsys.readouterr().err
    assert main(["predict", "--model", str(a), str(a), images, "--output", out]) == 2
    assert (f"error: {a} is the --model folder, given again as an image to segment: drop it from the images"
            in capsys.readouterr().err)
    assert not Path(out).exists()
    with pytest.raises(DataError, match=rf"^folder {re.escape(str(b))} holds no .nii/.nii.gz file: it is an exported "
                                        rf"model, not scans; give {re.escape(str(b))} as the model"):
        predict_cases(a, [images, b], out)
    # a folder of scans is scans, whatever else it holds (another program's config.json)
    assert model_folder_kind(b) == ("an exported model", [b]) and model_folder_kind(scans / "imagesTr") is None
    (tmp_path / "with_config").mkdir()
    shutil.copy(b / "config.json", tmp_path / "with_config" / "config.json")
    shutil.copy(scans / "imagesTr" / "case_000.nii.gz", tmp_path / "with_config")
    assert model_folder_kind(tmp_path / "with_config") is None


def test_evaluate_and_export_name_a_model_folder_given_for_their_folders(scans, tmp_path, capsys):
    """An exported model (or a run's folder) as evaluate's PRED was told to "write each case's prediction there", as
    its LABELS "no .nii/.nii.gz label file"; export of a run's folder without checkpoints "is not a checkpoint":
    until the hundred-and-eighteenth session. Each now says what the folder is, and what takes it."""
    model, run = export(tmp_path / "model"), tmp_path / "run"
    for name in ("best_model", "model"):
        export(run / name)
    labels = str(scans / "labelsTr")
    assert main(["evaluate", str(model), labels]) == 2
    assert (f"error: {model} is an exported model, not predictions: evaluate scores the label maps predict writes; "
            f"predict first (accelerated-seg predict --model {model} <scans> --output <folder>), then accelerated-seg "
            f"evaluate <folder> {labels}") in capsys.readouterr().err
    assert main(["evaluate", str(run), labels]) == 2
    assert (f"error: {run} is a training run's folder, not predictions: evaluate scores the label maps predict "
            f"writes; predict first (accelerated-seg predict --model {run / 'best_model'} <scans>"
            in capsys.readouterr().err)
    assert main(["evaluate", str(scans / "imagesTr"), str(model)]) == 2
    assert (f"error: {model} is an exported model, not reference label maps: give the folder of the references"
            in capsys.readouterr().err)
    assert not (model / "evaluation").exists() and not (run / "evaluation").exists()
    with pytest.raises(SystemExit, match="^2$"):
        main(["export", str(run), "--output", str(tmp_path / "e")])
    assert (f"{run} holds no checkpoints/ folder to export, but its exports {run / 'best_model'} and {run / 'model'} "
            f"are exported models already: predict, evaluate and train.init_from take them as they are"
            in capsys.readouterr().err)
    assert not (tmp_path / "e").exists()


def test_folders_read_as_images_and_a_launch_of_the_model_among_the_images_review(scans, tmp_path, capsys):
    """The hundred-and-eighteenth session's review of its model among the images: a folder of per-case subfolders
    beside another program's config.json (a viewer's, a Hugging Face model's) was called "an exported model", and a
    dataset folder a training run had written its model/ into "a training run's folder", where each was told how to
    give its scans before; the ensemble's command dropped the options given (--continue, --tta); a run whose
    best_model was --model was told to add best_model again; and a launch's every process printed the line, which
    its launcher's report lacked, where the refusal of an input had been said once."""
    from accelerated_seg.model_folders import model_folder_kind
    from refusals import run_probing_imports

    a, run, out = export(tmp_path / "a"), tmp_path / "run", str(tmp_path / "out")
    for name in ("best_model", "model"):
        export(run / name)
    images, scan = str(scans / "imagesTr"), scans / "imagesTr" / "case_000.nii.gz"
    for name, config in (("viewer", {"viewer": {"window": [0, 80]}}), ("hf", {"model_type": "vit"})):
        (tmp_path / name / "case_000").mkdir(parents=True)
        shutil.copy(scan, tmp_path / name / "case_000" / "image.nii.gz")
        (tmp_path / name / "config.json").write_text(json.dumps(config))
        (tmp_path / name / "model.safetensors").write_bytes(b"")
        assert model_folder_kind(tmp_path / name) is None
        assert main(["predict", "--model", str(a), str(tmp_path / name), "--output", out]) == 2
        assert (f"error: folder {tmp_path / name} holds no .nii/.nii.gz file itself, but its subfolders hold 1"
                in capsys.readouterr().err)
    dataset = tmp_path / "dataset"
    shutil.copytree(scans, dataset)
    export(dataset / "model")
    assert model_folder_kind(dataset) is None
    assert main(["predict", "--model", str(a), str(dataset), "--output", out]) == 2
    assert f"folder {dataset} holds no .nii/.nii.gz file itself: it is a dataset's folder" in capsys.readouterr().err
    export(tmp_path / "b")
    assert main(["predict", "--model", str(a), str(tmp_path / "b"), images, "--output", out, "--continue", "--tta",
                 "--overlap", "0.25", "--no-aggregate-on-cpu", "--keep-largest", "1", "2"]) == 2
    assert capsys.readouterr().err.splitlines()[0].endswith(
        f"(accelerated-seg predict --model {a} --model {tmp_path / 'b'} {images} --output {out} --tta "
        f"--keep-largest 1 2 --no-aggregate-on-cpu --overlap 0.25 --continue)")
    best = str(run / "best_model")
    assert main(["predict", "--model", best, str(run), images, "--output", out]) == 2
    assert (f"error: {run} is a training run's folder, given as an image to segment: give --model {run / 'model'} "
            f"for an ensemble with {best} (accelerated-seg predict --model {best} --model {run / 'model'} {images} "
            f"--output {out})") in capsys.readouterr().err
    assert main(["predict", "--model", best, "--model", str(run / "model"), str(run), images, "--output", out]) == 2
    assert (f"error: {run} is the training run's folder of --model {best} and {run / 'model'}, given as an image "
            f"to segment: drop it from the images") in capsys.readouterr().err
    assert not Path(out).exists()
    script = tmp_path / "predict.py"  # main() as a script calls it: cli's __main__ ends a launched one with os._exit
    script.write_text("import sys\nfrom accelerated_seg.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    for rank in (0, 1):  # outside torch elastic each node's first process says it (say_the_error)
        env = {**os.environ, "WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": str(rank),
               "TORCHELASTIC_ERROR_FILE": str(tmp_path / f"error_{rank}.json")}
        for model_given in (["--model", str(a)], []):
            proc, imported = run_probing_imports(str(script), "predict", *model_given, str(tmp_path / "b"), images,
                                                 "--output", out, env=env)
            said = f"error: {tmp_path / 'b'} is an exported model, given as an image to segment" in proc.stderr
            assert proc.returncode == 2 and said == (rank == 0) and imported == [], (proc.stderr, imported)
            assert f"{tmp_path / 'b'} is an exported model" in (tmp_path / f"error_{rank}.json").read_text()


def test_a_folder_that_cannot_be_listed_among_the_images_is_said_not_raised(scans, tmp_path, capsys, monkeypatch):
    """A folder among predict's images with a config.json that cannot be listed (mode 311; the tests run as root,
    which lists anything, so the listing's PermissionError is patched in): the model check before the inputs' raised
    it from main (a traceback) after the hundred-and-eighteenth session; the inputs' own check says it, status 2."""
    a, folder = export(tmp_path / "a"), tmp_path / "noread"
    folder.mkdir()
    shutil.copy(a / "config.json", folder)
    listing = Path.iterdir

    def refused(self):
        if self == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", refused)
    assert main(["predict", "--model", str(a), str(folder), str(scans / "imagesTr"), "--output",
                 str(tmp_path / "out")]) == 2
    assert f"error: [Errno 13] Permission denied: '{folder}'" in capsys.readouterr().err


def test_predicts_argument_refusals_are_said_once_under_a_launch_and_reported(scans, tmp_path):
    """INPUT... beside --input, and --continue with --input: refused before any import, as every refusal of predict's
    arguments, once on a node and in the launcher's report (say_the_error); printed by every process and in no
    report until the hundred-and-eighteenth session (seen by its review r86)."""
    from refusals import run_probing_imports

    a, images = export(tmp_path / "a"), str(scans / "imagesTr")
    one_file = str(next((scans / "imagesTr").glob("*.nii.gz")))
    script = tmp_path / "predict.py"
    script.write_text("import sys\nfrom accelerated_seg.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    asked = {"not both or neither": [images, "--input", one_file],
             "or drop --continue": ["--input", one_file, "--continue"]}
    for rank in (0, 1):
        env = {**os.environ, "WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": str(rank),
               "TORCHELASTIC_ERROR_FILE": str(tmp_path / f"error_{rank}.json")}
        for words, given in asked.items():
            proc, imported = run_probing_imports(str(script), "predict", "--model", str(a), *given,
                                                 "--output", str(tmp_path / "out"), env=env)
            assert proc.returncode == 2 and (words in proc.stderr) == (rank == 0) and imported == [], proc.stderr
            assert words in (tmp_path / f"error_{rank}.json").read_text()


def test_a_scan_declaring_mm_far_finer_than_the_training_cases_median_is_refused_though_the_spacing_was_set(
        scans, tmp_path):
    """A scan in metres under a header of mm (as ITK writes any numbers), for a model trained coarser on purpose
    (data.spacing set), was taken at its word and segmented as a voxel or two, exit 0: the export had no record of
    its training cases' voxels, where training refuses such a case 100 times finer than the cases' median
    (hundred-and-nineteenth session, helper h105, ``benchmarks/results/predict_training_voxels_2026-12-06/``). The
    export records that median (cases_median_spacing): such a scan is refused in training's words, and segmented
    once the refusal's line is run; a scan far finer than the spacing but not than the median (micro-CT coarsened on
    purpose), and one at the cases' own voxel size, are segmented; an export without the key, as before. An
    ensemble weighs a scan against the coarsest of its members' medians along each axis."""
    from types import SimpleNamespace

    from accelerated_seg.ensemble import load_for_prediction
    from accelerated_seg.exported_model import read_export_config
    from accelerated_seg.run_records import export_metadata

    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")  # 2 mm voxels, its header declaring no unit
    metres = in_unit(image, tmp_path / "metres.nii.gz", "mm", 0.001)  # 0.002 mm
    model = export(tmp_path / "set", spacing_set=True, cases_median_spacing=[2.0, 2.0, 2.0])
    with pytest.raises(DataError) as refused:
        predict_file(model, metres, tmp_path / "y.nii.gz")
    said = str(refused.value)
    assert said.startswith(f"{metres}: voxels of 0.002 x 0.002 x 0.002 mm, 1,250 times finer than the model's "
                           "spacing 2.5 x 2.5 x 2.5 mm, so resampling leaves it 1 x 1 x 1 voxels"), said
    assert said.endswith("(its header declares mm, which predict takes at its word against a data.spacing coarser on "
                         "purpose, but its voxels are 1,000 times finer than the model's training cases' median voxel "
                         "size 2 x 2 x 2 mm too: scans resampled coarser on purpose are most of a dataset's cases, not "
                         "one 1,000 times finer than the others; config.json's cases_median_spacing)"), said
    assert not (tmp_path / "y.nii.gz").exists()
    exec(re.search(r"\(nibabel, from metres: (img = .*?, path\))\)", said).group(1),
         {"nib": nib, "np": np, "path": str(metres)})
    assert read_labels(predict_file(model, metres, tmp_path / "y.nii.gz")).shape == image.shape
    # 0.023 mm: 109 times finer than the spacing, 87 times finer than the median, as micro-CT coarsened on purpose is
    # near its cases' own voxels; and a scan at the cases' own voxel size
    for scan in (in_unit(image, tmp_path / "fine.nii.gz", "mm", 0.0115), in_unit(image, tmp_path / "own.nii.gz", "mm",
                                                                                 1.0)):
        assert read_labels(predict_file(model, scan, tmp_path / f"by_set_{scan.name}")).shape == image.shape
    older = export(tmp_path / "older", spacing_set=True)  # an export made before: judged by nothing new
    metres = in_unit(image, tmp_path / "metres_again.nii.gz", "mm", 0.001)
    assert read_labels(predict_file(older, metres, tmp_path / "by_older.nii.gz")).shape == image.shape
    with pytest.raises(DataError, match=r"times finer than the members' spacing 2.5 x 2.5 x 2.5 mm, .*1,000 times "
                                        r"finer than the coarsest along each axis of the members' training cases' "
                                        r"median voxel sizes, 2 x 2 x 2 mm too"):
        predict_file([older, model], metres, tmp_path / "y.nii.gz")
    apart = export(tmp_path / "apart", spacing_set=True, cases_median_spacing=[1.0, 3.0, 0.5])
    assert load_for_prediction([model, apart, older])[1]["cases_median_spacing"] == [2.0, 3.0, 2.0]
    # members of other medians: the sizes quoted are no member's, and said so (the review of h105: "the members'
    # training cases' median voxel size 2 x 3 x 2 mm", which no config.json records)
    with pytest.raises(DataError, match=r"150 times finer than the coarsest along each axis of the members' training "
                                        r"cases' median voxel sizes, 2 x 3 x 2 mm too"):
        predict_file([model, apart], in_unit(image, tmp_path / "fine_10um.nii.gz", "mm", 0.01), tmp_path / "y.nii.gz")
    assert load_for_prediction([older, export(tmp_path / "older_too")])[1]["cases_median_spacing"] is None
    # what training records, where data.spacing is set; a hand edit of it is refused as the export's other values
    manifest = SimpleNamespace(labels={0: "background", 1: "a"}, channels={0: "MRI"}, num_channels=1, num_classes=2,
                               regions=None, ignore_value=None, file_ending=None)
    cfg = SimpleNamespace(data=SimpleNamespace(patch_size=PATCH, spacing=(2.5,) * 3))
    for median, recorded in ((None, None), ((2.0, 2.0, 4.0), [2.0, 2.0, 4.0])):
        assert export_metadata(cfg, manifest, PreprocessSettings(spacing=(2.5,) * 3), "mm",
                               median)["cases_median_spacing"] == recorded
    with pytest.raises(DataError, match=r"config.json: cases_median_spacing \[2, 2\] is not 3 sizes > 0 \(or null: "
                                        r"the training cases' median voxel size\)"):
        read_export_config(export(tmp_path / "edited", cases_median_spacing=[2, 2]))


def test_the_commands_error_lines_suggest_read_back_as_their_words_in_a_shell(scans, tmp_path, capsys):
    """A command an error line suggests (predict's ensemble and its --model, evaluate's "predict first", the export of
    a checkpoint given as --model, a resume, --config, --output) joined its words with spaces alone until the
    hundred-and-nineteenth session: a folder named with a space, a quote, $ or ; gave a command that, pasted into a
    shell, read other folders or ran another. Each path is now quoted where it needs it (shell_words.shell_word), and
    a shell's reading of the command (shlex.split) gives back the paths given; plain paths read as before."""
    import shlex

    from accelerated_seg.config import ConfigError
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, Names
    from accelerated_seg.resume_config_changes import refuse_a_train_checkpoint_in_fit

    odd = tmp_path / "it's a $HOME; folder"
    a, b, run = export(odd / "a"), export(odd / "b"), odd / "run"
    for name in ("best_model", "model"):
        export(run / name)
    images, out, labels = str(scans / "imagesTr"), str(odd / "out"), str(shutil.copytree(scans / "labelsTr", odd / "l"))

    def words(said: str, start: str, end: str | None = None) -> list[str]:
        """The words of the command in ``said`` from ``start`` up to ``end``, as a shell reads them."""
        text = said[said.index(start):]
        return shlex.split(text[:text.index(end)] if end else text)

    def refused(*args: str) -> str:
        assert main(list(args)) == 2
        return capsys.readouterr().err.splitlines()[0]

    said = refused("predict", "--model", str(a), str(b), images, "--output", out, "--tta")
    assert words(said, "accelerated-seg predict", ")") == ["accelerated-seg", "predict", "--model", str(a), "--model",
                                                           str(b), images, "--output", out, "--tta"], said
    said = refused("predict", str(run), images, "--output", out)
    assert words(said, "give ", " (accelerated-seg") == ["give", "--model", str(run / "best_model"), "or", "--model",
                                                         str(run / "model")], said
    said = refused("evaluate", str(a), labels)
    assert words(said, "accelerated-seg predict", ")") == ["accelerated-seg", "predict", "--model", str(a), "<scans>",
                                                           "--output", "<folder>"], said
    assert words(said, "accelerated-seg evaluate") == ["accelerated-seg", "evaluate", "<folder>", labels], said
    step = run / "checkpoints" / "step_2"
    step.mkdir(parents=True)
    (step / "strategy.json").write_text("{}")
    said = refused("predict", "--model", str(step), images, "--output", out)
    assert words(said, "accelerated-seg export", " --output")[2:] == [str(step)], said
    said = refused("predict", "--model", str(run / "checkpoints"), images, "--output", out)
    assert words(said, "accelerated-seg export", " --output")[2:] == [str(step)], said
    said = refused("predict", "--model", str(a), str(b / "config.json"), "--output", out)
    assert words(said, "--model") == ["--model", str(b)], said
    Path(out).mkdir()
    said = refused("predict", "--model", str(a), "--input", str(scans / "imagesTr" / "case_000.nii.gz"), "--output",
                   out)
    assert words(said, "with --output", " to write") == ["with", "--output", out], said
    assert words(said, "give e.g.", ", or")[2:] == ["--output", str(Path(out) / "case_000.nii.gz")], said
    with pytest.raises(SystemExit, match="^2$"):  # train ends so (exit_on_user_error)
        main(["train", str(odd / "exp.yaml")])
    said = capsys.readouterr().err.splitlines()[0]
    assert words(said, "give it as")[3:] == ["--config", str(odd / "exp.yaml")], said

    (step / "config.yaml").write_text("model: {name: unet}\n")  # a run of accelerated-seg train's, resumed by fit
    with pytest.raises(ConfigError) as refusal:
        refuse_a_train_checkpoint_in_fit(step)
    assert words(str(refusal.value), "accelerated-seg train --config", " (Segmentation") == [
        "accelerated-seg", "train", "--config", str(step / "config.yaml"), f"--train.resume={step}"]
    assert words(Names().way_to_a_new_run_from(step), "accelerated-seg export", " --output")[2:] == [str(step)]
    assert words(Names().elsewhere_from(run / "model"), "--train", " in another") == [f"--train.init_from={run}/model"]
    assert f"fit(..., init_from={str(run / 'model')!r}, " in ESTIMATOR_NAMES.elsewhere_from(run / "model")


def test_an_exports_files_with_a_broken_config_json_where_images_are_expected_say_what_is_wrong(scans, tmp_path,
                                                                                                  capsys):
    """A folder of an export's files (config.json + model.safetensors, no NIfTI file) whose config.json is cut short,
    edited by hand, not UTF-8 or another program's was read as images, "folder b holds no .nii/.nii.gz file; check
    the path", and as export's input "an exported model already" (which predict then refused), until the
    hundred-and-nineteenth session: each now names the file and what is wrong with it, among predict's images before
    any import of torch (status 2), from Python, as evaluate's PRED and LABELS, and as export's input. Scans in its
    subfolders, and a config.json alone, are still read as images (review r86's decisions)."""
    from accelerated_seg.model_folders import model_folder_kind
    from refusals import run_probing_imports

    a, images, out = export(tmp_path / "a"), str(scans / "imagesTr"), str(tmp_path / "out")
    config = (a / "config.json").read_text()
    broken = {"cut_short": (config[:len(config) // 2].encode(), r"is not valid JSON \(.*line \d+ column \d+"),
              "edited": (config.replace('"model": {', '"model": {,', 1).encode(), r"is not valid JSON \(Expecting"),
              "latin1": (config.replace("lesion", "l\xe9sion").encode("latin-1"),
                         r"is not UTF-8 text \(byte 0xe9 on line \d+"),
              "other_programs": (json.dumps({"model_type": "vit"}).encode(), r"has no model section, so it is not an "
                                                                             r"accelerated_seg export")}
    for name, (text, fault) in broken.items():
        folder = export(tmp_path / name)
        (folder / "config.json").write_bytes(text)
        line = (rf"{re.escape(str(folder))} holds no .nii/.nii.gz file but an export's config.json and "
                rf"model.safetensors, and {re.escape(str(folder / 'config.json'))} {fault}")
        proc, imported = run_probing_imports("accelerated_seg.cli", "predict", "--model", str(a), str(folder), images,
                                             "--output", out, module=True)
        assert proc.returncode == 2 and imported == [], (proc.stderr, imported)
        assert re.match(rf"error: {line}", proc.stderr.splitlines()[0]), proc.stderr
        assert main(["predict", str(folder), images, "--output", out]) == 2  # without --model
        assert re.match(rf"error: {line}", capsys.readouterr().err)
        with pytest.raises(DataError, match=rf"^{line}"):
            predict_cases(a, [images, folder], out)
        assert main(["evaluate", str(folder), str(scans / "labelsTr")]) == 2  # as PRED
        assert re.match(rf"error: {line}", capsys.readouterr().err)
        assert main(["evaluate", str(scans / "labelsTr"), str(folder)]) == 2  # as LABELS
        assert re.match(rf"error: {line}", capsys.readouterr().err)
        with pytest.raises(SystemExit, match="^2$"):
            main(["export", str(folder), "--output", str(tmp_path / "e")])
        assert re.search(rf"{re.escape(str(folder))} is no checkpoint but an export's config.json and "
                         rf"model.safetensors, and .*config.json {fault}", capsys.readouterr().err)
    assert not Path(out).exists() and not (tmp_path / "e").exists()
    below = tmp_path / "cut_short" / "case_000"  # scans in its subfolders: images, as the review kept them
    below.mkdir()
    shutil.copy(scans / "imagesTr" / "case_000.nii.gz", below / "image.nii.gz")
    assert model_folder_kind(tmp_path / "cut_short") is None
    assert main(["predict", "--model", str(a), str(tmp_path / "cut_short"), "--output", out]) == 2
    assert "holds no .nii/.nii.gz file itself, but its subfolders hold 1" in capsys.readouterr().err
    (tmp_path / "viewer").mkdir()  # another program's config.json alone: no export's files
    (tmp_path / "viewer" / "config.json").write_text("{not JSON")
    assert model_folder_kind(tmp_path / "viewer") is None
    assert main(["predict", "--model", str(a), str(tmp_path / "viewer"), "--output", out]) == 2
    assert f"error: folder {tmp_path / 'viewer'} holds no .nii/.nii.gz file; check the path" in capsys.readouterr().err
