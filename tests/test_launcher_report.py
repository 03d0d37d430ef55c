"""Our error line in the failure report of torch's launcher (launcher_report.py).

Under ``accelerate launch`` with several processes the launcher's report of a failed rank came
after our one-line error and said only "To enable traceback see ..." (seventy-third session).
"""

import json
import time
from pathlib import Path

import pytest

from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

from accelerated_seg.cli import main
from accelerated_seg.launcher_report import leave_for_the_launcher, say_the_error


def _launcher_report(error_file) -> str:
    """The report torch's launcher prints for a rank that ended with status 2 and this error file."""
    failure = ProcessFailure(local_rank=0, pid=1, exitcode=2, error_file=str(error_file))
    return ChildFailedError("accelerated_seg.cli", {0: failure}).format_msg()


def test_the_launchers_report_shows_our_error_line_in_place_of_its_link(tmp_path, monkeypatch):
    error_file = tmp_path / "error.json"
    assert "To enable traceback see" in _launcher_report(error_file)  # what it said without the file
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))
    leave_for_the_launcher("setting train.max_steps must be >= 1, got 0")
    report = _launcher_report(error_file)
    assert "traceback : error: setting train.max_steps must be >= 1, got 0" in report, report
    assert "To enable traceback see" not in report


def test_an_interrupt_is_left_for_the_launcher_as_said_not_as_an_error(tmp_path, monkeypatch):
    """A process that an interrupt of another stopped (ranks_stop_together) left "error: predict interrupted ..."
    in the launcher's table, where the main process says no error (until the ninety-ninth session)."""
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))
    leave_for_the_launcher("predict interrupted in process 1 (no case was written)", error=False)
    assert "traceback : predict interrupted in process 1 (no case was written)\n" in _launcher_report(error_file)


def test_nothing_is_written_outside_the_launcher(tmp_path, monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    monkeypatch.chdir(tmp_path)
    leave_for_the_launcher("an error")
    assert not list(tmp_path.iterdir())


def test_a_refused_command_and_training_leave_their_line_on_every_rank(tmp_path, monkeypatch, capsys):
    """predict on a rank that does not print (RANK 1) leaves the line all the same, and so does
    training's one-line ending of a bad setting (exit_on_user_error), as each rank of a launch."""
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert main(["predict", "--model", str(tmp_path / "nowhere"), "scan.nii.gz", "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ""  # the main rank says it on the console
    message = json.loads(error_file.read_text())["message"]["message"]
    assert message.startswith("error: ") and "nowhere" in message and "config.json" in message
    error_file.unlink()
    with pytest.raises(SystemExit) as stopped:
        main(["train", "--train.max_steps=0", f"--train.output_dir={tmp_path / 'run'}"])
    assert stopped.value.code == 2
    assert "train.max_steps must be >= 1, got 0" in _launcher_report(error_file)


def _refuse_as(rank: str, attempt, monkeypatch) -> None:
    """say_the_error on local rank ``rank`` of a node's launch attempt, in torch elastic's folders."""
    monkeypatch.setenv("LOCAL_RANK", rank)
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(attempt / rank / "error.json"))
    (attempt / rank).mkdir(parents=True)
    say_the_error("setting train.max_steps must be >= 1, got 0")
    assert "train.max_steps" in (attempt / rank / "error.json").read_text()  # every rank's row in the table


def test_the_first_process_of_a_node_to_refuse_says_it_whatever_its_rank(tmp_path, monkeypatch, capsys):
    """Under torch elastic the line is said once, by the first process to refuse (here rank 1), before
    its exit lets the agent stop the others; the main process, finding it said, does not wait."""
    _refuse_as("1", tmp_path / "attempt_0", monkeypatch)
    assert capsys.readouterr().err == "error: setting train.max_steps must be >= 1, got 0\n"
    started = time.monotonic()
    _refuse_as("0", tmp_path / "attempt_0", monkeypatch)
    assert capsys.readouterr().err == "" and time.monotonic() - started < 1
    _refuse_as("0", tmp_path / "attempt_1", monkeypatch)  # the launcher's next attempt: said again
    assert capsys.readouterr().err == "error: setting train.max_steps must be >= 1, got 0\n"


@pytest.mark.distributed
def test_a_refusal_the_main_process_reaches_last_is_said_once_on_stderr(tmp_path):
    """Every process refuses, the main one last: the agent stopped it (SIGTERM) once the other had
    exited, before it printed, and the line was left only in the failure table, under the launcher's
    traceback (until the ninety-third session). Now the first process to refuse says it."""
    from test_inference_distributed import launch_two  # tests/ is on sys.path (rootdir-style test imports)

    script = str(Path(__file__).with_name("late_main_rank_refuses.py"))
    for _ in range(3):  # the main process was stopped before its line in every try
        proc = launch_two(tmp_path / "x", [script, "train", "--train.max_steps=0"], timeout=120)
        said = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
        assert proc.returncode == 1 and said == ["error: setting train.max_steps must be >= 1, got 0"], proc.stderr
        assert "traceback : error: setting train.max_steps must be >= 1, got 0" in proc.stderr  # the table's row


def _disk_full(path, text, encoding=None):
    """Path.write_text on a disk that fills halfway through the text."""
    with open(path, "w", encoding=encoding) as file:
        file.write(text[: len(text) // 2])
    raise OSError(28, "No space left on device")


def test_a_report_whose_write_fails_leaves_the_one_before_whole(tmp_path, monkeypatch):
    """The report was written in place: a write cut short (a disk full here; a process ending as its watcher wrote it,
    ranks_stop_together, until the hundred-and-fourth session) left half a JSON, which torch's launcher answers with a
    "Failed to parse reply file" traceback of its own. It is written beside, then renamed over the file."""
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))
    leave_for_the_launcher("predict stopped in process 1: a bug")
    monkeypatch.setattr(Path, "write_text", _disk_full)
    leave_for_the_launcher("a second line, cut short")
    monkeypatch.undo()
    assert "traceback : error: predict stopped in process 1: a bug" in _launcher_report(error_file)
    assert [path.name for path in tmp_path.iterdir()] == ["error.json"]  # no partial file left


def test_a_line_said_once_on_this_node_is_one_write_with_its_newline(monkeypatch):
    """The agent's log lines share the launch's stderr: ``print``'s line and newline, two writes to a stderr written
    through, let one land between them ("... run the same command againW1206 ... closing signal SIGTERM", a CI run
    of the hundred-and-nineteenth session). The line and its newline go in one write."""
    from accelerated_seg.launcher_report import say_once_on_this_node

    class Writes:
        def __init__(self):
            self.writes = []

        def write(self, text):
            self.writes.append(text)
            return len(text)

        def flush(self):
            pass

    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    monkeypatch.setenv("LOCAL_RANK", "0")
    monkeypatch.setattr("accelerated_seg.launcher_report.leave_for_the_launcher", lambda *_, **__: None)
    stderr = Writes()
    say_once_on_this_node("accelerated-seg predict stopped by SIGTERM before it began", stderr, "", error=False)
    assert stderr.writes == ["accelerated-seg predict stopped by SIGTERM before it began\n"]
