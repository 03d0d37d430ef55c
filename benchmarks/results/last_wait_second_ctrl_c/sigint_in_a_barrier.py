"""When does a SIGINT sent into a gloo barrier raise, by the barrier's kind? (hundred-and-seventh session)

Two CPU processes (torchrun, gloo): process 1 enters the barrier 2 s late; process 0 is sent SIGINT 0.30 s after it
entered, under Python's own handler. ``barrier``: torch's ``dist.barrier()``, as accelerate's wait_for_everyone calls
it (predict's last wait until this session); ``polled``: ``last_wait.wait_for_every_process`` (since).

    PYTHONPATH=. .venv/bin/python benchmarks/results/last_wait_second_ctrl_c/sigint_in_a_barrier.py \
        > benchmarks/results/last_wait_second_ctrl_c/sigint_in_a_barrier.txt 2>&1
"""

import os
import signal
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

SENT_S, LATE_S = 0.3, 2.0


def in_the_barrier(kind: str) -> None:
    import torch
    import torch.distributed as dist

    from accelerated_seg.last_wait import wait_for_every_process

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 1:
        time.sleep(LATE_S)
    else:
        threading.Timer(SENT_S, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        if kind == "barrier":
            dist.barrier()
        else:
            wait_for_every_process(SimpleNamespace(device=torch.device("cpu"), local_process_index=rank))
        if rank == 0:
            print(f"{kind}: no interrupt, the barrier returned after {time.monotonic() - start:.2f} s")
    except KeyboardInterrupt:
        print(f"{kind}: KeyboardInterrupt {time.monotonic() - start:.2f} s after entering (SIGINT sent at "
              f"{SENT_S:.2f} s, process 1 entered at {LATE_S:.2f} s)")
    except RuntimeError:  # process 1, whose partner left the barrier interrupted
        pass
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        in_the_barrier(sys.argv[1])
    else:
        for kind in ("barrier", "polled"):
            launched = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                                       "--master_port", "29631", __file__, kind], capture_output=True, text=True,
                                      env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=120)
            print(launched.stdout.strip() or launched.stderr[-2000:])
