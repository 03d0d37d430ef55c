"""A connect to a host's port that waits at most a given time, the name lookup included.

``socket.create_connection(address, timeout=...)`` bounds each connect, not the lookup of a host's name before it:
``getaddrinfo`` waits the resolver's own timeouts (5 s a try, per name server and search domain in
/etc/resolv.conf), and no Python can interrupt it. A launch of several nodes names its store's host (MASTER_ADDR) by
name, and the network outage that broke a connection to the store may take its name server too: the rank that
must publish its error waited there for the resolver's timeouts, 10.0 s with one silent name server
(``ranks_stop_together._reconnect``, until the hundred-and-thirteenth session:
benchmarks/results/store_name_lookup_2026-12-06). So the lookup runs in a daemon thread, waited for until
the deadline and left behind after it; one lookup of a host and port at a time, a later caller waiting on the one still
running, so that a resolver that stays down leaves one thread waiting, not one per retry. An address literal (the
usual single-node MASTER_ADDR, 127.0.0.1) asks no resolver: no thread is started for it (one was, 149 us a
call in name_lookup_h75.txt, until the hundred-and-fourteenth session).

A name's answer is kept, for its host and port: a later call connects to the addresses it gave at once, a fresh lookup
started behind it to replace it (``look_up_ahead`` asks one before it is needed). The one caller asks for its own
launch's store, whose address does not change while the process lives (torch elastic restarts a launch's processes to
move it), so that the name server an outage took leaves the store reachable where it was (until the hundred-and-
fourteenth session each call waited for its own lookup, and could tell nothing with the name server down).

    >>> connect_within("localhost", 1, within_s=1.0)  # nothing listens on port 1: refused
    False
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time

#: The lookup of each (host, port) still running, with the list its answer goes into (``_looked_up``).
_LOOKING_UP: dict[tuple[str, int], tuple[threading.Thread, list]] = {}
#: The latest answer of each (host, port)'s lookup, used where a later one has not come.
_ANSWERED: dict[tuple[str, int], list] = {}
_LOOKING_UP_LOCK = threading.Lock()


def connect_within(host: str, port: int, within_s: float) -> str | bool | None:
    """Whether ``host:port`` takes a connection (closed at once), within ``within_s`` in all: the address that
    answered (an IP address, a link-local one with its scope, for a client that need not look the name up again),
    False where every one refused (nothing listens there: its process has ended), None where it could not tell in
    time (the name not looked up, or not resolving; a connect timed out: a network down)."""
    deadline = time.monotonic() + within_s
    if not (addresses := _looked_up(host, port, within_s)):
        return None
    refused = 0
    # In the resolver's order, as create_connection tries them, each given an even share of what is left: given all of
    # it, one that does not answer (an IPv6 address listed first, its route down) hid the next, which create_connection
    # reached, each with a whole timeout (review of the hundred-and-thirteenth session). A refusal takes 0.1 ms,
    # leaving the rest to the addresses after it.
    for index, (family, kind, protocol, _, address) in enumerate(addresses):
        if (left_s := deadline - time.monotonic()) <= 0:
            break
        try:  # the socket's making inside too, as in create_connection: AF_INET6 fails on a kernel without IPv6
            with socket.socket(family, kind, protocol) as connection:
                connection.settimeout(left_s / (len(addresses) - index))
                connection.connect(address)
                # as written, its scope kept: an IPv6 sockaddr holds a link-local address's interface (fe80::1%eth0)
                # apart, in its scope id, and a client given address[0] alone could not connect (EINVAL)
                return socket.getnameinfo(address, socket.NI_NUMERICHOST | socket.NI_NUMERICSERV)[0]
        except ConnectionRefusedError:
            refused += 1
        except OSError:  # timed out, unreachable, no such family here: another address may answer
            pass
    return False if refused == len(addresses) else None


def look_up_ahead(host: str, port: int) -> None:
    """Start the lookup of ``host:port`` now, not waited for: its answer is kept for a later ``connect_within``, which
    then needs no name server (a watcher's, while the store still answers)."""
    _looked_up(host, port, 0.0)


def _looked_up(host: str, port: int, wait_s: float) -> list:
    """``getaddrinfo``'s stream addresses of ``host:port``: at once for an address literal, or a name's kept answer
    (a fresh lookup started to replace it); else those of a lookup waited for ``wait_s``, [] where they did not come
    in time (or the name does not resolve)."""
    if _is_address_literal(host):  # no resolver asked (AI_NUMERICHOST): no thread to wait in
        with contextlib.suppress(OSError):
            return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
        return []
    key = (host, port)
    with _LOOKING_UP_LOCK:
        if key not in _LOOKING_UP:
            answer: list = []

            def look_up() -> None:
                try:
                    with contextlib.suppress(OSError):  # the name does not resolve: no address, as for no answer
                        answer.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
                finally:
                    with _LOOKING_UP_LOCK:
                        _LOOKING_UP.pop(key, None)
                        if answer:
                            _ANSWERED[key] = answer

            looking_up = threading.Thread(target=look_up, name="connect-within-lookup", daemon=True)
            _LOOKING_UP[key] = looking_up, answer
            looking_up.start()
        looking_up, answer = _LOOKING_UP[key]
        if answered := _ANSWERED.get(key):
            return list(answered)
    looking_up.join(wait_s)
    return list(answer) if not looking_up.is_alive() else []


def _is_address_literal(host: str) -> bool:
    """Whether ``host`` is an IPv4 or IPv6 address as written (a scope included: fe80::1%eth0), not a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
