"""Run by tests/test_launched_sigterm.py in a process of its own (a decision that waits for ever holds it, not the
test's): a SIGTERM to a launched predict's process whose main thread holds ranks_stop_together's _STAND_IN_LOCK (a
fresh client of the store being made after a blip: ``_made_within`` holds it around its maker thread's start), a
process beside this one ended (simulated), so that the decision asks the store, which takes that lock. The launch is a
one-process gloo group with LOCAL_RANK and WORLD_SIZE=2, its watcher a stand-in. Prints what the main thread raised
(where it gets there first): the thread's decision (a death, no error published) ends the process with SIGTERM's
default once the lock is let go. Every thread's
stack is printed, and the process ended, status 1, should it still run 20 s on."""

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

if __name__ == "__main__":
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    ranks_stop_together._INSIDE.append(types.SimpleNamespace(seen=threading.Event(), prefix="stop_lock_held/"))
    launched_sigterm.one_has_ended = lambda beside: True
    launched_sigterm.every_process_came_to_the_last_wait = lambda: False
    launched_sigterm.DECIDED_WITHIN_S = 1.0
    faulthandler.dump_traceback_later(20, exit=True)
    sent = []

    def trace(frame, event, arg):
        # the signal sent once, at a line of _made_within under the lock: its handler runs as the call returns
        if (event == "line" and frame.f_code.co_name == "_made_within" and not sent
                and ranks_stop_together._STAND_IN_LOCK.locked()):
            sent.append(True)
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
            threading.Event().wait(10)  # the thread's decision, made once the lock is let go, ends the process
        sys.settrace(None)
    print("not ended", flush=True)
