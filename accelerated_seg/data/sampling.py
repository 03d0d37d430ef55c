"""Which samples each step sees, and where each training patch is cut.

``EpochSampler`` yields *global* sample numbers ``epoch * epoch_length + i`` in an order that is a
function of (seed, epoch) alone. Every rank builds the same order, accelerate shards the batches
across ranks, and the dataset derives each patch's randomness from the global number. So a sample
is the same patch whatever the number of processes or workers, N processes x batch b see exactly
the samples of 1 process x batch N*b, and resuming mid-epoch needs only the step count.

One pass over the loader may span several epochs (``epochs_per_pass``): a DataLoader's workers stop
at the end of every pass, and the next pass waits for them to refill the prefetch queue (on one H100,
0.16-0.24 s at every epoch's start, docs/performance_history.md). The training loop makes one pass cover the
whole run, so the workers run on across epoch boundaries. Which samples a rank sees stays what
epoch-by-epoch passes would give it: each epoch keeps the whole optimizer steps of its order, which
without accumulation is exactly what a drop_last loader sharded by accelerate keeps of an epoch of its own.

Patch centres are drawn here rather than with MONAI's RandCropByPosNegLabeld: MONAI's crop
transforms convert the whole volume to a tensor first, which would read every memory-mapped volume
in full for each patch. We choose a centre from the recorded class locations (as nnU-Net does) and
slice only the patch out of the memory map.

With an ignore label (sparse annotation) a patch not centred on a foreground class is centred on an
annotated voxel, of any class, as nnU-Net centres its patches: with one slice in ten annotated, nine
random patches in ten would otherwise miss the annotated slices' background near their centre.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from torch.utils.data import Sampler


class EpochSampler(Sampler[int]):
    """Global sample numbers, ``epochs_per_pass`` epochs per pass over the loader.

    Args:
        epoch_length: samples in one epoch (``PatchDataset.epoch_length``).
        seed: the orders are a function of (seed, epoch).
        epochs_per_pass: epochs one pass over the loader yields, one after the other.
        whole_batches_of: the samples of one optimizer step (per-device batch x processes x
            accumulation). Each epoch yields the largest multiple of it from its order, so no step
            holds samples of two epochs and the ranks' shares stay equal; a drop_last loader of one
            epoch per pass keeps the same ones. Cut to whole micro-batches of all ranks instead (until
            the eighty-fifth session), an epoch kept other samples under another split of the same
            global batch: 1 process accumulating over 2 batches of 2, and 2 processes of 2, trained on
            6 and 4 of 7 patches an epoch.
    """

    def __init__(self, epoch_length: int, seed: int = 0, epochs_per_pass: int = 1, whole_batches_of: int = 1):
        if epochs_per_pass < 1 or not 1 <= whole_batches_of <= epoch_length:
            raise ValueError(f"EpochSampler: need epochs_per_pass >= 1 (got {epochs_per_pass}) and a global batch "
                             f"of 1 to {epoch_length} samples, the epoch (got {whole_batches_of})")
        self.epoch_length = epoch_length
        self.seed = seed
        self.epochs_per_pass = epochs_per_pass
        self.samples_per_epoch = epoch_length // whole_batches_of * whole_batches_of
        self.epoch = 0  # accelerate's name for it; with several epochs per pass it numbers the passes
        self._epoch_given = True  # the first pass is pass 0

    def set_epoch(self, epoch: int) -> None:
        # Called by accelerate's prepared DataLoader (DataLoaderShard.set_epoch) on every rank: the pass.
        self.epoch = epoch
        self._epoch_given = True

    def __iter__(self):
        # A pass that no set_epoch named is the one after the last: a plain DataLoader over this sampler
        # (Dataset.loader() in a loop of the user's own) drew the same patches every epoch until the
        # seventy-first session, as nothing calls set_epoch there. accelerate names every pass.
        if not self._epoch_given:
            self.epoch += 1
        self._epoch_given = False
        first = self.epoch * self.epochs_per_pass
        return self._samples(first)

    def _samples(self, first: int):
        for epoch in range(first, first + self.epochs_per_pass):  # one epoch's order at a time, as drawn
            order = np.random.default_rng([self.seed, epoch]).permutation(self.epoch_length)
            yield from (epoch * self.epoch_length + order[:self.samples_per_epoch]).tolist()

    def __len__(self) -> int:
        return self.epochs_per_pass * self.samples_per_epoch


def position_in_other_batches(batches: int, old_batch: int, new_batch: int, epoch_length: int,
                              old_epoch_length: int | None = None, old_step: int | None = None,
                              new_step: int | None = None) -> int:
    """Batches of ``new_batch`` global samples that put a stream where ``batches`` of ``old_batch`` stood.

    Each epoch of ``EpochSampler`` is cut to whole optimizer steps, so the stream is counted by epochs
    done and the samples into the current one; that place is rounded down to a whole new batch: a
    few samples (under one batch) are drawn again, none is skipped. A resume with another per-device
    batch or number of processes counted the old batches in new ones until the seventy-second
    session: half the batch drew again samples already trained on, twice the batch skipped epochs.

    Epochs of another length (``old_epoch_length``: another ``data.samples_per_volume``) are orders
    of other samples, so the place in the current epoch is carried over as the share of it done.
    Until the eighty-fifth session the batches were counted in the new epochs: twice the patches per
    volume put the run back by half its epochs.

    Epochs are cut to whole optimizer steps (``old_step`` and ``new_step`` samples; by default one
    batch each, as before the eighty-fifth session), and the place is rounded down to a whole new
    step, so that no accumulation window of the resumed run crosses an epoch's end.
    """
    old_length = epoch_length if old_epoch_length is None else old_epoch_length
    old_step, new_step = old_step or old_batch, new_step or new_batch
    old_epoch = old_length // old_step * old_step
    new_epoch = epoch_length // new_step * new_step
    epochs, into = divmod(batches * old_batch, old_epoch)
    if old_length != epoch_length:
        into = into * epoch_length // old_length
    return (epochs * new_epoch + min(into, new_epoch) // new_step * new_step) // new_batch


def sample_seed(seed: int, sample: int) -> int:
    """A 32-bit seed for one global sample number (MONAI's Randomizable takes < 2**32)."""
    return int(np.random.SeedSequence([seed, sample]).generate_state(1)[0])


#: Random voxels tried for an annotated one before a foreground class's voxel is taken instead: with 2%
#: of the voxels annotated (scribbles) one in 3,000 patches falls back; each try reads one voxel.
ANNOTATED_TRIES = 400


def choose_centre(rng: np.random.Generator, shape: Sequence[int], class_locations: Sequence[np.ndarray],
                  class_voxels: Sequence[int], foreground_fraction: float, class_balanced: bool,
                  annotated: Callable[[tuple[int, ...]], bool] | None = None) -> tuple[int, ...]:
    """A patch centre: on a labelled voxel with probability ``foreground_fraction``, else anywhere
    (anywhere ``annotated``, when given).

    Args:
        rng: the sample's generator.
        shape: spatial shape of the volume.
        class_locations: per foreground class, recorded flat voxel indices (a sample of them).
        class_voxels: per foreground class, how many voxels it really has.
        class_balanced: pick each present class equally often (helps rare structures); otherwise a
            class is picked in proportion to its size, i.e. a uniformly random foreground voxel.
        annotated: with an ignore label, whether a voxel is annotated. The centre not on a foreground
            class is then a uniformly random annotated voxel (drawn until one is, at most
            ``ANNOTATED_TRIES`` times; then a foreground voxel as above, if any).
    """
    present = [c for c, locations in enumerate(class_locations) if len(locations)]
    if present and rng.random() < foreground_fraction:
        return _foreground_voxel(rng, shape, class_locations, class_voxels, class_balanced, present)
    if annotated is not None:
        for _ in range(ANNOTATED_TRIES):
            centre = tuple(int(rng.integers(0, n)) for n in shape)
            if annotated(centre):
                return centre
        if present:
            return _foreground_voxel(rng, shape, class_locations, class_voxels, class_balanced, present)
    return tuple(int(rng.integers(0, n)) for n in shape)


def _foreground_voxel(rng, shape, class_locations, class_voxels, class_balanced, present) -> tuple[int, ...]:
    """A recorded voxel of one of the ``present`` classes (see ``choose_centre``)."""
    if class_balanced:
        c = present[rng.integers(len(present))]
    else:
        weights = np.array([class_voxels[c] for c in present], dtype=float)
        c = present[rng.choice(len(present), p=weights / weights.sum())]
    locations = class_locations[c]
    return tuple(int(i) for i in np.unravel_index(locations[rng.integers(len(locations))], shape))


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
