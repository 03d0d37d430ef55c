# source env.sh && cd $T/w2 && python $HERE/walk_9_lower_level.py > $HERE/walk_9_lower_level.txt 2>&1
# The table's lower-level calls on the walk's own tiny cases: .loader() (what a batch holds), .config() and
# Dataset.fit(config) with its model edited (the page: "train on a config it made and you edited (its model, say)"),
# the returned summary; "a process left as found" (random generators, accelerate's state, one's own Accelerator
# after); multi_gpu=True with no GPU ("with fewer than 2 GPUs it trains in the calling process").
import random
import shutil
from pathlib import Path

import numpy as np
import torch

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]

if __name__ == "__main__":
    shutil.rmtree("w9", ignore_errors=True)
    data = Dataset.from_files(good[:5], block_shape=16, n_classes=3, validation_pairs=[good[5]]).batch(2)
    loader = data.loader(num_workers=0)
    batch = next(iter(loader))
    print("loader:", type(loader).__name__, "len", len(loader), "batch keys", sorted(batch),
          {k: tuple(v.shape) for k, v in batch.items() if hasattr(v, "shape")})
    cfg = data.config(max_steps=2, val_every=2, trackers="none", progress_bar=False, warmup_steps=0,
                      output_dir="w9/dataset_fit")
    print("config:", type(cfg).__name__, cfg.model.name, cfg.train.max_steps, cfg.train.batch_size)
    cfg.model.name, cfg.model.args = "segresnet", {"init_filters": 8, "blocks_down": [1, 1], "blocks_up": [1]}
    before = (random.getstate(), np.random.get_state()[1][:4].tolist(), torch.random.get_rng_state().sum().item())
    summary = data.fit(cfg)
    after = (random.getstate(), np.random.get_state()[1][:4].tolist(), torch.random.get_rng_state().sum().item())
    print("Dataset.fit returned:", type(summary).__name__, sorted(summary)[:14])
    print("its export's network:", (Path("w9/dataset_fit/model/config.json").read_text().split('"monai_class": ')[1]
                                    .split(",")[0]))
    print("random generators put back:", before == after)
    from accelerate.state import AcceleratorState, PartialState

    print("accelerate's state after:", AcceleratorState._shared_state or "none", PartialState._shared_state or "none")
    from accelerate import Accelerator

    print("one's own Accelerator after it:", Accelerator(mixed_precision="no").mixed_precision)
    model = Segmentation("unet", model_args={"channels": [4, 8], "strides": [2]}, multi_gpu=True,
                         output_dir="w9/multi_gpu", trackers="none", progress_bar=False, warmup_steps=0)
    model.fit(data, steps=2)
    print("multi_gpu=True, no GPU:", model)
