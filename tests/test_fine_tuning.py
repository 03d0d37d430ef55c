"""Fine-tuning an export on another label set: ``train.init_from`` with another number of outputs
loads every tensor but the output layers, which start as built (nnU-Net's ``-pretrained_weights``)."""

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_model

from accelerated_seg.config import ConfigError
from accelerated_seg.data.errors import DataError
from accelerated_seg.initial_weights import initial_weights_preparation_note, load_weights_adapted
from accelerated_seg.models import MODELS, bridgeable, build_from_spec, model_spec, output_layer_names
from accelerated_seg.preparation import _initial_weights_line
from accelerated_seg.train import train

from conftest import tiny_overrides  # tests/ is on sys.path (rootdir-style test imports)

# The output layers of each registry network, as MONAI names them: what a new label set replaces.
OUTPUT_LAYERS = {"unet": ("model.2.",), "segresnet": ("conv_final.",), "swinunetr": ("out.",), "unetr": ("out.",),
                 "dynunet": ("output_block.",), "unet3d_mlperf": ("output_block.",)}
PATCHES = {"swinunetr": (64, 64, 64), "unet3d_mlperf": (64, 64, 64), "unetr": (32, 32, 32)}
SMALL = {"unet": {"channels": [4, 8, 16], "strides": [2, 2]}, "segresnet": {"init_filters": 8},
         "swinunetr": {"feature_size": 12}, "unetr": {"feature_size": 4, "hidden_size": 48, "mlp_dim": 96,
                                                      "num_heads": 4}}


@pytest.mark.parametrize("name, args", [(name, SMALL.get(name, {})) for name in MODELS]
                         + [("dynunet", {"deep_supervision": True, "deep_supr_num": 2})])
def test_every_network_keeps_all_but_its_output_layers(name, args, tmp_path):
    patch = PATCHES.get(name, (32, 32, 32))
    torch.manual_seed(0)
    exported = build_from_spec(model_spec(name, 1, 3, patch, args))
    save_model(exported, str(tmp_path / "model.safetensors"))  # a tensor registered twice, written once
    torch.manual_seed(1)
    spec = model_spec(name, 1, 2, patch, args)
    model = build_from_spec(spec)
    as_built = {key: value.clone() for key, value in model.state_dict().items()}

    fresh, spread = load_weights_adapted(model, tmp_path / "model.safetensors", spec)
    assert spread == []
    assert set(fresh) == output_layer_names(spec)  # what train.head_only_steps trains alone, also on a resume

    heads = OUTPUT_LAYERS[name] + (("deep_supervision_heads.",) if args.get("deep_supervision") else ())
    # DynUNet registers each deep-supervision head twice, the second time as skip_layers...super_head
    assert fresh and all(key.startswith(heads) or ".super_head." in key for key in fresh), fresh
    assert {head.split(".")[0] for head in heads} <= {key.split(".")[0] for key in fresh}  # every head
    saved = exported.state_dict()
    for key, value in model.state_dict().items():
        torch.testing.assert_close(value, as_built[key] if key in fresh else saved[key], rtol=0, atol=0, msg=key)
    with torch.no_grad():
        outputs = model(torch.zeros(1, 1, *patch))
    assert outputs.shape[-4] == 2  # the classes; deep supervision stacks its heads before them: (1, 3, 2, X, Y, Z)


def test_a_shape_the_outputs_do_not_explain_is_a_damaged_export(tmp_path):
    """A weights file that is not its config.json's network is refused, not loaded with gaps."""
    args = SMALL["unet"]
    save_model(build_from_spec(model_spec("unet", 1, 3, (16, 16, 16), {**args, "channels": [4, 8, 32]})),
               str(tmp_path / "model.safetensors"))  # config.json would say [4, 8, 16]
    model = build_from_spec(spec := model_spec("unet", 1, 2, (16, 16, 16), args))
    with pytest.raises(DataError, match=r"model.safetensors does not hold the weights of the network its config.json "
                                        r"describes \(model.1.submodule.1.submodule.conv.unit0.conv.bias \(32,\) in "
                                        r"the file, \(16,\) here; .*; 4 more: shapes that neither another number of "
                                        r"outputs nor of channels explains\)"):
        load_weights_adapted(model, tmp_path / "model.safetensors", spec)


def test_an_export_of_the_runs_network_whose_weights_are_of_another_size_names_both_files(tmp_path):
    """init_from an export whose config.json is this run's network but whose model.safetensors is not (a config.json
    copied from another export) was torch's size-mismatch list, cut short, until the ninety-third session."""
    from test_inference import export

    from accelerated_seg.initial_weights import load_initial_weights

    saved = export(tmp_path / "model")  # channels [4, 8, 16], 1 channel, 3 classes
    config = json.loads((saved / "config.json").read_text())
    config["model"]["args"]["channels"] = [4, 8, 32]
    (saved / "config.json").write_text(json.dumps(config))
    args = {key: value for key, value in config["model"]["args"].items()
            if key not in ("spatial_dims", "in_channels", "out_channels")}
    # the run's network, and the ones it is bridged to: other classes, one channel made two. The bridged
    # ones named one tensor, not config.json, until the ninety-third session
    for channels, classes in ((1, 3), (1, 2), (2, 3)):
        spec = model_spec("unet", channels, classes, config["patch_size"], args)
        with pytest.raises(DataError, match=r"config.json does not describe the network whose weights "
                                            r".*model.safetensors holds: model.1.submodule.1.submodule.conv.unit0."
                                            r"conv.weight \(16, 8, 3, 3, 3\) in the file, \(32, 8, 3, 3, 3\) as "
                                            r"config.json builds it; .*; 2 more tensors of other shapes\. .*copy both "
                                            r"files again from the same export$"):
            load_initial_weights(build_from_spec(spec), spec, saved)


def test_only_other_outputs_and_one_channel_made_several_are_bridged():
    spec = model_spec("unet", 1, 3, (16, 16, 16), SMALL["unet"])
    assert bridgeable(spec, model_spec("unet", 1, 2, (16, 16, 16), SMALL["unet"]))  # other classes
    assert bridgeable(spec, model_spec("unet", 4, 3, (16, 16, 16), SMALL["unet"]))  # one channel spread over 4
    assert bridgeable(spec, model_spec("unet", 4, 2, (16, 16, 16), SMALL["unet"]))  # both
    assert not bridgeable(spec, spec)  # the same network: loaded whole
    two = model_spec("unet", 2, 3, (16, 16, 16), SMALL["unet"])
    assert not bridgeable(two, model_spec("unet", 3, 3, (16, 16, 16), SMALL["unet"]))  # which is the new channel like?
    assert not bridgeable(two, spec)  # nor fewer channels
    assert not bridgeable(spec, model_spec("unet", 1, 2, (16, 16, 16), {**SMALL["unet"], "num_res_units": 1}))
    assert not bridgeable(spec, model_spec("segresnet", 1, 2, (16, 16, 16), {}))


@pytest.mark.parametrize("name, args", [(name, SMALL.get(name, {})) for name in MODELS])
def test_one_channel_spread_over_several_answers_copies_of_an_image_as_the_image(name, args, tmp_path):
    """Each registry network pretrained on one channel, loaded for three: its input layers' weights
    repeated and divided by 3, so three copies of an image give the one-channel network's output."""
    patch = PATCHES.get(name, (32, 32, 32))
    torch.manual_seed(0)
    pretrained = build_from_spec(model_spec(name, 1, 2, patch, args)).eval()
    save_model(pretrained, str(tmp_path / "model.safetensors"))
    model = build_from_spec(spec := model_spec(name, 3, 2, patch, args)).eval()
    fresh, spread = load_weights_adapted(model, tmp_path / "model.safetensors", spec)
    assert fresh == [] and spread and all(model.state_dict()[key].shape[1] == 3 for key in spread)
    image = torch.randn(1, 1, *patch)
    with torch.no_grad():
        torch.testing.assert_close(model(image.repeat(1, 3, 1, 1, 1)), pretrained(image), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("max_steps, suggested", [(1000, 50), (150, 50), (40, 13), (3, 1), (2, None)])
def test_the_head_only_suggestion_fits_the_runs_length(tiny_config, tmp_path, max_steps, suggested):
    """50 head-only steps were suggested whatever the run's length, so a 40-step run was told to
    take a setting it then refused (not below train.max_steps); up to a third of a run only helped
    where docs/checkpoints.md measured it."""
    cfg = tiny_config(train__max_steps=max_steps, train__init_from=str(tmp_path / "pretrained"))
    line = _initial_weights_line(cfg, model_spec("unet", 1, 2, (16, 16, 16)), ["model.2.0.conv.bias"], [])
    if suggested is None:
        assert "head_only_steps" not in line
    else:
        assert f"; --train.head_only_steps={suggested} would train them alone first" in line


def test_a_binarized_export_fine_tuned_on_every_class_is_not_warned_of_its_label_mapping(tiny_config, tmp_path):
    """binarize maps the labels, which a new label set changes and the warning leaves out, as label_map: a
    binarized export fine-tuned on every class was warned "binarize: True there, None here", told to set
    data settings that do not include it (the ninety-second session's README audit)."""
    binarized = tmp_path / "binarized"
    train(tiny_config(binarized, train__max_steps=1, train__val_every=0, data__binarize="true"))
    export = json.loads((binarized / "model" / "config.json").read_text())
    assert export["preprocessing"]["binarize"] is True
    every_class = {key: value for key, value in export["preprocessing"].items() if key not in ("binarize", "label_map")}
    assert initial_weights_preparation_note(binarized / "model", every_class, {0: "MRI"}) is None


def test_a_run_fine_tunes_an_export_on_another_label_set(tiny_config, tmp_path, capsys):
    """A 3-class export (background, ventricles, lesion) fine-tuned on the same phantoms binarized."""
    first = tmp_path / "first"
    train(tiny_config(first, train__max_steps=2, train__val_every=0))
    # lr 0 and no decay: what the second run exports is what it started from
    second = tmp_path / "second"
    capsys.readouterr()
    train(tiny_config(second, train__max_steps=2, train__val_every=2, train__init_from=str(first / "model"),
                      data__binarize="true", optim__lr=0.0, optim__weight_decay=0.0))
    printed = capsys.readouterr().out
    assert "its output layers start afresh for this run's 2 outputs (4 tensors: model.2.0.conv.bias, " in printed
    assert "head_only_steps" not in printed  # a 2-step run is too short to hold anything back (below)
    assert "warning: train.init_from" not in printed  # prepared as the export's were; the label mapping is no matter

    before, after = load_file(first / "model" / "model.safetensors"), load_file(second / "model" / "model.safetensors")
    assert before.keys() == after.keys()
    fresh = {key for key in before if before[key].shape != after[key].shape}
    assert fresh == {"model.2.0.conv.weight", "model.2.0.conv.bias", "model.2.1.conv.unit0.conv.weight",
                     "model.2.1.conv.unit0.conv.bias"}
    assert all(torch.equal(before[key], after[key]) for key in before.keys() - fresh)
    exported = json.loads((second / "model" / "config.json").read_text())
    assert exported["model"]["args"]["out_channels"] == 2

    # Volumes prepared otherwise than the export's: fine-tuning goes on, and says what differs
    train(tiny_config(tmp_path / "respaced", train__max_steps=1, train__val_every=0, data__spacing="[2.5,2.5,2.5]",
                      data__normalization="ct", train__init_from=str(first / "model")))
    assert (f"warning: train.init_from={str(first / 'model')!r} learned from volumes prepared otherwise than this "
            f"run's (crop_foreground: True there, False here; normalization: zscore there, ct here; "  # ct: no crop
            f"spacing: [2.0, 2.0, 2.0] there, [2.5, 2.5, 2.5] here); "
            f"fine-tuning goes on under this run's.") in capsys.readouterr().out
    export = json.loads((first / "model" / "config.json").read_text())
    assert export["channels"] == {"0": "MRI"}
    note = initial_weights_preparation_note  # channels compared by name, where both sides name theirs
    assert "(channel 0: MRI there, CT here)" in note(first / "model", export["preprocessing"], {0: "CT"})
    assert note(first / "model", export["preprocessing"], {0: "mri"}) is None
    assert note(first / "model", export["preprocessing"], {0: "image"}) is None  # pairs and CSV tables name none
    assert note(tmp_path, export["preprocessing"], {0: "CT"}) is None  # no export: load_initial_weights says so

    # Anything else that differs is still refused, and says that the classes may differ
    with pytest.raises(ConfigError, match=r"holds another network than this run builds \(model.args.num_res_units: "
                                          r"1 in the export, 2 here.*the classes may differ: the output layers then "
                                          r"start afresh"):
        train(tiny_config(tmp_path / "other", train__init_from=str(first / "model"), data__binarize="true",
                          model__args="{channels: [4, 8, 16], strides: [2, 2], num_res_units: 2}"))


# The output layers of the tests' tiny U-Net (conftest.tiny_overrides): what a binarized run replaces.
TINY_UNET_OUTPUT_LAYERS = {"model.2.0.conv.weight", "model.2.0.conv.bias", "model.2.1.conv.unit0.conv.weight",
                           "model.2.1.conv.unit0.conv.bias"}


def test_head_only_steps_train_the_new_output_layers_alone_then_the_whole_network(tiny_config, tmp_path, capsys):
    """train.head_only_steps=2: at step 2 every tensor but the new output layers is still the export's,
    bit for bit (AdamW with weight decay, at rate 0); step 3 trains them all. A resume keeps the groups."""
    first = tmp_path / "first"
    train(tiny_config(first, train__max_steps=2, train__val_every=0))
    exported = load_file(first / "model" / "model.safetensors")
    heads = TINY_UNET_OUTPUT_LAYERS
    settings = dict(train__max_steps=3, train__val_every=0, train__save_every=2, data__binarize="true",
                    optim__lr=1e-2, optim__weight_decay=0.05, optim__warmup_steps=0, train__head_only_steps=2)
    second = tmp_path / "second"
    capsys.readouterr()
    train(tiny_config(second, train__init_from=str(first / "model"), **settings))
    printed = capsys.readouterr().out
    assert ("the first 2 steps train the output layers alone (4 tensors); the rest of the network then joins them "
            "(train.head_only_steps)") in printed
    assert "would train them alone first" not in printed  # it does

    at_step_2 = load_file(second / "checkpoints" / "step_2" / "model.safetensors")
    assert all(torch.equal(at_step_2[key], exported[key]) for key in exported.keys() - heads)
    at_step_3 = load_file(second / "model" / "model.safetensors")
    assert all(not torch.equal(at_step_3[key], at_step_2[key]) for key in heads)
    trained = [key for key in exported.keys() - heads if not torch.equal(at_step_3[key], exported[key])]
    assert len(trained) > len(exported) // 2, trained  # the rest joined at step 3 (norm weights among them)

    # A resume rebuilds the two groups from the network alone (it has no export to compare) and ends alike
    resumed = dict(settings, train__resume=str(second / "checkpoints" / "step_2"), train__output_dir=str(second))
    train(tiny_config(**resumed, train__overwrite="false"))
    again = load_file(second / "model" / "model.safetensors")
    for key, value in at_step_3.items():
        torch.testing.assert_close(again[key], value, msg=key)
    with pytest.raises(ConfigError, match=r"it trained with train.head_only_steps=2, and its optimizer state is "
                                          r"grouped for that; this run asks for 0. Resume with "
                                          r"train.head_only_steps=2"):
        train(tiny_config(**dict(resumed, train__head_only_steps=0)))


def test_head_only_steps_need_new_output_layers_and_steps_after_them(tiny_config, tmp_path):
    with pytest.raises(ConfigError, match=r"train.head_only_steps=5 trains the output layers of a fine-tuning run "
                                          r"alone, but this run starts a new network"):
        train(tiny_config(tmp_path / "new", train__head_only_steps=5))
    first = tmp_path / "first"
    train(tiny_config(first, train__max_steps=1, train__val_every=0))
    with pytest.raises(ConfigError, match=r"train.head_only_steps=4 is not below train.max_steps=4"):
        train(tiny_config(tmp_path / "long", train__max_steps=4, train__head_only_steps=4,
                          train__init_from=str(first / "model"), data__binarize="true"))
    with pytest.raises(ConfigError, match=r"train.head_only_steps=1 trains the output layers that start afresh alone, "
                                          r"but every layer of .* fits this run's network \(the same 3 outputs\)"):
        train(tiny_config(tmp_path / "same", train__max_steps=2, train__head_only_steps=1,
                          train__init_from=str(first / "model")))


def test_head_only_steps_under_fsdp1_need_the_original_parameters():
    """FSDP1's flat parameters hold the output layers and the rest together: refused unless it keeps
    the original parameters (the shipped FSDP1 profiles do); FSDP2 and the others keep them anyway."""
    from types import SimpleNamespace

    from accelerated_seg.preparation import check_groups_apart

    with pytest.raises(ConfigError, match=r"train.head_only_steps under FSDP1 needs fsdp_use_orig_params: true"):
        check_groups_apart(SimpleNamespace(fsdp_version=1, use_orig_params=False))
    check_groups_apart(SimpleNamespace(fsdp_version=1, use_orig_params=True))
    check_groups_apart(SimpleNamespace(fsdp_version=2, use_orig_params=False))
    check_groups_apart(None)  # not FSDP
    # docs/checkpoints.md lists the refusal and its way on (the hundred-and-eighteenth session's rewrite left them out)
    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "checkpoints.md").read_text().split())
    assert "an FSDP1 profile without `fsdp_use_orig_params: true` (set it, or use an FSDP2 profile)" in page


@pytest.mark.distributed
@pytest.mark.parametrize("profile", [None, "fsdp2_blocks"], ids=["ddp", "fsdp2"])
def test_head_only_steps_hold_the_rest_of_the_network_over_two_processes(tiny_dataset, tiny_config, tmp_path,
                                                                         profile):
    """train.head_only_steps' two param groups through what each strategy does to the parameters over
    two processes (ZeRO-3's partitions: test_deepspeed_cpu.py; FSDP1's flat parameters: below): DDP's
    bucketed all-reduce, and FSDP2's sharded parameters, which accelerate puts in the optimizer in place
    of the network's. At step 2 every tensor but the new output layers is still the export's, bit for
    bit; step 3 trains them too."""
    from accelerated_seg.checkpoint_export import export_checkpoint

    from test_distributed import launch_two

    first = tmp_path / "first"  # a 3-class export, fine-tuned below on the binarized phantoms
    train(tiny_config(first, train__max_steps=1, train__val_every=0))
    exported = load_file(first / "model" / "model.safetensors")
    out = tmp_path / "fine_tuned"
    results = launch_two(tmp_path / "result", tiny_overrides(
        tiny_dataset, out, train__max_steps=3, train__val_every=0, train__save_every=2,
        train__init_from=str(first / "model"), train__head_only_steps=2, data__binarize="true", optim__lr=1e-2,
        optim__weight_decay=0.05, optim__warmup_steps=0), fsdp_profile=profile)
    assert all(r["strategy"].startswith("FSDP" if profile else "DDP") for r in results), results[0]["strategy"]
    export_checkpoint(out / "checkpoints" / "step_2", tmp_path / "at_step_2")  # FSDP's shards gathered
    at_step_2 = load_file(tmp_path / "at_step_2" / "model.safetensors")
    at_step_3 = load_file(out / "model" / "model.safetensors")
    assert {key for key in exported if exported[key].shape != at_step_3[key].shape} == TINY_UNET_OUTPUT_LAYERS
    rest = exported.keys() - TINY_UNET_OUTPUT_LAYERS
    assert all(torch.equal(at_step_2[key], exported[key]) for key in rest)
    assert all(not torch.equal(at_step_2[key], at_step_3[key]) for key in TINY_UNET_OUTPUT_LAYERS)
    trained = [key for key in rest if not torch.equal(at_step_3[key], exported[key])]
    assert len(trained) > len(exported) // 2, trained  # the rest joined at step 3
    if profile is not None:  # a shard deleted afterwards: one error naming the checkpoint, not DCP's traceback
        from accelerated_seg.data.errors import DataError

        damaged = shutil.copytree(out / "checkpoints" / "step_2", tmp_path / "damaged" / "step_2")
        (shard,) = list((damaged / "pytorch_model_fsdp_0").glob("__1_*.distcp"))
        shard.unlink()
        with pytest.raises(DataError, match=r"checkpoint .*step_2 is damaged: its sharded weights "
                                            r"pytorch_model_fsdp_0/ cannot be read \(FileNotFoundError"):
            export_checkpoint(damaged, tmp_path / "from_damaged")
        assert not (tmp_path / "from_damaged").exists()


def test_head_only_steps_hold_the_rest_inside_fsdp1s_flat_parameters(one_process_group):
    """FSDP1 with use_orig_params (as the shipped FSDP1 profiles set it) flattens each unit's parameters
    into one and gives the optimizer views into it: the two groups of train.head_only_steps still step
    at their own rates. (accelerate's FSDP1 does not run on CPU processes, so torch's FSDP1 is applied
    here as accelerate applies it, in one process: its NO_SHARD path, flat parameters all the same.)"""
    from accelerate.utils import FullyShardedDataParallelPlugin
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    from accelerated_seg.config import OptimConfig
    from accelerated_seg.optimizers import build_optimizer, parameter_groups
    from accelerated_seg.schedule import lr_multipliers

    spec = model_spec("unet", 1, 2, (16, 16, 16), {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
    torch.manual_seed(0)
    model = build_from_spec(spec)
    heads = output_layer_names(spec)
    before = {name: value.clone() for name, value in model.state_dict().items()}
    trained_alone = [parameter for name, parameter in model.named_parameters() if name in heads]
    plugin = FullyShardedDataParallelPlugin(fsdp_version=1, auto_wrap_policy="size_based_wrap", min_num_params=100)
    plugin.set_auto_wrap_policy(model)
    wrapped = FSDP(model, auto_wrap_policy=plugin.auto_wrap_policy, device_id=torch.device("cpu"),
                   use_orig_params=True)
    assert sum(isinstance(m, FSDP) for m in wrapped.modules()) > 1  # the output layers share a flat parameter
    optim = OptimConfig(lr=1e-2, weight_decay=0.05, warmup_steps=0)
    # built on the wrapped network, as accelerate's prepare leaves it: the original parameters, as views
    optimizer = build_optimizer(parameter_groups(wrapped, trained_alone), optim, optim.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_multipliers(optim, 10, head_only_steps=2))
    states = []
    for _ in range(3):
        wrapped(torch.randn(2, 1, 16, 16, 16)).square().mean().backward()
        optimizer.step(), scheduler.step(), optimizer.zero_grad()
        with FSDP.summon_full_params(wrapped):
            states.append({name: value.clone() for name, value in model.state_dict().items()})
    rest = before.keys() - heads
    assert all(torch.equal(states[1][name], before[name]) for name in rest)  # held at rate 0 for two steps
    assert all(not torch.equal(states[1][name], before[name]) for name in heads)
    trained = [name for name in rest if not torch.equal(states[2][name], before[name])]
    assert len(trained) > len(rest) // 2, trained  # then the rest joins


def test_checkpoints_md_gives_the_channel_spreads_early_dice_as_measured():
    """docs/checkpoints.md's "Measured" gives the one-channel export spread over two channels against a new network
    at step 50 and, for the opposite channel, by step 150; the hundred-and-eighteenth session's rewrite made the
    opposite's step 50 "0.00 for both" (the new network's seed 1 had 0.04) and had the spread "overtaken" where it
    overtook (its review)."""
    root = Path(__file__).resolve().parents[1]
    runs = json.loads((root / "benchmarks/results/finetune_channels_session_2026-11-28e/summary.json").read_text())
    dice = {name: run["validation_dice_by_step"] for name, run in runs["runs"].items()}

    def at(arm: str, step: int) -> str:
        return ", ".join(f"{dice[f'{arm}_seed{seed}'][str(step)]:.2f}" for seed in (0, 1))

    page = " ".join((root / "docs" / "checkpoints.md").read_text(encoding="utf-8").split())
    assert (f"at step 50, {at('similar_spread', 50)} against {at('similar_new', 50)} (similar), and "
            f"{at('inverted_spread', 50)} against {at('inverted_new', 50)} (opposite), the spread export ahead by step "
            f"150 ({at('inverted_spread', 150)} against {at('inverted_new', 150)})") in page
