"""What README.md and the guides under docs/ show a user typing exists as written: each `accelerated-seg`
command and its flags (against the command line's own parser), each `--section.key=value` override and YAML
block (against the settings), each Python snippet's imports, keywords and builder methods (against the
signatures). What cannot run here is checked as far as it can be: an `accelerate launch` line's own flags
(against accelerate's parser), the launch profile, experiment and script it names (examples/slurm/'s
too), and the settings it gives examples/train.py; every file under configs/, examples/, benchmarks/,
tests/ and docs/ a page names exists, and so does each test it cites. A flag or keyword renamed in the
code, and not in the page, fails here rather than in a reader's terminal (these pages' commands were run
by hand in the ninety-third session; nothing checked them before: inference.md, checkpoints.md, data.md
and from_monai.md first, the others later that session)."""

import argparse
import collections
import ast
import glob
import importlib
import inspect
import os
import re
import shlex
from pathlib import Path

import pytest
from accelerate.commands.launch import launch_command_parser

from accelerated_seg.cli import build_parser
from accelerated_seg.config import ConfigError, _every_setting, load_config

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("docs/inference.md", "docs/checkpoints.md", "docs/data.md", "docs/from_monai.md", "README.md",
        "docs/augmentation.md", "docs/demo.md", "docs/known_issues.md", "docs/planning.md", "docs/strategies.md",
        "docs/design.md", "docs/performance.md", "docs/stopping.md", "docs/testing.md",
        "docs/python_api.md", "docs/configuration.md", "docs/performance_history.md", "docs/known_issues_archive.md")
SCRIPTS = tuple(sorted(str(path.relative_to(ROOT)) for path in (ROOT / "examples" / "slurm").iterdir()))
COMMANDS = ("train", "synth", "check", "cache", "predict", "evaluate", "export", "benchmark", "plan")
# A command in a span of prose: `accelerated-seg check cases.csv --labels ...`, or `predict --overlap 0.25`
INLINE_COMMAND = re.compile(rf"`((?:accelerated-seg )?(?:{'|'.join(COMMANDS)}) --?[^`]*|accelerated-seg [^`]+)`")
# What marks a line as a form to fill in rather than a command to run as it is
PLACEHOLDERS = ("[", "]", "<", ">", "|", "...", "…", "MODEL_DIR", "CHECKPOINT")


def _doc(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _prose(text: str) -> str:
    """``text`` without its code blocks: a block's backticks (an error message quoted) open no span of prose."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _fenced(text: str, languages: tuple[str, ...]) -> list[str]:
    """The code blocks of ``text`` whose language is one of ``languages`` ("" for a block without one)."""
    return [body for language, body in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)
            if language in languages]


def _shell_lines(text: str) -> list[str]:
    """The lines of ``text``'s shell blocks (and of blocks without a language), each continuation joined to
    its line and each comment cut off."""
    return [re.sub(r"(^|\s+)#.*$", "", line) for block in _fenced(text, ("bash", ""))
            for line in block.replace("\\\n", " ").splitlines()]


# Our program at the start of a line, after a prompt, variables or its folder (.venv/bin/); not a mention of it in
# a block of output (README.md's run folder: "not accelerated-seg train's")
OUR_PROGRAM = re.compile(r"^\s*(?:\$\s+)?(?:\w+=\S*\s+)*(?:\S*/)?accelerated-seg\s+(.*)"
                         r"|\s-m accelerated_seg\.cli\s+(.*)")


def _command_words(line: str) -> str | None:
    """The words after the program in a shell line that runs ours (`accelerated-seg ...`, or `-m
    accelerated_seg.cli ...` under accelerate launch); None for any other line."""
    found = OUR_PROGRAM.search(line)
    return None if found is None else (found[1] or found[2]).strip()


def _documented_commands(in_prose: bool = True) -> list[tuple[str, str]]:
    """(page, the words after the program) of every command the pages show in code blocks, and where
    ``in_prose``, in spans of their prose too (`predict --overlap`: a flag named, often without its value)."""
    found = []
    for name in DOCS:
        text = _doc(name)
        found += [(name, words) for line in _shell_lines(text) if (words := _command_words(line)) is not None]
        if in_prose:
            found += [(name, " ".join(span.removeprefix("accelerated-seg ").split()))
                      for span in INLINE_COMMAND.findall(_prose(text))]
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return dict(action.choices)


def _parser_of(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The (sub)parser that ``words`` address, and the words after its name: benchmark's targets have their own,
    and the program's own options (`accelerated-seg --version`) come before any command."""
    if words[0].startswith("-"):
        return build_parser(), words
    command = _subcommands(build_parser())[words[0]]
    if words[0] == "benchmark":
        return _subcommands(command)[words[1]], words[2:]
    return command, words[1:]


def _flags(words: list[str]) -> list[str]:
    """The options named in ``words``, a synopsis's brackets taken off (`[--tta` is --tta)."""
    return [word.strip("[]").split("=", 1)[0] for word in words if word.strip("[]").startswith("--")
            and word.strip("[]") != "--"]


SETTINGS = set(_every_setting())
COMMANDS_SHOWN = _documented_commands()


def test_the_pages_show_commands_of_every_kind_they_document():
    """The extraction itself: if the blocks' form changed, the checks below would pass on nothing."""
    shown = {words.split()[0] for _, words in COMMANDS_SHOWN}
    assert {"predict", "evaluate", "export", "benchmark", "check", "cache", "synth"} <= shown, shown
    assert sum(name == "docs/inference.md" for name, _ in COMMANDS_SHOWN) >= 15
    assert {"README.md", "docs/planning.md", "docs/performance.md"} <= {name for name, _ in COMMANDS_SHOWN}


@pytest.mark.parametrize("page, words", COMMANDS_SHOWN, ids=[f"{page}:{words[:50]}" for page, words in COMMANDS_SHOWN])
def test_every_flag_a_page_shows_is_one_its_command_takes(page, words):
    split = shlex.split(words)
    parser, arguments = _parser_of(split)
    for flag in _flags(arguments):
        if "." in flag:  # --section.key=value: a setting, given to train
            assert flag == "--section.key" or flag[2:] in SETTINGS, f"{page}: {flag} is no setting ({words})"
        else:
            assert flag in parser._option_string_actions, f"{page}: `{split[0]}` takes no {flag} ({words})"


CONCRETE = [(page, words) for page, words in _documented_commands(in_prose=False)
            if not any(mark in words for mark in PLACEHOLDERS)]


@pytest.mark.parametrize("page, words", CONCRETE, ids=[f"{page}:{words[:50]}" for page, words in CONCRETE])
def test_every_command_a_page_shows_whole_parses_as_written(page, words):
    """Values too: a flag's count of values, its choices and types (`--size 128 128 96`, `--keep-largest 1 6`)."""
    try:
        _, left = build_parser().parse_known_args(shlex.split(words))
    except SystemExit:
        pytest.fail(f"{page}: `accelerated-seg {words}` does not parse (argparse's message above)")
    assert all(re.fullmatch(r"--\w+(\.\w+)+=.*", word) for word in left), f"{page}: {left} left over ({words})"


def _settings_given(text: str) -> set[str]:
    """The settings ``text`` gives a value: `--train.init_from=...` anywhere, and a span that begins with one
    set as YAML or an override does (`data.spacing: [1.5, 1.5, 2.0]`, `optim.warmup_steps=50`)."""
    section = r"(?:data|model|optim|train)\.[a-z_.]*[a-z_]"
    return set(re.findall(rf"(?<![\w-])--({section})", text)) | set(re.findall(rf"`({section})(?::\s|=)", text))


# README.md's example of a mistyped key, which training refuses: the one setting a page gives that is none
MISTYPED_ON_PURPOSE = {"optim.lrr"}


def test_every_setting_the_pages_give_exists():
    """In prose as well as in commands; from_monai.md's table maps MONAI's arguments to such settings."""
    unknown = {(page, key) for page in DOCS for key in _settings_given(_doc(page))
               if key not in SETTINGS | MISTYPED_ON_PURPOSE and not key.startswith("model.args.")}  # a network's own
    assert unknown == set()


def _yaml_blocks() -> list[tuple[str, str]]:
    return [(page, block) for page in DOCS for block in _fenced(_doc(page), ("yaml",))]


@pytest.mark.parametrize("page, block", _yaml_blocks(), ids=[page for page, _ in _yaml_blocks()])
def test_every_yaml_block_a_page_shows_loads_as_an_experiment_config(page, block, tmp_path):
    """Its keys, and its values' types and choices too (`compile: {enabled: true}`)."""
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(block, encoding="utf-8")
    try:
        load_config(experiment)
    except ConfigError as error:
        pytest.fail(f"{page}: {error}")


# What examples/slurm/train.sbatch and SLURM give node_task.sh (an experiment: train.sbatch's default)
SHELL_VALUES = {"SLURM_NNODES": "2", "SLURM_NODEID": "0", "GPUS_PER_NODE": "8", "MAIN_IP": "10.0.0.1",
                "EXPERIMENT": "configs/demo.yaml", "OUT": "output/slurm_1"}


def _with_shell_values(line: str) -> str:
    """A script's line with each shell expansion given a value, as a launch would see one: "${X:-900}" its
    default, $((...)) a count, "$X" the value above, "$@" nothing; a trailing `&` (in the background) is the
    shell's."""
    line = re.sub(r"\s&$", "", line.rstrip())
    line = re.sub(r"\$\(\(.*?\)\)", "2", line)
    line = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", line)
    return re.sub(r"\$(\w+)", lambda variable: SHELL_VALUES[variable[1]], line.replace('"$@"', ""))


# `accelerate launch` starting a command: at a line's start or after `&&`, perhaps from a folder (.venv/bin/)
LAUNCH = re.compile(r"(?:^|&&)\s*(?:\w+=\S*\s+)*(?:\S*/)?accelerate launch\s+(.*)")


def _launches() -> list[tuple[str, str]]:
    """(page or script, the words after `accelerate launch`) of every launch the pages and examples/slurm/ show,
    not the comments and messages that name one."""
    found = [(name, match[1]) for name in DOCS for line in _shell_lines(_doc(name)) if (match := LAUNCH.search(line))]
    for name in SCRIPTS:
        found += [(name, _with_shell_values(match[1])) for line in _doc(name).replace("\\\n", " ").splitlines()
                  if not line.lstrip().startswith("#") and (match := LAUNCH.search(line))]
    return found


def _is_placeholder(path: str) -> bool:
    return "<" in path or path.endswith("...")


def _training_arguments(arguments: list[str]) -> tuple[str | None, list[str]]:
    """examples/train.py's experiment and overrides in ``arguments``, parsed as that script parses them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    parser.add_argument("--resume")
    parser.add_argument("--no-report", action="store_true")
    parsed, overrides = parser.parse_known_args(arguments)
    return parsed.config, overrides


def _check_training_settings(page: str, config: str | None, overrides: list[str]) -> None:
    """The settings a training command gives load, as training's first step loads them; an experiment that is
    the reader's own (my_experiment.yaml) is the demo's, whose settings the overrides then change."""
    if any(_is_placeholder(word) or word.startswith("--section.") for word in [config or "", *overrides]):
        return
    if config is not None and not (ROOT / config).is_file():
        assert not config.startswith("configs/"), f"{page}: there is no {config}"
        config = "configs/demo.yaml"
    try:
        load_config(ROOT / config if config else None, overrides)
    except ConfigError as error:
        pytest.fail(f"{page}: {error} ({config} {' '.join(overrides)})")


LAUNCHES = _launches()


@pytest.mark.parametrize("page, words", LAUNCHES, ids=[f"{page}:{words[:60]}" for page, words in LAUNCHES])
def test_every_launch_shown_parses_and_names_files_that_exist(page, words):
    """accelerate's own flags (against its parser), the profile and the script; examples/train.py's settings."""
    try:
        launch = launch_command_parser().parse_args(shlex.split(words))
    except SystemExit:
        pytest.fail(f"{page}: `accelerate launch {words}` does not parse (accelerate's message above)")
    if launch.config_file and not _is_placeholder(launch.config_file):
        assert (ROOT / launch.config_file).is_file(), f"{page}: there is no {launch.config_file}"
    if not launch.module:
        assert (ROOT / launch.training_script).is_file(), f"{page}: there is no {launch.training_script}"
    if launch.training_script == "examples/train.py":
        _check_training_settings(page, *_training_arguments(launch.training_script_args))


def test_every_launch_option_the_prose_names_is_one_accelerate_takes():
    """`accelerate launch --rdzv_conf timeout=<seconds>`, `accelerate launch -q`: its options before the script."""
    options = launch_command_parser()._option_string_actions
    spans = [(page, span) for page in DOCS
             for span in re.findall(r"`[^`]*accelerate launch ([^`]*)`", _prose(_doc(page)))]
    before_the_script = [(page, re.split(r"\s(?:-m|\S+\.py|\.\.\.)(?:\s|$)", f" {span} ")[0]) for page, span in spans]
    named = [(page, word) for page, words in before_the_script for word in words.split() if word.startswith("-")]
    assert named, "no span of prose names a launch option any more: this check passes on nothing"
    assert [(page, word) for page, word in named if word not in options] == []


def test_the_pages_and_scripts_show_launches_of_every_kind():
    """The extraction itself: a launch of examples/train.py, of our command, of a benchmark script, and SLURM's."""
    scripts = {launch_command_parser().parse_args(shlex.split(words)).training_script for _, words in LAUNCHES}
    assert {"examples/train.py", "accelerated_seg.cli", "benchmarks/fsdp_on_cpu.py"} <= scripts
    assert "examples/slurm/node_task.sh" in {page for page, _ in LAUNCHES}


# A synopsis's brackets mark a form to fill in; a value's do not (--data.patch_size=[64,64,64])
TRAINING = [(page, words) for page, words in _documented_commands(in_prose=False) if words.split()[0] == "train"
            and not any(mark in words for mark in PLACEHOLDERS if mark not in "[]") and " [" not in words]


@pytest.mark.parametrize("page, words", TRAINING, ids=[f"{page}:{words[:50]}" for page, words in TRAINING])
def test_every_training_command_shown_gives_settings_that_load(page, words):
    """`--data.patch_size=[64,64,64] --model.name=segresnet`: the values too, not the keys alone."""
    parsed, overrides = build_parser().parse_known_args(shlex.split(words))
    _check_training_settings(page, parsed.config and str(parsed.config), overrides)


# A file of ours that a page names, as a path from the checkout's root; not inside a web address (…/docs/accelerate)
NAMED_FILE = re.compile(r"(?<![\w./-])((?:configs|examples|benchmarks|tests|docs)/[\w./{},*<>-]*[\w}*/])")


def _expanded(path: str) -> list[str]:
    """A shell's brace expansion: `plan_mlperf_b{1,2,4}.json` is three files, `a{,_before}.json` two."""
    braces = re.search(r"\{([^{}]*)\}", path)
    if braces is None:
        return [path]
    return [whole for choice in braces[1].split(",")
            for whole in _expanded(path[:braces.start()] + choice + path[braces.end():])]


def _files_named(text: str) -> set[str]:
    """The files under configs/, examples/, benchmarks/, tests/ and docs/ that ``text`` names, not those a
    command it shows is to write (`--output benchmarks/results/train_h100_1proc.json`, `OUT=...`)."""
    text = re.sub(r"(--output|--json|OUT=)\s*\S+", "", text)
    return {path for named in NAMED_FILE.findall(text) for path in _expanded(named) if not _is_placeholder(path)}


def test_every_file_a_page_or_script_names_exists():
    """Launch profiles, experiments, examples, benchmark scripts and the results the measurements cite."""
    missing = sorted(f"{page}: {path}" for page in DOCS + SCRIPTS for path in _files_named(_doc(page))
                     if not glob.glob(str(ROOT / path)))
    assert missing == []


def test_every_test_a_page_selects_exists():
    """`pytest tests/test_plan.py -k within_15_percent`: a renamed test would leave the reader nothing to run."""
    selections = [(page, match) for page in DOCS for line in _shell_lines(_doc(page))
                  if (match := re.search(r"pytest\s+(tests/\S+\.py)\s+-k\s+(\w+)", line))]
    assert selections, "no page selects a test any more: this check passes on nothing"
    for page, match in selections:
        tests = re.findall(r"^def (test_\w+)", (ROOT / match[1]).read_text(encoding="utf-8"), flags=re.M)
        assert any(match[2] in name for name in tests), f"{page}: no test of {match[1]} is named *{match[2]}*"


def test_every_test_a_page_cites_exists():
    """`test_preemption.py::test_ctrl_c_ends_training_...`, `test_resume_mid_epoch...`: a test as the proof of a
    claim, by its name or the start of it."""
    tests = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").glob("test_*.py"))
    cited = {(page, name) for page in DOCS
             for name in re.findall(r"(?:\.py::|`)(test_\w+)(?:\.\.\.|…|`|\[)", _doc(page))}
    assert len(cited) >= 5, cited
    assert [(page, name) for page, name in sorted(cited) if not re.search(rf"^def {name}", tests, flags=re.M)] == []


def _all_options(parser: argparse.ArgumentParser) -> set[str]:
    """The options of ``parser`` and of each of its commands (benchmark's targets too)."""
    options = set(parser._option_string_actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            options |= {option for command in action.choices.values() for option in _all_options(command)}
    return options


def test_every_option_a_table_row_begins_with_is_ours_or_accelerates():
    """planning.md's and inference.md's tables of options, performance.md's of launch flags measured."""
    known = _all_options(build_parser()) | set(launch_command_parser()._option_string_actions)
    named = {(page, flag) for page in DOCS for row in re.findall(r"^\|([^|\n]*)\|", _prose(_doc(page)), flags=re.M)
             for flag in re.findall(r"`(--[a-z][\w-]*)", row)}
    assert len(named) >= 10, named
    assert sorted((page, flag) for page, flag in named if flag not in known) == []


def test_every_lever_a_page_names_is_one_benchmark_train_measures():
    """`--lever no_cudnn_benchmark`, `--lever compile+channels_last`: checked when the benchmark starts, not by
    its parser, so the parse above passes a renamed lever."""
    from accelerated_seg.benchmark_train import LEVERS

    named = {(page, lever) for page in DOCS for values in re.findall(r"--lever ((?:[a-z_+]+ ?)+)", _doc(page))
             for combination in values.split() for lever in combination.split("+")}
    assert len(named) >= 10, named
    placeholders = {"a", "b"}  # performance.md's `--lever a+b b+a`: the form of a configuration given twice
    assert sorted((page, lever) for page, lever in named if lever not in LEVERS.keys() | placeholders) == []


# A YAML file a page names without its folder that is the reader's own, not one of configs/: the run folder's
# config.yaml, my_experiment.yaml
READERS_OWN = re.compile(r"config\.yaml|my_\w+\.yaml")


def test_every_profile_or_experiment_a_page_names_alone_is_in_configs():
    """`fsdp2_blocks.yaml`, `cpu.yaml`: the file under configs/accelerate/ or configs/ the reader will look for."""
    named = {(page, name) for page in DOCS for name in re.findall(r"(?<![\w/.-])(\w+\.yaml)", _doc(page))
             if not READERS_OWN.fullmatch(name)}
    assert len(named) >= 10, named
    assert sorted((page, name) for page, name in named if not (ROOT / "configs" / name).is_file()
                  and not (ROOT / "configs" / "accelerate" / name).is_file()) == []


def test_every_extra_a_pip_install_names_is_one_the_package_declares():
    """`pip install -e ".[tensorboard,viz]"`, `"accelerated_seg[gpu]"`: pip only warns of an extra it does not know,
    and installs the package without what the page promised."""
    tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with Python 3.11's tomllib (3.10 has none)")

    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                   ["optional-dependencies"])
    installs = [(page, extras) for page in DOCS
                for extras in re.findall(r"pip install [^`\n]*?[.\w]\[([\w,]+)\]", _doc(page))]
    named = {(page, extra) for page, extras in installs for extra in extras.split(",")}
    assert {"tensorboard", "viz", "test"} <= {extra for _, extra in named}, named
    assert sorted((page, extra) for page, extra in named if extra not in declared) == []


# Python given to the interpreter inside a shell block: `python - <<'EOF'` ... EOF (docs/augmentation.md's timing)
HEREDOC = re.compile(r"python\S* - <<'?(\w+)'?\n(.*?)^\1$", flags=re.S | re.M)


def _python_snippets() -> list[tuple[str, str]]:
    return [(page, block) for page in DOCS for block in _fenced(_doc(page), ("python",))] + \
        [(page, match[2]) for page in DOCS for block in _fenced(_doc(page), ("bash",))
         for match in HEREDOC.finditer(block)]


def _submodule(package: str, name: str):
    """``package.name`` where it is a module: ``from accelerated_seg import plan`` imports it, as Python does, where
    the package's own attributes hold it only once something has imported it (planning.md's snippet failed alone and
    passed after a test that imported ``accelerated_seg.plan``, by the order xdist gave the tests)."""
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError:
        return None


class _Snippet(ast.NodeVisitor):
    """Each imported name, each call of it (or of a method of it, or of what a builder chain of it returns)
    with its keywords, checked against what the package defines; ``problems`` lists what is not there."""

    def __init__(self):
        self.imported, self.instances, self.problems = {}, {}, []

    def visit_ImportFrom(self, node):
        module = importlib.import_module(node.module)
        for alias in node.names:
            if (found := getattr(module, alias.name, None) or _submodule(node.module, alias.name)) is None:
                self.problems.append(f"{node.module} has no {alias.name}")
            else:
                self.imported[alias.asname or alias.name] = found

    def visit_Assign(self, node):
        self.generic_visit(node)
        if (owner := self._class_of(node.value)) is not None:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.instances[target.id] = owner

    def visit_Call(self, node):
        self.generic_visit(node)
        function = self._callable(node.func)
        if function is None:
            return
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            return
        positional = [None] * sum(not isinstance(arg, ast.Starred) for arg in node.args)
        keywords = {keyword.arg: None for keyword in node.keywords if keyword.arg is not None}
        try:
            signature.bind_partial(*positional, **keywords) if len(positional) < len(node.args) else \
                signature.bind(*positional, **keywords)
        except TypeError as error:
            self.problems.append(f"{ast.unparse(node.func)}(...): {error}")

    def _class_of(self, node):
        """The class whose instance ``node`` gives: a call of an imported class, or of a builder method of it
        (Dataset.from_files(...).batch(4)); None where that is not known."""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        if isinstance(node, ast.Call):
            node = node.func
        if isinstance(node, ast.Name):
            found = self.imported.get(node.id, self.instances.get(node.id))
            return found if inspect.isclass(found) else None
        return None

    def _callable(self, func):
        if isinstance(func, ast.Name):
            return self.imported.get(func.id)
        if not isinstance(func, ast.Attribute):
            return None
        owner = (self.imported.get(func.value.id) if isinstance(func.value, ast.Name) else None) or \
            self._class_of(func.value)
        if owner is None:
            return None
        if not hasattr(owner, func.attr):
            self.problems.append(f"{owner.__name__} has no {func.attr}")
            return None
        found = getattr(owner, func.attr)
        if inspect.isclass(owner) and inspect.isfunction(inspect.getattr_static(owner, func.attr)):
            return found.__get__(object.__new__(owner))  # a method of an instance: bound, as the snippet calls it
        return found


@pytest.mark.parametrize("page, snippet", _python_snippets(), ids=[page for page, _ in _python_snippets()])
def test_every_python_snippet_calls_what_the_package_defines(page, snippet):
    checked = _Snippet()
    checked.visit(ast.parse(snippet))
    assert checked.imported, f"{page}: a snippet that imports nothing of ours is not checked here"
    assert checked.problems == [], f"{page}: {checked.problems}"


def test_the_dotted_names_the_pages_give_exist():
    """`accelerated_seg.checkpoint_export.export_checkpoint(...)`, `accelerated_seg.cli.end_process` in prose."""
    missing = []
    for page in DOCS:
        for dotted in sorted(set(re.findall(r"accelerated_seg(?:\.[A-Za-z_]\w*)+", _doc(page)))):
            if _resolved(dotted) is None:
                missing.append(f"{page}: {dotted}")
    assert missing == []


def _resolved(dotted: str):
    """The module, or the attribute of one, that ``dotted`` names; None where there is none."""
    parts, found = dotted.split("."), None
    for length in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:length]))
        except ImportError:
            continue
        for part in parts[length:]:
            found = getattr(found, part, None)
        return found
    return found


def test_the_layout_lists_every_module_of_the_package_and_no_other():
    """A module added without a line there, or one renamed or removed and still listed, is the reader's map
    gone stale. Each module has a line of its own that starts with its name (data/'s and formats/' too), once:
    until the ninety-fourth session data/'s modules ran together in one paragraph, and a name anywhere in
    the block counted as listed. The lines were the README's Layout until the hundred-and-twenty-second session
    (a third of the README); now docs/layout.md, which the README's Layout links."""
    readme_layout = _doc("README.md").split("\n## Layout", 1)[1].split("\n## ", 1)[0]
    assert "(docs/layout.md)" in readme_layout
    (layout,) = [block for block in _fenced(_doc("docs/layout.md"), ("",)) if block.startswith("accelerated_seg/")]
    package = re.match(r"accelerated_seg/\n(?:[ \t].*\n)*", layout)[0]  # up to the next folder (configs/, ...)
    entries = collections.Counter(re.findall(r"^[ \t]+(\w+\.py)\b", package, re.MULTILINE))
    modules = {path.name for path in (ROOT / "accelerated_seg").rglob("*.py") if not path.name.startswith("__")}
    assert {"missing": modules - set(entries), "not there": set(entries) - modules,
            "more than once": {name for name, count in entries.items() if count > 1}} == {
        "missing": set(), "not there": set(), "more than once": set()}


def _heading_anchors(page: str) -> set[str]:
    """The anchors GitHub gives ``page``'s headings: lower case, punctuation but ``-`` and ``_`` dropped, spaces
    made ``-``, and a heading met again numbered (``-1``, ``-2``)."""
    anchors, seen = set(), {}
    for heading in re.findall(r"^#+ (.*)$", _prose(page), flags=re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(f"{anchor}-{seen[anchor]}" if anchor in seen else anchor)
        seen[anchor] = seen.get(anchor, 0) + 1
    return anchors


def test_every_link_to_a_section_of_a_page_lands_on_one_of_its_headings():
    """A link to ``<page>.md#<anchor>`` of the README or docs/, from a page, the code, the tests, the examples or
    a benchmark's notes, and a page's link to a section of its own, lands on a heading the page has. The
    hundred-and-twenty-third session moved known_issues.md's older Fixed entries into known_issues_archive.md and
    rewrote the links that reached them; a link left behind would open the page at its top."""
    pages = {path.name: _heading_anchors(_doc(str(path.relative_to(ROOT))))
             for path in [ROOT / "README.md", *ROOT.glob("docs/*.md")]}
    sources = [path for pattern in ("*.md", "docs/*.md", "accelerated_seg/**/*.py", "tests/*.py", "examples/**/*",
                                    "benchmarks/**/*.md")
               for path in ROOT.glob(pattern) if path.is_file() and path.suffix in (".md", ".py", ".sh", ".sbatch")]
    wrong = []
    for path in sources:
        text = " ".join(path.read_text(encoding="utf-8").split())
        wrong += [f"{path.relative_to(ROOT)}: {page}#{anchor}"
                  for page, anchor in re.findall(r"([\w.-]+\.md)#([\w-]+)", text)
                  if page in pages and anchor not in pages[page]]
        if path.name in pages and path.parent in (ROOT, ROOT / "docs"):  # a page's links to its own sections
            wrong += [f"{path.relative_to(ROOT)}: #{anchor}" for anchor in re.findall(r"\]\(#([\w-]+)\)", text)
                      if anchor not in pages[path.name]]
    assert wrong == []


def test_every_link_of_a_page_to_a_file_finds_it_from_the_pages_folder():
    """A link is read from its page's own folder: docs/testing.md linked `docs/known_issues.md`, which from docs/ is
    docs/docs/known_issues.md, a page not found, and the check above reads only a link's page name (the
    hundred-and-twenty-sixth session's contributor walk through testing.md and design.md)."""
    wrong = []
    for path in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]:
        prose = re.sub(r"`[^`\n]*`", "", _prose(path.read_text(encoding="utf-8")))  # a link quoted is no link
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", prose):
            if "://" not in target and not target.startswith("mailto:") and not (path.parent / target).exists():
                wrong.append(f"{path.relative_to(ROOT)}: {target}")
    assert wrong == []


def test_every_section_of_checkpoints_md_named_elsewhere_is_one_of_its_headings():
    """A link to docs/checkpoints.md#<anchor>, or a section of it named in words (`docs/checkpoints.md, "Resume"`),
    from a page, the code, the tests or the examples, lands on a heading it has (GitHub's slugs). Its rewrite of the
    hundred-and-eighteenth session kept every anchor, but a Fixed entry it edited sent readers to a section
    "Loader workers", a bold paragraph of "SLURM" (its review)."""
    page = _prose(_doc("docs/checkpoints.md"))
    headings = [heading.strip() for heading in re.findall(r"^#+ (.*)$", page, flags=re.M)]
    anchors = {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
    sources = [path for pattern in ("*.md", "docs/*.md", "accelerated_seg/**/*.py", "tests/*.py", "examples/**/*")
               for path in ROOT.glob(pattern) if path.is_file() and path.suffix in (".md", ".py", ".sh", ".sbatch")]
    wrong = []
    for path in sources:
        text = " ".join(path.read_text(encoding="utf-8").split())
        wrong += [f"{path.relative_to(ROOT)}: #{anchor}" for anchor in re.findall(r"checkpoints\.md#([\w-]+)", text)
                  if anchor not in anchors]
        # a name is its heading's start: `"What "step N" means"` is cut at its inner quote
        wrong += [f'{path.relative_to(ROOT)}: "{name}"' for name in re.findall(r'checkpoints\.md, "([^"]+)"', text)
                  if not any(heading.startswith(name) for heading in headings)]
    assert wrong == []


def test_configuration_md_says_what_accelerate_adds_to_a_failed_one_process_launch(tmp_path, capfd):
    """The quick start's second launch: our line, then accelerate's traceback, which (accelerate 1.16) repeats it as
    the RuntimeError its CalledProcessError is raised from; `-q` leaves our line alone, status 1. The page said the
    traceback and not the repeat until the hundred-and-twenty-fourth session's walk (new_user_walk_2026-12-07/):
    the line twice reads as two failures, or as our traceback, which the README calls a bug."""
    import subprocess
    import sys

    from accelerate.commands import launch

    if not hasattr(launch, "_run_subprocess"):
        pytest.skip("this accelerate runs a one-process launch's script otherwise")
    page = " ".join(_doc("docs/configuration.md").split())
    assert "repeats our line above it as `RuntimeError: error: ...`" in page
    assert "`accelerate launch -q` (quiet) leaves our message alone, still with status 1" in page
    script = tmp_path / "refuses.py"
    script.write_text("import sys\nprint('error: output/demo already holds a run', file=sys.stderr)\nsys.exit(2)\n")
    with pytest.raises(subprocess.CalledProcessError) as raised:
        launch._run_subprocess([sys.executable, str(script)], dict(os.environ), False)
    assert raised.value.returncode == 2 and isinstance(raised.value.__cause__, RuntimeError)
    assert "error: output/demo already holds a run" in str(raised.value.__cause__)
    with pytest.raises(SystemExit) as quiet:
        launch._run_subprocess([sys.executable, str(script)], dict(os.environ), True)
    assert quiet.value.code == 1
    assert capfd.readouterr().err.count("error: output/demo already holds a run") == 2  # once a launch, as it was said
