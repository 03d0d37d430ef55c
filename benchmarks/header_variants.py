"""Predict one scan stored under many NIfTI headers that describe the same voxels in the world, and
score each prediction where the scan's label lies: a flipped, transposed, shifted or rescaled
prediction shows as a Dice below the plain copy's.

    accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml \
        --train.output_dir=/tmp/demo
    python benchmarks/header_variants.py --model /tmp/demo/best_model \
        --image /tmp/demo/synthetic_data/imagesTr/case_022.nii.gz \
        --label /tmp/demo/synthetic_data/labelsTr/case_022.nii.gz \
        --work /tmp/header_variants --output benchmarks/results/header_variants_2cpu.json --note "..."

The variants: the voxel axes reordered or flipped (with the affine that undoes it), the placement in
the qform or the sform alone, the two with different codes, another voxel type (with a scale and
offset), a trailing axis, a negative pixdim, a stale qform or pixdim beside the sform (which
everything here reads: preprocess.NiftiReader), and no orientation at all (nibabel guesses LAS, so
the network sees the anatomy mirrored or with its axes swapped; scored voxel for voxel);
then two that resample the scan itself, so a lower Dice is expected (an oblique grid, 0.8 x 0.8 x 3
mm), and two single slices of it, scored beside the whole scan's prediction on the same slice. Each
prediction is resampled (nearest) onto the label's grid and scored per class. Written for
the sixty-eighth session, after MONAI's reader had read the stale-qform scans at pixdim's size.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import nibabel as nib
import numpy as np
from nibabel.orientations import axcodes2ornt, inv_ornt_aff, io_orientation, ornt_transform
from nibabel.processing import resample_from_to

from accelerated_seg.benchmark import machine_info
from accelerated_seg.files import check_script_output, write_text_atomically


@dataclass
class Variant:
    """One way of storing the scan, and how to score its prediction."""

    image: nib.Nifti1Image
    resampled: bool = False  # its voxels were resampled from the scan's: a lower Dice is expected
    label_voxels: np.ndarray | None = None  # score voxel for voxel against these (its place in the world is a guess)
    region: tuple | None = None  # the part of the scan it holds: the whole scan's prediction is scored there too


def with_placement(voxels: np.ndarray, affine: np.ndarray, dtype=np.float32) -> nib.Nifti1Image:
    """A NIfTI image whose qform and sform (both code 1) hold ``affine``."""
    image = nib.Nifti1Image(np.asarray(voxels).astype(dtype), affine)
    image.set_qform(affine, code=1)
    image.set_sform(affine, code=1)
    return image


def reoriented(image: nib.Nifti1Image, axcodes: str) -> tuple[np.ndarray, np.ndarray]:
    """The voxels of ``image`` laid out along ``axcodes``, and the affine that keeps them in place."""
    transform = ornt_transform(io_orientation(image.affine), axcodes2ornt(axcodes))
    voxels = nib.orientations.apply_orientation(np.asanyarray(image.dataobj), transform)
    return voxels, image.affine @ inv_ornt_aff(transform, image.shape)


def rotation(axis: int, degrees: float) -> np.ndarray:
    turn, (i, j) = np.deg2rad(degrees), [k for k in range(3) if k != axis]
    matrix = np.eye(4)
    matrix[i, i] = matrix[j, j] = np.cos(turn)
    matrix[i, j], matrix[j, i] = -np.sin(turn), np.sin(turn)
    return matrix


def variants(image: nib.Nifti1Image, label: nib.Nifti1Image) -> dict[str, Variant]:
    """name -> Variant; the first is the scan as stored."""
    voxels, affine = np.asanyarray(image.dataobj).astype(np.float32), image.affine
    out = {"as stored (" + "".join(nib.aff2axcodes(affine)) + ")": Variant(with_placement(voxels, affine))}
    for axcodes in ("LPS", "LAS", "PIR", "ASL", "SLP"):
        out[axcodes] = Variant(with_placement(*reoriented(image, axcodes)))
    lps_voxels, lps = reoriented(image, "LPS")

    def header(name: str, edit, voxels=lps_voxels, affine=lps, dtype=np.float32):
        variant = with_placement(voxels, affine, dtype)
        edit(variant.header)
        out[name] = Variant(variant)

    header("LPS, qform only", lambda h: h.set_sform(None, code=0))
    header("LPS, sform only", lambda h: h.set_qform(None, code=0))
    header("RAI, qform only", lambda h: h.set_sform(None, code=0), *reoriented(image, "RAI"))
    header("LPS sform (code 2), RAS qform (code 1)", lambda h: (h.set_sform(lps, code=2), h.set_qform(affine, code=1)))
    header("LPS, stale 1 mm qform beside the sform", lambda h: h.set_qform(np.eye(4), code=1))
    header("LPS, sform only, pixdim 1 mm", lambda h: (h.set_qform(None, code=0), h.__setitem__("pixdim", [1] * 8)))
    zooms = [float(size) for size in image.header.get_zooms()[:3]]
    negative = [1.0, -zooms[0], -zooms[1], zooms[2], 1.0, 1.0, 1.0, 1.0]  # the sizes, two of them negated
    header("LPS, negative pixdim", lambda h: (h.set_qform(None, code=0), h.__setitem__("pixdim", negative)))
    scaled = with_placement(np.round((lps_voxels + 5.0) / 0.01), lps, np.int16)
    scaled.header.set_slope_inter(0.01, -5.0)
    out["LPS, int16 with scl_slope 0.01, scl_inter -5"] = Variant(scaled)
    out["int16"] = Variant(with_placement(np.round(voxels * 100), affine, np.int16))
    out["float64"] = Variant(with_placement(voxels, affine, np.float64))
    out["trailing axis (x, y, z, 1)"] = Variant(with_placement(voxels[..., None], affine))
    for axcodes in ("", "LPS", "SLP", "PIR"):  # nibabel guesses LAS for each: mirrored, or axes swapped too
        laid_out, _ = reoriented(image, axcodes) if axcodes else (voxels, None)
        bare = nib.Nifti1Image(np.asarray(laid_out, dtype=np.float32), None)
        bare.header.set_qform(None, code=0)
        bare.header.set_sform(None, code=0)
        bare.header.set_zooms(image.header.get_zooms()[:3])
        labels = reoriented(label, axcodes)[0] if axcodes else np.asanyarray(label.dataobj)
        out[f"{axcodes or 'as stored'} voxels, no orientation (codes 0)"] = Variant(bare, label_voxels=labels)
    # Resampled from the scan: the same world volume on another grid
    centre = affine @ np.array([*(np.array(image.shape[:3]) / 2), 1.0])
    to_centre, back = np.eye(4), np.eye(4)
    to_centre[:3, 3], back[:3, 3] = -centre[:3], centre[:3]
    oblique = back @ rotation(2, 12) @ rotation(0, 7) @ to_centre @ affine
    out["oblique (12 and 7 degrees)"] = Variant(with_placement(resample_from_to(image, (image.shape, oblique), order=1)
                                                               .get_fdata(dtype=np.float32), oblique), resampled=True)
    sizes = np.array([0.8, 0.8, 3.0])
    spacing = nib.affines.voxel_sizes(affine)
    thin = affine.copy()
    thin[:3, :3] = affine[:3, :3] / spacing * sizes
    thin[:3, 3] = affine[:3, 3] + affine[:3, :3] / spacing @ ((sizes - spacing) / 2)  # the same corner
    shape = tuple(int(round(n * s / t)) for n, s, t in zip(image.shape[:3], spacing, sizes))
    out["0.8 x 0.8 x 3 mm"] = Variant(with_placement(resample_from_to(image, (shape, thin), order=1)
                                                     .get_fdata(dtype=np.float32), thin), resampled=True)
    # One slice alone, in place: a 3D network without the context above and below
    for axis, name in ((2, "the middle axial slice alone"), (0, "the middle sagittal slice alone")):
        region = tuple(slice(image.shape[axis] // 2, image.shape[axis] // 2 + 1) if i == axis else slice(None)
                       for i in range(3))
        out[name] = Variant(image.slicer[region], label_voxels=np.asanyarray(label.dataobj)[region], region=region)
    return out


def world_dice(prediction: Path, label: nib.Nifti1Image, classes: list[int]) -> dict[str, float]:
    """Dice per class of ``prediction`` resampled (nearest) onto the label's grid."""
    predicted = nib.load(prediction)
    on_label = np.asanyarray(resample_from_to(
        nib.Nifti1Image(np.asanyarray(predicted.dataobj).astype(np.float32).reshape(predicted.shape[:3]),
                        predicted.affine), label, order=0).dataobj).astype(int)
    reference = np.asanyarray(label.dataobj).astype(int)
    return {str(value): dice(on_label == value, reference == value) for value in classes}


def dice(predicted: np.ndarray, reference: np.ndarray) -> float | None:
    """None where neither holds the class (undefined)."""
    total = int(predicted.sum() + reference.sum())
    return round(float(2 * (predicted & reference).sum() / total), 4) if total else None


def voxel_dice(prediction: Path, reference: np.ndarray, classes: list[int]) -> dict[str, float]:
    """Dice per class voxel for voxel against the label laid out as the scan: for a scan without
    orientation, whose place in the world is nibabel's guess."""
    reference = np.asarray(reference).astype(int)
    predicted = np.asanyarray(nib.load(prediction).dataobj).astype(int).reshape(reference.shape)
    return {str(value): dice(predicted == value, reference == value) for value in classes}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="an exported model folder (config.json + model.safetensors)")
    parser.add_argument("--image", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--work", required=True, help="an empty folder for the variants and their predictions")
    parser.add_argument("--output", required=True)
    parser.add_argument("--note", default="",
                        help="recorded with the result: how the model was trained, which code ran")
    args = parser.parse_args(argv)
    check_script_output(parser, args.output, result_key="what", kind=__doc__.split("\n\n")[0])

    from accelerated_seg.inference import predict_file

    work = Path(args.work)
    if work.exists() and any(work.iterdir()):
        parser.error(f"--work {work} is not empty")
    image, label = nib.load(args.image), nib.load(args.label)
    classes = sorted(int(v) for v in np.unique(np.asanyarray(label.dataobj)) if v != 0)
    rows, whole = [], None
    for index, (name, variant) in enumerate(variants(image, label).items()):
        (work / "scans").mkdir(parents=True, exist_ok=True)
        scan = work / "scans" / f"variant_{index:02d}.nii.gz"
        nib.save(variant.image, scan)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            written = predict_file(args.model, [scan], work / "predictions" / scan.name)
        whole = whole or written  # the scan as stored comes first
        written_image, stored = nib.load(written), nib.load(scan)
        row = {
            "variant": name, "file": scan.name, "resampled": variant.resampled,
            "dice": world_dice(written, label, classes) if variant.label_voxels is None
            else voxel_dice(written, variant.label_voxels, classes),
            "scored": "resampled onto the label's grid" if variant.label_voxels is None else "voxel for voxel",
            "same_shape_and_affine_as_input": written_image.shape[:3] == stored.shape[:3]
            and bool(np.allclose(written_image.affine, stored.affine, atol=1e-5)),
            "warnings": sorted({str(w.message).split(": ", 1)[1][:80] for w in seen
                                if "accelerated_seg" in w.filename}),
        }
        if variant.region is not None:
            whole_there = nib.Nifti1Image(np.asanyarray(nib.load(whole).dataobj)[variant.region], stored.affine)
            nib.save(whole_there, work / "predictions" / f"whole_scan_at_{scan.name}")
            row["dice_of_the_whole_scans_prediction_there"] = voxel_dice(
                work / "predictions" / f"whole_scan_at_{scan.name}", variant.label_voxels, classes)
        rows.append(row)
        print(f"{name:48s} Dice {row['dice']}  {'; '.join(row['warnings'])}", flush=True)
    record = {"what": __doc__.split("\n\n")[0], "command": " ".join([Path(sys.executable).name, *sys.argv]),
              "note": args.note, "model": args.model, "image": args.image, "label": args.label,
              "machine": machine_info(), "runs": rows}
    write_text_atomically(args.output, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
