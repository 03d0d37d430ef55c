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

With regions (``data.regions``, ``regions.py``) each output channel is one region, scored through a
sigmoid against the region's mask of the label map (``RegionTargets``): the run sets ``sigmoid`` instead
of ``softmax``, no one-hot labels, and ``include_background`` (no output is background). MONAI's
``DiceCELoss`` scores more than one channel with a softmax cross-entropy whatever its ``sigmoid``, wrong
for regions that overlap; ``dice_ce`` is then ``RegionDiceCELoss``, Dice plus binary cross-entropy per
channel, nnU-Net's loss for regions.

With an ignore label (sparse annotation, ``Manifest.ignore_index``) the loss is partial, as nnU-Net's:
``AnnotatedVoxels`` scores only the voxels that are annotated, whichever loss is chosen.

    loss_fn = training_loss(spec, "dice_focal", {"gamma": 2.0})
    loss = loss_fn(model(image), label)   # either output form
"""

from __future__ import annotations

import inspect

import monai.losses
import torch
from monai.losses import DeepSupervisionLoss
from torch import nn

from .config import ConfigError, did_you_mean, plain_data
from .models import ModelSpec
from .regions import Regions

# train.loss -> the MONAI loss class
LOSSES = {"dice_ce": "DiceCELoss", "dice_focal": "DiceFocalLoss", "dice": "DiceLoss",
          "generalized_dice": "GeneralizedDiceLoss", "tversky": "TverskyLoss"}
# What the run's labels and outputs decide (every loss above takes these arguments).
SET_BY_THE_RUN = {"to_onehot_y": True, "softmax": True, "sigmoid": False, "other_act": None, "reduction": "mean"}
WHY_SET = "the labels are class indices, the classes exclusive (softmax over the logits) and the loss one number"
SET_FOR_REGIONS = {"to_onehot_y": False, "softmax": False, "sigmoid": True, "other_act": None, "reduction": "mean",
                   "include_background": True}
WHY_SET_FOR_REGIONS = ("the targets are the regions' masks, which may overlap (a sigmoid per output), every output "
                       "is a region (none is background) and the loss one number")


class RegionDiceCELoss(monai.losses.DiceCELoss):
    """MONAI's Dice + cross-entropy with a binary cross-entropy on every channel, for regions: its own
    forward takes a softmax cross-entropy over more than one channel. A class ``weight`` weighs each
    region's positives (``pos_weight``), along the channel axis, whatever the number of axes after it:
    three for a patch, one for ``AnnotatedVoxels``' line of annotated voxels. Shaped for a patch alone
    when built, it broadcast against that line's axes instead, and a run of regions with a class weight
    on sparse annotation was refused as a weight of the wrong length (a training audit's probe)."""

    def forward(self, input: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if (weight := self.binary_cross_entropy.pos_weight) is not None:  # (regions,) broadcast over channels
            self.binary_cross_entropy.pos_weight = weight.reshape(-1, *[1] * (input.dim() - 2))
        return self.lambda_dice * self.dice(input, target) + self.lambda_ce * self.bce(input, target)


def segmentation_loss(name: str = "dice_ce", args: dict | None = None, regions: bool = False) -> nn.Module:
    """The MONAI loss ``train.loss`` names, with ``train.loss_args`` over what the run decides (for
    exclusive classes, or with ``regions`` for regions).

    Raises:
        ConfigError: an argument the loss does not take, one that contradicts ``SET_BY_THE_RUN``, or a
            value MONAI refuses.
    """
    monai_class = getattr(monai.losses, LOSSES[name])
    set_by_the_run, why = (SET_FOR_REGIONS, WHY_SET_FOR_REGIONS) if regions else (SET_BY_THE_RUN, WHY_SET)
    args = dict(args or {})
    accepted = set(inspect.signature(monai_class.__init__).parameters) - {"self"}
    if unknown := sorted(set(args) - accepted):
        raise ConfigError(f"train.loss_args {unknown} are not arguments of monai.losses.{monai_class.__name__} "
                          f"(train.loss={name}){did_you_mean(unknown[0], accepted)}; it takes "
                          f"{', '.join(sorted(accepted - set(set_by_the_run)))}")
    if contradicted := sorted(key for key in set(args) & set(set_by_the_run)
                              if plain_data(args[key]) != set_by_the_run[key]):
        raise ConfigError(f"train.loss_args {contradicted} contradict the run: "
                          + ", ".join(f"{key} is {set_by_the_run[key]}" for key in contradicted)
                          + f", as {why}. Leave them out of train.loss_args")
    if isinstance(args.get("weight"), (list, tuple)):  # a class weight from YAML: the tensor MONAI takes
        args["weight"] = torch.tensor(args["weight"], dtype=torch.float32)
    if regions and monai_class is monai.losses.DiceCELoss:
        monai_class = RegionDiceCELoss
    try:
        return monai_class(**{**args, **set_by_the_run})
    except (TypeError, ValueError) as error:
        raise ConfigError(f"train.loss_args for train.loss={name} (monai.losses.{monai_class.__name__}): "
                          f"{error}") from None


def check_loss(loss_fn: nn.Module, classes: int, name: str = "dice_ce", regions: Regions | None = None) -> None:
    """Evaluate ``loss_fn`` once on a tiny batch of ``classes`` classes (of the regions' outputs), once the
    cases have told the classes and before they are preprocessed: a class ``weight`` of the wrong length
    fails here, named, instead of at the first step."""
    outputs = regions.count if regions is not None else classes
    logits, label = torch.zeros(1, outputs, 2, 2, 2), torch.zeros(1, 1, 2, 2, 2)
    try:
        with torch.no_grad():  # the forward's checks are what can fail; nothing to train
            value = loss_fn(logits, label)
    except (RuntimeError, ValueError, AssertionError, IndexError) as error:
        scored = (f"{outputs} regions" if regions is not None else f"{classes} classes (background included)")
        # DiceCE's cross-entropy weighs every class, whatever include_background says of its Dice;
        # DiceLoss and DiceFocal leave the background out of the weight where it is false.
        weight = ("one value per region" if regions is not None else
                  "one value per class, the background included (its cross-entropy scores every class), also "
                  "with include_background: false"
                  if name == "dice_ce" else
                  "one value per class (without the background where include_background is false)")
        said = str(error).splitlines()[0].rstrip(".")
        if name == "dice_ce" and regions is None:
            # MONAI's second sentence, "If include_background=False, the weight should not include the
            # background", is its Dice part's rule; Dice + CE's cross-entropy needs the background's
            # weight all the same, which ours says: the two contradicted (seventy-seventh session's probe)
            said = said.split(". ")[0]
        raise ConfigError(f"train.loss={name} with train.loss_args cannot score {scored}: "
                          f"{said}. A class weight has {weight}") from None
    if value.dim() != 0:
        raise ConfigError(f"train.loss={name} gives a tensor of shape {tuple(value.shape)}, not one number")


def training_loss(spec: ModelSpec | None = None, name: str = "dice_ce", args: dict | None = None,
                  regions: Regions | None = None, ignore_index: int | None = None) -> nn.Module:
    """The loss ``train`` uses for the network ``spec`` describes (None: a network with one output):
    ``segmentation_loss(name, args)``, over every deep supervision head, against the masks of
    ``regions`` (over class indices, as the batches' labels hold them) when given, and over the annotated
    voxels alone where labels hold ``ignore_index``. The benchmarks and ``plan`` measure with the
    default, Dice + cross-entropy."""
    loss = segmentation_loss(name, args, regions=regions is not None)
    outputs = supervised_outputs(spec)
    loss = loss if outputs == 1 else StackedDeepSupervisionLoss(loss, outputs)
    loss = loss if regions is None else RegionTargets(loss, regions)
    if ignore_index is None:
        return loss
    return AnnotatedVoxels(loss, ignore_index, pooled=bool(plain_data((args or {}).get("batch", False))))


class AnnotatedVoxels(nn.Module):
    """``loss`` over the annotated voxels alone: those whose label is not ``ignore_index``.

    MONAI's losses take no mask (its MaskedDiceLoss covers Dice alone), and zeroing the ignored voxels'
    logits would still score them (a softmax of zeros is 1/C per class). Every loss offered sums or
    averages over voxels without regard to where they lie, so scoring the annotated voxels, gathered
    into a line of their own, is scoring them in place: each sample's annotated voxels are scored as a
    (1, channels, voxels) sample, and the per-sample losses averaged, as MONAI averages its per-sample
    Dice; with batch Dice (``pooled``: ``batch: true`` in train.loss_args) the whole batch's annotated
    voxels are scored as one sample, so Dice pools them and the cross-entropy averages every voxel.
    With nothing ignored this is the loss of the whole patch (a test holds it to that). A sample with
    no annotated voxel is left out of the mean; a batch with none gives 0, with a gradient of zeros
    (every rank still reduces the same parameters).

    The selection costs a copy of the annotated voxels' logits and, on a GPU, one wait for the device
    per sample (how many of its voxels are annotated); only datasets with an ignore label pay it.
    """

    def __init__(self, loss: nn.Module, ignore_index: int, pooled: bool = False):
        super().__init__()
        self.loss, self.ignore_index, self.pooled = loss, ignore_index, pooled

    def forward(self, output: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        # output (batch, [heads,] channels, *spatial), label (batch, 1, *spatial): one line of voxels each
        spatial = label.dim() - 2
        lines = []
        for sample_output, sample_label in zip(output, label):
            annotated = (sample_label != self.ignore_index).flatten()
            lines.append((sample_output.flatten(-spatial)[..., annotated], sample_label.flatten()[annotated]))
        if self.pooled:
            lines = [(torch.cat([o for o, _ in lines], -1), torch.cat([l for _, l in lines]))]
        scored = [self.loss(o[None], l[None, None]) for o, l in lines if l.numel()]
        if not scored:
            return output.sum() * 0.0
        return torch.stack(scored).mean()


class RegionTargets(nn.Module):
    """``loss`` against each region's mask of the label map, (batch, regions, *spatial), in the output's
    dtype, instead of the class indices."""

    def __init__(self, loss: nn.Module, regions: Regions):
        super().__init__()
        self.loss, self.regions = loss, regions

    def forward(self, output: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        return self.loss(output, self.regions.masks(label).to(output.dtype))


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
