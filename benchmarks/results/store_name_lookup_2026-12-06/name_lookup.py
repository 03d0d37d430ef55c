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

The hundred-and-fourteenth session added, after those (output: name_lookup_h75.txt): (1) what an address literal's
lookup costs, and how many threads it starts; (2) ``_reconnect`` where the name server answers connect_within's
lookup, then goes silent (the fresh client's own lookup: torch's ``clone()``); (3) and (4) a watcher that polled
while the name server answered, then a blip with it silent (the client standing in; then the process group's own,
its host named): whether a fresh client stands in, and when; (5) a network that drops what comes and resets nothing:
whether the publishing rank's ``_publish`` returns, and the watcher gives up, and when; and what a store call
waited for in a thread of its own costs.
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
#: Whether the relay drops what comes (``Relay.stall``), read by its static ``relay``.
relay_stalled = [False]


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
                if not relay_stalled[0]:
                    sink.sendall(data)
        except OSError:
            pass

    def stall(self):
        relay_stalled[0] = True

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
    # --- hundred-and-fourteenth session ---
    import accelerated_seg.connect_within as connect_within_module
    import accelerated_seg.ranks_stop_together as ranks_stop_together

    # (1) an address literal's lookup: a thread each call before, none after
    started_threads, start = [], threading.Thread.start

    def counting_start(thread):
        started_threads.append(thread.name)
        start(thread)

    threading.Thread.start = counting_start
    began = time.monotonic()
    for _ in range(2000):
        connect_within_module._looked_up("127.0.0.1", port, 1.0)
    threading.Thread.start = start
    print(f"address literal 127.0.0.1: a lookup {(time.monotonic() - began) / 2000 * 1e6:.0f} us, "
          f"{len(started_threads)} threads started in 2000", flush=True)
    # (2) the name server answers connect_within's lookup, then goes silent: the fresh client's own lookup (clone())
    name_server.answering = True
    settled()
    timed("name server answering: _reconnect()", _reconnect)
    if hasattr(ranks_stop_together, "_note_while_it_answers"):  # what a watcher's poll does, while the store answers
        ranks_stop_together._note_while_it_answers()
    getattr(connect_within_module, "_ANSWERED", {}).clear()  # no answer kept: connect_within's own lookup answers
    looked_up = ranks_stop_together.connect_within

    def then_silent(*args, **kwargs):
        answered = looked_up(*args, **kwargs)
        name_server.answering = False
        return answered

    ranks_stop_together.connect_within = then_silent
    relay.reset()
    timed("name server silent after connect_within's lookup: _reconnect()", _reconnect)
    ranks_stop_together.connect_within = looked_up
    stand_in = ranks_stop_together._STAND_IN[1:] and ranks_stop_together._STAND_IN[1]
    print(f"  the client standing in: {type(stand_in).__name__} "
          f"{getattr(ranks_stop_together._STAND_IN[1:] and _bottom(stand_in), 'host', None)!r}", flush=True)
    # (3) a watcher that polled while the name server answered, then a blip with the name server silent: how long until
    # a fresh client stands in, and whether the watcher gave up
    name_server.answering = True
    settled()
    timed("name server answering: _reconnect()", _reconnect)
    watcher = _Watcher("accelerated_seg/probe2/", str)
    watcher.start()
    time.sleep(0.5)  # its polls, while the store and the name server answer
    name_server.answering = False
    before = ranks_stop_together._STAND_IN[1]
    relay.reset()
    began = time.monotonic()
    while ranks_stop_together._STAND_IN[1] is before and watcher.is_alive() and time.monotonic() - began < 50:
        time.sleep(0.01)
    reconnected = ranks_stop_together._STAND_IN[1] is not before
    print(f"name server silent, a blip under a watcher: {'a fresh client stands in' if reconnected else 'none'} "
          f"after {time.monotonic() - began:.3f} s; watcher gave up: {watcher.gave_up.is_set()}", flush=True)
    if reconnected:
        time.sleep(0.5)
        timed("  then a poll through it", lambda: _failed(lambda: _store("accelerated_seg/probe2/").check(["m"])))
    watcher.done.set()
    # (4) as (3), the watcher's client the process group's own, its host named, as a launch's: the first failing call
    # on it waits for torch's reverse lookup of the client socket's address (10 s above), the poll with it
    name_server.answering = True
    settled()
    dist.destroy_process_group()
    client = dist.TCPStore(NAME, relay.port, 1, False, timedelta(seconds=30))
    dist.init_process_group("gloo", store=client, rank=0, world_size=1)
    watcher = _Watcher("accelerated_seg/probe4/", str)
    watcher.start()
    time.sleep(0.5)  # its polls, while the store and the name server answer
    name_server.answering = False
    relay.reset()
    began = time.monotonic()

    def stands_in():
        stand_in = ranks_stop_together._STAND_IN
        return bool(stand_in) and stand_in[0] is dist.distributed_c10d._get_default_store()

    while not stands_in() and watcher.is_alive() and time.monotonic() - began < 50:
        time.sleep(0.01)
    print(f"name server silent, a blip under a watcher of the group's own client: "
          f"{'a fresh client stands in' if stands_in() else 'none'} after {time.monotonic() - began:.3f} s; "
          f"watcher gave up: {watcher.gave_up.is_set()}", flush=True)
    if stands_in():
        time.sleep(0.5)
        timed("  then a poll through it", lambda: _failed(lambda: _store("accelerated_seg/probe4/").check(["m"])))
    watcher.done.set()
    # (5) a network down that drops what comes and resets nothing (the name server answering): the publishing rank's
    # ask, and a watcher's poll, wait for the store's answer; the client's timeout 120 s here (a launch's: its process
    # group's timeout, 30 min by default)
    name_server.answering = True
    settled()
    dist.destroy_process_group()
    client = dist.TCPStore(NAME, relay.port, 1, False, timedelta(seconds=120))
    dist.init_process_group("gloo", store=client, rank=0, world_size=1)
    watcher = _Watcher("accelerated_seg/probe5/", str)
    watcher.start()
    time.sleep(0.5)
    relay.stall()
    began, publishing = time.monotonic(), threading.Thread(
        target=_publish, args=(_Watcher("accelerated_seg/probe5b/", str), RuntimeError("process 0: a bug")),
        daemon=True)
    publishing.start()
    publishing.join(45)
    print(f"network dropping, no reset: _publish {'returned' if not publishing.is_alive() else 'still waiting'} "
          f"after {time.monotonic() - began:.3f} s", flush=True)
    watcher.join(max(0.0, 45 - (time.monotonic() - began)))
    print(f"network dropping, no reset: a watcher {'gave up' if watcher.gave_up.is_set() else 'still in its poll'} "
          f"after {time.monotonic() - began:.3f} s", flush=True)
    watcher.done.set()
    if hasattr(ranks_stop_together, "_within"):  # what each poll's thread costs, 5 polls a second
        began = time.monotonic()
        for _ in range(2000):
            ranks_stop_together._within(lambda: None, 1.0)
        print(f"a store call waited for in a thread of its own: {(time.monotonic() - began) / 2000 * 1e6:.0f} us "
              f"more a call", flush=True)
    del host


def settled():
    """Waits for the lookups begun while the name server was silent to end (10 s each): a later caller waits on the
    one still running (connect_within), which would answer nothing where the name server answers again."""
    began = time.monotonic()
    while any(thread.name == "connect-within-lookup" for thread in threading.enumerate()):
        time.sleep(0.05)
    print(f"  (lookups begun while the name server was silent ended {time.monotonic() - began:.1f} s later)")


def _bottom(store):
    import torch.distributed as dist

    while isinstance(store, dist.PrefixStore):
        store = store.underlying_store
    return store


if __name__ == "__main__":
    if os.environ.get("NAME_LOOKUP_INSIDE") != "1":
        script = os.path.abspath(__file__)
        # the network namespace's loopback up, and a resolv.conf naming this script's name server bound over the host's
        inside = (f"ip link set lo up && echo 'nameserver 127.0.0.1' > /tmp/name_lookup_resolv.conf && "
                  f"mount --bind /tmp/name_lookup_resolv.conf /etc/resolv.conf && exec {sys.executable} {script}")
        sys.exit(subprocess.call(["unshare", "-r", "-n", "-m", "sh", "-c", inside],
                                 env={**os.environ, "NAME_LOOKUP_INSIDE": "1"}))
    main()
