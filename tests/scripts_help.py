"""Run each script named on the command line as ``python SCRIPT --help`` would, one after another in
this one process, and print what each did as JSON: {script: {"exit": code, "stdout": ..., "error": ...}}.
With ``--runs JSON`` (a list of [script, [argument, ...]]), run each with its own arguments instead and
print a list of the same answers, with "stderr" too.

tests/test_benchmark_scripts.py checks that every benchmark script imports and answers --help, and
refuses an --output it must not write over. Each in a fresh interpreter imported torch and MONAI again:
8-11 s apiece on 2 cores, for a check of their imports and argument parsers. Here the shared imports
happen once; each script still runs as ``__main__`` with its own folder first on sys.path and its own
argv, as the interpreter would run it.
"""

import contextlib
import io
import json
import runpy
import sys
import traceback
from pathlib import Path


def run_script(script: Path, arguments: list[str]) -> dict:
    argv, path = sys.argv, list(sys.path)
    sys.argv, sys.path[0] = [str(script), *arguments], str(script.parent)
    stdout, stderr, error, code = io.StringIO(), io.StringIO(), "", None
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            runpy.run_path(str(script), run_name="__main__")
        error = "the script returned without exiting"
    except SystemExit as exit_:
        code = (exit_.code or 0) if isinstance(exit_.code, (int, type(None))) else 1
    except BaseException:  # noqa: BLE001 -- any failure is the script's, reported by the test that asks
        error = traceback.format_exc()
    finally:
        sys.argv, sys.path[:] = argv, path
    return {"exit": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "error": error}


def answer_help(script: Path) -> dict:
    answer = run_script(script, ["--help"])
    if answer["error"] == "the script returned without exiting":
        answer["error"] = "the script returned without answering --help"
    return answer


if __name__ == "__main__":
    if sys.argv[1:2] == ["--runs"]:
        print(json.dumps([run_script(Path(script), arguments) for script, arguments in json.loads(sys.argv[2])]))
    else:
        print(json.dumps({script: answer_help(Path(script)) for script in sys.argv[1:]}))
