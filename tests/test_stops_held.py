"""A stop that comes as ``files.write_files_together`` renames its files is held until they are all in place
(stops_held.py): signals sent to this process, so that the handler runs where Python runs it."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

import accelerated_seg.files as files
from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated, raised_once
from accelerated_seg.stops_held import stops_held


def _signalled_at_the_first_rename(monkeypatch, signum: int) -> None:
    """``os.replace`` (files.py's) sends ``signum`` to this process once its first rename is done: the handler runs at
    Python's next look, before the second rename."""
    renamed, calls = os.replace, []

    def replace(*args, **kwargs):
        renamed(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signum)

    monkeypatch.setattr(files.os, "replace", replace)


@pytest.mark.parametrize("signum, raised", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated),
                                            (signal.SIGUSR1, StoppedBySIGUSR1)])
def test_a_stop_between_two_renames_is_raised_once_every_file_is_in_place(tmp_path, monkeypatch, signum, raised):
    """Ctrl-C, SIGTERM or SIGUSR1 (sigterm's handler) sent as the first of two files is renamed into place: raised
    between the renames until the hundred-and-twenty-first session's review, it left the first file new and the second
    old (evaluate's metrics.csv beside an earlier summary.json). Now both are new, nothing hidden left, and then it is
    raised; the handler is put back as it was."""
    handler = signal.default_int_handler if signum == signal.SIGINT else raised_once()
    before = signal.signal(signum, handler)
    try:
        for name in ("metrics.csv", "summary.json"):
            (tmp_path / name).write_text("old")
        _signalled_at_the_first_rename(monkeypatch, signum)
        with pytest.raises(raised):
            files.write_files_together(tmp_path, {name: lambda path: path.write_text("new")
                                                  for name in ("metrics.csv", "summary.json")})
        assert {path.name: path.read_text() for path in tmp_path.iterdir()} == {"metrics.csv": "new",
                                                                               "summary.json": "new"}
        assert signal.getsignal(signum) is handler
    finally:
        signal.signal(signum, before)


def test_a_stop_as_the_files_are_written_is_raised_there_and_replaces_none(tmp_path):
    """Before the renames a stop is not held: raised in the second file's write, neither file is replaced."""
    (tmp_path / "a").write_text("old")

    def stopped(path: Path):
        os.kill(os.getpid(), signal.SIGINT)
        path.write_text("new")

    with pytest.raises(KeyboardInterrupt):
        files.write_files_together(tmp_path, {"a": lambda path: path.write_text("new"), "b": stopped})
    assert [(path.name, path.read_text()) for path in tmp_path.iterdir()] == [("a", "old")]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_or_default_signal_and_another_thread_are_left_as_they_are():
    """A signal ignored, or at the system's default (a kill), is not touched; off the main thread nothing is set."""
    before = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        with stops_held():
            assert signal.getsignal(signal.SIGUSR1) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # held
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGUSR1, before)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(_held_off_the_main_thread()))
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


def _held_off_the_main_thread():
    with stops_held():
        return signal.getsignal(signal.SIGINT)
