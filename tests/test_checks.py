"""Pre-flight checks (checks.py), the broken-dataset corpus, and the NIfTI reader/writer they rely on (io.py)."""

import gzip
import json
import re
import shutil
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.config import dump_config, load_config
from accelerated_seg.data.checks import CheckingRanks, check_cases, check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.header_units import and_listed
from accelerated_seg.data.io import file_or_unfetched, read_nifti, write_nifti
from accelerated_seg.data.manifest import Case, load_cases, load_msd
from accelerated_seg.data.prepare import prepare_manifest
from broken_cases import BROKEN_CASES, preflight_errors, write_corpus  # tests/ is on sys.path, as for conftest

NUM_CLASSES = 3
SHAPE = (8, 8, 8)
AFFINE = np.array([[1.5, 0, 0, -10], [0, 1.5, 0, 4], [0, 0, 2.0, 7], [0, 0, 0, 1]])


def save(path, array, affine=AFFINE):
    """Write with plain nibabel, so the fixtures do not depend on the code under test."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(array), affine), path)
    return path


def clean_image(seed=0):
    return np.random.default_rng(seed).normal(size=SHAPE).astype(np.float32)


def clean_label():
    label = np.zeros(SHAPE, dtype=np.uint8)
    label[2:5, 2:5, 2:5] = 1
    label[5:7, 5:7, 5:7] = 2
    return label


def make_case(root, case_id, image=None, label=None, image_affine=AFFINE, label_affine=AFFINE):
    """Write one image/label pair under an MSD layout and return its Case."""
    image_path = save(root / "imagesTr" / f"{case_id}.nii.gz", clean_image() if image is None else image, image_affine)
    label_path = save(root / "labelsTr" / f"{case_id}.nii.gz", clean_label() if label is None else label, label_affine)
    return Case(id=case_id, images=(image_path,), label=label_path)


def check_one_bad_case(tmp_path, bad_case):
    """Check a clean case alongside ``bad_case`` so a test also proves clean cases stay silent."""
    return check_cases([make_case(tmp_path, "good"), bad_case], NUM_CLASSES)


def assert_single_error(report, *fragments):
    assert len(report.errors) == 1, report.errors
    for fragment in fragments:
        assert str(fragment) in report.errors[0], report.errors[0]
    return report.errors[0]


# --- checks -----------------------------------------------------------------------------------


def test_clean_dataset_passes(tmp_path):
    cases = [make_case(tmp_path, f"case_{i:03d}") for i in range(3)]
    entries = [{"image": str(c.images[0]), "label": str(c.label)} for c in cases]
    (tmp_path / "dataset.json").write_text(
        json.dumps({"labels": {"0": "bg", "1": "a", "2": "b"}, "training": entries[:2], "validation": entries[2:]})
    )
    report = check_manifest(load_msd(tmp_path / "dataset.json"))

    assert report.errors == [] and report.warnings == []
    report.raise_if_errors()  # no-op


def test_missing_image(tmp_path):
    case = make_case(tmp_path, "bad")
    case.images[0].unlink()
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "not found")


def test_missing_label(tmp_path):
    case = make_case(tmp_path, "bad")
    case.label.unlink()
    assert_single_error(check_one_bad_case(tmp_path, case), case.label, "not found", "(label)")


def test_label_shape_differs_from_image(tmp_path):
    case = make_case(tmp_path, "bad", label=np.zeros((8, 8, 6), np.uint8) + 1)
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label, case.images[0], "(8, 8, 6)", "(8, 8, 8)")
    assert "resample" in error


def test_label_value_at_or_above_num_classes(tmp_path):
    label = clean_label()
    label[0, 0, 0] = 5
    case = make_case(tmp_path, "bad", label=label)
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label, "[5]", "num_classes=3")
    assert "declared: 0..2" in error


def test_negative_label(tmp_path):
    label = clean_label().astype(np.int16)
    label[0, 0, 0] = -1
    case = make_case(tmp_path, "bad", label=label)
    assert_single_error(check_one_bad_case(tmp_path, case), case.label, "[-1]")


def test_non_integer_label(tmp_path):
    label = clean_label().astype(np.float32)
    label[0, 0, 0] = 0.5
    case = make_case(tmp_path, "bad", label=label)
    assert_single_error(check_one_bad_case(tmp_path, case), case.label, "non-integer", "0.5")


@pytest.mark.parametrize("slope, inter, read_as", [(2.0, 5.0, "[5, 7, 9]"), (0.5, 0.0, "non-integer")])
def test_a_label_whose_header_scales_its_values_is_told_so(tmp_path, slope, inter, read_as):
    """A label exported with an image's scl_slope/scl_inter reads, in nibabel as in ITK, as scaled values:
    stored 0, 1, 2 under slope 2 and intercept 5 are 5, 7, 9. The check named those values and said to
    declare them as classes; the header is what to fix."""
    case = make_case(tmp_path, "bad")
    label = nib.Nifti1Image(clean_label(), AFFINE)
    label.header.set_slope_inter(slope, inter)  # kept on save: the array's own dtype needs no scaling of nibabel's
    nib.save(label, case.label)
    stored = nib.load(case.label).dataobj
    assert (stored.slope, stored.inter) == (slope, inter)  # as nibabel reads it
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label, read_as)
    assert f"its header scales the stored values (scl_slope {slope:g}, scl_inter {inter:g})" in error
    assert "nib.Nifti1Image(img.dataobj.get_unscaled(), img.affine, img.header)" in error


@pytest.mark.parametrize("slope, inter", [(1.0, 1.0), (2.0, 0.0)])
def test_a_label_whose_header_scales_its_values_onto_declared_classes_is_refused(tmp_path, slope, inter):
    """Stored 0, 1, 2 under scl_inter 1 read as 1, 2, 3 (under slope 2 as 0, 2, 4): every value declared, so
    until the ninety-fifth session the check passed it and training learnt each class shifted (background as
    class 1). A label map's values are classes: a scaling other than (1, 0) is refused whatever it reads as."""
    case = make_case(tmp_path, "scaled")
    label = nib.Nifti1Image(clean_label(), AFFINE)
    label.header.set_slope_inter(slope, inter)
    nib.save(label, case.label)
    error = assert_single_error(check_cases([case], [0, 1, 2, 3, 4]), case.label)
    assert f"its header scales the stored values (scl_slope {slope:g}, scl_inter {inter:g})" in error
    assert "nib.Nifti1Image(img.dataobj.get_unscaled(), img.affine, img.header)" in error


def test_an_image_whose_header_scales_its_values_passes(tmp_path):
    case = make_case(tmp_path, "scaled")
    image = nib.Nifti1Image(clean_image(), AFFINE)
    image.header.set_slope_inter(2.0, 5.0)
    nib.save(image, case.images[0])
    stored = nib.load(case.images[0]).dataobj
    assert (stored.slope, stored.inter) == (2.0, 5.0)
    assert check_one_bad_case(tmp_path, case).errors == []


def test_255_beside_the_classes_is_told_of_the_ignore_label(tmp_path):
    """Clinical exports mark unannotated voxels 255; declaring it a class trains "unlabelled" as an
    organ. The error said only to fix the file or declare the class."""
    label = clean_label()
    label[0] = 255
    case = make_case(tmp_path, "bad", label=label)
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label, "label values [255] are not declared")
    assert ('255 often marks unlabelled voxels: to leave them out of the loss and the metrics, declare it the '
            '"ignore" label') in error


def test_a_mask_saved_as_0_and_255_is_told_of_binarize_with_the_check_commands_flag(tmp_path):
    """`accelerated-seg check cases.csv` of a 0/255 mask was told `data.binarize: true (Dataset.binarize())`, a config
    setting, where the command given no --config takes it as --binarize (hundredth session's walk through the
    docs), as data.labels is told with check's --labels."""
    mask = make_case(tmp_path, "mask", label=(clean_label() > 0).astype(np.uint8) * 255)
    error = assert_single_error(check_cases([mask], [0, 1]), mask.label, "label values [255] are not declared")
    assert error.endswith("train every value above 0 as the one foreground class: data.binarize: true (check: "
                          "--binarize; Dataset.binarize())"), error


def test_truncated_gzip(tmp_path):
    case = make_case(tmp_path, "bad")
    content = case.images[0].read_bytes()
    case.images[0].write_bytes(content[: len(content) // 2])
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "truncated")


def test_corrupted_gzip_fails_crc(tmp_path):
    case = make_case(tmp_path, "bad")
    content = bytearray(case.images[0].read_bytes())
    content[len(content) // 2] ^= 0x01  # one flipped bit: decodes fine, only the CRC notices
    case.images[0].write_bytes(bytes(content))
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "corrupt")


def test_a_decompressed_file_still_named_nii_gz_is_told_to_be_renamed(tmp_path):
    """Browsers decompress a downloaded .nii.gz and keep its name; nibabel cannot read it either way."""
    case = make_case(tmp_path, "bad")
    case.images[0].write_bytes(gzip.decompress(case.images[0].read_bytes()))
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0],
                        "an uncompressed NIfTI file under a .gz name", "rename it to bad.nii,")


def test_a_gzipped_file_named_nii_is_told_to_be_renamed(tmp_path):
    case = make_case(tmp_path, "bad")
    renamed = case.images[0].with_name("bad.nii")
    case.images[0].rename(renamed)
    case = Case(case.id, (renamed,), case.label)
    assert_single_error(check_one_bad_case(tmp_path, case), renamed,
                        "gzip-compressed but its name says uncompressed", "rename it to bad.nii.gz")


def test_non_3d_image(tmp_path):
    case = make_case(tmp_path, "bad", image=np.zeros((*SHAPE, 2), np.float32))
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "4D", "split it")


@pytest.mark.parametrize("fill, what", [(np.nan, "NaN"), (np.inf, "NaN or Inf")])
def test_a_label_of_several_volumes_all_nan_is_said_to_be_all_nan_before_its_volumes(tmp_path, fill, what):
    """A diverged model's probability map given as a label, NaN alone, was refused as "3 volumes" with argmax
    over the last axis as the remedy until the ninety-seventh session: that argmax is class 0 in every voxel, a
    label of background alone that would then pass. Its NaN comes first, as evaluate says it; a label of several
    volumes of numbers is refused as several volumes, as before."""
    label = np.full((*SHAPE, 3), np.nan, np.float32)
    label[0, 0, 0, 0] = fill  # Inf among the NaN: "NaN or Inf"
    case = make_case(tmp_path, "nan", label=label)
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label)
    assert re.search(rf"nan \(label\): .*nan\.nii\.gz: every voxel \(1536, shape \(8, 8, 8, 3\)\) is {what}, so the "
                     rf"label holds no class at all, nor would its argmax; the program writing it failed: export the "
                     rf"label again from its source$", error), error
    label[0, 0, 0, 0] = 0.5  # one finite voxel: a label of several volumes, told so with its remedy
    case = make_case(tmp_path, "nan", label=label)
    assert_single_error(check_one_bad_case(tmp_path, case), case.label, "is 4D with 3 volumes", "argmax")


@pytest.mark.parametrize("shape", [SHAPE, (*SHAPE, 1), (*SHAPE, 1, 1)], ids=["3d", "trailing_1", "trailing_1_1"])
def test_a_label_of_nan_alone_is_said_to_be_so_not_a_probability_map(tmp_path, shape):
    """Told "non-integer label values [nan] ... all within 0..1, as a probability map's do: give the label map of
    class values" until the ninety-seventh session, as if NaN were probabilities: it holds no class at all, as
    evaluate says it. One behind two size-1 axes, one volume as evaluate reads it, was told "not 3D" instead until
    the ninety-ninth session."""
    case = make_case(tmp_path, "nan", label=np.full(shape, np.nan, np.float32))
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.label)
    assert error.endswith("nan.nii.gz: every voxel (512) is NaN, so the label holds no class at all; the program "
                          "writing it failed: export the label again from its source"), error


def behind_size_1_axes(array):
    """``array`` stored (x, y, z, 1, 1), one 3D volume behind two size-1 axes, as some tools write it."""
    return array[..., None, None]


def loaded(case):
    """What training's loader (``preprocess``) reads of ``case``, without resampling or cropping."""
    from accelerated_seg.data.preprocess import PreprocessSettings, case_dict, preprocess

    return preprocess(settings=PreprocessSettings(crop_foreground=False))(case_dict(case))


def test_a_label_behind_trailing_size_1_axes_is_checked_and_loaded_as_its_volume(tmp_path):
    """A (x, y, z, 1, 1) label of classes was refused ("not 3D", then "drop them") until the ninety-ninth session:
    training's loader read it as (1, x, y, z, 1), four spatial axes, and its reorientation failed. Its values
    are checked as a 3D label's are, and the loader reads the label map itself."""
    case = make_case(tmp_path, "ok", label=behind_size_1_axes(clean_label()))
    assert check_cases([case], NUM_CLASSES).errors == []
    np.testing.assert_array_equal(loaded(case)["label"][0].numpy(), clean_label())
    undeclared = clean_label()
    undeclared[0, 0, 0] = 7
    case = make_case(tmp_path, "bad", label=behind_size_1_axes(undeclared))
    assert_single_error(check_cases([case], NUM_CLASSES), case.label, "label values [7] are not declared")


@pytest.mark.parametrize("channels", [1, 2], ids=["image", "second_channel"])
def test_an_image_behind_trailing_size_1_axes_is_checked_and_loaded_as_its_volume(tmp_path, channels):
    """A (x, y, z, 1, 1) image was refused until the ninety-ninth session: alone, training's loader kept its
    size-1 axes as spatial ones (MONAI's reorientation failed); beside other channels, the checks' intensity
    reading (IntensitySpread's einsum, z-score on) could not read it. Both read its (x, y, z) volume now, its
    NaN told as a 3D image's is."""
    case = make_case(tmp_path, "ok", image=behind_size_1_axes(clean_image()))
    if channels == 2:
        first = save(tmp_path / "imagesTr" / "ok_0000.nii.gz", clean_image(seed=1))
        case = Case(id=case.id, images=(first, *case.images), label=case.label)
    assert check_cases([case], NUM_CLASSES, num_channels=channels).errors == []
    image = loaded(case)["image"]
    assert tuple(image.shape) == (channels, *SHAPE)
    stored = clean_image()
    np.testing.assert_allclose(image[-1].numpy(), (stored - stored.mean()) / stored.std(), rtol=1e-4, atol=1e-4)
    with_nan = clean_image()
    with_nan[0, 0, 0] = np.nan
    case = make_case(tmp_path, "nan", image=behind_size_1_axes(with_nan))
    assert_single_error(check_cases([case], NUM_CLASSES), case.images[0], "1 NaN")


@pytest.mark.parametrize("role", ["image", "label"])
def test_a_file_of_two_volumes_behind_a_size_1_axis_is_still_refused(tmp_path, role):
    """(x, y, z, 2, 1) holds two volumes: only size-1 axes are dropped (ninety-ninth session)."""
    two = np.stack([clean_label(), clean_label()], axis=-1)[..., None]
    case = make_case(tmp_path, "bad", **{role: two.astype(np.float32 if role == "image" else np.uint8)})
    path = case.label if role == "label" else case.images[0]
    assert_single_error(check_cases([case], NUM_CLASSES), path, "shape (8, 8, 8, 2, 1) is not 3D (x, y, z; trailing "
                        "size-1 axes are allowed); store each 3D volume as its own file")


def test_an_image_in_niftis_vector_layout_is_told_to_drop_its_fourth_axis(tmp_path):
    case = make_case(tmp_path, "vector", image=np.zeros((*SHAPE, 1, 2), np.float32))
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "is NIfTI's vector layout (x, y, z, 1, 2",
                        "drop its fourth axis to store them as channels (x, y, z, 2)")


def test_trailing_singleton_axis_is_accepted(tmp_path):
    case = make_case(tmp_path, "ok", image=clean_image()[..., None])
    assert check_cases([case], NUM_CLASSES).errors == []


def test_nan_in_image(tmp_path):
    image = clean_image()
    image[1, 2, 3] = np.nan
    image[3, 2, 1] = np.inf
    case = make_case(tmp_path, "bad", image=image)
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "2 non-finite", "(1 NaN, 1 Inf)")


def test_affine_mismatch(tmp_path):
    shifted = AFFINE.copy()
    shifted[0, 3] += 1.0
    case = make_case(tmp_path, "bad", label_affine=shifted)
    assert_single_error(
        check_one_bad_case(tmp_path, case), case.label, case.images[0], "resample the label onto the image grid"
    )


def test_affine_difference_within_tolerance_is_accepted(tmp_path):
    nudged = AFFINE.copy()
    nudged[0, 3] += 1e-5
    case = make_case(tmp_path, "ok", label_affine=nudged)
    assert check_cases([case], NUM_CLASSES).errors == []


def test_channels_must_share_a_grid(tmp_path):
    case = make_case(tmp_path, "bad")
    second_channel = save(tmp_path / "imagesTr" / "bad_0001.nii.gz", np.zeros((8, 8, 4), np.float32))
    case = Case(id=case.id, images=(case.images[0], second_channel), label=case.label)
    assert_single_error(check_cases([case], NUM_CLASSES), second_channel, "image channels")


def test_channels_within_an_entrys_tolerance_that_place_voxels_apart_by_more_than_a_rounding_are_refused(tmp_path):
    """The channels are stacked voxel by voxel on the first one's grid (preprocess.NiftiReader), so they may
    differ by a header's rounding only. 1e-3 an entry is more over an axis's length: a voxel size 9e-4 mm off
    passed the checks, and training stacked the channel 0.056 of a voxel from where its header puts it at the
    far end of a 32-voxel axis (half a voxel over 512 voxels), where MONAI's stacking had refused it (a
    review's probe). A rounding (5e-5 mm) stays one grid."""
    shape, half_mm = (32, 32, 32), np.diag([0.5, 0.5, 0.5, 1.0])
    image = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    first = save(tmp_path / "c_0000.nii.gz", image, half_mm)
    for name, by in (("off", 9e-4), ("rounding", 5e-5)):
        nudged = half_mm.copy()
        nudged[0, 0] += by
        second = save(tmp_path / name / "c_0001.nii.gz", image, nudged)
        report = check_cases([Case(id=name, images=(first, second), label=None)], NUM_CLASSES, num_channels=2)
        if name == "rounding":
            assert report.errors == []
        else:
            assert_single_error(report, f"off (image channels): image channel 1 {second} and image channel 0 {first} "
                                        f"are on different grids: their affines differ by 0.001 or less in every "
                                        f"entry, yet image channel 1 places a voxel 0.056 of a voxel from where "
                                        f"image channel 0 does", "resample the channels onto one grid")


def test_a_channel_declaring_another_unit_than_an_earlier_one_is_refused_before_the_grids(tmp_path):
    """Each case's first image alone was judged for its unit: a second channel in micrometres (1.5 mm written 1500)
    was told to be resampled onto the first one's grid, and one declaring micrometres with the first one's numbers
    trained unjudged, where predict refuses both (hundred-and-seventh session's review). Refused as predict says it,
    its line run as written makes the case pass; a channel declaring no unit agrees with any."""
    def in_unit(path, unit, per_mm):
        image = nib.Nifti1Image(clean_image(), np.diag([per_mm] * 3 + [1.0]) @ AFFINE)
        image.header.set_xyzt_units(unit)
        path.parent.mkdir(parents=True, exist_ok=True)
        nib.save(image, path)
        return path

    first = in_unit(tmp_path / "c_0000.nii.gz", "mm", 1.0)
    for name, per_mm, line in (("written_in_micrometres", 1000.0, "Rewrite it in mm"),
                               # the same numbers: a unit alone is wrong, the declaring line first (h64)
                               ("declared_micrometres", 1.0, r"Where they are mm \(voxels of [^)]*\), declare \S+ mm")):
        second = in_unit(tmp_path / name / "c_0001.nii.gz", "micron", per_mm)
        case = Case(id=name, images=(first, second), label=None)
        report = check_cases([case], NUM_CLASSES, num_channels=2)
        assert_single_error(report, f"{name} (image channels): {second}: its header declares its voxel sizes in "
                                    f"micrometres (xyzt_units), that of {first}, a channel of the same case, in mm. ",
                            "resampling them to one spacing would scale one 1,000 times against the other")
        assert "different grids" not in report.errors[0]
        exec(re.search(rf"{line} \(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)",
                       report.errors[0]).group(1), {"nib": nib, "np": np, "path": str(second)})
        assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []
    unitless = in_unit(tmp_path / "unitless" / "c_0001.nii.gz", "unknown", 1.0)
    assert check_cases([Case(id="unitless", images=(first, unitless), label=None)], NUM_CLASSES,
                       num_channels=2).errors == []


def _in_unit(path, array, unit, per_mm):
    """``array`` saved at ``path`` with AFFINE's voxel sizes times ``per_mm``, its header declaring ``unit``."""
    image = nib.Nifti1Image(array, np.diag([per_mm] * 3 + [1.0]) @ AFFINE)
    image.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(image, path)
    return path


def test_voxels_under_a_tenth_of_a_mm_declared_in_metres_are_no_singular_affine(tmp_path):
    """A scan declaring metres with voxels of 0.05 mm (5e-05 m, micro-CT), its image and label, was refused as "the
    affine (voxel-to-world matrix) is singular: two voxel axes along one direction (voxel sizes 5e-05 x 5e-05 x
    5e-05 mm)": the determinant was held to 1e-12 whatever the voxels' unit (the hundred-and-twelfth session's
    review, probing a voxel size of 0 under each unit). A singular affine is judged against the voxel sizes now:
    such a case passes, a voxel size of 0 is told in the unit its header declares, and two axes along one
    direction are still singular."""
    def in_metres(path, array, affine):
        image = nib.Nifti1Image(array, None)
        image.header.set_sform(affine, code=1)
        image.header.set_qform(None, code=0)
        image.header.set_xyzt_units("meter")
        nib.save(nib.Nifti1Image(array, None, image.header), path)
        return path

    fine = np.diag([5e-5, 5e-5, 5e-5, 1.0])
    case = Case(id="c", images=(in_metres(tmp_path / "c_0000.nii.gz", clean_image(), fine),),
                label=in_metres(tmp_path / "c.nii.gz", clean_label(), fine))
    assert check_cases([case], NUM_CLASSES).errors == []
    for name, affine, said in (
            ("zero", np.diag([0.0, 5e-5, 5e-5, 1.0]), "a voxel size of 0 (voxel sizes 0 x 5e-05 x 5e-05 metres)"),
            ("parallel", np.array([[5e-5, 5e-5, 0, 0], [0, 0, 0, 0], [0, 0, 5e-5, 0], [0, 0, 0, 1.0]]),
             "two voxel axes along one direction (voxel sizes 5e-05 x 5e-05 x 5e-05 metres)")):
        image = in_metres(tmp_path / f"{name}_0000.nii.gz", clean_image(), affine)
        assert_single_error(check_cases([Case(id=name, images=(image,), label=None)], NUM_CLASSES),
                            f"{image}: the affine (voxel-to-world matrix) is singular: {said}")


def _run_nibabel_lines(error, *paths):
    """Run each nibabel line ``error`` offers, in order, on the file of ``paths`` at the same place."""
    lines = re.findall(r"\(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)", error)
    assert len(lines) == len(paths), lines
    for line, path in zip(lines, paths):
        exec(line, {"nib": nib, "np": np, "path": str(path)})


def test_a_label_in_another_unit_than_its_image_is_refused_as_such_not_as_another_grid(tmp_path):
    """A label declaring micrometres with micrometre numbers beside an image in mm was told "resample the label onto
    the image grid", its grid being the image's in another unit, and one declaring micrometres with the image's
    numbers trained unjudged (hundred-and-seventh session): refused as a channel in another unit is, its line run as
    written makes the case pass; a label declaring no unit agrees with any."""
    image = _in_unit(tmp_path / "c_0000.nii.gz", clean_image(), "mm", 1.0)
    for name, per_mm, line in (("written_in_micrometres", 1000.0, "Rewrite it in mm"),
                               ("declared_micrometres", 1.0, r"Where they are mm \(voxels of [^)]*\), declare \S+ mm")):
        label = _in_unit(tmp_path / name / "c.nii.gz", clean_label(), "micron", per_mm)
        case = Case(id=name, images=(image,), label=label)
        error = assert_single_error(
            check_cases([case], NUM_CLASSES), f"{name} (label vs image): {label}: its header declares its voxel "
            f"sizes in micrometres (xyzt_units), that of {image}, the case's image, in mm. ")
        assert "different grids" not in error and "resample the label" not in error
        exec(re.search(rf"{line} \(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)",
                       error).group(1), {"nib": nib, "np": np, "path": str(label)})
        assert check_cases([case], NUM_CLASSES).errors == []
    unitless = _in_unit(tmp_path / "unitless" / "c.nii.gz", clean_label(), "unknown", 1.0)
    assert check_cases([Case(id="unitless", images=(image,), label=unitless)], NUM_CLASSES).errors == []


@pytest.mark.parametrize("numbers", ["micrometres", "mm"])
def test_a_case_whose_first_channel_alone_is_in_another_unit_is_refused_once_naming_every_other_file(tmp_path,
                                                                                                  numbers):
    """One unit mix-up, one error: a case whose channel 0 alone declared micrometres was refused once for each other
    file, its channel 1 and its label each against channel 0 in the same words, and a channel 2 in mm, as channel 0
    is not, was also said to be off against channel 1 (until the hundred-and-tenth session: 3 errors here). One
    error names the files of the one unit against channel 0; its line run on each as written makes the case pass.
    A channel alone in another unit is its own error, as before, and the channels after it agreeing with channel 0
    have none."""
    per_mm = 1000.0 if numbers == "micrometres" else 1.0
    first = _in_unit(tmp_path / "c_0000.nii.gz", clean_image(), "micron", per_mm)
    others = [_in_unit(tmp_path / f"c_000{index}.nii.gz", clean_image(index), "mm", 1.0) for index in (1, 2)]
    label = _in_unit(tmp_path / "c.nii.gz", clean_label(), "mm", 1.0)
    case = Case(id="c", images=(first, *others), label=label)
    # the same numbers under two units: the declaring line leads, here channel 0's, whose voxels are then those of
    # a scan (until h64 the others were told to be rewritten in micrometres, 1,000 times off channel 0 then)
    line, run_on = (("Rewrite each in micrometres", (*others, label)) if numbers == "micrometres" else
                    (rf"Their numbers are the same \(.*\): .* Where they are mm \(voxels of [^)]*\), declare {first} mm",
                     (first,)))
    error = assert_single_error(
        check_cases([case], NUM_CLASSES, num_channels=3),
        f"c (image channels and label): {others[0]}, {others[1]} and {label}: their headers declare their voxel sizes "
        f"in mm (xyzt_units), that of {first}, the case's image channel 0, in micrometres. ",
        "would scale the files of one unit 1,000 times against the other's",
        f"the other way round, where {first} is the one off" if numbers == "micrometres" else
        "; or, where they are micrometres (voxels of")
    assert "different grids" not in error
    for path in run_on:
        exec(re.search(rf"{line} \(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)", error).group(1),
             {"nib": nib, "np": np, "path": str(path)})
    assert check_cases([case], NUM_CLASSES, num_channels=3).errors == []

    middle = _in_unit(tmp_path / "d" / "c_0001.nii.gz", clean_image(1), "micron", 1000.0)
    first, last = (_in_unit(tmp_path / "d" / f"c_000{index}.nii.gz", clean_image(index), "mm", 1.0) for index in (0, 2))
    label = _in_unit(tmp_path / "d" / "c.nii.gz", clean_label(), "mm", 1.0)
    assert_single_error(check_cases([Case(id="d", images=(first, middle, last), label=label)], NUM_CLASSES,
                                    num_channels=3),
                        f"d (image channels): {middle}: its header declares its voxel sizes in micrometres "
                        f"(xyzt_units), that of {first}, a channel of the same case, in mm. ")


def test_the_other_way_round_names_every_file_in_the_unit_of_the_file_judged_against(tmp_path):
    """A unit's refusal offers the other way round, the file judged against being the one off: every file in that
    file's unit is named there, since rewriting it alone leaves them off. Channels 0 and 1 in micrometres, channel 2
    and the label in mm were told "where c_0000 is the one off" (the hundred-and-tenth session until its review),
    and rewriting c_0000 in mm then refused c_0001 against it; a label alone in micrometres beside two channels in
    mm alike. Rewriting the files named there makes the case pass."""
    images = [_in_unit(tmp_path / f"c_000{index}.nii.gz", clean_image(index), unit, per_mm)
              for index, (unit, per_mm) in enumerate([("micron", 1000.0), ("micron", 1000.0), ("mm", 1.0)])]
    label = _in_unit(tmp_path / "c.nii.gz", clean_label(), "mm", 1.0)
    case = Case(id="c", images=tuple(images), label=label)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=3),
                                f"c (image channels and label): {images[2]} and {label}: their headers declare ")
    assert error.endswith(f"; or the other way round, where {images[0]} and {images[1]} are the ones off"), error
    for index in (0, 1):
        _in_unit(images[index], clean_image(index), "mm", 1.0)
    assert check_cases([case], NUM_CLASSES, num_channels=3).errors == []

    first, second = (_in_unit(tmp_path / "d" / f"d_000{index}.nii.gz", clean_image(index), "mm", 1.0)
                     for index in (0, 1))
    label = _in_unit(tmp_path / "d" / "d.nii.gz", clean_label(), "micron", 1000.0)
    error = assert_single_error(check_cases([Case(id="d", images=(first, second), label=label)], NUM_CLASSES,
                                            num_channels=2), f"d (label vs image): {label}: its header declares ")
    assert error.endswith(f"; or the other way round, where {first} and {second} are the ones off"), error


@pytest.mark.parametrize("unit, per_mm", [("micron", 1000.0), ("meter", 0.001)])
def test_a_file_of_no_unit_beside_one_of_another_unit_that_factor_apart_is_told_the_unit(tmp_path, unit, per_mm):
    """A channel (or label) declaring no unit, its numbers mm, beside one declaring micrometres with micrometre
    numbers was told to resample the channels onto one grid, a header of no unit agreeing with any (hundred-and-
    seventh session): the unit is said to be the likely cause, with the lines that declare the one mm and rewrite
    the other in mm, which make the case pass, either way round. Voxel sizes not that factor apart keep the grid's
    advice. Beside a file in metres, nothing else in the case telling, the numbers of none may be micrometres too
    (its numbers then mm under a header of metres): both ways are offered, the one of voxels nearer 1 mm, here mm,
    first (``test_a_file_of_no_unit_beside_one_in_metres_is_told_micrometres_where_the_case_tells_so``)."""
    def first_way(error):  # the lines for numbers of none in mm, before the other way, where that is offered
        assert ("nothing else in the case tells" in error) == (unit == "meter"), error
        return error.split("; or, where its numbers are micrometres")[0]

    none = _in_unit(tmp_path / "c_0000.nii.gz", clean_image(), "unknown", 1.0)
    other = _in_unit(tmp_path / "c_0001.nii.gz", clean_image(1), unit, per_mm)
    label = _in_unit(tmp_path / "c.nii.gz", clean_label(), "unknown", 1.0)
    for images in ((none, other), (other, none)):  # the one of no unit named first, either way round
        error = assert_single_error(check_cases([Case(id="c", images=images, label=None)], NUM_CLASSES,
                                                num_channels=2),
                                    f"c (image channels): {none}", ": its header declares no unit for its voxel sizes "
                                    "(xyzt_units)",
                                    f"declares {'micrometres' if unit == 'micron' else 'metres'}",
                                    "the unit is the likely cause")
        assert "different grids" not in error and error.endswith("their voxels differ indeed, resample the channels "
                                                                 "onto one grid"), error
    _run_nibabel_lines(first_way(error), none, other)
    assert check_cases([Case(id="c", images=(none, other), label=label)], NUM_CLASSES, num_channels=2).errors == []

    image = _in_unit(tmp_path / "d_0000.nii.gz", clean_image(), "unknown", 1.0)
    label = _in_unit(tmp_path / "d.nii.gz", clean_label(), unit, per_mm)
    error = assert_single_error(check_cases([Case(id="d", images=(image,), label=label)], NUM_CLASSES),
                                f"d (label vs image): {image} (the case's image): its header declares no unit",
                                f"that of {label} declares", "the unit is the likely cause")
    # voxels that differ indeed: the label is resampled onto the image's grid, not the image, the file of no unit,
    # onto the label's ("resample it onto that grid" until a review of the session)
    assert error.endswith("; or, where their voxels differ indeed, resample the label onto the image grid "
                          "(nearest-neighbour interpolation)"), error
    _run_nibabel_lines(first_way(error), image, label)
    assert check_cases([Case(id="d", images=(image,), label=label)], NUM_CLASSES).errors == []

    none = _in_unit(tmp_path / "e_0000.nii.gz", clean_image(), "unknown", 1.0)
    ten_times = _in_unit(tmp_path / "e_0001.nii.gz", clean_image(1), unit, per_mm * 10)
    error = assert_single_error(check_cases([Case(id="e", images=(none, ten_times), label=None)], NUM_CLASSES,
                                            num_channels=2), "are on different grids", "resample the channels")
    assert "likely cause" not in error


def _nibabel_lines(error):
    return re.findall(r"\(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)", error)


def _two_channels_and_label(tmp_path, units, per_mm):
    """Case "c" of two channels and a label declaring ``units`` (in that order), each's voxel sizes ``per_mm`` of its
    unit to a mm; and how the case's unit error lists its files ("…/c_0000.nii.gz (image channel 0): none; …")."""
    paths = [tmp_path / "c_0000.nii.gz", tmp_path / "c_0001.nii.gz", tmp_path / "c.nii.gz"]
    for path, array, unit in zip(paths, (clean_image(0), clean_image(1), clean_label()), units):
        _in_unit(path, array, unit, per_mm[unit])
    said = {"unknown": "none", "mm": "mm", "micron": "micrometres", "meter": "metres"}
    listing = "; ".join(f"{path} ({role}): {said[unit]}"
                        for path, role, unit in zip(paths, ("image channel 0", "image channel 1", "label"), units))
    return Case(id="c", images=tuple(paths[:2]), label=paths[2]), listing


@pytest.mark.parametrize("units, numbers", [(("unknown", "micron", "mm"), "each unit's"),
                                            (("unknown", "micron", "mm"), "mm"),
                                            (("unknown", "mm", "micron"), "mm")])
def test_a_label_is_judged_with_every_channel_and_a_mix_beside_a_file_of_no_unit_is_one_error(tmp_path, units,
                                                                                               numbers):
    """The label was judged against channel 0 alone: beside a channel 0 of no unit, a label in mm and a channel 1 in
    micrometres (or the other way round) passed the case's check, either with the same numbers or, the label in mm,
    with their units' numbers (until the hundred-and-eleventh session). Judged against each file declaring a unit,
    file by file, it would be two errors whose lines pull either way; it is one, naming every file and its unit, and
    its lines (rewrite from micrometres, declare the file of no unit mm, or declare mm where the numbers are mm)
    run as written make the case pass."""
    per_mm = {"unknown": 1.0, "mm": 1.0, "micron": 1000.0 if numbers == "each unit's" else 1.0}
    case, listing = _two_channels_and_label(tmp_path, units, per_mm)
    first, second, label = (*case.images, case.label)
    error = assert_single_error(
        check_cases([case], NUM_CLASSES, num_channels=2),
        f"c (image channels and label): the headers of the case's files declare different units for their voxel sizes "
        f"(xyzt_units), and one none: {listing}. ", "would scale the files of one unit 1,000 times against another's",
        f"declare {first} mm")
    in_micrometres = second if units[1] == "micron" else label
    if numbers == "each unit's":
        rewrite, declare_unitless, declare = _nibabel_lines(error)
        exec(rewrite, {"nib": nib, "np": np, "path": str(in_micrometres)})
    else:  # micrometres declared on mm numbers, those of the file in mm: declaring it mm leads (h64), rewrite after
        assert f"declare {in_micrometres} mm, its numbers the voxels in mm of " in error, error
        declare, declare_unitless, rewrite = _nibabel_lines(error)
        exec(declare, {"nib": nib, "np": np, "path": str(in_micrometres)})
    assert "np.diag([0.001, 0.001, 0.001, 1])" in rewrite and declare_unitless == declare
    exec(declare_unitless, {"nib": nib, "np": np, "path": str(first)})
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


@pytest.mark.parametrize("units", [("micron", "micron", "mm"), ("meter", "micron", "micron")])
def test_files_of_two_units_holding_the_same_numbers_are_told_to_declare_first(tmp_path, units):
    """Two channels declaring micrometres with mm numbers beside a label in mm (a double mistake) had the label told
    "Rewrite it in micrometres" first, which left it 1,000 times off them; and files of metres and micrometres all on
    mm numbers had the rewrite first too (the hundred-and-eleventh session's probe, U~mm U~mm mm, M~mm U~mm U~mm).
    Their numbers are the same, so a unit alone is wrong: since the hundred-and-twelfth session's leftovers (h64)
    the declaring lines lead, the way whose voxels come nearer 1 mm first (mm here), with what to check, and the
    first, run on the files it names, makes the case pass."""
    case, _ = _two_channels_and_label(tmp_path, units, {"micron": 1.0, "meter": 1.0, "mm": 1.0})
    first, second, label = (*case.images, case.label)
    to_mm = [first, second] if units[2] == "mm" else [second, label, first]
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                "Their numbers are the same (", "check the voxel size the scan was acquired at. "
                                "Where they are mm (voxels of ", f"), declare {and_listed(to_mm)} mm (nibabel: ")
    assert "Rewrite" not in error.split("; or,")[0], error
    for path in to_mm:
        exec(_nibabel_lines(error)[0], {"nib": nib, "np": np, "path": str(path)})
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


def test_a_file_of_a_unit_on_the_mm_numbers_of_a_file_in_mm_is_told_to_declare_first_in_a_mixed_case(tmp_path):
    """A channel 0 declaring metres with mm numbers, beside a channel 1 of no unit and a label in mm, was told to be
    rewritten from metres first (2,000 mm voxels then), and the declaring line was offered twice, once for channel 1
    and once for "a file" (the hundred-and-eleventh session's probe, M~mm n mm). Its numbers are the label's voxels
    in mm: since the hundred-and-twelfth session's leftovers (h64) the line that declares it mm leads, the rewrite
    after it, each line said once; the lines before the first "or", run as written, make the case pass."""
    case, _ = _two_channels_and_label(tmp_path, ("meter", "unknown", "mm"), {"meter": 1.0, "unknown": 1.0, "mm": 1.0})
    first, second, label = (*case.images, case.label)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"Rewrite every file in mm: declare {first} mm, its numbers the voxels in mm of {label} "
                                f"already (nibabel: ", f"; or, where the numbers of {first} are metres after all, "
                                f"rewrite it from metres (nibabel: ")
    assert "where a file's numbers are mm already" not in error, error
    declare_first, declare_second, rewrite_first = _nibabel_lines(error)
    assert "np.diag([1000, 1000, 1000, 1])" in rewrite_first and declare_first == declare_second
    for line, path in ((declare_first, first), (declare_second, second)):
        exec(line, {"nib": nib, "np": np, "path": str(path)})
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


def test_files_of_no_unit_that_factor_apart_from_channel_0_are_one_error_naming_them_all(tmp_path):
    """A channel 0 of no unit beside a channel 1 and a label in micrometres, their numbers 1,000 times channel 0's,
    was two errors, each offering channel 0's line (and a channel 0 in micrometres beside a channel 1 and a label of
    no unit alike), until the hundred-and-eleventh session: one error names them all, its two lines run on the files
    it names make the case pass."""
    none = _in_unit(tmp_path / "c_0000.nii.gz", clean_image(), "unknown", 1.0)
    others = [_in_unit(tmp_path / "c_0001.nii.gz", clean_image(1), "micron", 1000.0),
              _in_unit(tmp_path / "c.nii.gz", clean_label(), "micron", 1000.0)]
    case = Case(id="c", images=(none, others[0]), label=others[1])
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"c (image channels and label): {none} (the case's image channel 0): its header "
                                f"declares no unit for its voxel sizes (xyzt_units), while those of {others[0]} and "
                                f"{others[1]} declare micrometres", f"and rewrite {others[0]} and {others[1]} in mm")
    declare, rewrite = _nibabel_lines(error)
    exec(declare, {"nib": nib, "np": np, "path": str(none)})
    for path in others:
        exec(rewrite, {"nib": nib, "np": np, "path": str(path)})
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []

    first = _in_unit(tmp_path / "d" / "d_0000.nii.gz", clean_image(), "micron", 1000.0)
    nones = [_in_unit(tmp_path / "d" / "d_0001.nii.gz", clean_image(1), "unknown", 1.0),
             _in_unit(tmp_path / "d" / "d.nii.gz", clean_label(), "unknown", 1.0)]
    assert_single_error(check_cases([Case(id="d", images=(first, nones[0]), label=nones[1])], NUM_CLASSES,
                                    num_channels=2),
                        f"d (image channels and label): {nones[0]} and {nones[1]}: their headers declare no unit",
                        f"while that of {first} (the case's image channel 0) declares micrometres",
                        f"Declare {nones[0]} and {nones[1]} in mm, as their numbers are")

    # a label declaring micrometres with channel 0's numbers: left so, it was refused once the lines were run
    none = _in_unit(tmp_path / "e" / "e_0000.nii.gz", clean_image(), "unknown", 1.0)
    second = _in_unit(tmp_path / "e" / "e_0001.nii.gz", clean_image(1), "micron", 1000.0)
    label = _in_unit(tmp_path / "e" / "e.nii.gz", clean_label(), "micron", 1.0)
    case = Case(id="e", images=(none, second), label=label)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"e (image channels and label): {none} (the case's image channel 0)",
                                f"and rewrite {second} in mm", f"and declare {label} mm, which declares "
                                "micrometres with its numbers mm already")
    _run_nibabel_lines(error, none, second, label)
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


@pytest.mark.parametrize("units", [("mm", "micron", "meter"), ("micron", "meter", "mm")])
def test_files_declaring_three_units_are_one_error_whose_lines_make_the_case_pass(tmp_path, units):
    """Files declaring mm, micrometres and metres were one error for each unit off against the first channel, and,
    channel 0 in micrometres, two errors telling channel 1 to be rewritten in micrometres and the label in
    micrometres too (hundred-and-eleventh session's review, a probe of every unit over two channels and a label):
    one error names every file and its unit, its lines run on the files it names make the case pass."""
    case, listing = _two_channels_and_label(tmp_path, units, {"mm": 1.0, "micron": 1000.0, "meter": 0.001})
    error = assert_single_error(
        check_cases([case], NUM_CLASSES, num_channels=2),
        f"c (image channels and label): the headers of the case's files declare different units for their voxel sizes "
        f"(xyzt_units): {listing}. ", "would scale the files of one unit 1,000 or 1,000,000 times against another's")
    in_mm = [path for path, unit in zip((*case.images, case.label), units) if unit != "mm"]
    _run_nibabel_lines(error.split("; or, where")[0], *in_mm)
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


def test_a_file_of_no_unit_beside_one_in_metres_is_told_micrometres_where_the_case_tells_so(tmp_path):
    """A double mistake, channel 0 declaring metres with mm numbers beside a channel 1 of no unit with micrometre
    numbers, was told "declare channel 1 in mm, as its numbers are" and to rewrite channel 0 from metres (the
    hundred-and-eleventh session's probe of every unit), after which both were 1,000 times their voxels and the
    spacing's checks refused the case. A label of no unit in mm, channel 0's numbers, tells the numbers of none are
    micrometres: that way is told, and its lines make the case pass. Nothing else telling (no label), both ways are
    offered with what to check, the one of voxels nearer 1 mm first, whose lines make the case pass."""
    first = _in_unit(tmp_path / "c_0000.nii.gz", clean_image(), "meter", 1.0)
    second = _in_unit(tmp_path / "c_0001.nii.gz", clean_image(1), "unknown", 1000.0)
    label = _in_unit(tmp_path / "c.nii.gz", clean_label(), "unknown", 1.0)
    case = Case(id="c", images=(first, second), label=label)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"c (image channels): {second}: its header declares no unit",
                                f"The voxels of {label} are 1.5 x 1.5 x 2 mm, the numbers of {first}: so its numbers "
                                f"are likely mm under a header of metres, and those of {second} micrometres. Rewrite "
                                f"{second} from micrometres (nibabel: ", f"and declare {first} mm, its numbers mm")
    assert "as its numbers are" not in error and "nothing else in the case tells" not in error, error
    _run_nibabel_lines(error, second, first)
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []

    first = _in_unit(tmp_path / "d" / "d_0000.nii.gz", clean_image(), "meter", 1.0)
    second = _in_unit(tmp_path / "d" / "d_0001.nii.gz", clean_image(1), "unknown", 1000.0)
    case = Case(id="d", images=(first, second), label=None)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"Which unit the numbers of {second} are in, nothing else in the case tells: check "
                                f"the voxel size the scan was acquired at. Where its numbers are micrometres, and "
                                f"those of {first} mm under a header of metres (voxels of 1.5 x 1.5 x 2 mm), rewrite "
                                f"{second} from micrometres", "; or, where its numbers are mm (voxels of 1500 x 1500 "
                                f"x 2000 mm), declare {second} in mm")
    _run_nibabel_lines(error.split("; or, where its numbers are mm")[0], second, first)
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


def test_a_file_of_an_unknown_unit_code_is_listed_as_such_not_as_none(tmp_path):
    """A header whose xyzt_units spatial code NIfTI gives no meaning (5 here; 4 to 7) is read as one of no unit, but
    the error of a case mixing units listed it "none" (the hundred-and-eleventh session's probe): it is named for
    what it declares."""
    case, _ = _two_channels_and_label(tmp_path, ("unknown", "micron", "mm"), {"unknown": 1.0, "micron": 1000.0,
                                                                              "mm": 1.0})
    image = nib.load(case.images[0])
    image.header["xyzt_units"] = 5 | 8  # a time unit beside it (seconds) is no part of the spatial code
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), image.affine, image.header), case.images[0])
    assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                        f"{case.images[0]} (image channel 0): an unknown unit code 5; {case.images[1]} (image channel "
                        f"1): micrometres; ")


def test_the_heading_of_a_mixed_case_names_an_unknown_unit_code_as_its_listing_does(tmp_path):
    """The heading of a case mixing units said "and one none" of a file whose spatial code has no meaning in NIfTI
    (5), which its listing named "an unknown unit code 5" (the hundred-and-eleventh session's probe, c5 U mm): the
    heading names it so too since the hundred-and-twelfth session's leftovers (h64); a header of no unit (code 0)
    is still "one none"."""
    case, _ = _two_channels_and_label(tmp_path, ("unknown", "micron", "mm"), {"unknown": 1.0, "micron": 1000.0,
                                                                              "mm": 1.0})
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                "declare different units for their voxel sizes (xyzt_units), and one none: ")
    image = nib.load(case.images[0])
    image.header["xyzt_units"] = 5
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), image.affine, image.header), case.images[0])
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                "declare different units for their voxel sizes (xyzt_units), and one an unknown unit "
                                f"code 5: {case.images[0]} (image channel 0): an unknown unit code 5; ")
    assert "one none" not in error, error


def test_a_file_of_no_unit_1000_times_the_files_in_mm_is_offered_the_micrometre_rewrite(tmp_path):
    """A case mixing units whose file of no unit holds micrometre numbers, 1,000 times the voxels of a file in mm,
    was offered the line that declares it mm alone, right only where its numbers are mm (the hundred-and-eleventh
    session's probe: channel 0 of no unit in micrometres, channel 1 in mm, a label in micrometres): the micrometre
    rewrite is offered too, and with the label's rewrite makes the case pass. Numbers of none that are the mm of
    the others get no such line (``test_a_label_is_judged_with_every_channel_...``: three lines there). Where no
    file's voxels in mm are its numbers, the numbers support micrometres alone: its rewrite leads, the declaring
    line after every other (the declaring line led until the hundred-and-twelfth session's leftovers, h64, and run
    with the label's as offered left channel 0 2,000 mm voxels: the probe's nU mm U)."""
    case, _ = _two_channels_and_label(tmp_path, ("unknown", "mm", "micron"), {"unknown": 1000.0, "mm": 1.0,
                                                                              "micron": 1000.0})
    first, second, label = (*case.images, case.label)
    error = assert_single_error(check_cases([case], NUM_CLASSES, num_channels=2),
                                f"; rewrite {first} from micrometres, its numbers 1,000 times the voxels in mm of "
                                f"{second} (nibabel: ", f"; or, where the numbers of {first} are mm after all, declare "
                                f"it mm (nibabel: ")
    assert "the unit a header of none is read in" not in error, error
    rewrite_label, rewrite_first, _, _ = _nibabel_lines(error)
    exec(rewrite_label, {"nib": nib, "np": np, "path": str(label)})
    exec(rewrite_first, {"nib": nib, "np": np, "path": str(first)})
    assert check_cases([case], NUM_CLASSES, num_channels=2).errors == []


def test_background_only_label_is_a_warning_not_an_error(tmp_path):
    case = make_case(tmp_path, "empty", label=np.zeros(SHAPE, np.uint8))
    report = check_cases([make_case(tmp_path, "good"), case], NUM_CLASSES)
    assert report.errors == []
    assert len(report.warnings) == 1 and str(case.label) in report.warnings[0]
    assert "only background" in report.warnings[0]


def test_background_only_labels_are_listed_once_in_one_warning(tmp_path):
    empty = [make_case(tmp_path, f"empty_{i}", label=np.zeros(SHAPE, np.uint8)) for i in range(12)]
    report = check_cases([make_case(tmp_path, "good"), *empty], NUM_CLASSES)
    assert len(report.warnings) == 1
    warning = report.warnings[0]
    assert warning.startswith("12 labels contain only background")
    assert str(empty[0].label) in warning and "(and 2 more)" in warning


def test_a_declared_class_that_no_label_contains_is_one_warning(tmp_path):
    cases = [make_case(tmp_path, f"case_{i}") for i in range(3)]  # labels hold 0, 1, 2
    report = check_cases(cases, [0, 1, 2, 4])
    assert report.errors == []
    assert report.warnings == [
        "declared label value(s) [4] appear in none of the 3 label file(s) checked; a class never seen cannot "
        "be learned, and validation and evaluate score it 1 wherever the network predicts none of it (both empty), "
        "which lifts the mean Dice — check the label files, or remove the class from the dataset's labels"
    ]


def test_under_regions_a_value_no_label_holds_is_told_only_where_it_leaves_a_region_empty(tmp_path):
    """Regions train and score unions of values, not classes: BraTS' 0/1/2/4 given from Python as n_classes=5
    (3 in no file, and in no region) was told that validation "scores it 1 ... which lifts the mean Dice", which
    it never scores (a ninety-fifth-session probe). A region all of whose values no label holds is told."""
    from accelerated_seg.regions import Regions

    cases = [make_case(tmp_path, f"case_{i}") for i in range(3)]  # labels hold 0, 1, 2
    unseen_outside = Regions.declared({"all": [1, 2], "core": [2]}, [0, 1, 2, 3], "data.regions")
    assert not [w for w in check_cases(cases, [0, 1, 2, 3], regions=unseen_outside).warnings if "none of" in w]
    empty = Regions.declared({"all": [1, 2, 3], "three": [3]}, [0, 1, 2, 3], "data.regions", order=[1, 3])
    assert check_cases(cases, [0, 1, 2, 3], regions=empty).warnings == [
        "region(s) three hold only label value(s) [3], which appear in none of the 3 label file(s) checked; a region "
        "never seen cannot be learned, and validation and evaluate score it 1 wherever the network predicts none of "
        "it (both empty), which lifts the mean Dice — check the label files, or the regions' values"]


@pytest.mark.parametrize("refused", ["non-integer", "scaled"])
def test_a_class_whose_voxels_were_all_refused_is_not_also_called_unseen(tmp_path, refused):
    """Every class-1 voxel stored as 0.9999999, or a header's scl_slope 2 making them 2 (and 2's 4): the error
    said so, and a warning said again, as a class the labels lack, "[1] appear in none of the 2 label file(s)"
    (h15's probe): one cause, said once, by the error that names it."""
    cases = [make_case(tmp_path, f"case_{i}") for i in range(2)]
    for case in cases:
        if refused == "non-integer":
            label = clean_label().astype(np.float64)
            label[label == 1] = 0.9999999
            save(case.label, label, AFFINE)
        else:
            label = nib.Nifti1Image(clean_label(), AFFINE)
            label.header.set_slope_inter(2.0, 0.0)
            nib.save(label, case.label)
    report = check_cases(cases, NUM_CLASSES)
    assert len(report.errors) == 2 and all(str(case.label) in error for case, error in zip(cases, report.errors))
    assert not any("appear in none of the" in warning for warning in report.warnings), report.warnings
    if refused == "non-integer":  # a class that no refused voxel stands for is still told (a header's scaling
        declared_more = check_cases(cases, [0, 1, 2, 4])  # misreads every value, so there none is told)
        assert [w for w in declared_more.warnings if "appear in none" in w][0].startswith("declared label value(s) [4] ")


@pytest.mark.parametrize("slope, inter", [(2.0, 5.0), (2.5, 0.0)])
def test_a_scaled_label_exempts_only_the_classes_its_stored_values_hold(tmp_path, slope, inter):
    """A label whose header scales its values (stored 0, 1, 2 read as 5, 7, 9) is refused, and the classes
    its stored values hold are not called unseen: the error's remedy writes them back. Until the ninety-fifth
    session it exempted every class it did not read, so one file's scaling hid a class in no file of the
    whole dataset, stored or read (3 here): that class is told; nor is it one a scaled value is near (2.5's
    3, as 0.9999999 stands for 1)."""
    cases = [make_case(tmp_path, f"case_{i}") for i in range(3)]
    scaled = nib.Nifti1Image(clean_label(), AFFINE)
    scaled.header.set_slope_inter(slope, inter)
    nib.save(scaled, cases[2].label)
    report = check_cases(cases, [0, 1, 2, 3])
    assert report.errors and all(str(cases[2].label) in error and f"scl_slope {slope:g}, scl_inter {inter:g}" in error
                                 for error in report.errors), report.errors  # 2.5's 2.5 and its 5: two errors
    assert [w for w in report.warnings if "appear in none" in w][0].startswith("declared label value(s) [3] ")
    # 2 in the scaled file alone, stored: behind its refused values, so not told (it was said "[2, 3]" without
    # any exemption)
    for case in cases[:2]:
        label = clean_label()
        label[label == 2] = 0
        save(case.label, label)
    report = check_cases(cases, [0, 1, 2, 3])
    assert [w for w in report.warnings if "appear in none" in w][0].startswith("declared label value(s) [3] ")


def test_files_whose_header_gives_no_orientation_are_one_warning(tmp_path):
    """qform and sform codes 0 (an ANALYZE-era converter): nibabel falls back to pixdim without
    saying so, unless pixdim is 0. Usable, as image and label agree, but worth knowing."""
    good, bare = make_case(tmp_path, "good"), make_case(tmp_path, "bare")
    for path in (*bare.images, bare.label):
        image = nib.load(path)
        unplaced = nib.Nifti1Image(np.asanyarray(image.dataobj), None)
        unplaced.header.set_qform(None, code=0)
        unplaced.header.set_sform(None, code=0)
        nib.save(unplaced, path)
    report = check_cases([good, bare], NUM_CLASSES)
    assert report.errors == [] and len(report.warnings) == 1
    warning = report.warnings[0]
    assert warning.startswith(f"2 file(s) carry no orientation (qform_code and sform_code both 0): {bare.images[0]}, "
                              f"{bare.label}. nibabel places their voxels from pixdim alone")
    assert str(good.label) not in warning
    # One file bare, its label placed: the mismatch is the bare header's, whose grid is a guess, and
    # resampling the placed label onto it was the advice (sixty-seventh session)
    half = make_case(tmp_path, "half")
    image = nib.load(half.images[0])
    unplaced = nib.Nifti1Image(np.asanyarray(image.dataobj), None)
    unplaced.header.set_qform(None, code=0)
    unplaced.header.set_sform(None, code=0)
    nib.save(unplaced, half.images[0])
    error = assert_single_error(check_cases([half], NUM_CLASSES), "are on different grids",
                                "the image carries no orientation (qform_code and sform_code 0), so its grid here "
                                "is guessed from its voxel sizes: if it was written on the grid of the label, copy "
                                "the geometry of the label onto it")
    assert "resample" not in error


def test_a_header_with_two_voxel_sizes_is_one_warning_and_training_reads_it_as_the_check_does(tmp_path):
    """An image whose sform says 1.5 x 1.5 x 2 mm and whose stale qform (so pixdim) says 1 mm, with its
    label placed by the sform alone: the check found their grids equal, then MONAI's reader read the
    image at pixdim's size, and the crop and the patches took the label off the image (a Dice of 0
    between the label trained on and the image's own, sixty-eighth session)."""
    good, stale = make_case(tmp_path, "good"), make_case(tmp_path, "stale")
    image = nib.load(stale.images[0])
    image.header.set_qform(np.eye(4), code=1)
    nib.save(image, stale.images[0])
    label = nib.load(stale.label)
    label.header.set_qform(None, code=0)  # the sform alone, pixdim that of the sform
    nib.save(label, stale.label)
    report = check_cases([good, stale], NUM_CLASSES)
    assert report.errors == [] and len(report.warnings) == 1, report.warnings
    assert report.warnings[0].startswith(
        f"1 file(s) whose header gives two voxel sizes: {stale.images[0]} (sform 1.5 x 1.5 x 2 mm, pixdim 1 x 1 x 1 "
        "mm); read by the sform, as nibabel does where sform_code is set")
    # Training reads the voxels as the check does: one grid for image and label, the sform's spacing
    from accelerated_seg.data.preprocess import PreprocessSettings, case_dict, preprocess
    from accelerated_seg.data.spacing import median_spacing
    assert median_spacing(stale.images) == (1.5, 1.5, 2.0)
    transform = preprocess(settings=PreprocessSettings(spacing=(1.0, 1.0, 1.0)))
    prepared, consistent = transform(case_dict(stale)), transform(case_dict(good))
    assert prepared["image"].shape == prepared["label"].shape == consistent["image"].shape
    np.testing.assert_allclose(prepared["image"].affine, prepared["label"].affine)
    np.testing.assert_allclose(prepared["image"].affine, consistent["image"].affine)


def test_a_header_whose_qform_places_the_voxels_elsewhere_is_one_warning(tmp_path):
    """sform and qform both set, one voxel size, the qform 10 mm off (or mirrored): read by the sform
    here, consistently, but a tool that prefers the qform shows it elsewhere; nothing said so before
    the seventy-fourth session."""
    cases = [make_case(tmp_path, name) for name in ("good", "shifted", "mirrored")]
    for case, change in zip(cases[1:], ("shift", "mirror")):
        image = nib.load(case.images[0])
        qform = image.affine.copy()
        if change == "shift":
            qform[0, 3] += 10
        else:
            qform[0, :3] *= -1
        image.header.set_qform(qform, code=1)
        nib.save(image, case.images[0])
    report = check_cases(cases, NUM_CLASSES)
    assert report.errors == [] and len(report.warnings) == 1, report.warnings
    assert report.warnings[0].startswith(
        f"2 file(s) whose qform and sform place the voxels apart: {cases[1].images[0]} (the qform puts voxel (0, 0, 0) "
        f"10 mm from where the sform does), {cases[2].images[0]} (the qform's axes are ")
    assert "one the mirror image of the other); read by the sform, as nibabel does" in report.warnings[0]
    assert "img.set_qform(img.get_sform(), code=1)" in report.warnings[0]


def test_a_sheared_sform_and_the_qform_nearest_it_are_no_warning(tmp_path):
    """A sheared sform (a CT's gantry tilt) is a geometry a qform cannot hold: a writer stores the nearest
    rotation there, as nibabel does. It was warned as a qform "turning the axes" from the sform, with the
    advice to rewrite the qform from the sform, which writes the same qform again. A qform off beyond
    that nearest rotation is still told."""
    sheared = AFFINE.copy()
    sheared[0, 1] = 0.5  # x moves with y: the slices are sheared
    cases = [make_case(tmp_path, "tilted", image_affine=sheared, label_affine=sheared),
             make_case(tmp_path, "tilted_and_shifted", image_affine=sheared, label_affine=sheared)]
    for case, shift in zip(cases, (0, 10)):
        for path in (case.images[0], case.label):
            image = nib.load(path)
            image.set_qform(sheared, code=1)  # nibabel writes the nearest rotation
            qform = image.header.get_qform()
            assert not np.allclose(qform, sheared)
            qform[0, 3] += shift if path != case.label else 0
            image.set_qform(qform, code=1)
            nib.save(image, path)
    report = check_cases(cases, NUM_CLASSES)
    assert report.errors == [] and len(report.warnings) == 1, report.warnings
    assert report.warnings[0].startswith(
        f"1 file(s) whose qform and sform place the voxels apart: {cases[1].images[0]} (the qform ")
    assert "puts voxel (0, 0, 0) 10 mm from where the sform does" in report.warnings[0]


def test_images_of_a_single_slice_are_one_warning(tmp_path):
    flat = make_case(tmp_path, "flat", image=clean_image()[:, :, :1], label=clean_label()[:, :, 3:4])
    report = check_cases([make_case(tmp_path, "good"), flat], NUM_CLASSES)
    assert report.errors == [] and report.warnings == [
        f"1 image(s) hold a single slice, one voxel thick along an axis: {flat.images[0]} (8, 8, 1); the 3D network "
        "sees each padded to its patch, without the context above and below that 3D segmentation learns from: give "
        "each case's whole volume"]


def test_every_problem_is_reported_not_just_the_first(tmp_path):
    missing = make_case(tmp_path, "missing")
    missing.images[0].unlink()
    label = clean_label()
    label[0, 0, 0] = 9
    out_of_range = make_case(tmp_path, "out_of_range", label=label)
    report = check_cases([missing, out_of_range], NUM_CLASSES)
    assert len(report.errors) == 2


def test_raise_if_errors_lists_every_file(tmp_path):
    missing = make_case(tmp_path, "missing")
    missing.label.unlink()
    nan_image = clean_image()
    nan_image[0, 0, 0] = np.nan
    with_nan = make_case(tmp_path, "with_nan", image=nan_image)
    report = check_cases([missing, with_nan], NUM_CLASSES)
    report.root = tmp_path

    with pytest.raises(DataError) as raised:
        report.raise_if_errors()
    message = str(raised.value)
    assert message.splitlines()[0] == f"2 problem(s) in the dataset {tmp_path}; fix them before training:"
    assert str(missing.label) in message and str(with_nan.images[0]) in message
    assert len(message.splitlines()) == 3


def test_declared_non_contiguous_values_pass(tmp_path):
    label = clean_label()
    label[label == 2] = 4  # BraTS-style values 0, 1, 4
    case = make_case(tmp_path, "brats", label=label)
    assert check_cases([case], [0, 1, 4]).errors == []
    report = check_cases([case], NUM_CLASSES)  # the same file against 0..2
    assert_single_error(report, case.label, "[4]")


def test_binarized_labels_may_hold_any_whole_value_but_not_a_negative_one(tmp_path):
    label = clean_label().astype(np.int16)
    label[0, 0, 0:3] = [7, 41, 2035]  # an aseg: dozens of values, all foreground after binarize
    aseg = make_case(tmp_path, "aseg", label=label)
    report = check_cases([aseg], [0, 1], binarized=True)
    assert report.errors == [] and report.warnings == []  # declared 1 is merged, so its absence is no warning
    assert_single_error(check_cases([aseg], [0, 1]), aseg.label, "[2, 7, 41, 2035]")  # without binarize

    label[0, 0, 0] = -1
    unlabelled = make_case(tmp_path, "unlabelled", label=label)
    error = assert_single_error(check_cases([unlabelled], [0, 1], binarized=True), unlabelled.label, "[-1]")
    assert "binarized" in error and "declare the missing classes" not in error


def test_the_check_command_lists_the_problems_and_checks_binarized_labels_as_training_would(tmp_path, capsys):
    from accelerated_seg.cli import main

    aseg = clean_label()
    aseg[0, 0, 0] = 5  # undeclared, unless binarized
    cases = [make_case(tmp_path, "good"), make_case(tmp_path, "aseg", label=aseg)]
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps({
        "labels": {"0": "background", "1": "a", "2": "b"},
        "training": [{"image": f"./imagesTr/{c.id}.nii.gz", "label": f"./labelsTr/{c.id}.nii.gz"} for c in cases],
    }))
    assert main(["check", str(dataset)]) == 1  # problems found (a usage error would be 2)
    captured = capsys.readouterr()
    assert "label values [5] are not declared" in captured.err and str(cases[1].label) in captured.err
    assert "2 case(s), 1 error(s)" in captured.out
    assert main(["check", str(dataset), "--binarize"]) == 0
    said = capsys.readouterr().out
    assert "2 case(s), 0 error(s)" in said
    # what training reads, said: the channels, the classes and the split, not a count alone
    assert ("channels: 0 (none named); classes: 0 background, 1 foreground; split fraction 0.2 (seed 0): "
            "1 training, 1 validation\n") in said
    assert main(["check", str(tmp_path / "nowhere.json")]) == 1
    assert capsys.readouterr().err.startswith("error: ")
    # a budget no volume fits is the command's misuse: once one "over the budget" error per case
    assert main(["check", str(dataset), "--max-voxels", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --max-voxels (data.max_voxels) must be >= 1, got 0"]


def test_the_check_command_says_which_class_a_split_holds_no_case_of(tmp_path, capsys):
    """Only training said that no validation case held a class (validation then scores it 1 while the
    network predicts none of it), once its cache was built: check, run to find such things first, did not."""
    from accelerated_seg.cli import main

    only_a = clean_label()
    only_a[only_a == 2] = 0
    cases = {"t1": make_case(tmp_path, "t1", label=only_a), "t2": make_case(tmp_path, "t2"),
             "v1": make_case(tmp_path, "v1", label=only_a), "v2": make_case(tmp_path, "v2", label=only_a)}
    dataset = tmp_path / "dataset.json"

    def split(training, validation):
        entry = {case: {"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"} for case in cases}
        dataset.write_text(json.dumps({"labels": {"0": "background", "1": "a", "2": "b"},
                                       "training": [entry[c] for c in training],
                                       "validation": [entry[c] for c in validation]}))
        return main(["check", str(dataset)])

    assert split(["t1", "t2"], ["v1", "v2"]) == 0
    said = capsys.readouterr().out
    assert ("warning: b (label 2) is in no validation case's label file: validation scores each such one 1 while the "
            "network predicts it nowhere") in said and "4 case(s), 0 error(s), 1 warning(s)" in said
    assert split(["t1", "v1"], ["t2", "v2"]) == 0
    said = capsys.readouterr().out
    assert ("warning: b (label 2) is in no training case's label file: the network cannot learn it. Move cases that "
            "hold it into training") in said
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {dataset}\ntrain:\n  val_every: 0\n")
    split(["t1", "t2"], ["v1", "v2"])
    capsys.readouterr()
    assert main(["check", "--config", str(config)]) == 0  # nothing validated: nothing scored 1
    said = capsys.readouterr().out
    assert "is in no validation case" not in said  # the one warning: the 64^3 patch on these small cases
    assert "4 case(s), 0 error(s), 1 warning(s)" in said and "warning: data.patch_size [64, 64, 64]" in said
    assert main(["check", str(dataset), "--binarize"]) == 0  # one class, held by every case
    assert "0 warning(s)" in capsys.readouterr().out
    cases["t2"].label.unlink()  # a case refused is no case of either split; b then in no case at all is said once
    assert main(["check", str(dataset)]) == 1
    said = capsys.readouterr().out
    assert "in no training case" not in said and "in no validation case" not in said
    assert "declared label value(s) [2] appear in none of the" in said


def test_the_check_command_warns_of_the_split_settings_and_fold_keys_the_split_leaves_unused_as_training_does(
        tmp_path, capsys):
    """check printed the split, "given (dataset.json 'validation'; data.num_folds=2 not used)", but not the
    warning training prints of it (every data.fold would train on that one split), nor, for a datalist with
    'fold' keys beside its 'validation' list, the one saying which of the two went unused and how to use it
    (ninetieth session)."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest
    from accelerated_seg.data.splits import unused_split_settings_warning

    cases = [make_case(tmp_path, f"c{index}") for index in range(5)]
    entries = [{"image": f"./imagesTr/{c.id}.nii.gz", "label": f"./labelsTr/{c.id}.nii.gz"} for c in cases]
    dataset, config = tmp_path / "dataset.json", tmp_path / "experiment.yaml"

    def check(training, *argv):
        dataset.write_text(json.dumps({"labels": {"0": "background", "1": "a", "2": "b"}, "training": training,
                                       "validation": entries[4:]}))
        assert main(["check", *argv]) == 0
        return capsys.readouterr().out

    def warned(split, **settings):  # training's line, which check prints alike, of the dataset last checked
        manifest = load_manifest(DataConfig(dataset=str(dataset), **settings), tmp_path)  # as the config reads it
        assert manifest.split == split
        return f"{unused_split_settings_warning(manifest)}\n"

    folds = [{**entry, "fold": index % 2} for index, entry in enumerate(entries[:4])]
    said = check(folds, str(dataset))  # the keys beside the list, with the default settings: the list, keys unused
    assert warned("given (dataset.json 'validation'; the 'fold' keys (2 folds) not used)") in said
    assert "set data.num_folds=2 and data.fold=k" in said and "5 case(s), 0 error(s), 1 warning(s)" in said
    config.write_text(f"data:\n  dataset: {dataset}\n  num_folds: 2\n  fold: 1\n")  # the keys, the list unused
    said = check(folds, "--config", str(config))
    assert warned("given (dataset.json 'fold' keys: fold 1 of 2; the 'validation' list (1 case(s)) not used)",
                  num_folds=2, fold=1) in said
    assert "split given (dataset.json 'fold' keys: fold 1 of 2; the 'validation' list (1 case(s)) not used): 2 " \
           "training, 2 validation" in said  # and the 64^3 patch on these 8^3 cases: 2 warnings
    assert "4 case(s), 0 error(s), 2 warning(s)" in said  # the list's case is neither trained nor checked
    said = check(entries[:4], "--config", str(config))  # no keys: data.num_folds unused
    assert warned("given (dataset.json 'validation'; data.num_folds=2 not used)", num_folds=2, fold=1) in said
    assert "every data.fold trains on that one split" in said
    assert main(["check", str(dataset)]) == 0 and "0 warning(s)" in capsys.readouterr().out  # nothing unused


def test_the_check_command_reads_the_data_as_an_experiments_config_does(tmp_path, capsys):
    """A CSV declares no classes: the experiment's data.labels does, and check could only refuse a
    three-class CSV that training reads (sixty-seventh session)."""
    from accelerated_seg.cli import main

    three = clean_label()
    three[0, 0, 0] = 2
    cases = [make_case(tmp_path, "good"), make_case(tmp_path, "three", label=three)]
    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in cases))
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {table}\n  labels: {{0: background, 1: a, 2: b}}\n")
    assert main(["check", str(table)]) == 1
    err = capsys.readouterr().err
    assert "label values [2] are not declared" in err and "check: --labels" in err
    for argv in (["check", "--config", str(config)], ["check", str(table), "--config", str(config)]):
        assert main(argv) == 0
        assert "2 case(s), 0 error(s)" in capsys.readouterr().out
    # ... or --labels alone, read as training reads --data.labels (session 72 left a CSV's check without it)
    assert main(["check", str(table), "--labels", "{0: background, 1: a, 2: b}"]) == 0
    assert "2 case(s), 0 error(s)" in capsys.readouterr().out
    assert main(["check", str(table), "--labels", "{0: background, 1: a, 4: b}"]) == 1  # 2 undeclared, as stored 4
    assert "classes: 0 background (stored as 0), 1 a (stored as 1), 2 b (stored as 4)" in capsys.readouterr().out
    assert main(["check", "--config", str(config), "--labels", "{0: background, 1: a}"]) == 1  # over the config's
    assert "label values [2] are not declared" in capsys.readouterr().err
    assert main(["check", str(table), "--labels", "{0: background, 1: a"]) == 2  # its YAML: a usage error
    assert "error: --labels (data.labels): the value is not valid YAML" in capsys.readouterr().err
    # {0:background} is {"0:background": null} to YAML: refused as keys that are no label values, without a
    # word of the colon, until the ninety-second session
    assert main(["check", str(table), "--labels", "{0:background, 1: a, 2:b}"]) == 2
    assert capsys.readouterr().err == (
        "error: --labels (data.labels): '0:background' reads as one key with no value, since YAML ends a key only "
        "at a colon followed by a space: put a space after the colon, {0: background, 1: a, 2: b}\n")
    assert main(["check"]) == 2
    assert "give the DATASET to check, or --config" in capsys.readouterr().err
    config.write_text("data:\n  labelz: 3\n")
    assert main(["check", "--config", str(config)]) == 2
    assert "labelz" in capsys.readouterr().err

    # A dataset is checked without torch or MONAI: finding data.dataset imported them (2.3 s). An
    # experiment's network is checked against its patch, which needs MONAI's classes (below).
    from refusals import run_probing_imports

    proc, imported = run_probing_imports("accelerated_seg.cli", "check", str(table), "--labels",
                                         "{0: background, 1: a, 2: b}", module=True)
    assert proc.returncode == 0 and "2 case(s), 0 error(s)" in proc.stdout, proc.stderr[-2000:]
    assert not {"torch", "monai"} & set(imported), imported


def test_the_check_command_says_a_missing_dataset_before_it_imports_monai_for_the_experiments_network(tmp_path):
    """check --config imported MONAI for the network's check (1.7-5.8 s on 2 cores) before it said that the
    dataset was not there; training says that first. The same words, without torch or MONAI (ninety-ninth
    session), and a --max-voxels below 1 still a misuse said before it."""
    from refusals import run_probing_imports

    missing = tmp_path / "typo.csv"
    config = tmp_path / "experiment.yaml"
    # the network is refused too (a misspelt argument): the data's absence is said first, as training says it
    config.write_text(f"data:\n  dataset: {missing}\nmodel:\n  name: unet\n  args: {{chanels: [4, 8]}}\n")
    for argv, said, status in (
            (["--config", str(config)], f"error: {missing}: CSV not found; check the data path (data.dataset)\n", 1),
            ([str(missing), "--config", str(config)], f"error: {missing}: CSV not found; check the data path\n", 1),
            (["--config", str(config), "--max-voxels", "0"],
             "error: --max-voxels (data.max_voxels) must be >= 1, got 0\n", 2)):
        proc, imported = run_probing_imports("accelerated_seg.cli", "check", *argv, module=True)
        assert (proc.returncode, proc.stderr) == (status, said), argv
        assert not {"torch", "monai"} & set(imported), (argv, imported)


def test_the_check_command_refuses_the_experiments_network_for_its_patch_as_training_would(tmp_path, capsys):
    """check --config passed a SwinUNETR patch of 18 that training then refused (eighty-fourth session's
    probe); training refused it only after every case was read (the demo's phantoms written first)."""
    from accelerated_seg.cli import main

    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in [make_case(tmp_path, "a")]))
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {table}\n  patch_size: [18, 18, 18]\nmodel:\n  name: swinunetr\n")
    assert main(["check", "--config", str(config)]) == 2
    assert "data.patch_size (18, 18, 18) must be divisible by (32, 32, 32) for model 'swinunetr'" in (
        capsys.readouterr().err)
    config.write_text(f"data:\n  dataset: {table}\n  patch_size: [32, 32, 32]\nmodel:\n  name: unet\n"
                      f"  args: {{chanels: [4, 8]}}\n")
    assert main(["check", "--config", str(config)]) == 2
    assert "chanels" in capsys.readouterr().err


@pytest.mark.parametrize("args, said", [
    ("{channels: [4, 8], strides: [2, 2, 2]}",
     "warning: model.args.strides [2, 2, 2] has 2 more value(s) than the 1 down-sampling step(s) between "
     "model.args.channels [4, 8]: MONAI's UNet leaves the last 2 unused, so the network down-samples by [2] alone. "
     "Give model.args.strides [2], or model.args.channels 2 more value(s) to down-sample by them all\n"),
    ("{channels: [4, 8], strides: [2], norm: INSTANCE_NVFUSER}",  # without apex
     "warning: model.args.norm INSTANCE_NVFUSER needs apex's InstanceNorm3dNVFuser")])
def test_the_check_command_warns_of_what_monai_builds_otherwise_as_training_does(tmp_path, capsys, args, said):
    """A UNet of more strides than steps between its channels, or an nvfuser norm without apex, trains with MONAI's
    own UserWarning alone; check --config passed it silently (until the ninety-third session)."""
    from accelerated_seg.cli import main

    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in [make_case(tmp_path, "a")]))
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {table}\n  patch_size: [16, 16, 16]\nmodel:\n  name: unet\n"
                      f"  args: {args}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MONAI's own, raw, is not said beside it
        main(["check", "--config", str(config)])
    out = capsys.readouterr().out
    assert out.count(said) == 1
    assert "1 warning(s)" in out


def test_the_check_command_refuses_the_experiments_network_and_loss_for_the_datas_channels_and_classes(
        tmp_path, capsys):
    """check --config built the network with one channel and two classes whatever the data held, and
    ran no forward pass nor the loss: it passed a SegResNet of init_filters 4 (its group norm of 8 groups),
    model.args contradicting the data's channels, and a class weight of the wrong length, each of which
    training refused as it started (a user-journey probe on a 4-modality nnU-Net dataset)."""
    from accelerated_seg.cli import main

    case = make_case(tmp_path, "a")  # 3 classes (clean_label), and a second channel beside its image
    second = save(tmp_path / "imagesTr" / "a_1.nii.gz", clean_image(1))
    table = tmp_path / "cases.csv"
    table.write_text(f"image_0,image_1,label\n{case.images[0]},{second},{case.label}\n")
    config = tmp_path / "experiment.yaml"
    data = f"data:\n  dataset: {table}\n  labels: {{0: background, 1: a, 2: b}}\n  patch_size: [16, 16, 16]\n"
    for rest, said in (
            ("model:\n  name: segresnet\n  args: {init_filters: 4}\n",
             "model 'segresnet': MONAI's SegResNet refuses these model.args, and builds no network of them"),
            ("model:\n  name: segresnet\n  args: {in_channels: 1}\n",
             "model.args ['in_channels'] contradict the run: in_channels is the number of image channels (2)"),
            ("model:\n  name: unet\n  args: {out_channels: 2}\n",
             "model.args ['out_channels'] contradict the run: out_channels is the number of outputs, classes or "
             "regions (3)"),
            ("model:\n  name: segresnet\n  args: {init_filters: 8}\ntrain:\n  loss_args: {weight: [1.0, 2.0]}\n",
             "train.loss=dice_ce with train.loss_args cannot score 3 classes (background included)")):
        config.write_text(data + rest)
        assert main(["check", "--config", str(config)]) == 2, rest
        assert said in capsys.readouterr().err, rest
    config.write_text(data + "model:\n  name: segresnet\n  args: {init_filters: 8}\n"
                             "train:\n  loss_args: {weight: [1.0, 2.0, 2.0]}\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "1 case(s), 0 error(s)" in capsys.readouterr().out


def test_the_check_command_takes_a_batch_split_that_agrees_with_a_launch_of_several_processes(tmp_path, capsys):
    """batch_size 2, global_batch_size 4 and grad_accum_steps 1 agree on 2 GPUs, as training there takes
    them; check, which knows no launch, split the global batch over one process and refused the config
    ("... x 2 accumulation step(s), not the 1 of train.grad_accum_steps")."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=3, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {dataset}\n  patch_size: [32, 32, 32]\n"
                      "train:\n  batch_size: 2\n  global_batch_size: 4\n  grad_accum_steps: 1\n")
    assert main(["check", "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert "3 case(s), 0 error(s)" in captured.out and "grad_accum_steps" not in captured.err


def test_the_check_command_refuses_what_training_would_of_the_experiments_split_regions_and_spacing(
        tmp_path, capsys):
    """check --config passed an experiment that training then refused (seventy-first session's probe):
    a data.spacing resampling the scans beyond the voxel budget, a region over an undeclared value, a
    fold out of the dataset's splits."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=4, num_validation=0, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    config = tmp_path / "experiment.yaml"
    for data, said in (("spacing: [0.01, 0.01, 0.01]", "data.spacing 0.01 x 0.01 x 0.01 mm would resample 4 case(s) "
                                                      "beyond the budget"),
                       ("regions: {whole: [1, 2, 9]}", "data.regions"),
                       ("num_folds: 5", "data.num_folds=5 but there are only 4 case(s)")):
        config.write_text(f"data:\n  dataset: {dataset}\n  {data}\n")
        assert main(["check", "--config", str(config)]) == 1, data
        err = capsys.readouterr().err
        assert said in err and err.startswith("error: "), err
    config.write_text(f"data:\n  dataset: {dataset}\n  num_folds: 5\n  fold: 7\n")  # the command's misuse:
    assert main(["check", "--config", str(config)]) == 2  # a traceback before (a DataError of the split rules)
    assert "data.fold=7 is out of range for data.num_folds=5" in capsys.readouterr().err
    config.write_text(f"data:\n  dataset: {dataset}\n  spacing: [2.0, 2.0, 2.0]\n  num_folds: 2\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "4 case(s), 0 error(s)" in capsys.readouterr().out


def test_check_of_the_synthetic_dataset_before_it_is_written_says_so(tmp_path, capsys):
    """configs/demo.yaml in a fresh clone: "dataset.json not found" (exit 2) sent the user after a file
    the run writes itself (sixty-eighth session). Once written, the phantoms are checked as any data."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\ntrain:\n  output_dir: {tmp_path / 'run'}\n")
    assert main(["check", "--config", str(config)]) == 0
    assert (f"data.dataset is synthetic: the package writes its phantoms to {tmp_path / 'run' / 'synthetic_data'} when "
            "the run starts") in capsys.readouterr().out
    write_synthetic_dataset(tmp_path / "run" / "synthetic_data", num_cases=3, num_validation=1,
                            size_mm=(24.0, 24.0, 16.0), spacing_mm=2.0)
    assert main(["check", "--config", str(config)]) == 0
    assert "3 case(s), 0 error(s)" in capsys.readouterr().out


def test_check_of_the_synthetic_dataset_before_it_is_written_checks_the_network_and_loss_on_its_classes(
        tmp_path, capsys):
    """Before the run writes the phantoms, check --config returned 0 at once: it passed a SegResNet of
    init_filters 4 and a class weight of the wrong length on configs/demo.yaml's data, each of which
    training refused as it started (the eighty-seventh session's review). The phantoms' channel and
    classes are known without them: 1 and 3, or 2 with data.binarize, or one output per region."""
    from accelerated_seg.cli import main

    config = tmp_path / "demo.yaml"
    train = f"train:\n  output_dir: {tmp_path / 'run'}\n"
    for data, rest, said in (
            ("", "model:\n  name: segresnet\n  args: {init_filters: 4}\n",
             "model 'segresnet': MONAI's SegResNet refuses these model.args, and builds no network of them"),
            ("", "  loss_args: {weight: [1.0, 2.0]}\n",
             "train.loss=dice_ce with train.loss_args cannot score 3 classes (background included)"),
            ("  binarize: true\n", "model:\n  name: unet\n  args: {out_channels: 3}\n",
             "out_channels is the number of outputs, classes or regions (2)")):
        config.write_text(f"data:\n  dataset: synthetic\n  patch_size: [32, 32, 32]\n{data}{train}{rest}")
        assert main(["check", "--config", str(config)]) == 2, rest
        assert said in capsys.readouterr().err, rest
    config.write_text(f"data:\n  dataset: synthetic\n  patch_size: [32, 32, 32]\n{train}"
                      f"  loss_args: {{weight: [1.0, 2.0, 2.0]}}\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "the network and loss were checked on their channel and classes" in capsys.readouterr().out
    config.write_text(f"data:\n  dataset: synthetic\n  regions: {{wrong: [7]}}\n{train}")
    assert main(["check", "--config", str(config)]) == 1
    assert "data.regions" in capsys.readouterr().err


def test_the_check_command_warns_of_a_zero_learning_rate_as_training_does_when_it_starts(tmp_path, capsys):
    """optim.lr=0 trains nothing, which training warns of as it starts (schedule.zero_lr_warning); check
    --config said nothing of it (a review of the hundred-and-fifth session)."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import OptimConfig
    from accelerated_seg.model_folders import Names
    from accelerated_seg.schedule import zero_lr_warning

    config = tmp_path / "demo.yaml"
    for lr, said in ((0.0, zero_lr_warning(OptimConfig(lr=0.0), Names())), (1e-4, None)):
        config.write_text(f"data:\n  dataset: synthetic\n  patch_size: [32, 32, 32]\n"
                          f"train:\n  output_dir: {tmp_path / 'run'}\noptim:\n  lr: {lr}\n")
        assert main(["check", "--config", str(config)]) == 0
        out = capsys.readouterr().out
        assert (said in out) if said else ("optim.lr" not in out), lr


def test_check_of_the_synthetic_dataset_before_it_is_written_refuses_data_labels_as_training_does(tmp_path, capsys):
    """The phantoms' dataset.json declares their classes, so training refuses data.labels (or check's
    --labels) beside data.dataset: synthetic; check said the phantoms "pass these checks by
    construction" and returned 0 before they were written (a review of the eighty-seventh session)."""
    from accelerated_seg.cli import main

    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\n  labels: {{0: background, 1: ventricles, 2: lesion}}\n"
                      f"train:\n  output_dir: {tmp_path / 'run'}\n")
    for given in ([], ["--labels", "{0: background, 1: tumour}"]):
        assert main(["check", "--config", str(config), *given]) == 1, given
        said = capsys.readouterr()
        assert ("data.dataset is synthetic: the embedded phantoms, which the run writes to "
                f"{tmp_path / 'run' / 'synthetic_data'}, declare their own (0 background, 1 ventricles, 2 lesion). "
                "Drop data.labels") in said.err, given  # as training says it (eleventh new user's walk)
        assert "by construction" not in said.out and "edit 'labels'" not in said.err, given


def test_data_labels_beside_the_phantoms_already_written_is_refused_in_their_words(tmp_path, capsys):
    """Once a run had written the phantoms, check --config and cache --config refused data.labels as any dataset.json's
    ("edit 'labels' in dataset.json", a file the run rewrites), where train says the phantoms' words (the review r131
    of the eleventh new user's fix)."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    write_synthetic_dataset(tmp_path / "run" / "synthetic_data", num_cases=2, num_validation=0, seed=0,
                            size_mm=(24.0, 24.0, 18.0), spacing_mm=3.0)
    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\n  labels: {{0: background, 1: ventricles, 2: lesion}}\n"
                      f"train:\n  output_dir: {tmp_path / 'run'}\n")
    for command, status in (("check", 1), ("cache", 2)):
        assert main([command, "--config", str(config)]) == status, command
        said = capsys.readouterr().err
        assert ("data.dataset is synthetic: the embedded phantoms, which the run writes to "
                f"{tmp_path / 'run' / 'synthetic_data'}, declare their own (0 background, 1 ventricles, 2 lesion). "
                "Drop data.labels") in said, command
        assert "edit 'labels'" not in said, command


def test_check_binarize_of_the_synthetic_dataset_before_it_is_written_checks_the_two_classes(tmp_path, capsys):
    """check --binarize checks "as data.binarize=true would train", and did so once the phantoms were
    written; before, their three classes were checked, and a class weight of three values, which
    binarized training refuses, passed (a review of the eighty-seventh session)."""
    from accelerated_seg.cli import main

    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\n  patch_size: [32, 32, 32]\ntrain:\n  output_dir: "
                      f"{tmp_path / 'run'}\n  loss_args: {{weight: [1.0, 2.0, 2.0]}}\n")
    assert main(["check", "--config", str(config)]) == 0
    capsys.readouterr()
    assert main(["check", "--config", str(config), "--binarize"]) == 2
    assert "cannot score 2 classes (background included)" in capsys.readouterr().err


def test_check_of_the_synthetic_dataset_before_it_is_written_says_ct_window_is_unused_as_training_does(
        tmp_path, capsys):
    """The phantoms' channel is named MRI, so data.normalization auto z-scores them and training says a
    data.ct_window given has no effect; check said so once they were written, not before (a review of
    the eighty-seventh session)."""
    from accelerated_seg.cli import main

    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\n  patch_size: [32, 32, 32]\n  ct_window: [-100, 200]\n"
                      f"train:\n  output_dir: {tmp_path / 'run'}\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "warning: data.ct_window=[-100.0, 200.0] has no effect in this run: the images are z-scored" in \
        capsys.readouterr().out


def test_the_foreground_crop_may_not_empty_a_case_and_labels_it_would_cut_away_are_said(tmp_path):
    """The crop to the image voxels above 0 (data.crop_foreground, on for zscore) cut away, without a
    word, a class drawn on tissue below 0 (scans normalised before), cropped an image with no voxel
    above 0 to 0 x 0 x 0 (a validation case then scored Dice 1, a training case crashed the loader
    mid-run), seventy-first session's probe."""
    shifted = clean_label()
    image = np.full(SHAPE, -1.0, np.float32)  # background -1, as a scan scaled to [-1, 1] before
    image[2:7, 2:7, 2:7] = 0.5  # the bright class's tissue and around it: the box of voxels above 0
    shifted[0:2, 0:2, 0:2] = 2  # a dark structure at the edge: 8 voxels outside that box
    cases = [make_case(tmp_path, "dark", image=image, label=shifted),
             make_case(tmp_path, "negative", image=np.full(SHAPE, -2.0, np.float32)),
             make_case(tmp_path, "dark_4d", image=image, label=shifted[..., None])]  # a label stored (x, y, z, 1)
    report = check_cases(cases, NUM_CLASSES, crop_foreground=True)
    assert len(report.errors) == 1 and report.errors[0].startswith("negative: ") and (
        "no image voxel is above 0, so data.crop_foreground (on for zscore) would crop the case to nothing"
        in report.errors[0])
    labelled = int(np.count_nonzero(shifted))
    (warning,) = [w for w in report.warnings if "crop_foreground" in w]
    assert (f"2 case(s) have labelled voxels outside the box that data.crop_foreground crops them to (the image "
            f"voxels above 0), which training never sees: dark 8 of {labelled}, dark_4d 8 of {labelled}") in warning
    assert "set data.crop_foreground: false" in warning
    off = check_cases(cases, NUM_CLASSES)  # crop off (ct, or asked): nothing to say
    assert off.errors == [] and not [w for w in off.warnings if "crop_foreground" in w]


def test_ct_in_hounsfield_units_under_the_zscore_crop_is_said(tmp_path):
    """A CSV of CT scans names no modality, so data.normalization: auto chose zscore, whose crop kept
    the voxels above 0 HU: fat, lung and air were cut away with one line saying "zscore" (seventy-second
    session's probe). Scaled int16 storage (scl_slope, scl_inter) is read as the intensities it holds."""
    ct = np.full(SHAPE, -1000, np.int16)  # air
    ct[2:7, 2:7, 2:7] = 40  # soft tissue, the labelled blob
    ct[1, 1:3, 1:3] = -100  # fat, below 0 HU
    stored = (ct + 1024).astype(np.uint16)  # stored as unsigned, scl_inter -1024 brings it back
    image = nib.Nifti1Image(stored, AFFINE)
    image.header.set_slope_inter(1.0, -1024.0)
    case = make_case(tmp_path, "ct_1")
    nib.save(image, case.images[0])  # over the clean image
    mr = make_case(tmp_path, "mr", image=np.abs(clean_image(3)))  # no value below 0
    normalised = make_case(tmp_path, "normalised", image=clean_image(4) - 3.0)  # zero-mean: seldom below -10
    report = check_cases([case, mr, normalised], NUM_CLASSES, crop_foreground=True)
    (warning,) = [w for w in report.warnings if "Hounsfield" in w]
    assert warning.startswith(f"1 image(s) hold values as low as CT's air in Hounsfield units: {case.images[0]} "
                              "(minimum -1000). data.crop_foreground (on for zscore) would crop them")
    assert "set data.normalization: ct" in warning and "set data.crop_foreground: false" in warning
    off = check_cases([case], NUM_CLASSES)  # normalization: ct (the crop is off): nothing to say
    assert not [w for w in off.warnings if "Hounsfield" in w]
    # ct with the crop asked for: "set data.normalization: ct" was the advice (a MONAI user's probe)
    (warning,) = [w for w in check_cases([case], NUM_CLASSES, crop_foreground=True, normalization="ct").warnings
                  if "Hounsfield" in w]
    assert "data.crop_foreground: true crops them to the voxels above 0 HU" in warning
    assert "set data.crop_foreground: false (its default under data.normalization: ct)" in warning
    assert "set data.normalization: ct" not in warning


def test_nibabels_notes_on_a_broken_header_do_not_print_above_the_report(tmp_path, caplog):
    """'sizeof_hdr should be 348; set sizeof_hdr to 348' and 'data code ... not recognized' printed on
    stderr above the check's own error on the same file (seventy-first session's probe)."""
    junk = tmp_path / "imagesTr" / "junk.nii.gz"
    junk.parent.mkdir()
    header = bytearray(nib.Nifti1Image(np.zeros(SHAPE, np.float32), AFFINE).to_bytes())
    header[70:72] = (3571).to_bytes(2, "little")  # the datatype code: none nibabel knows
    junk.write_bytes(gzip.compress(bytes(header)))
    case = make_case(tmp_path, "good")
    report = check_cases([Case(id="junk", images=(junk,), label=case.label)], NUM_CLASSES)
    assert len(report.errors) == 1 and "not a valid NIfTI file" in report.errors[0]
    assert not [record for record in caplog.records if record.name.startswith("nibabel")]


def test_channels_with_different_dtypes_are_fine(tmp_path):
    case = make_case(tmp_path, "mixed")
    second = save(tmp_path / "imagesTr" / "mixed_0001.nii.gz", np.arange(512, dtype=np.int16).reshape(SHAPE))
    case = Case(id=case.id, images=(case.images[0], second), label=case.label)
    assert check_cases([case], NUM_CLASSES).errors == []


def test_nan_in_a_second_channel_names_that_channel(tmp_path):
    case = make_case(tmp_path, "bad")
    image = clean_image(1)
    image[0, 0, 0] = np.nan
    second = save(tmp_path / "imagesTr" / "bad_0001.nii.gz", image)
    case = Case(id=case.id, images=(case.images[0], second), label=case.label)
    error = assert_single_error(check_cases([case], NUM_CLASSES), second, "1 NaN")
    assert error.startswith("bad (image channel 1)")


def test_channels_in_different_orientations_name_both(tmp_path):
    case = make_case(tmp_path, "bad")
    flipped = AFFINE.copy()
    flipped[0, 0] = -flipped[0, 0]
    second = save(tmp_path / "imagesTr" / "bad_0001.nii.gz", clean_image(1), flipped)
    case = Case(id=case.id, images=(case.images[0], second), label=case.label)
    assert_single_error(
        check_cases([case], NUM_CLASSES), second, "image channel 1 is LAS, image channel 0 is RAS",
        "resample the channels"
    )


def test_spacing_difference_within_tolerance_is_accepted(tmp_path):
    nudged = AFFINE.copy()
    nudged[2, 2] += 1e-5
    case = make_case(tmp_path, "ok", label_affine=nudged)
    assert check_cases([case], NUM_CLASSES).errors == []


def test_voxel_budget_is_a_check_manifest_setting(tmp_path):
    cases = [make_case(tmp_path, f"case_{i}") for i in range(2)]
    entries = [{"image": str(c.images[0]), "label": str(c.label)} for c in cases]
    (tmp_path / "dataset.json").write_text(
        json.dumps({"labels": {"0": "bg", "1": "a", "2": "b"}, "training": entries, "validation": []})
    )
    manifest = load_msd(tmp_path / "dataset.json")

    assert check_manifest(manifest, max_voxels=512).errors == []  # 8^3 fits exactly
    report = check_manifest(manifest, max_voxels=511)
    assert len(report.errors) == 2  # one per case, not one per file
    assert all("512 voxels, over the budget of 511" in error for error in report.errors)


def test_a_volume_over_budget_is_judged_from_its_header_without_decompressing(tmp_path):
    big = make_case(tmp_path, "big", image=np.zeros((32, 32, 32), np.float32), label=np.zeros((32, 32, 32), np.uint8))
    content = big.images[0].read_bytes()
    big.images[0].write_bytes(content[: len(content) // 2])  # truncated: a full read would report that
    error = assert_single_error(check_cases([big], NUM_CLASSES, max_voxels=1000), big.images[0], "32,768 voxels")
    assert "truncated" not in error


def test_undeclared_value_message_names_where_a_csv_declares_labels(tmp_path):
    case = make_case(tmp_path, "three_classes")
    (tmp_path / "cases.csv").write_text(f"image,label\n{case.images[0]},{case.label}\n")
    report = check_manifest(load_cases(tmp_path / "cases.csv", validation_fraction=0))
    assert_single_error(report, case.label, "[2]", "declared: 0..1", "data.labels")
    assert check_manifest(load_cases(tmp_path / "cases.csv", validation_fraction=0, labels=3)).errors == []


def test_a_csvs_files_with_one_problem_are_listed_in_the_cases_order(tmp_path, capsys):
    """Checked as the split left them, training cases first, the held-out ones after: `accelerated-seg check
    cases.csv` listed the label files of an undeclared value as ...002, 004, 005, 003 (until the ninety-third
    session). Numbered as a person numbers them: case_10 after case_9, not after case_1."""
    cases = [make_case(tmp_path, f"case_{i}") for i in (1, 2, 3, 4, 5, 10)]  # labels 0..2, the CSV declares 0..1
    (tmp_path / "cases.csv").write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in cases))
    manifest = load_cases(tmp_path / "cases.csv")
    assert manifest.validation and manifest.validation[-1] != cases[-1]  # the split moved a case to the end
    [line] = check_manifest(manifest).error_lines()
    assert line.startswith(f"6 files: {', '.join(str(case.label) for case in cases)}: label values [2] are not "
                           f"declared"), line
    from accelerated_seg.cli import main

    assert main(["check", str(tmp_path / "cases.csv")]) == 1
    assert f"error: 6 files: {cases[0].label}, {cases[1].label}, {cases[2].label}, " in capsys.readouterr().err


def test_the_checks_name_a_json_of_another_name_by_its_name_not_dataset_json(tmp_path):
    """The readers named a datalist.json (an nnU-Net Dataset001.json) by its name, but the pre-flight checks
    still told of "dataset.json": "declare the missing classes in dataset.json 'labels'", "dataset.json declares
    2 channels and lists this one file" (a review of the ninety-first session). A dataset.json reads as before."""
    case = make_case(tmp_path, "three_classes")  # labels 0, 1, 2
    entries = [{"image": str(case.images[0]), "label": str(case.label)}]
    for name in ("datalist.json", "dataset.json"):
        (tmp_path / name).write_text(json.dumps({"labels": {"0": "background", "1": "liver"}, "training": entries}))
        report = check_manifest(load_cases(tmp_path / name, validation_fraction=0))
        assert_single_error(report, case.label, "[2]", f"declare the missing classes in {name} 'labels'")
        (tmp_path / name).write_text(json.dumps({"labels": {"0": "background", "1": "liver", "2": "tumour"},
                                                 "modality": {"0": "T1", "1": "T2"}, "training": entries}))
        report = check_manifest(load_cases(tmp_path / name, validation_fraction=0))
        assert_single_error(report, case.images[0], f"but {name} declares 2 channels and this one file is given")


def test_a_4d_file_among_a_cases_channel_files_is_told_one_3d_volume_each_not_one_channel_declared(tmp_path):
    """A dataset.json whose "modality" declares 2 channels and lists an (x, y, z, 2) file beside a 3D one for a case
    was told "the dataset declares one channel: declare its channels in an MSD dataset.json's 'modality'", which it
    had done, until review r94 of the hundred-and-twentieth session: each of the 2 files is to hold one 3D volume."""
    case = make_case(tmp_path, "two_files")
    four_d = save(tmp_path / "imagesTr" / "four_d.nii.gz", np.stack([clean_image()] * 2, axis=-1), AFFINE)
    for images in ([four_d, str(case.images[0])], [str(case.images[0]), four_d]):
        (tmp_path / "dataset.json").write_text(json.dumps({
            "labels": {"0": "background", "1": "liver", "2": "tumour"}, "modality": {"0": "T1", "1": "T2"},
            "training": [{"image": [str(path) for path in images], "label": str(case.label)}]}))
        line = assert_single_error(check_manifest(load_cases(tmp_path / "dataset.json", validation_fraction=0)),
                                   four_d, "is 4D with 2 volumes, but dataset.json declares 2 channels and it is one "
                                   "of the 2 files given for them, one 3D volume each: give one 3D file per channel")
        assert "declares one channel" not in line, line


def test_a_csv_run_declares_its_labels_with_data_labels(tmp_path):
    """From YAML or the command line, data.labels is how a CSV gets more than two classes."""
    training, validation = make_case(tmp_path, "a"), make_case(tmp_path, "b")  # labels 0, 1, 2
    csv = tmp_path / "cases.csv"
    csv.write_text(f"image,label,split\n{training.images[0]},{training.label},train\n"
                   f"{validation.images[0]},{validation.label},validation\n")
    binary = load_config(None, [f"--data.dataset={csv}"])
    with pytest.raises(DataError,
                       match=r"label values \[2\] are not declared.*declare the missing classes in data.labels"):
        prepare_manifest(binary.data, tmp_path / "out")

    declared = load_config(None, [f"--data.dataset={csv}", "--data.labels={0: background, 1: liver, 2: tumour}"])
    manifest, _ = prepare_manifest(declared.data, tmp_path / "out")
    assert manifest.labels == {0: "background", 1: "liver", 2: "tumour"}
    saved = tmp_path / "config.yaml"  # the resolved config written next to the run reads back the same
    saved.write_text(dump_config(declared))
    assert load_config(saved).data.labels == {0: "background", 1: "liver", 2: "tumour"}


@pytest.mark.parametrize("broken", BROKEN_CASES, ids=[case.name for case in BROKEN_CASES])
def test_broken_corpus(tmp_path, broken):
    """Each broken dataset gives exactly one error naming the file, the problem and what to do."""
    source, offending_file = broken.build(tmp_path / broken.name)
    errors = preflight_errors(source)
    assert len(errors) == 1, errors
    assert str(offending_file) in errors[0], errors[0]
    assert broken.problem in errors[0], errors[0]
    assert broken.fix in errors[0], errors[0]


def test_corpus_is_large_and_distinct():
    assert len(BROKEN_CASES) >= 12
    assert len({case.name for case in BROKEN_CASES}) == len(BROKEN_CASES)


def test_write_corpus_writes_every_case_into_its_own_folder(tmp_path):
    written = write_corpus(tmp_path)
    assert sorted(written) == sorted(case.name for case in BROKEN_CASES)
    assert all(Path(source).is_relative_to(tmp_path / name) for name, (source, _) in written.items())


# --- io -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["out.nii.gz", "out.nii", "OUT.NII.GZ", "out.Nii"])
def test_write_nifti_round_trips_and_leaves_no_temp_files(tmp_path, name):
    array = clean_image()
    path = write_nifti(tmp_path / "nested" / name, array, AFFINE)

    image = read_nifti(path)
    np.testing.assert_array_equal(np.asanyarray(image.dataobj), array)
    np.testing.assert_allclose(image.affine, AFFINE)
    assert sorted(p.name for p in path.parent.iterdir()) == [name]
    # compressed exactly when the name says so, in any case, as nibabel would write it
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.lower().endswith(".gz")


def test_read_nifti_reads_a_gzipped_file_whose_suffix_is_upper_case(tmp_path):
    """Scanner exports and Windows tools write ``CT_001.NII.GZ``; nibabel reads it, so must we (before,
    the gzip stream was parsed as NIfTI and the file called damaged)."""
    path = tmp_path / "CT_001.NII.GZ"
    nib.save(nib.Nifti1Image(clean_image(), AFFINE), path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    np.testing.assert_array_equal(np.asanyarray(read_nifti(path).dataobj), clean_image())


def test_write_nifti_overwrites_atomically_and_keeps_array_dtype(tmp_path):
    path = tmp_path / "seg.nii.gz"
    write_nifti(path, clean_label(), AFFINE)
    label_header = read_nifti(path).header
    probabilities = np.full(SHAPE, 0.25, np.float32)

    write_nifti(path, probabilities, AFFINE, header=label_header)  # a uint8 header must not round 0.25 to 0
    np.testing.assert_array_equal(read_nifti(path).get_fdata(), probabilities)
    assert [p.name for p in tmp_path.iterdir()] == ["seg.nii.gz"]


def test_write_nifti_stores_int64_as_int32(tmp_path):
    path = write_nifti(tmp_path / "seg.nii.gz", clean_label().astype(np.int64), AFFINE)
    image = read_nifti(path)
    assert image.get_data_dtype() == np.int32
    np.testing.assert_array_equal(np.asanyarray(image.dataobj), clean_label())


@pytest.mark.parametrize("name", ["wide.nii.gz", "wide.nii"])
def test_read_nifti_reads_nifti_2(tmp_path, name):
    """NIfTI-2 (540-byte header, 64-bit dimensions) is told apart from NIfTI-1 by the header's size."""
    nib.save(nib.Nifti2Image(clean_image(), AFFINE), tmp_path / name)
    image = read_nifti(tmp_path / name)
    assert isinstance(image, nib.Nifti2Image)
    np.testing.assert_array_equal(np.asanyarray(image.dataobj), clean_image())
    np.testing.assert_allclose(image.affine, AFFINE)


def test_read_nifti_rejects_a_file_that_is_not_nifti(tmp_path):
    path = tmp_path / "notes.nii"
    path.write_bytes(b"not an image" * 50)
    with pytest.raises(DataError, match="re-export or re-download") as raised:
        read_nifti(path)
    assert str(path) in str(raised.value)


def test_read_nifti_says_to_convert_a_file_of_another_format(tmp_path):
    path = tmp_path / "scan.mha"
    path.write_bytes(b"ObjectType = Image\nNDims = 3\n" * 20)
    with pytest.raises(DataError, match="only NIfTI") as raised:
        read_nifti(path)
    assert str(path) in str(raised.value) and "convert the file" in str(raised.value)


@pytest.mark.parametrize("name, way", [
    ("scan.mha", "SimpleITK.WriteImage(SimpleITK.ReadImage('scan.mha'), 'scan.nii.gz')"),
    ("slice_001.dcm", "dcm2niix -z y <folder>"),
    ("scan.tif", "image.SetSpacing((x, y, z))"),
])
def test_read_nifti_gives_the_conversion_line_of_its_format(tmp_path, name, way):
    """A listed file of a format nnU-Net reads is told the line predict's and evaluate's refusals give, named
    for it: sitk.WriteImage(sitk.ReadImage(src), 'case.nii.gz') alone wrote one slice of a DICOM series and a
    TIFF's voxels as 1 mm (hundred-and-fifth session's review)."""
    path = tmp_path / name
    path.write_bytes(b"not NIfTI" * 50)
    with pytest.raises(DataError, match="only NIfTI") as raised:
        read_nifti(path)
    assert way in str(raised.value) and "sitk.WriteImage(sitk.ReadImage(src)" not in str(raised.value)


def test_read_nifti_catches_a_truncated_uncompressed_file(tmp_path):
    path = write_nifti(tmp_path / "volume.nii", clean_image(), AFFINE)
    content = path.read_bytes()
    path.write_bytes(content[: len(content) - 100])
    with pytest.raises(DataError, match="truncated"):
        read_nifti(path)


def _damaged_files(folder: Path) -> list[Path]:
    """A .nii.gz cut short, one with a flipped byte in its stream, a .nii cut short, and bytes that are no NIfTI."""
    written = [write_nifti(folder / f"{name}", clean_image(), AFFINE) for name in ("cut.nii.gz", "flipped.nii.gz",
                                                                                  "cut.nii")]
    for path, damaged in zip(written, (lambda b: b[: len(b) // 2], lambda b: b[:40] + bytes([b[40] ^ 1]) + b[41:],
                                       lambda b: b[:-100])):
        path.write_bytes(damaged(path.read_bytes()))
    (folder / "text.nii").write_bytes(b"not a NIfTI file at all\n" * 20)
    return [*written, folder / "text.nii"]


def test_read_nifti_hashes_the_bytes_it_reads_and_refuses_as_without_a_digest(tmp_path):
    """read_nifti's digest takes the file's bytes as stored (compressed or not) in its one read, so evaluate's
    inputs_sha256 reads no file again (hundredth session); a damaged file is refused with the same words."""
    import hashlib

    for name in ("volume.nii.gz", "volume.nii"):
        path = write_nifti(tmp_path / name, clean_image(), AFFINE)
        digest = hashlib.sha256()
        image = read_nifti(path, digest=digest)
        assert digest.digest() == hashlib.sha256(path.read_bytes()).digest()
        assert np.array_equal(np.asarray(image.dataobj), np.asarray(read_nifti(path).dataobj))
    for path in _damaged_files(tmp_path):
        with pytest.raises(DataError) as without:
            read_nifti(path)
        with pytest.raises(DataError) as hashed:
            read_nifti(path, digest=hashlib.sha256())
        assert str(hashed.value) == str(without.value), path.name
    with pytest.raises(ValueError, match="digest needs verify_stream=True"):
        read_nifti(tmp_path / "volume.nii", verify_stream=False, digest=hashlib.sha256())


def test_read_nifti_hashes_a_gzip_file_to_its_last_byte(tmp_path):
    """The digest is of every byte stored: the zeros some tools pad a .nii.gz with after its stream too."""
    import hashlib

    path = write_nifti(tmp_path / "volume.nii.gz", clean_image(), AFFINE)
    path.write_bytes(path.read_bytes() + bytes(512))
    digest = hashlib.sha256()
    read_nifti(path, digest=digest)
    assert digest.digest() == hashlib.sha256(path.read_bytes()).digest()


def test_write_nifti_into_a_folder_named_tilde_writes_there_not_in_home(tmp_path, monkeypatch):
    """nibabel expands a leading ``~`` of a file name: the temporary went to the home folder while the
    rename looked for it in ``./~`` (seventy-fifth session)."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    write_nifti(Path("~") / "case.nii.gz", np.ones((4, 4, 4), np.uint8), AFFINE)
    assert (work / "~" / "case.nii.gz").is_file() and list(home.iterdir()) == []


def test_one_problem_of_many_files_is_one_line_and_a_moved_folder_is_named(tmp_path, capsys):
    """A cohort with one problem throughout printed it once per file (1000 lines of the same advice),
    and a dataset whose image folder had moved gave one "file not found" per file, never naming the
    folder (seventy-fifth session's probe, 2000 cases)."""
    label = clean_label()
    label[label > 0] = NUM_CLASSES  # one value beyond the declared classes, in every case
    cases = [make_case(tmp_path, f"case_{i:03d}", label=label) for i in range(12)]
    cases.append(make_case(tmp_path, "fine"))
    report = check_cases(cases, NUM_CLASSES)
    assert len(report.errors) == 12
    with pytest.raises(DataError) as refused:
        report.raise_if_errors()
    lines = str(refused.value).splitlines()
    assert lines[0].startswith("12 problem(s) in the dataset") and len(lines) == 2
    assert lines[1].startswith(f"  - 12 files: {cases[0].label}, {cases[1].label}, ")
    assert f"(and 2 more): label values [{NUM_CLASSES}] are not declared" in lines[1]
    # accelerated-seg check prints them as training says them: one line, not twelve
    from accelerated_seg.cli import main

    entries = [{"image": str(case.images[0]), "label": str(case.label)} for case in cases]
    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a", "2": "b"},
                                                       "training": entries}))
    assert main(["check", str(tmp_path / "dataset.json")]) == 1
    printed = capsys.readouterr().err.splitlines()
    assert len(printed) == 1 and printed[0].startswith("error: 12 files: ")

    moved = [Case(id=f"gone_{i}", images=(tmp_path / "moved" / f"gone_{i}.nii.gz",), label=cases[i].label)
             for i in range(5)]
    report = check_cases([*moved, cases[-1], make_case(tmp_path, "alone", label=label)], NUM_CLASSES)
    with pytest.raises(DataError) as refused:
        report.raise_if_errors()
    lines = str(refused.value).splitlines()
    assert len(lines) == 3  # the summary, the missing folder's five images, the six labels' one value
    assert lines[1].startswith("  - 5 files: ")
    assert f"file not found; the folder {tmp_path / 'moved'} does not exist" in lines[1]
    assert lines[2].startswith("  - 6 files: ") and f"label values [{NUM_CLASSES}] are not declared" in lines[2]
    report = check_cases([*moved[:3], cases[-1]], NUM_CLASSES)  # fewer than four files: each on its own line
    with pytest.raises(DataError) as refused:
        report.raise_if_errors()
    assert len(str(refused.value).splitlines()) == 1 + 6


def test_a_nifti_file_not_named_nii_is_refused_by_the_checks_not_a_traceback_after_them(tmp_path):
    """An uncompressed NIfTI listed without .nii passed the checks, read by its bytes, and then stopped
    check and training with nibabel's "Cannot work out file type" traceback from the spacing, which reads
    by the name (ninety-second session's review)."""
    case = make_case(tmp_path, "a")
    plain = tmp_path / "imagesTr" / "a_plain"
    nib.save(nib.load(case.images[0]), tmp_path / "uncompressed.nii")
    (tmp_path / "uncompressed.nii").rename(plain)
    report = check_one_bad_case(tmp_path, Case(id="a", images=(plain,), label=case.label))
    assert_single_error(report, f"a (image): {plain}: a NIfTI file not named .nii or .nii.gz, which training reads by "
                                f"that name: rename it a_plain.nii (and its path where it is listed)")


@pytest.mark.parametrize("name, renamed", [("a_gz", "a_gz.nii.gz"), ("a_scan.gz", "a_scan.nii.gz")])
def test_a_gzip_nifti_file_not_named_nii_gz_is_told_its_name_not_to_convert_it(tmp_path, name, renamed):
    """A gzip-compressed NIfTI listed without .nii.gz was told "not a valid NIfTI file ...; convert the file"
    (no extension), or to rename a_scan.gz a_scan.gz.nii (ninety-second session's probe)."""
    case = make_case(tmp_path, "a")
    misnamed = tmp_path / "imagesTr" / name
    misnamed.write_bytes(case.images[0].read_bytes())
    report = check_one_bad_case(tmp_path, Case(id="a", images=(misnamed,), label=case.label))
    said = assert_single_error(report, f"a (image): {misnamed}: ", "a gzip-compressed NIfTI file not named .nii.gz, "
                               f"which training reads by that name: rename it {renamed} (and its path where it is "
                               f"listed)")
    assert "convert" not in said


def test_a_csv_whose_paths_are_written_from_the_working_folder_is_told_so(tmp_path, monkeypatch):
    """data/cases.csv listing data/imagesTr/... (its paths as seen from where the command runs) was told
    each file was not found and that data/data did not exist, never why (ninety-second session's probe):
    a CSV's paths are read from its own folder."""
    cases = [make_case(tmp_path / "data", f"case_{index}") for index in range(2)]
    rows = [f"data/imagesTr/{case.id}.nii.gz,data/labelsTr/{case.id}.nii.gz" for case in cases]
    table = tmp_path / "data" / "cases.csv"
    table.write_text("\n".join(["image,label", *rows]) + "\n")
    monkeypatch.chdir(tmp_path)
    errors = check_manifest(load_cases(table, validation_fraction=0)).errors
    assert errors[0] == (f"{table}: 4 file(s) it lists are not found from its folder, {tmp_path / 'data'}, which its "
                         f"paths are read from, but are there from the working folder, {tmp_path} "
                         f"(data/imagesTr/case_0.nii.gz, ...): write its paths from its own folder (or absolute)")
    assert len(errors) == 1 + 4 and all("file not found" in error for error in errors[1:])
    monkeypatch.chdir(tmp_path / "data")  # from elsewhere, nothing of the kind is there: not said
    assert not any("working folder" in error for error in check_manifest(load_cases(table)).errors)
    table.write_text("\n".join(["image,label", *(row.replace("data/", "") for row in rows)]) + "\n")
    assert check_manifest(load_cases(table, labels=3)).errors == []  # written from its folder


def test_check_says_a_patch_longer_than_every_resampled_training_case(tmp_path, capsys):
    """Training said that the patch was longer than every case (mostly padding) only once it had
    preprocessed them all; check, run to find such things first, said nothing of the default 64^3 patch
    on small cases (a user-journey audit). The sizes are the cases' once resampled to data.spacing."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=3, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)  # 12 x 12 x 8 voxels as stored
    config = tmp_path / "experiment.yaml"

    def check(settings):
        config.write_text(f"data:\n  dataset: {dataset}\n  spacing: [1.0, 1.0, 0.5]\n{settings}")
        assert main(["check", "--config", str(config)]) == 0
        return capsys.readouterr().out

    said = check("")
    assert ("warning: data.patch_size [64, 64, 64] is longer than every resampled training case (uncropped: "
            "data.crop_foreground can only shorten it) along axis 0, 1, 2 (at most 23, 23, 29 voxels at "
            "1 x 1 x 0.5 mm): each patch is mostly padding there, which costs time and teaches nothing. A patch "
            "such as data.patch_size: [32, 32, 32] sees as much of each case") in said
    assert "3 case(s), 0 error(s), 1 warning(s)" in said
    said = check("  crop_foreground: false\n")  # the sizes that training then compares the patch with
    assert "longer than every resampled training case along axis 0, 1, 2 (at most 23, 23, 29 voxels" in said
    assert "0 error(s), 0 warning(s)" in check("  patch_size: [32, 32, 32]\n")


@pytest.mark.parametrize("degrees", [0, 30])
def test_the_resampled_sizes_check_reads_from_headers_are_those_preprocessing_gives(tmp_path, degrees):
    """check compares the patch with each case's size from its header; training, with the preprocessed
    volume's. On a grid stored in another axis order, flipped, rotated, anisotropic, they agree."""
    from accelerated_seg.data.preprocess import PreprocessSettings, case_dict, preprocess
    from accelerated_seg.data.spacing import resampled_ras_shape

    angle = np.deg2rad(degrees)
    rotation = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])
    affine = np.eye(4)
    affine[:3, :3] = rotation @ np.array([[0, 0, -0.8], [0, 1.1, 0], [3.0, 0, 0]])  # stored S, A, L: 3, 1.1, 0.8 mm
    case = make_case(tmp_path, "oblique", image=np.ones((9, 20, 17), np.float32),
                     label=np.zeros((9, 20, 17), np.uint8), image_affine=affine, label_affine=affine)
    for spacing in ((1.0, 1.0, 1.0), (0.7, 1.3, 2.0)):
        settings = PreprocessSettings(spacing=spacing, crop_foreground=False)
        preprocessed = preprocess(settings=settings)(case_dict(case))["image"]
        assert resampled_ras_shape(case.images[0], spacing) == tuple(preprocessed.shape[1:])


def test_checking_in_threads_reports_exactly_what_one_thread_does(tmp_path):
    """data.num_workers threads check cases side by side (one thread read every voxel of every case
    at every launch); the report must not depend on them: every error and warning,
    in the cases' order, and the dataset-wide warnings from every case's tally."""
    bad_value, background, nan_image = clean_label(), np.zeros(SHAPE, np.uint8), clean_image()
    bad_value[bad_value > 0] = NUM_CLASSES
    nan_image[0, 0, 0] = np.nan
    cases = []
    for index in range(24):
        kind = index % 4
        cases.append(make_case(tmp_path, f"case_{index:02d}", label=(None, bad_value, background, None)[kind],
                               image=nan_image if kind == 3 else None))
    one = check_cases(cases, NUM_CLASSES)
    assert len(one.errors) == 12 and any("contain only background" in warning for warning in one.warnings)
    for workers in (2, 5):
        several = check_cases(cases, NUM_CLASSES, workers=workers)
        assert (several.errors, several.warnings) == (one.errors, one.warnings)
    unseen = clean_label()  # class 2 in no case at all: the warning needs every case's tally
    unseen[unseen == 2] = 1
    without = [make_case(tmp_path / "u", f"u{i}", label=unseen) for i in range(6)]
    assert any("declared label value(s) [2] appear in none of the 6 label file(s)" in warning
               for warning in check_cases(without, NUM_CLASSES, workers=3).warnings)
    # ... and is not given where one case of another thread's share holds it
    assert not any("appear in none" in warning
                   for warning in check_cases([*without, cases[0]], NUM_CLASSES, workers=3).warnings)


def test_ranks_each_check_a_share_and_all_report_what_one_process_does(tmp_path, monkeypatch):
    """Training's ranks check the cases together (the main process alone read every voxel while the
    others waited, as long as NCCL's timeout for a large cohort): each opens only its share, and every
    rank's report is one process's, in the cases' order, with the dataset-wide warnings of all cases."""
    import accelerated_seg.data.cohort_check as cohort_check

    bad_value, unseen = clean_label(), clean_label()
    bad_value[bad_value > 0] = NUM_CLASSES
    unseen[unseen == 2] = 1  # class 2 only in the last case: "appears in none" must not be said
    cases = [make_case(tmp_path, f"case_{index}", label=(bad_value if index % 3 == 0 else unseen))
             for index in range(7)] + [make_case(tmp_path, "case_7")]
    one = check_cases(cases, NUM_CLASSES)
    assert len(one.errors) == 3 and not any("appear in none" in warning for warning in one.warnings)

    opened, check_case = {}, cohort_check.check_case
    monkeypatch.setattr(cohort_check, "check_case", lambda case, *args, **kwargs: (
        opened.setdefault(rank, []).append(case.id), check_case(case, *args, **kwargs)))
    shares = {}
    for rank in range(3):  # each rank's own work, as on_every_rank runs it there
        check_cases(cases, NUM_CLASSES, workers=2,
                    ranks=CheckingRanks(rank, 3, lambda work: [shares.setdefault(rank, work())]))
    assert opened == {0: ["case_0", "case_3", "case_6"], 1: ["case_1", "case_4", "case_7"], 2: ["case_2", "case_5"]}
    for rank in range(3):  # and what every rank then receives: all three shares, in rank order
        every_share = CheckingRanks(rank, 3, lambda work: [shares[r] for r in range(3)])
        whole = check_cases(cases, NUM_CLASSES, ranks=every_share)
        assert (whole.errors, whole.warnings) == (one.errors, one.warnings)


def test_cases_that_passed_are_not_read_again_until_their_files_or_the_checks_change(tmp_path, monkeypatch):
    """Every launch read every voxel of every case again (0.29 s per CT-sized case, each resume of a
    2000-case cohort minutes of the same answer): a case that passed, unchanged, is recalled, with the
    warnings it gave and what its files hold for the dataset-wide ones; a case with an error is read
    again each time, and a changed file, other settings or a broken record mean reading again."""
    import accelerated_seg.data.check_records as check_records
    import accelerated_seg.data.cohort_check as cohort_check
    from accelerated_seg.data.check_records import CheckRecords
    from accelerated_seg.data.fingerprint import case_key, source_fingerprint

    bad_value, unseen = clean_label(), clean_label()
    bad_value[bad_value > 0] = NUM_CLASSES
    unseen[unseen == 2] = 1  # class 2 in no label: the dataset-wide warning needs every case's tally
    cases = [make_case(tmp_path, f"case_{index}", label=unseen) for index in range(4)]
    cases += [make_case(tmp_path, "background", label=np.zeros(SHAPE, np.uint8)),
              make_case(tmp_path, "bad", label=bad_value)]
    records = CheckRecords(tmp_path / "records", tmp_path)
    opened, check_case = [], cohort_check.check_case
    monkeypatch.setattr(cohort_check, "check_case", lambda case, *args, **kwargs: (opened.append(case.id),
                                                                                  check_case(case, *args, **kwargs)))

    def checked(*args, **kwargs):  # as training does once nothing refuses the run
        report = check_cases(*args, **kwargs)
        report.keep_records()
        return report

    check_cases(cases, NUM_CLASSES, records=records)  # a run refused after its checks records nothing
    assert not (tmp_path / "records").exists()
    opened.clear()
    first = checked(cases, NUM_CLASSES, records=records, workers=2)
    assert sorted(opened) == sorted(case.id for case in cases) and first.recalled == 0
    assert len(first.errors) == 1 and "contains only background" in " ".join(first.warnings)
    assert any("declared label value(s) [2] appear in none of the 6" in warning for warning in first.warnings)
    opened.clear()
    again = checked(cases, NUM_CLASSES, records=records, workers=2)
    assert opened == ["bad"] and again.recalled == 5
    assert (again.errors, again.warnings) == (first.errors, first.warnings)

    opened.clear()  # a label rewritten (class 2 now there), and the bad one fixed
    save(cases[0].label, clean_label())
    save(cases[-1].label, clean_label())
    fixed = checked(cases, NUM_CLASSES, records=records)
    assert sorted(opened) == ["bad", "case_0"] and not fixed.errors and not any("appear in none" in w
                                                                                 for w in fixed.warnings)
    opened.clear()
    assert checked(cases, NUM_CLASSES, records=records).recalled == 6 and not opened

    checked(cases, NUM_CLASSES + 1, records=records)  # other checks: every case read
    assert len(opened) == 6
    checking = check_records._checking  # other checking code, or another nibabel or numpy: read again
    monkeypatch.setattr(check_records, "_checking", lambda: "another nibabel")
    opened.clear()
    assert checked(cases, NUM_CLASSES, records=records).recalled == 0 and len(opened) == 6
    monkeypatch.setattr(check_records, "_checking", checking)
    for record in (tmp_path / "records").iterdir():
        record.write_text('{"case_0": {"source": ')  # cut short
    opened.clear()
    assert not checked(cases, NUM_CLASSES, records=records).errors and len(opened) == 6
    # entries not as this code writes them: those cases are read (the record just rewritten by that
    # check; the other settings' one is still cut short)
    (record,) = [path for path in (tmp_path / "records").iterdir() if path.read_text().endswith("}")]
    written = json.loads(record.read_text())
    written["cases"][case_key(cases[0])] = 5
    written["cases"][case_key(cases[1])] = {"source": source_fingerprint(cases[1]), "findings": {}}
    record.write_text(json.dumps(written))
    opened.clear()
    assert checked(cases, NUM_CLASSES, records=records).recalled == 4 and sorted(opened) == ["case_0", "case_1"]
    opened.clear()
    check_cases(cases, NUM_CLASSES)  # no records: everything read, as `accelerated-seg check` does
    assert len(opened) == 6
    # a package without its sources (compiled files alone) keeps no records: training stopped at them
    monkeypatch.setattr(check_records, "_checking", lambda: None)
    shutil.rmtree(tmp_path / "records")
    opened.clear()
    assert checked(cases, NUM_CLASSES, records=records).recalled == 0 and len(opened) == 6
    assert not (tmp_path / "records").exists()
    # a path with a NUL byte (stat's ValueError) is the check's "file not found", not a traceback
    nul = Case(id="nul", images=cases[0].images, label=Path(f"{cases[0].label}\x00"))
    assert "file not found" in " ".join(checked([nul], NUM_CLASSES, records=records).errors)


def test_a_save_removes_the_records_this_install_cannot_use_once_nothing_wrote_them_for_a_week(tmp_path, monkeypatch):
    """Every change of the checking code, nibabel or numpy (each upgrade) and of the records' key left
    its record file behind for good, 274 bytes a case each: a run's save removes those of other
    checking code that nothing has written for a week (an older install sharing the cache rewrites its
    own at each launch, so they would be each other's to remove), and what a killed save left hidden.
    This code's of other settings stay, whatever their age: a run may come back to them."""
    import os
    import time

    import accelerated_seg.data.check_records as check_records
    from accelerated_seg.data.check_records import UNUSED_KEPT_S, CheckRecords

    folder = tmp_path / "checks"
    records = CheckRecords(folder, tmp_path)
    passed = {"case_0.0123abcd": {"source": "0123456789abcdef", "findings": {}}}
    records.save({"max_voxels": 1}, passed, [])  # this code's, of other settings
    checking = check_records._checking
    monkeypatch.setattr(check_records, "_checking", lambda: "f" * 40)  # an older checking code's, or numpy's
    records.save({"max_voxels": 2}, passed, [])
    records.save({"max_voxels": 3}, passed, [])
    older_two, older_three = records.path({"max_voxels": 2}), records.path({"max_voxels": 3})
    monkeypatch.setattr(check_records, "_checking", checking)
    unstamped = folder / "0123456789abcdef.json"  # the first records' layout, which carried no stamp
    unstamped.write_text(json.dumps(passed))
    users = folder / "notes.json"  # not named as the records are: never touched
    users.write_text("{}")
    killed = folder / f".{records.path({'max_voxels': 1}).name}.{'a' * 32}.tmp"
    killed.write_text('{"checking": ')
    week_ago = time.time() - UNUSED_KEPT_S - 60
    for path in (records.path({"max_voxels": 1}), older_two, unstamped, users, killed):
        os.utime(path, (week_ago, week_ago))

    records.save({"max_voxels": 4}, passed, [])
    kept = {records.path({"max_voxels": settings}).name for settings in (1, 4)} | {older_three.name}  # this week's
    assert {path.name for path in folder.iterdir()} == kept | {"notes.json"}
    assert records.load({"max_voxels": 1}) == passed
    monkeypatch.setattr(check_records, "_checking", lambda: None)  # no sources: nothing tells, nothing goes
    os.utime(older_three, (week_ago, week_ago))
    records.save({"max_voxels": 4}, passed, [])
    assert {path.name for path in folder.iterdir()} == kept | {"notes.json"}


def test_two_installs_sharing_a_cache_each_keep_their_own_records(tmp_path, monkeypatch):
    """An older install kept for a running experiment and a new one, launched in turns on the same
    dataset and settings, wrote one record file: each launch found the other's stamp, read every case
    again (minutes for 2000 cases) and overwrote the file, so neither ever recalled a case. Each
    install has its own file now."""
    import accelerated_seg.data.check_records as check_records
    from accelerated_seg.data.check_records import CheckRecords

    records, settings = CheckRecords(tmp_path / "checks", tmp_path), {"max_voxels": 1}
    older = {"case_0.0123abcd": {"source": "0123456789abcdef", "findings": {}}}
    newer = {"case_0.0123abcd": {"source": "fedcba9876543210", "findings": {"warnings": []}}}
    checking = check_records._checking
    monkeypatch.setattr(check_records, "_checking", lambda: "f" * 40)
    records.save(settings, older, [])
    monkeypatch.setattr(check_records, "_checking", checking)
    records.save(settings, newer, [])
    assert records.load(settings) == newer
    monkeypatch.setattr(check_records, "_checking", lambda: "f" * 40)
    assert records.load(settings) == older  # the older install's launch recalls its cases


def test_every_module_that_checks_a_case_is_checking_code_so_changing_it_reads_every_case_again():
    """A case that passed is recalled while the checking code is unchanged (``CHECKING_CODE``): a module that
    checks a case and is not listed would change its findings and still recall those of the code before. The
    checks were one file, checks.py, until they were split into modules of one idea each."""
    import ast

    from accelerated_seg.data.check_records import CHECKING_CODE

    data = Path(__file__).parents[1] / "accelerated_seg" / "data"
    # what no recorded finding depends on: errors (never recorded), the records and fingerprints themselves,
    # and the cases' description
    outside = {"errors.py", "all_nan.py", "check_records.py", "fingerprint.py", "cases.py", "manifest.py"}
    reached, waiting = set(), ["cohort_check.py"]  # check_cases, whose findings are recorded
    while waiting:
        name = waiting.pop()
        if name in reached or name in outside:
            continue
        reached.add(name)
        for node in ast.walk(ast.parse((data / name).read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("accelerated_seg.data."):
                waiting.append(node.module.removeprefix("accelerated_seg.data.").replace(".", "/") + ".py")
    assert reached - set(CHECKING_CODE) == set()


@pytest.mark.parametrize("how", ["float64", "scaled int16"])
def test_an_image_beyond_float32s_range_is_refused_naming_the_file(tmp_path, how):
    """Finite on disk, Inf in float32 (in which training reads every image): the case became all NaN in
    the cache without a word, and the run skipped its steps or scored it 0."""
    image = clean_image().astype(np.float64)
    if how == "float64":
        image[1, 2, 3] = 1e300
        case = make_case(tmp_path, "bad", image=image)
    else:
        case = make_case(tmp_path, "bad")
        scaled = nib.Nifti1Image((clean_image() * 100).astype(np.int16), AFFINE)
        scaled.header.set_slope_inter(1e37, 0)  # 100s of 1e37: beyond 3.4e38
        nib.save(scaled, case.images[0])
    error = assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "beyond float32's range")
    assert "rescale the image (or the scl_slope of its header)" in error


def test_an_image_of_one_value_throughout_is_said_once(tmp_path):
    case = make_case(tmp_path, "flat", image=np.full(SHAPE, 100.0, np.float32))
    report = check_one_bad_case(tmp_path, case)
    assert not report.errors
    (warning,) = [w for w in report.warnings if "one value throughout" in w]
    assert f"{case.images[0]}: the image holds one value throughout (100), so it holds nothing to learn" in warning
    blank = make_case(tmp_path, "blank", image=np.zeros(SHAPE, np.float32))
    report = check_cases([blank], NUM_CLASSES, crop_foreground=True)  # refused as cropped to nothing: no warning too
    assert len(report.errors) == 1 and not [w for w in report.warnings if "one value throughout" in w]
    assert [w for w in check_cases([blank], NUM_CLASSES).warnings if "one value throughout (0)" in w]
    # A channel left empty (a missing sequence) beside one that holds the scan is no such case, under the crop
    # or not; nor is an image already refused for its NaN voxels
    image = clean_image()
    empty_channel = save(tmp_path / "imagesTr" / "two_1.nii.gz", np.zeros(SHAPE, np.float32))
    two = Case(id="two", images=(save(tmp_path / "imagesTr" / "two_0.nii.gz", image), empty_channel),
               label=case.label)
    for crop in (True, False):
        assert not [w for w in check_cases([two], NUM_CLASSES, crop_foreground=crop).warnings if "one value" in w]
    nan = np.full(SHAPE, np.nan, np.float32)
    nan[0, 0, 0] = 3.0
    report = check_cases([make_case(tmp_path, "nan", image=nan)], NUM_CLASSES)
    assert len(report.errors) == 1 and not [w for w in report.warnings if "one value" in w]


def test_one_voxel_that_makes_the_z_score_on_its_own_is_a_warning(tmp_path):
    """One voxel of 1e5 in tissue of about 200 squeezed the z-scored rest of the case towards 0: it looked
    blank to the network and scored Dice 0, without a word (seventy-eighth session's probe)."""
    image = 200 + 20 * clean_image()
    image[3, 4, 5] = 1e5
    case = make_case(tmp_path, "hot", image=image)
    report = check_one_bad_case(tmp_path, case)
    assert not report.errors
    (warning,) = [w for w in report.warnings if "of the intensity variance" in w]
    assert f"hot (image): {case.images[0]}: one voxel, of 100000, holds 100% of the intensity variance" in warning
    assert "set that voxel to a tissue value in the file" in warning and "near blank to the network" in warning
    # just over half: the rest keeps most of its contrast, and the warning says no more than that
    image[3, 4, 5] = 200 + 554
    (warning,) = [w for w in check_cases([make_case(tmp_path, "half", image=image)], NUM_CLASSES).warnings
                  if "variance" in w]
    assert "holds 59% of the intensity variance" in warning and "0.64 of the contrast" in warning
    assert "near blank" not in warning
    # the CT window clips it instead; a bright voxel that makes a sixth of the spread is left alone
    assert not [w for w in check_cases([case], NUM_CLASSES, normalization="ct").warnings if "variance" in w]
    image[3, 4, 5] = 200 + 20 * 10
    assert not [w for w in check_cases([make_case(tmp_path, "bright", image=image)], NUM_CLASSES).warnings
                if "variance" in w]
    # below the tissue too, and per volume of a 4D file (the channels are z-scored one by one)
    channels = np.stack([200 + 20 * clean_image(1), 200 + 20 * clean_image(2)], axis=-1)
    channels[1, 1, 1, 1] = -1e4
    four_d = Case(id="mr", images=(save(tmp_path / "imagesTr" / "mr.nii.gz", channels),), label=case.label)
    (warning,) = [w for w in check_cases([four_d], NUM_CLASSES, num_channels=2).warnings if "variance" in w]
    assert "(volume 1 of the file): one voxel, of -10000, holds" in warning


def test_a_few_voxels_that_make_the_z_score_together_are_a_warning(tmp_path, monkeypatch):
    """A marker burnt into the scan, eight voxels of 5e4 in tissue of about 200, shares the variance among
    them: none made the spread alone, and the case went on near blank to the network, unsaid."""
    import accelerated_seg.data.image_value_checks as image_value_checks

    shape = (48, 48, 40)
    image = (200 + 20 * np.random.default_rng(0).normal(size=shape)).astype(np.float32)
    label = np.zeros(shape, np.uint8)
    label[20:28, 20:28, 20:28], label[30:34, 30:34, 30:34] = 1, 2
    image[10:12, 10:12, 10:12] = 5e4
    case = make_case(tmp_path, "marker", image=image, label=label)
    warnings = [w for w in check_cases([case], NUM_CLASSES).warnings if "variance" in w]
    assert warnings == [f"marker (image): {case.images[0]}: 8 voxels, of 50000, hold 100% of the intensity variance, "
                        f"so z-score normalization (data.normalization: zscore) divides the image by a spread they "
                        f"make and leaves the rest at most 0.044 of the contrast it would have (near blank to the "
                        f"network: a probe's such case scored Dice 0); set those voxels to a tissue value in the file "
                        f"(a marker, hot pixels), or leave the case out"]
    # A bright tissue (2% of the voxels) is what the z-score is meant to take: not told; nor are the
    # scans whose extreme holds little, which are not read a second time
    image[10:12, 10:12, 10:12] = 200
    image[:, :, :1] = 2000
    assert not [w for w in check_cases([make_case(tmp_path, "fat", image=image, label=label)], NUM_CLASSES).warnings
                if "variance" in w]
    image[:, :, :1] = 200
    read_again = []

    def recording(image):  # a generator: its body runs once it is read
        read_again.append(image)
        yield from ()

    monkeypatch.setattr(image_value_checks, "slabs", recording)
    assert not [w for w in check_cases([make_case(tmp_path, "clean", image=image, label=label)], NUM_CLASSES).warnings
                if "variance" in w]
    assert read_again == []


def test_a_cluster_is_told_with_its_rim_and_up_to_a_thousandth_of_the_voxels():
    """A review's probes: a marker of smooth profile was said to hold 57% (the rest keeping 0.66 of its
    contrast) where the rest kept 0.10, counted from the voxels within half its peak alone; a uniform
    marker of more than about 100 voxels was not told at all, each of its voxels holding under 1%."""
    from accelerated_seg.data.intensity_spread import IntensitySpread, extreme_clusters

    def clusters(volume):
        spread = IntensitySpread()
        spread.see(volume)
        assert not spread.dominant_voxels()
        return extreme_clusters(spread, [volume])

    tissue = (200 + 20 * np.random.default_rng(0).normal(size=(100, 100, 100))).astype(np.float32)
    smooth = tissue.copy()
    smooth[44:57, 44:57, 44:57] += 5e4 * np.exp(-(np.mgrid[-6:7, -6:7, -6:7] ** 2).sum(0) / 4)
    ((_, count, low, high, share),) = clusters(smooth)
    assert share > 0.98 and count < 1000 and tissue.std() / smooth.std() < 0.11
    for side in (5, 8, 10):  # 125, 512 and 1000 voxels: up to a thousandth of the million
        marker = tissue.copy()
        marker[10:10 + side, 10:10 + side, 10:10 + side] = 5e4
        assert [(count, low, high) for _, count, low, high, _ in clusters(marker)] == [(side ** 3, 5e4, 5e4)]
    marker[10:21, 10:21, 10:21] = 5e4  # 1331: more than a thousandth, as a tissue would be
    assert clusters(marker) == []
    fat = tissue.copy()
    fat[:, :, :2] = 1200  # 2% of the voxels, bright: the z-score is meant to take their spread
    assert clusters(fat) == []


def test_the_intensity_sums_gathered_slab_by_slab_are_the_whole_channels():
    from accelerated_seg.data.intensity_spread import IntensitySpread

    volume = np.random.default_rng(0).normal(5, 2, size=(6, 5, 8, 2)).astype(np.float32)
    volume[..., 0][volume[..., 0] < 4] = 0  # a background, which the z-score leaves out
    volume[2, 2, 6, 0] = 400.0
    spread = IntensitySpread()
    for start in (0, 3, 5):
        spread.see(volume[:, :, start:{0: 3, 3: 5, 5: 8}[start]])
    for channel in (0, 1):
        values = volume[..., channel][volume[..., channel] != 0].astype(np.float64)
        assert spread.count[channel] == values.size
        assert np.isclose(spread.total[channel], values.sum())
        assert np.isclose(spread.squares[channel], (values ** 2).sum())
    ((channel, value, share),) = spread.dominant_voxels()
    values = volume[..., 0][volume[..., 0] != 0].astype(np.float64)
    assert (channel, value) == (0, 400.0)
    assert np.isclose(share, (400 - values.mean()) ** 2 / ((values - values.mean()) ** 2).sum())
    # 32-bit integers of about 2e6: their squares' int64 sum wrapped around and hid the hot voxel (a review)
    big = (2_000_000 + np.random.default_rng(1).integers(-2000, 2000, size=(128, 128, 128))).astype(np.int32)
    big[1, 2, 3] = 2_000_000_000
    spread = IntensitySpread()
    spread.see(big)
    ((_, value, share),) = spread.dominant_voxels()
    assert value == 2e9 and share > 0.99


LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 7264\n")


def test_scans_never_fetched_are_told_how_to_fetch_them_not_to_download_again(tmp_path):
    """A dataset cloned without Git LFS holds a text pointer in each scan's place, one installed by DataLad
    without ``datalad get`` a link into .git/annex that leads nowhere, and a download that wrote nothing an
    empty file: they were "corrupt or not a gzip file", "file not found" and "WrapStructError: Binary block
    is wrong size" (hundred-and-fourth session's probe). Each is one line saying what the file is and what
    to do, however many files it holds."""
    pointer, annexed, empty = (make_case(tmp_path, name) for name in ("pointer", "annexed", "empty"))
    pointer.images[0].write_bytes(LFS_POINTER)
    annexed.images[0].unlink()
    annexed.images[0].symlink_to("../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.nii.gz/SHA256E-s7264--4d7a.nii.gz")
    empty.images[0].write_bytes(b"")
    report = check_cases([make_case(tmp_path, "good"), pointer, annexed, empty], NUM_CLASSES)
    assert len(report.errors) == 3, report.errors
    said = dict(zip(("annexed", "empty", "pointer"), sorted(report.errors)))
    assert f"{pointer.images[0]}: a Git LFS pointer" in said["pointer"] and "git lfs pull" in said["pointer"]
    assert f"{annexed.images[0]}: a git-annex link whose content is not fetched" in said["annexed"]
    assert "datalad get" in said["annexed"]
    assert f"{empty.images[0]}: an empty file (0 bytes" in said["empty"] and "re-download" in said["empty"]
    assert not any("gzip" in error or "not found" in error for error in report.errors), report.errors
    for case in (pointer, annexed, empty):  # predict and evaluate read the scans through read_nifti too
        with pytest.raises(DataError, match="LFS pointer|git-annex link|empty file"):
            read_nifti(case.images[0])
    clone = [make_case(tmp_path / "clone", name) for name in ("one", "two", "three", "four")]
    for case in clone:  # a whole clone without LFS: one line
        case.images[0].write_bytes(LFS_POINTER)
    lines = check_cases(clone, NUM_CLASSES).error_lines()
    assert len(lines) == 1 and lines[0].startswith("4 files: ") and "git lfs pull" in lines[0], lines


def test_annexed_scans_unlocked_or_linked_twice_are_told_how_to_fetch_them(tmp_path):
    """git-annex's other two stand-ins of a scan not fetched: an unlocked file holding "/annex/objects/<key>"
    (DataLad on Windows, an adjusted branch) was "corrupt or not a gzip file", and a link of the user's own to
    an annex link "file not found" (hundred-and-fourth session's detection read the first link alone)."""
    unlocked, linked = (make_case(tmp_path, name) for name in ("unlocked", "linked"))
    unlocked.images[0].write_bytes(b"/annex/objects/SHA256E-s7264--4d7a.nii.gz\n")
    annex = tmp_path / "ds" / "sub-01" / "scan.nii.gz"
    annex.parent.mkdir(parents=True)
    annex.symlink_to("../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.nii.gz/SHA256E-s7264--4d7a.nii.gz")
    linked.images[0].unlink()
    linked.images[0].symlink_to(annex)
    report = check_cases([make_case(tmp_path, "good"), unlocked, linked], NUM_CLASSES)
    assert len(report.errors) == 2, report.errors
    for case, kind, error in zip((linked, unlocked), ("link", "pointer file"), sorted(report.errors)):
        assert f"{case.images[0]}: a git-annex {kind} whose content is not fetched" in error, error
        assert "datalad get" in error
    assert file_or_unfetched(linked.images[0])


def test_arrays_saved_channel_first_are_told_to_drop_or_move_the_channel_axis(tmp_path):
    """A label or image saved from a PyTorch or MONAI array, (1, x, y, z) or (C, x, y, z): the label was told it
    held z volumes and to take their argmax over the last axis, the image to split its z "channels"
    (hundred-and-fourth session's probe)."""
    drop = "save the 3D array without it (nibabel: nib.Nifti1Image(array[0], affine))"
    case = make_case(tmp_path, "label_first", label=clean_label()[None])
    assert_single_error(check_one_bad_case(tmp_path, case), case.label, f"shape (1, {', '.join(map(str, SHAPE))}) "
                        "holds a channel axis first, as PyTorch and MONAI arrays are laid out (C, x, y, z)", drop)
    case = make_case(tmp_path, "image_first", image=clean_image()[None])
    assert_single_error(check_one_bad_case(tmp_path, case), case.images[0], "holds a channel axis first", drop)
    case = make_case(tmp_path, "two_first", image=np.stack([clean_image()] * 2))
    assert_single_error(check_one_bad_case(tmp_path, case), "holds 2 channels first", "np.moveaxis(array, 0, -1)")
    case = make_case(tmp_path, "one_hot_first", label=np.stack([clean_label() == value for value in range(3)]
                                                                ).astype(np.uint8))
    assert_single_error(check_one_bad_case(tmp_path, case), "holds 3 channels first", "array.argmax(0)")


def test_a_file_listed_under_its_other_ending_is_told_the_one_that_is_there(tmp_path):
    """A dataset decompressed for speed (x.nii where dataset.json lists x.nii.gz), or the other way round, was
    "file not found; check the path" alone (hundred-and-fourth session's probe); the whole dataset so is one
    line, whose words name no file."""
    cases = [make_case(tmp_path, name) for name in ("one", "two", "three")]
    for case in cases:
        for path in (*case.images, case.label):
            path.with_name(path.name.removesuffix(".gz")).write_bytes(gzip.decompress(path.read_bytes()))
            path.unlink()
    lines = check_cases(cases[:2], NUM_CLASSES).error_lines()
    assert len(lines) == 1 and lines[0].startswith("4 files: ") and lines[0].endswith(
        ": file not found; a file of the same name ending in .nii is there (decompressed?): list that name where "
        "the dataset lists this one, or compress it (gzip)"), lines
    listed_nii = Case(id="three", images=(cases[2].images[0].with_name("three.nii"),),
                      label=cases[2].label.with_name("three.nii"))
    cases[2].images[0].with_name("three.nii").rename(cases[2].images[0])  # the image compressed again, named .nii.gz
    cases[2].images[0].write_bytes(gzip.compress(cases[2].images[0].read_bytes()))
    assert_single_error(check_cases([listed_nii], NUM_CLASSES), f"{listed_nii.images[0]}: file not found; a file "
                        "of the same name ending in .nii.gz is there (compressed?): list that name where the dataset "
                        "lists this one, or decompress it (gunzip)")


def test_a_single_slice_of_channels_last_is_not_told_to_drop_a_channel_axis_first(tmp_path):
    """(1, x, y, 2): one slice of two channels last, in a dataset of one channel. The hundred-and-fourth
    session's channel-first words said to save array[0], which turns the two channels into two slices that pass
    the checks; a last axis of a few channels is no z, so the file is told it holds 2 volumes, as before."""
    image = np.stack([clean_image()[:1]] * 2, axis=-1)
    case = make_case(tmp_path, "slice_channels_last", image=image, label=clean_label()[:1])
    report = check_one_bad_case(tmp_path, case)
    assert_single_error(report, "shape (1, 8, 8, 2) is 4D with 2 volumes")
    assert "channel axis first" not in " ".join(report.errors)


def test_minus_one_labels_are_told_the_way_that_works_the_ignore_label(tmp_path):
    """-1 for unlabelled voxels: the check said to declare the missing classes, and declaring -1 was refused
    with "relabel as background", neither naming the ignore label that leaves them out of loss and metrics."""
    from accelerated_seg.data.labels import parse_labels

    label = clean_label().astype(np.int16)
    label[0, 0, :] = -1
    case = make_case(tmp_path, "sparse", label=label)
    assert_single_error(check_one_bad_case(tmp_path, case), case.label,
                        "give them a value above the classes' and declare it the \"ignore\" label "
                        "(Dataset.from_files: ignore_value=)")
    with pytest.raises(DataError, match="declare it the \"ignore\" label"):
        parse_labels({"0": "background", "1": "a", "-1": "unlabelled"}, "dataset.json")


# What macOS writes as "._<name>" beside a file copied to a disk it does not format (AppleDouble): the
# Decathlon's archives hold one beside every scan of imagesTr/, labelsTr/ and imagesTs/.
APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + b"\x00" * 4000


def test_a_listed_macos_resource_fork_is_told_to_be_left_out_not_to_be_downloaded_again(tmp_path):
    """A dataset.json written from os.listdir(imagesTr) lists the Decathlon's "._" files too; each was
    "corrupt or not a gzip file ...; re-export or re-download this file" (ninety-seventh session's probe),
    which a fresh download repeats. Four of them are one line, naming what they are and what to do."""
    for name in ("case_a", "case_b", "case_c", "case_d"):
        save(tmp_path / "imagesTr" / f"{name}.nii.gz", clean_image())
        save(tmp_path / "labelsTr" / f"{name}.nii.gz", clean_label())
        for folder in ("imagesTr", "labelsTr"):
            (tmp_path / folder / f"._{name}.nii.gz").write_bytes(APPLE_DOUBLE)
    listed = sorted(path.name for path in (tmp_path / "imagesTr").iterdir())
    (tmp_path / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "a", "2": "b"}, "modality": {"0": "CT"},
        "training": [{"image": f"./imagesTr/{name}", "label": f"./labelsTr/{name}"} for name in listed]}))
    report = check_manifest(load_cases(tmp_path))
    fork = ("a macOS resource fork (an AppleDouble \"._\" file: Finder's record of the file of the same name "
            "without \"._\"), not a scan; list the file itself, and remove such files: find <dataset folder> "
            "-name '._*' -delete")
    lines = report.error_lines()
    assert len(lines) == 1 and lines[0].startswith("8 files: ") and lines[0].endswith(f": {fork}"), lines
    assert "re-download" not in lines[0]
    fork_file = tmp_path / "imagesTr" / "._case_a.nii.gz"
    with pytest.raises(DataError, match=f"^{re.escape(str(fork_file))}: a macOS resource fork"):
        read_nifti(fork_file)
    # a real scan that happens to start with "._" is read as any other
    save(tmp_path / "._real.nii.gz", clean_image())
    np.testing.assert_array_equal(np.asanyarray(read_nifti(tmp_path / "._real.nii.gz").dataobj), clean_image())


@pytest.mark.parametrize("setting", ["train.output_dir", "data.cache_dir"])
def test_check_refuses_a_run_or_cache_folder_below_a_file_as_training_does(tmp_path, capsys, setting):
    """A train.output_dir or data.cache_dir below a file: training refuses it at its first look, naming the setting
    and the file; check --config said "0 error(s)" of it (the review r131 of the hundred-and-twenty-eighth
    session). Now refused (2) in training's words."""
    from accelerated_seg.cli import main

    notes = tmp_path / "notes.txt"
    notes.write_text("a file\n")
    folders = {"train.output_dir": tmp_path / "run", "data.cache_dir": tmp_path / "cache", setting: notes / "below"}
    config = tmp_path / "demo.yaml"
    config.write_text(f"data:\n  dataset: synthetic\n  cache_dir: {folders['data.cache_dir']}\n"
                      f"train:\n  output_dir: {folders['train.output_dir']}\n")
    assert main(["check", "--config", str(config)]) == 2
    assert capsys.readouterr().err == (f"error: {setting}={str(notes / 'below')!r}: {notes} is a file, so the folder "
                                       f"cannot be made there; give a folder path\n")
