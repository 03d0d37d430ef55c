"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python every_unit_error_text.py <empty folder> <out.jsonl>
The errors `accelerated-seg check` says of each of every_unit_combination.py's 512 cases, one JSON line a case
(its kinds, its error lines; case_001's paths shortened to C0, C1 and L), for counting what the errors say: the
counts in every_unit_combination_h64.txt's summary came from this output at h61's 4655ea16 and at h64."""
import itertools, json, runpy, shutil, sys
from pathlib import Path

ns = runpy.run_path(str(Path(__file__).with_name("every_unit_combination.py")), run_name="x")
root, out = Path(sys.argv[1]), open(sys.argv[2], "w")
for combo in itertools.product(ns["KINDS"], repeat=3):
    folder = root / "_".join(combo).replace("~", "-")
    status, errors = ns["check"](ns["cases"](folder, [ns["KINDS"][k] for k in combo]))
    errors = [e.replace(f"{folder}/imagesTr/case_001_000", "C").replace(f"{folder}/labelsTr/case_001", "L")
              .replace(".nii.gz", "") for e in errors]
    out.write(json.dumps({"combo": combo, "errors": errors}) + "\n")
    shutil.rmtree(folder)
