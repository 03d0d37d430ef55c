"""Segmentation metrics (MONAI) shared by validation during training and ``evaluate``."""

from __future__ import annotations

import torch
from monai.metrics import compute_dice
from monai.networks.utils import one_hot


def dice_per_class(pred: torch.Tensor, label: torch.Tensor, num_classes: int) -> torch.Tensor:
    """Dice of each foreground class for each case.

    Args:
        pred: predicted label map, shape (B, 1, X, Y, Z), integer classes.
        label: reference label map, same shape.
        num_classes: classes including background.

    Returns:
        (B, num_classes - 1) float tensor. A class absent from both prediction and reference scores
        1 (nothing to find, nothing found), the convention nnU-Net reports.
    """
    return compute_dice(one_hot(pred, num_classes), one_hot(label, num_classes),
                        include_background=False, ignore_empty=False)
