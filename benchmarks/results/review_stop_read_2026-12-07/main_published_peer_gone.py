"""The main process's OWN stop for a peer gone (process 2, on node 1, killed: the main process's collective broke
first, it published, named process 2 lost and said that line, waited LEFT_WAIT_S and ended, node 0's agent and the
launch's store with it), read by process 1's poll on node 1, whose end a loaded host held past that store's end. What
does process 1 say? In-process (a gloo group of one, the store's end stood in for by a store refusing every call),
for the tree under PYTHONPATH.

    PYTHONPATH=<tree> python main_published_peer_gone.py
"""
import os
import sys
import tempfile

import torch.distributed as dist

from accelerated_seg import ranks_stop_together as rst
from accelerated_seg.lost_processes import FOR_A_PEER_GONE, answer

GLOO = "[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:29500"
LOST_2 = "process 2 (node 1, gpu-node-7) was lost: its connection closed in a collective"


class EndedStore:
    def __getattr__(self, name):
        def refused(*args):
            raise dist.DistError("Connection reset by peer")

        return refused


dist.init_process_group("gloo", init_method=f"file://{tempfile.mkdtemp()}/store", rank=0, world_size=1)
statuses = []
os._exit = statuses.append
rst._deaf_to_sigterm = lambda: None
os.environ["TORCHELASTIC_ERROR_FILE"] = os.path.join(tempfile.mkdtemp(), "error.json")
prefix = "accelerated_seg/probe/main_published/"
watcher = rst._Watcher(prefix, lambda message: message)
store = rst._store(prefix)
store.set("where/0", "node 0, gpu-node-1")
watcher.places[0] = "node 0, gpu-node-1"  # read at an earlier poll
# the main process's publish (``_publish`` as it runs on rank 0, peer_gone=True), its rank kept where the tree keeps it
store.compare_set(rst.FIRST, "", "main's")
if hasattr(rst, "PUBLISHED_BY"):
    store.set(rst.PUBLISHED_BY, "0")
store.set(FOR_A_PEER_GONE, "1")
store.set(rst.MESSAGE, GLOO)
poll = rst._poll if hasattr(rst, "_poll") else rst._polled
message = poll(store, watcher.stop)
print(f"process 1's poll read: {message[:40]}... kind {watcher.stop}")
answer(store, 0)  # the main process answered its own roll call, named process 2 lost and said it
store.set(rst.SAID, LOST_2)
print(f"the main process said: error: {LOST_2} ...")
try:
    watcher._end(EndedStore(), message, 1, ranks=3)
except dist.DistError:
    pass
sys.stderr.flush()
print(f"process 1 ended with {statuses}")
