"""The command line's own options (each command's behaviour is tested with its module)."""

import re
from importlib.metadata import version

import pytest

import accelerated_seg
from accelerated_seg.cli import main


def test_version_names_the_package_and_the_stack_on_one_line(capsys):
    with pytest.raises(SystemExit) as ended:
        main(["--version"])
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(f"accelerated-seg {accelerated_seg.__version__} (")
    assert f"torch {version('torch')}" in out and f"monai {version('monai')}" in out
    assert re.search(r"accelerate \S+, deepspeed (\S+|not installed); python 3\.\d+", out), out
    # the installed distribution's version is the package's own (pyproject reads __version__)
    assert version("accelerated_seg") == accelerated_seg.__version__
