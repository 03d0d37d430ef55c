"""``accelerated-seg``: the command line over the same pieces the Python API uses.

    accelerated-seg synth data/                      # write the embedded phantom dataset
    accelerated-seg check data/dataset.json          # pre-flight checks only
    accelerated-seg cache --config exp.yaml --prune  # remove the preprocessed versions no run uses
    accelerated-seg cache                            # every dataset in the cache, and where it was read from
    accelerated-seg cache --prune                    # remove the checks' records this install cannot use
    accelerated-seg train --config configs/demo.yaml --optim.lr=3e-4
    accelerated-seg predict --model output/model scans/ --output predictions/
    accelerated-seg evaluate predictions/ labelsTs/ --labels data/dataset.json
    accelerated-seg export output/checkpoints/step_2000 --output model_2000

``train`` runs in this process; for several processes or GPUs start ``examples/train.py`` with
``accelerate launch`` (the strategy comes from the accelerate config file).

This module holds the parser, the dispatch (``COMMANDS``) and ``train``, ``synth`` and ``export``; each other
command is a module of its own, named for it: check_command.py, cache_command.py, predict_command.py,
evaluate_command.py, plan_command.py and benchmark_command.py.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import re
import shlex
import signal
import sys
from collections.abc import Iterator
from typing import NoReturn

from . import benchmark_command, cache_command, check_command, evaluate_command, plan_command, predict_command
from .collector import importing_without_collection
from .early_signals import handed_over, stopped_before_it_began, stopping_before_the_command
from .exit_now import exit_now
from .launch_env import launched_processes
from .launcher_report import say_the_error
from .own_warnings import said_as_lines
from .printed_paths import paths_printable
from .shell_words import shell_word
from .predict_options import TTA_MODES
from .sigterm import deaf_once_stopped, exit_status, stop_signal, stopped_by, stops_as_an_interrupt


def main(argv: list[str] | None = None) -> int:
    """The command line. Without ``argv`` it is this process's command (the console script, ``python -m
    accelerated_seg``), whose stop in its first seconds says a line (early_signals.py); called from Python with its
    arguments, it leaves the caller's signals alone."""
    if argv is None:
        stopping_before_the_command(*_stopping_as(sys.argv[1:]))
    _PREEMPTED.clear()
    try:
        with paths_printable():  # a name's bytes that are not UTF-8 shown as \xNN, not a UnicodeEncodeError
            status = _command_line(sys.argv[1:] if argv is None else list(argv))
    finally:
        handed_over()  # where the command never came to its own handling (a refusal): the defaults back
    if argv is None:  # this process's command, stopped: a second signal in its shutdown changes nothing (sigterm.py)
        deaf_once_stopped(status, preempted=bool(_PREEMPTED))
    return status


_PREEMPTED: list[bool] = []  # a training this process's command ran stopped with a save (_train; main reads it)


def _stopping_as(arguments: list[str]) -> tuple[str, tuple[int, ...]]:
    """How a stop before the command began names it (``accelerated-seg train``: its first word that is no option, as
    argparse will read it), and the signals noted for it: training's SIGUSR1 (early_signals.py)."""
    command = next((word for word in arguments if not word.startswith("-")), None)
    if command not in COMMANDS:
        return "accelerated-seg", ()
    return f"accelerated-seg {command}", (signal.SIGUSR1,) if command == "train" else ()


def _command_line(arguments: list[str]) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(arguments)
    # What a result file records as its command (benchmark, plan --json): these arguments, where sys.argv
    # was the caller's own under a call from Python (pytest's, a script's)
    args.command_line = "accelerated-seg " + shlex.join(arguments)
    if args.command != "train" and (settings := _setting_overrides(arguments)):
        parser.error(_overrides_refused(args.command, settings))
    if rest and args.command != "train":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    command = " ".join([args.command] + ([args.target] if args.command == "benchmark" else []))
    if command in ONE_PROCESS_COMMANDS and (processes := launched_processes()) > 1:
        return _one_process_command_refused(command, processes)
    if not _hands_over_later(args.command):
        handed_over()  # the command's own handling begins (early_signals.py)
    try:
        # said_as_lines: predict's "warning: <scan>: its header gives no orientation ...", not Python's form
        with said_as_lines(), _sigterm_as_ctrl_c(command):
            status = COMMANDS[args.command](args, rest)
        sys.stdout.flush()  # here, so that a reader gone by now is met inside the try
        return status
    except BrokenPipeError:
        return _reader_went_away()
    except KeyboardInterrupt as interrupt:  # Ctrl-C during predict, check, ...: asked for, so no traceback
        return exit_status(interrupt)  # 130; SIGTERM's 143 (sigterm.py), synth's SIGUSR1 138


def _hands_over_later(command: str) -> bool:
    """Whether ``command`` takes over a stop in its first seconds later than its start (early_signals.handed_over):
    train as training begins (checkpoint.PreemptionSignals), a one-process predict once its imports are done; until
    then their imports, 1-9 s, ended at once on SIGTERM, nothing said (until the hundred-and-eighteenth session)."""
    return command == "train" or command == "predict" and launched_processes() <= 1


@contextlib.contextmanager
def _sigterm_as_ctrl_c(command: str) -> Iterator[None]:
    """A one-process command stops on SIGTERM as on Ctrl-C (sigterm.py): synth, evaluate and cache --prune said
    nothing of what they left, status -15, until the hundred-and-second session. predict takes it in one process
    alone (predict_command: a launch's processes end at once); train saves and stops (checkpoint.PreemptionSignals).
    Each takes SIGUSR1 so too, a requeue's notice: synth left a case's hidden temporary and its folder's marker,
    nothing said, until the hundred-and-eighteenth session; evaluate, export, cache --prune and the rest ended at
    once, status -10, nothing said (export's ``<output>.partial/`` left) until that session's review."""
    if command not in ONE_PROCESS_COMMANDS:
        yield
        return
    ran: list[str] = []  # "began" as the command runs, "ended" once it has returned
    try:
        with stops_as_an_interrupt():  # one interrupt for SIGTERM and SIGUSR1 (sigterm.py)
            ran.append("began")
            yield
            ran.append("ended")
    except KeyboardInterrupt as interrupt:
        # the command's own stop is said by it; one raised as its stops were taken or put back, outside it, is said
        # here (143 and nothing said until the hundred-and-nineteenth session's second review)
        if len(ran) != 1:
            print(_stopped_outside_the_command(command, interrupt, ended=bool(ran)), file=sys.stderr)
        raise


def _stopped_outside_the_command(command: str, interrupt: KeyboardInterrupt, ended: bool) -> str:
    """The line of a stop raised as ``command``'s handling of SIGTERM and SIGUSR1 was taken in, before the command
    began (``signal.signal`` runs the handlers of the signals pending before it sets one), or put back once it had
    ended: the command, which says its own stop's line, was not running."""
    if ended:
        return f"{stopped_by(command, interrupt)} as it ended: it had finished, as said above"
    return stopped_before_it_began(f"accelerated-seg {command}", stop_signal(interrupt) or signal.SIGINT)


def _setting_overrides(argv: list[str]) -> list[str]:
    """The ``--section.key`` settings among ``argv`` (``--model.args={init_filters: 4}`` gives
    ``--model.args``), which ``train`` alone takes."""
    from .config import Config

    sections = tuple(f"--{field.name}." for field in dataclasses.fields(Config))
    # what follows a "--" is positional, whatever it looks like: a dataset or scan named "--data.v2"
    options = argv[:argv.index("--")] if "--" in argv else argv
    return [argument.split("=", 1)[0] for argument in options if argument.startswith(sections)]


def _overrides_refused(command: str, settings: list[str]) -> str:
    """argparse said "unrecognized arguments" of such a setting, or, of one whose value holds a space,
    took it for ``check``'s DATASET, "…/--model.args={init_filters: 4}: not found" (a user-journey
    probe that checked an experiment with the overrides it trained with)."""
    where = (f"write them into the experiment file that {command} reads with --config"
             if command in ("check", "cache", "plan") else f"{command} reads no experiment settings")
    return f"{', '.join(settings)}: only train takes setting overrides on its command line; {where}"


#: The commands that run whole in one process; train, predict and benchmark train share their work over a
#: launch's processes.
ONE_PROCESS_COMMANDS = ("synth", "check", "cache", "evaluate", "export", "plan", "benchmark data", "benchmark infer",
                        "benchmark predict")


def _one_process_command_refused(command: str, processes: int) -> int:
    """Under ``accelerate launch`` of several processes every rank ran such a command whole, side by
    side: ``export``'s second rank refused the folder its first had just written ("already exists",
    the launch failed after the export), ``synth``'s ranks wrote the same phantoms at once and one
    died of the other's marker file (a FileNotFoundError traceback), ``benchmark infer``'s ranks timed
    side by side on the same device and both wrote the result file, and every rank printed its report
    (a multi-process audit). Every rank refuses alike, before anything is written; one of each node's says why."""
    message = (f"accelerated-seg {command} runs in one process, and this launch started {processes}, each of which "
               f"would run all of it, writing the same files at once: run accelerated-seg {command} without "
               f"accelerate launch (train, predict and benchmark train share their work over a launch's processes)")
    say_the_error(message)
    return 2


#: The exit statuses of a process that SIGPIPE or SIGINT (Ctrl-C) ended, as a shell reports them.
EXIT_READER_WENT_AWAY, EXIT_INTERRUPTED = 128 + 13, 128 + 2


def _reader_went_away() -> int:
    """stdout's reader left (``accelerated-seg plan ... | head``): end as SIGPIPE would, without a
    traceback. Python ignores SIGPIPE, so the write raised BrokenPipeError (a 25-line traceback
    before the forty-fourth session), and the interpreter's own flush at exit would raise it again:
    stdout now points at /dev/null for that flush (the recipe of Python's ``signal`` documentation)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_READER_WENT_AWAY


def _dataset_argument(parser: argparse.ArgumentParser) -> None:
    """The DATASET that ``check`` and ``cache`` take, where an experiment's --config does not name it."""
    parser.add_argument("dataset", type=path_argument, nargs="?",
                        help="MSD dataset.json, nnU-Net raw dataset folder, or CSV (default: --config's data.dataset)")


def build_parser() -> argparse.ArgumentParser:
    """Every command and its arguments; ``--section.key=value`` overrides after ``train`` are left over
    for the experiment config."""
    parser = argparse.ArgumentParser(prog="accelerated-seg", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action=_PrintVersions,
                        help="this package's version and the stack's, for a bug report")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)

    p = commands.add_parser("train", help="train as configured (this process; accelerate launch -m accelerated_seg "
                                          "train for more)")
    p.add_argument("--config", type=path_argument, action=GivenOnce,
                   help="experiment YAML; further --section.key=value arguments override it")
    p.add_argument("--resume", type=path_argument, action=GivenOnce,
                   help="'latest' or a checkpoint folder (same as --train.resume=...)")

    p = commands.add_parser("synth", help="write the procedural phantom dataset (NIfTI + dataset.json)")
    p.add_argument("out_dir", type=path_argument,
                   help="folder for imagesTr/, labelsTr/ and dataset.json (a phantom dataset there is rewritten)")
    p.add_argument("--cases", type=int, default=24, help="cases in all, validation included")
    p.add_argument("--validation", type=int, default=4,
                   help="the last cases, listed as validation; two or more include an anisotropic and a non-RAS case; "
                        "0: no list, so training's data.validation_fraction or data.num_folds splits the cases")
    p.add_argument("--seed", type=int, default=0, help="each case is a function of the seed and its index")

    p = commands.add_parser("check", help="pre-flight checks of a dataset and every file it lists")
    _dataset_argument(p)
    p.add_argument("--config", type=path_argument, action=GivenOnce,
                   help="check as this experiment's training reads the data: its data.dataset (unless DATASET is "
                        "given), data.labels (a CSV's classes), data.binarize and data.max_voxels")
    p.add_argument("--max-voxels", type=int, default=None,
                   help="largest volume accepted (data.max_voxels; default: --config's, else 512^3)")
    p.add_argument("--binarize", action="store_true", help="check as data.binarize=true would train")
    p.add_argument("--labels", metavar="MAPPING",
                   help="a CSV's classes (or a MONAI datalist's that declares none), as data.labels takes them "
                        "(e.g. '{0: background, 1: liver, 2: tumour}'); default: --config's data.labels, else for a "
                        "CSV 0 = background, 1 = foreground")

    p = commands.add_parser("cache", help="a dataset's preprocessed versions in the cache (without one: every "
                                          "dataset there); --prune removes unused ones")
    p.add_argument("dataset", type=path_argument, nargs="?",
                   help="MSD dataset.json, nnU-Net raw dataset folder, or CSV (default: --config's data.dataset), "
                        "or a dataset's folder in the cache, as the listing of every dataset names it")
    p.add_argument("--config", type=path_argument, action=GivenOnce,
                   help="the experiment whose data settings name the version it trains from (and its "
                        "data.cache_dir)")
    p.add_argument("--cache-dir", type=path_argument,
                   help="the cache (default: --config's data.cache_dir, else $XDG_CACHE_HOME/accelerated_seg or "
                        "~/.cache/accelerated_seg)")
    p.add_argument("--prune", action="store_true",
                   help="remove every other version of the dataset that no live run uses (of a dataset's folder "
                        "in the cache: every one; of a DATASET without --config, refused where none is the default "
                        "settings' to keep); without a dataset, the pre-flight checks' records this "
                        "install cannot use (written by another version of its checks, nibabel or numpy)")

    p = commands.add_parser("predict", intermixed=True,
                            help="segment NIfTI images with an exported model (see docs/inference.md)")
    p.add_argument("--model", type=path_argument, action="append", metavar="MODEL",  # required: predict_command.run
                   help="(required) exported model folder (config.json + model.safetensors); --model given again "
                        "for each more (e.g. the folds of a k-fold training): an ensemble, the mean of their "
                        "probabilities")
    p.add_argument("inputs", type=path_argument, nargs="*", metavar="INPUT",
                   help="NIfTI files, folders of them or quoted glob patterns; a multi-channel case is "
                        "<case>_0000.nii.gz, <case>_0001.nii.gz, ... (nnU-Net naming), or <case>_<channel name> "
                        "of the model's channels (BraTS naming: <case>_t1ce.nii.gz)")
    p.add_argument("--input", type=path_argument, nargs="+", metavar="FILE",
                   help="instead of INPUT: one case, one file per channel in the model's channel order")
    p.add_argument("--output", type=path_argument, required=True,
                   help="folder for <case>.nii.gz label maps, or a .nii.gz file when the input is one case")
    p.add_argument("--tta", nargs="?", const="all", default="none", choices=TTA_MODES,
                   type=_refusing(_tta_mode, "{word} is not a mode (none, axes, all): a bare --tta takes the word "
                                             "after it as its mode; write --tta all (what a bare --tta means) before "
                                             "an input, or give --tta after the inputs"),
                   help="mirroring test-time augmentation: all 8 flip combinations (--tta or --tta all) "
                        "or the 3 single-axis flips (--tta axes); probabilities are averaged")
    p.add_argument("--probabilities", action="store_true",
                   help="also write <case>_probs.nii.gz: float32 (X, Y, Z, classes) on the input's grid")
    p.add_argument("--keep-largest", nargs="*", metavar="LABEL",
                   type=_refusing(int, "{word} is not a label value: --keep-largest takes every word after it as "
                                       "one; give the inputs before it, or after -- at the end "
                                       "(--keep-largest 1 6 -- scans/)"),
                   help="post-processing: each of these label values (every foreground label when none is given) "
                        "kept to its largest connected component, the rest of it set to background; for one-piece "
                        "structures (a liver), not kidneys or lesions")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32",
                   help="autocast of the network (fp16 on CUDA only; default: fp32)")
    p.add_argument("--aggregate-on-cpu", action=argparse.BooleanOptionalAction, default=None,
                   help="stitch the whole volume in CPU memory while windows run on the GPU (default: only when "
                        "it would take more than half of the free GPU memory)")
    p.add_argument("--transforms-on-device", action=argparse.BooleanOptionalAction, default=True,
                   help="on a GPU, run the preprocessing after reading, its inverse and the class map there; the "
                        "host only reads and writes files and receives one byte per voxel (default; "
                        "--no-transforms-on-device keeps them on the host; docs/inference.md)")
    p.add_argument("--overlap", type=float, default=0.5, help="sliding-window overlap in [0, 1) (default: 0.5)")
    p.add_argument("--sw-batch-size", type=int, default=4, help="windows per forward pass (default: 4)")
    p.add_argument("--device", default=None, help="torch device; CUDA when available (one process only: under "
                                                   "accelerate launch each process uses its own device)")
    p.add_argument("--split", choices=["auto", "cases", "windows"], default="auto",
                   help="under accelerate launch with several processes: share whole cases (balanced by voxel "
                        "count) or each volume's windows; auto: cases when there are at least as many cases as "
                        "processes")
    p.add_argument("--sequential", action="store_true",
                   help="read, segment and write one case at a time; by default the next case is read and the "
                        "previous one written while the network runs, holding three cases in memory")
    p.add_argument("--continue", dest="continue_prediction", action="store_true",
                   help="pass over the cases whose label map (and probabilities) an earlier run wrote with the "
                        "same model(s) and options, as it left them: a run a time limit or Ctrl-C stopped goes on")

    p = commands.add_parser("evaluate", help="Dice, HD95 and surface Dice of predictions against reference labels")
    p.add_argument("pred_dir", type=path_argument, metavar="PRED", help="folder of predicted label maps <case>.nii.gz")
    p.add_argument("label_dir", type=path_argument, metavar="LABELS",
                   help="folder of reference label maps with the same file names")
    p.add_argument("--num-classes", type=int, help="classes including background (default: --labels, or the "
                                                   "values found in the files)")
    p.add_argument("--labels", type=path_argument, dest="dataset_json", metavar="DATASET_JSON",
                   help="dataset.json (or a model's config.json) whose \"labels\" name the classes, or the "
                        "dataset's (model's) folder holding it; where it declares regions (region-based "
                        "training), each region is scored")
    p.add_argument("--tolerance", nargs="+", default=[1.0], metavar="MM",
                   type=_refusing(float, "{word} is not a tolerance in mm: --tolerance takes every word after it "
                                         "as one; give PRED and LABELS before it, or after -- at the end"),
                   help="surface-Dice tolerance in mm: one for every class, or one per class in order")
    p.add_argument("--merge-foreground", action="store_true", default=None,
                   help="score every value above 0 in the references and in the predictions as one class 1, the "
                        "foreground (an ignore label's value stays out): masks saved as 0 and 255, a multi-class "
                        "model's output against them (implied, for the references alone, where --labels is the "
                        "config.json of a model trained with data.binarize)")
    p.add_argument("--output", type=path_argument,
                   help="folder for metrics.csv and summary.json (default: PRED/evaluation); an earlier "
                        "evaluation there of the same folders (or the same files, moved since) and settings is "
                        "replaced, another refused")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier evaluation in the output folder made of other folders or settings")

    p = commands.add_parser("export", help="make an exported model of a training-state checkpoint (any strategy's)")
    p.add_argument("checkpoint", type=path_argument, metavar="CHECKPOINT",
                   help="a <run>/checkpoints/step_N folder, or a run folder for its newest checkpoint")
    p.add_argument("--output", type=path_argument, required=True,
                   help="new folder for config.json + model.safetensors, as training's model/ holds them")

    p = commands.add_parser("benchmark", help="measure against a baseline in the same run; JSON to benchmarks/results/")
    targets = p.add_subparsers(dest="target", required=True)
    b = targets.add_parser("data", help="training loader patches/s vs the MONAI tutorial pipeline",
                           formatter_class=_DefaultsSaid)
    b.add_argument("--cases", type=int, default=12, help="phantom volumes written and loaded")
    b.add_argument("--size-mm", type=float, nargs=3, default=(160.0, 160.0, 128.0), help="phantom field of view")
    b.add_argument("--spacing-mm", type=float, default=1.0, help="isotropic voxel size of the phantoms")
    b.add_argument("--patch", type=int, default=96, help="cubic training patch edge in voxels")
    b.add_argument("--workers", type=int, default=2,
                   help="loader workers of both pipelines, and the processes that build both caches")
    b.add_argument("--batch", type=int, default=4, help="patches per batch (MONAI: 4 samples per cached volume)")
    b.add_argument("--batches", type=int, default=15, help="batches of ours timed per block")
    b.add_argument("--blocks", type=int, default=5, help="alternating timed blocks per pipeline")
    b.add_argument("--data-dir", type=path_argument, help="reuse this folder for the phantoms and the cache")
    b.add_argument("--output", type=path_argument,
                   help="JSON path (default benchmarks/results/data_<cores>cpu.json, or _2, "
                        "_3, ... beside an earlier run's)")
    b = targets.add_parser("infer", help="prediction's sliding window volumes/s vs MONAI sliding_window_inference",
                           formatter_class=_DefaultsSaid)
    b.add_argument("--model", type=path_argument,
                   help="exported model folder (default: the demo's U-Net with random weights)")
    b.add_argument("--size", type=int, nargs=3, default=(128, 128, 96), help="volume size in voxels")
    b.add_argument("--roi", type=int, nargs="+", default=None,
                   help="window size: one or three numbers (default 64, or the model's patch size with --model)")
    b.add_argument("--overlap", type=float, default=0.5, help="sliding-window overlap in [0, 1) (default: 0.5)")
    b.add_argument("--sw-batch-size", type=int, default=4, help="windows per forward pass (default: 4)")
    b.add_argument("--tta", choices=["none", "axes", "all"], default="none",
                   help="mirroring test-time augmentation, as predict's --tta, in both implementations")
    b.add_argument("--blocks", type=int, default=5, help="alternating timed blocks per implementation")
    b.add_argument("--volumes", type=int, default=1, help="volumes per timed block")
    b.add_argument("--device", nargs="+", help="devices to measure (default: cpu, and cuda when available)")
    b.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32",
                   help="autocast precision of both (fp16 on CUDA only)")
    b.add_argument("--output", type=path_argument,
                   help="JSON path (default benchmarks/results/infer_<cores>cpu.json, or _2, "
                        "_3, ... beside an earlier run's). Replaced by a complete result only: the devices measured "
                        "so far go to <name>.partial.json beside it, removed when the run completes; the same command "
                        "run again after a stop keeps the devices measured there (without --output, in the stopped "
                        "run's own file) and measures the others")
    b = targets.add_parser("predict", help="folder prediction cases/s, pipelined vs one case at a time",
                           formatter_class=_DefaultsSaid)
    b.add_argument("--model", type=path_argument,
                   help="exported model folder (default: a U-Net with random weights, preprocessing to 1 mm)")
    b.add_argument("--cases", type=int, default=4, help="scans in the folder")
    b.add_argument("--size", type=int, nargs=3, default=(192, 192, 160), help="scan size in voxels")
    b.add_argument("--spacing", type=float, nargs=3, default=(1.0, 1.0, 1.0),
                   help="scan voxel size in mm (other than 1 mm: prediction resamples in and out)")
    b.add_argument("--roi", type=int, help="window edge of the default U-Net (default 64; with --model: its patch)")
    b.add_argument("--channels", type=int, nargs="+",
                   help="channels of the default U-Net (default: the demo's 16 32 64 128; e.g. 4 8 for a network "
                        "that takes no longer than the host work, as on a GPU)")
    b.add_argument("--overlap", type=float, default=0.5, help="sliding-window overlap in [0, 1) (default: 0.5)")
    b.add_argument("--sw-batch-size", type=int, default=4, help="windows per forward pass (default: 4)")
    b.add_argument("--blocks", type=int, default=3, help="alternating timed blocks of the whole folder per way")
    b.add_argument("--device", help="torch device (default: CUDA when available)")
    b.add_argument("--transforms-on-device", action=argparse.BooleanOptionalAction, default=True,
                   help="both ways run the preprocessing, its inverse and the class map on the GPU, as predict does by "
                        "default (--no-transforms-on-device: on the host)")
    b.add_argument("--output", type=path_argument,
                   help="JSON path (default benchmarks/results/predict_<device>_<cores>cpu.json, or _2, "
                        "_3, ... beside an earlier run's)")
    b = targets.add_parser("train", help="training samples/s of our loop vs a plain PyTorch loop (docs/performance.md)",
                           formatter_class=_DefaultsSaid)
    b.add_argument("--model", nargs="+", default=["unet"], help="registry names (model.name)")
    b.add_argument("--model-args", help="JSON of constructor overrides (model.args), for every --model")
    b.add_argument("--patch", type=int, nargs="+", default=[64], help="cubic patch edges in voxels")
    b.add_argument("--batch", type=int, nargs="+", default=[2], help="per-device batch sizes")
    b.add_argument("--precision", nargs="+", default=["fp32"], help="fp32, bf16, fp16 (fp16 on CUDA only)")
    b.add_argument("--lever", nargs="+", default=["none"],
                   help="speed levers, each measured as its own configuration on both loops: none, channels_last, "
                        "channels_last_norm (with channels_last), fused_adamw, sgd, compile, compile_cudagraphs, "
                        "compile_autotune, no_cudnn_benchmark, ddp_static_graph, ddp_bucket_view; several joined by "
                        "'+' are one configuration "
                        "(e.g. --lever none compile compile+channels_last)")
    b.add_argument("--data", choices=["synthetic", "real"], default="synthetic",
                   help="synthetic: random patches on the device (the loop's cost alone); real: phantom volumes "
                        "through the training data path, to measure the data wait")
    b.add_argument("--num-workers", type=int, help="loader workers per process with --data real (default 2)")
    b.add_argument("--augment-on", choices=["auto", "cpu", "gpu"], default="auto",
                   help="with --data real, where the spatial augmentation runs (data.augment_on): in the loader "
                        "workers (cpu), on the device inside both loops (gpu), or as training places it (auto: "
                        "gpu on CUDA, else cpu)")
    b.add_argument("--ddp-bucket-mb", type=int, help="DDP gradient bucket size for both loops (default 25)")
    b.add_argument("--classes", type=int, default=3, help="output classes including background")
    b.add_argument("--steps", type=int, default=5, help="optimizer steps per timed block")
    b.add_argument("--blocks", type=int, default=5, help="alternating timed blocks per loop")
    b.add_argument("--warmup-blocks", type=int, default=1, help="untimed blocks per loop first")
    b.add_argument("--peak-tflops", type=float, help="dense peak TFLOP/s of one device for MFU (default: the "
                                                      "table for H100/H200; none on CPU)")
    b.add_argument("--price-per-gpu-hour", type=float,
                   help="price of one device-hour for the cost columns (default: none, and no costs)")
    b.add_argument("--epoch-samples", type=int, default=168, help="samples per epoch (default MLPerf KiTS19: 168)")
    b.add_argument("--output", type=path_argument,
                   help="JSON path (default benchmarks/results/train_<device>_<N>proc.json, or _2, _3, ... "
                        "beside an earlier run's). Replaced by a complete result only: the results so far go to "
                        "<name>.partial.json beside it, removed when the run completes; the same command run again "
                        "after a stop keeps the configurations measured there (without --output, in the stopped "
                        "run's own file) and measures the others")

    p = commands.add_parser("plan", help="per-GPU memory of each strategy and the batch that fits (docs/planning.md)",
                            formatter_class=_DefaultsSaid)
    p.add_argument("--config", type=path_argument, action=GivenOnce, metavar="YAML",
                   help="an experiment config (configs/*.yaml): its model, patch, batch and global batch, and its "
                        "dataset's image channels and classes; an option given here wins over it")
    p.add_argument("--model", help="registry name (model.name), e.g. unet3d_mlperf; required without --config")
    p.add_argument("--patch", type=int, nargs=3, metavar="N",
                   help="training patch (data.patch_size); required without --config")
    p.add_argument("--batch", type=int, help="per-GPU batch (train.batch_size; default: the config's, else 2)")
    p.add_argument("--accelerate-config", type=path_argument, metavar="YAML",
                   help="the accelerate config file of the launch (configs/accelerate/*.yaml): its precision and "
                        "processes, and its strategy's row marked in the table")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"],
                   help="mixed precision of the accelerate profile (default: --accelerate-config's, else bf16)")
    p.add_argument("--gpus", type=int,
                   help="GPUs, one process each (default: --accelerate-config's num_processes, else 1)")
    p.add_argument("--gpu-memory", type=float, default=80.0, help="memory of one GPU in GiB")
    p.add_argument("--global-batch", type=int, help="samples per optimizer step to reach (train.global_batch_size; "
                                                    "default: the config's, else none: the largest batch that fits, "
                                                    "without accumulation)")
    p.add_argument("--optimizer", choices=["adamw", "sgd"],
                   help="the optimizer whose state is counted (optim.optimizer; default: the config's, else adamw; "
                        "SGD's momentum is the config's optim.momentum, else 0.99)")
    p.add_argument("--model-args", help='JSON object of model.args, e.g. \'{"filters": [16, 32, 64, 128, 256, 320]}\' '
                                        "(replaces the config's)")
    p.add_argument("--in-channels", type=int, help="image channels (default: the config's dataset, else 1)")
    p.add_argument("--classes", type=int,
                   help="the network's outputs: classes including background, or regions (default: the "
                        "config's dataset, else 3)")
    p.add_argument("--json", type=path_argument,
                   metavar="PATH", help="also write the estimate and proposal to this JSON file")
    p.add_argument("--measure", action="store_true",
                   help="CUDA only: run real training steps on this GPU and print torch.cuda.max_memory_allocated "
                        "next to the estimate")
    return parser


class _DefaultsSaid(argparse.HelpFormatter):
    """The help of plan's and the benchmarks' options, each ending in its default where the text does not say
    it already: --help said "phantom volumes written and loaded" and "memory of one GPU in GiB" without the 12
    and the 80 that a run without them uses (ninety-third session's probe). Read from the parser, so it cannot
    drift from the default in effect."""

    def _get_help_string(self, action):
        text = action.help or ""
        if not action.option_strings or "default" in text or action.default in (None, False, argparse.SUPPRESS):
            return text
        values = action.default if isinstance(action.default, (list, tuple)) else [action.default]
        said = " ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in values)
        return f"{text} (default: {said.replace('%', '%%')})"  # argparse fills %(name)s into help texts


def path_argument(text: str) -> str:
    """A file or folder argument, ``~`` expanded as in the config's paths. An empty one (an unset shell
    variable) would be the working directory to pathlib: predict and evaluate wrote their outputs
    there, evaluate naming another folder.

    The shell leaves ``~`` alone after ``=`` (``--output=~/preds``): export and evaluate wrote into a
    folder named ``~`` in the working directory (which ``rm -rf ~`` then deletes with one's home), and
    predict failed after nibabel had expanded the name of its temporary alone (seventy-fifth session).
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty path {text!r}; give a file or folder")
    return os.path.expanduser(text)


def _tta_mode(text: str) -> str:
    if text not in TTA_MODES:
        raise ValueError(text)
    return text


def _refusing(convert, why: str):
    """The ``type`` of an option that takes the words after it (nargs "?", "*", "+"): a word that is none
    of its values is refused with ``why`` (its ``{word}`` that word), which says what to write instead.
    argparse said "invalid int value: 'scan.nii.gz'" (or "invalid choice") alone, of an input given
    after the option: argparse gives an option every word after it that could be one of its values."""

    def value(text: str):
        try:
            return convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(why.format(word=repr(text))) from None

    return value


class _CommandParser(argparse.ArgumentParser):
    """A command's parser; with ``intermixed=True`` its positionals may stand anywhere among its options,
    as GNU tools take them: ``predict a.nii.gz --output out/ b.nii.gz``. argparse's plain parse takes a
    variadic positional (predict's INPUT...) as one run of words, so the inputs after an option ended
    in "unrecognized arguments: b.nii.gz" (a user's report). argparse's own parse_intermixed_args
    refuses a parser with subparsers (a TypeError), so it cannot be the top level's parse; each
    command's parser is called by the subparsers action through parse_known_args, which this turns
    into parse_known_intermixed_args.

    What it does not change: an option with a variable number of values (``--input``, ``--keep-largest``,
    a bare ``--tta``) still takes the words after it, as argparse reads them in any order; a word that
    cannot be one of its values is refused saying where it goes (``_refusing``)."""

    def __init__(self, *args, intermixed: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self._intermixed, self._parsing = intermixed, False

    def parse_known_args(self, args=None, namespace=None):
        if not self._parsing and (joined := self._values_joined_by_commas(sys.argv[1:] if args is None else args)):
            self.error(joined)
        if not self._intermixed or self._parsing:  # the intermixed parse calls this twice (Python 3.10-3.13)
            return super().parse_known_args(args, namespace)
        args = list(sys.argv[1:] if args is None else args)
        # After "--" every word is positional (a scan named "--x.nii.gz"). The intermixed parse loses a "--"
        # that no positional precedes, and then reads such a word as an option (Python 3.10-3.13; it was
        # "unrecognized arguments: --x.nii.gz"): the words after it go to the command's positional here.
        after = args[args.index("--") + 1:] if "--" in args else None
        self._parsing = True
        try:
            namespace, extras = self.parse_known_intermixed_args(args if after is None else args[:-len(after) - 1],
                                                                 namespace)
        finally:
            self._parsing = False
        if after:
            (positional,) = self._get_positional_actions()  # predict's INPUT..., the one variadic positional
            try:
                words = [(positional.type or str)(word) for word in after]
            except argparse.ArgumentTypeError as error:
                self.error(f"argument {positional.metavar or positional.dest}: {error}")
            setattr(namespace, positional.dest, [*getattr(namespace, positional.dest), *words])
        return namespace, extras

    def _values_joined_by_commas(self, args) -> str | None:
        """The error for an option of several values (``--patch N N N``, ``--precision P...``) given them joined
        by commas, as a researcher types a list: argparse said "expected 3 arguments", "invalid int value:
        '64,64'", or passed on 'fp32,bf16' to be "not known", none of which said how to write them. Not of a
        path's option: a comma may be in a file's name."""
        several = {option for action in self._actions if action.type is not path_argument
                   and (action.nargs in ("+", "*") or isinstance(action.nargs, int) and action.nargs > 1)
                   for option in action.option_strings}
        option = None
        for word in args:
            if word == "--":
                return None
            if word.startswith("--"):
                option, _, word = word.partition("=")
            if option in several and re.fullmatch(r"[^,\s]+(,[^,\s]+)+,?", word):
                values = " ".join(value for value in word.split(",") if value)
                return f"argument {option}: {word!r}: give its values separated by spaces, not commas: {option} {values}"
        return None


class GivenOnce(argparse.Action):
    """An option that may be given once: argparse keeps the last of ``--config a.yaml --config
    b.yaml``, so a run trained on b's settings alone (the demo data, had b no data section) without
    a word about a."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest) is not None:
            parser.error(f"{option_string} given twice ({getattr(namespace, self.dest)}, {values}): give one "
                         + ("experiment file, and change its settings with --section.key=value after it"
                            if self.dest == "config" else "value"))
        setattr(namespace, self.dest, values)


class _PrintVersions(argparse.Action):
    """``--version`` on one line (argparse's own version action wraps it at the terminal width)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(_versions())
        parser.exit()


def _versions() -> str:
    """``accelerated-seg X (torch Y, ...; python Z; cpu ...)`` from the installed distributions'
    metadata, without importing them (torch alone takes seconds), so every command line pays nothing
    for it, and the CPU from /proc/cpuinfo where there is one."""
    from . import __version__
    from .code_commit import run_commit
    from .host_cpu import cpu_summary
    from .installed_versions import installed_version

    stack = ", ".join(f"{name} {installed_version(name) or 'not installed'}"
                      for name in ("torch", "monai", "accelerate", "deepspeed"))
    cpu = cpu_summary()  # a CPU run's speed depends on it (bf16 emulated or not); None off Linux
    commit = run_commit()  # the version is the same at every commit (code_commit.py); a few git calls
    return (f"accelerated-seg {__version__} ({f'commit {commit}; ' if commit else ''}{stack}; "
            f"python {sys.version.split()[0]}{f'; {cpu}' if cpu else ''})")


def _train(args, overrides) -> int:
    from .config import load_config
    from .run_folder import check_before_the_imports

    if args.resume:
        overrides = [*overrides, f"--train.resume={args.resume}"]
    # a refusal ends the program (status 2); a stop, said by training, goes on to _command_line, which returns its
    # status: cli.main(["train", ...]) called from Python raised SystemExit(130) until the hundred-and-twentieth session
    with ending_on_a_refusal():
        cfg = load_config(args.config, overrides)
        check_before_the_imports(cfg, args.config)  # missing data, an init_from or resume typo, an earlier run
        with importing_without_collection():  # collector.py says why
            from .train import train  # after the settings are read (ending_on_a_refusal says why)

        if train(cfg)["preempted"]:
            _PREEMPTED.append(True)
    return 0


@contextlib.contextmanager
def exit_on_user_error():
    """End a script's program (examples/train.py, ...) with one line, ``error: <message>``, on an error about the
    user's input or run (``ending_on_a_refusal``), and with a stop's status, no traceback, on Ctrl-C (130), or the
    SIGTERM (143) or SIGUSR1 (138) a script takes as one: asked for, not a bug; training has said where to resume
    from. Any other exception keeps its traceback, since it is a bug to report. The command line's own commands take
    the refusals alone: ``cli.main`` returns a stop's status (``_command_line``)."""
    try:
        with paths_printable(), ending_on_a_refusal():  # its lines said whatever bytes a path holds
            yield
    except KeyboardInterrupt as interrupt:
        status = exit_status(interrupt)
        deaf_once_stopped(status)  # a second signal in the script's shutdown changes nothing, as the command line's
        raise SystemExit(status) from None


@contextlib.contextmanager
def ending_on_a_refusal():
    """End the program with one line, ``error: <message>``, on an error about the user's input or run.

    ConfigError and DataError (a setting or a file that cannot work: exit status 2), TrainingDiverged
    and CheckpointNotSaved (status 1) carry messages that name the setting or file and what to do; a
    traceback would only bury them. One rank of each node prints it, the first to refuse: every rank
    raises the same error (train's checks hand the main process's errors to all ranks).
    """
    from .config import ConfigError
    from .data.errors import DataError

    try:
        yield
    except (ConfigError, DataError) as error:
        _end_with_the_message(error, 2)
    except RuntimeError as error:
        # Only the loop raises TrainingDiverged and CheckpointNotSaved, so only where they have been
        # imported are they looked for: importing them here made a mistyped setting wait 8-14 s for
        # torch and MONAI on every rank.
        loop, saving = sys.modules.get("accelerated_seg.train"), sys.modules.get("accelerated_seg.checkpoint")
        if not ((loop is not None and isinstance(error, loop.TrainingDiverged))
                or (saving is not None and isinstance(error, saving.CheckpointNotSaved))):
            raise
        _end_with_the_message(error, 1)


def _end_with_the_message(error: Exception, status: int) -> NoReturn:
    # Every rank raises the same error once train's checks hand the main process's to all; one rank
    # of each node says it (the first to refuse, launcher_report.say_the_error), since each node's log
    # is its own. Before the process group exists a node may fail alone: its log held only torchrun's
    # exit code, and the other node waited 30 minutes in silence (sixty-ninth session).
    say_the_error(str(error))
    raise SystemExit(status) from None


def _synth(args, _) -> int:
    """synth, and its stop (Ctrl-C, SIGTERM, SIGUSR1) said here, once, naming what its folder holds, wherever it came:
    its imports, its writes, once they were done, as its wrote line was said. Its status is returned, as every other
    one-process command returns its own: ``cli.main([...])`` called from Python raised SystemExit(143) until the
    hundred-and-twentieth session (``exit_on_user_error`` made the stop one), and its imports and last line, outside
    the line's try, ended it saying nothing, or that it wrote nothing into a folder whose phantoms were whole."""
    begun: list[bool] = []  # once this call's write begins: an earlier unfinished one's files are not this one's
    try:
        return _phantoms_written(args, begun)
    except KeyboardInterrupt as interrupt:  # said nothing before the ninety-second session, the folder left in part
        print(_synth_interrupted(args, stopped_by("synth", interrupt), bool(begun)), file=sys.stderr)
        return exit_status(interrupt)  # 130; SIGTERM's 143, SIGUSR1's 138


def _phantoms_written(args, begun: list[bool]) -> int:
    """The phantoms written into ``args.out_dir`` and said; a refusal ends the program, one line, status 2. ``begun``
    is appended to as the write itself begins."""
    from .data.errors import DataError
    from .data.synthetic import write_synthetic_dataset

    try:
        if 0 < args.cases <= args.validation:  # the library writes such a test set; check and train refuse it
            raise DataError(f"synth --cases {args.cases} with --validation {args.validation} leaves no training case, "
                            f"and check and train refuse such a dataset: give fewer validation cases (default 4) "
                            f"or more cases")
        begun.append(True)
        path = write_synthetic_dataset(args.out_dir, num_cases=args.cases, num_validation=args.validation,
                                       seed=args.seed)
    except DataError as error:
        _end_with_the_message(error, 2)
    print(f"wrote {path}")
    return 0


def _synth_interrupted(args, stopped: str, begun: bool) -> str:
    """What synth says when Ctrl-C, SIGTERM or SIGUSR1 stops it: what its folder holds, and how to finish.
    ``stopped``: how the line begins, "synth stopped by SIGTERM" for SIGTERM's (``sigterm.stopped_by``); ``begun``:
    this call's write had begun. The folder is read without the generator's imports (data/phantom_folder.py), where
    the stop may have come: stopped there, over a folder an earlier synth left unfinished, it said "before it wrote
    anything into <folder>" alone until the hundred-and-twenty-first session."""
    from .data.phantom_folder import WRITING_MARKER, case_files_there, holds_the_phantoms, phantoms_unfinished

    out_dir = args.out_dir
    if holds_the_phantoms(out_dir, args.cases, args.validation, args.seed):
        # this command's phantoms, whole: written before the stop (as its wrote line was said), or by an earlier run
        return f"{stopped}: {out_dir} holds the phantoms whole, their dataset.json written last; nothing to redo"
    if not phantoms_unfinished(out_dir):
        return f"{stopped} before it wrote anything into {out_dir}"
    if not begun and not case_files_there(out_dir):  # "holds an earlier synth's unfinished phantoms" of none, before
        return (f"{stopped} before it wrote anything into {out_dir}, where an earlier synth was stopped before its "
                f"first case file ({WRITING_MARKER} is there): the same command writes them")
    if not begun:  # the files there are an earlier synth's, stopped before its end (a kill, or a stop)
        return (f"{stopped} before it wrote anything into {out_dir}, which holds an earlier synth's unfinished "
                f"phantoms ({WRITING_MARKER} is there; every case file there is whole): the same command finishes "
                f"them")
    if os.path.isfile(os.path.join(out_dir, "dataset.json")):  # written, its marker not yet gone (or an earlier run's)
        return (f"{stopped}: {out_dir} holds phantoms, every case file there whole, and a dataset.json, but the write "
                f"is not finished ({WRITING_MARKER} is still there); the same command finishes them")
    return (f"{stopped}: {out_dir} holds part of the phantoms and no dataset.json yet (written last; every "
            f"case file there is whole); the same command finishes them")


def _export(args, _) -> int:
    """export, and its stop (Ctrl-C, SIGTERM, SIGUSR1) said here, once, wherever it came: its checks' imports, the
    export, its exported line. Its status is returned, as every one-process command returns its own: ``cli.main([...])``
    called from Python raised SystemExit(130/143/138) until the hundred-and-twentieth session (``exit_on_user_error``
    made the stop one), and a stop before the export began, or as its exported line was said, ended it saying
    nothing."""
    from pathlib import Path

    begun: list[bool] = []  # once this call's export begins: an earlier one's output is not this one's
    try:
        return _exported(args.checkpoint, Path(args.output), begun)
    except KeyboardInterrupt as interrupt:
        print(_export_interrupted(Path(args.output), interrupt, bool(begun)), file=sys.stderr)
        return exit_status(interrupt)  # 130; SIGTERM's 143, SIGUSR1's 138


def _exported(checkpoint, output, begun: list[bool]) -> int:
    """The checkpoint exported to ``output`` and said; a refusal ends the program, one line, status 2. ``begun`` is
    appended to as the export itself begins, its checks passed."""
    from pathlib import Path

    from .checkpoint_files import check_exportable
    from .model_folders import checkpoint_folder
    from .run_folder import holding_the_run_folder_of

    # None there, an --output in the way, a file of it cut short, no export.json (an older run's,
    # train.fit's), no weights, or DeepSpeed's where DeepSpeed is not installed: refused before torch and
    # MONAI import, at once rather than after the seconds their import takes, in export_checkpoint's order
    with ending_on_a_refusal():
        checkpoint = checkpoint_folder(Path(checkpoint))
        check_exportable(checkpoint, output)
        # In a run's folder its lock is held: unheld, the run's own export and this one interleaved (run_folder.py)
        with holding_the_run_folder_of(output):
            from .checkpoint_export import export_found_checkpoint  # torch's and MONAI's imports take seconds

            begun.append(True)
            checkpoint, output = export_found_checkpoint(checkpoint, output)
    print(f"exported {checkpoint} to {output}: use it as an exported model, e.g. "
          f"accelerated-seg predict --model {shell_word(output)} ...")
    return 0


def _exported_whole(output) -> bool:
    """Whether ``output`` holds a whole export; model_folders is imported by then (checkpoint_export imports it)."""
    from .model_folders import exported_models_in

    return exported_models_in(output) == [output]


def _export_interrupted(output, interrupt: KeyboardInterrupt, begun: bool) -> str:
    """What export says when Ctrl-C, SIGTERM or SIGUSR1 stops it (nothing until the hundred-and-second session): the
    export takes its name whole (exported_model.write_export), so it is there whole, where the stop came after, or
    not at all; before this call's export ``begun``, nothing was written. Until the hundred-and-twentieth session's
    review "begun" was the export's modules imported, so an export stopped in its checks, in a process whose earlier
    export had written the same --output, called that earlier export its own, written whole."""
    stopped = stopped_by("export", interrupt)
    if begun and _exported_whole(output):
        return f"{stopped}: the export in {output} is written whole"
    return (f"{stopped}: nothing written to {output} (an export is written whole or not at all); the same command "
            f"exports it")


COMMANDS = {"benchmark": benchmark_command.run, "train": _train, "synth": _synth, "check": check_command.run,
            "cache": cache_command.run, "predict": predict_command.run, "evaluate": evaluate_command.run,
            "export": _export, "plan": plan_command.run}


def end_process(status: int, preempted: bool = False) -> NoReturn:
    """End a script's process with ``status``; a process started by a distributed launcher ends
    without the interpreter's shutdown, even as the only rank. ``preempted``: its training stopped with a save on a
    notice (status 0, which a requeue reads), so that a second SIGTERM or SIGUSR1 in the shutdown changes nothing
    (``sigterm.deaf_once_stopped``, as for ``accelerated-seg train``): examples/train.py in one process ended -15 so,
    4 of 4 in the hundred-and-twenty-fifth session's review (r119).

    torch's DDP keeps the gloo process group alive after ``destroy_process_group`` (a DDP model
    created and deleted is enough: the group's worker threads run on, while a group used without
    DDP ends with its threads), and so does a DeepSpeed engine, in one process as in several. So
    those threads are still running when the interpreter shuts down and ``exit()`` tears down
    native state under them. Rarely, after a complete run with everything written, that aborted a
    rank ("terminate called without an active exception", exit -6: 5 of 57 two-process CPU runs,
    mostly with other training sharing the 2 cores; once in CI, in the fifteenth session, a
    one-process ZeRO-3 run), and the launcher then reported the whole job failed, so SLURM would
    not requeue it. By the time this runs, the run's files are written and closed
    (``preparation.end_run`` closed the trackers), so the rank flushes its output and leaves with
    ``os._exit``.

    Every distributed launcher (torchrun, and through it accelerate's multi-process and DeepSpeed
    paths, even for one process; srun and mpirun through accelerate) gives its ranks
    ``WORLD_SIZE``; a plain ``python`` or ``accelerate launch`` of one process without a strategy
    starts no process group, and exits normally. (A platform that sets ``WORLD_SIZE`` for every
    container also skips the shutdown of a plain process: its ``atexit`` handlers do not run, but
    everything the run writes is written and closed by then.)
    """
    deaf_once_stopped(status, preempted)
    if "WORLD_SIZE" in os.environ:
        logging.shutdown()  # what the skipped shutdown would have done for file handlers
        sys.stdout.flush()
        sys.stderr.flush()
        exit_now(status)  # multiprocessing's folder removed too (a launch with loader workers left it)
    sys.exit(status)


if __name__ == "__main__":
    end_process(main())
