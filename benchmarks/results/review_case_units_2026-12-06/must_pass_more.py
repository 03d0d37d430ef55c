"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python must_pass_more.py  (writes under /tmp/r66x)
Cases that passed before h78 and must pass still (no false refusal): channels a resampler's rounding apart, models of
no spacing, in micrometres, in metres, anisotropic, and mm models at 0.05 and 0.001 mm. Output on r66:
must_pass_more_r66.txt (the metres model's "meter 0.002 / none 0.002" was refused at main: metres_model_main.txt)."""

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
case("no spacing, mm 1.0 / micron 1.0000001", None, None, [("mm",(1.0,)*3),("micron",(1.0000001,)*3)])
case("no spacing, mm 1.0 / micron 1.0", None, None, [("mm",(1.0,)*3),("micron",(1.0,)*3)])
case("mm model 1.5, mm 1.0 / mm 1.0000001 / none 1.0", "mm", [1.5]*3, [("mm",(1.0,)*3),("mm",(1.0000001,)*3),("none",(1.0,)*3)])
case("none model 1.5, none 1.0 / none 1.0000001", None, [1.5]*3, [("none",(1.0,)*3),("none",(1.0000001,)*3)])
case("mm model 0.8x0.8x3, none 0.8x0.8x3 / mm 0.8x0.8x3.0000001", "mm", [0.8,0.8,3.0], [("none",(0.8,0.8,3.0)),("mm",(0.8,0.8,3.0000001))])
case("micron model 1500, micron 1500 / none 1500.0001", "micron", [1500.0]*3, [("micron",(1500.0,)*3),("none",(1500.0001,)*3)])
case("micron model 1500, micron 1500 / micron 1500", "micron", [1500.0]*3, [("micron",(1500.0,)*3),("micron",(1500.0,)*3)])
case("meter model 0.0015, meter 0.002 / meter 0.002", "meter", [0.0015]*3, [("meter",(0.002,)*3),("meter",(0.002,)*3)])
case("meter model 0.0015, meter 0.002 / none 0.002", "meter", [0.0015]*3, [("meter",(0.002,)*3),("none",(0.002,)*3)])
case("mm model at 0.05 (microscopy in mm), none 0.002 / none 0.002", "mm", [0.05]*3, [("none",(0.002,)*3),("none",(0.002,)*3)])
case("mm model at 0.001 (micrometre voxels in mm), mm 0.001 / mm 0.001", "mm", [0.001]*3, [("mm",(0.001,)*3),("mm",(0.001,)*3)])
case("mm model at 0.001, none 0.001 / none 0.001", "mm", [0.001]*3, [("none",(0.001,)*3),("none",(0.001,)*3)])
