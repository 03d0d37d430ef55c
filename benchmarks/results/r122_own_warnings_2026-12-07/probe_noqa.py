"""cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests /work/main/.venv/bin/python \
    benchmarks/results/r122_own_warnings_2026-12-07/probe_noqa.py > .../probe_noqa_<main|fixed>.txt
tests/test_benchmark_scripts.py's pyflakes check, fed files of its own in a temporary folder: what it lets through.
At main it is _marked_noqa over the report's text; after r122's fix, _unmarked_pyflakes_reports."""
import io
import tempfile
from pathlib import Path

from pyflakes import api
from pyflakes.reporter import Reporter

import test_benchmark_scripts as t

CASES = {
    "unused import marked # noqa: F401 (meant)": "import os  # noqa: F401\n",
    "unused import marked # noqa: E402 (another check's code)": "import os  # noqa: E402\n",
    "undefined name on a line marked # noqa: BLE001": (
        "try:\n    pass\nexcept Exception:  # noqa: BLE001\n    undefined_thing\n"
        "x = [undefined_too]  # noqa: BLE001 - why\n"),
    "unused import, bare # noqa": "import os  # noqa\n",
    "unused import, no noqa": "import os\n",
    "syntax error on a # noqa line": "def f(:  # noqa\n",
    "multi-line import, noqa on its first line": "from os import (path,  # noqa: F401\n    sep)\n",
    "multi-line import, noqa on its last line": "from os import (path,\n    sep)  # noqa: F401\n",
}

for folder_name in ("plain", "a:colon"):
    folder = Path(tempfile.mkdtemp()) / folder_name
    folder.mkdir()
    print(f"folder {folder_name!r}:")
    for number, (label, text) in enumerate(CASES.items()):
        path = folder / f"case_{number}.py"
        path.write_text(text)
        try:
            if hasattr(t, "_unmarked_pyflakes_reports"):
                left = t._unmarked_pyflakes_reports([path])
            else:
                said = io.StringIO()
                api.checkPath(str(path), Reporter(said, said))
                left = [report for report in said.getvalue().splitlines() if not t._marked_noqa(report)]
        except Exception as error:  # noqa: BLE001 - the probe says what the check raised
            print(f"  {label}: the check raised {type(error).__name__}: {error}")
            continue
        print(f"  {label}: {len(left)} report(s) fail the test" +
              "".join(f"\n      {line.replace(str(folder), '<tmp>')}" for line in left))
