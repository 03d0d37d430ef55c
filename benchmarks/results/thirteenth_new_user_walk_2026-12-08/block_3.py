# docs/python_api.md's Python block 3, as the page gives it
import torch
from accelerate.utils import set_seed
from monai.losses import DiceCELoss
from monai.networks.nets import UNet
from safetensors.torch import load_model
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.train import fit

if __name__ == "__main__":
    set_seed(0)  # the same starting weights on every rank: fit refuses ranks whose weights differ
    model = UNet(3, 1, 2, channels=(8, 16), strides=(2,))
    images, labels = torch.randn(8, 1, 16, 16, 16), torch.randint(0, 2, (8, 1, 16, 16, 16))
    loader = DataLoader(TensorDataset(images, labels), batch_size=2, shuffle=True)  # (image, label) pairs
    result = fit(model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()),
                 max_epochs=2, checkpoint_dir="runs/mine", grad_accum_steps=2, max_grad_norm=12.0)
    print(result["step"], result["preempted"], result["model"])  # 4 False runs/mine/model/model.safetensors
    load_model(model, result["model"])  # full-precision weights, unwrapped: they load strictly
