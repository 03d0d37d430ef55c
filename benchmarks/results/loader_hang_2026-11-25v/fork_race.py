"""The hang's mechanism alone, without torch: fork a child while threads started from C (as torch's
and gloo's are) call into Python. Such a thread has no Python thread state, so each call creates
one and deletes it after, and the creation takes CPython's runtime lock (HEAD_LOCK) without
holding the GIL, so a fork can fall inside it. The child then inherits a held lock, and on
CPython before the fix of gh-112275 (3.11.7 here) waits for it forever in PyOS_AfterFork_Child:
the stack gdb showed in the hung loader worker. (Threads started from Python cannot do this: they
take that lock only while holding the GIL, which the forking thread holds.)

    python fork_race.py fork 3000        # children forked from the threaded process itself
    python fork_race.py forkserver 3000  # children forked by the single-threaded fork server

A child that has not ended 5 s after it started is counted as hung; the first one's stack is
printed (where gdb is installed), then it is killed.
"""

import ctypes
import multiprocessing
import shutil
import subprocess
import sys
import threading
import time

LIBC = ctypes.CDLL(None)  # glibc >= 2.34 has pthread_create in libc itself
THREAD_MAIN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)


def _nothing():
    pass


@THREAD_MAIN
def _call_into_python(_):  # runs on a thread created in C: a new thread state each call
    return None


def _churn(stop: threading.Event) -> None:
    """Start and join C threads that call into Python, one after another."""
    thread = ctypes.c_ulong()
    while not stop.is_set():
        if LIBC.pthread_create(ctypes.byref(thread), None, _call_into_python, None) == 0:
            LIBC.pthread_join(thread, None)  # a foreign call: the GIL is released meanwhile


def main(method: str, children: int) -> None:
    context = multiprocessing.get_context(method)
    stop = threading.Event()
    churners = [threading.Thread(target=_churn, args=(stop,), daemon=True) for _ in range(2)]
    for thread in churners:
        thread.start()
    hung, start = 0, time.perf_counter()
    for _ in range(children):
        child = context.Process(target=_nothing)
        child.start()
        child.join(timeout=5)
        if child.is_alive():
            hung += 1
            if hung == 1 and shutil.which("gdb"):
                stack = subprocess.run(["gdb", "-p", str(child.pid), "-batch", "-ex", "bt"], capture_output=True,
                                       text=True).stdout
                print("first hung child:\n" + "\n".join(line for line in stack.splitlines() if line.startswith("#")))
            child.kill()
            child.join()
    stop.set()
    print(f"{sys.version.split()[0]} {method}: {hung} of {children} children hung "
          f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
