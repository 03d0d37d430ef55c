# python make_headers.py   (run from the walk's clone after walk_0: writes headers/, copies of one phantom under the
# headers inference.md's "What is applied" names: plain, LPS, NIfTI-2; two voxel sizes (sform's and pixdim's);
# qform and sform of one voxel size placing the voxels apart; no orientation; a single slice; one voxel holding most
# of the variance)
import os

import nibabel as nib
import numpy as np

os.makedirs("headers", exist_ok=True)
scan = nib.load("scans/scan1.nii.gz")
data = scan.get_fdata().astype(np.float32)
affine = scan.affine


def save(name, img):
    img.header.set_xyzt_units("mm")
    nib.save(img, f"headers/{name}.nii.gz")


save("plain", nib.Nifti1Image(data, affine))
lps = np.diag([-1, -1, 1, 1]) @ affine
save("lps", nib.Nifti1Image(data, lps))
save("nifti2", nib.Nifti2Image(data, affine))
two = nib.Nifti1Image(data, affine)
zooms = list(two.header.get_zooms())
two.header["pixdim"][1:4] = [z * 2 for z in zooms]  # pixdim says twice the sform's voxel size
save("two_sizes", two)
apart = nib.Nifti1Image(data, affine)
shifted = affine.copy()
shifted[:3, 3] += 30.0
apart.set_qform(shifted, code=1)
apart.set_sform(affine, code=1)
save("qform_sform_apart", apart)
bare = nib.Nifti1Image(data, affine)
bare.set_qform(None, code=0)
bare.set_sform(None, code=0)
save("bare", bare)
save("one_slice", nib.Nifti1Image(data[:, :, data.shape[2] // 2:data.shape[2] // 2 + 1], affine))
spike = data.copy()
spike[tuple(s // 2 for s in spike.shape)] = float(np.abs(data).max()) * 1e4
save("one_voxel", nib.Nifti1Image(spike, affine))
print("wrote headers/", sorted(os.listdir("headers")))
