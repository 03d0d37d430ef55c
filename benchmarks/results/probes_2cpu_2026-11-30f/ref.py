import numpy as np, nibabel as nib, glob, os, sys
from scipy import ndimage
from scipy.spatial import cKDTree
def surface(m):
    return m & ~ndimage.binary_erosion(m)
def world(mask, A):
    idx = np.argwhere(mask).astype(float)
    return idx @ A[:3,:3].T + A[:3,3]
def ref_metrics(p, l, A, tol=1.0):
    ps, ls = int(p.sum()), int(l.sum())
    if ps == 0 and ls == 0: return dict(dice=1.0, hd95=0.0, nsd=1.0)
    if ps == 0 or ls == 0: return dict(dice=0.0, hd95=np.inf, nsd=0.0)
    dice = 2*(p&l).sum()/(ps+ls)
    sp, sl = world(surface(p), A), world(surface(l), A)
    d_pl = cKDTree(sl).query(sp)[0]; d_lp = cKDTree(sp).query(sl)[0]
    hd95 = max(np.percentile(d_pl,95), np.percentile(d_lp,95))
    nsd = ((d_pl<=tol).sum()+(d_lp<=tol).sum())/(len(d_pl)+len(d_lp))
    return dict(dice=dice, hd95=hd95, nsd=nsd)
if __name__ == '__main__':
    pdir, ldir, classes = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split(',')]
    tol = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    for f in sorted(glob.glob(ldir+'/*.nii.gz')):
        case = os.path.basename(f)[:-7]
        L = nib.load(f); P = nib.load(f'{pdir}/{case}.nii.gz')
        l, p = np.asarray(L.dataobj), np.asarray(P.dataobj)
        for c in classes:
            m = ref_metrics(p==c, l==c, L.affine, tol)
            print(case, c, ' '.join(f'{k}={v:.6g}' for k,v in m.items()), int((l==c).sum()), int((p==c).sum()))
