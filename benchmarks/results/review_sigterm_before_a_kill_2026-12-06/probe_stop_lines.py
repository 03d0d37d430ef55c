"""Command: cd <checkout> && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    benchmarks/results/review_sigterm_before_a_kill_2026-12-06/probe_stop_lines.py
Review r84 of h96 (the hundred-and-eighteenth session): what a stop's line says where a process beside the one that
says it was seen ended before it answered the stop (lost_processes.EndedBeforeAnswering), on a gloo group of this
process alone, its store standing in for the launch's, children of this process standing in for the others (as
tests/test_lost_processes.py does). Cases:
  training: an interrupt's stop (Ctrl-C: its message empty, training's in_full its own line) with process 1 killed
  three: a launch of 3, a SIGTERM stop, the main process killed: how many lines do processes 1 and 2 say?
  stopped: process 1 stopped (SIGSTOP), not ended: is it waited for?
  exited: process 1 ended with status 0 before the stop (its work done): what is it called?
  answered: process 1 answered the stop, then was killed finishing its file: is it waited for? named?
  main_answered: the main process answered the stop, then was killed: does process 1 wait, and say anything?
Short waits here: SAID_WAIT_S 3 s, LEFT_WAIT_S 2 s (10 s and 3 s in a launch).
Updated in the hundred-and-twenty-first session (helper h114): the hundred-and-twentieth replaced the store's
TERMINATED flag (SIGTERM's stop alone) with STOPPED_BY (the number of the signal whose stop it was), and this probe,
still importing TERMINATED, failed with an ImportError. It now sets STOPPED_BY to SIGTERM's number where it set the
flag; nothing else changed. Its output at that session's code: after_h114.txt."""
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout

import torch.distributed as dist

from accelerated_seg import exit_now, lost_processes, processes_beside, ranks_stop_together
from accelerated_seg.ranks_stop_together import INTERRUPTED, MESSAGE, SAID, STOPPED_BY, WRITERS, _store, _Watcher

exit_now.remove_own_multiprocessing_folder = lambda: None
statuses = []
os._exit = statuses.append
ranks_stop_together._deaf_to_sigterm = lambda: None
ranks_stop_together.SAID_WAIT_S, ranks_stop_together.LEFT_WAIT_S = 3.0, 2.0
os.environ.update(LOCAL_RANK="0", LOCAL_WORLD_SIZE="3", MASTER_ADDR="127.0.0.1", MASTER_PORT="29561",
                  TORCHELASTIC_ERROR_FILE=os.path.join(tempfile.mkdtemp(), "error.json"))
dist.init_process_group("gloo", rank=0, world_size=1)
children = []


def beside(store, rank, local_rank, code="import time; time.sleep(60)"):
    child = subprocess.Popen([sys.executable, "-c", code])
    children.append(child)
    store.set(processes_beside._key(processes_beside._this_node(), local_rank),
              f"{rank} {child.pid} {processes_beside._start(child.pid)}")
    return child


def stop(prefix, message, interrupted=True, terminated=False):
    store = _store(prefix)
    store.set(MESSAGE, message)
    if interrupted:
        store.set(INTERRUPTED, "1")
    if terminated:  # the stop's signal, SIGTERM's (STOPPED_BY; the TERMINATED flag until the 120th session)
        store.set(STOPPED_BY, str(int(signal.SIGTERM)))
    store.set("where/0", "node 0, host")
    store.set("where/1", "node 0, host")
    store.set("where/2", "node 0, host")
    return store


def end(watcher, store, message, rank, ranks):
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with redirect_stdout(out), redirect_stderr(err):
        watcher._end(store, message, rank, ranks)
    return time.monotonic() - started, out.getvalue(), err.getvalue()


which = sys.argv[1:] or ["training", "three", "stopped", "exited", "answered", "main_answered"]
if "training" in which:
    store = stop("probe/training/", "")
    child = beside(store, 1, 1)
    child.kill(), child.wait()
    watcher = _Watcher("probe/training/", lambda message: "interrupted (Ctrl-C) after step 2; the newest whole "
                       "checkpoint is step_2", "stdout", peer_gone_in_full=lambda line: f"{line}; after step 2")
    took, out, err = end(watcher, store, "", 0, 2)
    print(f"training, process 1 killed before it answered a Ctrl-C stop: {took:.2f} s, status {statuses[-1]}, "
          f"stdout {out!r}, said {store.get(SAID).decode()!r}")
if "three" in which:
    message = "predict stopped by SIGTERM in process 0"
    store = stop("probe/three/", message, terminated=True)
    main = beside(store, 0, 2)
    main.kill(), main.wait()
    lines, folder = [], tempfile.mkdtemp()
    os.environ["TORCHELASTIC_RUN_ID"] = "probe"  # under torch elastic's agent, each local rank its error file's folder
    for rank in (1, 2):
        os.makedirs(os.path.join(folder, "attempt_0", str(rank - 1)))
        os.environ["TORCHELASTIC_ERROR_FILE"] = os.path.join(folder, "attempt_0", str(rank - 1), "error.json")
        watcher = _Watcher("probe/three/", lambda line: line,
                           untold_in_full=lambda line, rank=rank: f"{line} (process {rank} wrote 1 case(s) whole)")
        os.environ["LOCAL_RANK"] = str(rank - 1)
        took, out, err = end(watcher, store, message, rank, 3)
        lines += [line for line in err.splitlines() if line]
        print(f"three, main process killed, process {rank}: {took:.2f} s, status {statuses[-1]}, stderr {err!r}")
    os.environ["LOCAL_RANK"] = "0"
    del os.environ["TORCHELASTIC_RUN_ID"]
    print(f"three: {len(lines)} lines said on the node's stderr by processes 1 and 2")
if "stopped" in which:
    store = stop("probe/stopped/", "predict stopped by SIGTERM in process 0", terminated=True)
    store.add(WRITERS, 1)
    child = beside(store, 1, 1)
    child.send_signal(signal.SIGSTOP)
    took, out, err = end(_Watcher("probe/stopped/", lambda line: line), store, "predict stopped by SIGTERM in "
                         "process 0", 0, 2)
    print(f"stopped (SIGSTOP) process 1: {took:.2f} s (SAID_WAIT_S 3 + LEFT_WAIT_S 2 = waited), stderr {err!r}")
    child.send_signal(signal.SIGCONT)
if "exited" in which:
    store = stop("probe/exited/", "predict stopped by SIGTERM in process 0", terminated=True)
    child = beside(store, 1, 1, code="pass")
    child.wait()
    took, out, err = end(_Watcher("probe/exited/", lambda line: line), store, "predict stopped by SIGTERM in "
                         "process 0", 0, 2)
    print(f"exited (status {child.returncode}) process 1: {took:.2f} s, stderr {err!r}")
if "answered" in which:
    store = stop("probe/answered/", "predict stopped by SIGTERM in process 0", terminated=True)
    store.add(WRITERS, 1)
    child = beside(store, 1, 1)
    lost_processes.answer(store, 1)  # its watcher saw the stop; its write goes on under its lock
    child.kill(), child.wait()
    took, out, err = end(_Watcher("probe/answered/", lambda line: line), store, "predict stopped by SIGTERM in "
                         "process 0", 0, 2)
    print(f"answered, then process 1 killed in its write: {took:.2f} s, stderr {err!r}")
if "main_answered" in which:
    message = "predict stopped by SIGTERM in process 0"
    store = stop("probe/main_answered/", message, terminated=True)
    main = beside(store, 0, 2)
    lost_processes.answer(store, 0)
    main.kill(), main.wait()
    os.environ["LOCAL_RANK"] = "1"
    took, out, err = end(_Watcher("probe/main_answered/", lambda line: line,
                                  untold_in_full=lambda line: f"{line} (process 1 wrote 1 case(s) whole)"),
                         store, message, 1, 2)
    os.environ["LOCAL_RANK"] = "0"
    print(f"main_answered, then the main process killed: process 1 {took:.2f} s, status {statuses[-1]}, "
          f"stderr {err!r}")
for child in children:
    child.kill()
    child.wait()
