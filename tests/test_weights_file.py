"""``train.init_from`` given a plain weights file: a MONAI network's state dict as torch.save or
safetensors wrote it (a MONAI bundle's model.pt, one's own MONAI loop), matched by name and shape."""

import re

import pytest
import torch
from safetensors.torch import load_file, save_file

from accelerated_seg.config import ConfigError
from accelerated_seg.data.errors import DataError
from accelerated_seg.initial_weights import load_initial_weights
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.train import train
from accelerated_seg.weights_file import load_weights_into

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
    # Files that are no pickle at all were a KeyError traceback (text) or "Python objects besides
    # tensors" (a NIfTI, a byte), and an export's config.json the same (seventy-seventh session's probe)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "scan.nii.gz").write_bytes(b"\x1f\x8b\x08\x00")
    for name in ("notes.txt", "scan.nii.gz"):
        with pytest.raises(DataError, match=rf"{name} cannot be read as a PyTorch weights file: it is damaged, "
                                            r"truncated, or not written by torch.save"):
            load_initial_weights(model, spec, tmp_path / name)
    export = tmp_path / "export"
    export.mkdir()
    (export / "model.safetensors").write_bytes(b"")
    (export / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match=rf"is the description of the export in {export}: give the folder"):
        load_initial_weights(model, spec, export / "config.json")
    (tmp_path / "damaged.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(DataError, match=r"damaged.safetensors cannot be read as safetensors"):
        load_initial_weights(model, spec, tmp_path / "damaged.safetensors")


def test_a_file_that_is_no_weights_file_is_refused_by_its_first_bytes_before_the_imports(tmp_path):
    """A train.init_from that is a file passed the check before the imports whatever it held, and a text
    file, an empty one or a NIfTI was refused 3-12 s in, the demo's phantoms already written into the new
    run's folder (the empty file's reason an empty "()"; the ninety-second session's README audit).
    The first bytes tell, without torch: torch.save writes a zip, or a pickle (a tar before torch 0.4),
    safetensors a header that describes the file. Also with train.init_into, which takes a file too."""
    from accelerated_seg.config import TrainConfig
    from accelerated_seg.model_folders import check_init_from, check_initial_weights

    weights = _trained_elsewhere(3)
    torch.save(weights, tmp_path / "weights.pt")
    torch.save(weights, tmp_path / "legacy.pth", _use_new_zipfile_serialization=False)
    save_file(weights, tmp_path / "weights.safetensors")
    for name in ("weights.pt", "legacy.pth", "weights.safetensors"):
        check_initial_weights(tmp_path / name)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "scan.nii.gz").write_bytes(b"\x1f\x8b\x08\x00")
    for name in ("notes.txt", "scan.nii.gz"):
        for train_settings in ({}, {"init_into": "model"}):
            with pytest.raises(DataError, match=rf"^{re.escape(str(tmp_path / name))} cannot be read as a PyTorch "
                                                r"weights file: it is damaged, truncated, or not written by torch.save "
                                                r"\(give a .pt/.pth of a state dict, a .safetensors, or an export "
                                                r"folder\)$"):
                check_init_from(TrainConfig(init_from=str(tmp_path / name), **train_settings))
    (tmp_path / "cut.safetensors").write_bytes((tmp_path / "weights.safetensors").read_bytes()[:300])
    with pytest.raises(DataError, match=r"cut.safetensors cannot be read as safetensors \(.*\): the file is damaged"):
        check_initial_weights(tmp_path / "cut.safetensors")


# What Git leaves of a file it did not fetch without Git LFS, and where DataLad leaves one: a link into .git/annex
LFS_POINTER = ("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1"
               "258daaa5e2ca24d17e2393\nsize 7264\n")
ANNEX_LINK = "../../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.pt/SHA256E-s7264--4d7a.pt"


def test_a_weights_file_never_fetched_is_told_how_to_fetch_it(tmp_path):
    """A .pt/.pth cloned without Git LFS, or installed by DataLad without datalad get, was "cannot be read as a
    PyTorch weights file: damaged, truncated, or not written by torch.save" (the link: "must be an exported model
    folder") until the hundred-and-fifth session, where a safetensors file and a scan were told how to fetch it."""
    from accelerated_seg.config import TrainConfig
    from accelerated_seg.model_folders import check_init_from

    (tmp_path / "lfs.pt").write_text(LFS_POINTER)
    (tmp_path / "annexed.pth").write_text("/annex/objects/SHA256E-s7264--4d7a.pth\n")  # an unlocked file's pointer
    (tmp_path / "models" / "sub").mkdir(parents=True)
    (tmp_path / "models" / "sub" / "linked.pt").symlink_to(ANNEX_LINK)
    (tmp_path / "empty.pt").write_bytes(b"")
    expected = {"lfs.pt": "a Git LFS pointer (the small text file Git leaves in place of a large file it did not "
                          "fetch), not the weights themselves: the repository was cloned without Git LFS; in it, run "
                          "git lfs install && git lfs pull",
                "annexed.pth": "a git-annex pointer file whose content is not fetched",
                "models/sub/linked.pt": "a git-annex link whose content is not fetched (a DataLad dataset, "
                                        "OpenNeuro's, installed without its files): fetch the files with datalad get",
                "empty.pt": "an empty file (0 bytes, e.g. a download or copy that wrote nothing)"}
    for name, words in expected.items():
        for train_settings in ({}, {"init_into": "model"}):
            with pytest.raises(DataError, match=f"^{re.escape(f'{tmp_path / name}: {words}')}"):
                check_init_from(TrainConfig(init_from=str(tmp_path / name), **train_settings))
    (tmp_path / "gone.pt").symlink_to(tmp_path / "elsewhere.pt")  # a link to nothing of no annex: as before
    with pytest.raises(ConfigError, match="must be an exported model folder"):
        check_init_from(TrainConfig(init_from=str(tmp_path / "gone.pt")))
    with pytest.raises(DataError, match=re.escape(f"{tmp_path / 'gone.pt'} is a link to {tmp_path / 'elsewhere.pt'}, "
                                                  f"which does not exist")):
        check_init_from(TrainConfig(init_from=str(tmp_path / "gone.pt"), init_into="model"))


def test_a_safetensors_file_of_another_suffix_is_told_to_take_the_safetensors_one(tmp_path):
    """Weights files are read by their suffix: a safetensors file named model.bin or weights.pt went to
    torch.load, and was told it was damaged, truncated, or not written by torch.save (ninety-second
    session's review), with nothing to say that a rename was all it needed."""
    from accelerated_seg.config import TrainConfig
    from accelerated_seg.model_folders import check_init_from

    save_file(_trained_elsewhere(3), tmp_path / "model.bin")
    with pytest.raises(DataError, match=re.escape(f"{tmp_path / 'model.bin'} is a safetensors file, which is read as "
                                                  f"one by its name: rename it model.safetensors")):
        check_init_from(TrainConfig(init_from=str(tmp_path / "model.bin")))


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


# Self-supervised pretraining gives an encoder alone: MONAI's SwinUNETR SSL weights (model_swinvit.pt)
# hold swinViT's tensors as {"state_dict": {"module.layers1.0.blocks.0.norm1.weight": ...}}, named
# within swinViT; older SSL code named its encoder swin_vit; a state dict filtered to the encoder
# keeps the whole network's names.
SWIN = {"feature_size": 12}


def _swin(channels: int = 1, seed: int = 0, **args):
    spec = model_spec("swinunetr", channels, 3, (64, 64, 64), {**SWIN, **args})
    torch.manual_seed(seed)
    return build_from_spec(spec), spec


@pytest.mark.parametrize("layout", ["ssl_within_part.pt", "old_ssl_name.pt", "filtered.safetensors"])
def test_an_encoder_alone_loads_into_its_part_and_the_rest_starts_as_built(layout, tmp_path):
    pretrained, _ = _swin(seed=3)
    encoder = {name[len("swinViT."):]: value for name, value in pretrained.state_dict().items()
               if name.startswith("swinViT.")}
    path = tmp_path / layout
    if layout == "ssl_within_part.pt":
        torch.save({"state_dict": {f"module.{name}": value for name, value in encoder.items()}, "epoch": 9}, path)
    elif layout == "old_ssl_name.pt":
        torch.save({f"swin_vit.{name}": value for name, value in encoder.items()}, path)
    else:
        save_file({f"swinViT.{name}": value.contiguous() for name, value in encoder.items()}, str(path))
    model, spec = _swin()
    built = {name: value.clone() for name, value in model.state_dict().items()}
    loaded = load_weights_into(model, spec, path, "swinViT")
    assert loaded.read_as_part == ("swin_vit." if layout == "old_ssl_name.pt" else "")
    assert loaded.loaded == sorted(f"swinViT.{name}" for name in encoder) and loaded.spread == []
    assert loaded.as_built == sorted(name for name in built if not name.startswith("swinViT."))
    for name, value in model.state_dict().items():
        expected = pretrained.state_dict()[name] if name.startswith("swinViT.") else built[name]
        assert torch.equal(value, expected), name


def test_a_part_of_one_channel_spreads_over_several_and_unetrs_vit_loads_alike(tmp_path):
    pretrained, _ = _swin(seed=3)
    torch.save({k: v for k, v in pretrained.state_dict().items() if k.startswith("swinViT.")}, tmp_path / "swin.pt")
    model, spec = _swin(channels=2)
    loaded = load_weights_into(model, spec, tmp_path / "swin.pt", "swinViT")
    assert loaded.spread == ["swinViT.patch_embed.proj.weight"]
    torch.testing.assert_close(model.state_dict()["swinViT.patch_embed.proj.weight"],
                               pretrained.state_dict()["swinViT.patch_embed.proj.weight"].repeat(1, 2, 1, 1, 1) / 2)
    args = {"feature_size": 4, "hidden_size": 48, "mlp_dim": 96, "num_heads": 4}
    torch.manual_seed(3)
    vit = build_from_spec(model_spec("unetr", 1, 2, (32, 32, 32), args)).vit.state_dict()
    torch.save({"model": vit}, tmp_path / "vit.pt")
    unetr = build_from_spec(spec := model_spec("unetr", 1, 3, (32, 32, 32), args))
    assert len(load_weights_into(unetr, spec, tmp_path / "vit.pt", "vit").loaded) == len(vit)
    assert all(torch.equal(unetr.vit.state_dict()[name], value) for name, value in vit.items())


def test_an_encoder_alone_is_placed_only_where_asked_and_where_it_fits(tmp_path):
    pretrained, _ = _swin(seed=3)
    encoder = {k[len("swinViT."):]: v for k, v in pretrained.state_dict().items() if k.startswith("swinViT.")}
    torch.save({"state_dict": {f"module.{k}": v for k, v in encoder.items()}}, tmp_path / "ssl.pt")
    model, spec = _swin()
    with pytest.raises(ConfigError, match=r"does not hold the weights of this run's swinunetr .*: 159 of its tensors "
                                          r"are not in the file, .*Every tensor in the file has a place in its part "
                                          r"'swinViT': .*set train.init_into=swinViT to load it there"):
        load_initial_weights(model, spec, tmp_path / "ssl.pt")
    with pytest.raises(ConfigError, match=r"train.init_into='encoder' is not a part of this run's swinunetr \(MONAI "
                                          r"SwinUNETR\), whose parts are swinViT, encoder1, .*, out \(or a module"):
        load_weights_into(model, spec, tmp_path / "ssl.pt", "encoder")
    with pytest.raises(ConfigError, match=r"does not hold encoder1 of this run's swinunetr: 126 of its 126 tensors "
                                          r"have no place in it, e.g. .*; they all fit its part 'swinViT': set "
                                          r"train.init_into=swinViT"):
        load_weights_into(model, spec, tmp_path / "ssl.pt", "encoder1")
    torch.save(pretrained.state_dict(), tmp_path / "whole.pt")
    with pytest.raises(ConfigError, match=r"33 of its 159 tensors have no place in it, e.g. decoder1.*; they all fit "
                                          r"the whole network: leave train.init_into unset"):
        load_weights_into(model, spec, tmp_path / "whole.pt", "swinViT")
    wider, _ = _swin(feature_size=24)
    torch.save({k: v for k, v in wider.state_dict().items() if k.startswith("swinViT.")}, tmp_path / "wider.pt")
    with pytest.raises(ConfigError, match=r"holds swinViT of a swinunetr of another size than this run builds: \d+ "
                                          r"tensor\(s\) differ in shape, e.g. swinViT.*Set model.args"):
        load_weights_into(model, spec, tmp_path / "wider.pt", "swinViT")


def test_a_run_fine_tunes_from_a_part_training_the_rest_alone_first(tiny_config, tmp_path, capsys):
    """The tiny U-Net's first block pretrained alone, loaded with train.init_into=model.0: with
    head_only_steps=2 the block is the file's bit for bit at step 2 while the rest trained, and trains
    from step 3. A resume must name the same part; a run without the file or with an export is refused."""
    pretrained = _trained_elsewhere(3)
    block = {name[len("model.0."):]: value for name, value in pretrained.items() if name.startswith("model.0.")}
    torch.save({"state_dict": block}, tmp_path / "block.pt")
    settings = dict(train__max_steps=3, train__val_every=0, train__save_every=1, train__keep_last=3, optim__lr=1e-2,
                    optim__warmup_steps=0, train__init_into="model.0", train__head_only_steps=2)
    out = tmp_path / "run"
    capsys.readouterr()
    train(tiny_config(out, train__init_from=str(tmp_path / "block.pt"), **settings))
    printed = capsys.readouterr().out
    assert (f"initial weights from {tmp_path / 'block.pt'} (new optimizer and schedule), a weights file loaded into "
            f"model.0: 5 tensors; the network's 21 others start as built (model.1, model.2)") in printed
    assert "the first 2 steps train the layers outside model.0 alone (21 tensors)" in printed
    steps = [load_file(out / "checkpoints" / f"step_{step}" / "model.safetensors") for step in (1, 2, 3)]
    for name, value in block.items():
        assert torch.equal(steps[0][f"model.0.{name}"], value) and torch.equal(steps[1][f"model.0.{name}"], value)
        assert not torch.equal(steps[2][f"model.0.{name}"], value)  # then it trains
    outside = [name for name in steps[0] if not name.startswith("model.0.") and name.endswith(".weight")]
    assert outside and all(not torch.equal(steps[0][name], steps[1][name]) for name in outside)

    resumed = dict(settings, train__resume=str(out / "checkpoints" / "step_2"), train__overwrite="false")
    with pytest.raises(ConfigError, match=r"it trained with train.init_into=model.0, and its optimizer state is "
                                          r"grouped for that by train.head_only_steps; this run asks for None"):
        train(tiny_config(out, **dict(resumed, train__init_into="null")))
    with pytest.raises(ConfigError, match=r"train.init_into=model.0 says which part .* but no train.init_from is "
                                          r"given"):
        train(tiny_config(tmp_path / "without", train__init_into="model.0"))
    with pytest.raises(ConfigError, match=r"train.init_from=.* is a folder \(an export holds a whole network: unset "
                                          r"train.init_into\)"):
        train(tiny_config(tmp_path / "export", train__init_from=str(out / "model"), train__init_into="model.0"))
    torch.save(pretrained, tmp_path / "whole.pt")  # MONAI's UNet: every layer in its one part, `model`
    with pytest.raises(ConfigError, match=r"train.head_only_steps=2 trains the layers outside train.init_into=model "
                                          r"alone, but model holds every parameter of this run's unet"):
        train(tiny_config(tmp_path / "whole", train__init_from=str(tmp_path / "whole.pt"),
                          **dict(settings, train__init_into="model")))
    with pytest.raises(ConfigError, match=r"train.init_from=.*missing.pt' is not there; give the weights file"):
        train(tiny_config(tmp_path / "missing", train__init_from=str(tmp_path / "missing.pt"), train__init_into="vit"))
    # The command that started the run, repeated with a resume, goes on from the checkpoint's weights (the file
    # is not loaded again) though the file is gone: it was refused as not there, as a new run's is
    (tmp_path / "block.pt").unlink()
    assert train(tiny_config(out, train__init_from=str(tmp_path / "block.pt"), **resumed))["step"] == 3
