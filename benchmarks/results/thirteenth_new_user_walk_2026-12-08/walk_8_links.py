# source env.sh && python $HERE/walk_8_links.py > $HERE/walk_8_links.txt 2>&1
# Every link of docs/python_api.md, inline and reference-style: the file there, and its #anchor one of the target's
# headings as GitHub makes anchors of them (lowercase, punctuation but - and _ dropped, spaces to -).
import re
from pathlib import Path

docs = Path("/tmp/wt_h153/docs")
page = (docs / "python_api.md").read_text()


def anchors(path: Path) -> set[str]:
    out = set()
    for heading in re.findall(r"^#+ (.+)$", path.read_text(), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        out.add(slug)
    return out


links = re.findall(r"\]\(([^)\s]+)\)", page) + re.findall(r"^\[[^\]]+\]: (\S+)$", page, flags=re.M)
used_refs = set(re.findall(r"\]\[([^\]]+)\]", page))
defined = set(re.findall(r"^\[([^\]]+)\]: ", page, flags=re.M))
print("reference links used but not defined:", used_refs - defined, "defined but unused:", defined - used_refs)
for link in links:
    target, _, anchor = link.partition("#")
    path = (docs / target).resolve() if target else docs / "python_api.md"
    ok = path.exists()
    anchor_ok = (not anchor) or (ok and path.suffix == ".md" and anchor in anchors(path))
    print(f"{'ok ' if ok and anchor_ok else 'BAD'} {link}" + ("" if ok else " (no such file)")
          + ("" if anchor_ok else " (no such heading)"))
