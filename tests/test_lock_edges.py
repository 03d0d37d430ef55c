"""A stop (Ctrl-C, SIGTERM) at a lock holder's edges (run_lock.py): the lock of a run it ended no longer refuses the
next run of the same process, and what the release was removing goes; a live holder of this process is refused still.

Each stop is a real SIGINT, sent by a profile function where CPython would run a handler (a Python function's entry,
a C function's return), as benchmarks/results/stop_at_the_lock_edges_2026-12-07/probe.py sends one at every such
point. The exception is kept, as a notebook keeps the last one, while the same run starts again."""

import gc
import json
import os
import signal
import sys
import threading

import pytest

from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder
from accelerated_seg.own_warnings import AcceleratedSegWarning
from accelerated_seg.run_folder import holding_the_run_folder_of
from accelerated_seg.run_lock import LOCK_NAME, file_lock_name


def _stopped_where(matches, run) -> KeyboardInterrupt:
    """``run()`` with a SIGINT sent to this process the first time ``matches(frame, event, arg)``; the interrupt."""
    def profile(frame, event, arg):
        if matches(frame, event, arg):
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGINT)  # Python's handler raises here (or stops_held notes it)

    sys.setprofile(profile)
    try:
        run()
    except KeyboardInterrupt as stop:
        return stop
    finally:
        sys.setprofile(None)
    pytest.fail("the stop was not raised")


def _holder(frame) -> str:
    """The name of the holding context whose contextlib frame ``frame`` is ("" for any other frame)."""
    if frame.f_code.co_filename != __import__("contextlib").__file__ or frame.f_code.co_name not in ("__enter__",
                                                                                                        "__exit__"):
        return ""
    gen = getattr(frame.f_locals.get("self"), "gen", None)
    return getattr(gen, "__name__", "")


# Where a stop keeps the lock: the generator has yielded it, and __enter__ has not returned it (CPython runs a
# handler as next() returns); __exit__ is called, and has not resumed the generator (a handler at its first line).
EDGES = {
    "entering": lambda holder: lambda frame, event, arg: (event == "c_return" and arg is next
                                                          and _holder(frame) == holder),
    "leaving": lambda holder: lambda frame, event, arg: (event == "call" and frame.f_code.co_name == "__exit__"
                                                         and _holder(frame) == holder),
}


def _one_map(tmp_path):
    output = tmp_path / "new" / "seg.nii.gz"
    return "holding_output_folder", lambda: holding_output_folder(output, [output, output.parent / "seg_probs.nii.gz"])


def _a_folder(tmp_path):
    return "holding_output_folder", lambda: holding_output_folder(tmp_path / "out", [tmp_path / "out" / "a.nii.gz"])


def _an_export(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run_info.json").write_text("{}")  # a run's folder: export holds its lock
    return "holding_the_run_folder_of", lambda: holding_the_run_folder_of(tmp_path / "run" / "model")


@pytest.mark.parametrize("edge", EDGES)
@pytest.mark.parametrize("holding", [_one_map, _a_folder, _an_export])
def test_a_lock_a_stop_kept_at_its_holders_edge_is_taken_over_by_the_next_run_of_its_process(
        tmp_path, ctrl_c_raises, edge, holding):
    """A stop at a with statement's lock edge (bpo-29988's gap: the lock yielded and not yet returned by __enter__, or
    __exit__ called and not yet at its first line) kept the lock for as long as its exception was kept, and the same
    predict (or export) again in that process was refused, naming its own process, until the hundred-and-twenty-third
    session: the call that took it has ended, so it is taken over, saying so."""
    name, holder = holding(tmp_path)

    def a_run():  # a predict or export of its own, ended by the stop
        with holder():
            pass

    kept = _stopped_where(EDGES[edge](name), a_run)
    with pytest.warns(AcceleratedSegWarning, match=rf"was still locked by an earlier run of this process \(process "
                                                   rf"{os.getpid()} on .*which has ended: .* taken over") as said:
        with holder():  # not refused, its exception still kept
            pass
    assert {warning.filename for warning in said} == {__file__}  # the caller's line (r111): a fixed 4, the package's
    assert kept.__traceback__ is not None
    del kept
    gc.collect()
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) in ([], ["run", "run/run_info.json"])


def test_a_fit_stopped_as_it_took_its_lock_leaves_it_to_the_next_fit_of_the_notebook(
        tiny_dataset, tmp_path, ctrl_c_raises):
    """A notebook's fit whose Ctrl-C landed as its run folder's lock entered train's ExitStack kept the lock with the
    traceback: the same fit again was refused, `<run> is in use by another run (process <its own>...)`."""
    from accelerated_seg.estimator import Dataset, Segmentation

    from test_estimator import _pairs

    train_pairs, val_pairs = _pairs(tiny_dataset)
    data = Dataset.from_files(train_pairs, block_shape=(16, 16, 16), n_classes=3, validation_pairs=val_pairs,
                              cache_dir=str(tmp_path / "cache"), num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), trackers="none", progress_bar=False, val_every=0,
                         save_every=0)
    kept = _stopped_where(EDGES["entering"]("holding_run_folder"), lambda: model.fit(data, steps=1))
    assert json.loads((tmp_path / "run" / LOCK_NAME).read_text())["pid"] == os.getpid()
    with pytest.warns(AcceleratedSegWarning, match="taken over") as said:
        model.fit(data, steps=1)
    assert [warning.filename for warning in said if "taken over" in str(warning.message)] == [__file__]
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file() and not (tmp_path / "run" / LOCK_NAME).exists()
    assert kept.__traceback__ is not None


def test_a_live_holder_of_this_process_is_refused_on_another_thread_and_inside_it(tmp_path):
    """Taken over only once the call that took it has ended: a predict of this process that still writes, on another
    thread or around the second one, is refused as another process's is."""
    output, holding, done = tmp_path / "seg.nii.gz", threading.Event(), threading.Event()
    refused = rf"{output} is in use by another run \(process {os.getpid()} on "

    def a_predict_on_a_thread():
        with holding_output_folder(output, [output]):
            holding.set()
            done.wait(30)

    thread = threading.Thread(target=a_predict_on_a_thread)
    thread.start()
    try:
        assert holding.wait(30)
        with pytest.raises(ConfigError, match=refused):
            with holding_output_folder(output, [output]):
                pass
    finally:
        done.set()
        thread.join()

    def a_predict_around_another():
        with holding_output_folder(output, [output]):
            with pytest.raises(ConfigError, match=refused):
                with holding_output_folder(output, [output]):
                    pass
            assert (tmp_path / file_lock_name(output)).is_file()  # the outer one's, still held

    a_predict_around_another()
    assert list(tmp_path.iterdir()) == []


def test_a_live_lock_entered_by_a_users_own_enter_is_not_taken_over_in_its_with_block(tmp_path):
    """A user's context manager whose ``__enter__`` enters the package's (no with statement of its own at the taking)
    returns while its with block still predicts: a second predict there took the live lock over, with a warning, until
    r111's review (the frame found was that ``__enter__``'s, ended); refused now, as a live holder's is."""
    output = tmp_path / "labels"

    class Predicting:
        def __enter__(self):
            self.held = holding_output_folder(output, [output])
            self.held.__enter__()

        def __exit__(self, *stop):
            return self.held.__exit__(*stop)

    with Predicting():
        with pytest.raises(ConfigError, match=rf"{output} is in use by another run \(process {os.getpid()} on "):
            with holding_output_folder(output, [output]):
                pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("at", ["as the lock file is removed", "as its folder is removed"])
def test_a_stop_as_the_lock_is_let_go_leaves_neither_its_file_nor_its_empty_folder(tmp_path, ctrl_c_raises, at):
    """A stop in the release, between the lock file's removal and the folder's, left `.run.lock` (or the empty folder
    the lock made) until the hundred-and-twenty-third session; it is raised once both are gone."""
    output = tmp_path / "new" / "seg.nii.gz"
    matches = {"as the lock file is removed": lambda frame, event, arg: (event == "call" and frame.f_code.co_name ==
                                                                         "unlink" and frame.f_code.co_filename.endswith(
                                                                             "pathlib.py")),
               "as its folder is removed": lambda frame, event, arg: (event == "call" and frame.f_code.co_name ==
                                                                      "remove_if_empty")}[at]

    def a_predict():
        with holding_output_folder(output, [output]):
            pass

    kept = _stopped_where(matches, a_predict)
    assert not output.parent.exists()
    assert kept.__traceback__ is not None


def test_a_lock_whose_release_a_stop_ended_at_its_first_line_goes_with_its_exception(tmp_path, ctrl_c_raises):
    """A stop as the release is called, before its first line (no hold can begin sooner), leaves the lock to the
    exception; dropped, the lock's file and folder stayed (the file closed with it), until the
    hundred-and-twenty-third session: they go now as the lock is collected."""
    output = tmp_path / "new" / "seg.nii.gz"

    def a_predict():
        with holding_output_folder(output, [output]):
            pass

    kept = _stopped_where(lambda frame, event, arg: event == "call" and frame.f_code.co_name == "release"
                          and frame.f_back.f_code.co_name == "holding_output_folder", a_predict)
    assert (output.parent / file_lock_name(output)).is_file()
    del kept
    gc.collect()
    assert not output.parent.exists()


def test_no_code_of_a_released_lock_runs_as_it_is_collected_where_a_stop_would_be_dropped(
        tmp_path, ctrl_c_raises, monkeypatch):
    """The finalizer that releases a lock collected unreleased was left on a released one, and ran (as a no-op) as
    every run's lock was collected: a stop landing there was raised inside it, where Python drops it ("Exception
    ignored in: <finalize object ...>"), and the run went on (the branch's first change, found by the probe)."""
    import weakref

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)
    output = tmp_path / "seg.nii.gz"

    def profile(frame, event, arg):
        if event == "call" and frame.f_back is not None and isinstance(frame.f_back.f_locals.get("self"),
                                                                       weakref.finalize):
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGINT)  # in a finalizer's call: raised there, and dropped

    def a_predict():
        with holding_output_folder(output, [output]):
            pass

    sys.setprofile(profile)
    try:
        a_predict()
        gc.collect()
    finally:
        sys.setprofile(None)
    assert dropped == [] and list(tmp_path.iterdir()) == []


def test_a_stop_before_the_releases_hold_begins_lets_the_lock_go_all_the_same(tmp_path, ctrl_c_raises):
    """The release holds a stop from its hold's first line on; one landing in the hold's own first lines (stops_held
    is entered by a Python call) kept the lock with its exception (the branch's first change): it is raised once the
    release is done, the lock file and the folder it made gone."""
    output = tmp_path / "new" / "seg.nii.gz"

    def a_predict():
        with holding_output_folder(output, [output]):
            pass

    kept = _stopped_where(lambda frame, event, arg: event == "call" and frame.f_back is not None
                          and frame.f_back.f_code.co_name == "release"
                          and frame.f_back.f_code.co_filename.endswith("run_lock.py")
                          and frame.f_code.co_name == "helper", a_predict)  # contextlib's, making stops_held's
    assert not output.parent.exists()
    assert kept.__traceback__ is not None
