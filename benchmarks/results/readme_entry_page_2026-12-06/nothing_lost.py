"""Every sentence of the README as it stood on main, looked for in the README and docs/*.md of this checkout.

    git show <base>:README.md > /tmp/README.base
    python benchmarks/results/readme_entry_page_2026-12-06/nothing_lost.py /tmp/README.base > .../nothing_lost.txt

Prints each sentence (code blocks left out) whose text, whitespace and link prefixes aside, is in none of them.
A sentence that ran over a heading or a code block (the split's artefact) shows here too: read those by hand.
"""
import glob
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def normalised(text: str) -> str:
    text = re.sub(r"\]\((?:\.\./)?(?:docs/)?", "](", text)  # a link moved into docs/ loses its docs/ prefix
    return " ".join(text.split())


base = Path(sys.argv[1]).read_text(encoding="utf-8")
pages = [ROOT / "README.md", *sorted(Path(p) for p in glob.glob(str(ROOT / "docs" / "*.md")))]
pool = " ".join(normalised(page.read_text(encoding="utf-8")) for page in pages)
prose = re.sub(r"^```.*?^```", "", base, flags=re.S | re.M)
sentences = [normalised(s) for s in re.split(r"(?<=[.;:])\s+(?=[A-Z`(\-])", prose)]
sentences = [s for s in sentences if len(s) >= 25 and not s.startswith("#")]
missing = [s for s in sentences if s not in pool]
print(f"{len(sentences)} sentences of the base README; {len(missing)} not found whole:")
for sentence in missing:
    print("-", sentence[:240])
