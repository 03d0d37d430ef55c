"""docs/stopping.md's claims that no other test held: a second signal as a stopped command ends changes nothing. The
hundred-and-twenty-fifth session's helper h139 walked the page as a new user
(benchmarks/results/seventh_new_user_walk_2026-12-07/) and found a one-process predict stopped by SIGTERM, its line
said and its maps whole, ended by a SIGUSR1 that came 0.1 s later, in the interpreter's shutdown: -10 to a program
reading its status (138 to a shell), where the page says a second signal changes nothing (3 of 3; a second SIGTERM:
-15, 1 of 3)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from accelerated_seg.config import ConfigError

ROOT = Path(__file__).resolve().parents[1]

# A synth stopped by a job's SIGTERM in its work, run as the console script runs it (``sys.exit(main())``), and the
# second signal sent by an atexit handler: in the interpreter's shutdown, after the command's handling has ended.
STOPPED_THEN_SIGNALLED = """
import atexit, os, signal, sys
from accelerated_seg import cli
from accelerated_seg.data import synthetic
write = synthetic.write_synthetic_dataset
def stopped_as_it_writes(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return write(*args, **kwargs)
synthetic.write_synthetic_dataset = stopped_as_it_writes
atexit.register(os.kill, os.getpid(), {second})
sys.argv = {argv!r}
sys.exit(cli.main())
"""


@pytest.mark.parametrize("second", [signal.SIGUSR1, signal.SIGTERM], ids=["SIGUSR1", "SIGTERM"])
def test_a_second_signal_in_a_stopped_commands_shutdown_changes_nothing(second, tmp_path):
    """stopping.md, "A second signal": the one-process commands' SIGTERM handling "acts on the first SIGTERM or
    SIGUSR1 alone: a second, of either, changes nothing". The first's line is said and its status is 143, whenever
    the second comes; it ended the process with -10 (-15) until the hundred-and-twenty-fifth session."""
    out = tmp_path / "phantoms"
    code = STOPPED_THEN_SIGNALLED.format(second=int(second), argv=["accelerated-seg", "synth", str(out), "--cases",
                                                                   "3", "--validation", "1"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 143, done.stderr
    assert done.stderr.splitlines() == [f"synth stopped by SIGTERM before it wrote anything into {out}"], done.stderr


# A train whose training a notice stopped with a save (status 0, which a requeue reads), run as the console script
# runs it; the training itself stands in (its summary), the second SIGTERM sent by an atexit handler as above.
PREEMPTED_THEN_SIGNALLED = """
import atexit, os, signal, sys
from accelerated_seg import cli, train
from accelerated_seg.data.synthetic import write_synthetic_dataset
dataset = write_synthetic_dataset({folder!r}, num_cases=3, num_validation=1, size_mm=(16.0, 16.0, 16.0))
train.train = lambda cfg: {{"step": 1, "preempted": {preempted}}}
atexit.register(os.kill, os.getpid(), signal.SIGTERM)
sys.argv = ["accelerated-seg", "train", f"--data.dataset={{dataset}}", "--train.output_dir={folder}/run"]
sys.exit(cli.main())
"""


@pytest.mark.parametrize("preempted, status", [(True, 0), (False, -signal.SIGTERM)], ids=["preempted", "whole"])
def test_a_second_sigterm_in_a_preempted_trainings_shutdown_leaves_its_status_0(preempted, status, tmp_path):
    """stopping.md: a preempted train "exits 0" (examples/slurm/train.sbatch requeues on it) and "Training records
    SIGTERM and SIGUSR1: a second is the same notice". A second SIGTERM once its line was said, in the interpreter's
    shutdown, ended 3 of 6 such runs with -15 (the hundred-and-twenty-fifth session's walk). A run that ended whole
    is no stop: a SIGTERM then still ends the process."""
    code = PREEMPTED_THEN_SIGNALLED.format(folder=str(tmp_path), preempted=preempted)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == status, done.stderr[-3000:]


def test_a_second_signal_is_left_to_the_callers_handler_and_to_cli_main_called_from_python(tmp_path):
    """Called from Python (a notebook, a program of one's own), ``cli.main([...])`` leaves the process's signals as
    it found them once a stop has ended the command (stopping.md, "The other commands"): only the command line's own
    process ignores a second signal in its shutdown."""
    from accelerated_seg import cli
    from accelerated_seg.data import synthetic

    write = synthetic.write_synthetic_dataset

    def stopped_as_it_writes(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return write(*args, **kwargs)

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGUSR1)}
    synthetic.write_synthetic_dataset = stopped_as_it_writes
    try:
        assert cli.main(["synth", str(tmp_path / "phantoms"), "--cases", "3", "--validation", "1"]) == 143
        assert {signum: signal.getsignal(signum) for signum in before} == before
    finally:
        synthetic.write_synthetic_dataset = write
        for signum, handler in before.items():
            signal.signal(signum, handler)


# examples/train.py in one process, run as ``python examples/train.py`` runs it, its training standing in (preempted:
# its summary; Ctrl-C: the KeyboardInterrupt training raises after its line), and the second SIGTERM sent by an atexit
# handler, in the interpreter's shutdown.
EXAMPLE_STOPPED_THEN_SIGNALLED = """
import atexit, os, runpy, signal, sys
from accelerated_seg import train
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.early_signals import handed_over
dataset = write_synthetic_dataset({folder!r}, num_cases=3, num_validation=1, size_mm=(16.0, 16.0, 16.0))
def stopped(cfg):
    handed_over()  # as training takes the stops over from examples/train.py's first lines
    if {how!r} == "ctrl-c":
        raise KeyboardInterrupt
    return {{"step": 1, "preempted": {how!r} == "preempted", "is_main_process": True}}
train.train = stopped
atexit.register(os.kill, os.getpid(), signal.SIGTERM)
sys.argv = ["examples/train.py", "--no-report", f"--data.dataset={{dataset}}", "--train.output_dir={folder}/run"]
runpy.run_path({script!r}, run_name="__main__")
"""


@pytest.mark.parametrize("how, status", [("preempted", 0), ("ctrl-c", 130), ("whole", -signal.SIGTERM)])
def test_a_second_sigterm_in_examples_train_pys_shutdown_after_its_stop_changes_nothing(how, status, tmp_path):
    """stopping.md's table gives examples/train.py the stops `accelerated-seg train` has (SIGTERM: "preempted:", 0;
    Ctrl-C: 130), but it does not go through ``cli.main``: a second SIGTERM 0.1 s after its preempted line ended it
    with -15 in 4 of 4 runs (the hundred-and-twenty-fifth session's review, r119: its probe_1), after h139's fix of
    the command line's. Now ``end_process(0, preempted=...)`` and ``exit_on_user_error``'s stop ignore it as
    ``cli.main`` does; a run ended whole still ends on SIGTERM."""
    code = EXAMPLE_STOPPED_THEN_SIGNALLED.format(folder=str(tmp_path), how=how,
                                                 script=str(ROOT / "examples" / "train.py"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    env.pop("WORLD_SIZE", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == status, done.stderr[-3000:]


# examples/fit_your_own.py, estimator.py and kfold_ensemble.py in one process, run as `python examples/<name>.py` runs
# them: their phantoms written small (32^3 voxels), their training standing in (fit's summary, Segmentation.fit's,
# train's: a notice's stop after step 2, with its checkpoint, a run ended whole, or a Ctrl-C after the checkpoint), the
# resume it was given said, then the stop's own line as the fit says it in the names the script gave it (its
# names=, train's names), and the second SIGTERM sent by an atexit handler, in the interpreter's shutdown.
FIT_EXAMPLE_STOPPED_THEN_SIGNALLED = """
import atexit, os, runpy, signal, sys
from pathlib import Path
from types import SimpleNamespace
from accelerated_seg import estimator, train
from accelerated_seg.config import Config
from accelerated_seg.data import synthetic
from accelerated_seg.interrupted_run import RunSoFar
from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES, Names, callers_names
from accelerated_seg.preempted_run import say_where_a_preempted_run_goes_on
ensure = synthetic.ensure_synthetic_dataset
synthetic.ensure_synthetic_dataset = lambda folder, **kwargs: ensure(folder, **kwargs, size_mm=(48.0, 48.0, 48.0))
summary = {{"step": 2, "preempted": {stop!r} == "preempted", "is_main_process": True, "losses": [(2, 0.5)],
            "model": "run/model/model.safetensors", "best_dice": None, "best_step": None}}
def trained(*args, own=FIT_NAMES, **kwargs):
    print(f"resume={{kwargs.get('resume')!r}}")
    names = callers_names(kwargs.get("names"), own, "fit")
    # train's run folder is its config's (a k-fold's fold), fit's its checkpoint_dir, the estimator's <out>/run
    run = Path(args[0].train.output_dir) if args and isinstance(args[0], Config) else Path({out!r}) / "run"
    loop = SimpleNamespace(progress=SimpleNamespace(step=2), names=names, checkpoints_dir=run / "checkpoints",
                           accelerator=SimpleNamespace(print=print))
    if {stop!r} != "whole":
        (run / "checkpoints" / "step_2").mkdir(parents=True, exist_ok=True)
    if {stop!r} == "ctrl-c":
        so_far = RunSoFar(run / "checkpoints", names)
        so_far.set_up(loop)
        print(so_far.line())
        raise KeyboardInterrupt
    if {stop!r} == "preempted":
        say_where_a_preempted_run_goes_on(loop)
    return summary
def fitted(self, *args, **kwargs):
    self.summary = trained(*args, own=ESTIMATOR_NAMES, **kwargs)
    return self
estimator.Segmentation.fit = fitted
train.fit = trained
train.train = lambda *args, **kwargs: trained(*args, own=Names(), **kwargs)
atexit.register(os.kill, os.getpid(), signal.SIGTERM)
sys.argv = [{script!r}, *{argv!r}]
runpy.run_path({script!r}, run_name="__main__")
"""
# the script's way on, as its fit's line says it (its names=): said once, and no Python call of the script's
WAY_ON = "run the same command with --resume latest to continue"


@pytest.mark.parametrize("example, argv, stop, status", [
    ("fit_your_own", ["--epochs", "1", "--patch", "32"], "preempted", 0),
    ("fit_your_own", ["--epochs", "1", "--patch", "32"], "whole", -signal.SIGTERM),
    ("estimator", ["--steps", "4", "--patch", "32"], "preempted", 0),
    ("kfold_ensemble", ["--folds", "2", "--cases", "2", "--test-cases", "1"], "preempted", 0),
], ids=["fit_your_own-preempted", "fit_your_own-whole", "estimator-preempted", "kfold_ensemble-preempted"])
def test_a_second_sigterm_in_the_fit_examples_shutdown_after_a_preemption_leaves_its_status_0(
        example, argv, stop, status, tmp_path):
    """docs/stopping.md: a notice stops a fit with a save (`"preempted": True`), and "a second is the same notice";
    examples/fit_your_own.py, estimator.py and kfold_ensemble.py ended with ``end_process(0)`` whatever their fit did,
    so a second SIGTERM in their shutdown ended them with -15 where a requeue reads 0 (the hundred-and-twenty-sixth
    session's helper h141: benchmarks/results/estimator_stop_walk_2026-12-07/probe_*_before.txt). Now each passes its
    fit's preempted state to ``end_process`` as examples/train.py does, and says nothing of a model it has not: the
    estimator's went on to predict with none (RuntimeError), fit_your_own's named weights never exported. A run that
    ended whole still ends on SIGTERM. The fit's own line says the script's way on (review r121's in a line of the
    script's after it, until the hundred-and-twenty-seventh session), and nothing is said after it but the k-fold
    example's fold."""
    done = _run_the_example(example, argv, stop, tmp_path)
    assert done.returncode == status, done.stdout[-2000:] + done.stderr[-3000:]
    if stop == "preempted":  # nothing said after fit's own preempted line but the k-fold example's fold
        lines = done.stdout.splitlines()
        assert lines[1].startswith("preempted: SIGTERM/SIGUSR1 reached a rank;"), done.stdout[-2000:]
        said = {"kfold_ensemble": ["fold 0 stopped with its state saved, before the folds after it and the ensemble"]}
        assert lines[2:] == said.get(example, []), done.stdout[-2000:]
        way_on = ("run the same command with --train.resume=latest to continue" if example == "kfold_ensemble" else
                  WAY_ON)
        assert [line for line in lines if "the same command" in line] == [lines[1]] and way_on in lines[1], lines
        assert "resume='latest'" not in done.stdout, done.stdout[-2000:]


def _run_the_example(example: str, argv: list[str], stop: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = str(ROOT / "examples" / f"{example}.py")
    code = FIT_EXAMPLE_STOPPED_THEN_SIGNALLED.format(stop=stop, script=script, out=str(tmp_path),
                                                     argv=["--out", str(tmp_path), *argv])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    env.pop("WORLD_SIZE", None)
    # 25-55 s each on the shared 2-core machine at a load of 11 (review r121): 300 s, not 120, for a busier one
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize("example, argv", [
    ("fit_your_own", ["--epochs", "1", "--patch", "32"]), ("estimator", ["--steps", "4", "--patch", "32"]),
], ids=["fit_your_own", "estimator"])
@pytest.mark.parametrize("stop, status", [("preempted", 0), ("ctrl-c", 130)], ids=["preempted", "ctrl-c"])
def test_a_stopped_fit_example_names_its_own_way_on_which_resumes(example, argv, stop, status, tmp_path):
    """A preempted or interrupted examples/fit_your_own.py or estimator.py said only its fit's line, ``call fit
    again with resume='latest'`` (``call fit(..., resume='latest') again``), the Python call inside the script, and
    estimator.py had no way to resume at all (review r121 of h141's walk; the Open entry "A preempted
    `examples/estimator.py` or `examples/fit_your_own.py` names a way on its user does not write"). Review r121 had
    each say the same command with ``--resume latest`` after the fit's line; since the hundred-and-twenty-seventh
    session the fit's line says it, in the names the script gives its fit, and the script's second line is gone:
    one way on, the script's. It hands fit ``resume='latest'``; Ctrl-C still ends 130."""
    done = _run_the_example(example, argv, stop, tmp_path)
    assert done.returncode == status, done.stdout[-2000:] + done.stderr[-3000:]
    _assert_the_scripts_way_on_alone(done.stdout, "resume=None", stop)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if stop == "ctrl-c":  # the resume once for each script (each run 25-55 s on a loaded 2-core machine)
        return
    again = _run_the_example(example, [*argv, "--resume", "latest"], "preempted", tmp_path)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-3000:]
    _assert_the_scripts_way_on_alone(again.stdout, "resume='latest'", "preempted")


def _assert_the_scripts_way_on_alone(stdout: str, resume_given: str, stop: str) -> None:
    """The resume the script handed its fit, then the fit's own line alone, naming the script's way on."""
    lines = stdout.splitlines()
    assert len(lines) == 2 and lines[0] == resume_given, stdout[-2000:]
    start = {"preempted": "preempted: SIGTERM/SIGUSR1 reached a rank;", "ctrl-c": "interrupted (Ctrl-C) after step 2;"}
    assert lines[1].startswith(start[stop]) and WAY_ON in lines[1], stdout[-2000:]
    assert "resume='latest'" not in lines[1], stdout[-2000:]


def _the_names_the_script_gives_its_fit(example: str):
    """``EXAMPLE_NAMES`` of examples/<example>.py, read by running its top (its imports and constants: no main)."""
    import runpy

    return runpy.run_path(str(ROOT / "examples" / f"{example}.py"))["EXAMPLE_NAMES"]


def _said_once_in_the_scripts_words(said: str, line: str) -> None:
    """``line`` is said, the one line naming a way on, and no Python call of the script's fit."""
    assert line in said.splitlines(), said[-3000:]
    assert [one for one in said.splitlines() if "the same command" in one] == [line], said[-3000:]
    assert "resume='latest'" not in said and "call fit" not in said, said[-3000:]


@pytest.mark.parametrize("stop", ["preempted", "ctrl-c"])
def test_fit_given_fit_your_owns_names_says_the_scripts_way_on_once_after_a_stop(stop, tmp_path, monkeypatch, capsys,
                                                                                 ctrl_c_raises):
    """The fit examples/fit_your_own.py makes, stopped after a step with a checkpoint (a job's SIGTERM after step 2;
    a Ctrl-C in step 2): its line names the script's flags (``names=EXAMPLE_NAMES``), the run folder's refusal of a
    rerun too. Until the hundred-and-twenty-seventh session fit took no names and said ``call fit again with
    resume='latest'``, the script's own line after it (review r121)."""
    import signal

    from monai.losses import DiceCELoss
    from monai.networks.nets import UNet
    from torch.utils.data import DataLoader, TensorDataset

    from accelerated_seg.train import fit
    from faults import loss_forward_with, signal_on

    names = _the_names_the_script_gives_its_fit("fit_your_own")
    images = torch.randn(6, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))
    torch.manual_seed(0)
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,))
    pieces = (model, DataLoader(TensorDataset(images, (images > 0.5).long()), batch_size=2),
              DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()))
    run = tmp_path / "run"
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(
        signal_on(1, signal.SIGTERM if stop == "preempted" else signal.SIGINT)))  # step 2's forward
    with contextlib.suppress(KeyboardInterrupt) if stop == "ctrl-c" else contextlib.nullcontext():
        result = fit(*pieces, max_steps=4, checkpoint_dir=run, save_every=1, progress_bar=False, names=names)
        assert result["preempted"] and result["step"] == 2
    said = capsys.readouterr().out
    if stop == "preempted":
        line = (f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 2 and the training state "
                f"is saved in {run / 'checkpoints' / 'step_2'}: run the same command with --resume latest to continue, "
                f"or for a model of it now, give fit max_steps=2 in place of max_epochs in examples/fit_your_own.py "
                f"and run it with --resume latest, which trains nothing and exports it to {run / 'model'}.")
    else:
        line = (f"interrupted (Ctrl-C) after step 1; the newest whole checkpoint is {run / 'checkpoints' / 'step_1'}: "
                f"run the same command with --resume latest to continue from it")
    _said_once_in_the_scripts_words(said, line)
    step = 2 if stop == "preempted" else 1
    with pytest.raises(ConfigError, match=re.escape(
            f"{run} already holds a run (checkpoints up to step_{step}), which a new run there would replace: continue "
            f"it with --resume=latest, train into another --out, or set --overwrite to delete it first")):
        fit(*pieces, max_steps=4, checkpoint_dir=run, progress_bar=False, names=names)


@pytest.mark.parametrize("stop", ["preempted", "ctrl-c"])
def test_the_estimators_fit_given_its_examples_names_says_the_scripts_way_on_once_after_a_stop(
        stop, tiny_dataset, tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """The fit examples/estimator.py makes, ``Segmentation.fit(..., names=EXAMPLE_NAMES)``, stopped after a step with
    a checkpoint: its line, its repr and the refusal of a rerun name the script's flags. Until the
    hundred-and-twenty-seventh session the estimator took no names and said ``call fit(..., resume='latest')
    again``, the script's own line after it (review r121)."""
    import signal

    from monai.losses import DiceCELoss

    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset, Segmentation
    from faults import loss_forward_with, signal_on

    names = _the_names_the_script_gives_its_fit("estimator")
    pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(tiny_dataset).training]
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"), spacing=(2.0, 2.0, 2.0)).batch(2)
    run = tmp_path / "run"
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(run), val_every=0, save_every=1, trackers="none", progress_bar=False,
                         warmup_steps=0)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(
        signal_on(1, signal.SIGTERM if stop == "preempted" else signal.SIGINT)))  # step 2's forward
    with contextlib.suppress(KeyboardInterrupt) if stop == "ctrl-c" else contextlib.nullcontext():
        model.fit(data, steps=4, names=names)
        assert model.summary["preempted"] and model.summary["step"] == 2
    said = capsys.readouterr().out
    step = 2 if stop == "preempted" else 1
    checkpoint = run / "checkpoints" / f"step_{step}"
    if stop == "preempted":
        line = (f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 2 and the training state "
                f"is saved in {checkpoint}: run the same command with --resume latest to continue, or make a model of "
                f"it with accelerated-seg export {run} --output <new folder>.")
    else:
        line = (f"interrupted (Ctrl-C) after step 1; the newest whole checkpoint is {checkpoint}: run the same command "
                f"with --resume latest to continue from it")
    _said_once_in_the_scripts_words(said, line)
    assert repr(model).endswith(f"its newest whole checkpoint is {checkpoint}: run the same command with --resume "
                                f"latest to continue from it>"), repr(model)
    with pytest.raises(ConfigError, match=re.escape(
            f"{run} already holds a run (checkpoints up to step_{step}), which a new run there would replace: continue "
            f"it with --resume latest, train into another --out, or set --overwrite to delete it first")):
        model.fit(data, steps=4, names=names)


def test_fit_given_fit_your_owns_names_names_no_setting_the_script_has_not(tmp_path, monkeypatch, capsys,
                                                                           ctrl_c_raises):
    """The fit examples/fit_your_own.py makes, stopped by Ctrl-C before its first checkpoint, then resumed asking for
    fewer steps than its checkpoint's and for more: each line names the script's flags and its own saving, not fit's
    keywords it gives in its code. Until review r128 the stop said ``(save_every)``, the refusal ``max_steps at its
    step ... <checkpoint_dir>/model ... another checkpoint_dir``, the note ``max_steps 4 -> 3`` and a resume at its end
    ``which is max_steps already``."""
    from monai.losses import DiceCELoss
    from monai.networks.nets import UNet
    from torch.utils.data import DataLoader, TensorDataset

    from accelerated_seg.train import fit
    from faults import loss_forward_with, signal_on

    script = _the_scripts_top("fit_your_own")
    names, every = script["EXAMPLE_NAMES"], script["SAVE_EVERY"]
    images = torch.randn(6, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))
    torch.manual_seed(0)
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,))
    pieces = (model, DataLoader(TensorDataset(images, (images > 0.5).long()), batch_size=2),
              DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()))
    run = tmp_path / "run"
    forward = DiceCELoss.forward
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGINT)))  # step 2's forward
    with pytest.raises(KeyboardInterrupt):
        fit(*pieces, max_steps=4, checkpoint_dir=run, save_every=every, progress_bar=False, names=names)
    said = capsys.readouterr().out
    assert (f"interrupted (Ctrl-C) after step 1; no checkpoint was saved yet (it saves every {every} steps), so a new "
            f"run starts over") in said.splitlines(), said[-3000:]
    monkeypatch.setattr(DiceCELoss, "forward", forward)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGTERM)))
    assert fit(*pieces, max_steps=4, checkpoint_dir=run, save_every=every, progress_bar=False, overwrite=True,
               names=names)["preempted"]
    monkeypatch.setattr(DiceCELoss, "forward", forward)
    with pytest.raises(ConfigError) as refused:
        fit(*pieces, max_steps=1, checkpoint_dir=run, progress_bar=False, resume="latest", names=names)
    assert str(refused.value).endswith(
        "optimizer step this run asks for (--epochs): a resumed run goes on from its step and cannot go back. Ask "
        "for more than 2 steps to train on, or start a new run from its weights: none in this script, whose runs "
        "start from scratch; for a model of it, give fit max_steps at its step in place of max_epochs in "
        "examples/fit_your_own.py and run it with --resume latest, which trains nothing and exports it"), refused.value
    capsys.readouterr()
    fit(*pieces, max_steps=3, checkpoint_dir=run, progress_bar=False, resume="latest", names=names)
    said = capsys.readouterr().out
    assert (f"resuming with settings other than {run / 'checkpoints' / 'step_2'}'s, this run's from here on: the steps "
            f"of --epochs 4 -> 3") in said.splitlines(), said[-3000:]
    fit(*pieces, max_steps=3, checkpoint_dir=run, progress_bar=False, resume="latest", names=names)  # at its end
    said += capsys.readouterr().out
    assert (f"resumed from {run / 'checkpoints' / 'step_3'} at step 3, which is the steps of --epochs already: nothing "
            f"to train; the export is written from it") in said.splitlines(), said[-3000:]
    assert "checkpoint_dir" not in said and "max_steps" not in said, said[-3000:]


def test_the_estimators_fit_given_its_examples_names_names_no_setting_the_script_has_not(
        tiny_dataset, tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """The fit examples/estimator.py makes, stopped by Ctrl-C before its first checkpoint (its line and repr), then
    preempted and resumed asking for fewer steps than its checkpoint's: the script's flags and its own saving. Until
    review r128 they said ``(save_every)``, ``then fit(..., init_from=<folder>)`` and, resumed at its last step,
    ``which is max_steps already``, none of the script's."""
    from monai.losses import DiceCELoss

    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset, Segmentation
    from faults import loss_forward_with, signal_on

    script = _the_scripts_top("estimator")
    names, every = script["EXAMPLE_NAMES"], script["SAVE_EVERY"]
    pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(tiny_dataset).training]
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"), spacing=(2.0, 2.0, 2.0)).batch(2)
    run = tmp_path / "run"
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(run), val_every=0, save_every=every, trackers="none", progress_bar=False,
                         warmup_steps=0)
    forward = DiceCELoss.forward
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGINT)))  # step 2's forward
    with pytest.raises(KeyboardInterrupt):
        model.fit(data, steps=4, names=names)
    said = capsys.readouterr().out
    unsaved = f"no checkpoint was saved yet (it saves every {every} steps)"
    assert f"interrupted (Ctrl-C) after step 1; {unsaved}, so a new run starts over" in said.splitlines(), said[-3000:]
    assert f"; {unsaved}, so a new fit starts over>" in repr(model), repr(model)
    monkeypatch.setattr(DiceCELoss, "forward", forward)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGTERM)))
    model.fit(data, steps=4, overwrite=True, names=names)
    assert model.summary["preempted"] and model.summary["step"] == 2
    monkeypatch.setattr(DiceCELoss, "forward", forward)
    with pytest.raises(ConfigError) as refused:
        model.fit(data, steps=1, resume="latest", names=names)
    assert str(refused.value).endswith(
        "optimizer step this run asks for (--steps): a resumed run goes on from its step and cannot go back. Ask for "
        "more than 2 steps to train on, or start a new run from its weights: none in this script, whose runs start "
        f"from scratch; for a model of it, accelerated-seg export {run / 'checkpoints' / 'step_2'} --output <new "
        "folder>"), refused.value
    assert "init_from" not in str(refused.value) and "save_every" not in said
    capsys.readouterr()
    model.fit(data, steps=2, resume="latest", names=names)  # at its last step
    said = capsys.readouterr().out
    assert (f"resumed from {run / 'checkpoints' / 'step_2'} at step 2, which is --steps already: nothing to train; the "
            f"export and summary are written from it") in said.splitlines(), said[-3000:]
    assert "max_steps" not in said, said[-3000:]


def _the_scripts_top(example: str) -> dict:
    """The names examples/<example>.py defines at its top (its imports and constants: no main)."""
    import runpy

    return runpy.run_path(str(ROOT / "examples" / f"{example}.py"))


@pytest.mark.parametrize("example", ["estimator", "fit_your_own"])
def test_the_names_a_fit_example_gives_name_no_keyword_of_its_fit(example):
    """Every way on the script's fit may say in its names (a stop's, a rerun's refusal, a resume's refusals: the way to
    a new run from its weights, or elsewhere where its data changed) and the settings it names there: none a keyword
    of the fit's, which the script's user does not write. Until review r128 estimator.py's said ``fit(...,
    init_from=...)`` (``Left`` of the hundred-and-twenty-seventh session's entry, for a resume whose data changed),
    ``save_every`` and ``max_steps``, fit_your_own.py's ``save_every``, ``max_steps`` and ``checkpoint_dir``."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES, callers_names

    names = callers_names(_the_scripts_top(example)["EXAMPLE_NAMES"],
                          ESTIMATOR_NAMES if example == "estimator" else FIT_NAMES, "fit")
    said = [names.resume, names.resume_again, names.overwrite, names.overwrite_again, names.elsewhere, names.folder,
            names.length, names.elsewhere_from(), names.way_to_a_new_run_from(Path("run/checkpoints/step_2")),
            names.model_of_the_state.format(folder="run", export=Path("run/model"), step=2),
            *(names.setting(key) for key in ("train.save_every", "train.max_steps", "train.resume", "data.patch_size")),
            names.fp32, names.predict_fp32, names.rate]  # bf16's way to fp32, a non-finite loss's (the 128th session)
    keywords = ("fit(", "init_from", "output_dir", "checkpoint_dir", "save_every", "resume='", "overwrite=True",
                "precision='", "block_shape")
    assert not [(words, keyword) for words in said for keyword in keywords if keyword in words], said
    assert not [words for words in said if re.search(r"(?<!give fit )max_steps", words)], said
