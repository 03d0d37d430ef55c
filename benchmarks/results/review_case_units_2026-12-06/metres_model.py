"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python metres_model.py  (writes under /tmp/r66x)
A model in metres (spacing 0.0015 m, config.json spacing_unit "meter") and two or three channel files at 2 mm whose
numbers are metres (0.002), declaring metres or no unit (a file of no unit is read in the model's unit): each passed
before h78 (5c0160fb^: metres_model_before.txt); at main (d8f8409b) each is refused, told to be rewritten "from mm
in metres", 0.002 mm voxels then (metres_model_main.txt); on r66 they pass (metres_model_r66.txt)."""

from pathlib import Path
import numpy as np, nibabel as nib
import importlib.util
spec=importlib.util.spec_from_file_location("h78",str(Path(__file__).resolve().parent.parent / "predict_case_units_alike_2026-12-06" / "units_left.py"))
h78=importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72=h78.h72
root=Path("/tmp/r66x"); root.mkdir(exist_ok=True)
voxels=(np.random.default_rng(0).random((8,8,8))+1).astype(np.float32)
def case(title, unit, spacing, files):
    model=h78.export(root/f"m{abs(hash(title))}",len(files),unit,spacing)
    paths=[]
    for c,(declared,numbers) in enumerate(files):
        im=nib.Nifti1Image(voxels,np.diag(list(numbers)+[1.0]))
        if declared!="none": im.header.set_xyzt_units(declared)
        paths.append(root/f"x{abs(hash(title))}_{c:04d}.nii.gz"); nib.save(im,paths[-1])
    said=h72.predict(model,paths,root/"o.nii.gz")
    print(title, "PASSES" if said is None else "REFUSED: "+said[:700], flush=True)
case("meter model 0.0015, meter 0.002 / none 0.002", "meter", [0.0015]*3, [("meter",(0.002,)*3),("none",(0.002,)*3)])
case("meter model 0.0015, none 0.002 / none 0.002", "meter", [0.0015]*3, [("none",(0.002,)*3),("none",(0.002,)*3)])
case("meter model 0.0015, none 0.002 / meter 0.002 / none 0.002", "meter", [0.0015]*3, [("none",(0.002,)*3),("meter",(0.002,)*3),("none",(0.002,)*3)])
