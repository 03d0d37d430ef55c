"""Command (from the worktree root; BUSY busy loops `python -c "while 1: pass"` beside, all on cores 0-1):
    BUSY=3 RUNS=12 PYTHONPATH=$PWD timeout 1500 .venv/bin/python \
        benchmarks/results/sigterm_last_wait_load_2026-12-06/repeat_under_load.py
Runs tests/test_inference_distributed.py::test_sigterm_just_past_the_last_wait_is_said_at_once_as_all_written RUNS
times (one pytest session, its `data` fixture shared) with BUSY busy loops beside, every process under
`taskset -c 0,1`, and counts its failures, printing the line the main process said on each."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BUSY, RUNS = int(os.environ.get("BUSY", "3")), int(os.environ.get("RUNS", "12"))

TEST = '''
import pytest
from tests.test_inference_distributed import data  # noqa: F401 - the fixture
from tests import test_inference_distributed as under_test

@pytest.mark.parametrize("run", range({runs}))
def test_repeat(run, data, tmp_path, monkeypatch):
    under_test.test_sigterm_just_past_the_last_wait_is_said_at_once_as_all_written(data, tmp_path, monkeypatch)
'''

if __name__ == "__main__":
    probe = ROOT / "tests" / "_probe_repeat_h86.py"  # under tests/ for its conftest; removed after
    probe.write_text(TEST.format(runs=RUNS))
    busy = [subprocess.Popen(["taskset", "-c", "0,1", sys.executable, "-c", "while 1: pass"]) for _ in range(BUSY)]
    try:
        run = subprocess.run(["taskset", "-c", "0,1", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "no:randomly", str(probe)], cwd=ROOT, capture_output=True, text=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
        probe.unlink()
    said = [line.strip() for line in run.stdout.splitlines() if line.startswith("E       AssertionError")]
    print("\n".join(said))
    print(run.stdout.splitlines()[-1])
    print(f"BUSY={BUSY} RUNS={RUNS}: {len(said)} failed of {RUNS}")
