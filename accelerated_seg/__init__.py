"""accelerated_seg: 3D medical image segmentation on one accelerate-wrapped training loop."""

from .monai_imports import install as _install_monai_imports

__version__ = "0.1.0"

_install_monai_imports()  # before any module of the package imports MONAI (monai_imports.py says why)
