"""``accelerated_seg.inference`` was split along its ideas in the hundred-and-twelfth session
(``inference_reading``: a case's channel files; ``inference_cases``: the many-case driver). Every name that
the package, the tests, benchmarks, examples and docs import from it stays importable from it, as the same
object its new home holds: scripts written against the old paths keep working."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IMPORTED_IN_TEXT = re.compile(r"from accelerated_seg\.inference import \(?([\w\s,]+)\)?")


def names_imported_from_inference() -> set[str]:
    """Every name a ``from accelerated_seg.inference import ...`` (or, in the package, ``from .inference
    import ...``) anywhere in the project's code and docs names."""
    names = set()
    for path in [*ROOT.glob("accelerated_seg/**/*.py"), *ROOT.glob("tests/**/*.py"),
                 *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("examples/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                    node.module == "accelerated_seg.inference"
                    or (node.level == 1 and node.module == "inference" and path.parent.name == "accelerated_seg")):
                names.update(alias.name for alias in node.names)
    for path in [*ROOT.glob("docs/*.md"), ROOT / "README.md"]:
        for imported in IMPORTED_IN_TEXT.findall(path.read_text(encoding="utf-8")):
            names.update(name for name in re.split(r"[\s,]+", imported) if name)
    return names


def test_every_name_imported_from_inference_anywhere_still_is():
    import accelerated_seg.inference as inference

    names = names_imported_from_inference()
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
