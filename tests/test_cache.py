"""The preprocessing cache: built once, reused, rebuilt when settings or inputs change."""

import dataclasses
import json
import os
import re
import signal
import sys

import numpy as np
import pytest

from accelerated_seg.data.cache import PreprocessedCache
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.preprocess import PreprocessSettings

from terminated_mid_work import run_terminated  # tests/ is on sys.path, as for conftest


def _cache(root, manifest, **settings):
    return PreprocessedCache(root, manifest.root, PreprocessSettings(**settings), manifest.num_classes)


def test_second_build_reuses_changed_settings_rebuild_changed_file_rebuilds(tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    cache = _cache(tmp_path, manifest, spacing=(2.0, 2.0, 2.0))
    assert cache.build(cases) == len(cases)
    assert cache.build(cases) == 0  # same inputs and settings: everything reused

    other = _cache(tmp_path, manifest, spacing=(3.0, 3.0, 3.0))
    assert other.dir != cache.dir and other.build(cases) == len(cases)

    touched = cases[0].images[0]
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    # What the run says: why cases are built again, and the other versions the dataset's folder holds
    # (a no-op chmod -R rebuilt a probe's 2000 cases, and six settings made six copies, unsaid)
    assert cache.changed_since_built(cases) == 1 and other.changed_since_built(cases) == 1
    versions, size = cache.other_versions()
    assert versions == 1 and size == sum(p.stat().st_size for p in other.dir.rglob("*") if p.is_file()) > 0
    assert cache.build(cases) == 1  # only the changed case is preprocessed again
    assert cache.changed_since_built(cases) == 0


def test_the_other_versions_note_survives_a_build_beside_it(tiny_dataset, tmp_path, monkeypatch):
    """Another run building a version renames and replaces its files while they are counted: the
    walk raised FileNotFoundError, which stopped this run for a note (the session's review)."""
    import accelerated_seg.data.cache as cache_module

    manifest = load_msd(tiny_dataset)
    cache, other = (_cache(tmp_path, manifest, spacing=(size,) * 3) for size in (2.0, 3.0))
    other.build(manifest.training)
    assert cache.other_versions()[0] == 1

    def vanished(folder):
        raise FileNotFoundError(2, "No such file or directory", folder)

    monkeypatch.setattr(cache_module, "bytes_under", vanished)
    assert cache.other_versions() is None  # not known this time; the run goes on


def test_another_number_of_classes_is_another_cache(tiny_dataset, tmp_path):
    """Each case keeps its voxel counts and locations per class, so a cache of 2 classes must not
    serve 3: its table raised KeyError 'class_2', or (with a table already written for these cases)
    gave class 2 no locations, never drawn as a patch centre (sixty-ninth session)."""
    manifest = load_msd(tiny_dataset)  # labels 0, 1, 2
    settings = PreprocessSettings(spacing=(2.0, 2.0, 2.0))
    two, three = (PreprocessedCache(tmp_path, manifest.root, settings, n) for n in (2, 3))
    assert two.dir != three.dir
    two.build(manifest.training)
    assert two.load_table(two.write_table(manifest.training))[0]["class_locations"].shape[0] == 1
    assert three.build(manifest.training) == len(manifest.training)  # nothing of the 2-class cache reused
    row = three.load_table(three.write_table(manifest.training))[0]
    assert len(row["class_voxels"]) == 2 and all(n > 0 for n in row["class_voxels"])


def _not_generated_again(*args, **kwargs):
    raise AssertionError("the case table was generated again")


def test_cached_case_content_and_table(tiny_dataset, tmp_path, monkeypatch):
    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest, spacing=(2.0, 2.0, 2.0))
    cache.build(manifest.training)
    table = cache.load_table(cache.write_table(manifest.training))
    assert list(table["id"]) == [c.id for c in manifest.training]
    row = table[0]
    image, label = np.load(row["image"], mmap_mode="r"), np.load(row["label"], mmap_mode="r")
    assert isinstance(image, np.memmap) and image.dtype == np.float32 and label.dtype == np.uint8
    assert image.shape[1:] == label.shape == tuple(row["shape"])
    np.testing.assert_allclose(row["spacing"], [2.0, 2.0, 2.0], atol=1e-4)
    for c, locations in enumerate(row["class_locations"], start=1):  # recorded locations hold that class
        assert len(locations) == row["class_voxels"][c - 1] > 0
        assert (label.reshape(-1)[locations] == c).all()
    nonzero = image[0][label > 0]
    assert abs(float(image[0][image[0] != 0].mean())) < 0.1  # z-scored over the nonzero region
    assert nonzero.size > 0
    # The table is reused for the same cases, not generated again, and is small: no voxel data in it.
    # (Two calls compared with each other held nothing: the path is the key's, and a second writer's
    # table is dropped for the first's.)
    import datasets

    first = cache.write_table(manifest.training)
    with monkeypatch.context() as patched:
        patched.setattr(datasets.Dataset, "from_generator", _not_generated_again)
        assert cache.write_table(manifest.training) == first
    table_bytes = sum(f.stat().st_size for f in first.rglob("*") if f.is_file())
    assert table_bytes < 200_000
    # Its foreground locations as int32, half int64's memory while the table is built (they grow with
    # cases x classes); a volume of 2^31 voxels or more keeps the whole table's int64.
    features = datasets.load_from_disk(str(cache.write_table(manifest.training))).features
    assert features["class_locations"].feature.feature.dtype == "int32"  # List (datasets 4+) or Sequence (3)
    huge = json.loads(cache.paths(manifest.training[1])["json"].read_text())
    cache.paths(manifest.training[1])["json"].write_text(json.dumps({**huge, "shape": [2048, 1024, 1024]}))
    features = datasets.load_from_disk(str(cache.write_table(manifest.training[:2]))).features
    assert features["class_locations"].feature.feature.dtype == "int64"


def test_the_case_table_is_streamed_to_the_cache_a_batch_of_rows_at_a_time(tiny_dataset, tmp_path, monkeypatch):
    """Built whole in memory (Dataset.from_dict) before it was written, the table peaked at several
    times its size (benchmarks/case_table_memory.py). Streamed, one row a batch here, it holds the same
    rows, and datasets' own cache (~/.cache/huggingface) receives nothing of it."""
    import datasets

    import accelerated_seg.data.cache as cache_module

    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "huggingface"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "huggingface")
    manifest = load_msd(tiny_dataset)
    whole, streamed = (_cache(tmp_path / name, manifest, spacing=(2.0,) * 3) for name in ("whole", "streamed"))
    for cache in (whole, streamed):
        cache.build(manifest.training)
    expected = whole.load_table(whole.write_table(manifest.training))
    monkeypatch.setattr(cache_module, "_TABLE_BATCH_BYTES", 1)
    table_dir = streamed.write_table(manifest.training)
    table = streamed.load_table(table_dir)
    assert len(table) == len(expected) == len(manifest.training) and table.features == expected.features
    def plain(row):  # the arrays' names: the two caches lie in folders of their own
        return {key: [v.tolist() for v in value] if key == "class_locations" else os.path.basename(str(value))
                if key in ("image", "label") else np.asarray(value).tolist() for key, value in row.items()}

    assert [plain(row) for row in table] == [plain(row) for row in expected]
    assert sorted(p.name for p in table_dir.parent.iterdir()) == [table_dir.name]  # no scratch left beside it
    assert not (tmp_path / "huggingface").exists() or not any((tmp_path / "huggingface").rglob("*.arrow"))


def test_a_pool_of_workers_builds_the_same_arrays(tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    serial, pooled = _cache(tmp_path / "a", manifest), _cache(tmp_path / "b", manifest)
    serial.build(cases)
    assert pooled.build(cases, workers=2) == len(cases)
    for case in cases:
        for kind in ("image.npy", "label.npy"):
            np.testing.assert_array_equal(np.load(serial.paths(case)[kind]), np.load(pooled.paths(case)[kind]))
        assert json.loads(serial.paths(case)["json"].read_text()) == json.loads(pooled.paths(case)["json"].read_text())


def test_sharded_builds_split_the_work(tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    cache = _cache(tmp_path, manifest)
    counts = [cache.build(cases, shard=(rank, 2)) for rank in range(2)]
    assert counts == [5, 4] and cache.build(cases) == 0  # each rank its share, nothing twice


def test_what_workers_receive_holds_no_voxel_data(tiny_dataset, tmp_path):
    """Resident memory must not grow with the dataset: the patch dataset a DataLoader worker gets is
    the memory-mapped case table and settings, never arrays."""
    import pickle

    from accelerated_seg.data.loader import PatchDataset

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest)
    cache.build(manifest.training)
    table = cache.load_table(cache.write_table(manifest.training))
    dataset = PatchDataset(table, (16, 16, 16))
    voxel_bytes = sum(np.load(row["image"], mmap_mode="r").nbytes for row in table)
    # The memory-mapped table pickles as a reference to its Arrow files (~2 KB even over 157 MB of
    # voxels in the data benchmark); the rest of the pickle is MONAI's augmentation Compose.
    data_part = len(pickle.dumps(dataset)) - len(pickle.dumps(dataset.augment))
    assert data_part < 10_000 and voxel_bytes > 10 * data_part, (data_part, voxel_bytes)


def test_loader_workers_start_from_the_fork_server_and_give_the_same_patches(tiny_dataset, tmp_path):
    """Workers are not forked from the training process, which runs threads by then (a fork can copy
    a held lock: docs/known_issues_archive.md), but from the fork server; the patch dataset reaches them
    pickled and gives what it gives in the training process itself."""
    import torch

    from accelerated_seg.data.loader import PatchDataset, train_loader
    from accelerated_seg.data.workers import worker_start_method

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest)
    cache.build(manifest.training)
    dataset = PatchDataset(cache.load_table(cache.write_table(manifest.training)), (16, 16, 16), samples_per_volume=2,
                           augment="standard", seed=3)
    in_process = train_loader(dataset, batch_size=2, num_workers=0, seed=3)
    with_workers = train_loader(dataset, batch_size=2, num_workers=2, seed=3)
    assert in_process.multiprocessing_context is None and worker_start_method(0) is None
    assert with_workers.multiprocessing_context.get_start_method() == "forkserver"
    batches = list(zip(in_process, with_workers))
    assert len(batches) == 6
    for here, there in batches:
        assert torch.equal(here["image"], there["image"]) and torch.equal(here["label"], there["label"])


def test_a_hard_killed_writer_leaves_a_temporary_that_the_next_build_removes_once_stale(tiny_dataset, tmp_path):
    import signal
    import subprocess
    import sys

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest)
    cache.build(manifest.training)
    # A SIGKILL mid-write skips replace_atomically's clean-up (no finally runs) ...
    killed = subprocess.run([sys.executable, "-c", (
        "import os, signal, sys; from accelerated_seg.files import replace_atomically\n"
        "def write(temporary):\n    temporary.write_bytes(b'half'); os.kill(os.getpid(), signal.SIGKILL)\n"
        "replace_atomically(sys.argv[1], write)"), str(cache.dir / "case_x.image.npy")],
        cwd=os.path.dirname(os.path.dirname(__file__)))
    assert killed.returncode == -signal.SIGKILL
    leftover = [p for p in cache.dir.iterdir() if p.name.startswith(".case_x.image.npy.")]
    assert len(leftover) == 1 and not (cache.dir / "case_x.image.npy").exists()

    tables = cache.dir / "tables"
    old_table = tables / f".{'a' * 16}.{'0' * 32}.partial"
    (old_table / "data").mkdir(parents=True)
    (old_table / "data" / "part.arrow").write_bytes(b"x")
    young = cache.dir / f".case_y.label.npy.{'1' * 32}.tmp"  # another job may be writing it right now
    young.write_bytes(b"x")
    old_nifti = cache.dir / f".case_z.nii.gz.{'2' * 32}.tmp.nii.gz"
    old_nifti.write_bytes(b"x")
    users = [cache.dir / ".notes.tmp", tables / ".keep.partial"]  # not our names: never touched
    for path in users:
        path.write_bytes(b"mine")
    hour_ago = __import__("time").time() - 3700
    for path in (*leftover, old_nifti, *users, old_table / "data" / "part.arrow", old_table / "data", old_table):
        os.utime(path, (hour_ago, hour_ago))

    assert cache.build(manifest.training, shard=(1, 2)) == 0 and leftover[0].exists()  # one shard sweeps: the first
    assert cache.build(manifest.training) == 0  # ... and the next build removes what is an hour old
    assert not leftover[0].exists() and not old_table.exists() and not old_nifti.exists()
    assert young.exists() and all(path.read_bytes() == b"mine" for path in users)


def test_a_spacing_that_would_resample_a_case_beyond_the_voxel_budget_is_refused_first(tiny_dataset):
    """data.spacing 0.01 mm on 1.5 mm scans was a Spacingd traceback asking for 20 TB; a spacing a few
    times too fine would instead have the kernel kill the run. Judged from the headers, before any work."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    manifest = load_msd(tiny_dataset)
    stored = max(int(np.prod(nib.load(case.images[0]).shape[:3])) for case in manifest.training + manifest.validation)
    median = preprocess_settings(DataConfig(), manifest).spacing
    fits = preprocess_settings(DataConfig(max_voxels=4 * stored), manifest)  # the median spacing: about as stored
    assert fits.spacing == median
    finer = tuple(s / 3 for s in median)  # 27x the voxels
    with pytest.raises(DataError, match=r"data.spacing .* mm would resample \d+ case\(s\) beyond the budget of "
                                        r"[\d,]+ voxels per volume \(data.max_voxels\): "
                                        r".* choose a coarser data.spacing"):
        preprocess_settings(DataConfig(spacing=finer, max_voxels=4 * stored), manifest)
    with pytest.raises(DataError, match=r"the training cases' median spacing \(data.spacing unset\)"):
        preprocess_settings(DataConfig(max_voxels=stored // 4), manifest)


def test_a_single_slice_is_judged_by_the_budget_as_the_one_slice_it_resamples_to(tiny_dataset, tmp_path):
    """nnU-Net stores 2D data as one slice 999 mm thick: resampled to 2 mm it stays one slice (Spacingd counts each
    axis), and 20 x 20 x 1 is far inside 100,000 voxels. Judged by the ratio of voxel volumes, it was taken for 500
    slices (199,800 voxels) and refused, until the hundred-and-fourth session's review."""
    import shutil

    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root = tmp_path / "copy"
    shutil.copytree(tiny_dataset.parent, root)
    manifest = load_msd(root / "dataset.json")
    for case in manifest.training + manifest.validation:
        nib.save(nib.Nifti1Image(np.zeros((20, 20, 1), np.int16), np.diag([2.0, 2.0, 999.0, 1])), case.images[0])
    settings = DataConfig(spacing=(2.0, 2.0, 2.0), max_voxels=100_000)
    assert preprocess_settings(settings, load_msd(root / "dataset.json")).spacing == (2.0, 2.0, 2.0)


def metres_copy(tiny_dataset, tmp_path, cases: int = 1, unit: str = "unknown"):
    """A copy of the tiny dataset whose first ``cases`` training cases have their headers in metres (their
    unit, xyzt_units, ``unit``): the copy's root and those cases."""
    import shutil

    import nibabel as nib

    root = tmp_path / "data"
    shutil.copytree(tiny_dataset.parent, root)
    chosen = load_msd(root / "dataset.json").training[:cases]
    for case in chosen:
        for path in (*case.images, case.label):
            image = nib.load(path)
            scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3, 1e-3, 1e-3, 1]) @ image.affine,
                                     image.header)
            scaled.header.set_xyzt_units(unit)
            nib.save(scaled, path)
    return root, chosen


def test_a_case_whose_header_is_in_metres_is_refused_not_resampled_to_a_voxel(tiny_dataset, tmp_path):
    """A header in metres (0.002 for 2 mm) among scans in mm was resampled to the median spacing, 1 x 1 x 1
    voxels, its label's structures with it, and trained on without a word (hundred-and-fourth session's
    probe). Refused before any work, by the check command too, naming the case and the rewrite."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root, (case,) = metres_copy(tiny_dataset, tmp_path)
    manifest = load_msd(root / "dataset.json")
    with pytest.raises(DataError, match=rf"^{case.id}: {re.escape(str(case.images[0]))}: voxels of 0.002 x "
                                        r"0.002 x 0.00\d mm, 1,000 times finer than the training cases' median "
                                        r"spacing \(data.spacing unset\) 2 x 2 x 2 mm, so resampling leaves it 1 x "
                                        r"1 x 1 voxels, .* its header is probably in metres"):
        preprocess_settings(DataConfig(), manifest)
    with pytest.raises(DataError, match=r"times finer than data.spacing 2 x 2 x 2 mm"):
        preprocess_settings(DataConfig(spacing=(2.0, 2.0, 2.0)), manifest)
    assert preprocess_settings(DataConfig(spacing=(0.05, 0.05, 0.05), max_voxels=10**9), manifest)  # 40x: taken
    # Most cases in metres: their median, 0.002 mm, would resample those in mm beyond the voxel budget, which
    # was told to choose a coarser spacing or crop alone (hundred-and-fourth session's review): metres named
    root, _ = metres_copy(tiny_dataset, tmp_path / "most", cases=5)
    with pytest.raises(DataError, match=r"median spacing \(data.spacing unset\) 0.002 x 0.002 x 0.00\d mm would "
                                        r"resample .*: the median is 1,000 times finer than its voxels, so most "
                                        r"headers it is taken from are probably in metres, not mm: rewrite those "
                                        r"in mm \(nibabel, from metres: .*\); else, choose a coarser"):
        preprocess_settings(DataConfig(), load_msd(root / "dataset.json"))
    with pytest.raises(DataError, match=r"data.spacing is 1,000 times finer than its voxels \(given in metres\?"):
        preprocess_settings(DataConfig(spacing=(0.002, 0.002, 0.002)), load_msd(root / "dataset.json"))


def test_the_rewrite_a_metres_header_is_told_makes_a_file_in_mm_for_nibabel_and_itk(tiny_dataset, tmp_path):
    """The refusal's nibabel line, run as given on a case whose header says metres (xyzt_units), makes the case
    pass and leaves its unit mm: the line of the hundred-and-fourth session kept 'meter', which ITK readers
    (SimpleITK, nnU-Net, 3D Slicer) scale by 1000, a file 1000 times too coarse there."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root, (case,) = metres_copy(tiny_dataset, tmp_path, unit="meter")
    affines = {path: nib.load(tiny_dataset.parent / path.relative_to(root)).affine  # the copy's, in mm
               for path in (*case.images, case.label)}
    manifest = load_msd(root / "dataset.json")
    with pytest.raises(DataError, match="its header is probably in metres") as refused:
        preprocess_settings(DataConfig(), manifest)
    line = re.search(r"nibabel, from metres: (img = .*, path\))\)", str(refused.value)).group(1)
    for path in (*case.images, case.label):
        exec(line, {"nib": nib, "np": np, "path": str(path)})
        assert nib.load(path).header.get_xyzt_units()[0] == "mm"
        assert np.allclose(nib.load(path).affine, affines[path], atol=1e-3)
    assert preprocess_settings(DataConfig(), load_msd(root / "dataset.json"))


def test_voxels_that_fine_indeed_pass_a_data_spacing_coarser_on_purpose_where_their_header_declares_mm(
        tiny_dataset, tmp_path):
    """Micro-CT or microscopy resampled 100 times coarser on purpose was refused as a header in metres, with no way
    past (hundred-and-fifth session): a header that declares its unit mm (xyzt_units) is taken at its word against
    a data.spacing set, and the refusal says so. Metres ('meter', or no unit: nibabel's default) and micrometres,
    which nothing converts, stay refused, and so does the median, which no one chose. Since the
    hundred-and-seventeenth session (helper h88) only where most cases are that fine: one case among cases of 2 mm,
    its header declaring mm, is refused as far finer than the cases' median too (a case in metres written by ITK)."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    coarse = DataConfig(spacing=(2.0, 2.0, 2.0))
    for unit in ("unknown", "meter", "micron"):
        root, (case,) = metres_copy(tiny_dataset, tmp_path / unit, unit=unit)
        with pytest.raises(DataError, match=r"1,000 times finer than data.spacing 2 x 2 x 2 mm.* set data.spacing "
                                            r"nearer to them, or, where it is coarser on purpose, declare the unit of "
                                            r"its files mm, which this check takes at its word \(nibabel: (img = .*, "
                                            r"path\))\)$") as refused:
            preprocess_settings(coarse, load_msd(root / "dataset.json"))
    line = re.search(r"\(nibabel: (img = .*, path\))\)$", str(refused.value)).group(1)
    for path in (*case.images, case.label):  # the micrometres' case: its geometry kept, its unit mm
        before = nib.load(path).affine
        exec(line, {"nib": nib, "np": np, "path": str(path)})
        assert nib.load(path).header.get_xyzt_units()[0] == "mm" and np.array_equal(nib.load(path).affine, before)
    with pytest.raises(DataError, match=r"or leave the case out \(its header declares mm, which this check takes at "
                                        r"its word against a data.spacing coarser on purpose, but its voxels are "
                                        r"1,000 times finer than the cases' median voxel size [\d.x ]+ mm too"):
        preprocess_settings(coarse, load_msd(root / "dataset.json"))  # one case so, among cases of 2 mm
    with pytest.raises(DataError, match=r"1,000 times finer than the training cases' median spacing"):
        preprocess_settings(DataConfig(), load_msd(root / "dataset.json"))  # a median is chosen by no one
    # 6 of the 9 cases that fine passed here until helper h92 of the hundred-and-seventeenth session, each case of 20
    # voxels resampled to one: refused now (check_cases_kept); micro-CT 2,000 voxels along passes so
    # (test_spacing_units_edges)
    root, _ = metres_copy(tiny_dataset, tmp_path / "most", cases=6, unit="mm")
    with pytest.raises(DataError, match=r"^data.spacing 2 x 2 x 2 mm would resample 6 of 9 cases to fewer than 4 "
                                        r"voxels along their longest axis, no structure left in them: .* would become "
                                        r"1 x 1 x 1 voxels\. The cases' median voxel size is 0.002 x 0.002 x 0.004 mm, "
                                        r"1,000 times finer than data.spacing: set data.spacing nearer") as refused:
        preprocess_settings(coarse, load_msd(root / "dataset.json"))
    assert "micrometres?" not in str(refused.value)  # 0.04 mm across is no scan: the cases' headers are likelier off


@pytest.mark.parametrize("name", ["scan.nii", "scan.nii.gz"])
def test_the_nibabel_lines_offered_keep_the_voxels_of_an_uncompressed_file_and_its_time_unit(tmp_path, name):
    """The refusals' lines (from metres or micrometres to mm, and the unit declared mm), run as written: on an
    uncompressed .nii, which nibabel maps rather than reads, they saved the file over its own mapped voxels, 119 of
    120 changed (hundred-and-fifth session's probe), and set_xyzt_units('mm') set a 4-D file's time unit to
    unknown."""
    import nibabel as nib

    from accelerated_seg.data import spacing

    affine = np.array([[0, -0.002, 0, 1], [0.002, 0, 0, 2], [0, 0, 0.004, 3], [0, 0, 0, 1.0]])
    voxels = np.arange(240, dtype=np.int16).reshape(6, 5, 4, 2)
    lines = {"from metres": (spacing.REWRITE_IN_MM.split("nibabel, from metres: ", 1)[1], 1000),
             "declared mm": (re.search(r"\(nibabel: (.*)\)$", spacing.DECLARE_MM).group(1), 1),
             "from micrometres": (spacing.REWRITE_FROM_MICROMETRES_CODE, 0.001)}
    for what, (line, scale) in lines.items():
        path = tmp_path / what / name
        path.parent.mkdir()
        image = nib.Nifti1Image(voxels, affine)
        image.header.set_xyzt_units("unknown", "sec")
        nib.save(image, path)
        exec(line, {"nib": nib, "np": np, "path": str(path)})
        written = nib.load(path)
        assert np.array_equal(np.asanyarray(written.dataobj), voxels), what
        assert written.header.get_xyzt_units() == ("mm", "sec"), what
        assert np.allclose(written.affine, np.diag([scale, scale, scale, 1]) @ affine), what


@pytest.mark.parametrize("time_code", [8, 56])
def test_the_nibabel_lines_offered_run_on_a_header_whose_time_code_nibabel_has_no_name_for(tmp_path, time_code):
    """The checks read a header's unit from xyzt_units' spatial bits alone, so a file in micrometres whose time code
    nibabel has no name for (56) is refused as micrometres, and the lines offered read the time unit back with
    get_xyzt_units(), which raised KeyError for it (found in the hundred-and-sixth session's review). Every line,
    to mm and to micrometres, sets the unit and keeps the time bits as they are, 8 (seconds) too."""
    import nibabel as nib

    from accelerated_seg.data import spacing

    lines = {"to mm": (spacing.rewrite_code("0.001"), "mm"), "declared mm": (spacing.declare_code(), "mm"),
             "to micrometres": (spacing.rewrite_code("1000", "micron"), "micron"),
             "declared micrometres": (spacing.declare_code("micron"), "micron")}
    for what, (line, unit) in lines.items():
        path = tmp_path / f"{what}.nii.gz"
        image = nib.Nifti1Image(np.zeros((4, 4, 4), np.int16), np.diag([2.0, 2.0, 2.0, 1.0]))
        image.header["xyzt_units"] = time_code | (nib.nifti1.unit_codes["micron"] if unit == "mm" else 2)
        nib.save(image, path)
        exec(line, {"nib": nib, "np": np, "path": str(path)})
        written = nib.load(path)
        assert spacing.spatial_unit(written) == unit, what
        assert int(written.header["xyzt_units"]) & 56 == time_code, what


def in_units(tiny_dataset, tmp_path, units: dict[str, str]):
    """A copy of the tiny dataset whose cases' headers declare ``units`` (case id -> unit; 'micron' for the rest),
    each case's numbers in its unit (its voxels 2 mm: 2000 in micrometres, 0.002 in metres; none: micrometres, as
    the dataset's), images and labels."""
    import shutil

    import nibabel as nib

    root = tmp_path / "data"
    shutil.copytree(tiny_dataset.parent, root)
    manifest = load_msd(root / "dataset.json")
    per_mm = {"micron": 1000.0, "mm": 1.0, "meter": 1e-3, "unknown": 1000.0}
    for case in manifest.training + manifest.validation:
        unit = units.get(case.id, "micron")
        for path in (*case.images, case.label):
            image = nib.load(path)
            scale = np.diag([per_mm[unit]] * 3 + [1.0])
            scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), scale @ image.affine, image.header)
            scaled.header.set_xyzt_units(unit)
            nib.save(scaled, path)
    return root, manifest


def test_cases_whose_headers_declare_different_units_are_refused_naming_one_file_of_each(tiny_dataset, tmp_path,
                                                                                         capsys):
    """Microscopy in micrometres with one case converted to mm by another tool: the mm case, 1000 times finer than
    a data.spacing in the micrometres' numbers and declaring mm, passed as coarser on purpose and trained as a voxel
    or two (hundred-and-sixth session's probe). Cases of different units are refused before any work, by training
    and by the check command, naming a file of each unit and the nibabel lines; a header with no unit agrees with
    any, and the line given makes the case agree."""
    import nibabel as nib

    from accelerated_seg.cli import main
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root, manifest = in_units(tiny_dataset, tmp_path, {"case_001": "mm", "case_003": "unknown"})
    in_mm = next(case for case in manifest.training + manifest.validation if case.id == "case_001")
    in_micrometres = next(case for case in manifest.training + manifest.validation if case.id == "case_000")
    microns = DataConfig(spacing=(2000.0, 2000.0, 2000.0), max_voxels=10**9)
    with pytest.raises(DataError, match=rf"^the cases' headers declare their voxel sizes in different units "
                                        rf"\(xyzt_units\): 7 in micrometres \(case_000: "
                                        rf"{re.escape(str(in_micrometres.images[0]))}\); 1 in mm \(case_001: "
                                        rf"{re.escape(str(in_mm.images[0]))}\)\. .* would scale the cases of one "
                                        rf"unit 1,000 times .* from micrometres: (img = .*, path\))\), or, where "
                                        rf"a file's numbers are mm already .* declare it mm") as refused:
        preprocess_settings(microns, manifest)
    assert main(["check", str(root / "dataset.json")]) == 1
    assert "error: the cases' headers declare their voxel sizes in different units" in capsys.readouterr().err
    # the cases in micrometres (the one with no unit too) rewritten in mm by the line given: the mm case's numbers
    for case in manifest.training + manifest.validation:
        if case.id != "case_001":
            for path in (*case.images, case.label):
                exec(refused.value.args[0].split("from micrometres: ")[1].split("), or, where")[0],
                     {"nib": nib, "np": np, "path": str(path)})
    assert preprocess_settings(DataConfig(), load_msd(root / "dataset.json")).spacing == pytest.approx((2, 2, 2))


def test_headers_in_micrometres_train_in_their_numbers_and_a_data_spacing_in_mm_is_told_so(tiny_dataset, tmp_path):
    """Every header in micrometres: their numbers are read as they are, and a data.spacing in the same numbers
    trains (not refused: one unit throughout resamples as mm would). One given in mm, 1,000 times finer than the
    voxels, was told "given in metres? it is in mm", the wrong way for microscopy (hundred-and-sixth session)."""
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root, manifest = in_units(tiny_dataset, tmp_path, {})
    assert preprocess_settings(DataConfig(spacing=(2000.0,) * 3), manifest).spacing == (2000.0,) * 3
    with pytest.raises(DataError, match=r"data.spacing is 1,000 times finer than its voxels, whose header declares "
                                        r"micrometres: spacings are read in the headers' numbers, so give "
                                        r"data.spacing in micrometres \(docs/data.md\); else, choose a coarser"):
        preprocess_settings(DataConfig(spacing=(2.0,) * 3), manifest)


def test_a_case_declaring_no_unit_among_micrometres_is_told_to_be_rewritten_in_micrometres(tiny_dataset, tmp_path):
    """Microscopy in micrometres with a case whose header declares no unit and whose numbers are mm: 1,000 times
    finer than the spacing, it was told its header was in metres and given the line from metres, which made its
    numbers micrometres' and declared it mm, so that the cases' one unit then refused it; and to declare it mm,
    refused so too (hundred-and-sixth session's review). It is told to rewrite it in micrometres, which trains."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import settings_and_unit

    root, manifest = in_units(tiny_dataset, tmp_path, {})
    unitless = next(case for case in manifest.training if case.id == "case_001")
    for path in (*unitless.images, unitless.label):
        image = nib.load(path)
        in_mm = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([0.001] * 3 + [1.0]) @ image.affine)
        in_mm.header.set_xyzt_units(0)
        nib.save(in_mm, path)
    microns = DataConfig(spacing=(2000.0,) * 3)
    with pytest.raises(DataError, match=r"^case_001: .*: voxels of 2 x 2 x 2 mm, 1,000 times finer than data.spacing "
                                        r".*: its header declares no unit \(xyzt_units\) where the training cases' "
                                        r"declare micrometres, so its numbers are probably mm\. Rewrite it in "
                                        r"micrometres \(nibabel: (img = .*, path\))\), its label's too, or leave the "
                                        r"case out; or, if its voxels are that fine indeed, set data.spacing nearer "
                                        r"to them$") as refused:
        settings_and_unit(microns, manifest)
    for path in (*unitless.images, unitless.label):
        exec(refused.value.args[0].split("(nibabel: ")[1].split("), its label's")[0],
             {"nib": nib, "np": np, "path": str(path)})
    assert settings_and_unit(microns, load_msd(root / "dataset.json"))[1] == "micron"


def two_channel_cases(root, channel_units: dict[str, tuple]):
    """An nnU-Net raw folder of 4 cases of two channels (_0000, _0001) and a label, 8^3 voxels of 2 mm, every file
    declaring mm but those of ``channel_units`` (case id -> (channel 0's unit, channel 1's, channel 1's numbers
    times this[, the label's unit])); returns dataset.json's path."""
    import nibabel as nib

    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index in range(4):
        case = f"case_{index:03d}"
        units = channel_units.get(case, ("mm", "mm", 1.0))
        label = (rng.random((8, 8, 8)) > 0.7).astype(np.uint8)
        for name, voxels, unit, scale in ((f"{case}_0000", rng.random((8, 8, 8)) + 1, units[0], 1.0),
                                          (f"{case}_0001", rng.random((8, 8, 8)) + 1, units[1], units[2]),
                                          (case, label, (*units, "mm")[3], 1.0)):
            image = nib.Nifti1Image(voxels.astype(np.uint8 if name == case else np.float32),
                                    np.diag([2.0 * scale] * 3 + [1.0]))
            image.header.set_xyzt_units(unit)
            nib.save(image, root / ("labelsTr" if name == case else "imagesTr") / f"{name}.nii.gz")
    (root / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 4,
                                                   "labels": {"background": 0, "tumour": 1},
                                                   "file_ending": ".nii.gz"}))
    return root / "dataset.json"


@pytest.mark.parametrize("numbers", ["the first one's", "its unit's"])
def test_a_channel_declaring_another_unit_than_its_cases_first_is_refused_before_training_with_the_lines(
        tmp_path, capsys, numbers):
    """Training's checks judged each case's first image alone: a second channel declaring micrometres beside a
    first in mm trained unjudged with the first one's numbers, and with its numbers in micrometres (1000 times
    apart) was told to resample the channels onto one grid, the wrong way on (hundred-and-seventh session; the
    case's check, tests/test_checks.py, since its review). ``accelerated-seg check``, training and the estimator's
    checks (prepare_manifest) refuse it, before any cache, naming both files and the nibabel lines; the line that
    fits, run as given, makes the case train."""
    import nibabel as nib

    from accelerated_seg.cli import main
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import prepare_manifest, settings_and_unit
    from conftest import tiny_overrides

    scale = 1.0 if numbers == "the first one's" else 1000.0
    dataset = two_channel_cases(tmp_path / "data", {"case_002": ("mm", "micron", scale)})
    first, second = (tmp_path / "data" / "imagesTr" / f"case_002_000{channel}.nii.gz" for channel in (0, 1))
    said = (rf"case_002 \(image channels\): {re.escape(str(second))}: its header declares its voxel sizes in "
            rf"micrometres \(xyzt_units\), that of {re.escape(str(first))}, a channel of the same case, in mm\. .* "
            rf"resampling them to one spacing would scale one 1,000 times against the other\. ")
    # the same numbers under two units: a unit alone is wrong, the declaring line first (h64)
    said += (r"Rewrite it in mm \(nibabel: (img = .*, path\))\), or, where its numbers are mm already and its unit "
             r"alone is wrong, declare it so \(nibabel: (img = .*, path\))\); or the other way round" if scale != 1.0
             else rf"Their numbers are the same \(2 x 2 x 2\): .* Where they are mm \(voxels of 2 x 2 x 2 mm\), "
                  rf"declare {re.escape(str(second))} mm \(nibabel: (img = .*?nib\.save\(img, path\))\); or, ")
    assert main(["check", str(dataset)]) == 1
    assert re.search(rf"^error: {said}", capsys.readouterr().err, re.M)
    with pytest.raises(SystemExit, match="^2$"):  # train ends on the first refusal, as a launched rank does
        main(["train", *tiny_overrides(dataset, tmp_path / "run", data__cache_dir=str(tmp_path / "cache"))])
    assert re.search(said, capsys.readouterr().err) and not (tmp_path / "cache").exists()
    with pytest.raises(DataError, match=said) as refused:
        prepare_manifest(DataConfig(dataset=str(dataset)), tmp_path / "run")
    exec(re.search(said, refused.value.args[0]).group(1), {"nib": nib, "np": np, "path": str(second)})
    manifest, report = prepare_manifest(DataConfig(dataset=str(dataset)), tmp_path / "run")
    assert report.errors == [] and settings_and_unit(DataConfig(), manifest)[0].spacing == (2.0, 2.0, 2.0)


def test_every_channel_file_is_judged_against_the_other_cases_unit_and_a_channel_declaring_none_agrees(tmp_path,
                                                                                                     capsys):
    """A case whose first channel declares no unit and whose second declares micrometres, among cases in mm, trained
    unjudged: the cases' one unit was read from each case's first image alone, and the case's own check finds no two
    declared units (hundred-and-seventh session). Every channel file's header is judged now, from the one read of
    the headers the spacing checks make, naming the file; a channel declaring no unit beside one in mm agrees (most
    such files are in mm), as a case's header does."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import prepare_manifest, settings_and_unit

    unitless = two_channel_cases(tmp_path / "unitless", {"case_001": ("mm", "unknown", 1.0)})
    assert main(["check", str(unitless)]) == 0
    assert settings_and_unit(DataConfig(), prepare_manifest(DataConfig(dataset=str(unitless)), tmp_path)[0])[1] == "mm"
    capsys.readouterr()
    # its label of no unit too: with a label in mm, the case's own check refuses it first, naming every file and
    # its unit (a label was judged against channel 0 alone, so it agreed, until the hundred-and-eleventh session)
    labelled_mm = two_channel_cases(tmp_path / "labelled_mm", {"case_002": ("unknown", "micron", 1.0)})
    assert main(["check", str(labelled_mm)]) == 1
    assert re.search(r"^error: case_002 \(image channels and label\): the headers of the case's files declare "
                     r"different units .*_0000\.nii\.gz \(image channel 0, T1\): none; .*_0001\.nii\.gz "
                     r"\(image channel 1, T2\): micrometres; .*case_002\.nii\.gz \(label\): mm\. ",
                     capsys.readouterr().err, re.M)
    dataset = two_channel_cases(tmp_path / "data", {"case_002": ("unknown", "micron", 1.0, "unknown")})
    second = tmp_path / "data" / "imagesTr" / "case_002_0001.nii.gz"
    said = (rf"^the cases' headers declare their voxel sizes in different units \(xyzt_units\): 3 in mm \(case_000: "
            rf"{re.escape(str(tmp_path / 'data' / 'imagesTr' / 'case_000_0000.nii.gz'))}\); 1 in micrometres "
            rf"\(case_002: {re.escape(str(second))}\)\. .* from micrometres: img = .*, or, where a file's numbers "
            rf"are mm already and its unit alone is wrong, declare it mm")
    assert main(["check", str(dataset)]) == 1
    assert re.search(said.replace("^", "^error: "), capsys.readouterr().err, re.M)
    manifest, report = prepare_manifest(DataConfig(dataset=str(dataset)), tmp_path / "run")  # each case agrees
    with pytest.raises(DataError, match=said):
        settings_and_unit(DataConfig(), manifest)


@pytest.mark.parametrize("units", [("mm", "micron"), ("mm", "meter"), ("meter", "micron"), ("mm", "micron", "meter")])
def test_cases_of_different_units_are_offered_the_rewrite_from_each_unit_they_declare_alone(tmp_path, units):
    """Cases in mm and micrometres were offered the line "from metres" too, and cases in mm and metres the one "from
    micrometres", for a unit no case declared (37 of the units probe's 553 errors, every_unit_error_text.py, in the
    hundred-and-twelfth session's review): the refusal offers the rewrite from each unit the cases declare alone,
    and each line offered, run on a file of its unit, leaves it in mm at its true voxel size (2 mm)."""
    from types import SimpleNamespace

    import nibabel as nib

    from accelerated_seg.data.header_units import UNIT_MM
    from accelerated_seg.data.spacing import one_spatial_unit

    files = []
    for index, unit in enumerate(units):
        path = tmp_path / f"case_{index}.nii.gz"
        image = nib.Nifti1Image(np.zeros((2, 2, 2), np.float32), np.diag([2 / UNIT_MM[unit][1]] * 3 + [1.0]))
        image.header.set_xyzt_units(unit)
        nib.save(image, path)
        files.append((SimpleNamespace(id=f"case_{index}"), path, nib.load(path)))
    with pytest.raises(DataError) as refused:
        one_spatial_unit(files)
    said = str(refused.value)
    for unit, word in (("meter", "metres"), ("micron", "micrometres")):
        assert (f"from {word}: img = " in said) == (unit in units), said
        if unit in units:
            line = re.search(rf"from {word}: (img = .*?, path\))", said).group(1)
            path = files[units.index(unit)][1]
            exec(line, {"nib": nib, "np": np, "path": str(path)})
            assert nib.load(path).header.get_xyzt_units()[0] == "mm"
            assert np.allclose(nib.affines.voxel_sizes(nib.load(path).affine), 2.0), word


@pytest.mark.parametrize("spacing", [None, (2.0, 2.0, 2.0)])
def test_the_target_spacing_and_its_unit_read_each_image_files_header_once(tmp_path, monkeypatch, spacing):
    """The median spacing loaded the training cases' first images again after the checks had read them: since the
    units' check reads every channel's header (hundred-and-seventh session), the median is taken from those same
    headers, so each image file is loaded once, the median as before, and no label is loaded."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest
    from accelerated_seg.data.spacing import median_spacing, target_spacing_and_unit

    dataset = two_channel_cases(tmp_path / "data", {"case_001": ("mm", "mm", 0.5)})
    manifest = load_manifest(DataConfig(dataset=str(dataset)), tmp_path)
    images = sorted(str(path) for case in manifest.training + manifest.validation for path in case.images)
    loaded, load = [], nib.load
    monkeypatch.setattr(nib, "load", lambda path, *args, **kwargs: loaded.append(str(path)) or load(path, *args,
                                                                                                   **kwargs))
    found = target_spacing_and_unit(DataConfig(dataset=str(dataset), spacing=spacing), manifest)
    assert sorted(loaded) == images
    monkeypatch.setattr(nib, "load", load)
    median = median_spacing([case.images[0] for case in manifest.training])
    assert found[:2] == (spacing or median, "mm")


@pytest.mark.parametrize("num_folds", [0, 5])
def test_the_median_from_the_headers_read_once_is_that_of_the_median_cases_first_images_to_the_bit(tmp_path,
                                                                                                  num_folds):
    """The median spacing is taken from the headers the units' check reads, every channel's of every case (the
    hundred-and-seventh session): it is still the median of the first images of ``median_cases`` alone, bit for bit
    as ``median_spacing`` loads them, on oblique grids of other voxel sizes per case and channel. The test above has
    every first image at 2 mm, so a median over every channel file, or over the validation cases too, passed it (a
    review's mutations of ``_median_of``). Every first channel declares no unit and every second mm: the unit the
    export records is mm, where it was None while each case's first image alone was read."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest
    from accelerated_seg.data.spacing import median_cases, median_spacing, target_spacing_and_unit

    root, rng = tmp_path / "data", np.random.default_rng(7)
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    for index in range(10):
        case = f"case_{index:03d}"
        for name, unit in ((f"{case}_0000", "unknown"), (f"{case}_0001", "mm"), (case, "mm")):
            affine = np.eye(4)
            affine[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0] @ np.diag(rng.uniform(0.5, 4.0, 3))
            image = nib.Nifti1Image(np.ones((4, 5, 6), np.uint8), affine)
            image.header.set_xyzt_units(unit)
            nib.save(image, root / ("labelsTr" if name == case else "imagesTr") / f"{name}.nii.gz")
    (root / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 10,
                                                   "labels": {"background": 0, "tumour": 1},
                                                   "file_ending": ".nii.gz"}))
    data = DataConfig(dataset=str(root / "dataset.json"), num_folds=num_folds, fold=1 if num_folds else 0)
    manifest = load_manifest(data, tmp_path)
    cases = median_cases(manifest)[0]
    median = median_spacing([case.images[0] for case in cases])
    # the dataset tells the median apart from one over every channel file, or over every case where it is not one
    assert median != median_spacing([path for case in cases for path in case.images])
    every_case = median_spacing([case.images[0] for case in manifest.training + manifest.validation])
    assert (median == every_case) == bool(num_folds)
    spacing, unit, _ = target_spacing_and_unit(data, manifest)
    assert [size.hex() for size in spacing] == [size.hex() for size in median] and unit == "mm"


def test_a_header_whose_time_code_nibabel_cannot_name_still_declares_its_spatial_unit():
    """nibabel's get_xyzt_units() raises for a time code it has no name for (mm with 56: 58): such a header in mm
    was 'unknown' to the unit checks, and declared_in_mm raised KeyError, a traceback where the far finer check
    takes a header in mm at its word (hundred-and-sixth session's review)."""
    from types import SimpleNamespace

    import nibabel as nib

    from accelerated_seg.data.spacing import check_voxels_in_mm, declared_in_mm, spatial_unit

    image = nib.Nifti1Image(np.zeros((4, 4, 4), np.int16), np.diag([0.002] * 3 + [1.0]))
    image.header["xyzt_units"] = 2 | 56
    with pytest.raises(KeyError):
        image.header.get_xyzt_units()
    assert spatial_unit(image) == "mm" and declared_in_mm(image)
    check_voxels_in_mm(None, [(SimpleNamespace(id="case_000", images=["x.nii.gz"]), image)], (2.0, 2.0, 2.0))
    image.header["xyzt_units"] = 5  # a spatial code NIfTI gives no meaning
    assert spatial_unit(image) == "unknown" and not declared_in_mm(image)


def test_a_case_declaring_no_unit_among_mm_far_coarser_than_the_spacing_is_told_to_be_rewritten_from_micrometres(
        tiny_dataset, tmp_path):
    """A case whose header declares no unit and whose numbers are micrometres, among cases declaring mm: 1,000
    times coarser than the spacing, over the budget, it was told the data.spacing was given in metres, or, against
    the median, that most headers were in metres (hundred-and-sixth session's review). It is told to rewrite it
    from micrometres, which trains; in predict's words since the hundred-and-sixteenth session (helper h84)."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import settings_and_unit

    root, manifest = in_units(tiny_dataset, tmp_path, {case.id: "mm" for case in manifest_cases(tiny_dataset)
                                                       if case.id != "case_001"} | {"case_001": "unknown"})
    for spacing in ((2.0,) * 3, None):
        with pytest.raises(DataError, match=r"case_001 \(.*\) would hold about [\d,]+: \S+case_001\S*: its header "
                                            r"declares no unit for its voxel sizes \(xyzt_units\), the dataset's "
                                            r"cases' mm\. .* tells which is the case's, the one nearest it, .* mm: "
                                            r"rewrite \S+ from micrometres, its numbers micrometres under no unit "
                                            r"\(nibabel: (img = .*?, path\))\); or, .*, its label too; else, "
                                            r"choose") as refused:
            settings_and_unit(DataConfig(spacing=spacing), manifest)
    unitless = next(case for case in manifest.training + manifest.validation if case.id == "case_001")
    for path in (*unitless.images, unitless.label):
        exec(re.search(r"\(nibabel: (img = .*?, path\))\)", str(refused.value)).group(1),
             {"nib": nib, "np": np, "path": str(path)})
    assert settings_and_unit(DataConfig(spacing=(2.0,) * 3), load_msd(root / "dataset.json"))[1] == "mm"


def _one_case_off(tiny_dataset, tmp_path, scale: float, unit: str):
    """The tiny dataset with every case in mm but case_001, its numbers ``scale`` times mm and its header declaring
    ``unit`` (images and label): the dataset's root, its manifest, and case_001."""
    import nibabel as nib

    root, manifest = in_units(tiny_dataset, tmp_path, {case.id: "mm" for case in manifest_cases(tiny_dataset)})
    off = next(case for case in manifest.training + manifest.validation if case.id == "case_001")
    for path in (*off.images, off.label):
        image = nib.load(path)
        moved = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([scale] * 3 + [1.0]) @ image.affine, image.header)
        moved.header.set_xyzt_units(unit)
        nib.save(moved, path)
    return root, manifest, off


def _predicts_words(path, spacing) -> str:
    """What predict says of the file at ``path`` for a model in mm at ``spacing``."""
    import nibabel as nib

    from accelerated_seg.data.grid_agreement import Volume
    from accelerated_seg.inference_case_units import spacing_case_words

    return spacing_case_words([Volume("channel 0", path, nib.load(path))], spacing, False, "mm") or ""


@pytest.mark.parametrize("scale, unit, line", [
    (1000.0, "mm", r"rewrite \S+case_001\S* from micrometres, its numbers micrometres under a header of mm"),
    (1.0, "micron", r"declare \S+case_001\S* mm, its numbers mm already under a header of micrometres"),
    (1.0, "meter", r"declare \S+case_001\S* mm, its numbers mm already under a header of metres")])
def test_a_case_whose_unit_is_wrong_is_told_the_line_predict_tells_against_the_same_spacing(tiny_dataset, tmp_path,
                                                                                            scale, unit, line):
    """One case among cases in mm whose header's unit is wrong about its numbers: declaring mm on micrometre numbers
    (2 mm voxels written 2000), training's budget refusal said "data.spacing is 1,000 times finer than its voxels
    (given in metres? it is in mm)" or, against the median, that most headers were in metres; declaring micrometres
    (or metres) on mm numbers, the units' refusal offered the rewrite from that unit first, 0.002 mm (2,000 mm)
    voxels once run. Predict, for a model in mm at the same spacing, told the line its spacing tells (until the
    hundred-and-sixteenth session, helper h84, ``benchmarks/results/units_train_vs_predict_2026-12-06/``). Training
    tells predict's line first, data.spacing set or the median, and, run on the case's files, it trains."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import settings_and_unit

    root, manifest, off = _one_case_off(tiny_dataset, tmp_path, scale, unit)
    for spacing in ((2.0,) * 3, None):
        with pytest.raises(DataError) as refused:
            settings_and_unit(DataConfig(spacing=spacing), manifest)
        said = str(refused.value)
        assert "given in metres" not in said and "most headers" not in said, said
        told = re.search(rf"tells which is the case's, the one nearest it, [\d.]+ x [\d.]+ x [\d.]+ mm: {line} "
                         r"\(nibabel: (img = .*?, path\))\)", said)
        assert told, said
        assert told.group(1) in _predicts_words(off.images[0], (2.0,) * 3)  # predict's first line, the same
    for path in (*off.images, off.label):
        exec(told.group(1), {"nib": nib, "np": np, "path": str(path)})
    assert settings_and_unit(DataConfig(spacing=(2.0,) * 3), load_msd(root / "dataset.json"))[1] == "mm"
    assert settings_and_unit(DataConfig(), load_msd(root / "dataset.json"))[1] == "mm"


def test_a_micro_ct_case_in_micrometres_declaring_mm_is_told_its_micrometre_reading_not_metres(tiny_dataset,
                                                                                                  tmp_path):
    """Micro-CT at 0.02 mm (20 micrometres) in mm, one case written in micrometres under a header of mm (20): its
    true reading, 0.02 mm, lies farther from 1 mm than its own, 20 mm, so helper h84's bound (a reading told only
    nearer 1 mm than the case's own) told it nothing, and the budget refusal said "data.spacing is 1,000 times finer
    than its voxels (given in metres? it is in mm)", or, against the median, that most headers were in metres,
    where predict told its micrometre reading (the review of h84, r72,
    ``benchmarks/results/review_units_train_vs_predict_2026-12-06/``). Told predict's line; run, it trains."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import settings_and_unit

    root, manifest, off = _one_case_off(tiny_dataset, tmp_path, 1.0, "mm")
    for case in manifest.training + manifest.validation:  # 2 mm phantoms as 0.02 mm micro-CT; case_001's 20
        for path in (*case.images, case.label):
            image = nib.load(path)
            scale = np.diag([10.0 if case.id == "case_001" else 0.01] * 3 + [1.0])
            nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), scale @ image.affine, image.header), path)
    for spacing in ((0.02,) * 3, None):
        with pytest.raises(DataError) as refused:
            settings_and_unit(DataConfig(spacing=spacing), manifest)
        said = str(refused.value)
        assert "given in metres" not in said and "most headers" not in said, said
        told = re.search(r"tells which is the case's, the one nearest it, 0.02 x 0.02 x 0.02 mm: rewrite \S+case_001"
                         r"\S* from micrometres, its numbers micrometres under a header of mm \(nibabel: "
                         r"(img = .*?, path\))\)", said)
        assert told, said
        assert told.group(1) in _predicts_words(off.images[0], (0.02,) * 3)
    for path in (*off.images, off.label):
        exec(told.group(1), {"nib": nib, "np": np, "path": str(path)})
    assert settings_and_unit(DataConfig(spacing=(0.02,) * 3), load_msd(root / "dataset.json"))[1] == "mm"


def test_most_cases_in_micrometres_declaring_mm_tell_the_median_not_the_cases_in_mm_to_be_rewritten(tiny_dataset,
                                                                                                       tmp_path):
    """Most cases written in micrometres under a header of mm (2 mm voxels written 2000), data.spacing unset: their
    median, 2000, is 1,000 times coarser than the cases truly in mm, which the far finer check told "its header is
    probably in metres, not mm. Rewrite its geometry in mm (nibabel, from metres: …)": run, 2000 mm voxels (the
    review of h84, r72, ``benchmarks/results/review_units_train_vs_predict_2026-12-06/``). The
    median is told to be taken from headers mostly in micrometres, with the line from micrometres; run on those, the
    cases train."""
    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import settings_and_unit

    root, manifest = in_units(tiny_dataset, tmp_path, {case.id: "mm" for case in manifest_cases(tiny_dataset)})
    in_micrometres = [case for case in manifest.training + manifest.validation
                      if case.id not in ("case_000", "case_001")]
    for case in in_micrometres:
        for path in (*case.images, case.label):
            image = nib.load(path)
            scale = np.diag([1000.0] * 3 + [1.0])
            nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), scale @ image.affine, image.header), path)
    with pytest.raises(DataError) as refused:
        settings_and_unit(DataConfig(), manifest)
    said = str(refused.value)
    assert "probably in metres" not in said and "from metres" not in said, said
    told = re.search(r"the median is 1,000 times coarser than its voxels, so most headers it is taken from are "
                     r"probably in micrometres, not mm: rewrite those in mm, their labels too \(nibabel, from "
                     r"micrometres: (img = .*?, path\))\)", said)
    assert told, said
    for case in in_micrometres:
        for path in (*case.images, case.label):
            exec(told.group(1), {"nib": nib, "np": np, "path": str(path)})
    assert settings_and_unit(DataConfig(), load_msd(root / "dataset.json"))[1] == "mm"


def test_a_median_of_2d_cases_is_not_told_to_be_in_micrometres():
    """A 3D case (0.8 x 0.8 x 2 mm) far finer than a median of nnU-Net's 2D cases (slices 999 mm thick) along its
    slices: no reading puts that median within scans' sizes, so it is no median in micrometres; a first try of the
    review of h84 (r72) said so, and its line from micrometres would have shrunk every 2D case's rows to 0.0008 mm.
    The median of cases mostly in micrometres under mm (2000) is one; a case in metres among cases in mm is not."""
    import nibabel as nib

    from accelerated_seg.data.spacing import _median_in_micrometres

    def in_mm(zooms):
        image = nib.Nifti1Image(np.zeros((8, 8, 8), np.float32), np.diag([*zooms, 1.0]))
        image.header.set_xyzt_units("mm")
        return image

    assert not _median_in_micrometres(in_mm((0.8, 0.8, 2.0)), (0.8, 0.8, 999.0), "mm")
    assert _median_in_micrometres(in_mm((2.0, 2.0, 2.0)), (2000.0,) * 3, "mm")
    assert not _median_in_micrometres(in_mm((0.002,) * 3), (2.0,) * 3, "mm")


def manifest_cases(tiny_dataset) -> list:
    """The tiny dataset's cases, training and validation."""
    manifest = load_msd(tiny_dataset)
    return manifest.training + manifest.validation


def test_the_unit_an_export_records_is_read_with_the_headers_the_spacing_checks_read(tiny_dataset, tmp_path,
                                                                                     monkeypatch):
    """The unit training's export records (spacing_unit) was read from the cases' headers once more, up to the first
    that declares one: on a dataset whose headers declare none, nibabel's default, every header again on every rank,
    0.16-0.26 s for 300 phantoms (benchmarks/spacing_unit_startup_cost.py; hundred-and-sixth session's review). It is
    the one the spacing's checks find in the headers they read: none where none declares one."""
    import nibabel as nib

    from accelerated_seg.config import Config
    from accelerated_seg.data.prepare import settings_and_unit
    from accelerated_seg.run_records import export_metadata

    load, reads = nib.load, []
    monkeypatch.setattr(nib, "load", lambda *args, **kwargs: reads.append(args[0]) or load(*args, **kwargs))
    for units, unit in (({case: "unknown" for case in ("case_000", "case_001", "case_002")}, "unknown"),
                        ({"case_001": "unknown"}, "micron")):
        _, manifest = in_units(tiny_dataset, tmp_path / unit, units)
        if unit == "unknown":  # the cases declaring none alone
            manifest.training = [case for case in manifest.training + manifest.validation if case.id in units]
            manifest.validation = []
        cfg = Config()
        cfg.data.spacing = (2000.0,) * 3
        reads.clear()
        settings, found, _ = settings_and_unit(cfg.data, manifest)
        assert len(reads) == len(manifest.training + manifest.validation)  # each case's header, once
        assert found == (None if unit == "unknown" else unit)
        assert export_metadata(cfg, manifest, settings, found)["spacing_unit"] == found
        assert len(reads) == len(manifest.training + manifest.validation)  # none read again for the export


def test_a_single_slice_is_not_judged_by_the_thickness_its_header_gives(tiny_dataset, tmp_path):
    """A 2-D-like case of one slice is one voxel along that axis once resampled, whatever thickness its header
    gives: one of 0.01 mm against a data.spacing of 2 mm was refused as a header in metres (hundred-and-fourth
    session), where it had trained before; 100 times finer along an axis of more voxels is still refused."""
    import shutil

    import nibabel as nib

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    root = tmp_path / "data"
    shutil.copytree(tiny_dataset.parent, root)
    case = load_msd(root / "dataset.json").training[0]
    for path in (*case.images, case.label):
        image = nib.load(path)
        thin = np.diag([1.0, 1.0, 1.0, 1.0])
        thin[:3, :3] = image.affine[:3, :3]
        thin[:3, 2] *= 0.01 / np.linalg.norm(image.affine[:3, 2])  # the third voxel axis 0.01 mm, whichever way
        thin[:3, 3] = image.affine[:3, 3]
        nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj)[:, :, :1], thin), path)
    settings = DataConfig(spacing=(2.0, 2.0, 2.0))
    assert preprocess_settings(settings, load_msd(root / "dataset.json"))
    for path in (*case.images, case.label):
        image = nib.load(path)
        nib.save(nib.Nifti1Image(np.repeat(np.asanyarray(image.dataobj), 2, axis=2), image.affine), path)
    with pytest.raises(DataError, match=r"200 times finer than data.spacing 2 x 2 x 2 mm.* set data.spacing nearer"):
        preprocess_settings(settings, load_msd(root / "dataset.json"))
    nib.save(nib.Nifti1Image(np.zeros((8, 8), np.int16), np.eye(4)), case.images[0])  # 2D: the checks' to refuse
    assert preprocess_settings(settings, load_msd(root / "dataset.json"))
    nib.save(nib.Nifti1Image(np.zeros((8, 8), np.int16), np.diag([1e-3, 1e-3, 1e-3, 1])), case.images[0])
    with pytest.raises(DataError, match="leaves it 1 x 1 x 1 voxels"):  # in metres too: words, not an IndexError
        preprocess_settings(settings, load_msd(root / "dataset.json"))
    # a slice of nnU-Net's 999 mm over the budget: no question of metres, which its one voxel says nothing of
    nib.save(nib.Nifti1Image(np.zeros((400, 400, 1), np.int16), np.diag([2.0, 2.0, 999.0, 1])), case.images[0])
    with pytest.raises(DataError, match="beyond the budget") as refused:
        preprocess_settings(DataConfig(spacing=(2.0, 2.0, 2.0), max_voxels=100_000), load_msd(root / "dataset.json"))
    assert "metres" not in str(refused.value), refused.value


def test_the_foreground_crop_is_off_for_ct_unless_asked(tiny_dataset):
    # CT's air is -1000 HU and fat below 0: a box of the voxels above 0 would cut tissue away.
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    manifest = load_msd(tiny_dataset)
    crop = {(normalization, asked): preprocess_settings(DataConfig(normalization=normalization,
                                                                   crop_foreground=asked), manifest).crop_foreground
            for normalization in ("zscore", "ct") for asked in (None, True, False)}
    assert crop == {("zscore", None): True, ("zscore", True): True, ("zscore", False): False,
                    ("ct", None): False, ("ct", True): True, ("ct", False): False}


def test_the_ct_window_keys_the_cache_and_the_resume_check_only_where_it_clips(tiny_dataset, tmp_path):
    """A data.ct_window left in a config that z-scores (or whose ``auto`` resolved to zscore) did
    nothing but rebuild the whole cache under another key (seventy-first session)."""
    from accelerated_seg.resume_network_and_data import preprocessing_differences
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    manifest = load_msd(tiny_dataset)
    default, windowed = (preprocess_settings(DataConfig(normalization="zscore", ct_window=window), manifest)
                         for window in ((-1000.0, 1000.0), (-100.0, 300.0)))
    assert windowed == default and windowed.fingerprint() == default.fingerprint()
    ct = preprocess_settings(DataConfig(normalization="ct", ct_window=(-100.0, 300.0)), manifest)
    assert ct.ct_window == (-100.0, 300.0)
    assert ct.fingerprint() != preprocess_settings(DataConfig(normalization="ct"), manifest).fingerprint()
    # A zscore record from before, which kept the window it was given, still resumes under zscore.
    older = {**default.to_dict(), "ct_window": [-100.0, 300.0]}
    assert preprocessing_differences(older, default.to_dict(), "saved") == []
    assert preprocessing_differences({**ct.to_dict(), "ct_window": [-1000.0, 1000.0]}, ct.to_dict(), "saved") == [
        "ct_window: [-1000.0, 1000.0] saved, [-100.0, 300.0] here"]


def test_a_median_spacings_float32_noise_is_no_difference_and_is_not_shown():
    """A median spacing is read from the headers' float32 voxel sizes: an export trained at the median
    1.2 mm and a run given data.spacing [1.2, 1.2, 1.2] were told their spacings differed, as
    "[1.2000000476837158, ...] there, [1.2, 1.2, 1.2] here" (seventy-fourth session's probe)."""
    from accelerated_seg.resume_network_and_data import preprocessing_differences

    noisy = [float(np.float32(1.2)), float(np.float32(1.2)), float(np.float32(3.3))]
    assert noisy[0] == 1.2000000476837158
    assert preprocessing_differences({"spacing": noisy}, {"spacing": [1.2, 1.2, 3.3]}, "there") == []
    assert preprocessing_differences({"spacing": noisy}, {"spacing": [1.2, 1.2, 3.0]}, "there") == [
        "spacing: [1.2, 1.2, 3.3] there, [1.2, 1.2, 3.0] here"]
    assert preprocessing_differences({"spacing": noisy}, {"spacing": None}, "there") == [
        "spacing: [1.2, 1.2, 3.3] there, None here"]


def test_auto_normalization_follows_the_channels_the_dataset_declares(tiny_dataset):
    """A Decathlon CT task ("modality": {"0": "CT"}) was z-scored and cropped to the voxels above 0 HU
    unless data.normalization: ct was given (sixty-seventh session); nnU-Net reads the same field."""
    import dataclasses

    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.prepare import preprocess_settings

    manifest = load_msd(tiny_dataset)
    resolved = {}
    for channels in ({0: "CT"}, {0: "ct"}, {0: "MRI"}, {0: "CT", 1: "PET"}, {0: "CT", 1: "CT"}):
        settings = preprocess_settings(DataConfig(), dataclasses.replace(manifest, channels=channels))
        resolved[tuple(channels.values())] = (settings.normalization, settings.crop_foreground)
    assert resolved == {("CT",): ("ct", False), ("ct",): ("ct", False), ("MRI",): ("zscore", True),
                        ("CT", "PET"): ("zscore", True), ("CT", "CT"): ("ct", False)}
    ct = dataclasses.replace(manifest, channels={0: "CT"})
    assert preprocess_settings(DataConfig(normalization="zscore"), ct).normalization == "zscore"  # as asked
    assert DataConfig().normalization == "auto"


def _own_copy(tiny_dataset, tmp_path):
    """The tiny dataset in a folder of the test's own, whose files it may change."""
    import shutil

    folder = tmp_path / "data"
    shutil.copytree(os.path.dirname(tiny_dataset), folder)
    return load_msd(folder / os.path.basename(tiny_dataset))


def test_a_file_replaced_under_its_old_size_and_time_is_built_again(tiny_dataset, tmp_path):
    """Size and modification time alone missed a file swapped in with both kept (files extracted from
    a tar, then swapped by mv; touch -d; cp -p): training used the stale arrays (seventieth session)."""
    import shutil

    manifest = _own_copy(tiny_dataset, tmp_path)
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0))
    assert cache.build(manifest.training) == len(manifest.training)
    label = manifest.training[0].label
    before = label.stat()
    shutil.copyfile(label, tmp_path / "other.nii.gz")  # the same size: here the same bytes, as a worst case
    os.replace(tmp_path / "other.nii.gz", label)
    os.utime(label, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old time, as tar and cp -p keep it
    assert (label.stat().st_size, label.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert cache.build(manifest.training) == 1


def test_datasets_of_other_images_over_the_same_labels_keep_each_others_cases(tiny_dataset, tmp_path):
    """Pairs in one folder, T1 against T2 over the same label files: each case had one id, so one json
    in one cache folder and one record of the checks, and each run preprocessed and checked the other
    Dataset's cases again, saying their files had changed (the eighty-fifth session's estimator audit)."""
    import shutil

    from accelerated_seg.data.check_records import CheckRecords
    from accelerated_seg.data.checks import check_cases
    from accelerated_seg.data.formats.pairs import from_pairs

    own = _own_copy(tiny_dataset, tmp_path)
    source = own.training
    second = tmp_path / "data" / "imagesT2"
    second.mkdir()
    for case in source:
        shutil.copyfile(case.images[0], second / case.images[0].name)
    first_pairs = [(case.images[0], case.label) for case in source]
    t1, t2 = (from_pairs(pairs, labels=own.labels, validation_pairs=[])
              for pairs in (first_pairs, [(second / image.name, label) for image, label in first_pairs]))
    assert t1.root == t2.root and [case.id for case in t1.training] == [case.id for case in source]
    caches = [_cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0)) for manifest in (t1, t2)]
    assert caches[0].dir == caches[1].dir  # one dataset folder and settings: the cases must tell apart
    for cache, manifest in zip(caches, (t1, t2)):
        assert cache.build(manifest.training) == len(manifest.training)
    for cache, manifest in zip(caches, (t1, t2)):
        assert cache.changed_since_built(manifest.training) == 0 and cache.build(manifest.training) == 0

    records = CheckRecords(tmp_path / "records", t1.root)
    for manifest in (t1, t2):
        check_cases(manifest.training, manifest.num_classes, records=records).keep_records()
    for manifest in (t1, t2):
        assert check_cases(manifest.training, manifest.num_classes, records=records).recalled == len(source)

    # the same files by a symlinked folder ($WORK -> /lustre) are the same cases: keyed by the paths as
    # written they were built and checked again (the eighty-sixth session's review of the change)
    (tmp_path / "alias").symlink_to(tmp_path / "data")
    aliased = from_pairs([(tmp_path / "alias" / image.relative_to(tmp_path / "data"),
                           tmp_path / "alias" / label.relative_to(tmp_path / "data")) for image, label in first_pairs],
                         labels=own.labels, validation_pairs=[])
    assert _cache(tmp_path / "cache", aliased, spacing=(2.0, 2.0, 2.0)).build(aliased.training) == 0
    aliased_records = CheckRecords(tmp_path / "records", aliased.root)
    assert check_cases(aliased.training, aliased.num_classes, records=aliased_records).recalled == len(source)


def test_a_cache_of_cases_known_by_their_id_alone_is_reused_by_the_datasets_whose_files_it_records(
        tiny_dataset, tmp_path):
    """Cases named by their files too (above) were first put in a version folder of their own: an
    upgrade preprocessed the whole dataset again beside the copy it had (twice the disk), and a
    complete cache on a read-only mount refused every run. A json of before (``<id>.json``) is the
    case's where the source fingerprint it records is these files'; other images over the same ids
    and labels (T2 against T1's json) do not take it, nor are they said to have changed."""
    import shutil

    from accelerated_seg.data.fingerprint import case_key
    from accelerated_seg.data.formats.pairs import from_pairs

    own = _own_copy(tiny_dataset, tmp_path)
    second = tmp_path / "data" / "imagesT2"
    second.mkdir()
    for case in own.training:
        shutil.copyfile(case.images[0], second / case.images[0].name)
    first_pairs = [(case.images[0], case.label) for case in own.training]
    t1, t2 = (from_pairs(pairs, labels=own.labels, validation_pairs=[])
              for pairs in (first_pairs, [(second / image.name, label) for image, label in first_pairs]))
    before = _cache(tmp_path / "cache", t1, spacing=(2.0, 2.0, 2.0))
    assert before.build(t1.training) == len(t1.training)
    for case in t1.training:  # the layout the code before left: the json named by the case's id
        (before.dir / f"{case_key(case)}.json").rename(before.dir / f"{case.id}.json")

    upgraded = _cache(tmp_path / "cache", t1, spacing=(2.0, 2.0, 2.0))
    assert upgraded.dir == before.dir
    assert upgraded.changed_since_built(t1.training) == 0 and upgraded.build(t1.training) == 0
    table = upgraded.load_table(upgraded.write_table(t1.training))
    assert [os.path.basename(path) for path in table["image"]] == [
        os.path.basename(upgraded.paths(case)["image.npy"]) for case in t1.training]
    assert upgraded.paths(t1.training[0])["json"].name == f"{t1.training[0].id}.json"  # what a reading error names

    other = _cache(tmp_path / "cache", t2, spacing=(2.0, 2.0, 2.0))
    assert other.changed_since_built(t2.training) == 0 and other.build(t2.training) == len(t2.training)
    assert upgraded.build(t1.training) == 0 and other.build(t2.training) == 0


def test_a_case_an_older_install_built_again_after_its_files_changed_is_not_built_once_more(tiny_dataset, tmp_path):
    """An install of before the cases-by-files naming, sharing the cache (an experiment kept on it),
    builds a case again once its files change and names it by its id (<id>.json). This code's json of
    the case, of the files before the change, won: the case was said to have changed and was built once
    more, its arrays rewritten under the names that install's running job reads them by."""
    import shutil

    from accelerated_seg.data.fingerprint import case_key

    own = _own_copy(tiny_dataset, tmp_path)
    cases = own.training[:2]
    cache = _cache(tmp_path / "cache", own, spacing=(2.0, 2.0, 2.0))
    assert cache.build(cases) == 2
    ours = cache.dir / f"{case_key(cases[0])}.json"
    shutil.copyfile(ours, tmp_path / "ours_of_the_old_files.json")
    os.chmod(cases[0].label, 0o644)  # its files change (a chmod moves the status-change time)
    assert cache.build(cases) == 1  # as the older install builds it: then named by its id alone
    ours.rename(cache.dir / f"{cases[0].id}.json")
    shutil.copyfile(tmp_path / "ours_of_the_old_files.json", ours)

    assert cache.changed_since_built(cases) == 0 and cache.build(cases) == 0
    assert cache.paths(cases[0])["json"].name == f"{cases[0].id}.json"


def test_a_rebuild_keeps_the_arrays_that_a_running_jobs_table_names(tiny_dataset, tmp_path):
    """A rebuild wrote the new arrays over the old ones while another job trained from a table of the
    old shapes and locations: an index error at step 39, or patches centred by other labels."""
    manifest = _own_copy(tiny_dataset, tmp_path)
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0))
    cache.build(manifest.training)
    running = cache.load_table(cache.write_table(manifest.training))
    image = manifest.training[0].images[0]
    os.utime(image, ns=(image.stat().st_atime_ns, image.stat().st_mtime_ns + 10**9))
    assert cache.build(manifest.training) == 1
    new = cache.load_table(cache.write_table(manifest.training))
    assert new[0]["image"] != running[0]["image"]  # the new version under a name of its own
    for row in running:  # what the running job reads is all still there, as its table describes it
        assert np.load(row["label"], mmap_mode="r").shape == tuple(row["shape"])


def test_a_relative_or_home_cache_dir_is_recorded_absolute(tiny_dataset, tmp_path, monkeypatch):
    """The table records the arrays' paths: a relative data.cache_dir recorded paths that a run from
    another folder could not open, and "~/x" made a folder named "~" beside the table's real one."""
    manifest = load_msd(tiny_dataset)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    relative = _cache("relcache", manifest)
    assert relative.dir.is_absolute() and relative.dir.is_relative_to(tmp_path / "relcache")
    assert _cache("~/cache", manifest).dir.is_relative_to(tmp_path / "home" / "cache")


def test_a_complete_cache_is_read_only_and_one_that_must_be_written_but_cannot_is_one_error(tiny_dataset, tmp_path,
                                                                                            monkeypatch):
    import accelerated_seg.data.cache as cache_module

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest, spacing=(2.0, 2.0, 2.0))
    cache.build(manifest.training)

    def denied(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cache_module, "write_text_atomically", denied)
    monkeypatch.setattr(cache_module, "replace_atomically", denied)
    assert cache.build(manifest.training) == 0  # settings.json was rewritten every time: a PermissionError
    other = _cache(tmp_path, manifest, spacing=(3.0, 3.0, 3.0))
    other.dir.mkdir(parents=True)
    with pytest.raises(DataError, match=r"data.cache_dir: .* cannot be written \(Permission denied\), and \d+ "
                                        r"case\(s\) must be preprocessed there: give data.cache_dir a folder this "
                                        r"user can write"):
        other.build(manifest.training)
    # A read-only mount or a full disk is no PermissionError: tracebacks before the seventy-third session
    for errno, why in ((30, "Read-only file system"), (28, "No space left on device")):
        def failing(path, *args, errno=errno, why=why):
            raise OSError(errno, why, str(path))

        monkeypatch.setattr(cache_module, "write_text_atomically", failing)
        with pytest.raises(DataError, match=rf"data.cache_dir: .* cannot be written \({why}\), and \d+ case"):
            other.build(manifest.training)
    # A complete cache, read-only, and a split it has no table for: the table cannot be written
    import datasets

    def read_only(self, path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(datasets.Dataset, "save_to_disk", read_only)
    with pytest.raises(DataError, match=r"data.cache_dir: .* cannot be written \(Permission denied\), and this "
                                        r"split's case table must be written there"):
        cache.write_table(manifest.training[:2])
    assert not list(cache.dir.glob("tables/.*.partial"))  # nothing left behind


def test_the_foreground_locations_kept_do_not_depend_on_the_files_times(tiny_dataset, tmp_path, monkeypatch):
    """The subsample of a large class's voxels was drawn from the source fingerprint: a touch, a
    checkout or a copy elsewhere changed the patches of the same seed on the same data."""
    import accelerated_seg.data.cache as cache_module

    monkeypatch.setattr(cache_module, "MAX_LOCATIONS_PER_CLASS", 5)
    manifest = _own_copy(tiny_dataset, tmp_path)
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0))
    cache.build(manifest.training[:1])
    first = cache.load_table(cache.write_table(manifest.training[:1]))[0]["class_locations"]
    label = manifest.training[0].label
    os.utime(label, ns=(label.stat().st_atime_ns, label.stat().st_mtime_ns + 10**9))
    assert cache.build(manifest.training[:1]) == 1
    again = cache.load_table(cache.write_table(manifest.training[:1]))[0]["class_locations"]
    assert len(first[0]) == 5 and all(np.array_equal(a, b) for a, b in zip(first, again))


def test_every_fold_of_a_cross_validation_resamples_to_one_median_spacing(tmp_path):
    """Each fold took its own training cases' median: on a cohort of mixed voxel sizes every fold
    rebuilt the whole cache under a spacing of its own, and the folds' models could not be ensembled
    (seventy-fifth session's probe, 2000 cases). A split that is no fold keeps the training median."""
    import nibabel as nib

    from accelerated_seg.data.manifest import load_cases
    from accelerated_seg.data.spacing import target_spacing
    from accelerated_seg.config import DataConfig

    pairs = []
    for index, size in enumerate((0.8, 0.9, 1.0, 1.2, 1.4, 1.5)):
        affine = np.diag([size, size, 2 * size, 1.0])
        for kind in ("image", "label"):
            nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), affine), tmp_path / f"{kind}_{index}.nii.gz")
        pairs.append((tmp_path / f"image_{index}.nii.gz", tmp_path / f"label_{index}.nii.gz"))
    folds = [load_cases(pairs, num_folds=3, fold=fold) for fold in range(3)]
    spacings = {target_spacing(DataConfig(num_folds=3, fold=fold), manifest) for fold, manifest in enumerate(folds)}
    assert len(spacings) == 1 and spacings.pop() == pytest.approx((1.1, 1.1, 2.2))  # all six's, whichever fold
    from accelerated_seg.data.splits import is_one_fold_of_several

    from accelerated_seg.data.cases import SplitOrigin

    fraction = load_cases(pairs, validation_fraction=0.5)
    assert is_one_fold_of_several(folds[2]) and not is_one_fold_of_several(fraction)
    assert is_one_fold_of_several(dataclasses.replace(fraction, split_origin=SplitOrigin("fold_keys", 5)))
    one = dataclasses.replace(fraction, split_origin=SplitOrigin("fold_keys", 1))  # a splits_final.json of one split
    assert not is_one_fold_of_several(one)  # is no cross-validation
    training = sorted(float(nib.load(case.images[0]).header.get_zooms()[0]) for case in fraction.training)
    assert target_spacing(DataConfig(), fraction)[0] == pytest.approx(float(np.median(training)))


def test_the_cache_command_lists_the_versions_and_prunes_those_no_live_run_uses(tiny_dataset, tmp_path, capsys):
    """Each setting that changes the preprocessing adds a whole copy of the dataset, which no run deletes:
    runs said to "delete those no run needs", which a user could not tell (seventy-fifth session on)."""
    from accelerated_seg.cli import main
    from accelerated_seg.data.cache_versions import dataset_versions, using_version

    manifest = load_msd(tiny_dataset)
    cases = manifest.training[:2]
    root = tmp_path / "cache"
    ours, other, used = (_cache(root, manifest, spacing=(size,) * 3) for size in (2.0, 3.0, 4.0))
    for cache in (ours, other, used):
        cache.build(cases)
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {tiny_dataset}\n  cache_dir: {root}\n  spacing: [2.0, 2.0, 2.0]\n")
    assert main(["cache", "--config", str(config)]) == 0
    said = capsys.readouterr().out
    assert f"{ours.dir.parent}: 3 preprocessed version(s) of this dataset" in said
    assert f"{ours.dir.name}" in said and "these settings' version, not in use" in said
    assert "--prune (with the same DATASET or --config) removes the others" in said
    with using_version(used.dir):  # a live run trains from it
        assert [v.in_use for v in dataset_versions(root / ours.dir.parent.name) if v.folder == used.dir] == [True]
        assert main(["cache", "--config", str(config), "--prune"]) == 0
        said = capsys.readouterr().out
        assert f"{other.dir.name}" in said and "removed 1 version(s)" in said
        assert ours.dir.is_dir() and used.dir.is_dir() and not other.dir.exists()
        assert f"{used.dir.name}" in said and "in use by a live run" in said
    assert main(["cache", str(tiny_dataset), "--config", str(config), "--prune"]) == 0
    assert not used.dir.exists() and ours.dir.is_dir() and ours.build(cases) == 0  # ours untouched, still whole
    assert "removed 1 version(s)" in capsys.readouterr().out


def test_the_cache_command_lists_every_dataset_and_prunes_one_whose_description_is_gone(tiny_dataset, tmp_path, capsys,
                                                                                       monkeypatch):
    """A dataset moved or deleted left its preprocessed versions in the cache, which `cache` could
    reach only through the dataset's description (or an experiment naming it): gone, so was the way."""
    import shutil

    from accelerated_seg.cli import main
    from accelerated_seg.data.cache_versions import SOURCE_FILE, cached_datasets, using_version

    root = tmp_path / "cache"
    moved = tmp_path / "moved"
    shutil.copytree(tiny_dataset.parent, moved)
    kept, gone = load_msd(tiny_dataset), load_msd(moved / tiny_dataset.name)
    ours = _cache(root, kept, spacing=(2.0,) * 3)
    ours.build(kept.training[:1])
    assert (ours.dir.parent / SOURCE_FILE).read_text() == str(tiny_dataset.parent.resolve())  # the dataset's folder
    theirs = [_cache(root, gone, spacing=(size,) * 3) for size in (2.0, 3.0)]
    for cache in theirs:
        cache.build(gone.training[:1])
    shutil.rmtree(moved)
    older = root / "Task09-0123abcd" / "fedcba9876543210"  # a dataset cached before sources were recorded
    older.mkdir(parents=True)
    (older / "settings.json").write_text("{}")
    (root / "checks").mkdir()  # the checks' records: no dataset
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    assert main(["cache"]) == 0 and "no preprocessed dataset" in capsys.readouterr().out
    assert main(["cache", "--cache-dir", str(root)]) == 0
    said = capsys.readouterr().out
    assert f"{root}: 3 preprocessed dataset(s)" in said
    assert f"{ours.dir.parent.name}" in said and f"1 version(s)  {tiny_dataset.parent.resolve()}\n" in said
    assert f"{theirs[0].dir.parent.name}" in said and "2 version(s)  " in said
    assert f"{moved.resolve()} (not found here: moved or deleted)" in said
    assert "Task09-0123abcd" in said and "source not recorded" in said and "checks" not in said.split("\n", 1)[1]
    assert main(["cache", "--cache-dir", str(root), "--prune"]) == 0  # the checks' records alone: no version goes
    assert "a dataset's versions are removed by naming it" in capsys.readouterr().out
    assert len(cached_datasets(root)) == 3 and sum(len(dataset.versions) for dataset in cached_datasets(root)) == 4
    # The dataset's folder in the cache, as listed: its versions, and with --prune all those no run uses
    folder = theirs[0].dir.parent
    assert main(["cache", str(folder)]) == 0
    said = capsys.readouterr().out
    assert f"{folder}: 2 preprocessed version(s)" in said and "these settings' version" not in said
    with using_version(theirs[1].dir):  # a live run still trains from one
        assert main(["cache", str(folder), "--prune"]) == 0
    assert "removed 1 version(s)" in capsys.readouterr().out
    assert not theirs[0].dir.exists() and theirs[1].dir.is_dir()
    assert main(["cache", str(folder), "--prune"]) == 0
    assert not folder.exists() and ours.dir.is_dir()  # nothing of it left, its folder neither


def test_the_cache_command_lists_the_checks_records_and_prunes_those_this_install_cannot_use(tmp_path, capsys,
                                                                                             monkeypatch):
    """Each upgrade of the checks (or nibabel, numpy) left its record file of every dataset in the cache's
    checks/ for good, which `cache` did not show and nothing removed: listed, those this install cannot
    use counted, and removed by `cache --prune` without a dataset; this code's stay."""
    import accelerated_seg.data.check_records as check_records
    from accelerated_seg.cli import main
    from accelerated_seg.data.check_records import CheckRecords

    root = tmp_path / "cache"
    records = CheckRecords(root / "checks", tmp_path)
    passed = {"case_0.0123abcd": {"source": "0123456789abcdef", "findings": {}}}
    checking = check_records._checking
    monkeypatch.setattr(check_records, "_checking", lambda: "f" * 40)  # an older install's, written today
    records.save({"max_voxels": 2}, passed, [])
    monkeypatch.setattr(check_records, "_checking", checking)
    records.save({"max_voxels": 1}, passed, [])  # this install's: its save keeps the other, too recent
    assert main(["cache", "--cache-dir", str(root)]) == 0
    said = capsys.readouterr().out
    assert f"{root}: no preprocessed dataset" in said
    assert f"{root / 'checks'}: 2 record file(s) of the pre-flight checks" in said
    assert "1 of them written by another checking code, nibabel or numpy" in said
    assert f"accelerated-seg cache --cache-dir {root} --prune removes those 1" in said
    assert main(["cache", "--cache-dir", str(root), "--prune"]) == 0
    assert "removed 1 record file(s) of the pre-flight checks" in capsys.readouterr().out
    assert [path.name for path in (root / "checks").iterdir()] == [records.path({"max_voxels": 1}).name]
    assert main(["cache", "--cache-dir", str(root)]) == 0
    assert "0 of them written by another" in capsys.readouterr().out


def test_the_cache_command_of_an_install_without_its_sources_removes_no_checks_record(tmp_path, capsys, monkeypatch):
    """An install of compiled files alone has no checking stamp of its own, so it called every record in
    the cache "written by another checking code", and `cache --prune` removed them all: those an install
    with the sources, sharing the cache, reads its cases by. It says it cannot tell, and removes none."""
    import accelerated_seg.data.check_records as check_records
    from accelerated_seg.cli import main
    from accelerated_seg.data.check_records import CheckRecords

    root = tmp_path / "cache"
    records = CheckRecords(root / "checks", tmp_path)
    records.save({"max_voxels": 1}, {"case_0.0123abcd": {"source": "0123456789abcdef", "findings": {}}}, [])
    theirs = records.path({"max_voxels": 1})
    monkeypatch.setattr(check_records, "_checking", lambda: None)  # this install: no sources
    assert main(["cache", "--cache-dir", str(root)]) == 0
    said = capsys.readouterr().out
    assert "1 record file(s)" in said and "cannot tell which of them another install uses" in said
    assert "written by another checking code" not in said
    assert main(["cache", "--cache-dir", str(root), "--prune"]) == 0
    assert "none is removed" in capsys.readouterr().out
    assert [path.name for path in (root / "checks").iterdir()] == [theirs.name]


def test_the_cache_commands_prune_of_checks_records_it_cannot_remove_says_so_and_fails(tmp_path, capsys,
                                                                                     monkeypatch):
    """In another user's cache (or a read-only one) `cache --prune` without a dataset listed a record
    file "of no use to this install", then said "removed 0" and exited 0: the user was not told why it
    stayed. It names the file and the reason on stderr and exits 1, as a version it cannot remove does."""
    import errno
    import pathlib

    import accelerated_seg.data.check_records as check_records
    from accelerated_seg.cli import main
    from accelerated_seg.data.check_records import CheckRecords

    root = tmp_path / "cache"
    records = CheckRecords(root / "checks", tmp_path)
    monkeypatch.setattr(check_records, "_checking", lambda: "f" * 40)  # an older install's
    records.save({"max_voxels": 1}, {"case_0.0123abcd": {"source": "0123456789abcdef", "findings": {}}}, [])
    older = records.path({"max_voxels": 1})
    monkeypatch.undo()
    unlink = pathlib.Path.unlink

    def refused(path, *args, **kwargs):  # the folder is another user's
        if path.parent == root / "checks":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return unlink(path, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "unlink", refused)
    assert main(["cache", "--cache-dir", str(root), "--prune"]) == 1
    said = capsys.readouterr()
    assert "removed 0 record file(s)" in said.out
    assert f"error: {older} cannot be removed (Permission denied)" in said.err
    assert older.is_file()


def test_a_folder_the_cache_did_not_make_is_no_dataset_of_it_and_loses_nothing_to_a_prune(tiny_dataset, tmp_path,
                                                                                         capsys, monkeypatch):
    """A user's folder named like a cache's (a date: study-20240115) with a settings.json in a subfolder
    (.vscode's) was taken for a cached dataset: its subfolders were listed as versions and pruned (a
    review's probe); a user's folder inside a real cached dataset went the same way."""
    import shutil

    from accelerated_seg.cli import main

    study = tmp_path / "projects" / "study-20240115"
    for folder in ("scans", "labels", ".vscode"):
        (study / folder).mkdir(parents=True)
    (study / ".vscode" / "settings.json").write_text("{}")
    (study / "scans" / "a.nii.gz").write_text("x")
    assert main(["cache", "--cache-dir", str(tmp_path / "projects")]) == 0
    assert "no preprocessed dataset" in capsys.readouterr().out
    main(["cache", str(study), "--prune"])  # read as a dataset's description: refused one way or another
    assert sorted(p.name for p in study.iterdir()) == [".vscode", "labels", "scans"]
    assert (study / "scans" / "a.nii.gz").is_file()
    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0,) * 3)
    cache.build(manifest.training[:1])
    mine = cache.dir.parent / "my notes"
    mine.mkdir()
    (mine / "settings.json").write_text("{}")
    assert main(["cache", str(cache.dir.parent), "--prune"]) == 0
    assert "removed 1 version(s)" in capsys.readouterr().out and not cache.dir.exists()
    assert (mine / "settings.json").is_file()  # not a version: kept, and with it the dataset's folder
    shutil.rmtree(mine)

    # Another user's dataset in a shared cache, unreadable here: listed without it, not a traceback
    other = _cache(tmp_path / "cache", load_msd(tiny_dataset), spacing=(3.0,) * 3)
    other.build(manifest.training[:1])
    real_scandir = os.scandir

    def unreadable(path="."):
        if str(path) == str(other.dir):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", unreadable)
    assert main(["cache", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert "1 preprocessed dataset(s)" in capsys.readouterr().out


def test_a_case_table_that_cannot_be_written_for_want_of_room_is_one_error(tiny_dataset, tmp_path, monkeypatch):
    """Streamed, its writer's OSError came wrapped in datasets' DatasetGenerationError, a traceback
    (a review's probe); a locations file gone or damaged is its own error, naming it."""
    import errno

    import datasets

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path, manifest, spacing=(2.0,) * 3)
    cache.build(manifest.training[:2])

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        for method in ("write", "write_batch", "write_table"):
            patched.setattr(datasets.arrow_writer.ArrowWriter, method, full)
        with pytest.raises(DataError, match=r"data.cache_dir: .* cannot be written \(No space left on device\), and "
                                            r"this split's case table must be written there .*twice its size"):
            cache.write_table(manifest.training[:2])
    assert not list(cache.dir.glob("tables/.*"))  # nothing left behind
    locations = cache.paths(manifest.training[1])["locations.npz"]
    kept = locations.read_bytes()
    locations.unlink()  # gone (a user's cleanup beside a run): a reading's error, not the cache's room
    with pytest.raises(DataError, match=rf"{locations} cannot be read \(No such file or directory\): delete "
                                        rf".*case_001\.[0-9a-f]{{8}}\.json and run again, which preprocesses the "
                                        rf"case anew"):
        cache.write_table(manifest.training[:2])
    locations.write_bytes(kept[:10])  # cut short: the reader's own error, named
    with pytest.raises(DataError, match=rf"{locations} cannot be read \((BadZipFile|ValueError): .*\): delete "):
        cache.write_table(manifest.training[:2])


def test_a_training_run_holds_its_cache_version_as_in_use_until_it_ends(tiny_dataset, tmp_path, monkeypatch):
    import contextlib

    import accelerated_seg.training_data as training_data
    from accelerated_seg.cli import main
    from accelerated_seg.data.cache_versions import _held
    from conftest import tiny_overrides

    seen, real = [], training_data.using_version

    @contextlib.contextmanager
    def recording(folder):
        with real(folder):
            seen.append((folder, _held(folder)))  # another process's --prune would find it held
            yield

    monkeypatch.setattr(training_data, "using_version", recording)
    assert main(["train", *tiny_overrides(tiny_dataset, tmp_path / "run", data__cache_dir=str(tmp_path / "cache"),
                                          train__max_steps=1, train__val_every=0, train__save_every=0)]) == 0
    ((folder, held),) = seen
    assert held is True and folder.parent.parent == tmp_path / "cache" and _held(folder) is False


def test_a_cache_a_run_cannot_write_is_read_unguarded_and_its_prune_is_one_error(tiny_dataset, tmp_path, capsys,
                                                                                 monkeypatch):
    """A read-only cache (or another user's lock file) stopped every run with a traceback on .in_use.lock
    (a review): flock needs the file open for reading alone, and a run that cannot make it goes on."""
    import errno

    import accelerated_seg.data.cache_versions as cache_versions
    from accelerated_seg.cli import main

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    ours, other = (_cache(root, manifest, spacing=(size,) * 3) for size in (2.0, 3.0))
    for cache in (ours, other):
        cache.build(manifest.training[:1])
    with cache_versions.using_version(ours.dir):  # an earlier run's lock file stays behind
        pass

    def read_only(path, mode="r", *args, **kwargs):
        if mode != "r":
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(cache_versions, "open", read_only, raising=False)
    with cache_versions.using_version(ours.dir):  # its lock file read-only: held all the same
        assert cache_versions._held(ours.dir) is True
    with cache_versions.using_version(other.dir):  # none there, and none can be made: unguarded, no error
        assert not (other.dir / cache_versions.IN_USE).exists()

    def no_rename(self, target):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(type(other.dir), "rename", no_rename)
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {tiny_dataset}\n  cache_dir: {root}\n  spacing: [2.0, 2.0, 2.0]\n")
    assert main(["cache", "--config", str(config), "--prune"]) == 1
    assert f"error: {other.dir} cannot be removed ([Errno 30] Read-only file system" in capsys.readouterr().err
    assert other.dir.is_dir()


def test_a_file_replaced_while_its_case_is_preprocessed_is_built_again(tiny_dataset, tmp_path, monkeypatch):
    """The source fingerprint was taken after the case's files were read, so a label replaced meanwhile
    (a sync of the dataset beside a build) left the old label's arrays under the new file's fingerprint:
    current for every later run, which trained on the label as it no longer is."""
    import accelerated_seg.data.cache as cache_module
    from faults import label_replaced_while_read

    manifest = _own_copy(tiny_dataset, tmp_path)
    case = manifest.training[0]
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0))
    original = cache_module.preprocess
    label_replaced_while_read(monkeypatch, case.label)
    assert cache.build([case]) == 1
    monkeypatch.setattr(cache_module, "preprocess", original)
    assert not cache.is_current(case)  # what was read is not the file as it is now
    assert cache.build([case]) == 1 and cache.is_current(case)


def test_a_case_whose_id_is_too_long_for_the_arrays_names_is_one_error_naming_it(tiny_dataset, tmp_path):
    """The arrays' names add 31 characters to a case's id (its label file's name), so a label named in
    225 characters failed at its first write with "File name too long" and the advice to give
    data.cache_dir a folder one can write, with room."""
    import dataclasses

    manifest = load_msd(tiny_dataset)
    case = dataclasses.replace(manifest.training[0], id="x" * 225)
    cache = _cache(tmp_path, manifest, spacing=(2.0, 2.0, 2.0))
    with pytest.raises(DataError, match=r"case 'x{225}' .* longer than a file name can be \(255\).* at most 224 bytes"):
        cache.build([case])
    assert not cache.dir.exists()  # refused before anything is written
    fitting = dataclasses.replace(case, id="x" * 224)
    assert cache.build([fitting]) == 1 and cache.is_current(fitting)


def test_a_label_replaced_after_its_check_by_values_of_no_class_is_refused_by_the_build(tiny_dataset, tmp_path):
    """The checks refuse label values of no class, but a label replaced between its check and the build (a
    fix of the dataset beside a starting run) was stored as it was: 256 as 0, 7 as a class the network has
    no output for, which training's loss then met."""
    import nibabel as nib

    from accelerated_seg.data.checks import check_manifest

    manifest = _own_copy(tiny_dataset, tmp_path)
    case = manifest.training[0]
    assert check_manifest(manifest, cases=[case]).errors == []
    label = nib.load(case.label)
    values = np.asanyarray(label.dataobj).astype(np.int16)
    values[values == 2] = 7
    nib.save(nib.Nifti1Image(values, label.affine, label.header), case.label)
    cache = _cache(tmp_path / "cache", manifest, spacing=(2.0, 2.0, 2.0))
    with pytest.raises(DataError, match=r"case 'case_000': .*case_000.nii.gz holds label value\(s\) \[7.0\] that no "
                                        r"class of the 3 is.* changed since it was checked"):
        cache.build([case])
    assert not cache.is_current(case)  # nothing recorded as built
    assert cache.build(manifest.training[1:2]) == 1  # a label of the classes is stored as before


def test_a_cache_copied_elsewhere_reads_its_own_arrays_not_those_of_its_first_place(tiny_dataset, tmp_path):
    """The case table holds the arrays' absolute paths, and a cache copied (to node-local scratch, say) or
    moved reused the table of its first place: its patches were read from there, or, once that was gone,
    the first patch failed with FileNotFoundError."""
    import shutil

    from accelerated_seg.data.loader import PatchDataset

    manifest = load_msd(tiny_dataset)
    first = _cache(tmp_path / "shared", manifest, spacing=(2.0, 2.0, 2.0))
    first.build(manifest.training)
    first.write_table(manifest.training)
    shutil.copytree(tmp_path / "shared", tmp_path / "local")
    shutil.rmtree(tmp_path / "shared")
    copy = _cache(tmp_path / "local", manifest, spacing=(2.0, 2.0, 2.0))
    assert copy.build(manifest.training) == 0  # the copy's cases are current
    table = copy.load_table(copy.write_table(manifest.training))
    assert all(str(path).startswith(str(copy.dir)) for row in table for path in (row["image"], row["label"]))
    assert PatchDataset(table, (16, 16, 16), augment="none")[0]["image"].shape == (1, 16, 16, 16)


def _relabelled(case, old: int, new: int) -> None:
    """The case's label file written again with ``old`` values as ``new``."""
    import nibabel as nib

    label = nib.load(case.label)
    values = np.asanyarray(label.dataobj).astype(np.int16)
    values[values == old] = new
    nib.save(nib.Nifti1Image(values, label.affine, label.header), case.label)


def test_the_build_refuses_a_value_its_label_map_does_not_list_and_maps_the_listed_ones(tiny_dataset, tmp_path):
    """The label guard looked at the values after MapLabelValued, which leaves a value the map does not list as
    it is: a BraTS-like label's stray raw 2 (values 0, 1, 4 declared) was stored as class 2, the 4s' class."""
    manifest = _own_copy(tiny_dataset, tmp_path)
    stray, declared = manifest.training[:2]
    mapped = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(
        spacing=(2.0, 2.0, 2.0), label_map=((0, 0), (1, 1), (4, 2))), 3, ignore_label=False)
    with pytest.raises(DataError, match=r"case 'case_000': .* holds label value\(s\) \[2.0\] that no class of the 3"):
        mapped.build([stray])
    _relabelled(declared, 2, 4)
    assert mapped.build([declared]) == 1
    plain = _cache(tmp_path / "plain", manifest, spacing=(2.0, 2.0, 2.0))
    _relabelled(declared, 4, 2)
    plain.build([declared])
    assert np.array_equal(np.load(mapped.paths(declared)["label.npy"]), np.load(plain.paths(declared)["label.npy"]))


def test_the_build_refuses_the_index_past_the_classes_where_the_dataset_has_no_ignore_label(tiny_dataset, tmp_path):
    """The guard let class index num_classes through for an ignore label the dataset may not have: a 3 in a
    label of 3 classes (0, 1, 2) was stored, a class the network has no output for."""
    manifest = _own_copy(tiny_dataset, tmp_path)
    case = manifest.training[0]
    _relabelled(case, 2, 3)
    settings = PreprocessSettings(spacing=(2.0, 2.0, 2.0))
    without = PreprocessedCache(tmp_path / "cache", manifest.root, settings, 3, ignore_label=False)
    with pytest.raises(DataError, match=r"holds label value\(s\) \[3.0\] that no class of the 3"):
        without.build([case])
    ignoring = PreprocessedCache(tmp_path / "cache", manifest.root, settings, 3, ignore_label=True)
    assert ignoring.build([case]) == 1 and 3 in np.load(ignoring.paths(case)["label.npy"])


def test_a_table_written_before_the_folder_was_in_its_key_is_reused_where_its_arrays_are_this_folders(
        tiny_dataset, tmp_path, monkeypatch):
    """The case table's key took in the cache's folder, and every table written before was unused: a complete
    cache on a read-only mount, which had its table, failed with "this split's case table must be written
    there". A copy elsewhere still writes its own (the table of before reads the arrays of its first place)."""
    import hashlib
    import json
    import shutil

    import datasets

    manifest = load_msd(tiny_dataset)
    cache = _cache(tmp_path / "shared", manifest, spacing=(2.0, 2.0, 2.0))
    cache.build(manifest.training)
    rows = "\n".join(f"{m['id']}|{m['source']}" for m in (json.loads(cache.paths(case)["json"].read_text())
                                                           for case in manifest.training))
    before = cache.dir / "tables" / hashlib.sha1(rows.encode()).hexdigest()[:16]
    cache.write_table(manifest.training).rename(before)  # as the code of before named it
    shutil.copytree(tmp_path / "shared", tmp_path / "local")
    copy = _cache(tmp_path / "local", manifest, spacing=(2.0, 2.0, 2.0))
    written = copy.write_table(manifest.training)
    assert written != copy.dir / "tables" / before.name
    assert all(str(path).startswith(str(copy.dir)) for path in copy.load_table(written)["image"])

    def read_only(self, path, *args, **kwargs):
        raise OSError(30, "Read-only file system", path)

    monkeypatch.setattr(datasets.Dataset, "save_to_disk", read_only)
    assert cache.write_table(manifest.training) == before


def test_a_binarized_build_refuses_a_negative_label_value_the_checks_would_have(tiny_dataset, tmp_path):
    """Binarized, the guard saw the values after the threshold, 0 and 1 alone: a -1 written into a label after
    its check (the checks refuse it) was stored as background without a word."""
    manifest = _own_copy(tiny_dataset, tmp_path)
    case, other = manifest.training[:2]
    _relabelled(case, 2, -1)
    binarized = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(
        spacing=(2.0, 2.0, 2.0), binarize=True), 2, ignore_label=False)
    with pytest.raises(DataError, match=r"holds label value\(s\) \[-1.0\] that no class of the 2"):
        binarized.build([case])
    _relabelled(other, 2, 17)  # declared or not, every value above 0 is foreground
    assert binarized.build([other]) == 1
    assert set(np.unique(np.load(binarized.paths(other)["label.npy"]))) == {0, 1}


def test_a_case_id_too_long_is_refused_by_every_rank_before_any_builds_its_share(tiny_dataset, tmp_path):
    """Each rank looked at its own share's ids alone, so a rank whose cases fit built them all (hours, on a
    large dataset) before the rank holding the long id refused it and the run failed."""
    import dataclasses

    manifest = load_msd(tiny_dataset)
    cases = list(manifest.training)
    cases[1] = dataclasses.replace(cases[1], id="x" * 230)
    cache = _cache(tmp_path, manifest, spacing=(2.0, 2.0, 2.0))
    for rank in (0, 1):
        with pytest.raises(DataError, match=r"case 'x{230}' .* longer than a file name can be"):
            cache.build(cases, shard=(rank, 2))
    assert not cache.dir.exists()


def test_the_cache_command_of_a_dataset_without_config_keeps_the_default_settings_version_or_refuses_to_prune(
        tiny_dataset, tmp_path, capsys):
    """`cache DATASET --prune` keeps the default settings' version: where there was none, it removed every
    version, an experiment's of other settings too, and said "these settings' version ... stay" (ninety-second
    session's probe). Refused before anything is removed, naming the two commands that say what to keep."""
    from accelerated_seg.cli import main
    from accelerated_seg.config import Config
    from accelerated_seg.data.prepare import preprocess_settings

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    theirs = [_cache(root, manifest, spacing=(size,) * 3) for size in (3.0, 4.0)]  # the default: the median, 2 mm
    for cache in theirs:
        cache.build(manifest.training[:1])
    folder = theirs[0].dir.parent
    assert main(["cache", str(tiny_dataset), "--cache-dir", str(root), "--prune"]) == 2
    refusal = (f"none of the 2 version(s) in {folder} is of the default settings, which a DATASET without --config "
               f"names, so --prune would keep none of them: accelerated-seg cache --config EXPERIMENT --prune keeps "
               f"that experiment's version, and accelerated-seg cache {folder} --prune removes every version no live "
               f"run uses")
    assert f"error: {refusal}" in capsys.readouterr().err
    assert all(cache.dir.is_dir() for cache in theirs)
    assert main(["cache", str(tiny_dataset), "--cache-dir", str(root)]) == 0
    assert refusal in capsys.readouterr().out
    default = PreprocessedCache(root, manifest.root, preprocess_settings(Config().data, manifest), manifest.num_classes)
    default.build(manifest.training[:1])
    assert main(["cache", str(tiny_dataset), "--cache-dir", str(root), "--prune"]) == 0
    said = capsys.readouterr().out
    assert "the default settings' version, not in use" in said and "removed 2 version(s)" in said
    assert default.dir.is_dir() and not any(cache.dir.exists() for cache in theirs)


def test_the_cache_command_refuses_a_cache_dir_or_dataset_that_names_the_wrong_part_of_the_cache(tiny_dataset, tmp_path,
                                                                                                  capsys):
    """A --cache-dir mistyped, a file, or one dataset's folder in the cache (or a version's) was listed as "no
    preprocessed dataset", exit 0, as if the cache were empty; the cache, or a version in it, given as the
    dataset was "folder without dataset.json; expected an MSD dataset.json ..." (ninety-second session's probe)."""
    from accelerated_seg.cli import main

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    version = _cache(root, manifest, spacing=(3.0,) * 3)
    version.build(manifest.training[:1])
    folder = version.dir.parent
    (tmp_path / "notes.txt").write_text("mine")
    for cache_dir, said in ((tmp_path / "cahce", "not found; give the cache folder"),
                            (tmp_path / "notes.txt", "a file, not a folder; give the cache folder"),
                            (folder, f"one dataset's folder in the cache {root}: give that cache, or this folder as "
                                     f"the dataset (accelerated-seg cache {folder}) for its versions"),
                            (version.dir, f"one preprocessed version of the dataset's folder {folder} in the cache "
                                          f"{root}: give that cache")):
        for prune in ([], ["--prune"]):
            assert main(["cache", "--cache-dir", str(cache_dir), *prune]) == 2
            assert f"error: --cache-dir {cache_dir}: {said}" in capsys.readouterr().err
    for dataset, said in ((version.dir, f"one preprocessed version in the cache, of the dataset's folder {folder}; "
                                        f"accelerated-seg cache {folder} lists its versions"),
                          (root, f"a cache, of 1 preprocessed dataset(s); accelerated-seg cache --cache-dir {root} "
                                 f"lists them")):
        assert main(["cache", str(dataset), "--prune"]) == 2
        assert f"error: {dataset}: {said}" in capsys.readouterr().err
    assert version.build(manifest.training[:1]) == 0  # nothing removed


def test_a_cache_dir_not_found_is_named_whole_beside_the_cache_read_without_it(tmp_path, monkeypatch, capsys):
    """Refused with status 2, as every setting or path that cannot work is (check's findings in a dataset alone
    are 1). The refusal said "default ~/.cache/accelerated_seg" whatever $XDG_CACHE_HOME or --config's
    data.cache_dir made it, and named a relative folder as typed alone (until the ninety-third session)."""
    from accelerated_seg.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "experiment.yaml").write_text(f"data:\n  cache_dir: {tmp_path / 'shared'}\n")
    give = "give the cache folder your runs preprocess into (their data.cache_dir), or leave --cache-dir out for"
    for config, fallback in (([], f"the default cache, {tmp_path / 'xdg' / 'accelerated_seg'}"),
                             (["--config", "experiment.yaml"], f"--config's data.cache_dir, {tmp_path / 'shared'}")):
        assert main(["cache", "--cache-dir", "cahce", *config]) == 2
        said = capsys.readouterr().err
        assert said == f"error: --cache-dir cahce: not found ({tmp_path / 'cahce'}); {give} {fallback}\n"


def test_the_cache_command_knows_the_parts_of_the_cache_given_as_dot_or_dot_dot(tiny_dataset, tmp_path, monkeypatch,
                                                                                  capsys):
    """`cache .` run in a dataset's folder in the cache was "folder without dataset.json; expected an MSD ...":
    the names were checked as typed, and "." has none (ninety-second session's probe)."""
    from accelerated_seg.cli import main

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    version = _cache(root, manifest, spacing=(3.0,) * 3)
    version.build(manifest.training[:1])
    folder = version.dir.parent
    monkeypatch.chdir(folder)
    assert main(["cache", "."]) == 0
    assert f"{folder}: 1 preprocessed version(s) of this dataset" in capsys.readouterr().out
    assert main(["cache", "--cache-dir", "."]) == 2
    assert f"error: --cache-dir .: one dataset's folder in the cache {root}: give that cache" in capsys.readouterr().err
    monkeypatch.chdir(version.dir)
    assert main(["cache", ".."]) == 0
    assert f"{folder}: 1 preprocessed version(s) of this dataset" in capsys.readouterr().out
    assert main(["cache", "."]) == 2
    assert (f"error: .: one preprocessed version in the cache, of the dataset's folder {folder}; accelerated-seg cache "
            f"{folder} lists its versions") in capsys.readouterr().err
    assert main(["cache", "--cache-dir", "../.."]) == 0
    assert f"{root}: 1 preprocessed dataset(s)" in capsys.readouterr().out
    assert version.build(manifest.training[:1]) == 0  # nothing removed


def test_the_cache_command_refuses_a_dataset_folder_in_the_cache_with_a_config_before_pruning(tiny_dataset, tmp_path,
                                                                                              capsys):
    """`cache <cache>/<folder> --config exp.yaml --prune` read no settings from the config and removed its
    experiment's version with the rest (ninety-second session's probe)."""
    from accelerated_seg.cli import main

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    ours, other = (_cache(root, manifest, spacing=(size,) * 3) for size in (3.0, 4.0))
    for cache in (ours, other):
        cache.build(manifest.training[:1])
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {tiny_dataset}\n  cache_dir: {root}\n  spacing: [3.0, 3.0, 3.0]\n")
    folder = ours.dir.parent
    assert main(["cache", str(folder), "--config", str(config), "--prune"]) == 2
    assert (f"error: {folder}: a dataset's folder in the cache, where --prune removes every version no live run uses "
            f"and --config {config} keeps none: give --config alone") in capsys.readouterr().err
    assert ours.dir.is_dir() and other.dir.is_dir()
    assert main(["cache", "--config", str(config), "--prune"]) == 0
    assert ours.dir.is_dir() and not other.dir.exists()


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
def test_sigterm_stops_a_prune_as_ctrl_c_does_and_says_so(tiny_dataset, tmp_path):
    """A time limit's SIGTERM as the second of two versions is deleted, renamed aside: --prune says what it left,
    naming SIGTERM, status 143, that version whole where it was renamed. Until the hundred-and-second session it
    ended at once, saying nothing, status -15."""
    from accelerated_seg.data.cache_versions import removals_left

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    versions = [_cache(root, manifest, spacing=(spacing,) * 3) for spacing in (3.0, 4.0)]
    for version in versions:
        version.build(manifest.training[:1])
    files = {version.dir.name: sorted(path.relative_to(version.dir) for path in version.dir.rglob("*"))
             for version in versions}
    folder = versions[0].dir.parent
    done = run_terminated("cache", str(folder), "--prune")
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    said = done.stderr.splitlines()[-1]
    assert said.startswith("cache --prune stopped by SIGTERM after removing 1 version(s); 1 more, renamed aside for "
                           "removal (.removing-") and said.endswith("the same command deletes them"), done.stderr
    [left] = removals_left(folder)  # .removing-<version>-<8 hex digits>, its lock file made by the prune
    kept = sorted(path.relative_to(left) for path in left.rglob("*") if path.name != ".in_use.lock")
    assert kept == files[left.name.removeprefix(".removing-")[:-9]]
    assert not any(version.dir.exists() for version in versions)


def test_an_interrupted_prune_says_what_it_left_and_the_same_command_deletes_it(tiny_dataset, tmp_path, monkeypatch,
                                                                                 capsys):
    """Ctrl-C while --prune deleted a version ended without a word, the version renamed aside and counted in
    no listing (ninety-second session's probe)."""
    import shutil
    from types import SimpleNamespace

    import accelerated_seg.data.cache_versions as cache_versions
    from accelerated_seg.cli import main

    manifest = load_msd(tiny_dataset)
    root = tmp_path / "cache"
    version = _cache(root, manifest, spacing=(3.0,) * 3)
    version.build(manifest.training[:1])
    folder = version.dir.parent

    def interrupted(path, **_):
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_versions, "shutil", SimpleNamespace(rmtree=interrupted))
    assert main(["cache", str(folder), "--prune"]) == 130
    said = capsys.readouterr().err
    assert said.startswith("cache --prune interrupted after removing 0 version(s); 1 more, renamed aside for removal "
                           "(.removing-") and "the same command deletes them" in said
    monkeypatch.setattr(cache_versions, "shutil", shutil)
    assert main(["cache", str(folder), "--prune"]) == 0
    assert not folder.exists()
