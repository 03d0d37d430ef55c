"""The scripts under benchmarks/ parse, the Python ones with a command line import and answer --help,
and cpu_session.sh refuses before any work when it has no SESSION or when that session's folders exist
already. They run for half an hour to hours, so a slip that only shows when one is started (an
unbalanced quote in a header line did, once) costs a session."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.sh")) + [ROOT / ".ci" / "run"]
# The Python scripts with a command line; the others are run by a shell script or a test that checks them.
COMMANDS = sorted(path for path in (ROOT / "benchmarks").glob("*.py") if "argparse" in path.read_text())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_script_parses(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("script", COMMANDS, ids=lambda path: path.name)
def test_the_python_script_imports_and_answers_help(script):
    result = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0 and "usage:" in result.stdout, result.stderr


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
