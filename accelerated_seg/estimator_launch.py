"""How the estimator's fit runs: in this process or in the processes notebook_launcher starts (the GPUs to
launch, the precision agreed with ``accelerate launch``, this process's signal handlers kept across the launch),
and the checks made before anything is launched in the estimator's words: the network on its blocks, an epoch
holding a batch, and epochs cut to optimizer steps as training cuts them."""
from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import launched_profile
from .collector import forked_for_one_job
from .config import Config, ConfigError
from .data.loader import patches_per_epoch
from .data.manifest import Manifest
from .data.workers import PREEMPTION_SIGNALS
from .launch_env import launched_processes
from .model_folders import ESTIMATOR_NAMES, Names
from .models import model_spec
from .ranks_stop_together import EXIT_INTERRUPTED
from .stopped_step import stopped_step_read
from .strategy import MIXED_PRECISION, precision_against_the_launched_json

#: How the estimator's precision is given, as strategy's messages name it (``strategy._precision_given``).
ESTIMATOR_PRECISION = "Segmentation(precision='{precision}')"

if TYPE_CHECKING:
    from .estimator_dataset import Dataset


def fit_in_launched_process(cfg: Config, manifest: Manifest, stopped_step_to: Path | None = None,
                            names: Names = ESTIMATOR_NAMES) -> None:
    """One process of a launched fit: what it inherited left to the launching process (``forked_for_one_job``), one
    thread (``_one_thread_after_the_fork``), Ctrl-C taken as a one-process fit takes it, the main process writing the
    step it stopped after to ``stopped_step_to`` for the launching process (``stopped_step``); its messages in the
    fit's ``names``.

    notebook_launcher forks its processes after torch elastic's ``PContext.start`` set SIGINT to its handler
    (torch 2.13, accelerate 1.16), and a fork keeps the handler: Ctrl-C raised torch's ``SignalException``, which
    train's Ctrl-C handling does not catch, so no process said where to resume (until the hundred-and-second
    session). With Python's own handler each raises KeyboardInterrupt, and train says which checkpoint is whole.
    Python's, even where the launching process ignored SIGINT (a shell's background job): torch's handler stops
    that one on SIGINT all the same, and its agent sends SIGINT on to these, which would otherwise train on until
    it kills them (SIGKILL, 30 s later)."""
    forked_for_one_job()  # first: a collection may come with any allocation
    from .train import train

    _one_thread_after_the_fork()
    _own_progress_bar_lock()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        train(cfg, manifest=manifest, names=names, stopped_step_to=stopped_step_to)
    except KeyboardInterrupt:  # said where to resume (or that nothing was saved) already
        # torch.multiprocessing's wrapper of a forked process takes KeyboardInterrupt for its parent's stop and
        # ends the process with status 0: SIGINT to this process alone, before the processes have met, left the
        # others waiting in the rendezvous for ever, torch's agent seeing no failure (the fit not returning 293 s
        # later, until the hundred-and-eighth session's review). 130, as ranks_stop_together ends them all once
        # they have met: the agent stops the others, and the launching process raises KeyboardInterrupt
        # (interrupt_of_the_launch).
        sys.exit(EXIT_INTERRUPTED)
    _exit_once_returned()


def _exit_once_returned() -> None:
    """Let this process end as soon as torch elastic's ``_wrap`` has put what it returned in its queue: the event set
    here, just before that put (the call is the launched function's last), ``_wrap``'s wait after it returns at once.

    ``_wrap`` then waits for an event its agent sets only from its poll of every process's result (torch 2.13).
    After SIGTERM or SIGUSR1 to the launching process the agent polls no more: it has sent the signal on and waits
    for the processes to end, and these, saved and returned, waited for that event until it killed them (SIGKILL,
    TORCH_ELASTIC_SHUTDOWN_TIMEOUT, 30 s), so fit returned preempted 30 s after the signal, a SLURM KillWait late
    (until the hundred-and-third session). The event only keeps a process from ending before its result is read:
    a result put in the queue's pipe outlives its writer, and the agent's poll still reads it. So for this None:
    a result holding tensors would need its writer alive until they are read (shared through file descriptors
    or shared memory). Set by any process, it lets each end once it has put its own. Nothing to do outside
    ``_wrap`` (a fit under ``accelerate launch``). Through torch's private ``_wrap`` (its frame and local name),
    which tests/test_estimator_launch.py names, failing where torch changes it."""
    from torch.distributed.elastic.multiprocessing.api import _wrap

    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not _wrap.__code__:
        frame = frame.f_back
    if frame is not None and (returned := frame.f_locals.get("queue_finished_reading_event")) is not None:
        returned.set()


def _one_thread_after_the_fork() -> None:
    """One intra-op thread in a forked rank, as ``accelerate launch`` gives each process it starts by default
    (OMP_NUM_THREADS=1 on GPUs), but whatever OMP_NUM_THREADS says. GNU OpenMP's pool of threads does not survive a
    fork: where the launching process had run a parallel operator on several threads (a notebook kernel's torch uses
    every core), the rank's first parallel operator on more than one waited for ever for threads it does not have.
    OMP_NUM_THREADS set too: accelerate's CPU state sets cores / processes threads where it is unset."""
    import torch

    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)


def _own_progress_bar_lock() -> None:
    """This forked rank's own tqdm write lock. tqdm shares one between a process and those it forks: a
    multiprocessing RLock, a semaphore no process's death releases. A rank that ends holding it (its line said and
    ``os._exit`` from the watcher thread while its main thread was writing the step's bar, at a Ctrl-C) left it held
    for ever, and the next fit's ranks, forked from the same notebook, waited for it in their first bar (the dataset's
    loading, ``datasets.load_from_disk``) until killed: a resume after an interrupted multi-GPU fit hung in the
    hundred-and-fourteenth session's CI. Bars of different ranks then share no lock: only the main process draws
    the step's bar."""
    import threading

    from tqdm import std

    std.TqdmDefaultWriteLock.mp_lock = threading.RLock()  # before the lock below is made: it takes this one
    std.TqdmDefaultWriteLock.th_lock = threading.RLock()  # held in the launching process as it forked, maybe
    fresh = std.TqdmDefaultWriteLock()
    classes = [std.tqdm]
    while classes:  # a subclass's own lock (get_lock sets it on the class asked: datasets' tqdm) replaced too
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if "_lock" in vars(cls) or cls is std.tqdm:
            cls._lock = fresh


def launch_precision(precision: str | None) -> str:
    """accelerate's mixed_precision for this fit: ``precision``'s, or the launch's when it is None.

    ``accelerate launch`` hands its setting over as ACCELERATE_MIXED_PRECISION, "no" where neither its
    ``--mixed_precision`` nor the profile's ``mixed_precision`` says one. That default asks for nothing, and a
    precision given to the estimator wins over it (it was refused as "the launch asks for mixed_precision 'no'"
    until the ninety-seventh session). A precision the user set for the launch that contradicts it is an error, as
    two settings of one thing, and so is one a DeepSpeed json's bf16/fp16 block contradicts: before anything is
    written, not as the Accelerator is built.
    """
    launched = os.environ.get("ACCELERATE_MIXED_PRECISION")
    if precision is None:
        return launched or "no"
    wanted, given_as = MIXED_PRECISION[precision], ESTIMATOR_PRECISION.format(precision=precision)
    if launched is not None and launched != wanted and (asked_by := _launch_precision_asked_by(launched, wanted)):
        who, asked, launching = asked_by
        said = "no mixed precision" if asked == "no" else f"mixed precision {asked}"
        raise ConfigError(f"fit: {given_as}, but {who} asks for {said}: give it once, either by leaving "
                          f"precision out or by launching with {launching.format(mixed=wanted)}")
    if problem := precision_against_the_launched_json(precision, ESTIMATOR_PRECISION):
        raise ConfigError(f"fit: {problem}")
    return wanted


#: How a launch of accelerate's is given a precision, for the remedy of a conflict with the estimator's.
_LAUNCH_OPTION = "--mixed_precision {mixed}"


def _launch_precision_asked_by(launched: str, wanted: str) -> tuple[str, str, str] | None:
    """(who, the precision, how to launch with another {mixed}) where the user set the launch's precision
    ``launched`` other than ``wanted``, else None: the launch's "no" by default, or the profile's ``wanted`` where the
    launch cannot be told. The launcher's own --mixed_precision, else the launched profile's top-level
    mixed_precision (a file's 'no' is the user's, as configs/accelerate/cpu.yaml's), else ACCELERATE_MIXED_PRECISION
    set for torchrun run directly ("no" too: torchrun exports none of its own; it was not refused until the
    ninety-eighth session), else a value other than "no" that cannot be traced."""
    if (option := launched_profile.launched_mixed_precision_option()) is not None:
        return f"accelerate launch's --mixed_precision {option}", option, _LAUNCH_OPTION
    if (profile := launched_profile.launched_mixed_precision()) is not None:
        key, setting = profile
        return None if key == wanted else (setting, key, _LAUNCH_OPTION)
    if (variable := launched_profile.environment_precision_setting()) is not None:
        return variable.format(mixed=launched), launched, "ACCELERATE_MIXED_PRECISION={mixed}"
    if launched != "no":
        return "the launch (ACCELERATE_MIXED_PRECISION)", launched, _LAUNCH_OPTION
    return None


# What torch elastic's process context, under notebook_launcher, takes over in the launching process: its own four,
# and SIGUSR1, which the launch takes as they are taken (``preemption_sent_on``).
ELASTIC_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1")
                        if hasattr(signal, name))


@contextlib.contextmanager
def preemption_sent_on():
    """SIGUSR1 to the launching process taken as torch elastic takes SIGTERM: its agent sends it on to the
    launched processes, which save and stop as training does on a scheduler's notice
    (``checkpoint.PreemptionSignals``). Put back by ``signal_handlers_kept``, inside which this runs.

    torch's launch handles SIGTERM, SIGINT, SIGHUP and SIGQUIT alone (its LaunchConfig.signals_to_handle, which
    notebook_launcher does not set and which overrides TORCHELASTIC_SIGNALS_TO_HANDLE): SIGUSR1's default action
    ended the launching process (a script's fit, a notebook's kernel) at once, its processes saving by themselves
    with no one to return to, until the hundred-and-second session. Signal handlers belong to the main thread."""
    if hasattr(signal, "SIGUSR1") and threading.current_thread() is threading.main_thread():
        # torch's own handler of the four (private in torch 2.13, no public one): the agent's shutdown that sends
        # the signal on to the processes follows its SignalException
        from torch.distributed.elastic.multiprocessing.api import _terminate_process_handler

        signal.signal(signal.SIGUSR1, _terminate_process_handler)
    yield


def preempted_summary_of_the_launch(error: BaseException, summary: Path, launched_ns: int) -> dict | None:
    """The summary of a launched fit that SIGTERM or SIGUSR1 to the launching process stopped as a one-process fit
    stops on them: returning, preempted. None for any other error, or where no process wrote a summary since
    ``launched_ns`` (the signal came before they trained, or they were killed: torch's error stands then).

    torch elastic's handler raises its ``SignalException`` in the launching process, its agent sends the signal
    on to the launched processes, which save and write ``summary.json``, and raises the exception again: fit
    raised it, a traceback of torch's agent, where a one-process fit returns preempted (until the
    hundred-and-second session). A summary.json older than the launch is an earlier fit's (a resumed run's)."""
    from torch.distributed.elastic.multiprocessing.api import SignalException

    if not (isinstance(error, SignalException) and error.sigval in PREEMPTION_SIGNALS):
        return None
    written = summary_written_since(summary, launched_ns)
    return written if written is not None and written.get("preempted") else None


def summary_written_since(summary: Path, launched_ns: int) -> dict | None:
    """The run's ``summary.json`` where this launch (begun at ``launched_ns``) wrote it: its main process writes it
    last, after the export (``configured_run.finish_run``), so the run ended as train ends it, finished or
    preempted. None where it wrote none: an older one is an earlier fit's (a resumed run's)."""
    try:
        if summary.stat().st_mtime_ns < launched_ns:
            return None
        written = json.loads(summary.read_text())
    except (OSError, ValueError):
        return None
    return written if isinstance(written, dict) else None


def interrupt_of_the_launch(error: BaseException, stopped_step: Path | None = None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt a one-process fit would raise where ``error``, out of notebook_launcher, is SIGINT's:
    its ``step`` the one the launch's main process wrote to ``stopped_step`` (``fit_in_launched_process``), as a
    one-process fit's says the step it stopped after; none where it wrote none.

    SIGINT reaches the launching process (a terminal's Ctrl-C reaches its process group, Jupyter's "interrupt
    kernel" the kernel alone), where torch elastic's handler raises its ``SignalException``; its agent then sends
    SIGINT on to the launched processes, waits for them to end (30 s, then SIGKILL) and raises the exception again
    (torch 2.13's ``SimpleElasticAgent.run``). The processes have said where to resume by then: what is left is
    torch's traceback of its own agent in place of Ctrl-C's one line. Also torch's ChildFailedError where the first
    process to end was interrupted (status 130: ``ranks_stop_together`` once the processes have met, one interrupted
    alone before, ``fit_in_launched_process``), having said its line: fit raised that error, torch's table, and
    recorded no interrupted fit until the hundred-and-eighth session's review. None for any other error."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    interrupted = ((isinstance(error, SignalException) and error.sigval == signal.SIGINT)
                   # the first process to end was interrupted, and said so
                   or (isinstance(error, ChildFailedError)
                       and error.get_first_failure()[1].exitcode == EXIT_INTERRUPTED))
    if not interrupted:
        return None
    interrupt = KeyboardInterrupt()
    if stopped_step is not None and (step := stopped_step_read(stopped_step)) is not None:
        interrupt.step = step
    return interrupt


@contextlib.contextmanager
def torch_elastic_files_in(launch_folder: str):
    """torch elastic's files of the launch this thread makes kept out of the temporary folder: its log folder made in
    ``launch_folder`` (as ``torchelastic``), which the estimator removes with the launch, and a failed process's
    ``pytorch-errorfile-*.pickle`` removed after the launch.

    Its agent makes the log folder with ``tempfile.mkdtemp(prefix="torchelastic_")`` where no log_dir is given
    (``LaunchConfig`` makes a ``DefaultLogsSpecs()``, torch 2.13), and ``notebook_launcher`` gives none nor takes one,
    nor does torch read one from the environment: each launch left a folder of ~20 KB (the processes' error.json
    files) in the temporary folder, however it ended, and a process that raised left its error file there too
    (``torch.multiprocessing.start_processes``; until the hundred-and-eleventh session). For the launch, torch's
    ``launcher.api.DefaultLogsSpecs`` and ``torch.multiprocessing.start_processes`` are wrapped so that a launch
    made by this thread (notebook_launcher makes it in the calling thread) logs here and its error files are noted;
    both are put back after, however the launch ends. A call from another thread gets torch's own (the forked
    processes inherit the wrappers but make no launch).

    Until the hundred-and-eleventh session's review ``tempfile.tempdir`` pointed here for the launch: every
    temporary file or folder that any thread of the launching process made meanwhile (a notebook's background job,
    ``multiprocessing``'s ``pymp-*`` folder, which it makes once and keeps for the process's life) was made here and
    deleted with the launch, still in use. Chosen over making the launch ourselves (``elastic_launch`` with a
    log_dir: notebook_launcher's environment and checks copied) and over removing a ``torchelastic_*`` folder
    afterwards (which one is this launch's cannot be told from another program's running launch)."""
    import torch.multiprocessing
    from torch.distributed.launcher import api as launcher_api

    logs_specs, start_processes = launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes
    launching, error_files = threading.get_ident(), []

    def logs_in_the_launch_folder(log_dir: str | None = None, *args, **kwargs):
        if log_dir is None and threading.get_ident() == launching:
            log_dir = os.path.join(launch_folder, "torchelastic")
        return logs_specs(log_dir, *args, **kwargs)

    def error_files_noted(*args, **kwargs):
        context = start_processes(*args, **kwargs)
        if threading.get_ident() == launching:  # torch's ProcessContext (join=False, as its agent asks), else None
            error_files.extend(getattr(context, "error_files", None) or ())
        return context

    launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes = logs_in_the_launch_folder, error_files_noted
    try:
        yield
    finally:
        launcher_api.DefaultLogsSpecs, torch.multiprocessing.start_processes = logs_specs, start_processes
        for error_file in error_files:  # written by a process that raised; its processes have ended
            with contextlib.suppress(OSError):
                os.unlink(error_file)


@contextlib.contextmanager
def signal_handlers_kept():
    """Put this process's handlers of ``ELASTIC_SIGNALS`` back after a launch.

    torch elastic's ``PContext.start`` (notebook_launcher starts its processes through it) sets them
    to a handler that raises its ``SignalException`` and never restores them. In a notebook, the
    kernel that ran a multi-GPU fit then met a later interrupt with a torch traceback instead of a
    KeyboardInterrupt, and a later one-process fit in it could not say, on Ctrl-C, which checkpoint
    a resume continues from. Signal handlers belong to the main thread; elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.getsignal(signum) for signum in ELASTIC_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            if handler is not None:  # None: set outside Python, which cannot be put back from here
                signal.signal(signum, handler)


def gpus_to_launch() -> int:
    """GPUs for notebook_launcher: all visible ones, unless processes were launched already."""
    import torch

    if launched_processes() > 1:
        return 1  # accelerate launch started us: train in this process, with the others
    return torch.cuda.device_count() if torch.cuda.device_count() > 1 else 1


def port_to_launch_on() -> str:
    """The port notebook_launcher's processes meet on: MASTER_PORT where it is set, else one free now.

    notebook_launcher's default, 29500, is also ``accelerate launch``'s and torchrun's: a fit with several processes
    beside another launch on the machine (another notebook's fit, a training job) failed with torch's
    ``DistNetworkError: ... port: 29500 ... address already in use`` traceback, until the hundred-and-second
    session. The port is free as this returns, and bound by the launch a moment later; another program taking it
    in between is a race the default port loses every time instead."""
    import socket

    if port := os.environ.get("MASTER_PORT"):
        return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))  # notebook_launcher's master_addr: the kernel picks a port free there
        return str(probe.getsockname()[1])


def check_the_master_port() -> None:
    """A MASTER_PORT set in this process's environment (a kernel started from a job script, an ``export`` of an
    earlier launch) that is not a port or that another program holds, refused before anything is written: the
    launch failed on it after the run's folder was made, with torch's ``DistNetworkError`` traceback (address
    already in use), until the hundred-and-third session. Probed as the launch's store binds it, on every address
    and with SO_REUSEADDR (libuv's), so that only a port another socket holds is refused."""
    import socket

    if not (port := os.environ.get("MASTER_PORT")):
        return
    remedy = "unset MASTER_PORT to let fit take a free port, or set it to a free one"
    if not (port.isdigit() and 0 < int(port) < 65536):
        raise ConfigError(f"fit: MASTER_PORT={port!r} (this process's environment) is not a port number, which the "
                          f"launched processes meet on: {remedy}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("", int(port)))
        except OSError as taken:
            raise ConfigError(f"fit: MASTER_PORT={port} (this process's environment) is in use on this machine, by "
                              f"another program or launch ({taken.strerror}), and the launched processes would meet "
                              f"on it: {remedy}") from None


def check_the_network_fits_the_blocks(cfg: Config, dataset: Dataset, processes: int, where: str = "fit",
                                      names: Names = ESTIMATOR_NAMES) -> None:
    """Training's check of the network on its patches (``models.check_trainable``, a meta-device pass),
    here before anything is written or launched and in the words of ``where``, the method called, and of its
    ``names``: a block_shape too small for the network was refused as "data.patch_size" and "model.args", after the
    strategy lines, and left an empty parent of output_dir behind (sixty-ninth session); Dataset.fit, whose network
    is its config's model.args, was said to be fit and told of the estimator's model_args (until the ninety-third).
    The checks name the settings as ``names`` does: the command line's words were rewritten here until then."""
    from .models import check_trainable

    plan = _batch_plan(cfg, processes)
    manifest = dataset.manifest
    try:
        spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_outputs, cfg.data.patch_size,
                          cfg.model.args, names)
        # the arguments MONAI's constructor refuses as the caller names them: model_args['channels'] to fit, the
        # config's model.args.channels to Dataset.fit
        check_trainable(spec, cfg.data.patch_size, plan.per_device * (processes if cfg.train.sync_batchnorm else 1),
                        names=names)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None


def _batch_plan(cfg: Config, processes: int):
    """The batch plan training will resolve for ``cfg`` over ``processes`` (``schedule.resolve_batch``)."""
    from .schedule import resolve_batch

    return resolve_batch(cfg.train.batch_size, cfg.train.global_batch_size, cfg.train.grad_accum_steps, processes,
                         cfg.optim.lr, cfg.optim.base_batch_size, cfg.optim.lr_scaling)


def check_an_epoch_holds_a_batch(dataset: Dataset, cfg: Config, processes: int) -> None:
    """Before any process is launched, in this API's words: train refused it in the config's
    ("raise data.samples_per_volume"), after notebook_launcher had started its processes."""
    plan, cases = _batch_plan(cfg, processes), len(dataset.manifest.training)
    patches = patches_per_epoch(cases, cfg.data.samples_per_volume)
    if patches < plan.per_device * plan.num_processes:
        raise ConfigError(f"fit: the Dataset's {cases} training case(s) x samples_per_volume "
                          f"{cfg.data.samples_per_volume} make {patches} patches an epoch, fewer than one batch of "
                          f"{plan.per_device} on each of {plan.num_processes} process(es): lower Dataset.batch(n) "
                          f"(or batch_size=), or give Dataset.from_files a larger samples_per_volume")


def steps_for_epochs(epochs: int, dataset: Dataset, cfg: Config, processes: int) -> int:
    """Optimizer steps in ``epochs`` passes over the training patches, each cut as training cuts it
    (``training_data.epoch_cut``). Where an epoch is shorter than one step, whose windows then run across
    epochs, the steps nearest the epochs' samples: one step an epoch trained 3 epochs as 4, 10 as
    13.3 (6 patches at a global batch of 8; the eighty-sixth session's review)."""
    from .training_data import epoch_cut

    plan = _batch_plan(cfg, processes)
    patches = patches_per_epoch(len(dataset.manifest.training), cfg.data.samples_per_volume)
    cut = epoch_cut(patches, plan)
    return max(1, math.floor(epochs * (patches // cut * cut) / plan.global_batch + 0.5))  # halves up, not to even
