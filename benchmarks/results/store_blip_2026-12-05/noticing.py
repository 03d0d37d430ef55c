"""How soon process 1's stopping_together watcher notices the store's host (process 0, outside torch elastic) ended,
and how soon it sees an error process 0 published (hundred-and-seventh session; run before and after the retries).
Two processes on this machine, gloo, process 0 hosting the TCPStore (``tcp://`` init, as a launch without torch
elastic's agent); each scenario 5 times.

    PYTHONPATH=. .venv/bin/python benchmarks/results/store_blip_2026-12-05/noticing.py
"""

import ast
import multiprocessing
import os
import socket
import statistics
import tempfile
import time

import torch.distributed as dist

from accelerated_seg import ranks_stop_together
from accelerated_seg.ranks_stop_together import MESSAGE, _store, _Watcher

PREFIX = "accelerated_seg/noticing/"


def note(folder, name, *values):
    with open(os.path.join(folder, name), "w") as file:  # written before os._exit, which a Queue's thread is not
        file.write(repr(values))


def rank(number, port, scenario, folder):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=number, world_size=2)
    if number == 1:
        ended = []
        ranks_stop_together.os._exit = ended.append  # noqa: SLF001 - record, not end, this probe's process
        ranks_stop_together._deaf_to_sigterm = lambda: None
        ranks_stop_together.SAID_WAIT_S = 0.0  # process 0 says no line here
        watcher = _Watcher(PREFIX, str)
        watcher.start()
    dist.barrier()
    if number == 0:
        time.sleep(0.5)
        if scenario == "ended":
            note(folder, "event", time.time())
            os._exit(0)
        _store(PREFIX).set(MESSAGE, "process 0: a bug")
        note(folder, "event", time.time())
        time.sleep(3)
        os._exit(0)
    while not (watcher.gave_up.is_set() or watcher.seen.is_set()):
        time.sleep(0.001)
    note(folder, "noticed", time.time(), "gave up" if watcher.gave_up.is_set() else "saw the error")
    os._exit(0)


def once(scenario):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as folder:
        ranks = [spawn.Process(target=rank, args=(number, port, scenario, folder)) for number in (0, 1)]
        for process in ranks:
            process.start()
        for process in ranks:
            process.join(120)
        got = {name: ast.literal_eval(open(os.path.join(folder, name)).read()) for name in ("event", "noticed")}
    return got["noticed"][0] - got["event"][0], got["noticed"][1]


if __name__ == "__main__":
    print(f"POLL_S {ranks_stop_together.POLL_S}, retries: {hasattr(ranks_stop_together, 'GIVE_UP_AFTER_S')}")
    for scenario, event in (("ended", "process 0's exit"), ("error", "process 0's error published")):
        took = [once(scenario) for _ in range(5)]
        seconds = [seconds for seconds, _ in took]
        print(f"from {event} to process 1's watcher: {sorted({what for _, what in took})}, median "
              f"{statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms", flush=True)
