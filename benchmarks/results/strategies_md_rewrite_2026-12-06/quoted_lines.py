"""Each quoted message of docs/strategies.md (a backticked span with a space) against the code's strings.

    python benchmarks/results/strategies_md_rewrite_2026-12-06/quoted_lines.py \
        > benchmarks/results/strategies_md_rewrite_2026-12-06/quoted_lines.txt

The code's source is read with its string literals joined (adjacent f-string pieces run together, braces kept), so
each piece of a quote between its "..." or "…" is looked up whole. A piece not found is printed for a reading by hand
(a command, a setting's value, accelerate's or torch's own words).
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def code_text() -> str:
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "accelerated_seg").rglob("*.py")))
    text = re.sub(r"""["']\s*\n\s*(?:f|rf|fr)?["']""", "", text)  # literals continued on the next line
    return " ".join(text.split())


def main() -> None:
    code = code_text()
    page = re.sub(r"^```.*?^```", "", (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8"), flags=re.S | re.M)
    page = " ".join(page.split())
    quotes = [q for q in re.findall(r"`([^`]+)`", page) if " " in q]
    unmatched = 0
    for quote in quotes:
        pieces = [p.strip(" .,;:") for p in re.split(r"\.\.\.|…", quote) if len(p.strip(" .,;:")) >= 12]
        missing = [p for p in pieces if p not in code]
        if missing:
            unmatched += 1
            print(f"- `{quote}`: not in the code: {missing}")
    print(f"{len(quotes)} quoted spans with a space; {unmatched} with a piece not found in accelerated_seg/ "
          f"(each read by hand: notes in facts.md)")


if __name__ == "__main__":
    main()
