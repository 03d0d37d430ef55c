"""The main process's watcher ending the process for an error published from a pipeline's stage while another of its
threads writes a large probability map under the line's lock (``write_nifti``, gzip: a write that is only long, not
hung), outside torch elastic (no agent: srun, mpirun), its main thread in a collective the other process never enters.
Is the map written whole and named, or cut short at 25 s? With SIGNAL_AT_S set, that signal (SIGNAL, SIGTERM unless
set) is sent then: does it end the process at once? SIGKILL at 200 s.

As held_write_watcher.py of benchmarks/results/stop_end_bounds_2026-12-06, the write a real one: a 512x512xSLICES
(200 unless set) map of 3 classes' float32 probabilities, 68 s for 400 slices on 2 cores (map_write_time.txt there).

Run (from /tmp, not a worktree: the children put their cwd first on sys.path, the package there with it):
     cd /tmp && PYTHONPATH=<package tree> .venv/bin/python \
         <worktree>/benchmarks/results/review_stop_bounds_2026-12-06/long_write_watcher.py
"""
import os
import signal
import socket
import subprocess
import sys
import time

SUBJECT = r'''
import os, sys, tempfile, threading, time
from pathlib import Path
import numpy as np
import torch, torch.distributed as dist
from accelerated_seg.data.io import write_nifti
from accelerated_seg.ranks_stop_together import stop_every_rank, stopping_together

dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=2)
if dist.get_rank() == 1:
    time.sleep(600)  # a process stuck: never in the collective, never ended
out = Path(tempfile.mkdtemp())
shape = (512, 512, int(os.environ.get("SLICES", "200")), 3)
probabilities = np.random.default_rng(0).random(shape, dtype=np.float32)
written = []
with stopping_together((MemoryError,), lambda message: f"{message} (written whole: {written} in {out})") as writing:
    held = threading.Event()

    def write_a_long_map():
        with writing:
            held.set()
            started = time.monotonic()
            write_nifti(out / "case_0.nii.gz", probabilities, np.eye(4))
            written.append("case_0")
            print(f"the map written whole in {time.monotonic() - started:.1f} s", flush=True)

    threading.Thread(target=write_a_long_map, daemon=True).start()
    held.wait()
    stage = threading.Thread(target=stop_every_rank, args=(ValueError("process 0, case case_1: ValueError: a bug"),),
                             daemon=True)
    stage.start()
    print("published", flush=True)
    dist.all_reduce(torch.zeros(1))  # process 1 never comes
'''

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2", "OMP_NUM_THREADS": "1"}
env.pop("TORCHELASTIC_RUN_ID", None)
other = subprocess.Popen([sys.executable, "-c", SUBJECT], env={**env, "RANK": "1", "LOCAL_RANK": "1"},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
child = subprocess.Popen([sys.executable, "-c", SUBJECT], env={**env, "RANK": "0", "LOCAL_RANK": "0"},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
try:
    assert child.stdout.readline() == "published\n"
    start = time.monotonic()
    signal_at = float(os.environ["SIGNAL_AT_S"]) if "SIGNAL_AT_S" in os.environ else None
    while child.poll() is None and time.monotonic() - start < 200:
        if signal_at is not None and time.monotonic() - start >= signal_at:
            sig = getattr(signal, os.environ.get("SIGNAL", "SIGTERM"))
            print(f"{time.monotonic() - start:.1f} s: still running, sent {sig.name}", flush=True)
            os.kill(child.pid, sig)
            signal_at = None
        time.sleep(0.1)
    if child.poll() is None:
        print(f"{time.monotonic() - start:.1f} s: still running: SIGKILL", flush=True)
        child.kill()
    child.wait()
    print(f"process 0 ended with {child.returncode} {time.monotonic() - start:.1f} s after the publish; its output:")
    print(child.stdout.read()[-1500:])
finally:
    other.kill()
    other.wait()
