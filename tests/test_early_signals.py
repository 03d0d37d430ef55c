"""A stop in a command's first seconds, before its own handling of signals is in (accelerated_seg/early_signals.py).

Each command runs in a process of its own, started as the command line starts it (``cli.main()`` reading
``sys.argv``, or examples/train.py as ``__main__``), and sends itself the signal as a chosen module is first imported
(``SIGNAL_AT_THE_IMPORT``): inside the command's imports, at the same point every run, no sleep. Until the
hundred-and-eighteenth session SIGTERM and SIGUSR1 there ended the process with status -15 / -10 and nothing said,
and SIGINT with 130 and nothing said.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import tiny_overrides  # tests/ is on sys.path

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: Python run before the command: it sends ``{signum}`` to its own process as ``{module}`` is first imported.
SIGNAL_AT_THE_IMPORT = """
import os, sys

class SignalAtTheImport:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
        return None

sys.meta_path.insert(0, SignalAtTheImport())
"""

#: The command line's own start (the console script's): ``main()`` reads sys.argv.
AS_THE_COMMAND_LINE = """
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""

#: examples/train.py run as ``python examples/train.py ARGS``.
AS_THE_TRAINING_EXAMPLE = """
import runpy
sys.argv = {argv!r}
runpy.run_path({script!r}, run_name="__main__")
"""


def signalled_at_the_import(module: str, signum: int, start: str, **where) -> subprocess.CompletedProcess:
    """``start`` (``AS_THE_COMMAND_LINE`` or ``AS_THE_TRAINING_EXAMPLE``, formatted with ``where``) run in a process
    of its own that sends itself ``signum`` as ``module`` is first imported."""
    return run_python(SIGNAL_AT_THE_IMPORT.format(module=module, signum=int(signum)) + start.format(**where))


def run_python(code: str) -> subprocess.CompletedProcess:
    """``code`` run by this Python in a process of its own, with this checkout's package."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)


def before_it_began(command: str, stopped: str) -> str:
    return f"{command} {stopped} before it began; nothing was written: run the same command again"


@pytest.mark.parametrize("signum, status, stopped", [(signal.SIGTERM, 143, "stopped by SIGTERM"),
                                                     (signal.SIGINT, 130, "interrupted (Ctrl-C)")])
def test_a_stop_as_train_imports_torch_says_it_stopped_before_it_began(signum, status, stopped, tiny_dataset,
                                                                       tmp_path):
    """SIGTERM or Ctrl-C as ``accelerated-seg train`` imports torch: one line, the signal's status, nothing written."""
    out = tmp_path / "run"
    done = signalled_at_the_import("torch", signum, AS_THE_COMMAND_LINE,
                                   argv=["accelerated-seg", "train", *tiny_overrides(tiny_dataset, out)])
    assert done.returncode == status, done.stderr
    assert done.stderr.splitlines() == [before_it_began("accelerated-seg train", stopped)], done.stderr
    assert done.stdout == "" and not out.exists()


def test_sigusr1_as_the_training_example_imports_torch_is_a_preemption_after_the_first_step(tiny_dataset, tmp_path):
    """A requeue's SIGUSR1 in examples/train.py's imports is kept for the training loop, which saves after its first
    step and says so, status 0: the job is requeued (examples/slurm/train.sbatch) and resumes."""
    out = tmp_path / "run"
    done = signalled_at_the_import("torch", signal.SIGUSR1, AS_THE_TRAINING_EXAMPLE, script=str(ROOT / "examples" /
                                   "train.py"), argv=["train.py", *tiny_overrides(tiny_dataset, out)])
    assert done.returncode == 0, done.stderr
    assert "preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 1" in done.stdout, done.stdout
    assert sorted(path.name for path in (out / "checkpoints").iterdir()) == ["step_1"]


def test_sigterm_as_the_training_example_imports_torch_names_the_script(tiny_dataset, tmp_path):
    out = tmp_path / "run"
    done = signalled_at_the_import("torch", signal.SIGTERM, AS_THE_TRAINING_EXAMPLE, script=str(ROOT / "examples" /
                                   "train.py"), argv=["train.py", *tiny_overrides(tiny_dataset, out)])
    assert done.returncode == 143, done.stderr
    assert done.stderr.splitlines() == [before_it_began("examples/train.py", "stopped by SIGTERM")], done.stderr
    assert not out.exists()


def tiny_model_and_scans(tmp_path: Path, cases: int = 1) -> tuple[Path, Path]:
    """A random-weight export and a folder of ``cases`` phantoms of 4^3 voxels for it."""
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec

    model = tmp_path / "model"
    spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
                 {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [4.0, 4.0, 4.0]}, model)
    return model, write_synthetic_dataset(tmp_path / "scans", num_cases=cases, num_validation=0,
                                          size_mm=(16.0, 16.0, 16.0), spacing_mm=4.0).parent / "imagesTr"


def test_sigterm_as_a_one_process_predict_imports_torch_says_it_stopped_before_it_began(tmp_path):
    """predict's checks of its model and inputs come before torch: the signal comes in the imports after them."""
    model, scans = tiny_model_and_scans(tmp_path)
    out = tmp_path / "predictions"
    done = signalled_at_the_import("torch", signal.SIGTERM, AS_THE_COMMAND_LINE,
                                   argv=["accelerated-seg", "predict", "--model", str(model), str(scans),
                                         "--output", str(out)])
    assert done.returncode == 143, done.stderr
    assert done.stderr.splitlines() == [before_it_began("accelerated-seg predict", "stopped by SIGTERM")], done.stderr
    assert not out.exists()


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGUSR1, 138)])
def test_a_stop_before_synth_runs_says_so_and_writes_nothing(signum, status, tmp_path):
    """The signal comes as ``main`` makes its parser, before the command runs."""
    out = tmp_path / "phantoms"
    code = """
import os, sys
from accelerated_seg import cli
make_the_parser = cli.build_parser
def signalled_then_made():
    os.kill(os.getpid(), {signum})
    return make_the_parser()
cli.build_parser = signalled_then_made
sys.argv = {argv!r}
cli.end_process(cli.main())
"""
    done = run_python(code.format(signum=int(signum), argv=["accelerated-seg", "synth", str(out), "--cases", "2",
                                                            "--validation", "1"]))
    assert done.returncode == status, done.stderr
    name = signal.Signals(signum).name
    assert done.stderr.splitlines() == [before_it_began("accelerated-seg synth", f"stopped by {name}")], done.stderr
    assert not out.exists()


#: Python run before synth: it sends ``{signum}`` to its own process as synth's third file is written.
SIGNALLED_AT_SYNTHS_THIRD_FILE = """
import os
import accelerated_seg.data.synthetic as synthetic
write, calls = synthetic.write_nifti, []
def signalled_at_the_third(*args, **kwargs):
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), {signum})
    return write(*args, **kwargs)
synthetic.write_nifti = signalled_at_the_third
"""


def test_sigusr1_stops_synth_as_sigterm_does_and_says_so(tmp_path):
    """A requeue's SIGUSR1 as the third file is written: every case file whole, the marker left for the same command
    to finish them, synth's line naming SIGUSR1, status 138. It left a hidden temporary and said nothing before."""
    out = tmp_path / "phantoms"
    code = SIGNALLED_AT_SYNTHS_THIRD_FILE.format(signum=int(signal.SIGUSR1)) + """
from accelerated_seg.cli import end_process, main
end_process(main({argv!r}))
"""
    done = run_python(code.format(argv=["synth", str(out), "--cases", "3", "--validation", "1"]))
    assert done.returncode == 128 + signal.SIGUSR1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"synth stopped by SIGUSR1: {out} holds part of the phantoms and no dataset.json yet (written last; every case "
        f"file there is whole); the same command finishes them"), done.stderr
    assert [path.name for path in sorted((out / "imagesTr").iterdir()) + sorted((out / "labelsTr").iterdir())] == [
        "case_000.nii.gz"] * 2  # no hidden temporary beside them
    assert (out / ".phantoms_being_written").exists() and not (out / "dataset.json").exists()


def test_only_the_command_lines_process_takes_the_signals(tmp_path):
    """``import accelerated_seg`` and ``cli.main`` called with its arguments leave the caller's signals alone; the
    command line's own ``main()`` puts each default back as it returns, and a process forked before the handover
    gets the defaults back; SIGTERM keeps its default in a process of a launch of several (its agent's way to end
    the processes left when one has ended)."""
    code = """
import json, os, signal, sys
from accelerated_seg import cli, early_signals

defaults = lambda: [signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler)
                    for s in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)]
seen = {"imported": defaults()}
try:
    cli.main(["check", "no such dataset.json"])
except SystemExit:
    pass
seen["called with arguments"] = defaults()
sys.argv = ["accelerated-seg", "check", "no such dataset.json"]
try:
    cli.main()
except SystemExit:
    pass
seen["returned"] = defaults()
early_signals.stopping_before_the_command("accelerated-seg check")
seen["taken"] = defaults()
reading, writing = os.pipe()
if (child := os.fork()) == 0:
    os.write(writing, json.dumps(defaults()).encode())
    os._exit(0)
os.waitpid(child, 0)
seen["forked"] = json.loads(os.read(reading, 100))
early_signals.handed_over()
os.environ.update(TORCHELASTIC_RUN_ID="test", LOCAL_RANK="0", WORLD_SIZE="2")  # a launch of two
early_signals.stopping_before_the_command("accelerated-seg train")
seen["launched"] = defaults()
print(json.dumps(seen))
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "imported": [True] * 3, "called with arguments": [True] * 3, "returned": [True] * 3, "taken": [False] * 3,
        "forked": [True] * 3, "launched": [True, False, False]}


def test_sigterm_in_a_launch_of_one_process_says_it_stopped_before_it_began(tiny_dataset, tmp_path):
    """``torchrun --nproc_per_node 1`` marks its one rank (TORCHELASTIC_RUN_ID) and gives it WORLD_SIZE 1: there are no
    others for its agent's SIGTERM to end, and training records SIGTERM from ``train()``'s start there
    (``processes_yet_to_meet``), so a SIGTERM in its imports is a stop before the command began, said, 143. It kept
    its default until the hundred-and-eighteenth session's review: -15, nothing said."""
    out = tmp_path / "run"
    launched_alone = "os.environ.update(TORCHELASTIC_RUN_ID='test', LOCAL_RANK='0', RANK='0', WORLD_SIZE='1')\n"
    done = signalled_at_the_import("torch", signal.SIGTERM, launched_alone + AS_THE_COMMAND_LINE,
                                   argv=["accelerated-seg", "train", *tiny_overrides(tiny_dataset, out)])
    assert done.returncode == 143, done.stderr
    assert done.stderr.splitlines() == [before_it_began("accelerated-seg train", "stopped by SIGTERM")], done.stderr
    assert not out.exists()


def test_sigusr1_stops_evaluate_as_sigterm_does_and_says_so(tiny_dataset, tmp_path):
    """A requeue's SIGUSR1 as the second map is read: evaluate's line, naming SIGUSR1, nothing written, status 138.
    Every one-process command takes SIGUSR1 as its SIGTERM since the hundred-and-eighteenth session's review; evaluate
    ended at once before, -10, nothing said."""
    from terminated_mid_work import run_terminated

    labels = tiny_dataset.parent / "labelsTr"
    predictions = Path(shutil.copytree(labels, tmp_path / "predictions"))  # each case scored as perfect
    done = run_terminated("evaluate", str(predictions), str(labels), "--output", str(tmp_path / "evaluation"),
                          signum=signal.SIGUSR1)
    assert done.returncode == 128 + signal.SIGUSR1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"evaluate stopped by SIGUSR1: nothing written (both files are written together at the end; an earlier "
        f"evaluation in {tmp_path / 'evaluation'} stays as it was)"), done.stderr
    assert not (tmp_path / "evaluation").exists()


def test_sigusr1_stops_export_leaving_nothing_half_written(tiny_config, tmp_path):
    """A requeue's SIGUSR1 once the weights are written into ``<output>.partial/``: export's line, naming SIGUSR1,
    status 138, nothing left beside the run. Before the hundred-and-eighteenth session's review it ended at once,
    -10, nothing said, the ``.partial`` folder left."""
    from terminated_mid_work import run_terminated

    from accelerated_seg.train import train

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    output = tmp_path / "model"
    done = run_terminated("export", str(run), "--output", str(output), signum=signal.SIGUSR1)
    assert done.returncode == 128 + signal.SIGUSR1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"export stopped by SIGUSR1: nothing written to {output} (an export is written whole or not at all); the same "
        f"command exports it")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


def test_sigusr1_as_training_takes_it_over_is_a_preemption(tiny_dataset, tmp_path):
    """SIGUSR1 as ``PreemptionSignals`` takes the signals over from early_signals (sent as it asks whether the
    processes are yet to meet): the handover put each default back before the loop's handler was set, and a SIGUSR1
    in those 20-35 us ended the run at once, -10, nothing said, until the hundred-and-eighteenth session's review."""
    out = tmp_path / "run"
    sent_in_the_handover = """
import accelerated_seg.checkpoint as checkpoint
asked = checkpoint.processes_yet_to_meet
def signalled_then_asked():
    os.kill(os.getpid(), {signum})
    return asked()
checkpoint.processes_yet_to_meet = signalled_then_asked
""".format(signum=int(signal.SIGUSR1))
    done = run_python("import os, sys\n" + sent_in_the_handover + AS_THE_COMMAND_LINE.format(
        argv=["accelerated-seg", "train", *tiny_overrides(tiny_dataset, out)]))
    assert done.returncode == 0, done.stderr
    assert "preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 1" in done.stdout, done.stdout


def test_a_sigterm_pending_as_sigusr1_is_put_back_leaves_both_defaults(monkeypatch):
    """A one-process command takes SIGTERM and SIGUSR1 (``cli._sigterm_as_ctrl_c``); ``signal.signal`` runs the
    handlers of the signals pending before it sets one, so a SIGTERM come just as SIGUSR1's default is put back raised
    its ``Terminated`` there, which the put-back, waiting for SIGUSR1's own interrupt alone, let through with SIGUSR1's
    handler left in place: ``cli.main([...])`` called from Python left the caller's SIGUSR1 raising an interrupt, until
    the hundred-and-eighteenth session's review."""
    from accelerated_seg import sigterm

    setting = signal.signal

    class PendingSIGTERM:  # signal.signal as CPython runs it with a SIGTERM pending: its handler first
        def __getattr__(self, name):
            return getattr(signal, name)

        @staticmethod
        def signal(signum, handler):
            if signum == signal.SIGUSR1 and handler is signal.SIG_DFL:
                signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
            return setting(signum, handler)

    try:
        with pytest.raises(sigterm.Terminated):
            with sigterm.sigterm_as_an_interrupt(), sigterm.sigterm_as_an_interrupt(signum=signal.SIGUSR1):
                monkeypatch.setattr(sigterm, "signal", PendingSIGTERM())
        left = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGUSR1)
    finally:  # this test's process keeps Python's defaults, whatever the assertion finds
        setting(signal.SIGTERM, signal.SIG_DFL)
        setting(signal.SIGUSR1, signal.SIG_DFL)
    assert left == (signal.SIG_DFL, signal.SIG_DFL)


def test_sigusr1_stops_a_one_process_predict_as_sigterm_does_every_map_whole(tmp_path):
    """A requeue's SIGUSR1 once predict's imports are done, sent by its writing thread as the second map's hidden
    temporary is written whole and not yet renamed: that map is finished and said, none is begun after, the line names
    SIGUSR1 and --continue, status 138. Until the hundred-and-nineteenth session SIGUSR1 had its default once predict
    had taken its stops over from early_signals: -10, nothing said, the second map left under its hidden name."""
    model, scans = tiny_model_and_scans(tmp_path, cases=3)
    out = tmp_path / "predictions"
    signalled_in_the_second_write = """
import os, sys
import accelerated_seg.data.io as io
synced, calls = io.sync_file, []
def signalled_in_the_second(path):
    synced(path)
    calls.append(path)
    if len(calls) == 2:
        os.kill(os.getpid(), {signum})
io.sync_file = signalled_in_the_second
""".format(signum=int(signal.SIGUSR1))
    done = run_python(signalled_in_the_second_write + AS_THE_COMMAND_LINE.format(
        argv=["accelerated-seg", "predict", "--model", str(model), str(scans), "--output", str(out)]))
    assert done.returncode == 128 + signal.SIGUSR1, done.stderr
    assert done.stdout.splitlines() == [f"[{number + 1}/3] case_00{number}: wrote {out / f'case_00{number}.nii.gz'}"
                                        for number in range(2)], done.stdout
    assert done.stderr.splitlines()[-1] == (
        "predict stopped by SIGUSR1: every file it wrote is whole (2 of 3 case(s), each said above); the same command "
        "with --continue predicts the 1 not yet written"), done.stderr
    assert sorted(path.name for path in out.iterdir()) == ["case_000.nii.gz", "case_001.nii.gz"]  # nothing hidden


#: Python run before the command: it sends SIGTERM as ``sigterm.stops_as_an_interrupt`` sets SIGUSR1's handler
#: (``{when}``: as_the_stops_are_taken; SIGTERM's is set) or puts its default back (as_the_stops_are_put_back).
SIGTERM_AS_SIGUSR1S_STOP_CHANGES = """
import os, signal, sys
import accelerated_seg.sigterm as sigterm
taken, put_back = sigterm.taken_over, sigterm._put_back_the_default
def signalled_as_sigusr1_is_taken(signum, handler):
    if signum == signal.SIGUSR1 and {when!r} == "as_the_stops_are_taken":
        os.kill(os.getpid(), signal.SIGTERM)
    return taken(signum, handler)
def signalled_as_sigusr1_is_put_back(signum=signal.SIGTERM):
    if signum == signal.SIGUSR1 and {when!r} == "as_the_stops_are_put_back":
        os.kill(os.getpid(), signal.SIGTERM)
    return put_back(signum)
sigterm.taken_over, sigterm._put_back_the_default = signalled_as_sigusr1_is_taken, signalled_as_sigusr1_is_put_back
"""


@pytest.mark.parametrize("when", ["as_the_stops_are_taken", "as_the_stops_are_put_back"])
def test_a_sigterm_as_predict_takes_or_puts_back_its_stops_is_said(when, tmp_path):
    """A SIGTERM come as a one-process predict has set its handler for SIGTERM and is setting SIGUSR1's (raised there:
    ``signal.signal`` runs pending handlers first), or as it puts SIGUSR1's default back once every map is written.
    Since the hundred-and-nineteenth session's review predict says its stopped line inside ``stops_as_an_interrupt``;
    an interrupt raised by the stops' own entry or exit was outside that try, and the process ended 143 saying nothing
    (that session's second review, benchmarks/results/review_stops_as_an_interrupt_2026-12-06/)."""
    model, scans = tiny_model_and_scans(tmp_path, cases=2)
    out = tmp_path / "predictions"
    done = run_python(SIGTERM_AS_SIGUSR1S_STOP_CHANGES.format(when=when) + AS_THE_COMMAND_LINE.format(
        argv=["accelerated-seg", "predict", "--model", str(model), str(scans), "--output", str(out)]))
    assert done.returncode == 143, done.stderr
    if when == "as_the_stops_are_taken":
        assert done.stderr.splitlines()[-1] == (
            "predict stopped by SIGTERM: every file it wrote is whole; the same command with --continue predicts the "
            "cases not yet written"), done.stderr
        assert not out.exists()
    else:
        assert done.stderr.splitlines()[-1] == "predict stopped by SIGTERM: all 2 case(s) are written, each file whole"
        assert sorted(path.name for path in out.iterdir()) == ["case_000.nii.gz", "case_001.nii.gz"]


@pytest.mark.parametrize("when", ["as_the_stops_are_taken", "as_the_stops_are_put_back"])
def test_a_sigterm_as_a_one_process_command_takes_or_puts_back_its_stops_is_said(when, tmp_path):
    """synth sent SIGTERM as ``cli._sigterm_as_ctrl_c`` sets SIGUSR1's handler (before synth begins) or puts its
    default back (once synth has returned): the interrupt is raised outside synth's own handling, and cli ended 143
    saying nothing until the hundred-and-nineteenth session's second review
    (benchmarks/results/review_stops_as_an_interrupt_2026-12-06/one_process_command_as_its_stops_change_before.txt)."""
    out = tmp_path / "out"
    done = run_python(SIGTERM_AS_SIGUSR1S_STOP_CHANGES.format(when=when) + AS_THE_COMMAND_LINE.format(
        argv=["accelerated-seg", "synth", str(out), "--cases", "1", "--validation", "0"]))
    assert done.returncode == 143, done.stderr
    if when == "as_the_stops_are_taken":
        assert done.stderr.splitlines() == [before_it_began("accelerated-seg synth", "stopped by SIGTERM")]
        assert not out.exists()
    else:
        assert done.stdout.splitlines()[-1] == f"wrote {out / 'dataset.json'}", done.stdout
        assert done.stderr.splitlines() == ["synth stopped by SIGTERM as it ended: it had finished, as said above"]


def _stopped_at(monkeypatch, module, name: str, call: int, interrupt: type[KeyboardInterrupt], after: bool = True):
    """``module.name`` replaced with itself raising ``interrupt`` (as the handler of the stop's signal raises it on
    the main thread) at its ``call``-th call, once it has run (``after``) or before."""
    called, calls = getattr(module, name), []

    def stopped(*args, **kwargs):
        calls.append(1)
        if len(calls) == call and not after:
            raise interrupt()
        done = called(*args, **kwargs)
        if len(calls) == call and after:
            raise interrupt()
        return done

    monkeypatch.setattr(module, name, stopped)


def _stopped_at_the_line(monkeypatch, module, at, interrupt: type[KeyboardInterrupt] = KeyboardInterrupt):
    """``module``'s ``print`` replaced with one that raises ``interrupt`` as it says a line for which ``at`` is true
    (a stop as the command says its last line), and says every other."""
    def stopped_at_the_line(*args, **kwargs):
        if args and at(str(args[0])):
            raise interrupt
        print(*args, **kwargs)

    monkeypatch.setattr(module, "print", stopped_at_the_line, raising=False)


@pytest.mark.parametrize("window", ["loading the model", "the map in place, its folder being synced",
                                    "in the probabilities' write",
                                    "in the probabilities' write, an earlier run's there", "as the wrote line is said",
                                    "as the wrote line is said, with the probabilities",
                                    "an earlier run's probabilities not yet removed"])
def test_a_stopped_predict_input_says_what_its_files_hold(window, tmp_path, monkeypatch, capsys):
    """``predict --input`` (one case, written on the main thread) stopped in each window of its work says what its
    files hold, with the stop's status. Until the hundred-and-twentieth session each said "no file is half-written;
    the same command predicts the case", also of a case written whole (its map in place, or its wrote line being
    said)."""
    import accelerated_seg.data.io as io
    import accelerated_seg.inference as inference
    from accelerated_seg import predict_command
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated

    model, scans = tiny_model_and_scans(tmp_path)
    out, probs = tmp_path / "seg.nii.gz", tmp_path / "seg_probs.nii.gz"
    command = ["predict", "--model", str(model), "--input", str(scans / "case_000.nii.gz"), "--output", str(out)]
    with_probabilities = [*command, "--probabilities"]
    if window == "loading the model":
        _stopped_at(monkeypatch, inference, "load_for_prediction", 1, Terminated, after=False)
        said, status, files = "predict stopped by SIGTERM: no file is half-written; the same command predicts the " \
                              "case", 143, []
    elif window == "the map in place, its folder being synced":  # write_nifti's last step
        _stopped_at(monkeypatch, io, "sync_directory", 1, StoppedBySIGUSR1)
        said, status, files = f"predict stopped by SIGUSR1: the label map is written whole at {out}; nothing to " \
                              f"redo", 138, ["seg.nii.gz"]
    elif window == "in the probabilities' write":  # their temporary whole, not yet in place
        _stopped_at(monkeypatch, io, "sync_file", 2, Terminated)
        command = with_probabilities
        said, status, files = (f"predict stopped by SIGTERM: the label map is written whole at {out}, but not its "
                               f"probabilities ({probs}); no file is half-written: the same command predicts the case "
                               f"again"), 143, ["seg.nii.gz"]
    elif window == "in the probabilities' write, an earlier run's there":  # said "not its probabilities" alone
        assert main(with_probabilities) == 0  # until the hundred-and-twentieth session's review
        _stopped_at(monkeypatch, io, "sync_file", 2, Terminated)
        command = with_probabilities
        said, status, files = (f"predict stopped by SIGTERM: the label map is written whole at {out}, but not its "
                               f"probabilities ({probs} still holds an earlier run's, no longer its); no file is "
                               f"half-written: the same command predicts the case again"), 143, ["seg.nii.gz",
                                                                                                 "seg_probs.nii.gz"]
    elif window.startswith("as the wrote line is said"):
        _stopped_at_the_line(monkeypatch, predict_command, lambda line: line.startswith("wrote "))
        if window.endswith("probabilities"):
            command = with_probabilities
            said, status, files = (f"predict interrupted: the label map and its probabilities are written whole at "
                                   f"{out} and {probs}; nothing to redo"), 130, ["seg.nii.gz", "seg_probs.nii.gz"]
        else:
            said, status, files = f"predict interrupted: the label map is written whole at {out}; nothing to redo", \
                130, ["seg.nii.gz"]
    else:  # written with its probabilities, then again without them: the stop before those are removed
        assert main(with_probabilities) == 0
        _stopped_at(monkeypatch, io, "sync_directory", 1, Terminated)
        said, status, files = (f"predict stopped by SIGTERM: the label map is written whole at {out}; the "
                               f"probabilities an earlier run wrote beside it ({probs}) are no longer its: the same "
                               f"command predicts the case again and removes them"), 143, ["seg.nii.gz",
                                                                                          "seg_probs.nii.gz"]
    capsys.readouterr()
    assert main(command) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("seg")) == files
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]  # nothing hidden left


def test_a_stopped_predict_input_of_a_map_name_leaving_no_room_for_probabilities_says_its_line(tmp_path, monkeypatch,
                                                                                                capsys):
    """A map's name of 250-255 bytes, without --probabilities, stopped once the map is written: the line looks for an
    earlier run's <name>_probs.nii.gz beside it, by Path.is_file, which raised "File name too long" (a traceback in
    the stop line's place, status 1) until the hundred-and-twenty-second session's review: that session made the
    same look os.path's in predict's writing and removal (its 1b), not in this line's. No file can have that name."""
    from accelerated_seg import predict_command
    from accelerated_seg.cli import main

    model, scans = tiny_model_and_scans(tmp_path)
    out = tmp_path / f"{'s' * 245}_3.nii.gz"
    _stopped_at_the_line(monkeypatch, predict_command, lambda line: line.startswith("wrote "))
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--input", str(scans / "case_000.nii.gz"), "--output",
                 str(out)]) == 130
    assert capsys.readouterr().err.splitlines() == [
        f"predict interrupted: the label map is written whole at {out}; nothing to redo"]


@pytest.mark.parametrize("through_a_link", [False, True])
def test_a_predict_input_stopped_as_its_map_is_renamed_into_place_syncs_its_folder(tmp_path, monkeypatch, capsys,
                                                                                    through_a_link):
    """A stop just after the map's rename, before write_nifti syncs its folder: the line says the map is written whole,
    nothing to redo, and the folder is synced first, the rename made durable. Until the hundred-and-twentieth
    session's review the line said so of a rename no fsync had followed. ``through_a_link``: --output a symbolic link
    into store/, an earlier run's map there: the rename is over the link's target (files.written_through), so the
    folder synced is store/; the link's own, which saw no rename, was synced until that session's review (r97)."""
    import accelerated_seg.data.io as io
    import accelerated_seg.files as files
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import Terminated

    model, scans = tiny_model_and_scans(tmp_path)
    out = target = tmp_path / "maps" / "seg.nii.gz"
    if through_a_link:
        target = tmp_path / "store" / "seg.nii.gz"
        assert main(["predict", "--model", str(model), "--input", str(scans / "case_000.nii.gz"), "--output",
                     str(target)]) == 0
        out.parent.mkdir()
        out.symlink_to(target)
    renamed, synced, replace, sync_directory = [], [], os.replace, files.sync_directory

    def stopped_after_the_rename(source, destination):
        replace(source, destination)
        if Path(destination) == target:
            renamed.append(destination)
            raise Terminated()

    def noted_sync(folder):
        if renamed:
            synced.append(Path(folder))
        sync_directory(folder)

    monkeypatch.setattr(io.os, "replace", stopped_after_the_rename)
    monkeypatch.setattr(io, "sync_directory", noted_sync)
    monkeypatch.setattr(files, "sync_directory", noted_sync)
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--input", str(scans / "case_000.nii.gz"), "--output",
                 str(out)]) == 143
    assert capsys.readouterr().err.splitlines() == [
        f"predict stopped by SIGTERM: the label map is written whole at {out}; nothing to redo"]
    assert renamed and synced == [target.parent] and out.is_symlink() == through_a_link


def test_a_sigterm_as_predict_input_puts_back_its_stops_says_the_map_is_written(tmp_path):
    """A SIGTERM as a one-process ``predict --input`` puts SIGUSR1's default back, its map written and said: the line
    says so, 143. Until the hundred-and-twentieth session it said "the same command predicts the case"."""
    model, scans = tiny_model_and_scans(tmp_path)
    out = tmp_path / "seg.nii.gz"
    done = run_python(SIGTERM_AS_SIGUSR1S_STOP_CHANGES.format(when="as_the_stops_are_put_back") +
                      AS_THE_COMMAND_LINE.format(argv=["accelerated-seg", "predict", "--model", str(model), "--input",
                                                       str(scans / "case_000.nii.gz"), "--output", str(out)]))
    assert done.returncode == 143, done.stderr
    assert done.stdout.splitlines()[-1] == f"wrote {out}", done.stdout
    assert done.stderr.splitlines() == [f"predict stopped by SIGTERM: the label map is written whole at {out}; "
                                        f"nothing to redo"], done.stderr


def test_synth_called_from_python_returns_its_stops_status_and_puts_the_handlers_back(tmp_path):
    """``cli.main(["synth", ...])`` called from Python, SIGTERM as its third file is written: it returns 143, as every
    other one-process command returns its stop's status, the line said once, each case file whole, the marker left
    for the same command, SIGTERM's and SIGUSR1's defaults back. It raised SystemExit(143) until the
    hundred-and-twentieth session."""
    out = tmp_path / "phantoms"
    code = SIGNALLED_AT_SYNTHS_THIRD_FILE.format(signum=int(signal.SIGTERM)) + """
import json, signal
from accelerated_seg import cli
try:
    ended = cli.main({argv!r})
except SystemExit as stop:
    ended = f"SystemExit({{stop.code}})"
print(json.dumps([ended, [signal.getsignal(s) is signal.SIG_DFL for s in (signal.SIGTERM, signal.SIGUSR1)]]))
"""
    done = run_python(code.format(argv=["synth", str(out), "--cases", "3", "--validation", "1"]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [143, [True, True]], done.stdout
    assert done.stderr.splitlines() == [
        f"synth stopped by SIGTERM: {out} holds part of the phantoms and no dataset.json yet (written last; every case "
        f"file there is whole); the same command finishes them"], done.stderr
    assert [path.name for path in sorted((out / "imagesTr").iterdir()) + sorted((out / "labelsTr").iterdir())] == [
        "case_000.nii.gz"] * 2
    assert (out / ".phantoms_being_written").exists() and not (out / "dataset.json").exists()


@pytest.mark.parametrize("window", ["as its wrote line is said", "once dataset.json is written"])
def test_synth_stopped_once_its_phantoms_are_written_says_so(window, tmp_path, monkeypatch, capsys):
    """synth stopped once its phantoms are written: as its wrote line is said (it said nothing until the
    hundred-and-twentieth session, the interrupt outside its line's try), or with dataset.json in place and its marker
    not yet removed (it said "no dataset.json yet")."""
    import accelerated_seg.data.synthetic as synthetic
    from accelerated_seg import cli
    from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated

    out = tmp_path / "phantoms"
    if window == "as its wrote line is said":
        _stopped_at_the_line(monkeypatch, cli, lambda line: line.startswith("wrote "), Terminated)
        status, said = 143, (f"synth stopped by SIGTERM: {out} holds the phantoms whole, their dataset.json written "
                             f"last; nothing to redo")
    else:
        _stopped_at(monkeypatch, synthetic, "write_text_atomically", 1, StoppedBySIGUSR1)
        status, said = 138, (f"synth stopped by SIGUSR1: {out} holds phantoms, every case file there whole, and a "
                             f"dataset.json, but the write is not finished (.phantoms_being_written is still there); "
                             f"the same command finishes them")
    assert cli.main(["synth", str(out), "--cases", "2", "--validation", "1"]) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert (out / "dataset.json").is_file()
    monkeypatch.undo()
    assert cli.main(["synth", str(out), "--cases", "2", "--validation", "1"]) == 0
    assert not (out / ".phantoms_being_written").exists()


@pytest.mark.parametrize("window", ["before the export began", "once the weights are written",
                                    "as its exported line is said"])
def test_export_called_from_python_returns_its_stops_status_said_once(window, tiny_config, tmp_path, monkeypatch,
                                                                       capsys):
    """``cli.main(["export", ...])`` called from Python returns its stop's status, as every other one-process command
    does, and says its line once, wherever the stop came. Until the hundred-and-twentieth session it raised
    SystemExit(130/143/138) during the export (``exit_on_user_error`` made the stop one), and said nothing of a stop
    before the export began (its checks' imports) or as its exported line was said."""
    import accelerated_seg.exported_model as exported_model
    import accelerated_seg.model_folders as model_folders
    from accelerated_seg import cli
    from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated
    from accelerated_seg.train import train

    run, output = tmp_path / "run", tmp_path / "model"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    nothing_written = f"nothing written to {output} (an export is written whole or not at all); the same command " \
                      f"exports it"
    if window == "before the export began":
        _stopped_at(monkeypatch, model_folders, "checkpoint_folder", 1, Terminated, after=False)
        status, said = 143, f"export stopped by SIGTERM: {nothing_written}"
    elif window == "once the weights are written":
        _stopped_at(monkeypatch, exported_model, "with_the_usual_mode", 1, StoppedBySIGUSR1)
        status, said = 138, f"export stopped by SIGUSR1: {nothing_written}"
    else:
        _stopped_at_the_line(monkeypatch, cli, lambda line: line.startswith("exported "))
        status, said = 130, f"export interrupted: the export in {output} is written whole"
    capsys.readouterr()
    assert cli.main(["export", str(run), "--output", str(output)]) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert sorted(path.name for path in tmp_path.iterdir()) == (["model", "run"] if status == 130 else ["run"])
    assert all(signal.getsignal(s) is signal.SIG_DFL for s in (signal.SIGTERM, signal.SIGUSR1))


def test_an_export_stopped_before_it_began_never_calls_an_earlier_export_its_own(tiny_config, tmp_path, monkeypatch,
                                                                                  capsys):
    """An export stopped in its checks, before it began, to an ``--output`` that an earlier export in the same process
    wrote, says nothing was written: until the hundred-and-twentieth session's review it said "the export in <output>
    is written whole" (the export's modules imported by the earlier call and the earlier export whole), of an export
    the command never made and would have refused (its --output in the way)."""
    import accelerated_seg.model_folders as model_folders
    from accelerated_seg import cli
    from accelerated_seg.sigterm import Terminated
    from accelerated_seg.train import train

    run, output = tmp_path / "run", tmp_path / "model"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    assert cli.main(["export", str(run), "--output", str(output)]) == 0
    _stopped_at(monkeypatch, model_folders, "checkpoint_folder", 1, Terminated, after=False)
    capsys.readouterr()
    assert cli.main(["export", str(run), "--output", str(output)]) == 143
    assert capsys.readouterr().err.splitlines() == [
        f"export stopped by SIGTERM: nothing written to {output} (an export is written whole or not at all); the same "
        f"command exports it"]


#: Python run before ``cli.main(ARGV)`` is called: ``{signum}`` sent to this process as the training loop begins.
SIGNALLED_AS_THE_LOOP_BEGINS = """
import json, os, signal, sys
import accelerated_seg.train as train_module
looped = train_module.run_loop
def signalled_then_looped(*args, **kwargs):
    os.kill(os.getpid(), {signum})
    return looped(*args, **kwargs)
train_module.run_loop = signalled_then_looped
from accelerated_seg import cli
try:
    ended = cli.main({argv!r})
except SystemExit as stop:
    ended = f"SystemExit({{stop.code}})"
print(json.dumps([ended, signal.getsignal(signal.SIGINT) is signal.default_int_handler,
                  [signal.getsignal(s) is signal.SIG_DFL for s in (signal.SIGTERM, signal.SIGUSR1)]]))
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_train_called_from_python_returns_its_stops_status(signum, tiny_dataset, tmp_path):
    """``cli.main(["train", ...])`` called from Python, stopped as its loop begins: Ctrl-C returns 130, its line said
    once (it raised SystemExit(130) until the hundred-and-twentieth session); SIGTERM is a preemption, the state saved
    and 0 returned, so a scheduler requeues the job (the documented choice, as on the command line). The handlers are
    put back as found."""
    out = tmp_path / "run"
    done = run_python(SIGNALLED_AS_THE_LOOP_BEGINS.format(signum=int(signum), argv=[
        "train", *tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=0)]))
    assert done.returncode == 0, done.stderr
    ended, int_handler_back, defaults_back = json.loads(done.stdout.splitlines()[-1])
    assert int_handler_back and defaults_back == [True, True], done.stdout
    if signum == signal.SIGINT:
        assert ended == 130, done.stdout
        said = [line for line in (done.stdout + done.stderr).splitlines() if "interrupted" in line]
        assert said == ["interrupted (Ctrl-C) after step 0; no checkpoint was saved yet (train.save_every), so a new "
                        "run starts over"], done.stdout + done.stderr
    else:
        assert ended == 0, done.stdout
        assert "preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 1" in done.stdout, done.stdout


def evaluated_folders(tiny_dataset, tmp_path: Path) -> tuple[list[str], Path]:
    """evaluate's command over the tiny dataset's labels, copied as predictions (each case scored as perfect), and its
    output folder."""
    labels = tiny_dataset.parent / "labelsTr"
    predictions = Path(shutil.copytree(labels, tmp_path / "predictions"))
    output = tmp_path / "evaluation"
    return ["evaluate", str(predictions), str(labels), "--output", str(output)], output


@pytest.mark.parametrize("signum, status, stopped", [(signal.SIGTERM, 143, "stopped by SIGTERM"),
                                                     (signal.SIGINT, 130, "interrupted")])
def test_a_stop_as_evaluate_imports_its_modules_says_nothing_was_written(signum, status, stopped, tiny_dataset,
                                                                         tmp_path):
    """evaluate takes its stops over before its imports (nibabel, evaluate.py: 0.3-1 s here), which were outside its
    line's try: a stop there ended it with the signal's status, saying nothing, until the hundred-and-twenty-first
    session. Now its line, of its output folder."""
    command, output = evaluated_folders(tiny_dataset, tmp_path)
    done = signalled_at_the_import("accelerated_seg.evaluate", signum, AS_THE_COMMAND_LINE,
                                   argv=["accelerated-seg", *command])
    assert done.returncode == status, done.stderr
    assert done.stderr.splitlines() == [
        f"evaluate {stopped}: nothing written (both files are written together at the end; an earlier evaluation in "
        f"{output} stays as it was)"], done.stderr
    assert not output.exists()


@pytest.mark.parametrize("window", ["raised as metrics.csv's rename returns", "raised as metrics.csv's rename "
                                    "returns, an earlier evaluation there", "both in place, the folder being synced",
                                    "as its last line is said"])
def test_a_stopped_evaluate_says_what_its_output_folder_holds(window, tiny_dataset, tmp_path, monkeypatch, capsys):
    """evaluate stopped once a file of its own is in place: as the folder is synced, or as its last line is said; or
    interrupted as metrics.csv's rename returns, before summary.json's. A signal's stop cannot land between the two
    renames since the hundred-and-twenty-first session's review (stops_held holds it: tests/test_stops_held.py), and
    a kill there says nothing; the interrupt raised from ``os.replace`` here, by no handler, still tests the line of
    one file in place (its words, and its advice: the same command, with --overwrite where no summary.json was
    there), and that the staged summary.json is removed where the renames end half way. Until the
    hundred-and-twenty-first session the first two said "nothing written", and the last ended it saying nothing, 130.
    Each line's advice is followed: the command it names writes both files."""
    import accelerated_seg.files as files
    from accelerated_seg import evaluate_command
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated

    command, output = evaluated_folders(tiny_dataset, tmp_path)
    whole = f"its evaluation is written whole, metrics.csv and summary.json in {output} (every score is there); " \
            f"nothing to redo"
    again = command
    if window.startswith("raised as metrics.csv's rename returns"):
        if window.endswith("there"):
            assert main(command) == 0
            said, again = "(still holds an earlier evaluation's), so the two do not belong together: the same " \
                          "command writes both again", command
        else:
            said, again = "(not there), so the two do not belong together: the same command with --overwrite " \
                          "writes both again", [*command, "--overwrite"]
        _stopped_at(monkeypatch, files.os, "replace", 1, Terminated)
        status, said = 143, f"evaluate stopped by SIGTERM: metrics.csv is written whole in {output}, but not " \
                            f"summary.json {said}"
    elif window == "both in place, the folder being synced":
        _stopped_at(monkeypatch, files, "sync_directory", 1, StoppedBySIGUSR1)
        status, said = 138, f"evaluate stopped by SIGUSR1: {whole}"
    else:
        _stopped_at_the_line(monkeypatch, evaluate_command, lambda line: " case(s), mean Dice " in line)
        status, said = 130, f"evaluate interrupted: {whole}"
    capsys.readouterr()
    assert main(command) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert not [path for path in output.iterdir() if path.name.startswith(".")]  # nothing hidden left
    monkeypatch.undo()
    if again is not command:  # metrics.csv without a summary.json: an evaluation whose settings are not recorded
        assert main(command) == 2
    assert main(again) == 0
    assert sorted(path.name for path in output.iterdir()) == ["metrics.csv", "summary.json"]


def test_synth_stopped_in_its_import_over_an_earlier_unfinished_folder_says_so(tmp_path):
    """synth stopped as it imports its generator (numpy, nibabel), into a folder an earlier synth left unfinished (its
    marker there, no dataset.json): it said "before it wrote anything into <folder>" alone until the
    hundred-and-twenty-first session, of a folder whose files are not whole phantoms. Now the line names them and what
    to do, and the same command finishes them."""
    from accelerated_seg.cli import main

    out = tmp_path / "phantoms"
    argv = ["synth", str(out), "--cases", "2", "--validation", "1"]
    done = run_python(SIGNALLED_AT_SYNTHS_THIRD_FILE.format(signum=int(signal.SIGTERM)) + "import sys\n"
                      + AS_THE_COMMAND_LINE.format(argv=["accelerated-seg", *argv]))
    assert done.returncode == 143 and (out / ".phantoms_being_written").exists(), done.stderr
    done = signalled_at_the_import("accelerated_seg.data.synthetic", signal.SIGTERM, AS_THE_COMMAND_LINE,
                                   argv=["accelerated-seg", *argv])
    assert done.returncode == 143, done.stderr
    assert done.stderr.splitlines() == [
        f"synth stopped by SIGTERM before it wrote anything into {out}, which holds an earlier synth's unfinished "
        f"phantoms (.phantoms_being_written is there; every case file there is whole): the same command finishes "
        f"them"], done.stderr
    assert main(argv) == 0
    assert (out / "dataset.json").is_file() and not (out / ".phantoms_being_written").exists()


@pytest.mark.parametrize("window", ["before its file is written", "as its wrote line is said"])
def test_a_stopped_plan_json_says_whether_its_file_is_written(window, tmp_path, monkeypatch, capsys):
    """``plan --json`` writes its figures to a file (whole or not at all): stopped, it said nothing until the
    hundred-and-twenty-first session. Without --json it writes nothing, and a stop says nothing, as check's and
    cache's listing's: their output is what they printed."""
    from accelerated_seg import plan, plan_command
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import Terminated

    output = tmp_path / "plan.json"
    command = ["plan", "--model", "unet", "--patch", "32", "32", "32", "--json", str(output)]
    if window == "before its file is written":
        _stopped_at(monkeypatch, plan, "propose", 1, Terminated)
        status, said, files = 143, (f"plan stopped by SIGTERM: nothing written to {output} (written whole or not at "
                                    f"all; an earlier file there stays as it was); the same command writes it"), []
    else:
        _stopped_at_the_line(monkeypatch, plan_command, lambda line: line.startswith("wrote "))
        status, said, files = 130, f"plan interrupted: {output} is written whole; nothing to redo", ["plan.json"]
    capsys.readouterr()
    assert main(command) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert sorted(path.name for path in tmp_path.iterdir()) == files


@pytest.mark.parametrize("window", ["before its result is written", "as its wrote line is said"])
def test_a_stopped_benchmark_predict_says_whether_its_result_is_written(window, tmp_path, monkeypatch, capsys):
    """``benchmark predict`` writes its result once, at its end (whole or not at all): stopped, it said nothing until
    the hundred-and-twenty-first session, as ``benchmark data`` and ``infer`` (benchmark_stop.py). The measurement
    is stood in for by a result of one field: the stop's line is what is checked."""
    import accelerated_seg.benchmark_predict as benchmark_predict
    from accelerated_seg import benchmark_command
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import Terminated

    model, _ = tiny_model_and_scans(tmp_path)
    output = tmp_path / "predict.json"
    monkeypatch.setattr(benchmark_predict, "benchmark_predict", lambda *args, **kwargs: {"device": "cpu"})
    if window == "before its result is written":
        _stopped_at(monkeypatch, benchmark_predict, "benchmark_predict", 1, Terminated, after=False)
        status, said = 143, (f"benchmark predict stopped by SIGTERM: nothing written to {output} (its result is "
                             f"written whole at its end, or not at all; an earlier result there stays as it was); the "
                             f"same command measures again")
    else:
        _stopped_at_the_line(monkeypatch, benchmark_command, lambda line: line.startswith("wrote "))
        status, said = 130, f"benchmark predict interrupted: its result is written whole at {output}; nothing to redo"
    capsys.readouterr()
    assert main(["benchmark", "predict", "--model", str(model), "--output", str(output)]) == status
    assert capsys.readouterr().err.splitlines() == [said]
    assert output.is_file() == (status == 130)


def test_a_stopped_benchmark_without_output_tells_its_own_file_by_what_this_call_wrote(tmp_path, monkeypatch, capsys):
    """Without --output a benchmark's result goes to a file of its own under benchmarks/results/, told whole at a stop
    by the files this process claimed (``benchmark.claimed_results``), no test's until the hundred-and-twenty-first
    session's review. A second call in the same process (cli.main from Python) is given the first's claim again: its
    stop before its write says nothing written, not the first's result as its own, and the first's stays."""
    import accelerated_seg.benchmark as benchmark
    from accelerated_seg import benchmark_command
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import Terminated

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(benchmark, "_CLAIMED", {})
    monkeypatch.setattr(benchmark, "benchmark_data", lambda **kwargs: {"stand_in": 1})
    with monkeypatch.context() as stopping:
        _stopped_at_the_line(stopping, benchmark_command, lambda line: line.startswith("wrote "), Terminated)
        assert main(["benchmark", "data"]) == 143
    [own] = (tmp_path / "benchmarks" / "results").iterdir()
    assert capsys.readouterr().err.splitlines() == [
        f"benchmark data stopped by SIGTERM: its result is written whole at {own.relative_to(tmp_path)}; nothing to "
        f"redo"]
    first = own.read_text()
    _stopped_at(monkeypatch, benchmark, "write_result", 1, Terminated, after=False)
    assert main(["benchmark", "data"]) == 143
    assert capsys.readouterr().err.splitlines() == [
        "benchmark data stopped by SIGTERM: nothing written (its result is written whole at its end, or not at all); "
        "the same command measures again"]
    assert [own] == list((tmp_path / "benchmarks" / "results").iterdir()) and own.read_text() == first


@pytest.mark.parametrize("folder", ["a name too long", "the marker alone"])
def test_synth_stopped_before_it_wrote_says_what_its_folder_holds_where_that_is_no_phantom(folder, tmp_path,
                                                                                          monkeypatch, capsys):
    """synth stopped before its write began (its generator's import: the folder read by data/phantom_folder.py alone).
    A folder that cannot be looked into (a name too long here; a folder one may not search alike) ended that stop in
    an OSError traceback, status 1, in the hundred-and-twenty-first session, where it had said "before it wrote
    anything"; one an earlier synth was stopped in before its first case file (the marker and empty imagesTr/ and
    labelsTr/) was said to hold "an earlier synth's unfinished phantoms ... every case file there is whole", of none.
    The same command then writes them."""
    from accelerated_seg import cli
    from accelerated_seg.sigterm import Terminated

    out = tmp_path / ("a" * 300 if folder == "a name too long" else "phantoms")
    if folder == "the marker alone":
        for sub in ("imagesTr", "labelsTr"):
            (out / sub).mkdir(parents=True)
        (out / ".phantoms_being_written").touch()
        said = (f"synth stopped by SIGTERM before it wrote anything into {out}, where an earlier synth was stopped "
                f"before its first case file (.phantoms_being_written is there): the same command writes them")
    else:
        said = f"synth stopped by SIGTERM before it wrote anything into {out}"
    argv = ["synth", str(out), "--cases", "2", "--validation", "1"]
    with monkeypatch.context() as stopping:
        _stopped_at(stopping, cli, "_phantoms_written", 1, Terminated, after=False)
        assert cli.main(argv) == 143
    assert capsys.readouterr().err.splitlines() == [said]
    if folder == "the marker alone":
        assert cli.main(argv) == 0
        assert (out / "dataset.json").is_file() and not (out / ".phantoms_being_written").exists()


@pytest.mark.parametrize("command", ["evaluate", "plan --json", "benchmark data --output"])
def test_a_stop_as_a_command_notes_its_files_says_nothing_was_written(command, tiny_dataset, tmp_path, monkeypatch,
                                                                      capsys):
    """evaluate, plan --json and benchmark note their output files as they begin (written_since.py), which they did
    before their line's try in the hundred-and-twenty-first session: a stop there, in the identity check, ended them
    with the signal's status, nothing said (that session's review). Now it is said: nothing written."""
    from accelerated_seg import written_since
    from accelerated_seg.cli import main
    from accelerated_seg.sigterm import Terminated

    if command == "evaluate":
        argv, output = evaluated_folders(tiny_dataset, tmp_path)
        said = (f"evaluate stopped by SIGTERM: nothing written (both files are written together at the end; an earlier "
                f"evaluation in {output} stays as it was)")
    elif command == "plan --json":
        output = tmp_path / "plan.json"
        argv = ["plan", "--model", "unet", "--patch", "32", "32", "32", "--json", str(output)]
        said = (f"plan stopped by SIGTERM: nothing written to {output} (written whole or not at all; an earlier file "
                f"there stays as it was); the same command writes it")
    else:
        output = tmp_path / "data.json"
        argv = ["benchmark", "data", "--output", str(output)]
        said = (f"benchmark data stopped by SIGTERM: nothing written to {output} (its result is written whole at its "
                f"end, or not at all; an earlier result there stays as it was); the same command measures again")
    _stopped_at(monkeypatch, written_since, "_identity", 1, Terminated, after=False)
    capsys.readouterr()
    assert main(argv) == 143
    assert capsys.readouterr().err.splitlines() == [said]
    assert not output.exists()
