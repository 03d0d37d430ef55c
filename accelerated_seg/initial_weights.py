"""``train.init_from``: an exported model's weights as this run's start, where the run builds the same
network, or the same with another number of outputs (fine-tuning on another label set) or with
several image channels where it had one. Checked against the run's settings before the data work
(``check_initial_network``; with the part a weights file holds, train.init_into, and the steps the
output layers train alone, train.head_only_steps, before anything is written:
``check_a_new_runs_initial_weights``, ``check_init_into``, ``check_head_only_steps``), loaded once
the network is built (``load_initial_weights``). A MONAI
network's state-dict file instead of an export folder is read by weights_file.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import torch

from .config import Config, ConfigError
from .data.errors import DataError
from .data.preprocess_settings import code_version_difference
from .exported_model import (check_export_fits, check_weights_fit, load_strictly, load_weights, read_export_config,
                             read_weights_of)
from .model_folders import Names, check_init_from, check_initial_weights, init_from_given
from .models import (SET_BY_THE_RUN, ModelSpec, bridgeable, input_layer_names, model_spec, output_layer_names,
                     spec_differences)
from .resume_network_and_data import channel_name_differences, preprocessing_differences


class InitialWeights(NamedTuple):
    """What ``load_initial_weights`` did not load as saved: the output layers left as built (another
    number of outputs) and the input layers whose one channel was spread over the run's several."""
    fresh: list[str]
    spread: list[str]


def load_initial_weights(model: torch.nn.Module, spec: ModelSpec, model_dir: str | Path,
                         names: Names = Names()) -> InitialWeights:
    """Load an exported model's weights into ``model`` (built from ``spec``), which must be the same
    network, or the same with another number of outputs (fine-tuning on another label set, whose
    output layers then start as built, as nnU-Net's ``-pretrained_weights`` does) or with several
    image channels where it had one (its input layers' weights spread over them). Returns what was not
    loaded as saved (``InitialWeights``), nothing for the same network. A weights file instead of an
    export folder (a MONAI network's state dict) is matched by name and shape (weights_file.py). ``names``: how
    the caller names its settings (``train.init_from`` on the command line, ``init_from`` to the estimator).

    Raises:
        ConfigError: the folder is not an export, or it holds another network or other arguments.
        DataError: its files are damaged (``read_export_config``, ``load_weights``).
    """
    model_dir = Path(model_dir)
    if model_dir.is_file():
        from .weights_file import load_weights_file  # it builds on this module's helpers

        return load_weights_file(model, spec, model_dir, names)
    check_initial_weights(model_dir, names)
    weights_path = model_dir / "model.safetensors"
    config = read_export_config(model_dir)  # a damaged config.json: one DataError
    saved = ModelSpec.from_dict(config["model"])
    if saved == spec:
        check_weights_fit(model, model_dir)  # a config.json edited or copied alone: torch's mismatch list before
        load_weights(model, weights_path)
        return InitialWeights([], [])
    if bridgeable(saved, spec):
        # against config.json's own network (on the meta device), as for the run's: the adaptation's refusal
        # named one tensor and not config.json until the ninety-third session
        check_export_fits(model_dir, config)
        return load_weights_adapted(model, weights_path, spec)
    raise _another_network(model_dir, saved, spec, names)


def check_initial_network(model_dir: str | Path, name: str, patch_size, args: dict | None,
                          names: Names = Names()) -> None:
    """Refuse an export of another network than ``model.name`` and ``model.args`` build, before the
    data work. Until the fifty-ninth session this came from load_initial_weights, once the cases
    were checked (every header read; the demo's phantoms written into the new run's folder) and the
    Accelerator made: 18-20 s in for the demo on 2 cores, 14 s now, the imports alone
    (benchmarks/results/init_from_network_refusal_2cpu.json). The channels and classes, which the data
    decides, are taken as the export's here; load_initial_weights checks them.

    Raises:
        ConfigError: another network or other arguments, each difference named.
        DataError: the export's config.json is damaged (``read_export_config``).
    """
    if Path(model_dir).is_file():  # a weights file: weights_file.py matches it by names and shapes
        return
    saved = ModelSpec.from_dict(read_export_config(model_dir)["model"])
    decided = {key: saved.args[key] for key in ("in_channels", "out_channels") if key in saved.args}
    configured = {key: value for key, value in (args or {}).items() if key not in decided}
    built = model_spec(name, decided.get("in_channels", 1), decided.get("out_channels", 2), patch_size, configured,
                       names)
    if saved != built:
        raise _another_network(model_dir, saved, built, names)


def check_a_new_runs_initial_weights(cfg: Config, names: Names = Names()) -> None:
    """A new run's train.init_from: a file or export that is there, of a network this run can start from."""
    check_init_from(cfg.train, names)
    if cfg.train.init_from and cfg.train.init_into is None:
        check_initial_network(cfg.train.init_from, cfg.model.name, cfg.data.patch_size, cfg.model.args, names)


def check_init_into(train_cfg, names: Names = Names()) -> None:
    """train.init_into places a weights file that holds one part of the network; a resume names it again
    where train.head_only_steps' groups depend on it (the layers outside the part train alone first).
    ``names``: the caller's (the estimator's keywords since the ninety-second session)."""
    part = train_cfg.init_into
    if part is None:
        return
    into, start = names.set_to("train.init_into", part), names.setting("train.init_from")
    if not (train_cfg.init_from or train_cfg.resume):
        raise ConfigError(f"{into} says which part of the network {start}'s weights file holds, but no {start} is "
                          f"given: give the file, or unset {names.setting('train.init_into')}")
    # A resume's weights are its checkpoint's: the file is not loaded again, and need not be there still
    # (a requeued job whose scratch copy of the pretrained encoder was cleaned up was refused, where a
    # resume from an export that was gone went on)
    if train_cfg.init_from and not train_cfg.resume and not Path(train_cfg.init_from).is_file():
        found = (f"a folder (an export holds a whole network: unset {names.setting('train.init_into')})"
                 if Path(train_cfg.init_from).is_dir() else "not there")
        raise ConfigError(f"{into} places a weights file that holds one part of the network, but {start}="
                          f"{train_cfg.init_from!r} is {found}; give the weights file (.pt, .pth, .safetensors)")


def check_head_only_steps(train_cfg, names: Names = Names()) -> None:
    """train.head_only_steps needs output layers that start afresh (a fresh run from an export on
    another label set; model_for_strategy refuses an export of the same outputs) and steps after it.
    ``names``: the caller's (the estimator's keywords since the ninety-second session)."""
    steps = train_cfg.head_only_steps
    if not steps:
        return
    head_only = names.set_to("train.head_only_steps", steps)
    if not (train_cfg.init_from or train_cfg.resume):
        raise ConfigError(f"{head_only} trains the output layers of a fine-tuning run alone, but this run starts a "
                          f"new network, whose every layer starts afresh: give the export to fine-tune "
                          f"({names.setting('train.init_from')}) or set {names.set_to('train.head_only_steps', 0)}")
    if steps >= train_cfg.max_steps:
        raise ConfigError(f"{head_only} is not below {names.set_to('train.max_steps', train_cfg.max_steps)}: the "
                          f"rest of the network would never train; lower it (docs/checkpoints.md measured 7-33% "
                          f"of a run)")


def _another_network(model_dir: str | Path, saved: ModelSpec, built: ModelSpec, names: Names = Names()) -> ConfigError:
    # each difference named (the two whole specs, printed, hid a one-number change). "Match ... to", not "use the
    # same ...": the estimator's network is Segmentation's model, model_args ("the same Segmentation's model" until
    # the ninety-second session)
    return ConfigError(f"{init_from_given(model_dir, names)} holds another network than this run builds "
                       f"({'; '.join(_differences_as_named(saved, built, names))}): match {names.network} and the image "
                       f"channels to the run that exported it (the classes may differ: the output layers "
                       f"then start afresh; and one channel may become several)")


def _differences_as_named(saved: ModelSpec, built: ModelSpec, names: Names) -> list[str]:
    """spec_differences in the caller's words: the estimator's ``model_args['channels']``, its model and
    block_shape (``model.args.channels`` to it until the ninety-second session)."""
    given_as = {key: names.model_arg(key) for key in {*saved.args, *built.args} if key not in SET_BY_THE_RUN}
    return spec_differences(saved, built, {**given_as, "img_size": f"img_size ({names.setting('data.patch_size')})"},
                            name=names.setting("model.name"))


def initial_weights_preparation_note(model_dir: str | Path, preprocessing: dict, channels: dict,
                                     names: Names = Names()) -> str | None:
    """A warning when the volumes an export's weights learned from were prepared otherwise than this
    run's (``train.init_from``): another spacing, normalization or crop, or image channels named
    otherwise. Not an error: fine-tuning under new preprocessing is a choice (the way on that a
    refused resume offers), but features learned at another voxel size or intensity scale are a worse
    start, and nothing else would say so. The label mapping is left out: a new label set changes it.
    None when nothing differs, or when ``model_dir`` is no export (``load_initial_weights`` says so). ``names``:
    the caller's (the estimator's, fine-tuning a loaded model, names Dataset.from_files' spacing, normalization).
    """
    if not (Path(model_dir) / "config.json").is_file():
        return None
    export = read_export_config(model_dir)
    # A setting the export does not record (written before it existed) is not compared, nor the label
    # mapping, binarize included (a binarized export said "binarize: True there, None here" before)
    saved = {key: value for key, value in (export.get("preprocessing") or {}).items()
             if key not in ("label_map", "binarize")}
    settings = preprocessing_differences(saved, {key: preprocessing.get(key) for key in saved}, "there")
    code = code_version_difference(export, "there")
    named = channel_name_differences(export.get("channels") or {}, channels)
    if not (settings or code or named):
        return None
    data_settings = ", ".join(map(names.setting, ("data.spacing", "data.normalization", "data.ct_window",
                                                  "data.crop_foreground")))
    ways = ([f"set those data settings ({data_settings}) to its values"] if settings else []) + (
        ["give the images in its order"] if named else [])
    return (f"warning: {init_from_given(model_dir, names)} learned from volumes prepared otherwise than this run's "
            f"({'; '.join(settings + ([code] if code else []) + named)}); fine-tuning goes on under this run's"
            + (", whose preprocessing code the fine-tuning adapts the weights to" if code else "") + "."
            + (f" To prepare them as the export's were, {' and '.join(ways)}" if ways else ""))


def class_order_warning(model_dir: str | Path, labels: dict, regions: bool, names: Names = Names()) -> str | None:
    """A warning where the export (``train.init_from``) names the run's classes in another order: its
    output layers are loaded as trained, so the first steps learn each class from the layer of
    another. Other names, or another number of them, are a new task's, the fine-tuning's to learn
    (and the output layers start afresh where the number differs): not said. Regions are not compared.

    A Dataset given ``class_names`` in another order than the model it fine-tunes (the estimator), or
    a dataset.json that lists the labels otherwise, went on without a word (eighty-seventh session).
    """
    if regions or not (Path(model_dir) / "config.json").is_file():
        return None
    export = read_export_config(model_dir)
    saved = export.get("labels")
    if export.get("regions") is not None or not isinstance(saved, dict) or len(saved) != len(labels):
        return None
    there = [str(saved.get(str(index), saved.get(index, ""))).strip().casefold() for index in range(len(labels))]
    here = [str(labels[index]).strip().casefold() for index in range(len(labels))]
    if there == here or sorted(there) != sorted(here):
        return None
    moved = [f"class {index}: {saved.get(str(index), saved.get(index))} there, {labels[index]} here"
             for index in range(len(labels)) if there[index] != here[index]]
    return (f"warning: {init_from_given(model_dir, names)} names this run's classes in another order "
            f"({'; '.join(moved)}): its output layers are loaded as trained, each answering for its own class. "
            f"A class's index is its label value's rank: where the names are right, store each class under the "
            f"value it has there (relabel the files); where they are not, name them so ({names.class_naming})")


def load_weights_adapted(model: torch.nn.Module, weights_path: str | Path, spec: ModelSpec) -> InitialWeights:
    """``load_weights`` into ``model`` (built from ``spec``) of an export of the same network with another
    number of outputs, or with one image channel where ``spec`` has several (``models.bridgeable``).

    Output layers (and deep-supervision heads) keep the values ``model`` was built with; the input
    layers' weights of the one channel are spread over the run's N, each copy divided by N, so the
    network answers N copies of an image as it answered the image. Which tensors those are is read off
    the shapes rather than listed per network (``models.output_layer_names``, ``input_layer_names``).
    A shape that differs otherwise is a weights file that is not its config.json's network, and is
    refused as ``load_weights`` refuses it (``load_initial_weights`` checks the file against config.json's
    network first, naming both files).
    """
    tensors, built = read_weights_of(model, weights_path, "cpu"), model.state_dict()
    stored = {name: tuple(tensor.shape) for name, tensor in tensors.items()}  # before the output layers are replaced
    adapted, unexplained = adapt_to_network(tensors, built, spec)
    if unexplained:  # a few named and the rest counted, as check_weights_fit names them
        shapes = [f"{name} {stored[name]} in the file, {tuple(built[name].shape)} here"
                  for name in unexplained[:3]] + ([f"{len(unexplained) - 3} more"] if len(unexplained) > 3 else [])
        raise DataError(f"{weights_path} does not hold the weights of the network its config.json describes "
                        f"({'; '.join(shapes)}: shapes that neither another number of outputs nor of channels "
                        f"explains); use the config.json written with these weights")
    load_strictly(model, tensors, weights_path)
    return adapted


def adapt_to_network(tensors: dict[str, torch.Tensor], built: dict[str, torch.Tensor],
                     spec: ModelSpec) -> tuple[InitialWeights, list[str]]:
    """Make ``tensors`` (a saved state dict, changed in place) fit the network ``built`` from ``spec``
    where fine-tuning can bridge the difference: output layers of another number of outputs are
    replaced by the built ones, input layers of one channel spread over ``spec``'s channels. Returns
    what was done and the names of the tensors whose shapes neither explains."""
    differing = sorted(n for n in built if n in tensors and tensors[n].shape != built[n].shape)
    if not differing:  # the layer names cost two network builds each (on the meta device): only when needed
        return InitialWeights([], []), []
    heads, inputs = output_layer_names(spec), input_layer_names(spec)
    outputs, channels = spec.args["out_channels"], spec.args["in_channels"]
    fresh, spread, unexplained, saved_outputs = [], [], [], set()
    for name in differing:
        saved, here = tuple(tensors[name].shape), tuple(built[name].shape)
        pairs = {(a, b) for a, b in zip(saved, here) if a != b}
        if name in heads and len(saved) == len(here) and {b for _, b in pairs} == {outputs}:
            saved_outputs |= {a for a, _ in pairs}
            tensors[name] = built[name]  # as built: the strict load still checks every other name and shape
            fresh.append(name)
        elif name in inputs and len(here) > 1 and here[1] == channels and saved == (here[0], 1, *here[2:]):
            tensors[name] = tensors[name].repeat(1, channels, *[1] * (len(here) - 2)) / channels
            spread.append(name)
        else:
            unexplained.append(name)
    if len(saved_outputs) > 1:  # output layers that disagree on how many outputs they had
        unexplained += fresh
    return InitialWeights(fresh, spread), unexplained
