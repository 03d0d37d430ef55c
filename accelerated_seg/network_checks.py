"""The experiment's network and loss, checked against the dataset once it has told the channels and
the outputs, before any case is preprocessed: training and ``accelerated-seg check --config`` both
come here, so that check refuses what training refuses.

Until this was shared, check built the network with one channel and two classes whatever the data
held: it passed a SegResNet of ``init_filters: 4`` (its group norm of 8 groups cannot divide them),
``model.args`` whose ``in_channels`` or ``out_channels`` contradict the dataset, and a class ``weight``
of the wrong length in ``train.loss_args``, each of which training then refused as it started.
"""

from __future__ import annotations

from typing import NamedTuple

from torch import nn

from .config import Config
from .data.cases import Manifest
from .losses import check_loss, training_loss
from .model_folders import Names
from .models import ModelSpec, check_trainable, constructed, model_spec


def checked_network_and_loss(cfg: Config, manifest: Manifest, batch: int, built: Built | None = None,
                             names: Names = Names()) -> tuple[ModelSpec, nn.Module]:
    """The network ``cfg.model`` describes for ``manifest``'s channels and outputs, and the training loss.

    Args:
        cfg: the run's settings (``model``, ``data.patch_size``, ``train.loss`` and ``train.loss_args``).
        manifest: the dataset, its ``data.regions`` applied.
        batch: the patches a normalisation sees at once (per device; over all devices for SyncBatchNorm).
        built: ``network_before_writing``'s, used where the data read since gives the same network.
        names: how the caller names the settings (train's ``names``).

    Raises:
        ConfigError: naming ``model.args``, ``data.patch_size`` (as ``names`` does) or ``train.loss_args``.
    """
    spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_outputs, cfg.data.patch_size, cfg.model.args,
                      names)
    same = built is not None and built.spec == spec  # else the data read since gave other counts: built anew
    check_trainable(spec, cfg.data.patch_size, batch, built.network if same else None, names)
    return spec, _checked_loss(cfg, manifest, spec)


class Built(NamedTuple):
    """The network as ``network_before_writing`` built it, on the meta device, and the spec it was built of;
    the network None where this process had checked it already (``models.constructed``)."""

    spec: ModelSpec
    network: nn.Module | None


def network_before_writing(cfg: Config, manifest: Manifest, names: Names = Names()) -> Built:
    """Refuse ``model.args`` whose ``in_channels`` or ``out_channels`` contradict the data's channels and
    outputs, those MONAI's constructor refuses, and a ``train.loss_args`` class ``weight`` of another
    length, from what is known of the data before anything is written (``data.prepare.counts_before_writing``):
    training refused the counts only once the demo's phantoms were written into the new run folder
    (ninety-second session's audit), and the constructor's refusals too (ninety-third session's). The
    forward pass, which needs the batch, waits for ``checked_network_and_loss``, which is given the network
    built here rather than building it again (SwinUNETR's takes up to a second).

    Raises:
        ConfigError: naming ``model.args`` or ``train.loss_args``; the arguments MONAI's constructor refuses
            as ``names`` (train's) names them.
    """
    spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_outputs, cfg.data.patch_size, cfg.model.args,
                      names)
    built = Built(spec, constructed(spec, cfg.data.patch_size, names))
    _checked_loss(cfg, manifest, spec)
    return built


def _checked_loss(cfg: Config, manifest: Manifest, spec: ModelSpec) -> nn.Module:
    loss_fn = training_loss(spec, cfg.train.loss, cfg.train.loss_args, manifest.class_regions, manifest.ignore_index)
    check_loss(loss_fn, manifest.num_classes, cfg.train.loss, manifest.class_regions)  # a class weight per class
    return loss_fn
