"""Command: PYTHONPATH=<tree> timeout 60 python store_lock_probe.py   (output: store_lock_probe_<tree>.txt)

A launched predict's main thread inside ranks_stop_together._made_within (a store's fresh client being made after a
blip, its lock _STAND_IN_LOCK held around the maker thread's start) when a SIGTERM comes that finds a process beside
this one ended (the agent's, or a job's as one dies): the decision asks the store whether an error is published
(an_error_is_published -> _store -> _launch_store), which takes _STAND_IN_LOCK, held by the interrupted main thread.
The death is simulated (one_has_ended patched True, the last wait not come), the launch by a 1-process gloo group
with LOCAL_RANK/WORLD_SIZE=2 and a watcher stand-in in _INSIDE. What should happen: the process ends with SIGTERM's
default (-15, a death and no error published). faulthandler prints every thread's stack at 20 s if it hangs."""
import faulthandler
import os
import signal
import socket
import sys
import threading
import types

os.environ.update(LOCAL_RANK="0", WORLD_SIZE="2")
import torch.distributed as dist  # noqa: E402

from accelerated_seg import launched_sigterm, ranks_stop_together  # noqa: E402

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
ranks_stop_together._INSIDE.append(types.SimpleNamespace(seen=threading.Event(), prefix="probe/"))
launched_sigterm.one_has_ended = lambda beside: True
launched_sigterm.every_process_came_to_the_last_wait = lambda: False
faulthandler.dump_traceback_later(20, exit=True)

sent = []


def trace(frame, event, arg):
    if event == "line" and frame.f_code.co_name == "_made_within" and ranks_stop_together._STAND_IN_LOCK.locked() \
            and not sent:
        sent.append(True)
        print("SIGTERM sent, _STAND_IN_LOCK held by the main thread in _made_within", flush=True)
        signal.raise_signal(signal.SIGTERM)
    return trace


with launched_sigterm.sigterm_as_an_interrupt_unless_one_has_ended():
    failed = ranks_stop_together._launch_store()
    sys.settrace(trace)
    try:
        ranks_stop_together._made_within(failed, f"127.0.0.1:{port}", 1.0)
    except KeyboardInterrupt as interrupt:
        sys.settrace(None)
        print("raised", type(interrupt).__name__, flush=True)
        threading.Event().wait(5)  # the watcher's decision, made once the lock is let go, ends the process
    sys.settrace(None)
print("not ended", flush=True)
