"""``accelerated-seg predict``: the arguments, model folders, inputs and outputs checked with the file system
alone, then the cases segmented in this process or shared over a launch's (inference_distributed.py).

The inference stack is imported inside ``run``, after those checks: a wrong --model or an --output that
cannot be written is refused at once rather than after the 7-15 s that the imports take on 2 cores.
"""

from __future__ import annotations

import os
import sys
import warnings
from importlib import import_module
from pathlib import Path

from .collector import importing_without_collection
from .dropped_interrupts import interrupts_kept
from .early_signals import handed_over, stopped_before_it_began
from .launch_env import launched_processes
from .launcher_report import leave_for_the_launcher, say_once_on_this_node, say_the_error
from .predict_input_stop import OneCaseFiles
from .predict_options import in_flag_words
from .sigterm import stop_signal, stopped_by, stops_as_an_interrupt
from .wording import counted


def run(args, _) -> int:
    if launched_processes() > 1:
        return _run_launched(args)
    options = _checked_options(args)
    if isinstance(options, int):  # refused, said
        return options
    cases: list[list] = []  # predict_cases's result, once it has returned (its count said if stopped after)
    one_case = _one_case_files(args) if args.input else None  # which tell a stop's line what is written
    said: list[KeyboardInterrupt] = []  # the stop whose line is said, once
    # A time limit's SIGTERM, or a requeue's SIGUSR1, stops it as Ctrl-C does, said (sigterm.py), each taken over from
    # early_signals' handler with no default between: SIGUSR1 ended it at once, -10, nothing said, a map being written
    # left under its hidden name, until the hundred-and-nineteenth session. One interrupt for both, the stopped line
    # said inside: a second stop of either as it is said meets the stop under way (it ended the process with the
    # signal's default, the line unsaid, until that session's review)
    try:
        with stops_as_an_interrupt():
            try:
                return _predicted_in_this_process(args, options, cases, one_case)
            except KeyboardInterrupt as interrupt:
                _say_stopped_once(args, interrupt, said, cases, one_case)
                raise
    except KeyboardInterrupt as interrupt:  # raised as the stops were taken or put back, outside the try above: 143
        _say_stopped_once(args, interrupt, said, cases, one_case)  # nothing said until that session's second review
        raise


def _one_case_files(args) -> OneCaseFiles:
    """--input's label map and, with --probabilities, its probabilities, where predict_file writes them."""
    from .inference_outputs import probabilities_path  # imported by _checked_options

    return OneCaseFiles(args.output, probabilities_path(args.output) if args.probabilities else None)


def _predicted_in_this_process(args, options: dict, cases: list[list], one_case: OneCaseFiles | None) -> int:
    """A one-process predict's work once its checks are done, its stops taken (``run``); its status, 2 where an input
    or an output path is refused. ``cases``: predict_cases's result is put there as it returns; ``one_case``: --input's
    files, noted as they stand before its prediction."""
    from .inference import predict_file  # imported by _checked_options, as predict_cases
    from .inference_cases import predict_cases
    from .predict_names import PredictNames

    try:
        handed_over()  # the rest: a stop from here is predict's own, said by run (before, ended at once)
        if args.input:  # the older form: channels named one by one, output is the label map itself
            one_case.note_before()
            written = predict_file(args.model, args.input, args.output, probabilities_output=one_case.probabilities,
                                   names=PredictNames(), **options)
            print(f"wrote {written}")
        else:
            cases.append(predict_cases(args.model, args.inputs, args.output, probabilities=args.probabilities,
                                       progress=print, sequential=args.sequential,
                                       continue_prediction=args.continue_prediction, names=PredictNames(),
                                       **options))
            print(f"{len(cases[0])} case(s) {'in' if args.continue_prediction else 'segmented into'} "
                  f"{args.output}")
    except BrokenPipeError:  # stdout's reader gone (| head): ended as SIGPIPE ends a command (cli), status 141;
        raise  # it was "error: [Errno 32] Broken pipe", status 2, as a refusal, until the hundred-and-first session
    except (ValueError, OSError) as error:  # DataError is a ValueError; OSError: an output path that cannot be
        print(f"error: {in_flag_words(error)}", file=sys.stderr)  # written (a file where a folder must go, ...)
        return 2  # bad input or settings, as for train
    return 0


def _say_stopped_once(args, interrupt: KeyboardInterrupt, said: list, cases: list[list],
                      one_case: OneCaseFiles | None) -> None:
    """predict's stopped line where none is said yet (``said``): as its last line is said (a slow reader of its
    stdout), every case is written, said so as a launch's is (until the hundred-and-tenth session's review "predicts
    the cases not yet written", where none was left). --input's one case (``one_case``) says what its files hold: it
    said "the same command predicts the case" of a case written whole until the hundred-and-twentieth session."""
    if not said:
        said.append(interrupt)
        if one_case is not None:
            print(one_case.stopped_line(stopped_by("predict", interrupt)), file=sys.stderr)
        else:
            print(_interrupted_by(args, _counted_once_written(interrupt, *cases)), file=sys.stderr)


def _run_launched(args) -> int:
    """predict under a launch of several processes (WORLD_SIZE alone is no launch: launch_env says why): the checks
    and the imports, then the processes meet (``process_state``) and share the cases (``_predict_distributed``).

    An interrupt before they meet has no store to reach the others through: the process it reached says so, the
    first of a node's where a terminal's Ctrl-C reached them all (``say_once_on_this_node``), and ends (130); torch's
    agent then ends the others with SIGTERM, which ends them at once, saying nothing, until the processes meet
    (``_predict_distributed``). Until the hundred-and-ninth session it ended saying nothing, as training did until
    the hundred-and-eighth. A job's SIGTERM there ends each process at once, its line said once on each node, 143
    (``said_once_until_the_processes_meet``; -15 and nothing said until the hundred-and-nineteenth session), and so
    does a SIGUSR1, 138 (-10 and nothing said until the hundred-and-twentieth)."""
    from .launched_sigterm import said_once_until_the_processes_meet

    try:
        # a Ctrl-C that a finalizer drops before the processes meet (importlib's module-lock callback as the
        # inference stack imports) kept and raised before the rendezvous: it was lost, the process going on
        # (dropped_interrupts.py)
        with said_once_until_the_processes_meet(_say_stopped_before_it_began), interrupts_kept():
            options = _checked_options(args)
            if isinstance(options, int):  # refused, said
                return options
            from .inference_distributed import process_state
            from .interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous

            # A Ctrl-C while this process waits in the rendezvous, where no Python handler runs, ends it at once with
            # the same line (it waited for the agent's SIGKILL, 30 s, until the hundred-and-ninth session)
            with ending_on_an_interrupt_in_the_rendezvous(lambda: _say_interrupted_before_the_processes_met(args)):
                state = process_state()  # the launch's processes meet: its process group starts
    except KeyboardInterrupt:
        _say_interrupted_before_the_processes_met(args)
        raise
    return _predict_distributed(args, options, state)


def _say_stopped_before_it_began(signum: int) -> None:
    """A job's SIGTERM or SIGUSR1 before the launch's processes met (``said_once_until_the_processes_meet``)."""
    _say_once_on_this_node(stopped_before_it_began("accelerated-seg predict", signum))


def _say_interrupted_before_the_processes_met(args) -> None:
    _say_once_on_this_node(_interrupted_before_the_processes_met(args))


def _say_once_on_this_node(line: str) -> None:
    """Once on this node (by the first of its processes stopped), and in the launcher's table by each."""
    say_once_on_this_node(line, sys.stderr, line, error=False)


def _interrupted_before_the_processes_met(args) -> str:
    """The line of a launched predict interrupted before its processes met: nothing was written by it."""
    if args.input:
        again = "the same command predicts the case"
    elif args.continue_prediction:
        again = "the same command predicts the cases not yet written"
    else:
        again = "the same command predicts the cases (with --continue, it passes over those an earlier run wrote)"
    return f"predict interrupted before the launch's processes met; nothing was written: {again}"


def _checked_options(args) -> dict | int:
    """The options of the cases' prediction, once the arguments, the model folders, the inputs and the outputs are
    checked and the inference stack imported; 2 where refused, said."""
    # The arguments, the model folders, the inputs and the outputs are checked with the file system alone,
    # before the inference stack imports (7-15 s on 2 cores): a wrong --model, an input naming no NIfTI file
    # (a typo, an empty folder), --overlap 1.5, --precision fp16 --device cpu, --device under a launch or an
    # --output that cannot be written is refused at once.
    from .model_folders import read_export_json
    from .predict_options import PredictOptions

    # Said by say_the_error, as every refusal here: once on a node under a launch, and in the launcher's report;
    # printed by every process, in no report, until the hundred-and-eighteenth session's review
    if model_given_as_an_image := _model_among_the_images(args):
        say_the_error(model_given_as_an_image)
        return 2
    if not args.model:
        say_the_error("--model is required: the exported model folder (config.json + model.safetensors) to segment "
                      "with")
        return 2
    if bool(args.inputs) == bool(args.input):
        say_the_error("give the images to segment either as INPUT... (files, folders, patterns) or as "
                      "--input FILE... (one case, one file per channel), not both or neither")
        return 2
    if args.input and args.continue_prediction:
        say_the_error("--continue passes over the cases of INPUT... that an earlier run wrote; --input FILE... is one "
                      "case: give its files as INPUT... with --output a folder, or drop --continue")
        return 2
    how = dict(sw_batch_size=args.sw_batch_size, overlap=args.overlap, tta=args.tta, precision=args.precision,
               aggregate_on_cpu=args.aggregate_on_cpu, transforms_on_device=args.transforms_on_device)
    try:
        _check_no_device_under_a_launch(args)
        configs = [read_export_json(model_dir) for model_dir in args.model]
        PredictOptions(**how)  # --overlap, --sw-batch-size: predict_cases makes them again, with the same words
        _check_precision_on_a_named_device(args)
        _check_outputs_before_the_imports(args, configs)  # each input's files found, the outputs they make
    except (OSError, ValueError) as error:  # DataError is a ValueError; OSError: a model file missing, ...
        say_the_error(in_flag_words(error))  # under accelerate launch every rank stops, one says why
        return 2
    with importing_without_collection():  # collector.py says why; the callers take what they use from them
        import_module(".inference_cases", __package__)  # and inference, which it imports
        import_module(".inference_outputs", __package__)  # and inference_inputs, predict_marks, predict_names

    options = dict(device=args.device, **how,
                   keep_largest=(args.keep_largest or True) if args.keep_largest is not None else False)
    if len(args.model) == 1:  # one model, as before; several: an ensemble (ensemble.py)
        args.model = args.model[0]
    elif os.environ.get("RANK", "0") == "0":  # the main process only, under accelerate launch
        print(f"ensemble of {len(args.model)} models: the mean of their probabilities")
    return options


def _check_no_device_under_a_launch(args) -> None:
    """--device under a launch of several processes: refused, as each launched process runs on its own."""
    if args.device is not None and (processes := launched_processes()) > 1:
        raise ValueError(f"--device names one device, but each of the launched processes runs on its own "
                         f"({processes} processes); drop --device")


def _check_precision_on_a_named_device(args) -> None:
    """--precision fp16 with a --device that is no GPU: refused as predict_cases refuses it after the imports.
    Without --device, the device is CUDA where torch finds one, which only importing torch tells; a device name
    torch does not know is for default_device to refuse, first, after the imports, and under a launch --device
    itself is refused there (each process takes its own)."""
    from .predict_options import precision_refusal

    if args.device is None or args.device.split(":")[0] not in ("cpu", "mps") or launched_processes() > 1:
        return
    if refusal := precision_refusal(args.precision, args.device):
        raise ValueError(refusal)


def _check_outputs_before_the_imports(args, configs: list[dict]) -> None:
    """The inputs' files found, and in one process the outputs they make refused as predict_cases (or
    predict_file) refuses them after the imports, with the same functions: an --output that is a file, holds
    files predict did not write, or is where no file can be made. The inputs are grouped into cases as the
    model's config.json says; where it says nothing sure of the channels (a hand edit, members of an ensemble
    that differ), the outputs wait for the loading of the models, which says what is wrong.

    Under a launch the outputs wait for predict_distributed, which hands one process's refusal to all: a
    node whose folder is read-only refused here alone, and the others waited for it in their first collective.
    Only an --output that is the folder of the scans, which the paths alone tell alike on every process, is
    refused here under a launch too (after the imports, until the ninety-sixth session).

    Raises:
        DataError: naming the input or output and what to do; nothing has been written.
    """
    from .data.formats.paths import nifti_stem
    from .inference_inputs import (channels_config, check_channel_count, collect_cases,
                                   dataset_channel_names_warnings, expand_inputs)
    from .own_warnings import AcceleratedSegWarning
    from .inference_outputs import (check_one_case_call, check_one_case_output, checked_outputs, prediction_ending,
                                    probabilities_path, refuse_the_folder_of_the_scans)

    scans = expand_inputs(args.inputs)  # found again by predict_cases, which groups them into cases
    config = channels_config(configs) if configs else None
    if config is not None:  # a dataset.json beside the scans ordering the model's channels otherwise: refused
        # --input's files are fed in the order given, each its dataset's channel of its number (review r112)
        for warning in dataset_channel_names_warnings(args.input or scans, config, one_case=bool(args.input)):
            if os.environ.get("RANK", "0") == "0":  # said once under a launch
                warnings.warn(warning, AcceleratedSegWarning, stacklevel=2)
    if args.input:  # as typed (Path drops a trailing "/"), and the same on every process of a launch
        check_one_case_output(args.output, args.input)
        check_channel_count(args.input, config)
    if launched_processes() > 1:
        if not args.input and nifti_stem(args.output) is None:  # a folder, as output_paths reads it
            refuse_the_folder_of_the_scans(scans, args.output)
        return
    if args.input:  # predict_file's: --output is the label map's own path
        probabilities = probabilities_path(args.output) if args.probabilities else None
        check_one_case_call([Path(path) for path in args.input], args.output, probabilities, config)
    elif config is not None:
        checked_outputs(collect_cases(args.inputs, config), args.output, args.probabilities,
                        ending=prediction_ending(config))


def _counted_once_written(interrupt: KeyboardInterrupt, written: list | None = None) -> KeyboardInterrupt:
    """``interrupt``, counting every case written where it came once predict_distributed (or one process's
    predict_cases) had returned them (the last line being said, or a launch's process group ended; a job's SIGTERM
    there is a stop since the hundred-and-tenth session): its line says all are written, not that the same command
    predicts those not yet written."""
    from .inference_cases import PredictInterrupted

    if written is None or isinstance(interrupt, PredictInterrupted):
        return interrupt
    return PredictInterrupted(len(written), len(written), signum=stop_signal(interrupt))


def _interrupted_by(args, interrupt: KeyboardInterrupt) -> str:
    """``_interrupted`` of ``interrupt``: with the cases it counted and those that failed, where it carries them
    (``PredictInterrupted``: the cases were being segmented, in this process or, in the last wait, in a launch's)."""
    from .inference_cases import PredictInterrupted  # imported already, before either caller's work began

    stopped = stopped_by("predict", interrupt)  # "predict stopped by SIGTERM" (SIGUSR1), "predict interrupted"
    if not isinstance(interrupt, PredictInterrupted):
        return _interrupted(args, stopped=stopped)
    return _interrupted(args, (interrupt.written, interrupt.cases), interrupt.failed, stopped)


def _interrupted(args, counted_cases: tuple[int, int] | None = None, failed: list[str] | tuple = (),
                 stopped: str = "predict interrupted") -> str:
    """``_stopped_at`` followed by a line for each case that could not be segmented before the interrupt (``failed``,
    as the end of a run says them): unsaid until the hundredth session, as was a case whose writing failed as the
    interrupt came, whose error was raised in the interrupt's place (exit 1, not 130). ``stopped``: how the line
    begins, "predict stopped by SIGTERM" for SIGTERM's (``sigterm.stopped_by``: said nothing until the
    hundred-and-first session), "predict stopped by SIGUSR1" for SIGUSR1's (the hundred-and-nineteenth session)."""
    stopped = _stopped_at(args, counted_cases, stopped)
    if not failed:
        return stopped
    return f"{stopped}\n{len(failed)} case(s) could not be segmented:\n" + "\n".join(failed)


def _stopped_at(args, counted_cases: tuple[int, int] | None = None, stopped: str = "predict interrupted") -> str:
    """What predict says when Ctrl-C, or the SIGINT a scheduler sends at a time limit, stops it: nothing
    before the eighty-third session, and a rerun started again from the first case. ``counted_cases``: (written,
    of how many) where the cases were being segmented (``PredictInterrupted``), as many as the "wrote" lines above;
    until the hundredth session the case being written as the interrupt came was written and not said. ``stopped``:
    how the line begins, "predict stopped by SIGTERM" for a time limit's SIGTERM (``_interrupted``)."""
    if args.input:  # one case, launched (one process's: predict_input_stop.py); --continue does not take it
        return f"{stopped}: no file is half-written; the same command predicts the case"
    again = "the same command" if args.continue_prediction else "the same command with --continue"
    if counted_cases is None:  # before the cases (loading the model, the lock, --continue's reading)
        return f"{stopped}: every file it wrote is whole; {again} predicts the cases not yet written"
    written, cases = counted_cases
    if written == 0:
        return (f"{stopped} before any of its {cases} case(s) was written: no file is half-written; {again} "
                f"predicts them")
    if written == cases:  # after the last case's line
        return f"{stopped}: all {cases} case(s) are written, each file whole"
    return (f"{stopped}: every file it wrote is whole ({written} of {cases} case(s), each said above); "
            f"{again} predicts the {cases - written} not yet written")


def _model_among_the_images(args) -> str | None:
    """An exported model (or a training run's folder) among INPUT..., named with the --model that takes it. Other
    commands (export, evaluate) take their folders as positional arguments, so ``predict output/model scans/`` is an
    easy slip, and so is ``predict --model a b scans/``, an ensemble's second member without its own --model (--model
    takes one folder each time): that was "folder b holds no .nii/.nii.gz file; check the path" until the
    hundred-and-eighteenth session, which named such a folder only where --model was missing altogether. Its
    review: the ensemble's command kept the options given (--continue, --tta: it dropped them, so the command as
    written predicted every case again, without them), and a run whose --model export was given was told to add
    that export again."""
    from .data.errors import DataError
    from .model_folders import model_folder_kind
    from .shell_words import shell_word

    models = [str(model) for model in args.model or []]
    given_models = {Path(model).resolve() for model in models}
    given_as_images = args.input or args.inputs  # --input's files: one case's channels, where a folder is refused
    try:
        kinds = [(given, model_folder_kind(given)) for given in given_as_images]
    except DataError as error:  # an export's files whose config.json is broken: "holds no .nii/.nii.gz file" before
        return str(error)
    for given, found in kinds:
        if found is None:
            continue
        what, exports = found
        if Path(given).resolve() in given_models:  # --model's own folder again
            return f"{given} is the --model folder, given again as an image to segment: drop it from the images"
        if not (exports := [path for path in exports if path.resolve() not in given_models]):  # all given already
            return (f"{given} is the training run's folder of --model {' and '.join(models)}, given as an image to "
                    f"segment: drop it from the images")
        # Each word quoted for a shell (shell_words.py): a folder named "my model" made a command of two folders
        which = " or ".join(f"--model {shell_word(path)}" for path in exports)
        if runs := _run_folders_as_model(models):
            return _beside_a_run_folder_as_model(given, what, exports, models, runs, kinds, args)
        if not models:
            return (f"{given} is {what}, given as an image to segment: give {which} "
                    f"(accelerated-seg predict --model <model folder> <images> --output <folder>)")
        images = " ".join(shell_word(item) for item, kind in kinds if kind is None) or "<images>"
        member = shell_word(exports[0]) if len(exports) == 1 else "<one of them>"
        given_models_again = " ".join(f"--model {shell_word(model)}" for model in models)
        return (f"{given} is {what}, given as an image to segment: give {which} for an ensemble with "
                f"{' and '.join(models)} (accelerated-seg predict {given_models_again} --model {member} "
                f"{'--input ' if args.input else ''}{images} --output {shell_word(args.output)}"
                f"{''.join(f' {shell_word(word)}' for word in _options_given(args))})")
    return None


def _run_folders_as_model(models: list[str]) -> dict[str, list[Path]]:
    """Each of ``models`` (--model's folders) that is a training run's folder, with its exports; a folder whose
    kind cannot be read is left to the model's loading, which says why."""
    from .data.errors import DataError
    from .model_folders import model_folder_kind

    runs = {}
    for model in models:
        try:
            found = model_folder_kind(model)
        except DataError:
            continue
        if found is not None and found[1] != [Path(model)]:
            runs[model] = found[1]
    return runs


def _beside_a_run_folder_as_model(given: str, what: str, exports: list[Path], models: list[str],
                                  runs: dict[str, list[Path]], kinds, args) -> str:
    """A model folder among the images where a --model is a training run's folder, which predict refuses as a model:
    ``predict --model output/demo output/demo/best_model scans/`` was told to make an ensemble of the two, whose
    command then refused the run's folder as --model (the hundred-and-twenty-fifth session's helper h136; its review
    r120). Each run's folder said with its exports, and the command with an export in its place: the one given among
    the images where it is one of that run's, else its first (best_model), once each."""
    from .shell_words import shell_word

    mine = {path.resolve() for path in exports}
    members = []
    for model in models:
        if model not in runs:
            members.append(model)
        elif mine & {path.resolve() for path in runs[model]}:  # the image is this run's export: it takes its place
            members.append(str(next(path for path in exports if path.resolve() in
                                    {run_path.resolve() for run_path in runs[model]})))
        else:
            members.append(str(runs[model][0]))
    if not mine & {Path(member).resolve() for member in members}:  # another model given as an image: a member too
        members.append(str(exports[0]))
    members = list(dict.fromkeys(members))
    runs_said = " and ".join(f"--model {run} is a training run's folder, not an exported model (its exports: "
                             f"{' or '.join(map(str, runs[run]))})" for run in runs)
    images = " ".join(shell_word(item) for item, kind in kinds if kind is None) or "<images>"
    options = "".join(f" {shell_word(word)}" for word in _options_given(args))
    return (f"{given} is {what}, given as an image to segment, and {runs_said}: give exports as --model, not a run's "
            f"folder (best_model: the best validation Dice; model: the last step), e.g. accelerated-seg predict "
            f"{' '.join(f'--model {shell_word(member)}' for member in members)} {'--input ' if args.input else ''}"
            f"{images} --output {shell_word(args.output)}{options}")


def _options_given(args) -> list[str]:
    """predict's options other than --model, the images and --output, as given (those not at their defaults), for
    a command said back to the user to run."""
    import argparse

    from .cli import build_parser

    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    words = []
    for action in commands.choices["predict"]._actions:
        value = getattr(args, action.dest, action.default)
        if not action.option_strings or action.dest in ("model", "input", "output", "help") or value == action.default:
            continue
        if isinstance(action, argparse.BooleanOptionalAction):  # --aggregate-on-cpu, --no-aggregate-on-cpu
            words.append(action.option_strings[0 if value else 1])
        elif action.nargs == 0 or (action.const is not None and value == action.const):  # --continue, a bare --tta
            words.append(action.option_strings[0])
        else:
            words.extend([action.option_strings[0], *map(str, value if isinstance(value, list) else [value])])
    return words


def _predict_distributed(args, options, state=None) -> int:
    """The cases shared over the launch's processes, which have met (``state``, made here where None). SIGTERM is a
    stop from here, said as Ctrl-C's is, except where it is torch's agent ending the processes left when one has ended
    (launched_sigterm.py), and so is SIGUSR1 (since the hundred-and-twentieth session); before here either ends the
    process at once (``said_once_until_the_processes_meet``, saying the line where no process has ended): a process
    waiting in the rendezvous, where no Python handler runs, would have held it until the agent's SIGKILL, 30 s
    later."""
    from .inference_distributed import process_state
    from .launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

    state = state or process_state()
    with sigterm_as_an_interrupt_unless_one_has_ended():
        return _predicted_by_every_process(args, options, state)


def _predicted_by_every_process(args, options, state) -> int:
    """The cases predicted over the processes and the process group ended. An interrupt anywhere in it (the last wait
    for every process's, held until every process is past it; a SIGTERM, a stop) is said by the main process: once the
    cases are written (its last line, ending the process group), as all written (``_counted_once_written``)."""
    written: list[list] = []  # predict_distributed's result, once it has returned
    try:
        code = _predicted_and_said(args, options, state, written)
        state.destroy_process_group()
    except KeyboardInterrupt as interrupt:
        if state.is_main_process:
            print(_interrupted_by(args, _counted_once_written(interrupt, *written)), file=sys.stderr)
        raise
    return code


def _predicted_and_said(args, options, state, written: list[list]) -> int:
    """predict_distributed, its result put in ``written``, and the main process's last line; 0, or the status of an
    error said."""
    from .inference_inputs import InputCase
    from .predict_names import PredictNames
    from .inference_distributed import predict_distributed

    del options["device"]  # None: _check_no_device_under_a_launch refused one before the imports
    try:
        inputs = [InputCase("case", tuple(map(Path, args.input)))] if args.input else args.inputs
        written.append(predict_distributed(args.model, inputs, args.output, accelerator=state, split=args.split,
                                           probabilities=args.probabilities, progress=print, sequential=args.sequential,
                                           continue_prediction=args.continue_prediction, names=PredictNames(),
                                           **options))
        if state.is_main_process:
            done = "in" if args.continue_prediction else "segmented into"
            by = counted(state.num_processes, "process", "processes")
            print(f"{len(written[0])} case(s) {done} {args.output} by {by}")
    except BrokenPipeError:  # stdout's reader gone as the main process said its last line (the work done), or where
        # no store stopped every process: ended as in one process (cli), status 141, no error, said in the launcher's
        # table alone ("error: [Errno 32] Broken pipe", status 2, until the hundred-and-second session)
        leave_for_the_launcher("predict stopped: the reader of its output went away (every file it wrote is whole)",
                               error=False)
        raise
    except (ValueError, OSError, RuntimeError) as error:  # RuntimeError: cases that failed on some process
        say_the_error(in_flag_words(error))
        return 1 if isinstance(error, RuntimeError) else 2
    return 0
