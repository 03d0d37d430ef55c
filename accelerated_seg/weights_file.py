"""Initial weights from a plain weights file (``train.init_from=weights.pt``): the state dict of a
MONAI network as ``torch.save`` or safetensors wrote it, e.g. a MONAI bundle's ``models/model.pt``
or the network of one's own MONAI training loop.

An export (config.json + model.safetensors) says which network its weights belong to, so
``checkpoint.load_initial_weights`` compares the networks first. A weights file says nothing of the
kind: this run's network is built as configured (``model.name``, ``model.args``, channels, classes)
and the file's tensors are matched to it by name and shape. Every tensor must match, except where
an export could differ too: output layers trained for another number of classes start afresh, and
the input layers of a one-channel network are spread over the run's channels.

``torch.load`` runs with ``weights_only=True``: a file that holds Python objects besides tensors
(a whole pickled network, an optimizer) is refused rather than unpickled, since unpickling runs code.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import torch

from .checkpoint import InitialWeights, adapt_to_network, read_safetensors, with_every_name
from .config import ConfigError
from .data.errors import DataError
from .models import ModelSpec

# Where training scripts nest the network's state dict in a checkpoint dict: MONAI's CheckpointSaver
# and Lightning ("state_dict"), plain loops ("model", "model_state_dict", "network"), nnU-Net
# ("network_weights").
NESTING_KEYS = ("state_dict", "model", "model_state_dict", "network", "network_weights")
# Prefixes a wrapper adds to every name: DistributedDataParallel / DataParallel, torch.compile.
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def read_state_dict(path: Path) -> dict[str, torch.Tensor]:
    """The network's tensors in ``path`` (safetensors, or torch.save's format), unnested and without
    wrapper prefixes.

    Raises:
        DataError: the file cannot be read (damaged, truncated, or neither format).
        ConfigError: it holds Python objects besides tensors, or no state dict.
    """
    if path.suffix == ".safetensors":
        return _without_wrapper_prefixes(read_safetensors(path))
    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        if "weights only load failed" in str(error).lower():
            raise ConfigError(f"train.init_from={str(path)!r} holds Python objects besides tensors (a whole "
                              f"pickled network or training state?), which are not loaded: unpickling them runs "
                              f"code. Save the network's weights alone: torch.save(network.state_dict(), path)"
                              ) from None
        raise DataError(f"{path} cannot be read as a PyTorch weights file ({error}): the file is damaged, "
                        f"truncated, or not written by torch.save") from None
    except (RuntimeError, EOFError, OSError, ValueError) as error:
        raise DataError(f"{path} cannot be read as a PyTorch weights file ({' '.join(str(error).split())[:300]}): "
                        f"the file is damaged, truncated, or not written by torch.save") from None
    return _without_wrapper_prefixes(_state_dict_in(content, path))


def load_weights_file(model: torch.nn.Module, spec: ModelSpec, path: str | Path) -> InitialWeights:
    """Load the weights file ``path`` into ``model`` (built from ``spec``), matching tensors by name
    and shape, as an export of the file's network would load (``checkpoint.adapt_to_network``): output
    layers of another number of outputs start as built, input layers of one channel spread over several.

    Raises:
        ConfigError: its tensors are not this network's (other names, or shapes that neither explains:
            other ``model.args`` or channels).
    """
    path = Path(path)
    tensors = with_every_name(model, read_state_dict(path))
    built = model.state_dict()
    missing, unexpected = sorted(built.keys() - tensors.keys()), sorted(tensors.keys() - built.keys())
    if missing or unexpected:
        raise ConfigError(
            f"train.init_from={str(path)!r} does not hold the weights of this run's {spec.name} (MONAI "
            f"{spec.monai_class}): " + "; ".join(
                f"{len(names)} {what}, e.g. {', '.join(names[:3])}" for names, what in (
                    (missing, "of its tensors are not in the file"), (unexpected, "in the file are not in it"))
                if names)
            + ". Set model.name and model.args to the network the weights were trained as")
    adapted, others = adapt_to_network(tensors, built, spec)
    if others:
        name = others[0]
        raise ConfigError(
            f"train.init_from={str(path)!r} holds a {spec.name} of another size than this run builds: "
            f"{len(others)} tensor(s) differ in shape, e.g. {name}: {tuple(tensors[name].shape)} in the file, "
            f"{tuple(built[name].shape)} here. Set model.args (and the image channels) as the weights were "
            f"trained; only the number of classes may differ, and one channel may become several")
    model.load_state_dict(tensors, strict=True)
    return adapted


def _state_dict_in(content, path: Path) -> dict[str, torch.Tensor]:
    if _is_state_dict(content):
        return content
    if isinstance(content, dict):
        for key in NESTING_KEYS:
            if _is_state_dict(content.get(key)):
                return content[key]
    found = (f"a dict of {', '.join(map(repr, list(content)[:6]))}" if isinstance(content, dict)
             else type(content).__name__)
    raise ConfigError(f"train.init_from={str(path)!r} holds {found}, not a network's state dict (names to "
                      f"tensors), neither whole nor under {', '.join(map(repr, NESTING_KEYS))}: save it with "
                      f"torch.save(network.state_dict(), path)")


def _is_state_dict(content) -> bool:
    return (isinstance(content, dict) and bool(content)
            and all(isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in content.items()))


def _without_wrapper_prefixes(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Names as the plain network has them: a prefix on every name (``module.`` of DDP, ``_orig_mod.``
    of torch.compile, in any nesting) removed."""
    stripped = True
    while stripped:
        stripped = False
        for prefix in WRAPPER_PREFIXES:
            if tensors and all(name.startswith(prefix) for name in tensors):
                tensors = {name[len(prefix):]: value for name, value in tensors.items()}
                stripped = True
    return tensors
