"""A training-state checkpoint made into an exported model (``accelerated-seg export``).

Training exports ``model/`` at its last step and ``best_model/`` at its best validation; every other
step exists only as a training state, and a preempted run's last step only so. Its weights are in
accelerate's files or, under FSDP and DeepSpeed, in their sharded layouts, which no plain network
loads and whose tools (``dcp_to_torch_save``, DeepSpeed's ``zero_to_fp32``) give a state dict, not a
model that ``predict`` takes. Here a checkpoint's weights are gathered in one process, without the
launch that wrote it (any number of processes, no GPU), and written as the export training writes:
the same tensors under the same names, and the same ``config.json`` with the checkpoint's step. What
that config.json holds besides the weights was saved with the checkpoint (``export.json``).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import _CHECKPOINT_PREFIX

from .accelerate_workarounds import quiet_deepspeeds_cpu_guess
from .checkpoint_files import (DEEPSPEED_WEIGHTS, EXPORT_DESCRIPTION_FILE, FSDP_FULL_WEIGHTS, FSDP_SHARDED_WEIGHTS,
                               check_exportable, deepspeed_not_installed, gone_if_rotated_away, weights_to_export)
from .config import ConfigError
from .data.errors import DataError
from .exported_model import NonFiniteWeights, shared_tensor_names, write_state_as_export
from .files import by_a_utf8_name
from .model_folders import STEP_DIR, checkpoint_folder
from .models import ModelSpec, build_from_spec
from .run_folder import holding_the_run_folder_of


def export_checkpoint(source: str | Path, output: str | Path) -> tuple[Path, Path]:
    """Write the model of ``source`` (a ``checkpoints/step_N`` folder, or a run folder for its newest
    complete checkpoint) to the new folder ``output``; returns (the checkpoint read, ``output``).

    Raises:
        ConfigError: not a checkpoint; ``output`` in the way; a checkpoint without what an export needs.
        DataError: a damaged checkpoint, or weights that are not the network it describes.
    """
    with holding_the_run_folder_of(Path(output)):  # the run's own exports (run_folder.py)
        return export_found_checkpoint(checkpoint_folder(Path(source)), Path(output))


def export_found_checkpoint(checkpoint: Path, output: Path) -> tuple[Path, Path]:
    """``export_checkpoint`` of the ``step_N`` folder ``checkpoint_folder`` found: ``accelerated-seg export``
    finds it before torch imports, and a run still training may rotate it away before this reads it, which
    finding it again called "does not exist" (until the ninety-third session): it was removed since. The caller
    holds ``output``'s run folder's lock, where it is in one (``run_folder.holding_the_run_folder_of``)."""
    # Once the weights are read, the checkpoint may go: the export is of what was read.
    with gone_if_rotated_away(checkpoint):
        description = check_exportable(checkpoint, output)  # a file cut short: named, not a loader's traceback
        spec = ModelSpec.from_dict(description.pop("model"))
        network = _network_described(spec, checkpoint)
        aliases = shared_tensor_names(network)
        _load_into(network, aliases, _gathered_weights(checkpoint), checkpoint)
    try:
        write_state_as_export(network.state_dict(), spec.to_dict(), description, output, aliases=aliases,
                              step=int(STEP_DIR.match(checkpoint.name).group(1)))
    except NonFiniteWeights as error:
        raise DataError(f"{checkpoint}: {error}; export an earlier checkpoint") from None
    except OSError as error:  # a full disk, a quota: nothing half-written stays (write_export's .partial)
        raise ConfigError(f"the exported model cannot be written to {output} ({error.__class__.__name__}: "
                          f"{error}); give a folder that can be written") from None
    return checkpoint, output


def _network_described(spec: ModelSpec, checkpoint: Path) -> torch.nn.Module:
    """The network of the checkpoint's export.json, whose args were a TypeError traceback where they do not
    build it (an unknown monai_class an AttributeError), and the network's own checks' AssertionError."""
    try:
        return build_from_spec(spec)
    except (TypeError, ValueError, KeyError, AssertionError, AttributeError) as error:
        raise DataError(f"{checkpoint / EXPORT_DESCRIPTION_FILE}: its network {spec.monai_class} cannot be built "
                        f"({type(error).__name__}: {error}); the file was edited or replaced after the save: copy "
                        f"the checkpoint again from where it was written, or export another of its run's") from None


def _gathered_weights(checkpoint: Path) -> dict[str, torch.Tensor]:
    """The network's full state dict from whichever layout the checkpoint's strategy wrote."""
    weights = weights_to_export(checkpoint)  # again: a checkpoint rotated away meanwhile has none
    if weights == DEEPSPEED_WEIGHTS:
        return _deepspeed_weights(checkpoint)
    if weights == FSDP_SHARDED_WEIGHTS:
        from torch.distributed.checkpoint.api import CheckpointException

        try:
            return _unwrapped(_dcp_weights(checkpoint / FSDP_SHARDED_WEIGHTS))
        # torch.distributed.checkpoint reports a shard deleted or cut short as whatever its reader met
        # (an AssertionError on its index, a zip RuntimeError), or wrapped in its CheckpointException, a
        # BaseException (a missing shard's FileNotFoundError): each was a traceback.
        except (Exception, CheckpointException) as error:
            raise DataError(f"checkpoint {checkpoint} is damaged: its sharded weights {FSDP_SHARDED_WEIGHTS}/ cannot "
                            f"be read ({_what_failed(error)}). "
                            f"A checkpoint is saved whole, so a file was deleted or cut short afterwards: export "
                            f"another checkpoint, or copy this one again from where it was written") from None
    if weights == FSDP_FULL_WEIGHTS:
        return torch.load(checkpoint / FSDP_FULL_WEIGHTS, map_location="cpu", weights_only=True)
    with by_a_utf8_name(checkpoint / weights) as name:  # safetensors takes a path in UTF-8 alone
        return load_file(name)


def _what_failed(error: Exception) -> str:
    """The error's last line with its type: DCP wraps a rank's error in a CheckpointException whose
    text is that rank's traceback, ending in the error itself ("FileNotFoundError: ... __1_0.distcp")."""
    last = (str(error).strip().splitlines() or [""])[-1]
    return last if re.match(r"\w+(Error|Exception): ", last) else f"{type(error).__name__}: {last}"


def _dcp_weights(folder: Path) -> dict:
    """An FSDP sharded state dict (torch.distributed.checkpoint) read whole in this one process."""
    from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

    with tempfile.TemporaryDirectory() as tmp:
        whole = Path(tmp) / "weights.pt"
        dcp_to_torch_save(folder, whole)
        return torch.load(whole, map_location="cpu", weights_only=True)


def _unwrapped(state: dict) -> dict:
    """accelerate saves the FSDP model's state dict as {"model": ...}."""
    return state["model"] if set(state) == {"model"} and isinstance(state["model"], dict) else state


def _deepspeed_weights(checkpoint: Path) -> dict:
    """The fp32 master weights of a ZeRO checkpoint (any stage, any number of ranks), as training exports them."""
    quiet_deepspeeds_cpu_guess()  # gathering needs no GPU: its warning that it found none would only alarm
    try:
        from deepspeed.utils.zero_to_fp32 import get_fp32_state_dict_from_zero_checkpoint
    except ImportError:  # installed (weights_to_export found it) but not importable: a broken installation
        raise deepspeed_not_installed(checkpoint) from None
    return get_fp32_state_dict_from_zero_checkpoint(str(checkpoint))  # the tag in its "latest" file


def _load_into(network: torch.nn.Module, aliases: dict[str, str], weights: dict, checkpoint: Path) -> None:
    """``weights`` loaded into the plain ``network``, every name and shape checked first."""
    renamed = {}
    for name, tensor in weights.items():
        # What wrappers leave in saved names: DDP's "module." in front (accelerate saves the wrapped model),
        # activation checkpointing's within them under ZeRO-3 (removed by the export too, export_model).
        name = name.removeprefix("module.").replace(_CHECKPOINT_PREFIX, "")
        renamed[aliases.get(name, name)] = tensor  # a shared tensor saved under its second name
    expected = {name for name in network.state_dict() if name not in aliases}
    problems = [f"{name} missing" for name in sorted(expected - set(renamed))]
    problems += [f"{name} not in the network" for name in sorted(set(renamed) - expected)]
    problems += [f"{name}: {tuple(renamed[name].shape)} saved, {tuple(value.shape)} in the network"
                 for name, value in network.state_dict().items()
                 if name in expected and name in renamed and renamed[name].shape != value.shape]
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise DataError(f"{checkpoint}: its weights are not the network its {EXPORT_DESCRIPTION_FILE} describes "
                        f"({'; '.join(problems[:3])}{more}); copy the checkpoint again from where it was written")
    network.load_state_dict(renamed, strict=False)  # the aliases, left out, share their first name's tensor
