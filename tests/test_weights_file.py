"""``train.init_from`` given a plain weights file: a MONAI network's state dict as torch.save or
safetensors wrote it (a MONAI bundle's model.pt, one's own MONAI loop), matched by name and shape."""

import pytest
import torch
from safetensors.torch import load_file, save_file

from accelerated_seg.checkpoint import load_initial_weights
from accelerated_seg.config import ConfigError
from accelerated_seg.data.errors import DataError
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.train import train

UNET_ARGS = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}  # conftest's tiny network
HEADS = {"model.2.0.conv.weight", "model.2.0.conv.bias", "model.2.1.conv.unit0.conv.weight",
         "model.2.1.conv.unit0.conv.bias"}


def _trained_elsewhere(classes: int, seed: int = 3) -> dict[str, torch.Tensor]:
    """The state dict of a MONAI UNet as a plain MONAI loop would have it."""
    torch.manual_seed(seed)
    return build_from_spec(model_spec("unet", 1, classes, (16, 16, 16), UNET_ARGS)).state_dict()


def _fresh_unet(classes: int):
    spec = model_spec("unet", 1, classes, (16, 16, 16), UNET_ARGS)
    torch.manual_seed(0)
    return build_from_spec(spec), spec


@pytest.mark.parametrize("layout", ["plain.pt", "ddp_in_checkpoint.pt", "compiled.pth", "plain.safetensors"])
def test_a_state_dict_as_training_scripts_save_it_loads_whole(layout, tmp_path):
    weights = _trained_elsewhere(3)
    path = tmp_path / layout
    if layout == "ddp_in_checkpoint.pt":  # MONAI's CheckpointSaver / Lightning nest it; DDP prefixes every name
        torch.save({"state_dict": {f"module.{k}": v for k, v in weights.items()}, "epoch": 7}, path)
    elif layout == "compiled.pth":  # torch.compile's wrapper, saved under a plain loop's key
        torch.save({"model": {f"_orig_mod.{k}": v for k, v in weights.items()}}, path)
    elif layout.endswith(".safetensors"):
        save_file(weights, str(path))
    else:
        torch.save(weights, path)
    model, spec = _fresh_unet(3)
    assert load_initial_weights(model, spec, path) == ([], [])  # the same classes: nothing starts afresh
    for name, value in model.state_dict().items():
        assert torch.equal(value, weights[name]), name


def test_a_network_registered_twice_loads_from_either_name(tmp_path):
    """DynUNet registers its layers a second time (skip_layers): torch.save writes both names,
    safetensors one; either loads."""
    args = {"filters": [4, 8, 16]}
    torch.manual_seed(3)
    weights = build_from_spec(model_spec("dynunet", 1, 2, (16, 16, 16), args)).state_dict()
    torch.save(weights, tmp_path / "both_names.pt")
    model = build_from_spec(spec := model_spec("dynunet", 1, 2, (16, 16, 16), args))
    assert load_initial_weights(model, spec, tmp_path / "both_names.pt") == ([], [])
    assert all(torch.equal(value, weights[name]) for name, value in model.state_dict().items())


def test_a_run_fine_tunes_a_weights_file_of_another_label_set(tiny_config, tmp_path, capsys):
    """A 3-class MONAI UNet's state dict, fine-tuned on the binarized phantoms: all but the output
    layers are the file's, and the run says that the file records no preprocessing."""
    weights = _trained_elsewhere(3)
    torch.save({"state_dict": weights}, tmp_path / "monai_model.pt")
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=1, train__val_every=0, train__init_from=str(tmp_path / "monai_model.pt"),
                      data__binarize="true", optim__lr=0.0, optim__weight_decay=0.0))
    printed = capsys.readouterr().out
    assert (f"initial weights from {tmp_path / 'monai_model.pt'} (new optimizer and schedule), a weights file "
            f"matched to this run's network by name and shape; it records no preprocessing") in printed
    assert "its output layers start afresh for this run's 2 outputs (4 tensors: model.2.0.conv.bias" in printed
    exported = load_file(out / "model" / "model.safetensors")
    assert {name for name in weights if weights[name].shape != exported[name].shape} == HEADS
    assert all(torch.equal(exported[name], weights[name]) for name in weights.keys() - HEADS)


def test_weights_of_another_network_are_refused_naming_the_difference(tmp_path):
    other_size = build_from_spec(model_spec("unet", 1, 3, (16, 16, 16), {**UNET_ARGS, "channels": [4, 8, 32]}))
    torch.save(other_size.state_dict(), tmp_path / "wider.pt")
    model, spec = _fresh_unet(3)
    with pytest.raises(ConfigError, match=r"holds a unet of another size than this run builds: \d+ tensor\(s\) "
                                          r"differ in shape, e.g. model.1.*in the file.*Set model.args"):
        load_initial_weights(model, spec, tmp_path / "wider.pt")
    segresnet = build_from_spec(model_spec("segresnet", 1, 3, (16, 16, 16), {"init_filters": 8}))
    torch.save(segresnet.state_dict(), tmp_path / "segresnet.pt")
    with pytest.raises(ConfigError, match=r"does not hold the weights of this run's unet \(MONAI UNet\): \d+ of its "
                                          r"tensors are not in the file, e.g. model.0.*; \d+ in the file are not in "
                                          r"it, e.g. convInit.*Set model.name and model.args"):
        load_initial_weights(model, spec, tmp_path / "segresnet.pt")


def test_files_that_are_not_a_state_dict_are_refused_without_unpickling(tmp_path):
    model, spec = _fresh_unet(3)
    torch.save(model, tmp_path / "whole_network.pt")  # a pickled nn.Module: loading it would run code
    with pytest.raises(ConfigError, match=r"holds Python objects besides tensors .* not loaded: unpickling them runs "
                                          r"code. Save the network's weights alone"):
        load_initial_weights(model, spec, tmp_path / "whole_network.pt")
    torch.save({"epoch": 3, "best": torch.tensor(0.9), "weights": {}}, tmp_path / "no_weights.pt")
    with pytest.raises(ConfigError, match=r"holds a dict of 'epoch', 'best', 'weights', not a network's state dict"):
        load_initial_weights(model, spec, tmp_path / "no_weights.pt")
    good = tmp_path / "truncated.pt"
    torch.save(model.state_dict(), good)
    good.write_bytes(good.read_bytes()[:2000])
    with pytest.raises(DataError, match=r"truncated.pt cannot be read as a PyTorch weights file"):
        load_initial_weights(model, spec, good)
    (tmp_path / "damaged.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(DataError, match=r"damaged.safetensors cannot be read as safetensors"):
        load_initial_weights(model, spec, tmp_path / "damaged.safetensors")


def test_a_one_channel_file_spreads_over_several_channels_and_no_other_count_does(tmp_path):
    weights = _trained_elsewhere(3)
    torch.save(weights, tmp_path / "one_channel.pt")
    spec = model_spec("unet", 2, 3, (16, 16, 16), UNET_ARGS)
    model = build_from_spec(spec)
    fresh, spread = load_initial_weights(model, spec, tmp_path / "one_channel.pt")
    assert fresh == [] and spread == ["model.0.conv.unit0.conv.weight", "model.0.residual.weight"]
    for name in spread:
        assert torch.equal(model.state_dict()[name], weights[name].repeat(1, 2, 1, 1, 1) / 2)
    torch.save(model.state_dict(), tmp_path / "two_channels.pt")
    three = model_spec("unet", 3, 3, (16, 16, 16), UNET_ARGS)
    with pytest.raises(ConfigError, match=r"2 tensor\(s\) differ in shape, e.g. model.0.conv.unit0.conv.weight: "
                                          r"\(4, 2, 3, 3, 3\) in the file, \(4, 3, 3, 3, 3\) here.*one channel may "
                                          r"become several"):
        load_initial_weights(build_from_spec(three), three, tmp_path / "two_channels.pt")
