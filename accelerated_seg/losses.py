"""The training loss: a MONAI segmentation loss (``train.loss``, Dice + cross-entropy by default), over
every output that the network supervises.

``train.loss`` names one of MONAI's losses on softmax probabilities and one-hot labels, and
``train.loss_args`` gives its keyword arguments (a class ``weight`` list, DiceFocal's ``gamma``,
Tversky's ``alpha`` and ``beta``, ``include_background``, ...). What the run decides is set here and
may not be contradicted: the labels are class indices (``to_onehot_y``), the classes exclusive
(``softmax``), the loss one number (``reduction: mean``).

A DynUNet built with ``deep_supervision: true`` (nnU-Net's way of training, through ``model.args``;
``unet3d_mlperf`` is a DynUNet too) returns, in training mode, its full-resolution logits and
``deep_supr_num`` more from its upsampling heads, each resized to full resolution and stacked along
dim 1: (batch, 1 + heads, classes, *patch). In eval mode it returns the first alone, so validation,
export and prediction see a plain segmentation network. Here each output is scored against the label
and the losses are summed with weights halving from head to head (1, 1/2, 1/4, ...) and normalised
to sum to 1, as MONAI's DynUNet tutorial and nnU-Net weight theirs; the sum is MONAI's
``DeepSupervisionLoss``. Normalised, the loss logged has the scale of the loss without heads, and
``optim.max_grad_norm`` keeps its meaning.

    loss_fn = training_loss(spec, "dice_focal", {"gamma": 2.0})
    loss = loss_fn(model(image), label)   # either output form
"""

from __future__ import annotations

import inspect

import monai.losses
import torch
from monai.losses import DeepSupervisionLoss
from torch import nn

from .config import ConfigError, plain_data
from .models import ModelSpec

# train.loss -> the MONAI loss class
LOSSES = {"dice_ce": "DiceCELoss", "dice_focal": "DiceFocalLoss", "dice": "DiceLoss",
          "generalized_dice": "GeneralizedDiceLoss", "tversky": "TverskyLoss"}
# What the run's labels and outputs decide (every loss above takes these arguments).
SET_BY_THE_RUN = {"to_onehot_y": True, "softmax": True, "sigmoid": False, "other_act": None, "reduction": "mean"}
WHY_SET = "the labels are class indices, the classes exclusive (softmax over the logits) and the loss one number"


def segmentation_loss(name: str = "dice_ce", args: dict | None = None) -> nn.Module:
    """The MONAI loss ``train.loss`` names, with ``train.loss_args`` over what the run decides.

    Raises:
        ConfigError: an argument the loss does not take, one that contradicts ``SET_BY_THE_RUN``, or a
            value MONAI refuses.
    """
    monai_class = getattr(monai.losses, LOSSES[name])
    args = dict(args or {})
    accepted = set(inspect.signature(monai_class.__init__).parameters) - {"self"}
    if unknown := sorted(set(args) - accepted):
        raise ConfigError(f"train.loss_args {unknown} are not arguments of monai.losses.{monai_class.__name__} "
                          f"(train.loss={name}); it takes {', '.join(sorted(accepted - set(SET_BY_THE_RUN)))}")
    if contradicted := sorted(key for key in set(args) & set(SET_BY_THE_RUN)
                              if plain_data(args[key]) != SET_BY_THE_RUN[key]):
        raise ConfigError(f"train.loss_args {contradicted} contradict the run: "
                          + ", ".join(f"{key} is {SET_BY_THE_RUN[key]}" for key in contradicted)
                          + f", as {WHY_SET}. Leave them out of train.loss_args")
    if isinstance(args.get("weight"), (list, tuple)):  # a class weight from YAML: the tensor MONAI takes
        args["weight"] = torch.tensor(args["weight"], dtype=torch.float32)
    try:
        return monai_class(**{**args, **SET_BY_THE_RUN})
    except (TypeError, ValueError) as error:
        raise ConfigError(f"train.loss_args for train.loss={name} (monai.losses.{monai_class.__name__}): "
                          f"{error}") from None


def check_loss(loss_fn: nn.Module, classes: int, name: str = "dice_ce") -> None:
    """Evaluate ``loss_fn`` once on a tiny batch of ``classes`` classes, once the cases have told the
    classes and before they are preprocessed: a class ``weight`` of the wrong length fails here, named,
    instead of at the first step."""
    logits, label = torch.zeros(1, classes, 2, 2, 2), torch.zeros(1, 1, 2, 2, 2)
    try:
        with torch.no_grad():  # the forward's checks are what can fail; nothing to train
            value = loss_fn(logits, label)
    except (RuntimeError, ValueError, AssertionError, IndexError) as error:
        raise ConfigError(f"train.loss={name} with train.loss_args cannot score {classes} classes "
                          f"(background included): {str(error).splitlines()[0].rstrip('.')}. A class weight has one "
                          f"value per class (without the background where include_background is false)") from None
    if value.dim() != 0:
        raise ConfigError(f"train.loss={name} gives a tensor of shape {tuple(value.shape)}, not one number")


def training_loss(spec: ModelSpec | None = None, name: str = "dice_ce", args: dict | None = None) -> nn.Module:
    """The loss ``train`` uses for the network ``spec`` describes (None: a network with one output):
    ``segmentation_loss(name, args)``, over every deep supervision head. The benchmarks and ``plan``
    measure with the default, Dice + cross-entropy."""
    loss = segmentation_loss(name, args)
    outputs = supervised_outputs(spec)
    return loss if outputs == 1 else StackedDeepSupervisionLoss(loss, outputs)


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
