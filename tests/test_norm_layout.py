"""norm_layout: InstanceNorm run as the identical GroupNorm with one group per channel, which keeps the
channels-last layout (train.channels_last_norm). The same function, the same parameter names, and
fewer layout copies where the weights are channels-last."""

import copy

import pytest
import torch
from monai.networks.nets import DynUNet
from torch import nn

from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.norm_layout import instance_norms_as_group_norms

CHANNELS_LAST = torch.channels_last_3d


def _network(name: str, args: dict, patch: int = 32) -> nn.Module:
    torch.manual_seed(0)
    if name == "dynunet":  # the MLPerf U-Net's blocks (instance norm with affine), three levels: 32³ suffices
        net = DynUNet(3, 1, 3, kernel_size=[3, 3, 3], strides=[1, 2, 2], upsample_kernel_size=[2, 2],
                      filters=[4, 8, 8], norm_name=("INSTANCE", {"affine": True}), res_block=False)
    else:
        net = build_from_spec(model_spec(name, 1, 3, [patch] * 3, args))
    return net.double()


@pytest.mark.parametrize("name, args, norms", [
    ("unet", {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}, 6),  # affine=False
    ("dynunet", {}, 10),  # affine=True
])
def test_the_same_function_gradients_and_parameter_names(name, args, norms):
    plain = _network(name, args)
    swapped = copy.deepcopy(plain)
    assert instance_norms_as_group_norms(swapped) == norms
    assert not any(isinstance(m, nn.modules.instancenorm._InstanceNorm) for m in swapped.modules())
    # checkpoints and exports keep their names and shapes: an export loads into the plain MONAI network
    assert {k: v.shape for k, v in plain.state_dict().items()} == {k: v.shape for k, v in swapped.state_dict().items()}
    x = torch.randn(2, 1, 32, 32, 32, dtype=torch.float64)
    outputs = [net(x) for net in (plain, swapped)]
    torch.testing.assert_close(outputs[1], outputs[0], rtol=1e-10, atol=1e-10)
    for out in outputs:
        (out * torch.linspace(-1, 1, out.numel(), dtype=out.dtype).view_as(out)).sum().backward()
    for (key, a), (_, b) in zip(plain.named_parameters(), swapped.named_parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-8, atol=1e-10, msg=key)


def test_the_norm_keeps_channels_last_where_instance_norm_drops_it():
    x = torch.randn(2, 4, 6, 6, 6).to(memory_format=CHANNELS_LAST)
    norm = nn.InstanceNorm3d(4, affine=True)
    assert not norm(x).is_contiguous(memory_format=CHANNELS_LAST)  # what makes the next convolution copy
    holder = nn.Sequential(norm)
    instance_norms_as_group_norms(holder)
    assert holder[0](x).is_contiguous(memory_format=CHANNELS_LAST)


def test_fewer_activation_copies_in_a_channels_last_step():
    def copies_of_activations(net: nn.Module) -> int:
        net = net.float().to(memory_format=CHANNELS_LAST)
        x = torch.randn(2, 1, 32, 32, 32).to(memory_format=CHANNELS_LAST)
        with torch.profiler.profile(record_shapes=True) as profile:
            net(x).sum().backward()
        return sum(1 for e in profile.events() if e.name == "aten::copy_" and e.input_shapes
                   and len(e.input_shapes[0]) == 5 and e.input_shapes[0][0] == 2)  # (batch, C, D, H, W)

    plain = _network("dynunet", {})
    swapped = copy.deepcopy(plain)
    instance_norms_as_group_norms(swapped)
    assert copies_of_activations(swapped) < copies_of_activations(plain) / 2


def test_norms_with_running_statistics_are_left_alone():
    # GroupNorm keeps no running statistics: in evaluation such a norm would compute another function
    net = nn.Sequential(nn.InstanceNorm3d(4, track_running_stats=True), nn.InstanceNorm3d(4))
    assert instance_norms_as_group_norms(net) == 1
    assert isinstance(net[0], nn.InstanceNorm3d) and isinstance(net[1], nn.GroupNorm)
