"""Validation during training: each whole validation volume scored once, by one rank, with the
metrics of ``accelerated-seg evaluate`` (evaluate.case_metrics), on its preprocessed grid.

Ranks share the cases by voxel count. Under FSDP and ZeRO-3 every forward gathers parameter shards,
a collective, so a rank with fewer windows keeps calling forward until the busiest rank is done.

Beside the scores, their means as the run records them (``validation_means``) and, per class, the cases scored by a
convention rather than measured (``empty_case_counts``) and the validation line's account of them
(``empty_cases_note``). Recording them, logging and exporting the best model are the run's (configured_run.py).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType, gather_object

from .data.loader import VolumeDataset
from .evaluate import both_empty, case_metrics, region_metrics, statistics
from .inference import class_map, sliding_window_logits, window_batches
from .inference_distributed import balance_by_voxels
from .preparation import model_input_dtype
from .regions import Regions


def forward_is_collective(accelerator: Accelerator) -> bool:
    """FSDP and ZeRO-3 gather parameter shards inside every forward pass."""
    if accelerator.distributed_type == DistributedType.DEEPSPEED:
        return accelerator.state.deepspeed_plugin.zero_stage == 3
    return accelerator.distributed_type == DistributedType.FSDP


@torch.no_grad()
def validate(accelerator: Accelerator, model, val_set: VolumeDataset, roi_size, num_classes: int, *,
             sw_batch_size: int = 4, overlap: float = 0.25, distances: bool = False,
             tolerance_mm: float = 1.0, regions: Regions | None = None,
             ignore_index: int | None = None) -> dict[str, np.ndarray]:
    """Per-case, per-foreground-class (per-region) metrics of the whole validation volumes, in case order.

    Cases are shared between ranks by voxel count (``balance_by_voxels``) and each is scored once, on
    its preprocessed grid and spacing, with ``evaluate.case_metrics`` (the code of ``accelerated-seg
    evaluate``). With ``regions`` (over class indices) the label map is painted from the regions as
    ``predict`` paints it, and each region of it scored against the label's. Returns {"dice": (cases,
    classes - 1 or regions)} plus "hd95_mm" and "surface_dice" when ``distances``, and "both_empty", True
    where the class is in neither the label nor the prediction (scored by evaluate's conventions for
    that: Dice 1, HD95 0 mm, or NaN in a case annotated in part), which a perfect score does not tell apart.
    The same on every rank.
    Where the labels hold ``ignore_index`` (unannotated voxels) only the annotated voxels are scored, and
    a case holding any has NaN for HD95 and surface Dice (a surface drawn in part); the others are measured.
    """
    model.eval()
    sharded = forward_is_collective(accelerator)
    # DDP and ZeRO-1/2 hold full weights on every rank: run the bare module so no collective runs in
    # forward and ranks with different volume sizes (window counts) never wait on each other.
    net = model if sharded else accelerator.unwrap_model(model)
    if (dtype := model_input_dtype(accelerator, model)) is not None:  # DeepSpeed's 16-bit weights
        bare = net
        net = lambda windows: bare(windows.to(dtype)).float()  # noqa: E731 - float32 logits stitch exactly
    shapes = [tuple(int(s) for s in shape) for shape in val_set.table["shape"]]
    shares = balance_by_voxels([math.prod(s) for s in shapes], accelerator.num_processes)
    metrics = ("dice", "hd95_mm", "surface_dice") if distances else ("dice",)
    mine = []
    for i in shares[accelerator.process_index]:
        case = val_set[i]
        with accelerator.autocast():
            logits = sliding_window_logits(net, case["image"][None].to(accelerator.device), roi_size,
                                           sw_batch_size, overlap)
        if regions is None:
            scores = case_metrics(class_map(logits, 1)[0], case["label"][0], num_classes, case["spacing"],
                                  tolerance_mm, distances=distances, ignore=ignore_index)
        else:  # a logit above 0 is a probability above regions.THRESHOLD
            scores = region_metrics(regions.paint(logits[0], threshold=0.0), case["label"][0], regions,
                                    case["spacing"], tolerance_mm, distances=distances, ignore=ignore_index)
        mine.append((i, [[scores[c][m] for c in sorted(scores)] for m in metrics]
                     + [[float(both_empty(scores[c])) for c in sorted(scores)]]))
    if sharded:  # every rank must call forward as often as the busiest one, or the shard gathers hang
        calls = [sum(window_batches(shapes[i], roi_size, sw_batch_size, overlap) for i in share) for share in shares]
        idle = torch.zeros(1, val_set.num_channels, *roi_size, device=accelerator.device)
        for _ in range(max(calls) - calls[accelerator.process_index]):
            with accelerator.autocast():
                net(idle)
    per_case = [values for _, values in sorted(gather_object(mine))]
    scores = {m: np.array([values[k] for values in per_case]) for k, m in enumerate(metrics)}
    return {**scores, "both_empty": np.array([values[-1] for values in per_case], dtype=bool)}


def validation_means(scores: dict[str, np.ndarray], names: Sequence[str]) -> tuple[float, dict[str, float | None]]:
    """``validate``'s scores as metrics.json and the trackers take them: the mean Dice over every case and class,
    and per class (``names``, in order) the mean of each metric over the cases, as ``evaluate``'s summary takes it:
    over the finite values (HD95 inf, one side empty, and the NaN of a case annotated in part left out), None where
    there is none (a class missed in every case, early in a run), each the exact mean rounded once
    (``evaluate.statistics``)."""
    per_class = {f"{metric}_{name}": statistics(values)["mean"] for metric in ("dice", "hd95_mm", "surface_dice")
                 if metric in scores for name, values in zip(names, scores[metric].T)}
    return statistics(scores["dice"].ravel())["mean"], per_class


def empty_case_counts(names: list[str], scores: dict[str, np.ndarray], sparse: bool = False) -> dict[str, int]:
    """Per class, the validation cases scored by a convention rather than measured (evaluate's
    n_both_empty and HD95's n_inf): in neither file (Dice 1, HD95 0 mm, in the means), and with
    train.val_distances those with one side empty (HD95 inf, left out of its mean). With an ignore label
    (``sparse``) and train.val_distances, the cases annotated in part, whose distances are NaN (evaluate's
    cases_annotated_in_part; since the ninety-third session, which measures the others), and of those in
    neither file the ones annotated in part, which have no HD95 (not 0 mm)."""
    counts = {f"n_both_empty_{name}": int(n) for name, n in zip(names, scores["both_empty"].sum(0))}
    if "hd95_mm" in scores:
        counts.update({f"hd95_mm_n_inf_{name}": int(n) for name, n in zip(names, np.isinf(scores["hd95_mm"]).sum(0))})
        if sparse:  # NaN in every class of such a case (evaluate.case_metrics), and nowhere else
            unmeasured = np.isnan(scores["hd95_mm"])
            counts["n_annotated_in_part"] = int(unmeasured.any(axis=1).sum())
            counts.update({f"n_both_empty_annotated_in_part_{name}": int(n)
                           for name, n in zip(names, (unmeasured & (scores["both_empty"] > 0)).sum(0))})
    return counts


def empty_cases_note(names: list[str], counts: dict[str, int], cases: int) -> str:
    """The validation line's account of ``empty_case_counts``, as evaluate gives it: without it, a
    class found in no case read "hd95_mm_<class>=0.0000" where it was in neither file of the other
    cases, as if found perfectly (and the line failed to print where it was in every case)."""
    distances = any(key.startswith("hd95_mm_n_inf_") for key in counts)
    parts = [f"{n} annotated in part (no HD95 or surface Dice there)" for n in [counts.get("n_annotated_in_part")] if n]
    for name in names:
        missed, neither = counts.get(f"hd95_mm_n_inf_{name}", 0), counts[f"n_both_empty_{name}"]
        in_part = counts.get(f"n_both_empty_annotated_in_part_{name}", 0)  # no HD95: not "0 mm" (93rd session)
        said = ([f"{missed} with one side empty (HD95 inf, not averaged)"] if missed else []) + (
            [f"{neither - in_part} in neither file (Dice 1{', HD95 0 mm' if distances else ''})"]
            if neither - in_part else []) + (
            [f"{in_part} in neither file of a case annotated in part (Dice 1, no HD95)"] if in_part else [])
        if said:
            parts.append(f"{name}: {', '.join(said)}")
    return f"\n  of {cases} case(s): {'; '.join(parts)}" if parts else ""
