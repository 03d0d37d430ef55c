# python make_data.py FOLDER: a researcher's own tiny cases, written with nibabel: good ones (24 x 24 x 20 at 1.5 mm,
# labels 0..2) and one of each fault the brief names (a label of another shape, of another grid, with values out of
# range or not whole, a 2D image, a case of two channels, a volume smaller than a block of 32).
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(0)
affine = np.diag([1.5, 1.5, 1.5, 1.0])


def case(name, shape=(24, 24, 20), label_shape=None, label_affine=None, values=(0, 1, 2), label_dtype=np.uint8,
         label_values=None, image_shape=None):
    label = np.zeros(label_shape or shape, dtype=label_dtype)
    x, y, z = (s // 2 for s in label.shape)
    label[x - 5:x + 5, y - 5:y + 5, z - 4:z + 4] = values[1]
    label[x - 2:x + 2, y - 2:y + 2, z - 2:z + 2] = values[2]
    if label_values is not None:
        label.flat[:len(label_values)] = label_values
    image = (label.astype(np.float32) if label.shape == (image_shape or shape) else
             np.zeros(image_shape or shape, np.float32)) * 100 + rng.normal(0, 10, image_shape or shape)
    nib.save(nib.Nifti1Image(image.astype(np.float32), affine), out / f"{name}_img.nii.gz")
    nib.save(nib.Nifti1Image(label, affine if label_affine is None else label_affine), out / f"{name}_seg.nii.gz")


for i in range(6):
    case(f"good{i}")
case("shape", label_shape=(24, 24, 18))                       # label of another shape than its image
shifted = affine.copy()
shifted[:3, 3] = 30.0
case("grid", label_affine=shifted)                           # label on another grid (origin 30 mm away)
case("range", values=(0, 1, 5))                              # a label value 5 with 3 classes (0..2)
case("float", label_dtype=np.float32, label_values=[0.5])   # a label value that is not whole
case("small", shape=(20, 20, 12))                             # smaller than a block of 32
nib.save(nib.Nifti1Image(rng.normal(size=(24, 24)).astype(np.float32), affine), out / "flat_img.nii.gz")
nib.save(nib.Nifti1Image(np.zeros((24, 24), np.uint8), affine), out / "flat_seg.nii.gz")  # 2D
for c in range(2):  # a case of two channel files
    nib.save(nib.Nifti1Image(rng.normal(size=(24, 24, 20)).astype(np.float32), affine), out / f"two_c{c}.nii.gz")
print(sorted(p.name for p in out.iterdir()))
