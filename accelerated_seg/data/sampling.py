"""Which samples each step sees, and where each training patch is cut.

``EpochSampler`` yields *global* sample numbers ``epoch * epoch_length + i`` in an order that is a
function of (seed, epoch) alone. Every rank builds the same order, accelerate shards the batches
across ranks, and the dataset derives each patch's randomness from the global number. So a sample
is the same patch whatever the number of processes or workers, N processes x batch b see exactly
the samples of 1 process x batch N*b, and resuming mid-epoch needs only the step count.

Patch centres are drawn here rather than with MONAI's RandCropByPosNegLabeld: MONAI's crop
transforms convert the whole volume to a tensor first, which would read every memory-mapped volume
in full for each patch. We choose a centre from the recorded class locations (as nnU-Net does) and
slice only the patch out of the memory map.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from torch.utils.data import Sampler


class EpochSampler(Sampler[int]):
    def __init__(self, epoch_length: int, seed: int = 0):
        self.epoch_length = epoch_length
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        # Called by accelerate's prepared DataLoader (DataLoaderShard.set_epoch) on every rank.
        self.epoch = epoch

    def __iter__(self):
        order = np.random.default_rng([self.seed, self.epoch]).permutation(self.epoch_length)
        offset = self.epoch * self.epoch_length
        return iter((offset + order).tolist())

    def __len__(self) -> int:
        return self.epoch_length


def sample_seed(seed: int, sample: int) -> int:
    """A 32-bit seed for one global sample number (MONAI's Randomizable takes < 2**32)."""
    return int(np.random.SeedSequence([seed, sample]).generate_state(1)[0])


def choose_centre(rng: np.random.Generator, shape: Sequence[int], class_locations: Sequence[np.ndarray],
                  class_voxels: Sequence[int], foreground_fraction: float, class_balanced: bool) -> tuple[int, ...]:
    """A patch centre: on a labelled voxel with probability ``foreground_fraction``, else anywhere.

    Args:
        rng: the sample's generator.
        shape: spatial shape of the volume.
        class_locations: per foreground class, recorded flat voxel indices (a sample of them).
        class_voxels: per foreground class, how many voxels it really has.
        class_balanced: pick each present class equally often (helps rare structures); otherwise a
            class is picked in proportion to its size, i.e. a uniformly random foreground voxel.
    """
    present = [c for c, locations in enumerate(class_locations) if len(locations)]
    if present and rng.random() < foreground_fraction:
        if class_balanced:
            c = present[rng.integers(len(present))]
        else:
            weights = np.array([class_voxels[c] for c in present], dtype=float)
            c = present[rng.choice(len(present), p=weights / weights.sum())]
        locations = class_locations[c]
        return tuple(int(i) for i in np.unravel_index(locations[rng.integers(len(locations))], shape))
    return tuple(int(rng.integers(0, n)) for n in shape)


def crop(array: np.ndarray, centre: Sequence[int], size: Sequence[int]) -> np.ndarray:
    """The ``size`` window around ``centre`` over the last three axes, kept inside the volume
    when it fits and zero-padded (evenly) where the volume is smaller than the patch."""
    spatial = array.shape[-3:]
    slices, padding = [], []
    for c, n, s in zip(centre, spatial, size):
        if n >= s:
            start = min(max(c - s // 2, 0), n - s)
            slices.append(slice(start, start + s))
            padding.append((0, 0))
        else:
            slices.append(slice(0, n))
            padding.append(((s - n) // 2, s - n - (s - n) // 2))
    patch = np.array(array[(..., *slices)])  # reads (and copies) just the window from a memory map
    if any(p != (0, 0) for p in padding):
        patch = np.pad(patch, [(0, 0)] * (patch.ndim - 3) + padding)
    return patch
