"""Review of h85 (r71): what processes_beside keeps for a process in a pid namespace entered without its own /proc.

    unshare -Urpf env PYTHONPATH=<checkout> python pid_namespace.py

The process is pid 1 of its namespace (os.getpid()); /proc is the outer namespace's, where /proc/1 is another process
(the outer init) and /proc/self this one under its outer pid.
"""
import os

from accelerated_seg import processes_beside


class Store(dict):
    def set(self, key, value):
        self[key] = value


os.environ.update(LOCAL_RANK="0", LOCAL_WORLD_SIZE="1")
store = Store()
processes_beside.keep_this_process(store, 0)
print(f"os.getpid(): {os.getpid()}; /proc/self: {os.readlink('/proc/self')}; node: {processes_beside._this_node()}")
print(f"this process's own start (/proc/self/stat): {open('/proc/self/stat').read().rpartition(')')[2].split()[19]}")
print(f"/proc/{os.getpid()}/stat (the process the record names): {open(f'/proc/{os.getpid()}/stat').read()[:40]!r}")
print(f"kept: {dict(store) or 'nothing'}")
