"""How long a reconnect to a launch's store and the publishing of an error wait where the store's host is named
(MASTER_ADDR on several nodes) and its name server stops answering (hundred-and-thirteenth session).

Run inside a user, network and mount namespace of its own (``unshare -r -n -m``, which it re-runs itself under), so
that /etc/resolv.conf can name a name server of this script's: a UDP server on 127.0.0.1:53 that answers "storehost"
with 127.0.0.1 and then, for the outage, answers nothing, as an unreachable name server does (glibc waits 5 s a try,
2 tries by default). The process group is this process's alone; its store client names its host "storehost" and
reaches it through a relay whose connections are reset (a blip, as store_blip_2026-12-05's), the store living on.
Timed: ``_reconnect()`` (a watcher's retry after a failed poll), and ``_publish`` (the rank whose error must reach
every rank: it asks once more through a fresh client, then returns for its caller to raise), and the making of
``interrupt_in_the_rendezvous._Marks``' client of the agent's store (STORE_S). Once against the package before the
change, once after:

    PYTHONPATH=/work/main .venv/bin/python benchmarks/results/store_name_lookup_2026-12-06/name_lookup.py
    PYTHONPATH=. .venv/bin/python benchmarks/results/store_name_lookup_2026-12-06/name_lookup.py
"""

import os
import socket
import struct
import subprocess
import sys
import threading
import time
from datetime import timedelta

NAME = "storehost"


class NameServer:
    """Answers A queries for NAME with 127.0.0.1 (others with no record) while ``answering``; silent after."""

    def __init__(self):
        self.answering = True
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 53))
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            query, client = self.socket.recvfrom(512)
            if not self.answering:
                continue
            end = 12
            while query[end]:
                end += query[end] + 1
            labels, (kind,) = query[13:end], struct.unpack("!H", query[end + 1:end + 3])
            question = query[12:end + 5]
            found = kind == 1 and labels.replace(bytes([len(NAME)]), b"").decode(errors="replace") == NAME
            header = query[:2] + struct.pack("!HHHHH", 0x8180 if found or kind == 28 else 0x8183, 1, int(found), 0, 0)
            answer = struct.pack("!HHHIH", 0xC00C, 1, 1, 0, 4) + socket.inet_aton("127.0.0.1") if found else b""
            self.socket.sendto(header + question + answer, client)


class Relay:
    """Connections to 127.0.0.1:``port_to``, every one of which ``reset`` resets (RST), the store living on."""

    def __init__(self, port_to):
        self.port_to, self.listener, self.open = port_to, socket.create_server(("127.0.0.1", 0)), []
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            near, _ = self.listener.accept()
            far = socket.create_connection(("127.0.0.1", self.port_to))
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


def _failed(call):
    """The error ``call`` raised, in short."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the store's, printed
        return f"{type(error).__name__}: {str(error).splitlines()[0][:60]}"
    return "answered"


def timed(what, call):
    started = time.monotonic()
    result = call()
    print(f"{what} -> {result} in {time.monotonic() - started:.3f} s", flush=True)


def main():
    import torch.distributed as dist

    import accelerated_seg
    from accelerated_seg.ranks_stop_together import CONNECT_S, _publish, _reconnect, _store, _Watcher

    print(f"accelerated_seg from {os.path.dirname(accelerated_seg.__file__)}; CONNECT_S {CONNECT_S} s")
    name_server = NameServer()
    timed(f"lookup of {NAME!r}, name server answering", lambda: socket.getaddrinfo(NAME, 1)[0][4])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    host = dist.TCPStore("127.0.0.1", port, 1, True, timedelta(seconds=30), wait_for_workers=False)
    relay = Relay(port)
    client = dist.TCPStore(NAME, relay.port, 1, False, timedelta(seconds=30))
    dist.init_process_group("gloo", store=client, rank=0, world_size=1)
    relay.reset()
    timed("name server answering: _reconnect()", _reconnect)
    name_server.answering = False
    relay.reset()
    # torch's own: the first call a reset client fails formats its error with the client socket's host name, a
    # reverse lookup (socket.cpp: "The hostname of the client socket cannot be retrieved"), not bounded by us
    timed("name server silent: torch's first failing call (a poll's check)",
          lambda: _failed(lambda: _store("accelerated_seg/probe/").check(["message"])))
    timed("name server silent: _reconnect()", _reconnect)
    timed("name server silent: torch's later failing call", lambda: _failed(lambda: _store("x/").check(["x"])))
    # not started: the publishing rank's path alone, its client's first failure behind it (as after a watcher's poll)
    watcher = _Watcher("accelerated_seg/probe/", str)
    timed("name server silent: _publish (returns for its caller to raise)",
          lambda: _publish(watcher, RuntimeError("process 0: out of memory")))
    # a rank's client of torch's agent's store as it enters the rendezvous, MASTER_ADDR named (interrupt_in_the_rendezvous)
    from accelerated_seg.interrupt_in_the_rendezvous import STORE_S, _Marks

    os.environ.update(TORCHELASTIC_USE_AGENT_STORE="True", MASTER_ADDR=NAME, MASTER_PORT=str(port), WORLD_SIZE="2",
                      RANK="1")
    timed(f"name server silent: _Marks() has a store (STORE_S {STORE_S} s)", lambda: _Marks().store is not None)
    del host


if __name__ == "__main__":
    if os.environ.get("NAME_LOOKUP_INSIDE") != "1":
        script = os.path.abspath(__file__)
        # the network namespace's loopback up, and a resolv.conf naming this script's name server bound over the host's
        inside = (f"ip link set lo up && echo 'nameserver 127.0.0.1' > /tmp/name_lookup_resolv.conf && "
                  f"mount --bind /tmp/name_lookup_resolv.conf /etc/resolv.conf && exec {sys.executable} {script}")
        sys.exit(subprocess.call(["unshare", "-r", "-n", "-m", "sh", "-c", inside],
                                 env={**os.environ, "NAME_LOOKUP_INSIDE": "1"}))
    main()
