"""From the ``data`` settings to checked cases and the preprocessing that will be applied.

``data.dataset: synthetic`` writes the embedded phantom dataset into the run's output folder on
first use (and again if its settings change). Then the cases are read (MSD, nnU-Net, CSV) and every
file checked: problems become one ``DataError`` naming each file and what to do. The training loop
runs this once, on the main process, and shares the outcome with the other ranks.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..config import DataConfig
from .cache import default_cache_dir
from .checks import check_manifest
from .manifest import Manifest, load_cases
from .preprocess import PreprocessSettings, median_spacing
from .synthetic import write_synthetic_dataset


def dataset_source(cfg: DataConfig, output_dir: str | Path) -> Path:
    if cfg.dataset == "synthetic":
        return Path(output_dir) / "synthetic_data" / "dataset.json"
    return Path(cfg.dataset)


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
    report = check_manifest(manifest, max_voxels=cfg.max_voxels)
    report.raise_if_errors()
    return manifest, report.warnings


def load_manifest(cfg: DataConfig, output_dir: str | Path) -> Manifest:
    return load_cases(dataset_source(cfg, output_dir), validation_fraction=cfg.validation_fraction,
                      num_folds=cfg.num_folds, fold=cfg.fold, seed=cfg.split_seed, binarize=cfg.binarize,
                      labels=cfg.labels)


def preprocess_settings(cfg: DataConfig, manifest: Manifest) -> PreprocessSettings:
    """The preprocessing for this dataset: the configured spacing or the training cases' median."""
    spacing = cfg.spacing or median_spacing([case.images[0] for case in manifest.training])
    label_map = tuple(sorted(manifest.label_map.items())) if manifest.label_map else None
    crop = cfg.crop_foreground if cfg.crop_foreground is not None else cfg.normalization != "ct"
    return PreprocessSettings(spacing=tuple(spacing), normalization=cfg.normalization, ct_window=cfg.ct_window,
                              crop_foreground=crop, label_map=label_map,
                              binarize=manifest.binarized)


def cache_root(cfg: DataConfig) -> Path:
    return Path(cfg.cache_dir) if cfg.cache_dir else default_cache_dir()


def _synthetic_is_current(path: Path, cfg: DataConfig) -> bool:
    if not path.is_file():
        return False
    written = json.loads(path.read_text())
    total = len(written.get("training", [])) + len(written.get("validation", []))
    return (written.get("seed") == cfg.synthetic.seed and total == cfg.synthetic.num_cases
            and len(written.get("validation", [])) == cfg.synthetic.num_validation)
