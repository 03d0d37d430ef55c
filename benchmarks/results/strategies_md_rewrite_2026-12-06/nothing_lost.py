"""The old docs/strategies.md against this checkout: what of it is found nowhere now, and its history kept.

    git show cfd86f09:docs/strategies.md > /tmp/strategies.base.md
    python benchmarks/results/strategies_md_rewrite_2026-12-06/nothing_lost.py /tmp/strategies.base.md \
        --history benchmarks/results/strategies_md_rewrite_2026-12-06/history.md \
        > benchmarks/results/strategies_md_rewrite_2026-12-06/nothing_lost.txt

The splitting and matching are checkpoints.md's rewrite's (imported from its folder, not copied): each clause of the
old page (prose split at . ; : and each table row) not in README.md or any docs/*.md page is printed, the reading
list facts.md answers; --history writes each whole sentence of the old page that tells history (a session, an
"until", a probe, a results folder, a figure the new page lacks) and no other page holds whole, verbatim.
"""
import argparse
import importlib.util
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "checkpoints_rewrite", HERE.parent / "checkpoints_md_rewrite_2026-12-06" / "nothing_lost.py")
rewrite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rewrite)
PAGE = "strategies.md"
#: Past tense and test machinery tell history too on this page ("was refused", "found", "took 184 s", "the build"):
#: a sentence so worded that no page holds whole is kept, so that a reworded current fact is never the only trace.
PAST = re.compile(r"\b(?:was|were|had|did|took|found|failed|Fixed|fixed|tried|seen|measured|builds?|objects?)\b")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="the old page, as git show writes it")
    parser.add_argument("--history", type=Path, help="where to write the old page's history, verbatim")
    args = parser.parse_args()
    base, pool = args.base.read_text(encoding="utf-8"), rewrite.pages()
    found = [(heading, clause) for heading, body in rewrite.sections(base) for clause in rewrite.clauses(body)]
    missing = [(heading, clause) for heading, clause in found if clause not in pool]
    print(f"{len(found)} clauses and table rows of the old page; {len(missing)} not found whole in README.md or "
          f"docs/*.md:")
    for heading, clause in missing:
        print(f"- [{heading.lstrip('# ')}] {clause}")
    if not args.history:
        return
    elsewhere = rewrite.pages(exclude=PAGE)
    new = rewrite.normalised((rewrite.ROOT / "docs" / PAGE).read_text(encoding="utf-8"))
    lines = ["# What docs/strategies.md said of its history, before the hundred-and-eighteenth session", "",
             "Each sentence of the old page (main at cfd86f09) telling how a behaviour came to be (a session, an",
             "\"until\", a probe, a results folder, or a figure the new page does not give) that no other page holds",
             "whole, verbatim, under the old page's section; also each such sentence in the past tense or about a",
             "build (the PAST pattern). The new page says what is true now; facts.md says where each current fact",
             "went. Made by nothing_lost.py --history."]
    kept = 0
    for heading, body in rewrite.sections(base):
        history = [s for s in rewrite.sentences(body) if rewrite.normalised(s) not in elsewhere and (
            rewrite.HISTORY.search(s) or PAST.search(s) or any(figure not in new for figure in rewrite.MEASURE.findall(s)))]
        if history:
            lines += ["", f"## {heading.lstrip('# ')}", ""] + [rewrite.wrapped(s) for s in history]
            kept += len(history)
    rows = [f"[{heading.lstrip('# ')}] {row}" for heading, row in missing if row.startswith("|")]
    if rows:  # the old tables' rows the new page words otherwise (its facts there) or shortens (the rest here)
        lines += ["", "## Table rows of the old page found whole in no page now", ""] + rows
    Path(args.history).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\n{kept} sentences of history written to {args.history}")


if __name__ == "__main__":
    main()
