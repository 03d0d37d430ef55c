"""A launched predict's SIGTERM (launched_sigterm.py): a stop, raised as Ctrl-C is, unless a process beside this one
has ended, where torch's agent is ending the processes left and this one ends at once; and the line of a launched
predict interrupted before its processes meet (predict_command)."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelerated_seg import predict_command
from accelerated_seg.sigterm import EXIT_TERMINATED

SCRIPT = Path(__file__).with_name("sigterm_beside_an_ended_process.py")
ROOT = Path(__file__).resolve().parents[1]


def two_beside_each_other(tmp_path: Path, first_sleeps_s: float,
                          before_the_meeting: bool = False) -> tuple[subprocess.Popen, subprocess.Popen]:
    """Two processes of this one running SCRIPT, as a node's processes of a launch are its agent's; the first waits
    ``first_sleeps_s`` in its C call, the second 60 s, in the span after the processes meet or, ``before_the_meeting``,
    the one before. Returned once both are ready."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           **({"BEFORE_THE_MEETING": "1"} if before_the_meeting else {})}
    command = [sys.executable, str(SCRIPT), str(tmp_path / "ready")]
    first = subprocess.Popen(command, env={**env, "SLEEP_S": str(first_sleeps_s)})
    second = subprocess.Popen(command, env={**env, "SLEEP_S": "60"})
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob("ready_*"))) < 2:
        assert time.monotonic() < deadline and first.poll() is None and second.poll() is None, "never ready"
        time.sleep(0.02)
    return first, second


def signalled_beside_the_other(first: subprocess.Popen, second: subprocess.Popen, other_ended: bool,
                               *signums: int) -> tuple[int, float]:
    """The first's status and how long after the first of ``signums`` it ended, each sent to it 0.2 s apart, the
    second killed and reaped before them where ``other_ended`` (as the agent's poll reaps a process that has ended
    before it signals the others); both ended on the way out, whatever happened."""
    try:
        if other_ended:
            second.kill()
            second.wait()
        signalled = time.monotonic()
        for number, signum in enumerate(signums):
            time.sleep(0.2 if number else 0.0)
            first.send_signal(signum)
        status = first.wait(timeout=30)
        return status, time.monotonic() - signalled
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.kill()
                process.wait()

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
@pytest.mark.parametrize("other_ended", [True, False], ids=["other-ended", "others-running"])
def test_sigterm_ends_a_launched_process_at_once_only_where_another_has_ended(other_ended, tmp_path):
    """torch's agent reaps a process that has ended, then sends SIGTERM to the others: those end at once, with
    SIGTERM's default (-15), even with their main thread in a C call that runs no Python handler (a collective whose
    other process is gone). Any other SIGTERM is a stop, raised as ``Terminated`` once the main thread can (status
    143 here): held as an interrupt, the agent's SIGTERM kept the main process 10.6 s waiting for the dead one (the
    hundred-and-first session's try)."""
    status, ended_after = signalled_beside_the_other(*two_beside_each_other(tmp_path, first_sleeps_s=3), other_ended,
                                                     signal.SIGTERM)
    if other_ended:
        assert status == -signal.SIGTERM and ended_after < 1.0, (status, ended_after)  # 1-4 ms measured
    else:
        assert status == EXIT_TERMINATED and ended_after > 2.0, (status, ended_after)  # once its C call returned


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGUSR1], ids=["sigterm", "sigusr1"])
def test_before_the_meeting_only_sigterm_beside_an_ended_process_ends_it_unsaid(signum, tmp_path):
    """Before the processes meet, the agent's SIGTERM to the processes left when one has ended ends this one at once,
    -15, its line unsaid; a SIGUSR1 there (the agent never sends it) is a job's stop: its line said, 138, at once
    whatever the main thread is in. The hundred-and-twentieth session's review: nothing tested the SIGUSR1 half
    (``said_once_until_the_processes_meet``'s test of SIGTERM alone could be dropped: -15 then, nothing said)."""
    status, ended_after = signalled_beside_the_other(
        *two_beside_each_other(tmp_path, first_sleeps_s=30, before_the_meeting=True), True, signum)
    said = tmp_path / "ready.said"
    if signum == signal.SIGTERM:
        assert status == -signal.SIGTERM and not said.exists(), status
    else:
        assert status == 128 + signal.SIGUSR1 and said.read_text() == str(int(signal.SIGUSR1)), status
    assert ended_after < 5.0, ended_after  # at once: the C call sleeps 30 s


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
@pytest.mark.parametrize("then_sigterm", [False, True], ids=["alone", "then-the-agents-sigterm"])
def test_sigusr1_beside_an_ended_process_is_a_stop_never_the_agents_ending(then_sigterm, tmp_path):
    """A SIGUSR1 (a requeue's notice) that reaches a launched predict's process once another has ended and been
    reaped is a stop all the same, raised once the main thread leaves its C call (138), never the agent's ending of
    the processes left (the agent sends SIGTERM alone); and the agent's SIGTERM that follows belongs to that stop, not
    ending the process at once either. The hundred-and-twentieth session's review: nothing tested either, and the
    spans' test of SIGTERM alone (``signum == signal.SIGTERM``) could be dropped with every test passing; without
    it the process ended at once, -15, nothing said."""
    status, ended_after = signalled_beside_the_other(*two_beside_each_other(tmp_path, first_sleeps_s=3), True,
                                                     signal.SIGUSR1, *([signal.SIGTERM] if then_sigterm else []))
    assert status == 128 + signal.SIGUSR1 and ended_after > 2.0, (status, ended_after)  # once its C call returned


@pytest.mark.parametrize("given, again", [
    ({}, "the same command predicts the cases (with --continue, it passes over those an earlier run wrote)"),
    ({"continue_prediction": True}, "the same command predicts the cases not yet written"),
    ({"input": ["scan.nii.gz"], "inputs": []}, "the same command predicts the case")])
def test_a_launched_predict_interrupted_before_its_processes_meet_says_so_once(given, again, monkeypatch, capsys,
                                                                               tmp_path):
    """SIGINT to a launched predict before its processes met (the checks, the imports, the rendezvous) ended it
    saying nothing (until the hundred-and-ninth session): the process it reached says that nothing was written and
    what the same command does, as training says it, once on its node."""
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")  # not the main process: the one interrupted says it
    ranks_folder = tmp_path / "attempt_0" / "1"  # as torch's agent gives each rank its error file
    ranks_folder.mkdir(parents=True)
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(ranks_folder / "error.json"))

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(predict_command, "_checked_options", interrupted)
    args = SimpleNamespace(**{"input": None, "inputs": ["scans/"], "continue_prediction": False, **given})
    with pytest.raises(KeyboardInterrupt):
        predict_command.run(args, None)
    line = f"predict interrupted before the launch's processes met; nothing was written: {again}"
    assert capsys.readouterr().err == f"{line}\n"
    assert json.loads((ranks_folder / "error.json").read_text())["message"]["message"] == line  # the launcher's table


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGUSR1], ids=["sigterm", "sigusr1"])
def test_a_published_stop_ends_every_process_with_its_signals_status_and_the_main_processs_line(
        signum, one_process_group, monkeypatch, tmp_path, capsys):
    """A SIGTERM met by a launched predict's process is published as ``Terminated`` (predict_stop._stopping): the
    main process's watcher says "predict stopped by SIGTERM in ..." as an interrupt's line (stderr, no "error: "), and
    every process ends with SIGTERM's status, 143, where Ctrl-C's ends them with 130. A SIGUSR1's so too, 138, since
    the hundred-and-twentieth session (the store knew SIGTERM's alone: a SIGUSR1's would have ended them with 130)."""
    from accelerated_seg import exit_now, ranks_stop_together
    from accelerated_seg.predict_stop import _stopping
    from accelerated_seg.ranks_stop_together import STOPPED_BY, _publish, _store, _Watcher
    from accelerated_seg.sigterm import INTERRUPTS

    name = signal.Signals(signum).name
    stopping = _stopping(INTERRUPTS[signum](name), "process 1, case small_1")
    assert type(stopping) is INTERRUPTS[signum]
    assert str(stopping) == f"predict stopped by {name} in process 1, case small_1"
    monkeypatch.setattr(ranks_stop_together, "launched_processes", lambda: 2)
    watcher = _Watcher("accelerated_seg/test_sigterm/", lambda message: f"{message} (no case was written)")
    _publish(watcher, stopping)  # its watcher not started: nothing waits for it
    store = _store("accelerated_seg/test_sigterm/")
    assert store.get(STOPPED_BY) == str(int(signum)).encode()
    ended = []
    monkeypatch.setattr(os, "_exit", ended.append)
    monkeypatch.setattr(exit_now, "remove_own_multiprocessing_folder", lambda: None)  # this process goes on
    monkeypatch.setattr(ranks_stop_together, "_deaf_to_sigterm", lambda: None)  # not this test process
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    watcher._end(store, str(stopping), 0, ranks=1)
    assert ended == [128 + signum]
    assert capsys.readouterr().err == f"predict stopped by {name} in process 1, case small_1 (no case was written)\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_sigterm_taken_by_another_thread_still_wakes_the_main_threads_wait():
    """The kernel hands a SIGTERM sent to the process to any of its threads: taken by another than the main thread,
    Python's C handler ran there and the main thread's ``time.sleep`` slept on, the handler run only once it returned
    (a launched predict's process 1, asleep in its share of a case, outlived the agent's 30 s: a CI run of the
    hundred-and-fourteenth session). Here sent to another thread (``pthread_kill``), as the kernel may hand it."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended
    from accelerated_seg.sigterm import Terminated

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    started = time.monotonic()
    try:
        with pytest.raises(Terminated):
            with sigterm_as_an_interrupt_unless_one_has_ended():
                threading.Timer(0.2, signal.pthread_kill, (other.ident, signal.SIGTERM)).start()
                time.sleep(10)
    finally:
        stop.set()
    assert time.monotonic() - started < 2.0, time.monotonic() - started
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_sigint_taken_by_another_thread_still_wakes_the_main_threads_wait():
    """As SIGTERM, a SIGINT sent to the process may be handed to another thread than the main one: Python's C handler
    ran there, and the main thread's ``time.sleep`` slept on, its KeyboardInterrupt raised only once the sleep returned
    (a launched predict's process 1, asleep in its share of a case, and the main process waiting for it outlived the
    agent's 30 s after a Ctrl-C: a CI run of the hundred-and-twenty-third session). The main thread is woken, and
    SIGINT's own handler raises it there; the wake's signal has its default again after the span."""
    from accelerated_seg.launched_sigterm import WAKE, sigterm_as_an_interrupt_unless_one_has_ended

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as raised:
            with sigterm_as_an_interrupt_unless_one_has_ended():
                threading.Timer(0.2, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
                time.sleep(30)
    finally:
        stop.set()
    assert type(raised.value) is KeyboardInterrupt  # Ctrl-C's own, not a SIGTERM's Terminated
    assert time.monotonic() - started < 15.0, time.monotonic() - started  # not at the end of the 30 s sleep
    assert signal.getsignal(WAKE) is signal.SIG_DFL and signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_sigint_the_main_thread_takes_runs_its_handler_once():
    """The wake is not SIGINT sent on to the main thread, as SIGTERM is: where the main thread took it itself, as a
    rule, its handler would run twice, and a second Ctrl-C means something (the last wait's "Ctrl-C again to stop at
    once"). One SIGINT, one run of its handler, whatever the wake."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    came = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        with sigterm_as_an_interrupt_unless_one_has_ended():
            signal.raise_signal(signal.SIGINT)  # to this thread, the main one
            for _ in range(50):  # the span's thread reads the signal's byte and wakes this thread meanwhile
                time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert came == [signal.SIGINT]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_held_sigint_taken_by_another_thread_is_said_at_once_and_the_wait_goes_on_whole():
    """A SIGINT whose handler raises nothing (the last wait's first Ctrl-C, held and said) taken by another thread:
    its handler runs on the main thread as it comes, not once the main thread's wait returns by itself, and the wait
    the wake cut short goes on to its end (Python waits again: PEP 475), as a pipe's read returns what comes, no
    InterruptedError, whatever the wakes. Each call here a launched predict's main thread makes in its span."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    came: list[float] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(time.monotonic()))
    reading, writing = os.pipe()
    try:
        with sigterm_as_an_interrupt_unless_one_has_ended():
            started = time.monotonic()
            threading.Timer(0.1, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
            time.sleep(2.0)
            slept = time.monotonic() - started
            threading.Timer(0.1, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
            threading.Timer(0.5, os.write, (writing, b"case")).start()
            read = os.read(reading, 4)
    finally:
        signal.signal(signal.SIGINT, previous)
        stop.set()
        os.close(reading)
        os.close(writing)
    assert slept >= 2.0 and read == b"case"
    assert len(came) == 2 and came[0] - started < 1.0, [at - started for at in came]  # at 2.0 s with the wake off


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_handler_of_the_callers_on_the_wake_signal_is_kept():
    """The wake's signal (SIGURG) taken only where it has its default: a handler of the caller's (an event loop's, a
    notebook's) stays, inside the span and after, and runs for no SIGINT; the span's SIGTERM is taken still."""
    from accelerated_seg.launched_sigterm import WAKE, sigterm_as_an_interrupt_unless_one_has_ended

    ran = []

    def callers(signum, frame):
        ran.append(signum)

    previous = signal.signal(WAKE, callers)
    try:
        with sigterm_as_an_interrupt_unless_one_has_ended():
            assert signal.getsignal(WAKE) is callers and signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
            time.sleep(0.2)  # the span's thread reads the SIGINT's byte meanwhile
        assert signal.getsignal(WAKE) is callers and ran == []
    finally:
        signal.signal(WAKE, previous)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_leaving_the_span_ends_its_thread_and_closes_its_pipe_passing_every_byte_on():
    """Leaving ``sigterm_as_an_interrupt_unless_one_has_ended`` puts the earlier wakeup fd back, having given it
    every signal's byte, and its thread has ended, its pipe closed, by then: the thread was left to end on its own
    until the hundred-and-ninth session's review, alive with its pipe open just after leaving in 7 of 10 tries."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    reading, writing = socket.socketpair()
    writing.setblocking(False)
    reading.setblocking(False)
    earlier = signal.set_wakeup_fd(writing.fileno(), warn_on_full_buffer=False)
    previous_usr1 = signal.signal(signal.SIGUSR1, lambda *_: None)
    try:
        fds = len(os.listdir("/proc/self/fd"))
        for _ in range(10):
            with sigterm_as_an_interrupt_unless_one_has_ended():
                os.kill(os.getpid(), signal.SIGUSR1)
            assert [thread.name for thread in threading.enumerate() if thread.name == "sigterm-as-it-comes"] == []
            assert len(os.listdir("/proc/self/fd")) == fds
            assert signal.set_wakeup_fd(writing.fileno(), warn_on_full_buffer=False) == writing.fileno()
        assert reading.recv(64) == bytes([signal.SIGUSR1]) * 10
    finally:
        signal.signal(signal.SIGUSR1, previous_usr1)
        signal.set_wakeup_fd(earlier)
        reading.close()
        writing.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_the_earlier_wakeup_fd_is_given_a_sigints_byte_and_not_the_wakes():
    """The earlier wakeup fd (an event loop's) is given each signal's byte as it would have been without the span:
    a SIGINT's, and not the byte of the wake the span sends its main thread for it (SIGURG), which a loop without a
    SIGURG handler of its own (the wake's is set only then) would not have had (it was, in the hundred-and-twenty-fourth
    session until its review)."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    reading, writing = socket.socketpair()
    writing.setblocking(False)
    reading.setblocking(False)
    earlier = signal.set_wakeup_fd(writing.fileno(), warn_on_full_buffer=False)
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)  # held, as the last wait's first Ctrl-C
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        with sigterm_as_an_interrupt_unless_one_has_ended():
            threading.Timer(0.1, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
            time.sleep(0.5)  # woken, and asleep again to its end
        assert reading.recv(64) == bytes([signal.SIGINT])
    finally:
        stop.set()
        signal.signal(signal.SIGINT, previous)
        signal.set_wakeup_fd(earlier)
        reading.close()
        writing.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_leaving_the_span_does_not_wait_for_a_process_forked_inside_it():
    """A process forked inside the span holds its pipe's writing end while it runs: the span's end tells its thread
    to end by a byte of its own, not by the pipe's end, which would have held the span's end (and predict's) for as
    long as that process ran."""
    from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    with sigterm_as_an_interrupt_unless_one_has_ended():
        child = os.fork()
        if child == 0:  # the forked process: holds the pipe's ends, then leaves without Python's clean-up
            time.sleep(5)
            os._exit(0)
        leaving = time.monotonic()
    try:
        assert time.monotonic() - leaving < 1.0
        assert [thread.name for thread in threading.enumerate() if thread.name == "sigterm-as-it-comes"] == []
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_torchs_own_process_context_reaps_the_dead_one_before_the_sigterm_that_ends_the_other_at_once(tmp_path):
    """The rule rests on the order of torch's agent: it polls its processes (reaping one that has ended) and only then
    sends SIGTERM to the rest. Here torch's own ``SubprocessContext`` (``start_processes``, what ``accelerate launch``
    and ``torchrun`` run a command with) starts SCRIPT twice; one is killed outright, and its poll ends the other at
    once with SIGTERM's default (-15). A torch that signalled first would leave the other's SIGTERM a stop (143, as
    here with the rule undone), which no other test would tell: the launched tests signal no process after a death
    since ``..._ends_every_process_at_once_saying_nothing`` went (the hundred-and-ninth session)."""
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, start_processes

    pythonpath = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    # torch's start() sets its own handler of these four in this (the test's) process and never puts theirs back:
    # left so, a later test in the same pytest worker found SIGINT's handler torch's (the CI of the session that
    # added this test, test_ranks_stop_together's second Ctrl-C test).
    handled = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
    handlers_before = {sig: signal.getsignal(sig) for sig in handled}
    context = start_processes(
        name="launched_sigterm", entrypoint=sys.executable,
        args={rank: (str(SCRIPT), str(tmp_path / "ready")) for rank in (0, 1)},
        envs={0: {"SLEEP_S": "3", "PYTHONPATH": pythonpath}, 1: {"SLEEP_S": "60", "PYTHONPATH": pythonpath}},
        logs_specs=DefaultLogsSpecs(log_dir=str(tmp_path / "logs")))
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("ready_*"))) < 2:
            assert time.monotonic() < deadline and context.wait(0) is None, "never ready"
            time.sleep(0.02)
        os.kill(context.pids()[1], signal.SIGKILL)
        killed = time.monotonic()
        result = context.wait(timeout=30, period=0.01)
        ended_after = time.monotonic() - killed
    finally:
        context.close()
        for sig, handler in handlers_before.items():
            signal.signal(sig, handler)
    assert all(signal.getsignal(sig) is handler for sig, handler in handlers_before.items())
    assert result is not None and result.failures[1].exitcode == -signal.SIGKILL, result
    assert result.failures[0].exitcode == -signal.SIGTERM and ended_after < 1.0, (result.failures, ended_after)


class _Barrier:
    """A torch ``Work`` as the last wait's barrier is one: complete or not, its future's value raising its error."""

    def __init__(self, completed: bool, error: Exception | None = None):
        self.completed, self.error = completed, error

    def is_completed(self) -> bool:
        return self.completed

    def get_future(self):
        def value():
            if self.error is not None:
                raise self.error
            return []
        return SimpleNamespace(value=value)


@pytest.mark.parametrize("barrier, came", [(None, False), (_Barrier(False), False), (_Barrier(True), True),
                                           (_Barrier(True, RuntimeError("Connection reset by peer")), False)])
def test_a_last_wait_whose_barrier_ended_in_an_error_is_not_every_process_come(barrier, came, monkeypatch):
    """A process killed before the last wait: gloo's barrier is complete as it fails ("Connection reset by peer"),
    before torch's agent signals the rest. Taken for every process come (hundred-and-tenth session, until its review),
    the agent's SIGTERM was no death but a stop, and the main process ended 14.0-14.3 s later, status 1, gloo's
    traceback (its review's probe, 2 of 2) where it ends at once with SIGTERM's default (0.38-1.94 s, 6 of 7 runs)."""
    from accelerated_seg import last_wait

    monkeypatch.setattr(last_wait, "_last_barrier", [barrier])
    assert last_wait.every_process_came_to_the_last_wait() is came


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
@pytest.mark.parametrize("first, second", [("SIGTERM", "SIGTERM"), ("SIGUSR1", "SIGTERM"), ("SIGTERM", "SIGUSR1")])
def test_a_stop_handler_run_inside_itself_at_any_step_raises_the_first_stop_once_and_never_waits(first, second):
    """A job's SIGTERM reaches the process and its agent, which sends it on: the second ran the handler inside the
    first's, and a CI run of the hundred-and-twenty-seventh session found the main process waiting for ever inside
    its own handler (a threading.Event's lock, held by the first's ``set``, taken again by the second's), its stop
    never said, the launch killed 30 s on. Here the second's handler runs at each traced step of the first's in turn
    (tests/stop_handler_inside_itself.py, a process of its own, bounded): the first stop alone is raised, by the outer
    handler, once; the inner raises nothing into it (it cut the first's decision short) and returns. At the first
    step, before the outer has done anything, the inner is the first: its stop alone is raised."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    script = Path(__file__).with_name("stop_handler_inside_itself.py")
    done = subprocess.run([sys.executable, str(script), first, second], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = json.loads(done.stdout)
    raised = {"SIGTERM": "Terminated", "SIGUSR1": "StoppedBySIGUSR1"}
    assert len(steps) > 5, steps  # the handler's lines, with its decision's
    assert [(step["outer"], step["inner"]) for step in steps] == [
        (None, raised[second])] + [(raised[first], None)] * (len(steps) - 1), steps


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes beside this one read in /proc")
def test_a_sigterm_as_the_main_thread_holds_the_stores_lock_is_decided_by_the_thread_and_waits_for_nothing():
    """The decision asks the store whether an error is published, and the store's client is behind a lock of
    ranks_stop_together's (_STAND_IN_LOCK) that the main thread holds while a fresh client is made after a blip. A
    SIGTERM there, a process beside this one ended, ran the decision in the handler, on the main thread, whose ask
    waited for that lock for ever, and the thread, which had begun to decide, for the handler (review r130): no line
    said, the launch killed by the agent 30 s on. The handler now waits for the thread's decision, within
    DECIDED_WITHIN_S (1 s here), then raises its stop; the main thread lets the lock go, and the thread decides and
    ends the process with SIGTERM's default (tests/stop_while_the_store_lock_is_held.py, a process of its own; 1 run
    of 10 ended before the main thread said the stop it raised)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    script = Path(__file__).with_name("stop_while_the_store_lock_is_held.py")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    # the stop raised is said as the main thread goes on, unless the thread, given the lock, has ended it first
    assert done.returncode == -signal.SIGTERM and done.stdout in ("", "raised Terminated\n"), done.stderr[-3000:]
