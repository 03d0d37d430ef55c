# cd /tmp/walk_h130/py2 && PYTHONPATH=/tmp/wt_h130 python walk_9_fit_claims.py   (output: walk_9_fit_claims.txt)
# docs/python_api.md, "Your own model, loader, loss and optimizer": the block's fit again with trackers="tensorboard"
# (page: logs to checkpoint_dir/train/), then resume="latest" with a longer max_steps (page: says the change), then
# a list as the loader (page: refused before anything starts).
import os

import torch
from accelerate.utils import set_seed
from monai.losses import DiceCELoss
from monai.networks.nets import UNet
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.train import fit

if __name__ == "__main__":
    def pieces():
        set_seed(0)
        model = UNet(3, 1, 2, channels=(8, 16), strides=(2,))
        images, labels = torch.randn(8, 1, 16, 16, 16), torch.randint(0, 2, (8, 1, 16, 16, 16))
        loader = DataLoader(TensorDataset(images, labels), batch_size=2, shuffle=True)
        return model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters())

    model, loader, loss, optimizer = pieces()
    result = fit(model, loader, loss, optimizer, max_epochs=2, checkpoint_dir="runs/tb", grad_accum_steps=2,
                 max_grad_norm=12.0, trackers="tensorboard", log_every=1)
    print("--- trackers: runs/tb/train holds", sorted(os.listdir("runs/tb/train")) if os.path.isdir("runs/tb/train")
          else "nothing (no runs/tb/train)", "; step", result["step"])
    model, loader, loss, optimizer = pieces()
    result = fit(model, loader, loss, optimizer, max_steps=6, checkpoint_dir="runs/tb", grad_accum_steps=2,
                 max_grad_norm=12.0, resume="latest")
    print("--- resumed to step", result["step"])
    model, loader, loss, optimizer = pieces()
    try:
        fit(model, list(loader), loss, optimizer, max_epochs=1, checkpoint_dir="runs/list")
    except Exception as error:  # noqa: BLE001 - the walk prints what a user would see
        print(f"--- a list as the loader: {type(error).__name__}: {error}; runs/list made: {os.path.exists('runs/list')}")
