"""A Ctrl-C (or SIGTERM) that lands while nibabel closes a file, inside ``ArrayProxy.__del__``, where Python drops an
exception: ``accelerated-seg check`` went on past it, after an "Exception ignored in" traceback, until the
hundred-and-seventh session (docs/known_issues.md). ``dropped_interrupts`` keeps it and raises it between files."""

import os
import signal
import subprocess
import sys
import weakref
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.dropped_interrupts import between_files, interrupts_kept, raise_a_dropped_interrupt

from conftest import tiny_overrides  # tests/ is on sys.path (rootdir-style test imports)

HERE = Path(__file__).resolve().parent


class _InterruptedAsFinalized:
    """An object whose ``__del__`` raises ``raised``, as a signal's handler does where it lands there."""

    def __init__(self, raised: BaseException):
        self.raised = raised

    def __del__(self):
        raise self.raised


def test_an_interrupt_a_finalizer_drops_is_raised_between_files_without_pythons_traceback(capsys):
    previous = sys.unraisablehook
    with interrupts_kept():
        _InterruptedAsFinalized(KeyboardInterrupt())  # made and dropped at once: its __del__ runs here
        with pytest.raises(KeyboardInterrupt):
            raise_a_dropped_interrupt()
        raise_a_dropped_interrupt()  # raised once: nothing kept now
    assert sys.unraisablehook is previous
    assert "Exception ignored" not in capsys.readouterr().err


def test_one_still_kept_as_the_body_ends_is_raised_there_sigterms_as_itself():
    from accelerated_seg.sigterm import Terminated

    with pytest.raises(Terminated):  # its status is SIGTERM's, 143 (cli.main)
        with interrupts_kept():
            _InterruptedAsFinalized(Terminated("SIGTERM"))


def test_between_files_raises_it_before_the_next_item():
    taken = []
    with pytest.raises(KeyboardInterrupt), interrupts_kept():
        for item in between_files([1, 2, 3]):
            taken.append(item)
            if item == 1:
                _InterruptedAsFinalized(KeyboardInterrupt())
    assert taken == [1]


def test_another_exception_of_a_finalizer_goes_to_the_hook_that_was_there(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_type))
    with interrupts_kept():
        _InterruptedAsFinalized(ValueError("a bug of the finalizer's"))
        raise_a_dropped_interrupt()  # nothing kept: it was no interrupt
    assert seen == [ValueError]
    # outside, nothing is kept: an interrupt dropped there goes to that hook as before
    _InterruptedAsFinalized(KeyboardInterrupt())
    raise_a_dropped_interrupt()
    assert seen == [ValueError, KeyboardInterrupt]


def test_an_interrupt_another_threads_finalizer_drops_is_that_threads_not_raised_on_the_main_thread(monkeypatch):
    """A signal's interrupt lands on the main thread alone: one dropped in a thread (its own code raised it; check's
    threads read files inside the main thread's ``interrupts_kept``) went to the hook that was there before. Until
    the hundred-and-seventh session's review it was kept and raised on the main thread, stopping the command as a
    Ctrl-C would, and nothing printed it."""
    import threading

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_type))
    raised = None
    try:  # caught, not left to pytest, which takes a KeyboardInterrupt for its run's own
        with interrupts_kept():
            worker = threading.Thread(target=lambda: _InterruptedAsFinalized(KeyboardInterrupt()))
            worker.start()
            worker.join()
            raise_a_dropped_interrupt()  # nothing kept: the main thread's own are
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    assert raised is None and seen == [KeyboardInterrupt]


def test_a_hook_left_in_place_by_one_set_inside_keeps_nothing_after_its_block(monkeypatch):
    """Another hook set inside the block, and taken away after it by its owner (its own previous put back), left
    ``interrupts_kept``'s in place: until the hundred-and-seventh session's review it then kept every interrupt a
    finalizer dropped, printed by nothing, and a later loop raised it as a Ctrl-C come then. Now it passes them on."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_type))
    with interrupts_kept():
        ours = sys.unraisablehook
        sys.unraisablehook = print  # another owner's, set inside ...
    assert sys.unraisablehook is print
    sys.unraisablehook = ours  # ... and its previous put back by its owner after the block
    _InterruptedAsFinalized(KeyboardInterrupt())  # dropped later, outside any loop
    assert seen == [KeyboardInterrupt]  # passed on, as Python would print it
    raised = None
    try:  # caught, not left to pytest, which takes a KeyboardInterrupt for its run's own
        with interrupts_kept():  # a later loop: keeps its own, and has none
            raise_a_dropped_interrupt()
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    assert raised is None


def _signalled_in_a_finalizer(signal_name: str, call: int, *command: str) -> subprocess.CompletedProcess:
    """``accelerated-seg COMMAND`` in a process of its own, sent SIG``signal_name`` from inside the ``call``-th
    ``ArrayProxy.__del__`` on its main thread (tests/signalled_in_a_finalizer.py)."""
    return subprocess.run([sys.executable, str(HERE / "signalled_in_a_finalizer.py"), signal_name, str(call),
                           *command], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


@pytest.fixture(scope="module")
def phantoms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phantoms")
    dataset = write_synthetic_dataset(folder / "data", num_cases=4, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    (folder / "in_one_thread.yaml").write_text("data:\n  num_workers: 0\n")
    return dataset, folder / "in_one_thread.yaml"


# call 1: the spacing checks' first header (in every check); call 9, with the cases checked on the main thread: a
# case's file, in the cases' checks
@pytest.mark.parametrize("call, in_one_thread", [(1, False), (9, True)])
def test_check_stops_on_a_ctrl_c_that_lands_as_nibabel_closes_a_file(phantoms, call, in_one_thread):
    """Until the hundred-and-seventh session check went on to its report, status 0, after "Exception ignored in:
    <function ArrayProxy.__del__ ...>" and a traceback ending KeyboardInterrupt (20 of 20 such Ctrl-Cs dropped:
    benchmarks/results/ctrl_c_in_a_del_kept_2026-12-05/). It says nothing on Ctrl-C (docs/stopping.md), status 130."""
    dataset, config = phantoms
    done = _signalled_in_a_finalizer("INT", call, "check", str(dataset), *(["--config", str(config)]
                                                                         if in_one_thread else []))
    assert done.returncode == 130, done.stdout + done.stderr
    assert "case(s)" not in done.stdout  # no report: it stopped
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_check_stops_on_a_sigterm_that_lands_as_nibabel_closes_a_file(phantoms):
    """SIGTERM's handler acts on the first alone (sigterm.raised_once): dropped, no SIGTERM stopped check after it."""
    done = _signalled_in_a_finalizer("TERM", 1, "check", str(phantoms[0]))
    assert done.returncode == 143, done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr and "case(s)" not in done.stdout


def test_evaluate_stops_on_a_ctrl_c_that_lands_as_nibabel_closes_a_file_and_says_so(tmp_path):
    """As its grids are checked from the headers: it went on and wrote its evaluation until the hundred-and-seventh
    session."""
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    for folder in ("predictions", "labels"):
        for case in ("a", "b", "c"):
            (tmp_path / folder).mkdir(exist_ok=True)
            label = np.zeros((8, 8, 8), np.uint8)
            label[2:5, 2:5, 2:5] = 1
            nib.save(nib.Nifti1Image(label, affine), tmp_path / folder / f"{case}.nii.gz")
    done = _signalled_in_a_finalizer("INT", 2, "evaluate", str(tmp_path / "predictions"), str(tmp_path / "labels"),
                                     "--num-classes", "2")
    assert done.returncode == 130, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"evaluate interrupted: nothing written (both files are written together at the end; an earlier evaluation "
        f"in {tmp_path / 'predictions' / 'evaluation'} stays as it was)"), done.stderr
    assert "Exception ignored" not in done.stderr
    assert not (tmp_path / "predictions" / "evaluation").exists()


def test_predicts_grouping_of_channels_raises_an_interrupt_dropped_as_a_header_is_closed(tmp_path, monkeypatch):
    """The channels of 4D scans told apart by each file's header (group_cases): a Ctrl-C dropped as one header's file
    is closed stops the grouping before the next file."""
    import accelerated_seg.inference_inputs as inference_inputs  # where group_cases looks the header read up

    for case in ("a", "b"):
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4, 2), np.float32), np.eye(4)), tmp_path / f"{case}.nii.gz")
    read = []

    def header_read_then_interrupted_as_it_closes(path):
        read.append(path.name)
        _InterruptedAsFinalized(KeyboardInterrupt())
        return 2

    monkeypatch.setattr(inference_inputs, "_volumes_in_header", header_read_then_interrupted_as_it_closes)
    with pytest.raises(KeyboardInterrupt):
        inference_inputs.collect_cases([str(tmp_path)], {"in_channels": 2})
    assert read == ["a.nii.gz"]


def test_the_target_spacing_raises_an_interrupt_dropped_as_a_header_is_closed(tmp_path, monkeypatch):
    """Training's and check's spacing checks read every case's header, on the main thread."""
    import accelerated_seg.data.spacing as spacing
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_manifest

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=3, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    loading = spacing.nib.load

    def loaded_then_interrupted_as_one_closes(path, *args, **kwargs):
        _InterruptedAsFinalized(KeyboardInterrupt())
        return loading(path, *args, **kwargs)

    data = DataConfig(dataset=str(dataset))
    manifest = load_manifest(data, tmp_path)
    monkeypatch.setattr(spacing.nib, "load", loaded_then_interrupted_as_one_closes)
    with pytest.raises(KeyboardInterrupt):
        spacing.target_spacing_and_unit(data, manifest)
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_cache_build_on_one_thread_raises_an_interrupt_dropped_as_a_file_is_closed(tmp_path, monkeypatch):
    """Training's cache build (and accelerated-seg cache) with data.num_workers 0 reads every case on the main
    thread: a Ctrl-C dropped as MONAI's reader closed a file let the build, and the training after it, go on to the
    end, status 0 (4 of 4 such Ctrl-Cs in a 1-process train, in the hundred-and-seventh session's review)."""
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.preprocess import PreprocessSettings

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=3, num_validation=0, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    manifest = load_msd(dataset)
    cache = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)),
                              manifest.num_classes)
    built, building = [], PreprocessedCache._build_case

    def built_then_interrupted_as_a_file_closes(self, case):
        building(self, case)
        built.append(case.id)
        _InterruptedAsFinalized(KeyboardInterrupt())

    monkeypatch.setattr(PreprocessedCache, "_build_case", built_then_interrupted_as_a_file_closes)
    raised = None
    try:  # caught, not left to pytest, which takes a KeyboardInterrupt for its run's own
        cache.build(manifest.training, workers=0)
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    assert raised is not None and len(built) == 1


def _dropped_in_a_weakref_callback(raised: BaseException) -> None:
    """``raised`` raised inside a weakref callback, as a signal's handler raises it where a Ctrl-C lands while
    importlib's module-lock callback (``_get_module_lock.<locals>.cb``) runs as an import ends: Python hands it to
    ``sys.unraisablehook``, whose default prints "Exception ignored in: ..." and goes on."""
    class Finalized:
        pass

    def callback(_reference):
        raise raised

    finalized = Finalized()
    reference = weakref.ref(finalized, callback)
    del finalized  # its callback runs here
    assert reference() is None


def test_a_trainings_start_ends_on_a_ctrl_c_that_lands_in_an_imports_callback_saying_so(tiny_dataset, tmp_path,
                                                                                        monkeypatch, capsys):
    """`accelerated-seg train` interrupted as it checks its settings, the interrupt landing in a weakref callback
    (tests/test_preemption.py's Ctrl-C to a launch before its ranks met printed one so, in importlib's module-lock
    callback, in a CI run of the hundred-and-twenty-sixth session): it stops before its Accelerator, says its line,
    status 130, no "Exception ignored", nothing written. Until the hundred-and-twenty-seventh session Python printed
    the interrupt and the run went on, trained and exported (status 0): a rank sent SIGINT alone trained on."""
    import accelerated_seg.configured_run as configured_run
    from accelerated_seg import cli

    checking = configured_run._checks_before_anything_is_written

    def checked_after_a_ctrl_c_dropped_in_a_callback(*args, **kwargs):
        _dropped_in_a_weakref_callback(KeyboardInterrupt())
        return checking(*args, **kwargs)

    monkeypatch.setattr(configured_run, "_checks_before_anything_is_written",
                        checked_after_a_ctrl_c_dropped_in_a_callback)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # Python's own, which prints it; not pytest's
    out = tmp_path / "run"
    status = cli.main(["train", *tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=0)])
    said = capsys.readouterr()
    assert status == 130, said.out[-2000:] + said.err[-2000:]
    assert ("interrupted (Ctrl-C) before training began; nothing was saved: start the run again"
            in said.out.splitlines()), said.out[-2000:]
    assert "Exception ignored" not in said.err and not out.exists(), said.err[-2000:]


def test_the_rendezvous_raises_an_interrupt_dropped_on_the_way_before_it_waits():
    """Kept to the end of training's setup, a Ctrl-C dropped in a rank's checks went into the rendezvous with it and
    waited there for the others to come (a node started minutes later: minutes); the rendezvous raises it first."""
    from accelerated_seg.interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous

    waited, raised = [], None
    try:  # caught, not left to pytest, which takes a KeyboardInterrupt for its run's own
        with interrupts_kept():
            _dropped_in_a_weakref_callback(KeyboardInterrupt())
            with ending_on_an_interrupt_in_the_rendezvous(lambda: None):
                waited.append("the process group made")
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    assert raised is not None and waited == []


def test_an_inner_block_raises_what_the_outer_one_kept_as_it_ends():
    """A check's loop inside training's setup (both inside ``interrupts_kept``) raises an interrupt dropped in its
    last file as its block ends, as it does on its own, not at the end of the setup."""
    after = []
    raised = None
    try:  # caught, not left to pytest
        with interrupts_kept():
            with interrupts_kept():
                _InterruptedAsFinalized(KeyboardInterrupt())
            after.append("the rest of the setup")
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    assert raised is not None and after == []


def test_a_launched_predicts_start_ends_on_a_ctrl_c_dropped_in_its_checks_before_its_processes_meet(
        tmp_path, monkeypatch, capsys):
    """A launched predict's checks and its imports of the inference stack (7-15 s on 2 cores), before its processes
    meet: a Ctrl-C dropped there (an import's module-lock callback) is raised before the rendezvous, its line said.
    Until the hundred-and-twenty-seventh session it was printed and lost, and the process went on to predict."""
    import accelerated_seg.inference_distributed as inference_distributed
    from accelerated_seg import predict_command
    from accelerated_seg.cli import build_parser

    met = []

    def checked_after_a_ctrl_c_dropped_in_a_callback(args):
        _dropped_in_a_weakref_callback(KeyboardInterrupt())
        return {}

    monkeypatch.setattr(predict_command, "launched_processes", lambda: 2)
    monkeypatch.setattr(predict_command, "_checked_options", checked_after_a_ctrl_c_dropped_in_a_callback)
    monkeypatch.setattr(inference_distributed, "process_state", lambda: met.append("the processes met"))
    monkeypatch.setattr(predict_command, "_predict_distributed", lambda *args: 0)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # Python's own, which prints it; not pytest's
    args = build_parser().parse_args(["predict", "--model", str(tmp_path / "model"), str(tmp_path / "scan.nii.gz"),
                                      "--output", str(tmp_path / "out")])
    raised = None
    try:  # caught, not left to pytest
        predict_command.run(args, [])
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    said = capsys.readouterr().err
    assert raised is not None and met == [], said
    assert "predict interrupted before the launch's processes met; nothing was written" in said
    assert "Exception ignored" not in said


@pytest.mark.distributed
@pytest.mark.parametrize("signal_to", ["group", "rank1"])
def test_a_launched_ranks_ctrl_c_dropped_in_a_callback_before_the_processes_meet_stops_the_launch_saying_so(
        tiny_dataset, tmp_path, signal_to):
    """2 CPU processes of `accelerated-seg train`, rank 0 waiting in the rendezvous, rank 1 checking its settings: the
    SIGINT that reaches rank 1 (the agent's, sent on from a terminal's Ctrl-C to the launcher's process group; or
    `kill -INT` of rank 1 alone) handled inside a weakref callback, as in the CI run of the hundred-and-twenty-sixth
    session (importlib's module-lock callback). Before the hundred-and-twenty-seventh session's h146, rank 1 printed
    "Exception ignored in: ..." and went on: a terminal's Ctrl-C still ended the launch, by rank 0's held interrupt
    once rank 1 had come to the rendezvous (that CI run's failure, 3 of 3 in the review's probe); rank 1 signalled
    alone trained, exported and the launch ended 0. Now rank 1 raises it before the rendezvous."""
    from test_preemption import _MAKING_THE_ACCELERATOR, _train_interrupted_before_the_processes_meet

    out = tmp_path / "run"
    where = {"OTHERS_AT": _MAKING_THE_ACCELERATOR, "AND_RANK0_WAITING": "1", "SIGNAL_FROM_A_CALLBACK": "1",
             **({"SIGNAL_TO": "group"} if signal_to == "group" else {})}
    launch, output, line, after = _train_interrupted_before_the_processes_meet(tiny_dataset, out, tmp_path, where)
    assert after < 15 and "Exception ignored" not in output and not out.exists(), f"{after:.1f} s\n{output[-3000:]}"
    if signal_to == "group":  # the launcher signalled too: its 130, no table, no traceback
        assert launch.returncode == 130 and "exitcode" not in output and "Traceback" not in output, output[-3000:]
    else:  # rank 1 alone ended 130, the agent's SIGTERM ended rank 0: the launcher's table, its one traceback
        assert launch.returncode == 1 and "exitcode  : 130" in output and "exitcode  : -15" in output, output[-3000:]
        assert output.count("Traceback") == 1 and f"traceback : {line}" in output, output[-3000:]


def test_the_rendezvous_raises_an_interrupt_dropped_as_it_marks_itself_coming_before_it_waits(monkeypatch):
    """A launch's processes yet to meet: one dropped after the rendezvous' first look and before SIGINT is held there
    (as the rank marks itself coming in the launch's store) was kept through the meeting, the rank waiting for the
    others however late they came, and raised only as the caller's block ended, after it (a launched predict then
    said "before the launch's processes met" of processes that had met); now it is raised before the wait too (review
    r127)."""
    import accelerated_seg.interrupt_in_the_rendezvous as rendezvous

    class Marks:
        def __init__(self):
            self.marked = []

        def coming(self):
            _dropped_in_a_weakref_callback(KeyboardInterrupt())
            self.marked.append("coming")

        def another_leaving(self):
            return False

        def not_coming(self):
            self.marked.append("not coming")

    marks = Marks()
    monkeypatch.setattr(rendezvous, "processes_yet_to_meet", lambda: True)
    monkeypatch.setattr(rendezvous, "_Marks", lambda: marks)
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's, as a launched rank has; pytest's may differ
    waited, raised = [], None
    try:  # caught, not left to pytest
        with interrupts_kept():
            with rendezvous.ending_on_an_interrupt_in_the_rendezvous(lambda: None):
                waited.append("the process group made")
    except KeyboardInterrupt as interrupt:
        raised = interrupt
    finally:
        signal.signal(signal.SIGINT, handler)
    assert raised is not None and waited == [] and marks.marked == ["coming", "not coming"]
    assert signal.getsignal(signal.SIGINT) is handler
