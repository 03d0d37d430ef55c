"""How a TCPStore client's calls fail (torch's, as a launch's rendezvous store), for the stopping_together watcher's
bound on retries (hundred-and-seventh session): the store's host process killed (SIGKILL), stalled (SIGSTOP, then
SIGCONT), and a blip (a proxy between client and store resets the connection, the store living on). For each: the
first failing call's time and error, and whether later calls, as the watcher polls, fail as fast or work again.

    PYTHONPATH=. .venv/bin/python benchmarks/results/store_blip_2026-12-05/store_failures.py
"""

import multiprocessing
import os
import signal
import socket
import struct
import threading
import time
from datetime import timedelta

import torch
import torch.distributed as dist

TIMEOUT_S = 3.0  # the client's store timeout (a launch's is the process group's, 30 min by default)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(port, ready):
    store = dist.TCPStore("127.0.0.1", port, 1, True, timedelta(seconds=60), wait_for_workers=False)
    ready.set()
    time.sleep(3600)
    del store  # kept alive until here: the host serves while it holds it


def start_store():
    port = free_port()
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Event()
    host = spawn.Process(target=serve, args=(port, ready), daemon=True)
    host.start()
    ready.wait(120)  # torch's import, before the client's timeout starts
    client = dist.TCPStore("127.0.0.1", port, 1, False, timedelta(seconds=TIMEOUT_S))
    return host, port, client


def call(client):
    start = time.perf_counter()
    try:
        client.check(["message"])
        return time.perf_counter() - start, "ok"
    except Exception as error:  # noqa: BLE001 - what it raises is what this measures
        return time.perf_counter() - start, f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"


def polls(client, count=5, gap_s=0.2):
    for number in range(count):
        took, what = call(client)
        print(f"  call {number + 1}: {took * 1000:8.1f} ms  {what}", flush=True)
        time.sleep(gap_s)


def killed():
    print("store's host killed (SIGKILL):")
    host, _, client = start_store()
    call(client)
    os.kill(host.pid, signal.SIGKILL)
    host.join()
    polls(client)


def stalled(blocked_s=20.0):
    print(f"store's host stalled (SIGSTOP), client timeout {TIMEOUT_S} s; SIGCONT after {blocked_s:.0f} s:")
    host, _, client = start_store()
    call(client)
    os.kill(host.pid, signal.SIGSTOP)
    time.sleep(0.5)  # the signal is delivered asynchronously
    answered = []
    asking = threading.Thread(target=lambda: answered.append(call(client)), daemon=True)
    asking.start()
    asking.join(blocked_s)
    print(f"  call 1: {'still blocked' if asking.is_alive() else answered} after {blocked_s:.0f} s", flush=True)
    os.kill(host.pid, signal.SIGCONT)
    asking.join(30)
    print(f"  call 1, SIGCONT sent: {answered[0][1] if answered else 'still blocked'}", flush=True)
    polls(client, count=2)
    host.kill()


class Proxy(threading.Thread):
    """A TCP relay to the store that can reset every connection through it (RST, SO_LINGER 0): a network blip."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.target, self.listener = port, socket.create_server(("127.0.0.1", 0))
        self.port, self.open = self.listener.getsockname()[1], []

    def run(self):
        while True:
            near, _ = self.listener.accept()
            far = socket.create_connection(("127.0.0.1", self.target))
            self.open += [near, far]
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self.relay, args=(source, sink), daemon=True).start()

    @staticmethod
    def relay(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass

    def reset(self):
        for sock in self.open:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        self.open = []


def blip():
    print("a blip: every connection through a proxy reset once, the store living on:")
    host, port, _ = start_store()
    proxy = Proxy(port)
    proxy.start()
    client = dist.TCPStore("127.0.0.1", proxy.port, 1, False, timedelta(seconds=TIMEOUT_S))
    call(client)
    proxy.reset()
    time.sleep(0.05)
    polls(client)
    fresh = dist.TCPStore("127.0.0.1", proxy.port, 1, False, timedelta(seconds=TIMEOUT_S))
    print("  a new client of the same address, after the blip:", call(fresh)[1])
    dist.PrefixStore("default_pg", fresh).set("message", "a line")
    prefixed = dist.PrefixStore("default_pg", client)  # the broken client, as the process group's store wraps it
    started = time.perf_counter()
    clone = prefixed.clone()
    print(f"  the broken client's clone(), after the blip: {(time.perf_counter() - started) * 1000:.1f} ms, then",
          call(clone)[1], "; its keys where the prefixed store's are:", clone.get("message"))
    host.kill()


def cloned_gone(timeout_s):
    print(f"clone() of a client whose store's host was killed, store timeout {timeout_s} s:")
    host, _, client = start_store()
    client.set_timeout(timedelta(seconds=timeout_s))
    os.kill(host.pid, signal.SIGKILL)
    host.join()
    started = time.perf_counter()
    try:
        client.clone()
        what = "ok"
    except Exception as error:  # noqa: BLE001 - what it raises is what this measures
        what = f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"
    print(f"  {(time.perf_counter() - started):.2f} s  {what}", flush=True)


def plain_connect():
    print("a plain socket's connect to the address, as ranks_stop_together._reconnect asks it first:")
    host, port, _ = start_store()
    for state in ("host living", "host killed"):
        if state == "host killed":
            os.kill(host.pid, signal.SIGKILL)
            host.join()
        started = time.perf_counter()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            what = "connected"
        except OSError as error:
            what = f"{type(error).__name__}: {error}"
        print(f"  {state}: {(time.perf_counter() - started) * 1000:.2f} ms  {what}", flush=True)


if __name__ == "__main__":
    import sys

    print(f"torch {torch.__version__}", flush=True)
    for name in sys.argv[1:] or ["killed", "stalled", "blip", "cloned_gone", "plain_connect"]:
        globals()[name]() if name != "cloned_gone" else (cloned_gone(1.0), cloned_gone(TIMEOUT_S))
