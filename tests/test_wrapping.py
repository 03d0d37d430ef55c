"""Adapting the network to the strategy: blocks, activation checkpointing, FSDP policies, SyncBatchNorm."""

import functools

import pytest
import torch
from accelerate.utils import FullyShardedDataParallelPlugin
from safetensors.torch import load_file

from accelerated_seg.config import ConfigError
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.train import train
from accelerated_seg.wrapping import (
    BLOCK_CLASS_NAMES,
    block_class_names,
    checkpoint_blocks,
    convert_sync_batchnorm,
    fill_fsdp_wrap_classes,
    fsdp_mixed_precision,
    is_block,
    outermost_blocks_fed_gradients,
)

from test_models import SMALL  # tests/ is on sys.path (rootdir-style test imports)

EXPECTED_BLOCKS = {
    "unet": ["ResidualUnit"],
    "segresnet": ["ResBlock"],
    "swinunetr": ["SwinTransformerBlock", "UnetResBlock"],
    "unetr": ["TransformerBlock", "UnetResBlock"],
    "dynunet": ["UnetResBlock", "UnetBasicBlock"],
}


def _small(name):
    args, size = SMALL[name]
    return build_from_spec(model_spec(name, 1, 3, (size,) * 3, args)), size


@pytest.mark.parametrize("name", list(EXPECTED_BLOCKS))
def test_every_registry_network_has_blocks_and_none_nests_another(name):
    model, _ = _small(name)
    assert block_class_names(model) == EXPECTED_BLOCKS[name]
    for block in filter(is_block, model.modules()):
        inner = [m for m in block.modules() if m is not block and is_block(m)]
        assert not inner, f"{type(block).__name__} contains {type(inner[0]).__name__}: checkpointing would nest"


# One sample of the smallest input each network takes: SwinUNETR's deepest stage needs 64 voxels along one axis
# for its norm, 32 do along the others. Its pair of passes on two 64^3 samples took 30 s of the suite's 2 cores.
SMALLEST_INPUT = {"unet": (16, 16, 16), "swinunetr": (64, 32, 32)}


@pytest.mark.parametrize("name", list(SMALLEST_INPUT))
def test_activation_checkpointing_gives_the_same_gradients_and_keeps_the_state_dict_names(name):
    def network():
        return build_from_spec(model_spec(name, 1, 3, SMALLEST_INPUT[name], SMALL[name][0]))

    torch.manual_seed(0)
    plain = network()
    checkpointed = network()
    checkpointed.load_state_dict(plain.state_dict())
    assert checkpoint_blocks(checkpointed) == sum(1 for m in plain.modules() if is_block(m))
    assert checkpointed.state_dict().keys() == plain.state_dict().keys()  # exports load into plain MONAI

    x = torch.randn(1, 1, *SMALLEST_INPUT[name])
    for net in (plain, checkpointed):
        net(x).square().mean().backward()
    for (key, a), b in zip(plain.named_parameters(), checkpointed.parameters()):
        if a.grad is not None:
            torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-7, msg=key)


def test_activation_checkpointing_needs_blocks():
    net = build_from_spec(model_spec("unet", 1, 2, (16,) * 3, {"channels": [4, 8], "strides": [2],
                                                                "num_res_units": 0}))
    with pytest.raises(ConfigError, match="train.activation_checkpointing"):
        checkpoint_blocks(net)


def test_a_class_based_fsdp_policy_gets_the_networks_blocks():
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy

    model, _ = _small("swinunetr")
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap")
    assert fill_fsdp_wrap_classes(plugin, model) == ["SwinTransformerBlock", "UnetResBlock"]
    # accelerate turns the names into its policy: exactly the blocks become FSDP units.
    policy = fsdp2_prepare_auto_wrap_policy(plugin, model)
    assert {type(m).__name__ for m in model.modules() if policy(m)} == {"SwinTransformerBlock", "UnetResBlock"}

    named = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap",
                                           transformer_cls_names_to_wrap=["SwinTransformerBlock"])
    assert fill_fsdp_wrap_classes(named, model) is None  # the profile's own choice stands
    assert named.transformer_cls_names_to_wrap == ["SwinTransformerBlock"]
    size_based = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="size_based_wrap")
    assert fill_fsdp_wrap_classes(size_based, model) is None

    # A class the network does not have: accelerate's ValueError on every rank (under FSDP1 at prepare, after the
    # data work) until the ninety-third session
    foreign = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap",
                                             transformer_cls_names_to_wrap=["SwinTransformerBlock", "LlamaDecoderLayer"])
    with pytest.raises(ConfigError, match=r"^the accelerate config's fsdp_transformer_layer_cls_to_wrap names "
                                          r"LlamaDecoderLayer, which SwinUNETR does not have: name its blocks "
                                          r"\(SwinTransformerBlock, UnetResBlock\), or leave the key out"):
        fill_fsdp_wrap_classes(foreign, model)

    no_blocks = torch.nn.Sequential(torch.nn.Conv3d(1, 2, 3))
    with pytest.raises(ConfigError, match="TRANSFORMER_BASED_WRAP"):
        fill_fsdp_wrap_classes(FullyShardedDataParallelPlugin(fsdp_version=1, auto_wrap_policy="transformer_based_wrap"),
                               no_blocks)


@pytest.mark.parametrize("version", [1, 2])
def test_fsdp_mixed_precision_reduces_and_keeps_buffers_in_fp32(version):
    plugin = FullyShardedDataParallelPlugin(fsdp_version=version)
    plugin.set_mixed_precision("bf16")  # what accelerate does for mixed_precision: bf16
    assert plugin.mixed_precision_policy.reduce_dtype == torch.bfloat16
    fsdp_mixed_precision(plugin, "bf16")
    policy = plugin.mixed_precision_policy
    assert policy.param_dtype == torch.bfloat16 and policy.reduce_dtype == torch.float32
    if version == 1:
        assert policy.buffer_dtype == torch.float32
        assert torch.nn.modules.batchnorm._BatchNorm in policy._module_classes_to_ignore  # fp32 BatchNorm
    untouched = FullyShardedDataParallelPlugin(fsdp_version=version)
    fsdp_mixed_precision(untouched, "no")
    assert untouched.mixed_precision_policy is None


def test_sync_batchnorm_conversion_and_its_refusals():
    def batchnorm_unet():
        return build_from_spec(model_spec("unet", 1, 2, (16,) * 3, {"channels": [4, 8], "strides": [2],
                                                                    "norm": "batch"}))

    plain = batchnorm_unet()
    synced = convert_sync_batchnorm(batchnorm_unet(), torch.device("cuda"), num_processes=2)  # converts, no GPU used
    assert any(isinstance(m, torch.nn.SyncBatchNorm) for m in synced.modules())
    assert synced.state_dict().keys() == plain.state_dict().keys()  # exports still load into plain BatchNorm
    assert convert_sync_batchnorm(plain, torch.device("cpu"), num_processes=1) is plain  # nothing to sync
    with pytest.raises(ConfigError, match="needs GPUs"):
        convert_sync_batchnorm(batchnorm_unet(), torch.device("cpu"), num_processes=2)
    with pytest.raises(ConfigError, match="no BatchNorm"):
        convert_sync_batchnorm(_small("unet")[0], torch.device("cuda"), num_processes=2)


def test_training_with_activation_checkpointing_matches_training_without(tiny_config, tmp_path):
    common = dict(train__max_steps=3, train__val_every=0, train__save_every=0)
    train(tiny_config(tmp_path / "plain", **common))
    summary = train(tiny_config(tmp_path / "ckpt", train__activation_checkpointing="true", **common))
    assert summary["step"] == 3
    a = load_file(tmp_path / "plain" / "model" / "model.safetensors")
    b = load_file(tmp_path / "ckpt" / "model" / "model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=1e-4, atol=1e-6, msg=key)


def test_block_names_are_the_documented_ones():
    assert set(functools.reduce(set.union, map(set, EXPECTED_BLOCKS.values()))) <= set(BLOCK_CLASS_NAMES)


def test_activation_checkpointing_asked_twice_is_an_error(tiny_config, tmp_path):
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import model_for_strategy

    cfg = tiny_config(tmp_path / "run", train__activation_checkpointing="true")
    spec = model_spec("unet", 1, 3, (16,) * 3, {"channels": [4, 8], "strides": [2], "num_res_units": 1})
    # An FSDP launch whose profile also sets fsdp_activation_checkpointing: true.
    accelerator = SimpleNamespace(distributed_type=DistributedType.FSDP, print=print,
                                  state=SimpleNamespace(fsdp_plugin=SimpleNamespace(activation_checkpointing=True)))
    with pytest.raises(ConfigError, match="activation checkpointing is asked twice.*fsdp_activation_checkpointing"):
        model_for_strategy(cfg, spec, accelerator)


# The blocks a ZeRO-3 leaf must not be: they take the image itself, which carries no gradient.
FED_THE_IMAGE = {"unet": ["model.0"], "segresnet": [], "swinunetr": ["encoder1.layer"],
                 "unetr": ["encoder1.layer"], "dynunet": ["input_block"]}


@pytest.mark.parametrize("name", list(FED_THE_IMAGE))
def test_zero3_leaves_are_every_block_but_those_fed_the_image(name):
    model, size = _small(name)
    blocks = [n for n, m in model.named_modules() if is_block(m)]
    leaves = outermost_blocks_fed_gradients(model, (1, 1, size, size, size))
    assert sorted(set(blocks) - set(leaves)) == FED_THE_IMAGE[name]
    assert set(leaves) <= set(blocks)
    assert all(p.device.type == "cpu" for p in model.parameters())  # the probe ran on a copy


def test_no_zero3_leaves_for_checkpointed_blocks():
    model, size = _small("unet")
    checkpoint_blocks(model)
    assert outermost_blocks_fed_gradients(model, (1, 1, size, size, size)) == []
