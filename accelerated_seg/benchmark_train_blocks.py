"""``benchmark train``'s timed blocks: our loop run block by block, and every loop's blocks timed alike.

Ours is ``train.run_loop`` over a ``Loop`` built as ``train``/``fit`` build it (``our_loop``); a block is
``steps`` more optimizer steps of it, by raising ``loop.settings.max_steps`` (``run_our_block``). The plain
loop's block is ``plain_loop.run_block``. ``interleaved_blocks`` runs the loops' blocks in alternating order
after untimed warm-up rounds, each block's time the slowest rank's; ``allreduce_timing`` times one all-reduce
of the gradients' size apart from training.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import torch

from .benchmark_train_data import SyntheticPatches
from .config import OptimConfig
from .losses import training_loss
from .plain_loop import benchmark_optimizer


EPOCHS_IN_ONE_PASS = 10**6  # more blocks than any benchmark runs: the real loader never starts a second pass


def our_loop(accelerator, model, dataset, batch: int, optim: OptimConfig | None = None, workers: int = 0,
              seed: int = 0, loss_fn=None):
    from .data.loader import train_loader
    from .preparation import keep_the_optimizer_under_offload
    from .train import Loop, LoopSettings

    if isinstance(dataset, SyntheticPatches):  # already on the device: no workers, no sampling
        loader = torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=False)
    else:  # the training loader itself (sampler, workers, pinned memory, prefetch), in one pass as in training
        loader = train_loader(dataset, batch, workers, seed, epochs_per_pass=EPOCHS_IN_ONE_PASS,
                              processes=accelerator.num_processes, pin_memory=accelerator.device.type == "cuda")
    optimizer = benchmark_optimizer(model, optim)
    keep_the_optimizer_under_offload(accelerator, optimizer)  # as training does
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    # max_steps grows block by block; log_every so large that only a block's last step logs (run_loop
    # always logs its last step); no validation, no checkpoints.
    settings = LoopSettings(max_steps=0, log_every=10**9, val_every=0, save_every=0,
                            max_grad_norm=OptimConfig().max_grad_norm, progress_bar=False)
    return Loop(accelerator, model, optimizer, loss_fn or training_loss(), loader, settings,
                checkpoints_dir=Path(tempfile.gettempdir()) / "accelerated_seg_benchmark_unused")


def run_our_block(loop, steps: int) -> float:
    """``steps`` more optimizer steps of run_loop; returns the seconds its clock spent waiting for data."""
    from .train import run_loop

    waited = loop.clock.waited_total_s
    loop.settings.max_steps += steps
    run_loop(loop)  # continues from loop.progress
    return loop.clock.waited_total_s - waited


def interleaved_blocks(accelerator, blocks: dict, warmup: int, timed: int) -> tuple[list[dict], dict]:
    """Run each loop's block in turn: ``warmup`` rounds untimed, then ``timed`` rounds timed.

    The order flips every round (ours, plain | plain, ours | ours, plain ...): a steady drift in the
    machine's load, or a cost of coming first (caches, allocator), then falls on both loops alike.
    Every rank starts each block together (a barrier, outside the timing) and a block's time is the
    slowest rank's: the global rate is what the job gets.
    """
    device = accelerator.device
    warmup_s = dict.fromkeys(blocks, 0.0)
    for _ in range(warmup):
        for name, run in blocks.items():
            start = time.perf_counter()
            run()
            synchronize(device)
            warmup_s[name] += time.perf_counter() - start
    timeline = []
    for block in range(timed):
        order = list(blocks.items())
        for name, run in order if block % 2 == 0 else order[::-1]:
            accelerator.wait_for_everyone()
            start_bytes = _start_memory_stats(device)
            start = time.perf_counter()
            waited = run()
            synchronize(device)
            seconds = time.perf_counter() - start
            entry = {"loop": name, "block": block, "seconds": seconds}
            if device.type == "cuda":
                peak = torch.cuda.max_memory_allocated(device)
                entry.update(peak_allocated_gb=round(peak / 2**30, 3),
                             peak_above_start_gb=round((peak - start_bytes) / 2**30, 3))
            slowest = accelerator.gather(torch.tensor([[seconds, waited]], device=device, dtype=torch.float64)).max(0)
            entry["seconds"], entry["data_wait_s"] = slowest.values.tolist()
            timeline.append(entry)
    return timeline, warmup_s


def _start_memory_stats(device) -> int:
    if device.type != "cuda":
        return 0
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    return torch.cuda.memory_allocated(device)


def synchronize(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def allreduce_timing(numel: int, accelerator) -> dict:
    """One all-reduce of a gradient-sized fp32 buffer, timed apart from training (median of
    5 after one warm-up). DDP moves the same bytes, but in 25 MiB buckets overlapped with
    backward; this is the communication's cost if nothing overlapped it."""
    import torch.distributed as dist

    device, processes, repeats = accelerator.device, accelerator.num_processes, 5
    buffer = torch.ones(numel, dtype=torch.float32, device=device)
    dist.all_reduce(buffer)
    times = []
    for _ in range(repeats):
        accelerator.wait_for_everyone()
        synchronize(device)
        start = time.perf_counter()
        dist.all_reduce(buffer)
        synchronize(device)
        times.append(time.perf_counter() - start)
    seconds = float(accelerator.gather(torch.tensor([statistics.median(times)], device=device)).max())
    size = numel * 4
    return {"bytes": size, "ms": round(seconds * 1000, 3), "backend": dist.get_backend(),
            # nccl-tests' bus bandwidth: bytes each rank sends and receives in a ring all-reduce per second
            "bus_bandwidth_gb_s": round(2 * (processes - 1) / processes * size / seconds / 1e9, 3),
            "how": f"torch.distributed.all_reduce of one fp32 buffer of the gradients' size, median of {repeats}, "
                   "slowest rank; measured apart from training (DDP overlaps its bucketed all-reduce with backward)"}
