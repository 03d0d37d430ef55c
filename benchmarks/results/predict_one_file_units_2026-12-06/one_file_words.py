"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python one_file_words.py  (writes under /tmp/h81q)
The review r66's one_file.py (../review_case_units_2026-12-06/) for models in micrometres (1500) and metres
(0.0015) alone, a case of ONE file of each of the eight kinds at 2 mm, printing what predict says, then what the
first line offered does once run (RIGHT / OFF / NO LINE / REFUSED / PASSES as there). Output before the fix:
one_file_words_before.txt; after: one_file_words_after.txt."""
import sys, importlib.util
from pathlib import Path
import numpy as np, nibabel as nib
sys.argv = [sys.argv[0]]
spec = importlib.util.spec_from_file_location("h78", str(Path(__file__).resolve().parent.parent
                                              / "predict_case_units_alike_2026-12-06" / "units_left.py"))
h78 = importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72 = h78.h72
root = Path("/tmp/h81q"); root.mkdir(exist_ok=True)
for unit, spacing in (("micron", [1500.0] * 3), ("meter", [0.0015] * 3)):
    model = h78.export(root / f"m_{unit}", 1, unit, spacing)
    for kind in h72.KINDS:
        p = root / f"c_{kind}_0000.nii.gz".replace("~", "-"); h72.write(p, *h72.KINDS[kind], (2.0, 2.0, 2.0))
        said = h72.predict(model, [p], root / "o.nii.gz")
        todo = h72.first_lines(said) if said else []
        for t, c in todo:
            for x in t: exec(c, {"nib": nib, "np": np, "path": x})
        again = h72.predict(model, [p], root / "o.nii.gz") if said else None
        ok = h78.right_size(p, (2.0, 2.0, 2.0), unit)
        print(unit, kind, "PASSES" if said is None else ("lines %d -> %s" % (len(todo), "NO LINE" if not todo else
              "RIGHT" if ok and again is None else "OFF" if not ok else "REFUSED")), "" if ok else "(file off)")
        if said:
            print("   said:", said.replace(str(root), "<root>"))
