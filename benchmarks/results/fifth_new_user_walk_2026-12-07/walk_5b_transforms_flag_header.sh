# bash walk_5b_transforms_flag_header.sh > walk_5b_transforms_flag_header.txt 2>&1   (after walk_5, before the fix:
# the default's maps and --no-transforms-on-device's on a CPU, their voxels, header digests (aux_file) and
# descriptions compared; the same voxels, another digest)
source "$(dirname "$0")/env.sh"
python -c "
import nibabel as nib, numpy as np
for c in ('case_000','case_001'):
    a, b = nib.load(f'p_base/{c}.nii.gz'), nib.load(f'p_notransformsondevice/{c}.nii.gz')
    print(c, (np.asanyarray(a.dataobj)==np.asanyarray(b.dataobj)).all(), a.header['aux_file'], b.header['aux_file'], a.header['descrip']==b.header['descrip'])
"
