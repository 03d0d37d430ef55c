"""Write docs/performance_history.md from the old docs/performance.md of a commit, moving its text verbatim.

    cd /tmp/wt_h104 && python benchmarks/results/performance_md_rewrite_2026-12-06/history.py f3cca687

The session narrative ("In brief", the five "GPU results" sections, the CPU sections from "The first session" to
"Each session's own notes") goes first, whole and in its order; then every other section of the old page, whole,
its headings one level down (those outside code blocks), but the table of every session, which stays in
performance.md. The text is cut at the old page's headings, so the result is the old page's lines, nothing
rewritten.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TOP = ("# Performance: each GPU lease's and CPU session's own account\n\n"
       "What [performance.md](performance.md) told of each GPU lease and CPU session until the "
       "hundred-and-nineteenth session.\n\n")
CPU_HEADING = "## CPU results: the sessions' own sections\n\n"
REST_HEADING = (
    "## The other sections as they stood before the rewrite\n\n"
    "performance.md's sections that the hundred-and-nineteenth session rewrote short, whole as they stood then (their"
    "\nheadings one level down), for the history they told (\"since the ninety-third session\", \"until ...\"): that"
    " page\nsays what holds now. \"Every session at a glance\" is left out: its table is that page's, one row a"
    " session.\n\n")


def _between(lines: list[str], start: str, end: str | None) -> list[str]:
    """The lines from the heading that begins with ``start`` to the one before the heading ``end`` (the end)."""
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = len(lines) if end is None else next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
    return lines[first:last]


def _down_one_level(lines: list[str]) -> list[str]:
    """Each heading outside a code block one level down (the page's title two)."""
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#+ ", line):
            line = ("##" if line.startswith("# ") else "#") + line
        out.append(line)
    return out


def main(base: str) -> None:
    old = subprocess.run(["git", "show", f"{base}:docs/performance.md"], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.splitlines(keepends=True)
    narrative = (_between(old, "## In brief", "## bf16 and fp16")
                 + _between(old, "## GPU results: one H200 (forty-sixth", "## CPU results"))
    cpu = _between(old, "### The first session: three repeats", "## Scaling projection")
    cpu_intro = _between(old, "## CPU results", "### Every session at a glance")
    glance = _between(old, "### Every session at a glance", "### The first session")
    reading = glance[next(i for i, line in enumerate(glance) if line.startswith("How to read it:")):]
    before = _between(old, "# Performance", "## In brief") + _between(old, "## bf16 and fp16", "## GPU results")
    rest = (_down_one_level(before + cpu_intro)
            + ["#### Every session at a glance (its table is performance.md's)\n", "\n"] + reading
            + _down_one_level(_between(old, "## Scaling projection", None)))
    text = TOP + "".join(narrative) + CPU_HEADING + "".join(cpu) + REST_HEADING + "".join(rest)
    (ROOT / "docs" / "performance_history.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "main")
