import pytest
import torch

from accelerated_seg.config import ConfigError
from accelerated_seg.models import MODELS, ModelSpec, build_from_spec, model_spec

# Small arguments so every registry entry builds and runs forward/backward in a second or two.
SMALL = {
    "unet": ({"channels": [4, 8, 16], "strides": [2, 2]}, 16),
    "segresnet": ({"init_filters": 8}, 16),
    "swinunetr": ({"feature_size": 12, "depths": [1, 1, 1, 1]}, 64),
    "unetr": ({"hidden_size": 48, "mlp_dim": 96, "num_heads": 4, "feature_size": 8}, 32),
    "dynunet": ({"filters": [8, 16, 32]}, 16),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_every_model_builds_and_trains_one_step(name):
    args, size = SMALL[name]
    spec = model_spec(name, in_channels=2, out_channels=3, patch_size=(size,) * 3, args=args)
    net = build_from_spec(spec)
    out = net(torch.randn(1, 2, size, size, size))
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert out.shape == (1, 3, size, size, size)
    out.float().mean().backward()
    assert all(p.grad is not None for p in net.parameters() if p.requires_grad)
    # The spec is plain JSON data and rebuilds the same network with plain MONAI.
    again = build_from_spec(ModelSpec.from_dict(spec.to_dict()))
    again.load_state_dict(net.state_dict(), strict=True)


def test_unknown_model_and_unknown_argument():
    with pytest.raises(ConfigError, match="model.name 'vnet'"):
        model_spec("vnet", 1, 2, (32, 32, 32))
    with pytest.raises(ConfigError, match="model.args.*chanels"):
        model_spec("unet", 1, 2, (32, 32, 32), {"chanels": [4, 8]})


def test_patch_size_checked_against_the_network_downsampling():
    with pytest.raises(ConfigError, match="data.patch_size .*divisible by"):
        model_spec("unet", 1, 2, (40, 40, 36))  # 4 stride-2 levels need multiples of 16
    with pytest.raises(ConfigError, match="too small"):
        model_spec("swinunetr", 1, 2, (32, 32, 32))
    spec = model_spec("dynunet", 1, 2, (64, 64, 16))  # anisotropic patch -> anisotropic strides
    assert spec.args["strides"][-1][2] == 1
