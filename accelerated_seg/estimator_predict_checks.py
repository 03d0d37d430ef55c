"""predict's and evaluate's arguments checked before anything is read or written, each refusal said by the method
called: predict's options (a misspelt one offered the closest, a value predict_file would refuse), a path given
where predict writes none, and evaluate's cases (a Dataset, with validation cases, of the model's classes and
channels, whose headers predict would take, its output_dir outside the dataset's files); and the warning for a Dataset
whose split held its cases out."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from .config import ConfigError, did_you_mean, is_whole_number
from .data.errors import DataError
from .data.manifest import Manifest
from .estimator_dataset import Dataset
from .estimator_settings import PREDICT_OPTIONS  # predict's keyword options, passed on to inference.predict_file


#: Of those, the ones that are not ``PredictOptions`` (how the network runs) but where it runs, or what is written.
_NOT_HOW_IT_RUNS = ("device", "keep_largest")


def check_predict_options(method: str, batch_size: int, options: dict, config: dict, also: str = "") -> None:
    """One ConfigError, said by ``method``, for a misspelt option (else predict_file's TypeError) or a value
    that predict_file refuses (tta="bogus", a device this machine lacks, a label ``config``'s model does not
    write for keep_largest), before any file is written. Those values' ValueErrors were bare ("overlap must
    be in [0, 1), got 2") where every other refusal of predict and evaluate names its method, until the
    ninety-first session. A misspelt one is offered the closest option, as every other keyword of the estimator
    (none until the ninety-fifth session)."""
    if unknown := sorted(set(options) - set(PREDICT_OPTIONS)):
        names = ["batch_size", *([also] if also else []), *PREDICT_OPTIONS]
        raise ConfigError(f"{method}: {', '.join(unknown)} is not an option{did_you_mean(unknown[0], names)}; the "
                          f"options are {', '.join(names)}")
    from .inference import PredictOptions, default_device, kept_whole, precision_refusal

    if not is_whole_number(batch_size, 1):  # named as given (PredictOptions says sw_batch_size)
        raise ConfigError(f"{method}: batch_size (windows per forward pass) must be a whole number >= 1, got "
                          f"{batch_size!r}")
    try:
        settings = PredictOptions(sw_batch_size=batch_size, **how_it_runs(options))
        device = default_device(options.get("device"))
        kept_whole(config, options.get("keep_largest"))
    except ValueError as error:  # ConfigError too (keep_largest's)
        raise ConfigError(f"{method}: {error}") from None
    if refusal := precision_refusal(settings.precision, device):  # fp16 on a CPU
        raise ConfigError(f"{method}: {refusal}")


# What a notebook user names the file predict is to write: it writes none
_OUTPUT_NAMES = ("out", "out_path", "out_file", "output", "output_path", "output_file", "output_dir", "save",
                 "save_path", "save_to", "filename", "path")


def refuse_an_output_path(batch_size, options: dict) -> None:
    """A path where predict's output would go, given second (batch_size, "must be a whole number, got
    '/tmp/seg.nii.gz'") or by a name of its own ("output_path is not an option; the options are ..."): said
    without the remedy, that predict returns the image for nib.save, until the ninety-third session."""
    named = [name for name in options if name in _OUTPUT_NAMES]
    if not (named or isinstance(batch_size, (str, os.PathLike))):
        return
    given = f"{named[0]} is not an option" if named else \
        f"the path {os.fspath(batch_size)!r} is given as batch_size (its second argument)"
    raise ConfigError(f"predict: {given}: predict writes no file, it returns the label image (on the input's grid): "
                      f"write it with nib.save(model.predict(x), path); a folder of cases is segmented into a folder "
                      f"by `accelerated-seg predict --model MODEL INPUT --output OUT` (inference.predict_cases)")


def how_it_runs(options: dict) -> dict:
    """The options that are ``PredictOptions``."""
    return {name: value for name, value in options.items() if name not in _NOT_HOW_IT_RUNS}


def held_out_alone_warning(manifest: Manifest) -> str | None:
    """Evaluating a Dataset split by its fraction (or folds) scores the cases that split held out: a
    test set given as a training Dataset's pairs was scored on one case in six without a word
    (eighty-fifth session's probe). Validation pairs given are scored as given, unsaid."""
    if not manifest.training or manifest.split_origin.given:  # not the split's words, which were matched
        return None
    return (f"evaluate: scoring the Dataset's {len(manifest.validation)} validation case(s) alone, held out by its "
            f"split ({manifest.split}); its {len(manifest.training)} training case(s) are not scored. A test set "
            f"is scored whole as Dataset.from_files([], validation_pairs=test_pairs, ...)")


def refuse_what_is_no_dataset(dataset) -> None:
    """evaluate given pairs or a folder, as a notebook user has them: Python's AttributeError ("'list' object has
    no attribute 'manifest'") until the ninety-third session."""
    if isinstance(dataset, Dataset):
        return
    folder = ("; a folder of predictions is scored against a folder of labels by evaluate_folders (accelerated-seg "
              "evaluate on the command line)") if isinstance(dataset, (str, os.PathLike)) else ""
    raise ConfigError(f"evaluate: give a Dataset of the cases to score, e.g. Dataset.from_files([], "
                      f"validation_pairs=test_pairs, n_classes=N) for a test set, got {type(dataset).__name__}"
                      f"{folder}")


def refuse_an_output_among_the_cases(out: Path, manifest: Manifest) -> None:
    """Refuse an evaluate ``output_dir`` that is the dataset's folder, a folder of its cases' files, or one
    inside a folder of their labels, as the command line refuses ``--output`` in its LABELS folder (since the
    ninety-second session). predictions/, labels/, metrics.csv and summary.json were written there beside the
    user's files until the ninety-third session (a dataset's own labels/ was refused as "not written by
    Segmentation.evaluate"). Training cases' folders too: they are the user's files as much."""
    output, cases = out.resolve(), [*manifest.training, *manifest.validation]
    label_folders = sorted({Path(case.label).resolve().parent for case in cases if case.label})
    if inside := next((folder for folder in label_folders if output == folder or folder in output.parents), None):
        where = f"{'' if output == inside else 'inside '}the folder of the dataset's labels {inside}"
        remedy = "give a folder outside it"
    elif output == manifest.root.resolve():
        where = "the dataset's folder" if manifest.source_format != "from_files" else "the folder of the pairs' files"
        remedy = f"give a folder of its own, such as {out / 'evaluation'}"
    elif output in {Path(image).resolve().parent for case in cases for image in case.images}:
        where, remedy = "the folder of the dataset's images", "give a folder of its own"
    else:
        return
    raise DataError(f"evaluate: output_dir {out} is {where}: its predictions/, labels/, metrics.csv and "
                    f"summary.json would lie among the dataset's files; {remedy}")


def evaluated_manifest(dataset: Dataset, config: dict) -> Manifest:
    """The Dataset's manifest as evaluate judges its validation cases, by the model that predicts them: where the
    Dataset names no channels and gives each case one file, the model's channels (config.json's, named as predict
    names them: ``inference_inputs.channels_named``), which that file is to hold as (x, y, z, C), as predict reads it.
    Such a case of the Decathlon's BrainTumour, one 4D file of the model's channels, which predict segments, was
    refused by evaluate as "the model has 2 image channels and the dataset 1" until the hundred-and-twentieth session
    (helper h109, benchmarks/results/four_d_cases_2026-12-07/)."""
    manifest, channels = dataset.manifest, int(config["in_channels"])
    if (dataset.channel_names is not None or manifest.num_channels == channels
            or any(len(case.images) != 1 for case in manifest.validation)):
        return manifest
    from .inference_inputs import channels_named

    return dataclasses.replace(manifest, channels=channels_named(config))


def check_evaluation_cases(dataset: Dataset, config: dict) -> None:
    """Refuse, before any prediction, a dataset evaluate cannot score with this model.

    Before, a dataset without validation cases failed on the empty references folder evaluate had
    made ("no .nii/.nii.gz label file"), one with fewer classes than the model failed on the first
    prediction holding a class the references lack (in the command line's terms, --num-classes), and
    one with more classes was scored without a word on classes the model cannot predict. The model's channels are
    named as predict names them (``inference_inputs.channels_taken``, ``channel_files_way``): "the model has 2 image
    channels and the dataset 3; give every case the channels the model was trained on, in its order", an order never
    said, until the hundred-and-twenty-second session (helper h119).
    """
    from .inference_inputs import channel_files_way, channels_taken

    manifest = evaluated_manifest(dataset, config)
    if not manifest.validation:
        raise ConfigError(f"evaluate: the dataset has no validation cases to score (its split: {manifest.split}); "
                          f"give the cases to score as Dataset.from_files(..., validation_pairs=[(image, label), ...])")
    if (model_has := int(config["num_classes"])) != manifest.num_classes:
        raise ConfigError(f"evaluate: the model has {model_has} classes and the dataset {manifest.num_classes}; give "
                          f"the Dataset the model's n_classes (and binarize() for a model trained binarized)")
    if (channels := int(config["in_channels"])) != manifest.num_channels:
        remedy = "give each case one file, of that channel" if channels == 1 else channel_files_way(config)
        raise ConfigError(f"evaluate: the model takes {channels_taken(config)} and the dataset gives each case "
                          f"{manifest.num_channels}: {remedy}")


def evaluation_channel_names_warning(dataset: Dataset, config: dict) -> str | None:
    """Refuse a Dataset that names the model's channels (config.json's ``channels``) in another order, warn of one
    naming them otherwise (``inference_inputs.channel_names_refused_or_warned``: as resume compares them, a name
    nothing gives compared with nothing). ``channel_names=['FLAIR', 'T1']`` against a model's ``T1``, ``FLAIR`` was
    scored without a word, each case's files fed in the Dataset's order, where fit's init_from and resume compare the
    names, until the hundred-and-twenty-third session (helper h127,
    benchmarks/results/model_and_data_channel_names_2026-12-07/)."""
    from .inference_inputs import channel_names_refused_or_warned

    if dataset.channel_names is None:  # the Dataset's own names (image_0, ...)
        return None
    given = dict(enumerate(dataset.manifest.channels.values()))
    return channel_names_refused_or_warned(config, given, "evaluate: the Dataset", "Dataset", ConfigError)


def check_evaluation_headers(dataset: Dataset, config: dict, read_check=None) -> None:
    """Refuse, with the pre-flight check of the validation cases (``read_check``: ``data.checks.check_manifest``)
    in one report, those whose channel files predict would refuse from their headers, in predict's words, one line
    per case as the check lists its errors: for their units (``inference_reading.channel_units_refusal``: the model's
    unit and spacing, the files read together), else for voxels far finer than the model's spacing
    (``refuse_voxels_far_finer``) or a resampling beyond the host's memory (``refuse_beyond_host_memory``), predict's
    next refusals, between them the volumes its files hold and their grids (``channel_files_refusal``, predict's one
    check: one (x, y, z, C) file of the model's C channels taken, evaluated_manifest's channels the model's, since the
    hundred-and-twentieth session; a case of both faults told the grid's by predict, the volumes' here, until the
    hundred-and-twenty-first, helper h112). The check has no model's spacing and judged such a case alone until the
    review of h72: a channel of no unit on micrometre numbers beside one in mm (or two of no unit 1,000 times apart)
    was told to be resampled onto one grid, while predict told the channel to be rewritten from micrometres; a case
    the check passes but predict refuses (every file in micrometres for a model in mm) stopped evaluate half-way, its
    folders rebuilt. A scan in metres (its header of no unit, or of mm against the training cases' median) stopped it
    so, the last call's summary.json and metrics.csv deleted and one case named, until the hundred-and-nineteenth
    session (helper h106, benchmarks/results/evaluate_far_finer_precheck_2026-12-06/). The other cases are read by the
    pre-flight check and its errors listed with these: refused first alone, the other cases' bad labels or truncated
    files were said only once these were fixed, a call later, until h106's review
    (review_evaluate_precheck_2026-12-06/)."""
    from .data.check_report import CheckReport
    from .data.manifest_named import pairs_checked
    from .data.preprocess_settings import preprocess_settings
    from .inference_reading import channel_files_refusal, channel_units_refusal

    spacing, cases = preprocess_settings(config).spacing, dataset.manifest.validation
    refused = {case.id: f"{case.id} (image channels): {said}" for case in cases
               if (headers := _headers_as_predict_judges(case.images)) is not None
               and (said := channel_units_refusal(config, case.images, spacing) or
                    channel_files_refusal(config, [Path(path) for path in case.images], headers) or
                    _voxels_refusal(config, Path(case.images[0]), headers[0], spacing)) is not None}
    others = [case for case in cases if case.id not in refused]
    read = read_check(_named_as_the_model(evaluated_manifest(dataset, config), config), cases=others).errors \
        if read_check is not None and others else []
    CheckReport(errors=[*refused.values(), *read], root=dataset.manifest.root,
                checked=pairs_checked(dataset.manifest, cases)).raise_if_errors(before="evaluation")


def _named_as_the_model(manifest: Manifest, config: dict) -> Manifest:
    """``manifest`` with the model's names of its channels (``inference_inputs.channels_named``), for the pre-flight
    check of the cases evaluate judges as the model's input, where it has the model's number of them: its refusals say
    a channel as predict's checks above and evaluate's count and order do. A Dataset naming its channels otherwise
    (``channel_names=['T1', 'FLAIR']`` for a model's ``MRI0``, ``MRI1``) had one report say a case's channel 0
    ``channel 0 (MRI0)`` and another case's ``image channel 0 (T1)`` until review r108 of the
    hundred-and-twenty-third session."""
    from .inference_inputs import channels_named

    if manifest.num_channels != int(config["in_channels"]):
        return manifest
    return dataclasses.replace(manifest, channels=channels_named(config))


def _headers_as_predict_judges(paths) -> list | None:
    """The channels' images, their headers read (a lazy load), where predict goes on to judge the case's units, the
    volumes its files hold and its voxel sizes; None where it refuses the case before
    (``inference_reading.read_channels``): a channel's header that cannot be read or places no voxel, or a first
    channel that is not 3D, which the pre-flight check then says. A 2D slice in metres was told to be rewritten in mm
    here, where predict says it is 2D, not a volume (review of h106)."""
    from .data.io import header_error, read_nifti

    try:
        headers = [read_nifti(Path(path), verify_stream=False) for path in paths]  # the voxels left in the file
    except DataError:
        return None
    if len(headers[0].shape) < 3 or any(header_error(path, header) is not None for path, header in zip(paths, headers)):
        return None
    return headers


def _voxels_refusal(config: dict, path: Path, header, spacing) -> str | None:
    """What predict says of the voxel sizes of a case whose first channel, its ``header`` read, is at ``path`` (its
    grid is every channel's), from its header alone: far finer than the model's spacing, or resampled beyond the
    host's memory; None where it takes them."""
    from .inference_reading import refuse_beyond_host_memory, refuse_voxels_far_finer

    try:
        refuse_voxels_far_finer(config, path, header, spacing)
        refuse_beyond_host_memory(config, path, header, spacing)
    except DataError as refusal:
        return str(refusal)
    return None
