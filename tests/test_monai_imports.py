"""MONAI without transformers' BERT (accelerated_seg/monai_imports.py): measured in
benchmarks/results/monai_import_2cpu.json, checked here for what it must and must not change."""

import importlib
import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

try:  # installed, as the test extra has it (accelerate's DeepSpeed path imports it), though hidden from
    importlib.metadata.distribution("transformers")  # this process by tests/startup/sitecustomize.py
except importlib.metadata.PackageNotFoundError:
    pytest.skip("transformers is not installed", allow_module_level=True)


def _run(code: str) -> dict:
    """``code`` in a fresh process that can import transformers (tests/startup/sitecustomize.py hides it)."""
    env = {**os.environ, "ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS": "0"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_only_transchex_goes_without_transformers_which_loads_for_anyone_else():
    seen = _run("import json, sys\n"
                "import accelerated_seg.train\n"
                "before = sorted(m for m in sys.modules if m.split('.')[0] == 'transformers')\n"
                "import monai.networks.nets as nets\n"
                "try:\n"
                "    nets.Transchex(in_channels=1, img_size=(32, 32), num_classes=2, patch_size=(16, 16),\n"
                "                   num_language_layers=1, num_vision_layers=1, num_mixed_layers=1)\n"
                "    error = ''\n"
                "except Exception as e:\n"
                "    error = str(e)\n"
                "import transformers\n"  # anyone else's import (accelerate's DeepSpeed integration) loads it
                "print(json.dumps({'before': before, 'error': error, 'after': transformers.__name__}))")
    assert seen["before"] == [] and seen["after"] == "transformers", seen
    assert "not imported for MONAI's Transchex by accelerated_seg" in seen["error"], seen


def test_monai_imported_before_the_package_is_left_as_it_is(monkeypatch):
    """Whoever needs MONAI's Transchex imports monai first: then no finder is put in place."""
    from accelerated_seg import monai_imports

    importlib.import_module("monai")  # as such a user would have (in this process it is already)

    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if not isinstance(f, monai_imports._TranschexWithoutTransformers)])
    monai_imports.install()
    assert not any(isinstance(f, monai_imports._TranschexWithoutTransformers) for f in sys.meta_path)
