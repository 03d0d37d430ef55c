"""Widens one window for the probe (see ../probe.sh): on a launched process other than KILLED_RANK, with
PROBE_END_DELAY_S set, ranks_stop_together._Watcher._end sleeps that long before it reads the store, so that the
store, kept by the killed main process's node's agent, has ended by then (as a loaded host can make it)."""
import importlib.abc
import importlib.util
import os
import sys
import time

NAME = "accelerated_seg.ranks_stop_together"


def _patched(module) -> None:
    end = module._Watcher._end

    def _end(self, *args, **kwargs):
        time.sleep(float(os.environ["PROBE_END_DELAY_S"]))
        if os.environ.get("PROBE_MARK"):
            open(os.environ["PROBE_MARK"], "a").write(f"_end slept, rank {os.environ.get('RANK')}\n")
        return end(self, *args, **kwargs)

    module._Watcher._end = _end


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != NAME:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            _patched(module)

        loader.exec_module = exec_module
        return spec


if os.environ.get("PROBE_END_DELAY_S") and os.environ.get("RANK") not in (None, os.environ.get("KILLED_RANK", "1")):
    sys.meta_path.insert(0, _Finder())
