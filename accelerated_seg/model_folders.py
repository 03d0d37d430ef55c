"""Which kind of folder a path is, told from its files alone: an exported model (config.json and
model.safetensors), a training run's folder that holds exports (best_model, model), or a
training-state checkpoint (step_N, with its strategy.json).

Kept apart from checkpoint.py, which imports torch, accelerate and MONAI: ``accelerated-seg predict``
refuses a --model that is no export before it imports them, which takes 7-15 s on 2 cores (on a
cluster's shared filesystem often longer), as ``train`` refuses a mistyped setting at once.
"""

from __future__ import annotations

from pathlib import Path

# In every training-state checkpoint: the strategy and process count that saved it (checkpoint.py).
LAYOUT_FILE = "strategy.json"


def exported_models_in(folder: str | Path) -> list[Path]:
    """``folder`` itself when it is an exported model (it holds a config.json), else a training run's
    exports in it (best_model, model); empty for anything else."""
    folder = Path(folder)
    if (folder / "config.json").is_file():
        return [folder]
    return [folder / name for name in ("best_model", "model") if (folder / name / "config.json").is_file()]


def check_export_files(model_dir: str | Path) -> None:
    """Both files of an export are in ``model_dir``; what it is instead, and what to give, if not.

    Raises:
        FileNotFoundError: naming the run's exports for a run's folder, ``accelerated-seg export`` for
            a training-state checkpoint, else the missing file.
    """
    model_dir = Path(model_dir)
    config_path, weights_path = model_dir / "config.json", model_dir / "model.safetensors"
    exports = exported_models_in(model_dir)
    if not config_path.is_file() and exports:  # the run's folder given for its export: name the choice
        raise FileNotFoundError(f"{model_dir} is a training run's folder, not an exported model: give "
                                f"{' or '.join(map(str, exports))} (best_model: the best validation Dice; model: "
                                f"the last step)")
    if not config_path.is_file() and (model_dir / LAYOUT_FILE).is_file():  # a step_N folder given for a model
        raise FileNotFoundError(f"{model_dir} is a training-state checkpoint, not an exported model: make one of it "
                                f"with accelerated-seg export {model_dir} --output <new folder>")
    for path in (config_path, weights_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: give a model folder exported by training (it holds "
                                    f"config.json and model.safetensors)")  # --model, init_from or Segmentation.load
