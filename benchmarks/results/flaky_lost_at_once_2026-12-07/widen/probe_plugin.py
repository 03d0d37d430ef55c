"""A pytest plugin for the probes (pytest -p probe_plugin, this folder on PYTHONPATH): puts this folder first on the
PYTHONPATH of every process a test starts. tests/conftest.py puts tests/startup first, whose sitecustomize.py then
shadowed this folder's, so that no widening took effect (probe_main.txt, the first probe's, widened nothing)."""
import os
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)


def pytest_runtest_setup(item):
    paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path and path != HERE]
    os.environ["PYTHONPATH"] = os.pathsep.join([HERE, *paths])
