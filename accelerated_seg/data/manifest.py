"""Which cases exist: parse a Medical Segmentation Decathlon ``dataset.json`` into a Manifest.

Only the JSON is read here; whether the files it names exist and are usable is
the job of :mod:`accelerated_seg.data.checks`, so loading a manifest stays fast
and can be done on every process of a distributed run.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from accelerated_seg.data.errors import DataError

_NIFTI_SUFFIXES = (".nii.gz", ".nii")


@dataclass(frozen=True)
class Case:
    """One subject: its image file(s) and, when labelled, its label map.

    Args:
        id: Case name, the file stem without ``.nii``/``.nii.gz`` (e.g. ``"case_000"``).
        images: One absolute path per input channel.
        label: Absolute path of the label map, or ``None`` for unlabelled/test cases.
    """

    id: str
    images: tuple[Path, ...]
    label: Path | None


@dataclass
class Manifest:
    """Everything a training run needs to know about a dataset before opening any volume.

    Args:
        root: Folder holding ``dataset.json``; relative paths in it are resolved against this.
        labels: Class index -> name, contiguous from 0 (0 is background).
        channels: Channel index -> name (e.g. modality); ``{0: "image"}`` when the JSON names none.
        training: Cases to train on.
        validation: Held-out cases to validate on (disjoint from ``training``).
    """

    root: Path
    labels: dict[int, str]
    channels: dict[int, str]
    training: list[Case]
    validation: list[Case]

    @property
    def num_classes(self) -> int:
        """Number of output classes, background included."""
        return len(self.labels)

    @property
    def num_channels(self) -> int:
        """Number of input channels the network sees."""
        return len(self.channels)


def load_msd(dataset_json: str | Path, validation_fraction: float = 0.2, seed: int = 0) -> Manifest:
    """Read a Decathlon-style ``dataset.json`` and split it into training and validation cases.

    If the JSON has its own ``"validation"`` list it is used as is; otherwise
    ``validation_fraction`` of ``"training"`` is held out with a shuffle seeded by
    ``seed``, so every process and every rerun gets the same split.

    Args:
        dataset_json: Path to ``dataset.json`` (or to the folder containing it).
        validation_fraction: Share of training cases held out when the JSON has no
            ``"validation"`` list. Any positive fraction holds out at least one case
            when there are two or more; 0 holds out none.
        seed: Seed of the split shuffle.

    Returns:
        The parsed Manifest, with all file paths absolute.

    Raises:
        DataError: The JSON is missing or malformed, lacks ``"training"``, or its
            ``"labels"`` are not 0..C-1.
        ValueError: ``validation_fraction`` is outside [0, 1).
    """
    if not 0.0 <= validation_fraction < 1.0:
        raise ValueError(f"validation_fraction must be in [0, 1), got {validation_fraction}")

    json_path = Path(dataset_json).expanduser().absolute()
    if json_path.is_dir():
        json_path = json_path / "dataset.json"
    content = _read_json(json_path)
    root = json_path.parent

    labels = _parse_labels(content, json_path)
    channels = _parse_channels(content, json_path)

    if "training" not in content:
        raise DataError(
            f"{json_path}: no 'training' list; add "
            '"training": [{"image": "./imagesTr/x.nii.gz", "label": "./labelsTr/x.nii.gz"}, ...]'
        )
    training = _parse_cases(content["training"], "training", root, json_path, len(channels))
    if not training:
        raise DataError(f"{json_path}: the 'training' list is empty; add at least one labelled case")

    if "validation" in content:
        validation = _parse_cases(content["validation"], "validation", root, json_path, len(channels))
    else:
        training, validation = _seeded_split(training, validation_fraction, seed)

    _reject_duplicate_ids(training + validation, json_path)
    return Manifest(root=root, labels=labels, channels=channels, training=training, validation=validation)


def _read_json(json_path: Path) -> dict[str, Any]:
    """Load the JSON object, turning every failure into a DataError that says what to do."""
    if not json_path.is_file():
        raise DataError(
            f"{json_path}: dataset.json not found; point the data path at the folder that "
            "contains dataset.json (Medical Segmentation Decathlon layout)"
        )
    try:
        content = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{json_path}: not valid JSON ({err}); fix or regenerate the file") from err
    if not isinstance(content, dict):
        raise DataError(f"{json_path}: expected a JSON object at the top level, got {type(content).__name__}")
    return content


def _parse_labels(content: dict[str, Any], json_path: Path) -> dict[int, str]:
    """Return {index: name}, requiring indices 0..C-1 with no gaps.

    MSD writes ``{"0": "background"}``; nnU-Net v2 writes ``{"background": 0}``.
    Both are accepted because datasets get converted back and forth.
    """
    raw = content.get("labels")
    if not isinstance(raw, dict) or not raw:
        raise DataError(f'{json_path}: missing or empty "labels"; add e.g. "labels": {{"0": "background", "1": "tumour"}}')

    if all(isinstance(value, int) and not isinstance(value, bool) for value in raw.values()):
        pairs = [(value, str(name)) for name, value in raw.items()]  # nnU-Net v2: name -> index
    else:
        try:
            pairs = [(int(key), str(name)) for key, name in raw.items()]  # MSD: "index" -> name
        except ValueError as err:
            raise DataError(
                f'{json_path}: "labels" keys must be class indices like "0", "1"; got {list(raw)}'
            ) from err

    labels = dict(sorted(pairs))
    if len(labels) != len(pairs) or list(labels) != list(range(len(labels))):
        raise DataError(
            f'{json_path}: "labels" must be numbered 0..C-1 without gaps (0 = background); got indices '
            f"{sorted(index for index, _ in pairs)}; renumber the classes in dataset.json and in the label files"
        )
    return labels


def _parse_channels(content: dict[str, Any], json_path: Path) -> dict[int, str]:
    """Return {index: name} from MSD "modality" or nnU-Net v2 "channel_names"; one channel if neither."""
    raw = content.get("modality", content.get("channel_names"))
    if raw is None:
        return {0: "image"}
    try:
        channels = dict(sorted((int(key), str(name)) for key, name in raw.items()))
    except (AttributeError, ValueError) as err:
        raise DataError(
            f'{json_path}: "modality"/"channel_names" must map channel indices to names, e.g. {{"0": "MRI"}}; got {raw!r}'
        ) from err
    if list(channels) != list(range(len(channels))):
        raise DataError(f'{json_path}: channel indices must be 0..N-1 without gaps; got {list(channels)}')
    return channels


def _parse_cases(entries: Any, key: str, root: Path, json_path: Path, num_channels: int) -> list[Case]:
    """Turn the JSON list under ``key`` into Cases with absolute paths."""
    if not isinstance(entries, list):
        raise DataError(f"{json_path}: '{key}' must be a list of {{\"image\": ..., \"label\": ...}} entries")
    cases = []
    for position, entry in enumerate(entries):
        where = f"{json_path}: '{key}' entry {position}"
        if not isinstance(entry, dict) or "image" not in entry:
            raise DataError(f'{where} has no "image"; each entry needs "image" and "label" paths')
        if entry.get("label") is None:
            # Both lists feed supervised training/validation, so an unlabelled entry is a mistake.
            raise DataError(f'{where} has no "label"; move unlabelled cases to "test"')

        image_field = entry["image"]
        if isinstance(image_field, str):
            images = (_resolve(image_field, root),)
        elif isinstance(image_field, list) and image_field and all(isinstance(p, str) for p in image_field):
            images = tuple(_resolve(p, root) for p in image_field)
            # A single string may be a 4D multi-channel file (MSD BrainTumour), so only lists are counted.
            if len(images) != num_channels:
                raise DataError(
                    f"{where} lists {len(images)} image file(s) but dataset.json declares "
                    f"{num_channels} channel(s); give one file per channel"
                )
        else:
            raise DataError(f'{where}: "image" must be a path or a list of paths, got {image_field!r}')
        label = _resolve(str(entry["label"]), root)

        # The label is named after the case; multi-channel image files often carry a channel suffix.
        cases.append(Case(id=_stem(label), images=images, label=label))
    return cases


def _resolve(relative: str, root: Path) -> Path:
    """Make a dataset.json path absolute; MSD writes them as "./imagesTr/x.nii.gz"."""
    while relative.startswith("./"):
        relative = relative[2:]
    return root / relative  # an absolute path in the JSON stays as it is


def _stem(path: Path) -> str:
    """File name without .nii / .nii.gz (Path.stem would leave ".nii" behind)."""
    name = path.name
    for suffix in _NIFTI_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _seeded_split(cases: list[Case], validation_fraction: float, seed: int) -> tuple[list[Case], list[Case]]:
    """Hold out a deterministic random subset; both halves keep the JSON order."""
    count = len(cases)
    num_validation = round(validation_fraction * count)
    if validation_fraction > 0 and count >= 2:
        num_validation = min(max(num_validation, 1), count - 1)  # never leave training empty
    held_out = set(np.random.default_rng(seed).permutation(count)[:num_validation].tolist())
    training = [case for index, case in enumerate(cases) if index not in held_out]
    validation = [case for index, case in enumerate(cases) if index in held_out]
    return training, validation


def _reject_duplicate_ids(cases: list[Case], json_path: Path) -> None:
    """A case listed twice would be over-weighted, or leak from training into validation."""
    counts = Counter(case.id for case in cases)
    duplicates = sorted(case_id for case_id, count in counts.items() if count > 1)
    if duplicates:
        raise DataError(
            f"{json_path}: case(s) listed more than once across 'training'/'validation': "
            f"{duplicates[:5]}; remove the duplicates"
        )
