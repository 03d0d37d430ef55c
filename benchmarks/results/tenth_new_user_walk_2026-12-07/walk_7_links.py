"""python walk_7_links.py > walk_7_links.txt   (from the clone, after `source env.sh`)

docs/planning.md's links (anchors too, as GitHub makes them), each path it names in backticks or in words (a file or
folder of the repository, a module's function), and each option it names against `plan --help`'s.
"""
import importlib
import re
import subprocess
from pathlib import Path

page = Path("docs/planning.md")
text = page.read_text()


def anchors(md: str) -> set[str]:
    out = set()
    for heading in re.findall(r"^#+ (.*)$", md, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


links = re.findall(r"\]\(([^)]+)\)", text) + re.findall(r"^\[[\w-]+\]: (\S+)$", text, flags=re.M)
for link in links:
    target, _, anchor = link.partition("#")
    path = (page.parent / target).resolve() if target else page.resolve()
    ok = path.exists()
    if ok and anchor:
        ok = anchor in anchors(path.read_text())
    print(f"{'ok  ' if ok else 'MISS'} link {link}")

for named in sorted(set(re.findall(r"`((?:benchmarks|configs|docs|tests|accelerated_seg|examples)/[^`\s]*)`", text)
                        + re.findall(r"(?<![\w/.])((?:benchmarks|configs|tests)/[\w./{},-]+[\w}/])", text))):
    expanded = [named]
    if m := re.search(r"\{([^}]+)\}", named):
        expanded = [named.replace(m[0], part) for part in m[1].split(",")]
    for one in expanded:
        one = one.split("::")[0]
        print(f"{'ok  ' if Path(one).exists() else 'MISS'} file {one}")

for profile in sorted(set(re.findall(r"`?(\w+\.yaml)`?", text))):
    where = [p for p in (Path("configs/accelerate") / profile, Path("configs") / profile) if p.exists()]
    print(f"{'ok  ' if where else 'MISS'} yaml {profile} {[str(p) for p in where]}")

# module.function names: plan.measure_step, wrapping.fsdp_mixed_precision, ...
for module, name in sorted(set(re.findall(r"`(plan|wrapping|losses|accelerate_profile|host_memory)\.(\w+)", text))):
    mod = importlib.import_module(f"accelerated_seg.{module}")
    print(f"{'ok  ' if hasattr(mod, name) else 'MISS'} name accelerated_seg.{module}.{name}")
for constant in ("CUDA_CONTEXT_BYTES", "NCCL_BUFFER_BYTES", "SAFETY_MARGIN", "MAX_PROPOSED_BATCH"):
    from accelerated_seg import plan
    print(f"ok   plan.{constant} = {getattr(plan, constant)}")

helped = subprocess.run(["accelerated-seg", "plan", "--help"], capture_output=True, text=True).stdout
for option in sorted(set(re.findall(r"`(--[\w-]+)", text))):
    print(f"{'ok  ' if option in helped else 'not plan'} option {option}")
