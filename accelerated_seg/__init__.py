"""accelerated_seg: 3D medical image segmentation on one accelerate-wrapped training loop."""

from importlib import import_module as _import_module

from .monai_imports import install as _install_monai_imports

_import_module(".launcher_death", __name__)  # reads this process's parent now (launcher_death.py says why)

__version__ = "0.1.0"

_install_monai_imports()  # before any module of the package imports MONAI (monai_imports.py says why)

# The estimator's two names at the top, as nobrainer's users reach for them (``from accelerated_seg
# import Dataset, Segmentation``), imported at their first use: ``import accelerated_seg`` comes
# first in every command, whose refusals must not wait for torch and MONAI (tests/refusals.py). Each is
# taken from the module it lives in: Dataset alone does not import Segmentation's module. ProcessLost, what a
# multi-GPU fit raises where one of its processes died (killed by the OOM killer), is there to be caught.
_ON_FIRST_USE = {"Dataset": "estimator_dataset", "Segmentation": "estimator", "ProcessLost": "estimator_process_lost"}


def __getattr__(name: str):
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_ON_FIRST_USE[name]}", __name__), name)
    globals()[name] = value  # the next lookup is a plain one
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))
