"""python benchmarks/results/twelfth_new_user_walk_2026-12-08/walk_7_links.py > .../walk_7_links.txt:
every link of docs/strategies.md, inline and reference-style, to a file that exists and, where it names one,
an anchor that a heading of that page makes (GitHub's slugs: lower case, punctuation but - and _ dropped,
spaces to -); every file path and results file the page names in backquotes; each configs/accelerate/*.yaml it
names; each `module.function` of the package, each setting (train.x) and each tests/test_x.py::test_y it names."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "strategies.md"


def slugs(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in page.read_text().splitlines():
        if m := re.match(r"#+ (.*)", line):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


text = PAGE.read_text()
links = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"^\[[^\]]+\]: (\S+)", text, re.M)
bad = 0
for link in sorted(set(links)):
    if link.startswith("http"):
        print("external", link)
        continue
    path, _, anchor = link.partition("#")
    target = (PAGE.parent / path).resolve() if path else PAGE
    ok = target.exists() and (not anchor or anchor in slugs(target))
    bad += not ok
    print("ok  " if ok else "BAD ", link)
refs = set(re.findall(r"\]\[([^\]]+)\]", text))
defined = set(re.findall(r"^\[([^\]]+)\]: ", text, re.M))
print("reference links used:", sorted(refs), "defined:", sorted(defined), "undefined:", sorted(refs - defined))
for name in sorted(set(re.findall(r"`([\w./-]+\.(?:py|json|sh|yaml|md))`", text))):
    candidates = [ROOT / name, ROOT / "accelerated_seg" / name, ROOT / "configs" / "accelerate" / name,
                  ROOT / "tests" / name, ROOT / "benchmarks" / name]
    found = [str(c.relative_to(ROOT)) for c in candidates if c.exists()]
    print("file", "ok  " if found else "?   ", name, found[:1])
    bad += not found and name not in ("run_info.json", "strategy.json", "summary.json")  # a run's files
# module.name in backquotes: a function or class of that module of the package
for module, name in sorted(set(re.findall(r"`(\w+)\.(\w+)`", text))):
    source = ROOT / "accelerated_seg" / f"{module}.py"
    if name in ("py", "json", "safetensors") or (module, name) == ("model", "config"):  # files; HF's
        continue
    if module in ("train", "optim", "data", "model"):  # a setting: a field of config.py's dataclasses
        ok = re.search(rf"^    {name}: ", (ROOT / "accelerated_seg" / "config.py").read_text(), re.M) is not None
        bad += not ok
        print("key ", "ok  " if ok else "BAD ", f"{module}.{name}")
        continue
    if not source.exists():
        continue
    ok = re.search(rf"^(def|class) {name}\b|^{name} *[:=]", source.read_text(), re.M) is not None
    bad += not ok
    print("name", "ok  " if ok else "BAD ", f"{module}.{name}")
# tests named as file::test
for test_file, test in sorted(set(re.findall(r"(tests/test_\w+\.py)::(\w+)", text))):
    ok = f"def {test}(" in (ROOT / test_file).read_text()
    bad += not ok
    print("test", "ok  " if ok else "BAD ", f"{test_file}::{test}")
print("bad:", bad)
sys.exit(1 if bad else 0)
