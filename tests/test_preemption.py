"""Preemption (SIGTERM/SIGUSR1), atomic checkpoints and complete resume; see docs/checkpoints.md."""

import contextlib
import errno
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from accelerate.utils import DistributedType
from safetensors.torch import load_file, save_file

import accelerated_seg.configured_run as configured_run
import accelerated_seg.interrupted_run as interrupted_run
import accelerated_seg.train as train_module
from accelerated_seg.checkpoint import complete_checkpoints, save_training_state
from accelerated_seg.checkpoint_files import resolve_resume
from accelerated_seg.config import ConfigError
from accelerated_seg.train import train

from conftest import tiny_overrides  # tests/ is on sys.path (rootdir-style test imports)
from processes import launch_end, launched_processes, run_bounded, stop_group
from test_distributed import ROOT, WORKER, _free_port, launch_two, launched_two


def _same_weights(a_dir: Path, b_dir: Path) -> None:
    a, b = load_file(a_dir / "model" / "model.safetensors"), load_file(b_dir / "model" / "model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), f"{key} differs after resume"


def _signal_self_at(monkeypatch, call: int, signum: int) -> None:
    """Send ``signum`` to this process at the given 0-based forward call, as a scheduler would."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(call, signum)))

def test_sigusr1_saves_the_state_returns_preempted_and_resume_matches(tiny_config, tmp_path, monkeypatch, capsys):
    # 6 cases x 2 patches = 6 batches of 2 per epoch; the signal arrives during step 2's forward.
    common = dict(train__max_steps=4, train__val_every=0, train__save_every=0)
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGUSR1)}
    with monkeypatch.context() as patch:
        _signal_self_at(patch, call=1, signum=signal.SIGUSR1)
        summary = train(tiny_config(tmp_path / "resumed", **common))
    assert summary["preempted"] and summary["step"] == 2
    assert (f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 2 and the training state is "
            f"saved in {tmp_path / 'resumed' / 'checkpoints' / 'step_2'}: run the same command with "
            f"--train.resume=latest (resume='latest' from Python) to continue, or make a model of it with "
            f"accelerated-seg export {tmp_path / 'resumed'} --output <new folder>.") in capsys.readouterr().out
    assert {sig: signal.getsignal(sig) for sig in before} == before  # previous handlers are back
    state = tmp_path / "resumed" / "checkpoints" / "step_2"
    assert [p.name for p in complete_checkpoints(state.parent)] == ["step_2"]
    assert not (tmp_path / "resumed" / "model").exists()  # no export of an unfinished run

    # What resume restores: model, optimizer, RNG (python, numpy, torch), LR schedule and progress
    # (step, position in the data stream). No grad scaler file here: that exists with fp16 on a GPU only.
    names = {p.name for p in state.iterdir()}
    assert {"model.safetensors", "optimizer.bin", "random_states_0.pkl", "custom_checkpoint_0.pkl",
            "custom_checkpoint_1.pkl", "config.yaml"} <= names
    rng = torch.load(state / "random_states_0.pkl", weights_only=False)
    assert {"random_state", "numpy_random_seed", "torch_manual_seed"} <= rng.keys()
    progress = torch.load(state / "custom_checkpoint_1.pkl", weights_only=False)
    assert progress["step"] == 2 and progress["batches_seen"] == 2
    assert torch.load(state / "custom_checkpoint_0.pkl", weights_only=False)["last_epoch"] == 2  # LR schedule

    summary = train(tiny_config(tmp_path / "resumed", train__resume="latest", **common))
    assert not summary["preempted"] and summary["step"] == 4
    assert "resumed from" in capsys.readouterr().out
    train(tiny_config(tmp_path / "full", **common))
    _same_weights(tmp_path / "full", tmp_path / "resumed")


def test_ctrl_c_ends_training_saying_which_whole_checkpoint_a_resume_continues_from(tiny_config, tmp_path,
                                                                                   monkeypatch, capsys, ctrl_c_raises):
    """Ctrl-C stops the run where it is, as Python's KeyboardInterrupt does (it is not a scheduler's
    notice, so nothing more is saved), after one line naming the checkpoint to resume from."""
    _signal_self_at(monkeypatch, call=5, signum=signal.SIGINT)  # during step 6's forward
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(tmp_path / "run", train__max_steps=20, train__val_every=0, train__save_every=2))
    newest = complete_checkpoints(tmp_path / "run" / "checkpoints")[-1]
    assert newest.name == "step_4"
    assert (f"interrupted (Ctrl-C) after step 5; the newest whole checkpoint is {newest}: run the same command "
            f"with --train.resume=latest (resume='latest' from Python) to continue from it") in capsys.readouterr().out

    _signal_self_at(monkeypatch, call=0, signum=signal.SIGINT)  # before any checkpoint
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(tmp_path / "early", train__max_steps=20, train__val_every=0, train__save_every=2))
    assert ("interrupted (Ctrl-C) after step 0; no checkpoint was saved yet (train.save_every), so a new run "
            "starts over") in capsys.readouterr().out

    # a validation's export and no checkpoint: the same command again is refused as "already holds a run"
    _signal_self_at(monkeypatch, call=2, signum=signal.SIGINT)  # during step 3's forward
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(tmp_path / "exported", train__max_steps=20, train__val_every=1, train__save_every=0))
    assert (f"interrupted (Ctrl-C) after step 2; no checkpoint was saved yet (train.save_every), so a new run starts "
            f"over: an exported model in {tmp_path / 'exported' / 'best_model'} is kept, which a new run there "
            f"replaces with --train.overwrite=true") in capsys.readouterr().out


def test_ctrl_c_with_the_checkpoints_folder_unreadable_still_says_its_line_and_ends_as_an_interrupt(
        tiny_dataset, tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """A checkpoints folder whose listing fails as Ctrl-C stops the run (a network mount gone: ENOTCONN) leaves the
    interrupt its line and its status, 130, the folder said unreadable and why: the OSError was raised over the
    KeyboardInterrupt until the hundred-and-seventh session, a traceback and status 1. ``kill -INT`` to one rank of
    a launch says the same line through the process group's store (``ranks_stop_together``)."""
    from accelerated_seg.cli import main

    run = tmp_path / "run"
    checkpoints = run / "checkpoints"

    def mount_gone(folder):
        raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN), str(folder))

    # the line's listing alone: saves still list
    monkeypatch.setattr(interrupted_run, "complete_checkpoints", mount_gone)
    _signal_self_at(monkeypatch, call=5, signum=signal.SIGINT)  # during step 6's forward
    # returned, as a stopped command's status from Python (raised as SystemExit(130) until the hundred-and-twentieth
    # session: docs/known_issues.md, "cli.main from Python raised SystemExit for a stopped export or train")
    assert main(["train", *tiny_overrides(tiny_dataset, run, train__max_steps=20, train__val_every=0,
                                          train__save_every=2)]) == 130
    out, err = capsys.readouterr()
    assert (f"interrupted (Ctrl-C) after step 5; {checkpoints} could not be read (Transport endpoint is not "
            f"connected), so no checkpoint is named: once it can be read again, run the same command with "
            f"--train.resume=latest (resume='latest' from Python) to continue from its newest whole checkpoint") in out
    assert "Traceback" not in err and "OSError" not in err, err[-2000:]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its permissions: chmod 000 does not bite")
def test_ctrl_c_with_the_checkpoints_folder_made_unreadable_says_so(tiny_config, tmp_path, monkeypatch, capsys,
                                                                    ctrl_c_raises):
    """The same with the folder's permissions taken away as the run goes (chmod 000, then Ctrl-C), the line naming
    the OSError's words: Python's KeyboardInterrupt goes on to the caller, not the PermissionError of the listing."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with

    checkpoints = tmp_path / "run" / "checkpoints"

    def unreadable_then_ctrl_c(call, loss):
        if call == 5:  # during step 6's forward, step_4 saved
            checkpoints.chmod(0)
            os.kill(os.getpid(), signal.SIGINT)
        return loss

    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(unreadable_then_ctrl_c))
    try:
        with pytest.raises(KeyboardInterrupt):
            train(tiny_config(tmp_path / "run", train__max_steps=20, train__val_every=0, train__save_every=2))
    finally:
        checkpoints.chmod(0o755)  # for tmp_path's removal
    assert (f"interrupted (Ctrl-C) after step 5; {checkpoints} could not be read (Permission denied), so no "
            f"checkpoint is named") in capsys.readouterr().out


def _checkpoints_unreadable_from(monkeypatch, checkpoints: Path, call: int, then: int | None = None) -> None:
    """From the given 0-based forward call on, ``checkpoints`` can be neither listed nor written into, as after
    ``chmod 000`` for a user other than root (root, whom chmod does not bite, has it stood in for): its listing and
    the making of a folder in it fail with EACCES, as ``os.listdir`` and ``os.mkdir`` then do. ``then``: a signal
    this process sends itself right after."""
    from monai.losses import DiceCELoss

    from faults import loss_forward_with

    real_iterdir, real_mkdir, taken_away = Path.iterdir, Path.mkdir, []

    def denied(path):
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    def iterdir(self):
        if taken_away and self == checkpoints:
            raise denied(self)
        return real_iterdir(self)

    def mkdir(self, *args, **kwargs):
        if taken_away and self.parent == checkpoints:
            raise denied(self)
        return real_mkdir(self, *args, **kwargs)

    def take_away(at, loss):
        if at == call:
            taken_away.append(True)
            if os.geteuid() != 0:
                checkpoints.chmod(0)
            if then is not None:
                os.kill(os.getpid(), then)
        return loss

    monkeypatch.setattr(Path, "iterdir", iterdir)
    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(take_away))


@pytest.mark.parametrize("stop", [None, signal.SIGTERM])
def test_a_save_into_a_checkpoints_folder_made_unreadable_fails_in_one_line(tiny_dataset, tmp_path, monkeypatch,
                                                                            capsys, stop):
    """A checkpoints folder whose permissions are taken away as the run goes: the next save (step 6's; or the
    preempted run's at step 5, SIGTERM) ends the run in one line, which says the folder could not be read and how
    to go on. The save's first act, removing the hidden folders of killed saves, lists the folder: its
    PermissionError was raised as a traceback, before the save's own error and its line were reached, until the
    hundred-and-seventh session's review (a run as ``nobody``, chmod 000 in step 5: a traceback from
    ``_hidden_checkpoints``, status 1, for a run going on and a preempted one alike)."""
    from accelerated_seg.cli import main

    checkpoints = tmp_path / "run" / "checkpoints"
    _checkpoints_unreadable_from(monkeypatch, checkpoints, call=4, then=stop)  # step 5's forward, step_3 saved
    try:
        with pytest.raises(SystemExit) as ended:
            main(["train", *tiny_overrides(tiny_dataset, tmp_path / "run", train__max_steps=8, train__val_every=0,
                                           train__save_every=3)])
    finally:
        monkeypatch.undo()
        checkpoints.chmod(0o755)  # readable again, and for tmp_path's removal
    err = capsys.readouterr().err
    assert ended.value.code == 1
    assert "Traceback" not in err, err[-2000:]
    assert (f"{checkpoints} could not be read (Permission denied) either, so no checkpoint is named: once it can be "
            f"read and written again, run the same command with --train.resume=latest (resume='latest' from Python) "
            f"to continue from its newest whole checkpoint") in err, err[-2000:]
    assert [p.name for p in complete_checkpoints(checkpoints)] == ["step_3"]


def test_every_step_number_of_a_run_stopped_mid_epoch_under_accumulation_counts_the_steps_taken(
        tiny_config, tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """One counting everywhere (docs/checkpoints.md, "What "step N" means"): step N is the N-th optimizer step, and
    after it N steps are taken. The interrupt's line, the checkpoint's folder and its Progress, the progress bar, the
    TensorBoard points and the estimator's record (the KeyboardInterrupt's step) of a run stopped by Ctrl-C in step
    5's second micro-batch (grad_accum_steps=2: 3 steps an epoch, so mid-epoch) all say 4; its resume to the end 6,
    metrics.json and the export too. A point logged at N is step N's own loss, over its accumulation window."""
    from conftest import tensorboard_curve

    run = tmp_path / "run"
    common = dict(train__max_steps=6, train__val_every=0, train__save_every=2, train__grad_accum_steps=2,
                  train__trackers="tensorboard", train__progress_bar="true")
    _signal_self_at(monkeypatch, call=9, signum=signal.SIGINT)  # the 10th micro-batch: step 5's second
    with pytest.raises(KeyboardInterrupt) as interrupted:
        train(tiny_config(run, **common))
    out, err = capsys.readouterr()
    assert (f"interrupted (Ctrl-C) after step 4; the newest whole checkpoint is {run / 'checkpoints' / 'step_4'}"
            in out)
    assert interrupted.value.step == 4
    assert [p.name for p in complete_checkpoints(run / "checkpoints")] == ["step_2", "step_4"]
    progress = torch.load(run / "checkpoints" / "step_4" / "custom_checkpoint_1.pkl", weights_only=False)
    assert (progress["step"], progress["batches_seen"]) == (4, 8)  # 4 steps of 2 micro-batches
    assert [step for step, _ in progress["losses"]] == [1, 2, 3, 4]
    assert tensorboard_curve(run, "train/loss") == [1, 2, 3, 4]
    bar = err.replace("\r", "\n")
    assert " 4/6 [" in bar and " 5/6 [" not in bar, bar[-500:]

    monkeypatch.undo()
    summary = train(tiny_config(run, train__resume="latest", **common))
    assert summary["step"] == 6 and complete_checkpoints(run / "checkpoints")[-1].name == "step_6"
    assert tensorboard_curve(run, "train/loss") == [1, 2, 3, 4, 5, 6]  # the resume's points from 5 on
    assert [step for step, _ in json.loads((run / "metrics.json").read_text())["loss"]] == [1, 2, 3, 4, 5, 6]
    assert json.loads((run / "model" / "config.json").read_text())["step"] == 6


def test_ctrl_c_in_a_runs_setup_says_that_nothing_was_saved(tiny_config, tmp_path, monkeypatch, capsys):
    """In one process too, Ctrl-C as the run's data is preprocessed (before its first step) says so in one line; the
    command line's train ended with status 130 and nothing said until the hundred-and-seventh session."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(configured_run, "cached_tables", interrupted)
    with pytest.raises(KeyboardInterrupt) as stopped:
        train(tiny_config(tmp_path / "run", train__max_steps=4, train__val_every=0))
    assert ("interrupted (Ctrl-C) before training began; nothing was saved: start the run again"
            in capsys.readouterr().out.splitlines())
    assert getattr(stopped.value, "step", None) is None  # no step of this run's (the estimator's InterruptedFit)


def test_ctrl_c_in_an_overwrite_runs_setup_does_not_send_the_user_back_to_the_earlier_run(tiny_config, tmp_path,
                                                                                           monkeypatch, capsys):
    """An overwrite run deletes the earlier run only at the end of its setup: Ctrl-C before that named the earlier
    run's newest checkpoint and said to run the same command with --train.resume=latest, which continued that run
    (its seed and length changed under it) in place of the new one asked for (hundred-and-seventh session's review)."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__save_every=2))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(configured_run, "cached_tables", interrupted)
    capsys.readouterr()
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(run, train__max_steps=4, train__val_every=0, train__overwrite=True))
    out = capsys.readouterr().out
    assert "interrupted (Ctrl-C) before training began; nothing was saved: start the run again" in out.splitlines()
    assert "resume" not in out.splitlines()[-1] and (run / "checkpoints" / "step_2").is_dir(), out[-2000:]


def test_signal_handlers_are_restored_when_training_fails(monkeypatch, tiny_config, tmp_path):
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGUSR1)}

    def fail(cfg, manifest, run_scope, *_):
        assert signal.getsignal(signal.SIGTERM) != before[signal.SIGTERM]  # installed while training
        raise RuntimeError("boom")

    monkeypatch.setattr(train_module, "configured_run", fail)
    with pytest.raises(RuntimeError, match="boom"):
        train(tiny_config(tmp_path / "run"))
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_sigterm_ends_a_launched_process_until_its_processes_have_met(monkeypatch):
    """In a launch of several whose process group has not started, SIGTERM keeps its default (torch's agent stops
    the ranks left so, and one waiting in the rendezvous runs no Python handler) until ``recording_from_here``; SIGUSR1
    is recorded from the start; the handlers before are put back. In one process both are recorded at once."""
    from accelerated_seg.checkpoint import PreemptionSignals

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGUSR1)}
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)  # no launcher's death to watch here
    with PreemptionSignals() as signals:
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGUSR1) not in (signal.SIG_DFL, before[signal.SIGUSR1])
        signals.recording_from_here()
        assert signal.getsignal(signal.SIGTERM) == signal.getsignal(signal.SIGUSR1)  # both recorded
    assert {sig: signal.getsignal(sig) for sig in before} == before
    monkeypatch.setenv("WORLD_SIZE", "1")
    with PreemptionSignals():
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, before[signal.SIGTERM])


@pytest.mark.distributed
@pytest.mark.parametrize("fsdp_profile", [None, "fsdp2_blocks"], ids=["ddp", "fsdp2"])
def test_sigterm_to_one_rank_stops_both_and_resume_is_bit_identical(tiny_dataset, tmp_path, fsdp_profile):
    # 2 ranks x 2 = 4 patches per step, 3 steps per epoch. Rank 1 signals itself during its 5th
    # forward (step 5, mid-epoch 1); rank 0 learns it at step 5's all-reduce and both stop there.
    # Under FSDP2 (really sharded, benchmarks/fsdp_on_cpu.py) the state saved is one shard per rank.
    # The same processes then train the uninterrupted run the resume must end as (dist_worker's
    # THEN_RUNS), and under DDP the resume of step_5 into a folder of its own (a launch of its own until
    # the hundred-and-tenth session, each launch's start ~13 CPU-s of the suite's 2 cores). The
    # uninterrupted run between leaves these processes' RNGs far from step 5's: a resume that did not
    # restore them from the checkpoint would not end as the uninterrupted run. FSDP2's resume stays a
    # launch of its own: the suite's one resume of its sharded state in fresh processes (test_strategies'
    # resume in the same ranks); DDP's is test_a_resume_onto_more_processes_...'s and the SLURM rerun's.
    common = {"train.max_steps": 8, "train.val_every": 0, "train.save_every": 3}
    interrupted, full, resumed = tmp_path / "interrupted", tmp_path / "full", tmp_path / "resumed"
    step_5 = interrupted / "checkpoints" / "step_5"
    resume = [str(tmp_path / "resume"), tiny_overrides(tiny_dataset, resumed, **common, **{"train.resume": str(step_5)})]
    then = [[str(tmp_path / "full_result"), tiny_overrides(tiny_dataset, full, **common)],
            *([] if fsdp_profile else [resume])]
    results = launch_two(tmp_path / "cut", tiny_overrides(tiny_dataset, interrupted, **common),
                         env_extra={"SIGNAL_RANK": "1", "SIGNAL_CALL": "4", "SIGNAL": "SIGTERM",
                                    "THEN_RUNS": json.dumps(then)},
                         fsdp_profile=fsdp_profile)
    assert [(r["preempted"], r["step"]) for r in results] == [(True, 5), (True, 5)]
    fulls = [json.loads((tmp_path / f"full_result.rank{rank}.json").read_text()) for rank in range(2)]
    assert [(r["ok"], r["preempted"], r["step"]) for r in fulls] == [(True, False, 8), (True, False, 8)], fulls
    assert [p.name for p in complete_checkpoints(interrupted / "checkpoints")] == ["step_3", "step_5"]
    assert resolve_resume("latest", interrupted / "checkpoints") == step_5  # what --train.resume=latest takes
    assert not (interrupted / "model").exists()
    if fsdp_profile:
        assert all(r["strategy"].startswith("FSDP (FSDP) on 2 process(es)") for r in results)
        shards = step_5 / "pytorch_model_fsdp_0"
        assert sorted(p.name for p in shards.glob("*.distcp")) == ["__0_0.distcp", "__1_0.distcp"]

    if fsdp_profile:
        launch_two(Path(resume[0]), resume[1], fsdp_profile=fsdp_profile)
    # The resumed run does only the 3 remaining steps, one forward each (the signal, armed for rank 1's 4th
    # forward in a launch of its own until the hundred-and-tenth session, never fired), and logs every step once.
    resumes = [json.loads((tmp_path / f"resume.rank{rank}.json").read_text()) for rank in range(2)]
    for r in resumes:
        assert r["ok"], r.get("traceback") or r
        assert (r["preempted"], r["step"], r["training_forwards"]) == (False, 8, 3), r
        assert [step for step, _ in r["losses"]] == list(range(1, 9)), r["losses"]
    assert [r["training_forwards"] for r in results + fulls] == [5, 5, 8, 8]
    _same_weights(full, resumed)


@pytest.mark.distributed
def test_sigint_to_one_rank_alone_stops_every_rank_saying_where_to_resume(tiny_dataset, tmp_path, request):
    """SIGINT to one rank's process alone (``kill -INT``; a scheduler that signals one task) ends every rank, the main
    process saying which whole checkpoint a resume continues from, as a terminal's Ctrl-C to them all does: nothing
    more saved. Until the hundred-and-sixth session the interrupted rank ended alone, the other failed in its next
    collective (gloo's "Connection closed by peer"), and no line named the checkpoint. Rank 1 interrupts itself in
    step 5's forward; rank 0 then waits in step 5's collective, after step 4. The line on stdout, as one process
    says it; torch's launcher reports the ranks' status 130 as a failure, and repeats the line in its table.
    With a loader worker each, in a temporary folder of the launch's own: the ranks and their workers, which end with
    os._exit, left a ``pymp-*`` folder or two of multiprocessing's there until the hundred-and-twelfth session."""
    out, prefix = tmp_path / "run", tmp_path / "cut"
    # short, outside pytest's folder: a worker's socket path under tmp_path came to 98 of Linux's 107 characters
    temporary = Path(tempfile.mkdtemp(prefix="pymp_check_"))
    request.addfinalizer(lambda: shutil.rmtree(temporary, ignore_errors=True))
    launch = launched_two(prefix, tiny_overrides(tiny_dataset, out, **{"train.max_steps": 8, "train.val_every": 0,
                                                                       "train.save_every": 3, "data.num_workers": 1}),
                          env_extra={"SIGNAL_RANK": "1", "SIGNAL_CALL": "4", "SIGNAL": "SIGINT",
                                     "TMPDIR": str(temporary)}, timeout=120)
    output = launch.stdout + launch.stderr
    newest = out / "checkpoints" / "step_3"
    line = (f"interrupted (Ctrl-C) after step 4; the newest whole checkpoint is {newest}: run the same command with "
            f"--train.resume=latest (resume='latest' from Python) to continue from it")
    assert launch.stdout.splitlines().count(line) == 1 and launch.stdout.count("interrupted") == 1, output[-3000:]
    assert "Connection closed by peer" not in output and "rank wrote" not in output, output[-3000:]
    assert launch.returncode == 1 and output.count("exitcode  : 130") == 2, output[-3000:]  # torch's table: 1
    assert [p.name for p in complete_checkpoints(out / "checkpoints")] == ["step_3"]
    assert not list(tmp_path.glob("cut.rank*.json"))  # no rank went on to a result, nor an error
    assert not list(temporary.glob("pymp-*")), sorted(temporary.rglob("*"))




def _interrupted_alone(launch: subprocess.CompletedProcess, line: str) -> None:
    """Every rank ended at once by one rank's interrupt: the main process's line once, on stdout; each rank's 130 in
    torch's launcher's table (its status 1: to it a rank's 130 is a failure); no collective broken."""
    output = launch.stdout + launch.stderr
    assert launch.stdout.splitlines().count(line) == 1 and launch.stdout.count("interrupted") == 1, output[-3000:]
    assert "Connection closed by peer" not in output and launch.returncode == 1, output[-3000:]
    assert output.count("exitcode  : 130") == 2, output[-3000:]


@pytest.mark.distributed
@pytest.mark.parametrize("phase", ["cached_tables", "resume_the_loop"])
def test_sigint_to_one_rank_alone_in_the_setup_stops_every_rank_saying_what_to_rerun(tiny_dataset, tmp_path, phase):
    """Rank 1 interrupts itself as the setup preprocesses the data (a new run: nothing saved) or as a resume loads
    its checkpoint (the one it resumes is the newest whole one). Until the hundred-and-seventh session only the steps
    stopped every rank: rank 1 ended alone with no line, rank 0 failed in its next collective ("Connection closed by
    peer"). The resume is the second run of the same launch (THEN_RUNS): the first never loads a checkpoint."""
    out, prefix = tmp_path / "run", tmp_path / "cut"
    common = {"train.max_steps": 4, "train.val_every": 0, "train.save_every": 2}
    runs = [[str(prefix), tiny_overrides(tiny_dataset, out, **{**common, "train.max_steps": 6,
                                                               "train.resume": "latest"})]]
    launch = launched_two(tmp_path / "first" if phase == "resume_the_loop" else prefix,
                          tiny_overrides(tiny_dataset, out, **common),
                          env_extra={"SIGNAL_RANK": "1", "SIGNAL_IN": phase, "SIGNAL": "SIGINT",
                                     **({"THEN_RUNS": json.dumps(runs)} if phase == "resume_the_loop" else {})},
                          timeout=120)
    where = (f"the newest whole checkpoint is {out / 'checkpoints' / 'step_4'}: run the same command with "
             f"--train.resume=latest (resume='latest' from Python) to continue from it" if phase == "resume_the_loop"
             else "nothing was saved: start the run again")
    _interrupted_alone(launch, f"interrupted (Ctrl-C) before training began; {where}")
    assert not list(tmp_path.glob("cut.rank*.json"))  # no rank went on to a result, nor an error


#: Where train's processes go into the rendezvous, as the Accelerator is made (configured_run.py's setup)
_MAKING_THE_ACCELERATOR = "accelerated_seg.configured_run:make_accelerator"


def _train_interrupted_before_the_processes_meet(tiny_dataset, out: Path, tmp_path: Path, where: dict):
    """A 2-process `accelerated-seg train` into ``out`` whose rank 1 is interrupted as it checks its settings
    (tests/interrupted_before_the_processes_meet.py; ``where``: where the others are then, and whom the SIGINT
    reaches). Returns the launch, its output, the interrupted line, which it asserts said once, and the seconds from
    the interrupt to the end of the launch's processes."""
    signalled = tmp_path / "signalled_at"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1",
           "SIGNAL_IN": "accelerated_seg.configured_run:_checks_before_anything_is_written",
           "SIGNALLED_AT": str(signalled),
           **where, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", str(Path(__file__).with_name("interrupted_before_the_processes_meet.py")), "train",
               *tiny_overrides(tiny_dataset, out, **{"train.max_steps": 2, "train.val_every": 0})]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as started:
        try:
            deadline = time.monotonic() + 120
            while len(processes := launched_processes(started.pid)) < 2 and started.poll() is None:
                assert time.monotonic() < deadline, "the launch's 2 processes not started in 120 s"
                time.sleep(0.02)
            looked_at, since = time.time(), time.monotonic()
            end = launch_end(started, processes, since)
        finally:
            if started.poll() is None:  # stops what it started, where the test failed before its end
                stop_group(started)
    launch, output = SimpleNamespace(returncode=end.returncode, stdout=end.stdout), end.stdout + end.stderr
    line = "interrupted (Ctrl-C) before training began; nothing was saved: start the run again"
    assert launch.stdout.splitlines().count(line) == 1 and launch.stdout.count("interrupted") == 1, output[-3000:]
    # our processes' end, not the launcher's: torch's agent signalled as it polls a process waits 60 s whatever they
    # do (processes.AGENT_TEARDOWN_S)
    after = looked_at + end.processes_ended_s - float(signalled.read_text())
    return launch, output, line, after


@pytest.mark.distributed
def test_sigint_to_one_rank_before_the_processes_meet_ends_the_launch_at_once_saying_so(tiny_dataset, tmp_path):
    """`accelerated-seg train`'s rank 1 interrupted as it checks its settings, before the Accelerator starts the
    launch's process group: no store to reach rank 0 through, so rank 1 says the line itself and ends (130), and the
    agent's SIGTERM ends rank 0 at once (-15), in its checks or waiting in the rendezvous for rank 1. Until the
    hundred-and-eighth session rank 0 recorded that SIGTERM as a notice to save and waited in the rendezvous, where
    no Python handler runs, for the agent's SIGKILL 30 s later (the launch ended 41 s after the interrupt), and no
    line was said. Timed from the interrupt, not the launch, whose start alone takes 10-20 s on a busy machine."""
    out = tmp_path / "run"
    launch, output, line, after = _train_interrupted_before_the_processes_meet(tiny_dataset, out, tmp_path, {
        "OTHERS_AT": _MAKING_THE_ACCELERATOR})  # rank 0 on its way into the rendezvous
    assert after < 15, f"{after:.1f} s\n{output[-3000:]}"  # measured: 2.8 and 3.4 s; 33.1 s before (the SIGKILL)
    assert launch.returncode == 1 and "exitcode  : 130" in output and "exitcode  : -15" in output, output[-3000:]
    assert f"traceback : {line}" in output  # the launcher's table names it in rank 1's row
    assert output.count("Traceback") == 1 and not out.exists(), output[-3000:]  # the launcher's: ChildFailedError


@pytest.mark.distributed
def test_ctrl_c_while_a_rank_waits_in_the_rendezvous_ends_the_launch_at_once_saying_so(tiny_dataset, tmp_path):
    """A terminal's Ctrl-C (SIGINT to the launcher's process group; torch's agent sends it on to every rank) while
    rank 0 certainly waits in the rendezvous (its key in the launch's store, in torch's C++ where no Python handler
    runs) and rank 1 checks its settings, which it never leaves for the rendezvous: rank 1 takes it as a
    KeyboardInterrupt, and rank 0's is taken by a thread of its own (interrupt_in_the_rendezvous), which ends it too.
    The line once, the launch's 130, no table. Until the hundred-and-ninth session rank 0 waited for the agent's
    SIGKILL: 30.6 s."""
    out = tmp_path / "run"
    launch, output, line, after = _train_interrupted_before_the_processes_meet(tiny_dataset, out, tmp_path, {
        "OTHERS_AT": _MAKING_THE_ACCELERATOR, "AND_RANK0_WAITING": "1", "SIGNAL_TO": "group"})
    assert after < 15, f"{after:.1f} s\n{output[-3000:]}"  # measured 1.0 and 1.8 s; 30.6 s before (the SIGKILL)
    assert launch.returncode == 130 and "exitcode" not in output, output[-3000:]
    assert "Traceback" not in output and not out.exists(), output[-3000:]


@pytest.mark.distributed
def test_sigint_to_one_rank_as_the_others_come_to_the_rendezvous_stops_every_rank_saying_so(tiny_dataset, tmp_path):
    """`kill -INT` of rank 0 alone as it waits in the rendezvous (its key in the launch's store), rank 1 coming from
    its settings' checks within half a second: the interrupt is held until the processes have met, then stops every
    rank through the store (interrupt_in_the_rendezvous, ranks_stop_together), each 130, the line once, the launcher's
    ChildFailedError its one traceback. Until the hundred-and-tenth session rank 0 raised it inside
    init_process_group, met in C++ and the group not yet registered, and ended alone; rank 1 failed in its first
    collective with gloo's "Connection reset by peer" traceback (6 tries of 6). Should rank 1 come later than the
    held interrupt's half second, rank 0 ends alone before the meeting and the agent's SIGTERM ends rank 1 (-15):
    also without a traceback of a rank's."""
    out = tmp_path / "run"
    launch, output, line, after = _train_interrupted_before_the_processes_meet(tiny_dataset, out, tmp_path, {
        "OTHERS_AT": _MAKING_THE_ACCELERATOR, "AND_RANK0_WAITING": "1", "SIGNAL_TO": "rank0"})
    assert after < 15, f"{after:.1f} s\n{output[-3000:]}"  # measured 0.6 s; 0.5-1.2 s before, with the traceback
    assert "Connection reset by peer" not in output and "Connection closed by peer" not in output, output[-3000:]
    assert output.count("Traceback") == 1 and launch.returncode == 1, output[-3000:]  # the launcher's
    assert "exitcode  : 130" in output and not out.exists(), output[-3000:]


@pytest.mark.distributed
@pytest.mark.parametrize("phase, rank", [("save_training_state", "1"), ("export_model", "0")])
def test_sigint_to_one_rank_alone_in_the_final_save_or_export_stops_every_rank_naming_the_newest_checkpoint(
        tiny_dataset, tmp_path, phase, rank):
    """The run's last state saved (step_3 before, save_every=3) and its model exported after the loop: an interrupt
    of one rank in either ends every rank at once, the line naming the newest whole checkpoint, which the final save
    just made for the export. Until the hundred-and-seventh session the interrupted rank ended alone with no line and
    the other failed in the save's or the export's collective. What the save or the export had begun is left under
    a temporary name that the next run removes (test_run_folder's sweeps)."""
    out, prefix = tmp_path / "run", tmp_path / "cut"
    launch = launched_two(prefix, tiny_overrides(tiny_dataset, out, **{"train.max_steps": 4, "train.val_every": 0,
                                                                       "train.save_every": 3}),
                          env_extra={"SIGNAL_RANK": rank, "SIGNAL": "SIGINT",  # the final save: the second
                                     "SIGNAL_IN": f"{phase}:2" if phase == "save_training_state" else phase},
                          timeout=120)
    newest = out / "checkpoints" / ("step_3" if phase == "save_training_state" else "step_4")
    _interrupted_alone(launch, f"interrupted (Ctrl-C) after step 4; the newest whole checkpoint is {newest}: run the "
                               f"same command with --train.resume=latest (resume='latest' from Python) to continue "
                               f"from it")
    assert complete_checkpoints(out / "checkpoints")[-1] == newest
    assert not list(tmp_path.glob("cut.rank*.json"))


@pytest.mark.distributed
def test_sigint_to_one_rank_with_the_checkpoints_folder_unreadable_still_has_the_main_process_say_its_line(
        tiny_dataset, tmp_path):
    """The line of a launch of several is said by the main process's watcher thread (``ranks_stop_together``), which
    built it by listing checkpoints/: where that listing failed (a mount gone, ENOTCONN), the watcher's OSError
    ended the process with no line at all, status 130 on both ranks after the others' 10 s wait for it (a run as
    ``nobody`` with chmod 000 in the hundred-and-seventh session's review: no line, 30.4 s; 18.8 s with it). Since
    that session's fix the line says the folder could not be read, as one process's does."""
    out, prefix = tmp_path / "run", tmp_path / "cut"
    launch = launched_two(prefix, tiny_overrides(tiny_dataset, out, **{"train.max_steps": 8, "train.val_every": 0,
                                                                       "train.save_every": 3}),
                          env_extra={"SIGNAL_RANK": "1", "SIGNAL_CALL": "4", "SIGNAL": "SIGINT",
                                     "CHECKPOINT_LISTING_FAILS": "1"}, timeout=120)
    output = launch.stdout + launch.stderr
    line = (f"interrupted (Ctrl-C) after step 4; {out / 'checkpoints'} could not be read (Transport endpoint is not "
            f"connected), so no checkpoint is named: once it can be read again, run the same command with "
            f"--train.resume=latest (resume='latest' from Python) to continue from its newest whole checkpoint")
    assert launch.stdout.splitlines().count(line) == 1, output[-3000:]
    assert launch.returncode == 1 and output.count("exitcode  : 130") == 2, output[-3000:]  # torch's table: 1
    assert "OSError" not in output, output[-3000:]
    assert not list(tmp_path.glob("cut.rank*.json"))


@pytest.mark.distributed
def test_ctrl_c_to_a_training_launch_ends_it_with_status_130_saying_where_to_resume(tiny_dataset, tmp_path):
    """A terminal's Ctrl-C, SIGINT to the launch's process group, the launcher's agent with it: the line once, on
    stdout, and the launch's status 130, no traceback of the launcher's. stopping.md and checkpoints.md said that
    the launcher added its own SignalException traceback and exited 1 (a probe of the seventy-third session) until
    the hundred-and-sixth session's review, which found 130 at c4d455cd too (torch 2.13, accelerate 1.16), as a
    launched predict's (test_inference_distributed's test_ctrl_c_by_windows_...)."""
    out = tmp_path / "run"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", str(WORKER), str(tmp_path / "cut"),
               *tiny_overrides(tiny_dataset, out, **{"train.max_steps": 100_000, "train.val_every": 0,
                                                     "train.save_every": 3})]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as launch:
        try:
            deadline = time.monotonic() + 180
            while not complete_checkpoints(out / "checkpoints") and launch.poll() is None:
                assert time.monotonic() < deadline, "no checkpoint in 180 s"
                time.sleep(0.2)
            os.killpg(launch.pid, signal.SIGINT)  # as the terminal sends it
            stdout, stderr = launch.communicate(timeout=90)
        finally:
            if launch.poll() is None:  # stops what it started, where the test failed before its end
                stop_group(launch)
    said = [line for line in stdout.splitlines() if "interrupted" in line]
    assert len(said) == 1 and said[0].startswith("interrupted (Ctrl-C) after step "), stdout[-3000:]
    assert f"the newest whole checkpoint is {out / 'checkpoints'}/step_" in said[0], said
    assert launch.returncode == 130, stdout[-3000:] + stderr[-3000:]
    assert "SignalException" not in stderr and "ChildFailedError" not in stderr, stderr[-3000:]


@pytest.mark.distributed
@pytest.mark.parametrize("to", ["group", "launcher"])
def test_sigterm_to_a_training_launch_saves_every_rank_and_ends_it_with_status_143(tiny_dataset, tmp_path, to):
    """SIGTERM to `accelerate launch ... -m accelerated_seg train`'s process group (a job's stop, `timeout`) or to the
    launcher alone (`kill <pid>`): its agent sends SIGTERM on to the ranks, which save the same step and say so once,
    and the launch ends with status 143, no traceback. stopping.md said the launch "exits non-zero with its
    SignalException" until the hundred-and-seventh session's measurement (torch 2.13, accelerate 1.16:
    benchmarks/results/sigterm_to_a_launch/)."""
    out = tmp_path / "run"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", "-m", "accelerated_seg", "train",
               *tiny_overrides(tiny_dataset, out, **{"train.max_steps": 100_000, "train.val_every": 0,
                                                     "train.save_every": 3})]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as launch:
        try:
            deadline = time.monotonic() + 180
            while not complete_checkpoints(out / "checkpoints") and launch.poll() is None:
                assert time.monotonic() < deadline, "no checkpoint in 180 s"
                time.sleep(0.2)
            (os.killpg if to == "group" else os.kill)(launch.pid, signal.SIGTERM)
            stdout, stderr = launch.communicate(timeout=90)
        finally:
            if launch.poll() is None:  # stops what it started, where the test failed before its end
                stop_group(launch)
    said = [line for line in stdout.splitlines() if "preempted" in line]
    newest = complete_checkpoints(out / "checkpoints")[-1]
    assert len(said) == 1 and f"the training state is saved in {newest}:" in said[0], stdout[-3000:]
    assert launch.returncode == 143, stdout[-3000:] + stderr[-3000:]
    assert "Traceback" not in stderr and "SignalException" not in stderr, stderr[-3000:]
    assert not (out / "model").exists()  # a preempted run saves its state, and exports nothing


def _processes_naming(text: str) -> list[int]:
    """The processes whose command line holds ``text`` (a test's own folder: its ranks, orphaned or not)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # ended while read
            pass
    return found


def _launch_through_a_pipe(dataset, out: Path, prefix: Path) -> subprocess.Popen:
    """Two CPU ranks of ``accelerate launch`` whose output goes through a pipe to a reader in the
    launcher's process group (``| tee run.log`` as a scheduler's job runs it), itself a session."""
    from test_distributed import _free_port

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           str(WORKER), str(prefix), *tiny_overrides(dataset, out, **{"train.max_steps": 20000, "train.val_every": 1,
                                                                      "train.save_every": 2})]
    return subprocess.Popen(["bash", "-c", f"{shlex.join(cmd)} 2>&1 | cat > /dev/null"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _ranks_naming(prefix: Path) -> list[int]:
    """The ranks' processes (not the shell or the launcher, whose command lines name ``prefix`` too)."""
    def is_rank(pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return not cmdline.startswith(b"bash") and b"accelerate.commands.launch" not in cmdline
    return [pid for pid in _processes_naming(str(prefix)) if is_rank(pid)]


def _two_ranks_save_and_stop_once(kill, launcher: subprocess.Popen, out: Path, prefix: Path) -> None:
    """Once the two ranks' run has saved, ``kill`` their launcher; they must then save and stop at one step."""
    try:
        deadline = time.monotonic() + 240
        while not complete_checkpoints(out / "checkpoints"):  # training is under way (step_2 went by unseen)
            assert launcher.poll() is None and time.monotonic() < deadline, "the run did not reach its first save"
            time.sleep(0.5)
        kill()
        launcher.wait()
        deadline = time.monotonic() + 120
        while not all(Path(f"{prefix}.rank{rank}.json").is_file() for rank in range(2)):
            assert time.monotonic() < deadline, "the ranks did not save and stop after their launcher was killed"
            time.sleep(0.5)
    finally:
        for pid in _processes_naming(str(prefix)):  # orphans, where the ranks did not stop
            os.kill(pid, signal.SIGKILL)
    results = [json.loads(Path(f"{prefix}.rank{rank}.json").read_text()) for rank in range(2)]
    assert [r["preempted"] for r in results] == [True, True] and results[0]["step"] == results[1]["step"]
    assert complete_checkpoints(out / "checkpoints")[-1].name == f"step_{results[0]['step']}"


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_ranks_whose_launcher_is_killed_save_and_stop_instead_of_training_on_as_orphans(tiny_dataset, tmp_path):
    """torchrun starts each rank in a session of its own, so a SIGKILL of the launcher's process group
    reached no rank: they trained on, and rank 0 held the run lock against the requeued resume
    (eighty-fourth session's probe). Each rank now gets SIGTERM from the kernel when its launcher dies.
    The pipe's reader dies with the group: the ranks' prints then raised BrokenPipeError, rank 0's in
    validation before its save or in the save's report, and both ranks died unsaved (eighty-sixth)."""
    out, prefix = tmp_path / "run", tmp_path / "result"
    launcher = _launch_through_a_pipe(tiny_dataset, out, prefix)
    # the launcher and its group; the ranks are in sessions of their own
    _two_ranks_save_and_stop_once(lambda: os.killpg(launcher.pid, signal.SIGKILL), launcher, out, prefix)
    from accelerated_seg.run_lock import hold_run_folder

    hold_run_folder(out).release()  # free for the requeued --resume latest


# A stand-in for mpirun (accelerate launch's MULTI_CPU path with mpirun_hostfile, or mpirun run by hand): it
# starts each rank as Open MPI does, with the rank in OMPI_COMM_WORLD_* and in a process group of its own,
# and waits for them. No torchrun agent, so no TORCHELASTIC_RUN_ID.
_STAND_IN_MPIRUN = """
import os, subprocess, sys
size, command = 2, sys.argv[1:]
ranks = [subprocess.Popen(command, start_new_session=True, env={**os.environ, "OMPI_COMM_WORLD_SIZE": str(size),
         "OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_LOCAL_RANK": str(rank),
         "OMPI_COMM_WORLD_LOCAL_SIZE": str(size)}) for rank in range(size)]
sys.exit(max(rank.wait() for rank in ranks))
"""


# A rank of the stand-in: the preemption signals training holds from its loop on (PreemptionSignals, then
# saving_from_here), without the training. It writes its pid once they are held, and the signal it got after.
_RANK_HOLDING_THE_SIGNALS = """
import json, os, sys, time
from pathlib import Path
from accelerated_seg.checkpoint import PreemptionSignals
prefix, rank = sys.argv[1], os.environ["OMPI_COMM_WORLD_RANK"]
with PreemptionSignals() as signals:
    signals.saving_from_here()
    Path(f"{prefix}.rank{rank}.pid").write_text(str(os.getpid()))
    while signals.received is None:
        time.sleep(0.05)
Path(f"{prefix}.rank{rank}.tmp").write_text(json.dumps({"received": signals.received}))
os.replace(f"{prefix}.rank{rank}.tmp", f"{prefix}.rank{rank}.json")
"""


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_ranks_an_mpi_launcher_started_are_told_to_save_and_stop_when_it_is_killed(tmp_path):
    """Ranks that mpirun (or srun with PMI) starts have no TORCHELASTIC_RUN_ID: they asked for no
    parent-death signal, and trained on as orphans after a SIGKILL of their launcher, holding the run
    lock (found in the eighty-fifth session, fixed in the ninety-sixth). The MPI rank variables that
    accelerate reads are the launcher's mark now. Each rank holds the signals as the training loop does,
    without the training (a 2-rank run, ~30 s on 2 cores, until the ninety-seventh session): what the loop
    does with the SIGTERM, both ranks saving at one step, is the torchrun test's above, launcher aside."""
    prefix = tmp_path / "result"
    env = {key: value for key, value in os.environ.items() if key not in ("RANK", "WORLD_SIZE", "LOCAL_RANK",
                                                                          "TORCHELASTIC_RUN_ID")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    launcher = subprocess.Popen([sys.executable, "-c", _STAND_IN_MPIRUN, sys.executable, "-c",
                                 _RANK_HOLDING_THE_SIGNALS, str(prefix)], env=env, start_new_session=True)
    pids, results = [Path(f"{prefix}.rank{rank}.pid") for rank in range(2)], []
    try:
        deadline = time.monotonic() + 120
        while not all(pid.is_file() and pid.read_text() for pid in pids):  # written whole: one short write
            assert launcher.poll() is None and time.monotonic() < deadline, "the ranks did not start"
            time.sleep(0.1)
        launcher.kill()  # the launcher alone: its ranks are in process groups of their own
        launcher.wait()
        deadline = time.monotonic() + 30
        while not all(Path(f"{prefix}.rank{rank}.json").is_file() for rank in range(2)):
            assert time.monotonic() < deadline, "the ranks were not signalled when their launcher was killed"
            time.sleep(0.1)
        results = [json.loads(Path(f"{prefix}.rank{rank}.json").read_text()) for rank in range(2)]
    finally:
        for pid in pids:  # orphans, where the ranks were not signalled
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid.read_text()), signal.SIGKILL)
    assert [r["received"] for r in results] == [signal.SIGTERM, signal.SIGTERM]


def _loads_torch(pid: int) -> bool:
    try:
        return b"libtorch" in Path(f"/proc/{pid}/maps").read_bytes()
    except OSError:
        return False


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_ranks_whose_launcher_dies_as_they_start_end_with_it(tiny_dataset, tmp_path):
    """Before the loop there is nothing to save: ranks whose launcher died as they started waited in
    the rendezvous on its dead store, SIGTERM only recorded, for the store's 30-minute timeout (the
    eighty-sixth session's review). They are killed with it now, however early it died once they had
    imported accelerated_seg, which reads their parent: one dead in the interpreter's start before it
    goes unnoticed (checkpoints.md says so)."""
    out, prefix = tmp_path / "run", tmp_path / "result"
    launcher = _launch_through_a_pipe(tiny_dataset, out, prefix)
    try:
        deadline = time.monotonic() + 120
        # loading torch, which they import after the package (that reads their parent): seconds before the
        # rendezvous, and before they ask for any parent-death signal
        while not (len(ranks := _ranks_naming(prefix)) == 2 and all(_loads_torch(pid) for pid in ranks)):
            assert launcher.poll() is None and time.monotonic() < deadline, "the ranks did not start"
            time.sleep(0.02)
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait()
        deadline = time.monotonic() + 90
        while _ranks_naming(prefix):
            assert time.monotonic() < deadline, "the ranks outlived their launcher"
            time.sleep(0.5)
    finally:
        for pid in _processes_naming(str(prefix)):
            os.kill(pid, signal.SIGKILL)
    assert not (out / "checkpoints").exists()
    for result in tmp_path.glob("result.rank*.json"):  # a rank that read its parent after its death says so
        assert "is gone before training began" in json.loads(result.read_text())["error"]


def test_a_process_whose_starter_is_gone_before_the_signal_is_set_is_told_so_not_killed(monkeypatch):
    """TORCHELASTIC_RUN_ID where torchrun did not start the process (exported by a cluster, inherited),
    whose parent then exited: killed at the run's start, unsaid, in the change's first version (the
    eighty-sixth session's review). It is one error now, the handlers given back."""
    import accelerated_seg.launcher_death as launcher_death
    from accelerated_seg.checkpoint import PreemptionSignals

    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "slurm_123")
    monkeypatch.setattr(launcher_death, "PARENT_AT_START", os.getppid() + 1)  # the starter is gone
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(ConfigError, match=r"the process that started this one \(process \d+, torchrun's agent: "
                                          r"TORCHELASTIC_RUN_ID is set\) is gone before training began"):
        with PreemptionSignals():
            pass
    assert signal.getsignal(signal.SIGTERM) is before
    assert launcher_death.set_parent_death_signal(0) == 0  # given back: none was asked for before


def test_an_mpi_rank_whose_launcher_is_gone_before_the_signal_is_set_is_told_so_by_its_mark(monkeypatch):
    """An MPI launcher's rank (its world size in OMPI_COMM_WORLD_SIZE) is a launched rank too since the
    ninety-sixth session: the error names that variable and the launcher, not torchrun's."""
    import accelerated_seg.launcher_death as launcher_death
    from accelerated_seg.checkpoint import PreemptionSignals

    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    monkeypatch.setattr(launcher_death, "PARENT_AT_START", os.getppid() + 1)
    with pytest.raises(ConfigError, match=r"\(process \d+, Open MPI's mpirun: OMPI_COMM_WORLD_SIZE is set\) is gone "
                                          r"before training began.*should not have OMPI_COMM_WORLD_SIZE in its"):
        with PreemptionSignals():
            pass
    assert launcher_death.set_parent_death_signal(0) == 0
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "1")  # no launch to accelerate: a shell srun --pty started, say
    with PreemptionSignals():
        assert launcher_death.set_parent_death_signal(0) == 0  # none asked for


def test_kill_9_during_a_save_keeps_the_previous_checkpoint(tiny_dataset, tiny_config, tmp_path, capsys):
    # A plain process (no launcher) whose second save_state writes one file, then SIGKILLs itself.
    run = tmp_path / "run"
    common = dict(train__max_steps=4, train__val_every=0, train__save_every=2)
    env = {**os.environ, "KILL_IN_SAVE": "2", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run([sys.executable, str(WORKER), str(tmp_path / "killed"),
                           *tiny_overrides(tiny_dataset, run, **common)],
                          env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    checkpoints = run / "checkpoints"
    assert (checkpoints / ".step_4.partial" / "model.safetensors").read_bytes() == b"half written"
    assert [p.name for p in complete_checkpoints(checkpoints)] == ["step_2"]
    assert resolve_resume("latest", checkpoints) == checkpoints / "step_2"
    # the cut save by name: "is not a checkpoint folder" before the seventy-third session
    with pytest.raises(ConfigError, match=r"step_4' does not exist \(.* holds step_2; train.keep_last keeps"):
        resolve_resume(str(checkpoints / "step_4"), checkpoints)

    # The next save clears the leftover; the resumed run ends where an uninterrupted one does.
    summary = train(tiny_config(run, train__resume="latest", **common))
    assert summary["step"] == 4 and f"resumed from {checkpoints / 'step_2'}" in capsys.readouterr().out
    assert sorted(p.name for p in checkpoints.iterdir()) == ["step_2", "step_4"]
    train(tiny_config(tmp_path / "full", **common))
    _same_weights(tmp_path / "full", run)


class _OneProcess:
    """Just enough of an Accelerator for save_training_state: the main (only) process."""

    is_main_process = True
    state = SimpleNamespace(distributed_type=DistributedType.NO, num_processes=1)
    device, mixed_precision = torch.device("cpu"), "no"

    def wait_for_everyone(self):
        pass

    def save_state(self, output_dir):  # a whole safetensors file: resume checks that it is not cut short
        save_file({"weight": torch.zeros(1)}, str(Path(output_dir) / "model.safetensors"))


def test_a_checkpoint_takes_its_name_and_rotates_under_the_lock_of_an_interrupted_launchs_line(tmp_path,
                                                                                                monkeypatch):
    """Inside ``stopping_together`` (a launched training), the main process renames its new checkpoint and rotates
    the oldest away under the lock its watcher says "the newest whole checkpoint is ..." under, and keeps to the exit:
    where another rank was interrupted alone, the main process's training goes on to its next collective, and until
    the hundred-and-sixth session's review its save could name step_2 and rotate step_1 away (keep_last=1) after the
    line had named step_1. The lock held here (the line being said): step_2 keeps its hidden name, step_1 its own."""
    import threading

    from accelerated_seg import ranks_stop_together

    checkpoints = tmp_path / "checkpoints"
    save_training_state(_OneProcess(), checkpoints, 1, 1, "config: yes\n")
    watcher = ranks_stop_together._Watcher("accelerated_seg/test/", str)  # not started: its lock alone
    monkeypatch.setattr(ranks_stop_together, "_INSIDE", [watcher])
    with watcher.writing:
        saving = threading.Thread(target=save_training_state, args=(_OneProcess(), checkpoints, 2, 1, "config: yes\n"))
        saving.start()
        saving.join(1.0)
        assert [p.name for p in complete_checkpoints(checkpoints)] == ["step_1"]
        assert (checkpoints / ".step_2.partial").is_dir()
    saving.join(10)  # the lock released (one process, or no line said): the save goes on as before
    assert [p.name for p in complete_checkpoints(checkpoints)] == ["step_2"]
    assert not [p.name for p in checkpoints.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("keep_last", [1, 2])
def test_rotation_never_deletes_the_newest_checkpoint_nor_picks_a_partial(tmp_path, keep_last):
    checkpoints = tmp_path / "checkpoints"
    for stale in (".step_9.partial", ".step_3.partial"):  # left by runs killed while saving
        (checkpoints / stale).mkdir(parents=True)
        (checkpoints / stale / "model.safetensors").write_bytes(b"half")
    for step in (1, 2, 3):
        save_training_state(_OneProcess(), checkpoints, step, keep_last, "config: yes\n")
        assert resolve_resume("latest", checkpoints) == checkpoints / f"step_{step}"
    assert [p.name for p in checkpoints.iterdir() if p.name.startswith(".")] == []
    assert [p.name for p in complete_checkpoints(checkpoints)] == [f"step_{s}" for s in (1, 2, 3)][-keep_last:]
    assert (checkpoints / "step_3" / "config.yaml").read_text() == "config: yes\n"


def test_rotation_keeps_the_checkpoint_just_written_below_an_older_runs_higher_one(tmp_path):
    # Resumed from step_2 while an earlier attempt had reached step_9: with keep_last=1 the new
    # step_3 is what this run continues from, so it is kept (step_9 stays: it is not ours to judge).
    checkpoints = tmp_path / "checkpoints"
    for step in (2, 9):
        save_training_state(_OneProcess(), checkpoints, step, 10, "")
    save_training_state(_OneProcess(), checkpoints, 3, 1, "")
    assert (checkpoints / "step_3" / "model.safetensors").is_file()
    assert [p.name for p in complete_checkpoints(checkpoints)] == ["step_3", "step_9"]


def test_a_signal_to_the_whole_process_group_spares_the_loader_workers(tiny_dataset, tmp_path):
    """SLURM signals every process of a job, and torchrun's agent a rank's whole process group: the
    loader workers get the signal too. A worker killed by it broke the rank's next batch ("DataLoader
    worker exited unexpectedly") before the rank could save; the workers must leave it to the rank.
    So must the fork server: a worker exits a batch after its parent, the server, has gone. 16
    micro-batches per step are more than a worker prefetches (4), so the rest of the step after the
    signal needs batches made after it. Both signals go to the group, one after the other: a worker or
    server that heard either would die of it (one run per signal until the ninety-eighth session)."""
    out = tmp_path / "run"
    overrides = tiny_overrides(tiny_dataset, out, **{"train.max_steps": 100_000, "train.val_every": 0,
                                                    "train.save_every": 2, "train.log_every": 50,
                                                    "data.num_workers": 1, "train.grad_accum_steps": 16})
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with open(tmp_path / "train.log", "w") as log:
        run = subprocess.Popen([sys.executable, "-m", "accelerated_seg.cli", "train", *overrides], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 300
            while not complete_checkpoints(out / "checkpoints"):
                assert run.poll() is None and time.monotonic() < deadline, (tmp_path / "train.log").read_text()[-3000:]
                time.sleep(0.2)
            for signum in (signal.SIGUSR1, signal.SIGTERM):  # the training process, the fork server and the worker
                os.killpg(run.pid, signum)
            status = run.wait(timeout=120)
        finally:
            if run.poll() is None:
                stop_group(run)
    output = (tmp_path / "train.log").read_text()
    assert status == 0 and "preempted" in output, output[-3000:]
    assert "exited unexpectedly" not in output and "leaked semaphore" not in output, output[-3000:]
    stopped_at = int(complete_checkpoints(out / "checkpoints")[-1].name.split("_")[1])
    assert 2 <= stopped_at < 100_000


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _ignores_sigusr1(pid: int) -> bool:
    """Whether the process ignores SIGUSR1 (bit 9 of /proc's SigIgn mask): a rank before its handler."""
    mask = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("SigIgn:"))
    return bool(int(mask.split()[1], 16) >> (signal.SIGUSR1 - 1) & 1)


@pytest.mark.distributed
def test_the_slurm_node_task_stops_every_rank_on_sigusr1_and_its_rerun_resumes(tiny_dataset, tmp_path):
    """examples/slurm/node_task.sh as srun starts it on a node, here with 2 CPU processes over gloo.

    SIGUSR1 goes to the task's shell and to the launcher itself (some clusters signal every process
    of the step): the launcher must live on, the shell must pass the signal to both ranks, and the
    run must end with the state saved and exit 0, so train.sbatch requeues it. Then the rerun with
    RESUME="--resume latest" (what train.sbatch sets when checkpoints exist) continues from there.

    The signal comes while the ranks are still starting, before they listen for it: that one was
    lost until the seventieth session (the shell passed it on once), and the run trained on until
    the time limit killed it unsaved. The shell now passes it on until the launcher exits.
    """
    from test_distributed import _free_port

    out = tmp_path / "run"
    overrides = tiny_overrides(tiny_dataset, out, **{"train.max_steps": 100_000, "train.val_every": 0,
                                                    "train.save_every": 2, "train.log_every": 50})
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # the venv's accelerate
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "SLURM_NNODES": "1", "SLURM_NODEID": "0", "GPUS_PER_NODE": "2", "MAIN_IP": "127.0.0.1",
           "MAIN_PORT": str(_free_port()), "EXPERIMENT": "configs/demo.yaml", "OUT": str(out), "RESUME": ""}
    script = ["bash", "examples/slurm/node_task.sh", "--no-report", *overrides]
    with open(tmp_path / "task.log", "w") as log:
        task = subprocess.Popen(script, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while len(_children(task.pid)) != 1 or len(ranks := _children(_children(task.pid)[0])) != 2:
                assert task.poll() is None and time.monotonic() < deadline, (tmp_path / "task.log").read_text()[-3000:]
                time.sleep(0.05)
            (launcher,) = _children(task.pid)
            assert all(_ignores_sigusr1(rank) for rank in ranks)  # still importing: not listening yet
            os.kill(launcher, signal.SIGUSR1)
            os.kill(task.pid, signal.SIGUSR1)
            status = task.wait(timeout=180)
        finally:
            if task.poll() is None:
                stop_group(task)
    output = (tmp_path / "task.log").read_text()
    assert status == 0, output[-3000:]
    assert "SIGUSR1, stopping the ranks" in output and "preempted" in output
    stopped_at = int(complete_checkpoints(out / "checkpoints")[-1].name.split("_")[1])
    assert 1 <= stopped_at < 100_000 and not (out / "model").exists()

    env.update(RESUME="--resume latest", MAIN_PORT=str(_free_port()))
    rerun = run_bounded([*script, f"--train.max_steps={stopped_at + 2}"], cwd=ROOT, env=env, timeout=300)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    assert f"at step {stopped_at}" in rerun.stdout and (out / "model" / "model.safetensors").is_file()


@pytest.mark.distributed
def test_a_node_that_never_joins_fails_the_others_after_the_rendezvous_timeout(tiny_dataset, tmp_path):
    """Node 0 of 2 alone: it waited torch's 900 s for node 1 while its GPUs idled, whatever the user
    wanted (accelerate's config files cannot set the timeout). RENDEZVOUS_TIMEOUT shortens it."""
    from test_distributed import _free_port

    out = tmp_path / "run"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "SLURM_NNODES": "2", "SLURM_NODEID": "0", "GPUS_PER_NODE": "1", "MAIN_IP": "127.0.0.1",
           "MAIN_PORT": str(_free_port()), "EXPERIMENT": "configs/demo.yaml", "OUT": str(out), "RESUME": "",
           "RENDEZVOUS_TIMEOUT": "5"}
    started = time.monotonic()
    done = run_bounded(["bash", "examples/slurm/node_task.sh", *tiny_overrides(tiny_dataset, out)], cwd=ROOT,
                       env=env, timeout=120)
    assert done.returncode != 0 and time.monotonic() - started < 90
    assert "1/2 clients joined" in done.stdout + done.stderr, done.stderr[-3000:]
    assert not out.exists()  # no training started


@pytest.mark.parametrize("arguments, folder, overrides", [
    (["exp.yaml"], "output/slurm_77", []),
    (["exp.yaml", "runs/a"], "runs/a", []),
    (["exp.yaml", "--train.max_steps=3", "--no-report"], "output/slurm_77", ["--train.max_steps=3", "--no-report"]),
    (["exp.yaml", "runs/a", "--train.max_steps=3"], "runs/a", ["--train.max_steps=3"]),
])
def test_the_sbatch_scripts_output_folder_is_optional_before_the_overrides(tmp_path, arguments, folder, overrides):
    """train.sbatch's usage says [output_dir]: left out, the first override was taken for the folder
    and dropped (the run trained into '--train.max_steps=3/', sixty-ninth session). srun and scontrol
    are stand-ins that say what the node tasks would get."""
    done = _sbatch(tmp_path, arguments, {"SLURM_GPUS_ON_NODE": "8"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"EXPERIMENT=exp.yaml OUT={folder} RESUME= ARGS={' '.join(overrides)} GPUS=8"


@pytest.mark.parametrize("left, restarts, resume", [
    (["step_200/", "step_100/"], "1", "--resume latest"),
    ([".step_300.partial/"], "0", ""),  # a save interrupted: hidden, as --resume latest leaves it
    ([".step_300.partial/"], "1", "--train.overwrite=true"),
    (["step_200.bak/", "step_notes.txt", "step_7"], "1", "--train.overwrite=true"),  # a copy, a file: no checkpoint
    (["step_200.bak/", "step_100/"], "1", "--resume latest"),
])
def test_the_sbatch_script_resumes_where_resume_latest_finds_a_complete_checkpoint(tmp_path, left, restarts, resume):
    """train.sbatch resumed wherever a name in checkpoints/ began with step_: a copy of a checkpoint
    (step_200.bak) or a file, where --resume latest finds none, and every node's training refused it (until the
    ninety-third session). It resumes where complete_checkpoints finds one, as --resume latest does."""
    checkpoints = tmp_path / "output" / "slurm_77" / "checkpoints"
    checkpoints.mkdir(parents=True)
    for name in left:
        if name.endswith("/"):
            (checkpoints / name).mkdir()
        else:
            (checkpoints / name).touch()
    assert bool(complete_checkpoints(checkpoints)) == (resume == "--resume latest")  # the package's own rule
    done = _sbatch(tmp_path, ["exp.yaml"], {"SLURM_GPUS_ON_NODE": "8", "SLURM_RESTART_COUNT": restarts})
    assert done.returncode == 0, done.stderr
    assert f" RESUME={resume} ARGS=" in done.stdout, done.stdout


def _sbatch(tmp_path, arguments, slurm_env, from_the_checkout=True):
    """train.sbatch with stand-ins for srun and scontrol; srun says what the node tasks would get. Submitted
    from ``tmp_path``, with an experiment there, and as from a checkout's root where ``from_the_checkout``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (tmp_path / "exp.yaml").touch()
    if from_the_checkout:
        (tmp_path / "examples" / "slurm").mkdir(parents=True, exist_ok=True)
        (tmp_path / "examples" / "slurm" / "node_task.sh").touch()
    (bin_dir / "srun").write_text('#!/bin/bash\necho "EXPERIMENT=$EXPERIMENT OUT=$OUT RESUME=$RESUME ARGS=${*:4} '
                                  'GPUS=$GPUS_PER_NODE"\n')
    (bin_dir / "scontrol").write_text("#!/bin/bash\necho node1\n")
    for stand_in in bin_dir.iterdir():
        stand_in.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLURM_") and key != "GPUS_PER_NODE"}
    env.update({"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "SLURM_JOB_ID": "77",
                "SLURM_JOB_NODELIST": "node1", **slurm_env})
    return subprocess.run(["bash", str(ROOT / "examples" / "slurm" / "train.sbatch"), *arguments], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("slurm_env, gpus", [
    ({"SLURM_GPUS_PER_NODE": "4", "SLURM_GPUS_ON_NODE": "4"}, "4"),  # --gpus-per-node=4
    ({"SLURM_GPUS_PER_NODE": "a100:2", "SLURM_GPUS_ON_NODE": "2"}, "2"),  # --gpus-per-node=a100:2
    ({"SLURM_GPUS_PER_NODE": "a100:2"}, "2"),  # a SLURM that sets the typed form alone
    ({"SLURM_GPUS_ON_NODE": "4"}, "4"),  # --gres=gpu:4: SLURM_GPUS_PER_NODE unset
    ({"SLURM_GPUS_ON_NODE": "4", "GPUS_PER_NODE": "3"}, "3"),  # set by hand
])
def test_the_sbatch_script_counts_the_gpus_however_they_were_asked_for(tmp_path, slurm_env, gpus):
    """--gpus-per-node=a100:2 gives SLURM_GPUS_PER_NODE=a100:2, which node_task.sh's arithmetic
    failed on ('a100: unbound variable'), and --gres=gpu:4 leaves it unset: 8 processes were launched
    on a 4-GPU node (seventy-second session)."""
    done = _sbatch(tmp_path, ["exp.yaml"], slurm_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"GPUS={gpus}")


@pytest.mark.parametrize("arguments, missing, refusal", [
    (["nope.yaml"], False, "train.sbatch: the experiment nope.yaml is not a file"),
    (["--train.max_steps=3"], False, "train.sbatch: the experiment --train.max_steps=3 is not a file"),
    (["exp.yaml"], True, "train.sbatch: not submitted from the root of the accelerated_seg checkout"),
])
def test_the_sbatch_script_refuses_a_missing_experiment_or_another_folder_before_srun(tmp_path, arguments, missing,
                                                                                        refusal):
    """A mistyped experiment (or an override where it goes) started every node's launcher, and each
    node's ranks stopped with "config file ... does not exist" among torchrun's failure report; a job
    submitted from another folder failed on every node with "examples/slurm/node_task.sh: No such file
    or directory" (an audit of the examples)."""
    done = _sbatch(tmp_path, arguments, {"SLURM_GPUS_ON_NODE": "8"}, from_the_checkout=not missing)
    assert done.returncode == 2 and done.stdout == "", done.stdout  # srun not started
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(refusal) and "sbatch examples/slurm/train.sbatch <experiment.yaml>" in line, line


def test_the_sbatch_script_refuses_a_job_that_says_nothing_of_its_gpus(tmp_path):
    done = _sbatch(tmp_path, ["exp.yaml"], {})
    assert done.returncode == 2 and "EXPERIMENT=" not in done.stdout
    assert "cannot tell how many GPUs each node has" in done.stderr and "GPUS_PER_NODE=N sbatch" in done.stderr


@pytest.mark.parametrize("gpus", [{}, {"GPUS_PER_NODE": "1"}])
def test_the_sbatch_script_outside_a_slurm_job_says_to_submit_it(tmp_path, gpus):
    """`bash examples/slurm/train.sbatch configs/demo.yaml` on a machine without SLURM was told to ask for
    GPUs with #SBATCH --gpus-per-node, and with GPUS_PER_NODE set, as that line offers, it went on to
    "SLURM_JOB_NODELIST: unbound variable" and "srun: command not found" (exit 127; an audit of the examples)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLURM_") and key != "GPUS_PER_NODE"}
    done = subprocess.run(["bash", str(ROOT / "examples" / "slurm" / "train.sbatch"), "exp.yaml"], cwd=tmp_path,
                          env={**env, **gpus}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "not inside a SLURM job" in line and "sbatch examples/slurm/train.sbatch" in line, line
    assert "accelerate launch" in line and not list(tmp_path.iterdir()), line


def test_a_resume_with_other_accumulation_takes_whole_windows_from_its_first_step(tiny_config, tmp_path, monkeypatch):
    """Batch 2 for three steps, then resumed as batch 1 over two micro-batches: the same global batch,
    so the resumed steps train as a run at batch 2 throughout does (as accumulation equals the larger
    batch). accelerate's load_state restored its micro-batch counter, which made the first window
    after the resume one micro-batch long (3 micro-batches so far, 3 % 2 == 1): that step's loss was
    logged halved and every later window was shifted by one sample (seventy-fourth session)."""
    args = "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"  # as test_train's
    common = dict(train__max_steps=5, train__val_every=0, train__save_every=0, model__args=args)
    through = train(tiny_config(tmp_path / "through", train__batch_size=2, **common))
    run = tmp_path / "resumed"
    with monkeypatch.context() as patch:  # stopped after step 3, as a scheduler's notice would
        _signal_self_at(patch, call=2, signum=signal.SIGUSR1)
        assert train(tiny_config(run, train__batch_size=2, **common))["step"] == 3
    resumed = train(tiny_config(run, train__batch_size=1, train__grad_accum_steps=2, train__resume="latest",
                                **common))
    assert resumed["global_batch"] == through["global_batch"] == 2
    assert [step for step, _ in resumed["losses"]] == [step for step, _ in through["losses"]] == [1, 2, 3, 4, 5]
    assert [loss for _, loss in resumed["losses"]] == pytest.approx([loss for _, loss in through["losses"]], abs=1e-5)
    weights = load_file(run / "model" / "model.safetensors")
    for key, expected in load_file(tmp_path / "through" / "model" / "model.safetensors").items():
        torch.testing.assert_close(weights[key], expected, rtol=0, atol=1e-5, msg=f"{key} differs")


@pytest.mark.distributed
def test_a_resume_onto_more_processes_with_other_accumulation_keeps_the_ranks_windows_together(
        tiny_config, tiny_dataset, tmp_path, monkeypatch):
    """One process at batch 4 stopped after step 3, resumed on two at batch 1 over two micro-batches
    (the same global batch): rank 1 has no RNG file of its own, so accelerate left its micro-batch
    counter at 0 while rank 0 took the saved 3, and their accumulation windows stayed apart for the
    rest of the run (seventy-fourth session). Now the resumed steps train as the one-process run does."""
    args = "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"  # as test_distributed's
    common = dict(train__max_steps=5, train__val_every=0, train__save_every=0, model__args=args)
    through = train(tiny_config(tmp_path / "through", train__batch_size=4, **common))
    run = tmp_path / "resumed"
    with monkeypatch.context() as patch:
        _signal_self_at(patch, call=2, signum=signal.SIGUSR1)
        assert train(tiny_config(run, train__batch_size=4, **common))["step"] == 3
    results = launch_two(tmp_path / "two", tiny_overrides(
        tiny_dataset, run, **{key.replace("__", "."): value for key, value in common.items()},
        **{"train.batch_size": 1, "train.grad_accum_steps": 2, "train.resume": "latest"}))
    for rank, result in enumerate(results):
        assert result["step"] == 5 and result["global_batch"] == 4
        torch.testing.assert_close(torch.tensor([loss for _, loss in result["losses"]]),
                                   torch.tensor([loss for _, loss in through["losses"]]), rtol=1e-5, atol=1e-6,
                                   msg=f"rank {rank}: logged losses differ")
    weights = load_file(run / "model" / "model.safetensors")
    for key, expected in load_file(tmp_path / "through" / "model" / "model.safetensors").items():
        torch.testing.assert_close(weights[key], expected, rtol=0, atol=1e-5, msg=f"{key} differs")
