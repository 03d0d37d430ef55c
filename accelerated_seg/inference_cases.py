"""Predicting many cases in one process: the cases found, their outputs checked, each segmented and
written in turn, and what a run that failed or was stopped says.

``predict_cases`` is the entry point (``accelerated-seg predict`` without a launch): it finds the cases
(``inference_inputs``) and refuses every output it may not write before the model loads (``inference_outputs``),
passes over those an earlier run wrote (``left_to_predict``, ``--continue``), and hands the rest to
``segment_cases``, which runs each case's three steps (``inference.prepare_case``,
``case_prediction``, ``write_case``) through ``inference_pipeline``: the next case read and the
previous one written while the network runs on this one. A case whose voxels are unusable does not
stop the others (``could_not_be_segmented`` says them all at the end); an interrupt is raised as
``PredictInterrupted``, counting the cases written whole. ``inference_distributed`` shares the same
pieces over the processes of a launch. ``segment_cases`` looks each step up in this module at every
case, so a stand-in put here (the benchmark's timers, a test's fault) is what it runs.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, closing, nullcontext
from pathlib import Path
from typing import Callable, Iterator, Sequence

import torch

from .data.errors import DataError
from .data.formats.paths import nifti_stem
from .ensemble import given_folders, load_for_prediction
from .host_cpu import COMMAND_LINE_FP32
from .inference import (PreparedCase, RestoredCase, case_prediction, check_precision, config_without_loading,
                        default_device, kept_whole, prepare_case, runs_transforms_on_device, write_case)
from .inference_inputs import InputCase, channel_names_compared, check_paths_given, collect_cases, home_expanded
from .inference_outputs import (checked_outputs, done_as_written, holding_output_folder, prediction_ending,
                                probabilities_path, remove_earlier_prediction, remove_under_the_other_ending)
from .inference_pipeline import one_at_a_time, pipelined
from .predict_marks import case_key, prediction_key
from .predict_names import PREDICT_CASES_NAMES, PredictNames
from .predict_options import PredictOptions
from .sigterm import stop_signal


#: One case to segment and where its label map (and, when not None, its probabilities) go.
CaseJob = tuple[InputCase, Path, Path | None]


def segment_cases(model: Callable[[torch.Tensor], torch.Tensor], config: dict, jobs: Sequence[CaseJob], *,
                  device: str | torch.device, options: PredictOptions = PredictOptions(),
                  window_logits: Callable[..., torch.Tensor] | None = None, write: bool = True,
                  sequential: bool = False, keep_largest: Sequence[int] = (), run_key: bytes = b"",
                  reading: Callable[[CaseJob], AbstractContextManager] = lambda job: nullcontext(),
                  writing: Callable[[CaseJob], AbstractContextManager] = lambda job: nullcontext(),
                  in_a_folder: bool = False,
                  yield_after_an_interrupt: bool = True) -> Iterator[tuple[CaseJob, BaseException | None]]:
    """Segment each job's case and write its outputs, yielding ``(job, error or None)`` in the jobs' order.

    The cases go through ``inference_pipeline.pipelined``: the next case is read and preprocessed, and
    the previous one written, while the network runs on this one. ``sequential`` does one case at a
    time (a third of the memory). The outputs are checked by the caller (``check_outputs``) first.

    Args:
        model, config, device, options, keep_largest: as in ``inference.predict_case``.
        window_logits: as in ``inference.case_probabilities`` (``inference_distributed``'s share of the windows).
        write: False computes the network's part only and writes nothing (a helper process of a
            prediction whose windows are split over processes).
        run_key: the run's ``prediction_key``; each case's headers record its ``case_key``.
        reading, writing: entered around each job's reading and network, and its writing, on the thread each
            runs on (``inference_distributed``: one process's out of memory stops every process before the
            pipeline would hand it on; the line that stops them waits for a case being written).
        in_a_folder: the label maps are a folder of cases (``output_paths``), where each replaces the case's map
            that predict wrote under the other NIfTI ending (``remove_under_the_other_ending``).
        yield_after_an_interrupt: False raises an interrupt once the case being written is written, without
            yielding it (``pipelined``): the caller's handling of each case is a collective of every process.
    """
    device = default_device(device)  # a name, as predict_file takes it
    read_only = runs_transforms_on_device(device, options)  # the rest of the preprocessing on the GPU

    def prepare(job: CaseJob) -> PreparedCase:
        with reading(job):
            return prepare_case(config, job[0].channels, read_only=read_only)

    def compute(job: CaseJob, prepared: PreparedCase) -> torch.Tensor | RestoredCase:
        with reading(job):
            return case_prediction(model, config, prepared, device=device, options=options,
                                   window_logits=window_logits, keep_probabilities=job[2] is not None, restore=write)

    def finish(job: CaseJob, prepared: PreparedCase, prediction: torch.Tensor | RestoredCase) -> None:
        if write:
            with writing(job):
                write_case(prepared, prediction, job[1], job[2], keep_largest,
                           case_key(run_key, job[0]) if run_key else b"")
                if in_a_folder:
                    remove_under_the_other_ending(job[1])

    return (one_at_a_time if sequential else pipelined)(jobs, prepare, compute, finish, yield_after_an_interrupt)


def predict_cases(model_dir: str | Path | Sequence[str | Path], inputs: Sequence[str | Path], output: str | Path, *,
                  device: str | torch.device | None = None, sw_batch_size: int = 4, overlap: float = 0.5,
                  tta: str = "none", precision: str = "fp32", aggregate_on_cpu: bool | None = None,
                  transforms_on_device: bool = True, probabilities: bool = False,
                  progress: Callable[[str], None] | None = None, sequential: bool = False,
                  keep_largest: bool | Sequence[int] = False, continue_prediction: bool = False,
                  fp32_setting: str = COMMAND_LINE_FP32, names: PredictNames = PREDICT_CASES_NAMES) -> list[Path]:
    """Segment every case found in ``inputs`` into ``output/<case>.nii.gz``.

    The model is loaded once. Cases are grouped by channel naming (``group_cases``), and every
    problem with the inputs' names, channels and outputs is reported before the first case is
    segmented. A case whose voxels are unusable (NaN, complex values; found only when it is read)
    does not stop the others: they are written, and the failed ones are reported together at the
    end, as ``predict_distributed`` reports them.

    Args:
        model_dir: folder exported by training, or several: an ensemble (as in ``inference.predict_file``).
        inputs: NIfTI files, folders of them, or glob patterns (one of them alone, as a str or Path, too).
        output: folder for the label maps (created); or, when the inputs are a single case, the
            label map's own path ending in ``.nii.gz``/``.nii``.
        probabilities: also write ``<case>_probs.nii.gz`` (``probabilities_path``) beside each label map.
        progress: called with one line per written case (e.g. ``print``).
        sequential: read, segment and write one case at a time; by default the next case is read and
            the previous one written while the network runs (``segment_cases``), holding three cases.
        device, sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device, keep_largest: as
            in ``inference.predict_file``.
        continue_prediction: pass over the cases whose outputs an earlier run wrote with the same
            models and options (``left_to_predict``): a run a time limit or Ctrl-C stopped goes on.
        fp32_setting: how the caller asks for fp32, as in ``inference.predict_file``: the command line's words by
            default, which a script calling this was told whatever it gave until the ninety-third session.
        names: how the caller names ``inputs`` and ``output`` in a refusal: this function's by default, the
            command's flags for ``accelerated-seg predict`` (``PredictNames()``).

    Returns:
        Every case's label map, in case order (those passed over too).

    Raises:
        DataError: before anything is written, scans of a dataset's images folder whose dataset.json (one folder up)
            gives the model's channels in another order (one naming them otherwise is warned of), as the command line
            refuses them (``inference_inputs.channel_names_compared``); after the other cases, naming each case that
            could not be read as an image.

    Example:
        >>> predict_cases("output/demo/best_model", ["imagesTs/"], "predictions", tta="all")  # doctest: +SKIP
        [PosixPath('predictions/case_000.nii.gz'), ...]
    """
    options = PredictOptions(sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device)
    device = default_device(device)
    check_precision(options.precision, device, fp32_setting)
    check_paths_given([(names.model, model_dir), (names.inputs, inputs), (names.output, output)], names)
    # One path alone is one input, as predict_file takes it: its characters were the inputs ("scans/" read "/")
    inputs = [inputs] if isinstance(inputs, (str, os.PathLike)) else inputs
    output = home_expanded(output)
    # The cases and their outputs refused before the model loads, as the command line does; where config.json
    # alone says nothing sure of the channels, after it, as the loading says what is wrong first
    if (early := config_without_loading(model_dir)) is not None:
        channel_names_compared(inputs, early, names)
        cases = collect_cases(inputs, early)
        outputs, written = checked_outputs(cases, output, probabilities, names, prediction_ending(early))
    model, config = load_for_prediction(model_dir)
    keep = kept_whole(config, keep_largest)
    if early is None:
        channel_names_compared(inputs, config, names)
        cases = collect_cases(inputs, config)
        outputs, written = checked_outputs(cases, output, probabilities, names, prediction_ending(config))
    model.to(device)
    jobs = [(case, path, probabilities_path(path) if probabilities else None) for case, path in zip(cases, outputs)]
    run_key = prediction_key(given_folders(model_dir), prediction_settings(options, keep, device))
    in_a_folder = nifti_stem(output) is None
    with holding_output_folder(output, written):
        if continue_prediction:  # under the folder's lock: no other run writes them meanwhile
            jobs, outputs = left_to_predict(jobs, run_key, progress, in_a_folder)
        done = segment_cases(model, config, jobs, device=device, options=options, sequential=sequential,
                             keep_largest=keep, run_key=run_key, in_a_folder=in_a_folder)
        with closing(done):
            failed = _written_or_failed(done, len(jobs), progress, in_a_folder)
    if failed:
        raise DataError(could_not_be_segmented(failed, len(jobs)))
    return outputs


def could_not_be_segmented(failed: Sequence[str], cases: int) -> str:
    """The error's words for the ``failed`` cases (a line each) of ``cases``, the others written: one process's, and a
    launch's (inference_distributed) since the hundred-and-tenth session."""
    written = cases - len(failed)  # "(the others are written)" where there were none was wrong
    return (f"{len(failed)} of {cases} case(s) could not be segmented ("
            + ({0: "nothing is written", 1: "the other one is written"}.get(written)
               or f"the other {written} are written") + "):\n" + "\n".join(failed))


class PredictInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a scheduler's SIGINT) while ``predict_cases`` segmented its cases: a KeyboardInterrupt, which
    also tells how many of the ``cases`` it had to predict it wrote whole before it (``written``), each said by
    its "wrote" line; ``accelerated-seg predict``'s last line says the count. ``failed``: a line for each case that
    could not be segmented before it, as the end of a run says them (and a case whose writing failed as the interrupt
    came); until the hundredth session an interrupt left them unsaid. ``signum``: the signal whose stop the interrupt
    was (``sigterm.stop_signal``: SIGTERM's ``Terminated``, SIGUSR1's ``StoppedBySIGUSR1``, which the command line
    raises and says), None for Ctrl-C's; a ``terminated`` flag knew SIGTERM alone until the hundred-and-nineteenth
    session, and a one-process predict's SIGUSR1, said as Ctrl-C's, would have ended it with 130."""

    def __init__(self, written: int, cases: int, failed: Sequence[str] = (), signum: int | None = None):
        super().__init__(f"interrupted with {written} of {cases} case(s) written")
        self.written, self.cases, self.failed, self.signum = written, cases, list(failed), signum


def _written_or_failed(done, cases: int, progress: Callable[[str], None] | None, in_a_folder: bool = False) -> list[str]:
    """Go through ``segment_cases``'s results, saying each case written; returns the error line of
    each case whose voxels were unusable. Anything else (a bug, out of memory) stops the run, and an
    interrupt is raised as ``PredictInterrupted``, counting the cases said written (the pipeline says
    the one being written when it came, first) and carrying the failed ones, that error's case among them."""
    failed, written = [], 0
    try:
        for number, ((case, label_path, _), error) in enumerate(done, 1):
            if isinstance(error, DataError):  # this file's voxels
                failed.append(f"case {case.id}: {error}"
                              f"{remove_earlier_prediction(label_path, other_ending=in_a_folder)}")
                continue
            if error is not None:
                failed.append(f"case {case.id}: {type(error).__name__}: {error}")  # said, if an interrupt wins
                done.close()  # an interrupt that came as this case was written is raised here, in the error's place
                raise error
            line = f"[{number}/{cases}] {case.id}: wrote {label_path}"  # made first: Path's str is Python code
            written += 1  # counted just before it is said: no Python code runs between the two
            if progress:
                progress(line)
    except KeyboardInterrupt as interrupt:  # where it came, with the count
        raise PredictInterrupted(written, cases, failed, stop_signal(interrupt)).with_traceback(
            interrupt.__traceback__) from None
    return failed


def prediction_settings(options: PredictOptions, keep_largest: Sequence[int],
                        device: torch.device | None = None) -> str:
    """The options that change a voxel of what predict writes, for ``prediction_key``; the window
    batch and where the windows are stitched do not. ``transforms_on_device`` changes one on a GPU alone: on
    ``device`` of another type both roads are the host's, so it is recorded as its default there, whatever was given
    (a CPU's maps of --no-transforms-on-device, the same voxels as the default's, were predicted again by the
    default's --continue, and theirs by its, until the hundred-and-twenty-fifth session's walk through the docs)."""
    on_device = options.transforms_on_device or (device is not None and device.type != "cuda")
    return (f"overlap={options.overlap} tta={options.tta} precision={options.precision} "
            f"transforms_on_device={on_device} keep_largest={sorted(keep_largest)}")


def left_to_predict(jobs: Sequence[CaseJob], run_key: bytes, progress: Callable[[str], None] | None,
                    in_a_folder: bool = False) -> tuple[list[CaseJob], list[Path]]:
    """``--continue``: the jobs whose outputs no earlier run wrote from these input files with these
    models and options (``written_before``, ``case_key``), and every job's label map as it will stand (one
    passed over in a folder of cases may be under the other NIfTI ending, ``done_as_written``); says how many
    it passes over."""
    done = [done_as_written(label, probabilities, case_key(run_key, case), in_a_folder)
            for case, label, probabilities in jobs]
    left = [job for job, path in zip(jobs, done) if path is None]
    if progress:
        progress(f"continuing: {len(jobs) - len(left)} of {len(jobs)} case(s) written before from these scans by "
                 f"this model with these options, not predicted again; {len(left)} to predict")
    return left, [path or job[1] for job, path in zip(jobs, done)]
