"""What each rank measured of the loop, for the trackers at log steps and the summary at the end:
global samples/s and the data wait of the most starved rank (loop_clock.py), and on GPUs each
rank's peak memory and utilisation, gathered in one collective so that an unbalanced or starved GPU
shows while it trains.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from .loop_state import Loop

GPU_FIGURES = ("peak_allocated_gb", "peak_reserved_gb", "utilisation_pct")


def rank_figures(loop: Loop) -> dict:
    """What every rank measured since the last log step, in one gather (all ranks call it at the same
    steps): global samples/s, the data wait of the most starved rank and, on GPUs, each rank's peak
    memory since the run started and utilisation, so that an unbalanced or starved GPU shows in the
    tracker. One process gathers nothing (an Apple GPU has no float64 to gather in)."""
    accelerator = loop.accelerator
    mine = [*loop.clock.close_window(), *_gpu_figures(accelerator.device)]
    if accelerator.num_processes == 1:
        return figures_by_name([mine])
    every = accelerator.gather(torch.tensor([mine], dtype=torch.float64, device=accelerator.device)).tolist()
    return figures_by_name(every)


def _gpu_figures(device: torch.device) -> list[float]:
    """This rank's GPU_FIGURES: peak allocated and reserved memory (GiB), utilisation (%, NaN where
    NVML is missing: torch.cuda.utilization reads it through nvidia-ml-py); none off a GPU."""
    if device.type != "cuda":
        return []
    try:
        utilisation = float(torch.cuda.utilization(device))
    except Exception:  # noqa: BLE001 - no NVML (pip install "accelerated_seg[gpu]"): memory only
        utilisation = math.nan
    return [torch.cuda.max_memory_allocated(device) / 2**30, torch.cuda.max_memory_reserved(device) / 2**30,
            utilisation]


def figures_by_name(rows: list[list[float]]) -> dict:
    """Tracker names for the gathered rows (one per rank: samples/s, data-wait %, then GPU_FIGURES on
    GPUs). A figure a rank could not measure (NaN) is left out rather than logged as NaN."""
    figures = {"train/samples_per_s": sum(row[0] for row in rows), "train/data_wait_pct": max(row[1] for row in rows)}
    for rank, row in enumerate(rows):
        figures.update({f"gpu/rank{rank}/{name}": value for name, value in zip(GPU_FIGURES, row[2:])
                        if not math.isnan(value)})
    return figures


def peak_memory_gb(device: torch.device) -> float | None:
    """The run's peak allocated memory on its GPU (``make_accelerator`` starts the count); None off a GPU,
    also on a machine that has one (a CPU run there recorded 0.0 and started a CUDA context for it)."""
    return round(torch.cuda.max_memory_allocated(device) / 2**30, 3) if device.type == "cuda" else None
