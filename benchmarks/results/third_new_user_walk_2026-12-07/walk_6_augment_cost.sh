# bash walk_6_augment_cost.sh > walk_6_augment_cost.txt 2>&1  (augmentation.md's command, as written, from the
# repository root; N = 20 for 1000 and the venv's path: the page's own seventy-third session ran N = 200)
cd /tmp/wt_h134
PYTHONPATH=. OMP_NUM_THREADS=1 /work/main/.venv/bin/python - <<'EOF'
import time, numpy as np, torch
from monai.transforms import Compose
from accelerated_seg.data.augment import PROFILES, augmentations
from accelerated_seg.data.gpu_augment import apply_affine, sample_affine_params
torch.set_num_threads(1)
rng = np.random.default_rng(0)
patch = {"image": torch.randn(1, 64, 64, 64), "label": torch.as_tensor(rng.integers(0, 3, (1, 64, 64, 64))).float()}
N = 20
for profile in PROFILES:
    for spatial in (True, False):
        chain = Compose(augmentations(profile, spatial=spatial))
        start = time.process_time()
        for seed in range(N):  # as the dataset does: reseed, then augment one patch
            chain.set_random_state(seed=seed)
            chain(dict(patch))
        print(f"{profile:9s} spatial={spatial!s:5s} {1000 * (time.process_time() - start) / N:7.1f} ms/patch")
for t in augmentations("light")[:1] + augmentations("heavy"):  # each transform when it fires
    t.prob = 1.0
    t.set_random_state(seed=0)
    t(dict(patch))  # warm-up
    start = time.process_time()
    for _ in range(10):
        t(dict(patch))
    print(f"  {type(t).__name__:28s} {100 * (time.process_time() - start):7.1f} ms when applied")
image, label = torch.randn(2, 1, 64, 64, 64), torch.randint(0, 3, (2, 1, 64, 64, 64))
theta = sample_affine_params(np.random.default_rng(0), "standard", 2)
theta[:] = torch.as_tensor([[0.9, -0.3, 0, 0], [0.3, 0.9, 0, 0], [0, 0, 1.0, 0]])  # all resampled
start = time.process_time()
for _ in range(20):
    apply_affine(image, label, theta)
print(f"apply_affine, batch of 2 on the CPU: {1000 * (time.process_time() - start) / 40:.1f} ms/patch")
EOF
