"""The suite's processes write and reuse bytecode, even where PYTHONDONTWRITEBYTECODE is set (conftest.py says why:
seconds of CPU per launch and per pytest-xdist process on the 2-core host, which sets it)."""

import os
import subprocess
import sys


def test_the_test_processes_and_every_process_they_start_write_bytecode():
    assert not sys.dont_write_bytecode  # pytest's assert rewriting caches the test files as Python does the package
    started = subprocess.run([sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"], env=os.environ,
                             capture_output=True, text=True, check=True)
    assert started.stdout.strip() == "False", started.stdout
