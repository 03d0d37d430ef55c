"""Run: python doc_claims.py PAGE   (from the repository root; PAGE: docs/inference.md, or main's copy of it)
The claims of docs/inference.md this review found wrong, checked against the probes beside this file and the
benchmark JSON the page cites. Prints each check and exits 1 where any fails: main's page (73687ab8) fails all
six, this branch's passes."""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
page = " ".join(Path(sys.argv[1]).read_text().split())
failed = 0


def check(name, ok, why):
    global failed
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: {why}")


# 1. fails_alone.txt: for one case, predict replaces its own label map given as --output; an existing file is refused
#    only as a folder's name (several cases)
replaced = "$ predict fails_alone/good.nii.gz --output one.nii.gz\nexit 0" in (HERE / "fails_alone.txt").read_text()
check("an existing file as --output", replaced and "- an `--output` that is an existing file;" not in page,
      "the page may not list an existing file as --output among the refusals unqualified (one case: replaced)")

# 2. predict_bullets.txt: an export among the images is named only where --model is missing
bullets = (HERE / "predict_bullets.txt").read_text()
named_without = "is an exported model, given as an image to segment" in bullets
not_named_beside = "folder other_model holds no .nii/.nii.gz file" in bullets
check("an export among the images", named_without and not_named_beside and "without it, an export or a run's folder"
      in page, "the page must say the export is named where --model is missing, as the code does")

# 3. units_lines.txt: a model of no spacing takes files of one grid whatever their units (cases C, D, F: exit 0)
units = (HERE / "units_lines.txt").read_text()
passed = all(re.search(rf"^== {case}_\S+ \(exit 0\)", units, re.M) for case in "CDF")
not_judged = page.split("**Not judged:**", 1)[1].split("###", 1)[0]
check("a model of no spacing", passed and '"spacing": null' in not_judged,
      "the page's 'Not judged' list must name what a model of no spacing lets through")

# 4-5. the pipeline table's CPU rows: their window (the command's --roi, else the default 64) and per-block ratios
rows = {name: json.loads((RESULTS / name).read_text())
        for name in ("predict_cpu_2cpu_hostbound.json", "predict_cpu_2cpu_demo_unet.json")}
rois = {name: (re.search(r"--roi (\d+)", row["command"]) or [None, "64"])[1] for name, row in rows.items()}
shown = re.search(r"Measured with 4 scans of .*?\| machine, network", page).group(0)
check("the CPU rows' window", all(roi == "64" for roi in rois.values()) and "64 (the default) on the CPU rows" in shown,
      f"the CPU rows ran with --roi {sorted(set(rois.values()))}; the command shown must not give them 96")
lows = [min(row["ratio_per_block"]) for row in rows.values()]
highs = [max(row["ratio_per_block"]) for row in rows.values()]
said = re.search(r"On a CPU it never lost \(([^)]*)\)", page).group(1)
ranges = [(float(a), float(b)) for a, b in re.findall(r"(\d\.\d\d)–(\d\.\d\d)", said)]
covers = all(any(lo <= low and high <= hi for lo, hi in ranges) for low, high in zip(lows, highs))
check("the CPU per-block ratios", covers, f"measured {[f'{a:.2f}-{b:.2f}' for a, b in zip(lows, highs)]}, "
      f"the page says ({said})")

# 6. evaluate_units.txt: a header of no unit beside one in micrometres, 1,000 times apart, is told the unit is the
#    likely cause (the old page said so; the rewrite named two units and, beside metres, both readings alone)
told = "the unit is the likely cause, not another grid" in (HERE / "evaluate_units.txt").read_text()
pairs = page.split("### Pairs, grids and maps", 1)[1].split("### Classes", 1)[0]
check("evaluate: no unit beside micrometres", told and "the unit is the likely cause" in pairs,
      "the page's pairs section must say what evaluate tells a header of none beside one in micrometres")
sys.exit(1 if failed else 0)
