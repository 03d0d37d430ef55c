"""Review of h85 (r71): is a record of an earlier attempt of a launch (torch elastic's --max_restarts, the static
rendezvous's store kept by the agent across attempts) read as a process of this attempt?

    PYTHONPATH=<checkout> accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --max_restarts 1 \
        --main_process_port <port> restart.py

Attempt 0: both processes enter stopping_together (each watcher keeps itself, beside/<node>/<local rank>), then
process 1 exits with status 1 (its end, nothing published), which makes the agent restart both. Attempt 1: process 1
waits 3 s before it enters stopping_together (a slow start: its import, its data); process 0, in its own at once,
asks what processes_beside knows of process 1 and whether a roll call would take it for ended.
"""
import os
import time

import torch.distributed as dist

from accelerated_seg import processes_beside
from accelerated_seg.ranks_stop_together import _store, stopping_together

attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT")
dist.init_process_group("gloo")
rank = dist.get_rank()
if attempt == "0":
    with stopping_together((RuntimeError,), lambda m: m):
        time.sleep(1.0)
        if rank == 1:
            os._exit(1)
        time.sleep(30)
else:
    if rank == 1:
        time.sleep(3.0)
    with stopping_together((RuntimeError,), lambda m: m):
        if rank == 0:
            time.sleep(0.5)  # its own watcher's first look
            store = _store("accelerated_seg/stopping_together/0/")
            kept = processes_beside.kept_beside(store, [1])
            pids = [None, None]
            print(f"attempt {attempt}: process 1's record as read: {kept}; ended(): "
                  f"{[processes_beside.ended(p) for p in kept.values()]}; seen_ended: "
                  f"{processes_beside.seen_ended(store, [1])}", flush=True)
        gathered = [None, None]
        dist.all_gather_object(gathered, os.getpid())
        if rank == 0:
            print(f"attempt {attempt}: the processes' pids now: {gathered}", flush=True)
    dist.barrier()
