"""The scripts under benchmarks/ parse, the Python ones with a command line import and answer --help,
cpu_session.sh refuses before any work when it has no SESSION or when that session's files exist
already, and the shell scripts refuse a folder holding a file they would write. They run for half an
hour to hours, so a slip that only shows when one is started (an unbalanced quote in a header line
did, once) costs a session."""

import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.sh")) + [ROOT / ".ci" / "run"]
# Every Python script answers --help without measuring anything: four without a parser took --help for a
# start and rewrote their committed results (seventy-third session). fsdp_on_cpu.py is no command of its own:
# accelerate launch runs it to run another one (its module docstring).
COMMANDS = sorted(path for path in (ROOT / "benchmarks").glob("*.py") if path.name != "fsdp_on_cpu.py")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_script_parses(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def help_answers() -> dict:
    """Every command's --help, answered in one fresh process (tests/scripts_help.py says why)."""
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("scripts_help.py")), *map(str, COMMANDS)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize("script", COMMANDS, ids=lambda path: path.name)
def test_the_python_script_imports_and_answers_help(script, help_answers):
    answer = help_answers[str(script)]
    assert answer["exit"] == 0 and "usage:" in answer["stdout"], answer["error"] or answer["stdout"]


def test_the_python_code_is_pyflakes_clean_but_for_its_noqa_lines():
    """What pyflakes reports of accelerated_seg, examples, tests and the scripts here fails the suite, CI's
    fresh clone too (the test extra installs pyflakes since the hundred-and-twenty-sixth session: until then
    this test was skipped there and only benchmarks/*.py was checked). pyflakes does not read ``# noqa``, so a
    line marked so for pyflakes (an import made for its side effect: check_command._import_the_checks,
    training_data's ``datasets``) is let through here (``_unmarked_pyflakes_reports``). The records under
    results/ are left as they ran."""
    pytest.importorskip("pyflakes.api")
    files = [path for tree in ("accelerated_seg", "examples", "tests") for path in sorted((ROOT / tree).rglob("*.py"))]
    files += sorted((ROOT / "benchmarks").glob("*.py"))
    unmarked = _unmarked_pyflakes_reports(files)
    assert not unmarked, "\n".join(unmarked)


def test_the_pyflakes_check_lets_through_a_report_of_its_noqa_code_alone(tmp_path):
    """A ``# noqa`` naming other checks' codes (BLE001 on 42 lines, E402 on 23) let through any pyflakes report of
    its line, an undefined name or an unused import; a syntax error's report, whose source and caret lines have no
    ``path:line:``, raised ValueError (not enough values to unpack) in place of saying the file; a checkout whose
    path holds a ':' let through no line, its side-effect imports failing the suite; and a ``# noqa`` on a
    parenthesised import's last line was not read, pyflakes reporting its first (review r122)."""
    pytest.importorskip("pyflakes.api")
    folder = tmp_path / "a:checkout"
    folder.mkdir()
    cases = {"meant.py": ("import os  # noqa: F401\nimport sys  # noqa\n", []),
             "other_code.py": ("import os  # noqa: E402\ntry:\n    pass\nexcept Exception:  # noqa: BLE001 - why\n"
                               "    x = [undefined_thing]  # noqa: BLE001 - why\n",
                               ["1:1: 'os' imported but unused", "5:10: undefined name 'undefined_thing'"]),
             "unmarked.py": ("import os\n", ["1:1: 'os' imported but unused"]),
             "statement.py": ("from os import (path,\n                sep)  # noqa: F401\n# noqa\nimport sys\n",
                              ["4:1: 'sys' imported but unused"])}
    for name, (text, expected) in cases.items():
        (folder / name).write_text(text, encoding="utf-8")
        assert _unmarked_pyflakes_reports([folder / name]) == [f"{folder / name}:{line}" for line in expected]
    (folder / "broken.py").write_text("def f(:  # noqa\n", encoding="utf-8")
    said = "\n".join(_unmarked_pyflakes_reports([folder / "broken.py"]))
    assert said.startswith(f"{folder / 'broken.py'}:1:") and "def f(:" in said, said


#: pyflakes' messages by the code flake8 gives them, for a ``# noqa: F401`` that names the report it is for.
_FLAKE8_CODES = {"UnusedImport": "F401", "ImportShadowedByLoopVar": "F402", "ImportStarUsed": "F403",
                 "LateFutureImport": "F404", "ImportStarUsage": "F405", "FStringMissingPlaceholders": "F541",
                 "RedefinedWhileUnused": "F811", "UndefinedName": "F821", "UndefinedExport": "F822",
                 "UndefinedLocal": "F823", "UnusedVariable": "F841", "UnusedAnnotation": "F842"}


def _unmarked_pyflakes_reports(files: list[Path]) -> list[str]:
    """pyflakes' reports of ``files`` (``path:line:col: message``), but for those of a statement marked for them, on
    any of its lines as flake8 reads it (pyflakes reports a parenthesised import at its first line): a bare ``# noqa``,
    or one naming their flake8 code (``# noqa: F401``); a ``# noqa: BLE001`` is another check's. Taken from pyflakes'
    messages, not the text (a path may hold ':'); a syntax error's report is never let through."""
    from pyflakes import api
    from pyflakes.reporter import Reporter

    said = io.StringIO()
    unmarked: list[str] = []

    class Marked(Reporter):
        def flake(self, message):
            code = _FLAKE8_CODES.get(type(message).__name__)
            marks = re.finditer(r"#\s*noqa\b(:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
                                _statements_lines(Path(message.filename)).get(message.lineno, ""), re.I)
            if not any(not mark["codes"] or code in re.split(r"[,\s]+", mark["codes"].upper()) for mark in marks):
                unmarked.append(str(message))

    for path in files:
        api.checkPath(str(path), Marked(said, said))
    return unmarked + said.getvalue().splitlines()  # syntax errors and unreadable files, as pyflakes says them


def _statements_lines(path: Path) -> dict[int, str]:
    """Each line's statement, its lines joined (flake8's reading of a ``# noqa`` on any line of a statement that
    brackets or a string carry over several); a line of a comment alone is its own."""
    lines = path.read_text(encoding="utf-8").splitlines()
    statements, first, depth = {}, 1, 0
    for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
        if token.type == tokenize.OP:
            depth += (token.string in "([{") - (token.string in ")]}")
        elif token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
            last = token.end[0]
            statements.update(dict.fromkeys(range(first, last + 1), "\n".join(lines[first - 1:last])))
            first = last + 1
    return statements


def test_no_script_imports_another_scripts_private_name():
    """A script shares with another what that one makes public (check_threads.write_cases): a private name is
    the other script's to rename, and evaluate_single_read.py imported evaluate_inputs_digest_cost._write_cases
    (hundredth session)."""
    import ast

    siblings = {path.stem for path in (ROOT / "benchmarks").glob("*.py")}
    private = [f"{script.name}: from {node.module} import {alias.name}"
               for script in sorted((ROOT / "benchmarks").glob("*.py"))
               for node in ast.walk(ast.parse(script.read_text()))
               if isinstance(node, ast.ImportFrom) and node.module in siblings
               for alias in node.names if alias.name.startswith("_")]
    assert not private, private


def _cpu_session(env_session: str | None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHON": "false"}  # `false` in place of Python: nothing may be measured
    if env_session is not None:
        env["SESSION"] = env_session
    return subprocess.run(["bash", str(ROOT / "benchmarks" / "cpu_session.sh")], capture_output=True, text=True,
                          env=env, timeout=60)


def test_cpu_session_asks_for_a_session_name():
    result = _cpu_session(None)
    assert result.returncode != 0 and "SESSION" in result.stderr and "name the results" in result.stderr


def test_cpu_session_never_mixes_two_sessions_in_one_folder():
    committed = sorted((ROOT / "benchmarks" / "results" / "train_2cpu").glob("session_*"))[-1]
    result = _cpu_session(committed.name.removeprefix("session_"))
    assert result.returncode == 2 and "exists already" in result.stderr


def test_cpu_session_never_writes_over_another_sessions_efficiency(tmp_path):
    """The efficiency file of scaling_projection.py was rewritten once a session's runs were done, whether
    another session's lay there or not. The script works from its own checkout: a copy of it, here."""
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    shutil.copy(ROOT / "benchmarks" / "cpu_session.sh", tmp_path / "benchmarks")
    earlier = tmp_path / "benchmarks" / "results" / "ddp_scaling_2cpu_unet64_session_2026-12-04a.json"
    earlier.write_text('{"benchmark": "ddp_scaling_2cpu_unet64_session_2026-12-04a"}')
    result = subprocess.run(["bash", str(tmp_path / "benchmarks" / "cpu_session.sh")], capture_output=True,
                            text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": "false", "SESSION": "2026-12-04a"},
                            timeout=60)
    assert result.returncode == 2 and "ddp_scaling_2cpu_unet64_session_2026-12-04a.json exists already" in result.stderr
    assert not (tmp_path / "benchmarks" / "results" / "train_2cpu").exists()
    assert earlier.read_text() == '{"benchmark": "ddp_scaling_2cpu_unet64_session_2026-12-04a"}'


def _run_with_python_refused(script: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """``benchmarks/<script>`` with a Python that fails loudly: whatever reaches it has measured something."""
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\necho "python reached: $*" >&2\nexit 99\n')
    python.chmod(0o755)
    return subprocess.run(["bash", str(ROOT / "benchmarks" / script)], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": str(python), **env})


# Each script, and one of the files it writes into its OUT. Until the ninety-first session
# record_train_cpu.sh and record_levers_cpu.sh wrote into the committed benchmarks/results/train_2cpu/
# by default, and every one of them replaced what its folder held.
WRITES = {"record_train_cpu.sh": "small32_2proc_r1.json", "record_levers_cpu.sh": "realdata_unet64_2proc.json",
          "cpu_contention_control.sh": "summary.json", "gpu_session.sh": "gpu_session.tgz"}


@pytest.mark.parametrize("script", sorted(WRITES))
def test_a_script_refuses_a_folder_holding_one_of_its_results_before_measuring(script, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / WRITES[script]).write_text("an earlier run's result\n")
    result = _run_with_python_refused(script, tmp_path, OUT=str(out), REPEATS="1", SMOKE="1")
    assert result.returncode == 2 and "python reached" not in result.stderr, result.stderr
    assert result.stderr.splitlines() == [f"error: {out} holds {WRITES[script]} already, which {script} would write "
                                          f"over: give OUT=<a new folder>, or move it away"]
    assert [path.name for path in out.iterdir()] == [WRITES[script]]
    assert (out / WRITES[script]).read_text() == "an earlier run's result\n"


# "train|sharded", as the usage line lists them, passed the check (a piece of its list) and wrote nvidia-smi.txt before
# the case's usage (r123, the hundred-and-twenty-sixth session's review)
@pytest.mark.parametrize("parts", [[], ["trian"], ["train", "geomtry"], ["train|sharded"], [""]],
                         ids=["none", "misspelt", "one-misspelt", "two-as-the-usage-lists-them", "empty"])
def test_gpu_session_without_a_known_part_says_its_usage_before_writing_anything(parts, tmp_path):
    """A call without a part wrote nvidia-smi.txt under OUT before its usage, and the next call's OUT was refused
    for it (h145's walk, the hundred-and-twenty-sixth session); a misspelt part ran the parts before it first."""
    out = tmp_path / "out"
    result = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_session.sh"), *parts], capture_output=True,
                            text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "OUT": str(out), "SMOKE": "1"})
    assert result.returncode == 2 and result.stdout.startswith("usage: "), result.stderr
    assert not out.exists()


def test_cpu_contention_control_without_out_is_refused_before_measuring(tmp_path):
    """Its default OUT was benchmarks/results/cpu_contention/, the sessions' folder: a run measured into its top,
    beside them (h145's walk)."""
    result = _run_with_python_refused("cpu_contention_control.sh", tmp_path)
    assert result.returncode == 2 and "python reached" not in result.stderr, result.stderr
    assert result.stderr.startswith("error: give OUT=<a folder of this run's own>")


def test_a_script_writes_beside_files_of_other_names(tmp_path):
    """cpu_session.sh's tee makes record.log before record_train_cpu.sh starts, and a later repeat's
    _r2 files go beside a session's first: neither is in the way."""
    out = tmp_path / "session"
    out.mkdir()
    for name in ("record.log", "unet64_1proc_r2.json"):
        (out / name).write_text("kept\n")
    result = _run_with_python_refused("record_train_cpu.sh", tmp_path, OUT=str(out), REPEATS="1")
    assert result.returncode == 99 and "python reached: -m accelerated_seg.cli benchmark train" in result.stderr
    assert all((out / name).read_text() == "kept\n" for name in ("record.log", "unet64_1proc_r2.json"))


def test_worker_start_times_both_start_methods_in_fresh_processes(tmp_path):
    """benchmarks/worker_start.py, at the smallest size: the figures behind the fork server's cost in
    docs/known_issues.md come from this script."""
    out = tmp_path / "worker_start.json"
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "worker_start.py"), "--repeats", "1", "--patch",
                             "16", "--workers", "1", "--batches", "1", "--output", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads(out.read_text())
    assert set(record["median"]) == {"fork", "forkserver"} and record["machine"]["cores"] >= 1
    for method in ("fork", "forkserver"):
        (run,) = record["runs"][method]
        assert run["first_batch_s"] > 0 and run["second_loader_s"] > 0 and run["steady_batches_per_s"] > 0


def test_worker_start_times_training_runs_with_forked_workers_and_with_the_fork_server(tiny_dataset, tmp_path):
    """The --train mode: short training runs whose loader has a worker, started either way
    (test_workers.py trains with a worker too, through examples/train.py, for the end of a run)."""
    config = tmp_path / "tiny.yaml"
    config.write_text(
        f"data: {{dataset: {tiny_dataset}, cache_dir: {tmp_path / 'cache'}, patch_size: [16, 16, 16], "
        "spacing: [2.0, 2.0, 2.0], samples_per_volume: 2, num_workers: 1}\n"
        "model: {name: unet, args: {channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}}\n"
        "optim: {warmup_steps: 2}\n"
        "train: {batch_size: 2, trackers: none, sw_batch_size: 2}\n")
    out = tmp_path / "worker_start_training.json"
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "worker_start.py"), "--train", str(config),
                             "--repeats", "1", "--output", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads(out.read_text())
    assert record["benchmark"] == "worker_start_training" and set(record["runs"]) == {"fork", "forkserver"}
    for (run,) in record["runs"].values():
        assert run["train_s"] > 0 and run["num_workers"] == 1


def test_header_variants_predicts_every_variant_onto_its_own_grid_and_records_the_warnings(tmp_path, monkeypatch):
    """benchmarks/header_variants.py at a tiny size, with random weights: the Dice figures behind
    docs/inference.md's header paragraph come from it; here each prediction lands on its input's grid
    and each header the package warns of carries its warning."""
    import importlib.util

    from accelerated_seg.exported_model import write_export
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.models import build_from_spec, model_spec

    write_synthetic_dataset(tmp_path / "data", num_cases=1, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                            spacing_mm=2.0)
    spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1,
                                           "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
                 tmp_path / "model")
    loaded = importlib.util.spec_from_file_location("header_variants", ROOT / "benchmarks" / "header_variants.py")
    script = importlib.util.module_from_spec(loaded)
    monkeypatch.setitem(sys.modules, "header_variants", script)  # its dataclass looks its module up there
    loaded.loader.exec_module(script)
    out = tmp_path / "variants.json"
    assert script.main(["--model", str(tmp_path / "model"), "--image", str(tmp_path / "data/imagesTr/case_000.nii.gz"),
                        "--label", str(tmp_path / "data/labelsTr/case_000.nii.gz"), "--work", str(tmp_path / "work"),
                        "--output", str(out), "--note", "test"]) == 0
    runs = {run["variant"]: run for run in json.loads(out.read_text())["runs"]}
    assert len(runs) == 25 and all(run["same_shape_and_affine_as_input"] for run in runs.values())
    warned = {name: " ".join(run["warnings"]) for name, run in runs.items() if run["warnings"]}
    assert {name for name, words in warned.items() if "two voxel sizes" in words} == {
        "LPS, stale 1 mm qform beside the sform", "LPS, sform only, pixdim 1 mm"}
    assert {name for name, words in warned.items() if "no orientation" in words} == {
        name for name in runs if "no orientation" in name}
    assert {name for name, words in warned.items() if "single slice" in words} == {
        name for name in runs if "slice alone" in name}


def test_case_table_memory_writes_each_trees_cases_where_that_tree_reads_them(tmp_path):
    """benchmarks/case_table_memory.py at a tiny size: it wrote its cases' jsons by case id and called
    ``PreprocessedCache.paths`` with the id, where since the eighty-sixth session a case's json is
    named by its files too and ``paths`` takes the case: the script stopped with an AttributeError
    before measuring anything. Each tree now writes its cases itself, so an older checkout compares."""
    out = tmp_path / "case_table_memory.json"
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "case_table_memory.py"), "--cases", "2",
                             "--classes", "3", "--locations", "5", "--output", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = json.loads(out.read_text())["runs"]
    assert run["peak_mb"] > 0 and run["seconds"] >= 0 and "int32" in run["stored_as"]


def _load_script(name: str):
    """benchmarks/<name>.py as a module, its main() callable here."""
    import importlib.util

    loaded = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    script = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(script)
    return script


def _train_result(path: Path, processes: int, samples_per_s: float) -> str:
    """A `benchmark train` result, as small as scaling_projection.py reads it."""
    breakdown = {"forward_loss": 10.0, "backward": 20.0}
    run = {"model": "unet", "patch": [16, 16, 16], "batch_per_device": 2, "precision": "fp32", "processes": processes,
           "strategy": f"DDP (MULTI_CPU), on {processes} process(es)", "gradient_bytes": 4e6,
           "ours": {"samples_per_s": samples_per_s}, "plain": {"samples_per_s": samples_per_s},
           "plain_step_breakdown_ms": breakdown,
           "allreduce": {"ms": 5.0, "bus_bandwidth_gb_s": 2.0, "backend": "gloo"}}
    settings = {"torch_threads": 1, "in_channels": 1, "classes": 3}
    path.write_text(json.dumps({"benchmark": "train_unet", "settings": settings, "runs": [run]}))
    return str(path)


def test_scaling_projection_rewrites_its_own_result_and_refuses_another_file(tmp_path, capsys):
    """cpu_session.sh writes a session's efficiency from its first repeat, and the session routine reruns
    it over that file with all three: that rewrite stays. What was replaced without a word until the
    ninety-first session was any other file at --output: another benchmark's result, a page of notes."""
    script = _load_script("scaling_projection")
    ones = [_train_result(tmp_path / f"one_r{r}.json", 1, 10.0 + r) for r in (1, 2, 3)]
    manys = [_train_result(tmp_path / f"two_r{r}.json", 2, 18.0 + r) for r in (1, 2, 3)]
    out = tmp_path / "ddp_scaling_2cpu_unet64_session_2026-12-04a.json"
    assert script.main(["--one", ones[0], "--measured", manys[0], "--output", str(out)]) == 0
    assert script.main(["--one", *ones, "--measured", *manys, "--output", str(out)]) == 0
    assert json.loads(out.read_text())["measured_scaling"]["repeats"] == 3
    capsys.readouterr()

    for text, why in [(Path(ones[0]).read_text(), "holds no 'projection'"), ("# notes\n", "is no JSON")]:
        other = tmp_path / "other.json"
        other.write_text(text)
        with pytest.raises(SystemExit) as stop:
            script.main(["--one", ones[0], "--output", str(other)])
        assert stop.value.code == 2, why
        assert (f"error: --output {other} exists and is not an earlier result of this command (a JSON object with "
                f"'projection')" in capsys.readouterr().err), why
        assert other.read_text() == text, why


def test_scaling_projection_refuses_runs_of_other_settings_naming_the_file_and_what_differs(tmp_path, capsys):
    """performance.md's one-process command (2 torch threads) and its 2-process gloo command (1 each) gave an
    efficiency of 368.6% without a word until the hundred-and-twenty-sixth session (h145's walk): the files
    given now must differ in their number of processes alone, --one of one process, --measured of several."""
    script = _load_script("scaling_projection")
    one = _train_result(tmp_path / "one.json", 1, 10.0)
    two = _train_result(tmp_path / "two.json", 2, 18.0)
    threads = tmp_path / "two_threads.json"
    result = json.loads(Path(one).read_text())
    threads.write_text(json.dumps({**result, "settings": {**result["settings"], "torch_threads": 2}}))
    bigger = tmp_path / "two_bigger.json"
    run = json.loads(Path(two).read_text())
    bigger.write_text(json.dumps({**run, "runs": [{**run["runs"][0], "patch": [32, 32, 32]}]}))
    out = tmp_path / "scaling.json"
    for args, said in [
            (["--one", str(threads), "--measured", two],
             f"--measured {two} measured other settings than --one {threads} (torch_threads 1 against 2): an "
             "efficiency needs runs that differ in their number of processes alone; give files of the same"),
            (["--one", one, "--measured", str(bigger)],
             f"--measured {bigger} measured other settings than --one {one} (patch [32, 32, 32] against [16, 16, 16])"),
            (["--one", two], f"--one {two} is a run of 2 process(es): --one takes runs of one process"),
            (["--one", one, "--measured", one], f"--measured {one} is a run of 1 process(es)")]:
        with pytest.raises(SystemExit) as stop:
            script.main([*args, "--output", str(out)])
        assert stop.value.code == 2 and said in capsys.readouterr().err, args
        assert not out.exists()


def test_scaling_projection_takes_the_gpu_routines_pair_whose_torch_threads_differ(tmp_path, capsys):
    """performance.md's GPU routine: a one-GPU run, not launched, has the cores' torch threads (16 on the H200's
    committed runs), `accelerate launch` of 2 GPUs sets OMP_NUM_THREADS=1: refused for its threads until r123's
    review (the hundred-and-twenty-sixth session); on CPUs they still decide the step, and a CPU run is not a GPU's."""
    script = _load_script("scaling_projection")

    def on(device: str, processes: int, threads: int) -> str:
        path = Path(_train_result(tmp_path / f"{device}_{processes}.json", processes, 10.0 * processes))
        result = json.loads(path.read_text())
        result["runs"][0]["strategy"] = f"DDP on {processes} process(es), device {device}, mixed precision bf16"
        path.write_text(json.dumps({**result, "settings": {"torch_threads": threads}}))
        return str(path)

    one, two = on("cuda", 1, 16), on("cuda", 2, 1)
    assert script.main(["--one", one, "--measured", two]) == 0
    assert "2 processes here: measured speedup 2.0" in capsys.readouterr().out
    cpu_two = on("cpu", 2, 16)
    with pytest.raises(SystemExit) as stop:
        script.main(["--one", one, "--measured", cpu_two])
    assert stop.value.code == 2
    said = capsys.readouterr().err
    # the GPU's torch threads are not compared: until the hundred-and-twenty-seventh session the line went on
    # "; torch_threads 16 against None"
    assert f"--measured {cpu_two} measured other settings than --one {one} (device 'cpu' against 'cuda'): " in said


def test_scaling_projection_names_the_file_that_does_not_record_a_setting_and_what_to_do(tmp_path, capsys):
    """The first session's rows record no `lever`, `data` or `num_workers`, which `benchmark train` records today:
    set against today's file it was refused as "lever 'none' against None; data 'synthetic' against None; ..."
    until the hundred-and-twenty-seventh session (r123's Left). The line says which file does not record what, and
    to measure both in one session with today's code; a key recorded as null and one not recorded agree."""
    script = _load_script("scaling_projection")

    def today(path: Path, processes: int, settings: bool = True) -> str:
        result = json.loads(Path(_train_result(path, processes, 10.0 * processes)).read_text())
        result["runs"][0].update(lever="none", data="synthetic", num_workers=0, augment_on=None, compile=None)
        path.write_text(json.dumps(result if settings else {k: v for k, v in result.items() if k != "settings"}))
        return str(path)

    old_one, old_two = (_train_result(tmp_path / f"old_{n}proc.json", n, 10.0 * n) for n in (1, 2))
    new_one, new_two = (today(tmp_path / f"today_{n}proc.json", n) for n in (1, 2))
    bare = today(tmp_path / "no_settings_2proc.json", 2, settings=False)
    compiled = Path(today(tmp_path / "compiled_2proc.json", 2))
    result = json.loads(compiled.read_text())
    result["runs"][0].update(lever="compile", compile={"backend": "inductor"})
    compiled.write_text(json.dumps(result))
    advice = ("an efficiency needs runs that differ in their number of processes alone; {} does not record {}, "
              "written by an older `benchmark train`: measure both in one session with today's code")
    for args, said in [
            (["--one", old_one, "--measured", new_two],
             f"--measured {new_two} measured other settings than --one {old_one} (lever 'none' against not "
             "recorded; data 'synthetic' against not recorded; num_workers 0 against not recorded): "
             + advice.format(old_one, "lever, data, num_workers")),
            (["--one", new_one, "--measured", old_two],
             f"--measured {old_two} measured other settings than --one {new_one} (lever not recorded against "
             "'none'; data not recorded against 'synthetic'; num_workers not recorded against 0): "
             + advice.format(old_two, "lever, data, num_workers")),
            (["--one", new_one, "--measured", bare],
             f"--measured {bare} measured other settings than --one {new_one} (torch_threads not recorded "
             "against 1; in_channels not recorded against 1; classes not recorded against 3): "
             + advice.format(bare, "torch_threads, in_channels, classes")),
            (["--one", new_one, "--measured", str(compiled)],  # a null recorded is said as the file has it
             "(lever 'compile' against 'none'; compile {'backend': 'inductor'} against null): an efficiency needs "
             "runs that differ in their number of processes alone; give files of the same `benchmark train` settings")]:
        with pytest.raises(SystemExit) as stop:
            script.main(args)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and said in err and "None" not in err, (args, err)
    assert script.main(["--one", old_one, "--measured", old_two]) == 0  # one older session's pair: as before


def test_scaling_projection_refuses_a_file_without_a_run_naming_it(tmp_path, capsys):
    """An empty `runs` ended in an IndexError's traceback until the hundred-and-twenty-seventh session; a file
    that is no JSON, another benchmark's result or none at all in a traceback too."""
    script = _load_script("scaling_projection")
    one = _train_result(tmp_path / "one.json", 1, 10.0)
    empty, notes, data = tmp_path / "empty.json", tmp_path / "notes.json", tmp_path / "data.json"
    empty.write_text(json.dumps({"benchmark": "train_2cpu_2proc", "runs": []}))
    notes.write_text("# notes\n")
    data.write_text(json.dumps({"benchmark": "data_2cpu", "runs": [{}]}))
    for given, said in [
            (empty, f"--measured {empty} holds no run ('runs' is []): give a `benchmark train` result that "
                    "measured a configuration at least"),
            (notes, f"--measured {notes} is no JSON (Expecting value: line 1 column 1 (char 0)); give a "
                    "`benchmark train` JSON"),
            (data, f"--measured {data} is not a `benchmark train` result"),
            (tmp_path / "none.json", f"--measured {tmp_path / 'none.json'} cannot be read (FileNotFoundError: No "
                                     "such file or directory); give a `benchmark train` JSON")]:
        with pytest.raises(SystemExit) as stop:
            script.main(["--one", one, "--measured", str(given)])
        assert stop.value.code == 2 and said in capsys.readouterr().err, given


def test_scaling_projection_refuses_files_of_two_machines_or_two_networks(tmp_path, capsys):
    """The third session's one process (a Xeon) against the hundred-and-twenty-seventh's two (an EPYC) read an
    efficiency of 173.8% without a word, as did an H200 against H100s, a U-Net of other channels under the same name
    and an FSDP run against an unsharded one, until the review of that session (r125)."""
    script = _load_script("scaling_projection")

    def changed(name: str, processes: int, machine: dict, **run) -> str:
        path = Path(_train_result(tmp_path / name, processes, 10.0 * processes))
        result = json.loads(path.read_text())
        result["runs"][0].update({"model_args": {"channels": [16, 32], "strides": [2]}, "sharding": None, **run})
        path.write_text(json.dumps({**result, "machine": machine}))
        return str(path)

    epyc = {"cpu": "AMD EPYC", "cpu_family_model": "25/17", "cpu_capability": "AVX512", "gpu": None}
    xeon = {**epyc, "cpu": "Intel(R) Xeon(R) Processor", "cpu_family_model": "6/207"}
    one, two = changed("epyc_1.json", 1, epyc), changed("epyc_2.json", 2, epyc)
    assert script.main(["--one", one, "--measured", two]) == 0  # one machine's pair: taken
    capsys.readouterr()
    h200, h100 = ({"cpu": "Intel(R) Xeon(R) Processor", "gpu": card} for card in ("NVIDIA H200", "NVIDIA H100"))
    on_gpu = {"strategy": "DDP (MULTI_GPU) on 8 process(es), device cuda, mixed precision bf16"}
    gpu_one = changed("h200_1.json", 1, {**h200, "cores": 16}, **{**on_gpu, "strategy": "NO, device cuda"})
    advice = ("an efficiency needs runs that differ in their number of processes alone; measure both on one machine, "
              "in one session")
    for given, against, said in [
            (changed("xeon_2.json", 2, xeon), one,
             "(cpu 'Intel(R) Xeon(R) Processor' against 'AMD EPYC'; cpu_family_model '6/207' against '25/17'): "
             + advice),
            (changed("h100_8.json", 8, {**h100, "cpu": "AMD EPYC"}, **on_gpu), gpu_one,
             "(gpu 'NVIDIA H100' against 'NVIDIA H200'): " + advice),  # not the host's CPU: a GPU's
            (changed("small_2.json", 2, epyc, model_args={"channels": [8, 16], "strides": [2]}), one,
             "(model_args channels [8, 16] against [16, 32]): an efficiency needs"),
            (changed("fsdp_2.json", 2, epyc, sharding={"fsdp_version": 2}), one,
             "(sharding {'fsdp_version': 2} against null): an efficiency needs")]:
        with pytest.raises(SystemExit) as stop:
            script.main(["--one", against, "--measured", given])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and f"--measured {given} measured other settings than --one {against} {said}" \
            in err, (given, err)
    assert script.main(["--one", gpu_one, "--measured", changed("h200_8.json", 8, h200, **on_gpu)]) == 0


def test_scaling_projection_refuses_two_sessions_files_of_one_host_naming_what_each_records(tmp_path, capsys):
    """Two sessions' files of one host CPU passed as one machine's until the hundred-and-twenty-eighth session (the
    Left of r125's review): other code, under another load, days apart. A file records its session's name (the
    `session_<NAME>` folder of its command's --output), its date, its commit and its stack: two names, dates more
    than a day apart or two stacks are refused in one line saying what each records; a pair sharing neither a name nor
    a commit is taken with a warning saying so; a session's own pair across midnight and a commit is taken."""
    script = _load_script("scaling_projection")

    def of(name: str, processes: int, session: str | None, day: str, commit: str | None = None, **stack) -> str:
        path = Path(_train_result(tmp_path / name, processes, 10.0 * processes))
        result = json.loads(path.read_text())
        folder = f"benchmarks/results/train_2cpu/session_{session}" if session else "benchmarks/results/train_2cpu"
        machine = {"cpu": "AMD EPYC", "torch": "2.13.0+cpu", "accelerate": "1.16.0", **stack,
                   **({"accelerated_seg_commit": commit} if commit else {})}
        command = f"accelerated-seg benchmark train --model unet --output {folder}/{name}"
        path.write_text(json.dumps({**result, "date": day, "machine": machine, "command": command}))
        return str(path)

    commit, other_commit = "64d73a927d8d27b005767fcd2c2b5878f726bbfd", "82aaa70de4c3fdd4d1bd0b1c07c4ae85c5e0c7a2"
    one = of("unet64_1proc_r1.json", 1, "2026-12-07h", "2026-12-07", commit)
    how = ("measure both in one session (`SESSION=<date and a letter> bash benchmarks/cpu_session.sh` measures the "
           "unet 64³ pair and projects it)")
    for args, said in [
            (["--one", one, "--measured", of("a_2proc.json", 2, "2026-12-07g", "2026-12-07", commit)],
             "(session '2026-12-07g' against '2026-12-07h'; date '2026-12-07' against '2026-12-07'; commit '64d73a92' "
             "against '64d73a92'): an efficiency needs runs of one session, one code under one load; " + how),
            (["--one", one, "--measured", of("b_2proc.json", 2, None, "2026-11-22")],  # the first session's
             "(session not recorded against '2026-12-07h'; date '2026-11-22' against '2026-12-07'; commit not recorded "
             "against '64d73a92'): an efficiency needs runs of one session"),
            (["--one", one, "--measured", of("c_2proc.json", 2, "2026-12-07h", "2026-12-07", commit,
                                             accelerate="1.15.0")],
             "(session '2026-12-07h' against '2026-12-07h'; date '2026-12-07' against '2026-12-07'; commit '64d73a92' "
             "against '64d73a92'; accelerate '1.15.0' against '1.16.0'): an efficiency needs runs of one session")]:
        with pytest.raises(SystemExit) as stop:
            script.main(args)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and f"error: --measured {args[-1]} is of another session than --one {one} {said}" \
            in err, (args, err)
    other_one = of("unet64_1proc_r2.json", 1, "2026-11-30b", "2026-11-30")  # --one's repeats are one session's too
    with pytest.raises(SystemExit) as stop:
        script.main(["--one", one, other_one])
    assert stop.value.code == 2 and (f"--one {other_one} is of another session than --one {one} (session "
                                     "'2026-11-30b' against '2026-12-07h'; date '2026-11-30' against '2026-12-07'; "
                                     "commit not recorded against '64d73a92')") in capsys.readouterr().err

    # the session 2026-12-07h's own pair: its two processes ran past midnight and past a commit (docs alone)
    assert script.main(["--one", one, "--measured", of("unet64_2proc_r1.json", 2, "2026-12-07h", "2026-12-08",
                                                       other_commit)]) == 0
    assert "warning" not in capsys.readouterr().err
    called = [of(f"called_{n}proc.json", n, None, "2026-12-07", commit) for n in (1, 2)]  # one commit, no folder
    assert script.main(["--one", called[0], "--measured", called[1]]) == 0
    assert "warning" not in capsys.readouterr().err

    first = [of(f"first_{n}proc.json", n, None, "2026-11-22") for n in (1, 2)]  # nothing to tell one session by
    assert script.main(["--one", first[0], "--measured", first[1]]) == 0
    said = capsys.readouterr()
    assert "2 processes here: measured speedup 2.0" in said.out
    assert (f"warning: --measured {first[1]} may be of another session than --one {first[0]} (session not recorded "
            "against not recorded; date '2026-11-22' against '2026-11-22'; commit not recorded against not recorded): "
            f"{first[1]} and {first[0]} record no session name and no commit (written by an older `benchmark train`, "
            f"or to no `session_<NAME>` folder); taken as one session's: if they are two, {how}") in said.err, said.err
    named = of("named_2proc.json", 2, "2026-11-22c", "2026-11-22")  # the third session's, against the first's
    assert script.main(["--one", first[0], "--measured", named]) == 0
    assert (f"(session '2026-11-22c' against not recorded; date '2026-11-22' against '2026-11-22'; commit not recorded "
            f"against not recorded): {named} records no commit, {first[0]} records no session name and no commit "
            "(written by") in capsys.readouterr().err
    unnamed = of("unnamed_2proc.json", 2, None, "2026-12-07", other_commit)
    assert script.main(["--one", called[0], "--measured", unnamed]) == 0
    assert ("(session not recorded against not recorded; date '2026-12-07' against '2026-12-07'; commit '82aaa70d' "
            "against '64d73a92'): their commits differ, as two sessions' do and one session's may (`git diff --stat "
            "64d73a92 82aaa70d -- accelerated_seg` says whether the code measured differs); taken as one session's"
            ) in capsys.readouterr().err

    on_gpus = []  # a GPU's pair is told what to run on GPUs
    for n, day in ((1, "2026-11-27"), (8, "2026-11-30")):
        path = Path(of(f"gpu_{n}.json", n, None, day, commit))
        result = json.loads(path.read_text())
        result["runs"][0]["strategy"] = f"DDP on {n} process(es), device cuda, mixed precision bf16"
        path.write_text(json.dumps(result))
        on_gpus.append(str(path))
    with pytest.raises(SystemExit) as stop:
        script.main(["--one", on_gpus[0], "--measured", on_gpus[1]])
    assert stop.value.code == 2 and ("one code under one load; measure both in one session (the one-GPU run, then its "
                                     "`accelerate launch`, as performance.md's \"Scaling projection\" shows)"
                                     ) in capsys.readouterr().err


def test_scaling_projection_refuses_a_run_not_measured_to_its_end_naming_the_file(tmp_path, capsys):
    """What the projection and the efficiency read of a file's first run, null or absent, ended in a TypeError's or
    KeyError's traceback until the review of the hundred-and-twenty-seventh session (r125); a samples/s of 0 in a
    ZeroDivisionError's (--one) or in an efficiency of 0.0% said as measured (--measured)."""
    script = _load_script("scaling_projection")
    one, two = _train_result(tmp_path / "one.json", 1, 10.0), _train_result(tmp_path / "two.json", 2, 18.0)

    def broken(base: str, name: str, change) -> str:
        result = json.loads(Path(base).read_text())
        change(result["runs"][0])
        (tmp_path / name).write_text(json.dumps(result))
        return str(tmp_path / name)

    for option, given, lacking in [
            ("--measured", broken(two, "ours_null.json", lambda run: run.update(ours=None)), "ours.samples_per_s"),
            ("--measured", broken(two, "no_allreduce.json", lambda run: run.pop("allreduce")),
             "allreduce.ms, allreduce.bus_bandwidth_gb_s"),
            ("--measured", broken(two, "zero.json", lambda run: run["ours"].update(samples_per_s=0.0)),
             "ours.samples_per_s"),
            ("--measured", broken(two, "processes_null.json", lambda run: run.update(processes=None)), "processes"),
            ("--one", broken(one, "one_zero.json", lambda run: run["ours"].update(samples_per_s=0)),
             "ours.samples_per_s"),
            ("--one", broken(one, "one_no_breakdown.json", lambda run: run.update(plain_step_breakdown_ms=None)),
             "plain_step_breakdown_ms.forward_loss, plain_step_breakdown_ms.backward"),
            ("--one", broken(one, "one_gradients_null.json", lambda run: run.update(gradient_bytes=None)),
             "gradient_bytes")]:
        args = ["--one", given, "--measured", two] if option == "--one" else ["--one", one, "--measured", given]
        with pytest.raises(SystemExit) as stop:
            script.main(args)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and (
            f"{option} {given}'s first run records no {lacking} (absent, null or not a positive number): give a "
            "`benchmark train` result whose first configuration was measured to its end") in err, (given, err)
    assert script.main(["--one", one]) == 0  # --one alone does not read an all-reduce
    capsys.readouterr()
    # The third session's tiny 16^3 of 2 processes records its all-reduce of 7,844 bytes in 50 ms as 0.0 GB/s,
    # rounded: a ZeroDivisionError's traceback until r125, its efficiency now, the bandwidth from its bytes and time.
    tiny = broken(two, "tiny.json", lambda run: run["allreduce"].update(bytes=7844, ms=50.13, bus_bandwidth_gb_s=0.0))
    assert script.main(["--one", one, "--measured", tiny]) == 0
    assert "the model with the measured 0.000156 GB/s all-reduce" in capsys.readouterr().out


def test_scaling_projection_refuses_an_assumption_that_is_no_step(tmp_path, capsys):
    """--assume NAME STEP_MS BACKWARD_MS GRADIENT_MB: a word for a number ended in a ValueError's traceback, a step of
    0, below 0 or NaN printed an efficiency of 0.0%, 397.7% or nan%, and a backward longer than its step went on, until
    the review of the hundred-and-twenty-seventh session (r125)."""
    script = _load_script("scaling_projection")
    one, out = _train_result(tmp_path / "one.json", 1, 10.0), tmp_path / "scaling.json"
    usage = "give --assume NAME STEP_MS BACKWARD_MS GRADIENT_MB, e.g. --assume unet3d_mlperf 28.6 19.1 124.76"
    for assumed, said in [(["28.6", "x", "124.76"], f"--assume m: BACKWARD_MS 'x' is not a number above 0; {usage}"),
                          (["0", "0", "124.76"], f"--assume m: STEP_MS '0' is not a number above 0; {usage}"),
                          (["-5", "3", "124.76"], f"--assume m: STEP_MS '-5' is not a number above 0; {usage}"),
                          (["nan", "19", "124.76"], f"--assume m: STEP_MS 'nan' is not a number above 0; {usage}"),
                          (["28.6", "19.1", "0"], f"--assume m: GRADIENT_MB '0' is not a number above 0; {usage}"),
                          (["28.6", "40", "124.76"],
                           "--assume m: BACKWARD_MS 40 is longer than its step, STEP_MS 28.6: the backward is a part "
                           "of the step")]:
        with pytest.raises(SystemExit) as stop:
            script.main(["--one", one, "--assume", "m", *assumed, "--output", str(out)])
        assert stop.value.code == 2 and said in capsys.readouterr().err, assumed
        assert not out.exists()
    assert script.main(["--one", one, "--assume", "unet3d_mlperf", "28.6", "19.1", "124.76"]) == 0
    assert "| assumed: unet3d_mlperf | NVLink 4 (H100 SXM, NVSwitch) (450) | 2 | " in capsys.readouterr().out


# Each script that writes its result where --output (verify_*.py: --out) says, with the other arguments
# it asks for: none of them is read before the output is checked.
OUTPUTS = {"case_table_memory.py": [], "check_plan_startup.py": [], "cpu_bf16_emulation.py": [],
           "cpu_bf16_two_voxels.py": [], "cpu_history.py": [],
           "deepspeed_cpu_adam_resume.py": [], "deepspeed_without_accelerate.py": [], "ensemble_demo.py": [],
           "evaluate_classes_found.py": [], "evaluate_single_read.py": [], "fit_resume_draws.py": [],
           "fixed_step_cost.py": [], "predict_tail.py": [],
           "resampling_dtype.py": [], "signal_to_return.py": [], "spacing_unit_startup_cost.py": ["--code", "c"],
           "stop_benchmark_data.py": [],
           "header_variants.py": ["--model", "m", "--image", "i.nii.gz", "--label", "l.nii.gz", "--work", "w"],
           "prepare_case_ab.py": ["--trees", "a", "b"], "scaling_projection.py": ["--one", "r1.json"],
           "suite_cuts_ab.py": ["--before", "HEAD"], "transform_memory.py": [], "worker_start.py": [],
           "verify_strategies.py": [],
           "verify_zero3_leaf_blocks.py": []}


def test_every_script_refuses_an_output_that_is_not_its_own_result_before_measuring(tmp_path):
    """Until the ninety-first session these scripts wrote over whatever lay at their --output once their
    measurement was done: a README, a dataset.json, another benchmark's result. Each refuses it at once
    now, with its usage, and leaves the file as it was (their own earlier results they rewrite: the
    tests of scaling_projection.py and cpu_history.py)."""
    assert sorted(OUTPUTS) == sorted(path.name for path in COMMANDS if "--output" in path.read_text()
                                     or "--out\"" in path.read_text()), "a new script with --output: add it here"
    runs, notes = [], {}
    for name, arguments in OUTPUTS.items():
        notes[name] = tmp_path / f"{name}.md"
        notes[name].write_text("# notes\n")
        setting = "--out" if name.startswith("verify_") else "--output"
        runs.append([str(ROOT / "benchmarks" / name), [*arguments, setting, str(notes[name])]])
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("scripts_help.py")), "--runs",
                             json.dumps(runs)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    for name, (_, arguments), answer in zip(OUTPUTS, runs, json.loads(result.stdout)):
        assert answer["exit"] == 2, (name, answer)
        assert (f"error: {arguments[-2]} {notes[name]} exists and is not an earlier result of this command"
                in answer["stderr"]), (name, answer["stderr"])
        assert notes[name].read_text() == "# notes\n", name


def test_the_gpu_session_parts_the_docs_list_are_the_scripts():
    """performance.md lists the parts of benchmarks/gpu_session.sh; `geometry` was missing from the list
    until the ninety-third session."""
    script = (ROOT / "benchmarks" / "gpu_session.sh").read_text(encoding="utf-8")
    usage = re.search(r"bash benchmarks/gpu_session\.sh ([a-z_0-9|]+) ", script).group(1)
    performance = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert f"`benchmarks/gpu_session.sh {usage}`" in performance
