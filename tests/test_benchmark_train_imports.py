"""``accelerated_seg.benchmark_train`` was split along its ideas in the hundred-and-thirteenth session
(``benchmark_train_settings``, ``_accelerator``, ``_data``, ``_blocks``, ``_results``; the driver stayed). Every
name the package, the tests, benchmarks, examples and docs take from it stays there, as the same object its new
home holds; and the names benchmarks/harness_checks.py and inside_blocks.py replace in it are still the ones the
driver calls, so that their replacements take effect."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE = "accelerated_seg.benchmark_train"
IMPORTED_IN_TEXT = re.compile(r"from accelerated_seg\.benchmark_train import \(?([\w\s,]+)\)?")
ATTRIBUTE_IN_TEXT = re.compile(r"accelerated_seg\.benchmark_train\.(\w+)")
# tests/interrupted_before_the_processes_meet.py's SIGNAL_IN/OTHERS_AT: "module:function", replaced in the module
REPLACED_AT_IN_TEXT = re.compile(r"accelerated_seg\.benchmark_train:(\w+)")


def _names_in(tree: ast.AST, in_package: bool, replaced: set[str] | None = None) -> set[str]:
    """The names one file's code takes from the module: imported from it, or read (or replaced) as attributes
    of a name it is bound to (``import accelerated_seg.benchmark_train as bt``; ``bt.our_loop``). Code in a
    string (a script a test launches) is read too. The ones it replaces there are added to ``replaced``."""
    replaced = set() if replaced is None else replaced
    names, aliases = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.module == MODULE or (in_package and node.level == 1 and node.module == "benchmark_train"):
                names.update(alias.name for alias in node.names)
            elif node.module == "accelerated_seg" or (in_package and node.level == 1 and node.module is None):
                aliases.update(alias.asname or alias.name for alias in node.names if alias.name == "benchmark_train")
        elif isinstance(node, ast.Import):
            aliases.update(alias.asname for alias in node.names if alias.name == MODULE and alias.asname)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE in node.value:
            with_code = node.value
            replaced.update(REPLACED_AT_IN_TEXT.findall(with_code))
            try:
                names |= _names_in(ast.parse(with_code), in_package=False, replaced=replaced)
            except SyntaxError:  # a line of prose or a shell command that names the module
                names.update(_names_in_text(with_code))
    def is_the_module(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in aliases) or ast.unparse(node) == MODULE

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_the_module(node.value):  # bt.our_loop
            names.add(node.attr)
            if isinstance(node.ctx, ast.Store):  # bt.our_loop = ...
                replaced.add(node.attr)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"
                and len(node.args) >= 2 and is_the_module(node.args[0])
                and isinstance(node.args[1], ast.Constant)):  # monkeypatch.setattr(benchmark_train, "_measure_case")
            names.add(node.args[1].value)
            replaced.add(node.args[1].value)
    return names


def _names_in_text(text: str) -> set[str]:
    names = set(ATTRIBUTE_IN_TEXT.findall(text))
    for imported in IMPORTED_IN_TEXT.findall(text):
        names.update(name for name in re.split(r"[\s,]+", imported) if name)
    return names


def names_taken_from_benchmark_train() -> set[str]:
    names = set()
    for path in [*ROOT.glob("accelerated_seg/**/*.py"), *ROOT.glob("tests/**/*.py"),
                 *ROOT.glob("benchmarks/*.py"), *ROOT.glob("examples/**/*.py")]:
        names |= _names_in(ast.parse(path.read_text(encoding="utf-8")), path.parent.name == "accelerated_seg")
    for path in [*ROOT.glob("docs/*.md"), ROOT / "README.md"]:
        names |= _names_in_text(path.read_text(encoding="utf-8"))
    return names - {"py"}  # "accelerated_seg/benchmark_train.py" read as an attribute


def test_every_name_taken_from_benchmark_train_anywhere_still_is_there():
    import accelerated_seg.benchmark_train as benchmark_train

    names = names_taken_from_benchmark_train()
    # the scan found the imports, the attributes of an alias (bt, harness), a launched script's and a doc's
    assert {"TimingSettings", "our_loop", "fresh_accelerator", "run_block", "_measure_case",
            "benchmark_train", "LEVERS", "synchronize"} <= names
    assert not [name for name in sorted(names) if not hasattr(benchmark_train, name)]



def test_every_name_replaced_in_benchmark_train_is_one_the_driver_itself_calls():
    """A script or test that replaces a name in accelerated_seg.benchmark_train changes what runs only if the
    driver's own code calls that name there: one of the driver's functions, or a name its functions read. Since the
    split, the pieces call each other in their own modules (interleaved_blocks calls its module's synchronize,
    loop_summary its module's _cost): ``bt.synchronize = ...`` would be an attribute nobody reads, and the run would
    measure what it always did. The counted test below proves the five the benchmark scripts replace; this one
    every replacement the tree holds (benchmarks' result folders too: their scripts are rerun)."""
    replaced = set()
    for path in [*ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("examples/**/*.py")]:
        _names_in(ast.parse(path.read_text(encoding="utf-8")), False, replaced)
    # the scan found the scripts' assignments, the tests' monkeypatch.setattr, a "module:function" of a launch
    assert {"our_loop", "run_our_block", "make_plain_loop", "run_block", "step_breakdown", "benchmark_train",
            "_measure_case", "run_from_cli", "fresh_accelerator"} <= replaced
    driver = ast.parse((ROOT / "accelerated_seg" / "benchmark_train.py").read_text(encoding="utf-8"))
    functions = [node for node in driver.body if isinstance(node, ast.FunctionDef)]
    called_by_the_driver = {function.name for function in functions} | {
        node.id for function in functions for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    assert sorted(replaced - called_by_the_driver) == []

# Where each name the scan above finds (and each public one) lives since the split.
MOVED = {
    "accelerated_seg.benchmark_train_settings": ["COMPILE_MODES", "DATA_SOURCES", "KITS19_EPOCH_SAMPLES", "LEVERS",
                                                 "TimingSettings", "TrainCase", "check_settings", "parse_model_args"],
    "accelerated_seg.benchmark_train_accelerator": ["lever_compile_settings", "fresh_accelerator", "sharding_in_effect",
                                                    "precision_not_in_effect"],
    "accelerated_seg.benchmark_train_data": ["SyntheticPatches"],
    "accelerated_seg.benchmark_train_blocks": ["EPOCHS_IN_ONE_PASS", "our_loop", "run_our_block", "synchronize"],
    "accelerated_seg.benchmark_train_results": ["format_table", "measured_under", "nonfinite_note", "result_name",
                                                # imported by the driver until the hundred-and-fourteenth session
                                                "loop_summary", "nonfinite_record"],
    "accelerated_seg.plain_loop": ["make_plain_loop", "run_block", "step_breakdown"],
}


def test_the_moved_names_are_their_new_homes_objects():
    import accelerated_seg.benchmark_train as benchmark_train

    for module, names in MOVED.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(benchmark_train, name) is getattr(home, name), f"{module}.{name}"
    moved_here = {name for module, names in MOVED.items() if module.startswith(f"{MODULE}_") for name in names}
    assert {name for name in moved_here if not name.startswith("_")} <= set(benchmark_train.__all__)
    assert not [name for name in benchmark_train.__all__ if not hasattr(benchmark_train, name)]
    from accelerated_seg.benchmark_train import LEVERS, TimingSettings, check_settings  # the form scripts use

    settings = importlib.import_module("accelerated_seg.benchmark_train_settings")
    assert (LEVERS, TimingSettings, check_settings) == (settings.LEVERS, settings.TimingSettings,
                                                        settings.check_settings)


def test_the_names_the_benchmark_scripts_replace_are_the_ones_the_driver_calls(monkeypatch):
    """harness_checks.py swaps the loops' builders and block runners, inside_blocks.py wraps the block runners,
    in accelerated_seg.benchmark_train: ``_measure_case`` must look each up there at each call (a replacement
    elsewhere would be silently ignored, and the check would measure the benchmark unchanged)."""
    import accelerated_seg.benchmark_train as benchmark_train
    from accelerated_seg.benchmark_train import TimingSettings

    called = []

    def counted(name):
        original = getattr(benchmark_train, name)

        def replacement(*args, **kwargs):
            called.append(name)
            return original(*args, **kwargs)
        monkeypatch.setattr(benchmark_train, name, replacement)

    for name in ("our_loop", "make_plain_loop", "run_our_block", "run_block", "step_breakdown"):
        counted(name)
    benchmark_train.benchmark_train(["unet"], [16], [2], ["fp32"], {"channels": [4, 8], "strides": [2],
                                                                    "num_res_units": 0},
                                    TimingSettings(steps=1, blocks=1, warmup_blocks=1))
    # one loop of each built; a warm-up and a timed block each; the plain loop's phases timed once
    assert sorted(called) == sorted(["our_loop", "make_plain_loop", "run_our_block", "run_our_block",
                                     "run_block", "run_block", "step_breakdown"])


def test_benchmark_train_is_looked_up_where_the_command_line_calls_it(monkeypatch, tmp_path, capsys):
    """harness_checks.py wraps ``benchmark_train.benchmark_train`` to annotate each result: run_from_cli must
    call the one in the module."""
    import accelerated_seg.benchmark_train as benchmark_train
    from accelerated_seg import cli
    from accelerated_seg.config import ConfigError

    seen = []

    def stub(*args, **kwargs):
        seen.append(args)
        raise ConfigError("stubbed before any measurement")
    monkeypatch.setattr(benchmark_train, "benchmark_train", stub)
    assert cli.main(["benchmark", "train", "--model", "unet", "--output", str(tmp_path / "train.json")]) == 2
    assert len(seen) == 1 and "stubbed before any measurement" in capsys.readouterr().err


def test_no_module_of_the_benchmark_takes_another_ones_private_name():
    """The split left seventeen names with a leading underscore (``_our_loop``, ``_fresh_accelerator``, ``_flags``
    ...) imported from one benchmark_train_*.py module into another and replaced by scripts and tests: a name
    another module uses is that module's interface, and is named as one (the hundred-and-thirteenth session's
    review)."""
    taken = []
    for path in sorted(ROOT.glob("accelerated_seg/benchmark_train*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchmark_train"):
                taken += [f"{path.name}: {alias.name}" for alias in node.names if alias.name.startswith("_")]
    assert taken == []


def test_the_harness_checks_replacements_take_what_the_originals_take():
    """benchmarks/harness_checks.py puts a plain loop where ours is built and ours where the plain one is: each
    replacement is called as the original is, so it takes the same parameters, by the same names. Its sixth
    parameter was ``fused`` (a bool, default False) where both builders take ``optim``, the optimizer's settings
    (an OptimConfig), since the sgd lever (3882e6aa)."""
    import inspect
    import sys

    spec = importlib.util.spec_from_file_location("harness_checks", ROOT / "benchmarks" / "harness_checks.py")
    harness_checks = importlib.util.module_from_spec(spec)
    saved = sys.argv
    try:
        sys.argv = ["harness_checks.py"]  # its usage check runs only as __main__
        spec.loader.exec_module(harness_checks)
    finally:
        sys.argv = saved

    def parameters(function) -> list[tuple[str, object]]:
        return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]
    assert parameters(harness_checks._plain_in_ours_place) == parameters(harness_checks.build_ours)
    assert parameters(harness_checks._ours_in_plain_place) == parameters(harness_checks.build_plain)
