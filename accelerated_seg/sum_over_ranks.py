"""The one collective of ``run_loop``'s optimizer step: a small tensor (the window's loss and the
preemption flag) summed over the ranks, started before the backward and read after it has been
queued. In train.py until the ninety-fifth session.
"""

from __future__ import annotations

import torch


class SumOverRanks:
    """The sum over all ranks of a small tensor, read on the host later without waiting for the work
    started after it (the backward). The tensor is summed in place.

    The collective is started asynchronously. On a GPU, ``tensor.tolist()`` would wait for everything
    queued before it, so the copy into pinned memory is queued behind the collective at once with an
    event after it, and ``values()`` waits for that event only; the host goes on queueing the backward.
    Over gloo (CPU processes) a blocking all-reduce is a second meeting point per step besides the
    gradients'; asynchronous, it runs on the process group's thread while this one computes the
    backward (2 CPU processes, tiny U-Net: our loop's cost over plain DDP went from 3.0 to 1.8 ms per
    step, docs/performance_history.md, "The per-step sum over ranks"). With one process there is nothing to
    sum.

    Every rank starts it at the same point of the step, so the collectives queued after it (DDP's
    gradient buckets, FSDP's reduce-scatters) are issued in the same order on every rank.
    """

    def __init__(self, tensor: torch.Tensor):
        self._pending, self._ready = None, None
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            work = dist.all_reduce(tensor, async_op=True)
            if tensor.device.type == "cuda":
                work.wait()  # on a GPU: the current stream waits for the collective, the host does not
            else:
                self._pending = work
        if tensor.device.type == "cuda":
            tensor = tensor.to("cpu", non_blocking=True)  # a pinned host tensor, filled when the stream gets there
            self._ready = torch.cuda.Event()
            self._ready.record()
        self._tensor = tensor

    def values(self) -> list:
        if self._pending is not None:
            self._pending.wait()
        if self._ready is not None:
            self._ready.synchronize()
        return self._tensor.tolist()
