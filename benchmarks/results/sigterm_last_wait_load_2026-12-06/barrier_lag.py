"""Command (from the worktree root; BUSY busy loops beside, all on cores 0-1):
    BUSY=4 ROUNDS=40 timeout 600 taskset -c 0,1 .venv/bin/python \
        benchmarks/results/sigterm_last_wait_load_2026-12-06/barrier_lag.py
How long after the process that comes last to a gloo barrier has it complete (its wait returns) the barrier of the
process that came first is complete too, as the last wait's is looked at (``is_completed``, polled every 1 ms on the
main thread, as a SIGTERM's decision would look): 2 CPU processes, process 1 0.2 s late to each of ROUNDS barriers.
Prints the lags' median, 90th percentile and maximum, and how many were not complete at process 1's return."""

import os
import subprocess
import sys
import tempfile
import time

import torch.distributed as dist
import torch.multiprocessing as mp

BUSY, ROUNDS = int(os.environ.get("BUSY", "4")), int(os.environ.get("ROUNDS", "40"))


def worker(rank: int, folder: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=rank, world_size=2)
    times = []
    for _ in range(ROUNDS):
        if rank == 1:
            time.sleep(0.2)
            dist.barrier()
            times.append(time.time())
        else:
            work = dist.barrier(async_op=True)
            while not work.is_completed():
                time.sleep(0.001)
            times.append(time.time())
        dist.barrier()  # both past the round before the next
    with open(f"{folder}/{rank}", "w") as out:
        out.write(repr(times))
    dist.destroy_process_group()


if __name__ == "__main__":
    busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(BUSY)]
    try:
        with tempfile.TemporaryDirectory() as folder:
            mp.spawn(worker, args=(folder,), nprocs=2)
            first, last = (eval(open(f"{folder}/{rank}").read()) for rank in (0, 1))
    finally:
        for process in busy:
            process.kill()
            process.wait()
    lags = sorted(1000 * (a - b) for a, b in zip(first, last))
    print(f"BUSY={BUSY}, {ROUNDS} rounds: lag of process 0's completion after process 1's, ms: median "
          f"{lags[len(lags) // 2]:.2f}, p90 {lags[int(0.9 * len(lags))]:.2f}, max {lags[-1]:.2f}, min {lags[0]:.2f}; "
          f"{sum(lag > 0 for lag in lags)} of {ROUNDS} later than process 1's")
