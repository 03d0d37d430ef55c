"""accelerated_seg: 3D medical image segmentation on one accelerate-wrapped training loop."""

__version__ = "0.1.0"
