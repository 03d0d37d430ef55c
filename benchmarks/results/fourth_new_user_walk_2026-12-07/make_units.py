# python make_units.py   (run from the walk's clone after walk_0: writes units/, copies of one phantom and of the
# two-channel cases under the headers inference.md's spacing section names)
import os

import nibabel as nib
import numpy as np

os.makedirs("units", exist_ok=True)
scan = nib.load("scans/scan1.nii.gz")
data = scan.get_fdata().astype(np.float32)


def save(path, array, affine, unit):
    img = nib.Nifti1Image(array, affine)
    img.header.set_xyzt_units(unit)
    nib.save(img, path)


rescale = np.diag([1000.0, 1000.0, 1000.0, 1.0])
save("units/micrometres.nii.gz", data, rescale @ scan.affine, "micron")  # right numbers, declared micrometres
save("units/metres_as_mm.nii.gz", data, np.diag([1e-3, 1e-3, 1e-3, 1.0]) @ scan.affine, "mm")  # ITK's metres
save("units/metres.nii.gz", data, np.diag([1e-3, 1e-3, 1e-3, 1.0]) @ scan.affine, "meter")
save("units/centimetres_no_unit.nii.gz", data, np.diag([0.1, 0.1, 0.1, 1.0]) @ scan.affine, "unknown")
small = np.random.default_rng(0).normal(size=(20, 20, 16)).astype(np.float32)
save("units/huge_no_unit.nii.gz", small, np.diag([2000.0, 2000.0, 2000.0, 1.0]), "unknown")
save("units/huge_mm.nii.gz", small, np.diag([2000.0, 2000.0, 2000.0, 1.0]), "mm")
# a two-channel case: its FLAIR in micrometres (numbers mm x 1000), its FLAIR declaring micrometres on mm numbers
os.makedirs("units2/mix", exist_ok=True)
os.makedirs("units2/declared", exist_ok=True)
os.makedirs("units2/one_file", exist_ok=True)
t1 = nib.load("data_walk/Task02_TwoChannel/imagesTs/p06_0000.nii.gz")
flair = nib.load("data_walk/Task02_TwoChannel/imagesTs/p06_0001.nii.gz")
for folder in ("mix", "declared"):
    save(f"units2/{folder}/p01_0000.nii.gz", t1.get_fdata().astype(np.float32), t1.affine, "mm")
save("units2/mix/p01_0001.nii.gz", flair.get_fdata().astype(np.float32), rescale @ flair.affine, "micron")
save("units2/declared/p01_0001.nii.gz", flair.get_fdata().astype(np.float32), flair.affine, "micron")
print("wrote units/ and units2/", sorted(os.listdir("units")))
