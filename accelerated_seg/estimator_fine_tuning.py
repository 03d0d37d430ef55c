"""A fit that starts from a saved model (``Segmentation.load``, ``init_from``, a resumed checkpoint): whether the
loaded network fits the Dataset and the design this Segmentation gives, each difference named as the estimator's
user gives it, and the class and channel names the Dataset takes from where it starts."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .checkpoint_files import EXPORT_DESCRIPTION_FILE
from .config import Config, ConfigError
from .data.manifest import Manifest
from .data.preprocess_settings import resolved_normalization
from .exported_model import read_export_config
from .model_folders import ESTIMATOR_NAMES
from .models import SET_BY_THE_RUN, ModelSpec, bridgeable, model_spec, spec_differences

if TYPE_CHECKING:
    from .estimator_dataset import Dataset


def check_fine_tuning(export: Path, cfg: Config, manifest: Manifest, channels_named: bool = True) -> None:
    """Refuse, before anything is written, a dataset the loaded model cannot go on training on, or
    model_args changed since it was loaded.

    Training would refuse it too, but in train.init_from's terms, a setting the estimator's user
    never gave; here each difference is named as the Dataset or the Segmentation gives it.
    ``channels_named``: whether the Dataset was given channel_names (else its one file a case is one channel).
    """
    config = read_export_config(export)
    saved = ModelSpec.from_dict(config["model"])
    needed = model_spec(cfg.model.name, manifest.num_channels, manifest.num_outputs, cfg.data.patch_size,
                        cfg.model.args)
    if needed == saved or bridgeable(saved, needed):  # other classes: new output layers; 1 channel: spread
        return
    of_the_dataset, of_the_design = _fine_tuning_differences(saved, needed)
    said, remedies = [], []
    if of_the_dataset:
        said.append(f"does not fit this dataset ({'; '.join(of_the_dataset)})")
        named = "" if channels_named else _channels_to_name(config, manifest)
        remedies.append(f"give a Dataset the model fits{named}")
    if of_the_design:  # model_args (or the model) changed since Segmentation.load, not the dataset
        said.append(f"is not the network this Segmentation builds ({'; '.join(of_the_design)})")
        remedies.append(f"give {'model and ' if saved.name != needed.name else ''}model_args as the model has them")
    design = "this Segmentation's design" if of_the_design else "the same design"
    raise ConfigError(f"fit: a loaded model is trained on from its weights, and the one loaded from {export} "
                      f"{', and '.join(said)}: {', and '.join(remedies)}, or fit(..., init_from=None) to train a new "
                      f"{cfg.model.name} of {design} from scratch")


def _channels_to_name(config: dict, manifest: Manifest) -> str:
    """How a Dataset that names no channels, its cases one (x, y, z, C) file of the loaded model's C > 1 channels as
    the Decathlon's BrainTumour keeps them, declares them (judged by the first case's header, as from_files judges
    its names): "" for any other. evaluate and predict take such files for such a model; fit was told "give a Dataset
    the model fits" alone (review r94 of the hundred-and-twentieth session)."""
    import nibabel

    from .data.volume_opening import volumes_in
    from .inference_inputs import channels_named

    channels = int(config["in_channels"])
    first = next(iter([*manifest.training, *manifest.validation]), None)
    if channels < 2 or first is None or len(first.images) != 1:
        return ""
    try:
        held = volumes_in(nibabel.load(first.images[0]).shape)
    except Exception:  # noqa: BLE001 - an unreadable file is the checks' to name
        return ""
    if held != channels:
        return ""
    names = list(channels_named(config).values())
    return (f" (its first case's one file, {first.images[0]}, holds {channels} volumes (x, y, z, {channels}): name "
            f"them as the model's channels, Dataset.from_files(..., channel_names={names!r}))")


def _fine_tuning_differences(saved: ModelSpec, needed: ModelSpec) -> tuple[list[str], list[str]]:
    """How the network a fit needs differs from the loaded one: in what the dataset decides (its image
    channels, block_shape), and in the design this Segmentation gives (model, model_args). Both were
    told "in the dataset" until the ninety-third session, a model_args change with a Dataset's remedy."""
    # the network's own arguments as the estimator's user gives them, model_args['channels'] (model.args.channels,
    # the config's, until the ninety-third session); what the run decides as the Dataset gives it
    given_as = {**{key: ESTIMATOR_NAMES.model_arg(key) for key in {*saved.args, *needed.args} - SET_BY_THE_RUN.keys()},
                "in_channels": "image channels", "img_size": "block_shape"}
    # what cannot be bridged: other classes can (new output layers), so they are not named among them; the
    # dataset's side compares the arguments both networks take (another model's are its design's difference)
    decided = (SET_BY_THE_RUN.keys() - {"out_channels"}) & saved.args.keys() & needed.args.keys()
    if saved.args.get("in_channels") == 1:  # spread over the dataset's channels, once the design is the model's
        decided -= {"in_channels"}
    of_the_dataset = spec_differences(_with_args(saved, decided), _with_args(needed, decided, name=saved.name),
                                      given_as, sides=("in the model", "in the dataset"))
    of_the_design = spec_differences(_with_args(saved, saved.args.keys() - SET_BY_THE_RUN.keys()),
                                     _with_args(needed, needed.args.keys() - SET_BY_THE_RUN.keys()), given_as,
                                     sides=("in the model", "in this Segmentation"), name="model")
    return of_the_dataset, of_the_design


def _with_args(spec: ModelSpec, keys, name: str | None = None) -> ModelSpec:
    """``spec`` with only its arguments ``keys`` (and the network's name ``name``, where given)."""
    return dataclasses.replace(spec, name=name or spec.name,
                               args={key: value for key, value in spec.args.items() if key in keys})


def named_as_its_start(dataset: Dataset, resumed: Path | None, init_from) -> Manifest:
    """The Dataset's cases, their classes and channels named as the checkpoint a fit resumes names them
    (the names its run trained with; a loaded model's, or none from init_from, renamed the classes
    mid-run, a review found), else as the export it starts from (``init_from``), where the Dataset was
    given no names (``class_names``, ``channel_names``) and has as many.

    A command-line model's background/edema/enhancing, fine-tuned through the estimator, were exported
    as background/class_1/class_2, which predict, evaluate and the metrics then printed (a user-journey
    audit). Names given win, as a run's data names its classes over ``train.init_from``'s, whose output
    layers are loaded either way; training warns of other channel names (``initial_weights``).
    """
    manifest = dataset.manifest
    # a checkpoint written before it recorded names (no export description) leaves them to init_from's
    start = resumed if resumed is not None and (Path(resumed) / EXPORT_DESCRIPTION_FILE).is_file() else init_from
    if start is not None and (Path(start) / EXPORT_DESCRIPTION_FILE).is_file():  # the checkpoint a fit resumes
        try:
            export = json.loads((Path(start) / EXPORT_DESCRIPTION_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # unreadable: the resume says so, as for a fit without names
            return manifest
        export = export if isinstance(export, dict) else {}
    elif start is None or not (Path(start) / "config.json").is_file():  # none, or a weights file: no names
        return manifest
    else:
        export = read_export_config(start)  # a damaged one fails here as it would in training, naming the file

    def names(saved, count: int) -> dict[int, str] | None:
        """The export's {index: name} for 0..count-1, or None where it holds no such names."""
        if not isinstance(saved, dict) or sorted(map(str, saved)) != sorted(map(str, range(count))):
            return None
        return {int(index): str(name) for index, name in sorted(saved.items(), key=lambda item: int(item[0]))}

    taken, said = [], []
    # Names the Dataset has already (an estimator's export of a Dataset that named none) are neither taken
    # nor said: the note told of background, class_1, class_2 taken from such a model (a review)
    if dataset.class_names is None and (labels := names(export.get("labels"), manifest.num_classes)) \
            and labels != manifest.labels:
        manifest = dataclasses.replace(manifest, labels=labels)
        taken.append(f"classes {', '.join(labels.values())}")
    if dataset.channel_names is None and (channels := names(export.get("channels"), manifest.num_channels)) \
            and channels != manifest.channels:
        asked, renamed = dataset.data.normalization, dataclasses.replace(manifest, channels=channels)
        # Names, not a normalization: the model's CT made data.normalization auto clip an MRI Dataset to
        # data.ct_window, while its repr and loader() said image and zscore (a review). Training's warning
        # names the export's other normalization, and how to take it.
        if resolved_normalization(asked, renamed) == resolved_normalization(asked, manifest):
            manifest = renamed
            taken.append(f"channels {', '.join(channels.values())}")
        else:
            said.append(f"the dataset's channels are not named {', '.join(channels.values())} as {start} names them, "
                        f"a name normalization='auto' normalizes as CT: give Dataset.from_files channel_names="
                        f"{list(channels.values())} (or normalization='ct') where they are CT")
    if taken:  # said, since a dataset of another task with as many classes takes them too
        said.insert(0, f"the dataset's {' and '.join(taken)} are named as {start} names them; Dataset.from_files' "
                       f"class_names and channel_names name them otherwise")
    if said and os.environ.get("RANK", "0") == "0":  # once, by the main process
        print(f"note: {'; '.join(said)}")
    return manifest
