"""The old docs/checkpoints.md against this checkout: what of it is found nowhere now, and its history kept.

    git show 0a7fb78e:docs/checkpoints.md > /tmp/checkpoints.base.md
    python benchmarks/results/checkpoints_md_rewrite_2026-12-06/nothing_lost.py /tmp/checkpoints.base.md \
        > benchmarks/results/checkpoints_md_rewrite_2026-12-06/nothing_lost.txt

Prints each clause of the old page (prose split at . ; : as README's rewrite did, and each table row) that is not in
README.md or any docs/*.md page, whitespace and link prefixes aside: the reading list that facts.md answers. With
--history FILE it also writes FILE: each whole sentence of the old page that tells history (a session named, an
"until", a probe, a results folder) and is not found whole in another page, verbatim, under the old page's section.
"""
import argparse
import glob
import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HISTORY = re.compile(r"\bsessions?\b|\buntil\b|\bprobes?\b|benchmarks/results|\bBefore,|\bbefore then\b|"
                     r"\bbefore\b[^.]{0,40}\b(?:th|st|nd|rd)\b session|\bh\d\d\b", re.I)


MEASURE = re.compile(r"\d+(?:\.\d+)?(?:[–-]\d+(?:\.\d+)?)? ?(?:s|ms|MB)\b|\d+\.\d+|\d+ of \d+|\d+ `?pt_gloo")


def normalised(text: str) -> str:
    text = re.sub(r"\]\((?:\.\./)?(?:docs/)?", "](", text)
    return " ".join(text.split())


def pages(exclude: str | None = None) -> str:
    names = [ROOT / "README.md", *sorted(Path(p) for p in glob.glob(str(ROOT / "docs" / "*.md")))]
    return " ".join(normalised(page.read_text(encoding="utf-8")) for page in names if page.name != exclude)


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of each section of ``text``, code blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    parts = re.split(r"^(#{1,3} .*)$", text, flags=re.M)
    return [("(top)", parts[0])] + list(zip(parts[1::2], parts[2::2]))


def clauses(body: str) -> list[str]:
    rows = [normalised(row) for row in re.findall(r"^\|.*\|$", body, flags=re.M) if not re.match(r"^\|[-|: ]+\|$", row)]
    prose = re.sub(r"^\|.*\|$", "", body, flags=re.M)
    prose = re.sub(r"^    .*$", "", prose, flags=re.M)  # a quoted line: checked by hand against the code
    split = [normalised(s) for s in re.split(r"(?<=[.;:])\s+(?=[A-Z`(\-])", normalised(prose))]
    return rows + [s for s in split if len(s) >= 25]


def sentences(body: str) -> list[str]:
    prose = re.sub(r"^\|.*\|$", "", body, flags=re.M)
    prose = re.sub(r"^    .*$", "", prose, flags=re.M)
    out = []
    for paragraph in re.split(r"\n\s*\n", prose):
        out += [s for s in re.split(r"(?<=\.)\s+(?=[A-Z`(])", normalised(paragraph)) if s]
    return out


def wrapped(sentence: str) -> str:
    return textwrap.fill(sentence, 120, initial_indent="- ", subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--history")
    args = parser.parse_args()
    base = Path(args.base).read_text(encoding="utf-8")
    pool = pages()
    every, missing = 0, []
    for heading, body in sections(base):
        for clause in clauses(body):
            every += 1
            if clause not in pool:
                missing.append((heading, clause))
    print(f"{every} clauses and table rows of the old page; {len(missing)} not found whole in README.md or docs/*.md:")
    for heading, clause in missing:
        print(f"- [{heading.lstrip('# ')}] {clause}")
    if args.history:
        elsewhere = pages(exclude="checkpoints.md")
        new = normalised((ROOT / "docs" / "checkpoints.md").read_text(encoding="utf-8"))
        lines = ["# What docs/checkpoints.md said of its history, before the hundred-and-eighteenth session", "",
                 "Each sentence of the old page (main at 0a7fb78e) telling how a behaviour came to be (a session, an",
                 "\"until\", a probe, a results folder, or a figure the new page does not give) and that no other page",
                 "holds whole, verbatim, under the old page's section; then the old tables' rows that no page holds",
                 "whole (the fsync cost's figures among them). The new page says what is true now; facts.md says",
                 "where each current fact went.",
                 "Made by nothing_lost.py --history."]
        kept = 0
        for heading, body in sections(base):
            found = [s for s in sentences(body) if normalised(s) not in elsewhere and (HISTORY.search(s) or any(
                figure not in new for figure in MEASURE.findall(s)))]
            if found:
                lines += ["", f"## {heading.lstrip('# ')}", ""] + [wrapped(s) for s in found]
                kept += len(found)
        rows = [(heading, row) for heading, body in sections(base) for row in clauses(body)
                if row.startswith("|") and row not in pool]
        if rows:  # a table's rows the new page words otherwise (its facts there) or dropped (its figures here)
            lines += ["", "## Table rows of the old page found whole in no page now", ""]
            lines += [f"[{heading.lstrip('# ')}] {row}" for heading, row in rows]
        Path(args.history).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"\n{kept} sentences of history written to {args.history}")


if __name__ == "__main__":
    main()
