"""A voxel that makes its image's z-score on its own.

z-score normalization (``data.normalization: zscore``; MONAI's ``NormalizeIntensityd(nonzero=True,
channel_wise=True)``) divides each channel by the standard deviation of its nonzero voxels. One voxel
far from the rest (a hot pixel, a marker burnt into the scan, a value a converter wrote wrong) can
make most of that deviation, and the rest of the image is then squeezed towards 0: a probe's one
voxel of 1e5 in tissue of about 200 left the case looking blank to the network, which scored Dice 0
on it without a word (seventy-eighth session).

The pre-flight pass that reads every voxel also sums them and their squares per channel (zeros add
nothing to either, so the sums are the nonzero voxels' as they are), which gives each channel's mean
and variance without a second read, and so the share of the variance that its most extreme voxel
holds. A cluster of such voxels (a marker burnt into the scan, a few hot pixels) shares the variance
among them, each holding too little alone. So a channel whose most extreme voxel lies more than ten
standard deviations from the mean (of the channel as it is, the cluster included: no voxel of a
normal image does, and every voxel of a cluster that holds half the variance as at most 0.1% of the
voxels lies at least 22 out) is read a second time (``extreme_clusters``), for the voxels beyond
1/2, 1/4, ... 1/256 of the extreme's distance from the mean. The widest such set of at most 0.1% of
the nonzero voxels (more is a tissue, fat or vessels, whose spread the z-score is meant to take)
that holds more than half the variance is told, with its share: widening takes in a marker's
fainter rim, whose share the innermost set alone understated (a review found 57% said where the rest
kept 0.10 of its contrast). Only such channels are read again: the usual scan costs nothing more.
Images of fewer than 2000 nonzero voxels have no cluster told (0.1% of them is under two voxels).
"""

from __future__ import annotations

import numpy as np

# One voxel holding more than this share of its channel's variance: z-scored, the other voxels keep
# at most sqrt(1 - share) of the spread they would have without it (71% at a half).
DOMINANT_SHARE = 0.5


# From this share on, the rest keeps under a third of its spread: the image looks near blank
NEAR_BLANK_SHARE = 0.9

# A channel whose most extreme voxel lies more than this many standard deviations from its mean is
# read again for a cluster of such voxels.
SUSPECT_DEVIATIONS = 10.0

# Up to this fraction of the nonzero voxels a set of extreme ones is an artefact; more are a tissue
# (fat, vessels, an enhancing region), whose spread the z-score is meant to take.
CLUSTER_FRACTION = 0.001

# The sets read: the voxels beyond 1/2, 1/4, ... 1/2**BANDS of the extreme's distance from the mean.
BANDS = 8


def squeeze_said(value: float, share: float) -> str:
    """What one voxel that holds ``share`` of its channel's variance does to the z-score, in words."""
    said = (f"one voxel, of {value:g}, holds {share:.0%} of the intensity variance, so z-score normalization "
            f"(data.normalization: zscore) divides the image by a spread that voxel makes and leaves the rest "
            f"{np.sqrt(1 - share):.2g} of the contrast it would have")
    return said + (" (near blank to the network: a probe's such case scored Dice 0)" if share >= NEAR_BLANK_SHARE
                   else "")


def cluster_said(count: int, low: float, high: float, share: float) -> str:
    """``squeeze_said`` for ``count`` voxels, of ``low`` to ``high``, holding ``share`` of the variance."""
    values = f"{low:g}" if low == high else f"{low:g} to {high:g}"
    # "at most": the rest may hold more of the cluster (a marker's fainter rim, beyond the voxels counted)
    said = (f"{count} voxels, of {values}, hold {share:.0%} of the intensity variance, so z-score normalization "
            f"(data.normalization: zscore) divides the image by a spread they make and leaves the rest at most "
            f"{np.sqrt(1 - share):.2g} of the contrast it would have")
    return said + (" (near blank to the network: a probe's such case scored Dice 0)" if share >= NEAR_BLANK_SHARE
                   else "")


class IntensitySpread:
    """Count, sum and sum of squares of a channel's nonzero voxels, and its extremes, gathered slab
    by slab; one entry per channel (a 4D file's fourth axis)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every slab seen."""
        self.count = self.total = self.squares = self.low = self.high = None

    def see(self, slab: np.ndarray) -> tuple[float, float]:
        """Add a slab of finite values, shaped (x, y, z) or (x, y, z, channels); returns its smallest
        and largest value, which the caller's pass needs too."""
        volumes = [slab] if slab.ndim == 3 else [slab[..., channel] for channel in range(slab.shape[3])]
        # Whole-array reductions of each volume: numpy's reductions over axes (0, 1, 2) took 2-3 times
        # as long. Exact int64 sums for 8- and 16-bit integers (a slab's squares stay below 2^63);
        # float64 ones otherwise, numpy casting in buffered chunks without a float64 copy of the slab:
        # int64 squares of 32-bit values wrapped around (a review's int32 scan of values near 1e6 hid
        # its hot voxel), and float32 sums of squares lost the variance to cancellation where the mean
        # is a thousand times the spread.
        wide = np.int64 if slab.dtype.kind in "iub" and slab.dtype.itemsize <= 2 else np.float64
        with np.errstate(over="ignore", invalid="ignore"):  # float64 beyond 1e154: refused, its spread cleared
            found = np.array([[np.count_nonzero(volume), np.sum(volume, dtype=wide),
                               np.einsum("ijk,ijk->", volume, volume, dtype=wide), volume.min(), volume.max()]
                              for volume in volumes], dtype=np.float64).T
        if self.count is None:
            self.count, self.total, self.squares, self.low, self.high = found
        else:
            count, total, squares, low, high = found
            self.count, self.total, self.squares = self.count + count, self.total + total, self.squares + squares
            self.low, self.high = np.minimum(self.low, low), np.maximum(self.high, high)
        return float(found[3].min()), float(found[4].max())

    def dominant_voxels(self) -> list[tuple[int, float, float]]:
        """(channel, value, share of the variance) of each channel whose most extreme nonzero voxel
        holds more than ``DOMINANT_SHARE`` of the channel's variance (its sum of squared deviations)."""
        return [(channel, value, held) for channel, _, _, value, _, held in self.extremes() if held > DOMINANT_SHARE]

    def extremes(self):
        """(channel, nonzero count, mean, most extreme nonzero value, sum of squared deviations, that
        value's share of it) of each channel where the share can be told."""
        if self.count is None:
            return
        for channel, (count, total, squares, low, high) in enumerate(
                zip(self.count, self.total, self.squares, self.low, self.high)):
            if count < 2:
                continue
            mean = total / count
            deviations = squares - total * mean  # sum of squared deviations from the mean
            # An extreme of exactly 0 is the background, which the z-score leaves out, and the nonzero
            # voxels' extreme on that side is not known without masking every slab: that side is not
            # judged (a hot pixel lies far beyond the tissue, not between it and the background).
            candidates = [(value, value - mean) for value in (low, high) if value != 0]
            if deviations <= 0 or not candidates:
                continue
            value, deviation = max(candidates, key=lambda candidate: abs(candidate[1]))
            yield channel, int(count), float(mean), float(value), float(deviations), float(
                min(deviation * deviation / deviations, 1.0))


def extreme_clusters(spread: IntensitySpread, slabs) -> list[tuple[int, int, float, float, float]]:
    """(channel, voxels, lowest, highest, their share of the variance) of each channel whose z-score a
    few voxels make together, none of them alone (``IntensitySpread.dominant_voxels`` tells those):
    the widest set of voxels beyond a 1/2**b of the extreme's distance from the mean that holds at
    most ``CLUSTER_FRACTION`` of the nonzero voxels, where it holds more than ``DOMINANT_SHARE``.
    ``slabs`` (the image's, as ``spread`` saw them) are read only where a channel's extreme lies more
    than ``SUSPECT_DEVIATIONS`` from the mean.
    """
    suspects = {channel: (count, mean, abs(value - mean), deviations)
                for channel, count, mean, value, deviations, held in spread.extremes()
                if held <= DOMINANT_SHARE and held * count > SUSPECT_DEVIATIONS ** 2}  # held * count: its z^2
    if not suspects:
        return []
    # per channel and band: voxels, squared deviations, lowest, highest
    found = {channel: np.array([[0.0, 0.0, np.inf, -np.inf]] * BANDS) for channel in suspects}
    for slab in slabs:
        for channel, (_, mean, extreme, _) in suspects.items():
            volume = slab if slab.ndim == 3 else slab[..., channel]
            values = volume[volume != 0].astype(np.float64)
            distance = np.abs(values - mean)
            far = distance >= extreme / 2 ** BANDS
            values, distance = values[far], distance[far]
            for band in range(BANDS):  # band b: beyond 1/2**(b + 1) of the extreme's distance
                inside = values[distance >= extreme / 2 ** (band + 1)]
                if inside.size:
                    tally = found[channel][band]
                    tally[0] += inside.size
                    tally[1] += float(np.sum((inside - mean) ** 2))
                    tally[2], tally[3] = min(tally[2], inside.min()), max(tally[3], inside.max())
    clusters = []
    for channel, bands in found.items():
        count, _, _, deviations = suspects[channel]
        few = [band for band in bands if 1 < band[0] <= CLUSTER_FRACTION * count]
        if few and few[-1][1] / deviations > DOMINANT_SHARE:  # the widest of them
            voxels, squares, low, high = few[-1]
            clusters.append((channel, int(voxels), float(low), float(high), float(min(squares / deviations, 1.0))))
    return clusters
