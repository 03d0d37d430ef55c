"""ranks_stop_together reaches the process group's store through torch's private ``_get_default_store``: torch 2.13
has no public way to it (module docstring). If torch removes or changes it, this says so by name, where otherwise a
launch's watchers would find no store and one rank's error would leave the others in their collective."""

import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d

from accelerated_seg.ranks_stop_together import _store

PRIVATE = "torch.distributed.distributed_c10d._get_default_store"


def test_the_process_groups_store_is_reached_through_torchs_private_get_default_store(one_process_group):
    assert callable(getattr(distributed_c10d, "_get_default_store", None)), (
        f"{PRIVATE} is gone from torch {torch.__version__}: ranks_stop_together._store reaches the launch's "
        f"store through this private API: find what replaces it, or connect a TCPStore to MASTER_ADDR:MASTER_PORT "
        f"there")
    written, read = _store("accelerated_seg/test/"), _store("accelerated_seg/test/")
    assert isinstance(written, dist.Store), f"{PRIVATE} no longer gives a Store: {written!r}"
    written.set("message", "a line")
    # the watcher and the rank that publishes each ask for it: the same store, the process group's
    assert read.check(["message"]) and read.get("message") == b"a line"
    assert not _store("accelerated_seg/other/").check(["message"])  # each use its own keys


def test_there_is_no_store_before_the_process_group():
    assert not dist.is_initialized()
    assert _store("accelerated_seg/test/") is None
