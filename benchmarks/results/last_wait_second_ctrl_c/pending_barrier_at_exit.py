"""Does a process end whose Ctrl-C left ``wait_for_every_process`` with the barrier pending? (hundred-and-seventh
session's review)

Two processes of a gloo group (no launcher's agent to stop them); process 1 never enters the barrier (asleep 40 s).
Process 0 is sent SIGINT 0.5 s into ``last_wait.wait_for_every_process``, raised at once, then ends by ``os_exit``
(``os._exit``, as ``stopping_together``'s watcher and cli's ``end_process`` end a launched process), ``sys_exit``
(the interpreter's shutdown) or ``destroy`` (``destroy_process_group``, then the shutdown). The barrier's thread in
the process group is still waiting for process 1: the last two wait with it.

    PYTHONPATH=. .venv/bin/python benchmarks/results/last_wait_second_ctrl_c/pending_barrier_at_exit.py \
        > benchmarks/results/last_wait_second_ctrl_c/pending_barrier_at_exit.txt 2>&1
"""

import os
import signal
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

SENT_S, ASLEEP_S, WATCHED_S = 0.5, 40.0, 20.0


def process(rank: int, ending: str) -> None:
    import torch
    import torch.distributed as dist

    from accelerated_seg.last_wait import wait_for_every_process

    dist.init_process_group("gloo", rank=rank, world_size=2)
    if rank == 1:
        time.sleep(ASLEEP_S)
        os._exit(0)
    threading.Timer(SENT_S, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        wait_for_every_process(SimpleNamespace(device=torch.device("cpu"), local_process_index=0))
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
    if ending == "os_exit":
        os._exit(130)
    if ending == "destroy":
        dist.destroy_process_group()
    sys.exit(130)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        process(int(sys.argv[1]), sys.argv[2])
    for ending in ("os_exit", "sys_exit", "destroy"):
        env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29634", "OMP_NUM_THREADS": "1"}
        processes = [subprocess.Popen([sys.executable, __file__, str(rank), ending], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True) for rank in (0, 1)]
        said = processes[0].stdout.readline().strip()  # after the interrupt
        interrupted = time.monotonic()
        try:
            processes[0].wait(timeout=WATCHED_S)
            print(f"{ending}: {said}, process 0 ended {time.monotonic() - interrupted:.2f} s after, status "
                  f"{processes[0].returncode}")
        except subprocess.TimeoutExpired:
            print(f"{ending}: {said}, process 0 still running {WATCHED_S:.0f} s after (process 1 asleep); killed")
        for each in processes:
            each.kill()
            each.wait()
