"""docs/inference.md's first part (its intro, "## Predict" and its sections up to "### A damaged export") run as a
reader runs it: the intro's two commands as the page writes them, after a tiny demo trained once for the module, and
what the page says of a file of every channel named as one channel, and of a hand-edited network class. The
hundred-and-twenty-fifth session's helper h136 walked these pages as a new user
(benchmarks/results/fourth_new_user_walk_2026-12-07/walk.md); the two faults it found are the last two tests."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.inference_inputs import group_cases

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "inference.md").read_text(encoding="utf-8")
SAID = " ".join(PAGE.split())  # the page's prose with its line breaks as spaces


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The README's demo scaled down as configuration.md allows (6 phantoms at 3 mm, a 16^3 patch, a small U-Net, 4
    steps: 8 s on 2 cores), run in a folder of its own, so that the page's output/demo paths exist as it says."""
    folder = tmp_path_factory.mktemp("clone")
    shutil.copytree(Path(__file__).resolve().parents[1] / "configs", folder / "configs")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["train", "--config", "configs/demo.yaml", "--data.synthetic.num_cases=6",
                     "--data.synthetic.num_validation=2", "--data.spacing=[3,3,3]", "--data.patch_size=[16,16,16]",
                     "--model.args.channels=[8,16,32]", "--model.args.strides=[2,2]", "--train.max_steps=4",
                     "--train.val_every=2", "--train.save_every=4", "--optim.warmup_steps=0"]) == 0
    return folder


def test_the_intros_two_commands_run_as_written_after_the_demo(demo, monkeypatch, capsys):
    block = re.search(r"```bash\n(.*?)```", PAGE, re.S).group(1).strip().splitlines()
    assert [line.split()[:2] for line in block] == [["accelerated-seg", "predict"], ["accelerated-seg", "evaluate"]]
    monkeypatch.chdir(demo)
    capsys.readouterr()
    for line in block:
        assert main(line.split()[1:]) == 0
    said = capsys.readouterr().out
    cases = sorted(path.name for path in (demo / "output/demo/synthetic_data/imagesTr").glob("*.nii.gz"))
    assert sorted(path.name for path in (demo / "predictions").glob("*.nii.gz")) == cases
    assert f"{len(cases)} case(s) segmented into predictions/\n" in said
    assert re.search(rf"^{len(cases)} case\(s\), mean Dice [0-9.]+ ± [0-9.]+; wrote metrics.csv and summary.json to "
                     r"predictions/evaluation$", said, re.M)
    for case in cases:  # "label maps on each input's own voxel grid"
        scan, label_map = (nib.load(demo / folder / case) for folder in ("output/demo/synthetic_data/imagesTr",
                                                                         "predictions"))
        assert label_map.shape == scan.shape and np.allclose(label_map.affine, scan.affine, atol=1e-5)


def test_the_model_among_the_images_is_named_with_the_ensembles_command(demo, monkeypatch, capsys):
    """The synopsis' `predict --model fold0 fold1 scans/` and `predict output/demo/model scans/`, in its words."""
    monkeypatch.chdir(demo)
    for fold in ("fold0", "fold1"):
        shutil.copytree("output/demo/best_model", fold, dirs_exist_ok=True)
    shutil.copytree("output/demo/synthetic_data/imagesTr", "scans", dirs_exist_ok=True)
    quoted = re.search(r"\(`(fold1 is an exported model, given as an image to segment: [^`]*)`\)", SAID).group(1)
    assert main(["predict", "--model", "fold0", "fold1", "scans/", "--output", "out", "--continue"]) == 2
    assert capsys.readouterr().err == "error: " + quoted.replace("--output ...", "--output out") + "\n"
    assert main(["predict", "output/demo/model", "scans/", "--output", "out"]) == 2
    assert ("error: output/demo/model is an exported model, given as an image to segment: give --model "
            "output/demo/model" in capsys.readouterr().err)
    assert not Path("out").exists()


def _volume(path: Path, shape) -> Path:
    image = nib.Nifti1Image(np.ones(shape, np.float32), np.diag([2.0, 2.0, 2.0, 1.0]))
    image.header.set_xyzt_units("mm")
    nib.save(image, str(path))
    return path


@pytest.mark.parametrize("named", ["case_0000", "case_T1"])
def test_a_file_of_every_channel_named_as_one_beside_its_cases_other_file_is_told_its_volumes(tmp_path, named):
    """The page: a 4D file among a folder's files named as channels (`case_0000.nii.gz`, or `case_T1.nii.gz`) is
    refused in the --input form's words, its case not said besides to lack it. A file of exactly the model's
    channels was taken for a case of its own, named nowhere, and its case told to lack it (h136's walk)."""
    quoted = re.search(r"\(`(t1\.nii\.gz: shape \(20, 20, 8, 2\) is 4D with 2 volumes, [^`]*)`\)", SAID).group(1)
    assert "and so is such a file among a folder's files named as channels (`case_0000.nii.gz`, or by a channel's " \
           "name, `case_T1.nii.gz`; or in another folder than its case's files, one a channel), whose case is not " \
           "said besides to lack it" in SAID
    four_d = _volume(tmp_path / f"{named}.nii.gz", (20, 20, 8, 2))
    other = _volume(tmp_path / f"case_{'0001' if named.endswith('0000') else 'FLAIR'}.nii.gz", (20, 20, 8))
    with pytest.raises(DataError) as refused:
        group_cases([four_d, other], 2, {"0": "T1", "1": "FLAIR"})
    assert str(refused.value) == ("cannot group 2 input file(s) into cases:\n"
                                  + quoted.replace("t1.nii.gz", str(four_d), 1))
    # alone, such a file is a case of every channel, as the table's `pat_0001.nii.gz` is
    assert [(case.id, case.channels) for case in group_cases([four_d], 2, {"0": "T1", "1": "FLAIR"})] == [
        (named, (four_d,))]


def test_an_export_whose_network_class_monai_lacks_is_one_error_naming_its_config_json(demo, tmp_path, capsys):
    """"A damaged export is one error naming its file": a hand-edited `monai_class` ended predict (and
    Segmentation.load, export's checks) in a traceback, AttributeError from getattr(monai.networks.nets, ...)."""
    model = tmp_path / "edited"
    shutil.copytree(demo / "output/demo/best_model", model)
    config = json.loads((model / "config.json").read_text())
    config["model"]["monai_class"] = "UNetPlus"
    (model / "config.json").write_text(json.dumps(config))
    scan = next((demo / "output/demo/synthetic_data/imagesTr").glob("*.nii.gz"))
    assert main(["predict", "--model", str(model), str(scan), "--output", str(tmp_path / "seg.nii.gz")]) == 2
    assert capsys.readouterr().err == (
        f"error: {model / 'config.json'}: its model.monai_class 'UNetPlus' is no network class of monai.networks.nets "
        "(a hand edit?); copy the export's config.json again from the run folder that wrote it\n")
    assert not (tmp_path / "seg.nii.gz").exists()


def test_a_cases_files_refused_against_the_spacing_say_their_own_reading_needs_no_line(tmp_path):
    """The page: every reading weighed against the model's spacing, the nearest told first "with the lines that put
    every file there". Two channels declaring mm at 0.02 mm, for a model at 2 mm (its cases' median): their own
    reading, which needs no line, was said "...; or, where the voxels are 0.02 x 0.02 x 0.02 mm after all: ; or, ..."
    (h136's walk), where a file alone is said to need nothing (spacing_readings)."""
    from accelerated_seg.data.grid_agreement import Volume
    from accelerated_seg.inference_case_units import spacing_case_words

    volumes = []
    for channel, name in enumerate(("T1", "FLAIR")):
        image = nib.Nifti1Image(np.ones((16, 16, 16), np.float32), np.diag([0.02, 0.02, 0.02, 1.0]))
        image.header.set_xyzt_units("mm")
        nib.save(image, str(tmp_path / f"p_{channel:04d}.nii.gz"))
        volumes.append(Volume(f"channel {channel}", tmp_path / f"p_{channel:04d}.nii.gz",
                              nib.load(tmp_path / f"p_{channel:04d}.nii.gz"), name))
    for refused in (True, False):
        said = spacing_case_words(volumes, (2.0, 2.0, 2.0), refused, "mm")
        assert "the one nearest it, 20 x 20 x 20 mm: rewrite " in said
        assert "after all: ;" not in said
        assert "; or, where the voxels are 0.02 x 0.02 x 0.02 mm after all: nothing to change, they are read so " \
               "already; or, where the voxels are 2e-05 x 2e-05 x 2e-05 mm after all: rewrite " in said


def test_a_folder_of_4d_cases_named_by_a_four_digit_id_beside_a_stray_file_tells_the_stray_alone(tmp_path):
    """The review (r120) of h136's fix: a 4D file of every channel is one of its case's files only where it names a
    channel the model takes beside another such file of its case. 4D cases named by a four-digit id (`pat_0001`,
    `pat_0002`, right cases each) beside one stray 3D `pat_0003` were each told "one of the 2 files given for
    them", `pat_0002` "channel 0002" besides: only the stray file is wrong."""
    two = {"0": "T1", "1": "FLAIR"}
    cases = [_volume(tmp_path / f"pat_{i:04d}.nii.gz", (8, 8, 8, 2)) for i in (1, 2)]
    assert [case.id for case in group_cases(cases, 2, two)] == ["pat_0001", "pat_0002"]
    stray = _volume(tmp_path / "pat_0003.nii.gz", (8, 8, 8))
    with pytest.raises(DataError) as refused:
        group_cases([*cases, stray], 2, two)
    assert str(refused.value).splitlines()[1:] == [
        f"{stray}: channel 0003, but the model takes 2 channel(s) (0000..0001); remove it or use another model",
        "case 'pat' lacks channel file(s) pat_0000.nii.gz (T1), pat_0001.nii.gz (FLAIR); add them next to the others"]


def test_a_run_folder_as_model_beside_its_export_among_the_images_is_told_a_command_that_runs(demo, monkeypatch,
                                                                                              capsys):
    """`predict --model output/demo output/demo/best_model scans/` (a run's folder as --model, one of its exports
    among the images) was told to make an ensemble of the two, whose command then refused the run's folder as --model
    (h136's walk, Left; fixed in its review, r120): the run's folder is said with its exports, and the command given
    takes the export in its place, and runs."""
    monkeypatch.chdir(demo)
    shutil.copytree("output/demo/synthetic_data/imagesTr", "scans_r120", dirs_exist_ok=True)
    capsys.readouterr()
    assert main(["predict", "--model", "output/demo", "output/demo/best_model", "scans_r120/", "--output",
                 "out_r120"]) == 2
    said = capsys.readouterr().err
    assert said == ("error: output/demo/best_model is an exported model, given as an image to segment, and --model "
                    "output/demo is a training run's folder, not an exported model (its exports: "
                    "output/demo/best_model or output/demo/model): give exports as --model, not a run's folder "
                    "(best_model: the best validation Dice; model: the last step), e.g. accelerated-seg predict "
                    "--model output/demo/best_model scans_r120/ --output out_r120\n")
    assert not Path("out_r120").exists()
    assert main(said.rstrip("\n").split("e.g. accelerated-seg ")[1].split()) == 0
    assert sorted(path.name for path in Path("out_r120").glob("*.nii.gz")) == sorted(
        path.name for path in Path("scans_r120").glob("*.nii.gz"))


def test_a_file_of_every_channel_named_as_one_in_another_folder_than_its_cases_other_file_is_told_its_volumes(
        tmp_path):
    """The review (r120): a case's channels given from two folders, one file each, are one case (`_split_by_folder`),
    but a 4D `a/case_0000.nii.gz` of the model's 2 channels beside `b/case_0001.nii.gz` was still a case of its own,
    and `case` told to lack `case_0000.nii.gz`, the walk's fault in another layout. Besides its case's files of the
    same channel (a case in every folder), it stays a case of its own."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    two = {"0": "T1", "1": "FLAIR"}
    four_d, other = _volume(tmp_path / "a/case_0000.nii.gz", (8, 8, 8, 2)), _volume(tmp_path / "b/case_0001.nii.gz",
                                                                                    (8, 8, 8))
    with pytest.raises(DataError) as refused:
        group_cases([four_d, other], 2, two)
    assert str(refused.value).splitlines()[1:] == [
        f"{four_d}: shape (8, 8, 8, 2) is 4D with 2 volumes, but the model takes 2 channels and it is one of the 2 "
        "files given for them, one 3D volume each: give one 3D file per channel, in the order channel 0 (T1), channel "
        "1 (FLAIR), or one file of them all as (x, y, z, 2)"]
    whole = [_volume(tmp_path / f"b/case_{c:04d}.nii.gz", (8, 8, 8)) for c in range(2)]
    assert [(case.id, len(case.channels)) for case in group_cases([four_d, *whole], 2, two)] == [
        ("case", 2), ("case_0000", 1)]
