"""benchmarks/inside_blocks.py charges what happens inside `benchmark train`'s timed blocks to the loop
whose block ran. It is a diagnostic run by hand now and then, so each of its five counts is run here
once on a tiny network: a change to the benchmark's block functions that it no longer wraps would
otherwise only show when a session needs it."""

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from refusals import run_probing_imports
from torch.autograd.profiler_util import FunctionEvent

ROOT = Path(__file__).resolve().parents[1]
TINY = ["benchmark", "train", "--model", "unet", "--model-args",
        '{"channels": [4, 8], "strides": [2], "num_res_units": 0}', "--patch", "16", "--batch", "2",
        "--steps", "2", "--blocks", "2", "--warmup-blocks", "1"]
MALLOC_KEEPS_MEMORY = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"
# What each count prints for both loops once the run is over.
REPORTS = {
    "gc": r"gc ours: .*\ngc plain: |gc plain: .*\ngc ours: ",
    "profile": r"===== ours: 6 steps\n(.|\n)*===== plain: 6 steps",
    "ops": r"own CPU time per step: ours \d+\.\d+ ms, plain \d+\.\d+ ms \(ours 6 steps, plain 6\)",
    # the first block apart (one-time page faults of the loop that runs first), then the later ones
    "rusage": r"rusage ours, first block \(2 steps\): per step \d+\.\d minor(.|\n)*"
              r"rusage plain, first block \(2 steps\)(.|\n)*rusage ours, later blocks \(4 steps\)(.|\n)*"
              r"rusage plain, later blocks \(4 steps\)",
    # without CUDA the operators' own CPU time, names whole and last on each row; the first block left out.
    # The first row is whichever operator took the most: an aten op, or on a busy host AdamW's step.
    "kernels": r"===== ours: operators, own CPU time, \d+\.\d+ ms per step over 4 steps.*\n +us/step +share "
               r"+calls/step  kernel\n +\d+\.\d +\d+\.\d% +\d+\.\d  \S+\n(.|\n)*"
               r"===== plain: operators, own CPU time, \d+\.\d+ ms per step over 4 steps",
}


def _inside_blocks(*args: str, tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", **env_vars}
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "inside_blocks.py"), *args],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


@pytest.mark.parametrize("what", sorted(REPORTS))
def test_each_count_reports_both_loops_after_a_real_run(what, tmp_path):
    output = tmp_path / "run.json"
    # The rusage count is the one run with glibc's malloc settings changed (docs/performance_history.md, "Page
    # faults"); the benchmark records them beside the figures.
    tunables = {"GLIBC_TUNABLES": MALLOC_KEEPS_MEMORY} if what == "rusage" else {}
    result = _inside_blocks(what, *TINY, "--output", str(output), tmp_path=tmp_path, **tunables)
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(REPORTS[what], result.stderr), result.stderr[-3000:]
    written = json.loads(output.read_text())  # the benchmark's own result is still written
    assert written["command"].startswith("PYTHONPATH=. python benchmarks/inside_blocks.py ")  # not the CLI's
    run = written["runs"][0]
    assert run["ours"]["samples_per_s"] > 0 and run["plain"]["samples_per_s"] > 0
    assert written["settings"]["GLIBC_TUNABLES"] == tunables.get("GLIBC_TUNABLES", os.environ.get("GLIBC_TUNABLES"))



def test_a_refused_configuration_is_the_scripts_status_and_reports_nothing(tmp_path):
    """inside_blocks.py dropped ``cli.main``'s status: a configuration the benchmark refuses (here a patch the
    network cannot halve) exited 0, under its error a report of zeros ("rusage ours, first block (0 steps): per
    step 0.0 minor ..."), until the hundred-and-thirteenth session's review."""
    result = _inside_blocks("rusage", "benchmark", "train", "--model", "unet", "--patch", "15", "--output",
                            str(tmp_path / "run.json"), tmp_path=tmp_path)
    assert result.returncode == 2 and "--patch 15" in result.stderr, result.stderr[-3000:]
    assert "rusage ours" not in result.stderr and not (tmp_path / "run.json").exists()

def test_the_kernels_report_may_start_with_any_operator():
    """Seen in a suite run with the other test process busy: AdamW's step took the most own CPU
    time in our loop's table, and the pattern, which asked for an aten op first, failed the test."""
    table = ("   us/step  share calls/step  kernel\n"
             "    2403.0  20.2%        1.0  Optimizer.step#AdamW.step\n"
             "    1961.4  16.5%        3.0  aten::convolution_backward\n")
    report = "".join(f"===== {loop}: operators, own CPU time, 11.90 ms per step over 4 steps (the first block "
                     f"left out)\n{table}" for loop in ("ours", "plain"))
    assert re.search(REPORTS["kernels"], report)


def test_an_unknown_count_is_refused_with_the_usage_before_the_imports():
    for args in ((), ("memory", *TINY)):
        result, imported = run_probing_imports(str(ROOT / "benchmarks" / "inside_blocks.py"), *args)
        assert result.returncode != 0 and "usage: inside_blocks.py gc|profile|ops|rusage|kernels" in result.stderr
        assert imported == [], (args, imported)  # at once, not after importing torch and MONAI


def test_the_kernels_count_names_each_copy_by_dtype_shape_and_both_strides():
    # A compiled channels-last step on an H100 spent 20% of its device time in 53 copies launched by
    # aten::copy_ itself (docs/performance.md); their arguments say which tensors change layout.
    import importlib.util

    spec = importlib.util.spec_from_file_location("inside_blocks", ROOT / "benchmarks" / "inside_blocks.py")
    inside_blocks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inside_blocks)
    contiguous = torch.randn(2, 3, 4, 5, 6)
    channels_last = torch.empty_like(contiguous, memory_format=torch.channels_last_3d)
    per_kernel, per_launcher, per_copy = (inside_blocks.defaultdict(lambda: [0.0, 0]) for _ in range(3))
    # torch 2.11's profiler records shapes only; 2.13's also each argument's dtype and strides.
    records_layouts = "structured_input_strides" in inspect.signature(FunctionEvent.__init__).parameters

    def named(source_strides, destination_strides) -> str:
        if not records_layouts:
            return "? [2, 3, 4, 5, 6]: strides not recorded"
        return f"float [2, 3, 4, 5, 6]: strides {source_strides} -> {destination_strides}"

    inside_blocks._under_device_profiler(per_kernel, per_launcher, per_copy, channels_last.copy_, (contiguous,))
    assert list(per_copy) == [named([360, 120, 30, 6, 1], [360, 1, 90, 18, 3]) + ", in -"]
    assert per_copy[next(iter(per_copy))][1] == 1
    per_copy.clear()  # a copy some operator makes for its own use is named with that operator
    inside_blocks._under_device_profiler(per_kernel, per_launcher, per_copy, channels_last.contiguous, ())
    assert list(per_copy) == [named([360, 1, 90, 18, 3], [360, 120, 30, 6, 1]) + ", in aten::clone < aten::contiguous"]
