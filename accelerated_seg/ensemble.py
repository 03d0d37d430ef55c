"""Several exported models predicting as one: the mean of their probabilities.

nnU-Net predicts with the five networks of its cross-validation folds and averages their softmax
outputs; an ensemble of folds (or of networks trained on the same data) scores better than its
members do on average (the demo's figures: docs/inference.md). Here the members share one reading
and preprocessing of each case, and the sliding window runs once per member and mirroring: each
member's stitched logits become probabilities, which are averaged with the others'
(``inference.mirrored_probabilities``), so an ensemble of copies of one model predicts exactly as
that model does. MONAI's ``MeanEnsemble``
averages whole predictions held side by side, a volume of probabilities per member; the running sum
here holds one.

The members must agree on everything but their weights and network: the preprocessing (spacing,
normalization, crop), the patch size (one sliding window serves all), the channels and the classes.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path
from typing import Sequence

import torch

from .config import ConfigError
from .data.header_units import UNIT_MM
from .data.preprocess_settings import (CASES_MEDIAN_KEY, SPACING_SET_KEY, SPACING_UNIT_KEY, cases_median_spacing,
                                       code_version_difference, spacing_unit, spacing_was_set)
from .exported_model import load_exported
from .inference_outputs import prediction_ending
from .models import ModelSpec, nvfuser_norm_without_apex
from .own_warnings import AcceleratedSegWarning

# What may differ between members' config.json: the network and what describes its weights alone.
# the preprocessing code's version too: predict prepares every member's volumes with this code alike
# MONAI's version and the output activation came with the eighty-fourth session's exports (the
# activation follows from "regions", which is compared): an earlier member lacks them. The file ending names
# the label maps alone: the first member's is taken, said where they differ (``_warn_of_other_file_endings``); a
# member exported before the ninety-seventh session lacks it.
# spacing_set (whether data.spacing set the spacing or a median did) changes no voxel either: the ensemble takes a
# header's mm at its word for voxels far finer than the spacing only where every member's was set (as training
# would for each), and a member exported before the hundred-and-fifth session lacks it.
# spacing_unit (the unit the training cases' headers declared) is compared where both members record one: a member
# exported before the hundred-and-sixth session, or trained on headers that declared none, records none.
# cases_median_spacing (the cases' median voxel size, where data.spacing was set) changes no voxel either: members of
# other datasets or splits may differ in it, and the ensemble weighs a scan against the coarsest (``_cases_median``).
MEMBER_KEYS = ("model", "step", "shared_tensors", "accelerated_seg_version", "accelerated_seg_commit",
               "format_version", "preprocessing_code_version", "monai_version", "output_activation", "file_ending",
               SPACING_SET_KEY, SPACING_UNIT_KEY, CASES_MEDIAN_KEY)


class ModelEnsemble(torch.nn.Module):
    """Exported networks that predict together. Prediction averages each member's probabilities after
    its own stitching; called directly, it returns the log of the members' mean probability per
    window (softmax of it is that mean), a tensor a caller wanting one network's output can use."""

    def __init__(self, members: Sequence[torch.nn.Module]):
        super().__init__()
        self.members = torch.nn.ModuleList(members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        log_probabilities = torch.stack([torch.log_softmax(member(x).float(), dim=1) for member in self.members])
        return torch.logsumexp(log_probabilities, dim=0) - math.log(len(self.members))


def members_of(model: torch.nn.Module) -> Sequence[torch.nn.Module]:
    """The networks whose probabilities are averaged: an ensemble's members, or the model itself."""
    return model.members if isinstance(model, ModelEnsemble) else [model]


def given_folders(model_dir: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Path]:
    """The model folders of a ``--model`` given once or more: one path, or several (an ensemble)."""
    given = [model_dir] if isinstance(model_dir, (str, os.PathLike)) else list(model_dir)
    return [Path(os.path.expanduser(folder)) for folder in given]  # "~" as the command line reads it


def load_for_prediction(model_dir: str | os.PathLike | Sequence[str | os.PathLike]) -> tuple[torch.nn.Module, dict]:
    """One exported model folder, or several as a ``ModelEnsemble``; with the config.json predict reads.

    Raises:
        ConfigError: no folder, one given twice, or members whose preprocessing, patch size, channels or
            classes differ (each difference named).
    """
    folders = given_folders(model_dir)
    if not folders:
        raise ConfigError("no model given: give an exported model folder, or several for an ensemble")
    if len(folders) == 1:
        model, config = load_exported(folders[0])
        _warn_of_other_preprocessing_code(folders[0], config)
        _note_of_torchs_instance_norm([(folders[0], config)])
        return model, config
    seen = set()
    for folder in folders:
        if folder.resolve() in seen:  # a glob or a copy-paste gone wrong: it would count twice in the mean
            raise ConfigError(f"the ensemble lists the model {folder.resolve()} twice: give each member once")
        seen.add(folder.resolve())
    loaded = [load_exported(folder) for folder in folders]
    for folder, (_, config) in zip(folders, loaded):
        _warn_of_other_preprocessing_code(folder, config)
    _note_of_torchs_instance_norm([(folder, config) for folder, (_, config) in zip(folders, loaded)])
    _warn_of_other_file_endings([(folder, config) for folder, (_, config) in zip(folders, loaded)])
    first = loaded[0][1]
    for folder, (_, config) in zip(folders[1:], loaded[1:]):
        if differences := _differences(first, config):
            # The hint where it applies: it followed other differences (channels, classes) too. Since the
            # seventy-fifth session one cross-validation's folds share a median (data/spacing.median_cases).
            spacing = (" (with data.spacing unset a run takes a median of its cases, which the folds of one "
                       "cross-validation share and runs of other splits or datasets do not: set data.spacing alike)"
                       if _spacing(first) != _spacing(config) else "")
            raise ConfigError(
                f"{folder} cannot join {folders[0]} in an ensemble: {'; '.join(differences)}. Members share one "
                f"preprocessing and sliding window, so they must be trained on the same settings{spacing}")
    spacing_set = all(spacing_was_set(config) for _, config in loaded)
    return (ModelEnsemble([model for model, _ in loaded]).eval(),
            {**first, SPACING_SET_KEY: spacing_set, SPACING_UNIT_KEY: _one_spacing_unit(folders, loaded),
             CASES_MEDIAN_KEY: _cases_median(loaded), "ensemble": [str(f) for f in folders]})


def _cases_median(loaded: list) -> list[float] | None:
    """The members' cases' median voxel size (``cases_median_spacing``) that a scan declaring mm is weighed against:
    the coarsest along each axis of those that record one, so that the ensemble refuses a scan 100 times finer than
    any member's median, as that member alone would (``inference_reading.refuse_voxels_far_finer``); None where none
    records one (exported before the hundred-and-nineteenth session, or a median its spacing), as before."""
    recorded = [median for _, config in loaded if (median := cases_median_spacing(config)) is not None]
    return [max(sizes) for sizes in zip(*recorded)] if recorded else None


def _one_spacing_unit(folders: list[Path], loaded: list) -> str | None:
    """The unit the members' training cases' headers declared, where one records it (``spacing_unit``).

    Raises:
        ConfigError: two members record different units: their spacings' numbers mean sizes 1000 times apart.
    """
    recorded = [(folder, spacing_unit(config)) for folder, (_, config) in zip(folders, loaded)
                if spacing_unit(config) is not None]
    if any(unit != recorded[0][1] for _, unit in recorded):
        other = next((folder, unit) for folder, unit in recorded if unit != recorded[0][1])
        raise ConfigError(
            f"{other[0]} cannot join {recorded[0][0]} in an ensemble: its training cases' headers declared their "
            f"voxel sizes in {UNIT_MM[other[1]][0]}, the other's in {UNIT_MM[recorded[0][1]][0]} (config.json's "
            f"{SPACING_UNIT_KEY}), so their spacings' numbers are sizes of another unit: predict with the members of "
            f"one unit, or train them on cases rewritten in one unit")
    return recorded[0][1] if recorded else None


def _warn_of_other_preprocessing_code(folder: Path, config: dict) -> None:
    """Not refused: the weights may still serve, and retraining is the user's call; said, since the
    scans are prepared otherwise than the volumes the weights learned from (``code_version_difference``)."""
    if difference := code_version_difference(config, "there"):
        warnings.warn(f"{folder}: its weights learned from volumes prepared otherwise than predict prepares them "
                      f"now ({difference}): retrain it with this version to predict as it was trained, or predict "
                      f"with the version that trained it", AcceleratedSegWarning, stacklevel=3)


def _warn_of_other_file_endings(members: list[tuple[Path, dict]]) -> None:
    """Members whose config.json record other file endings (``prediction_ending``: one trained on an nnU-Net
    dataset.json declaring ".nii", another not) name the label maps with the first member's. Not refused, as a
    difference of the network is not: the ending changes no voxel. Said, since the order of ``--model`` decides
    it, which nothing told until the ninety-seventh session's review."""
    endings = [(folder, prediction_ending(config)) for folder, config in members]
    if len({ending for _, ending in endings}) > 1:
        warnings.warn(f"the ensemble's members record other file endings ("
                      f"{', '.join(f'{folder}: {ending}' for folder, ending in endings)}): the label maps are named "
                      f"<case>{endings[0][1]}, as the first member's; list first the member whose ending the maps "
                      f"should have", AcceleratedSegWarning, stacklevel=3)


def _note_of_torchs_instance_norm(members: list[tuple[Path, dict]]) -> None:
    """A note, once for the model or the ensemble's members: the config.json of each asks for apex's
    InstanceNorm3dNVFuser (``norm: INSTANCE_NVFUSER``), which cannot be imported here, so predict runs torch's
    nn.InstanceNorm3d in its place, as MONAI builds it: the same network with the same weights, slower on a GPU.
    Not refused: an export trained on a cluster with apex predicts as trained anywhere. MONAI's own warning,
    naming no file, is silenced (``models.build_from_spec``), which left predict silent until this note (both
    in the ninety-third session)."""
    asking = []
    for folder, config in members:
        spec = ModelSpec.from_dict(config["model"])
        if (key := nvfuser_norm_without_apex(spec)) is not None:
            asking.append(f"{folder} ({key} {spec.args[key]})")
    if asking:
        warnings.warn(f"{', '.join(asking)}: config.json asks for apex's InstanceNorm3dNVFuser, which cannot be "
                      f"imported here; predict runs torch's nn.InstanceNorm3d in its place, the same network with the "
                      f"same weights, without apex's faster kernel (https://github.com/NVIDIA/apex)",
                      AcceleratedSegWarning, stacklevel=3)


def _spacing(config: dict):
    return (config.get("preprocessing") or {}).get("spacing", config.get("spacing"))


def _differences(first: dict, other: dict) -> list[str]:
    keys = sorted(({*first, *other} - set(MEMBER_KEYS)))
    return [f"{key} {first.get(key)} against {other.get(key)}" for key in keys if first.get(key) != other.get(key)]
