"""A manifest's parts as the checks' messages name them: the JSON that declares its labels and channels, where
the user of its source format declares label values, and the cases checked, as the estimator's user gave them.
"""

from __future__ import annotations

from collections.abc import Sequence

from accelerated_seg.data.cases import Case, Manifest

# Where each source format lets the user declare its label values, for the undeclared-value message; an MSD's
# and an nnU-Net's JSON, by its name (labels_declared_in).
_LABELS_DECLARED_IN = {
    "datalist": "data.labels (check: --labels; load_cases: labels=), as the datalist declares none",
    "csv": "data.labels (check: --labels; load_csv: labels=; a CSV declares none: the default is "
           "0 = background, 1 = foreground)",
    "pairs": "the labels argument (the default is 0 = background, 1 = foreground)",
    "load_cases": "the labels argument (the default is 0 = background, 1 = foreground)",
    # the estimator's pairs: from_files takes the classes as a count, not as a labels argument
    "from_files": "Dataset.from_files' n_classes (the classes are the values 0..n_classes-1), or its label_values "
                  "(the label files' own values of the classes, e.g. [0, 1, 2, 4])",
}


def json_name(manifest: Manifest) -> str:
    """The name of the JSON that declares the manifest's labels and channels (a MONAI datalist.json, an nnU-Net
    Dataset001.json), which the checks' messages give: "dataset.json" of every file until the ninety-first
    session, and still of a manifest that records no file (built in Python)."""
    return manifest.source_file.name if manifest.source_file is not None else "dataset.json"


def channels_declared_in(manifest: Manifest) -> str:
    """What declares the manifest's channels: its JSON, by its name; ``Dataset.from_files``' channel_names where
    they alone can, several channels of one file a case (several files declare as many, whatever names they are
    given: fit's names taken from a model are none of the user's); a CSV's columns and the pairs' files, one channel
    each, are "the dataset". A from_files case of 3 volumes for 2 channel_names was told "channel_names declares 2
    channels" as the first case and "the dataset declares 2 channels" as a later one until the review of h112."""
    if manifest.source_format in ("msd", "datalist", "nnunet"):
        return json_name(manifest)
    first = next(iter([*manifest.training, *manifest.validation]), None)
    if manifest.source_format == "from_files" and manifest.num_channels > 1 and first is not None \
            and len(first.images) == 1:
        return "channel_names"
    return "the dataset"


def labels_declared_in(manifest: Manifest) -> str:
    """Where the user of the manifest's source format declares its label values, for the undeclared-value
    message: an MSD's or an nnU-Net's JSON by its name, else as ``_LABELS_DECLARED_IN`` says."""
    if manifest.source_format in ("msd", "nnunet"):
        return f"{json_name(manifest)} 'labels'"
    return _LABELS_DECLARED_IN.get(manifest.source_format, "the dataset's labels")


def pairs_checked(manifest: Manifest, cases: Sequence[Case]) -> str | None:
    """The cases checked, named as the estimator's user gave them (``Dataset.from_files``' pairs, or its
    validation_pairs, which evaluate checks alone); None for a dataset read from a folder or a file. Their
    errors were "in the dataset <the files' common parent folder>", a folder never named, until the
    ninety-third session; each error line names the case's file as it was given."""
    if manifest.source_format != "from_files":
        return None
    # the split the user gave (from_pairs), told by SplitOrigin: its words were matched until the 93rd session
    listed = manifest.split_origin.by == "validation_pairs"
    if not {case.id for case in cases} <= {case.id for case in manifest.validation}:
        return f"the pairs{' and validation_pairs' if listed else ''} given to Dataset.from_files"
    validation = "validation_pairs" if listed else "validation cases held out of the pairs"
    return f"the {validation} given to Dataset.from_files"
