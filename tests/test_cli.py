"""The command line's own options (each command's behaviour is tested with its module)."""

import argparse
import os
import re
import subprocess
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import pytest

import accelerated_seg
from accelerated_seg.cli import build_parser, main
from accelerated_seg.own_warnings import AcceleratedSegWarning, said_as_lines


def test_the_commands_say_our_warnings_in_one_line_and_the_libraries_as_python_does():
    """Ours name the file and what to do; a library's (torch's, MONAI's) keep the file and line that say where
    to look in its code. The commands' own run is tested with predict (test_inference.py)."""
    python_format = warnings.formatwarning
    theirs = ("TypedStorage is deprecated", UserWarning, "/venv/torch/storage.py", 414, "return super().__init__()")
    with said_as_lines():
        assert warnings.formatwarning("scan.nii.gz: a single slice", AcceleratedSegWarning, "/a/inference.py", 7,
                                      "images = _read_channels(paths)") == "warning: scan.nii.gz: a single slice\n"
        assert warnings.formatwarning(*theirs) == python_format(*theirs)
    assert warnings.formatwarning is python_format  # Python users of the library keep Python's form


def test_every_warning_the_package_prints_begins_warning_colon():
    """Training, benchmark train and the exports printed theirs as "WARNING: ...", check and evaluate as
    "warning: ...", and check rewrote training's (until the ninety-second session); a string of ours
    beginning "WARNING: " would bring the two forms back."""
    package = Path(accelerated_seg.__file__).parent
    shouting = [f"{path.relative_to(package)}:{number}" for path in sorted(package.rglob("*.py"))
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "WARNING: " in line]
    assert shouting == []


def test_version_names_the_package_and_the_stack_on_one_line(capsys):
    with pytest.raises(SystemExit) as ended:
        main(["--version"])
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(f"accelerated-seg {accelerated_seg.__version__} (")
    assert f"torch {version('torch')}" in out and f"monai {version('monai')}" in out
    assert re.search(r"accelerate \S+, deepspeed (\S+|not installed); python 3\.\d+", out), out
    from accelerated_seg.code_commit import run_commit

    # the commit, where one is known: 0.1.0 names every commit of a checkout (code_commit.py)
    assert (run_commit() is None) or f"(commit {run_commit()}; torch " in out, out
    if os.path.isfile("/proc/cpuinfo"):  # Linux: the CPU too, and whether bf16 is native on it
        assert re.search(r"; cpu .+, bf16 (native \(.+\)|emulated)\)$", out.strip()), out


def test_the_cpu_of_a_bug_report_says_whether_bf16_is_native():
    from accelerated_seg.host_cpu import cpu_summary

    zen5 = ["cpu family\t: 26", "model\t\t: 2", "model name\t: AMD EPYC", "flags\t\t: avx512f avx512_bf16"]
    assert cpu_summary(zen5) == "cpu AMD EPYC (26/2), bf16 native (avx512_bf16)"
    assert cpu_summary(["model name\t: AMD EPYC", "flags\t\t: avx2"]) == "cpu AMD EPYC, bf16 emulated"
    assert cpu_summary([]) is None  # no /proc/cpuinfo: nothing said
    # the installed distribution's version is the package's own (pyproject reads __version__)
    assert version("accelerated_seg") == accelerated_seg.__version__


def test_the_package_runs_as_a_module_as_accelerate_launch_m_runs_it(tmp_path):
    """``python -m accelerated_seg`` (the form ``accelerate launch -m`` takes): 'cannot be directly
    executed' before the thirty-second session; a command's error keeps its exit status."""
    shown = subprocess.run([sys.executable, "-m", "accelerated_seg", "--version"], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.startswith(f"accelerated-seg {accelerated_seg.__version__} (")
    refused = subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", str(tmp_path / "d"), "--cases", "2"],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.startswith("error: synth --cases 2 with --validation 4 leaves")


@pytest.mark.parametrize("argv, argument", [
    (["predict", "--model", "model", "scan.nii.gz", "--output", ""], "--output"),
    (["evaluate", "predictions", "labels", "--output", " "], "--output"),
    (["predict", "--model", "", "scan.nii.gz", "--output", "out"], "--model"),
    (["train", "--resume", ""], "--resume"),
    (["plan", "--model", "unet", "--patch", "32", "32", "32", "--json", ""], "--json"),
    (["benchmark", "infer", "--output", ""], "--output"),
    (["synth", ""], "out_dir"),
])
def test_an_empty_path_is_refused_by_its_argument(tmp_path, monkeypatch, capsys, argv, argument):
    """An empty path (an unset shell variable) is the working directory to pathlib: before the
    twenty-ninth session predict wrote its label maps there, evaluate wrote metrics.csv there while
    saying it wrote them to PRED/evaluation, and --resume "" started a fresh run."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    assert f"argument {argument}: an empty path" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["train", "--config", "a.yaml", "--config", "b.yaml"],
    ["check", "--config", "a.yaml", "--config=b.yaml"],
    ["cache", "--config", "a.yaml", "--config", "b.yaml"],
    ["plan", "--config", "a.yaml", "--config", "b.yaml"],
])
def test_config_given_twice_is_refused_naming_both_files(tmp_path, monkeypatch, capsys, argv):
    """argparse keeps the last of two --config: a run trained on the second file's settings alone (the
    demo data, where it had no data section) without a word of the first (eighty-fourth session)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    assert "--config given twice (a.yaml, b.yaml): give one experiment file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _refused_by_the_parser(argv: list[str], said: str, tmp_path, monkeypatch, capsys) -> None:
    """``argv`` ends in the command line's usage error (status 2) saying ``said``, with nothing written."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    assert said in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, said", [
    # argparse said "expected 3 arguments" (plan, benchmark infer), "invalid int value: '64,96'" (benchmark train),
    # or passed the words on to be "not known; choose one of ..." (ninety-third session's probe)
    (["plan", "--model", "unet", "--patch", "64,64,64"],
     "argument --patch: '64,64,64': give its values separated by spaces, not commas: --patch 64 64 64"),
    (["benchmark", "train", "--patch", "64,96,"], "argument --patch: '64,96,': give its values separated by spaces, "
                                                  "not commas: --patch 64 96"),
    (["benchmark", "train", "--precision=fp32,bf16"], "not commas: --precision fp32 bf16"),
    (["benchmark", "infer", "--size", "64,64,64", "--roi", "16"], "not commas: --size 64 64 64"),
    (["evaluate", "predictions", "labels", "--tolerance", "1,2"], "not commas: --tolerance 1 2"),
])
def test_the_values_of_an_option_joined_by_commas_are_refused_saying_how_to_give_them(tmp_path, monkeypatch, capsys,
                                                                                     argv, said):
    _refused_by_the_parser(argv, said, tmp_path, monkeypatch, capsys)


def test_a_comma_in_a_path_option_of_several_values_is_a_file_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["predict", "--model", "m", "--input", "a,b.nii.gz", "--output", "out"]) == 2
    assert "m/config.json is missing" in capsys.readouterr().err  # not "not commas: --input a b.nii.gz"


@pytest.mark.parametrize("argv, said", [
    # a value with a space: argparse took the whole argument for check's DATASET, "…: not found"
    (["check", "--config", "a.yaml", "--model.args={init_filters: 4}"],
     "--model.args: only train takes setting overrides on its command line; write them into the experiment file "
     "that check reads with --config"),
    (["check", "--config", "a.yaml", "--data.patch_size", "[32,32,32]"], "--data.patch_size: only train takes"),
    (["plan", "--config", "a.yaml", "--train.batch_size=4"], "that plan reads with --config"),
    (["predict", "--model", "m", "--data.spacing=[1, 1, 1]", "scans", "--output", "out"],
     "--data.spacing: only train takes setting overrides on its command line; predict reads no experiment settings"),
])
def test_a_setting_override_given_to_a_command_other_than_train_is_refused_naming_it(tmp_path, monkeypatch, capsys,
                                                                                     argv, said):
    """A user checking an experiment with the overrides it trained with was told the override, read as
    the dataset, was "not found", or argparse's "unrecognized arguments" alone (a user-journey probe)."""
    _refused_by_the_parser(argv, said, tmp_path, monkeypatch, capsys)


def test_what_follows_a_double_dash_is_no_setting_override(tmp_path, monkeypatch, capsys):
    """After "--" argparse takes every argument as positional, the way to give a file whose name starts
    with dashes; a dataset folder named "--data.v2" was refused as a setting override."""
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    monkeypatch.chdir(tmp_path)
    write_synthetic_dataset(tmp_path / "--data.v2", num_cases=3, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                            spacing_mm=2.0)
    assert main(["check", "--", "--data.v2"]) == 0
    assert "3 case(s), 0 error(s)" in capsys.readouterr().out


def test_resume_given_twice_is_refused_naming_both(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(["train", "--resume", "latest", "--resume", "runs/a/checkpoints/step_4"])
    assert ended.value.code == 2
    assert "--resume given twice (latest, runs/a/checkpoints/step_4): give one value" in capsys.readouterr().err


def test_the_example_script_refuses_config_given_twice():
    script = Path(__file__).resolve().parents[1] / "examples" / "train.py"
    refused = subprocess.run([sys.executable, str(script), "--config", "a.yaml", "--config", "b.yaml"],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "--config given twice (a.yaml, b.yaml)" in refused.stderr


def _commands(parser: argparse.ArgumentParser, name: str = "accelerated-seg"):
    """(``command line so far``, parser) for the program and every command and subcommand under it."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, subparser in action.choices.items():
                yield from _commands(subparser, f"{name} {command}")


def test_every_argument_of_every_command_says_what_it_is_for():
    """``--help`` is where a user learns a command: synth's out_dir, --cases, --validation and --seed
    said nothing there before the forty-third session."""
    silent = [f"{name} {action.option_strings[-1] if action.option_strings else action.dest}"
              for name, parser in _commands(build_parser())
              for action in parser._actions
              if not isinstance(action, argparse._SubParsersAction) and not (action.help or "").strip()]
    commands = [name for name, _ in _commands(build_parser())]
    assert "accelerated-seg benchmark train" in commands and len(commands) > 8
    assert silent == []


def test_cache_help_says_that_a_dataset_alone_prunes_only_where_the_default_settings_version_is_there(capsys):
    """--prune's help said nothing of DATASET --prune without --config being refused where it would keep no
    version (ninety-second session's probe)."""
    with pytest.raises(SystemExit):
        main(["cache", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert ("of a DATASET without --config, refused where none is the default settings' to keep" in said)


def test_a_reader_that_goes_away_ends_the_command_without_a_traceback():
    """``accelerated-seg plan ... | head``: the closed pipe is met as a shell expects (status 141, as
    SIGPIPE would end it), not with a BrokenPipeError traceback."""
    command = [sys.executable, "-m", "accelerated_seg", "plan", "--model", "unet", "--patch", "32", "32", "32",
               "--model-args", '{"channels": [4, 8], "strides": [2]}']
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # gone before the plan is printed
    stderr = proc.communicate(timeout=120)[1]
    assert proc.returncode == 141, stderr[-2000:]
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr[-2000:]


@pytest.mark.parametrize("command", ["train", "check"])
def test_ctrl_c_ends_a_command_with_status_130_and_no_traceback(monkeypatch, capsys, command):
    """Ctrl-C is asked for, not a bug: status 130 (128 + SIGINT, as a shell reports it), no traceback.
    Training says which checkpoint to resume from itself (test_preemption.py)."""
    import accelerated_seg.data.manifest
    import accelerated_seg.train
    from accelerated_seg.cli import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(accelerated_seg.train, "train", interrupted)
    monkeypatch.setattr(accelerated_seg.data.manifest, "load_cases", interrupted)
    argv = {"train": ["train", "--train.max_steps=1"], "check": ["check", "dataset.json"]}[command]
    # returned, train's too: it raised SystemExit(130) until the hundred-and-twentieth session (exit_on_user_error)
    assert main(argv) == 130
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["synth", "{tmp}/phantoms", "--cases", "3", "--validation", "1"],
                                  ["export", "{tmp}/run/checkpoints/step_4", "--output", "{tmp}/model"],
                                  ["check", "{tmp}/phantoms/dataset.json"], ["cache", "{tmp}/phantoms/dataset.json"],
                                  ["evaluate", "{tmp}/predictions", "{tmp}/labels"],
                                  ["plan", "--model", "unet", "--patch", "32", "32", "32",
                                   "--json", "{tmp}/plan.json"],
                                  ["benchmark", "infer", "--size", "32", "32", "32", "--roi", "16", "--blocks", "1",
                                   "--device", "cpu", "--output", "{tmp}/infer.json"]])
def test_a_one_process_command_under_a_launch_of_several_is_refused_on_every_rank_before_it_writes(
        tmp_path, monkeypatch, capsys, argv):
    """Under ``accelerate launch --num_processes 2`` every rank ran these whole, side by side: synth's
    ranks wrote the same phantoms and one died of the other's marker file (a FileNotFoundError
    traceback), export's second rank refused the folder its first had just written ("already exists",
    the launch failed after the export), benchmark infer's timed side by side and both wrote the result.
    The rank that says nothing refuses alike."""
    for rank, says in ((1, False), (0, True)):
        monkeypatch.setenv("WORLD_SIZE", "2")
        monkeypatch.setenv("RANK", str(rank))
        monkeypatch.setenv("LOCAL_RANK", str(rank))
        monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
        assert main([a.format(tmp=tmp_path) for a in argv]) == 2
        err = capsys.readouterr().err
        command = " ".join(argv[:2] if argv[0] == "benchmark" else argv[:1])
        assert (f"error: accelerated-seg {command} runs in one process, and this launch started 2" in err) == says, err
    assert list(tmp_path.iterdir()) == []  # nothing written
    # WORLD_SIZE alone, as some clusters export it to every process, is no launch: the command runs
    for name in ("RANK", "LOCAL_RANK"):
        monkeypatch.delenv(name)
    if argv[0] == "plan":
        assert main([a.format(tmp=tmp_path) for a in argv]) == 0 and (tmp_path / "plan.json").is_file()


@pytest.mark.parametrize("argv", [
    "predict --model m --output out a.nii.gz b.nii.gz",
    "predict a.nii.gz --model m --output out b.nii.gz",  # "unrecognized arguments: b.nii.gz" before
    "predict --model m a.nii.gz --probabilities b.nii.gz --output out",
    "predict a.nii.gz --tta axes --model m b.nii.gz --output out --sequential",
    "predict --model m a.nii.gz --output out -- b.nii.gz",
])
def test_predict_takes_its_inputs_anywhere_among_its_options(argv):
    """As GNU tools take them: argparse read predict's INPUT... as one run of words, so the inputs after
    an option were "unrecognized arguments" (a user's report)."""
    args = build_parser().parse_args(argv.split())
    assert (args.inputs, args.model, args.output) == (["a.nii.gz", "b.nii.gz"], ["m"], "out")


def test_predict_with_one_case_as_input_files_has_no_inputs():
    """predict_command.run tells the two forms apart by ``inputs`` being empty: the intermixed parse keeps its
    default."""
    args = build_parser().parse_args(["predict", "--model", "m", "--input", "t1.nii.gz", "flair.nii.gz",
                                      "--output", "seg.nii.gz"])
    assert (args.inputs, args.input, args.output) == ([], ["t1.nii.gz", "flair.nii.gz"], "seg.nii.gz")


@pytest.mark.parametrize("argv, said, instead", [
    ("predict a.nii.gz --output out --tta b.nii.gz --model m",
     "argument --tta: 'b.nii.gz' is not a mode (none, axes, all): a bare --tta takes the word after it as its mode; "
     "write --tta all (what a bare --tta means) before an input, or give --tta after the inputs",
     "predict a.nii.gz --output out --tta all b.nii.gz --model m"),
    ("predict --model m --output out --keep-largest 1 a.nii.gz b.nii.gz",
     "argument --keep-largest: 'a.nii.gz' is not a label value: --keep-largest takes every word after it as one; "
     "give the inputs before it, or after -- at the end",
     "predict --model m --output out --keep-largest 1 -- a.nii.gz b.nii.gz"),
    ("evaluate preds --tolerance 1 labels",
     "argument --tolerance: 'labels' is not a tolerance in mm: --tolerance takes every word after it as one; "
     "give PRED and LABELS before it, or after -- at the end",
     "evaluate --tolerance 1 -- preds labels"),
])
def test_a_positional_read_as_an_options_value_is_refused_saying_where_it_goes(capsys, argv, said, instead):
    """An option with a variable number of values takes the words after it, in any order of the
    arguments: an input there was "invalid choice: 'b.nii.gz'" or "invalid int value: 'a.nii.gz'"
    alone. What the refusal says to write parses."""
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args(argv.split())
    assert ended.value.code == 2
    assert said in capsys.readouterr().err
    args = build_parser().parse_args(instead.split())
    if args.command == "predict":
        assert args.inputs[-1] == "b.nii.gz" and (args.tta, args.keep_largest) in (("all", None), ("none", [1]))
    else:
        assert (args.pred_dir, args.label_dir, args.tolerance) == ("preds", "labels", [1.0])


def test_what_follows_a_double_dash_is_an_input_of_predict():
    """A scan whose name starts with dashes, after "--": argparse's intermixed parse loses a "--" that no
    input precedes and reads such a name as an option (Python 3.10-3.13)."""
    args = build_parser().parse_args(["predict", "--model", "m", "--output", "out", "--", "--a.nii.gz", "b.nii.gz"])
    assert args.inputs == ["--a.nii.gz", "b.nii.gz"]
    args = build_parser().parse_args(["predict", "a.nii.gz", "--model", "m", "--output", "out", "--", "--b.nii.gz"])
    assert args.inputs == ["a.nii.gz", "--b.nii.gz"]


def test_plan_and_benchmark_help_give_every_default_in_effect():
    """--help of plan and the benchmarks said "memory of one GPU in GiB" and "phantom volumes written and loaded",
    not the 80 and 12 a run without them takes (ninety-third session's probe): each default is the parser's own."""
    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    targets = next(action for action in commands.choices["benchmark"]._actions
                   if isinstance(action, argparse._SubParsersAction))
    for parser in (commands.choices["plan"], *targets.choices.values()):
        formatter = parser._get_formatter()
        for action in parser._actions:
            if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
                assert "default" in formatter._expand_help(action), (parser.prog, action.option_strings)
    plan = " ".join(commands.choices["plan"].format_help().split())
    assert "memory of one GPU in GiB (default: 80)" in plan
    data = " ".join(targets.choices["data"].format_help().split())
    assert "phantom volumes written and loaded (default: 12)" in data
    assert "phantom field of view (default: 160 160 128)" in data


def test_predict_help_gives_the_defaults_of_its_window_and_precision_options():
    """--help said "sliding-window overlap in [0, 1)" and nothing of 0.5, nor of --sw-batch-size's 4 and
    --precision's fp32 (the README's audit, ninety-second session): each default is the parser's own."""
    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    predict = commands.choices["predict"]
    said = " ".join(predict.format_help().split())
    for flag, default in (("overlap", 0.5), ("sw_batch_size", 4), ("precision", "fp32")):
        assert predict.get_default(flag) == default and f"default: {default})" in said, flag
