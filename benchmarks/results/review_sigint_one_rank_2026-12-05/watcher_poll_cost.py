"""What the stopping_together watcher's poll costs (hundred-and-sixth session's review): the round trip of one
``store.check([MESSAGE])`` on a TCPStore (torch's, as torchrun's rendezvous store), client and server in this one
process on this machine, 2000 calls, after 200 to warm; then what POLL_S (0.2 s) makes of it per second of a rank and,
for N ranks, in requests per second on rank 0's store.

    PYTHONPATH=. .venv/bin/python benchmarks/results/review_sigint_one_rank_2026-12-05/watcher_poll_cost.py
"""

import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist

from accelerated_seg.ranks_stop_together import MESSAGE, POLL_S

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
server = dist.TCPStore("127.0.0.1", port, 2, True, timedelta(seconds=30), wait_for_workers=False)
client = dist.PrefixStore("accelerated_seg/stopping_together/0/",
                          dist.TCPStore("127.0.0.1", port, 2, False, timedelta(seconds=30)))
for _ in range(200):
    client.check([MESSAGE])
times = []
for _ in range(2000):
    start = time.perf_counter()
    client.check([MESSAGE])
    times.append(time.perf_counter() - start)
times.sort()
median, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
print(f"torch {torch.__version__}: store.check round trip median {median * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us")
print(f"one rank's watcher: {1 / POLL_S:.0f} checks/s, {median / POLL_S * 100:.3f}% of a core's time in the round trip")
for ranks in (8, 64, 512, 4096):
    print(f"{ranks} ranks: {ranks / POLL_S:.0f} requests/s on rank 0's store")
