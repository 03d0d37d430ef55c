"""Training augmentation profiles assembled from MONAI dictionary transforms.

The transforms act on one cropped patch ``{"image": (C, X, Y, Z), "label": (1, X, Y, Z)}``. Every one
is ``Randomizable``: the patch dataset reseeds the whole list per sample
(``Compose(...).set_random_state(seed=...)``), so a sample's augmentation depends only on
(seed, epoch, index), never on the worker or rank (docs/design.md).

Profiles, from mild to strong (docs/augmentation.md has the table):

- ``none``: nothing.
- ``light``: small affine, flips, intensity scale/shift, noise. The default; unchanged from the
  earlier boolean ``augment=True`` set, so earlier runs reproduce bit for bit.
- ``standard``: nnU-Net-like: rotation and isotropic scaling (separate coins), noise, blur,
  brightness, gamma contrast, simulated low resolution, flips.
- ``heavy``: ``standard`` with wider intensity ranges, elastic deformation and a bias field.

The rotation/scaling part of each profile is described once, in ``AFFINE_SPECS``, and both the
MONAI transforms here and the batched GPU version (``gpu_augment``) are built from it, so the two
places that apply it cannot drift apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from monai.transforms import (
    Rand3DElasticd,
    RandAdjustContrastd,
    RandAffined,
    RandBiasFieldd,
    RandFlipd,
    RandGaussianNoised,
    RandGaussianSmoothd,
    RandScaleIntensityd,
    RandShiftIntensityd,
    RandSimulateLowResolutiond,
    RandZoomd,
)

PROFILES = ("none", "light", "standard", "heavy")
KEYS = ("image", "label")
# Bilinear for the image; nearest for the label so it keeps its class values (no blended labels).
IMAGE_LABEL_MODES = ("bilinear", "nearest")


@dataclass(frozen=True)
class AffineSpec:
    """The random rotation and scaling of one profile.

    Two flavours, matching the MONAI transforms that apply them on the CPU:

    - ``joint`` (light, MONAI ``RandAffined``): one coin with probability ``rotate_prob`` decides both;
      each axis gets its own factor ``s ~ U(scale)`` that multiplies the *sampling* coordinates
      (s > 1 shows more of the patch, so the content shrinks by 1/s).
    - separate (standard/heavy, nnU-Net): rotation with ``rotate_prob``; independently, with
      ``scale_prob``, one isotropic zoom ``z ~ U(scale)`` that magnifies the content (MONAI ``RandZoomd``).

    Args:
        rotate_deg: each axis's angle is drawn from U(-rotate_deg, rotate_deg) degrees.
        rotate_prob: probability of rotating (of the whole affine when ``joint``).
        scale: range of the scale factor (see the flavours above).
        scale_prob: probability of scaling; ignored when ``joint``.
        joint: one coin and per-axis sampling factors (RandAffined) instead of separate coins and
            one isotropic zoom.
    """

    rotate_deg: float
    rotate_prob: float
    scale: tuple[float, float]
    scale_prob: float = 0.0
    joint: bool = False


AFFINE_SPECS = {
    "light": AffineSpec(rotate_deg=15.0, rotate_prob=0.3, scale=(0.9, 1.1), joint=True),
    "standard": AffineSpec(rotate_deg=30.0, rotate_prob=0.2, scale=(0.7, 1.4), scale_prob=0.2),
    "heavy": AffineSpec(rotate_deg=30.0, rotate_prob=0.2, scale=(0.7, 1.4), scale_prob=0.2),
}


def profile_name(profile: str | bool) -> str:
    """The profile name, accepting the older boolean setting (True -> "light", False -> "none").

    Args:
        profile: a name from ``PROFILES``, or a bool.
    """
    if isinstance(profile, bool):
        return "light" if profile else "none"
    if profile not in PROFILES:
        raise ValueError(f"augmentation profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    return profile


def augmentations(profile: str | bool = "light", spatial: bool = True) -> list:
    """The MONAI transforms of one augmentation profile, in the order they are applied.

    Args:
        profile: none | light | standard | heavy (a bool is read as light/none).
        spatial: include the random rotation/scaling. False leaves it out so that
            ``gpu_augment.apply_affine`` can apply it to the whole batch on the device instead.
            Flips stay here (cheap, exact), and so does heavy's elastic deformation, which has no
            GPU counterpart: leaving it out would silently weaken the profile.
    """
    profile = profile_name(profile)
    if profile == "none":
        return []
    transforms = affine_transforms(AFFINE_SPECS[profile]) if spatial else []
    if profile == "heavy":
        transforms.append(elastic_deformation())
    transforms += [RandFlipd(KEYS, prob=0.5, spatial_axis=axis) for axis in range(3)]
    return transforms + INTENSITY[profile]()


def affine_transforms(spec: AffineSpec) -> list:
    """MONAI transforms for an ``AffineSpec``: rotation about the patch centre, then scaling.

    Args:
        spec: the profile's rotation/scaling.
    """
    rotate_range = [math.radians(spec.rotate_deg)] * 3
    if spec.joint:
        # RandAffined adds 1 to its draw. Rounding makes 0.9 - 1 exactly -0.1, so light draws the same
        # numbers as the earlier boolean set did and earlier runs reproduce bit for bit.
        scale_range = tuple(round(bound - 1.0, 12) for bound in spec.scale)
        return [RandAffined(KEYS, prob=spec.rotate_prob, rotate_range=rotate_range, scale_range=[scale_range] * 3,
                            mode=IMAGE_LABEL_MODES, padding_mode="zeros")]
    return [
        RandAffined(KEYS, prob=spec.rotate_prob, rotate_range=rotate_range, mode=IMAGE_LABEL_MODES,
                    padding_mode="zeros"),
        # RandAffined draws one factor per axis; RandZoomd draws one for all axes (nnU-Net's default).
        # nearest-exact, unlike torch's "nearest", puts the label's samples on the same voxel centres
        # as trilinear does for the image (align_corners=False).
        RandZoomd(KEYS, prob=spec.scale_prob, min_zoom=spec.scale[0], max_zoom=spec.scale[1],
                  mode=("trilinear", "nearest-exact"), padding_mode="constant", keep_size=True),
    ]


def elastic_deformation() -> Rand3DElasticd:
    """Moderate elastic deformation: displacements of about 1 voxel (std per axis), ~5 at most.

    The offset field is uniform noise smoothed by a Gaussian of ``sigma``, times ``magnitude``; with
    sigma 6-8 and magnitude 150-300 its standard deviation per axis is 0.5-1.7 voxel (1 typically)
    and its largest displacement in a 64^3 patch 3-8 voxels (5 typically), comparable to nnU-Net
    v1's elastic setting (alpha 0-900, sigma 9-13). Its smoother sigma 9-13 would cost 0.6-1.1 s per
    64^3 patch for the 3D smoothing alone (one thread), against ~0.4 s here.
    """
    return Rand3DElasticd(KEYS, sigma_range=(6.0, 8.0), magnitude_range=(150.0, 300.0), prob=0.2,
                          mode=IMAGE_LABEL_MODES, padding_mode="zeros")


def _light() -> list:
    return [
        RandScaleIntensityd("image", factors=0.1, prob=0.5),
        RandShiftIntensityd("image", offsets=0.1, prob=0.5),
        RandGaussianNoised("image", prob=0.2, std=0.05),
    ]


def _nnunet_like(noise_std: float, blur_sigma: tuple[float, float], brightness: tuple[float, float],
                 gamma: tuple[float, float], low_res_zoom: tuple[float, float]) -> list:
    """nnU-Net's intensity chain (noise, blur, brightness, gamma, low resolution) with given ranges.

    Args:
        noise_std: the noise standard deviation is drawn from U(0, noise_std) per sample.
        blur_sigma: Gaussian blur sigma range in voxels (drawn per axis).
        brightness: range of the multiplicative brightness factor.
        gamma: range of the gamma exponent (applied on the rescaled [0, 1] intensities).
        low_res_zoom: range of the down-sampling factor of the simulated low resolution.
    """
    return [
        RandGaussianNoised("image", prob=0.1, std=noise_std),
        RandGaussianSmoothd("image", sigma_x=blur_sigma, sigma_y=blur_sigma, sigma_z=blur_sigma, prob=0.2),
        RandScaleIntensityd("image", factors=(brightness[0] - 1.0, brightness[1] - 1.0), prob=0.15),
        # retain_stats: like nnU-Net, keep the patch's mean and std so only the contrast curve changes.
        RandAdjustContrastd("image", gamma=gamma, prob=0.3, retain_stats=True),
        RandSimulateLowResolutiond("image", prob=0.25, zoom_range=low_res_zoom),
    ]


def _standard() -> list:
    # Noise variance up to 0.1 as in nnU-Net, i.e. std up to ~0.32 on z-scored images.
    return _nnunet_like(noise_std=0.32, blur_sigma=(0.5, 1.0), brightness=(0.75, 1.25), gamma=(0.7, 1.5),
                        low_res_zoom=(0.5, 1.0))


def _heavy() -> list:
    return [
        # A smooth multiplicative field (MRI coil inhomogeneity), before the acquisition noise.
        RandBiasFieldd("image", prob=0.2, coeff_range=(0.0, 0.1)),
        *_nnunet_like(noise_std=0.45, blur_sigma=(0.5, 1.5), brightness=(0.65, 1.5), gamma=(0.6, 1.8),
                      low_res_zoom=(0.35, 1.0)),
    ]


INTENSITY = {"light": _light, "standard": _standard, "heavy": _heavy}
