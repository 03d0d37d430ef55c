"""Whether ``data.patch_size`` fits the cases it is cut from: a patch longer than every training case
along an axis is mostly padding there. Without torch, so that ``accelerated-seg check`` says it from the
headers, in the words training prints once it has preprocessed the cases.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from ..dropped_interrupts import between_files, interrupts_kept
from .preprocess_settings import resolved_crop_foreground, resolved_normalization
from .spacing import resampled_ras_shape

# What training compares the patch with: the training cases as preprocessed (resampled, cropped)
PREPROCESSED_CASES = "preprocessed training case"


def patch_padding_warning(patch_size, shapes, spacing, cases: str = PREPROCESSED_CASES,
                          network_takes: Callable[[list[int]], bool] | None = None, names=None) -> str | None:
    """A warning where the patch is longer along an axis than every training case in ``shapes``, by
    more than rounding it up to a multiple of 16 explains: each patch is then mostly padding there.
    ``cases`` names what ``shapes`` are the sizes of. ``network_takes`` says whether the run's network
    trains on a patch (``models.network_takes_patch``): the patch suggested is the smallest it takes,
    where the multiple of 16 alone suggested a 32^3 to the MLPerf U-Net, which refuses it. ``names``
    (``model_folders.Names``) spells the settings as the caller gives them; without it, as a config does.

    Thick-slice scans (0.7 x 0.7 x 5 mm, 12 slices) under the default 64^3 patch trained several times
    slower than under 64 x 64 x 16, to about the same Dice, and nothing said so (seventy-fourth
    session's probe). A warning, not an error: padding costs time, not results.
    """
    longest = np.max(np.asarray([np.asarray(shape)[-3:] for shape in shapes]), axis=0)
    enough = [max(16, -(-int(extent) // 16) * 16) for extent in longest]  # rounded up to a multiple of 16
    axes = [axis for axis in range(3) if patch_size[axis] > enough[axis]]
    if not axes:
        return None
    suggested = _shortest_taken(patch_size, enough, axes, network_takes)
    at = f" at {' x '.join(f'{size:g}' for size in spacing)} mm" if spacing else ""
    patch, network, spacing_setting = _named(names)
    advice = (f"A patch such as {_set(names, patch, suggested)} sees as much of each case" if suggested is not None
              else f"No shorter patch suits the network ({network}): a smaller network or finer {spacing_setting} would")
    return (f"warning: {patch} {list(patch_size)} is longer than every {cases} along "
            f"axis {', '.join(map(str, axes))} (at most {', '.join(str(int(longest[axis])) for axis in axes)} "
            f"voxels{at}): each patch is mostly padding there, which costs time and teaches nothing. {advice}")


def _named(names) -> tuple[str, str, str]:
    """The patch, the network and the spacing as the caller names them: Dataset.fit's block_shape was told of
    data.patch_size, which it never gave (found running docs/data.md's builder in the ninety-third session)."""
    if names is None:
        return "data.patch_size", "model.name, model.args", "data.spacing"
    return names.setting("data.patch_size"), names.network, names.setting("data.spacing")


def _set(names, patch: str, suggested: list[int]) -> str:
    """The suggested patch as the caller writes it: YAML's ``data.patch_size: [64, 64, 16]`` in a config, the
    keyword's ``block_shape=(64, 64, 16)`` in Python; the sizes alone where the caller's patch is no keyword
    (examples/estimator.py's ``--patch``, one edge: ``--patch=(64, 64, 48)`` until the hundred-and-twenty-eighth
    session, which no flag takes)."""
    if names is None or names.prefix:
        return f"{patch}: {suggested}"
    return f"{patch}={tuple(suggested)}" if patch.isidentifier() else str(tuple(suggested))


def _shortest_taken(patch_size, enough: list[int], axes: list[int],
                    network_takes: Callable[[list[int]], bool] | None) -> list[int] | None:
    """The patch of fewest voxels, shorter than ``patch_size`` along ``axes`` (each of them ``enough``
    or a multiple of 16 above it) and as long along the others, that the network takes; None if none."""
    choices = [range(enough[axis], patch_size[axis], 16) if axis in axes else [patch_size[axis]] for axis in range(3)]
    candidates = sorted((list(sizes) for sizes in itertools.product(*choices)), key=lambda p: (math.prod(p), p))
    # The smallest first, every one of them: a cap at the first 64 told a 256^3 patch over 10-voxel cases that
    # no shorter patch suits the MLPerf U-Net, whose [32, 32, 64] came after more than 64 smaller ones. At most
    # (512 / 16)^3 candidates, each a check of the settings that builds no network.
    return next((candidate for candidate in candidates if network_takes is None or network_takes(candidate)), None)


def resampled_patch_padding_warning(data, manifest, spacing,
                                    network_takes: Callable[[list[int]], bool] | None = None) -> str | None:
    """``patch_padding_warning`` said before preprocessing (``accelerated-seg check``), from each training
    case's header: its size once oriented and resampled to ``spacing``, the target spacing.

    Training compares the patch with the cases as preprocessed, after the foreground crop
    (``data.crop_foreground``); the headers give the size before it, which the crop can only shorten. So
    what this warns of training warns of too, but a case that only the crop makes shorter than the
    patch is not found here: the message says which sizes it compared.
    """
    if not manifest.training:
        return None
    with interrupts_kept():  # a Ctrl-C as nibabel closes a header's file raised, not dropped (dropped_interrupts.py)
        shapes = [resampled_ras_shape(case.images[0], spacing) for case in between_files(manifest.training)]
    cropped = resolved_crop_foreground(data.crop_foreground, resolved_normalization(data.normalization, manifest))
    cases = ("resampled training case (uncropped: data.crop_foreground can only shorten it)" if cropped else
             "resampled training case")
    return patch_padding_warning(data.patch_size, shapes, spacing, cases, network_takes)
