"""The training loss of a registry network: MONAI's Dice + cross-entropy, over every output that the
network supervises.

A DynUNet built with ``deep_supervision: true`` (nnU-Net's way of training, through ``model.args``;
``unet3d_mlperf`` is a DynUNet too) returns, in training mode, its full-resolution logits and
``deep_supr_num`` more from its upsampling heads, each resized to full resolution and stacked along
dim 1: (batch, 1 + heads, classes, *patch). In eval mode it returns the first alone, so validation,
export and prediction see a plain segmentation network. Here each output is scored against the label
and the losses are summed with weights halving from head to head (1, 1/2, 1/4, ...) and normalised
to sum to 1, as MONAI's DynUNet tutorial and nnU-Net weight theirs; the sum is MONAI's
``DeepSupervisionLoss``. Normalised, the loss logged has the scale of the plain Dice + CE, and
``optim.max_grad_norm`` keeps its meaning.

    loss_fn = training_loss(spec)
    loss = loss_fn(model(image), label)   # either output form
"""

from __future__ import annotations

import torch
from monai.losses import DiceCELoss, DeepSupervisionLoss
from torch import nn

from .models import ModelSpec


def training_loss(spec: ModelSpec | None = None) -> nn.Module:
    """The loss ``train`` and the benchmarks use for the network ``spec`` describes (None: a network
    with one output)."""
    dice_ce = DiceCELoss(to_onehot_y=True, softmax=True)
    outputs = supervised_outputs(spec)
    return dice_ce if outputs == 1 else StackedDeepSupervisionLoss(dice_ce, outputs)


def supervised_outputs(spec: ModelSpec | None) -> int:
    """How many outputs the network stacks in training mode: 1, or 1 + its deep supervision heads."""
    if spec is None or spec.monai_class != "DynUNet" or not spec.args.get("deep_supervision"):
        return 1
    return 1 + int(spec.args.get("deep_supr_num", 1))  # MONAI's DynUNet default: one head


class StackedDeepSupervisionLoss(nn.Module):
    """``loss`` over each output stacked along dim 1 (DynUNet in training mode), summed with
    normalised halving weights; an output that is not stacked (eval mode) gets ``loss`` alone."""

    def __init__(self, loss: nn.Module, outputs: int):
        super().__init__()
        halving = [0.5**level for level in range(outputs)]
        self.weights = [w / sum(halving) for w in halving]
        self.deep = DeepSupervisionLoss(loss, weights=self.weights)

    def forward(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if output.dim() == target.dim() + 1:  # (batch, outputs, classes, *spatial) against (batch, 1, *spatial)
            return self.deep(list(output.unbind(1)), target)
        return self.deep(output, target)
