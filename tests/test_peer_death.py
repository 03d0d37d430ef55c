"""peer_death: a collective's error ends the process at once only where it is a peer's death (the launch's SIGTERM
after it is certain); any other error goes on to stop every process as before."""

import os
import subprocess
import sys
import threading
import time

import pytest

from accelerated_seg import last_wait, launched_sigterm, peer_death, ranks_stop_together

#: The look for a process beside this one ended, before the ``ended`` fixture stands in for it.
ONE_HAS_ENDED = launched_sigterm.one_has_ended
GLOO_RESET = RuntimeError("[gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:5847: Connection reset by peer. "
                          "This is typically caused by a remote worker hanging or bugs in the application.")


@pytest.fixture
def ended(monkeypatch):
    """``end_at_once`` recorded rather than done; a launch of two whose other process is alive, no error published,
    no last wait come."""
    calls = []
    monkeypatch.setattr(launched_sigterm, "end_at_once", lambda: calls.append(time.monotonic()))
    monkeypatch.setattr(launched_sigterm, "_SPAN", [[12345]])
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: False)
    monkeypatch.setattr(ranks_stop_together, "an_error_is_published", lambda: False)
    monkeypatch.setattr(last_wait, "every_process_came_to_the_last_wait", lambda: False)
    monkeypatch.setattr(peer_death, "DEATH_SEEN_S", 0.2)
    return calls


def test_gloos_error_after_a_process_beside_died_ends_this_one_at_once(ended, monkeypatch):
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: beside == [12345])
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert len(ended) == 1


def test_a_death_seen_a_little_after_gloos_error_ends_it_too(ended, monkeypatch):
    seen_from = time.monotonic() + 0.1  # the dead one's sockets close as it ends: /proc may show it a moment later
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: time.monotonic() > seen_from)
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert len(ended) == 1 and ended[0] >= seen_from


@pytest.mark.parametrize("error", [RuntimeError("Timed out waiting 1800000ms for recv operation to complete"),
                                   RuntimeError("a bug of ours"), BrokenPipeError(32, "Broken pipe"),
                                   KeyboardInterrupt("Connection reset by peer")])
def test_another_error_stops_every_process_as_before_though_a_process_died(error, ended, monkeypatch):
    """Not the transport's words for a peer gone (a timeout, a bug, stdout's reader gone, an interrupt): returned at
    once, for the error to stop every process with its line."""
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: True)
    started = time.monotonic()
    peer_death.ended_at_once_where_a_process_beside_died(error)
    assert ended == [] and time.monotonic() - started < 0.05


def test_gloos_error_with_no_process_beside_ended_stops_every_process_after_the_look(ended):
    """A reset between nodes, or a peer on another node: no SIGTERM follows from this node's agent."""
    started = time.monotonic()
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert ended == [] and 0.2 <= time.monotonic() - started < 1


@pytest.mark.parametrize("published, came", [(True, False), (False, True)])
def test_a_death_after_a_published_error_or_past_the_last_wait_is_left_to_that_stop(published, came, ended,
                                                                                    monkeypatch):
    """A process that published an error ends once its line is said, breaking the others' collectives: they end with
    that stop's status. Past the last wait, a process gone ended its work (launched_sigterm's rule)."""
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: True)
    monkeypatch.setattr(ranks_stop_together, "an_error_is_published", lambda: published)
    monkeypatch.setattr(last_wait, "every_process_came_to_the_last_wait", lambda: came)
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert ended == []


def test_outside_a_launched_predicts_sigterm_span_nothing_changes(ended, monkeypatch):
    monkeypatch.setattr(launched_sigterm, "_SPAN", [])
    monkeypatch.setattr(launched_sigterm, "one_has_ended", lambda beside: True)
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert ended == []


def test_with_no_other_process_of_the_launch_on_this_node_gloos_error_goes_on_at_once(ended, monkeypatch):
    """One process a node (a peer on another node killed): no death can be seen here, and the look waited DEATH_SEEN_S
    (1 s) for none, until the hundred-and-fourteenth session; the stop then names the peer lost (lost_processes)."""
    monkeypatch.setattr(launched_sigterm, "_SPAN", [[]])
    started = time.monotonic()
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert ended == [] and time.monotonic() - started < 0.05


@pytest.fixture
def zombie(monkeypatch):
    """A child of this test process killed outright and not reaped (a zombie), standing in for a process beside this
    one that its launch's agent has not reaped yet; seen ended by the real look (``one_has_ended``). Reaped at the
    end, where the test has not."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    child.kill()
    while launched_sigterm._state(child.pid) != "Z":
        time.sleep(0.005)
    monkeypatch.setattr(launched_sigterm, "_SPAN", [[child.pid]])
    monkeypatch.setattr(launched_sigterm, "one_has_ended", ONE_HAS_ENDED)
    yield child
    child.wait()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="/proc tells a process beside this one ended")
def test_a_process_ending_at_once_after_a_death_beside_it_waits_until_the_agent_has_reaped_the_dead_one(ended,
                                                                                                         zombie):
    """Process 1 killed outright is a zombie until the launch's agent reaps it, at its look every 0.1 s (here 0.5 s
    late): the process meeting gloo's error ended at once before that, and the agent, finding both ended at one look,
    took the lowest rank's status, this process's -15, for the launch's first failure, its table's "Root Cause" (until
    the hundred-and-seventeenth session: benchmarks/results/predict_killed_first_failure_2026-12-06/). Now it ends
    once the dead one is reaped."""
    reaped_at = []
    agent = threading.Timer(0.5, lambda: (zombie.wait(), reaped_at.append(time.monotonic())))
    agent.start()
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    agent.join()
    assert len(ended) == 1 and ended[0] >= reaped_at[0], (ended, reaped_at)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="/proc tells a process beside this one ended")
def test_a_dead_process_never_reaped_is_waited_for_no_longer_than_reaped_within_s(ended, zombie, monkeypatch):
    """The launch's agent held (stopped, or its machine swapping) or gone, the zombie left to a parent that does not
    reap: this process ends all the same, ``REAPED_WITHIN_S`` (0.3 s here) after the look saw the death."""
    monkeypatch.setattr(peer_death, "REAPED_WITHIN_S", 0.3)
    started = time.monotonic()
    peer_death.ended_at_once_where_a_process_beside_died(GLOO_RESET)
    assert len(ended) == 1 and 0.3 <= ended[0] - started < 1.0, ended[0] - started


@pytest.mark.parametrize("error, gone", [(GLOO_RESET, True), (RuntimeError("NCCL: remote process exited"), True),
                                         (RuntimeError("a bug of ours"), False),
                                         (BrokenPipeError(32, "Broken pipe"), False)])
def test_a_peer_gone_is_told_by_the_transports_words_on_a_runtime_error(error, gone):
    assert peer_death.said_by_a_peer_gone(error) == gone
