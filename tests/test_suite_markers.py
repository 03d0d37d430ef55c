"""The suite's own bookkeeping: `pytest -m "not distributed"` (README, "Tests") leaves out every test that
launches processes, so each such test must carry the marker."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# What a test's code (its docstring aside) holds when it launches ranks: the tests' 2-process helper
# (test_distributed's and test_inference_distributed's launch_two), or accelerate's launcher itself.
LAUNCH_WORDS = ("accelerate.commands.launch", "--num_processes")


def _launches(test: ast.FunctionDef) -> bool:
    body = test.body[1:] if ast.get_docstring(test) else test.body
    return any((isinstance(node, ast.Call) and getattr(node.func, "id", None) == "launch_two")
               or (isinstance(node, ast.Constant) and isinstance(node.value, str)
                   and any(word in node.value for word in LAUNCH_WORDS))
               for statement in body for node in ast.walk(statement))


def _marked_distributed(module: ast.Module, test: ast.FunctionDef) -> bool:
    marks = [decorator for decorator in test.decorator_list] + [
        statement.value for statement in module.body if isinstance(statement, ast.Assign)
        and any(getattr(target, "id", None) == "pytestmark" for target in statement.targets)]
    return any("mark.distributed" in ast.unparse(mark) for mark in marks)


def test_every_test_that_launches_processes_is_marked_distributed():
    """A new test written between a marked test's decorator and its function takes the marker from it:
    so a predict launch of 2 processes ran under -m "not distributed", as did a resume launched onto 2
    processes that was never marked (until the ninety-second session)."""
    unmarked = []
    for path in sorted(TESTS.glob("test_*.py")):
        module = ast.parse(path.read_text())
        unmarked += [f"{path.name}::{node.name}" for node in module.body
                     if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and _launches(node)
                     and not _marked_distributed(module, node)]
    assert unmarked == [], f"launching tests without @pytest.mark.distributed: {unmarked}"
