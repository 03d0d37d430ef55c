"""Prediction spread over the processes of an ``accelerate launch``: cases, or one volume's windows.

    accelerate launch --num_processes 4 -m accelerated_seg.cli predict --model MODEL scans/ --output preds/

Two ways to share the work (``split``):

``cases``
    Each process segments whole cases and writes their outputs itself. Cases are assigned by their
    voxel count on the preprocessed grid, greedy longest-processing-time first: largest case first,
    each to the process with the fewest voxels so far (ties: lowest process index). Deterministic,
    so every process computes the same plan without talking to the others.
``windows``
    Every process reads and preprocesses the case, runs MONAI's Gaussian sliding window but lets the
    network see only its share of the window batches (batch ``b`` goes to process ``b % N``; the
    others contribute zeros), and the weighted logits of all processes are summed
    (``accelerate.utils.reduce``). The main process then takes the softmax, inverts the geometry and
    writes. The weight map is the same on every process, so the sum equals the single-process
    blend up to the order of float additions.
``auto`` (default)
    ``cases`` when there are at least as many cases as processes, else ``windows`` case by case.

With one process this is ``inference_cases.predict_cases``. The process-agnostic pieces all live in
``inference``, ``inference_cases``, ``inference_inputs`` and ``inference_outputs``; this module only decides who does
what and combines the results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import traceback
from contextlib import closing
from pathlib import Path
from typing import Callable, Sequence

import nibabel as nib
import numpy as np
import torch

from .config import ConfigError, did_you_mean
from .data.errors import DataError
from .data.formats.paths import nifti_stem
from .ensemble import given_folders, load_for_prediction
from .host_cpu import COMMAND_LINE_FP32
from .inference import (PredictOptions, check_precision, config_without_loading, kept_whole, output_channels,
                        preprocess_settings, sliding_window_logits)
from .inference_cases import (PredictInterrupted, could_not_be_segmented, left_to_predict, predict_cases,
                              prediction_settings, segment_cases)
from .inference_inputs import InputCase, channel_names_compared, collect_cases, home_expanded
from .inference_outputs import (checked_outputs, holding_output_folder, prediction_ending, probabilities_path,
                                remove_earlier_prediction)
from .last_wait import (InterruptInTheLastWait, every_process_came_to_the_last_wait, the_last_wait,
                        wait_for_every_process)
from .own_warnings import silenced
from .predict_marks import prediction_key
from .predict_names import PREDICT_CASES_NAMES, PredictNames
from .sigterm import stop_signal

SPLITS = ("auto", "cases", "windows")


def case_voxels(case: InputCase, spacing: Sequence[float] | None = None) -> int:
    """Voxels of a case on the preprocessed grid, from the first channel's header (no data read).

    With a target ``spacing`` the count is the field of view in mm^3 over the voxel volume, which
    does not depend on the orientation. The foreground crop is not known before reading; ignored.
    """
    # Weight 0 for a file that cannot be weighed: the case fails when read, alone, and is reported
    # with any others, as in one process. Before the thirty-second session a file that is not NIfTI
    # stopped every process with nibabel's traceback; before the seventieth a 2D image or an affine
    # holding NaN stopped them all with numpy's words and no file named.
    try:
        image = nib.load(str(case.channels[0]))
    except Exception:  # noqa: BLE001 - nibabel raises many types for a file that is not NIfTI
        return 0
    if len(image.shape) < 3:
        return 0
    shape = np.asarray(image.shape[:3], dtype=float)
    if spacing is None:
        return int(np.prod(shape))
    zooms = nib.affines.voxel_sizes(image.affine)  # as the loader places the voxels (NiftiReader)
    voxels = np.prod(shape * zooms) / np.prod(np.asarray(spacing, dtype=float))
    return int(round(voxels)) if np.isfinite(voxels) else 0


def balance_by_voxels(voxels: Sequence[int], num_ranks: int) -> list[list[int]]:
    """Greedy longest-processing-time assignment of items (by weight) to ``num_ranks`` ranks.

    Largest first (ties: lower index first), each to the least-loaded rank (ties: lowest rank).
    Returns each rank's item indices in ascending order.

    Example:
        >>> balance_by_voxels([100, 60, 50, 40, 10], 2)
        [[0, 3], [1, 2, 4]]
    """
    if num_ranks < 1:
        raise ValueError(f"num_ranks must be at least 1, got {num_ranks}")
    loads = [0] * num_ranks
    shares: list[list[int]] = [[] for _ in range(num_ranks)]
    for index in sorted(range(len(voxels)), key=lambda i: (-voxels[i], i)):
        rank = min(range(num_ranks), key=lambda r: (loads[r], r))
        loads[rank] += voxels[index]
        shares[rank].append(index)
    return [sorted(share) for share in shares]


def choose_split(split: str, num_cases: int, num_processes: int) -> str:
    """``cases`` or ``windows`` for ``split`` (``auto``: cases when every process gets at least one)."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r} is not known; choose one of: {', '.join(SPLITS)}"
                         + did_you_mean(split, SPLITS))
    if split != "auto":
        return split
    return "cases" if num_cases >= num_processes else "windows"


class WindowShare:
    """A window predictor that runs only this process's window batches and returns zeros for the rest.

    MONAI's sliding window calls the predictor once per batch of ``sw_batch_size`` windows, in a
    fixed order; batch ``b`` belongs to process ``b % num_processes``. Call ``reset`` before each
    sliding window.
    """

    def __init__(self, predictor: Callable[[torch.Tensor], torch.Tensor], process_index: int, num_processes: int,
                 out_channels: int):
        self.predictor, self.process_index, self.num_processes = predictor, process_index, num_processes
        self.out_channels = out_channels
        self.calls = 0

    def reset(self) -> None:
        self.calls = 0

    def __call__(self, windows: torch.Tensor) -> torch.Tensor:
        batch, self.calls = self.calls, self.calls + 1
        if batch % self.num_processes == self.process_index:
            return self.predictor(windows)
        return windows.new_zeros((windows.shape[0], self.out_channels, *windows.shape[2:]), dtype=torch.float32)


def shared_window_logits(accelerator, out_channels: int,
                         reducing: Callable[[], None] = lambda: None) -> Callable[..., torch.Tensor]:
    """A ``sliding_window_logits`` replacement: this process's share of the windows, summed over processes.

    Every process must call it for the same volume (it is a collective operation). The sum is taken
    on ``accelerator.device`` (what the process group's backend needs) and returned where the volume
    is stitched. ``reducing`` is called before the sum (``predict_stop.WrittenWhole.reducing``).
    """
    from accelerate.utils import reduce

    def window_logits(predictor, image, roi_size, sw_batch_size=4, overlap=0.25, *, sw_device=None, device=None):
        share = WindowShare(predictor, accelerator.process_index, accelerator.num_processes, out_channels)
        partial = sliding_window_logits(share, image, roi_size, sw_batch_size, overlap, sw_device=sw_device,
                                        device=device)
        reducing()
        return reduce(partial.to(accelerator.device), reduction="sum").to(partial.device)

    return window_logits


def process_state():
    """accelerate's ``PartialState`` of this launch: gloo on the CPU when asked (ACCELERATE_USE_CPU) or
    when there is no GPU, else the GPU backend with one device per process."""
    from accelerate import PartialState
    from accelerate.utils import parse_flag_from_env

    return PartialState(cpu=parse_flag_from_env("ACCELERATE_USE_CPU") or not torch.cuda.is_available())


@contextlib.contextmanager
def _warned_by_the_main_process(accelerator):
    """Silence the warnings of work every process repeats alike (loading the model, reading the
    inputs' names, preparing a case whose windows are shared) on all processes but the main one:
    a scan without orientation read on 8 GPUs was said 8 times. Work of a process's own (its share
    of the cases) keeps its warnings. Taken in the calling thread, around the whole of the work, so
    the pipeline's threads started inside it are silenced with it (warning filters are global). Without a change
    of the filters (``own_warnings.silenced``): its catch_warnings reset what Python keeps of the lines that said a
    warning, so a script's loop of predict_distributed said each warning of such a process's own cases at every
    call, and the main process's once (until the hundred-and-twenty-sixth session)."""
    if accelerator.is_main_process:
        yield
        return
    with silenced():
        yield


def predict_distributed(model_dir: str | Path | Sequence[str | Path],
                        inputs: Sequence[str | Path] | Sequence[InputCase], output: str | Path, *,
                        accelerator=None, split: str = "auto", sw_batch_size: int = 4, overlap: float = 0.5,
                        tta: str = "none", precision: str = "fp32", aggregate_on_cpu: bool | None = None,
                        transforms_on_device: bool = True, probabilities: bool = False,
                        progress: Callable[[str], None] | None = None,
                        sequential: bool = False, keep_largest: bool | Sequence[int] = False,
                        continue_prediction: bool = False, fp32_setting: str = COMMAND_LINE_FP32,
                        names: PredictNames = PREDICT_CASES_NAMES) -> list[Path]:
    """``predict_cases`` over every process of an ``accelerate launch``; call it on every process.

    Args:
        inputs: NIfTI files, folders or patterns (grouped into cases by channel naming), or the
            cases themselves (``InputCase``: one file per channel in the model's order).
        model_dir, output, sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device,
            probabilities, sequential, keep_largest, continue_prediction, fp32_setting, names: as in
            ``inference_cases.predict_cases``.
        accelerator: an ``accelerate.Accelerator`` (or ``PartialState``); one is made when None. Each
            process runs on its ``accelerator.device``.
        split: ``auto``, ``cases`` or ``windows`` (module docstring).
        progress: called with one line per case this process wrote, and (main process) the plan.

    Returns:
        Every case's label map, in case order, on every process. All files exist when it returns.

    Raises:
        ConfigError, DataError, OSError: bad settings or inputs, found before any work, as a rule by every process
            alike; one that a process alone met, or different ones that each met, raised on every process naming
            them (``process 1: ...``).
        DataError: cases that failed on some process, each for its input's fault (``_cases_failed``: in one process's
            words, the other cases written).
        RuntimeError: cases failed, a bug among them (the message holds each failure), or a process alone met another
            error in the checks before the work (or processes different ones, not all refusals). An error of one
            process's own after them, or an interrupt, ends every process (``ranks_stop_together``: status 1, 130 for
            an interrupt) with the main process's line instead.
        KeyboardInterrupt: an interrupt that came in the last wait for every process, raised once every process has
            passed it (``last_wait.InterruptInTheLastWait``), as ``PredictInterrupted``: every case written or failed
            by then, the failed ones carried for its line (dropped until the hundred-and-first session). A second
            interrupt in that wait, or a SIGTERM, ends every process at once, as an interrupt in the work does, unless
            the wait's barrier is complete already: then it is raised so too (a SIGTERM's with its ``signum``).

    Example:
        >>> predict_distributed("output/demo/best_model", ["scans/"], "predictions")  # doctest: +SKIP
    """
    accelerator = accelerator or process_state()
    options = PredictOptions(sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device)
    num_processes, rank = accelerator.num_processes, accelerator.process_index
    inputs, given_cases = _listed(inputs)
    if num_processes == 1 and not given_cases:
        return predict_cases(model_dir, inputs, output, device=accelerator.device, sw_batch_size=sw_batch_size,
                             overlap=overlap, tta=tta, precision=precision, aggregate_on_cpu=aggregate_on_cpu,
                             transforms_on_device=transforms_on_device, probabilities=probabilities, progress=progress,
                             sequential=sequential, keep_largest=keep_largest, continue_prediction=continue_prediction,
                             fp32_setting=fp32_setting, names=names)
    output = home_expanded(output)
    from .predict_stop import WrittenWhole
    from .ranks_stop_together import stopping_together
    from .results_so_far import OutOfMemory

    whole = WrittenWhole(output, rank, continue_prediction)
    # Inside, one process's own error stops every process at once, the main process saying it in one line with the
    # cases written whole: the others waited for it in the next collective (a case's reduction, a gather, the last
    # wait) until the process group's timeout. What every process raises alike (the checks' errors, the folder lock's
    # refusal) passes as it is (``WrittenWhole.raised_alike``). Each case is written under the lock the line is said
    # under, so the line names every case whose files are whole. It covered a case's stages under split=windows from
    # the ninety-sixth session (out of memory) and the ninety-seventh (any error), the rest of that split's work from
    # the ninety-eighth, and from the ninety-ninth the whole of the work: an interrupt in the checks or their gather,
    # before the split, split=cases outside a case's gathered failures, and after the work until the last wait.
    interrupt, after_the_wait = InterruptInTheLastWait(rank), None
    try:
        with stopping_together((OutOfMemory,), whole.in_full, untold_in_full=_untold_in_full(whole)) as whole.lock, \
                whole.any_error_stops_every_process():
            model, config, keep, cases, outputs, written = _checked_on_every_process(
                accelerator, whole, model_dir, inputs, given_cases, output, options, fp32_setting, keep_largest,
                probabilities, names)
            work = _Work(accelerator, whole, model, config, options, keep, sequential, progress,
                         run_key=prediction_key(given_folders(model_dir),
                                                prediction_settings(options, keep, accelerator.device)),
                         in_a_folder=nifti_stem(output) is None)  # each map replaces predict's under the other ending
            jobs = _jobs(cases, outputs, probabilities)
            whole.to_write = [case.id for case in cases]
            # The folder's lock is held until every process has written its share (the gather below waits for all), and
            # while the line is said (the inner scope stops every process before it is released); released before the
            # last wait, where the others wait for the main process.
            with whole.entered_alike(holding_output_folder(output, written, accelerator)), \
                    whole.any_error_stops_every_process():
                jobs, outputs, failures = _segmented_on_every_process(work, jobs, outputs, split, continue_prediction)
            # Inside: a process interrupted before it (the main process in releasing the folder's lock) left the others
            # in it. An interrupt in it is held until it returns, once no process waits for this one, and raised then,
            # outside: published, no watcher of the others answered (they had returned), and the main process said the
            # line SAID_WAIT_S (ranks_stop_together) late (until the hundredth session). A second is raised at once,
            # here, and stops every process: the wait may be for one held up (last_wait.py; hundred-and-seventh).
            interrupt.held()
            try:
                with interrupt.sigterm_after_a_held_interrupt_as_it():  # the agent's, on a terminal's second Ctrl-C
                    with the_last_wait():  # after it, no process waits for another (launched_sigterm.py)
                        wait_for_every_process(accelerator)
            except KeyboardInterrupt as stop:
                # Raised as the wait looked at a barrier complete already (its sleep, up to last_wait.POLL_S): none
                # waits for this one, so it is held as one that came in the wait. Left to stopping_together, it
                # stopped every process, the others gone, and the main process said its line 13.7 s after a SIGTERM
                # 3 ms past the barrier (the hundred-and-tenth session's review).
                if not every_process_came_to_the_last_wait():
                    raise
                after_the_wait = stop
    finally:
        interrupted = interrupt.released()
    if interrupted or after_the_wait is not None:  # every process has passed the last wait: none waits for this one,
        # and none need stop. Every case is written or failed: the failed ones are said with the interrupt, as in one
        # process (this process's line named none of them until the hundred-and-first session, the others' said them)
        raise PredictInterrupted(len(jobs) - len(failures), len(jobs), [line for line, _ in failures],
                                 stop_signal(after_the_wait))
    if failures:
        raise _cases_failed(failures, len(jobs))
    return outputs


def _untold_in_full(whole) -> Callable[[str], str]:
    """The line of a process other than the main one whose stop the launch's store took nothing of, which it says
    itself (``ranks_stop_together._said_untold``): what it knows of what is written (under --split cases the cases it
    wrote itself; under windows none, the main process writing each), and --continue. It said nothing until the
    hundred-and-seventeenth session, and neither did the main process."""

    def in_full(line: str) -> str:
        first, newline, rest = line.partition("\n")
        if not whole.each_process_writes:
            known = "the main process writes every case, each whole or not at all"
        elif whole.cases:
            known = (f"this process wrote {len(whole.cases)} case(s) whole: {', '.join(whole.cases)} in "
                     f"{whole.output}; no file is half-written")
        else:
            known = "this process wrote no case; no file is half-written"
        return f"{first} ({known}, and {whole.again.format('those not yet written')}){newline}{rest}"

    return in_full


def _listed(inputs) -> tuple[list, bool]:
    """(the inputs as a list, whether they are the cases themselves): one path alone, as predict_cases takes it."""
    inputs = [inputs] if isinstance(inputs, (str, os.PathLike)) else inputs
    return inputs, bool(inputs) and all(isinstance(item, InputCase) for item in inputs)


def _checked_on_every_process(accelerator, whole, model_dir, inputs, given_cases: bool, output: Path,
                              options: PredictOptions, fp32_setting: str, keep_largest, probabilities: bool,
                              names: PredictNames):
    """The checks before the work, on every process, and what any process met in them raised on every one
    (``_raise_what_the_checks_met``). Returns the model, its config, the classes kept whole, the cases, their
    outputs and the files the run writes."""
    met = None
    try:
        with _warned_by_the_main_process(accelerator):
            # every process checks it alike: emulated bf16 on the CPU was said once per process (until the
            # ninety-third session), as they all ran the check before the others were silenced
            check_precision(options.precision, accelerator.device, fp32_setting)
            # The scans' dataset.json against the model, as predict_cases compares it: before the model loads (after
            # it where config.json alone says nothing sure of the channels), warned at the caller's line by the main
            # process. Here, not at the entry (helper h131), so that a process whose copy of it says another order
            # (another node's, one rewritten between the reads) refuses with the others told, not alone: the main
            # process said "process 1 was lost: its connection closed in a collective" (review r115)
            if (early := config_without_loading(model_dir)) is not None:
                channel_names_compared(inputs, early, names, said=accelerator.is_main_process, stacklevel=4)
            model, config = load_for_prediction(model_dir)
            if early is None:
                channel_names_compared(inputs, config, names, said=accelerator.is_main_process, stacklevel=4)
            keep = kept_whole(config, keep_largest)
            cases = list(inputs) if given_cases else collect_cases(inputs, config)
        # Every process, before any work: under split=windows only the main process writes, and a refusal
        # from it alone would leave the others waiting in the first reduction.
        outputs, written = checked_outputs(cases, output, probabilities, names, prediction_ending(config))
    except Exception as error:  # noqa: BLE001 - every process learns it in the gather below; an interrupt stops
        met = error
    # an error of this process's own in the gather (an interrupt) stops every one
    gathered = _gathered_checks(met, accelerator.process_index)
    # The checks' errors, every process's in hand, are raised alike: the one each met where all met the same one
    # (most are met alike: a model's file missing, said with the flag's words and status 2), else one naming each
    # process that met one.
    with whole.raised_alike(Exception):
        _raise_what_the_checks_met(met, gathered)
    return model, config, keep, cases, outputs, written


def _jobs(cases: list[InputCase], outputs: list[Path], probabilities: bool) -> list:
    """(case, its label map's path, its probabilities' path or None) for each case, in case order."""
    return [(case, path, probabilities_path(path) if probabilities else None) for case, path in zip(cases, outputs)]


@dataclasses.dataclass
class _Work:
    """What every step of the work after the checks shares (``predict_distributed``)."""

    accelerator: object
    whole: object  # predict_stop.WrittenWhole
    model: torch.nn.Module
    config: dict
    options: PredictOptions
    keep: tuple[int, ...]  # the classes kept to their largest component (``kept_whole``)
    sequential: bool
    progress: Callable[[str], None] | None
    run_key: str
    in_a_folder: bool

    @property
    def say(self) -> Callable[[str], None] | None:
        """``progress`` on the main process, which alone says what every process does alike (the plan)."""
        return self.progress if self.progress and self.accelerator.is_main_process else None


def _segmented_on_every_process(work: _Work, jobs: list, outputs: list[Path], split: str,
                                continue_prediction: bool) -> tuple[list, list[Path], list[str]]:
    """The work, on every process alike (each step holds collectives every process enters in the same order):
    the model on this process's device, the cases left for this run, each segmented by the split chosen, and
    every process's failures gathered. Returns the jobs and outputs of this run and the failures (``CaseFailure``)."""
    from accelerate.utils import gather_object

    work.model.to(work.accelerator.device).eval()
    jobs, outputs = _left_for_this_run(work, jobs, outputs, continue_prediction)
    mode = choose_split(split, len(jobs), work.accelerator.num_processes)
    errors = _segment_by_cases(work, jobs) if mode == "cases" else _segment_by_windows(work, jobs)
    # A process that has written its share waits here for the others (split=cases: a process held up in a case).
    # The gather is one C++ call that runs no signal handler: an interrupt in it was held until it returned, however
    # often sent. Waited for first in Python's steps, an interrupt here stops every process at once, as one in the
    # work does (hundred-and-seventh session; benchmarks/results/last_wait_second_ctrl_c/).
    wait_for_every_process(work.accelerator)
    failures = [failure for rank_errors in gather_object([errors]) for failure in rank_errors]
    return jobs, outputs, failures


def _left_for_this_run(work: _Work, jobs: list, outputs: list[Path], continue_prediction: bool):
    """The jobs and outputs left to predict: with --continue, those not written whole by an earlier run. Every
    process reads the same headers before any writes, so each is left the same cases."""
    if not continue_prediction:
        return jobs, outputs
    jobs, outputs = left_to_predict(jobs, work.run_key, work.say, work.in_a_folder)
    work.whole.to_write = [case.id for case, _, _ in jobs]
    work.accelerator.wait_for_everyone()
    return jobs, outputs


def _segment_by_cases(work: _Work, jobs: list) -> list[str]:
    """split=cases: this process's share of the cases (by voxel count), each written by it. Returns its cases'
    failures (``CaseFailure``), for every process to report together."""
    accelerator, whole = work.accelerator, work.whole
    rank, num_processes = accelerator.process_index, accelerator.num_processes
    cases = [case for case, _, _ in jobs]
    spacing = preprocess_settings(work.config).spacing
    voxels = [case_voxels(case, spacing) for case in cases]
    shares = balance_by_voxels(voxels, num_processes)
    if work.say:
        loads = ", ".join(f"{len(s)} case(s)/{sum(voxels[i] for i in s)} voxels" for s in shares)
        work.say(f"split: {len(cases)} case(s) over {num_processes} processes by voxel count: {loads}")
    mine = [jobs[index] for index in shares[rank]]
    whole.each_process_writes = True
    errors: list[CaseFailure] = []
    with closing(segment_cases(work.model, work.config, mine, device=accelerator.device, options=work.options,
                               sequential=work.sequential, keep_largest=work.keep, run_key=work.run_key,
                               writing=whole.writing, in_a_folder=work.in_a_folder)) as done:
        for number, ((case, label_path, _), error) in enumerate(done, 1):
            if error is not None:  # reported by every process, no hang
                errors.append((_case_failure(error, rank, case, label_path, work.in_a_folder),
                               isinstance(error, DataError)))
            elif work.progress:
                work.progress(f"[process {rank}: {number}/{len(mine)}] {case.id}: wrote {label_path}")
    return errors


#: A case that failed under either split: its line (a bug's traceback under it), and whether it is the input's fault
#: (a file's unusable voxels: a DataError), as one process refuses it with status 2.
CaseFailure = tuple[str, bool]


def _cases_failed(failures: Sequence[CaseFailure], cases: int) -> Exception:
    """The error of a run whose ``failures`` (every process's) could not be segmented, the others written, in one
    process's words (``inference_cases.could_not_be_segmented``): a DataError where each is the input's fault, said with
    status 2 as in one process, else a RuntimeError (a bug's traceback among them; status 1). Until the
    hundred-and-tenth session "N case(s) failed" and status 1 alike, where one process said "N of M case(s) could not
    be segmented (...)" with status 2 for the same files."""
    message = could_not_be_segmented([line for line, _ in failures], cases)
    return DataError(message) if all(inputs_fault for _, inputs_fault in failures) else RuntimeError(message)


def _case_failure(error: Exception, rank: int, case: InputCase, label_path: Path, in_a_folder: bool) -> str:
    """A case's failure under split=cases, in one line: a file's unusable voxels are the input's fault, said in one
    line (its earlier map removed); anything else is a bug to report, its traceback under the line."""
    where = "" if isinstance(error, DataError) else "\n" + "".join(traceback.format_exception(error))
    # Only for the input's fault: after a failed write the map there may be this run's.
    earlier = (remove_earlier_prediction(label_path, other_ending=in_a_folder) if isinstance(error, DataError)
               else "")
    return f"process {rank}, case {case.id}: {type(error).__name__}: {error}{earlier}{where}"


def _segment_by_windows(work: _Work, jobs: list) -> list[str]:
    """split=windows: every case's windows shared by every process, the main process writing. Returns the cases
    whose files could not be used (on the main process; the others' none), for every process to report together."""
    from accelerate.utils import broadcast_object_list

    accelerator, whole = work.accelerator, work.whole
    errors: list[CaseFailure] = []
    with _warned_by_the_main_process(accelerator):
        if work.say:
            work.say(f"split: the windows of each of {len(jobs)} case(s) over {accelerator.num_processes} processes")
        window_logits = shared_window_logits(accelerator, output_channels(work.config), whole.reducing)
        with closing(segment_cases(work.model, work.config, jobs, device=accelerator.device, options=work.options,
                                   window_logits=window_logits, write=accelerator.is_main_process,
                                   sequential=work.sequential, keep_largest=work.keep, run_key=work.run_key,
                                   reading=whole.stopping_every_process, writing=whole.writing,
                                   in_a_folder=work.in_a_folder,
                                   # each case's outcome is a broadcast below, which an interrupted process would
                                   # enter alone; the stopping line names the case being written (WrittenWhole)
                                   yield_after_an_interrupt=False)) as done:
            for number, ((case, label_path, _), error) in enumerate(done, 1):
                # A file that cannot be used fails alike on every process (the same file, the same checks, before
                # the case's first window), so all of them go on to the next case and the main process reports it;
                # until the seventieth session the first such case stopped the run, leaving every later case
                # unsegmented and unreported. Anything else stops it.
                if isinstance(error, DataError):
                    if accelerator.is_main_process:  # which alone writes, and so removes
                        removed = remove_earlier_prediction(label_path, other_ending=work.in_a_folder)
                        errors.append((f"case {case.id}: {error}{removed}", True))
                    continue
                # The main process's own error in writing (out of memory named) stops every process now.
                if error is not None:
                    error = whole.stop_every_process(error, f"process {accelerator.process_index}, case {case.id}")
                # Where it cannot (no store), the others learn it here: they waited for it in the next case's
                # reduction (seventy-third session's review).
                handed = broadcast_object_list([error if accelerator.is_main_process else None])[0]
                if error is not None or handed is not None:
                    raise error or handed
                if work.say:
                    work.say(f"[{number}/{len(jobs)}] {case.id}: wrote {label_path}")
    return errors


#: The refusals of the checks before the work, by name: raised on every process as the process that met it did, with
#: status 2 as in one process. An OSError is one (a file only that process sees), as predict says it in one process
#: and where every process meets it; earlier in the ninety-ninth session it was said as a bug is, with status 1.
_REFUSALS = {kind.__name__: kind for kind in (ConfigError, DataError, OSError)}

#: What the gather of the checks carries of a process's error: (its rank, the type's name, the message, and which
#: refusal it is, None for none).
WhatTheChecksMet = tuple[int, str, str, str | None]


def _gathered_checks(met: Exception | None, rank: int) -> list[WhatTheChecksMet | None]:
    """What each process met in the checks before the work, gathered on every process: text, not the exception,
    since an exception of any kind (a bug's, an OSError's) need not pickle, nor unpickle where its __init__ takes
    other arguments than its message. A refusal's words alone (an OSError's say its file); any other error's type and
    message, its traceback under them."""
    from accelerate.utils import gather_object

    if met is None:
        return gather_object([None])
    refusal = next((name for name, kind in _REFUSALS.items() if isinstance(met, kind)), None)
    words = str(met)
    if refusal is None:
        words += "\n" + "".join(traceback.format_exception(met)).rstrip("\n")
    return gather_object([(rank, type(met).__name__, words, refusal)])


def _raise_what_the_checks_met(met: Exception | None, gathered: Sequence[WhatTheChecksMet | None]) -> None:
    """Raise on every process what any met in the checks before the work (``_gathered_checks``). Where every
    process met the same error, each raises its own, as in one process (a refusal met alike, said with the flag's
    words and status 2). The processes see the same files as a rule, and so meet alike; where they do not
    (a node's own output folder read-only, a scan on one node's disk only, a bug or a MemoryError of one
    process), those that passed went on to the first collective: the main process ended there in gloo's
    "Connection reset by peer" traceback, the error unsaid, and other nodes' processes wait there for the
    backend's timeout (a refusal until the eighty-ninth session, any other error until the ninety-ninth).

    An error that one process alone met is raised alike on all, naming that process: a refusal (``_REFUSALS``) as
    itself, with status 2; any other as a RuntimeError (status 1) that says its type, message and traceback, the
    process that met it raising it from its own. That process names itself too: the first of a node's processes to
    raise it says the line (``launcher_report.say_the_error``), and where that was the process that met it, its own
    words lacked the "process 1:" that says where to look (a race, found in the ninety-third session's suite).

    Errors that several processes met, but not every one alike (each its own kind or words, or some none), are raised
    alike on every process as one, naming each process and what it met: each process raised its own until the
    hundredth session, and the user read a line per process. A refusal's kind where every one is a refusal (status
    2), else a RuntimeError."""
    errors = [entry for entry in gathered if entry is not None]
    if met is not None and len(errors) == len(gathered) and _alike(errors):  # every process met it: each its own
        raise met
    if not errors:
        return
    if len(errors) > 1:
        raise _one_for_every_process(errors) from met
    process, kind, words, refusal = errors[0]
    if refusal is not None:
        raise _REFUSALS[refusal](f"process {process}: {words}")
    line, newline, under = _named(errors[0]).partition("\n")
    raise RuntimeError(f"{line} (met by that process alone, in the checks before the work: no case "
                       f"was written){newline}{under}") from met


def _alike(errors: Sequence[WhatTheChecksMet]) -> bool:
    """Whether every process met the same error: its kind and its first line (a bug's traceback differs by process)."""
    return len({(kind, words.partition("\n")[0]) for _, kind, words, _ in errors}) == 1


def _named(error: WhatTheChecksMet) -> str:
    """``process 1: <words>`` for a refusal (the flag's words); ``process 1: <type>: <words>`` for any other error,
    its traceback under the line."""
    process, kind, words, refusal = error
    if refusal is None:
        line, newline, under = words.partition("\n")
        words = (f"{kind}: {line}" if line else kind) + newline + under  # a MemoryError says nothing more
    return f"process {process}: {words}"


def _one_for_every_process(errors: Sequence[WhatTheChecksMet]) -> Exception:
    """One error naming what each process met in the checks, in one line, the bugs' tracebacks under it."""
    lines, under = zip(*(_named(error).partition("\n")[::2] for error in errors))
    message = "; ".join(lines) + " (in the checks before the work: no case was written)"
    message += "".join(f"\n{traceback_lines}" for traceback_lines in under if traceback_lines)
    refusals = [refusal for *_, refusal in errors]
    kind = _REFUSALS[refusals[0]] if None not in refusals else RuntimeError
    return kind(message)
