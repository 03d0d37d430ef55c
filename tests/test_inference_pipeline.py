"""Predicting many cases as a pipeline: the next case is prepared and the previous one finished while
the network runs, outcomes come in order, a failed case stops no other, and the files written are the
same bytes as one case at a time."""

import argparse
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.synthetic import write_synthetic_dataset
import accelerated_seg.inference_cases as inference_cases
import accelerated_seg.inference_pipeline as inference_pipeline
from accelerated_seg.inference import PredictInterrupted, predict_cases
from accelerated_seg.inference_pipeline import one_at_a_time, pipelined
from accelerated_seg.predict_command import _interrupted, _interrupted_by
from accelerated_seg.sigterm import (INTERRUPTS, Terminated, by_sigterm, exit_status, sigterm_as_an_interrupt,
                                     stops_as_an_interrupt)
from signals_sent import sent_until_handled
from test_inference import export  # tests/ is on sys.path, as for conftest

WAIT_S = 10  # a stage waits this long for its neighbour's before the test calls the overlap missing


def test_the_next_item_is_prepared_and_the_previous_finished_while_one_is_computed():
    # Passes only when prepare(2), compute(1) and finish(0) run at one time, on three threads; one
    # after the other, the barrier breaks after WAIT_S and the stage that waited fails its item.
    all_three = threading.Barrier(3, timeout=WAIT_S)

    def prepare(item):
        if item == 2:
            all_three.wait()
        return item

    def compute(item, prepared):
        if item == 1:
            all_three.wait()
        return prepared * 10

    def finish(item, prepared, computed):
        if item == 0:
            all_three.wait()

    assert list(pipelined([0, 1, 2], prepare, compute, finish)) == [(0, None), (1, None), (2, None)]


@pytest.mark.parametrize("runner", [pipelined, one_at_a_time])
@pytest.mark.parametrize("failing_stage", ["prepare", "compute", "finish"])
def test_a_failed_item_is_reported_in_order_and_the_others_complete(runner, failing_stage):
    finished = []

    def stage(name):
        def run(item, *rest):
            if name == failing_stage and item == 1:
                raise ValueError(f"{name} of {item}")
            if name == "finish":
                finished.append((item, rest))
            return item if name == "prepare" else rest[0] * 10 if name == "compute" else None
        return run

    outcomes = list(runner([0, 1, 2], stage("prepare"), stage("compute"), stage("finish")))
    assert [item for item, _ in outcomes] == [0, 1, 2]
    assert [str(error) if error else None for _, error in outcomes] == [None, f"{failing_stage} of 1", None]
    assert [(item, rest) for item, rest in finished if item != 1] == [(0, (0, 0)), (2, (2, 20))]


def test_at_most_one_item_ahead_and_one_behind_are_held():
    held, most = set(), [0]
    lock = threading.Lock()

    def prepare(item):
        with lock:
            held.add(item)
            most[0] = max(most[0], len(held))
        return item

    def finish(item, prepared, computed):
        with lock:
            held.discard(item)

    assert all(error is None for _, error in pipelined(range(12), prepare, lambda item, p: p, finish))
    assert most[0] <= 3 and not held


def test_stopping_early_starts_no_further_item():
    prepared = []

    def prepare(item):
        prepared.append(item)
        return item

    outcomes = pipelined(range(10), prepare, lambda item, p: p, lambda item, p, c: None)
    assert next(outcomes) == (0, None)
    outcomes.close()  # waits for what runs; cancels what has not started
    assert prepared in ([0, 1], [0, 1, 2])


@contextlib.contextmanager
def interrupting_the_main_thread():
    """A function that interrupts the main thread as Ctrl-C does (a SIGINT, whose handler raises KeyboardInterrupt
    there), and returns once that handler has run: called from a stage, the interrupt lands wherever the main thread
    is while the stage runs, and the stage ends only after it."""
    handled = threading.Event()

    def handler(signum, frame):
        if handled.is_set():  # a SIGINT sent again below before the first was handled: still one interrupt
            return
        handled.set()
        raise KeyboardInterrupt

    def interrupt():  # sent again until handled: one can land where it is handled only after this stage ends
        sent_until_handled(lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGINT), handled, WAIT_S)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield interrupt
    finally:
        signal.signal(signal.SIGINT, previous)


def outcomes_until_interrupted(outcomes) -> list:
    said = []
    with pytest.raises(KeyboardInterrupt):
        for outcome in outcomes:
            said.append(outcome)
    return said


def test_an_interrupt_in_the_network_yields_the_item_being_finished_first():
    """Ctrl-C lands on the calling thread, here in item 1's network while item 0 is finished on the finisher's:
    item 0 is finished all the same (leaving waits for it), and was not yielded until the hundredth session."""
    finished = []

    def compute(item, prepared):
        if item == 1:
            raise KeyboardInterrupt
        return prepared

    outcomes = pipelined([0, 1, 2], lambda item: item, compute, lambda item, p, c: finished.append(item))
    assert outcomes_until_interrupted(outcomes) == [(0, None)]
    assert finished == [0]


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("runner", [pipelined, one_at_a_time])
def test_asked_not_to_an_interrupted_pipeline_finishes_the_item_handed_on_and_yields_none(runner):
    """``yield_after_an_interrupt=False`` (predict --split windows, whose handling of each case is a collective):
    the item being finished when the interrupt comes still ends before it is raised, and is not yielded."""
    finished = []
    with interrupting_the_main_thread() as interrupt:
        def finish(item, prepared, computed):
            if item == 0:
                interrupt()
            finished.append(item)

        outcomes = runner([0, 1, 2], lambda item: item, lambda item, p: p, finish, yield_after_an_interrupt=False)
        assert outcomes_until_interrupted(outcomes) == []
    assert finished == [0]


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("runner", [pipelined, one_at_a_time])
def test_an_interrupt_while_an_item_is_finished_yields_it_first(runner):
    """An interrupt that comes while item 0 is finished (its file being written) is raised after item 0 is yielded,
    and no item is begun after it. one_at_a_time finished on the calling thread, which the interrupt cut short
    (its label map written, its probabilities not, nothing said) until the hundredth session."""
    begun, finished = [], []
    with interrupting_the_main_thread() as interrupt:
        def finish(item, prepared, computed):
            if item == 0:
                interrupt()
            finished.append(item)

        outcomes = runner([0, 1, 2], lambda item: begun.append(item) or item, lambda item, p: p, finish)
        assert outcomes_until_interrupted(outcomes) == [(0, None)]
    assert finished == [0] and begun in ([0], [0, 1], [0, 1, 2])  # pipelined prepares ahead, and finishes no more


@pytest.mark.parametrize("runner", [pipelined, one_at_a_time])
def test_an_interrupt_in_handing_an_item_on_yields_it_once_it_is_finished(runner, monkeypatch):
    """An interrupt that lands in the hand-over to the finisher once the item is queued (submit takes locks, where
    Python runs the handler) leaves the item to be finished: it is yielded. one_at_a_time handed it on outside its
    handling of an interrupt, so the item was finished (leaving waits for it) and not yielded (hundredth session's
    review)."""
    class InterruptedOnceHanded(ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            handed = super().submit(fn, *args, **kwargs)
            if self._thread_name_prefix.startswith("finish") and fn is not int:  # not the thread's start
                raise KeyboardInterrupt
            return handed

    monkeypatch.setattr(inference_pipeline, "ThreadPoolExecutor", InterruptedOnceHanded)
    finished = []
    outcomes = runner([0, 1, 2], lambda item: item, lambda item, p: p, lambda item, p, c: finished.append(item))
    assert outcomes_until_interrupted(outcomes) == [(0, None)]
    assert finished == [0]


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("sequential", [False, True])
def test_an_interrupted_predict_says_each_case_it_wrote_and_how_many(scans, tmp_path, monkeypatch, capsys,
                                                                     sequential):
    """Hundredth session's walk-through: Ctrl-C as the first case was written wrote its label map whole, and said no
    "wrote" line of it (pipelined: the interrupt came in the next case's network; --sequential: in the writing).
    Every case whose file is there is said, and the last line counts them."""
    model, out = export(tmp_path / "model"), tmp_path / "pred"
    with interrupting_the_main_thread() as interrupt:
        interrupt_after_each_write(monkeypatch, interrupt)
        given = ["--sequential"] if sequential else []
        assert main(["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(out), *given]) == 130
    said = capsys.readouterr()
    assert [line for line in said.out.splitlines() if ": wrote " in line] == [
        f"[1/6] case_000: wrote {out / 'case_000.nii.gz'}"]
    assert [p.name for p in out.iterdir() if "tmp" in p.name or not p.name.startswith(".")] == ["case_000.nii.gz"]
    assert ("predict interrupted: every file it wrote is whole (1 of 6 case(s), each said above); the same command "
            "with --continue predicts the 5 not yet written") in said.err


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("runner", [pipelined, one_at_a_time])
def test_a_caller_that_stops_at_the_item_finished_after_an_interrupt_gets_the_interrupt(runner):
    """The item finished as the interrupt came carries an error its caller raises (closing the generator): closing
    raises the interrupt, which a quiet GeneratorExit lost until the hundredth session."""
    with interrupting_the_main_thread() as interrupt:
        def finish(item, prepared, computed):
            interrupt()
            raise OSError(28, "No space left on device")

        outcomes = runner([0, 1, 2], lambda item: item, lambda item, p: p, finish)
        item, error = next(outcomes)
        assert (item, type(error)) == (0, OSError)
        with pytest.raises(KeyboardInterrupt):
            outcomes.close()


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("sequential", [False, True])
def test_an_interrupted_predict_says_the_cases_that_failed_before_it(scans, tmp_path, monkeypatch, capsys,
                                                                     sequential):
    """A case with unusable voxels before the interrupt is said in its message, as the end of a run says it (it was
    said nowhere until the hundredth session); --continue's count still counts it as not written."""
    model, out = export(tmp_path / "model"), tmp_path / "pred"
    inputs = broken_first(scans, tmp_path / "inputs")
    with interrupting_the_main_thread() as interrupt:
        interrupt_after_each_write(monkeypatch, interrupt)
        given = ["--sequential"] if sequential else []
        assert main(["predict", "--model", str(model), str(inputs), "--output", str(out), *given]) == 130
    said = capsys.readouterr().err
    assert ("predict interrupted: every file it wrote is whole (1 of 3 case(s), each said above); the same command "
            "with --continue predicts the 2 not yet written\n1 case(s) could not be segmented:\ncase case_000: ") in said
    assert "case_000.nii.gz: 1 non-finite voxel" in said


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="a SIGINT to the main thread from another")
@pytest.mark.parametrize("sequential", [False, True])
def test_an_interrupt_as_a_case_fails_to_be_written_stays_an_interrupt_and_says_why(scans, tmp_path, monkeypatch,
                                                                                      capsys, sequential):
    """A writer's error (a full disk) in the case finished after the interrupt was raised in its place until the
    hundredth session (exit 1); now the interrupt stops predict (130) and its message says that case's error."""
    model, out = export(tmp_path / "model"), tmp_path / "pred"
    with interrupting_the_main_thread() as interrupt:
        def interrupted_then_failed(*args, **kwargs):
            interrupt()
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(inference_cases, "write_case", interrupted_then_failed)
        given = ["--sequential"] if sequential else []
        assert main(["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(out), *given]) == 130
    said = capsys.readouterr().err
    assert ("predict interrupted before any of its 6 case(s) was written: no file is half-written; the same command "
            "with --continue predicts them\n1 case(s) could not be segmented:\n"
            "case case_000: OSError: [Errno 28] No space left on device") in said


def interrupt_after_each_write(monkeypatch, interrupt):
    """predict's writing of each case interrupts the main thread once the case is written."""
    write_case = inference_cases.write_case

    def written_then_interrupted(*args, **kwargs):
        written = write_case(*args, **kwargs)
        interrupt()
        return written

    monkeypatch.setattr(inference_cases, "write_case", written_then_interrupted)


def broken_first(scans, inputs):
    """Three cases of ``scans``, the first with a NaN voxel: it fails on its voxels, the others are written."""
    inputs.mkdir()
    for index in (1, 2):
        shutil.copy(scans / "imagesTr" / f"case_{index:03d}.nii.gz", inputs)
    image = nib.load(scans / "imagesTr" / "case_000.nii.gz")
    values = image.get_fdata().astype(np.float32)
    values[2, 2, 2] = np.nan
    nib.save(nib.Nifti1Image(values, image.affine), inputs / "case_000.nii.gz")
    return inputs


def test_the_interrupted_line_counts_the_cases_written_of_those_to_predict():
    continued = argparse.Namespace(input=None, continue_prediction=True)
    assert _interrupted(continued, (0, 4)) == ("predict interrupted before any of its 4 case(s) was written: no file "
                                               "is half-written; the same command predicts them")
    assert _interrupted(continued, (3, 4)) == ("predict interrupted: every file it wrote is whole (3 of 4 case(s), "
                                               "each said above); the same command predicts the 1 not yet written")
    assert _interrupted(continued, (4, 4)) == "predict interrupted: all 4 case(s) are written, each file whole"


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
@pytest.mark.parametrize("sequential", [False, True])
def test_sigterm_stops_predict_as_ctrl_c_does_and_says_so(scans, tmp_path, sequential):
    """A time limit's SIGTERM as the second case is read or segmented: the first, being written, is written whole and
    said, none is begun after, and the last line counts them and names SIGTERM; status 143. Until the
    hundred-and-first session SIGTERM ended predict at once, saying nothing."""
    out = tmp_path / "pred"
    done = predict_run_by("predict_terminated_after_the_first_write.py", scans, out, sequential)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stdout.splitlines() == [f"[1/6] case_000: wrote {out / 'case_000.nii.gz'}"], done.stdout
    assert done.stderr.splitlines()[-1] == (
        "predict stopped by SIGTERM: every file it wrote is whole (1 of 6 case(s), each said above); the same "
        "command with --continue predicts the 5 not yet written"), done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["case_000.nii.gz"]  # no hidden temporary left


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
@pytest.mark.parametrize("sequential, second", [(False, "SIGTERM"), (True, "SIGTERM"), (False, "SIGUSR1")])
def test_a_second_sigterm_does_not_cut_short_the_case_being_written(scans, tmp_path, sequential, second):
    """SIGTERM again while predict waits for the case being written after the first (a second kill): the case is
    written, said and counted all the same. Until the hundred-and-first session's review the second was raised in
    that wait, and Python 3.10-3.12's Thread.join, so interrupted, took the writing thread for ended (CPython 90882):
    the process left without the case, its hidden temporary half-written, and said '0 of 6'. A SIGUSR1 second (a
    requeue's notice), taken apart from SIGTERM, did so too, its line naming SIGUSR1 (until the hundred-and-nineteenth
    session's review: ``sigterm.stops_as_an_interrupt``)."""
    out = tmp_path / "pred"
    done = predict_run_by("predict_terminated_twice_as_the_first_is_written.py", scans, out, sequential,
                          {"SECOND_SIGNAL": second})
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stdout.splitlines() == [f"[1/6] case_000: wrote {out / 'case_000.nii.gz'}"], done.stderr
    assert done.stderr.splitlines()[-1].startswith("predict stopped by SIGTERM: every file it wrote is whole (1 of 6 "
                                                   "case(s)"), done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["case_000.nii.gz"]  # no hidden temporary left


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1") or sys.platform == "win32", reason="SIGTERM to a process")
@pytest.mark.parametrize("second", ["SIGTERM", "SIGUSR1"])
def test_a_second_stop_as_the_stopped_line_is_said_leaves_it_said(scans, tmp_path, second):
    """A second SIGTERM (or a SIGUSR1) as predict says its stopped line: the line is said, status 143. Until the
    hundred-and-nineteenth session's review the line was said after predict's handling had put the defaults back,
    and the second ended the process there, -15 (-10), the line unsaid."""
    out = tmp_path / "pred"
    done = predict_run_by("predict_terminated_twice_as_the_first_is_written.py", scans, out, False,
                          {"SECOND_SIGNAL": second, "SECOND_AT": "line"})
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr.splitlines()[-1].startswith("predict stopped by SIGTERM: every file it wrote is whole (1 of 6 "
                                                   "case(s)"), done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["case_000.nii.gz"]


def predict_run_by(script: str, scans, out: Path, sequential: bool, env: dict | None = None
                   ) -> subprocess.CompletedProcess:
    """``accelerated-seg predict`` of ``scans``' six cases into ``out`` as ``script`` (beside this file) runs it, in
    a process of its own, with a model exported beside ``out`` (``env``: added to the environment)."""
    model = export(out.parent / "model")
    given = ["--sequential"] if sequential else []
    return subprocess.run([sys.executable, str(Path(__file__).with_name(script)), "predict", "--model", str(model),
                           str(scans / "imagesTr"), "--output", str(out), *given],
                          capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


def test_predict_whose_reader_goes_away_ends_as_sigpipe_would_with_every_file_whole(scans, tmp_path):
    """``accelerated-seg predict ... | head -1``: the second "wrote" line met the closed pipe, and predict said
    "error: [Errno 32] Broken pipe" with status 2, as a refusal (until the hundred-and-first session); it now ends
    as plan does (status 141, as SIGPIPE would), nothing begun after, each file written whole."""
    model, out = export(tmp_path / "model"), tmp_path / "pred"
    command = [sys.executable, "-m", "accelerated_seg", "predict", "--model", str(model), str(scans / "imagesTr"),
               "--output", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})  # each line written as it is said
    proc.stdout.close()  # gone before the first line
    stderr = proc.communicate(timeout=300)[1]
    assert proc.returncode == 141, stderr[-2000:]
    assert "Broken pipe" not in stderr and "Traceback" not in stderr, stderr[-2000:]
    written = sorted(path.name for path in out.iterdir())
    assert written and all(name.startswith("case_") for name in written), written  # no hidden temporary
    for name in written:
        nib.load(out / name).get_fdata()  # whole


def test_sigterm_is_raised_as_an_interrupt_only_where_pythons_default_was_in_place():
    """A program's own SIGTERM handler (or SIGTERM ignored) is kept; Python's default is put back on leaving. The
    first SIGTERM alone is raised: a second meets the stop under way (test_a_second_sigterm_does_not_cut_short_...)."""
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with sigterm_as_an_interrupt():
        with pytest.raises(Terminated):
            signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGTERM)  # nothing raised
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with sigterm_as_an_interrupt():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize("first, second", [(signal.SIGTERM, signal.SIGUSR1), (signal.SIGUSR1, signal.SIGTERM)])
def test_a_stop_by_either_signal_is_raised_once_whichever_comes_second(first, second):
    """A command taking SIGTERM and SIGUSR1 (``stops_as_an_interrupt``) raises the first of them alone: each taken
    apart, the second was raised in the stop under way (a predict's wait for the map being written, left hidden; the
    hundred-and-nineteenth session's review). Python's defaults are put back on leaving."""
    with stops_as_an_interrupt():
        with pytest.raises(INTERRUPTS[first]):
            signal.raise_signal(first)
        try:
            signal.raise_signal(second)  # nothing raised
            signal.raise_signal(first)
        except KeyboardInterrupt as raised_again:  # a failure, not pytest's own interrupt
            pytest.fail(f"{signal.Signals(second).name} raised {type(raised_again).__name__} in the stop under way")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL


def test_a_sigterm_pending_as_the_default_is_put_back_is_raised_with_the_default_in_place(monkeypatch):
    """signal.signal runs a pending signal's handler before it sets one: a first SIGTERM come as predict put the
    default back was raised there, the default left unset and every later SIGTERM ignored (until the
    hundred-and-first session's review). Here signal.signal raises as that handler does, the first time."""
    put_back, calls = signal.signal, []

    def pending_first(signum, handler):
        if handler is signal.SIG_DFL and not calls:
            calls.append(signum)
            raise Terminated("SIGTERM")  # as the pending SIGTERM's handler raises, before the default is set
        return put_back(signum, handler)

    with pytest.raises(Terminated):
        with sigterm_as_an_interrupt():
            monkeypatch.setattr(signal, "signal", pending_first)
    monkeypatch.undo()
    assert calls == [signal.SIGTERM] and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGUSR1])
def test_the_stopped_line_names_the_signal_and_the_status_is_the_signals(signum):
    """A stop's count of cases written carries its signal (``PredictInterrupted.signum``): SIGTERM's, or SIGUSR1's,
    which a one-process predict takes as its SIGTERM since the hundred-and-nineteenth session."""
    folder = argparse.Namespace(input=None, continue_prediction=False)
    stopped = PredictInterrupted(2, 5, signum=signum)
    assert _interrupted_by(folder, stopped) == (
        f"predict stopped by {signum.name}: every file it wrote is whole (2 of 5 case(s), each said above); the same "
        f"command with --continue predicts the 3 not yet written")
    assert exit_status(stopped) == 128 + signum and exit_status(PredictInterrupted(2, 5)) == 130
    assert by_sigterm(stopped) == (signum == signal.SIGTERM) and not by_sigterm(PredictInterrupted(2, 5))
    assert by_sigterm(Terminated()) and not by_sigterm(KeyboardInterrupt())


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """Six phantoms on different grids (RAS, LPS, permuted axes, anisotropic), so cases differ in size."""
    root = tmp_path_factory.mktemp("scans")
    write_synthetic_dataset(root, num_cases=6, num_validation=6, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    return root


def digests(folder):
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_predict_cases_writes_the_same_bytes_pipelined_as_one_case_at_a_time(scans, tmp_path):
    model = export(tmp_path / "model")
    pipelined_out = predict_cases(model, [scans / "imagesTr"], tmp_path / "pipelined", probabilities=True)
    sequential_out = predict_cases(model, [scans / "imagesTr"], tmp_path / "sequential", probabilities=True,
                                   sequential=True)
    assert [p.name for p in pipelined_out] == [p.name for p in sequential_out] == [f"case_{i:03d}.nii.gz"
                                                                                    for i in range(6)]
    assert digests(tmp_path / "pipelined") == digests(tmp_path / "sequential")
    assert len(digests(tmp_path / "pipelined")) == 12  # label maps and probabilities


def test_a_broken_case_between_others_fails_alone_and_progress_stays_in_order(scans, tmp_path, capsys):
    model = export(tmp_path / "model")
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for index in (0, 2, 3):
        shutil.copy(scans / "imagesTr" / f"case_{index:03d}.nii.gz", inputs)
    image = nib.load(scans / "imagesTr" / "case_001.nii.gz")
    values = image.get_fdata().astype(np.float32)
    values[2, 2, 2] = np.nan
    nib.save(nib.Nifti1Image(values, image.affine), inputs / "case_001.nii.gz")

    lines = []
    with pytest.raises(DataError, match=r"^1 of 4 case\(s\) could not be segmented .*\ncase case_001: .*"
                                        r"case_001.nii.gz: 1 non-finite voxel"):
        predict_cases(model, [inputs], tmp_path / "pred", progress=lines.append)
    assert [line.split()[1] for line in lines] == ["case_000:", "case_002:", "case_003:"]
    assert [line.split()[0] for line in lines] == ["[1/4]", "[3/4]", "[4/4]"]
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == ["case_000.nii.gz", "case_002.nii.gz",
                                                                     "case_003.nii.gz"]
    # The command line's --sequential takes the same road, one case at a time.
    assert main(["predict", "--model", str(model), str(inputs), "--output", str(tmp_path / "seq"), "--sequential"]) == 2
    assert "1 of 4 case(s) could not be segmented" in capsys.readouterr().err
    assert digests(tmp_path / "seq") == digests(tmp_path / "pred")
