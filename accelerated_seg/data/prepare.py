"""From the ``data`` settings to checked cases and the preprocessing that will be applied.

``data.dataset: synthetic`` writes the embedded phantom dataset into the run's output folder on
first use (and again if its settings change). Then the cases are read (MSD, nnU-Net, CSV) and every
file checked: problems become one ``DataError`` naming each file and what to do. The training loop
runs this once, on the main process, and shares the outcome with the other ranks.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import nibabel as nib
import numpy as np

from ..config import DataConfig
from ..regions import Regions
from .cache import default_cache_dir
from .checks import check_manifest
from .errors import DataError
from .manifest import Manifest, dataset_source, load_cases
from .preprocess import PreprocessSettings, median_spacing
from .preprocess_settings import DEFAULT_CT_WINDOW
from .synthetic import write_synthetic_dataset


def prepare_manifest(cfg: DataConfig, output_dir: str | Path, manifest: Manifest | None = None
                     ) -> tuple[Manifest, list[str]]:
    """Synthesise if asked, read the cases (unless given), run the pre-flight checks; returns
    (manifest, warnings)."""
    if manifest is None:
        path = dataset_source(cfg, output_dir)
        if cfg.dataset == "synthetic" and not _synthetic_is_current(path, cfg):
            write_synthetic_dataset(path.parent, num_cases=cfg.synthetic.num_cases,
                                    num_validation=cfg.synthetic.num_validation, seed=cfg.synthetic.seed)
        manifest = load_manifest(cfg, output_dir)
    if cfg.regions is not None:  # over the dataset's own declaration (nnU-Net's dataset.json)
        regions = Regions.declared(cfg.regions, manifest.label_values, "data.regions", cfg.region_order)
        manifest = dataclasses.replace(manifest, regions=regions)
    report = check_manifest(manifest, max_voxels=cfg.max_voxels)
    report.raise_if_errors()
    return manifest, report.warnings


def load_manifest(cfg: DataConfig, output_dir: str | Path) -> Manifest:
    return load_cases(dataset_source(cfg, output_dir), validation_fraction=cfg.validation_fraction,
                      num_folds=cfg.num_folds, fold=cfg.fold, seed=cfg.split_seed, binarize=cfg.binarize,
                      labels=cfg.labels)


def preprocess_settings(cfg: DataConfig, manifest: Manifest) -> PreprocessSettings:
    """The preprocessing for this dataset: the configured spacing or the training cases' median.

    Raises:
        DataError: a case resampled to that spacing would hold more than ``data.max_voxels`` voxels.
    """
    spacing = cfg.spacing or median_spacing([case.images[0] for case in manifest.training])
    check_resampled_sizes(manifest, tuple(spacing), cfg.max_voxels, configured=cfg.spacing is not None)
    label_map = tuple(sorted(manifest.label_map.items())) if manifest.label_map else None
    normalization = resolved_normalization(cfg.normalization, manifest)
    crop = cfg.crop_foreground if cfg.crop_foreground is not None else normalization != "ct"
    # The window means nothing to zscore: kept at its default there, so that a data.ct_window left in a
    # config (or set for an `auto` that resolved to zscore) neither rebuilds the cache nor refuses a resume.
    window = cfg.ct_window if normalization == "ct" else DEFAULT_CT_WINDOW
    return PreprocessSettings(spacing=tuple(spacing), normalization=normalization, ct_window=window,
                              crop_foreground=crop, label_map=label_map,
                              binarize=manifest.binarized)


def resolved_normalization(asked: str, manifest: Manifest) -> str:
    """``data.normalization`` with ``auto`` resolved: ``ct`` where the dataset names every image channel
    CT, as nnU-Net chooses its CT normalization from the same declaration; ``zscore`` otherwise. A CT
    dataset of the Decathlon's (7 of its 10 tasks) was z-scored and cropped to the voxels above 0 HU,
    cutting fat and air away, unless ``data.normalization: ct`` was given (until the sixty-seventh session).
    """
    if asked != "auto":
        return asked
    names = list(manifest.channels.values())
    return "ct" if names and all(str(name).strip().upper() == "CT" for name in names) else "zscore"


def check_resampled_sizes(manifest: Manifest, spacing: tuple[float, float, float], max_voxels: int,
                          configured: bool = True) -> None:
    """Refuse a target spacing that would resample a case beyond the voxel budget.

    The pre-flight check judges each file as stored; resampling multiplies its voxels by the ratio of
    voxel volumes, so a spacing ten times finer than the scans asks for a thousand times the memory:
    MONAI's Spacingd then failed to allocate (terabytes, a traceback), or, at a few times the
    machine's memory, the kernel killed the process without a word. Judged from the headers alone.
    """
    target = float(np.prod(spacing))
    over = []
    for case in manifest.training + manifest.validation:
        try:
            image = nib.load(str(case.images[0]))
        except Exception:  # nibabel raises many types; the pre-flight check reports the file (loader() has none)
            continue
        shape, zooms = image.shape[:3], tuple(nib.affines.voxel_sizes(image.affine))  # as NiftiReader reads
        voxels = float(np.prod(shape, dtype=np.float64)) * float(np.prod(zooms, dtype=np.float64)) / target
        if voxels > max_voxels:
            over.append((voxels, case, shape, zooms))
    if not over:
        return
    voxels, case, shape, zooms = max(over, key=lambda item: item[0])
    source = "data.spacing" if configured else "the training cases' median spacing (data.spacing unset)"
    raise DataError(
        f"{source} {' x '.join(f'{s:g}' for s in spacing)} mm would resample {len(over)} case(s) beyond the "
        f"budget of {max_voxels:,} voxels per volume (data.max_voxels): {case.id} "
        f"({' x '.join(map(str, shape))} voxels of {' x '.join(f'{z:g}' for z in zooms)} mm) would hold about "
        f"{voxels:,.0f}; choose a coarser data.spacing, crop the scans to the region of interest, or raise "
        "data.max_voxels on a machine with more memory")


def cache_root(cfg: DataConfig) -> Path:
    """``data.cache_dir`` as an absolute path, ``~`` expanded (the default: ``~/.cache/accelerated_seg``)."""
    return (Path(cfg.cache_dir).expanduser() if cfg.cache_dir else default_cache_dir()).absolute()


def _synthetic_is_current(path: Path, cfg: DataConfig) -> bool:
    if not path.is_file():
        return False
    written = json.loads(path.read_text())
    total = len(written.get("training", [])) + len(written.get("validation", []))
    return (written.get("seed") == cfg.synthetic.seed and total == cfg.synthetic.num_cases
            and len(written.get("validation", [])) == cfg.synthetic.num_validation)
