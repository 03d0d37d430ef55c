"""Datasets and DataLoaders for training patches and whole validation volumes.

Knows nothing about accelerate: the training loop prepares these loaders, which shards them across
processes. Preprocessed volumes are cached in memory once per process, together with the
foreground/background voxel indices that patch sampling needs (scanning a label on every draw is
the slowest part of a naive pipeline).
"""

from __future__ import annotations

from typing import Sequence

import torch
from monai.transforms import Compose, FgBgToIndicesd, RandCropByPosNegLabeld, SpatialPadd
from torch.utils.data import DataLoader, Dataset

from .augment import augmentations
from .manifest import Case
from .preprocess import preprocess
from .sampling import EpochSampler, sample_seed


def case_dict(case: Case) -> dict:
    image = [str(p) for p in case.images]
    return {"image": image if len(image) > 1 else image[0], "label": str(case.label), "id": case.id}


class PatchDataset(Dataset):
    """Random training patches; item ``k`` is a global sample number from ``EpochSampler``.

    Args:
        cases: labelled training cases.
        patch_size: spatial size of each patch.
        spacing: target spacing for preprocessing (None keeps the native spacing).
        samples_per_volume: patches drawn from each case per epoch.
        foreground_fraction: probability that a patch is centred on a labelled voxel.
        augment: apply the augmentation set.
        seed: base seed; a patch is a function of (seed, k) only.
    """

    def __init__(self, cases: Sequence[Case], patch_size: Sequence[int], spacing=None, samples_per_volume: int = 4,
                 foreground_fraction: float = 0.67, augment: bool = True, seed: int = 0):
        # Pad before recording voxel indices so the indices refer to the array that is cropped.
        load = Compose([preprocess(spacing=spacing), SpatialPadd(["image", "label"], spatial_size=tuple(patch_size)),
                        FgBgToIndicesd("label")])
        self.volumes = [_strip_meta(load(case_dict(c))) for c in cases]
        self.samples_per_volume = samples_per_volume
        self.seed = seed
        self.random = Compose([
            RandCropByPosNegLabeld(["image", "label"], label_key="label", spatial_size=tuple(patch_size),
                                   pos=foreground_fraction, neg=1.0 - foreground_fraction, num_samples=1,
                                   fg_indices_key="label_fg_indices", bg_indices_key="label_bg_indices"),
            *augmentations(augment),
        ])

    @property
    def epoch_length(self) -> int:
        return len(self.volumes) * self.samples_per_volume

    def __len__(self) -> int:
        return self.epoch_length

    def __getitem__(self, k: int) -> dict:
        volume = self.volumes[(k % self.epoch_length) % len(self.volumes)]
        self.random.set_random_state(seed=sample_seed(self.seed, k))
        (patch,) = self.random(dict(volume))
        return {"image": torch.as_tensor(patch["image"]).float(), "label": torch.as_tensor(patch["label"]).long()}


class VolumeDataset(Dataset):
    """Whole preprocessed validation volumes (image, label, case id)."""

    def __init__(self, cases: Sequence[Case], spacing=None):
        load = preprocess(spacing=spacing)
        self.volumes = [_strip_meta(load(case_dict(c))) for c in cases]

    def __len__(self) -> int:
        return len(self.volumes)

    def __getitem__(self, i: int) -> dict:
        v = self.volumes[i]
        return {"image": v["image"], "label": v["label"].long(), "index": i}


def train_loader(dataset: PatchDataset, batch_size: int, num_workers: int, seed: int) -> DataLoader:
    # drop_last: every step is a full batch on every rank, so every sample carries the same weight.
    return DataLoader(dataset, batch_size=batch_size, sampler=EpochSampler(dataset.epoch_length, seed),
                      num_workers=num_workers, drop_last=True, persistent_workers=num_workers > 0,
                      pin_memory=torch.cuda.is_available())


def val_loader(dataset: VolumeDataset) -> DataLoader:
    return DataLoader(dataset, batch_size=1, shuffle=False, num_workers=0)


def _strip_meta(d: dict) -> dict:
    """Plain tensors: cheaper to crop and to send to workers than MetaTensors with their history."""
    return {k: (v.as_tensor() if hasattr(v, "as_tensor") else v) for k, v in d.items()}
