"""nobrainer-style Python API over the same pieces the command line uses.

    from accelerated_seg.estimator import Dataset

    pairs = [("sub-01_T1w.nii.gz", "sub-01_mask.nii.gz"), ...]
    data = Dataset.from_files(pairs, block_shape=(128, 128, 128), n_classes=2).batch(4).binarize().augment()
    loader = data.loader()            # the training loop's own patch pipeline, in this process
    summary = data.fit(config)        # or train on it with the one training loop

Each call returns a new ``Dataset`` (like nobrainer's and tf.data's builders), so a base dataset can be
specialised several ways. Nothing here re-implements data handling: the builder holds a ``Manifest``
and a ``DataConfig``, which are exactly what ``accelerated-seg train`` reads from a YAML file.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from .config import Config, DataConfig
from .data.cache import PreprocessedCache
from .data.loader import patch_dataset, train_loader
from .data.manifest import Manifest, from_pairs
from .data.prepare import cache_root, preprocess_settings


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A set of labelled cases plus how to cut and augment training patches from them.

    Args:
        manifest: the cases and their split.
        data: the data settings (patch size, augmentation, preprocessing, ...).
        batch_size: per-device batch, or None for the training default.
        pairs: the original pairs (kept so ``binarize`` can rebuild the label mapping).
    """

    manifest: Manifest
    data: DataConfig
    batch_size: int | None = None
    pairs: tuple = ()
    validation_pairs: tuple | None = None
    n_classes: int | None = None

    @classmethod
    def from_files(cls, pairs: Sequence, block_shape: Sequence[int] = (128, 128, 128), n_classes: int = 2,
                   validation_pairs: Sequence | None = None, validation_fraction: float = 0.2,
                   **data_settings) -> "Dataset":
        """Cases from ``[(image or [channel images], label), ...]``.

        Args:
            pairs: training (and, without ``validation_pairs``, validation) cases.
            block_shape: training patch size (nobrainer's name for it).
            n_classes: classes including background; labels must hold values 0..n_classes-1.
            validation_pairs: held-out cases; default: a seeded ``validation_fraction`` of ``pairs``.
            data_settings: any other ``DataConfig`` field, e.g. ``spacing=(1, 1, 1)``, ``cache_dir=...``.
        """
        data = DataConfig(patch_size=tuple(block_shape), validation_fraction=validation_fraction, **data_settings)
        pairs, validation_pairs = tuple(pairs), tuple(validation_pairs) if validation_pairs is not None else None
        return cls(manifest=_manifest(pairs, validation_pairs, n_classes, data), data=data, pairs=pairs,
                   validation_pairs=validation_pairs, n_classes=n_classes)

    def batch(self, batch_size: int) -> "Dataset":
        """Per-device batch size."""
        return dataclasses.replace(self, batch_size=batch_size)

    def binarize(self) -> "Dataset":
        """Every non-background label value becomes class 1 (e.g. brain vs not brain)."""
        data = dataclasses.replace(self.data, binarize=True)
        return dataclasses.replace(self, data=data, manifest=_manifest(self.pairs, self.validation_pairs,
                                                                       self.n_classes, data))

    def augment(self, profile: str = "light", on: str = "cpu") -> "Dataset":
        """Augment training patches with a profile (none, light, standard, heavy); ``on="gpu"`` runs the
        spatial part on the device inside the training loop."""
        return dataclasses.replace(self, data=dataclasses.replace(self.data, augment=profile, augment_on=on))

    def config(self, **train_settings) -> Config:
        """A full run config with these data settings (``train_settings`` go to ``TrainConfig``)."""
        cfg = Config(data=self.data)
        cfg.train = dataclasses.replace(cfg.train, batch_size=self.batch_size, **train_settings)
        return cfg

    def loader(self, seed: int = 0, num_workers: int | None = None):
        """The training patch DataLoader for this process, built exactly as the training loop builds it
        (preprocessing cache, patch dataset, epoch sampler)."""
        settings = preprocess_settings(self.data, self.manifest)
        cache = PreprocessedCache(cache_root(self.data), self.manifest.root, settings, self.manifest.num_classes)
        cache.build(self.manifest.training)
        table = cache.load_table(cache.write_table(self.manifest.training))
        workers = self.data.num_workers if num_workers is None else num_workers
        return train_loader(patch_dataset(table, self.data, seed), self.batch_size or 2, workers, seed)

    def fit(self, config: Config | None = None, **train_settings) -> dict:
        """Train on these cases with the one training loop (in this process, or every process of an
        ``accelerate launch``); returns the run summary."""
        from .train import train

        cfg = config or self.config(**train_settings)
        return train(cfg, manifest=self.manifest)


def _manifest(pairs, validation_pairs, n_classes, data: DataConfig) -> Manifest:
    return from_pairs(list(pairs), labels=n_classes, validation_pairs=list(validation_pairs) if validation_pairs else None,
                      validation_fraction=data.validation_fraction, num_folds=data.num_folds, fold=data.fold,
                      seed=data.split_seed, binarize=data.binarize)
