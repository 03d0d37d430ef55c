"""Run each script named on the command line as ``python SCRIPT --help`` would, one after another in
this one process, and print what each did as JSON: {script: {"exit": code, "stdout": ..., "error": ...}}.

tests/test_benchmark_scripts.py checks that every benchmark script imports and answers --help. Each in
a fresh interpreter imported torch and MONAI again: 8-11 s apiece on 2 cores, for a check of their
imports and argument parsers. Here the shared imports happen once; each script still runs as
``__main__`` with its own folder first on sys.path and its own argv, as the interpreter would run it.
"""

import contextlib
import io
import json
import runpy
import sys
import traceback
from pathlib import Path


def answer_help(script: Path) -> dict:
    argv, path = sys.argv, list(sys.path)
    sys.argv, sys.path[0] = [str(script), "--help"], str(script.parent)
    stdout, error, code = io.StringIO(), "", None
    try:
        with contextlib.redirect_stdout(stdout):
            runpy.run_path(str(script), run_name="__main__")
        error = "the script returned without answering --help"
    except SystemExit as exit_:
        code = (exit_.code or 0) if isinstance(exit_.code, (int, type(None))) else 1
    except BaseException:  # noqa: BLE001 -- any failure is the script's, reported by the test that asks
        error = traceback.format_exc()
    finally:
        sys.argv, sys.path[:] = argv, path
    return {"exit": code, "stdout": stdout.getvalue(), "error": error}


if __name__ == "__main__":
    print(json.dumps({script: answer_help(Path(script)) for script in sys.argv[1:]}))
