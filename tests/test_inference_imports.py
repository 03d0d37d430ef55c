"""``accelerated_seg.inference`` was split along its ideas in the hundred-and-twelfth session
(``inference_reading``: a case's channel files; ``inference_cases``: the many-case driver), and
``accelerated_seg.inference_files`` in the hundred-and-thirteenth (``inference_inputs``, ``inference_outputs``,
``predict_marks``, ``predict_names``). Every name that the package, the tests, benchmarks, examples and docs
import from either stays importable from it, as the same object its new home holds: scripts written against the old
paths keep working. A star import of either gives the module's own names (what it defines, or defined before its
split; ``__all__``), not the libraries and other modules' names it imports for its code."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The names ``accelerated_seg.inference_files`` defined before its split (at 637c692f: every one without a leading
# "_"), each held by inference_inputs, inference_outputs, predict_marks or predict_names now
INFERENCE_FILES_NAMES_BEFORE_THE_SPLIT = frozenset({
    "ESTIMATOR_PREDICT_NAMES", "InputCase", "PREDICTION_DESCRIP", "PREDICT_CASES_NAMES", "PREDICT_CASE_NAMES",
    "PREDICT_FILE_NAMES", "PredictNames", "case_key", "channel_order", "channels_config", "check_channel_count",
    "check_no_folder_as_a_channel", "check_one_case_call", "check_one_case_output", "check_outputs",
    "check_paths_given", "check_probabilities_output", "checked_outputs", "clear_stale_temporaries", "collect_cases",
    "done_as_written", "expand_inputs", "group_cases", "holding_output_folder", "home_expanded", "label_map_descrip",
    "label_map_digest", "made_by", "marked_by_predict", "output_paths", "prediction_ending", "prediction_key",
    "probabilities_path", "refuse_the_folder_of_the_scans", "remove_earlier_prediction",
    "remove_under_the_other_ending", "under_the_other_ending", "written_before", "written_by_predict"})
HOMES_OF_INFERENCE_FILES = ("inference_inputs", "inference_outputs", "predict_marks", "predict_names")


# Every name without a leading "_" that ``from accelerated_seg.inference import X`` gave at one commit or another of
# accelerated_seg/inference.py from 2026-12-03 to the hundred-and-twelfth session's split and gave no more after it
# (each version's top-level imports and definitions, read by ast from ``git show``, less what the module holds now):
# what it imported for the code that moved out, and TTA_MODES, check_outputs, ... dropped since 2026-12-03. Left out:
# IMPORTED_FOR_THE_MOVED_CODE (the hundred-and-thirteenth session's list of these, for 22 minutes),
# size_1_axes_advice (no longer in the package) and the standard library's (STANDARD_LIBRARY_NAMES_IT_IMPORTED).
IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT = frozenset({
    "DECLARE_MM", "FINER_THAN_THE_TARGET", "GRID_ATOL_MM", "InputCase", "PLACEMENT_CONFLICT_FIX",
    "PREDICT_CASES_NAMES", "REWRITE_FROM_MICROMETRES_CODE", "TTA_MODES", "VOXEL_SIZE_CONFLICT_FIX", "Volume",
    "by_sigterm", "case_key", "channel_first_advice", "channel_in_another_unit", "channel_order", "channel_units_words",
    "check_no_folder_as_a_channel", "check_outputs", "checked_outputs", "collect_cases", "content_not_fetched",
    "declared_in_mm", "dominant_voxels_said", "done_as_written", "far_finer", "far_finer_words", "grid_difference",
    "header_error", "holding_output_folder", "intensity_spread", "judge_units", "memory_available", "nifti_stem",
    "non_finite_counts", "one_at_a_time", "one_volume", "other_unit_words", "output_paths", "pipelined",
    "placement_conflict", "prediction_ending", "prediction_key", "ras_spacing_of", "read_nifti",
    "remove_under_the_other_ending", "resampled_shape_of", "spacing_unit", "spacing_was_set", "spatial_unit",
    "stacking_shift", "times_coarser", "times_off", "unit_likely_apart", "vector_layout_advice", "volumes_in",
    "voxel_size_conflict", "without_orientation", "written_before"})
# What it imported from the standard library for that code: no promise of inference's (served from the first hour
# of the hundred-and-fourteenth session to its review)
STANDARD_LIBRARY_NAMES_IT_IMPORTED = ("AbstractContextManager", "Iterator", "closing", "itertools", "nullcontext")


def defined_in(module: str) -> set[str]:
    """The names without a leading "_" that the source of ``accelerated_seg.<module>`` defines at its top level (its
    functions, classes and constants; not what it imports)."""
    tree = ast.parse((ROOT / "accelerated_seg" / f"{module}.py").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return {name for name in names if not name.startswith("_")}


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


def test_a_star_import_of_inference_gives_its_own_names_and_those_that_moved_to_inference_cases():
    """A module's __getattr__ is not asked by a star import unless __all__ names the name: from the
    hundred-and-twelfth session's split to the hundred-and-thirteenth, ``from accelerated_seg.inference import *``
    gave no predict_cases, segment_cases, PredictInterrupted ... It gives what the module defines and what moved,
    not what it imports for its code (numpy, torch, another module's functions)."""
    import accelerated_seg.inference as inference

    given = star_import("inference")
    assert {"predict_cases", "segment_cases", "PredictInterrupted", "CaseJob", "predict_file"} <= given.keys()
    assert given.keys() == defined_in("inference") - {"MOVED_TO_INFERENCE_CASES"} | inference.MOVED_TO_INFERENCE_CASES
    assert all(given[name] is getattr(inference, name) for name in given)
    from accelerated_seg.inference_cases import predict_cases

    assert given["predict_cases"] is predict_cases


def test_every_name_imported_from_inference_files_anywhere_still_is_its_new_homes():
    import accelerated_seg.inference_files as inference_files

    names = names_imported_from("inference_files")
    assert {"InputCase", "expand_inputs", "holding_output_folder", "marked_by_predict", "probabilities_path"} <= names
    assert not [name for name in sorted(names) if not hasattr(inference_files, name)]
    for name in sorted(names | INFERENCE_FILES_NAMES_BEFORE_THE_SPLIT):
        (home,) = [home for home in HOMES_OF_INFERENCE_FILES if name in defined_in(home)]
        assert getattr(inference_files, name) is getattr(importlib.import_module(f"accelerated_seg.{home}"), name)


def test_a_star_import_of_inference_files_gives_the_names_it_defined_before_the_split():
    """Not what it imported for its code then (numpy, nibabel, hashlib, nifti_stem, ...), which a star import gave
    while it had no __all__."""
    assert star_import("inference_files").keys() == INFERENCE_FILES_NAMES_BEFORE_THE_SPLIT


def test_every_name_inference_imported_before_its_split_is_importable_from_it_again_as_its_homes_object():
    """``from accelerated_seg.inference import collect_cases`` (and 57 more names the module imported for its code
    before the hundred-and-twelfth session's split) raised ImportError from that split to the hundred-and-fourteenth
    session. Each is its home's object, the home the module that defines it, and none is the module's API: no star
    import nor dir() gives them."""
    import accelerated_seg.inference as inference

    given: dict = {}
    for name in sorted(IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT):
        exec(f"from accelerated_seg.inference import {name}", given)  # the form a script uses
    homes = inference._HOMES_OF_WHAT_IT_IMPORTED
    assert sorted(name for names in homes.values() for name in names) == sorted(IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT)
    for home, names in homes.items():
        module = importlib.import_module(home, "accelerated_seg")
        for name in names:
            assert given[name] is getattr(module, name), name
            # the module that defines it, not one that imports it from there (a function's or class's own word)
            assert getattr(given[name], "__module__", module.__name__) in (module.__name__, None), name
    assert not IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT & (set(inference.__all__) | set(dir(inference)))
    assert not IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT & star_import("inference").keys()


def test_the_names_inference_imported_before_come_in_a_fresh_interpreter_with_no_import_cycle(tmp_path):
    """Imported first thing, before the package's other modules (inference_cases imports inference: a lookup
    that imported it at the top of inference would find it half made)."""
    names = ", ".join(sorted(IMPORTED_BY_INFERENCE_BEFORE_ITS_SPLIT))
    code = (f"from accelerated_seg.inference import {names}\n"
            "from accelerated_seg.inference import predict_cases\n"
            "import sys; print(sorted(m for m in sys.modules if m.startswith('accelerated_seg.inference')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "accelerated_seg.inference_cases" in done.stdout


@pytest.mark.parametrize("name", STANDARD_LIBRARY_NAMES_IT_IMPORTED)
def test_what_inference_imported_from_the_standard_library_is_not_given_by_it(name):
    with pytest.raises(ImportError, match=f"cannot import name '{name}'"):
        exec(f"from accelerated_seg.inference import {name}", {})


def test_a_patch_of_a_name_inference_imported_before_its_split_is_refused_naming_where_to_patch(monkeypatch):
    """Set on inference, a stand-in for one of these names is never called (inference_cases and the rest take each
    from elsewhere): a test patching it would pass unchecked, so the patch raises, naming the modules that hold it
    (a monkeypatch's, and mock.patch's), and leaves the name as it was. inference's own names are patched as ever."""
    from unittest import mock

    import accelerated_seg.inference as inference
    from accelerated_seg import inference_cases, inference_pipeline

    with pytest.raises(AttributeError, match=r"inference\.pipelined is not what the code calls .* "
                                             r"accelerated_seg\.inference_cases, accelerated_seg\.inference_pipeline"):
        monkeypatch.setattr(inference, "pipelined", lambda *args: None)
    with pytest.raises(AttributeError, match="inference.collect_cases is not what the code calls"):
        with mock.patch("accelerated_seg.inference.collect_cases"):
            pass
    monkeypatch.undo()  # puts back what the name gives: no error
    assert inference.pipelined is inference_pipeline.pipelined is inference_cases.pipelined
    assert "pipelined" not in vars(inference) and "collect_cases" not in vars(inference)
    monkeypatch.setattr(inference, "predict_file", "a stand-in")  # its own
    # none of the refused names is one inference's code reads (imported there again, a patch of it would work)
    assert not inference._HOME_OF.keys() & {node.id for node in ast.walk(ast.parse(
        (ROOT / "accelerated_seg" / "inference.py").read_text(encoding="utf-8"))) if isinstance(node, ast.Name)}
    assert inference.predict_file == "a stand-in"
