"""The README's quick start is what CI runs: `.ci/run` calls exactly its test command."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands() -> list[str]:
    quick_start = ROOT.joinpath("README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", quick_start, flags=re.S)


def test_the_quick_start_has_two_commands_and_ci_runs_the_second_one():
    commands = _quick_start_commands()
    assert len(commands) == 2 and all("\n" not in command for command in commands), commands
    ci_lines = [line for line in ROOT.joinpath(".ci", "run").read_text().splitlines()
                if line and not line.startswith(("#", "set ", "cd "))]
    assert ci_lines == [commands[1]]


def test_the_test_command_s_options_come_from_the_extra_it_installs():
    """`-n 2 --dist worksteal` needs pytest-xdist: the test extra that the same command installs."""
    test_command = _quick_start_commands()[1]
    assert '-e ".[test]"' in test_command and " -n 2 " in f"{test_command} "
    assert re.search(r'"pytest-xdist[>=<]', ROOT.joinpath("pyproject.toml").read_text())


def test_the_install_builds_without_a_deprecated_setting():
    """The quick start's `pip install -e .` builds with the newest setuptools, which stops building the
    licence written as a TOML table from 2027-02-18 (its warning said so at every build): the SPDX
    expression instead, which setuptools reads from 77 on."""
    tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with Python 3.11's tomllib (3.10 has none)")

    pyproject = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in pyproject["build-system"]["requires"]
