"""benchmarks/harness_checks.py re-runs `benchmark train` with the loops in other places (an A/A run; the
two loops' places swapped). Run once each on a tiny network: the script replaces the benchmark's loop
builders and block runners by name, so a renamed or re-signed one would otherwise only show when a
session needs the check."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from refusals import run_probing_imports

ROOT = Path(__file__).resolve().parents[1]
TINY = ["benchmark", "train", "--model", "unet", "--model-args",
        '{"channels": [4, 8], "strides": [2], "num_res_units": 0}', "--patch", "16", "--batch", "2",
        "--steps", "2", "--blocks", "2", "--warmup-blocks", "1"]
# What each place of the run held, as the JSON records it.
FIRST_PLACE = {"same": "a second plain loop", "swapped": "the plain loop, on the first copy"}


def _harness_checks(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "harness_checks.py"), *args],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


@pytest.mark.parametrize("check", sorted(FIRST_PLACE))
def test_each_check_runs_the_loops_in_their_new_places(check, tmp_path):
    output = tmp_path / "run.json"
    result = _harness_checks(check, *TINY, "--output", str(output), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    run = json.loads(output.read_text())["runs"][0]
    entry = run["harness_check"]
    assert entry["check"] == check
    assert entry["places"]["first place (labelled ours)"].startswith(FIRST_PLACE[check])
    # "same": the places' ratio is the loops' ratio; "swapped": its inverse, since plain runs first.
    places_ratio = run["ratio_ours_to_plain"]
    expected = places_ratio if check == "same" else 1 / places_ratio
    assert entry["ours_over_plain"] == pytest.approx(expected, rel=1e-3)
    assert f"{check}: " in result.stdout and f"{entry['ours_over_plain']:.4f}" in result.stdout
    # A plain loop ran in the first place (its record is a plain loop's count of the non-finite steps it stepped,
    # where run_loop's is of those it skipped), and under "swapped" ours in the second: the replacements took
    # effect. A replacement set on a name the benchmark no longer reads is silently ignored, and the run would
    # measure the benchmark unchanged under the check's labels.
    assert "nonfinite_steps" in run["ours"] and "skipped_steps" not in run["ours"]
    assert ("skipped_steps" in run["plain"]) == (check == "swapped")
    # The plain loop's phases were timed on the plain loop, wherever it ran.
    assert run["plain_step_breakdown_ms"]["step"] > 0
    assert json.loads(output.read_text())["command"].startswith("PYTHONPATH=. python benchmarks/harness_checks.py")


def test_an_unknown_check_or_real_data_is_refused_with_the_usage_before_the_imports():
    for args in ((), ("identical", *TINY), ("same", *TINY, "--data", "real"), ("swapped", *TINY, "--data=real")):
        result, imported = run_probing_imports(str(ROOT / "benchmarks" / "harness_checks.py"), *args)
        assert result.returncode != 0 and "usage: harness_checks.py same|swapped" in result.stderr, args
        assert imported == [], (args, imported)  # at once, not after importing torch and MONAI


def test_under_a_launcher_a_rank_leaves_as_the_cli_leaves_it(tmp_path):
    """harness_checks.py ended with sys.exit, where ``accelerated-seg`` ends a launched rank with ``cli.end_process``
    (os._exit once all is written): the gloo threads DDP leaves behind then aborted a rank at exit, exit -6 and the
    launch reported failed (1 of 4 two-process CPU runs, one swapped and three same, in the hundred-and-thirteenth
    session's review). A launcher's WORLD_SIZE, and a refused configuration for speed: the interpreter's shutdown
    must not run."""
    shut_down = "the interpreter's shutdown ran"
    runner = (f"import atexit, runpy, sys; atexit.register(print, {shut_down!r}); sys.argv = sys.argv[1:]; "
              "runpy.run_path(sys.argv[0], run_name='__main__')")
    refused = ["benchmark", "train", "--model", "unet", "--patch", "15", "--output", str(tmp_path / "run.json")]
    result = subprocess.run([sys.executable, "-c", runner, str(ROOT / "benchmarks" / "harness_checks.py"), "same",
                             *refused], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                            env={**os.environ, "OMP_NUM_THREADS": "1", "WORLD_SIZE": "1"})
    assert result.returncode == 2 and "--patch 15" in result.stderr, result.stderr[-3000:]
    assert shut_down not in result.stdout
