"""A launched training whose process is lost (killed outright on another node, where no agent of this node sees it):
every other process ends promptly, status 1, with one line naming the process lost, its node and host, and the newest
whole checkpoint to resume from (peer_death.a_peer_gone_stops_every_process, lost_processes' roll call,
interrupted_run's line). Until the hundred-and-fifteenth session they ended with gloo's traceback, nothing named
(benchmarks/results/launched_predict_peer_death/two_nodes_training.txt)."""

import os
import socket
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelerated_seg import ranks_stop_together
from accelerated_seg.interrupted_run import RunSoFar
from accelerated_seg.model_folders import Names, complete_checkpoints
from accelerated_seg.peer_death import a_peer_gone_stops_every_process
from accelerated_seg.stopped_step import stopped_step_read

from conftest import tiny_overrides  # tests/ is on sys.path (rootdir-style test imports)
from processes import run_bounded
from test_distributed import ROOT, _free_port

TESTS = Path(__file__).resolve().parent
GLOO_RESET = "[gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:5847: Connection reset by peer. "
RESUME = "run the same command with --train.resume=latest (resume='latest' from Python) to continue from it"
#: The roll call's wait in the one-node launch (``killed_in_training_cli``'s ROLL_CALL_S): a wait for the process killed
#: would show as 30 s or more, where a loaded machine's slowness shows as a few.
LONG_ROLL_CALL_S = 30.0


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL, and the launch's processes in /proc")
@pytest.mark.parametrize("killed_rank", ["1", "0"])
def test_a_training_process_killed_on_another_node_is_named_lost_with_the_checkpoint_to_resume(killed_rank,
                                                                                               tiny_dataset, tmp_path):
    """Two launches of one process each on this machine, as two nodes (--num_machines 2); process 1 (node 1), or the
    main process (node 0), SIGKILLs itself at its third step's forward, step_2 saved. The survivor met gloo's error in
    its step's all-reduce and ended 0.6-1.4 s after the kill with its traceback, status 1, and nothing named (until the
    hundred-and-fifteenth session). Now the main process names process 1 lost after the roll call (3.4 s), or, the main
    process killed, process 1 names it (its node's agent ends, and the store with it); with the step and step_2."""
    run, killed = tmp_path / "run", tmp_path / "killed"
    launches = _launched_as_two_nodes("killed_in_training_cli.py", tiny_dataset, run,
                                      {"KILLED_RANK": killed_rank, "KILLED_CALL": "2", "KILLED_AT": str(killed)})
    (survivor, ended), (dead, _) = launches if killed_rank == "1" else launches[::-1]
    lost, checkpoints = int(killed_rank), run / "checkpoints"
    said = [line for line in survivor.stderr.splitlines() if line.startswith("error: ")]
    assert said == [_lost_at_step_2(lost, node=lost, checkpoints=checkpoints)], survivor.stderr[-3000:]
    # no traceback of a rank's, nor gloo's error (torch's own warnings of the store's failed calls may come where the
    # store ends with the main process's node: "[rank1]:[W...] [c10d] recvValue failed ...")
    assert "gloo" not in survivor.stderr and "RuntimeError" not in survivor.stderr, survivor.stderr[-3000:]
    assert "[rank0]: Traceback" not in survivor.stderr and "[rank1]: Traceback" not in survivor.stderr
    assert "exitcode  : 1" in survivor.stderr and survivor.returncode == 1, survivor.stderr[-3000:]
    assert "exitcode  : -9" in dead.stderr, dead.stderr[-3000:]
    assert ended - float(killed.read_text()) < 8, survivor.stderr[-3000:]
    # nothing half-written under a checkpoint's name: a save cut short keeps its hidden name
    assert [path.name for path in checkpoints.iterdir() if not path.name.startswith(".")] == ["step_2"]
    assert complete_checkpoints(checkpoints) == [checkpoints / "step_2"]


def _launched_as_two_nodes(script: str, dataset: Path, run: Path, env: dict) -> list:
    """Two launches of one process each of ``tests/<script>`` (a training of 6 steps, step_2 saved, into ``run``), as
    two nodes on this machine, with ``env``: for each, its finished process and the time it ended."""
    from concurrent.futures import ThreadPoolExecutor

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", **env,
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS), os.environ.get("PYTHONPATH", "")])}
    port = str(_free_port())
    overrides = tiny_overrides(dataset, run, **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})

    def node(rank: int):
        proc = run_bounded(
            [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
             "--num_machines", "2", "--machine_rank", str(rank), "--main_process_ip", "127.0.0.1",
             "--main_process_port", port, "--mixed_precision", "no", "--dynamo_backend", "no",
             str(TESTS / script), *overrides], env=env, timeout=150)
        return proc, time.time()

    with ThreadPoolExecutor(2) as nodes:
        return list(nodes.map(node, (0, 1)))


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the store's end read as its address refusing")
def test_a_training_process_whose_store_ends_before_its_end_reads_it_says_the_main_processs_interrupt(tiny_dataset,
                                                                                                    tmp_path):
    """Two launches of one process each, as two nodes; the main process is sent SIGINT at its third step's forward
    (Ctrl-C to it alone), says its line on node 0's stdout, waits 3 s for process 1 and ends, 130, its node's agent
    with it, and the launch's store with that agent. Process 1's watcher read the interrupt; its end is held until the
    store has ended (END_AFTER_THE_STORE), as a busy machine can hold it. It ended with status 1 saying nothing, its
    launcher's table reading "error_file: <N/A>" (the hundred-and-twenty-second session, 2 of 2 probe runs:
    benchmarks/results/stop_store_dies_in_end_2026-12-07/). Now it says the interrupt, with the step and the newest
    whole checkpoint, on its node's stdout, 130."""
    run = tmp_path / "run"
    (main, _), (other, _) = _launched_as_two_nodes(
        "main_process_interrupted_training_cli.py", tiny_dataset, run,
        {"KILLED_RANK": "0", "INTERRUPTED_CALL": "2", "END_AFTER_THE_STORE": "1"})
    stopped = f"after step 2; the newest whole checkpoint is {run / 'checkpoints' / 'step_2'}: {RESUME}"
    said = [line for line in main.stdout.splitlines() if line.startswith("interrupted")]
    assert said == [f"interrupted (Ctrl-C) {stopped}"], main.stdout[-3000:] + main.stderr[-3000:]
    said = [line for line in other.stdout.splitlines() if line.startswith("interrupted")]
    assert said == [f"interrupted; the launch's store, kept on the main process's node (node 0, "
                    f"{socket.gethostname()}), ended or stopped answering before this process read that process's "
                    f"line; the run stopped {stopped}"], other.stdout[-3000:] + other.stderr[-3000:]
    assert "exitcode  : 130" in main.stderr and "exitcode  : 130" in other.stderr, other.stderr[-3000:]
    assert "error: " not in other.stderr, other.stderr[-3000:]


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL")
def test_a_training_process_killed_on_the_main_process_s_node_is_named_lost_not_taken_for_a_notice_to_save(
        tiny_dataset, tmp_path):
    """One launch of two (one node): process 1 SIGKILLs itself at its third step's forward. That node's agent sees the
    death and sends the main process SIGTERM, which training records as a scheduler's notice to save: the main process
    ended 0.6 s after the kill, -15, with gloo's traceback and no line, before the hundred-and-fifteenth session
    (benchmarks/results/training_peer_lost_2026-12-06/same_node.txt). Now the stop for a peer gone: the line, status 1,
    and no save begun for the recorded SIGTERM (read only at a step's all-reduce, which the death breaks); only probed
    until that session's review. Seen ended by the main process on its node, at once: it waited the roll call's 3.4 s
    for the dead one's answer, the launch ending 4.0-6.3 s after the kill, and said it "did not answer in the launch's
    store within 3.4 s", until the hundred-and-sixteenth session."""
    run, killed = tmp_path / "run", tmp_path / "killed"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_RANK": "1",
           "KILLED_CALL": "2", "KILLED_AT": str(killed), "ROLL_CALL_S": str(LONG_ROLL_CALL_S),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS), os.environ.get("PYTHONPATH", "")])}
    overrides = tiny_overrides(tiny_dataset, run, **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})
    proc = run_bounded(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "1", "--main_process_port", str(_free_port()), "--mixed_precision", "no", "--dynamo_backend", "no",
         str(TESTS / "killed_in_training_cli.py"), *overrides], env=env, timeout=150)
    ended, checkpoints = time.time(), run / "checkpoints"
    said = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert said == [_lost_at_step_2(1, node=0, checkpoints=checkpoints, seen=True)], proc.stderr[-3000:]
    # No roll call's wait in it: 0.71-1.65 s on 2 CPU cores, 4.04-4.70 s before (3.4 s of it the roll call's). The
    # roll call lengthened to LONG_ROLL_CALL_S, so that its wait cannot pass for a loaded machine's slowness: against
    # ROLL_CALL_S the launch ended 3.75-6.41 s after the kill, the roll call not waited, with busy loops beside it on 2
    # cores (the review of the hundred-and-sixteenth session, r71: review_same_node_death_2026-12-06/under_load.txt).
    assert ended - float(killed.read_text()) < LONG_ROLL_CALL_S / 2, proc.stderr[-3000:]
    assert "[rank0]: Traceback" not in proc.stderr and "gloo" not in proc.stderr, proc.stderr[-3000:]
    assert "preempted" not in proc.stdout, proc.stdout[-3000:]
    assert "exitcode  : 1" in proc.stderr and "exitcode  : -9" in proc.stderr and proc.returncode == 1
    assert [path.name for path in checkpoints.iterdir() if not path.name.startswith(".")] == ["step_2"]


def _lost_at_step_2(lost: int, node: int, checkpoints: Path, seen: bool = False) -> str:
    """The line a launch says where process ``lost``, of node ``node`` on this machine, was killed after step 2;
    ``seen``: ended on the node of the process that says it (``processes_beside``), no roll call waited for it."""
    store_ended = ", or that store, kept on its node, ended first" if lost == 0 else ""
    why = ("its process was seen ended on its node" if seen else
           f"it did not answer in the launch's store within 3.4 s{store_ended}: its process ended, or its node was cut "
           "off")
    return (f"error: process {lost} (node {node}, {socket.gethostname()}) was lost: its connection closed in a "
            f"collective, and {why}; the run stopped after step 2; the newest whole checkpoint is "
            f"{checkpoints / 'step_2'}: {RESUME}")


def _so_far(tmp_path: Path, step: int | None) -> RunSoFar:
    """A run's RunSoFar after ``step`` (None: in its setup, a new run), step_2 saved whole."""
    (tmp_path / "checkpoints" / "step_2").mkdir(parents=True)
    (tmp_path / "checkpoints" / ".step_4.partial").mkdir()  # a save cut short
    so_far = RunSoFar(tmp_path / "checkpoints", Names())
    if step is not None:
        so_far.set_up(SimpleNamespace(progress=SimpleNamespace(step=step)))
    return so_far


def test_the_line_of_a_process_lost_names_the_step_and_the_newest_whole_checkpoint(tmp_path):
    lost = "process 1 (node 1, gpu-7) was lost: ... its process ended, or its node was cut off"
    so_far = _so_far(tmp_path, step=3)
    assert so_far.said_where_a_process_was_lost(lost) == (
        f"{lost}; the run stopped after step 3; the newest whole checkpoint is {tmp_path / 'checkpoints' / 'step_2'}: "
        f"{RESUME}")
    # where every process answered, gloo's words, its last full stop left out
    assert so_far.said_where_a_process_was_lost(f"process 0: RuntimeError: {GLOO_RESET}").startswith(
        "process 0: RuntimeError: [gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:5847: Connection reset by "
        "peer; the run stopped after step 3; ")
    assert so_far.line() == f"interrupted (Ctrl-C) {so_far.stopped()}"  # the interrupt's line, as before
    assert _so_far(tmp_path / "new", step=None).said_where_a_process_was_lost(lost) == (
        f"{lost}; the run stopped before training began; nothing was saved: start the run again")
    # the step handed on to the estimator's launching process, as the interrupt's is: its ProcessLost names it
    # (it said the newest checkpoint's, "after step 2 or later", until the hundred-and-fifteenth session's h80)
    so_far.stopped_step_to = tmp_path / "stopped_step.json"
    so_far.said_where_a_process_was_lost(lost)
    assert stopped_step_read(so_far.stopped_step_to) == 3


@pytest.fixture
def stops(monkeypatch):
    """The stops asked for, ``asked``: (message, peer_gone) each; an error published already where ``published``."""
    stops = SimpleNamespace(asked=[], published=False)
    monkeypatch.setenv("RANK", "1")  # no process group here: the rank the launch gave
    monkeypatch.setattr(ranks_stop_together, "stop_every_rank",
                        lambda error, peer_gone=False: stops.asked.append((str(error), peer_gone)))
    monkeypatch.setattr(ranks_stop_together, "an_error_is_published", lambda: stops.published)
    return stops


class _NotSaved(Exception):
    """A failed save's error, as checkpoint.CheckpointNotSaved is raised from the collective's."""


def _raised_in_a_collective():
    raise RuntimeError(GLOO_RESET)


def _raised_in_a_save():
    try:
        _raised_in_a_collective()
    except RuntimeError as error:
        raise _NotSaved("saving the checkpoint step_4 failed") from error


@pytest.mark.parametrize("raise_it", [_raised_in_a_collective, _raised_in_a_save])
def test_a_peer_gone_in_a_collective_or_a_save_stops_every_process_as_a_peer_gones(stops, raise_it):
    with pytest.raises((RuntimeError, _NotSaved)):  # raised as it came where stop_every_rank returns (no store)
        with a_peer_gone_stops_every_process():
            raise_it()
    assert stops.asked == [(f"process 1: RuntimeError: {GLOO_RESET}", True)]


@pytest.mark.parametrize("error", [RuntimeError("a bug"), ValueError(GLOO_RESET), KeyboardInterrupt()])
def test_any_other_error_is_raised_as_before(stops, error):
    with pytest.raises(type(error)):
        with a_peer_gone_stops_every_process():
            raise error
    assert stops.asked == []


def test_a_peer_gone_after_a_stop_was_published_leaves_this_process_to_that_stop(stops):
    """An interrupt on one process, published: its processes' ends break the others' collectives, gloo's words and
    all; that stop's watcher ends this process with its line and status (130), not a stop for a peer gone."""
    stops.published = True
    with pytest.raises(RuntimeError):
        with a_peer_gone_stops_every_process():
            _raised_in_a_collective()
    assert stops.asked == []
