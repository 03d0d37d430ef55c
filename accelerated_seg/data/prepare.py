"""From the ``data`` settings to checked cases and the preprocessing that will be applied.

``data.dataset: synthetic`` writes the embedded phantom dataset into the run's output folder on
first use (and again if its settings change). Then the cases are read (MSD, nnU-Net, CSV) and every
file checked: problems become one ``DataError`` naming each file and what to do. The training loop
reads the cases on the main process and shares them with the other ranks; every rank then checks a
share of them, and all receive the whole report.
"""

from __future__ import annotations

from pathlib import Path

from ..config import DataConfig
from . import check_records
from .cache import default_cache_dir
from .checks import CheckReport, check_as_configured
from .manifest import Manifest, dataset_source, load_manifest, with_regions
from .preprocess_settings import (DEFAULT_CT_WINDOW, PreprocessSettings, resolved_crop_foreground,
                                  resolved_normalization)
from .spacing import target_spacing_and_unit
from .synthetic import (holds_the_phantoms, phantoms_without_cases, refuse_labels_beside_the_phantoms,
                        write_synthetic_dataset)


def read_manifest(cfg: DataConfig, output_dir: str | Path, manifest: Manifest | None = None) -> Manifest:
    """Synthesise if asked, then read the cases (unless given): the manifest, not yet checked."""
    if manifest is None:
        path = dataset_source(cfg, output_dir)
        if cfg.dataset == "synthetic":  # written or not: their dataset.json's refusal named a file the run rewrites
            refuse_labels_beside_the_phantoms(cfg.labels, path.parent)
        if cfg.dataset == "synthetic" and not _synthetic_is_current(path, cfg):
            write_synthetic_dataset(path.parent, num_cases=cfg.synthetic.num_cases,
                                    num_validation=cfg.synthetic.num_validation, seed=cfg.synthetic.seed)
        manifest = load_manifest(cfg, output_dir)
    return manifest


def counts_before_writing(cfg: DataConfig, output_dir: str | Path, manifest: Manifest | None = None) -> Manifest:
    """The dataset as far as it is known before anything is written, ``data.regions`` applied: the cases
    given, the embedded phantoms' channel and classes before they are written
    (``synthetic.phantoms_without_cases``), else the dataset's description (dataset.json, CSV), with
    no image read. What training checks the network's channels and the loss's class weights against
    before it makes the run folder, the phantoms or the cache.

    Raises:
        DataError: the description cannot be read, or names what ``data.regions`` or ``data.labels``
            contradict; training's reading of the cases raised the same later.
    """
    if manifest is None:
        path = dataset_source(cfg, output_dir)
        if cfg.dataset == "synthetic":  # written or not: their dataset.json's refusal named a file the run rewrites
            refuse_labels_beside_the_phantoms(cfg.labels, path.parent)
        if cfg.dataset == "synthetic" and not _synthetic_is_current(path, cfg):
            manifest = phantoms_without_cases(path.parent, cfg.binarize, cfg.labels)
        else:
            manifest = load_manifest(cfg, output_dir)
    return with_regions(cfg, manifest)


def prepare_manifest(cfg: DataConfig, output_dir: str | Path, manifest: Manifest | None = None
                     ) -> tuple[Manifest, CheckReport]:
    """Synthesise if asked, read the cases (unless given), run the pre-flight checks (recalling the
    cases that passed before); returns the manifest and the report, whose warnings are to be said and
    whose ``keep_records`` is to be called once nothing refuses the work. Training spreads the checks
    over its ranks (``training_data.checked_data``).

    Raises:
        DataError: the checks found problems.
    """
    manifest, report = check_as_configured(cfg, read_manifest(cfg, output_dir, manifest),
                                           records_folder=records_folder(cfg))
    report.raise_if_errors()
    return manifest, report


def preprocess_settings(cfg: DataConfig, manifest: Manifest) -> PreprocessSettings:
    """The preprocessing for this dataset: the configured spacing or a median (``spacing.median_cases``).

    Raises:
        DataError: the cases' headers declare different units, or a case resampled to that spacing would hold
            more than ``data.max_voxels`` voxels.
    """
    return settings_and_unit(cfg, manifest)[0]


def settings_and_unit(cfg: DataConfig, manifest: Manifest) -> tuple[PreprocessSettings, str | None,
                                                                    tuple[float, float, float] | None]:
    """``preprocess_settings``, the unit its spacing's numbers are in (``spacing.one_spatial_unit``), and, where
    ``data.spacing`` is set, the cases' median voxel size (``spacing.target_spacing_and_unit``), which an export
    records: training takes them from one read of the headers.

    Raises:
        DataError: as ``preprocess_settings``.
    """
    spacing, unit, median = target_spacing_and_unit(cfg, manifest)
    label_map = tuple(sorted(manifest.label_map.items())) if manifest.label_map else None
    normalization = resolved_normalization(cfg.normalization, manifest)
    crop = resolved_crop_foreground(cfg.crop_foreground, normalization)
    # The window means nothing to zscore: kept at its default there, so that a data.ct_window left in a
    # config (or set for an `auto` that resolved to zscore) neither rebuilds the cache nor refuses a resume.
    window = cfg.ct_window if normalization == "ct" else DEFAULT_CT_WINDOW
    return PreprocessSettings(spacing=tuple(spacing), normalization=normalization, ct_window=window,
                              crop_foreground=crop, label_map=label_map,
                              binarize=manifest.binarized), unit, median


def cache_root(cfg: DataConfig) -> Path:
    """``data.cache_dir`` as an absolute path, ``~`` expanded (the default: ``~/.cache/accelerated_seg``)."""
    return (Path(cfg.cache_dir).expanduser() if cfg.cache_dir else default_cache_dir()).absolute()


def records_folder(cfg: DataConfig) -> Path:
    """The folder of the pre-flight checks' records in the cache (``check_records``)."""
    return cache_root(cfg) / check_records.FOLDER


def _synthetic_is_current(path: Path, cfg: DataConfig) -> bool:
    """Whether the embedded phantoms of ``cfg.synthetic`` are at ``path`` whole (``synthetic.holds_the_phantoms``,
    which the examples share): training compared the seed and counts alone, a second test of the same question."""
    return holds_the_phantoms(path.parent, cfg.synthetic.num_cases, cfg.synthetic.num_validation, cfg.synthetic.seed)
