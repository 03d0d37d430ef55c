"""What docs/inference.md, checkpoints.md, data.md and from_monai.md show a user typing exists as written: each
`accelerated-seg` command and its flags (against the command line's own parser), each `--section.key=value`
override (against the settings), and each Python snippet's imports, keywords and builder methods (against the
signatures). A flag or keyword renamed in the code, and not in the page, fails here rather than in a reader's
terminal (these pages' commands were run by hand in the ninety-third session; nothing checked them before)."""

import argparse
import ast
import importlib
import inspect
import re
import shlex
from pathlib import Path

import pytest

from accelerated_seg.cli import build_parser
from accelerated_seg.config import _every_setting

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("inference.md", "checkpoints.md", "data.md", "from_monai.md")
COMMANDS = ("train", "synth", "check", "cache", "predict", "evaluate", "export", "benchmark", "plan")
# A command in a span of prose: `accelerated-seg check cases.csv --labels ...`, or `predict --overlap 0.25`
INLINE_COMMAND = re.compile(rf"`((?:accelerated-seg )?(?:{'|'.join(COMMANDS)}) --?[^`]*|accelerated-seg [^`]+)`")
# What marks a line as a form to fill in rather than a command to run as it is
PLACEHOLDERS = ("[", "]", "<", ">", "|", "...", "…", "MODEL_DIR", "CHECKPOINT")


def _doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def _fenced(text: str, languages: tuple[str, ...]) -> list[str]:
    """The code blocks of ``text`` whose language is one of ``languages`` ("" for a block without one)."""
    return [body for language, body in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)
            if language in languages]


def _command_words(line: str) -> str | None:
    """The words after the program in a shell line that runs ours (`accelerated-seg ...`, or `-m
    accelerated_seg.cli ...` under accelerate launch), its comment cut off; None for any other line."""
    line = re.sub(r"\s+#.*$", "", line)
    for program in ("accelerated-seg ", "-m accelerated_seg.cli "):
        if program in line:
            return line.split(program, 1)[1].strip()
    return None


def _documented_commands(in_prose: bool = True) -> list[tuple[str, str]]:
    """(page, the words after the program) of every command the four pages show in code blocks, and where
    ``in_prose``, in spans of their prose too (`predict --overlap`: a flag named, often without its value)."""
    found = []
    for name in DOCS:
        text = _doc(name)
        for block in _fenced(text, ("bash", "")):
            for line in block.replace("\\\n", " ").splitlines():
                if (words := _command_words(line)) is not None:
                    found.append((name, words))
        if in_prose:
            found += [(name, " ".join(span.removeprefix("accelerated-seg ").split()))
                      for span in INLINE_COMMAND.findall(text)]
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return dict(action.choices)


def _parser_of(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The (sub)parser that ``words`` address, and the words after its name: benchmark's targets have their own."""
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
    assert sum(name == "inference.md" for name, _ in COMMANDS_SHOWN) >= 15


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


def test_every_setting_the_pages_give_exists():
    """In prose as well as in commands; from_monai.md's table maps MONAI's arguments to such settings."""
    unknown = {(page, key) for page in DOCS for key in _settings_given(_doc(page))
               if key not in SETTINGS and not key.startswith("model.args.")}  # a network's own argument
    assert unknown == set()


def _python_snippets() -> list[tuple[str, str]]:
    return [(page, block) for page in DOCS for block in _fenced(_doc(page), ("python",))]


class _Snippet(ast.NodeVisitor):
    """Each imported name, each call of it (or of a method of it, or of what a builder chain of it returns)
    with its keywords, checked against what the package defines; ``problems`` lists what is not there."""

    def __init__(self):
        self.imported, self.instances, self.problems = {}, {}, []

    def visit_ImportFrom(self, node):
        module = importlib.import_module(node.module)
        for alias in node.names:
            if not hasattr(module, alias.name):
                self.problems.append(f"{node.module} has no {alias.name}")
            else:
                self.imported[alias.asname or alias.name] = getattr(module, alias.name)

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
