"""Checks the rewritten docs/data.md against the code and the pages it links.

Run from the repository root:
    PYTHONPATH=. python benchmarks/results/data_md_rewrite_2026-12-06/check_page.py > \
        benchmarks/results/data_md_rewrite_2026-12-06/check_page.txt

1. every link into a page's heading (#anchor, page.md#anchor, reference links) names a heading there;
2. every quoted span of prose (`...`) of eight words or more: the share of its 4-word runs found in the package's
   string literals (adjacent literals joined, an f-string's fields as a gap), those under 100% listed to read by hand;
3. the page's size against the old one (git show 0a7fb78e:docs/data.md)."""

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path.cwd()
PAGE = ROOT / "docs" / "data.md"


def slug(heading: str) -> str:
    text = heading.strip().lower()
    text = re.sub(r"[^a-z0-9 _-]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(m[1]) for m in re.finditer(r"^#+ (.*)$", text, flags=re.M)}


def links(text: str) -> list[str]:
    found = re.findall(r"\]\(([^)\s]*#[^)\s]+)\)", text)
    found += re.findall(r"^\[[^\]]+\]: (\S+#\S+)$", text, flags=re.M)
    return found


def literals() -> str:
    """Every string literal of the package, adjacent ones joined, an f-string's {fields} as a gap (\x00)."""
    out = []
    for path in (ROOT / "accelerated_seg").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        run = []
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING or token.type in (getattr(tokenize, "FSTRING_START", -1),):
                run.append(token.string)
            elif token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT) and run:
                continue
            else:
                if run:
                    out.append("".join(_value(s) for s in run))
                run = []
    return "\n".join(out)


def _value(literal: str) -> str:
    prefix = re.match(r"^[a-zA-Z]*", literal)[0].lower()
    body = literal[len(prefix):]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[0]
    body = body[len(quote):-len(quote)]
    if "f" in prefix:
        body = re.sub(r"\{[^{}]*(\{[^{}]*\}[^{}]*)*\}", "\x00", body)
    return body.replace("\\n", "\n").replace('\\"', '"').replace("\\'", "'")


def runs(text: str) -> set[str]:
    """The 3-word runs of ``text`` between gaps: a value (a word holding a digit, a path, a placeholder) or an
    f-string's field is a gap, since the page quotes a line with the values of one example."""
    words = re.sub(r"\s+", " ", text.replace("\x00", " \x00 ")).split(" ")
    found, segment = set(), []
    for word in words + ["\x00"]:
        if not word or re.search(r"[\d/…\x00<>]|\.\.\.", word):
            found |= {" ".join(segment[i:i + 3]) for i in range(len(segment) - 2)}
            segment = []
        else:
            segment.append(word.strip("`'\"(),;:."))
    return found


def main() -> int:
    text = PAGE.read_text(encoding="utf-8")
    bad = 0
    own = anchors(PAGE)
    for link in links(text):
        target, anchor = link.split("#", 1)
        names = own if not target else anchors((PAGE.parent / target).resolve())
        if anchor not in names:
            print(f"BROKEN LINK: {link}")
            bad += 1
    print(f"links into headings checked: {len(links(text))}, broken: {bad}")
    for other in ["README.md", *map(str, Path("docs").glob("*.md"))]:
        for anchor in re.findall(r"data\.md#([a-z0-9_-]+)", Path(other).read_text(encoding="utf-8")):
            if anchor not in own:
                print(f"BROKEN INBOUND LINK: {other} -> data.md#{anchor}")
                bad += 1
    code = runs(literals())
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    spans = [s for s in re.findall(r"`([^`\n]+(?:\n[^`\n]+)*)`", prose) if len(s.split()) >= 8]
    low = 0
    for span in spans:
        grams = runs(span)
        if not grams:
            continue
        missing = [g for g in grams if g not in code]
        if missing:
            low += 1
            print(f"{len(grams) - len(missing)}/{len(grams)} word runs in the code: {' '.join(span.split())[:150]}")
            print(f"    not found: {' | '.join(missing[:4])}")
    print(f"quoted spans of 8+ words: {len(spans)}, with a run not in the code: {low}")
    old = subprocess.run(["git", "show", "0a7fb78e:docs/data.md"], capture_output=True, check=True).stdout
    old_lines = old.count(b"\n")
    print(f"size: {len(old)} bytes, {old_lines} lines before; {len(text.encode())} bytes, "
          f"{text.count(chr(10))} lines after ({len(text.encode()) / len(old):.2f}); lines naming a session: "
          f"{sum('session' in line for line in old.decode().splitlines())} before, "
          f"{sum('session' in line for line in text.splitlines())} after")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
