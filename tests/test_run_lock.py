"""One live run per folder (run_lock.py): a second one is refused before it writes anything, and the
lock ends with the run however it ends."""

import errno
import json
import os
import signal
import subprocess
import sys

import pytest

from accelerated_seg import run_lock
from accelerated_seg.config import ConfigError
from accelerated_seg.run_lock import LOCK_NAME, hold_run_folder


def test_a_folder_held_by_a_live_run_is_refused_naming_the_holder(tmp_path):
    folder = tmp_path / "run"
    first = hold_run_folder(folder)
    holder = json.loads((folder / LOCK_NAME).read_text())
    assert holder["pid"] == os.getpid() and holder["host"] and holder["started"]
    with pytest.raises(ConfigError, match=rf"{folder} is in use by another run \(process {os.getpid()} on .*"
                                          rf"Wait for it to end .* or train into another --train.output_dir"):
        hold_run_folder(folder)  # flock excludes a second open of the file, in this process too
    first.release()
    assert not folder.exists()  # the lock made the folder and the run left it empty: no trace
    (tmp_path / "kept").mkdir()
    hold_run_folder(tmp_path / "kept", elsewhere="another checkpoint_dir").release()
    assert (tmp_path / "kept").is_dir() and not (tmp_path / "kept" / LOCK_NAME).exists()


def test_the_parents_the_lock_made_go_with_the_folder_and_no_other(tmp_path):
    """A run refused under a new parent (Segmentation().fit's default runs/segmentation) left the parent
    behind, empty (ninety-first session): what the lock made goes, what was there or was written stays."""
    hold_run_folder(tmp_path / "new" / "parent" / "run").release()
    (tmp_path / "kept").mkdir()
    hold_run_folder(tmp_path / "kept" / "new" / "run").release()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"] and not any((tmp_path / "kept").iterdir())
    lock = hold_run_folder(tmp_path / "a" / "b" / "run")
    (tmp_path / "a" / "written").touch()  # by the run, or by someone else meanwhile
    lock.release()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["written"]


def test_the_lock_of_a_killed_run_is_gone_with_its_process(tmp_path):
    folder = tmp_path / "run"
    code = ("import sys, time; from accelerated_seg.run_lock import hold_run_folder; "
            f"lock = hold_run_folder({str(folder)!r}); print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match=f"process {holder.pid} on"):
            hold_run_folder(folder)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert (folder / LOCK_NAME).is_file()  # left behind by the kill, but no longer locked
    hold_run_folder(folder).release()


def test_a_lock_file_that_cannot_be_removed_is_left_unlocked_without_hiding_the_runs_error(tmp_path, monkeypatch):
    """A folder gone read-only mid-run: release's PermissionError on .run.lock replaced the error that
    ended the run as the last thing the user saw (sixty-ninth session). The file stays, unlocked."""
    from pathlib import Path

    lock = hold_run_folder(tmp_path)
    real_unlink = Path.unlink

    def read_only(self, missing_ok=False):
        if self.name == LOCK_NAME:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(OSError, match="No space left on device"):
        try:
            raise OSError(errno.ENOSPC, "No space left on device")  # what ended the run
        finally:
            lock.release()
    monkeypatch.setattr(Path, "unlink", real_unlink)
    assert (tmp_path / LOCK_NAME).is_file()
    hold_run_folder(tmp_path).release()  # no longer locked: the next run takes it


def test_a_run_that_locked_a_file_its_predecessor_removed_takes_the_new_one(tmp_path):
    """Release removes the file before it drops the lock; a run that opened the old file just before
    then holds a lock on a file no longer there, and must not count it."""
    first = hold_run_folder(tmp_path)
    with open(tmp_path / LOCK_NAME, encoding="utf-8") as stale:
        first.release()
        assert not run_lock.same_file(stale, tmp_path / LOCK_NAME)
        second = hold_run_folder(tmp_path)
        assert run_lock.same_file(second._handle, tmp_path / LOCK_NAME)
        second.release()


def test_a_filesystem_without_flock_leaves_the_run_unguarded_and_says_why(tmp_path, monkeypatch):
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    lock = hold_run_folder(tmp_path / "lustre")
    assert lock.unsupported.startswith("its filesystem does not lock files")
    lock.release()
    assert not (tmp_path / "lustre" / LOCK_NAME).exists()  # an empty file that locked nothing stayed before


def test_one_files_lock_lies_beside_it_apart_from_its_folders_and_its_name_fits(tmp_path):
    """predict --output <one map> holds the lock of the file its write reaches (inference_outputs): named after the
    file, within a file name's 255 bytes, held and refused as a folder's is, and no bar to the folder's own lock."""
    from accelerated_seg.run_lock import file_lock_name, live_holder

    assert file_lock_name(tmp_path / "seg.nii.gz") == ".seg.nii.gz.run.lock"
    long = file_lock_name("é" * 120 + ".nii.gz")  # 247 bytes of name
    assert len(long.encode()) <= 255 and long.startswith(".é") and long.endswith(".run.lock")
    name, shown = file_lock_name("seg.nii.gz"), f"{tmp_path / 'seg.nii.gz'} (which x is a link to)"
    first = hold_run_folder(tmp_path, name=name)
    assert live_holder(tmp_path, name).startswith(f"process {os.getpid()} on ") and live_holder(tmp_path) is None
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'seg.nii.gz'} \(which x is a link to\) is in use by "
                                          rf"another run \(process {os.getpid()} on "):
        hold_run_folder(tmp_path, name=name, shown=shown)
    hold_run_folder(tmp_path).release()  # the folder's lock is another
    first.release()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_two_long_names_sharing_their_first_bytes_hold_locks_of_their_own(tmp_path):
    """A name too long for ``.<name>.run.lock`` is cut: two maps whose names shared their first 245 bytes shared one
    lock until the hundred-and-twenty-second session, and the second predict was refused, naming the first's command,
    though they wrote different files. The cut name now carries a digest of the whole name; an ordinary name's lock is
    named as before, and one name's lock is still refused to a second run."""
    from accelerated_seg.run_lock import file_lock_name

    stem = "s" * 245
    names = [f"{stem}_1.nii.gz", f"{stem}_2.nii.gz", f"{'n' * 246}.nii", f"{'n' * 246}.nii.gz", "é" * 123 + ".nii"]
    locks = [file_lock_name(tmp_path / name) for name in names]
    assert len(set(locks)) == len(locks), locks
    assert all(len(lock.encode()) <= 255 and lock.startswith(".") and lock.endswith(".run.lock") for lock in locks)
    assert locks == [file_lock_name(name) for name in names]  # the same in every process: no salted hash()
    assert locks[0].startswith(f".{stem[:200]}") and locks[-1].startswith(".é")
    assert file_lock_name("a" * 245) == f".{'a' * 245}.run.lock"  # the longest name kept whole
    held = [hold_run_folder(tmp_path, name=lock) for lock in locks]  # each beside the others
    with pytest.raises(ConfigError, match="is in use by another run"):
        hold_run_folder(tmp_path, name=file_lock_name(names[0]))
    for lock in held:
        lock.release()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("at", ["as its holder is named", "as it is returned"])
def test_a_stop_as_the_lock_is_taken_leaves_no_lock_behind_even_with_its_exception_kept(tmp_path, monkeypatch, at):
    """A stop (its handler raising) between the flock and the lock's keeping by predict left the lock file and the
    folder the lock made, and the lock itself held by the file its frame kept open while the exception was kept (a
    notebook keeps the last one): the same predict again was refused, naming its own process, until the
    hundred-and-twenty-second session. The stop is held until the lock is kept, then raised with it released. A real
    SIGINT, sent from within the window, raised by Python's handler: as the holder's name is written (hold_run_folder),
    or as hold_run_folder returns to predict (holding_output_folder)."""
    import socket

    from accelerated_seg import inference_outputs
    from accelerated_seg.inference_outputs import holding_output_folder

    output = tmp_path / "new" / "seg.nii.gz"
    module, name = (socket, "gethostname") if at == "as its holder is named" else (inference_outputs, "hold_run_folder")
    real = getattr(module, name)

    def signalled(*args, **kwargs):
        done = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # its handler runs as this returns, where nothing else holds it
        return done

    monkeypatch.setattr(module, name, signalled)
    with pytest.raises(KeyboardInterrupt) as stopped:
        with holding_output_folder(output, [output]):
            pytest.fail("the stop was not raised before the work")
    monkeypatch.undo()
    assert not output.parent.exists()  # neither the lock file nor the folder made for it
    with holding_output_folder(output, [output]):  # the exception still kept: not refused
        assert sorted(p.name for p in output.parent.iterdir()) == [".seg.nii.gz.run.lock"]
    assert stopped.value.__traceback__ is not None
