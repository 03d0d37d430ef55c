"""A name on an output path longer than a file name can be (files.name_too_long), counted as the OS stores it, for
predict's outputs and evaluate's --output alike: predict's own count (str.encode) refused a folder named in
Latin-1 (a byte that is not UTF-8, as Linux passes it) with "'utf-8' codec can't encode character '\\udce9' ...:
surrogates not allowed", a folder it writes into when the check is not there (the hundred-and-twenty-second
session's review, benchmarks/results/review_name_lengths_2026-12-07/)."""

import os

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data.errors import DataError
from accelerated_seg.evaluate_output import check_output_folder
from accelerated_seg.files import NAME_MAX, name_too_long
from accelerated_seg.inference import predict_cases
from test_inference import export


def latin1(folder, name: bytes) -> str:
    """``folder/name``, ``name`` in bytes that are not UTF-8, as Python holds such a path (surrogate-escaped)."""
    return os.fsdecode(os.fsencode(str(folder)) + b"/" + name)


def test_a_name_is_counted_in_the_bytes_the_os_stores():
    assert name_too_long(latin1("/data", b"r\xe9sultats")) is None
    assert name_too_long(latin1("/data", b"\xe9" * 255) + "/case.nii.gz") is None
    assert name_too_long(latin1("/data", b"\xe9" * 256)) == (latin1("", b"\xe9" * 256)[1:], 256)
    assert name_too_long("/data/" + "\u00e9" * 128) == ("\u00e9" * 128, 256)  # UTF-8: two bytes each
    assert name_too_long("/data/" + "e" * NAME_MAX + "/x") is None


def test_predict_writes_into_a_folder_named_in_latin1_and_refuses_such_a_name_too_long(tmp_path):
    """Through predict_cases, the command's work without its printed lines (a terminal whose encoding is strict
    cannot print such a name: see the review's report)."""
    scan = tmp_path / "case.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])), scan)
    model = export(tmp_path / "model")
    output = latin1(tmp_path, b"r\xe9sultats")
    predict_cases(model, [scan], output)
    assert os.listdir(os.fsencode(output)) == [b"case.nii.gz"]
    too_long = latin1(tmp_path, b"\xe9" * 250 + b".nii.gz")
    with pytest.raises(DataError, match=r": '.*' is 257 bytes long, and a file or folder name takes at most 255; "
                                        r"give output a shorter name"):
        predict_cases(model, [scan], too_long)


def test_evaluates_output_named_in_latin1_too_long_is_refused_in_bytes(tmp_path):
    with pytest.raises(DataError, match=r"^--output .*: a name on its path is 300 bytes long \(.{24}\.\.\.\), and a "
                                        r"file or folder name takes at most 255: give a shorter one$"):
        check_output_folder(latin1(tmp_path, b"\xe9" * 300), "--output")
    check_output_folder(latin1(tmp_path, b"r\xe9sultats"), "--output")  # a name that fits: taken


def _path_of(folder, length: int) -> str:
    """A path below ``folder`` of ``length`` bytes, of names of 200 bytes at most."""
    path = str(folder)
    while len(path) < length:
        path += "/" + "d" * min(200, length - len(path) - 1)
    return path


def test_evaluates_output_dir_with_no_room_for_its_predictions_is_refused_before_any_case_is_predicted(
        tiny_dataset, tmp_path):
    """Segmentation.evaluate's check of output_dir counted the two files it writes there, not the maps it writes
    below it, predictions/<case>.nii.gz through a temporary 45 bytes longer: a path that left room for the one and
    not the other predicted the first case and then failed at its write with "[Errno 36] File name too long", its
    earlier evaluation deleted (benchmarks/results/printed_paths_2026-12-07/no_room_for_predictions.py)."""
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset, Segmentation

    manifest = load_msd(tiny_dataset)
    pairs = [(str(case.images[0]), str(case.label)) for case in (*manifest.training, manifest.validation[0])]
    data = Dataset.from_files(pairs[:-1], block_shape=16, n_classes=3, validation_pairs=pairs[-1:], num_workers=0,
                              cache_dir=str(tmp_path / "cache"))
    model = Segmentation.load(export(tmp_path / "model"))
    case = data.manifest.validation[0].id
    needed = len(f"/predictions/.{case}.nii.gz.{'0' * 32}.tmp.nii.gz")
    output_dir = _path_of(tmp_path / "out", 4096 - needed + 10)  # room for summary.json's temporary (51 bytes)
    with pytest.raises(DataError, match=rf"^evaluate: output_dir {output_dir}: the path is {len(output_dir)} bytes "
                                        rf"long, and with predictions/{case}.nii.gz, which evaluate writes in it "
                                        rf"through a temporary name \({len(output_dir) + needed} bytes\) over the "
                                        rf"4095 a path may be: give a shorter one$"):
        model.evaluate(data, output_dir=output_dir)
    assert not (tmp_path / "out").exists()
