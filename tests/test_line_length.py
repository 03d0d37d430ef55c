"""The code's lines are at most 121 characters (the project's style): 31 had drifted past it by the
ninety-third session, nine in benchmark_train.py, most in its table's format strings: nothing checked it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 121
FOLDERS = ("accelerated_seg", "examples", "tests")


def test_no_line_of_the_code_is_longer_than_121_characters():
    too_long = [f"{path.relative_to(ROOT)}:{number}: {len(line)} characters"
                for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if len(line) > LONGEST]
    assert not too_long, f"lines over {LONGEST} characters (wrap them):\n" + "\n".join(too_long)
