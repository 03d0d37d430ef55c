"""``data.header_units``: the unit a NIfTI header declares its voxel sizes in, and the words said of units apart."""

from __future__ import annotations

import doctest
import itertools

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data import header_units
from accelerated_seg.data.header_units import times_apart


def _declaring(unit: str | int):
    image = nib.Nifti1Image(np.zeros((2, 2, 2), np.float32), np.eye(4))
    if isinstance(unit, int):  # a spatial code NIfTI gives no meaning (4 to 7): read as no unit, so as mm
        image.header["xyzt_units"] = unit
    else:
        image.header.set_xyzt_units(unit)
    return image


def test_the_examples_of_times_apart_run():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(times_apart, "times_apart", globs=vars(header_units)):
        runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=5)


@pytest.mark.parametrize("units, named", [
    (["mm"], "mm"), (["mm", "unknown", "mm"], "mm, none"), (["micron", "micron"], "micrometres"),
    (["meter"], "metres"), (["unknown", 5], "none, an unknown unit code 5"), ([], "no file")])
def test_files_read_in_one_unit_are_refused_not_said_to_be_blank_times_apart(units, named):
    """Files all read in one unit (mm and no unit are one) are no times apart: the words were " times", the number
    left blank (judged unreachable from case_units and case_readings, which pass a mix of two units at least)."""
    with pytest.raises(ValueError, match=f"two units at least \\(no unit counts as mm\\), not of one: {named}$"):
        times_apart([_declaring(unit) for unit in units])


def test_files_of_two_units_or_three_are_said_how_many_times_apart():
    assert times_apart([_declaring("mm"), _declaring(6), _declaring("meter")]) == "1,000 times"
    assert times_apart([_declaring("micron"), _declaring("meter")]) == "1,000,000 times"
    assert times_apart([_declaring("unknown"), _declaring("micron"), _declaring("meter")]) == "1,000 or 1,000,000 times"


def test_no_case_of_two_or_three_files_brings_times_apart_files_of_one_unit(monkeypatch):
    """times_apart's refusal of one unit is a traceback where a refusal's words were to be: it rests on its callers
    (case_units' mixed-units words, case_readings' whole-case words) passing two units at least. Every case of two
    and three files, each declaring mm, micrometres, metres or none on voxels of 1, 0.001 or 1,000, judged as check
    and train do (a spacing to resample to) and as predict does (``nearest``): 3,744 judgements, none refused,
    times_apart reached by both callers (the review of h73: the refusal had been judged unreachable by reading)."""
    from pathlib import Path

    from accelerated_seg.data import case_readings, case_units
    from accelerated_seg.data.case_units import judge_units
    from accelerated_seg.data.grid_agreement import Volume

    asked_by = []
    for caller in (case_units, case_readings):
        monkeypatch.setattr(caller, "times_apart", lambda images, caller=caller: (
            asked_by.append(caller.__name__), times_apart(images))[1])

    def image(unit: str, size: float):
        made = nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.diag([size, size, size, 1.0]))
        made.header.set_xyzt_units(unit)
        return made

    judged = 0
    for files in (2, 3):
        for units in itertools.product(["mm", "micron", "meter", "unknown"], repeat=files):
            for sizes in itertools.product([1.0, 0.001, 1000.0], repeat=files):
                volumes = [Volume("label" if at == files - 1 else f"image channel {at}", Path(f"f{at}.nii.gz"),
                                  image(unit, size)) for at, (unit, size) in enumerate(zip(units, sizes))]
                for nearest in (None, lambda image: 0.0):
                    judge_units(volumes, "1 mm", "resample", "resample", nearest)
                    judged += 1
    assert judged == 3744
    assert set(asked_by) == {"accelerated_seg.data.case_units", "accelerated_seg.data.case_readings"}
