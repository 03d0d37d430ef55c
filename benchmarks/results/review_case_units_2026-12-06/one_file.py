"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python one_file.py  (writes under /tmp/r66q)
A case of ONE channel file of each of the eight kinds of ../predict_case_units_2026-12-06/ at 2 mm (0.8 x 0.8 x 3 for
the anisotropic model), for models in mm at 1.5, 0.05 and 0.8 x 0.8 x 3 mm, in micrometres at 1500 and metres at
0.0015: the first line offered run as written, predict again (RIGHT / OFF / NO LINE / REFUSED / PASSES as there).
Output at main (d8f8409b): one_file_main.txt; on r66: one_file_r66.txt."""
import sys
from pathlib import Path
import numpy as np, nibabel as nib
sys.argv=[sys.argv[0]]
import importlib.util
spec=importlib.util.spec_from_file_location("h78",str(Path(__file__).resolve().parent.parent / "predict_case_units_alike_2026-12-06" / "units_left.py"))
h78=importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72=h78.h72
root=Path("/tmp/r66q"); root.mkdir(exist_ok=True)
for unit, spacing in (("mm",[1.5]*3),("mm",[0.05]*3),("micron",[1500.0]*3),("meter",[0.0015]*3),("mm",[0.8,0.8,3.0])):
    model=h78.export(root/f"m_{unit}_{spacing[0]}",1,unit,spacing)
    for kind in h72.KINDS:
        p=root/f"c_{kind}_0000.nii.gz".replace("~","-"); h72.write(p,*h72.KINDS[kind],(2.0,2.0,2.0) if spacing[2]!=3.0 else (0.8,0.8,3.0))
        said=h72.predict(model,[p],root/"o.nii.gz")
        todo=h72.first_lines(said) if said else []
        for t,c in todo:
            for x in t: exec(c,{"nib":nib,"np":np,"path":x})
        again=h72.predict(model,[p],root/"o.nii.gz") if said else None
        ok=h78.right_size(p,(2.0,2.0,2.0) if spacing[2]!=3.0 else (0.8,0.8,3.0),unit)
        print(unit,spacing[0],kind,"PASSES" if said is None else ("lines %d -> %s"%(len(todo),"NO LINE" if not todo else "RIGHT" if ok and again is None else "OFF" if not ok else "REFUSED")), "" if ok else "(file off its size in the model's unit)")
