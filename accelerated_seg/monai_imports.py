"""MONAI imported without the optional packages that only features of MONAI's which this package
never uses import: transformers' BERT for the Transchex network, scipy.signal for the ultrasound
confidence map and the 1D signal transforms.

Importing any part of MONAI imports all of ``monai.networks.nets`` and ``monai.transforms`` (through
``monai.apps``), and some of their modules import such a package at once:

- ``monai.networks.nets.transchex`` imports ``transformers.models.bert.modeling_bert`` wherever
  transformers is installed, as it is with the deepspeed extra (accelerate's DeepSpeed path imports
  transformers) and in the test environment: 5-6 s of the 13-15 s that each process spent importing
  the training stack on 2 cores (benchmarks/results/monai_import_2cpu.json). Transchex is a
  vision-language network, none of the registry's.
- ``monai.data.ultrasound_confidence_map`` (the UltrasoundConfidenceMapTransform of 2D ultrasound)
  and ``monai.transforms.signal.array`` (transforms of 1D signals) import ``scipy.signal``, and
  with it scipy.stats: about 0.9 s of the 8-9 s left (benchmarks/results/monai_import_scipy_signal_2cpu.json).
  Nothing else of the training or inference stack imports them. matplotlib and pandas (about 0.5 s
  each) stay: MONAI's plotting helpers and CSVDataset need them, which a user's script may call.

Every rank of every launch and every predict pays for these imports. MONAI makes each of them
through ``optional_import``, which turns a failed import into a placeholder that raises when used.
So each is refused here to that one module, the one whose code asks for it: the same package
imported from anywhere else (accelerate's DeepSpeed integration importing transformers) loads as
usual. Nothing in MONAI offers a switch for this. To use these features of MONAI in the same
process, import ``monai`` before ``accelerated_seg``.
"""

from __future__ import annotations

import importlib.abc
import sys

# MONAI's module -> (the package refused to it, with its submodules; the feature that needs it)
_REFUSED = {
    "monai.networks.nets.transchex": ("transformers", "MONAI's Transchex"),
    "monai.data.ultrasound_confidence_map": ("scipy.signal", "MONAI's UltrasoundConfidenceMapTransform"),
    "monai.transforms.signal.array": ("scipy.signal", "MONAI's signal transforms"),
}
_PACKAGES = frozenset(package for package, _ in _REFUSED.values())
# Frames between an import statement (or MONAI's optional_import call) and a finder
_PASSED_THROUGH = ("importlib._bootstrap", "importlib._bootstrap_external", "importlib", "monai.utils.module")


def _importer() -> str | None:
    """The module whose code made the import being looked up: the first frame outside importlib's
    machinery and MONAI's optional_import (so the package's own imports of its parts are its own)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in _PASSED_THROUGH:
        frame = frame.f_back
    return None if frame is None else frame.f_globals.get("__name__")


class _WithoutUnusedOptionals(importlib.abc.MetaPathFinder):
    """Refuses each package of ``_REFUSED`` to its module only; defers every other lookup."""

    def find_spec(self, name, path, target=None):
        if not any(name == package or name.startswith(package + ".") for package in _PACKAGES):
            return None
        refused = _REFUSED.get(_importer())
        if refused is not None and (name == refused[0] or name.startswith(refused[0] + ".")):
            raise ModuleNotFoundError(f"{name} is not imported for {refused[1]} by accelerated_seg "
                                      f"(accelerated_seg/monai_imports.py: import monai before accelerated_seg "
                                      f"to use it)", name=name)
        return None


def install() -> None:
    """Put the finder first in ``sys.meta_path``, once; nothing when MONAI is imported already."""
    if "monai" in sys.modules or any(isinstance(f, _WithoutUnusedOptionals) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _WithoutUnusedOptionals())
