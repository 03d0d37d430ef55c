import base64
import json
import re
import shlex
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
import torch

from accelerated_seg import plan
from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError, OptimConfig
from accelerated_seg.models import build_from_spec, meta_network, model_spec

# The MLPerf U-Net's structure with tiny widths: the smallest patch it takes (64^3) stays cheap on a CPU.
SMALL_ARGS = {"filters": [4, 8, 8, 8, 8, 8]}
PATCH = (64, 64, 64)


@pytest.fixture(scope="module")
def facts():
    return plan.measure_model("unet3d_mlperf", PATCH, "bf16", model_args=SMALL_ARGS)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_meta_measurement_equals_a_real_cpu_run(precision):
    """Meta tensors with emulated CUDA autocast save and peak exactly as a CPU run under torch.autocast."""
    spec = model_spec("unet3d_mlperf", 1, 3, PATCH, SMALL_ARGS)
    on_meta = plan.measure_step(meta_network(spec), 1, 2, PATCH, precision)
    torch.manual_seed(0)
    on_cpu = plan.measure_step(build_from_spec(spec), 1, 2, PATCH, precision)
    assert on_meta.saved == on_cpu.saved
    assert on_meta.peak == on_cpu.peak
    assert on_meta.peak > on_meta.saved  # gradients of activations, input, loss temporaries come on top


def test_saved_bytes_are_what_autograd_keeps():
    """Adding an instance norm after a convolution saves the norm's input and its per-channel statistics."""
    def conv():
        return torch.nn.Conv3d(1, 3, 3, padding=1, bias=False, device="meta")

    batch, size = 2, (16, 16, 16)
    alone = plan.measure_step(torch.nn.Sequential(conv()), 1, batch, size, "fp32")
    normed = plan.measure_step(torch.nn.Sequential(conv(), torch.nn.InstanceNorm3d(3)), 1, batch, size, "fp32")
    conv_output = batch * 3 * 16**3 * 4
    mean_and_inverse_std = 2 * batch * 3 * 4
    assert normed.saved - alone.saved == conv_output + mean_and_inverse_std


def test_activations_grow_linearly_with_batch_and_voxels():
    spec = model_spec("unet3d_mlperf", 1, 3, PATCH, SMALL_ARGS)
    steps = [plan.measure_step(meta_network(spec), 1, b, PATCH, "bf16") for b in (1, 2, 3)]
    assert steps[2].saved - steps[1].saved == steps[1].saved - steps[0].saved > 0
    assert steps[2].peak - steps[1].peak == steps[1].peak - steps[0].peak > 0
    line = plan.PerBatch.through(steps[0].saved, steps[1].saved)
    assert line.at(3) == steps[2].saved
    big = (128, 128, 128)
    large = plan.measure_step(meta_network(model_spec("unet3d_mlperf", 1, 3, big, SMALL_ARGS)), 1, 1, big, "fp32")
    small = plan.measure_step(meta_network(spec), 1, 1, PATCH, "fp32")
    assert large.saved / small.saved == pytest.approx(8, rel=0.01)  # per-channel statistics do not scale


def test_the_measurement_builds_the_network_once_and_steps_copies_of_it(facts, monkeypatch):
    """Each of the four bf16 steps was measured on a network built anew, SwinUNETR's 0.3-1 s each on 2 cores (the
    CPU run's memory check makes this measurement before its first step); a copy of the one built measures the
    same (ninety-ninth session)."""
    builds = []
    monkeypatch.setattr(plan, "meta_network", lambda spec: builds.append(spec) or meta_network(spec))
    again = plan.measure_model("unet3d_mlperf", PATCH, "bf16", model_args=SMALL_ARGS)
    assert len(builds) == 1
    assert again == facts


def test_mixed_precision_halves_the_convolution_activations(facts):
    fp32 = plan.measure_model("unet3d_mlperf", PATCH, "fp32", model_args=SMALL_ARGS)
    ratio = facts.saved["autocast"].per_sample / fp32.saved["autocast"].per_sample
    assert 0.5 <= ratio < 0.65  # conv and norm outputs in bf16; the loss and norm statistics stay fp32
    model = meta_network(facts.spec)
    conv_params = sum(p.numel() for m in model.modules() if isinstance(m, (torch.nn.Conv3d, torch.nn.ConvTranspose3d))
                      for p in m.parameters())
    assert facts.weight_copies == 2 * conv_params  # autocast's bf16 copy of each conv weight, once; norms stay fp32


def test_strategies_order_sensibly(facts):
    n = 8
    table = plan.estimate(facts, batch=2, gpus=n)

    def states(strategy):
        c = table[strategy].components
        return c["parameters"] + c["gradients"] + c["optimizer"]

    assert states("zero3") <= states("zero2") <= states("zero1") <= states("ddp")
    assert states("zero3_offload") == 0
    ddp, full = table["ddp"].components, table["fsdp_full_shard"].components
    for component in ("parameters", "gradients", "optimizer"):
        assert full[component] == pytest.approx(ddp[component] / n, abs=1)
    assert table["fsdp_shard_grad_op"].components["gradients"] == full["gradients"]
    assert table["fsdp_no_shard"].components["optimizer"] == ddp["optimizer"]
    # Activations are never sharded; FSDP only drops autocast's weight copies.
    assert ddp["activations"] - full["activations"] == facts.weight_copies
    # One process runs without DDP: no gradient buckets, no NCCL.
    alone = plan.estimate(facts, batch=2, gpus=1)["ddp"].components
    assert alone["communication"] == 0 and alone["overhead"] < ddp["overhead"]


def test_the_optimizer_state_counted_is_the_chosen_optimizers(facts, tmp_path, capsys):
    """AdamW keeps two fp32 moments per parameter, SGD one momentum buffer, plain SGD nothing: with
    nnU-Net's SGD the plan counted AdamW's state until the forty-eighth session."""
    P = facts.trainable
    sgd = plan.measure_model("unet3d_mlperf", PATCH, "bf16", model_args=SMALL_ARGS, optim=OptimConfig(optimizer="sgd"))
    plain = plan.measure_model("unet3d_mlperf", PATCH, "bf16", model_args=SMALL_ARGS,
                               optim=OptimConfig(optimizer="sgd", momentum=0.0, nesterov=False))
    for n in (1, 4):
        adamw_table, sgd_table, plain_table = (plan.estimate(f, batch=2, gpus=n) for f in (facts, sgd, plain))
        for strategy in ("ddp", "fsdp_no_shard"):
            assert adamw_table[strategy].components["optimizer"] == 8 * P
            assert sgd_table[strategy].components["optimizer"] == 4 * P
            assert plain_table[strategy].components["optimizer"] == 0
        assert sgd_table["fsdp_full_shard"].components["optimizer"] == round(4 * P / n)
        # DeepSpeed keeps its fp32 master partition beside the optimizer's state
        assert adamw_table["zero2"].components["optimizer"] == round(12 * P / n)
        assert sgd_table["zero2"].components["optimizer"] == round(8 * P / n)
        assert plain_table["zero3"].components["optimizer"] == round(4 * P / n)
        assert plan.cpu_memory_for_offload(sgd, n) == plan.cpu_memory_for_offload(facts, n) - 4 * P // n
        # nothing but the optimizer's state differs
        assert sgd_table["ddp"].total == adamw_table["ddp"].total - 4 * P

    out = tmp_path / "plan.json"
    argv = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--model-args", json.dumps(SMALL_ARGS),
            "--json", str(out)]
    assert main(argv + ["--optimizer", "sgd"]) == 0
    assert "bf16, SGD (momentum 0.99), 1 GPU(s)" in capsys.readouterr().out
    result = json.loads(out.read_text())
    assert (result["optimizer"], result["optimizer_state_bytes_per_parameter"]) == ("sgd", 4)
    assert result["strategies"]["ddp"]["bytes"]["optimizer"] == 4 * P
    assert main(argv) == 0 and "bf16, AdamW, 1 GPU(s)" in capsys.readouterr().out


def test_plan_counts_the_optimizer_of_an_experiment_config(tmp_path, capsys):
    config = tmp_path / "exp.yaml"
    config.write_text(f"data: {{patch_size: [64, 64, 64]}}\n"
                      f"model: {{name: unet3d_mlperf, args: {json.dumps(SMALL_ARGS)}}}\n"
                      "optim: {optimizer: sgd, momentum: 0.0, nesterov: false}\n")
    argv = ["plan", "--config", str(config), "--in-channels", "1", "--classes", "3", "--json", str(tmp_path / "p.json")]
    assert main(argv) == 0
    assert "SGD (no momentum)" in capsys.readouterr().out
    assert json.loads((tmp_path / "p.json").read_text())["optimizer_state_bytes_per_parameter"] == 0
    assert main(argv + ["--optimizer", "adamw"]) == 0  # the option wins over the config
    assert json.loads((tmp_path / "p.json").read_text())["optimizer_state_bytes_per_parameter"] == 8


def test_one_output_is_measured_with_a_regions_loss_without_monais_warnings():
    """One output is a region's (a sigmoid): measured with the softmax loss of classes, MONAI warned "single
    channel prediction, `softmax=True` ignored" (and of to_onehot_y) at each plan --classes 1 and at the
    start of each CPU run of one region."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        facts = plan.measure_model("unet3d_mlperf", PATCH, "bf16", classes=1, model_args=SMALL_ARGS)
    assert facts.spec.args["out_channels"] == 1


def test_fsdp_units_match_torch_size_based_wrapping():
    from torch.distributed.fsdp.wrap import _recursive_wrap, size_based_auto_wrap_policy

    model = meta_network(model_spec("unet", 1, 3, (64, 64, 64)))  # no module registered twice
    wrapped = []

    def record(module, **_):
        wrapped.append(module)
        return module

    policy = partial(size_based_auto_wrap_policy, min_num_params=plan.FSDP_MIN_NUM_PARAMS)
    _recursive_wrap(model, policy, record, set(), set(), only_wrap_children=True)
    expected, seen = [], set()
    for module in wrapped:  # children are wrapped before their parents
        params = [p for p in module.parameters() if id(p) not in seen]
        seen.update(id(p) for p in params)
        expected.append(sum(p.numel() for p in params))
    units = plan.fsdp_units(model)
    assert units[:-1] == expected and sum(units) == sum(p.numel() for p in model.parameters())


def test_proposals_where_nothing_fits_say_what_would_make_room(facts):
    """Eight rows of "does not fit even at batch 1 per GPU" ended the output, with no word of what to change."""
    said = plan.format_proposals(plan.propose(facts, 1, 0.5), 1, None).splitlines()
    assert said[-1] == ("no strategy fits one sample per GPU: lower --patch, plan for GPUs of more memory "
                        "(--gpu-memory), or set train.activation_checkpointing, which this table does not model")
    assert "no strategy fits" not in plan.format_proposals(plan.propose(facts, 1, 80.0), 1, None)


def test_fsdp_units_count_shared_blocks_once():
    model = meta_network(model_spec("unet3d_mlperf", 1, 3, (128, 128, 128)))
    units = plan.fsdp_units(model)
    assert sum(units) == sum(p.numel() for p in model.parameters()) and min(units) >= 0


def test_proposal_fits_and_reaches_the_global_batch(facts):
    gpus, memory, global_batch = 4, 2.3, 192
    proposals = plan.propose(facts, gpus, memory, global_batch)
    assert proposals["ddp"].accum_steps > 1  # fewer than 48 samples per GPU fit: accumulation makes up the rest
    assert plan.propose(facts, gpus, 1.3, global_batch)["ddp"].largest_fitting_batch == 0  # the CUDA context alone
    for strategy, p in proposals.items():
        if not p.largest_fitting_batch:
            assert not plan.estimate(facts, 1, gpus)[strategy].fits(memory)
            continue
        assert p.per_device * gpus * p.accum_steps == global_batch
        assert p.per_device <= p.largest_fitting_batch
        assert plan.estimate(facts, p.per_device, gpus)[strategy].fits(memory)
        assert not plan.estimate(facts, p.largest_fitting_batch + 1, gpus)[strategy].fits(memory)
    without_target = plan.propose(facts, gpus, memory)["ddp"]
    assert without_target.accum_steps == 1 and without_target.per_device == without_target.largest_fitting_batch
    # Where the search stops, more may fit: it said "largest batch that fits: 1024" as if that were all.
    roomy = plan.propose(facts, gpus, 10_000.0)["ddp"]
    assert roomy.largest_fitting_batch == plan.MAX_PROPOSED_BATCH
    assert roomy.describe(gpus).endswith("(largest batch that fits: 1024 or more, where the search stops)")


def test_cli_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "plan" / "unet3d.json"
    argv = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--model-args", json.dumps(SMALL_ARGS),
            "--batch", "2", "--gpus", "2", "--gpu-memory", "16", "--global-batch", "8", "--json", str(out)]
    code = main(argv)
    assert code == 0
    # the command given, not this process's sys.argv (pytest's, before the ninety-first session)
    assert json.loads(out.read_text())["command"] == "accelerated-seg " + shlex.join(argv)
    printed = capsys.readouterr().out
    assert "fsdp_full_shard" in printed and "proposal for global batch 8" in printed
    result = json.loads(out.read_text())
    assert set(result["strategies"]) == set(plan.STRATEGIES)
    assert set(result["strategies"]["ddp"]["bytes"]) == set(plan.COMPONENTS)
    ddp = result["proposals"]["ddp"]
    assert ddp["per_device"] * 2 * ddp["accum_steps"] == 8
    assert result["model"]["name"] == "unet3d_mlperf"


@pytest.mark.parametrize("args, message", [
    (["--model", "vnet"], r"model.name \(--model\) 'vnet' is not known"),
    # the patch and model.args named with plan's options since the ninety-third session
    (["--patch", "64", "64", "80"], r"data.patch_size \(--patch\) \(64, 64, 80\) must be divisible by \(32, 32, 32\)"),
    # the default U-Net halves 16^3 four times: one voxel at its bottleneck (a traceback until the 24th session)
    (["--model", "unet", "--patch", "16", "16", "16"],
     r"model 'unet' cannot train on data.patch_size \(--patch\) \(16, 16, 16\) with these model.args \(--model-args\)"),
    (["--model-args", '{"filterz": [4]}'], r"model.args.filterz \(--model-args\) is not an argument of"),
    # 0 was told by the forward check that the network "trains on 32x32x32", -8 to use (32, 64, 64)
    (["--model", "unet", "--patch", "0", "64", "64"],
     r"^error: data.patch_size \(--patch\) needs three sizes of at least 1 voxel, got \(0, 64, 64\)$"),
    (["--patch", "-8", "64", "64"], r"data.patch_size \(--patch\) needs three sizes of at least 1 voxel, got \(-8, "),
    (["--batch", "0"], r"train.batch_size \(--batch\) must be an integer >= 1"),
    (["--gpus", "8", "--global-batch", "30"], r"train.global_batch_size \(--global-batch\) 30 is not divisible by 8"),
    # named as the config's key alone, which plan was not given (a review's probe)
    (["--global-batch", "0"], r"train.global_batch_size \(--global-batch\) must be >= 1, got 0"),
    (["--model-args", "{filters: 4}"], r"--model-args \(model.args\) is not valid JSON"),
    # the last taken without a word until the hundred-and-twenty-fourth session
    (["--model-args", '{"filters": [8], "filters": [16]}'], r"^error: --model-args \(model.args\): key 'filters' given "
                                                            r"twice at the top, of which json.loads takes the last "
                                                            r"without a word: keep one$"),
    (["--gpu-memory", "0"], r"GPU memory \(--gpu-memory\)"),
    # NaN passed a `<= 0` check and every strategy then read "does not fit" (before the 26th session)
    (["--gpu-memory", "nan"], r"GPU memory \(--gpu-memory\) must be a finite number of GiB > 0, got nan"),
    (["--gpu-memory", "inf"], r"GPU memory \(--gpu-memory\) must be a finite number of GiB > 0, got inf"),
    (["--in-channels", "0"], r"image channels \(--in-channels\) must be an integer >= 1"),
    (["--classes", "0"], r"the network's outputs \(--classes: classes including background, or regions\) must be "
                         r"an integer >= 1"),
])
def test_bad_settings_give_one_clear_error(args, message, capsys):
    base = {"--model": "unet3d_mlperf", "--patch": ["64", "64", "64"]}
    argv = ["plan"]
    for flag, value in base.items():
        if flag not in args:
            argv += [flag, *([value] if isinstance(value, str) else value)]
    code = main(argv + args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("error: ") and re.search(message, err[0]), err[0]


def test_the_numbers_and_json_given_as_options_are_refused_before_torch_and_monai_import(tmp_path):
    """A --batch 0 waited 5-13 s for those imports on a busy 2-core machine before being refused."""
    given = [["--batch", "0"], ["--gpus", "0"], ["--gpu-memory", "-5"], ["--gpus", "2", "--global-batch", "7"],
             ["--patch", "0", "64", "64"], ["--in-channels", "0"], ["--classes", "0"], ["--json", f"{tmp_path}/"]]
    script = ("import sys; from accelerated_seg.cli import main\n"
              f"for options in {given!r}:\n"
              "    assert main(['plan', '--model', 'unet', '--patch', '64', '64', '64', *options]) == 2\n"
              "print(sorted({'torch', 'monai'} & set(sys.modules)))")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"
    assert len(ran.stderr.strip().splitlines()) == len(given) and "--classes" in ran.stderr and "--json" in ran.stderr


def test_a_configs_batch_that_does_not_split_over_the_gpus_given_is_refused_before_torch_and_monai_import(tmp_path):
    """The config's global batch, or --global-batch against its batch_size and grad_accum_steps, waited 8-10 s for
    the imports on a busy 2-core machine where --gpus was given, beside the other numbers refused at once (review
    r129 of the hundred-and-twenty-seventh session)."""
    given = {"{global_batch_size: 16}": [[], ["--batch", "2"]], "{batch_size: 2}": [["--global-batch", "8"]],
             "{grad_accum_steps: 2}": [["--global-batch", "9"]]}
    script = "import sys; from accelerated_seg.cli import main\n"
    for number, (train, options) in enumerate(given.items()):
        config = tmp_path / f"exp{number}.yaml"
        config.write_text(f"data: {{patch_size: [64, 64, 64]}}\nmodel: {{name: unet}}\ntrain: {train}\n")
        script += (f"for options in {options!r}:\n"
                   f"    assert main(['plan', '--config', {str(config)!r}, '--gpus', '3', *options]) == 2\n")
    ran = subprocess.run([sys.executable, "-c", script + "print(sorted({'torch', 'monai'} & set(sys.modules)))"],
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"
    said = ran.stderr.strip().splitlines()
    assert len(said) == 4 and all(" on --gpus 3: train.global_batch_size " in line for line in said), said
    assert "multiple of 6" in said[2] and "multiple of 6" in said[3], said  # the run's, not "a multiple of 3"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error given without a GPU")
def test_measure_without_a_gpu_is_a_clear_error(capsys):
    assert main(["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--measure"]) == 2
    assert "--measure" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="CUDA"):
        plan.require_cuda()


@pytest.mark.cuda
@pytest.mark.parametrize("optimizer", ["adamw", "sgd"])
def test_estimate_within_15_percent_of_the_measured_peak(optimizer):
    facts = plan.measure_model("unet3d_mlperf", (128, 128, 128), "bf16", optim=OptimConfig(optimizer=optimizer))
    comparison = plan.compare_with_measured(facts, 2, plan.measure_peak_on_gpu(facts, 2))
    assert abs(comparison["relative_error"]) <= 0.15, comparison


def test_zero_buckets_are_counted_at_the_size_training_gives_them(facts):
    """Training sizes ZeRO's gradient bucket to the model (wrapping.size_deepspeed_buckets); DeepSpeed's
    default of 5e8 elements would be 0.93 GiB in bf16, more than these networks' whole state."""
    from accelerated_seg.wrapping import deepspeed_bucket_elements, size_deepspeed_buckets

    model = meta_network(facts.spec)
    written = size_deepspeed_buckets({}, model)["reduce_bucket_size"]
    assert written == deepspeed_bucket_elements(facts.trainable) < 500_000_000
    table = plan.estimate(facts, batch=2, gpus=4)
    for strategy in ("zero1", "zero2"):
        assert table[strategy].components["communication"] == 2 * written  # bf16


def test_a_json_path_that_cannot_be_written_is_refused_before_the_estimate(tmp_path, capsys):
    # a folder there was IsADirectoryError's traceback after the whole estimate
    argv = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--json"]
    assert main([*argv, str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: --json {tmp_path} is a folder; give a file path for the JSON"
    assert main([*argv, f"{tmp_path}/plans/"]) == 2  # written as a file named plans before the ninety-third session
    assert "ends in '/', so it names a folder; give a file path for the JSON" in capsys.readouterr().err
    assert not (tmp_path / "plans").exists()
    (tmp_path / "taken").write_text("a file")
    assert main([*argv, str(tmp_path / "taken" / "plan.json")]) == 2
    assert f"{tmp_path / 'taken'} is a file, so the folder for plan.json cannot be made" in capsys.readouterr().err
    assert main([*argv, str(tmp_path / "taken")]) == 2  # a file that is no earlier plan: replaced before
    assert "is not an earlier result of this command (a JSON object with 'strategies')" in capsys.readouterr().err
    assert (tmp_path / "taken").read_text() == "a file"
    assert main([*argv, str(tmp_path / "plan.json")]) == 0 and main([*argv, str(tmp_path / "plan.json")]) == 0


def test_plan_measures_at_the_batch_it_plans_where_batch_norm_needs_more_than_one_patch(tmp_path, capsys):
    """plan --config of the run training accepts (a BatchNorm U-Net whose deepest stage is one voxel, batch 8)
    measured the step at batches 1 and 2 and refused it with batch norm's "Expected more than 1 value per
    channel" (a MONAI user's tutorial U-Net, ninety-fourth session); --batch 1 of it is still refused."""
    args = {"channels": [4, 8, 16, 32, 64], "strides": [2, 2, 2, 2], "num_res_units": 1, "norm": "batch"}
    config = tmp_path / "exp.yaml"
    config.write_text(f"data: {{dataset: {tmp_path / 'dataset.json'}, patch_size: [16, 16, 16]}}\n"
                      f"model: {{name: unet, args: {json.dumps(args)}}}\n"
                      f"train: {{batch_size: 8, output_dir: {tmp_path / 'run'}}}\n")
    (tmp_path / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "a", "2": "b"},
        "training": [{"image": "./imagesTr/a.nii.gz", "label": "./labelsTr/a.nii.gz"}]}))
    assert main(["plan", "--config", str(config), "--precision", "fp32"]) == 0
    assert "batch 8" in capsys.readouterr().out
    assert main(["plan", "--config", str(config), "--precision", "fp32", "--batch", "1"]) == 2
    assert "Expected more than 1 value per channel" in capsys.readouterr().err


def test_plan_reads_the_run_it_plans_from_an_experiment_config(tmp_path, capsys):
    """plan --config: the model, patch and per-GPU batch the run would use, and its dataset's channels
    and classes, read from the dataset's description alone (its images need not be here); an option
    given wins over the config."""
    (tmp_path / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "edema", "2": "non-enhancing", "3": "enhancing"},
        "modality": {"0": "T1", "1": "T2"},
        "training": [{"image": ["./imagesTr/a_0000.nii.gz", "./imagesTr/a_0001.nii.gz"],
                      "label": "./labelsTr/a.nii.gz"}]}))
    config = tmp_path / "exp.yaml"
    config.write_text(f"data: {{dataset: {tmp_path / 'dataset.json'}, patch_size: [64, 64, 64]}}\n"
                      f"model: {{name: unet3d_mlperf, args: {json.dumps(SMALL_ARGS)}}}\n"
                      f"train: {{global_batch_size: 8, output_dir: {tmp_path / 'run'}}}\n")
    out = tmp_path / "plan.json"
    assert main(["plan", "--config", str(config), "--gpus", "2", "--json", str(out)]) == 0
    assert (f"from {config}: model unet3d_mlperf, patch 64x64x64, batch 4, global batch 8, 2 image channel(s), "
            f"4 classes") in capsys.readouterr().out  # the global batch of 8 over 2 GPUs, as training resolves it
    result = json.loads(out.read_text())
    args = result["model"]["args"]
    assert (args["in_channels"], args["out_channels"], args["filters"]) == (2, 4, SMALL_ARGS["filters"])
    assert result["batch_per_gpu"] == 4 and result["global_batch"] == 8

    assert main(["plan", "--config", str(config), "--gpus", "2", "--batch", "1", "--classes", "2", "--json",
                 str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result["batch_per_gpu"], result["model"]["args"]["out_channels"]) == (1, 2)
    assert not (tmp_path / "run").exists()  # planning writes nothing of the run's

    # region-based: one output per region (BraTS' three), not one per class
    regions = tmp_path / "regions.yaml"
    regions.write_text(config.read_text().replace("patch_size: [64, 64, 64]", "patch_size: [64, 64, 64], regions: "
                                                  "{whole: [1, 2, 3], core: [2, 3], enhancing: [3]}"))
    capsys.readouterr()
    assert main(["plan", "--config", str(regions), "--gpus", "2", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["model"]["args"]["out_channels"] == 3
    # said as regions: "3 classes" of a dataset of 4 classes until the ninety-fifth session
    assert "2 image channel(s), 3 regions\n" in capsys.readouterr().out


def _ct_config(tmp_path, train: str) -> Path:
    """An experiment config of one CT channel and two classes, described by a dataset.json whose images are not
    there (plan reads the description alone), with the ``train`` section given."""
    (tmp_path / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "tumour"}, "modality": {"0": "CT"},
        "training": [{"image": "./imagesTr/a.nii.gz", "label": "./labelsTr/a.nii.gz"}]}))
    config = tmp_path / "exp.yaml"
    config.write_text(f"data: {{dataset: {tmp_path / 'dataset.json'}, patch_size: [64, 64, 64]}}\n"
                      f"model: {{name: unet3d_mlperf, args: {json.dumps(SMALL_ARGS)}}}\ntrain: {train}\n")
    return config


def test_plan_batch_given_wins_over_a_config_global_batch_that_cannot_split(tmp_path, capsys):
    """--batch and --global-batch given: the config's train.global_batch_size, which cannot split over
    --gpus, decides nothing and is no error (it was, naming the config, though the options win)."""
    config = _ct_config(tmp_path, "{global_batch_size: 6}")
    out = tmp_path / "plan.json"
    assert main(["plan", "--config", str(config), "--gpus", "4", "--batch", "2", "--global-batch", "8",
                 "--json", str(out)]) == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    assert (result["batch_per_gpu"], result["gpus"], result["global_batch"]) == (2, 4, 8)
    # without --batch the table's batch is the run's at the global batch given: 8 over 4 GPUs
    assert main(["plan", "--config", str(config), "--gpus", "4", "--global-batch", "8", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["batch_per_gpu"] == 2


def test_plan_resolves_the_runs_batch_at_the_global_batch_given_in_place_of_the_configs(tmp_path, capsys):
    """--global-batch wins over the config's train.global_batch_size for the table's batch too, as training's
    --train.global_batch_size does: the table was at the config's split, 2 per GPU for a run of 8 (four times
    the activations it said fit), and a global batch --global-batch replaced was refused for not splitting, named
    as the config's (a new user's walk of docs/planning.md, hundred-and-twenty-seventh session)."""
    config = _ct_config(tmp_path, "{global_batch_size: 16}")
    out = tmp_path / "plan.json"
    assert main(["plan", "--config", str(config), "--gpus", "8", "--global-batch", "64", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result["batch_per_gpu"], result["global_batch"]) == (8, 64)  # 64 over 8 GPUs, as training splits it
    assert "batch 8, global batch 64" in capsys.readouterr().out
    assert main(["plan", "--config", str(config), "--gpus", "3", "--global-batch", "12"]) == 0  # 16 split over none
    assert "batch 4, global batch 12" in capsys.readouterr().out

    # with the config's per-GPU batch, a global batch given that training would refuse: said as the option's
    config = _ct_config(tmp_path, "{batch_size: 2, global_batch_size: 32}")
    assert main(["plan", "--config", str(config), "--gpus", "8", "--global-batch", "24"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {config} on --gpus 8: train.global_batch_size (--global-batch) 24 cannot be split into "
                   "train.batch_size 2 x 8 process(es) x accumulation steps; choose a global batch that is a multiple "
                   "of 16, or drop train.batch_size or train.global_batch_size (or give the table's per-GPU batch with "
                   "--batch)"]


@pytest.mark.parametrize("train, options, settings", [
    # the config's batch_size 2 over 3 GPUs: "choose a multiple of 3" (9 then refused for 6), before the imports
    ("{batch_size: 2}", ["--gpus", "3", "--global-batch", "8"], (2, 8, None, 3)),
    # the config's 2 accumulation steps said as "x 1 accumulation step(s); choose a multiple of 8"
    ("{grad_accum_steps: 2}", ["--gpus", "8", "--global-batch", "12"], (None, 12, 2, 8)),
    ("{global_batch_size: 12, grad_accum_steps: 2}", ["--gpus", "8"], (None, 12, 2, 8)),
    # the GPUs an accelerate profile gives (ddp.yaml's 2): said after the profile is read, as "a multiple of 2"
    ("{grad_accum_steps: 2}", ["--accelerate-config", "configs/accelerate/ddp.yaml", "--global-batch", "3"],
     (None, 3, 2, 2)),
])
def test_plan_refuses_the_runs_global_batch_in_trainings_words_with_the_configs_batch_and_accumulation(
        tmp_path, capsys, train, options, settings):
    """Where the table's batch is the run's (--config, no --batch), a global batch that does not split over the GPUs
    was refused over the GPUs alone, before the config's batch_size and grad_accum_steps were read: "x 1
    accumulation step(s); choose a multiple of 8" of a config's 2 steps, whose run needs 16, so that the multiple
    chosen was refused in turn (review r129 of the hundred-and-twenty-seventh session's h150). Now training's
    words for the run's settings, --batch not advised where no per-GPU batch splits the global batch over the GPUs."""
    from accelerated_seg.schedule import resolve_batch

    config = _ct_config(tmp_path, train)
    batch, global_batch, accum, gpus = settings
    with pytest.raises(ConfigError) as training:
        resolve_batch(batch, global_batch, accum, gpus, 1e-3, 2, "none")
    said = str(training.value)
    if "--global-batch" in options:
        said = said.replace("train.global_batch_size", "train.global_batch_size (--global-batch)", 1)
    else:
        said += " (or give the table's global batch with --global-batch)"
    assert main(["plan", "--config", str(config), *options]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {config} on --gpus {gpus}: {said}"]


@pytest.mark.parametrize("argv, message", [
    (["plan", "--gpus", "2"], r"give --model and --patch, or --config with an experiment YAML"),
    (["plan", "--config", "{config}", "--gpus", "3"], r"exp.yaml on --gpus 3: train.global_batch_size 8 is not "
                                                       r"divisible by 3 .*; choose a multiple of 3 \(or give the "
                                                       r"table's global batch with --global-batch\)$"),
    # --batch does not split the config's global batch over the GPUs: it was refused as an --global-batch
    # that was not given, and the error without --batch advised --batch (ninety-first session)
    (["plan", "--config", "{config}", "--gpus", "3", "--batch", "2", "--in-channels", "1", "--classes", "3"],
     r"^error: .*exp.yaml on --gpus 3: train.global_batch_size 8 is not divisible by 3 .*\(or give the table's "
     r"global batch with --global-batch\)$"),
    (["plan", "--config", "{config}"], r"exp.yaml: the image channels and classes come from its dataset, which "
                                       r"cannot be read here \(.*missing.csv: CSV not found.*\); give --in-channels "
                                       r"and --classes"),
])
def test_a_plan_config_that_cannot_be_planned_gives_one_clear_error(tmp_path, capsys, argv, message):
    config = tmp_path / "exp.yaml"
    config.write_text(f"data: {{dataset: {tmp_path / 'missing.csv'}, patch_size: [64, 64, 64]}}\n"
                      f"model: {{name: unet3d_mlperf, args: {json.dumps(SMALL_ARGS)}}}\n"
                      "train: {global_batch_size: 8}\n")
    assert main([arg.format(config=config) for arg in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err


@pytest.mark.parametrize("args, message", [
    (["plan", "--model", "unet"], "error: give --model and --patch, or --config with an experiment YAML "
                                  "(configs/*.yaml)\n"),
    (["plan", "--model", "vnet", "--patch", "64", "64", "64"],  # without its flag until the ninety-second session
     "error: model.name (--model) 'vnet' is not known; choose one of: unet, segresnet, swinunetr, unetr, dynunet, "
     "unet3d_mlperf\n"),
    (["benchmark", "train", "--model", "unet", "vnet"], "error: --model 'vnet' is not known; choose one of: unet, "
                                                        "segresnet, swinunetr, unetr, dynunet, unet3d_mlperf\n"),
    # offered the closest since the ninety-fifth session
    (["benchmark", "train", "--model", "unett"], "error: --model 'unett' is not known; choose one of: unet, "
                                                 "segresnet, swinunetr, unetr, dynunet, unet3d_mlperf "
                                                 "(did you mean 'unet'?)\n"),
])
def test_a_plan_or_benchmark_without_a_known_network_and_patch_is_refused_before_torch_imports(args, message):
    from refusals import run_probing_imports

    proc, imported = run_probing_imports("accelerated_seg.cli", *args, module=True)
    assert proc.returncode == 2 and proc.stderr == message, proc.stderr
    assert imported == [], imported  # at once: each waited 11-15 s for torch and MONAI before the fifty-fifth session


def test_plan_of_the_demo_config_writes_no_demo_data(tmp_path, capsys, monkeypatch):
    """The embedded dataset's channels and classes are known without writing it (binarized: 2 classes)."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo.yaml"
    config.write_text("data: {dataset: synthetic, patch_size: [64, 64, 64], binarize: true}\n"
                      f"model: {{name: unet3d_mlperf, args: {json.dumps(SMALL_ARGS)}}}\n")
    assert main(["plan", "--config", str(config), "--in-channels", "3"]) == 0
    assert "batch 2, 3 image channel(s), 2 classes" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == [config]


# The row of plan's table that each shipped accelerate profile trains as (None: not modelled).
PROFILE_ROWS = {"cpu": "ddp", "single_gpu": "ddp", "ddp": "ddp", "multi_node": "ddp", "fsdp": "fsdp_full_shard",
                "fsdp2": "fsdp_full_shard", "fsdp2_blocks": "fsdp_full_shard", "fsdp_full_shard": "fsdp_full_shard",
                "fsdp_shard_grad_op": "fsdp_shard_grad_op", "fsdp_no_shard": "fsdp_no_shard", "fsdp_hybrid": None,
                "deepspeed_zero1": "zero1", "deepspeed_zero2": "zero2", "deepspeed_zero3": "zero3",
                "deepspeed_zero3_offload": "zero3_offload"}


def test_every_shipped_accelerate_profile_is_read_as_its_strategy():
    from pathlib import Path

    from accelerated_seg.plan_profile import read_launch_profile

    profiles = sorted((Path(__file__).resolve().parents[1] / "configs" / "accelerate").glob("*.yaml"))
    assert sorted(path.stem for path in profiles) == sorted(PROFILE_ROWS)  # a new profile is classified here
    for path in profiles:
        profile = read_launch_profile(path)
        assert profile.strategy == PROFILE_ROWS[path.stem], path.name
        assert profile.strategy in (*plan.STRATEGIES, None) and (profile.strategy is None) == bool(profile.not_modelled)
        assert profile.precision in plan.PRECISIONS and profile.processes >= 1
    assert read_launch_profile(profiles[0].parent / "multi_node.yaml").processes == 16  # all machines'
    assert [path.stem for path in profiles if read_launch_profile(path).on_cpu] == ["cpu"]


@pytest.mark.parametrize("written, strategy, not_modelled", [
    # accelerate config's FSDP1 profile names the strategy in fsdp_reshard_after_forward: all read as FULL_SHARD
    ("distributed_type: FSDP\nfsdp_config: {fsdp_version: 1, fsdp_reshard_after_forward: SHARD_GRAD_OP}\n",
     "fsdp_shard_grad_op", None),
    ("distributed_type: FSDP\nfsdp_config: {fsdp_version: 1, fsdp_reshard_after_forward: NO_SHARD}\n",
     "fsdp_no_shard", None),
    ("distributed_type: FSDP\nfsdp_config: {fsdp_version: 1, fsdp_reshard_after_forward: HYBRID_SHARD}\n",
     None, "FSDP's HYBRID_SHARD"),
    # what accelerate config writes for several CPU processes: launched without mpirun, it runs one
    ("distributed_type: MULTI_CPU\nnum_processes: 2\nuse_cpu: true\n", None,
     "MULTI_CPU without mpirun_config.mpirun_hostfile: accelerate launch starts one process for it"),
    ("distributed_type: MULTI_CPU\nnum_processes: 2\nmpirun_config: {mpirun_hostfile: ~/hosts}\n", "ddp", None),
])
def test_plan_reads_profiles_as_accelerate_config_writes_them(tmp_path, written, strategy, not_modelled):
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "mine.yaml").write_text(written)
    profile = read_launch_profile(tmp_path / "mine.yaml")
    assert profile.strategy == strategy
    assert (not_modelled or "") in (profile.not_modelled or "") and bool(profile.not_modelled) == bool(not_modelled)


def test_plan_refuses_an_fsdp2_profile_naming_a_sharding_strategy_fsdp2_ignores(tmp_path):
    """As training does (strategy.fsdp2_sharding_error); plan read it as the full shard that FSDP2 would run."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "mine.yaml").write_text("distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, "
                                        "fsdp_sharding_strategy: SHARD_GRAD_OP}\n")
    with pytest.raises(ConfigError, match=r"mine.yaml: the accelerate config asks FSDP2 \(fsdp_version: 2\) for "
                                          r"fsdp_sharding_strategy SHARD_GRAD_OP, an FSDP1 setting that FSDP2 ignores"):
        read_launch_profile(tmp_path / "mine.yaml")
    (tmp_path / "mine.yaml").write_text("distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, "
                                        "fsdp_sharding_strategy: SHARD_GRAD_OP, fsdp_reshard_after_forward: false}\n")
    assert read_launch_profile(tmp_path / "mine.yaml").strategy == "fsdp_shard_grad_op"


@pytest.mark.parametrize("version", [1, 2])
def test_plan_refuses_an_fsdp_profile_without_the_sync_that_its_ram_efficient_loading_needs(tmp_path, version):
    """accelerate launch refuses fsdp_sync_module_states: false beside fsdp_cpu_ram_efficient_loading true, its
    default where the profile leaves it out, with a traceback (docs/strategies.md); plan marked the profile's row
    as fitting until the ninety-third session."""
    from accelerated_seg.plan_profile import read_launch_profile

    profile = tmp_path / "mine.yaml"
    for loading, said in (("", "leaves out fsdp_cpu_ram_efficient_loading, true by accelerate launch's default"),
                          (", fsdp_cpu_ram_efficient_loading: true", "sets fsdp_cpu_ram_efficient_loading: true")):
        profile.write_text(f"distributed_type: FSDP\nfsdp_config: {{fsdp_version: {version}, "
                           f"fsdp_sync_module_states: false{loading}}}\n")
        with pytest.raises(ConfigError, match=rf"^{re.escape(str(profile))}: the accelerate config's fsdp_config sets "
                                              rf"fsdp_sync_module_states: false and {said}; that loading needs the "
                                              rf"sync, so accelerate launch refuses the profile .* Add "
                                              rf"fsdp_cpu_ram_efficient_loading: false to fsdp_config .*, or set "
                                              rf"fsdp_sync_module_states: true$"):
            read_launch_profile(profile)
    for settings in ("fsdp_sync_module_states: false, fsdp_cpu_ram_efficient_loading: false",
                     "fsdp_sync_module_states: true", "fsdp_cpu_ram_efficient_loading: true"):
        profile.write_text(f"distributed_type: FSDP\nfsdp_config: {{fsdp_version: {version}, {settings}}}\n")
        assert read_launch_profile(profile).strategy == "fsdp_full_shard"


@pytest.mark.parametrize("text, message", [
    # accelerate launch copies fsdp_config's keys onto its options (fsdp_ prefixed where missing) and exports the
    # ones it knows: these were dropped without a word, and the run sharded otherwise than asked
    ("distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, fsdp_offload_param: true}\n",
     r"'s fsdp_config has fsdp_offload_param \(did you mean fsdp_offload_params\?\)"),
    ("distributed_type: FSDP\nfsdp_config: {fsdp_versoin: 2, fsdp_state_dict_typ: FULL_STATE_DICT}\n",
     r"'s fsdp_config has fsdp_versoin \(did you mean fsdp_version\?\), fsdp_state_dict_typ \(did you mean "
     r"fsdp_state_dict_type\?\)"),
    ("distributed_type: FSDP\nfsdp_config: {versoin: 2}\n", r"'s fsdp_config has versoin \(did you mean version\?\)"),
    # the same in deepspeed_config: accelerate launch drops it too (strategy._unknown_deepspeed_fields at training)
    ("distributed_type: DEEPSPEED\ndeepspeed_config: {zero_stage: 2, offload_optimizer_devices: cpu}\n",
     r"'s deepspeed_config has offload_optimizer_devices \(did you mean offload_optimizer_device\?\)"),
    # the other sections it copies onto its options, each with its own prefix rule (_validate_launch_command):
    # dynamo_ and fp8_ are put before a key that lacks them, as fsdp_ is
    ("distributed_type: MULTI_GPU\ndynamo_config: {dynamo_mode: max-autotune, dynamo_use_fullgraf: true}\n",
     r"'s dynamo_config has dynamo_use_fullgraf \(did you mean dynamo_use_fullgraph\?\)"),
    ("distributed_type: MULTI_GPU\ndynamo_config: {backend: INDUCTOR, use_fullgraf: true}\n",
     r"'s dynamo_config has use_fullgraf \(did you mean use_fullgraph\?\)"),
    ("distributed_type: MULTI_GPU\nfp8_config: {backend: TE, fp8_formt: HYBRID}\n",
     r"'s fp8_config has fp8_formt \(did you mean fp8_format\?\)"),
    ("distributed_type: MULTI_CPU\nnum_processes: 2\nmpirun_config: {mpirun_hostfle: hosts}\n",
     r"'s mpirun_config has mpirun_hostfle \(did you mean mpirun_hostfile\?\)"),
    ("distributed_type: MULTI_GPU\nmegatron_lm_config: {megatron_lm_tp_degre: 2}\n",
     r"'s megatron_lm_config has megatron_lm_tp_degre \(did you mean megatron_lm_tp_degree\?\)"),
    ("distributed_type: MULTI_GPU\nparallelism_config: {parallelism_config_tp_sise: 2}\n",
     r"'s parallelism_config has parallelism_config_tp_sise \(did you mean parallelism_config_tp_size\?\)"),
    # accelerate launch refuses an unknown key at the top with a traceback; plan says it first
    ("distributed_type: MULTI_GPU\nnum_process: 2\n", r" has num_process \(did you mean num_processes\?\)"),
    # a block of an older accelerate is named alone: "did you mean fp8_config?" misled
    ("distributed_type: MULTI_GPU\nipex_config: {ipex: false}\n", r" has ipex_config, "),
])
def test_plan_refuses_a_profile_key_accelerate_launch_does_not_know_naming_the_right_one(tmp_path, text, message):
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "launch.yaml").write_text(text)
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(tmp_path / 'launch.yaml'))}: the accelerate config"
                                          rf"{message}.*which accelerate launch does not know"):
        read_launch_profile(tmp_path / "launch.yaml")


def test_plan_takes_every_key_the_shipped_profiles_and_accelerate_config_write():
    from accelerated_seg.plan_profile import read_launch_profile

    for profile in sorted((Path(__file__).resolve().parents[1] / "configs" / "accelerate").glob("*.yaml")):
        read_launch_profile(profile)  # no ConfigError


def test_plan_takes_the_older_keys_accelerate_converts_as_it_reads_a_profile(tmp_path):
    """accelerate reads a top-level dynamo_backend as dynamo_config's and fp16: true as mixed_precision fp16
    (BaseConfig.process_config): plan refused them as keys the launch refuses."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\nnum_processes: 2\ndynamo_backend: 'NO'\n"
                                          "fp16: true\n")
    profile = read_launch_profile(tmp_path / "launch.yaml")
    assert (profile.strategy, profile.precision) == ("ddp", "fp16")
    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\n"
                                          "dynamo_config: {dynamo_backend: INDUCTOR}\n")
    assert read_launch_profile(tmp_path / "launch.yaml").strategy == "ddp"


def test_plan_refuses_a_dynamo_config_that_a_top_level_dynamo_backend_replaces(tmp_path):
    """accelerate reads a top-level dynamo_backend in place of the whole dynamo_config beside it
    (BaseConfig.process_config): the run compiled without mode max-autotune (ACCELERATE_DYNAMO_MODE default, a
    probe of the ninety-fifth session) and plan said nothing."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\n"
                                          "dynamo_config: {dynamo_backend: INDUCTOR, dynamo_mode: max-autotune}\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(tmp_path / 'launch.yaml'))}: the accelerate config has a "
                                          r"top-level dynamo_backend .* so dynamo_config \{'dynamo_backend': "
                                          r"'INDUCTOR', 'dynamo_mode': 'max-autotune'\} is ignored and the run "
                                          r"compiles as \{'dynamo_backend': 'INDUCTOR'\}: move dynamo_backend into "
                                          r"dynamo_config, or remove one of them$"):
        read_launch_profile(tmp_path / "launch.yaml")
    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\ndynamo_backend: 'NO'\n"
                                          "dynamo_config: {dynamo_backend: INDUCTOR}\n")
    with pytest.raises(ConfigError, match=r"is ignored and the run compiles as not at all"):
        read_launch_profile(tmp_path / "launch.yaml")


def test_plan_reads_a_json_profile_as_json_as_accelerate_launch_does(tmp_path):
    """accelerate's load_config_from_file reads a .json profile with json.load: one indented with tabs, which
    YAML refuses, was "not valid YAML" to plan and launched."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "launch.json").write_text('{\n\t"distributed_type": "MULTI_GPU",\n\t"num_processes": 2,\n'
                                          '\t"mixed_precision": "bf16"\n}\n')
    profile = read_launch_profile(tmp_path / "launch.json")
    assert (profile.strategy, profile.precision, profile.processes) == ("ddp", "bf16", 2)
    (tmp_path / "launch.json").write_text('{"distributed_type": "NO",}')
    # the parser's words alone until the hundred-and-twenty-third session (hand_edited.json_fault's now)
    with pytest.raises(ConfigError, match=r"launch.json is not valid JSON \(Expecting property name enclosed in double "
                                          r"quotes: line 1 column 27 \(char 26\)\): a comma before that '}', which "
                                          r"JSON does not allow \(a hand edit\?\); remove the comma$"):
        read_launch_profile(tmp_path / "launch.json")


def test_plan_says_a_profiles_own_errors_before_its_deepspeed_jsons_and_names_the_profile_with_the_json(tmp_path):
    """plan read the json that deepspeed_config_file names first: a typo'd key beside a missing json was refused
    for the json alone, in a message that did not say which profile named it."""
    from accelerated_seg.plan_profile import read_launch_profile

    profile = tmp_path / "mine.yaml"
    profile.write_text("distributed_type: DEEPSPEED\nnum_proceses: 2\n"
                       "deepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(profile))}: the accelerate config has num_proceses \(did "
                                          r"you mean num_processes\?\)"):
        read_launch_profile(profile)
    profile.write_text("distributed_type: DEEPSPEED\nnum_processes: 0\n"
                       "deepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n")
    with pytest.raises(ConfigError, match=r"mine.yaml: num_processes must be a whole number >= 1, got 0$"):
        read_launch_profile(profile)
    profile.write_text("distributed_type: DEEPSPEED\nnum_processes: 2\n"
                       "deepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(profile))}: the accelerate config's deepspeed_config_file "
                                          r"/nowhere/ds.json cannot be read \(FileNotFoundError"):
        read_launch_profile(profile)


@pytest.mark.parametrize("section, json_text, said", [
    ("{deepspeed_config_file: JSON}", '{"bf16": {"enabled": true}}',
     "the DeepSpeed json JSON has no zero_optimization block, which accelerate needs"),
    ("{deepspeed_config_file: JSON}", '{"zero_optimization": {"stage": 4}}',
     "the DeepSpeed json JSON asks for zero_optimization.stage 4, and ZeRO has stages 0 to 3"),
    ("{deepspeed_config_file: JSON, zero_stage: 2}", '{"zero_optimization": {"stage": 2}}',
     "the accelerate config names a DeepSpeed json (JSON) and also sets zero_stage beside it, which accelerate "
     "refuses"),
    ("{zero_stage: 4}", None, "the accelerate config asks for DeepSpeed zero_stage 4, and ZeRO has stages 0 to 3"),
])
def test_plan_refuses_what_training_refuses_of_a_deepspeed_json_naming_the_profile_and_the_json(
        tmp_path, section, json_text, said):
    """Until the ninety-fifth session plan printed each as a strategy it does not model ("ZeRO stage 4", "ZeRO
    stage 0" for a json without zero_optimization) and marked no row, where training refused the launch
    (strategy.deepspeed_launch_error), in words that named the json alone."""
    from accelerated_seg.plan_profile import read_launch_profile

    json_file, profile = tmp_path / "ds.json", tmp_path / "mine.yaml"
    if json_text is not None:
        json_file.write_text(json_text)
    profile.write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\n"
                       f"deepspeed_config: {section.replace('JSON', str(json_file))}\n")
    said = said.replace("JSON", str(json_file))
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(profile))}: {re.escape(said)}"):
        read_launch_profile(profile)


def test_the_sections_checked_are_the_ones_accelerate_launch_copies_and_their_keys_as_accelerate_config_writes_them(
        tmp_path):
    """_validate_launch_command copies the keys of every dict field of the profile (ClusterConfig): a section
    this accelerate adds is a section the check must know. `accelerate config` writes fp8_config's keys without
    their fp8_ (the launch adds it), dynamo_config's and megatron_lm_config's with theirs; two of fp8_config's as
    the launch has no option for."""
    from accelerate.commands.config.config_args import ClusterConfig

    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import COPIED_SECTIONS

    assert set(COPIED_SECTIONS) == {name for name, field in ClusterConfig.__dataclass_fields__.items()
                                    if "dict" in str(field.type)}
    (tmp_path / "launch.yaml").write_text(
        "distributed_type: MULTI_GPU\ndynamo_config: {dynamo_backend: INDUCTOR, mode: max-autotune}\n"
        "fp8_config: {backend: TE, fp8_format: HYBRID, amax_history_len: 16}\nmpirun_config: {mpirun_hostfile: h}\n"
        "megatron_lm_config: {megatron_lm_tp_degree: 2}\nparallelism_config: {parallelism_config_tp_size: 1}\n")
    assert read_launch_profile(tmp_path / "launch.yaml").strategy == "ddp"
    # accelerate config 1.16 writes these two as no option of the launch is named: it drops them (fp8_amax_history_len)
    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\nfp8_config: {backend: TE, amax_history_length: "
                                          "16, amax_compute_algorithm: max}\n")
    # "(`accelerate config` writes the keys it knows)" was untrue of them (h15's probe): the mismatch is named
    with pytest.raises(ConfigError) as refused:
        read_launch_profile(tmp_path / "launch.yaml")
    said = str(refused.value)
    assert ("fp8_config has amax_history_length, amax_compute_algorithm, as `accelerate config` writes them, but "
            "accelerate launch takes amax_history_len, amax_compute_algo (its options --fp8_amax_history_len, "
            "--fp8_amax_compute_algo) and would ignore them: rename them so") in said, said
    assert "writes the keys it knows" not in said and "did you mean" not in said, said
    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\nfp8_config: {backend: TE, amax_history_length: "
                                          "16, fp8_formt: HYBRID}\n")  # a typo beside: each named as what it is
    with pytest.raises(ConfigError, match=r"fp8_formt \(did you mean fp8_format\?\), which accelerate launch does "
                                          r"not know .*writes the keys it knows\); and amax_history_length, as "):
        read_launch_profile(tmp_path / "launch.yaml")


def test_accelerates_own_key_mismatch_is_what_its_config_command_and_its_launch_say():
    """The fp8_config keys named as accelerate's own mismatch are ones `accelerate config` writes and the launch
    has no option for, and the keys given instead are options the launch has: an accelerate that mends it
    fails here, so the table goes."""
    import inspect

    import accelerate.commands.config.cluster as cluster

    from accelerated_seg.launched_profile import launch_parser
    from accelerated_seg.strategy import COPIED_SECTIONS, WRITTEN_OTHERWISE_BY_ACCELERATE_CONFIG

    options = set(vars(launch_parser().parse_args(["script.py"])))
    for section, renamed in WRITTEN_OTHERWISE_BY_ACCELERATE_CONFIG.items():
        prefix = COPIED_SECTIONS[section][1]
        for written, taken in renamed.items():
            assert f'{section}["{written}"]' in inspect.getsource(cluster), written
            assert prefix + written not in options and prefix + taken in options, (written, taken)


def test_plan_refuses_fp8_before_naming_its_config_keys(tmp_path):
    """mixed_precision fp8 with the fp8_config `accelerate config` 1.16 writes: plan said its key mismatch, and
    only once it was renamed that fp8 is not trained, with which the run cannot start (h15's probe)."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "launch.yaml").write_text("distributed_type: MULTI_GPU\nmixed_precision: fp8\nfp8_config: {backend: "
                                          "TE, amax_history_length: 16, amax_compute_algorithm: max}\n")
    with pytest.raises(ConfigError, match=r"mixed_precision: 'fp8' is not one this package trains with"):
        read_launch_profile(tmp_path / "launch.yaml")


@pytest.mark.parametrize("json_settings, row, precision", [
    ({"bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}, "zero2", "bf16"),
    ({"fp16": {"enabled": True}, "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"},
                                                       "offload_param": {"device": "cpu"}}}, "zero3_offload", "fp16"),
    ({"zero_optimization": {"stage": 1}}, "zero1", "fp32"),
    # "true" as DeepSpeed and accelerate read it: plan read it as fp32 (until the ninety-eighth session)
    ({"bf16": {"enabled": "true"}, "zero_optimization": {"stage": 2}}, "zero2", "bf16"),
])
def test_plan_reads_a_deepspeed_profiles_stage_and_precision_from_its_json(tmp_path, json_settings, row, precision):
    """A profile that names a DeepSpeed json was read as "ZeRO stage None", fp32, where training ran the
    json's bf16 ZeRO-2 (eighty-fourth session's probe): accelerate takes those from the json alone."""
    from accelerated_seg.plan_profile import read_launch_profile

    (tmp_path / "ds.json").write_text(json.dumps(json_settings))
    (tmp_path / "mine.yaml").write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\n"
                                        f"deepspeed_config: {{deepspeed_config_file: {tmp_path / 'ds.json'}}}\n")
    profile = read_launch_profile(tmp_path / "mine.yaml")
    assert (profile.strategy, profile.precision, profile.processes) == (row, precision, 2)
    (tmp_path / "ds.json").write_text('{"bf16": {')
    with pytest.raises(ConfigError, match=r"the DeepSpeed json .*ds.json is not valid JSON \(Expecting .*: line 1 "
                                          r"column .*\): it ends inside a string, object or list, so it was cut short"):
        read_launch_profile(tmp_path / "mine.yaml")
    # accelerate also takes the json itself, or its base64, in place of a path
    inline = json.dumps(json_settings)
    for given in (inline, base64.urlsafe_b64encode(inline.encode()).decode()):
        (tmp_path / "mine.yaml").write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\n"
                                            f"deepspeed_config: {{deepspeed_config_file: '{given}'}}\n")
        assert read_launch_profile(tmp_path / "mine.yaml").strategy == row


def test_plan_marks_the_row_of_the_launchs_accelerate_profile_and_takes_its_precision_and_processes(tmp_path,
                                                                                                     capsys):
    from pathlib import Path

    profiles = Path(__file__).resolve().parents[1] / "configs" / "accelerate"
    base = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--model-args", json.dumps(SMALL_ARGS)]
    out = tmp_path / "plan.json"
    assert main([*base, "--accelerate-config", str(profiles / "deepspeed_zero3.yaml"), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"accelerate profile {profiles / 'deepspeed_zero3.yaml'}: zero3, 2 process(es), bf16" in printed
    marked = [line for line in printed.splitlines() if line.endswith(plan.PROFILE_MARK)]
    assert [line.split()[0] for line in marked] == ["zero3", "zero3"]  # its table row and its proposal
    result = json.loads(out.read_text())
    assert (result["gpus"], result["precision"], result["accelerate_profile"]["strategy"]) == (2, "bf16", "zero3")

    # What the command line says wins over the profile
    assert main([*base, "--accelerate-config", str(profiles / "cpu.yaml"), "--gpus", "4", "--precision", "bf16",
                 "--json", str(out)]) == 0
    assert (json.loads(out.read_text())["gpus"], json.loads(out.read_text())["precision"]) == (4, "bf16")
    # a CPU profile's run: the figures are GPU memory, and plan says so (it spoke of GPUs alone before)
    assert "cpu.yaml: ddp, 1 process(es), fp32; it runs on the CPU, and what follows is GPU memory" in (
        capsys.readouterr().out)


def test_an_fsdp1_profile_that_training_refuses_for_the_network_is_not_marked_as_fitting(tmp_path, capsys):
    """plan marked fsdp_full_shard.yaml's row "yes <- the accelerate profile's" for DynUNet, which training
    refuses under FSDP1; and with --precision fp32 its profile line said the profile's bf16 alone while
    the table was fp32 (seventieth session)."""
    from pathlib import Path

    profile = Path(__file__).resolve().parents[1] / "configs" / "accelerate" / "fsdp_full_shard.yaml"
    out = tmp_path / "plan.json"
    assert main(["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--model-args",
                 json.dumps(SMALL_ARGS), "--accelerate-config", str(profile), "--precision", "fp32",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "fsdp_full_shard, 2 process(es), bf16; the table is for fp32, as --precision asks" in printed
    assert "training refuses this profile for unet3d_mlperf: FSDP1 cannot wrap a network that registers modules " \
           "twice" in printed and "an FSDP2 profile (configs/accelerate/fsdp2.yaml)" in printed
    assert not [line for line in printed.splitlines() if line.endswith(plan.PROFILE_MARK)]
    assert "FSDP1 cannot wrap" in json.loads(out.read_text())["accelerate_profile"]["refused_by_training"]


def test_the_profile_line_says_what_gpus_and_precision_replaced_and_the_json_records_it(tmp_path, capsys):
    """With --gpus 4 the profile line said fsdp.yaml's "2 process(es)" alone, above a table for 4 GPUs
    (until the ninety-first session), as it had said the profile's precision before the seventieth."""
    from pathlib import Path

    profile = Path(__file__).resolve().parents[1] / "configs" / "accelerate" / "fsdp.yaml"
    base = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--model-args", json.dumps(SMALL_ARGS),
            "--accelerate-config", str(profile), "--json", str(tmp_path / "plan.json")]
    for options, said, replaced in [
            (["--gpus", "4"], "; the table is for 4 GPU(s), as --gpus asks", {"processes": 4}),
            (["--gpus", "4", "--precision", "fp32"], "; the table is for 4 GPU(s) and fp32, as --gpus and --precision "
             "ask", {"processes": 4, "precision": "fp32"}),
            (["--gpus", "2"], "", None)]:  # the profile's own count: nothing replaced
        assert main([*base, *options]) == 0
        line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("accelerate profile"))
        assert line == f"accelerate profile {profile}: fsdp_full_shard, 2 process(es), bf16{said}", options
        result = json.loads((tmp_path / "plan.json").read_text())
        assert result["accelerate_profile"]["processes"] == 2 and result["gpus"] == int(options[1])
        assert result["accelerate_profile"].get("replaced_by_command_line") == replaced, options


@pytest.mark.parametrize("profile, message", [
    ("distributed_type: FSDP\nmixed_precision: fp8\n", r"mixed_precision: 'fp8' is not one this package trains with"),
    # beside a DeepSpeed json (here inline) whose bf16 block plan took in its place, where the ranks refuse the fp8
    # the launch exports first (until the ninety-sixth session)
    ("distributed_type: DEEPSPEED\nmixed_precision: fp8\ndeepspeed_config: {deepspeed_config_file: "
     "'{\"zero_optimization\": {\"stage\": 2}, \"bf16\": {\"enabled\": true}}'}\n",
     r"mixed_precision: 'fp8' is not one this package trains with"),
    ("distributed_type: XLA\n", r"distributed_type: 'XLA' is not one this package launches"),
    # quoted as the file writes it, as the other settings are (`distributed_type 'XLA'` until the hundredth session)
    ("distributed_type: 3\n", r"distributed_type: 3 is not one this package launches"),
    ("distributed_type: NO\nnum_processes: 0\n", r"num_processes must be a whole number >= 1, got 0"),
    # Any mapping was a one-process fp32 launch: an experiment config given to the wrong option, say.
    ("data:\n  dataset: synthetic\ntrain:\n  max_steps: 3\n", r"has the experiment sections data, train: give it "
                                                            r"as --config"),
    ("foo: 1\n", r"it has no distributed_type, which every accelerate config file has"),
    ("- a list\n", r"is not an accelerate config"),
    (None, r"cannot be read as an accelerate config file \(FileNotFoundError"),
    # PyYAML's error is six lines, the file's text and a caret among them (ninety-first session)
    ("distributed_type: [FSDP\n", r"is not valid YAML: expected ',' or '\]', but got '<stream end>' at line 2, column "
                                  r"1: the file ends there, wanting more, so it was cut short; copy it again or write "
                                  r"one with `accelerate config`$"),
    # YAML reads an unquoted `no` as false: "mixed_precision False is not one ..." baffled who wrote `no`
    ("distributed_type: MULTI_GPU\nmixed_precision: no\n", r"mixed_precision: no is read by YAML as false.*write "
                                                           r"it quoted, mixed_precision: 'no'"),
    ("distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n",
     r"deepspeed_config_file /nowhere/ds.json cannot be read \(FileNotFoundError"),
])
def test_an_accelerate_config_plan_cannot_read_is_one_clear_error(tmp_path, capsys, profile, message):
    path = tmp_path / "launch.yaml"
    if profile is not None:
        path.write_text(profile)
    argv = ["plan", "--model", "unet3d_mlperf", "--patch", "64", "64", "64", "--accelerate-config", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err


def test_the_plan_json_names_the_machine_and_the_command(tmp_path, capsys):
    """The JSON of `plan --json` (with --measure a peak measured on a GPU, as the files under
    benchmarks/results/gpu_h100_session_2026-11-23/ hold) said neither which machine and stack made it
    nor the command, which every benchmark's JSON records."""
    out = tmp_path / "plan.json"
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--json", str(out)]) == 0
    capsys.readouterr()
    result = json.loads(out.read_text())
    assert result["machine"]["torch"] == torch.__version__ and "cpu" in result["machine"]
    assert result["command"].startswith("accelerated-seg ") and result["date"]
    assert result["strategies"]  # what --json is recognised by when it is written again


def test_a_config_with_activation_checkpointing_is_told_the_table_is_without_it(tmp_path, capsys):
    """Training's memory refusal advises train.activation_checkpointing=true and names `plan`, whose table
    then read the same figures for such a config without a word: the checkpointing is not modelled."""
    config = tmp_path / "exp.yaml"
    config.write_text("data: {patch_size: [32, 32, 32]}\nmodel: {name: unet}\n"
                      "train: {activation_checkpointing: true}\n")
    out = tmp_path / "p.json"
    assert main(["plan", "--config", str(config), "--in-channels", "1", "--classes", "3", "--json", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"{config} sets train.activation_checkpointing, which this table does not model" in said
    assert json.loads(out.read_text())["activation_checkpointing"] == "set by the config, not modelled"
    config.write_text("data: {patch_size: [32, 32, 32]}\nmodel: {name: unet}\n")
    assert main(["plan", "--config", str(config), "--in-channels", "1", "--classes", "3", "--json", str(out)]) == 0
    assert "activation_checkpointing" not in capsys.readouterr().out
    assert "activation_checkpointing" not in json.loads(out.read_text())
