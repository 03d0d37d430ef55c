"""MONAI imported without the optional packages that only features of MONAI's which this package
never uses import: transformers' BERT for the Transchex network, scipy.signal for the ultrasound
confidence map and the 1D signal transforms, scipy.sparse's solvers and graphs for that map and DiNTS,
TensorBoard for its image summaries, scipy.optimize for the panoptic quality metric, huggingface_hub for
the ResNet's pretrained weights, pandas for its tables.

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
  Nothing else of the training or inference stack imports them. The ultrasound map takes
  ``scipy.sparse.linalg``'s solvers too, and ``monai.networks.nets.dints`` (the DiNTS architecture search,
  none of the registry's networks) ``scipy.sparse.csgraph``'s Dijkstra, which imports them: 0.09-0.25 s.
- ``monai.visualize.img2tensorboard`` (MONAI's images and GIFs written to TensorBoard) and
  ``monai.handlers.tensorboard_handlers`` (MONAI's TensorBoard handlers of ignite workflows) import
  ``torch.utils.tensorboard`` and ``tensorboard``'s protobufs: 0.34-0.70 s of ``-X importtime`` in each
  process, training's and predict's (best of 3 under load). A run that logs to TensorBoard imports them
  anyway, in its main process alone, through accelerate's tracker.
- ``monai.metrics.panoptic_quality`` (the panoptic quality of pathology's instance segmentation) imports
  ``scipy.optimize``: 0.12-0.23 s. The Hausdorff distance and surface Dice that evaluate scores with
  use ``scipy.ndimage`` and ``scipy.spatial``, which stay.
- ``monai.networks.nets.resnet`` takes ``hf_hub_download`` from ``huggingface_hub`` at import, for the
  MedicalNet weights of its classification ResNet, none of the registry's networks: the hub's download
  code and its HTTP client, 0.07-0.25 s. A training process imports them later anyway, with ``datasets``
  (the case table); a predict process never does.
- ``monai.data.dataset`` and ``monai.data.iterable_dataset`` (the CSV datasets), ``monai.data.utils`` (a
  helper of tables), ``monai.utils.profiling``, ``monai.apps.tcia.utils`` and ``monai.handlers.mlflow_handler``
  import pandas, with pyarrow: 0.4-1.2 s. A predict process never imports it now; a training process does,
  through the case table's ``datasets``, which ``training_data.py`` imports with the rest of the stack.
  (``monai.data.utils`` takes ``pandas.DataFrame`` by name at import, so pandas cannot wait unrun as
  pyplot does below.)

One more is loaded late rather than refused: ``matplotlib.pyplot``, which ``monai.utils.jupyter_utils``
and ``monai.optimizers.lr_finder`` import at once wherever matplotlib is installed (the ``viz``
extra, the test environment, most researchers' environments): about 0.4 s of each process, for
plotting helpers that a user's script may well call; and the ``matplotlib`` package, which that import
runs first (its rcParams, colors and font settings, with pyparsing): 0.09-0.3 s more of ``-X importtime``
in each process, training's and predict's, though only the main process's report draws. Imported by
MONAI, each is a module whose code runs at the first use of any of its names, in the same module object
(as ``importlib.util.LazyLoader`` does, whose module loads at any attribute: MONAI's ``optional_import``
reads ``__file__`` at once).

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
import threading
import types

# MONAI's module -> (the packages refused to it, with their submodules; the feature that needs them)
_REFUSED = {
    "monai.networks.nets.transchex": (("transformers",), "MONAI's Transchex"),
    "monai.data.ultrasound_confidence_map": (("scipy.signal", "scipy.sparse.linalg"),
                                             "MONAI's UltrasoundConfidenceMapTransform"),
    "monai.networks.nets.dints": (("scipy.sparse.csgraph",), "MONAI's DiNTS topology search"),
    "monai.transforms.signal.array": (("scipy.signal",), "MONAI's signal transforms"),
    "monai.visualize.img2tensorboard": (("torch.utils.tensorboard", "tensorboard"),
                                        "MONAI's TensorBoard image summaries"),
    "monai.handlers.tensorboard_handlers": (("torch.utils.tensorboard",), "MONAI's TensorBoard handlers"),
    "monai.metrics.panoptic_quality": (("scipy.optimize",), "MONAI's PanopticQualityMetric"),
    "monai.networks.nets.resnet": (("huggingface_hub",), "MONAI's MedicalNet weights of its ResNet"),
    "monai.utils.profiling": (("pandas",), "MONAI's profiling tables"),
    "monai.data.utils": (("pandas",), "MONAI's tables of cases (convert_tables_to_dicts)"),
    "monai.data.dataset": (("pandas",), "MONAI's CSVDataset"),
    "monai.data.iterable_dataset": (("pandas",), "MONAI's CSVIterableDataset"),
    "monai.apps.tcia.utils": (("pandas",), "MONAI's TCIA downloads"),
    "monai.handlers.mlflow_handler": (("pandas",), "MONAI's MLFlowHandler"),
}
_PACKAGES = frozenset(package for packages, _ in _REFUSED.values() for package in packages)
# Loaded at its first use when a module of MONAI's imports it (the package too: importing pyplot runs it first)
_LOADED_ON_FIRST_USE = frozenset({"matplotlib", "matplotlib.pyplot"})
_LOADING = threading.RLock()
# Frames between an import statement (or MONAI's optional_import call) and a finder
_PASSED_THROUGH = ("importlib._bootstrap", "importlib._bootstrap_external", "importlib", "monai.utils.module")


def _importer() -> str | None:
    """The module whose code made the import being looked up: the first frame outside importlib's
    machinery and MONAI's optional_import (so the package's own imports of its parts are its own)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in _PASSED_THROUGH:
        frame = frame.f_back
    return None if frame is None else frame.f_globals.get("__name__")


class _LoadedOnFirstUse(types.ModuleType):
    """A module imported but not yet run: the first name looked up that it does not have (anything
    but the attributes the import system set: ``__file__``, ``__spec__``, ...) runs its code in this
    same object, which then is the module as a plain import would have left it."""

    def __getattr__(self, attr):
        with _LOADING:
            if type(self) is _LoadedOnFirstUse:  # not run meanwhile by another thread
                self.__class__ = types.ModuleType
                spec = self.__spec__
                spec.loader = self.__loader__ = spec.loader.loader
                try:
                    spec.loader.exec_module(self)
                except BaseException:
                    sys.modules.pop(spec.name, None)  # as a failed import leaves it: the next import retries
                    raise
        return getattr(self, attr)


class _RunOnFirstUse(importlib.abc.Loader):
    """Wraps the loader that the import would have used; the module's code waits for its first use."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return None  # the default module object, which _LoadedOnFirstUse's code runs in

    def exec_module(self, module):
        module.__class__ = _LoadedOnFirstUse


def _within(name: str, package: str) -> bool:
    """Whether module ``name`` is ``package`` or one of its submodules."""
    return name == package or name.startswith(package + ".")


class _WithoutUnusedOptionals(importlib.abc.MetaPathFinder):
    """Refuses each package of ``_REFUSED`` to its module only, hands MONAI's modules those of
    ``_LOADED_ON_FIRST_USE`` not yet run; defers every other lookup."""

    def find_spec(self, name, path, target=None):
        if name in _LOADED_ON_FIRST_USE:
            return self._spec_run_on_first_use(name, path, target, _importer())
        if not any(_within(name, package) for package in _PACKAGES):
            return None
        refused = _REFUSED.get(_importer())
        if refused is not None and any(_within(name, package) for package in refused[0]):
            raise ModuleNotFoundError(f"{name} is not imported for {refused[1]} by accelerated_seg "
                                      f"(accelerated_seg/monai_imports.py: import monai before accelerated_seg "
                                      f"to use it)", name=name)
        return None

    def _spec_run_on_first_use(self, name, path, target, importer):
        if importer is None or not importer.startswith("monai."):
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:  # the spec the import would have found
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _RunOnFirstUse(spec.loader)
        return spec


def install() -> None:
    """Put the finder first in ``sys.meta_path``, once; nothing when MONAI is imported already."""
    if "monai" in sys.modules or any(isinstance(f, _WithoutUnusedOptionals) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _WithoutUnusedOptionals())
