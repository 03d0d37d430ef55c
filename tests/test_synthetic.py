"""Tests for the embedded synthetic phantom dataset (accelerated_seg.data.synthetic)."""

import json
import signal
import sys

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.synthetic import (
    LABELS, _grid, _render_on_grid, make_phantom, write_synthetic_dataset)

from terminated_mid_work import run_terminated  # tests/ is on sys.path, as for conftest

# Small grid keeps the whole module fast (~32x32x24 voxels per case).
KW = dict(num_cases=6, num_validation=2, size_mm=(64.0, 64.0, 48.0), spacing_mm=2.0)


def _load(root, entry):
    img = nib.load(root / entry["image"])
    lab = nib.load(root / entry["label"])
    return img, lab


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("syn")
    path = write_synthetic_dataset(root, seed=3, **KW)
    return root, json.loads(path.read_text())


def test_layout_and_manifest(dataset):
    root, m = dataset
    assert (root / "dataset.json").is_file()
    assert m["name"] == "SyntheticBrain" and m["tensorImageSize"] == "3D"
    assert m["labels"] == {str(k): v for k, v in LABELS.items()}
    assert m["modality"] == {"0": "MRI"} and m["test"] == [] and m["seed"] == 3
    assert m["numTraining"] == len(m["training"]) == 4
    assert m["numValidation"] == len(m["validation"]) == 2
    train = {e["image"] for e in m["training"]}
    val = {e["image"] for e in m["validation"]}
    assert not train & val
    assert train | val == {f"./imagesTr/case_{i:03d}.nii.gz" for i in range(6)}
    for e in m["training"] + m["validation"]:
        assert e["label"] == e["image"].replace("imagesTr", "labelsTr")
        assert (root / e["image"]).is_file() and (root / e["label"]).is_file()


def test_deterministic(tmp_path):
    a = json.loads(write_synthetic_dataset(tmp_path / "a", seed=1, **KW).read_text())
    write_synthetic_dataset(tmp_path / "b", seed=1, **KW)
    write_synthetic_dataset(tmp_path / "c", seed=2, **KW)
    for e in a["training"] + a["validation"]:
        (ia, la), (ib, lb), (ic, _) = (_load(tmp_path / d, e) for d in "abc")
        np.testing.assert_array_equal(ia.get_fdata(), ib.get_fdata())
        np.testing.assert_array_equal(np.asarray(la.dataobj), np.asarray(lb.dataobj))
        np.testing.assert_array_equal(ia.affine, ib.affine)
        if ia.shape == ic.shape:
            assert not np.array_equal(ia.get_fdata(), ic.get_fdata())


def test_labels_and_image(dataset):
    root, m = dataset
    for e in m["training"] + m["validation"]:
        img, lab = _load(root, e)
        x = np.asarray(img.dataobj)
        y = np.asarray(lab.dataobj)
        assert x.dtype == np.float32 and np.isfinite(x).all()
        assert y.dtype == np.uint8 and set(np.unique(y)) == {0, 1, 2}
        assert y.shape == x.shape and np.allclose(img.affine, lab.affine)
        assert img.header.get_qform(coded=True)[1] == 1 and img.header.get_sform(coded=True)[1] == 1
        # Each structure is big enough to learn (>= ~40 mm^3 ... here >= 15 voxels of 8 mm^3).
        assert (y == 1).sum() >= 15 and (y == 2).sum() >= 15
        # Noisy, not piecewise constant: many distinct values inside the ventricles.
        assert np.unique(x[y == 1]).size > 0.9 * (y == 1).sum()
        # Lesion brighter than brain tissue around it; ventricles darker.
        ring = np.zeros_like(y, bool)
        idx = np.argwhere(y == 2)
        lo, hi = idx.min(0), idx.max(0) + 1
        ring[tuple(slice(max(a - 2, 0), b + 2) for a, b in zip(lo, hi))] = True
        ring &= y == 0
        tissue = np.median(x[ring])
        assert np.median(x[y == 2]) > 1.2 * tissue
        assert np.median(x[y == 1]) < 0.7 * tissue


def test_geometry_variation_and_world_consistency(dataset):
    root, m = dataset
    codes, aniso = [], []
    for e in m["training"] + m["validation"]:
        img, lab = _load(root, e)
        vs = nib.affines.voxel_sizes(img.affine)
        codes.append(nib.aff2axcodes(img.affine))
        aniso.append(not np.allclose(vs, vs[0]))
        # The head (bright, above background noise) is centred on the world origin and is
        # flattest along world z, whatever the voxel grid: this fails if an affine is wrong.
        x = np.asarray(img.dataobj)
        ijk = np.argwhere(x > 0.4 * np.percentile(x, 90))
        world = nib.affines.apply_affine(img.affine, ijk)
        assert np.all(np.abs(world.mean(0)) < 4.0), (e, world.mean(0))
        extent = np.ptp(world, axis=0)
        assert extent[2] < extent[0] and extent[2] < extent[1], (e, extent)
    assert any(aniso) and any(c != ("R", "A", "S") for c in codes)
    # The validation cases themselves exercise geometry handling.
    val = [_load(root, e)[0].affine for e in m["validation"]]
    assert any(not np.allclose(nib.affines.voxel_sizes(a), nib.affines.voxel_sizes(a)[0]) for a in val)
    assert any(nib.aff2axcodes(a) != ("R", "A", "S") for a in val)


@pytest.mark.parametrize("kind", ["LPS", "PERM"])
def test_same_phantom_on_other_grid_reorients_to_ras(kind):
    """Rendering one phantom on a non-RAS grid and reorienting to RAS reproduces the RAS grid."""
    size = (48.0, 40.0, 32.0)  # distinct extents so a wrong axis permutation changes shapes
    ras_aff, ras_shape = _grid("RAS", size, 2.0, False)
    aff, shape = _grid(kind, size, 2.0, False)
    lab_ras = _render_on_grid(make_phantom(np.random.default_rng(7), size), ras_aff, ras_shape)[1]
    lab = _render_on_grid(make_phantom(np.random.default_rng(7), size), aff, shape)[1]
    canon = nib.as_closest_canonical(nib.Nifti1Image(lab, aff))
    np.testing.assert_allclose(canon.affine, ras_aff)
    np.testing.assert_array_equal(np.asarray(canon.dataobj), lab_ras)
    assert set(np.unique(lab_ras)) == {0, 1, 2}


def test_validation_split_bounds(tmp_path):
    with pytest.raises(ValueError):
        write_synthetic_dataset(tmp_path, num_cases=2, num_validation=3)


def test_no_validation_case_writes_no_validation_list(tmp_path):
    """An empty list would be a split the dataset prescribes, winning over data.num_folds (then
    training stopped: "the dataset has no validation cases")."""
    manifest = json.loads(write_synthetic_dataset(tmp_path, num_cases=3, num_validation=0, size_mm=(24.0,) * 3,
                                                  spacing_mm=3.0).read_text())
    assert "validation" not in manifest and len(manifest["training"]) == 3 and manifest["numValidation"] == 0


@pytest.mark.parametrize("cases", [0, -3])
def test_a_dataset_without_cases_is_refused_before_anything_is_written(tmp_path, cases):
    with pytest.raises(ValueError, match="at least one case"):
        write_synthetic_dataset(tmp_path / "d", num_cases=cases, num_validation=0)
    assert not (tmp_path / "d").exists()


def test_synth_never_replaces_another_dataset_and_reports_bad_counts_in_one_line(tmp_path, capsys):
    from accelerated_seg.cli import main

    theirs = tmp_path / "my_data"
    theirs.mkdir()
    (theirs / "dataset.json").write_text('{"name": "MyRealData", "training": []}')
    with pytest.raises(SystemExit) as stop:
        main(["synth", str(theirs), "--cases", "2", "--validation", "1"])
    assert stop.value.code == 2 and "describes another dataset" in capsys.readouterr().err
    assert json.loads((theirs / "dataset.json").read_text())["name"] == "MyRealData"
    assert not (theirs / "imagesTr").exists()

    # A file where the folder, or a parent of it, must go (NotADirectoryError's traceback before).
    (tmp_path / "notes.txt").write_text("mine")
    for out in ("notes.txt", "notes.txt/phantoms"):
        with pytest.raises(SystemExit) as stop:
            main(["synth", str(tmp_path / out), "--cases", "2", "--validation", "1"])
        assert stop.value.code == 2 and f"{tmp_path / 'notes.txt'} is a file" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"

    with pytest.raises(SystemExit) as stop:
        main(["synth", str(tmp_path / "new"), "--cases", "3"])  # the default 4 validation cases do not fit
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("error: ") and "--validation" in err and "Traceback" not in err
    # Every case held out (the default 4 validation cases of 4 too): a dataset check and train refuse
    for counts in (["--cases", "4"], ["--cases", "2", "--validation", "2"]):
        with pytest.raises(SystemExit) as stop:
            main(["synth", str(tmp_path / "all_held_out"), *counts])
        assert stop.value.code == 2 and "leaves no training case" in capsys.readouterr().err
    assert not (tmp_path / "all_held_out").exists()
    with pytest.raises(SystemExit) as stop:  # numpy's ValueError traceback before
        main(["synth", str(tmp_path / "seeded"), "--cases", "2", "--validation", "1", "--seed", "-1"])
    assert stop.value.code == 2 and "seed must be >= 0 and < 2**32, got -1 (synth --seed)" in capsys.readouterr().err
    assert not (tmp_path / "seeded").exists()


def test_synth_never_replaces_case_files_it_did_not_write_but_finishes_its_own_after_a_kill(tmp_path):
    paired = tmp_path / "paired"  # a user's cases in MSD folders, described by a CSV, say: no dataset.json
    (paired / "imagesTr").mkdir(parents=True)
    (paired / "imagesTr" / "case_000.nii.gz").write_bytes(b"the user's scan")
    with pytest.raises(DataError, match="no dataset.json of the phantoms"):
        write_synthetic_dataset(paired, num_cases=2, num_validation=1, size_mm=(32.0, 32.0, 32.0))
    assert (paired / "imagesTr" / "case_000.nii.gz").read_bytes() == b"the user's scan"

    ours = tmp_path / "ours"
    write_synthetic_dataset(ours, num_cases=2, num_validation=1, size_mm=(32.0, 32.0, 32.0))
    assert not (ours / ".phantoms_being_written").exists()
    (ours / "dataset.json").unlink()  # as a kill while writing the cases leaves it
    (ours / ".phantoms_being_written").touch()
    assert write_synthetic_dataset(ours, num_cases=2, num_validation=1, size_mm=(32.0, 32.0, 32.0)).is_file()


def test_a_rerun_after_a_kill_removes_the_temporary_files_the_killed_write_left(tmp_path):
    """A kill while a case was written left its hidden temporary in imagesTr/, which no rerun swept
    (ninety-second session's probe); a user's hidden files stay."""
    out, small = tmp_path / "phantoms", dict(num_cases=2, num_validation=1, size_mm=(32.0, 32.0, 32.0),
                                             spacing_mm=4.0)
    write_synthetic_dataset(out, **small)
    (out / "dataset.json").unlink()  # as a kill while writing the cases leaves it
    (out / ".phantoms_being_written").touch()
    left = [out / "imagesTr" / f".case_001.nii.gz.{'a' * 32}.tmp.nii.gz", out / f".dataset.json.{'b' * 32}.tmp"]
    mine = [out / "imagesTr" / ".case_001.nii.gz.notes", out / "labelsTr" / f".scan.nii.gz.{'c' * 32}.tmp.nii.gz"]
    for path in left + mine:
        path.write_bytes(b"half a file")
    write_synthetic_dataset(out, **small)
    assert [path for path in left if path.exists()] == []
    assert all(path.read_bytes() == b"half a file" for path in mine)


def test_a_rewrite_with_fewer_phantoms_leaves_none_of_the_earlier_ones(tmp_path):
    """synth --cases 3 over 5 phantoms left case_003 and case_004 in imagesTr/ and labelsTr/, which
    predict of imagesTr/ then segmented too (sixty-seventh session)."""
    out, small = tmp_path / "phantoms", dict(size_mm=(32.0, 32.0, 32.0), spacing_mm=4.0)
    write_synthetic_dataset(out, num_cases=5, num_validation=1, **small)
    (out / "imagesTr" / "notes.txt").write_text("not a phantom")
    write_synthetic_dataset(out, num_cases=3, num_validation=1, **small)
    for sub in ("imagesTr", "labelsTr"):
        assert sorted(p.name for p in (out / sub).glob("*.nii.gz")) == [f"case_{i:03d}.nii.gz" for i in range(3)]
    assert (out / "imagesTr" / "notes.txt").read_text() == "not a phantom"
    # After a kill mid-write, the phantom-named files beyond the new count are the earlier ones too
    write_synthetic_dataset(out, num_cases=4, num_validation=1, **small)
    (out / "dataset.json").unlink()
    (out / ".phantoms_being_written").touch()
    write_synthetic_dataset(out, num_cases=2, num_validation=1, **small)
    assert sorted(p.name for p in (out / "labelsTr").glob("*.nii.gz")) == ["case_000.nii.gz", "case_001.nii.gz"]


def test_synth_refuses_a_folder_whose_dataset_json_or_case_folder_is_of_the_wrong_kind_before_writing(tmp_path,
                                                                                                      capsys):
    """A folder named dataset.json, or a file named imagesTr, gave an OSError traceback once the marker and
    the case folders were made there (ninety-second session's probe)."""
    from accelerated_seg.cli import main

    (tmp_path / "a" / "dataset.json").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "imagesTr").write_text("mine")
    for out, said in (("a", "a/dataset.json is a folder, where their dataset.json goes"),
                      ("b", "b/imagesTr is a file, where their imagesTr/ folder goes")):
        with pytest.raises(SystemExit) as stop:
            main(["synth", str(tmp_path / out), "--cases", "2", "--validation", "1"])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and said in err and "Traceback" not in err
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["dataset.json"]  # nothing made beside them
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["imagesTr"]


def test_an_interrupted_synth_says_what_it_left_and_the_same_command_finishes_it(tmp_path, monkeypatch, capsys):
    """Ctrl-C said nothing, and left part of the phantoms without a dataset.json (ninety-second session's probe)."""
    import accelerated_seg.data.synthetic as synthetic
    from accelerated_seg.cli import main

    written, write = [], synthetic.write_nifti

    def interrupted_at_the_second_case(path, *args, **kwargs):
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(write(path, *args, **kwargs))

    monkeypatch.setattr(synthetic, "write_nifti", interrupted_at_the_second_case)
    out = tmp_path / "phantoms"
    # its status returned, as the other one-process commands return theirs (SystemExit(130) until the
    # hundred-and-twentieth session)
    assert main(["synth", str(out), "--cases", "3", "--validation", "1"]) == 130
    assert (f"synth interrupted: {out} holds part of the phantoms and no dataset.json yet (written last; every case "
            f"file there is whole); the same command finishes them") in capsys.readouterr().err
    assert not (out / "dataset.json").exists()
    monkeypatch.setattr(synthetic, "write_nifti", write)
    assert main(["synth", str(out), "--cases", "3", "--validation", "1"]) == 0
    assert len(json.loads((out / "dataset.json").read_text())["training"]) == 2


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
def test_sigterm_stops_synth_as_ctrl_c_does_and_says_so(tmp_path):
    """A time limit's SIGTERM as the second case is written: synth says what it left, naming SIGTERM, status 143, each
    case file whole. Until the hundred-and-second session it ended at once, saying nothing, status -15."""
    out = tmp_path / "phantoms"
    done = run_terminated("synth", str(out), "--cases", "3", "--validation", "1")
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"synth stopped by SIGTERM: {out} holds part of the phantoms and no dataset.json yet (written last; every case "
        f"file there is whole); the same command finishes them"), done.stderr
    written = sorted((out / "imagesTr").iterdir()) + sorted((out / "labelsTr").iterdir())
    assert [path.name for path in written] == ["case_000.nii.gz"] * 2  # no hidden temporary beside them
    assert all(nib.load(path).get_fdata().shape for path in written)  # each read to its end
    assert not (out / "dataset.json").exists()


def test_synth_says_a_dataset_json_that_is_no_json_is_not_the_phantoms_rather_than_another_dataset(tmp_path, capsys):
    """A dataset.json mid-edit (no JSON at all) was said to "describe another dataset" (ninety-second session)."""
    from accelerated_seg.cli import main

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "dataset.json").write_text('{"name": "MyData", ')
    with pytest.raises(SystemExit) as stop:
        main(["synth", str(tmp_path / "d"), "--cases", "2", "--validation", "1"])
    assert stop.value.code == 2 and (f"{tmp_path / 'd' / 'dataset.json'} is not the phantoms' dataset.json: it cannot "
                                     f"be read as JSON (") in capsys.readouterr().err
    assert (tmp_path / "d" / "dataset.json").read_text() == '{"name": "MyData", '


def test_phantoms_already_there_whole_are_not_written_again(tmp_path):
    """examples/estimator.py and fit_your_own.py rewrote their phantoms on every run: new modification
    times, so the preprocessing cache under --out built every case again and kept the arrays of before
    (an estimator run twice grew it by 12 cases; an audit of the examples)."""
    from accelerated_seg.data.synthetic import ensure_synthetic_dataset

    out, small = tmp_path / "phantoms", dict(size_mm=(32.0, 32.0, 32.0), spacing_mm=4.0)

    def written() -> dict[str, int]:
        return {path.name: path.stat().st_mtime_ns for path in (out / "imagesTr").iterdir()}

    assert ensure_synthetic_dataset(out, num_cases=3, num_validation=1, **small) == out / "dataset.json"
    first = written()
    ensure_synthetic_dataset(out, num_cases=3, num_validation=1, **small)
    assert written() == first
    for other in (dict(num_cases=3, num_validation=0, **small), dict(num_cases=3, num_validation=1, seed=1, **small),
                  dict(num_cases=3, num_validation=1, size_mm=(32.0, 32.0, 24.0), spacing_mm=4.0)):
        before = written()
        ensure_synthetic_dataset(out, **other)
        assert written().keys() == before.keys() and all(written()[k] != before[k] for k in before), other
    ensure_synthetic_dataset(out, num_cases=3, num_validation=1, **small)
    (out / "labelsTr" / "case_001.nii.gz").unlink()  # a case gone: written again
    ensure_synthetic_dataset(out, num_cases=3, num_validation=1, **small)
    assert (out / "labelsTr" / "case_001.nii.gz").is_file()


def test_two_callers_at_once_write_the_phantoms_once_the_second_waiting_for_the_first(tmp_path, monkeypatch):
    """docs/python_api.md's first block launched on 2 processes had both write the phantoms at once, and one died
    in the other's removal of the marker (FileNotFoundError: '.phantoms_being_written'; h153's walk). Here two
    threads (flock excludes two open files of one process as it does two processes): the first held after its first
    case, the second asks meanwhile; it waits, and finds the phantoms whole once the first has written them."""
    import threading

    from accelerated_seg.data import synthetic
    from accelerated_seg.data.synthetic import ensure_synthetic_dataset

    out, small = tmp_path / "phantoms", dict(num_cases=3, num_validation=1, size_mm=(32.0, 32.0, 32.0), spacing_mm=4.0)
    first_case, go_on, renders = threading.Event(), threading.Event(), []

    def render_held(*args, **kwargs):
        renders.append(threading.current_thread().name)
        if threading.current_thread().name == "first" and len(renders) == 2:  # the first's first case is written
            first_case.set()
            go_on.wait(10)
        return _render_on_grid(*args, **kwargs)

    monkeypatch.setattr(synthetic, "_render_on_grid", render_held)
    errors = []

    def ensure() -> None:
        try:
            ensure_synthetic_dataset(out, **small)
        except Exception as error:  # noqa: BLE001 - said by the test
            errors.append(repr(error))

    first, second = (threading.Thread(target=ensure, name=name) for name in ("first", "second"))
    first.start()
    assert first_case.wait(30)
    second.start()
    second.join(1.5)  # unguarded, the second wrote every case meanwhile
    go_on.set()
    first.join(30)
    second.join(30)
    assert errors == [] and renders.count("second") == 0, (errors, renders)
    assert json.loads((out / "dataset.json").read_text())["numTraining"] == 2
