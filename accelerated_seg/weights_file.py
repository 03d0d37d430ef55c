"""Initial weights from a plain weights file (``train.init_from=weights.pt``): the state dict of a
MONAI network as ``torch.save`` or safetensors wrote it, e.g. a MONAI bundle's ``models/model.pt``
or the network of one's own MONAI training loop.

An export (config.json + model.safetensors) says which network its weights belong to, so
``initial_weights.load_initial_weights`` compares the networks first. A weights file says nothing of the
kind: this run's network is built as configured (``model.name``, ``model.args``, channels, classes)
and the file's tensors are matched to it by name and shape. Every tensor must match, except where
an export could differ too: output layers trained for another number of classes start afresh, and
the input layers of a one-channel network are spread over the run's channels.

A file that holds one part of a network alone (an encoder from self-supervised pretraining, as
SwinUNETR's ``swinViT`` from MONAI's SSL weights) goes where ``train.init_into`` says
(``load_weights_into``); the rest of the network starts as built. That is asked for by name rather
than guessed: a file that fits the whole network but in part would otherwise leave half of it as
built without a word. When such a file is given without it, the refusal names the part it fits.

``torch.load`` runs with ``weights_only=True``: a file that holds Python objects besides tensors
(a whole pickled network, an optimizer) is refused rather than unpickled, since unpickling runs code.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import NamedTuple

import torch

from .config import ConfigError
from .data.errors import DataError
from .exported_model import read_safetensors, with_every_name
from .initial_weights import InitialWeights, adapt_to_network
from .model_folders import Names, check_weights_file, init_from_given, not_a_weights_file
from .models import ModelSpec

# Where training scripts nest the network's state dict in a checkpoint dict: MONAI's CheckpointSaver
# and Lightning ("state_dict"), plain loops ("model", "model_state_dict", "network"), nnU-Net
# ("network_weights").
NESTING_KEYS = ("state_dict", "model", "model_state_dict", "network", "network_weights")
# Prefixes a wrapper adds to every name: DistributedDataParallel / DataParallel, torch.compile.
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def read_state_dict(path: Path, names: Names = Names()) -> dict[str, torch.Tensor]:
    """The network's tensors in ``path`` (safetensors, or torch.save's format), unnested and without
    wrapper prefixes. ``names``: how the caller names its settings (the estimator's and Dataset.fit's
    keywords since the ninety-second session), here and below.

    Raises:
        DataError: the file cannot be read (damaged, truncated, or neither format).
        ConfigError: it holds Python objects besides tensors, or no state dict.
    """
    check_weights_file(path, names)  # its format, as the command line checks it before the imports
    if path.suffix == ".safetensors":
        return _without_wrapper_prefixes(read_safetensors(path))
    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, KeyError) as error:  # KeyError: a text file's bytes read as opcodes
        # Only "Unsupported global" is a pickle of Python objects; "Unsupported operand" (a NIfTI, a JSON,
        # one byte) is no pickle at all, which was diagnosed as one until the seventy-seventh session.
        if "unsupported global" in str(error).lower():
            raise ConfigError(f"{init_from_given(path, names)} holds Python objects besides tensors (a whole "
                              f"pickled network or training state?), which are not loaded: unpickling them runs "
                              f"code. Save the network's weights alone: torch.save(network.state_dict(), path)"
                              ) from None
        raise not_a_weights_file(path) from None
    except (RuntimeError, EOFError, OSError, ValueError) as error:
        raise DataError(f"{path} cannot be read as a PyTorch weights file ({' '.join(str(error).split())[:300]}): "
                        f"the file is damaged, truncated, or not written by torch.save") from None
    return _without_wrapper_prefixes(_state_dict_in(content, path, names))


def load_weights_file(model: torch.nn.Module, spec: ModelSpec, path: str | Path,
                      names: Names = Names()) -> InitialWeights:
    """Load the weights file ``path`` into ``model`` (built from ``spec``), matching tensors by name
    and shape, as an export of the file's network would load (``initial_weights.adapt_to_network``): output
    layers of another number of outputs start as built, input layers of one channel spread over several.

    Raises:
        ConfigError: its tensors are not this network's (other names, or shapes that neither explains:
            other ``model.args`` or channels).
    """
    path = Path(path)
    tensors = with_every_name(model, read_state_dict(path, names))
    built = model.state_dict()
    missing, unexpected = sorted(built.keys() - tensors.keys()), sorted(tensors.keys() - built.keys())
    if missing or unexpected:
        part = _part_that_fits(model, tensors)
        raise ConfigError(
            f"{init_from_given(path, names)} does not hold the weights of this run's {spec.name} (MONAI "
            f"{spec.monai_class}): " + "; ".join(
                f"{len(listed)} {what}, e.g. {', '.join(listed[:3])}" for listed, what in (
                    (missing, "of its tensors are not in the file"), (unexpected, "in the file are not in it"))
                if listed)
            + (f". Every tensor in the file has a place in its part {part!r}: if the file holds that part alone "
               f"(an encoder from self-supervised pretraining?), set {names.set_to('train.init_into', part)} to load "
               f"it there and start the rest of the network as built" if part else
               f". Set {names.setting('model.name')} and {names.setting('model.args')} to the network the weights "
               f"were trained as"))
    adapted = _adapted(tensors, built, spec, path, f"a {spec.name}", names)
    model.load_state_dict(tensors, strict=True)
    return adapted


class PartLoaded(NamedTuple):
    """What ``load_weights_into`` loaded: the file's tensors, under the network's names; the network's
    tensors the file does not hold, which start as built; the input layers whose one channel was spread
    over several; and the leading name of the file's own that was read as the part's (or "")."""
    loaded: list[str]
    as_built: list[str]
    spread: list[str]
    read_as_part: str


def load_weights_into(model: torch.nn.Module, spec: ModelSpec, path: str | Path, part: str,
                      names: Names = Names()) -> PartLoaded:
    """Load the weights file ``path``, which holds the part ``part`` of ``model`` alone (``train.init_into``),
    into that part; every other tensor of ``model`` keeps the value it was built with.

    The file may name its tensors within the part (``layers1.0.blocks.0.norm1.weight``, as
    MONAI's SwinUNETR SSL weights do once the ``module.`` of DDP is dropped), within the whole network
    (``swinViT.layers1...``, a state dict filtered to the encoder), or under a leading name of its own
    (``swin_vit.`` of older SSL pretraining, ``backbone.``, ``encoder.``), which is read as the part's.
    Every tensor in the file must find its place in the part, with its shape (or one channel's, spread
    as ``load_weights_file`` spreads it); the part need not be whole in the file.

    Raises:
        ConfigError: ``part`` is not a module of the network; a tensor of the file has no place in it,
            or a shape that another size of network would explain.
    """
    path = Path(path)
    check_part(model, spec, part, names)
    tensors = read_state_dict(path, names)
    built = model.state_dict()
    placement = _placements(tensors, part)
    fitting = [(places, own) for places, own in placement
               if all(_in_part(name, built, part) for name in places.values())]
    if not fitting:
        places, _ = max(placement, key=lambda candidate: sum(name in built for name in candidate[0].values()))
        homeless = sorted(saved for saved, name in places.items() if not _in_part(name, built, part))
        hint = (f"; they all fit the whole network: leave {names.setting('train.init_into')} unset"
                if set(tensors) <= built.keys()
                else f"; they all fit its part {other!r}: set {names.set_to('train.init_into', other)}"
                if (other := _part_that_fits(model, tensors)) else "")
        raise ConfigError(f"{init_from_given(path, names)} does not hold {part} of this run's {spec.name}: "
                          f"{len(homeless)} of its {len(tensors)} tensors have no place in it, e.g. "
                          f"{', '.join(homeless[:3])}{hint}")
    places, own = fitting[0]
    completed = dict(built)
    loaded = with_every_name(model, {name: tensors[saved] for saved, name in places.items()})
    completed.update(loaded)
    adapted = _adapted(completed, built, spec, path, f"{part} of a {spec.name}", names)
    model.load_state_dict(completed, strict=True)
    kept = loaded.keys() - set(adapted.fresh)  # output layers in the part, for other classes: as built
    return PartLoaded(sorted(kept), sorted(built.keys() - kept), adapted.spread, own)


def _adapted(tensors: dict[str, torch.Tensor], built: dict[str, torch.Tensor], spec: ModelSpec, path: Path,
             holds: str, names: Names = Names()) -> InitialWeights:
    """``initial_weights.adapt_to_network`` of the file's tensors, or a refusal naming a shape it cannot explain."""
    adapted, others = adapt_to_network(tensors, built, spec)
    if others:
        name = others[0]
        raise ConfigError(
            f"{init_from_given(path, names)} holds {holds} of another size than this run builds: "
            f"{len(others)} tensor(s) differ in shape, e.g. {name}: {tuple(tensors[name].shape)} in the file, "
            f"{tuple(built[name].shape)} here. Set {names.setting('model.args')} (and the image channels) as the "
            f"weights were trained; only the number of classes may differ, and one channel may become several")
    return adapted


def check_part(model: torch.nn.Module, spec: ModelSpec, part: str, names: Names = Names()) -> None:
    """Refuse a ``train.init_into`` that names no module of ``model`` (built from ``spec``), listing its parts."""
    if not part or part not in dict(model.named_modules()):
        parts = ", ".join(name for name, _ in model.named_children())
        raise ConfigError(f"{names.setting('train.init_into')}={part!r} is not a part of this run's {spec.name} (MONAI "
                          f"{spec.monai_class}), whose parts are {parts} (or a module within one, by its dotted "
                          f"name): name the part that {names.setting('train.init_from')}'s weights file holds")


def outside_part(model: torch.nn.Module, part: str) -> set[str]:
    """The names of ``model``'s parameters outside its module ``part``: what starts as built when a weights
    file is loaded into the part, and what ``train.head_only_steps`` then trains alone first."""
    return {name for name, _ in model.named_parameters() if not name.startswith(part + ".")}


def _placements(tensors: dict[str, torch.Tensor], part: str) -> list[tuple[dict[str, str], str]]:
    """Where the file's tensors could go in the network, each a map from the file's names to the
    network's with the file's own leading name read as ``part``'s (or ""): as they are, within
    ``part``, and within ``part`` without a leading name that every one of them shares."""
    candidates = [({name: name for name in tensors}, ""), ({name: f"{part}.{name}" for name in tensors}, "")]
    leading = {name.split(".", 1)[0] for name in tensors}
    if len(leading) == 1 and all("." in name for name in tensors):
        own = leading.pop()
        candidates.append(({name: f"{part}.{name.split('.', 1)[1]}" for name in tensors}, f"{own}."))
    return candidates


def _in_part(name: str, built: dict[str, torch.Tensor], part: str) -> bool:
    """Whether the network ``built`` has a tensor ``name`` in its module ``part``."""
    return name in built and name.startswith(part + ".")


def _part_that_fits(model: torch.nn.Module, tensors: dict[str, torch.Tensor]) -> str | None:
    """The outermost module of ``model`` in which every tensor of the file has a place by name (as
    ``load_weights_into`` would place it), or None: what the refusal of a partial file proposes. Not
    a module that holds every tensor of the network (MONAI's UNet is all in ``model``)."""
    built = model.state_dict()
    for part, _ in model.named_modules():
        if not part or all(name.startswith(part + ".") for name in built):
            continue
        if any(all(_in_part(name, built, part) for name in names.values()) for names, _ in _placements(tensors, part)):
            return part
    return None


def _state_dict_in(content, path: Path, names: Names = Names()) -> dict[str, torch.Tensor]:
    if _is_state_dict(content):
        return content
    if isinstance(content, dict):
        for key in NESTING_KEYS:
            if _is_state_dict(content.get(key)):
                return content[key]
    found = (f"a dict of {', '.join(map(repr, list(content)[:6]))}" if isinstance(content, dict)
             else type(content).__name__)
    raise ConfigError(f"{init_from_given(path, names)} holds {found}, not a network's state dict (names to "
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
