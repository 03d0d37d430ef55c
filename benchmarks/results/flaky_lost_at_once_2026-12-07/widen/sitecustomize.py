"""Widens windows for the probes (see ../probe.sh, ../probe_linger.sh), each env-gated.

PROBE_END_DELAY_S: on a launched process other than KILLED_RANK, ranks_stop_together._Watcher._end sleeps that long
before it reads the store, so that the store, kept by the killed main process's node's agent, has ended by then (as
a loaded host can make it).

PROBE_AGENT_LINGER_S: in the launcher of machine rank 0 (accelerate launch ... --machine_rank 0, torch elastic's agent,
which keeps the launch's store), torch's launch_agent, once it raises (its worker failed), holds that long before it
raises on, its frames, the store with them, alive: node 0's agent ends 0.3-1.3 s after its process's death as a rule,
later on a loaded host, so that the surviving process's publish lands while the store lives and its watcher reaches
_end; the store then ends as the launcher does."""
import importlib.abc
import importlib.util
import os
import sys
import time

NAME = "accelerated_seg.ranks_stop_together"
AGENT = "torch.distributed.launcher.api"


def _patched(module) -> None:
    end = module._Watcher._end

    def _end(self, *args, **kwargs):
        time.sleep(float(os.environ["PROBE_END_DELAY_S"]))
        if os.environ.get("PROBE_MARK"):
            open(os.environ["PROBE_MARK"], "a").write(f"_end slept, rank {os.environ.get('RANK')}\n")
        return end(self, *args, **kwargs)

    module._Watcher._end = _end


def _agent_lingers(module) -> None:
    launch_agent = module.launch_agent

    def lingering(*args, **kwargs):
        try:
            return launch_agent(*args, **kwargs)
        except BaseException:
            if os.environ.get("PROBE_MARK"):
                open(os.environ["PROBE_MARK"], "a").write("node 0's agent lingered\n")
            time.sleep(float(os.environ["PROBE_AGENT_LINGER_S"]))
            raise

    module.launch_agent = lingering


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, name=NAME, patch=_patched):
        self.name, self.patch = name, patch

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            self.patch(module)

        loader.exec_module = exec_module
        return spec


if os.environ.get("PROBE_END_DELAY_S") and os.environ.get("RANK") not in (None, os.environ.get("KILLED_RANK", "1")):
    sys.meta_path.insert(0, _Finder())
if (os.environ.get("PROBE_AGENT_LINGER_S") and os.environ.get("RANK") is None
        and "--machine_rank" in sys.argv and sys.argv[sys.argv.index("--machine_rank") + 1] == "0"):
    sys.meta_path.insert(0, _Finder(AGENT, _agent_lingers))

# tests/startup/sitecustomize.py, which this file shadows (probe_plugin.py puts this folder first): run as well
for _folder in sys.path:
    _startup = os.path.join(_folder, "sitecustomize.py")
    if _folder != os.path.dirname(os.path.abspath(__file__)) and os.path.isfile(_startup):
        _spec = importlib.util.spec_from_file_location("_startup_sitecustomize", _startup)
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
