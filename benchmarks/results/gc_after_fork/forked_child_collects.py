"""A TCPStore server left as uncollected garbage in a cycle, then a fork whose child starts a gloo process group
(threads of its own) and runs a full collection: ``plain`` hangs (the store's destructor joins its server's thread,
whose stack glibc gave to one of the child's), ``freeze`` (gc.freeze() first in the child) returns. A child that
collects before its process group starts returns either way (``before``)."""
import gc
import os
import sys
import tempfile
import time

import torch.distributed as dist

gc.disable()  # nothing frees the garbage before the fork by chance
store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
cycle = [store]
cycle.append(cycle)
del store, cycle
pid = os.fork()
if pid == 0:
    if sys.argv[1] == "freeze":
        gc.freeze()
    if sys.argv[1] == "before":
        gc.collect()
    dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
    gc.collect()
    os._exit(0)
for _ in range(100):
    if os.waitpid(pid, os.WNOHANG)[0]:
        print(f"{sys.argv[1]}: the child returned")
        break
    time.sleep(0.1)
else:
    print(f"{sys.argv[1]}: the child hung (no return in 10 s)")
    os.kill(pid, 9)
