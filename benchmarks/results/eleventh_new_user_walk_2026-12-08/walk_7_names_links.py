# python walk_7_names_links.py > walk_7_names_links.txt 2>&1   (after `source env.sh`: from the clone)
# docs/configuration.md against the code: every setting it names (section.key) is one of the config's; each choice
# list it gives is the dataclass's; its links and their anchors (GitHub's slugs) exist; every file it names exists.
import re
import typing
from pathlib import Path

from accelerated_seg import config

page = Path("docs/configuration.md").read_text()
settings = set(config._every_setting())
named = sorted(set(re.findall(r"\b((?:data|model|optim|train)\.[a-z_]+(?:\.[a-z_]+)*)", page)))
open_ended = ("model.args.", "train.loss_args.", "data.synthetic.")
print("settings named:", len(named))
for name in named:
    if name not in settings and not name.startswith(open_ended):
        print("  NOT A SETTING:", name)
# the choices the page lists
print("model.name choices:", typing.get_args(config.NetworkName))
print("train.loss choices:", typing.get_args(typing.get_type_hints(config.TrainConfig)["loss"]))
print("optim.optimizer:", typing.get_args(typing.get_type_hints(config.OptimConfig)["optimizer"]))
print("ACCELERATE_TRACKERS:", config.ACCELERATE_TRACKERS)
print("_PATHS:", config._PATHS)
print("check_values' ranges:", sorted(config._AT_LEAST), sorted(config._SHARES))
print("NAMED_ELSEWHERE:", sorted(config.NAMED_ELSEWHERE), config.NAMED_IN_SECTION)


def slug(heading: str) -> str:  # GitHub's anchor of a heading
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


for target in sorted(set(re.findall(r"\]\(([^)]+)\)", page))):
    path, _, anchor = target.partition("#")
    file = (Path("docs") / path).resolve() if path else Path("docs/configuration.md").resolve()
    ok = file.exists()
    if ok and anchor:
        anchors = {slug(line.lstrip("#")) for line in file.read_text().splitlines() if line.startswith("#")}
        ok = anchor in anchors
    print("link", target, "OK" if ok else "BROKEN")
for name in sorted(set(re.findall(r"`([\w./-]+\.(?:py|json|yaml|md)|[\w./-]+/)`", page))):
    hits = [p for p in (Path(name), Path("benchmarks/results") / name) if p.exists()]
    print("file", name, "OK" if hits else "not found as a path (a name of the page's prose?)")
