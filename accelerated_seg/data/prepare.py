"""From the ``data`` settings to a checked list of cases, before any training starts.

``data.dataset: synthetic`` writes the embedded phantom dataset into the run's output folder on
first use (and again if its settings change). Then the manifest is read and every file checked:
problems become one ``DataError`` naming each file and what to do. The training loop runs this once,
on the main process, and shares the outcome with the other ranks.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..config import DataConfig
from .checks import check_manifest
from .manifest import Manifest, load_msd
from .synthetic import write_synthetic_dataset


def dataset_json_path(cfg: DataConfig, output_dir: str | Path) -> Path:
    if cfg.dataset == "synthetic":
        return Path(output_dir) / "synthetic_data" / "dataset.json"
    return Path(cfg.dataset)


def prepare_manifest(cfg: DataConfig, output_dir: str | Path) -> tuple[Manifest, list[str]]:
    """Synthesise if asked, read the manifest, run the pre-flight checks; returns (manifest, warnings)."""
    path = dataset_json_path(cfg, output_dir)
    if cfg.dataset == "synthetic" and not _synthetic_is_current(path, cfg):
        write_synthetic_dataset(path.parent, num_cases=cfg.synthetic.num_cases,
                                num_validation=cfg.synthetic.num_validation, seed=cfg.synthetic.seed)
    manifest = load_manifest(cfg, output_dir)
    report = check_manifest(manifest)
    report.raise_if_errors()
    return manifest, report.warnings


def load_manifest(cfg: DataConfig, output_dir: str | Path) -> Manifest:
    return load_msd(dataset_json_path(cfg, output_dir), validation_fraction=cfg.validation_fraction,
                    seed=cfg.split_seed)


def _synthetic_is_current(path: Path, cfg: DataConfig) -> bool:
    if not path.is_file():
        return False
    written = json.loads(path.read_text())
    total = len(written.get("training", [])) + len(written.get("validation", []))
    return (written.get("seed") == cfg.synthetic.seed and total == cfg.synthetic.num_cases
            and len(written.get("validation", [])) == cfg.synthetic.num_validation)
