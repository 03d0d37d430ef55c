"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/recorded_review_2026-12-07/builds.py \
    > benchmarks/results/recorded_review_2026-12-07/builds_<main|after>.txt 2>&1
(review r118 of h135's models._monai_warns_building.) For every registry name's default spec (patch 64^3, 1 in, 3
out), and for hand-made UNet specs (strides a tuple, a list, an int; more strides than steps), DynUNet, BasicUNet and
an nvfuser norm: whether build_from_spec changed the warning filters (warnings._filters_mutated counted) and what
warnings it let out, under Python's default filter."""
import warnings

from accelerated_seg import models
from accelerated_seg.models import MODELS, ModelSpec, build_from_spec, model_spec

changes = [0]
original = warnings._filters_mutated


def counted():
    changes[0] += 1
    original()


warnings._filters_mutated = counted


def probe(label, spec):
    changes[0] = 0
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        before = changes[0]
        try:
            build_from_spec(spec)
            outcome = "built"
        except Exception as error:  # noqa: BLE001
            outcome = f"{type(error).__name__}: {str(error)[:90]}"
        inside = changes[0] - before
    said = sorted({f"{w.category.__name__}: {str(w.message)[:80]}" for w in raised})
    print(f"{label:42} {outcome:30} filter changes {inside}, warnings {said}")


for name in sorted(MODELS):
    try:
        spec = model_spec(name, 1, 3, (64, 64, 64))
    except Exception as error:  # noqa: BLE001
        print(f"{name}: no default spec at 64^3: {error}")
        continue
    probe(f"registry {name} ({spec.monai_class})", spec)

unet = model_spec("unet", 1, 3, (64, 64, 64))
for label, strides in (("tuple", (2, 2, 2, 2)), ("list", [2, 2, 2, 2]), ("int", 2), ("5 strides", [2, 2, 2, 2, 2]),
                       ("per-axis lists", [[2, 2, 1], [2, 2, 2], [2, 2, 2], [2, 2, 2]])):
    probe(f"UNet strides {label}", ModelSpec("unet", "UNet", {**unet.args, "strides": strides}))
probe("UNet without strides (older export)", ModelSpec("unet", "UNet",
                                                      {k: v for k, v in unet.args.items() if k != "strides"}))
probe("UNet norm INSTANCE_NVFUSER", ModelSpec("unet", "UNet", {**unet.args, "norm": "INSTANCE_NVFUSER"}))
probe("UNet norm ('instance_nvfuser', {})", ModelSpec("unet", "UNet", {**unet.args, "norm": ["instance_nvfuser", {}]}))
print("MONAI nvfuser available:", models.nvfuser_norm_without_apex(
    ModelSpec("unet", "UNet", {**unet.args, "norm": "INSTANCE_NVFUSER"})) is None)
