"""Review of h85 (r71), beside its matter: does a stop published in one attempt of a launch (torch elastic's
--max_restarts) stop the next attempt too? ranks_stop_together's keys (accelerated_seg/stopping_together/<n>/) hold no
attempt, and the static rendezvous's store outlives the attempts (restart.py showed a record of attempt 0 there).

    PYTHONPATH=<checkout> accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --max_restarts 1 \
        --main_process_port <port> restart_published.py

Attempt 0: process 1 raises an error inside stopping_together (published: every process ends, status 1), and the
agent restarts both. Attempt 1: both enter stopping_together and work 3 s, then say they finished.
"""
import os
import time

import torch.distributed as dist

from accelerated_seg.ranks_stop_together import stopping_together

attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT")
dist.init_process_group("gloo")
rank = dist.get_rank()
print(f"attempt {attempt}: process {rank} starts", flush=True)
with stopping_together((RuntimeError,), lambda m: m):
    time.sleep(1.0)
    if attempt == "0" and rank == 1:
        raise RuntimeError("attempt 0's error")
    time.sleep(3.0)
print(f"attempt {attempt}: process {rank} finished its work", flush=True)
dist.barrier()
dist.destroy_process_group()
