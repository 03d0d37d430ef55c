"""What does the last wait cost where no Ctrl-C comes? (hundred-and-seventh session's review)

Two CPU processes (torchrun, gloo), process 1 reaching the wait SKEW_MS after process 0, 20 waits each: torch's
``dist.barrier()`` (accelerate's wait_for_everyone, the last wait until this session), ``polled_50ms``
(``last_wait.wait_for_every_process`` looking every 50 ms from the first, as merged) and ``polled`` (its first look
after 1 ms, doubling to 50 ms, since the review). The median and the longest wait of each process.

    PYTHONPATH=. .venv/bin/python benchmarks/results/last_wait_second_ctrl_c/wait_cost.py \
        > benchmarks/results/last_wait_second_ctrl_c/wait_cost.txt 2>&1
"""

import os
import subprocess
import sys
import time
from types import SimpleNamespace

WAITS, SKEWS_MS = 20, (0, 5, 30)


def waits() -> None:
    import torch
    import torch.distributed as dist

    from accelerated_seg import last_wait

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    accelerator = SimpleNamespace(device=torch.device("cpu"), local_process_index=rank)
    first_look_s = last_wait.FIRST_LOOK_S
    lines = []
    for skew_ms in SKEWS_MS:
        for kind in ("barrier", "polled_50ms", "polled"):
            last_wait.FIRST_LOOK_S = last_wait.POLL_S if kind == "polled_50ms" else first_look_s
            took = []
            for _ in range(WAITS):
                dist.barrier()
                if rank == 1:
                    time.sleep(skew_ms / 1000)
                start = time.perf_counter()
                dist.barrier() if kind == "barrier" else last_wait.wait_for_every_process(accelerator)
                took.append(1000 * (time.perf_counter() - start))
            took.sort()
            lines.append(f"process {rank}, {skew_ms:2d} ms late on process 1, {kind:11s}: median {took[WAITS // 2]:5.1f} "
                         f"ms, longest {took[-1]:5.1f} ms")
    print("\n".join(lines), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        waits()
    else:
        launched = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                                   "--master_port", "29633", __file__, "waits"], capture_output=True, text=True,
                                  env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300)
        print("\n".join(sorted(launched.stdout.split("\n"))).strip() or launched.stderr[-2000:])
