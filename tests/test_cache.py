"""The preprocessing cache: built once, reused, rebuilt when settings or inputs change."""

import json
import os

import numpy as np

from accelerated_seg.data.cache import PreprocessedCache
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.preprocess import PreprocessSettings


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
    assert cache.build(cases) == 1  # only the changed case is preprocessed again


def test_cached_case_content_and_table(tiny_dataset, tmp_path):
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
    # The table is reused for the same cases, and is small: no voxel data in it.
    assert cache.write_table(manifest.training) == cache.write_table(manifest.training)
    table_bytes = sum(f.stat().st_size for f in cache.write_table(manifest.training).rglob("*") if f.is_file())
    assert table_bytes < 200_000


def test_a_pool_of_workers_builds_the_same_arrays(tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    serial, pooled = _cache(tmp_path / "a", manifest), _cache(tmp_path / "b", manifest)
    serial.build(cases)
    assert pooled.build(cases, workers=2) == len(cases)
    for case in cases:
        for kind in ("image.npy", "label.npy"):
            np.testing.assert_array_equal(np.load(serial.paths(case.id)[kind]), np.load(pooled.paths(case.id)[kind]))
        assert json.loads(serial.paths(case.id)["json"].read_text()) == json.loads(pooled.paths(case.id)["json"].read_text())


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
