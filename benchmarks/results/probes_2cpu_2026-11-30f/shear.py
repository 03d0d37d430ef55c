import numpy as np
from ref import ref_metrics
from accelerated_seg.evaluate import case_metrics, voxel_spacing
shape=(40,36,24)
# gantry-tilt-like shear: z axis column tilted 25 degrees in y
S = np.diag([0.7,0.7,3.0,1.0]); S[1,2] = 3.0*np.tan(np.radians(25))
ii,jj,kk = np.meshgrid(*[np.arange(n) for n in shape], indexing='ij')
W = np.stack([ii,jj,kk],-1) @ S[:3,:3].T
def ball(c, r): return (((W-c)**2).sum(-1) <= r*r)
l = ball(np.array([14,20,36]), 8.0); p = ball(np.array([15.5,21,38]), 7.0)
print('voxel_spacing', voxel_spacing(S))
ours = case_metrics(p.astype(np.uint8), l.astype(np.uint8), 2, voxel_spacing(S))[1]
print('ours', ours)
print('world ref', ref_metrics(p, l, S))
