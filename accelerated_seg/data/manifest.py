"""Which cases exist: read a dataset description into a Manifest.

Four ways in, one result. :func:`load_cases` picks the reader from the path:

- a Medical Segmentation Decathlon ``dataset.json`` (:func:`load_msd`),
- an nnU-Net v2 raw dataset folder (:func:`load_nnunet`),
- a CSV of image/label paths (:func:`load_csv`),
- a Python list of (image path(s), label path) pairs (:func:`from_pairs`).

Only the description (JSON, CSV, folder listing) is read here; whether the files it names are
usable is the job of :mod:`accelerated_seg.data.checks`, so loading a manifest stays fast and can
be done on every process of a distributed run. The exception is a missing nnU-Net channel file:
nnU-Net names its files by convention, so a missing one is found while listing the folder.

Label values on disk need not be 0..C-1 (BraTS stores 0, 1, 2, 4): the Manifest records the
declared raw values and :attr:`Manifest.label_map` says how to turn them into class indices.

This module is the dispatch; the pieces live in modules of one idea each and every public name is
importable from here too: :mod:`~accelerated_seg.data.cases` (Case, Manifest), the readers in
:mod:`~accelerated_seg.data.formats`, :mod:`~accelerated_seg.data.labels` (label declarations) and
:mod:`~accelerated_seg.data.splits` (training/validation splits).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerated_seg.data.cases import Case, Manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.csv_table import load_csv
from accelerated_seg.data.formats.dataset_json import MOUNT_IT, dangling_link, read_json
from accelerated_seg.data.formats.msd import labels_declared_twice, load_msd
from accelerated_seg.data.formats.nnunet import load_nnunet
from accelerated_seg.data.formats.pairs import from_pairs
from accelerated_seg.data.formats.paths import PathLike, nifti_stem
from accelerated_seg.data.labels import LabelsArgument, named_by_regions, parse_labels
from accelerated_seg.data.splits import KEYWORD_NAMES, SplitSettings
from accelerated_seg.model_folders import Names
from accelerated_seg.regions import Regions

if TYPE_CHECKING:
    from accelerated_seg.config import DataConfig

__all__ = [
    "Case", "LabelsArgument", "Manifest", "PathLike", "SplitSettings", "from_pairs", "load_cases", "load_csv",
    "dataset_source", "load_msd", "load_nnunet", "parse_labels",
]

_ACCEPTED_SOURCES = (
    "an MSD dataset.json (or the folder holding it), an nnU-Net v2 raw dataset folder "
    "(dataset.json with channel_names, imagesTr/, labelsTr/), a .csv with 'image' and 'label' columns, "
    "or a list of (image, label) path pairs"
)


def _describe_it(folder: Path) -> str:
    """What to write for a folder of images and labels that nothing describes: a CSV of its own files,
    shown with its first case (the usual way to arrive here: the files collected, no dataset.json);
    or the CSV already there (given the folder, a new user's probe was told to write one); or, for a
    folder of a dataset that a dataset.json above it describes (its imagesTr/), that dataset's folder."""
    # imagesTr/ or labelsTr/ given for the dataset (a user-journey probe): the list of accepted forms alone did not
    # say that the folder above is the one to give. Its dataset.json a link to nothing too, told there once given
    # (here "expected an MSD dataset.json ..." until the hundred-and-twenty-fourth session)
    if os.path.lexists(folder.parent / "dataset.json") and not (folder / "imagesTr").is_dir():
        return (f"it lies in {folder.parent}, whose dataset.json describes the dataset: give that folder (or its "
                f"dataset.json) as data.dataset, not one of its parts")
    # hidden files left out: the Decathlon's "._<case>.nii.gz" (macOS resource forks) were counted and shown
    # a link to nothing too (not p.exists() of a name listed), left out until the hundred-and-twenty-fourth session
    tables = sorted(p.name for p in folder.glob("*") if p.suffix.lower() == ".csv" and (p.is_file() or not p.exists())
                    and not p.name.startswith("."))
    if tables:
        return f"{_its_tables(folder, tables)}, or write an MSD or nnU-Net v2 dataset.json there (docs/data.md)"
    images, labels = (sorted(p for p in (folder / sub).glob("*") if nifti_stem(p) is not None
                             and not p.name.startswith(".")) for sub in ("imagesTr", "labelsTr"))
    if not images or not labels:
        return f"expected {_ACCEPTED_SOURCES}"
    label = labels[0]
    case = nifti_stem(label)
    # its image, or its channels in nnU-Net's naming (<case>_0000, ...), not another case's (<case>_b)
    channels = sorted(p for p in images if re.fullmatch(rf"{re.escape(case)}(_\d{{4}})?", nifti_stem(p)))
    columns = "image,label" if len(channels) <= 1 else ",".join(f"image_{k}" for k in range(len(channels))) + ",label"
    row = ",".join(p.relative_to(folder).as_posix() for p in [*(channels or images[:1]), label])
    return (f"its imagesTr/ ({len(images)} NIfTI files) and labelsTr/ ({len(labels)}) can be listed in a CSV "
            f"there, given in its place (data.dataset): the header {columns} and one line per case, such as {row} "
            f"(paths relative to the CSV); its labels are binary unless data.labels declares them ({{0: background, "
            f"1: ..., 2: ...}}). Or write an MSD or nnU-Net v2 dataset.json into {folder} (docs/data.md)")


def _its_tables(folder: Path, tables: list[str]) -> str:
    """Which of a folder's CSV files to give as ``data.dataset``: the one, or, of several, the one that lists
    the cases, each named. Nothing here knows which that is: several were told to give the first by name
    (a notes.csv before cases.csv), until the ninety-second session."""
    if len(tables) == 1:
        if link := dangling_link(folder / tables[0], "mount or make what it names, and give the CSV itself as "
                                                     "data.dataset"):
            return link
        return f"it holds {tables[0]}: give the CSV itself as data.dataset ({folder / tables[0]})"
    tables = [f"{name} (a link to nothing)" if dangling_link(folder / name, "") else name for name in tables]
    shown = tables[:_TABLES_SHOWN] + ([f"and {len(tables) - _TABLES_SHOWN} more"] if len(tables) > _TABLES_SHOWN else [])
    return (f"it holds {len(tables)} CSV files ({', '.join(shown)}): name the one that lists the cases, with its "
            f"image and label columns, as data.dataset ({folder}/<name>.csv)")


#: How many of a folder's CSV files a message names.
_TABLES_SHOWN = 10


def dataset_source(data, output_dir: str | Path) -> Path:
    """Where ``data.dataset`` (a DataConfig's) is described: the embedded phantoms' dataset.json in the
    run's ``output_dir`` for ``synthetic``, else the path given. Here, not in prepare.py, so that
    ``accelerated-seg check --config`` finds it without importing torch and MONAI."""
    if data.dataset == "synthetic":
        return Path(output_dir) / "synthetic_data" / "dataset.json"
    return Path(data.dataset)


def refuse_a_missing_dataset(data, config_file: str | Path | None = None) -> None:
    """Raise the reader's own "not found" for a ``data.dataset`` (a DataConfig's) that is not there, with
    where a relative path is read from and what the experiment's comments say of its folder. Before,
    ``configs/kits19_mlperf.yaml`` without KiTS19 here said "data/kits19/cases.csv: CSV not found; check
    the data path", and nothing of the download and the CSV recipe that its header gives (an audit of
    the shipped configs). Reads no file but the config; imports neither torch nor MONAI.
    """
    if data.dataset == "synthetic" or Path(data.dataset).expanduser().exists():
        return
    try:
        load_cases(data.dataset)
    except DataError as error:
        found = str(error)
    else:  # there after all (written meanwhile): the run reads it
        return
    where = "" if Path(data.dataset).expanduser().is_absolute() or "working folder" in found else (
        f", read from the working folder {Path.cwd()}")
    raise DataError(f"{found} (data.dataset{where}){_beside_the_config(config_file, data.dataset)}"
                    f"{_what_the_config_says_of(config_file, data.dataset)}")


def _beside_the_config(config_file: str | Path | None, dataset: str) -> str:
    """Where a relative ``dataset`` that the working folder lacks is there from ``config_file``'s folder, that path
    and the two ways to read it: a new user's ``train --config project/exp.yaml`` run from another folder was told
    "check the data path" alone, the CSV beside the config unnamed (hundredth session's walk through the docs)."""
    if config_file is None or Path(dataset).expanduser().is_absolute():
        return ""
    # resolved, so that `--config ../project/exp.yaml` names /home/me/project, not /home/me/elsewhere/../project
    # (hundredth session's review); the config file itself, where it is a link, is not followed
    folder = Path(config_file).expanduser().absolute().parent.resolve()
    beside = folder / dataset
    if folder == Path.cwd().resolve() or not beside.exists():
        return ""
    return (f"; {beside} is there, beside the config file: run from {folder}, or give data.dataset as that "
            f"absolute path (a relative one is read from the working folder, not the config file's)")


def refuse_a_fold_without_folds(data, output_dir: str | Path) -> None:
    """Refuse a ``data.fold`` (a DataConfig's) without ``data.num_folds`` where the dataset gives no folds
    of its own to pick from (its dataset.json's 'fold' keys, a splits_final.json), as its reading does,
    for a run to check before torch and MONAI are imported: it was refused only after them (8-14 s per
    rank; ninety-second session's audit). The embedded phantoms, written or not, give none: their
    'validation' list, or none with ``data.synthetic.num_validation`` 0. Imports neither torch nor MONAI.
    """
    if data.fold == 0 or data.num_folds > 1:
        return
    source = dataset_source(data, output_dir)
    if data.dataset != "synthetic" or source.is_file():
        load_cases(source, validation_fraction=data.validation_fraction, num_folds=data.num_folds, fold=data.fold,
                   seed=data.split_seed, names=Names())  # splits the cases as training will, refusing what it would
        return
    settings = SplitSettings(data.validation_fraction, data.num_folds, data.fold, data.split_seed)
    if data.synthetic.num_validation:  # the phantoms' dataset.json will list them, as msd.load_msd reads it
        settings.given(f"{source.name} 'validation'")
    else:
        settings.split([])  # no list: the fraction split, which refuses the fold before it looks at a case


def _what_the_config_says_of(config_file: str | Path | None, dataset: str) -> str:
    """The comment paragraphs of ``config_file`` that name the dataset's path or folder, as one line."""
    if config_file is None:
        return ""
    try:
        lines = Path(config_file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    folder = Path(dataset).parent.as_posix()
    names = [dataset, *([folder] if "/" in folder else [])]  # "data" alone would match any comment's "data"
    paragraphs, start = [], None
    for number, line in enumerate([*lines, ""], 1):
        if line.lstrip().startswith("#") and line.strip().lstrip("#").strip():
            start = number if start is None else start
        elif start is not None:
            paragraphs.append(range(start, number))
            start = None
    said = [lines_of for lines_of in paragraphs if any(name in lines[i - 1] for i in lines_of for name in names)]
    if not said:
        return ""
    text = " ".join(lines[i - 1].strip().lstrip("#").strip() for lines_of in said for i in lines_of)
    where = ", ".join(f"line {r[0]}" if len(r) == 1 else f"lines {r[0]}-{r[-1]}" for r in said)
    return f"; {config_file} says what to get ({where}): {text}"


def load_cases(
    source: PathLike | Sequence[Any],
    *,
    validation_fraction: float = 0.2, num_folds: int = 0, fold: int = 0, seed: int = 0, binarize: bool = False,
    labels: LabelsArgument = None, names: Names = KEYWORD_NAMES,
) -> Manifest:
    """Read any supported dataset description; the one call the training code makes.

    Dispatch: a list/tuple is (image, label) pairs; a ``.csv`` file is a CSV; a ``.json`` file
    or a folder with ``dataset.json`` is nnU-Net v2 when the JSON has ``channel_names`` or
    ``file_ending`` and no ``training`` list, and MSD otherwise.

    Args:
        source: Path of a dataset.json, a dataset folder or a CSV, or a list of pairs.
        validation_fraction: Share held out when the source gives no split and ``num_folds`` < 2.
        num_folds: More than 1 splits the cases into that many seeded folds (``data.num_folds``).
        fold: The fold validated on, 0-based (``data.fold``); for nnU-Net with a
            ``splits_final.json`` it picks the entry of that file, for a JSON whose training entries
            carry ``"fold"`` keys the entries of that fold.
        seed: Seed of the shuffle behind fraction and fold splits (``data.split_seed``).
        binarize: Merge every non-background label value into one "foreground" class.
        labels: Label declaration for CSV and pairs, which have no place for one
            (see :func:`load_csv`), and for a MONAI datalist JSON that declares none;
            dataset.json-based sources declare their own.
        names: How the messages and ``Manifest.split`` name the split settings: as this function's keywords
            (``num_folds=5 but there are only 4 case(s)``), or the config's (``data.num_folds``) where
            :func:`load_manifest` reads the config's dataset. A call from Python was told of the config's
            ``data.num_folds`` and ``data.split_seed`` until the ninety-fourth session.

    Returns:
        The Manifest, with all file paths absolute.

    Raises:
        DataError: The source is not one of the accepted formats, or is malformed.
    """
    split = dict(validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed, names=names)
    if isinstance(source, (list, tuple)):
        # named as called: "from_pairs: pairs[1] ..." named a function and an argument never given; made by
        # load_cases (source_format), so that train's advice names its keywords, not from_pairs' validation_pairs
        pairs = from_pairs(source, labels, binarize=binarize, where="load_cases", pairs_name="source", **split)
        return dataclasses.replace(pairs, source_format="load_cases")

    path = Path(source).expanduser().absolute()
    if path.suffix.lower() == ".csv":
        return load_csv(path, labels=labels, binarize=binarize, **split)

    json_path = path / "dataset.json" if path.is_dir() else path
    # a link to nothing (storage not mounted, a dataset moved), the dataset's folder or its dataset.json there, said
    # as one given as the file is: "not found" and "folder without dataset.json" until the hundred-and-twenty-fourth
    # session
    if link := dangling_link(json_path, MOUNT_IT):
        raise DataError(link)
    # a folder by that name (a copy that made one, or a link to one): "folder without dataset.json" and the CSV to
    # write in its place until review r113, where the dataset has one, a folder
    if path.is_dir() and json_path.is_dir():
        linked = f" (a symbolic link to {os.readlink(json_path)})" if json_path.is_symlink() else ""
        raise DataError(f"{json_path} is a folder{linked}, not the dataset's JSON file: put the dataset's dataset.json "
                        f"in its place (copy it again from the dataset's download), or give the dataset's own path")
    if path.is_dir() and not json_path.is_file():
        raise DataError(f"{path}: folder without dataset.json; {_describe_it(path)}")
    if json_path.suffix.lower() != ".json":
        what = "not found" if not path.exists() else "not a dataset description"
        raise DataError(f"{path}: {what}; expected {_ACCEPTED_SOURCES}")
    if _is_nnunet(read_json(json_path)):
        if labels is not None:
            raise labels_declared_twice(json_path)  # an nnU-Net JSON's, named as an MSD's is
        return load_nnunet(json_path, binarize=binarize, **split)
    # an MSD dataset.json declares its labels; a MONAI datalist may not, and then takes data.labels
    return load_msd(json_path, binarize=binarize, labels=labels, **split)


def _is_nnunet(content: dict[str, Any]) -> bool:
    """nnU-Net v2 lists no files (they follow a naming convention); an explicit list means MSD."""
    return ("channel_names" in content or "file_ending" in content) and "training" not in content


def load_manifest(cfg: DataConfig, output_dir: str | Path, source: str | Path | None = None) -> Manifest:
    """The cases of ``data.dataset`` (or of ``source``), split as the data settings say, and said to be
    (``SplitOrigin.by_the_config``): the way to validation cases is those settings' (``ways_to_validation_cases``).
    data.labels beside the embedded phantoms is refused in their words (``refuse_labels_beside_the_phantoms``), written
    or not: once a run had written them, ``check --config`` and ``cache --config`` said any dataset.json's refusal,
    "edit 'labels' in dataset.json", a file the run rewrites, until the review r131."""
    phantoms = dataset_source(cfg, output_dir)
    source = source if source is not None else phantoms
    if cfg.dataset == "synthetic" and Path(source) == phantoms:  # not check's DATASET given beside --labels
        from .synthetic import refuse_labels_beside_the_phantoms

        refuse_labels_beside_the_phantoms(cfg.labels, phantoms.parent)
    manifest = load_cases(source,
                          validation_fraction=cfg.validation_fraction, num_folds=cfg.num_folds, fold=cfg.fold,
                          seed=cfg.split_seed, binarize=cfg.binarize, labels=cfg.labels, names=Names())
    return dataclasses.replace(manifest, split_origin=dataclasses.replace(manifest.split_origin, by_the_config=True))


def with_regions(cfg: DataConfig, manifest: Manifest) -> Manifest:
    """``data.regions`` applied over the dataset's own declaration (nnU-Net's dataset.json), if set.

    Raises:
        DataError: a region names a value the dataset does not declare (``Regions.declared``).
    """
    if cfg.regions is None:
        return manifest
    regions = Regions.declared(cfg.regions, manifest.label_values, "data.regions", cfg.region_order,
                               manifest.ignore_value)
    # the values the dataset's own regions named are named after these (check's classes, the export's "labels")
    labels = named_by_regions(manifest.labels, manifest.label_values, regions, replacing=manifest.regions)
    return dataclasses.replace(manifest, regions=regions, labels=labels)
