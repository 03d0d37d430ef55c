"""Datasets and DataLoaders over the preprocessed cache: training patches and whole volumes.

Knows nothing about accelerate: the training loop prepares these loaders, which shards them across
processes. Both datasets hold only the case table (memory-mapped Arrow) and open each case's arrays
as memory maps when a sample is drawn, so resident memory does not grow with the dataset.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from monai.transforms import Compose
from monai.utils import convert_to_tensor
from torch.utils.data import DataLoader, Dataset

from .augment import augmentations
from .sampling import EpochSampler, choose_centre, crop, sample_seed
from .workers import end_deaf_workers_at_exit, worker_init_for_this_rank, worker_start_method


def patches_per_epoch(num_cases: int, samples_per_volume: int) -> int:
    """An epoch of training patches: ``samples_per_volume`` from every case (PatchDataset's length;
    known from the manifest alone, so a run too small for one step is refused before preprocessing)."""
    return num_cases * samples_per_volume


class PatchDataset(Dataset):
    """Random training patches; item ``k`` is a global sample number from ``EpochSampler``.

    Args:
        table: the case table (``PreprocessedCache.load_table``).
        patch_size: spatial size of each patch.
        samples_per_volume: patches drawn from each case per epoch.
        foreground_fraction: probability that a patch is centred on a labelled voxel.
        class_balanced: foreground patches pick each class equally often.
        augment: profile name (none, light, standard, heavy).
        augment_on: "gpu" leaves the spatial part to the training loop, which applies the per-sample
            matrix returned as "affine" on the device (``gpu_augment.apply_affine``). "cpu" does it
            here, in the workers, and so does "auto": the dataset knows no device, so the training
            loop resolves "auto" first (``gpu_augment.place_spatial_augmentation``).
        seed: base seed; a patch is a function of (seed, k) only.
        ignore_index: the class index of unannotated voxels (``Manifest.ignore_index``), or None: patches
            not centred on a foreground class are then centred on an annotated voxel.
    """

    def __init__(self, table, patch_size: Sequence[int], samples_per_volume: int = 4,
                 foreground_fraction: float = 0.67, class_balanced: bool = False, augment: str = "light",
                 augment_on: str = "cpu", seed: int = 0, ignore_index: int | None = None):
        self.table = table
        self.patch_size = tuple(patch_size)
        self.samples_per_volume = samples_per_volume
        self.foreground_fraction = foreground_fraction
        self.class_balanced = class_balanced
        self.profile = augment
        self.spatial_on_gpu = augment_on == "gpu"
        self.augment = Compose(augmentations(augment, spatial=not self.spatial_on_gpu))
        self.seed = seed
        self.ignore_index = ignore_index

    @property
    def epoch_length(self) -> int:
        return patches_per_epoch(len(self.table), self.samples_per_volume)

    def __len__(self) -> int:
        return self.epoch_length

    def __getitem__(self, k: int) -> dict:
        case = self.table[(k % self.epoch_length) % len(self.table)]
        seed = sample_seed(self.seed, k)
        rng = np.random.default_rng(seed)
        image = np.load(case["image"], mmap_mode="r")
        label = np.load(case["label"], mmap_mode="r")
        annotated = None if self.ignore_index is None else (lambda voxel: label[voxel] != self.ignore_index)
        centre = choose_centre(rng, label.shape, case["class_locations"], case["class_voxels"],
                               self.foreground_fraction, self.class_balanced, annotated)
        patch = {"image": torch.from_numpy(crop(image, centre, self.patch_size)),
                 "label": torch.from_numpy(crop(label, centre, self.patch_size)[None])}
        self.augment.set_random_state(seed=seed)
        patch = self.augment(patch)
        # uint8 labels: int64 would be 8x the bytes through the workers' shared memory, which is the
        # bottleneck on few cores (measured at 96^3 on 2 cores: 47 -> 104 patches/s). The loss and
        # the metrics take any integer dtype.
        # Plain tensors, not the MetaTensors MONAI's transforms return: their metadata means nothing
        # to the loop, and torch.compile (aot_autograd) fails on convolutions of MetaTensor inputs.
        sample = {"image": convert_to_tensor(patch["image"], dtype=torch.float32, track_meta=False),
                  "label": convert_to_tensor(patch["label"], dtype=torch.uint8, track_meta=False)}
        if self.spatial_on_gpu:
            from .gpu_augment import affine_for_sample

            sample["affine"] = torch.as_tensor(affine_for_sample(rng, self.profile), dtype=torch.float32)
        return sample


def patch_dataset(table, cfg, seed: int, ignore_index: int | None = None) -> PatchDataset:
    """The training patches as the ``data`` settings (a ``DataConfig``) describe them, of a dataset whose
    unannotated voxels hold ``ignore_index`` (if any); the training loop and the ``Dataset`` builder both
    construct them here, so they are the same pipeline."""
    return PatchDataset(table, cfg.patch_size, cfg.samples_per_volume, cfg.foreground_fraction, cfg.class_balanced,
                        cfg.augment, cfg.augment_on, seed=seed, ignore_index=ignore_index)


class VolumeDataset(Dataset):
    """Whole preprocessed volumes for validation: image (C, X, Y, Z), label (1, X, Y, Z), voxel
    spacing in mm and the row index."""

    def __init__(self, table):
        self.table = table

    def __len__(self) -> int:
        return len(self.table)

    @property
    def num_channels(self) -> int:
        return np.load(self.table[0]["image"], mmap_mode="r").shape[0]  # reads the .npy header only

    def __getitem__(self, i: int) -> dict:
        case = self.table[i]
        image = torch.from_numpy(np.array(np.load(case["image"], mmap_mode="r")))
        label = torch.from_numpy(np.load(case["label"], mmap_mode="r")[None].astype(np.int64))
        return {"image": image, "label": label, "spacing": tuple(float(s) for s in case["spacing"]), "index": i}


def train_loader(dataset: PatchDataset, batch_size: int, num_workers: int, seed: int, epochs_per_pass: int = 1,
                 processes: int = 1, pin_memory: bool | None = None, accumulation: int = 1) -> DataLoader:
    """The training patches for one rank, before accelerate shards them over ``processes`` ranks.

    ``epochs_per_pass`` > 1: one pass over the loader yields that many epochs, each cut to whole
    optimizer steps of ``batch_size`` x ``processes`` x ``accumulation`` samples (``EpochSampler``),
    and the workers run on across their boundaries. ``pin_memory``: page-locked batches for
    non-blocking copies to a GPU; None pins them where a GPU exists (training says whether it runs
    on one: a CPU run on a GPU machine pinned for nothing, and started a CUDA context to do it).
    """
    # drop_last: every step is a full batch on every rank, so every sample carries the same weight.
    sampler = EpochSampler(dataset.epoch_length, seed, epochs_per_pass,
                           whole_batches_of=batch_size * processes * accumulation)
    if num_workers > 0:
        end_deaf_workers_at_exit()  # for workers that are this process's children (no fork server)
    # A generator of its own for the seed each pass draws for its workers, which torch draws from
    # the global generator otherwise: a resumed run, its generators restored, then made its loader's
    # first pass and drew one number more than the uninterrupted run had by then, so every later
    # dropout mask was the next one (weights 2e-3 apart after 3 steps; the eighty-sixth session's
    # review). The patches are seeded per sample (PatchDataset) and need none of it; every rank's
    # workers get the same seeds from it, which nothing draws from.
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, generator=torch.Generator().manual_seed(seed),
                      num_workers=num_workers, drop_last=True, persistent_workers=num_workers > 0,
                      multiprocessing_context=worker_start_method(num_workers),
                      worker_init_fn=worker_init_for_this_rank() if num_workers > 0 else None,
                      pin_memory=torch.cuda.is_available() if pin_memory is None else pin_memory,
                      prefetch_factor=4 if num_workers > 0 else None)
