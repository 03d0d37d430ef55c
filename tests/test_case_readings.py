"""The units advice of a case read as a whole where none of its files declares mm (``data/case_readings.py``), and
the two smaller leftovers of the same known issue (the hundred-and-thirteenth session, helper h68): each test runs
the lines an error offers first, as a user would, and checks every file is then at its true voxel size."""

import re

import nibabel as nib
import numpy as np

from accelerated_seg.data.case_units import judge_units
from accelerated_seg.data.checks import check_cases
from accelerated_seg.data.grid_agreement import Volume
from accelerated_seg.data.manifest import Case

NUM_CLASSES = 3
SHAPE = (8, 8, 8)
#: The true voxel sizes of every file, in mm
VOXELS = np.array([1.5, 1.5, 2.0])
#: How many of each unit a mm holds: a file's numbers are VOXELS times that of the unit they are written in
PER_MM = {"mm": 1.0, "micron": 1000.0, "meter": 0.001}


def _file(path, unit, numbers_in, label=False, scale=1.0):
    """A file at ``path`` whose header declares ``unit`` ("unknown": none) on VOXELS (times ``scale``) written in
    ``numbers_in``."""
    array = (np.arange(512).reshape(SHAPE) % 3).astype(np.uint8) if label else \
        np.random.default_rng(len(str(path))).normal(size=SHAPE).astype(np.float32)
    image = nib.Nifti1Image(array, np.diag([*(VOXELS * scale * PER_MM[numbers_in]), 1.0]))
    image.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(image, path)
    return path


def _case(tmp_path, kinds):
    """Case "c" of two channels and a label, each (declared unit, unit its numbers are in)."""
    paths = [_file(tmp_path / name, unit, numbers, label=name == "c.nii.gz")
             for name, (unit, numbers) in zip(("c_0000.nii.gz", "c_0001.nii.gz", "c.nii.gz"), kinds)]
    return Case(id="c", images=tuple(paths[:2]), label=paths[2]), paths


def _errors(case):
    return check_cases([case], NUM_CLASSES, num_channels=2).errors


def _first_lines(error):
    """(paths, nibabel line) of each line offered before the first "or": what a user runs first."""
    first = error.split("; or,")[0].split(", or, where")[0]
    return [(re.findall(r"/\S+?\.nii\.gz", paths), code) for paths, code in re.findall(
        r"(?:[Dd]eclare|[Rr]ewrite) ((?:/\S+?\.nii\.gz(?:, | and )?)+).*?\(nibabel: (.*?nib\.save\(.*?path\))\)", first)]


def _nibabel_lines(error):
    return re.findall(r"\(nibabel: (.*?nib\.save\(.*?path\))\)", error)


def _run(lines):
    for paths, code in lines:
        for path in paths:
            exec(code, {"nib": nib, "np": np, "path": path})


def _true_sizes(paths):
    """Whether every file is at VOXELS in mm, as its header declares them."""
    for path in paths:
        image = nib.load(path)
        mm_per = {2: 1.0, 1: 1000.0, 3: 0.001}.get(int(image.header["xyzt_units"]) % 8, 1.0)
        if not np.allclose(nib.affines.voxel_sizes(image.affine) * mm_per, VOXELS, rtol=1e-3):
            return False
    return True


def test_a_case_of_no_unit_micrometres_and_metres_is_read_as_a_whole_one_way_alone(tmp_path):
    """Channel 0 of no unit (mm numbers), channel 1 in micrometres, the label declaring metres on mm numbers: the
    label was told to be rewritten from metres first, 2,000 mm voxels then (the known issue's example, the probe's
    n U M~mm). Read together, the three come to one voxel size one way alone: its lines, each file's own, put every
    file at its true voxel size, and the case passes."""
    case, paths = _case(tmp_path, [("unknown", "mm"), ("micron", "micron"), ("meter", "mm")])
    [error] = _errors(case)
    assert "none of the case's files declares mm" in error, error
    assert "Read together, every file's numbers come to one voxel size one way alone, 1.5 x 1.5 x 2 mm: " in error, error
    assert f"declare {paths[2]} mm, its numbers mm already under a header of metres" in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []


def test_a_case_whose_numbers_come_to_two_voxel_sizes_offers_both_the_nearer_1_mm_first(tmp_path):
    """Channel 0 of no unit, channel 1 declaring micrometres on mm numbers, the label in metres (n U~mm M): every
    file comes to 1.5 mm one way and 0.0015 mm the other, and the numbers cannot tell which; both readings are
    offered, with what to check, the nearer 1 mm first, whose lines make the case pass (channel 1 was told to be
    rewritten from micrometres first, 0.0015 mm voxels)."""
    case, paths = _case(tmp_path, [("unknown", "mm"), ("micron", "mm"), ("meter", "meter")])
    [error] = _errors(case)
    assert "come to one voxel size 2 ways, and which is the case's, the numbers cannot tell: check the voxel size " \
        "the scans were acquired at. Where the voxels are 1.5 x 1.5 x 2 mm: " in error, error
    assert "; or, where they are 0.0015 x 0.0015 x 0.002 mm: " in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []


def test_a_second_file_of_no_unit_is_read_with_the_case_not_left_to_the_grid_or_taken_as_telling_mm(tmp_path):
    """A second file of no unit on micrometre numbers was named in no line: beside channel 0 of no unit in mm and a
    label in micrometres, left to the grid's check (two errors, n nU U); beside channel 0 with its numbers and a
    label declaring metres on mm numbers, taken as telling the numbers of none are mm (nU nU M~mm: every file 2,000
    mm once the lines were run). Read as a whole, each is told its own line, and the case passes."""
    for name, kinds in (("a", [("unknown", "mm"), ("unknown", "micron"), ("micron", "micron")]),
                        ("b", [("unknown", "micron"), ("unknown", "micron"), ("meter", "mm")])):
        case, paths = _case(tmp_path / name, kinds)
        [error] = _errors(case)
        lines = _first_lines(error)
        assert any(str(paths[1]) in named for named, _ in lines), error
        _run(lines)
        assert _true_sizes(paths) and _errors(case) == [], (name, error)


def test_a_label_declaring_micrometres_on_numbers_near_the_images_is_told_to_be_declared_first(tmp_path):
    """A label declaring micrometres on 0.75 mm numbers beside images in mm of 1.5 mm was told "Rewrite it in mm"
    first, 0.00075 mm voxels then: its numbers as they are come nearer the images', so declaring it mm leads, the
    rewrite after; its grid is then judged as such (voxels that differ indeed: resample the label). A label on
    micrometre numbers is still told the rewrite first."""
    image = _file(tmp_path / "c_0000.nii.gz", "mm", "mm")
    label = _file(tmp_path / "c.nii.gz", "micron", "mm", label=True, scale=0.5)
    case = Case(id="c", images=(image,), label=label)
    [error] = check_cases([case], NUM_CLASSES).errors
    assert "Declare it mm (nibabel: " in error and "; or, where its numbers are micrometres indeed, rewrite it in " \
        "mm (nibabel: " in error, error
    _run([([str(label)], _nibabel_lines(error)[0])])
    [after] = check_cases([case], NUM_CLASSES).errors
    assert "resample the label onto the image grid" in after and "xyzt_units" not in after, after

    written = _file(tmp_path / "d" / "d.nii.gz", "micron", "micron", label=True)
    [error] = check_cases([Case(id="d", images=(image,), label=written)], NUM_CLASSES).errors
    assert "Rewrite it in mm (nibabel: " in error, error


def test_files_of_one_unit_on_different_numbers_are_each_told_their_own_line(tmp_path):
    """Channel 1 declaring micrometres on micrometre numbers and a label declaring them on mm numbers, beside a
    channel 0 in mm (mm U U~mm), were one error telling both "Rewrite each in mm", the label 0.0015 mm voxels then:
    each is told its own line, channel 1 its rewrite, the label its declaring line, which run make the case pass."""
    case, paths = _case(tmp_path, [("mm", "mm"), ("micron", "micron"), ("micron", "mm")])
    errors = _errors(case)
    assert len(errors) == 2 and "Rewrite each" not in "".join(errors), errors
    rewrite, declare = errors
    assert rewrite.startswith(f"c (image channels): {paths[1]}: its header declares") and "Rewrite it in mm" in rewrite
    assert declare.startswith(f"c (label vs image): {paths[2]}: its header declares") and \
        f"Where they are mm (voxels of 1.5 x 1.5 x 2 mm), declare {paths[2]} mm" in declare, declare
    _run([([str(paths[1])], _nibabel_lines(rewrite)[0])])
    _run(_first_lines(declare))
    assert _true_sizes(paths) and _errors(case) == []


def test_a_second_file_of_no_unit_on_the_first_ones_numbers_tells_nothing_and_is_named_with_it(tmp_path):
    """Two channels of no unit on the same numbers beside a label in metres 1,000 times finer (n n M): the second
    was taken as telling that the numbers of none are mm ("Declare …_0000.nii.gz in mm, as its numbers are"), and was
    named in no line, so the other reading, offered after it, would have left it off. A file of no unit is read as
    mm whatever its numbers are in, so it tells nothing: both readings are offered, with what to check, each naming
    both channels, the one nearer 1 mm first, whose lines make the case pass."""
    case, paths = _case(tmp_path, [("unknown", "mm"), ("unknown", "mm"), ("meter", "meter")])
    [error] = _errors(case)
    assert "as its numbers are" not in error and f"Which unit the numbers of {paths[0]} and {paths[1]} are in, " \
        "nothing else in the case tells: check the voxel size the scan was acquired at. " in error, error
    assert f"rewrite {paths[0]} and {paths[1]} from micrometres" in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []


def test_a_case_of_micrometres_and_metres_whose_label_holds_mm_numbers_is_read_as_a_whole(tmp_path):
    """Channel 0 in micrometres, channel 1 in metres and a label declaring metres on mm numbers (the probe's
    U M M~mm), no file of no unit: each file declaring metres was judged against channel 0 alone, the label told
    "Rewrite it in micrometres" first (1,500 mm voxels then) and "declare it so" after (0.0015 mm), neither its true
    size; the probe, which runs no "it" line, counted it "no line". Read as a whole, every file comes to its voxel
    size one way alone, the label declared mm; likewise a label of mm numbers under metres beside a channel in
    micrometres (U M~mm), which comes to two sizes, its true one first."""
    case, paths = _case(tmp_path / "a", [("micron", "micron"), ("meter", "meter"), ("meter", "mm")])
    [error] = _errors(case)
    assert "Read together, every file's numbers come to one voxel size one way alone, 1.5 x 1.5 x 2 mm: " in error, error
    assert f"declare {paths[2]} mm, its numbers mm already under a header of metres" in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []

    image = _file(tmp_path / "b" / "b_0000.nii.gz", "micron", "micron")
    label = _file(tmp_path / "b" / "b.nii.gz", "meter", "mm", label=True)
    one_channel = Case(id="b", images=(image,), label=label)
    [error] = check_cases([one_channel], NUM_CLASSES).errors
    assert "come to one voxel size 2 ways" in error and "Where the voxels are 1.5 x 1.5 x 2 mm: " in error, error
    _run(_first_lines(error))
    assert _true_sizes([image, label]) and check_cases([one_channel], NUM_CLASSES).errors == []


def test_files_on_one_numbers_under_micrometres_and_metres_are_not_read_one_way_alone(tmp_path):
    """Channel 0 of no unit, channel 1 declaring micrometres and the label metres, all on the same mm numbers (n U~mm
    M~mm): the case was said to come to one voxel size "one way alone", every file declared mm, though the label's
    unit alone wrong (its numbers micrometres, channel 0's too) puts every file at 0.0015 mm as well: a header
    declaring metres was read in metres or mm only. Both are offered, the nearer 1 mm first, the label's line for
    the other naming the unit it declares."""
    case, paths = _case(tmp_path, [("unknown", "mm"), ("micron", "mm"), ("meter", "mm")])
    [error] = _errors(case)
    assert "one way alone" not in error and "come to one voxel size 2 ways" in error, error
    assert "Where the voxels are 1.5 x 1.5 x 2 mm: " in error and "; or, where they are 0.0015 x 0.0015 x 0.002 mm: " \
        in error, error
    assert f"rewrite {paths[2]} from micrometres, its numbers micrometres under a header of metres" in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []


def test_a_case_read_as_a_whole_says_how_many_times_apart_its_units_put_its_files(tmp_path):
    """Read as they are, micrometres and metres put files 1,000,000 times apart, and no unit (read as mm) 1,000
    times from either: the words said "1,000 times" whatever the units were (the hundred-and-thirteenth session's
    leftovers, h71)."""
    saying = {"1,000,000 times": [("micron", "micron"), ("meter", "meter"), ("meter", "mm")],
              "1,000 or 1,000,000 times": [("unknown", "mm"), ("micron", "micron"), ("meter", "mm")],
              "1,000 times": [("micron", "micron"), ("unknown", "micron"), ("unknown", "mm")]}
    for times, kinds in saying.items():
        case, _ = _case(tmp_path / times.replace(" ", "_"), kinds)
        [error] = _errors(case)
        assert f"would scale a file whose unit is wrong {times} against the others. Read together" in error, error


def test_a_case_s_units_are_counted_as_a_person_writes_them(tmp_path):
    """Channel 0 in micrometres beside two files of no unit, one on micrometre numbers, read as a whole: the heading
    said "declare micrometres and 2 none" (the hundred-and-thirteenth session's leftovers, h71); and a mix of two
    units beside two files of none (three channels), "and 2 none"."""
    case, _ = _case(tmp_path, [("micron", "micron"), ("unknown", "micron"), ("unknown", "mm")])
    [error] = _errors(case)
    assert "none of the case's files declares mm for its voxel sizes (xyzt_units), one declaring micrometres and two " \
        "declaring no unit: " in error, error
    files = [_file(tmp_path / "mix" / f"c_000{number}.nii.gz", unit, "mm")
             for number, unit in enumerate(("unknown", "micron", "unknown", "mm"))]
    volumes = [Volume(f"image channel {number}", path, nib.load(path)) for number, path in enumerate(files)]
    [(_, said)] = judge_units(volumes, "one spacing", "resample the channels onto one grid").errors
    assert "(xyzt_units), and two none: " in said, said


def test_a_file_of_channel_0_s_unit_beside_one_in_mm_is_read_with_the_case_not_left_to_its_grid(tmp_path):
    """Channel 0 in micrometres, channel 1 in mm and a label declaring micrometres on mm numbers (the probe's U mm
    U~mm), and channel 0 declaring micrometres on mm numbers beside channel 1 in micrometres and a label in mm (U~mm
    U mm): the file in channel 0's unit was judged on its grid alone, and the first line put the file in mm in
    channel 0's unit (`Rewrite it in micrometres`, `Declare it micrometres`), leaving a file 0.002 mm (the
    hundred-and-thirteenth session's leftovers, h71). Read together, the file in mm taken at its word, the first
    lines put every file at its true size and the case passes."""
    for name, kinds in {"U_mm_U-mm": [("micron", "micron"), ("mm", "mm"), ("micron", "mm")],
                        "U-mm_U_mm": [("micron", "mm"), ("micron", "micron"), ("mm", "mm")]}.items():
        case, paths = _case(tmp_path / name, kinds)
        [error] = _errors(case)
        in_mm = paths[1] if kinds[1][0] == "mm" else paths[2]
        assert f"Read together, {in_mm} taken at its word (mm), every file's numbers come to one voxel size one way " \
            "alone, 1.5 x 1.5 x 2 mm: " in error, error
        _run(_first_lines(error))
        assert _true_sizes(paths) and not _errors(case), error


def test_a_file_in_mm_whose_own_unit_is_wrong_is_told_the_other_way_first_where_it_is_nearer_1_mm(tmp_path):
    """Channel 0 in micrometres, channel 1 declaring mm on micrometre numbers (a header declaring mm whatever the
    numbers, as ITK writes), the label declaring micrometres on mm numbers: the case, read with channel 1 taken at its
    word, came to 1500 x 1500 x 2000 mm "one way alone", and its lines, run, left every file 1,000 times off with
    nothing more said (the review of h71). The other way, channel 1's unit wrong, was then offered after it; as it
    comes nearer 1 mm, as scans' voxels are, it is offered first now (the session's end review), and the first lines
    put every file at its true size."""
    case, paths = _case(tmp_path, [("micron", "micron"), ("mm", "micron"), ("micron", "mm")])
    [error] = _errors(case)
    first = f"Read together, where the unit of {paths[1]} is wrong itself (a header may declare mm whatever the " \
        "numbers are in: check the voxel size the scans were acquired at), every file's numbers come to 1.5 x 1.5 x " \
        "2 mm: "
    assert first in error, error
    assert f"; or, {paths[1]} taken at its word (mm), to 1500 x 1500 x 2000 mm: " in error, error
    _run(_first_lines(error))
    assert _true_sizes(paths) and _errors(case) == []
