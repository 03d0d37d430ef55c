"""Does a SIGTERM sent to the main thread (``launched_sigterm._main_thread_woken_once``) cut a gloo collective short
where that thread waits in it? Two processes, gloo on the CPU: process 0 in an all_reduce from the start, SIGTERM sent
to its main thread 0.5 s in, five times (a handler that records); process 1 joins the all_reduce 3 s in.

    PYTHONPATH=<worktree> .venv/bin/python benchmarks/results/sigterm_on_another_thread_2026-12-06/poke_in_a_collective.py
"""
import os
import signal
import sys
import tempfile
import threading
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank: int, path: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=2)
    if rank == 0:
        came = []
        signal.signal(signal.SIGTERM, lambda *args: came.append(time.monotonic()))
        main = threading.main_thread().ident

        def poke() -> None:
            for _ in range(5):
                time.sleep(0.1)
                signal.pthread_kill(main, signal.SIGTERM)

        threading.Timer(0.5, poke).start()
    else:
        time.sleep(3.0)
    started, tensor = time.monotonic(), torch.ones(4)
    try:
        dist.all_reduce(tensor)
        outcome = f"returned {tensor.tolist()}"
    except Exception as error:  # noqa: BLE001 - reported
        outcome = f"raised {type(error).__name__}: {error}"
    took = time.monotonic() - started
    if rank == 0:
        print(f"process 0: all_reduce {outcome} after {took:.2f} s; its handler ran {len(came)} time(s), "
              f"{', '.join(f'{at - started:.2f} s' for at in came)} in", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        mp.spawn(run, args=(os.path.join(folder, "store"),), nprocs=2)
    sys.exit(0)
