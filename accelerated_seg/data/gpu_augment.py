"""The random rotation/scaling of a profile, applied to a whole batch on the device it lives on.

Why not MONAI's ``RandAffined``: it resamples one patch at a time on the CPU, inside the data-loader
workers, where a 64^3 resampling costs tens of milliseconds per patch. Here the *parameters* are
still drawn per sample on the CPU, by the dataset, from that sample's seed, so a sample stays a
function of (seed, epoch, index) (docs/design.md); only the resampling moves: one batched
``grid_sample`` on the GPU, in the training loop.

Convention for a matrix ``theta`` of shape (3, 4): it *pulls*, in voxel units, about the patch
centre, with axes in (X, Y, Z) order: the output voxel at centred position ``p`` takes the input
value at ``theta[:, :3] @ p + theta[:, 3]``. This is MONAI's ``Affine`` convention (the tests check
the two agree) and it does not depend on the patch shape; ``apply_affine`` converts it to
``affine_grid``'s normalised convention for the actual shape.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from .augment import AFFINE_SPECS, profile_name

IDENTITY = np.hstack([np.eye(3), np.zeros((3, 1))]).astype(np.float32)


def place_spatial_augmentation(augment_on: str, device: torch.device) -> str:
    """Where ``data.augment_on`` runs the spatial augmentation when training on ``device``: cpu or gpu.

    ``auto`` is gpu on a CUDA device and cpu anywhere else. On a GPU the loader workers resampling
    each patch are the bottleneck at real patch sizes (an H100 waited 34.6% of the time for data with
    8 workers at 128^3, 10.8% with the resampling on the GPU); on a CPU the resampling would move
    from the workers into the training process itself, where it costs ~27 ms per 64^3 patch.
    """
    if augment_on == "auto":
        return "gpu" if torch.device(device).type == "cuda" else "cpu"
    return augment_on


def affine_for_sample(rng: np.random.Generator, profile: str | bool) -> np.ndarray:
    """One sample's random rotation/scaling matrix, drawn as the profile's CPU transforms draw it.

    The identity when the profile's coins say "not applied" (or for profile none).

    Args:
        rng: the sample's own generator (seeded from the sample's seed, so the matrix is
            deterministic per sample).
        profile: none | light | standard | heavy (a bool is read as light/none).

    Returns:
        A float32 (3, 4) pull matrix in voxel units about the patch centre (module docstring).
    """
    spec = AFFINE_SPECS.get(profile_name(profile))
    if spec is None:
        return IDENTITY.copy()
    max_angle = math.radians(spec.rotate_deg)
    linear = np.eye(3)
    if spec.joint:
        # MONAI RandAffined: one coin; per-axis factors on the sampling coordinates.
        if rng.random() < spec.rotate_prob:
            linear = rotation_matrix(rng.uniform(-max_angle, max_angle, 3)) @ np.diag(rng.uniform(*spec.scale, 3))
    else:
        # RandAffined (rotation) then RandZoomd: a zoom z magnifies, i.e. output p pulls from p / z.
        if rng.random() < spec.rotate_prob:
            linear = rotation_matrix(rng.uniform(-max_angle, max_angle, 3))
        if rng.random() < spec.scale_prob:
            linear = linear / rng.uniform(*spec.scale)
    return np.hstack([linear, np.zeros((3, 1))]).astype(np.float32)


def sample_affine_params(rng: np.random.Generator, profile: str | bool, batch: int) -> torch.Tensor:
    """``batch`` matrices from ``affine_for_sample``, drawn one after the other from ``rng``.

    Args:
        rng: the generator to draw from.
        profile: none | light | standard | heavy.
        batch: number of matrices.

    Returns:
        A float32 tensor of shape (batch, 3, 4) on the CPU.
    """
    return torch.from_numpy(np.stack([affine_for_sample(rng, profile) for _ in range(batch)]))


def rotation_matrix(angles: np.ndarray) -> np.ndarray:
    """Rotation by ``angles`` (radians) about the X, Y and Z axes, composed as MONAI composes them
    (``create_rotate`` with rotate_order "XYZ": R = Rx @ Ry @ Rz).

    Args:
        angles: three angles in radians.
    """
    (cx, cy, cz), (sx, sy, sz) = np.cos(angles), np.sin(angles)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rx @ ry @ rz


def apply_affine(image: torch.Tensor, label: torch.Tensor, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Resample a batch with one pull matrix per sample, on the tensors' device.

    Bilinear for the image and nearest for the label (so labels keep their class values), zeros
    outside the patch for both (label 0 = background). Samples whose matrix is exactly the identity
    come back untouched, bit for bit.

    Args:
        image: (B, C, X, Y, Z) floating tensor.
        label: (B, 1, X, Y, Z) tensor of class values, any dtype (integer ones are typical).
        theta: (B, 3, 4) pull matrices in voxel units about the patch centre (module docstring), on
            any device; e.g. ``sample_affine_params`` output, or the dataset's per-sample matrices
            collated by the DataLoader.

    Returns:
        (image, label) with the input shapes, dtypes and device.
    """
    batch, spatial_shape = image.shape[0], tuple(image.shape[2:])
    if image.ndim != 5 or label.ndim != 5 or tuple(label.shape[2:]) != spatial_shape or label.shape[0] != batch:
        raise ValueError(f"expected image (B, C, X, Y, Z) and label (B, 1, X, Y, Z) of the same size; "
                         f"got {tuple(image.shape)} and {tuple(label.shape)}")
    if tuple(theta.shape) != (batch, 3, 4):
        raise ValueError(f"expected theta of shape ({batch}, 3, 4); got {tuple(theta.shape)}")
    theta = theta.to(device=image.device, dtype=torch.float32)
    grid = F.affine_grid(normalised_theta(theta, spatial_shape), [batch, 1, *spatial_shape], align_corners=False)
    # Resample in float32 whatever the stored dtypes: grid_sample wants input and grid of one dtype,
    # a half-precision grid would be off by ~0.03 voxel, and integer labels must be floats to sample
    # (exact for class values below 2**24).
    warped_image = F.grid_sample(image.float(), grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    warped_label = F.grid_sample(label.float(), grid, mode="nearest", padding_mode="zeros", align_corners=False)
    # torch.where rather than resampling only the non-identity samples: picking them out would need
    # a host-device sync and give varying shapes, while resampling a small batch on a GPU is cheap.
    # The identity is made on the device: a copy of IDENTITY from the host waited for the GPU's queue
    # at every micro-batch (an unpinned copy synchronises; a review, seventy-seventh session).
    identity = (theta == torch.eye(3, 4, dtype=theta.dtype, device=theta.device)).flatten(1).all(1)
    identity = identity.view(batch, 1, 1, 1, 1)
    return (torch.where(identity, image, warped_image.to(image.dtype)),
            torch.where(identity, label, warped_label.to(label.dtype)))


@functools.lru_cache(maxsize=16)
def _halves(spatial_shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The patch's half sizes on ``device``, copied there once per shape rather than at every
    micro-batch (each copy from the host waited for the GPU's queue). Made outside inference mode
    whatever the first caller runs under: an inference tensor, cached, could not be saved for a
    later backward."""
    with torch.inference_mode(False):
        return torch.tensor(spatial_shape, dtype=dtype, device=device) / 2


def normalised_theta(theta: torch.Tensor, spatial_shape: tuple[int, int, int]) -> torch.Tensor:
    """``affine_grid``'s theta for voxel-space pull matrices and a patch shape.

    With align_corners=False, normalised coordinate -1..1 spans the patch's outer voxel faces, so a
    centred voxel coordinate is ``v = n * size / 2`` per axis: theta_n = D^-1 A D and t_n = D^-1 t with
    D = diag(size / 2). Skipping this (using A directly on normalised coordinates) is right only for
    cubic patches: on a 48x32 plane a "rotation" would stretch by 1.5 one way and shear.
    affine_grid also orders coordinates (W, H, D), i.e. (Z, Y, X) for our (X, Y, Z) tensors, hence
    the reversal of rows and columns.

    Args:
        theta: (B, 3, 4) voxel-space pull matrices, (X, Y, Z) order.
        spatial_shape: the patch's (X, Y, Z) size.
    """
    half = _halves(tuple(spatial_shape), theta.dtype, theta.device)
    linear = theta[:, :, :3] * half[None, None, :] / half[None, :, None]
    shift = theta[:, :, 3] / half
    return torch.cat([linear.flip(1).flip(2), shift.flip(1)[:, :, None]], dim=2)
