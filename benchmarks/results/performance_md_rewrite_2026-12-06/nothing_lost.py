"""Every sentence of the old docs/performance.md, looked for whole in the pages after the rewrite.

    cd /tmp/wt_h104 && PYTHONPATH=. python benchmarks/results/performance_md_rewrite_2026-12-06/nothing_lost.py \
        f3cca687 > benchmarks/results/performance_md_rewrite_2026-12-06/nothing_lost.txt

Two questions, both over the old page's sentences (a table row counts as one; whitespace and line breaks ignored):
1. Is each one whole in docs/performance.md, performance_history.md or performance_cpu_sessions.md? (The move
   lost nothing: every sentence is somewhere; the table of every session is performance.md's, whose rows the lead
   adds, so a row is looked for there.)
2. Which are not whole in the new performance.md, nor in any other page but performance_history.md? Those are
   the sentences reworded or left to the history page; each is read against facts.md.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _sentences(text: str) -> list[str]:
    """Table rows whole; prose split after '. ', ': ', '; ' and at list items, code blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    pieces = []
    for block in re.split(r"\n\s*\n|\n(?=- |  - |#)", text):
        if block.lstrip().startswith("|"):
            pieces += [line.strip() for line in block.splitlines() if line.strip()]
            continue
        flat = _flat(block).removeprefix("- ").strip()
        pieces += [p.strip() for p in re.split(r"(?<=[.;:])\s+(?=[A-Z`(*\"])", flat) if len(p.strip()) > 25]
    return pieces


#: The old page's session narrative, moved whole to performance_history.md (its headings, as they begin)
NARRATIVE = ("## In brief", "## GPU results", "### Throughput, MFU", "### Sharded profiles", "### The data path",
             "### The data stream", "### The planner", "### CUDA-only", "### Not measured", "### The first session",
             "### Where the fixed", "### The per-step sum", "### What the 2-process", "### DeepSpeed ZeRO in one",
             "### Two processes", "### Page faults", "### The harness", "### Each session's own notes")


def _rewritten_sections(old: str) -> list[str]:
    """The old page's sections that the rewrite shortened (the narrative moved whole left out)."""
    sections = re.split(r"\n(?=##+ )", old)
    return [s for s in sections if not s.startswith(NARRATIVE)]


def main(base: str) -> int:
    old = subprocess.run(["git", "show", f"{base}:docs/performance.md"], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    docs = ROOT / "docs"
    new = _flat((docs / "performance.md").read_text(encoding="utf-8"))
    history = _flat((docs / "performance_history.md").read_text(encoding="utf-8"))
    sessions = _flat((docs / "performance_cpu_sessions.md").read_text(encoding="utf-8"))
    others = _flat(" ".join(p.read_text(encoding="utf-8") for p in [*docs.glob("*.md"), ROOT / "README.md"]
                            if p.name not in ("performance.md", "performance_history.md")))
    sentences = _sentences(old)
    rewritten = [s for section in _rewritten_sections(old) for s in _sentences(section)]
    lost = [s for s in sentences if s not in new and s not in history and s not in sessions]
    history_only = [s for s in rewritten if s not in new and s not in others]
    print(f"old page: {len(old.encode())} bytes, {len(sentences)} sentences and table rows")
    print(f"new page: {len((docs / 'performance.md').read_bytes())} bytes")
    print(f"1. not whole in performance.md, performance_history.md or performance_cpu_sessions.md: {len(lost)}")
    for s in lost:
        print(f"   LOST? {s[:300]}")
    print(f"2. whole in performance.md: {sum(s in new for s in sentences)}. Of the {len(rewritten)} in the sections "
          f"rewritten (not the narrative moved whole), not in performance.md nor any page but "
          f"performance_history.md (reworded or history; read against facts.md): {len(history_only)}")
    for s in history_only:
        print(f"   - {s[:200]}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "main"))
