"""MONAI imported without the BERT model of transformers, which only MONAI's Transchex uses.

Importing any part of MONAI imports all of ``monai.networks.nets`` (through ``monai.apps``), and its
Transchex module imports ``transformers.models.bert.modeling_bert`` at once wherever transformers is
installed, as it is with the deepspeed extra (accelerate's DeepSpeed path imports transformers) and
in the test environment. That import alone took 5-6 s of the 13-15 s that each process spent
importing the training stack on 2 cores (benchmarks/results/monai_import_2cpu.json): every rank of
every launch, every predict. Transchex is a vision-language network, none of the registry's.

MONAI imports it through ``optional_import``, which turns a failed import into a placeholder that
raises when used. So an import of transformers made from Transchex's module is refused here, and
only that one: transformers imported from anywhere else (accelerate's DeepSpeed integration) loads as
usual. Nothing in MONAI offers a switch for this. To use MONAI's Transchex in the same process,
import ``monai`` before ``accelerated_seg``.
"""

from __future__ import annotations

import importlib.abc
import sys

_TRANSCHEX = "monai.networks.nets.transchex"


class _TranschexWithoutTransformers(importlib.abc.MetaPathFinder):
    """Refuses transformers (and its submodules) to the Transchex module only; defers otherwise."""

    def find_spec(self, name, path, target=None):
        if name != "transformers" and not name.startswith("transformers."):
            return None
        frame = sys._getframe(1)
        while frame is not None:  # the import's callers: importlib's, MONAI's optional_import, the module
            if frame.f_globals.get("__name__") == _TRANSCHEX:
                raise ModuleNotFoundError(f"{name} is not imported for MONAI's Transchex by accelerated_seg "
                                          f"(accelerated_seg/monai_imports.py)", name=name)
            frame = frame.f_back
        return None


def install() -> None:
    """Put the finder first in ``sys.meta_path``, once; nothing when MONAI is imported already."""
    if "monai" in sys.modules or any(isinstance(f, _TranschexWithoutTransformers) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _TranschexWithoutTransformers())
