"""``accelerated_seg.inference`` was split along its ideas in the hundred-and-twelfth session
(``inference_reading``: a case's channel files; ``inference_cases``: the many-case driver), and
``accelerated_seg.inference_files`` in the hundred-and-thirteenth (``inference_inputs``, ``inference_outputs``,
``predict_marks``, ``predict_names``). Every name that the package, the tests, benchmarks, examples and docs
import from either stays importable from it, as the same object its new home holds, and a star import of either
gives what it gave before its split: scripts written against the old paths keep working."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What ``from accelerated_seg.inference import *`` gave before its split (at e7662d02): every name the module held
# without a leading "_", as it had no __all__ (its imports' too: np, torch, nifti_stem, ...)
INFERENCE_STAR_BEFORE_THE_SPLIT = frozenset({
    "AGGREGATION_MEMORY_FRACTION", "AbstractContextManager", "AcceleratedSegWarning", "COMMAND_LINE_FP32",
    "Callable", "CaseJob", "Compose", "DECLARE_MM", "DataError", "FINER_THAN_THE_TARGET", "GRID_ATOL_MM",
    "ImagesReadAlready", "InputCase", "Invertd", "Iterator", "MetaTensor", "PLACEMENT_CONFLICT_FIX", "PRECISIONS",
    "PREDICTION_DESCRIP", "PREDICT_CASES_NAMES", "PREDICT_CASE_NAMES", "PREDICT_FILE_NAMES", "Path",
    "PredictInterrupted", "PredictNames", "PredictOptions", "PreparedCase", "PreprocessSettings",
    "REWRITE_FROM_MICROMETRES_CODE", "Regions", "RestoredCase", "Sequence", "VOXEL_SIZE_CONFLICT_FIX", "Volume",
    "aggregation_bytes", "aggregation_device", "annotations", "any_above_zero", "autocast_windows", "by_sigterm",
    "case_key", "case_prediction", "case_probabilities", "channel_first_advice", "channel_order", "channels_config",
    "check_channel_count", "check_no_folder_as_a_channel", "check_one_case_call", "check_paths_given",
    "check_precision", "checked_outputs", "class_map", "class_values", "closing", "collect_cases",
    "content_not_fetched", "could_not_be_segmented", "dataclass", "declared_in_mm", "default_device",
    "dominant_voxels_said", "done_as_written", "emulated_bf16_warning", "export_regions", "far_finer",
    "far_finer_words", "given_folders", "grid_difference", "header_error", "holding_output_folder", "home_expanded",
    "intensity_spread", "inverse_bytes", "judge_units", "keep_largest_components", "kept_whole", "label_dtype",
    "label_map_descrip", "largest_component_classes", "left_to_predict", "load_for_prediction", "math",
    "members_of", "memory_available", "mirror_axes", "mirrored_probabilities", "nib", "nifti_stem",
    "non_finite_counts", "np", "nullcontext", "one_at_a_time", "one_volume", "os", "other_unit_words",
    "output_channels", "pipelined", "placement_conflict", "precision_refusal", "predict_case", "predict_cases",
    "predict_file", "prediction_ending", "prediction_key", "prediction_settings", "prepare_case", "preprocess",
    "preprocess_bytes", "preprocess_settings", "preprocessed_on", "probabilities_path", "read_export_json",
    "read_nifti", "reading_and_rest", "remove_earlier_prediction", "remove_under_the_other_ending", "replace",
    "resampled_shape_of", "resampled_voxels", "resampling_bytes", "restore_case", "runs_transforms_on_device",
    "segment_cases", "sliding_window_inference", "sliding_window_logits", "spacing_unit", "spacing_was_set",
    "spatial_unit", "stacking_shift", "times_coarser", "times_off", "torch", "transforms_device",
    "vector_layout_advice", "volumes_in", "voxel_size_conflict", "warnings", "window_batches",
    "without_orientation", "write_case", "write_nifti", "written_by_predict"})
# ... and ``from accelerated_seg.inference_files import *`` before its split (at 637c692f)
INFERENCE_FILES_STAR_BEFORE_THE_SPLIT = frozenset({
    "AcceleratedSegWarning", "Collection", "ConfigError", "Counter", "DataError", "ESTIMATOR_PREDICT_NAMES",
    "HeaderDataError", "ImageOpener", "InputCase", "Iterable", "NAME_MAX", "OTHER_IMAGE_FORMATS",
    "PREDICTION_DESCRIP", "PREDICT_CASES_NAMES", "PREDICT_CASE_NAMES", "PREDICT_FILE_NAMES", "Path", "PredictNames",
    "RunLock", "Sequence", "annotations", "between_files", "case_key", "channel_order", "channels_config",
    "check_channel_count", "check_no_folder_as_a_channel", "check_one_case_call", "check_one_case_output",
    "check_outputs", "check_paths_given", "check_probabilities_output", "checked_outputs",
    "clear_stale_temporaries", "collect_cases", "content_not_fetched", "contextlib", "conversion", "dataclass",
    "done_as_written", "expand_inputs", "file_in_the_way", "file_or_unfetched", "functools", "glob_escape",
    "group_cases", "hashlib", "header_notes_unsaid", "hold_run_folder", "holding_output_folder", "home_expanded",
    "in_use", "interrupts_kept", "json", "label_map_descrip", "label_map_digest", "live_holder", "made_by",
    "marked_by_predict", "nib", "nifti_stem", "no_file_made_in", "np", "os", "other_image_files", "output_paths",
    "prediction_ending", "prediction_key", "probabilities_path", "raise_a_dropped_interrupt", "re",
    "refuse_the_folder_of_the_scans", "remove_earlier_prediction", "remove_stale_temporaries",
    "remove_under_the_other_ending", "resolve", "resource_fork", "under_the_other_ending", "unique_ids",
    "volumes_in", "warnings", "written_before", "written_by_predict", "zlib"})


def names_imported_from(module: str = "inference") -> set[str]:
    """Every name a ``from accelerated_seg.<module> import ...`` (or, in the package, ``from .<module>
    import ...``) anywhere in the project's code and docs names."""
    names = set()
    for path in [*ROOT.glob("accelerated_seg/**/*.py"), *ROOT.glob("tests/**/*.py"),
                 *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("examples/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                    node.module == f"accelerated_seg.{module}"
                    or (node.level == 1 and node.module == module and path.parent.name == "accelerated_seg")):
                names.update(alias.name for alias in node.names)
    imported_in_text = re.compile(rf"from accelerated_seg\.{module} import \(?([\w\s,]+)\)?")
    for path in [*ROOT.glob("docs/*.md"), ROOT / "README.md"]:
        for imported in imported_in_text.findall(path.read_text(encoding="utf-8")):
            names.update(name for name in re.split(r"[\s,]+", imported) if name)
    return names


def star_import(module: str) -> dict:
    """What ``from accelerated_seg.<module> import *`` binds."""
    given: dict = {}
    exec(f"from accelerated_seg.{module} import *", given)
    given.pop("__builtins__")
    return given


def test_every_name_imported_from_inference_anywhere_still_is():
    import accelerated_seg.inference as inference

    names = names_imported_from("inference")
    assert {"predict_cases", "predict_file", "prepare_case", "sliding_window_logits"} <= names  # the scan found them
    assert not [name for name in sorted(names) if not hasattr(inference, name)]


def test_the_moved_names_are_their_new_homes_objects():
    import accelerated_seg.inference as inference

    moved = {"accelerated_seg.inference_reading": ["read_channels", "refuse_beyond_host_memory"],
             "accelerated_seg.inference_cases": sorted(inference.MOVED_TO_INFERENCE_CASES)}
    for module, names in moved.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(inference, name) is getattr(home, name), name
    from accelerated_seg.inference import PredictInterrupted, predict_cases  # the form scripts use

    assert (predict_cases, PredictInterrupted) == (home.predict_cases, home.PredictInterrupted)
    # listed by dir() as before the split (help() and an editor's completion read it): it left them out, as the
    # module's __getattr__ alone serves them (the hundred-and-twelfth session's review)
    assert inference.MOVED_TO_INFERENCE_CASES <= set(dir(inference)) and "predict_file" in dir(inference)


def test_a_name_inference_never_had_is_still_an_attribute_error():
    import accelerated_seg.inference as inference

    with pytest.raises(AttributeError, match="has no attribute 'predict_everything'"):
        inference.predict_everything
    with pytest.raises(ImportError):  # a string: the scan above reads this file's imports too
        exec("from accelerated_seg.inference import predict_everything")


def test_a_star_import_of_inference_gives_what_it_gave_before_the_split():
    """A module's __getattr__ is not asked by a star import unless __all__ names the name: from the
    hundred-and-twelfth session's split to the hundred-and-thirteenth, ``from accelerated_seg.inference import *``
    gave no predict_cases, segment_cases, PredictInterrupted ..., nor the 54 names it had imported for the code
    that moved."""
    import accelerated_seg.inference as inference

    given = star_import("inference")
    assert not sorted(INFERENCE_STAR_BEFORE_THE_SPLIT - given.keys())
    assert {"predict_cases", "segment_cases", "PredictInterrupted", "CaseJob", "collect_cases"} <= given.keys()
    held = {name for name in vars(inference) if not name.startswith("_")}
    assert held <= given.keys()  # and every name it holds, as without __all__ (read_channels, np, ...)
    assert all(given[name] is getattr(inference, name) for name in given)
    from accelerated_seg.inference_cases import predict_cases
    from accelerated_seg.inference_reading import GRID_ATOL_MM, read_channels

    assert (given["predict_cases"], given["GRID_ATOL_MM"], given["read_channels"]) == (predict_cases, GRID_ATOL_MM,
                                                                                        read_channels)


def test_every_name_imported_from_inference_files_anywhere_still_is_its_new_homes():
    import accelerated_seg.inference_files as inference_files

    names = names_imported_from("inference_files")
    assert {"InputCase", "expand_inputs", "holding_output_folder", "marked_by_predict", "probabilities_path"} <= names
    assert not [name for name in sorted(names) if not hasattr(inference_files, name)]
    homes = [importlib.import_module(f"accelerated_seg.{home}")
             for home in ("inference_inputs", "inference_outputs", "predict_marks", "predict_names")]
    for name in sorted(names | INFERENCE_FILES_STAR_BEFORE_THE_SPLIT):
        held_by = [home.__name__ for home in homes if name in vars(home)]
        assert held_by and all(getattr(inference_files, name) is getattr(importlib.import_module(home), name)
                               for home in held_by), name


def test_a_star_import_of_inference_files_gives_what_it_gave_before_the_split():
    assert star_import("inference_files").keys() == INFERENCE_FILES_STAR_BEFORE_THE_SPLIT
