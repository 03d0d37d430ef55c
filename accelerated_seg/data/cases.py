"""What a dataset description becomes: :class:`Case` (one subject's files) and :class:`Manifest`.

Kept apart from the readers in :mod:`accelerated_seg.data.formats` so that they, the pre-flight
checks and the training code can all use these types without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerated_seg.model_folders import Names
    from accelerated_seg.regions import Regions


@dataclass(frozen=True)
class Case:
    """One subject: its image file(s) and, when labelled, its label map.

    Args:
        id: Case name, unique in the dataset, usable as a file name (e.g. ``"case_000"``).
        images: One absolute path per input channel.
        label: Absolute path of the label map, or ``None`` for unlabelled/test cases.
    """

    id: str
    images: tuple[Path, ...]
    label: Path | None


@dataclass(frozen=True)
class SplitOrigin:
    """How :attr:`Manifest.split` was made, for the code to decide by; ``Manifest.split`` says it in words,
    for messages and split.json. Until the ninety-third session that text was matched instead
    (``split.startswith("given")``), so that rewording a description silently changed what ran.

    Args:
        by: ``"dataset"`` (the source's own list or column), ``"validation_pairs"``, ``"fold_keys"`` (the
            source's own folds: 'fold' keys, splits_final.json), ``"fraction"`` or ``"folds"`` (data.num_folds).
        folds: How many folds the held-out fold is one of (``"fold_keys"``, ``"folds"``), else 0.
        unused_settings: The split settings the source's own split left without effect, by name, in the
            order the words say them: ``"num_folds"``, ``"validation_fraction"``, ``"split_seed"``.
        unused_own: The source's other split, which the one taken left unused: ``"fold_keys"`` (beside a
            list or validation_pairs), ``"dataset"`` (a datalist's 'validation' list beside its 'fold' keys),
            ``"validation_pairs"`` (beside the pairs' 'fold' keys), or ``""``.
        unused_folds: How many folds the unused 'fold' keys make (``unused_own="fold_keys"``), else 0.
        by_the_config: Whether the config's data settings read the dataset and split it (``load_manifest``:
            train without a manifest, check, plan, cache), and so split it again at the next reading; a Manifest
            given to train (``load_cases``, ``from_pairs``, ``Dataset.from_files``, one built by hand) is taken
            as it is, whatever ``data.validation_fraction`` says. What makes the advice of
            ``splits.ways_to_validation_cases`` true since the ninety-fourth session: a given one was sent to
            those settings.
        names: How the split's words name the split settings (``SplitSettings.names``: the config's
            ``data.num_folds``, or its reader's keywords), so that its warning says them as ``split`` does: a
            ``load_cases(..., names=Names())`` called from Python, not by the config, was warned in load_cases'
            keywords of ``data.split_seed=7 not used`` until the ninety-fifth session. None for an origin made by
            hand, whose words are its maker's keywords. Not compared: it is how the split is said, not what it is.
    """

    by: str = "dataset"
    folds: int = 0
    unused_settings: tuple[str, ...] = ()
    unused_own: str = ""
    unused_folds: int = 0
    by_the_config: bool = False
    names: Names | None = field(default=None, compare=False)

    @property
    def given(self) -> bool:
        """Whether the source prescribed the split, so that the split settings chose nothing."""
        return self.by not in ("fraction", "folds")


class SplitDescription(str):
    """``Manifest.split``'s words together with the :class:`SplitOrigin` they describe, as the split functions
    return them: a ``str`` still, so that every caller that says it or records it is unchanged."""

    origin: SplitOrigin

    def __new__(cls, text: str, origin: SplitOrigin) -> "SplitDescription":
        described = super().__new__(cls, text)
        described.origin = origin
        return described


# The name of a channel nothing names, alone or before its index: image, or image_0, image_1, ...
UNNAMED_CHANNEL = "image"


def unnamed_channels(count: int) -> dict[int, str]:
    """The names of ``count`` channels that nothing names: ``image``, or ``image_0``, ``image_1``, ... for several, as
    a CSV's image columns are named. Every path names them so: a Dataset given no ``channel_names`` (recorded so in
    its export), evaluate's cases of a model whose config.json names none (``estimator_predict_checks``), fit's
    advice to name them (``estimator_fine_tuning``) and predict's order of that model's channels
    (``inference_inputs.channel_order``). Predict said "channel 0, channel 1" of such a model where evaluate's manifest
    named them image_0, image_1, until the hundred-and-twenty-first session (helper h112); messages say them so again,
    by index alone, from one rule since the hundred-and-twenty-third (``channel_said``: no user gave these names),
    predict and evaluate alike. Not renamed "channel_0": an earlier export's or checkpoint's
    recorded image_0 would then differ from a new Dataset's names, which resume and init_from compare, taking
    these names alone for no name (``is_unnamed_channel``)."""
    if count == 1:
        return {0: UNNAMED_CHANNEL}
    return {index: f"{UNNAMED_CHANNEL}_{index}" for index in range(count)}


def unnamed_channel_index(name: str) -> int | None:
    """The index of ``image_<index>``, a name ``unnamed_channels`` gives, or None (``image`` alone, a user's name):
    the one reading of those names, which ``is_unnamed_channel`` and a CSV's image columns (``formats.csv_table``)
    share. ASCII digits alone, leading zeros read past (``image_01``, a CSV's column, is channel 1): the CSV spelled
    the pattern again, ``image_(\\d+)``, until the hundred-and-twenty-third session (helper h125), so that a column of
    another script's digit (``image_`` and the Arabic-Indic one, U+0661) was its channel 1 while ``is_unnamed_channel``
    took that name for a user's."""
    index = name.removeprefix(f"{UNNAMED_CHANNEL}_")
    return int(index) if index != name and index.isascii() and index.isdigit() else None


def is_unnamed_channel(name: str) -> bool:
    """Whether ``name`` is one ``unnamed_channels`` gives, ``image`` or ``image_<index>``: no name of the user's, which
    resume and init_from do not compare with a recorded one (``resume_network_and_data.channel_name_differences``)
    and messages do not say (``channel_said``). Resume spelled that pattern with a regular expression of its own,
    ``image(_\\d+)?``, until the hundred-and-twenty-second session (helper h119): renamed here, the names made and
    the names recognised would have parted without a word."""
    return name == UNNAMED_CHANNEL or unnamed_channel_index(name) is not None


def names_nothing(name: str) -> bool:
    """Whether a channel's ``name`` says nothing of it in a message: one a Dataset gives (``is_unnamed_channel``), or
    blank, a dataset.json's ``"0": ""`` or ``" "`` or a config.json written by hand so, which ``channel_said`` said
    ``channel 0 ()`` and the grids' refusals ``image channel 0 ( )`` until review r108 of the hundred-and-twenty-third
    session (``grid_agreement.channel_volume`` dropped ``""`` alone). Not ``is_unnamed_channel``'s own test: resume
    compares a blank name recorded with a name given (``channel_name_differences``)."""
    return not name.strip() or is_unnamed_channel(name)


def channels_compared(model: dict[int, str], given: dict[int, str], data: str) -> tuple[list[str], list[str]]:
    """A model's channels (``model``: index -> name, config.json's) against the names ``data`` (the Dataset) gives its
    own (``given``), case and surrounding spaces aside as resume compares them, a name that says nothing
    (``names_nothing``) compared with nothing: ("MRI1, the model's channel 1, given as channel 0" for each name given
    that the model gives another channel: the files would be fed in another order than the model takes; "channel 0: T1
    in the data, MRI0 in the model's config.json" for each channel both name otherwise). Evaluate's and predict's
    (helper h127 of the hundred-and-twenty-third session). A name either side gives several channels says nothing of
    which is which, so no order: nnU-Net's dataset.json names each channel of a two-phase CT ``CT`` (its
    normalization's name, as ``normalization: auto`` reads it), and predict refused that dataset's own imagesTs/ to
    the model trained on it ("CT, the model's channel 1, given as channel 0") until review r112."""
    def compared(name: str) -> str | None:
        return None if names_nothing(name) else name.strip().casefold()

    def alone(names: dict[int, str]) -> dict[str, int]:  # a name compared -> the one channel it names
        indices: dict[str, list[int]] = {}
        for index, name in names.items():
            if (said := compared(name)) is not None:
                indices.setdefault(said, []).append(index)
        return {said: found[0] for said, found in indices.items() if len(found) == 1}

    index_of, given_alone = alone(model), alone(given)
    moved = [f"{name}, the model's channel {index_of[compared(name)]}, given as channel {index}"
             for index, name in given.items()
             if compared(name) in given_alone and index_of.get(compared(name), index) != index]
    renamed = [f"channel {index}: {name} in the {data}, {model[index]} in the model's config.json"
               for index, name in given.items() if index in model
               and None not in (compared(name), compared(model[index])) and compared(name) != compared(model[index])]
    return moved, renamed


def channel_said(index: int, name: str) -> str:
    """A channel as every message names it, by its index and its name: "channel 1 (FLAIR)" (``channel_order``'s
    words; a model's lone channel is said by its name alone, "one channel (MRI0)": ``one_channel_said``); by its
    index alone, "channel 1", where nothing names it (``names_nothing``): ``image_1`` is the Dataset's name for
    it, no user's, said "channel 1 (image_1)" until the hundred-and-twenty-third session (helper h125)."""
    return f"channel {index}" if names_nothing(name) else f"channel {index} ({name})"


def one_channel_said(name: str) -> str:
    """A model's or dataset's lone channel, for a message: "one channel (MRI0)", or "one channel" where nothing names
    it (``names_nothing``: "one channel (image)" named it by the Dataset's name for it, from the
    hundred-and-twenty-second session to the hundred-and-twenty-third, helper h125). Its index says nothing where
    there is one: predict said "one channel (channel 0 (MRI0))", brackets in brackets, until the
    hundred-and-twenty-second session (helper h119), and evaluate and the reading of a 4D file "one channel", unnamed
    whatever its name."""
    return "one channel" if names_nothing(name) else f"one channel ({name})"


def channel_names_fit(channels, in_channels) -> bool:
    """Whether an export's config.json ``channels`` is what training writes for ``in_channels`` channels: each key a
    channel's index (``"0"``, ``"1"``, below ``in_channels``), each value a name. Predict groups a case's files by
    them before any model loads (``inference_inputs.channels_config``) and the export's checks refuse others
    (``exported_model.export_value_errors``): a list or a string of names was an AttributeError there, a key that is no
    index an ``int()`` error said as if of the input, until the hundred-and-twenty-first session."""
    return isinstance(channels, dict) and isinstance(in_channels, int) and not isinstance(in_channels, bool) and all(
        isinstance(key, str) and key.isdigit() and int(key) < in_channels and isinstance(name, str)
        for key, name in channels.items())


# Manifest.split's default: the lists as given, whose origin, "dataset", the default stands for without harm.
_GIVEN_AS_IS = "given"


@dataclass
class Manifest:
    """Everything a training run needs to know about a dataset before opening any volume.

    Args:
        root: Dataset folder (holding dataset.json or the CSV); quoted in messages.
        labels: Class index -> name, contiguous from 0 (0 is background), after any
            remapping or binarising: these are the network's output classes.
        channels: Channel index -> name (e.g. modality); ``{0: "image"}`` when the source names none.
        training: Cases to train on.
        validation: Held-out cases to validate on (disjoint from ``training``).
        label_values: The raw label values the dataset declares, ascending, background (0)
            first. Without binarising, class ``k`` is stored on disk as ``label_values[k]``.
            Defaults to ``0..C-1``.
        binarized: Every non-zero value, declared or not, is merged into class 1 ("foreground").
        split: How ``validation`` was chosen, e.g. ``"given (dataset.json 'validation')"``,
            ``"fold 2 of 5 (seed 0)"`` or ``"fraction 0.2 (seed 0)"``; record it with the run.
        source_format: Which reader produced this: ``"msd"``, ``"nnunet"``, ``"csv"`` or ``"pairs"``
            (``"datalist"``: a JSON without labels, which ``data.labels`` gave); of pairs, what the user called:
            ``"pairs"`` (from_pairs), ``"load_cases"`` (``load_cases(pairs)``, ``"pairs"`` until the hundredth
            session) or ``"from_files"`` (``Dataset.from_files``), whose keywords its advice names.
        regions: Region-based training (:mod:`accelerated_seg.regions`): the regions, in raw label
            values, that the network outputs instead of the classes; ``None`` for the classes.
        ignore_value: The raw value of unannotated voxels (nnU-Net's "ignore" label, sparse
            annotation), or ``None``. No class: preprocessing stores it as class index
            ``ignore_index`` (= ``num_classes``), which the loss and the metrics leave out.
        source_file: The file that lists the cases (the dataset's JSON, whatever its name, or the CSV), or
            ``None`` (pairs): the pre-flight checks name a datalist.json by its name, not as "dataset.json".
        split_origin: How ``split`` was made (:class:`SplitOrigin`), which the code decides by; taken from
            ``split`` where that is a :class:`SplitDescription` (what the split functions return). Built by hand,
            a Manifest whose ``split`` says more than the default ``"given"`` (the lists as given) must give it:
            until the ninety-fourth session it defaulted to "given by the dataset" whatever the words said, so that
            ``split="fold 1 of 5 (seed 0)"`` took its spacing from its training cases alone, unlike the fold read
            from the dataset, and its warnings and advice were a dataset's own split's, without a word.
        file_ending: The ending an nnU-Net dataset.json declares for its files (``".nii"``), which the export
            records for predict to name the label maps with; ``None`` where the source declares none.
    """

    root: Path
    labels: dict[int, str]
    channels: dict[int, str]
    training: list[Case]
    validation: list[Case]
    label_values: list[int] = field(default_factory=list)
    binarized: bool = False
    split: str = _GIVEN_AS_IS
    source_format: str = "msd"
    regions: Regions | None = None
    ignore_value: int | None = None
    source_file: Path | None = None
    split_origin: SplitOrigin | None = None
    file_ending: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.split, SplitDescription):  # the words alone are kept: split.json records a plain str
            self.split_origin, self.split = self.split.origin, str(self.split)
        elif self.split_origin is None:
            if self.split != _GIVEN_AS_IS:
                raise ValueError(
                    f"Manifest: split={self.split!r} says how the cases were split in words alone; give "
                    f"split_origin=SplitOrigin(...) too (the warnings, the advice and the median spacing follow it, "
                    f"not the words), e.g. SplitOrigin('folds', 5) for fold k of data.num_folds=5, "
                    f"SplitOrigin('fraction') for a held-out fraction, or leave split out for lists given as they are")
            self.split_origin = SplitOrigin()  # the training and validation lists as their caller gave them
        if not self.label_values:
            self.label_values = list(range(len(self.labels)))
        if not self.binarized and len(self.label_values) != len(self.labels):
            raise ValueError(
                f"Manifest: {len(self.label_values)} label_values {self.label_values} for "
                f"{len(self.labels)} classes; give one raw value per class, or set binarized=True"
            )

    def split_record(self) -> dict:
        """How the cases were split and which went where, by id and by label file: what a run and its
        checkpoints record (a resume compares both: an id named after its folders changes when cases
        from another folder join)."""
        return {"how": self.split, "training": [case.id for case in self.training],
                "validation": [case.id for case in self.validation],
                "labels": {side: [str(case.label) for case in cases]
                           for side, cases in (("training", self.training), ("validation", self.validation))}}

    def files(self) -> list[Path]:
        """Every image and label file of the training and validation cases."""
        return [path for case in self.training + self.validation for path in (*case.images, case.label)
                if path is not None]

    @property
    def num_classes(self) -> int:
        """Number of output classes, background included (after remapping/binarising)."""
        return len(self.labels)

    @property
    def num_outputs(self) -> int:
        """The network's output channels: one per region, or one per class."""
        return self.regions.count if self.regions is not None else self.num_classes

    @property
    def class_regions(self) -> Regions | None:
        """The regions over class indices, which the preprocessed labels hold (None without regions)."""
        if self.regions is None:
            return None
        return self.regions.in_classes({value: index for index, value in enumerate(self.label_values)})

    @property
    def ignore_index(self) -> int | None:
        """The class index the preprocessed labels give unannotated voxels: one past the classes."""
        return None if self.ignore_value is None else self.num_classes

    @property
    def num_channels(self) -> int:
        """Number of input channels the network sees."""
        return len(self.channels)

    @property
    def label_map(self) -> dict[int, int] | None:
        """Raw label value -> class index, or ``None`` when the files already hold class indices.

        Apply it to every label before training (e.g. MONAI ``MapLabelValued``); values absent
        from it are left unchanged by MONAI, which is why the pre-flight checks reject them.
        """
        if self.binarized:
            mapping = {value: int(value != 0) for value in self.label_values}
        else:
            mapping = {value: index for index, value in enumerate(self.label_values)}
        if self.ignore_value is not None:
            mapping[self.ignore_value] = self.ignore_index
        return None if all(value == index for value, index in mapping.items()) else mapping
