"""The baseline of ``accelerated-seg benchmark train``: the training step written in bare PyTorch.

What a user writes without a framework, doing the same work as our loop: the same network, data,
precision (``torch.autocast``, plus a GradScaler for fp16), optimizer and its hyper-parameters, loss and
gradient clipping, in a ``forward/loss/backward/clip/step/zero_grad`` loop. Under several processes
it is wrapped in ``DistributedDataParallel`` with the options our accelerator passes, or sharded by
hand with torch's ``fully_shard`` into the same units as ours (``shard_like``). Its steps are split
into phases, so that the same code runs the timed blocks and the per-phase step breakdown.

Kept apart from ``benchmark_train`` so that the baseline can be read, and checked against the
training loop, on its own. Of the accelerator it reads only what accelerate decided (device,
processes, DDP options, the FSDP2 units of the prepared model); it never calls into it to train.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from dataclasses import dataclass, field

import torch

from .config import OptimConfig
from .data.workers import worker_start_method
from .losses import training_loss
from .optimizers import build_optimizer

AUTOCAST_DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def benchmark_optimizer(model: torch.nn.Module, optim: OptimConfig | None = None) -> torch.optim.Optimizer:
    """The optimizer as training builds it, for both loops: AdamW with the config's defaults, or what
    ``optim`` says (the case's levers: ``sgd``, ``fused_adamw``), at its unscaled ``lr``."""
    optim = optim or OptimConfig()
    return build_optimizer(model.parameters(), optim, optim.lr)


@dataclass
class PlainLoop:
    """One plain training step, split into phases: ``step`` runs them in the timed blocks,
    ``step_breakdown`` times each."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: object
    loader: torch.utils.data.DataLoader  # endless (EndlessShare): its workers run on between blocks
    device: torch.device
    autocast_dtype: torch.dtype | None
    scaler: torch.amp.GradScaler | None
    max_grad_norm: float
    steps_per_block: int  # one epoch of this rank's share
    _batches: object = field(default=None, repr=False)
    # Steps whose gradient norm was not finite, counted on the device (no sync in the timed steps): a
    # plain loop steps them anyway, where ours skips them (oneDNN's bf16 on the CPU makes some).
    _nonfinite: object = field(default=None, repr=False)

    @property
    def nonfinite_steps(self) -> int:
        return 0 if self._nonfinite is None else int(self._nonfinite)

    @property
    def batches(self):
        """The loader's one pass, started at the first use and never again."""
        if self._batches is None:
            self._batches = iter(self.loader)
        return self._batches

    def to_device(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(image, label) on the device: pinned host batches copied without blocking; with
        data.augment_on=gpu, the batch's spatial augmentation applied there, as our loop does."""
        from .data.gpu_augment import apply_affine

        moved = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
        if "affine" in moved:
            return apply_affine(moved["image"], moved["label"], moved["affine"])
        return moved["image"], moved["label"]

    def forward_loss(self, image, label):
        with torch.autocast(self.device.type, dtype=self.autocast_dtype, enabled=self.autocast_dtype is not None):
            logits = self.model(image)
        # The loss in fp32 outside autocast, as in our loop (accelerate returns the forward's outputs in fp32).
        return self.loss_fn(logits.float(), label)

    def backward(self, loss) -> None:
        if self.scaler is None:
            loss.backward()
        else:
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)  # so that clipping sees the true gradients

    def optimizer_step(self) -> None:
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm or math.inf)
        bad = (~torch.isfinite(norm)).to(torch.int64)
        self._nonfinite = bad if self._nonfinite is None else self._nonfinite + bad
        if self.scaler is None:
            self.optimizer.step()
        else:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        # After the step, as run_loop does: gradients are not kept while the other loop runs.
        self.optimizer.zero_grad(set_to_none=True)

    def step(self, batch) -> None:
        self.backward(self.forward_loss(*self.to_device(batch)))
        self.optimizer_step()


def make_plain_loop(model, dataset, batch: int, precision: str, accelerator, optim: OptimConfig | None = None,
                    workers: int = 0, sharded: bool = False, loss_fn=None) -> PlainLoop:
    """``optim``: the optimizer's settings (``benchmark_optimizer``; default: training's AdamW).
    ``sharded``: ``model`` was sharded with ``fully_shard`` (``shard_like``), so no DDP wrapper.
    ``loss_fn``: training's loss for the network (``losses.training_loss``; default: one output)."""
    device, processes = accelerator.device, accelerator.num_processes
    if not sharded:  # fully_shard already put the shards on the device
        model = model.to(device)
    # Over the unwrapped parameters as usual with DDP; after fully_shard, over its sharded DTensors.
    optimizer = benchmark_optimizer(model, optim)
    if processes > 1 and not sharded:
        from torch.nn.parallel import DistributedDataParallel

        # The DDP options our accelerator passes (preparation.make_accelerator's DistributedDataParallelKwargs).
        options = accelerator.ddp_handler.to_kwargs() if accelerator.ddp_handler is not None else {}
        model = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None, **options)
    sampler = EndlessShare(len(dataset), accelerator.process_index, processes)
    # With real data, the loader settings a careful user would pick, the same as ours.
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch, sampler=sampler, drop_last=True,
                                         num_workers=workers, persistent_workers=workers > 0,
                                         multiprocessing_context=worker_start_method(workers),
                                         prefetch_factor=4 if workers > 0 else None,
                                         pin_memory=workers > 0 and device.type == "cuda")
    scaler = None
    if precision == "fp16":  # the scaler accelerate picks: FSDP's for sharded gradients
        from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

        scaler = ShardedGradScaler(device.type) if sharded else torch.amp.GradScaler(device.type)
    return PlainLoop(model, optimizer, loss_fn or training_loss(), loader, device, AUTOCAST_DTYPES[precision], scaler,
                     OptimConfig().max_grad_norm, steps_per_block=len(dataset) // (batch * processes))


class EndlessShare(torch.utils.data.Sampler[int]):
    """This rank's share of a dataset, epoch after epoch without end: every ``processes``-th sample,
    as ``DistributedSampler`` without shuffling gives it, but without padding (the remainder is left
    out). One pass of a loader over it never ends, so its workers never stop at an epoch's end and
    refill, as our loop's loader runs through a whole run in one pass (``EpochSampler``): what a
    careful user of a bare loop writes for that."""

    def __init__(self, length: int, rank: int, processes: int):
        self.share = range(rank, length - length % processes, processes)

    def __iter__(self):
        while True:
            yield from self.share


def shard_like(model: torch.nn.Module, prepared: torch.nn.Module, plugin) -> list[str]:
    """Shard ``model`` in place with torch's ``fully_shard`` into the same FSDP2 units as ``prepared``
    (the same network after ``accelerator.prepare`` under an FSDP2 profile), as a user of FSDP2
    without accelerate would write it; returns the units' module names, children before parents,
    the root ("") last.

    What accelerate decided is read off ``prepared`` rather than recomputed, so the two cannot
    differ: activation-checkpoint wrappers at the same places (applied first, top-down, since a
    wrapped module's children are renamed under it), then ``fully_shard`` on every sub-module that
    is a unit there, bottom-up, with the plugin's ``reshard_after_forward``, precision and offload
    policies, and on the root with PyTorch's default (kept after forward), as accelerate does.
    """
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (CheckpointWrapper, OffloadWrapper,
                                                                             checkpoint_wrapper, offload_wrapper)
    from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard

    modules = list(prepared.named_modules())
    for name, module in modules:  # pre-order: an offload wrapper comes before the checkpoint wrapper inside it
        if isinstance(module, OffloadWrapper):
            model.set_submodule(name, offload_wrapper(model.get_submodule(name)))
        elif isinstance(module, CheckpointWrapper):
            # accelerate's FSDP2 activation checkpointing wraps without preserving the RNG state
            model.set_submodule(name, checkpoint_wrapper(model.get_submodule(name), preserve_rng_state=False))
    policies = {"mp_policy": plugin.mixed_precision_policy or MixedPrecisionPolicy(),
                "offload_policy": plugin.cpu_offload}
    units = [name for name, module in reversed(modules) if isinstance(module, FSDPModule)]
    for name in units:
        if name:
            fully_shard(model.get_submodule(name), reshard_after_forward=plugin.reshard_after_forward, **policies)
        else:
            fully_shard(model, **policies)
    return units


def run_block(plain: PlainLoop) -> float:
    """One block (an epoch) of the plain loop's steps; returns the seconds spent waiting for batches."""
    from .loop_clock import LoopClock

    clock = LoopClock()
    plain.model.train()
    for batch in itertools.islice(clock.timed(plain.batches), plain.steps_per_block):
        plain.step(batch)
    return clock.waited_total_s


class _PhaseClock:
    """Marks between the phases of a step: CUDA events on a GPU (no host sync inside the step), the
    host clock on a CPU (where every operation has finished when it returns)."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self.marks = []

    def mark(self) -> None:
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            self.marks.append(time.perf_counter())

    def durations_ms(self) -> list[float]:
        if self.cuda:
            torch.cuda.synchronize()
            return [a.elapsed_time(b) for a, b in zip(self.marks, self.marks[1:])]
        return [(b - a) * 1000 for a, b in zip(self.marks, self.marks[1:])]


def step_breakdown(plain: PlainLoop, accelerator) -> dict:
    """Median milliseconds per phase of the plain loop's steps over one extra (untimed) block."""
    phases = {"data_wait": [], "forward_loss": [], "backward": [], "optimizer": []}
    plain.model.train()
    accelerator.wait_for_everyone()
    for _ in range(plain.steps_per_block):
        start = time.perf_counter()
        batch = next(plain.batches)
        phases["data_wait"].append((time.perf_counter() - start) * 1000)  # host time blocked on the loader
        clock = _PhaseClock(accelerator.device)
        clock.mark()
        loss = plain.forward_loss(*plain.to_device(batch))  # the copy to the device counts as forward
        clock.mark()
        plain.backward(loss)
        clock.mark()
        plain.optimizer_step()
        clock.mark()
        for name, ms in zip(("forward_loss", "backward", "optimizer"), clock.durations_ms()):
            phases[name].append(ms)
    breakdown = {name: round(statistics.median(values), 3) for name, values in phases.items()}
    breakdown["step"] = round(sum(breakdown.values()), 3)
    breakdown["how"] = ("one extra block of the plain loop, median per phase; "
                        + ("CUDA events between phases" if accelerator.device.type == "cuda" else "host clock")
                        + f"; optimizer = clip + {type(plain.optimizer).__name__} step + zero_grad"
                        + _communication_note(plain, accelerator.num_processes))
    return breakdown


def _communication_note(plain: PlainLoop, processes: int) -> str:
    from torch.distributed.fsdp import FSDPModule

    if isinstance(plain.model, FSDPModule):
        return ("; forward includes FSDP2's all-gathers of each unit's parameters, backward its reduce-scatters "
                "of the gradients (and the re-gathers of units resharded after forward)")
    return "; backward includes DDP's all-reduce, overlapped with it in buckets" if processes > 1 else ""
