"""Every quoted line of docs/checkpoints.md against the strings of accelerated_seg/ and examples/.

Command: PYTHONPATH=. python benchmarks/results/review_checkpoints_md_2026-12-06/quoted_lines.py
  > benchmarks/results/review_checkpoints_md_2026-12-06/quoted_lines.txt
A quoted line (a code span of four words or more outside fenced blocks, or an indented block's line) is cut at
its placeholders ("...", "…", "<...>", numbers, paths, quoted values, parentheses) into pieces; a piece of 12
characters or more found in no string of the package's code (Python's string constants, f-strings' literal parts,
implicit concatenation joined; shell files as they are) is listed, to be read by hand.
"""
import ast
import pathlib
import re

root = pathlib.Path(__file__).resolve().parents[3]
page = (root / "docs/checkpoints.md").read_text()
page = re.sub(r"```.*?```", "", page, flags=re.S)
strings = []
for path in [*(root / "accelerated_seg").rglob("*.py"), *(root / "examples").rglob("*.py")]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            strings.append("\x00".join(v.value if isinstance(v, ast.Constant) else "" for v in node.values))
for path in (root / "examples").rglob("*"):
    if path.suffix in (".sh", ".sbatch"):
        strings.append(path.read_text())
corpus = re.sub(r"[ \t\n]+", " ", "\x01".join(strings))
quotes = re.findall(r"`([^`]+)`", page.replace("\n", " "))
quotes += [line.strip() for line in page.splitlines() if line.startswith("    ") and line.strip()]
missing = []
for quote in quotes:
    if len(quote.split()) < 4:
        continue
    for piece in re.split(r"\.\.\.|…|<[^>]*>|\{[^}]*\}|[\w./-]*\d[\w./-]*|'[^']*'|\([^()]*\)", quote):
        piece = re.sub(r"\s+", " ", piece).strip(" ,;:.()")
        if len(piece) >= 12 and piece not in corpus:
            missing.append((quote, piece))
for quote, piece in missing:
    print(f"NOT FOUND: {piece!r}\n    in: {quote}")
print(f"{len(quotes)} quotes, {len(missing)} pieces not found")
