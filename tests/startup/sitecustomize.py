"""Run by every Python process a test starts, and by the test processes pytest-xdist starts after
reading conftest.py, which puts this folder on their PYTHONPATH.

With ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS=1 (conftest.py's default) the process cannot import
transformers, as on a default install: transformers comes only with the deepspeed extra, which the
test environment has for tests/test_deepspeed_cpu.py (that file unsets the variable). So the test
processes start as the default install's do, in what they import and in what accelerate's command
line finds. MONAI imports transformers whenever it is installed, for its Transchex (``monai.networks.nets``
imports every network): hidden, the tests that launch processes ran in 0.77–0.80 of the time
(docs/testing.md, "Where the tier's time goes"). Since the fifty-ninth session the package itself keeps
transformers from Transchex alone (accelerated_seg/monai_imports.py), so that saving no longer depends on
this file.
ACCELERATED_SEG_TESTS_WITHOUT=deepspeed hides other packages so (tests/test_export.py).
"""

import importlib.machinery
import os
import sys

_HIDDEN = {"transformers"} if os.environ.get("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS") == "1" else set()
# Packages that one test's process must start without, as where they are not installed, though the test
# environment has them (comma-separated): DeepSpeed for the export's refusal of a ZeRO checkpoint
_HIDDEN |= set(filter(None, os.environ.get("ACCELERATED_SEG_TESTS_WITHOUT", "").split(",")))

if _HIDDEN:

    class _PathFinderWithout(importlib.machinery.PathFinder):
        """The finder of modules on sys.path, blind to those hidden: ``import transformers`` fails
        and ``importlib.util.find_spec("transformers")`` is None, as when it is not installed
        (accelerate's command line asks the latter). MONAI's optional_import catches the former and
        fails only if a Transchex is built. Their distribution metadata stays visible."""

        @classmethod
        def find_spec(cls, fullname, path=None, target=None):
            if fullname.partition(".")[0] in _HIDDEN:
                return None
            return super().find_spec(fullname, path, target)

    sys.meta_path[sys.meta_path.index(importlib.machinery.PathFinder)] = _PathFinderWithout
