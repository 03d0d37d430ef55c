"""exit_now: a process ending with os._exit removes the multiprocessing folder it made, and no other's."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A process with children forked by multiprocessing, each ending with exit_now: one made before the parent had a
# folder (so it makes its own, as a worker of a user's forking loader does where its rank has none), one after (it
# inherits the parent's name, as every worker of our loaders does: the rank's fork server made its folder). Then the
# parent removes its own twice, the second time with nothing left to remove, and ends with exit_now too. Each says
# what it saw in a file of its own, the parent in ``seen.json``.
_FAMILY = textwrap.dedent("""
    import json, multiprocessing, os, shutil, sys
    from multiprocessing import util
    from accelerated_seg.exit_now import exit_now, remove_own_multiprocessing_folder

    def child(name):
        folder = util.get_temp_dir()  # its own, or the parent's inherited name
        with open(name, "w") as said:
            json.dump({"folder": folder, "pid": os.getpid()}, said)
        exit_now(3)

    if __name__ == "__main__":
        fork = multiprocessing.get_context("fork")
        before = fork.Process(target=child, args=("before.json",))
        before.start(), before.join()
        own = util.get_temp_dir()
        after = fork.Process(target=child, args=("after.json",))
        after.start(), after.join()
        still_there = os.path.isdir(own)  # after the child that inherited its name ended
        shutil.rmtree(own)  # already gone: the removal says nothing
        os.mkdir(own)
        seen = {"own": own, "still_there": still_there, "statuses": [before.exitcode, after.exitcode]}
        with open("seen.json", "w") as said:
            json.dump(seen, said)
        remove_own_multiprocessing_folder()
        remove_own_multiprocessing_folder()  # nothing of its own left: nothing happens
        sys.stdout.flush()
        exit_now(5)
    """)


def test_a_process_ending_with_exit_now_removes_its_own_multiprocessing_folder_and_no_others(tmp_path):
    """A launch with loader workers stopped by Ctrl-C, and every launched command's end, left a ``pymp-*`` folder per
    process in the temporary folder until the hundred-and-twelfth session: os._exit skips multiprocessing's clean-up.
    """
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (tmp_path / "family.py").write_text(_FAMILY)
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "family.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 5 and not done.stderr, done.stderr
    seen = json.loads((tmp_path / "seen.json").read_text())
    before, after = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("before", "after"))
    assert seen["statuses"] == [3, 3]
    assert Path(before["folder"]).parent == temporary and before["folder"] != seen["own"]  # the child's own
    assert after["folder"] == seen["own"] and seen["still_there"]  # inherited: left to the parent
    assert not list(temporary.iterdir())  # the child's own and the parent's removed, each by its maker


def test_multiprocessings_private_names_that_exit_now_reads_are_there(tmp_path, monkeypatch):
    """remove_own_multiprocessing_folder finds the folder through multiprocessing's private finalizer registry and
    suppresses every error: were Python to rename what it reads, it would silently remove nothing again. Here, in this
    process (a fresh folder made and found, then put away by hand, this process's own left as it was)."""
    import tempfile
    from multiprocessing import process, util

    config = process.current_process()._config
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setitem(config, "tempdir", None)  # as before this process's first socket file
    folder = util.get_temp_dir()
    found = [f for f in getattr(util, "_finalizer_registry", {}).values()
             if getattr(f, "_callback", None) is getattr(util, "_remove_temp_dir", object())
             and getattr(f, "_pid", None) == os.getpid() and getattr(f, "_args", (None, None))[1:] == (folder,)]
    for finalizer in found:
        finalizer.cancel()
    os.rmdir(folder)
    assert len(found) == 1, (f"Python {sys.version.split()[0]}'s multiprocessing.util no longer records its pymp-* "
                             f"folder as exit_now.remove_own_multiprocessing_folder reads it "
                             f"(_finalizer_registry, Finalize._callback/_args/_pid, _remove_temp_dir)")


# A rank-like process whose loader worker (forked, so it inherits the name of the rank's folder, as the fork server's
# workers do; set up by init_training_worker, as torch's worker loop runs it) has not handed a batch over yet when the
# rank removes its folder on its way out (exit_now), and hands one over just after: a socket, which multiprocessing
# hands over as torch's tensors are, through a socket file of its resource_sharer in that folder, which is gone. The
# rank ends a moment later, as a rank ended by its watcher thread does while its main thread still runs. No torch: the
# process starts in a fifth of the time.
_RANK_ENDING = textwrap.dedent("""
    import multiprocessing, os, socket, time
    from multiprocessing import util
    from accelerated_seg.data.workers import init_training_worker
    from accelerated_seg.exit_now import remove_own_multiprocessing_folder

    def worker(rank_pid, batches):
        init_training_worker(0, rank_pid=rank_pid)
        open("started", "w").close()
        while not os.path.exists("go"):
            time.sleep(0.01)
        batches.put(socket.socket())  # handed over as a file descriptor, through a socket file in the folder
        time.sleep(30)  # until end_with_the_rank ends it

    if __name__ == "__main__":
        util.get_temp_dir()  # the rank's folder, as its fork server's start makes it
        fork = multiprocessing.get_context("fork")
        batches = fork.Queue()
        fork.Process(target=worker, args=(os.getpid(), batches), daemon=True).start()
        while not os.path.exists("started"):
            time.sleep(0.01)
        remove_own_multiprocessing_folder()
        open("go", "w").close()
        time.sleep(0.5)
        os._exit(7)
    """)


def test_a_worker_handing_a_batch_over_as_its_rank_removes_the_folder_says_nothing(tmp_path):
    """Found in the hundred-and-twelfth session's review: with the rank's folder removed as the rank ends, a worker
    handing over its first batch in that moment printed a ``FileNotFoundError`` traceback from its queue's feeder
    thread (multiprocessing's resource_sharer could not bind its socket) below the rank's last line."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (tmp_path / "rank.py").write_text(_RANK_ENDING)
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "rank.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)  # the pipes read to their end: the worker has ended too
    assert done.returncode == 7 and "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "go").exists() and not list(temporary.iterdir())


def test_ends_within_waits_for_a_process_to_end_with_pidfds_and_without(monkeypatch):
    """workers._ends_within, which end_with_the_rank (no limit) and the feeder's quieting (a limit) wait with."""
    from accelerated_seg.data import workers

    for pidfds in (True, False):
        if not pidfds:
            monkeypatch.delattr(os, "pidfd_open", raising=False)  # a platform without them: it polls
            monkeypatch.setattr(workers, "RANK_POLL_S", 0.02)
        assert not workers._ends_within(os.getpid(), 0.05)
        ending = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
        if pidfds:  # a pidfd reads as ended before the process is reaped (polling sees it once reaped, by its parent)
            assert workers._ends_within(ending.pid, 10)
        assert ending.wait() == 0 and workers._ends_within(ending.pid, 10)  # reaped: no such process


# A process holding a predict's output folder lock on its main thread, as a launched predict's main process does while
# every process stops together: a child forked inside the lock ends with exit_now first (a loader worker's end: the
# lock is its parent's, never let go by it), then a watcher thread ends the process with exit_now, the main thread
# still inside the with statement (ranks_stop_together's end). ``held.json``: what the parent saw after the child.
_HOLDER = textwrap.dedent("""
    import json, os, sys, threading, time
    from accelerated_seg.exit_now import exit_now
    from accelerated_seg.run_lock import hold_run_folder, live_holder

    lock = hold_run_folder("out")
    try:
        open("out/seg.nii.gz", "w").close()  # a map written: the folder stays
        child = os.fork()
        if child == 0:
            exit_now(3)
        _, status = os.waitpid(child, 0)
        with open("held.json", "w") as said:
            json.dump({"child": os.waitstatus_to_exitcode(status), "file": os.path.exists("out/.run.lock"),
                       "held": live_holder("out") is not None}, said)
        threading.Thread(target=exit_now, args=(143,)).start()
        time.sleep(60)
    finally:
        lock.release()
    """)


def test_a_process_ending_with_exit_now_inside_a_run_lock_lets_it_go_and_a_forked_child_does_not(tmp_path):
    """A launched predict stopped together (Ctrl-C, SIGTERM, SIGUSR1, a reader gone, one process's error) ends each
    process with exit_now from its watcher thread, the main process's main thread still inside the output folder's
    lock: its ``.run.lock`` stayed in the folder (4 of 4 stops in the hundred-and-twenty-fifth session's walk) until
    that session's review (r119). A forked child's exit (a loader worker's) lets go of nothing: the lock is its
    parent's, alive."""
    (tmp_path / "holder.py").write_text(_HOLDER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "holder.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 143 and not done.stderr, done.stderr
    assert json.loads((tmp_path / "held.json").read_text()) == {"child": 3, "file": True, "held": True}
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["seg.nii.gz"]
