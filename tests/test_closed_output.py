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


def _a_pipe_whose_reader_is_gone(monkeypatch, name: str = "stdout"):
    """``sys.<name>`` as a job's is under ``... | tee run.log`` once tee is dead: block-buffered, as
    Python makes any stdout that is no terminal."""
    read, write = os.pipe()
    os.close(read)
    stream = os.fdopen(write, "w")
    monkeypatch.setattr(sys, name, stream)
    return stream


def test_what_the_run_left_in_the_buffer_meets_the_gone_reader_before_the_guard_is_lifted(monkeypatch):
    stream = _a_pipe_whose_reader_is_gone(monkeypatch)
    with surviving_a_closed_output():
        print("step 4: loss 0.52")  # no write yet: it waits in the buffer
    stream.flush()  # the CLI's, or the interpreter's at exit: BrokenPipeError (status 120 at exit) without it
    stream.close()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, whose writes fail with ENOSPC")
def test_a_flush_that_fails_otherwise_as_the_run_ends_neither_hides_its_error_nor_keeps_the_streams_wrapped(
        monkeypatch):
    """stdout redirected to a full disk's file: the flush of what the run left in the buffer raises
    OSError (ENOSPC). Raised in the guard's ending, it replaced the run's own error (a refused setting,
    a checkpoint the full disk could not hold: one line, said by the CLI) with an OSError traceback, and
    the guard gave neither stream back."""
    full = open("/dev/full", "w")  # block-buffered: the print waits in the buffer
    monkeypatch.setattr(sys, "stdout", full)
    stderr = sys.stderr
    with pytest.raises(KeyError, match="the run's own error"):
        with surviving_a_closed_output():
            print("step 4: loss 0.52")
            raise KeyError("the run's own error")
    assert sys.stdout is full and sys.stderr is stderr
    with pytest.raises(OSError):  # a run that ended well is told the flush's error, the streams given back
        with surviving_a_closed_output():
            print("step 4: loss 0.52")
    assert sys.stdout is full and sys.stderr is stderr
    nowhere = os.open(os.devnull, os.O_WRONLY)  # what the buffer holds still goes nowhere at close
    os.dup2(nowhere, full.fileno())
    os.close(nowhere)
    full.close()


def test_a_whole_run_whose_reader_is_gone_ends_the_train_command_with_status_0(tiny_dataset, tmp_path, monkeypatch):
    """Its few lines (under 8 KiB) waited in stdout's buffer through the run, and the CLI's own flush
    after it met the gone reader: ``accelerated-seg train ... | tee run.log`` ended with status 141
    when tee died, though the run was saved and exported whole (a preempted one saved), and a
    one-process ``accelerate launch``, whose process Python runs without -u, failed with status 1."""
    from accelerated_seg.cli import main

    from conftest import tiny_overrides  # tests/ is on sys.path

    stream = _a_pipe_whose_reader_is_gone(monkeypatch)
    assert main(["train", *tiny_overrides(tiny_dataset, tmp_path / "run", train__max_steps=2)]) == 0
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()
    stream.close()
