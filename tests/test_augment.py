"""Augmentation profiles (MONAI, per patch) and the batched affine (gpu_augment), on the CPU."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from monai.transforms import (
    Affine,
    Compose,
    Rand3DElasticd,
    RandAffined,
    RandFlipd,
    RandGaussianNoised,
    Randomizable,
    RandScaleIntensityd,
    RandShiftIntensityd,
    RandZoomd,
)

from accelerated_seg.data.augment import PROFILES, augmentations
from accelerated_seg.data.gpu_augment import (
    IDENTITY,
    affine_for_sample,
    apply_affine,
    place_spatial_augmentation,
    rotation_matrix,
    sample_affine_params,
)

AUGMENTING = [p for p in PROFILES if p != "none"]
LABEL_VALUES = {0.0, 1.0, 2.0}


def make_patch(shape=(32, 32, 32), seed=0) -> dict:
    """A loader-like patch: smooth float image, and a float label of nested balls (classes 0, 1, 2)."""
    rng = np.random.default_rng(seed)
    grid = np.stack(np.meshgrid(*[np.arange(s) - (s - 1) / 2 for s in shape], indexing="ij"))
    radius = np.sqrt((grid**2).sum(0))
    label = (radius < 10).astype(np.float32) + (radius < 5)
    image = label + 0.3 * rng.standard_normal(shape)
    return {"image": torch.as_tensor(image[None], dtype=torch.float32), "label": torch.as_tensor(label[None])}


def augment(transforms: list, patch: dict, seed: int) -> dict:
    """What the dataset does per sample: reseed the whole chain, then apply it."""
    chain = Compose(transforms)
    chain.set_random_state(seed=seed)
    return chain(dict(patch))


def always_applied(transforms: list) -> list:
    """The same transforms with every coin forced to heads, so every random parameter is exercised."""
    for t in transforms:
        t.prob = 1.0
    return transforms


# --- profiles ---------------------------------------------------------------------------------------

def test_bool_profiles_are_backward_compatible():
    assert augmentations(False) == [] and augmentations("none") == []
    assert [type(t) for t in augmentations(True)] == [type(t) for t in augmentations("light")]
    with pytest.raises(ValueError, match="none, light, standard, heavy"):
        augmentations("extreme")


def test_light_reproduces_the_earlier_boolean_set():
    # The set that augment=True meant before profiles existed, verbatim.
    keys = ["image", "label"]
    earlier = [
        RandAffined(keys, prob=0.3, rotate_range=[math.radians(15)] * 3, scale_range=[0.1] * 3,
                    mode=["bilinear", "nearest"], padding_mode="zeros"),
        *(RandFlipd(keys, prob=0.5, spatial_axis=axis) for axis in range(3)),
        RandScaleIntensityd("image", factors=0.1, prob=0.5),
        RandShiftIntensityd("image", offsets=0.1, prob=0.5),
        RandGaussianNoised("image", prob=0.2, std=0.05),
    ]
    patch = make_patch()
    for seed in range(6):
        now, before = augment(augmentations("light"), patch, seed), augment(earlier, patch, seed)
        assert torch.equal(now["image"], before["image"]) and torch.equal(now["label"], before["label"])


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("spatial", [True, False])
def test_every_transform_is_randomizable(profile, spatial):
    # Anything not Randomizable would ignore the per-sample reseeding and break determinism.
    assert all(isinstance(t, Randomizable) for t in augmentations(profile, spatial=spatial))


def test_spatial_false_leaves_the_affine_to_the_gpu():
    for profile in AUGMENTING:
        kinds = {type(t) for t in augmentations(profile, spatial=False)}
        assert not kinds & {RandAffined, RandZoomd}
        assert RandFlipd in kinds  # cheap and exact: stays on the CPU
    # No GPU counterpart: heavy keeps its elastic deformation on the CPU.
    assert Rand3DElasticd in {type(t) for t in augmentations("heavy", spatial=False)}


@pytest.mark.parametrize("profile", AUGMENTING)
@pytest.mark.parametrize("forced", [False, True], ids=["profile-probs", "all-applied"])
def test_same_seed_same_patch_different_seed_different_patch(profile, forced):
    patch = make_patch()

    def run(seed):
        # A fresh chain each time, and the global RNGs stirred: only the seed may matter.
        np.random.seed(seed + 1000)
        torch.manual_seed(seed + 1000)
        transforms = augmentations(profile)
        return augment(always_applied(transforms) if forced else transforms, patch, seed)

    first, again = run(7), run(7)
    assert torch.equal(first["image"], again["image"]) and torch.equal(first["label"], again["label"])
    images = [run(seed)["image"] for seed in range(8)]
    distinct = {tuple(x.flatten()[::97].tolist()) for x in images}
    assert len(distinct) == len(images)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("spatial", [True, False])
def test_labels_keep_their_values_and_shapes(profile, spatial):
    patch = make_patch(shape=(24, 32, 20))
    patch["label"] = patch["label"].to(torch.uint8)  # as the loader crops it from the cache
    for forced in (False, True):
        for seed in range(4):
            transforms = augmentations(profile, spatial=spatial)
            out = augment(always_applied(transforms) if forced else transforms, patch, seed)
            assert out["image"].shape == patch["image"].shape and out["label"].shape == patch["label"].shape
            assert set(torch.unique(torch.as_tensor(out["label"])).tolist()) <= LABEL_VALUES
            assert torch.isfinite(torch.as_tensor(out["image"])).all()


def test_profiles_apply_their_spatial_transforms_with_nearest_labels():
    for profile in AUGMENTING:
        for t in augmentations(profile):
            if isinstance(t, (RandAffined, Rand3DElasticd)):
                assert tuple(t.mode) == ("bilinear", "nearest")
            if isinstance(t, RandZoomd):
                assert tuple(t.mode) == ("trilinear", "nearest-exact")


# --- gpu_augment --------------------------------------------------------------------------------------

def batch_of(patches: list[dict]) -> tuple[torch.Tensor, torch.Tensor]:
    return (torch.stack([p["image"] for p in patches]), torch.stack([p["label"] for p in patches]).long())


def theta_of(linear: np.ndarray, batch: int = 1) -> torch.Tensor:
    theta = np.hstack([linear, np.zeros((3, 1))]).astype(np.float32)
    return torch.as_tensor(np.stack([theta] * batch))


def test_identity_returns_the_input_exactly():
    image, label = batch_of([make_patch(seed=s) for s in range(2)])
    out_image, out_label = apply_affine(image, label, torch.as_tensor(np.stack([IDENTITY] * 2)))
    assert torch.equal(out_image, image) and torch.equal(out_label, label) and out_label.dtype == torch.long


def test_the_per_batch_device_work_copies_nothing_from_the_host_after_the_first_batch(monkeypatch):
    """The identity matrix and the patch's half sizes were copied from the host at every micro-batch,
    and region masks once per region: on a GPU each unpinned copy waits for the queue, breaking the
    loop's one sync per optimizer step (a review, seventy-seventh session)."""
    from accelerated_seg.regions import Regions

    copies = []
    for name in ("tensor", "as_tensor"):
        made = getattr(torch, name)
        monkeypatch.setattr(torch, name, lambda *a, _made=made, **k: copies.append(k.get("device")) or _made(*a, **k))
    image, label = batch_of([make_patch(seed=s) for s in range(2)])
    theta = theta_of(np.diag([1.0, 0.9, 1.1]), batch=2)
    apply_affine(image, label, theta)  # the first may make the half sizes, once for the shape
    copies.clear()
    apply_affine(image, label, theta)
    regions = Regions(("whole", "core"), ((1, 2), (2,)), (1, 2))
    masks = regions.masks(label)
    assert [device for device in copies if device is not None] == []
    assert torch.equal(masks[:, 0:1], (label == 1) | (label == 2)) and torch.equal(masks[:, 1:2], label == 2)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_quarter_turn_on_a_cubic_patch_is_rot90(axis):
    image, label = batch_of([make_patch(shape=(16, 16, 16))])
    image = image + torch.linspace(0, 1, 16).view(1, 1, 16, 1, 1)  # break the balls' symmetry
    angles = np.zeros(3)
    angles[axis] = math.pi / 2
    out_image, out_label = apply_affine(image, label, theta_of(rotation_matrix(angles)))
    # Right-handed rotations (as MONAI's): about X turns Y towards Z, about Y turns Z towards X, about Z
    # turns X towards Y. The pull matrix turns the sampling positions by +90 degrees, so the content
    # turns by -90, which is rot90(k=-1) over that cyclic plane.
    plane = [2 + (axis + 1) % 3, 2 + (axis + 2) % 3]
    torch.testing.assert_close(out_image, torch.rot90(image, k=-1, dims=plane), atol=1e-5, rtol=0)
    assert torch.equal(out_label, torch.rot90(label, k=-1, dims=plane))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_minus_one_scale_is_a_flip(axis):
    image, label = batch_of([make_patch(shape=(12, 16, 10), seed=3)])
    scale = np.ones(3)
    scale[axis] = -1
    out_image, out_label = apply_affine(image, label, theta_of(np.diag(scale)))
    torch.testing.assert_close(out_image, torch.flip(image, dims=[2 + axis]), atol=1e-5, rtol=0)
    assert torch.equal(out_label, torch.flip(label, dims=[2 + axis]))


def test_quarter_turn_in_the_square_plane_of_a_non_cubic_patch_is_rot90():
    image, label = batch_of([make_patch(shape=(20, 20, 12), seed=1)])
    out_image, out_label = apply_affine(image, label, theta_of(rotation_matrix(np.array([0, 0, math.pi / 2]))))
    torch.testing.assert_close(out_image, torch.rot90(image, k=-1, dims=(2, 3)), atol=1e-5, rtol=0)
    assert torch.equal(out_label, torch.rot90(label, k=-1, dims=(2, 3)))


def test_rotation_on_a_non_cubic_patch_is_a_true_rotation_in_voxel_space():
    # A ball off the centre of a 48 x 32 x 40 patch, rotated 30 degrees in the (non-square) X-Y plane.
    shape, centre, radius = (48, 32, 40), np.array([8.0, 4.0, 0.0]), 6.0
    grid = np.stack(np.meshgrid(*[np.arange(s) - (s - 1) / 2 for s in shape], indexing="ij"))
    ball = (np.sqrt(((grid - centre[:, None, None, None]) ** 2).sum(0)) < radius)
    label = torch.as_tensor(ball[None, None]).long()
    rotation = rotation_matrix(np.array([0, 0, math.radians(30)]))
    _, out = apply_affine(label.float(), label, theta_of(rotation))
    voxels = grid[:, out[0, 0].numpy().astype(bool)]
    # Volume kept (a stretched "rotation" would keep it too, so also check where and how round).
    assert abs(voxels.shape[1] / ball.sum() - 1) < 0.03
    # Output p pulls from R p, so the ball moves to R^T c; its moments stay those of a ball.
    np.testing.assert_allclose(voxels.mean(1), rotation.T @ centre, atol=0.25)
    spread = np.linalg.eigvalsh(np.cov(voxels))
    assert spread.max() / spread.min() < 1.1


def test_agrees_with_monai_affine_on_a_non_cubic_patch():
    # Same convention as MONAI's Affine (voxel space about the centre), translation included.
    image, label = batch_of([make_patch(shape=(20, 14, 17), seed=2)])
    linear = rotation_matrix(np.array([0.3, -0.2, 0.5])) @ np.diag([1.1, 0.9, 1.2])
    shift = np.array([1.0, -2.0, 0.5])
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = linear, shift
    theta = torch.as_tensor(matrix[None, :3].astype(np.float32))
    out_image, out_label = apply_affine(image, label, theta)
    expected_image = Affine(affine=matrix, mode="bilinear", padding_mode="zeros", image_only=True)(image[0])
    expected_label = Affine(affine=matrix, mode="nearest", padding_mode="zeros", image_only=True)(label[0].float())
    torch.testing.assert_close(out_image[0], expected_image.as_tensor(), atol=1e-4, rtol=0)
    assert (out_label[0] == expected_label.as_tensor().long()).float().mean() > 0.999


@pytest.mark.parametrize("dtype", [torch.long, torch.uint8, torch.int32])
def test_label_dtype_and_values_are_kept(dtype):
    image, label = batch_of([make_patch(shape=(16, 20, 12), seed=s) for s in range(4)])
    theta = sample_affine_params(np.random.default_rng(0), "standard", 4)
    theta[0, :, :3] = torch.as_tensor(rotation_matrix(np.array([0.4, 0.1, -0.3])))  # at least one resampled
    out_image, out_label = apply_affine(image.double(), label.to(dtype), theta)
    assert out_label.dtype == dtype and out_image.dtype == torch.float64
    assert out_image.shape == image.shape and out_label.shape == label.shape
    assert set(torch.unique(out_label).tolist()) <= {0, 1, 2}


def test_apply_affine_rejects_mismatched_shapes():
    image, label = batch_of([make_patch(shape=(8, 8, 8))])
    with pytest.raises(ValueError, match="theta"):
        apply_affine(image, label, torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="same size"):
        apply_affine(image, label[:, :, :4], torch.as_tensor(IDENTITY[None]))


@pytest.mark.parametrize("profile", PROFILES)
def test_affine_draws_are_deterministic_per_seed(profile):
    draw = lambda seed: sample_affine_params(np.random.default_rng(seed), profile, 16)  # noqa: E731
    assert draw(5).shape == (16, 3, 4) and draw(5).dtype == torch.float32
    assert torch.equal(draw(5), draw(5))
    if profile != "none":
        assert not torch.equal(draw(5), draw(6))
    # A batch is the per-sample draws in sequence: the dataset can draw per sample instead.
    rng = np.random.default_rng(5)
    assert torch.equal(draw(5), torch.as_tensor(np.stack([affine_for_sample(rng, profile) for _ in range(16)])))


@pytest.mark.parametrize("profile, untouched", [("none", 1.0), ("light", 0.7), ("standard", 0.64), ("heavy", 0.64)])
def test_affine_draws_follow_the_profile(profile, untouched):
    thetas = sample_affine_params(np.random.default_rng(0), profile, 4000).numpy()
    identity = (thetas == IDENTITY).all(axis=(1, 2))
    assert abs(identity.mean() - untouched) < 0.03  # light: one coin 0.3; standard: two coins 0.2
    assert (thetas[:, :, 3] == 0).all()  # about the patch centre: no translation
    singular = np.linalg.svd(thetas[~identity, :, :3], compute_uv=False)
    if profile == "light":  # per-axis sampling factors in 0.9-1.1
        assert singular.min() >= 0.9 - 1e-5 and singular.max() <= 1.1 + 1e-5
    elif profile != "none":  # one isotropic zoom in 0.7-1.4 (or none): pull factor 1/zoom
        np.testing.assert_allclose(singular.min(1), singular.max(1), rtol=1e-5)
        assert singular.min() >= 1 / 1.4 - 1e-5 and singular.max() <= 1 / 0.7 + 1e-5


def test_cpu_profile_then_batched_affine_keeps_labels():
    # The augment_on=gpu path end to end: non-spatial profile per sample, then the batch affine.
    patch = make_patch(shape=(24, 16, 20))
    patches = [augment(augmentations("heavy", spatial=False), patch, seed) for seed in range(3)]
    image, label = batch_of(patches)
    theta = torch.as_tensor(np.stack([affine_for_sample(np.random.default_rng(s), "heavy") for s in range(3)]))
    theta[1, :, :3] = torch.as_tensor(rotation_matrix(np.array([0.2, 0.5, -0.1])) / 1.2)
    out_image, out_label = apply_affine(image, label, theta)
    assert set(torch.unique(out_label).tolist()) <= {0, 1, 2} and out_image.shape == image.shape


@pytest.mark.parametrize("setting, device, placed", [
    ("auto", "cuda:1", "gpu"), ("auto", "cpu", "cpu"), ("auto", "meta", "cpu"),
    ("cpu", "cuda", "cpu"), ("gpu", "cpu", "gpu"),  # an explicit choice is kept wherever it runs
])
def test_auto_places_the_spatial_augmentation_on_a_cuda_device_only(setting, device, placed):
    assert place_spatial_augmentation(setting, torch.device(device)) == placed


@pytest.mark.cuda
def test_cuda_matches_cpu():
    image, label = batch_of([make_patch(shape=(24, 16, 20), seed=s) for s in range(4)])
    theta = sample_affine_params(np.random.default_rng(1), "heavy", 4)
    theta[0, :, :3] = torch.as_tensor(rotation_matrix(np.array([0.3, 0.2, 0.1])))
    cpu_image, cpu_label = apply_affine(image, label, theta)
    gpu_image, gpu_label = apply_affine(image.cuda(), label.cuda(), theta)  # theta may stay on the CPU
    assert gpu_image.is_cuda and gpu_label.dtype == torch.long
    torch.testing.assert_close(gpu_image.cpu(), cpu_image, atol=1e-4, rtol=0)
    assert (gpu_label.cpu() == cpu_label).float().mean() > 0.999
