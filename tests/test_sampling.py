"""Sampling: per-rank shards of the global order, patch centres and crops."""

import numpy as np
import pytest
import torch
from accelerate.data_loader import prepare_data_loader, skip_first_batches
from torch.utils.data import DataLoader, Dataset

from accelerated_seg.data.sampling import EpochSampler, choose_centre, crop


class SampleNumbers(Dataset):
    """Returns the global sample number itself, so a test can see who got what."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, k):
        return k


def rank_loader(length, batch, rank, world, seed=0, epochs_per_pass=None):
    """One rank's loader as the training loop prepares it: one epoch per pass, uncut, as before the
    fifteenth session (drop_last and accelerate's sharding alone decide what is left out of an
    epoch), or ``epochs_per_pass`` epochs cut to whole global batches, as training now runs."""
    if epochs_per_pass is None:
        sampler = EpochSampler(length, seed)
    else:
        sampler = EpochSampler(length, seed, epochs_per_pass, whole_batches_of=batch * world)
    loader = DataLoader(SampleNumbers(length), batch_size=batch, sampler=sampler, drop_last=True)
    # accelerate's own sharding, as Accelerator.prepare does it, for a simulated rank.
    return prepare_data_loader(loader, num_processes=world, process_index=rank, put_on_device=False)


@pytest.mark.parametrize("world", [2, 3])
def test_ranks_see_disjoint_samples_covering_the_epoch_reshuffled_each_epoch(world):
    length, batch = 24, 2
    orders = []
    for epoch in range(3):
        seen = []
        for rank in range(world):
            loader = rank_loader(length, batch, rank, world)
            loader.set_epoch(epoch)
            seen.append([int(k) for b in loader for k in b])
        flat = [k for s in seen for k in s]
        assert len(flat) == len(set(flat)), "a sample went to two ranks"
        assert set(flat) == set(range(epoch * length, (epoch + 1) * length)), "the epoch is not covered"
        assert len({len(s) for s in seen}) == 1, "ranks must take the same number of steps"
        orders.append([k - epoch * length for k in flat])
    assert orders[0] != orders[1] != orders[2], "the global order must change every epoch"


def test_skipping_batches_resumes_the_same_stream():
    full = rank_loader(24, 2, rank=1, world=2)
    full.set_epoch(1)
    expected = [b.tolist() for b in full][3:]
    # As the training loop does it: set the epoch on the prepared loader, then skip. (A skip loader's
    # own set_epoch does not reach our sampler through accelerate's SkipBatchSampler; they share the
    # sampler object, so the epoch set here is the one used.)
    loader = rank_loader(24, 2, rank=1, world=2)
    loader.set_epoch(1)
    resumed = skip_first_batches(loader, 3)
    assert [b.tolist() for b in resumed] == expected


@pytest.mark.parametrize("world, batch", [(1, 4), (2, 2), (3, 2)])
def test_a_pass_of_several_epochs_gives_each_rank_what_one_pass_per_epoch_gives_it(world, batch):
    # 25 samples: not a whole number of global batches (4 or 6), so each epoch has a remainder, which
    # drop_last and accelerate's sharding leave out of a pass of one (uncut) epoch and the
    # multi-epoch pass must leave out as well.
    length, epochs = 25, 3
    for rank in range(world):
        epoch_by_epoch = []
        for epoch in range(2 * epochs):
            loader = rank_loader(length, batch, rank, world)
            loader.set_epoch(epoch)
            epoch_by_epoch += [b.tolist() for b in loader]
        streamed = rank_loader(length, batch, rank, world, epochs_per_pass=epochs)
        passes = []
        for number in range(2):  # the second pass is epochs 3 to 5
            streamed.set_epoch(number)
            passes += [b.tolist() for b in streamed]
        assert len(streamed) == len(epoch_by_epoch) // 2
        assert passes == epoch_by_epoch


def test_skipping_into_a_pass_of_several_epochs_resumes_in_its_later_epoch():
    full = rank_loader(25, 2, rank=0, world=2, epochs_per_pass=3)  # 6 batches per rank per epoch
    expected = [b.tolist() for b in full][8:]
    resumed = skip_first_batches(rank_loader(25, 2, rank=0, world=2, epochs_per_pass=3), 8)
    assert [b.tolist() for b in resumed] == expected
    assert expected[0][0] // 25 == 1  # batch 8 is in epoch 1


def test_a_plain_loader_draws_a_new_order_every_pass_and_set_epoch_names_one():
    """Dataset.loader() in the user's own loop: nothing calls set_epoch there, and every epoch drew the
    same patches in the same order (seventy-first session's probe). accelerate names each pass."""
    loader = DataLoader(SampleNumbers(12), batch_size=3, sampler=EpochSampler(12, seed=0))
    passes = [[int(k) for b in loader for k in b] for _ in range(3)]
    assert [sorted(p) for p in passes] == [list(range(12 * e, 12 * (e + 1))) for e in range(3)]  # epochs 0, 1, 2
    loader.sampler.set_epoch(1)
    assert [int(k) for b in loader for k in b] == passes[1]  # a named pass is that pass, again
    assert [int(k) for b in loader for k in b] == passes[2]  # and the next unnamed one follows it


def test_an_epoch_smaller_than_the_global_batch_is_refused():
    with pytest.raises(ValueError, match="global batch"):
        EpochSampler(5, whole_batches_of=6)


def test_foreground_fraction_and_class_balance():
    shape = (20, 20, 20)
    big = np.arange(0, 400)  # class 1: 400 of 8000 voxels
    small = np.arange(7000, 7010)  # class 2: 10 voxels
    rng = np.random.default_rng(0)

    def label_of(centre):
        flat = np.ravel_multi_index(centre, shape)
        return 1 if flat in set(big.tolist()) else 2 if flat in set(small.tolist()) else 0

    draws = [label_of(choose_centre(rng, shape, [big, small], [400, 10], 0.5, False)) for _ in range(2000)]
    # half the centres on foreground, plus the uniform ones that land on it: 0.5 + 0.5 * 410/8000
    assert 0.48 < np.mean([d > 0 for d in draws]) < 0.58
    assert draws.count(2) < 60  # proportional: ~25 expected (10 of 410 foreground voxels)
    balanced = [label_of(choose_centre(rng, shape, [big, small], [400, 10], 1.0, True)) for _ in range(2000)]
    assert 900 < balanced.count(2) < 1100  # class-balanced: half of the foreground patches


def test_crop_stays_inside_and_pads_small_volumes():
    volume = np.arange(10 * 12 * 6).reshape(1, 10, 12, 6)
    patch = crop(volume, centre=(0, 11, 3), size=(4, 4, 8))
    assert patch.shape == (1, 4, 4, 8)
    np.testing.assert_array_equal(patch[0, :, :, 1:7], volume[0, 0:4, 8:12, :])  # clamped at the corner
    assert (patch[0, :, :, 0] == 0).all() and (patch[0, :, :, 7] == 0).all()  # 6 -> 8 padded evenly
    memmap_like = torch.from_numpy(volume)  # works on anything sliceable
    assert crop(memmap_like.numpy(), (5, 6, 3), (2, 2, 2)).shape == (1, 2, 2, 2)
