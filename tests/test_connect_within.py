"""connect_within: a connect whose name lookup is bounded too (ranks_stop_together's reconnect to a launch's store)."""

import ipaddress
import socket
import threading
import time

import pytest

from accelerated_seg import connect_within as connect_within_module
from accelerated_seg.connect_within import connect_within


@pytest.fixture(autouse=True)
def no_answer_kept(monkeypatch):
    """Each test begins with no name's answer kept from another (a port the system hands out again)."""
    monkeypatch.setattr(connect_within_module, "_ANSWERED", {})


@pytest.fixture
def listening_port():
    with socket.create_server(("127.0.0.1", 0)) as listening:
        yield listening.getsockname()[1]


@pytest.fixture
def name_server_down(monkeypatch):
    """``socket.getaddrinfo`` of "localhost" waits 10 s before it answers, as for a name server that does not answer;
    the calls made are counted."""
    answered, calls = socket.getaddrinfo, []

    def waiting(host, *args, **kwargs):
        if host == "localhost":
            calls.append(threading.current_thread().name)
            time.sleep(10.0)
        return answered(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", waiting)
    return calls


def test_a_listening_port_of_a_named_host_answers_and_a_closed_one_refuses(listening_port):
    """"localhost" may name ::1 first, where nothing listens: the next address is tried, as create_connection does."""
    assert connect_within("localhost", listening_port, within_s=1.0) == "127.0.0.1"  # the address that answered
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    assert connect_within("127.0.0.1", closed_port, within_s=1.0) is False


def test_a_name_lookup_that_hangs_is_waited_for_within_the_bound_by_one_thread(listening_port, name_server_down):
    """create_connection's timeout left the lookup unbounded (10 s here); one lookup of a host at a time, so that
    each retry of a reconnect does not leave one more thread waiting on the resolver."""
    for _ in range(2):
        started = time.monotonic()
        assert connect_within("localhost", listening_port, within_s=0.5) is None
        assert time.monotonic() - started < 1.0
    assert len(name_server_down) == 1


def test_a_name_that_does_not_resolve_cannot_tell(monkeypatch):
    def unknown(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    assert connect_within("storehost", 29500, within_s=1.0) is None


def test_an_address_whose_socket_cannot_be_made_is_passed_over_as_create_connection_does(listening_port, monkeypatch):
    """getaddrinfo gives "localhost" ::1 first even on a kernel without IPv6 (booted ipv6.disable=1), whose
    socket(AF_INET6) fails: create_connection goes on to 127.0.0.1; connect_within raised OSError out of _reconnect
    (the watcher gave up at once, a rank's ask raised it in place of the store's error) until the review of the
    hundred-and-thirteenth session. A protocol the kernel lacks stands in for the family."""
    answered = socket.getaddrinfo

    def unmakable_first(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 255, "", ("127.0.0.1", port))] + answered(host, port, *args,
                                                                                                 **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", unmakable_first)
    assert socket.create_connection(("127.0.0.1", listening_port), timeout=1.0) is not None  # the old code's answer
    assert connect_within("127.0.0.1", listening_port, within_s=1.0) == "127.0.0.1"


def test_an_address_that_does_not_answer_leaves_time_for_the_next(listening_port, monkeypatch):
    """An address whose connect goes unanswered (an IPv6 one listed first, its route down: here a listener whose
    backlog is full, which drops the SYN) took the whole bound, and the next, which answers, was never tried: None,
    where create_connection, each address given a whole timeout, said True. Each now gets an even share of what is
    left: True, within the bound (review of the hundred-and-thirteenth session)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(0)
        with socket.create_connection(silent.getsockname()):  # the backlog full: a further SYN goes unanswered
            addresses = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", silent.getsockname()),
                         (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", listening_port))]
            monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *args, **kwargs: addresses)
            started = time.monotonic()
            assert connect_within("storehost", listening_port, within_s=1.0) == "127.0.0.1"
            assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_an_address_literal_asks_no_resolver_in_a_thread(host, monkeypatch):
    """The usual single-node MASTER_ADDR, 127.0.0.1, started a lookup thread at each call (149 us in the probe) until the
    hundred-and-fourteenth session: getaddrinfo is asked on the caller's thread, AI_NUMERICHOST (no resolver)."""
    answered, asked_on = socket.getaddrinfo, []

    def recording(*args, **kwargs):
        asked_on.append((threading.current_thread().name, kwargs.get("flags", 0)))
        return answered(*args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", recording)
    assert connect_within(host, 1, within_s=1.0) in (False, None)  # port 1 refuses (None: no IPv6 here)
    assert asked_on == [(threading.current_thread().name, socket.AI_NUMERICHOST)]


def test_a_names_answer_is_kept_for_a_later_call_its_name_server_down(listening_port, monkeypatch):
    """A launch's store does not move while its processes live: the address a name gave (the watcher's lookup ahead,
    while the store answered) is connected to at once where the name server the outage took does not answer now.
    None until the hundred-and-fourteenth session: nothing was kept."""
    from accelerated_seg.connect_within import look_up_ahead

    answered, lookups = socket.getaddrinfo, []

    def down_after_the_first(host, *args, **kwargs):
        lookups.append(host)
        if len(lookups) > 1:
            time.sleep(10.0)
        return answered(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", down_after_the_first)
    look_up_ahead("localhost", listening_port)
    deadline = time.monotonic() + 5.0
    while ("localhost", listening_port) not in connect_within_module._ANSWERED and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    assert connect_within("localhost", listening_port, within_s=0.5) == "127.0.0.1"
    assert time.monotonic() - started < 0.5
    assert len(lookups) == 2  # the fresh lookup started behind it, left waiting on the resolver


def _link_local_address() -> str | None:
    """An IPv6 link-local address of this machine with its scope (fe80::...%eth0), None where it has none."""
    try:
        with open("/proc/net/if_inet6") as addresses:
            rows = [row.split() for row in addresses]
    except OSError:
        return None
    for hexadecimal, _, _, scope, _, interface in rows:
        if scope == "20":  # link
            return f"{ipaddress.IPv6Address(int(hexadecimal, 16))}%{interface}"
    return None


@pytest.mark.skipif(_link_local_address() is None, reason="no IPv6 link-local address here")
def test_a_link_local_address_that_answered_is_returned_with_its_scope():
    """getaddrinfo's IPv6 sockaddr holds the scope apart (its scope id): the address returned was the sockaddr's host
    alone (fe80::...) until the hundred-and-fourteenth session's review, which no client can connect to (EINVAL): a
    reconnect to a launch's store at a link-local MASTER_ADDR made a fresh client that never connected (None)."""
    host = _link_local_address()
    with socket.socket(socket.AF_INET6) as listening:
        listening.bind(socket.getaddrinfo(host, 0, socket.AF_INET6, socket.SOCK_STREAM)[0][4])  # its scope id set
        listening.listen()
        port = listening.getsockname()[1]
        reached = connect_within(host, port, within_s=1.0)
        assert reached == host
        with socket.create_connection((reached, port), timeout=1.0):  # a client given it connects
            pass
