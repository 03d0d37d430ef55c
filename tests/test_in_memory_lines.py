"""Segmentation.predict's refusals of images given in memory say their nibabel lines of the images, not of the
temporary files predict saved them to (``in_memory_lines``)."""

import re

import nibabel as nib
import numpy as np
import pytest
import torch

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.header_units import declare_code, rewrite_code
from accelerated_seg.estimator import Segmentation
from accelerated_seg.exported_model import write_export
from accelerated_seg.in_memory_lines import said_in_memory
from accelerated_seg.models import build_from_spec, model_spec

PATCH = [16, 16, 16]


def tiny_model(folder, channels: int) -> Segmentation:
    """An exported two-class UNet of random weights at 2.5 mm, its training cases in mm, loaded for predict."""
    spec = model_spec("unet", channels, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a"}, "in_channels": channels,
                                           "channels": {str(c): f"C{c}" for c in range(channels)}, "num_classes": 2,
                                           "patch_size": PATCH, "spacing": [2.5] * 3, "spacing_unit": "mm"}, folder)
    return Segmentation.load(folder)


def image_in(unit: str, numbers_per_mm: float) -> nib.Nifti1Image:
    """A 20^3 image of 2 mm voxels, its numbers ``numbers_per_mm`` of a mm each, its header declaring ``unit``."""
    voxels = (np.random.default_rng(0).random((20, 20, 20)) + 1).astype(np.float32)
    image = nib.Nifti1Image(voxels, np.diag([2.0 * numbers_per_mm] * 3 + [1.0]))
    image.header.set_xyzt_units(unit)
    return image


def test_a_refusal_of_images_in_memory_offers_lines_of_the_images_not_of_a_temporary_path(tmp_path):
    """Two images whose units disagree (channel 1 declaring micrometres on mm numbers) were told the lines
    `img = nib.load(path, mmap=False); ...; nib.save(img, path)` of "image 1 of the list", a path of predict's
    temporary folder, gone by then, that was never the user's (until the hundred-and-fifteenth session, helper h78).
    The lines are said of the image itself, and, run on it, make the case segmented, the images given left as
    they were."""
    model = tiny_model(tmp_path / "model", 2)
    images = [image_in("mm", 1.0), image_in("micron", 1.0)]
    with pytest.raises(DataError) as refused:
        model.predict(images)
    said = str(refused.value)
    assert "image 0 of the list (channel 0, C0): mm; image 1 of the list (channel 1, C1): micrometres" in said, said
    assert "path" not in said and "/tmp" not in said and "input_000" not in said, said
    line = re.search(r"declare image 1 of the list mm, its numbers mm already under a header of micrometres "
                     r"\(nibabel, img being each image named, the new img given to predict again: "
                     r"(img = .*?\['mm'\])\)", said)
    assert line, said
    scope = {"nib": nib, "np": np, "img": images[1]}
    exec(line.group(1), scope)
    assert images[1].header.get_xyzt_units()[0] == "micron"  # the image given is left as it was
    labels = model.predict([images[0], scope["img"]])
    assert labels.shape == images[0].shape


def test_lines_that_name_no_path_are_left_as_they_are():
    said = "rewrite it in mm (nibabel: img = nib.load(other, mmap=False); x; nib.save(img, other))"
    assert said_in_memory(said, "img being each image named") == said


def test_every_file_line_the_unit_checks_write_is_said_of_img_and_runs_on_the_image():
    """The lines ``header_units`` writes (a rewrite and a declaration), said in memory, name no ``path`` and, run on an
    image, leave it as it was and make the new one as the file's line would."""
    for code, scale in ((rewrite_code("0.001"), 0.001), (declare_code("mm"), 1.0)):
        said = said_in_memory(f"rewrite the image (nibabel: {code})", "img being each image named")
        assert "path" not in said and said.startswith("rewrite the image (nibabel, img being each image named, "), said
        given = image_in("micron", 1000.0)
        scope = {"nib": nib, "np": np, "img": given}
        exec(said.split("given to predict again: ", 1)[1][:-1], scope)
        assert given.header.get_xyzt_units()[0] == "micron" and scope["img"].header.get_xyzt_units()[0] == "mm"
        np.testing.assert_allclose(nib.affines.voxel_sizes(scope["img"].affine), [2000.0 * scale] * 3)


def test_the_far_finer_refusals_line_from_metres_is_said_of_img_and_runs_on_the_image(tmp_path):
    """An image whose numbers are metres (no unit) for a model in mm is refused as far finer than its spacing, its line
    written "(nibabel, from metres: img = nib.load(path, ...); ...; nib.save(..., path))": the pattern matched
    "nibabel: " alone, and predict's temporary path was still offered (the review of h78). Said of img, and, run on
    the image, it makes the case segmented at its voxel size."""
    model = tiny_model(tmp_path / "model", 1)
    image = image_in("unknown", 0.001)
    with pytest.raises(DataError) as refused:
        model.predict(image)
    said = str(refused.value)
    assert "times finer than the model's spacing" in said and "path" not in said and "input_000" not in said, said
    line = re.search(r"Rewrite its geometry in mm \(nibabel, from metres, img being each image named, the new img "
                     r"given to predict again: (img = .*?\['mm'\])\)", said)
    assert line, said
    scope = {"nib": nib, "np": np, "img": image}
    exec(line.group(1), scope)
    np.testing.assert_allclose(nib.affines.voxel_sizes(scope["img"].affine), [2.0] * 3)
    assert model.predict(scope["img"]).shape == image.shape


@pytest.mark.parametrize("numbers_per_mm, told", [(1000.0, r"from micrometres"), (0.001, r"from metres")])
def test_an_arrays_refusal_offers_the_affine_to_give_and_that_affine_predicts_it(tmp_path, numbers_per_mm, told):
    """An array whose affine= holds micrometres (2 mm voxels written 2000) or metres (0.002) for a model in mm: its
    line was to make a nibabel image of it, `img = nib.Nifti1Image(each array named, affine)`, rewrite that and give
    the image instead (until the hundred-and-sixteenth session, helper h84), where an array's geometry is the affine=
    given. The line says that affine; given, the array is segmented at its voxel size."""
    model = tiny_model(tmp_path / "model", 1)
    array = (np.random.default_rng(0).random((20, 20, 20)) + 1).astype(np.float32)
    affine = np.diag([2.0 * numbers_per_mm] * 3 + [1.0])
    with pytest.raises(DataError) as refused:
        model.predict(array, affine=affine)
    said = str(refused.value)
    assert "Nifti1Image(each array named" not in said.split("; or,")[0] and "path" not in said, said
    line = re.search(told + r".*?the array given to predict again with affine=(np\.diag\(\[[^\]]*\]\) @ affine), "
                     r"affine the one given\)", said)
    assert line, said
    given = eval(line.group(1), {"np": np, "affine": affine})
    np.testing.assert_allclose(nib.affines.voxel_sizes(given), [2.0] * 3)
    assert model.predict(array, affine=given).shape == array.shape
