"""Training's loss: the MONAI loss train.loss names, checked before the data work, over every output
a network supervises: DynUNet's deep supervision heads (nnU-Net's way of training) trained, planned and
counted like any other network, and exported as a plain one."""

import json

import monai.losses
import pytest
import torch
from monai.losses import DiceCELoss
from monai.networks.nets import DynUNet
from safetensors.torch import load_file

from accelerated_seg import plan
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.exported_model import load_weights
from accelerated_seg.flops import training_flops_per_sample
from accelerated_seg.losses import (LOSSES, StackedDeepSupervisionLoss, check_loss, segmentation_loss,
                                    supervised_outputs, training_loss)
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.train import train
from conftest import tiny_overrides

PATCH = (32, 32, 32)  # four levels, so up to two heads (MONAI: fewer heads than up-sampling layers)
DEEP = {"filters": [4, 8, 16, 16], "deep_supervision": True, "deep_supr_num": 2}


def _spec(**args):
    return model_spec("dynunet", 1, 3, PATCH, {"filters": [4, 8, 16, 16], **args})


def test_the_outputs_supervised_are_counted_from_the_network_description():
    assert supervised_outputs(None) == 1
    assert supervised_outputs(model_spec("unet", 1, 3, PATCH)) == 1
    assert supervised_outputs(_spec()) == 1
    assert supervised_outputs(_spec(deep_supervision=True)) == 2  # MONAI's default: one head
    assert supervised_outputs(_spec(**DEEP)) == 3
    assert isinstance(training_loss(_spec()), DiceCELoss)
    assert training_loss(_spec(**DEEP)).weights == pytest.approx([4 / 7, 2 / 7, 1 / 7])  # halving, summing to 1


def test_each_output_is_scored_against_the_label_with_halving_weights():
    torch.manual_seed(0)
    network = build_from_spec(_spec(**DEEP)).train()
    image, label = torch.randn(2, 1, *PATCH), torch.randint(0, 3, (2, 1, *PATCH))
    stacked = network(image)
    assert stacked.shape == (2, 3, 3, *PATCH)  # (batch, outputs, classes, *patch)
    dice_ce = DiceCELoss(to_onehot_y=True, softmax=True)
    by_hand = sum(w * dice_ce(stacked[:, i], label) for i, w in enumerate([4 / 7, 2 / 7, 1 / 7]))
    loss_fn = training_loss(_spec(**DEEP))
    torch.testing.assert_close(loss_fn(stacked, label), by_hand)
    loss_fn(stacked, label).backward()
    assert all(p.grad is not None for p in network.parameters() if p.requires_grad)  # every head is trained
    single = network.eval()(image)  # eval mode: the full-resolution logits alone, scored as they are
    torch.testing.assert_close(loss_fn(single, label), dice_ce(single, label))
    assert isinstance(StackedDeepSupervisionLoss(dice_ce, 3), torch.nn.Module)


def test_deep_supervision_trains_exports_a_plain_network_and_is_planned(tiny_dataset, tmp_path):
    """Before, the first step stopped with MONAI's "the number of dimensions for input and target
    should be the same" (the stacked outputs given to DiceCE), and `plan` with the same error."""
    args = "{filters: [4, 8, 16], deep_supervision: true}"  # 16^3 patches: three levels, one head
    out = tmp_path / "run"
    network = {"model.name": "dynunet", "model.args": args}
    summary = train(load_config(None, tiny_overrides(tiny_dataset, out, **network)))
    assert summary["step"] == 4 and all(torch.isfinite(torch.tensor(loss)) for _, loss in summary["losses"])
    config = json.loads((out / "model" / "config.json").read_text())
    network = DynUNet(**config["model"]["args"])  # plain MONAI, heads included
    load_weights(network, out / "model" / "model.safetensors")  # strict; DynUNet names its blocks twice
    assert "deep_supervision_heads.0.conv.conv.weight" in load_file(out / "model" / "model.safetensors")  # trained
    assert network.eval()(torch.zeros(1, 1, 16, 16, 16)).shape == (1, 3, 16, 16, 16)

    facts = plan.measure_model("dynunet", PATCH, "bf16", model_args=DEEP)
    plain = plan.measure_model("dynunet", PATCH, "bf16", model_args={"filters": [4, 8, 16, 16]})
    assert facts.peak["autocast"].at(1) > plain.peak["autocast"].at(1)  # two more full-resolution outputs, losses
    deep_spec, plain_spec = _spec(**DEEP), _spec()
    deep_flops, _ = training_flops_per_sample(build_from_spec(deep_spec), 1, PATCH, training_loss(deep_spec))
    plain_flops, _ = training_flops_per_sample(build_from_spec(plain_spec), 1, PATCH, training_loss(plain_spec))
    assert deep_flops > plain_flops  # the heads' convolutions


@pytest.mark.parametrize("name", LOSSES)
def test_each_loss_is_monais_on_softmax_probabilities_and_one_hot_labels(name):
    loss_fn = segmentation_loss(name)
    assert type(loss_fn) is getattr(monai.losses, LOSSES[name])
    torch.manual_seed(0)
    logits, label = torch.randn(2, 3, 8, 8, 8, requires_grad=True), torch.randint(0, 3, (2, 1, 8, 8, 8))
    value = loss_fn(logits, label)
    assert value.dim() == 0 and torch.isfinite(value)
    perfect = torch.nn.functional.one_hot(label[:, 0], 3).movedim(-1, 1).float() * 40  # confident and right
    assert loss_fn(perfect, label) < value
    deep = training_loss(_spec(**DEEP), name)  # every loss goes over the heads alike
    assert isinstance(deep, StackedDeepSupervisionLoss) and type(deep.deep.loss) is type(loss_fn)


def test_loss_arguments_are_checked_with_the_setting_named():
    focal = segmentation_loss("dice_focal", {"gamma": 1.5, "weight": [0.2, 1.0, 2.0]})
    assert focal.focal.gamma == 1.5 and torch.equal(focal.focal.class_weight.flatten(), torch.tensor([0.2, 1.0, 2.0]))
    check_loss(focal, 3)
    with pytest.raises(ConfigError, match=r"train.loss_args \['gama'\] are not arguments of "
                                          r"monai.losses.DiceFocalLoss"):
        segmentation_loss("dice_focal", {"gama": 2})
    with pytest.raises(ConfigError, match=r"train.loss_args \['reduction', 'sigmoid'\] contradict the run: reduction "
                                          r"is mean, sigmoid is False"):
        segmentation_loss("tversky", {"sigmoid": True, "reduction": "none"})
    assert segmentation_loss("tversky", {"softmax": True}).softmax  # repeating the run's value is fine
    # DiceCE's cross-entropy weighs every class: its hint said to leave the background out where
    # include_background is false, and that weight failed the same way (seventieth session).
    with pytest.raises(ConfigError, match=r"train.loss=dice_ce with train.loss_args cannot score 3 classes "
                                          r"\(background included\): .*length of the `weight`.*one value per class, "
                                          r"the background included \(its cross-entropy scores every class\), "
                                          r"also with include_background: false$") as refused:
        check_loss(segmentation_loss("dice_ce", {"weight": [1.0, 2.0], "include_background": False}), 3, "dice_ce")
    # MONAI's own rule for its Dice part contradicted that hint in the same message (seventy-seventh session)
    assert "should not include the background" not in str(refused.value)
    check_loss(segmentation_loss("dice_ce", {"weight": [1.0, 2.0, 3.0], "include_background": False}), 3, "dice_ce")
    with pytest.raises(ConfigError, match=r"without the background where include_background is false"):
        check_loss(segmentation_loss("dice", {"weight": [1.0, 2.0, 3.0], "include_background": False}), 3, "dice")
    check_loss(segmentation_loss("dice", {"weight": [2.0, 3.0], "include_background": False}), 3, "dice")


def test_train_uses_the_loss_named_and_refuses_a_wrong_one_before_the_preprocessing(tiny_dataset, tmp_path):
    run = tmp_path / "run"
    focal = {"train.loss": "dice_focal", "train.loss_args": "{gamma: 2.0, weight: [0.2, 1.0, 2.0]}",
             "train.max_steps": 2, "train.val_every": 0}
    summary = train(load_config(None, tiny_overrides(tiny_dataset, run, **focal)))
    assert summary["step"] == 2 and all(torch.isfinite(torch.tensor(loss)) for _, loss in summary["losses"])
    assert "loss: dice_focal" in (run / "config.yaml").read_text()
    wrong = {**focal, "train.loss_args": "{weight: [1.0, 2.0]}", "data.cache_dir": str(tmp_path / "cache")}
    with pytest.raises(ConfigError, match=r"cannot score 3 classes"):
        train(load_config(None, tiny_overrides(tiny_dataset, tmp_path / "wrong", **wrong)))
    assert not (tmp_path / "cache").exists() and not (tmp_path / "wrong" / "run_info.json").exists()


@pytest.mark.cuda  # the class weight is a buffer of the loss, which must follow the logits to the GPU
def test_a_class_weight_trains_on_the_gpu(tiny_dataset, tmp_path):
    weighted = {"train.loss": "dice_ce", "train.loss_args": "{weight: [0.2, 1.0, 2.0]}", "train.max_steps": 2,
                "train.val_every": 2}
    summary = train(load_config(None, tiny_overrides(tiny_dataset, tmp_path / "run", **weighted)))
    assert summary["step"] == 2 and "device cuda" in summary["strategy"]  # "device cuda" or "device cuda:0"
