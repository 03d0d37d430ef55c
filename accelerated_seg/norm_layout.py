"""Instance norms that keep the channels-last layout (``train.channels_last_norm``).

``torch.nn.functional.instance_norm`` views its input as (1, batch x channels, *spatial), a view that
only the contiguous layout allows, so it returns a contiguous tensor whatever layout it was given.
Under ``train.channels_last`` every InstanceNorm therefore hands the next convolution a contiguous
activation, and the convolution copies it back to channels-last, in the forward and again for its
gradient in the backward: in eager on the CPU a three-level DynUNet makes 77 copies of activations
a step, and 3 with the norms below (tests/test_norm_layout.py). On an H100 the compiled channels-last
step of the MLPerf U-Net spent 20% of its time in 53 layout copies (docs/performance.md), for which
this was the likely cause. An H200 measured the lever slower (eager 5.5%, with twice the peak memory;
compiled 1.4%), so it stays off: on a GPU it is for experiments, on the CPU compiled it gained 5.5%.

``GroupNorm(C, C)``, one group per channel, computes the same function: each sample's channel is
normalised over its voxels with the same epsilon, then scaled and shifted per channel. Its output
keeps the input's layout. Its parameters have the InstanceNorm's names and shapes (``weight``,
``bias``), so checkpoints, resumed states and exports are unchanged, and an export loads into the plain
MONAI network, InstanceNorm and all. Norms that keep running statistics are left alone: GroupNorm has
none, and their evaluation would change.
"""

from __future__ import annotations

import torch
from torch import nn


def instance_norms_as_group_norms(model: nn.Module) -> int:
    """Replace, in place, every InstanceNorm without running statistics by the equal ``GroupNorm``
    with one group per channel (module docstring), its parameters copied. Call it before the
    optimizer is made: the new modules hold new parameter tensors.

    Returns the number of norms replaced.

    Example:
        >>> net = nn.Sequential(nn.Conv3d(1, 4, 3), nn.InstanceNorm3d(4, affine=True))
        >>> instance_norms_as_group_norms(net), type(net[1]).__name__
        (1, 'GroupNorm')
    """
    replaced = 0
    for name, child in model.named_children():
        if isinstance(child, nn.modules.instancenorm._InstanceNorm) and not child.track_running_stats \
                and not isinstance(child, nn.modules.lazy.LazyModuleMixin):
            setattr(model, name, _as_group_norm(child))
            replaced += 1
        else:
            replaced += instance_norms_as_group_norms(child)
    return replaced


def _as_group_norm(norm: nn.modules.instancenorm._InstanceNorm) -> nn.GroupNorm:
    like = norm.weight if norm.affine else None
    group = nn.GroupNorm(norm.num_features, norm.num_features, eps=norm.eps, affine=norm.affine,
                         device=None if like is None else like.device, dtype=None if like is None else like.dtype)
    if norm.affine:
        with torch.no_grad():
            group.weight.copy_(norm.weight)
            group.bias.copy_(norm.bias)
        group.weight.requires_grad_(norm.weight.requires_grad)
        group.bias.requires_grad_(norm.bias.requires_grad)
    group.train(norm.training)
    return group
