"""A one-page PNG of a run: a validation slice (image, reference, prediction) and the curves.

Needs matplotlib (the ``viz`` extra). Uses only what training wrote: ``metrics.json``, the exported
best model and the validation split, and predicts through the same ``predict_file`` users call.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from .config import Config
from .data.labels import as_class_indices
from .data.prepare import load_manifest
from .data.volume_opening import one_volume
from .files import replace_atomically
from .inference import predict_file


def write_report(cfg: Config) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # no display on servers
    import matplotlib.pyplot as plt

    out = Path(cfg.train.output_dir)
    path = out / "report.png"
    metrics = json.loads((out / "metrics.json").read_text())
    model_dir = out / "best_model" if (out / "best_model").is_dir() else out / "model"
    manifest = load_manifest(cfg.data, out)
    case = (manifest.validation or manifest.training)[0]  # a run without validation cases shows a training one
    with tempfile.TemporaryDirectory() as tmp:
        pred_path = predict_file(model_dir, case.images, Path(tmp) / "pred.nii.gz")
        pred = _canonical(pred_path)
    image = _canonical(case.images[0])
    if image.ndim == 4:  # one file of every channel (the Decathlon's BrainTumour): the first is drawn
        image = image[..., 0]  # (a TypeError from matplotlib after the training, until the 77th session)
    label, z = annotated_slice(_canonical(case.label), manifest.ignore_value)
    # Both hold the files' label values; the names are the classes' (labels 0, 1, 2, 5, 8, 13 drew
    # value 5 under class 5's name, and binarized labels under none)
    label, pred = (as_class_indices(data, manifest.label_map, merge_foreground=manifest.binarized)
                   for data in (label, pred))

    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    draw_slices(axes[:3], image, label, pred, z, case.id, manifest.labels)
    plot_curves(axes[3], metrics, loss=cfg.train.loss)
    fig.tight_layout()
    replace_atomically(path, lambda temporary: fig.savefig(temporary, dpi=90, format="png"))  # a kill keeps the old one
    plt.close(fig)
    return path


def draw_slices(axes, image: np.ndarray, label: np.ndarray, pred: np.ndarray, z: int, case_id: str,
                class_names: dict) -> None:
    """The image, and the reference and prediction (class indices) over it, at axial slice ``z``; each
    class in the same colour in both, named in a legend below the prediction (colours alone said
    nothing of which class was which: the seventy-fifth session's probe).

    Colours are qualitative (matplotlib's tab20 by class index, its ten hues before their light
    shades): on one red-to-yellow scale a 13-organ model's neighbouring classes looked alike, and the
    legend covered the prediction (seventy-seventh session's probe)."""
    from matplotlib import colormaps
    from matplotlib.patches import Patch

    tab20 = colormaps["tab20"]

    def colour(index: int):  # tab20 pairs a dark and a light shade of each hue: the 10 dark ones first
        step = (index - 1) % 20
        return tab20((2 * step) % 20 + step // 10)
    for ax, data, title in ((axes[0], image, f"image ({case_id})"), (axes[1], label, "reference"),
                            (axes[2], pred, "prediction")):
        ax.imshow(image[:, :, z].T, cmap="gray", origin="lower")
        if data is not image:
            drawn = data[:, :, z].T.astype(np.int64)
            overlay = np.zeros((*drawn.shape, 4))
            for value in np.unique(drawn[drawn != 0]):
                overlay[drawn == value] = (*colour(int(value))[:3], 0.6)
            ax.imshow(overlay, origin="lower")
        ax.set_title(title), ax.axis("off")
    shown = sorted((set(np.unique(label[:, :, z]).tolist()) | set(np.unique(pred[:, :, z]).tolist())) - {0})
    names = {int(value): name for value, name in class_names.items()}
    handles = [Patch(color=colour(value), alpha=0.6, label=names.get(value, f"class {value}"))
               for value in map(int, shown)]
    if handles:
        axes[2].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(3, len(handles)),
                       fontsize=8, frameon=False)


def annotated_slice(label: np.ndarray, ignore_value: int | None) -> tuple[np.ndarray, int]:
    """The reference as drawn, its unannotated voxels (sparse annotation's ``ignore_value``) as
    background, and the axial slice with the most foreground.

    The ignore value is no class: counted as foreground it chose the first slice nobody annotated,
    and drawn it covered the reference panel in one colour (seventy-third session)."""
    if ignore_value is not None:
        label = np.where(label == ignore_value, 0, label)
    return label, int(np.argmax((label > 0).sum(axis=(0, 1))))


# The legend's name of each train.loss (the curve said DiceCE whatever the run had trained with).
LOSS_NAMES = {"dice_ce": "DiceCE", "dice_focal": "DiceFocal", "dice": "Dice", "generalized_dice": "generalized Dice",
              "tversky": "Tversky"}


def plot_curves(ax, metrics: dict, loss: str = "dice_ce") -> None:
    """The training loss and the validation mean Dice against the optimizer step (metrics.json).

    A short run logs the loss once (train.log_every above train.max_steps), and a line through one
    point draws nothing: points are marked. A run without validation (train.val_every: 0) says so,
    rather than listing a curve that is not there.
    """
    steps, losses = zip(*metrics["loss"]) if metrics["loss"] else ((), ())
    ax.plot(steps, losses, ".-" if len(steps) < 20 else "-", label=f"training loss ({LOSS_NAMES.get(loss, loss)})")
    val = metrics["validation"]
    if val:
        ax.plot([v["step"] for v in val], [v["mean_dice"] for v in val], "o-", label="validation mean Dice")
        best = max(val, key=lambda v: v["mean_dice"])
        ax.set_title(f"best mean Dice {best['mean_dice']:.3f} at step {best['step']}")
    else:
        ax.set_title("training loss (no validation in this run)")
    ax.set_xlabel("optimizer step"), ax.set_ylabel("loss; mean Dice" if val else "loss")
    ax.set_ylim(0, max(1.05, max(losses, default=0) * 1.05))
    ax.grid(alpha=0.3), ax.legend()


def _canonical(path) -> np.ndarray:
    """RAS voxel order, so every case is shown the same way up whatever its affine; a volume stored behind
    size-1 axes, (x, y, z, 1, 1), as the (x, y, z) one training read (``one_volume``: matplotlib's TypeError
    on it, after the training, until the ninety-ninth session)."""
    return np.asanyarray(nib.as_closest_canonical(one_volume(nib.load(str(path)))).dataobj)
