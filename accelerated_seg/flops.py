"""Model FLOPs utilisation: training FLOPs per sample, counted once with ``torch.utils.flop_counter``,
and the dense peak of the device they are divided by."""

from __future__ import annotations

import copy

import torch
from monai.utils import ensure_tuple_rep

from .losses import training_loss

# Dense (no 2:4 sparsity) peak tensor-core TFLOP/s from NVIDIA's H100/H200 datasheets, whose table
# gives sparse figures and says dense is half: H100 SXM / H200 BF16 and FP16 1979 -> 989.4, TF32
# 989 -> 494.7, FP32 (no tensor cores) 66.9; H100 PCIe BF16 1513 -> 756.5, TF32 756 -> 378, FP32 51.
# H200 is the H100 SXM compute die with more and faster memory. A key is matched when it is contained
# in torch.cuda.get_device_name(); other devices (H100 NVL, H200 NVL, ...) need --peak-tflops.
_SXM = {"bf16": 989.4, "fp16": 989.4, "tf32": 494.7, "fp32": 66.9}
PEAK_DENSE_TFLOPS = {
    "H200": _SXM,
    "H100 80GB HBM3": _SXM,  # how the SXM5 part names itself
    "H100 SXM": _SXM,
    "H100 PCIe": {"bf16": 756.5, "fp16": 756.5, "tf32": 378.0, "fp32": 51.0},
}
# Variants whose names contain a key above but whose peaks are lower: "H200" is in "NVIDIA H200 NVL" (the
# PCIe card, at a lower power), whose MFU was divided by the SXM part's peak. Such a name gets no peak.
OTHER_VARIANTS = ("NVL",)


def training_flops_per_sample(model: torch.nn.Module, in_channels: int, patch, loss_fn=None) -> tuple[int, str]:
    """FLOPs of forward + loss + backward for one sample, as ``FlopCounterMode`` counts them
    (convolutions and matrix products; a multiply-add is 2 FLOPs). Returns (flops, where counted).

    Counted on a copy on the meta device (shapes only: instant, no memory); where a network cannot
    run on meta, on a CPU copy. The input does not ask for gradients, as in training, so the first
    layer's input gradient is not counted.
    """
    from torch.utils.flop_counter import FlopCounterMode

    loss_fn = loss_fn or training_loss()  # as training's (losses.training_loss(spec) for deep supervision)
    for device in ("meta", "cpu"):
        try:
            net = copy.deepcopy(model).to(device)
            image = torch.zeros(1, in_channels, *ensure_tuple_rep(patch, 3), device=device)
            label = torch.zeros(1, 1, *ensure_tuple_rep(patch, 3), dtype=torch.uint8, device=device)
            with FlopCounterMode(display=False) as counter:
                loss_fn(net(image), label).backward()
            return int(counter.get_total_flops()), f"{device} device"
        except (NotImplementedError, RuntimeError):
            if device == "cpu":
                raise
    raise AssertionError("unreachable")


def dense_peak_tflops(device, precision: str, given: float | None) -> float | None:
    """Dense peak TFLOP/s of one device for this precision: ``given``, else the table for known GPUs.

    fp32 on a GPU counts as TF32 when cuDNN may use it (PyTorch's default for convolutions).
    """
    if given is not None:
        return given
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    if any(variant in name.split() for variant in OTHER_VARIANTS):
        return None
    table = next((peaks for key, peaks in PEAK_DENSE_TFLOPS.items() if key in name), None)
    if table is None:
        return None
    if precision == "fp32":
        return table["tf32"] if torch.backends.cudnn.allow_tf32 else table["fp32"]
    return table[precision]
