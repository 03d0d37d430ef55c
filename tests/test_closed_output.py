"""A run's prints after their reader is gone (a pipe's reader killed with the launcher's group) go
nowhere instead of raising BrokenPipeError in the middle of the run's save (closed_output.py)."""

import os
import sys

import pytest

from accelerated_seg.closed_output import surviving_a_closed_output


def test_a_write_whose_reader_is_gone_goes_nowhere_and_the_stream_is_given_back(monkeypatch):
    read, write = os.pipe()
    os.close(read)  # the reader is gone
    stream = os.fdopen(write, "w")
    monkeypatch.setattr(sys, "stdout", stream)
    with pytest.raises(BrokenPipeError):
        print("lost", flush=True)
    with surviving_a_closed_output():
        print("saved at step 12", flush=True)  # BrokenPipeError without it
        print("and more", flush=True)
        assert sys.stdout is not stream and sys.stdout.fileno() == write
    assert sys.stdout is stream
    stream.write("after the run\n")
    stream.flush()  # the descriptor is /dev/null's now: the interpreter's last flush cannot fail either
    stream.close()


def test_a_stream_without_a_descriptor_is_left_as_it_is(monkeypatch):
    import io

    captured = io.StringIO()  # a notebook's or pytest's capture
    monkeypatch.setattr(sys, "stdout", captured)
    with surviving_a_closed_output():
        assert sys.stdout is captured
        print("kept")
    assert captured.getvalue() == "kept\n"
