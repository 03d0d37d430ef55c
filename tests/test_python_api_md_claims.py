"""docs/python_api.md's tables against the package: the calls' signatures (names, order, defaults) and the refusals
it quotes. The hundred-and-eighteenth session's rewrite (helper h99) gave `Segmentation(..., precision=None,
output_dir=None)`, whose None the constructor refuses (`output_dir must be a folder path, got None`), and
`save(folder)`, `Segmentation.load(folder)`, `.batch(n)`, whose keywords raise TypeError; and it told
`data.shuffle()` and `repeat()` in its own words, without the line's way on (`leave shuffle() out`). Its review (r87)
found them; these tests read the page as a user would call it. docs/planning.md, rewritten with it, is read below too:
its profile refusals quoted (four rows said "both" or the like, without the line's way on), the batches its CPU check
measures, and its options table against plan's parser."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from accelerated_seg import Dataset, Segmentation

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "python_api.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return PAGE.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _rows(section: str) -> list[list[str]]:
    """A table's rows as cells, the header and its rule left out."""
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines[2:]]


def _top_level_split(text: str) -> list[str]:
    """``a, b=(1, 2), **c`` -> ['a', 'b=(1, 2)', '**c']: commas inside brackets or quotes stay."""
    parts, depth, quote, current = [], 0, None, ""
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += char
    return parts + ([current.strip()] if current.strip() else [])


def _callable(name: str):
    """The function a table's call names: `.batch` is Dataset's, a bare `fit`/`predict` the estimator's."""
    if name.startswith("."):
        return getattr(Dataset, name[1:])
    if name == "Segmentation":
        return Segmentation.__init__
    if name.startswith(("Segmentation.", "Dataset.")):
        owner, attribute = name.split(".")
        return getattr({"Segmentation": Segmentation, "Dataset": Dataset}[owner], attribute)
    if name.startswith("accelerated_seg."):
        module, attribute = name.rsplit(".", 1)
        return getattr(importlib.import_module(module), attribute)
    return getattr(Segmentation, name)


def _calls_in_tables() -> list[str]:
    cells = [row[0] for title in ("Segmentation and Dataset", "The functions") for row in _rows(_section(title))]
    return [call for cell in cells for call in re.findall(r"`([\w.]+\(.*?\))`", cell)]


def test_the_tables_name_the_calls_they_should():
    calls = {call.split("(")[0] for call in _calls_in_tables()}
    assert {"Dataset.from_files", "Segmentation", "predict", "evaluate", "save", "Segmentation.load",
            "accelerated_seg.train.fit", "accelerated_seg.inference.predict_cases"} <= calls, calls


@pytest.mark.parametrize("call", _calls_in_tables())
def test_each_call_the_tables_give_takes_those_arguments_in_that_order_with_those_defaults(call):
    """A keyword the page names must be the function's (save(folder=...) raised TypeError), in the function's order
    (a positional call follows it), and a default the page gives must be the function's."""
    name, arguments = re.fullmatch(r"([\w.]+)\((.*)\)", call).groups()
    parameters = inspect.signature(_callable(name)).parameters
    order = [parameter for parameter in parameters if parameter != "self"]
    positions = []
    for argument in _top_level_split(arguments):
        if argument == "...":
            continue
        if argument.startswith("**"):
            assert any(p.kind is p.VAR_KEYWORD for p in parameters.values()), (call, "takes no **keywords")
            continue
        key, _, default = argument.partition("=")
        assert key in order, (call, key, order)
        positions.append(order.index(key))
        if default and default != "...":
            assert ast.literal_eval(default) == parameters[key].default, (call, key, parameters[key].default)
    assert positions == sorted(positions), (call, order)


def _told(cell: str) -> list[list[str]]:
    """Each quoted line of a told cell, as the pieces between its `...`."""
    return [[piece.strip() for piece in quote.split("...") if piece.strip()] for quote in re.findall(r"`([^`]+)`",
                                                                                                    cell)]


@pytest.fixture(scope="module")
def phantoms(tmp_path_factory):
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.synthetic import ensure_synthetic_dataset

    folder = tmp_path_factory.mktemp("phantoms")
    cases = load_msd(ensure_synthetic_dataset(str(folder / "data"), num_cases=3, num_validation=1))
    return folder, [(str(case.images[0]), str(case.label)) for case in cases.training]


def test_every_refusal_the_settings_table_gives_is_the_line_the_package_says(phantoms):
    """Each `given` run as written (a bare `fit(data, ...)` on a new estimator, `model_args=` on a U-Net); its line
    must hold every piece the page quotes, in order. A row that quotes no line (it said "refused: the loader
    reshuffles every epoch") fails: the line's way on is what the reader needs. predict's and evaluate's rows need
    a trained model: messages.txt of the rewrite captured them."""
    folder, pairs = phantoms
    data = Dataset.from_files(pairs, block_shape=32, n_classes=3)
    checked = 0
    for given_cell, told_cell in _rows(_section("Settings, and how a wrong one is told")):
        givens, told = re.findall(r"`([^`]+)`", given_cell), _told(told_cell)
        assert told and len(told) in (1, len(givens)), (given_cell, told_cell)
        for number, given in enumerate(givens):
            if given.startswith("model."):
                continue
            if given.startswith("fit("):
                given = f"Segmentation('unet', output_dir={str(folder / 'run')!r}).{given}"
            elif given.startswith("model_args="):
                given = f"Segmentation('unet', {given})"
            with pytest.raises(Exception) as raised:
                eval(given, {"Segmentation": Segmentation, "Dataset": Dataset, "pairs": pairs, "data": data})
            said, at = str(raised.value), 0
            for piece in told[number if len(told) > 1 else 0]:
                found = said.find(piece, at)
                assert found >= 0, (given, piece, said)
                at = found + len(piece)
            checked += 1
    assert checked >= 18, checked
    assert not (folder / "run").exists()  # refused before anything is written


def test_every_function_the_page_names_by_its_module_is_there():
    """`accelerated_seg.exported_model.load_exported`, `accelerated_seg.inference.predict_cases`: the page said
    `load_exported` bare in the functions table, beside rows of `accelerated_seg.inference`, which has none."""
    named = set(re.findall(r"`(accelerated_seg(?:\.\w+)+)", PAGE))
    assert "accelerated_seg.exported_model.load_exported" in named, named
    missing = []
    for dotted in sorted(named):
        module, _, attribute = dotted.rpartition(".")
        try:
            getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            try:
                importlib.import_module(dotted)
            except ImportError:
                missing.append(dotted)
    assert missing == []


# docs/planning.md, rewritten in the same session by the same helper and reviewed with this page (r87)
PLANNING = (ROOT / "docs" / "planning.md").read_text(encoding="utf-8")
# a profile for each row of planning.md's refusal table that h99 paraphrased ("both", "both keys, and what to set",
# "refused: the loop does not run them", "the json, the field and the profile"), keyed by its first words
PROFILES = {
    "a tensor, context or sequence parallel size": [
        "distributed_type: MULTI_GPU\nparallelism_config: {parallelism_config_tp_size: 2}\n"],
    "`fsdp_sync_module_states: false`": [
        "distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, fsdp_sync_module_states: false}\n"],
    "a `dynamo_config` beside": [
        "distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\n"
        "dynamo_config: {dynamo_backend: INDUCTOR, dynamo_mode: max-autotune}\n"],
    "a DeepSpeed json": [
        "distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: JSON_WITHOUT_ZERO}\n",
        "distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: JSON, zero_stage: 2}\n"],
}


def _in_order(pieces: list[str], said: str) -> bool:
    at = 0
    for piece in pieces:
        at = said.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return True


def test_planning_quotes_each_profile_refusal_it_lists_with_its_way_on(tmp_path):
    """Each row names what the line says to do, quoted as plan says it: "both" told a reader nothing to write."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "ds.json").write_text('{"zero_optimization": {"stage": 2}}')
    (tmp_path / "ds_without_zero.json").write_text('{"bf16": {"enabled": true}}')
    table = PLANNING.split("| in the profile | told |", 1)[1].split("\n\n", 1)[0]
    rows = {row[0]: row[1] for row in _rows("| in the profile | told |" + table)}
    for key, profiles in PROFILES.items():
        (told_cell,) = [told for first, told in rows.items() if first.startswith(key)]
        said = []
        for text in profiles:
            text = text.replace("JSON_WITHOUT_ZERO", str(tmp_path / "ds_without_zero.json"))
            (tmp_path / "launch.yaml").write_text(text.replace("JSON", str(tmp_path / "ds.json")))
            with pytest.raises(ConfigError) as raised:
                read_launch_profile(tmp_path / "launch.yaml")
            said.append(str(raised.value))
        quotes = _told(told_cell)
        assert len(quotes) == len(profiles), (key, told_cell)
        for pieces, line in zip(quotes, said):
            assert _in_order(pieces, line), (key, pieces, line)


def _batches_measured(monkeypatch, measure) -> list[int]:
    from accelerated_seg import plan

    seen, measure_step = [], plan.measure_step
    monkeypatch.setattr(plan, "measure_step", lambda model, channels, batch, *args, **kwargs: (
        seen.append(batch), measure_step(model, channels, batch, *args, **kwargs))[1])
    measure(plan)
    return seen


def test_planning_says_which_batches_the_cpu_check_and_plan_measure(monkeypatch):
    """The CPU run's check (cpu_step_fit, through measure_peak) measures one step at the run's batch; plan measures at
    --batch and the next. The rewrite said the CPU check measured "at the run's batch and the next"."""
    text = " ".join(PLANNING.split())
    assert "Each measures one step at that batch alone" in text
    assert "`plan` measures at `--batch` and the next" in text
    assert _batches_measured(monkeypatch, lambda plan: plan.measure_peak("unet", (32, 32, 32), "fp32", 1, 3, None,
                                                                         2)) == [2]
    assert _batches_measured(monkeypatch, lambda plan: plan.measure_model("unet", (32, 32, 32), "fp32",
                                                                          smallest_batch=8)) == [8, 9]


def test_planning_options_table_lists_every_option_of_plan_with_its_choices():
    from accelerated_seg.cli import build_parser

    parser = build_parser()
    (commands,) = [action for action in parser._actions if action.choices and "plan" in action.choices]
    options = {action.option_strings[-1]: action for action in commands.choices["plan"]._actions
               if action.option_strings and action.option_strings[-1] != "--help"}
    table = PLANNING.split("| option | meaning |", 1)[1].split("\n\n", 1)[0]
    firsts = [row[0] for row in _rows("| option | meaning |" + table)]
    named = {flag: choices for cell in firsts for flag, choices in re.findall(r"`(--[\w-]+)(?: ([\w\\|]+))?", cell)}
    assert sorted(named) == sorted(options)
    for flag, choices in named.items():
        if options[flag].choices:
            assert choices.split("\\|") == list(options[flag].choices), (flag, choices)
