"""docs/from_monai.md's mapping table, held to the code: the settings its "here" column gives for the spleen
tutorial load as one config, with the values and defaults the column states, and the way it names to load an
export in Python imports. Its plain-MONAI block is run against predict's output by tests/test_inference.py. The
hundred-and-twenty-fourth session's helper h134 walked the page (benchmarks/results/third_new_user_walk_2026-12-07/)
and found the table naming `load_exported` bare, which `from accelerated_seg import load_exported` does not find."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from accelerated_seg.config import Config, load_config
from accelerated_seg.data.preprocess_settings import resolved_crop_foreground

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "from_monai.md").read_text(encoding="utf-8")


def _row(monai: str) -> str:
    """The table's "here" cell of the row whose MONAI cell begins with ``monai``."""
    row = next(line for line in PAGE.splitlines() if line.startswith(f"| {monai}"))
    return row.split(" | ", 1)[1]


def test_the_tables_settings_load_as_one_config_with_the_values_it_states(tmp_path):
    yaml = tmp_path / "spleen.yaml"  # each row's settings, as the table writes them
    yaml.write_text("""data:
  dataset: datalist.json
  labels: {0: background, 1: spleen}
  spacing: [1.5, 1.5, 2.0]
  normalization: ct
  ct_window: [-57, 164]
  crop_foreground: true
  patch_size: [96, 96, 96]
  foreground_fraction: 0.5
  samples_per_volume: 4
model:
  name: unet
  args: {channels: [16, 32, 64, 128, 256], strides: [2, 2, 2, 2], num_res_units: 2, norm: batch}
optim: {lr: 1.0e-4, weight_decay: 0, warmup_steps: 0, min_lr_ratio: 1, max_grad_norm: 0}
train: {loss: dice, batch_size: 8, sw_batch_size: 4, sw_overlap: 0.25}
""", encoding="utf-8")
    for monai, setting in [("`Spacingd", "`data.spacing: [1.5, 1.5, 2.0]`"), ("`ScaleIntensityRanged",
                           "`data.ct_window: [-57, 164]`"), ("`DataLoader", "`train.batch_size: 8`"),
                           ("`DiceLoss", "`train.loss: dice`"), ("`torch.optim.Adam", "`optim.max_grad_norm: 0`")]:
        assert setting in _row(monai), (monai, setting)
    cfg = load_config(yaml)
    assert cfg.data.ct_window == (-57.0, 164.0) and tuple(cfg.data.spacing) == (1.5, 1.5, 2.0)
    assert cfg.model.args["norm"] == "batch" and cfg.train.loss == "dice" and cfg.optim.max_grad_norm == 0
    # the defaults the table names: DiceCE, clipping at 12, the validation overlap 0.25, the crop by normalisation
    default = Config()
    assert (default.train.loss, default.optim.max_grad_norm, default.train.sw_overlap) == ("dice_ce", 12.0, 0.25)
    assert "the default, `dice_ce`" in _row("`DiceLoss") and "clipping is on at 12 by default" in _row("`torch.optim")
    assert resolved_crop_foreground(None, "zscore") and not resolved_crop_foreground(None, "ct")
    assert "the default for `zscore`, off for `ct`" in _row("`CropForegroundd")


def test_the_table_names_a_load_exported_that_imports():
    row = _row("`torch.save")
    named = re.search(r"accelerated_seg\.([\w.]+)\.load_exported\(", row)
    assert named, row  # the bare `load_exported` is not in accelerated_seg's namespace
    assert callable(importlib.import_module(f"accelerated_seg.{named.group(1)}").load_exported)
    assert "model, config = " in row  # it returns both, as docs/python_api.md says
