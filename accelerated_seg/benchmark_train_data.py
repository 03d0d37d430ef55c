"""``benchmark train``'s data, the same for both loops: ``SyntheticPatches``, random patches already on the
device (``--data synthetic``, the default: the training framework's cost alone), or ``real_patches``, phantom
volumes through training's own data path (``--data real``: cache, foreground sampling, augmentation, loader
workers). Either holds exactly one timed block's samples, so a block is one epoch for both loops.
"""

from __future__ import annotations

from pathlib import Path

import torch

from .benchmark_train_settings import TimingSettings, TrainCase
from .data.gpu_augment import place_spatial_augmentation


class SyntheticPatches(torch.utils.data.Dataset):
    """``length`` samples {"image", "label"} cycling over a small pool of random patches on ``device``.

    The length is one timed block (steps x batch x processes), so every block is exactly one epoch
    for both loops. Labels are uint8 as our training loader gives them.
    """

    def __init__(self, length: int, pool: int, in_channels: int, patch, classes: int, device, seed: int = 0):
        generator = torch.Generator().manual_seed(seed)
        self.length = length
        self.images = torch.randn(pool, in_channels, *patch, generator=generator).to(device)
        self.labels = torch.randint(0, classes, (pool, 1, *patch), generator=generator, dtype=torch.uint8).to(device)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> dict:
        k = i % len(self.images)
        return {"image": self.images[k], "label": self.labels[k]}


def real_patches(case: TrainCase, timing: TimingSettings, samples_per_block: int, accelerator, root: Path):
    """The training data path on phantom volumes: written once under ``root``, checked, preprocessed
    into the cache, then sampled with foreground oversampling and the "light" augmentation, exactly
    as ``train`` builds its patches. The epoch is one timed block (cases x patches per case). Both
    loops draw all their blocks from one pass over their loader, as training draws a whole run
    (``EpochSampler``, ``plain_loop.EndlessShare``), so the loader workers run on between blocks
    and across epochs; only the first warm-up block waits for them to start.

    Volumes are 1.25x the patch at 1 mm, so patches are cropped from larger volumes, not padded.
    """
    from .config import Config
    from .data.loader import patch_dataset
    from .data.synthetic import write_synthetic_dataset
    from .ranks import on_main
    from .training_data import cached_tables, checked_data  # the training data path itself

    cases = max(d for d in range(1, 9) if samples_per_block % d == 0)
    size_mm = tuple(1.25 * edge for edge in case.patch)
    dataset_json = on_main(accelerator, lambda: write_synthetic_dataset(
        root / "phantoms", num_cases=cases + 1, num_validation=1, seed=timing.seed, size_mm=size_mm, spacing_mm=1.0))
    cfg = Config()
    cfg.data.dataset, cfg.data.cache_dir = str(dataset_json), str(root / "cache")
    cfg.data.patch_size, cfg.data.samples_per_volume = case.patch, samples_per_block // cases
    cfg.data.num_workers, cfg.train.output_dir = timing.num_workers, str(root / "run")
    # "gpu" (auto's choice on CUDA): batches carry an affine, applied on the device by both loops
    cfg.data.augment_on = place_spatial_augmentation(timing.augment_on, accelerator.device)
    manifest, settings, _, _, _ = checked_data(cfg, accelerator, None)  # phantoms of its own: no records kept
    training, _ = cached_tables(cfg, accelerator, manifest, settings)
    return patch_dataset(training, cfg.data, seed=timing.seed)
