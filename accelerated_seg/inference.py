"""Sliding-window inference on whole volumes, and prediction of NIfTI files in their own geometry.

``sliding_window_logits`` is used by validation during training and by ``predict``, so the numbers
reported during training are the ones a user gets from the exported model. Nothing here imports the
training loop or knows about processes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import nibabel as nib
import numpy as np
import torch
from monai.data import MetaTensor
from monai.inferers import sliding_window_inference
from monai.transforms import Invertd

from .checkpoint import load_exported
from .data.io import read_nifti, write_nifti
from .data.preprocess import preprocess


def sliding_window_logits(model: torch.nn.Module, image: torch.Tensor, roi_size: Sequence[int],
                          sw_batch_size: int = 4, overlap: float = 0.25) -> torch.Tensor:
    """Logits for a whole (B, C, X, Y, Z) volume from overlapping patches blended with Gaussian weights."""
    return sliding_window_inference(image, tuple(roi_size), sw_batch_size, model, overlap=overlap, mode="gaussian")


@torch.no_grad()
def predict_file(model_dir: str | Path, inputs: str | Path | Sequence[str | Path], output: str | Path,
                 device: str | torch.device | None = None, sw_batch_size: int = 4, overlap: float = 0.5) -> Path:
    """Segment one case and write a label map with the input's shape, affine and header geometry.

    Args:
        model_dir: folder exported by training (config.json + model.safetensors).
        inputs: the image, or one image per channel in the model's channel order.
        output: path of the label map to write (.nii.gz).
        device: torch device; CUDA when available by default.
    """
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model, config = load_exported(model_dir)
    model.to(device)
    paths = [str(p) for p in ([inputs] if isinstance(inputs, (str, Path)) else inputs)]
    if len(paths) != config["in_channels"]:
        raise ValueError(f"model {model_dir} expects {config['in_channels']} channel image(s), got {len(paths)}: {paths}")
    reference = read_nifti(paths[0])  # also verifies the whole gzip stream before any work

    transform = preprocess(keys=["image"], spacing=config["spacing"])
    data = transform({"image": paths if len(paths) > 1 else paths[0]})
    image = data["image"]
    logits = sliding_window_logits(model, image.as_tensor()[None].to(device), config["patch_size"], sw_batch_size, overlap)
    # Invert orientation and resampling on probabilities (linear), then take the argmax on the input grid.
    probs = MetaTensor(torch.softmax(logits[0].float(), 0).cpu(), meta=image.meta,
                       applied_operations=image.applied_operations)
    restored = Invertd("pred", transform=transform, orig_keys="image", nearest_interp=False)(
        {"image": image, "pred": probs})["pred"]
    labels = restored.argmax(0).numpy().astype(np.uint8)
    if labels.shape != reference.shape[:3]:
        raise RuntimeError(f"internal error: prediction shape {labels.shape} != input shape {reference.shape[:3]}")
    write_nifti(output, labels, reference.affine, header=reference.header)
    return Path(output)
