"""Loader workers from the fork server: a script without the main guard is refused before anything
runs, and a finished run stops its workers (data/workers.py, docs/known_issues.md)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.config import ConfigError
from accelerated_seg.data.workers import refuse_unguarded_main, stop_workers, worker_start_method
from conftest import tiny_overrides
from processes import run_bounded
from test_distributed import ROOT

ENV = {**os.environ, "OMP_NUM_THREADS": "1"}

GUARDED_CALL = """
from accelerated_seg.data.workers import refuse_unguarded_main

def main():
    refuse_unguarded_main(2)
    print("ran")

if __name__ == "__main__":
    main()
"""


def _run_script(tmp_path, source: str, *, timeout: float = 60) -> tuple[int, str, str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    proc = run_bounded([sys.executable, str(script)], cwd=tmp_path, timeout=timeout,
                       env=ENV)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("last_lines, refused_line", [
    ("if __name__ == '__main__':\n    main()\n", None),  # the guard, either way round
    ("if '__main__' == __name__:\n    main()\n", None),
    ("if __name__ == '__main__' and True:\n    main()\n", None),  # combined with other conditions
    ("try:\n    if __name__ == '__main__':\n        main()\nexcept KeyError:\n    pass\n", None),  # nested
    ("main()\n", 8),  # a call at top level, through a function
    ("refuse_unguarded_main(2)\n", 8),  # and directly
    ("if True:\n    main()\n", 9),  # a block that is not the guard
])
def test_a_training_call_outside_the_main_guard_is_refused_naming_the_line(tmp_path, last_lines, refused_line):
    source = GUARDED_CALL.split("if __name__")[0] + last_lines
    returncode, stdout, stderr = _run_script(tmp_path, source)
    if refused_line is None:
        assert returncode == 0 and "ran" in stdout, stderr
    else:
        assert returncode != 0 and "ran" not in stdout
        assert f"script.py, line {refused_line}, starts training outside `if __name__ == \"__main__\":`" in stderr
        assert "data.num_workers=2" in stderr and "set data.num_workers=0" in stderr


def test_without_workers_or_without_a_script_nothing_is_refused(tmp_path):
    assert _run_script(tmp_path, "from accelerated_seg.data.workers import refuse_unguarded_main\n"
                                 "refuse_unguarded_main(0)\nprint('ran')\n")[1] == "ran\n"
    # python -c: no script for a worker to import
    proc = run_bounded([sys.executable, "-c", "from accelerated_seg.data.workers import refuse_unguarded_main; "
                                              "refuse_unguarded_main(2); print('ran')"],
                       env=ENV, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "ran\n", proc.stderr


def test_a_script_read_from_stdin_is_refused_before_its_workers_look_for_its_file(tmp_path):
    """python - < script.py (a heredoc): each worker runs the main script from its path, '<stdin>', guarded
    or not, and the run died at the first batch with a FileNotFoundError traceback (seventy-seventh
    session's docs probe)."""
    proc = subprocess.run([sys.executable, "-"], input=textwrap.dedent(GUARDED_CALL), capture_output=True, text=True,
                          cwd=tmp_path, env=ENV, timeout=60)  # refused before any worker starts: nothing to stop
    assert proc.returncode != 0 and "ran" not in proc.stdout
    assert "the main script was read from <stdin> (python - < script.py, a heredoc)" in proc.stderr
    assert "or set data.num_workers=0" in proc.stderr


def test_a_packages_main_module_run_with_python_m_is_not_refused(tmp_path):
    """multiprocessing imports no package ``__main__.py`` in a worker, so ``python -m accelerated_seg
    train`` with loader workers was refused for nothing, its message asking to edit the installed
    package (seventieth session); a package's unguarded ``__main__.py`` runs."""
    package = tmp_path / "mypackage"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("from accelerated_seg.data.workers import refuse_unguarded_main\n"
                                         "refuse_unguarded_main(2)\nprint('ran')\n")
    proc = run_bounded([sys.executable, "-m", "mypackage"], cwd=tmp_path, env=ENV, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "ran\n", proc.stderr


def test_a_worker_importing_the_main_script_stops_at_the_training(monkeypatch):
    """The safety net where the script's call could not be seen: Python marks a child that imports
    the main script as ``_inheriting`` while it does."""
    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(ConfigError, match="a loader worker, importing the main script, reached the call: the "
                                          "script starts training outside"):
        refuse_unguarded_main(1)
    # Dataset.loader's call is named as what it is (it said "training" before the seventy-third session)
    with pytest.raises(ConfigError, match="starts a loader outside .* and start a loader again"):
        refuse_unguarded_main(1, setting="num_workers", what="a loader")


def test_an_unguarded_estimator_script_is_pointed_to_the_estimators_example(tiny_dataset, tmp_path, monkeypatch):
    """Segmentation.fit's and Dataset.loader's refusal said "as examples/train.py does", a script of the
    command line's config path, where the README shows the estimator's guard in examples/estimator.py
    (an audit of the estimator); train's own still names examples/train.py."""
    from accelerated_seg.estimator import Dataset, Segmentation

    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    images = sorted((tiny_dataset.parent / "imagesTr").glob("*.nii.gz"))
    data = Dataset.from_files([(str(i), str(i.parent.parent / "labelsTr" / i.name)) for i in images], block_shape=16,
                              n_classes=3, cache_dir=str(tmp_path / "cache"), num_workers=1).batch(2)
    for start in (data.loader, lambda: Segmentation(model_args={"channels": [4, 8, 16], "strides": [2, 2]},
                                                            output_dir=str(tmp_path / "run"),
                                                            val_every=0).fit(data, steps=1)):
        with pytest.raises(ConfigError, match=r"Put the call under `if __name__ == \"__main__\":` \(as "
                                              r"examples/estimator.py does\), or set num_workers=0"):
            start()
    with pytest.raises(ConfigError, match=r"\(as examples/train.py does\), or set data.num_workers=0"):
        refuse_unguarded_main(1)
    assert list(tmp_path.iterdir()) == []


def test_an_unguarded_training_script_is_refused_before_the_data_is_touched(tiny_dataset, tmp_path):
    """The whole path: train() of a script without the guard stops before the Accelerator and the
    preprocessing, so no cache or output is written, with one error naming the script's line."""
    overrides = tiny_overrides(tiny_dataset, tmp_path / "run", data__num_workers=1,
                               data__cache_dir=str(tmp_path / "cache"))
    returncode, stdout, stderr = _run_script(tmp_path, f"""
        from accelerated_seg.config import load_config
        from accelerated_seg.train import train
        train(load_config(None, {overrides!r}))
        """, timeout=120)
    assert returncode != 0
    assert "ConfigError: " in stderr and "script.py, line 4, starts training outside" in stderr
    assert not (tmp_path / "cache").exists() and not (tmp_path / "run").exists()


def test_stop_workers_ends_the_persistent_workers_and_leaves_the_loader_usable():
    data = TensorDataset(torch.arange(8.0))
    loader = DataLoader(data, batch_size=2, num_workers=2, persistent_workers=True,
                        multiprocessing_context=worker_start_method(2))
    assert [b[0].tolist() for b in loader][0] == [0.0, 1.0]
    workers = list(loader._iterator._workers)
    assert all(w.is_alive() for w in workers)
    stop_workers(loader)
    assert loader._iterator is None and not any(w.is_alive() for w in workers)
    assert sum(len(b[0]) for b in loader) == 8  # a new pass starts new workers
    stop_workers(loader)
    stop_workers(DataLoader(data))  # never iterated: nothing to stop


def test_a_training_run_with_workers_ends_with_them_stopped_and_nothing_leaked(tiny_dataset, tmp_path):
    """examples/train.py with a loader worker, as the quick-start demo runs it. Until the workers
    were stopped at the end of train(), Python's resource tracker warned at exit of "leaked
    semaphore objects": the persistent loader's queues, named semaphores under the fork server."""
    overrides = tiny_overrides(tiny_dataset, tmp_path / "run", data__num_workers=1, train__max_steps=2,
                               train__val_every=0, train__save_every=0)
    proc = run_bounded([sys.executable, str(ROOT / "examples" / "train.py"), "--no-report", *overrides],
                       env=ENV, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()
    assert "leaked" not in proc.stderr and "resource_tracker" not in proc.stderr, proc.stderr[-3000:]


def test_a_training_run_stops_its_loader_workers_once_it_has_drawn_its_last_batch(tiny_config, tmp_path,
                                                                                 monkeypatch):
    """The test above passes without ``stop_workers``: the run's loader is freed, its workers with it,
    when the run returns (found in the ninety-second session's audit of docs/known_issues.md). This one
    looks at the workers themselves, as the export starts: none still running."""
    import accelerated_seg.train as train_module

    running = []
    finish = train_module.finish_run  # configured_run.py's, as train calls it

    def finish_looking_at_the_workers(run, preempted):
        iterator = run.loop.train_dl.base_dataloader._iterator  # the persistent workers' iterator, if any
        running.append(0 if iterator is None else sum(worker.is_alive() for worker in iterator._workers))
        return finish(run, preempted)

    monkeypatch.setattr(train_module, "finish_run", finish_looking_at_the_workers)
    train_module.train(tiny_config(tmp_path / "run", data__num_workers=1, train__max_steps=2, train__val_every=0,
                                   train__save_every=0))
    assert running == [0]


def test_a_script_that_draws_from_the_estimators_loader_ends_without_a_leak(tiny_dataset, tmp_path):
    """The README's `loader = data.loader()`, one batch drawn, then the script ends: the workers' queues
    were left to the interpreter's teardown and the resource tracker warned of "2 leaked semaphore
    objects" (sixty-eighth session's docs probe)."""
    images = sorted((tiny_dataset.parent / "imagesTr").glob("*.nii.gz"))
    pairs = [(str(image), str(tiny_dataset.parent / "labelsTr" / image.name)) for image in images]
    returncode, stdout, stderr = _run_script(tmp_path, f"""
        from accelerated_seg import Dataset

        if __name__ == "__main__":
            data = Dataset.from_files({pairs!r}, block_shape=(16, 16, 16), n_classes=3, num_workers=2,
                                      cache_dir={str(tmp_path / "cache")!r}).batch(2)
            loader = data.loader()  # alive until the interpreter's teardown, as in the README
            batch = next(iter(loader))
            print("drew", tuple(batch["image"].shape))
        """, timeout=180)
    assert returncode == 0 and "drew (2, 1, 16, 16, 16)" in stdout, stderr[-3000:]
    assert "leaked" not in stderr and "resource_tracker" not in stderr, stderr[-3000:]


USERS_FORKING_LOADER_AFTER_FIT = """
import sys

import torch
from monai.losses import DiceCELoss
from monai.networks.nets import UNet
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.train import fit

if __name__ == "__main__":
    images = torch.randn(4, 1, 16, 16, 16)
    loader = DataLoader(TensorDataset(images, (images > 0.5).long()), batch_size=2, num_workers=1,
                        persistent_workers=True, multiprocessing_context="fork")  # Linux's default
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1)
    fit(model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()),
        max_steps=1, checkpoint_dir=sys.argv[1], progress_bar=False)
    next(iter(loader))  # a batch drawn again: the persistent loader starts workers and keeps them
    print("last line", flush=True)
"""


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method")
def test_a_script_whose_forked_workers_outlive_fit_still_exits(tmp_path):
    """fit makes a user's loader's workers ignore SIGTERM (spare_the_workers). Forked, they are the
    script's own children, which multiprocessing ends at exit with SIGTERM before waiting for them
    without limit: until end_deaf_workers_at_exit, this script printed its last line and hung."""
    script = tmp_path / "users_script.py"
    script.write_text(USERS_FORKING_LOADER_AFTER_FIT)
    proc = run_bounded([sys.executable, str(script), str(tmp_path / "run")], cwd=tmp_path, timeout=120, env=ENV)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("last line"), proc.stderr[-3000:]


def _descendants(pid: int) -> dict[int, int]:
    """{pid: parent's pid} of the processes started under ``pid``, its children's children included
    (read from /proc)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = {}, {pid}
    while frontier:
        children = {child: parent for child, parent in parents.items() if parent in frontier}
        found.update(children)
        frontier = set(children)
    return found


def _fork_server_workers(rank: int) -> list[int]:
    """The fork server under ``rank`` and the processes it has forked (loader workers), or []."""
    processes = _descendants(rank)
    for pid in processes:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            if b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                workers = [child for child, parent in processes.items() if parent == pid]
                return [pid, *workers] if workers else []
    return []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_rank_leaves_no_worker_or_fork_server_behind(tiny_dataset, tmp_path):
    """A rank killed without its clean-up (here SIGKILL, as the out-of-memory killer sends it): its
    workers' parent is the fork server, which lives as long as the workers do, so torch's watchdog
    never saw the rank go. Until end_with_the_rank the workers (ignoring SIGTERM) and the server ran
    on for good, and a pipe of the run's output never ended (forty-third session, a 400³ patch on
    2 CPU cores: the out-of-memory killer, then a `| tail` that waited for ever)."""
    from test_processes import _running

    # A checkpoint every step: one on disk says the worker has started and delivered batches.
    overrides = tiny_overrides(tiny_dataset, tmp_path / "run", data__num_workers=1, train__max_steps=100000,
                               train__val_every=0, train__save_every=1)
    rank = subprocess.Popen([sys.executable, str(ROOT / "examples" / "train.py"), "--no-report", *overrides],
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = []
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "run" / "checkpoints").glob("step_*")) and rank.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        started = _fork_server_workers(rank.pid)
        assert started, f"no worker running (rank exit status {rank.poll()})"
        rank.kill()
        rank.wait()
        deadline = time.monotonic() + 20
        while (left := [pid for pid in started if _running(pid)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert left == []  # the workers, and with them the fork server
    finally:
        rank.kill()
        for pid in started:  # a failed run's leftovers
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


SLOW_PRELOAD = """
import os
import time
from pathlib import Path

Path(os.environ["PRELOAD_STARTED"]).touch()
time.sleep(4)  # the seconds the fork server imports torch and MONAI, made longer to be hit surely
"""

LOADER_STARTED_AND_STOPPED = """
import sys

import torch
from torch.utils.data import DataLoader, Dataset

from accelerated_seg.data import workers


class Payload(Dataset):
    def __init__(self):
        self.payload = bytes(1 << 20)  # more than a pipe holds: the rank is still writing it when stopped

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.zeros(1)


if __name__ == "__main__":
    workers.WORKER_PRELOAD.insert(0, "slow_preload")
    try:
        loader = DataLoader(Payload(), num_workers=1, multiprocessing_context=workers.worker_start_method(1))
        next(iter(loader))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
"""


def _group_left(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` still running (zombies, ended but not reaped, are not)."""
    left = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                left.append(int(stat.parent.name))
    return left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_while_the_fork_server_imports_its_preload_prints_no_traceback(tmp_path):
    """The terminal's Ctrl-C reaches the rank and its fork server, which imports torch and MONAI for
    seconds before its first worker; the rank meanwhile is writing that worker's work into a pipe.
    Until the eighty-first session the server's import ended in a KeyboardInterrupt traceback, and
    with Ctrl-C blocked there, the worker, given half its work, in an UnpicklingError one."""
    (tmp_path / "slow_preload.py").write_text(SLOW_PRELOAD)
    script = tmp_path / "script.py"
    script.write_text(LOADER_STARTED_AND_STOPPED)
    started = tmp_path / "preload-started"
    rank = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, start_new_session=True, text=True,
                            env={**ENV, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
                                 "PRELOAD_STARTED": str(started)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and rank.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), rank.stderr.read() if rank.poll() is not None else "no preload within 60 s"
        time.sleep(0.5)  # the rank is in the worker's start by now: its work is 1 MB
        os.killpg(rank.pid, signal.SIGINT)  # as the terminal sends it
        _, stderr = rank.communicate(timeout=60)  # ends once the server and any worker have closed the pipes
        assert rank.returncode == 130 and stderr.strip() == "interrupted", stderr
        deadline = time.monotonic() + 10
        while _group_left(rank.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group_left(rank.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(rank.pid, signal.SIGKILL)


WORKER_FAILING_TO_START = """
import sys

from torch.utils.data import DataLoader, TensorDataset
import torch

from accelerated_seg.data import workers

if __name__ == "__mp_main__":  # what each worker runs as it starts, forked from the server with its modules
    print("the server had imported:", [name for name in ("scipy.signal", "transformers") if name in sys.modules],
          file=sys.stderr)
    raise RuntimeError("the worker's own failure")

if __name__ == "__main__":
    # The loader looks at its workers each time a wait for a batch runs out, after 5 s: after 0.5 here, the
    # words the same (the seconds of waiting for a worker already gone are no part of the test).
    from torch.utils.data.dataloader import _MultiProcessingDataLoaderIter
    _MultiProcessingDataLoaderIter._try_get_data.__defaults__ = (0.5,)
    loader = DataLoader(TensorDataset(torch.zeros(4)), num_workers=1,
                        multiprocessing_context=workers.worker_start_method(1))
    next(iter(loader))
"""


def test_a_worker_failing_to_start_beside_its_rank_still_says_why(tmp_path):
    """The quiet end is only for a worker whose rank has gone: one that fails to start while its rank
    waits for it prints its traceback, as before (after RANK_GONE_WITHIN_S).

    The server imports the package before MONAI (``WORKER_PRELOAD``), so that monai_imports.py keeps scipy.signal
    (and transformers, where installed) from MONAI's modules there too: the server spent those seconds that each
    rank was spared (until the ninety-sixth session). Looked at here, in a worker that starts anyway."""
    returncode, _, stderr = _run_script(tmp_path, WORKER_FAILING_TO_START, timeout=120)
    assert returncode != 0 and "RuntimeError: the worker's own failure" in stderr, stderr[-3000:]
    assert "the server had imported: []" in stderr, stderr[-3000:]
    assert "exited unexpectedly" in stderr


def test_a_worker_tells_that_its_rank_has_gone_from_the_pipe_its_work_came_through(monkeypatch):
    from accelerated_seg.data import fork_server

    def fails_to_take_its_work(fd, sentinel):
        raise EOFError("Ran out of input")

    start_up = fork_server.end_quietly_when_the_rank_has_gone(fails_to_take_its_work)
    read, write = os.pipe()
    try:
        os.write(write, b"the rest of a pickle")  # left unread by the failed start: read and dropped
        started = time.monotonic()
        assert not fork_server.rank_has_gone(read, within_s=0.2)  # the rank holds its end: still there
        assert time.monotonic() - started >= 0.2
        monkeypatch.setattr(fork_server, "RANK_GONE_WITHIN_S", 0.2)
        with pytest.raises(EOFError):  # a failure beside a live rank is raised
            start_up(None, read)
    finally:
        os.close(write)
    assert fork_server.rank_has_gone(read, within_s=5)  # its end closed: gone
    assert start_up(None, read) == 1  # and the failure is an exit status, not a traceback
    os.close(read)


def test_a_worker_waits_for_its_rank_only_where_a_queues_semaphore_was_gone(monkeypatch):
    """A failure to start beside a live rank is said at once: one importing the main script
    (multiprocessing.spawn.prepare) needs no rank, and a pickle cut short ends only where the rank
    has let go of the pipe. Only a queue's semaphore gone (FileNotFoundError), which the rank removes
    a moment before it has gone, waits for it (RANK_GONE_WITHIN_S; every failure waited 5.0 s
    before the eighty-first session's review)."""
    import multiprocessing.spawn
    import threading

    from accelerated_seg.data import fork_server

    def the_scripts_import_fails(fd, sentinel):
        multiprocessing.spawn.prepare({"authkey": "not bytes"})  # a TypeError inside prepare, nothing set

    def the_pickle_is_bad(fd, sentinel):
        raise AttributeError("Can't get attribute 'Dataset' on <module '__mp_main__'>")

    def a_semaphore_is_gone(fd, sentinel):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(fork_server, "RANK_GONE_WITHIN_S", 30.0)
    read, write = os.pipe()
    try:
        for fails, raised in ((the_scripts_import_fails, TypeError), (the_pickle_is_bad, AttributeError)):
            started = time.monotonic()
            with pytest.raises(raised):
                fork_server.end_quietly_when_the_rank_has_gone(fails)(None, read)
            assert time.monotonic() - started < 10
        threading.Timer(0.5, os.close, [write]).start()  # the rank ends a moment later
        started = time.monotonic()
        assert fork_server.end_quietly_when_the_rank_has_gone(a_semaphore_is_gone)(None, read) == 1
        assert 0.4 < time.monotonic() - started < 10
    finally:
        os.close(read)


SIGNALS_IN_FORK_SERVER_CHILDREN = """
import multiprocessing
import signal
import sys
import time

import torch

from accelerated_seg.data import workers


def blocked():
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return " ".join(signal.Signals(signum).name for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)
                    if signum in mask) or "none"


def report_blocked(answer):
    answer.put(blocked())


class Blocked(torch.utils.data.Dataset):
    def __len__(self):
        return 1

    def __getitem__(self, index):
        return blocked()


if __name__ == "__main__":
    if sys.argv[1] == "ours":
        context = workers.worker_start_method(1)  # our preload, with the fork_server module
    else:  # a user's loader's fork server, with the user's preload (spare_the_workers)
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["__main__", "json"])
        workers.start_fork_server_deaf_to_stop_signals()
    answer = context.SimpleQueue()
    child = context.Process(target=report_blocked, args=(answer,))
    child.start()
    print("a process blocks:", answer.get())
    child.join()
    child = context.Process(target=time.sleep, args=(60,))
    child.start()
    child.terminate()
    child.join(20)
    print("terminate() ended it:", child.exitcode == -signal.SIGTERM)
    for whose, init in (("a rank's", workers.worker_init_for_this_rank()), ("a user's", None)):
        loader = torch.utils.data.DataLoader(Blocked(), num_workers=1, multiprocessing_context=context,
                                             batch_size=None, worker_init_fn=init)
        print(whose, "loader worker blocks:", next(iter(loader)))
"""


@pytest.mark.parametrize("server", ["ours", "users"])
def test_a_fork_servers_processes_hear_ctrl_c_and_all_but_the_ranks_workers_the_stop_signals(tmp_path, server):
    """Our fork server starts with Ctrl-C and the stop signals blocked, and each process it forks
    keeps that mask. Ctrl-C is unblocked in each by the fork_server module, which a user's fork server
    did not preload, so its workers, and what they ran, could not be stopped with Ctrl-C (a reviewer's
    finding in the eighty-first session). The stop signals stayed blocked in all: the server is the
    process's only one, and a user's own process from the forkserver context, after training, could not
    be ended with terminate() (found in the eighty-first session), nor a user's own loader's workers,
    which never ignore them (the eighty-second's review). Now only the rank's loader workers keep them
    (worker_init_for_this_rank, which ignores them: leave_stop_signals_to_the_rank)."""
    script = tmp_path / "script.py"
    script.write_text(SIGNALS_IN_FORK_SERVER_CHILDREN)
    proc = run_bounded([sys.executable, str(script), server], cwd=tmp_path, timeout=180,
                       env={**ENV, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["a process blocks: none", "terminate() ended it: True",
                                        "a rank's loader worker blocks: SIGTERM SIGUSR1",  # and ignores them
                                        "a user's loader worker blocks: none"]


def _resource_sharer_answering(monkeypatch) -> tuple:
    """A resource sharer of this process's own, as a loader worker runs one to hand a batch's file descriptors over,
    and what its serving thread reports through ``sys.excepthook``."""
    from multiprocessing import resource_sharer

    reported = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, traceback: reported.append(error))
    sharer = resource_sharer._ResourceSharer()
    sharer._start()
    return sharer, reported


def _broken_off(address: str) -> None:
    """Connect as the rank taking a batch does, and break the connection off mid-answer, as a stop there does."""
    import socket
    import struct

    with socket.socket(socket.AF_UNIX) as rank:
        rank.connect(address)
        time.sleep(0.2)  # the challenge sent, unread
        rank.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_a_worker_says_nothing_of_a_batch_hand_over_the_rank_broke_off(monkeypatch):
    """A stop that reached the rank as it took a batch left the worker's resource sharer a connection reset, which it
    printed as a traceback below the rank's last line (benchmark data stopped by SIGTERM, 10 runs in 60: benchmarks/
    results/stop_benchmark_data_2cpu_before.json). A loader worker now says nothing of it; other errors there it says."""
    from multiprocessing import AuthenticationError, connection

    from accelerated_seg.data.workers import quiet_a_batch_the_rank_stopped_taking

    sharer, reported = _resource_sharer_answering(monkeypatch)
    quiet_a_batch_the_rank_stopped_taking()
    try:
        _broken_off(sharer._address)
        with contextlib.suppress(AuthenticationError, EOFError):  # a peer that is not the rank: said
            connection.Client(sharer._address, authkey=b"not the worker's")
        time.sleep(0.5)
    finally:
        sharer.stop(timeout=5)
    assert [type(error) for error in reported] == [AuthenticationError], reported
