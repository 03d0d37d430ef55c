"""Which cases validate: the seeded fraction or k-fold split, and the checks that keep it honest.

Every reader in :mod:`accelerated_seg.data.formats` takes the same four settings
(``data.validation_fraction``, ``data.num_folds``, ``data.fold``, ``data.split_seed``); they travel
together as one :class:`SplitSettings`, checked once when it is made, before any file is read.
A split the source prescribes (an MSD ``validation`` list, a CSV ``split`` column, nnU-Net's
splits_final.json) wins over these settings, and :meth:`SplitSettings.given` says so.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accelerated_seg.data.cases import Case, Manifest, SplitDescription, SplitOrigin
from accelerated_seg.data.errors import DataError
from accelerated_seg.model_folders import ESTIMATOR_NAMES, Names

#: The split settings as a caller of load_cases, from_pairs or a reader (load_msd, load_csv, load_nnunet) names them,
#: who passed them as their keywords (num_folds=, fold=, validation_fraction=, seed=): it was told of a config's
#: data.num_folds and data.split_seed, settings it never wrote, until the ninety-fourth session. The config's
#: reading (manifest.load_manifest) passes the config's names, Names()
KEYWORD_NAMES = Names(prefix="", renamed=(("data.split_seed", "seed"),))


@dataclass(frozen=True)
class SplitSettings:
    """The split settings of a run, checked on creation so impossible ones fail before any file is read.

    Args:
        validation_fraction: Share held out in the fraction split, in [0, 1).
        num_folds: Number of folds: 0 for the fraction split, or 2 or more.
        fold: Held-out fold, 0-based.
        seed: Seed of the permutation.
        names: How the messages and the split's words name these settings: the config's (``data.num_folds``), or
            the caller's keywords (``num_folds``: ``Dataset.from_files``'). Said at the source since the
            ninety-fourth session; the estimator rewrote the config's words by a regular expression before.

    Raises:
        DataError: The settings are invalid (the message names the setting as ``names`` does).
    """

    validation_fraction: float = 0.2
    num_folds: int = 0
    fold: int = 0
    seed: int = 0
    names: Names = Names()

    def __post_init__(self) -> None:
        """Reject impossible split settings before any file is read."""
        validation_fraction, num_folds, fold = self.validation_fraction, self.num_folds, self.fold
        fraction_is, folds_is, fold_is = (self.said(name) for name in ("validation_fraction", "num_folds", "fold"))
        if not 0.0 <= validation_fraction < 1.0:
            raise DataError(f"{fraction_is} must be in [0, 1), got {validation_fraction}")
        if num_folds < 0 or num_folds == 1:
            raise DataError(f"{folds_is}={num_folds}: use 0 to split by {fraction_is}, or 2 or more for k-fold")
        if fold < 0 or (num_folds > 1 and fold >= num_folds):
            upper = f"0..{num_folds - 1}" if num_folds > 1 else "0 or more"
            raise DataError(f"{fold_is}={fold} is out of range for {folds_is}={num_folds}; use {upper}")

    def said(self, name: str) -> str:
        """The split setting ``name`` (``num_folds``, ``fold``, ``validation_fraction``, ``split_seed``) as the
        caller names it: ``data.num_folds`` in a config, ``num_folds`` as a keyword."""
        return self.names.setting(f"data.{name}")

    def split(self, cases: list[Case]) -> tuple[list[Case], list[Case], SplitDescription]:
        """Split cases deterministically when the source gives no validation list.

        ``num_folds`` > 1: a ``numpy.random.default_rng(seed)`` permutation is cut into
        ``num_folds`` near-equal folds and fold ``fold`` is held out. Otherwise
        ``validation_fraction`` of the cases is held out. Both halves keep the source order, are
        disjoint and together cover ``cases``. Cases that share an image file (two raters' labels of
        one scan) are permuted, counted and held out as one: the split of distinct images is unchanged.

        Args:
            cases: All labelled cases, in a stable order.

        Returns:
            ``(training, validation, description)``; record the description with the run.

        Raises:
            DataError: More folds than cases (than groups of cases sharing an image), or a fold without folds
                (the message names the settings as ``names`` does: ``data.fold`` / ``data.num_folds`` in a
                config's words, ``fold`` / ``num_folds`` as keywords).
        """
        validation_fraction, num_folds, fold, seed = self.validation_fraction, self.num_folds, self.fold, self.seed
        groups = _sharing_an_image(cases)  # one case each where every image is distinct: the split of before
        if num_folds > 1:
            if num_folds > len(groups):  # "use at most 1 folds" where there was one, a number num_folds refuses
                most = f"use at most {len(groups)} folds" if len(groups) > 1 else f"add cases: folds need {_TWO}"
                raise DataError(f"{self.said('num_folds')}={num_folds} but there are only {_counted(cases, groups)}; "
                                f"{most}")
            how = SplitDescription(f"fold {fold} of {num_folds} (seed {seed})",
                                   SplitOrigin("folds", num_folds, names=self.names))
        else:
            if fold != 0:
                folds_is = self.said("num_folds")
                raise DataError(f"{self.said('fold')}={fold} is set but {folds_is}={num_folds}; set {folds_is} to 2 "
                                f"or more")
            how = SplitDescription(f"fraction {validation_fraction:g} (seed {seed})",
                                   SplitOrigin("fraction", names=self.names))
        held_out = self._held_out(len(groups))
        held_out_cases = {index for group in held_out for index in groups[group]}
        training = [case for index, case in enumerate(cases) if index not in held_out_cases]
        validation = [case for index, case in enumerate(cases) if index in held_out_cases]
        return training, validation, how

    def _held_out(self, count: int) -> set[int]:
        """The places among ``count`` (cases, or groups of cases sharing an image) that these settings hold out."""
        if self.num_folds > 1:
            return set(np.array_split(np.random.default_rng(self.seed).permutation(count), self.num_folds)[self.fold]
                       .tolist())
        return _fraction_held_out(count, self.validation_fraction, self.seed)

    def listed_before_grouping(self, training: list, validation: list) -> list | None:
        """The list of cases that the seeded split of before the hundred-and-fifth session, which split cases
        one by one, would have split into ``training`` and ``validation`` (each in the source order, as a
        split.json records them) by these settings, or None where it would have held out another number.
        The permutation picks places in the list, not cases: a resume tells by it what moved a saved split."""
        count = len(training) + len(validation)
        held_out = self._held_out(count) if count else set()
        if len(held_out) != len(validation):
            return None
        trained, validated = iter(training), iter(validation)
        return [next(validated) if place in held_out else next(trained) for place in range(count)]

    def given(self, what: str, by: str = "dataset", unused_folds: int = 0) -> SplitDescription:
        """Describe a split the source prescribes; say so when split settings were therefore unused
        (``unused_split_settings_warning`` says it on the console), and when the source's 'fold' keys,
        ``unused_folds`` folds of them, were (a dataset.json's beside its 'validation' list).
        ``by``: the source's own list, or the validation_pairs given (:class:`SplitOrigin`)."""
        if self.num_folds <= 1 and self.fold != 0:  # trained on the given split unsaid before the 68th session
            fold_is, folds_is = self.said("fold"), self.said("num_folds")
            raise DataError(f"{fold_is}={self.fold} is set, but the dataset gives its own split ({what}) and "
                            f"{folds_is}={self.num_folds}: folds split a dataset that has none of its own; "
                            f"remove {fold_is}, or give the dataset without its split and {folds_is} 2 or more")
        own = [f"the 'fold' keys ({unused_folds} folds)"] if unused_folds else []
        origin = SplitOrigin(by, unused_settings=self._unused_settings(folds=self.num_folds > 1),
                             unused_own="fold_keys" if unused_folds else "", unused_folds=unused_folds,
                             names=self.names)
        return self._described(what, own, origin)

    def given_fold(self, what: str, folds: int, unused_list: tuple[str, str] | None = None) -> SplitDescription:
        """Describe fold ``data.fold`` of ``folds`` folds the source prescribes (dataset.json 'fold' keys,
        splits_final.json); say so when ``data.split_seed`` or ``data.validation_fraction`` therefore
        chose nothing, and when the source's list these folds leave out did: ``unused_list`` is what it
        is (:attr:`SplitOrigin.unused_own`) and its words ("the 'validation' list (1 case(s))")."""
        own, words = unused_list or ("", None)
        origin = SplitOrigin("fold_keys", folds, self._unused_settings(folds=False), own, names=self.names)
        return self._described(what, [words] if words else [], origin)

    def _unused_settings(self, folds: bool) -> tuple[str, ...]:
        """The settings a split the source gives leaves without effect, by name, in the order they are said."""
        fraction = self.validation_fraction != SplitSettings.validation_fraction  # a set one: unsaid until the 84th
        seed = self.seed != 0  # chose nothing without a word before the seventy-seventh session
        return tuple(name for name, unused in (("num_folds", folds), ("validation_fraction", fraction),
                                               ("split_seed", seed)) if unused)

    def _described(self, what: str, own: list[str], origin: SplitOrigin) -> SplitDescription:
        """``Manifest.split``'s words for ``origin``: what of the source's ``own`` and which settings went unused."""
        values = {"num_folds": self.num_folds, "validation_fraction": f"{self.validation_fraction:g}",
                  "split_seed": self.seed}
        unused = [*own, *(f"{self.said(name)}={values[name]}" for name in origin.unused_settings)]
        return SplitDescription(f"given ({what}; {' and '.join(unused)} {_NOT_USED})" if unused else f"given ({what})",
                                origin)


_NOT_USED = "not used"  # in a given split's description: data.num_folds asked for folds the source overrode

# A seed below 0 is none a run writes (data.split_seed is checked) and numpy's generator refuses: a split.json made
# by hand that said one crashed the resume's refusal in its hundred-and-sixth session
_FRACTION_SAID = re.compile(r"fraction (\S+) \(seed (\d+)\)")
_FOLD_SAID = re.compile(r"fold (\d+) of (\d+) \(seed (\d+)\)")


def seeded_settings(how) -> SplitSettings | None:
    """The settings that ``SplitSettings.split``'s words say ("fraction 0.2 (seed 0)", "fold 2 of 5 (seed 0)"), or
    None for other words (a split the source gave): a split.json records its split in these words alone."""
    if not isinstance(how, str):
        return None
    try:
        if fraction := _FRACTION_SAID.fullmatch(how):
            return SplitSettings(validation_fraction=float(fraction[1]), seed=int(fraction[2]))
        if fold := _FOLD_SAID.fullmatch(how):
            return SplitSettings(num_folds=int(fold[2]), fold=int(fold[1]), seed=int(fold[3]))
    except (ValueError, DataError):  # words no split of these settings writes
        return None
    return None


def is_one_fold_of_several(manifest: Manifest) -> bool:
    """Whether the manifest's split holds out one fold of a cross-validation: ``fold 2 of 5 (seed 0)``
    (data.num_folds), ``given (splits_final.json fold 1 of 5)`` or ``given (dataset.json 'fold' keys:
    fold 1 of 5)``. Told by its SplitOrigin: until the ninety-third session the words were matched."""
    origin = manifest.split_origin
    return origin.by in ("folds", "fold_keys") and origin.folds > 1  # a splits_final.json of one split is none


def unused_split_settings_warning(manifest: Manifest) -> str | None:
    """The warning for a run whose ``data.num_folds``, ``data.validation_fraction`` or
    ``data.split_seed`` the dataset's own split overrode, else None. Said only in run_info.json
    before the thirtieth session, so a cross-validation trained every fold on the same split without
    a word on the console; a split seed, until the seventy-seventh; a validation fraction, until the
    eighty-fourth. Also the warning for a dataset.json whose 'fold' keys or 'validation' list the
    other one, chosen by ``data.num_folds``, left unused (the keys went unused without a word before),
    and for pairs with 'fold' keys given with validation_pairs (until the ninetieth session the
    validation_pairs, with num_folds "not used"). Decided by ``manifest.split_origin``, and said with
    ``manifest.split``: until the ninety-third session the words were matched, so rewording them
    changed which warning was given. A file read by ``load_cases`` (not ``by_the_config``) is told of its
    keywords, num_folds=, seed=, since the ninety-fourth session; every warning names the settings as the
    split does, in the names its reader was given (``SplitOrigin.names``), since the ninety-fifth."""
    split, origin = manifest.split, manifest.split_origin
    if not origin.unused_settings and not origin.unused_own:
        return None
    # Said as the split says them, in the names its reader was given (SplitOrigin.names): load_cases(...,
    # names=Names()) from Python said data.split_seed=7 in its split and seed in its warning until the ninety-fifth
    # session, and pairs read with names their maker's keywords.
    # A dataset.json gives two splits (formats.msd's fold_keys_or_list): data.num_folds picks one, said with the other.
    # So do pairs with 'fold' keys and validation_pairs (from_pairs, Dataset.from_files), said in their words: the
    # file's 'validation' list and data.num_folds told them of what they never wrote.
    # A file read by load_cases and given to train from Python is told of load_cases' keywords, where the config's
    # settings split nothing (SplitOrigin.by_the_config): it was told of data.num_folds until the ninety-fourth session
    said, pairs = _split_names(manifest).setting, manifest.source_format in _PAIRS_MAKERS_NAMES
    folds_is, fold_is = said("data.num_folds"), said("data.fold")
    given_in_python = not pairs and folds_is != "data.num_folds"  # read by load_cases in its keywords
    if origin.unused_own == "fold_keys":
        if origin.by == "validation_pairs":
            return (f"warning: the split is {split}: validation_pairs are the split, and the pairs' 'fold' keys hold "
                    f"nothing out. To validate on fold k of those keys instead, give {folds_is}={origin.unused_folds} "
                    f"and {fold_is}=k (validation_pairs are then left out)")
        way = (f"read it by load_cases(..., num_folds={origin.unused_folds}, fold=k)" if given_in_python else
               f"set {folds_is}={origin.unused_folds} and {fold_is}=k")
        return (f"warning: the split is {split}: the file's 'validation' list is the split, and its training "
                f"entries' 'fold' keys hold nothing out. To validate on fold k of those keys instead, {way} (the "
                f"'validation' list is then left out)")
    if origin.unused_own == "validation_pairs":
        return (f"warning: the split is {split}: {folds_is} picks the pairs' 'fold' keys, so validation_pairs are "
                f"neither trained nor validated on. To validate on validation_pairs instead, leave {folds_is} and "
                f"{fold_is} out")
    if origin.unused_own == "dataset":
        way = ("read it by load_cases without num_folds and fold" if given_in_python else
               f"set {folds_is}=0 and remove {fold_is}")
        return (f"warning: the split is {split}: {folds_is} picks the file's 'fold' keys, so the cases of its "
                f"'validation' list are neither trained nor validated on. To validate on that list instead, {way}")
    # Pairs' split names their maker's keywords (Dataset.from_files' split_seed=7, from_pairs' seed=7 not used),
    # and their own split is their validation_pairs or their 'fold' keys: Dataset.from_files was told of
    # data.split_seed and of files until the ninety-third session, from_pairs until the ninety-fourth
    first = origin.unused_settings[0]
    what = (f"every {fold_is} trains on that one split. For k-fold" if first == "num_folds" else
            f"{said('data.validation_fraction')} holds nothing out. For a split by it"
            if first == "validation_fraction" else f"{said('data.split_seed')} chooses nothing. For a split of its seed")
    way = ("leave validation_pairs out" if origin.by == "validation_pairs" else
           "give the pairs without their 'fold' keys") if pairs else \
        (f"give {'load_cases ' if given_in_python else ''}the dataset without it (the MSD 'validation' list or 'fold' "
         f"keys, the CSV 'split' column, nnU-Net's splits_final.json)")
    return f"warning: the split is {split}: the dataset gives its own, so {what}, {way}"


def _split_names(manifest: Manifest) -> Names:
    """How ``manifest.split`` names the split settings: as the names its reader was given (``SplitOrigin.names``);
    for an origin made by hand, as what made the manifest does: its maker's keywords for pairs, the config's where
    the config read it, else load_cases'."""
    origin = manifest.split_origin
    if origin.names is not None:
        return origin.names
    return _PAIRS_MAKERS_NAMES.get(manifest.source_format) or (Names() if origin.by_the_config else KEYWORD_NAMES)


# How each maker of a Manifest from pairs (Manifest.source_format) names the split settings: as its keywords
_PAIRS_MAKERS_NAMES = {"from_files": ESTIMATOR_NAMES, "pairs": KEYWORD_NAMES, "load_cases": KEYWORD_NAMES}


def ways_to_validation_cases(manifest: Manifest, fraction: str, folds: str) -> str:
    """How a dataset without validation cases gets some: the end of its refusal where validation is asked for
    (train's, Segmentation.fit's), in the words of what gave its cases; ``fraction`` and ``folds`` name
    data.validation_fraction and data.num_folds as the caller does, the way where the config's settings read the
    dataset (``SplitOrigin.by_the_config``). One case cannot be split whatever the fraction: "hold cases out" sent
    users to a setting already > 0. A split the dataset gives is not the fraction's to change: that sent users to
    a setting it overrides. Pairs (Dataset.from_files, from_pairs) were told to "list validation cases in the
    dataset's own split", a file's list they never wrote, and Segmentation.fit to give "a larger
    validation_fraction", which validation_pairs override (until the ninety-third session). A manifest given to
    train, which takes its split as it is, was sent to the config's settings, which split nothing there, until
    the ninety-fourth session: it is sent to the keywords of what made it, in the names its reader was given
    (``SplitOrigin.names``) as its split and warning say them, since the ninety-fifth."""
    # Pairs are told from files by the reader (source_format), not by the split's text. Of pairs, a split given
    # that validates nothing is validation_pairs=[]: their 'fold' keys leave no fold empty (fold_keys_split)
    if sharing := _all_share_an_image(manifest.training):
        return sharing
    pairs = {"from_files": "Dataset.from_files", "pairs": "from_pairs"}.get(manifest.source_format)
    listed = f"validation_pairs=[(image, label), ...] to {pairs}"
    origin, said = manifest.split_origin, _split_names(manifest).setting
    if manifest.source_format == "load_cases":  # pairs: told of validation_pairs to from_pairs, not of its keywords
        return _ways_for_pairs_read_by_load_cases(len(manifest.training), origin, said)
    if len(manifest.training) == 1:
        return f"add cases: one case cannot be both trained on and held out{f', or give {listed}' if pairs else ''}"
    if pairs:  # the names their reader was given, else its maker's keywords, whoever is given the pairs' manifest
        fraction, folds = said("data.validation_fraction"), said("data.num_folds")
        if not origin.given:
            return f"hold cases out ({fraction} > 0, {folds}, or {listed})"
        return f"give {listed}, or leave validation_pairs out so that {fraction} or {folds} holds cases out"
    # read by load_cases in its keywords (or built by hand) and given: the config splits nothing. One read by
    # load_cases(..., names=Names()) is told in the config's words, as its split and its warning are (it was told
    # of the keywords until the ninety-fifth session)
    if not origin.by_the_config and said("data.num_folds") != "data.num_folds":
        as_is = "train takes the split of a manifest given as it is"
        fraction, folds = said("data.validation_fraction"), said("data.num_folds")
        if not origin.given:
            return (f"hold cases out (load_cases(..., {fraction}=... > 0 or {folds}=...), or the "
                    f"dataset's own split): {as_is}")
        return (f"list validation cases in the dataset's own split, or read it again without it by load_cases(..., "
                f"{fraction}=... or {folds}=...), which hold cases out: {as_is}")
    if not origin.given:  # the split is no source's own (its words, "given", were matched)
        return f"hold cases out ({fraction} > 0, {folds}, or the dataset's own split)"
    return (f"list validation cases in the dataset's own split, or give the dataset without it so that {fraction} "
            f"or {folds} holds cases out")


def _ways_for_pairs_read_by_load_cases(training: int, origin: SplitOrigin, said) -> str:
    """``ways_to_validation_cases`` of pairs read by ``load_cases(pairs)``, which takes no validation_pairs: they
    were told to give "validation_pairs=[(image, label), ...] to from_pairs", a function they had not called, as
    if load_cases were it, until the hundredth session. Its keywords hold cases out, and from_pairs, called in its
    place, takes them listed."""
    listed = "or list the held-out pairs as from_pairs(pairs, validation_pairs=[(image, label), ...])"
    if training == 1:
        return f"add cases: one case cannot be both trained on and held out, {listed} in place of load_cases"
    fraction, folds = said("data.validation_fraction"), said("data.num_folds")
    again = f"load_cases(pairs, {fraction}=... > 0 or {folds}=...)"
    if origin.given:  # the pairs' 'fold' keys
        again = f"{again} without the pairs' 'fold' keys"
    return (f"read the pairs again by {again}, which hold cases out, {listed} in place of load_cases: train takes "
            f"the split of a manifest given as it is")


def cases_sharing_an_image(cases: list[Case]) -> list[Case]:
    """The cases that share an image file with another (two raters' labels of one scan), in the source order: the
    seeded splits keep them together since the hundred-and-fifth session, which a resume's refusal explains."""
    return [cases[index] for group in _sharing_an_image(cases) if len(group) > 1 for index in group]


def _sharing_an_image(cases: list[Case]) -> list[list[int]]:
    """The cases' indices in groups that share an image file (two raters' labels of one scan), each group in the
    source order and the groups in the order of their first case: all of them one case each where every image
    is distinct, so that the split permutes the cases as before. Split apart, such cases put a scan in both
    training and validation, which reject_duplicate_cases refused, with no seed to choose that kept them
    together, until the hundred-and-fifth session. Paths are compared as that check does, as written with
    ``.`` and ``..`` resolved (a manifest's loading reads no file)."""
    group_of: list[int] = list(range(len(cases)))  # a case's group is the one of its first case sharing an image

    def first(index: int) -> int:
        while group_of[index] != index:
            index = group_of[index]
        return index

    case_with: dict[str, int] = {}
    for index, case in enumerate(cases):
        for path in case.images:
            other = first(case_with.setdefault(os.path.normpath(path), index))
            mine = first(index)
            group_of[max(mine, other)] = min(mine, other)
    groups: dict[int, list[int]] = {}
    for index in range(len(cases)):
        groups.setdefault(first(index), []).append(index)
    return list(groups.values())


def _counted(cases: list[Case], groups: list[list[int]]) -> str:
    """The cases a split can cut, in words: "4 case(s)", or "3 group(s) of cases among 4" where cases share an
    image and so stay together. Groups, not images: two cases of one channel file in common are one group of
    four distinct files, which was said "distinct image(s)" in the hundred-and-fifth session."""
    if len(groups) == len(cases):
        return f"{len(cases)} case(s)"
    return f"{len(groups)} group(s) of cases among {len(cases)} ({_STAY_TOGETHER})"


_STAY_TOGETHER = "cases that share an image file are one group and stay on one side of the split"
_TWO = "2 or more cases with images of their own"


def _all_share_an_image(cases: list[Case]) -> str | None:
    """The way to validation cases where all of several cases share image files (one scan's raters, a channel such
    as an atlas given with every scan), else None: they are one group, which no split cuts, and were told to
    "hold cases out (data.validation_fraction > 0 ...)", a fraction already above 0."""
    if len(cases) < 2 or len(_sharing_an_image(cases)) > 1:
        return None
    shared = Counter(os.path.normpath(path) for case in cases for path in case.images).most_common(1)[0][0]
    return (f"add cases: the {len(cases)} cases share image files ({shared}, ...), and {_STAY_TOGETHER}; a split "
            f"needs {_TWO}")


def _fraction_held_out(count: int, validation_fraction: float, seed: int) -> set[int]:
    """Indices of a deterministic random subset of about ``validation_fraction * count`` cases."""
    num_validation = round(validation_fraction * count)
    if validation_fraction > 0 and count >= 2:
        num_validation = min(max(num_validation, 1), count - 1)  # never leave training empty
    return set(np.random.default_rng(seed).permutation(count)[:num_validation].tolist())


def _listed_twice(duplicates: list[str], training: list[Case], validation: list[Case]) -> str:
    """What is wrong where cases of one id list one label file: the same case again (where: training,
    validation, or both), or other images with it, which is no case repeated but a label map that two
    cases share, and so their id. Both were "listed more than once across training/validation", the
    second then "removed" in place of given its own label (ninety-second session's probe)."""
    case_id, more = duplicates[0], (f" ({len(duplicates) - 1} more case(s) too: {', '.join(duplicates[1:5])}"
                                    f"{', ...' if len(duplicates) > 5 else ''})" if len(duplicates) > 1 else "")
    listed = [(side, case) for side, cases in (("training", training), ("validation", validation))
              for case in cases if case.id == case_id]
    images = sorted({", ".join(os.path.normpath(path) for path in case.images) for _, case in listed})
    if len(images) > 1:
        return (f"{len(listed)} cases list the label {listed[0][1].label} with other images ({'; '.join(images)}), "
                f"and so have one id, {case_id!r} (a case's id is its label file's name){more}: give each case a "
                f"label map of its own, or, where the images are one case's channels, list them together as its "
                f"image")
    sides = sorted({side for side, _ in listed})  # training first
    times = "twice" if len(listed) == 2 else f"{len(listed)} times"
    return f"case {case_id!r} is listed {times}, among the {' and the '.join(sides)} cases{more}; remove the duplicates"


def reject_duplicate_cases(training: list[Case], validation: list[Case], where: Path | str) -> None:
    """Refuse a case listed twice, and a file that two cases share across the split.

    A case listed twice is over-weighted, or leaks from training into validation; a file in a training
    and a validation case makes validation score a scan the network trained on. Ids alone missed both
    when the ids differed (a CSV's ``id`` column names each row), so the files are compared too, as
    written (no file system access: loading a manifest reads only the description).
    """
    counts = Counter(case.id for case in training + validation)
    duplicates = sorted(case_id for case_id, count in counts.items() if count > 1)
    # The same id for other files (lab_0.nii.gz beside lab_0.nii; ids come from the label's name) is
    # no case listed twice, and was called one.
    labels_of = {case_id: {os.path.normpath(c.label) for c in training + validation if c.id == case_id and c.label}
                 for case_id in duplicates}
    clashing = [case_id for case_id in duplicates if len(labels_of[case_id]) > 1]
    if clashing:
        raise DataError(
            f"{where}: different cases have the same id {clashing[0]!r} ({' and '.join(sorted(labels_of[clashing[0]]))}"
            f"{f'; {len(clashing) - 1} more id(s) too' if len(clashing) > 1 else ''}): a case's id is its label "
            f"file's name without the extension (or the id it is given), with its folders joined by '_' in front "
            f"where several labels share a name (d1/seg.nii.gz is d1_seg); rename one of the files")
    if duplicates:
        raise DataError(f"{where}: {_listed_twice(duplicates, training, validation)}")
    first_case_of: dict[tuple[str, ...], str] = {}
    side_of: dict[str, tuple[str, str]] = {}  # file -> (case id, "training" or "validation")
    for side, cases in (("training", training), ("validation", validation)):
        for case in cases:
            files = tuple(os.path.normpath(path) for path in (*case.images, case.label) if path is not None)
            if len(set(files)) < len(files):
                twice = next(path for path in files if files.count(path) > 1)
                raise DataError(f"{where}: case {case.id!r} lists {twice} twice (as two channels, or as image and "
                                f"label); give each channel its own file and the label map its own")
            if files in first_case_of:
                raise DataError(f"{where}: cases {first_case_of[files]!r} and {case.id!r} list the same files "
                                f"({files[-1]}, ...); remove one of them")
            first_case_of[files] = case.id
            for path in files:
                other, other_side = side_of.setdefault(path, (case.id, side))
                if other_side != side:
                    raise DataError(
                        f"{where}: {path} belongs to {other_side} case {other!r} and {side} case {case.id!r}, so "
                        f"validation would score a scan the network trained on; keep cases that share a file on "
                        f"one side of the split (the dataset's validation list, a CSV 'split' column), or list "
                        f"the file once"
                    )
