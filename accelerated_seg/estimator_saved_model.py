"""The model the estimator saves and loads: a folder, never a model file's name, holding an export's
files (``EXPORT_FILES``); the network design a saved config.json gives, checked as the file's; and what
identifies an export's files without reading them, so that a model replaced since it was loaded is noticed."""
from __future__ import annotations

from pathlib import Path

from .config import ConfigError, check_network_name
from .data.errors import DataError
from .data.fingerprint import files_fingerprint
from .models import SET_BY_THE_RUN, check_arg_names


# Names of one file of weights (Keras' model.save("model.h5"), torch.save's .pt), which save does not write
_MODEL_FILE_SUFFIXES = (".safetensors", ".pt", ".pth", ".ckpt", ".bin", ".h5", ".keras", ".onnx", ".json")


def refuse_a_model_file_name(directory: Path) -> None:
    """save("model.safetensors") made a folder of that name, where Keras and torch users expect one file:
    a folder that other tools then fail to open as the file it seems (until the ninety-third session). One that
    is a folder already (an earlier save's) is saved into."""
    if directory.suffix.lower() in _MODEL_FILE_SUFFIXES and not directory.is_dir():
        raise ConfigError(f"save: {directory} names a {directory.suffix} file, but a model is saved as a folder "
                          f"(config.json and model.safetensors, which Segmentation.load reads): give a folder path, "
                          f"e.g. {directory.with_suffix('')}")


def saved_design(config: dict, config_path: Path) -> tuple[str, dict]:
    """The network's name and design (its args but what the dataset decides: channels, classes, UNETR's
    img_size, left to fit so that fit(..., init_from=None) can build the same design for another dataset),
    checked as the file's: a hand edit naming no registry network or an argument MONAI's class lacks was
    refused as the constructor's ("Segmentation: model 'unett' is not known"), naming no file, until the
    ninety-third session."""
    name = config["model"]["name"]
    design = {key: value for key, value in config["model"]["args"].items() if key not in SET_BY_THE_RUN}
    try:
        check_network_name(name, "model.name")
        check_arg_names(name, design)
    except ConfigError as error:
        raise DataError(f"Segmentation.load: {config_path}: {error}; copy the export's config.json again from the "
                        f"run folder that wrote it") from None
    return name, design


def export_fingerprint(directory: Path) -> str | None:
    """What identifies an export's files without reading them (path, size, modification time, inode:
    a fit or a save writes new files and renames them into place); None where one is missing. Not
    the status-change time, which a chmod or a backup's hard link moves (a review)."""
    try:
        return files_fingerprint((directory / name for name in EXPORT_FILES), status_change=False)
    except OSError:
        return None


#: An export's files (save copies both before it renames either into place).
EXPORT_FILES = ("model.safetensors", "config.json")
