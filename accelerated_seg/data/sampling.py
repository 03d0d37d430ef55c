"""Which samples each step sees.

``EpochSampler`` yields *global* sample numbers ``epoch * epoch_length + i`` in an order that is a
function of (seed, epoch) alone. Every rank builds the same order, accelerate shards the batches
across ranks, and the dataset derives each patch's randomness from the global number. So a sample
is the same patch whatever the number of processes or workers, N processes x batch b see exactly
the samples of 1 process x batch N*b, and resuming mid-epoch needs only the step count.
"""

from __future__ import annotations

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
