"""The versions of the packages a run or a benchmark records, from their installed distributions' metadata.

Read without importing them: accelerate and MONAI took seconds to import where a benchmark's record alone
wanted their versions, and a module shadowing the installed package (a folder named ``monai`` on the path)
gave its own ``__version__`` as the package's (``benchmark.machine_info`` did both).
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version


def installed_version(name: str) -> str | None:
    """The version of the distribution ``name``; where none is installed, that of the module already imported
    under the name (a source tree on PYTHONPATH has no distribution: raising here stopped the main process
    alone, while the other ranks waited), else None. Nothing is imported."""
    try:
        return version(name)
    except PackageNotFoundError:
        return getattr(sys.modules.get(name), "__version__", None)
