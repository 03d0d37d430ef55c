"""Every link of docs/checkpoints.md (inline and by reference) and every link to it from the other pages, the code, the
tests and the examples: the file exists and the anchor is one of its headings (GitHub's slugs).

    python benchmarks/results/checkpoints_md_rewrite_2026-12-06/links.py > .../links.txt
"""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}


def check(source: Path, target: str) -> str | None:
    file, _, anchor = target.partition("#")
    path = (source.parent / file).resolve() if file else source
    if not path.exists():
        return f"{source.relative_to(ROOT)}: {target}: no such file"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"{source.relative_to(ROOT)}: {target}: no such heading"
    return None


page = ROOT / "docs" / "checkpoints.md"
text = page.read_text(encoding="utf-8")
targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"^\[[^\]]+\]: (\S+)$", text, flags=re.M)
problems = [p for t in targets if not t.startswith("http") and (p := check(page, t))]
print(f"{len(targets)} links of docs/checkpoints.md; {len(problems)} broken")
print("\n".join(problems))
grep = subprocess.run(["git", "grep", "-n", "-o", r"checkpoints\.md#[A-Za-z0-9_-]*", "--", "docs", "README.md",
                       "accelerated_seg", "tests", "benchmarks", "examples", "configs", ".ci"],
                      cwd=ROOT, capture_output=True, text=True).stdout.split("\n")
inbound = [line for line in grep if line and not line.startswith("benchmarks/results/")]  # quoted text, not links
have = anchors(page)
broken = [line for line in inbound if line.rsplit("#", 1)[1] not in have]
print(f"{len(inbound)} links to checkpoints.md's sections from elsewhere; {len(broken)} broken")
print("\n".join(broken))
