"""``benchmark train``: every field present and sane on a tiny network, FLOPs against a hand count,
blocks interleaved, the CLI's JSON, one clear error per bad setting, the scaling projection's
arithmetic. No timing assertions: speed goals live in benchmarks/results/, never in tests."""

import contextlib
import io
import json
import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from accelerated_seg.benchmark_train import TimingSettings, benchmark_train, check_settings
from accelerated_seg.cli import EXIT_INTERRUPTED, main
from accelerated_seg.config import ConfigError
from accelerated_seg.flops import training_flops_per_sample
from accelerated_seg.scaling import ring_allreduce_seconds, weak_scaling_projection

from processes import run_bounded, said_alone  # tests/ is on sys.path (rootdir-style test imports)

ROOT = Path(__file__).resolve().parents[1]
TINY = {"channels": [4, 8], "strides": [2], "num_res_units": 0}
TINY_CLI = ["--model", "unet", "--model-args", json.dumps(TINY), "--patch", "16", "--batch", "2",
            "--steps", "2", "--blocks", "2"]
BLOCKS = 3


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    """fp32 and bf16, as on a CPU without bf16 instructions (an AVX2 EPYC's flags), whatever this host has;
    what the run printed is under "_printed"."""
    from accelerated_seg import host_cpu

    cpuinfo = tmp_path_factory.mktemp("cpu") / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(host_cpu, "CPUINFO", cpuinfo)
        results = benchmark_train(["unet"], [16], [2], ["fp32", "bf16"], TINY, TimingSettings(steps=2, blocks=BLOCKS),
                                  peak_tflops=0.5, price_per_gpu_hour=3.0, epoch_samples=100)
    return {**results, "_printed": printed.getvalue()}


def test_bf16_on_a_cpu_that_emulates_it_is_measured_with_a_warning(tiny_results):
    said = tiny_results["_printed"]
    assert said.count("warning: bf16 on this CPU is emulated") == 1  # the bf16 case's, not the fp32 one's
    assert "their ratio holds, their rates are not bf16's" in said


def test_every_field_is_present_and_sane(tiny_results):
    assert tiny_results["is_main_process"]
    assert [run["precision"] for run in tiny_results["runs"]] == ["fp32", "bf16"]
    for run in tiny_results["runs"]:
        assert f"mixed precision {'no' if run['precision'] == 'fp32' else 'bf16'}" in run["strategy"]
        assert run["processes"] == 1 and run["global_batch"] == 2 and run["patch"] == [16, 16, 16]
        for loop in ("ours", "plain"):
            rates = run[loop]["samples_per_s_blocks"]
            assert len(rates) == BLOCKS and all(r > 0 for r in rates)
            assert run[loop]["samples_per_s"] == pytest.approx(sorted(rates)[BLOCKS // 2], rel=1e-3)
            assert run[loop]["peak_allocated_gb"] is None  # the CPU has no allocator statistics: null, not a guess
        assert run["ratio_ours_to_plain"] == pytest.approx(
            run["ours"]["samples_per_s"] / run["plain"]["samples_per_s"], rel=1e-3)
        assert len(run["ratio_per_block"]) == BLOCKS and all(r > 0 for r in run["ratio_per_block"])
        assert run["ratio_median_of_blocks"] == pytest.approx(sorted(run["ratio_per_block"])[BLOCKS // 2], rel=1e-3)
        assert run["overhead_ms_per_step"] == pytest.approx(
            2000 / run["ours"]["samples_per_s"] - 2000 / run["plain"]["samples_per_s"], abs=1e-2)
        assert run["flops_per_sample"] > 0 and run["parameters"] > 0
        assert run["ours"]["skipped_steps"] == 0 and run["plain"]["nonfinite_steps"] == 0  # no 2-voxel level here
        assert run["gradient_bytes"] == 4 * run["parameters"]
        phases = run["plain_step_breakdown_ms"]
        assert all(phases[p] >= 0 for p in ("data_wait", "forward_loss", "backward", "optimizer"))
        assert phases["step"] > 0
        assert run["allreduce"] is None  # one process: nothing to communicate
        assert run["distributed_type"] == "NO" and run["sharding"] is None
        assert run["plain_baseline"].startswith("the bare network in one process")
        assert run["plain_fsdp2"] is None and run["against_plain_fsdp2"] is None  # FSDP2 only
        assert run["data"] == "synthetic" and run["num_workers"] == 0
        for loop in ("ours", "plain"):  # data on the device: the loop waits for nothing but Python
            assert 0 <= run[loop]["data_wait_pct"] < 50
            assert run["warmup_s"][loop] > 0
        assert all(0 <= b["data_wait_s"] <= b["seconds"] for b in run["timeline"])


def test_blocks_alternate_between_the_two_loops(tiny_results):
    timeline = tiny_results["runs"][0]["timeline"]
    # One block of each per round, the order flipping every round so that drift hits both alike.
    assert [b["loop"] for b in timeline] == ["ours", "plain", "plain", "ours", "ours", "plain"][:2 * BLOCKS]
    assert [b["block"] for b in timeline] == [b for b in range(BLOCKS) for _ in range(2)]
    assert all(b["seconds"] > 0 for b in timeline)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_plain_baseline_does_exactly_the_work_of_our_loop(precision):
    """The ratio compares like with like only if the plain loop computes what run_loop computes:
    the same loss, precision, clipping and AdamW step. Built as the benchmark builds them, from
    copies of one network on the same batches, two blocks each leave bit-identical weights."""
    import copy

    from accelerate.utils import set_seed

    from accelerated_seg import benchmark_train as harness
    from accelerated_seg.models import build_from_spec, model_spec
    from accelerated_seg.plain_loop import make_plain_loop, run_block

    accelerator = harness.fresh_accelerator(precision)
    set_seed(0)
    spec = model_spec("unet", 1, 3, (32,) * 3, {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
    network = build_from_spec(spec)
    steps, batch = 3, 2
    data = harness.SyntheticPatches(steps * batch, 4, 1, (32,) * 3, 3, accelerator.device)
    ours = harness.our_loop(accelerator, copy.deepcopy(network), data, batch)
    plain = make_plain_loop(copy.deepcopy(network), data, batch, precision, accelerator)
    for _ in range(2):
        harness.run_our_block(ours, steps)
        run_block(plain)
    trained = dict(accelerator.unwrap_model(ours.model).named_parameters())
    for name, weight in plain.model.named_parameters():
        assert torch.equal(trained[name], weight), name
    start = dict(network.named_parameters())
    assert any(not torch.equal(trained[name], start[name]) for name in start)  # and they did train


def test_mfu_and_cost_follow_from_the_rate(tiny_results):
    run = tiny_results["runs"][0]
    for loop in ("ours", "plain"):
        rate = run[loop]["samples_per_s"]
        assert run[loop]["mfu"] == pytest.approx(run["flops_per_sample"] * rate / 0.5e12, rel=1e-3)
        assert run[loop]["cost_per_1000_samples"] == pytest.approx(3.0 / 3600 * 1000 / rate, rel=1e-3)
        assert run[loop]["cost_per_epoch"] == pytest.approx(3.0 / 3600 * 100 / rate, rel=1e-3)


def test_the_printed_tables_mfu_is_the_jsons_in_significant_figures(tiny_results):
    """A CPU's MFU (given --peak-tflops) is a small number, which the JSON keeps to 4 significant figures: the
    printed table showed it as 0.000 in every row (the ninth new user's walk, the hundred-and-twenty-sixth session)."""
    from accelerated_seg.benchmark_train import format_table

    header, *rows = format_table(tiny_results).splitlines()
    end = header.index("MFU") + len("MFU")  # the columns are right-aligned under their names
    for run, row in zip(tiny_results["runs"], rows):
        mfu = row[:end].split()[-1]
        assert 0 < run["ours"]["mfu"] < 0.1 and float(mfu) == pytest.approx(run["ours"]["mfu"], rel=1e-2), row


def test_steps_with_non_finite_gradients_are_counted_per_loop_and_said():
    """oneDNN's bf16 on the CPU spoils some gradients at a 2-voxel level: ours skipped those steps and
    ran others in their place, uncounted, the plain loop stepped them, and neither the JSON nor the
    table said so (seventy-first session's probe)."""
    from accelerated_seg.benchmark_train import nonfinite_note
    from accelerated_seg.plain_loop import PlainLoop

    model = torch.nn.Linear(2, 1)
    loop = PlainLoop(model, torch.optim.SGD(model.parameters(), lr=0.1), None, None, torch.device("cpu"), None, None,
                     1.0, 1)
    for value in (1.0, math.inf, 2.0, math.nan):
        for parameter in model.parameters():
            parameter.grad = torch.full_like(parameter, value)
        loop.optimizer_step()
    assert loop.nonfinite_steps == 2
    run = {"model": "unet", "patch": [32, 32, 32], "precision": "bf16", "ours": {"skipped_steps": 3},
           "plain": {"nonfinite_steps": 2}}
    assert nonfinite_note(run) == ("note: unet 32x32x32 bf16: ours skipped 3 step(s) with non-finite gradients (and "
                                   "ran another in each one's place), the plain loop stepped 2 such step(s); the "
                                   "rates and their ratio are not clean")
    assert nonfinite_note({**run, "ours": {"skipped_steps": 0}, "plain": {"nonfinite_steps": 0}}) is None


def test_flops_of_one_conv3d_match_the_hand_count():
    conv = torch.nn.Conv3d(2, 3, kernel_size=3, padding=1)
    flops, _ = training_flops_per_sample(conv, in_channels=2, patch=8)
    forward = 2 * 8**3 * 3 * 2 * 27  # a multiply-add per output voxel, output channel, input channel, tap
    # Backward computes the weight gradient (as many FLOPs as forward) but no input gradient: the
    # image does not ask for one. Bias and loss are not matrix work and are not counted.
    assert flops == 2 * forward


def test_the_real_data_path_augmented_on_the_device_and_the_compile_lever(tmp_path):
    # Phantoms through the training loader (no workers here: the waits are the loading itself), the
    # spatial augmentation applied inside both loops (data.augment_on=gpu; the 2-process test below
    # keeps it in the workers), and both loops compiled in place (aot_eager: traced, no code generated).
    results = benchmark_train(["unet"], [16], [2], ["fp32"], TINY,
                              TimingSettings(steps=2, blocks=2, data="real", num_workers=0, augment_on="gpu",
                                             compile_backend="aot_eager"),
                              levers=["none", "compile"])
    for run in results["runs"]:
        assert run["data"] == "real" and run["num_workers"] == 0 and run["augment_on"] == "gpu"
        for loop in ("ours", "plain"):
            assert 0 < run[loop]["data_wait_pct"] < 100 and run[loop]["samples_per_s"] > 0
        assert run["plain_step_breakdown_ms"]["data_wait"] > 0
    assert [run["lever"] for run in results["runs"]] == ["none", "compile"]


def test_levers_combine_and_each_compile_lever_compiles_as_training_would():
    from accelerated_seg.benchmark_train import TrainCase, lever_compile_settings
    from accelerate.utils import DistributedType

    case = TrainCase("unet", {}, (16, 16, 16), 2, "fp32", "compile_cudagraphs+channels_last")
    assert case.uses("channels_last") and case.uses("compile_cudagraphs") and not case.uses("compile")
    assert case.compile_mode == "reduce-overhead"
    assert TrainCase("unet", {}, (16, 16, 16), 2, "fp32", "fused_adamw").compile_mode is None
    # Under FSDP2 the benchmark compiles with static shapes, as training does (compilation.settings_for_strategy).
    fsdp2 = SimpleNamespace(distributed_type=DistributedType.FSDP,
                            state=SimpleNamespace(fsdp_plugin=SimpleNamespace(fsdp_version=2)))
    autotune = TrainCase("unet", {}, (16, 16, 16), 2, "bf16", "compile_autotune")
    assert lever_compile_settings(fsdp2, autotune, TimingSettings()) == {
        "backend": "inductor", "mode": "max-autotune-no-cudagraphs", "dynamic": False}
    single = SimpleNamespace(distributed_type=DistributedType.NO)
    assert lever_compile_settings(single, case, TimingSettings()) == {"backend": "inductor", "mode": "reduce-overhead"}


def test_a_combined_lever_is_one_configuration_of_both_loops():
    results = benchmark_train(["unet"], [16], [2], ["fp32"], TINY,
                              TimingSettings(steps=1, blocks=1, warmup_blocks=1, compile_backend="aot_eager"),
                              levers=["channels_last+fused_adamw", "compile+no_cudnn_benchmark"])
    first, second = results["runs"]
    assert first["lever"] == "channels_last+fused_adamw" and first["compile"] is None
    assert second["lever"] == "compile+no_cudnn_benchmark" and second["compile"] == {"backend": "aot_eager"}
    assert all(run["ratio_ours_to_plain"] > 0 for run in results["runs"])


def test_the_sgd_lever_steps_both_loops_with_sgd(monkeypatch):
    import accelerated_seg.plain_loop as plain_loop
    from accelerated_seg.benchmark_train import TrainCase
    from accelerated_seg.config import OptimConfig

    assert TrainCase("unet", {}, (16, 16, 16), 2, "fp32", "none").optim == OptimConfig()  # training's AdamW
    fused_sgd = TrainCase("unet", {}, (16, 16, 16), 2, "fp32", "sgd+fused_adamw").optim
    assert (fused_sgd.optimizer, fused_sgd.fused, fused_sgd.momentum, fused_sgd.nesterov) == ("sgd", True, 0.99, True)
    built, build = [], plain_loop.build_optimizer
    monkeypatch.setattr(plain_loop, "build_optimizer", lambda *args: built.append(build(*args)) or built[-1])
    results = benchmark_train(["unet"], [16], [2], ["fp32"], TINY, TimingSettings(steps=1, blocks=1, warmup_blocks=1),
                              levers=["sgd"])
    assert results["runs"][0]["lever"] == "sgd" and results["runs"][0]["ratio_ours_to_plain"] > 0
    assert [type(optimizer).__name__ for optimizer in built] == ["SGD", "SGD"]  # ours, then the plain loop's
    assert built[0].param_groups[0]["momentum"] == 0.99 and built[1].param_groups[0]["nesterov"]


def test_channels_last_norms_are_a_lever_of_channels_last_only():
    results = benchmark_train(["unet"], [16], [2], ["fp32"], TINY, TimingSettings(steps=1, blocks=1, warmup_blocks=1),
                              levers=["channels_last+channels_last_norm"])
    assert results["runs"][0]["lever"] == "channels_last+channels_last_norm"
    assert results["runs"][0]["norms_as_group_norms"] == 2  # the tiny U-Net's two InstanceNorms
    assert results["runs"][0]["ratio_ours_to_plain"] > 0
    with pytest.raises(ConfigError, match="give it with channels_last"):
        benchmark_train(["unet"], [16], [2], ["fp32"], TINY, TimingSettings(steps=1, blocks=1),
                        levers=["channels_last_norm"])


def test_cli_writes_the_json_with_one_run_per_lever(tmp_path, capsys, monkeypatch):
    import accelerated_seg.benchmark as benchmark

    out = tmp_path / "train.json"
    levers = ["none", "channels_last", "fused_adamw"]
    written, write = [], benchmark.write_result

    def recorded(name, results, output, *args, **kwargs):  # what the file held after each write
        path = write(name, results, output, *args, **kwargs)
        written.append(json.loads(Path(path).read_text()))
        return path

    monkeypatch.setattr(benchmark, "write_result", recorded)
    argv = ["benchmark", "train", *TINY_CLI, "--lever", *levers, "--output", str(out)]
    assert main(argv) == 0
    record = json.loads(out.read_text())
    assert record["benchmark"] == f"train_{os.cpu_count()}cpu_1proc"
    assert record["machine"]["torch"] == torch.__version__
    # the command given, in the partial results too, not this process's sys.argv (pytest's, until the
    # ninety-first session)
    assert {each["command"] for each in written} == {"accelerated-seg " + shlex.join(argv)}
    assert [run["lever"] for run in record["runs"]] == levers and record["complete"] is True
    assert all(run["ratio_ours_to_plain"] > 0 for run in record["runs"]) and "is_main_process" not in record
    printed = capsys.readouterr().out
    assert "ours/s" in printed  # the printed table
    # a run stopped by a time limit keeps what it measured: the JSON after each configuration, and its row
    assert [(len(w["runs"]), w["complete"]) for w in written] == [(1, False), (2, False), (3, True)]
    assert written[1]["runs"] == record["runs"][:2]
    assert [line.split()[:3] for line in printed.splitlines() if line.startswith("[")] == [
        ["[1/3]", "unet", "none"], ["[2/3]", "unet", "channels_last"]]



def test_each_configurations_line_as_it_ends_is_its_row_under_several_processes_too(tmp_path, capsys, monkeypatch):
    """The line printed as each configuration ends was the table's last line: under several processes that is the
    all-reduce's line below the row ("[1/2] all-reduce of 0.0 MiB (gloo): 2.57 ms ...", benchmarks/results/
    benchmark_train_split_2026-12-06/after/two.txt), under FSDP2 the hand-sharded loop's; the row was never said.
    One process measures nothing to all-reduce, so the all-reduce is given to its row here."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    measure = benchmark_train_module._measure_case

    def with_an_allreduce(*args):
        run = measure(*args)
        run["allreduce"] = {"bytes": 2**20, "ms": 1.0, "backend": "gloo", "bus_bandwidth_gb_s": 1.0}
        return run
    monkeypatch.setattr(benchmark_train_module, "_measure_case", with_an_allreduce)
    argv = ["benchmark", "train", *TINY_CLI, "--lever", "none", "sgd", "--output", str(tmp_path / "train.json")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert [line.split()[:3] for line in printed.splitlines() if line.startswith("[")] == [["[1/2]", "unet", "none"]]
    assert "all-reduce of 1.0 MiB (gloo)" in printed  # still in the table at the end

def _stopped_after_the_first(monkeypatch, argv, measured: list | None = None) -> None:
    """Run ``argv`` (benchmark train) stopped as a time limit's signal stops it, after its first configuration."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    measure, calls = benchmark_train_module._measure_case, []

    def stopped(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return measure(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(benchmark_train_module, "_measure_case", stopped)
        assert main(argv) == EXIT_INTERRUPTED


@pytest.mark.parametrize("earlier_result", [True, False])
def test_a_stopped_run_is_picked_up_by_the_same_command_and_only_a_complete_result_replaces(
        earlier_result, tmp_path, capsys, monkeypatch):
    """The first configuration's partial result replaced an earlier result at --output (the ninety-third
    session's fix put it beside, in train.partial.json); a rerun then measured everything again and left its
    own train.partial_2.json beside the stopped run's, which only timestamps told apart. It picks up the
    stopped run's configurations, says so, measures the others, and leaves one file: the complete result."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    out, partial = tmp_path / "train.json", tmp_path / "train.partial.json"
    earlier = {"benchmark": "train_2cpu_1proc", "complete": True, "runs": [{"lever": "earlier"}] * 3}
    if earlier_result:
        out.write_text(json.dumps(earlier))
    argv = ["benchmark", "train", *TINY_CLI, "--lever", "none", "channels_last", "--output", str(out)]
    _stopped_after_the_first(monkeypatch, argv)
    assert json.loads(out.read_text()) == earlier if earlier_result else not out.exists()
    stopped = json.loads(partial.read_text())
    assert [run["lever"] for run in stopped["runs"]] == ["none"] and stopped["complete"] is False
    replaced = "is replaced " if earlier_result else ""
    assert f"(so far in {partial}; {out} {replaced}once all are measured)" in capsys.readouterr().out

    measure, measured = benchmark_train_module._measure_case, []
    monkeypatch.setattr(benchmark_train_module, "_measure_case",
                        lambda case, *args: measured.append(case.lever) or measure(case, *args))
    assert main(argv) == 0
    assert measured == ["channels_last"]  # the stopped run's configuration is not measured again
    record = json.loads(out.read_text())
    assert record["runs"] == [stopped["runs"][0], record["runs"][1]] and record["complete"] is True
    assert record["runs"][1]["lever"] == "channels_last"
    assert record["resumed_from"] == [{"date": stopped["date"], "configurations": 1,
                                       "load_average": stopped["load_average"]}]
    printed = capsys.readouterr().out
    assert (f"picked up 1 configuration(s) from {partial}, measured by a stopped run of this command on "
            f"{stopped['date']} with this machine, code and settings; measuring the others") in printed
    assert sorted(path.name for path in tmp_path.iterdir()) == ["train.json"]


def test_without_output_the_same_command_picks_up_the_file_its_stopped_run_left(tmp_path, capsys, monkeypatch):
    """README's own command has no --output: a stopped run left train_<N>cpu_1proc.json incomplete and the rerun
    measured all again into train_<N>cpu_1proc_2.json. A stopped run of another command is that run's own file."""
    import accelerated_seg.benchmark as benchmark
    import accelerated_seg.benchmark_train as benchmark_train_module

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(benchmark, "_CLAIMED", {})
    argv = ["benchmark", "train", *TINY_CLI, "--lever", "none", "channels_last"]
    _stopped_after_the_first(monkeypatch, argv)
    results = tmp_path / "benchmarks" / "results"
    [own] = results.iterdir()
    stopped = json.loads(own.read_text())
    other = results / "train_other.json"  # newer, of another command line
    other.write_text(json.dumps({**stopped, "command_line": "accelerated-seg benchmark train --steps 9"}))
    capsys.readouterr()

    monkeypatch.setattr(benchmark, "_CLAIMED", {})  # the next process
    measure, measured = benchmark_train_module._measure_case, []
    monkeypatch.setattr(benchmark_train_module, "_measure_case",
                        lambda case, *args: measured.append(case.lever) or measure(case, *args))
    assert main(argv) == 0
    assert measured == ["channels_last"]
    record = json.loads(own.read_text())
    assert record["complete"] is True and record["runs"][0] == stopped["runs"][0]
    assert record["resumed_from"][0]["configurations"] == 1
    printed = capsys.readouterr().out
    assert f"picked up 1 configuration(s) from {own.relative_to(tmp_path)}, measured by a stopped run" in printed
    assert f"wrote {own.relative_to(tmp_path)}" in printed
    assert sorted(path.name for path in results.iterdir()) == sorted([own.name, other.name])
    assert json.loads(other.read_text())["complete"] is False


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """The command line of a run stopped after its first configuration, and the partial file it left beside an
    earlier complete result."""
    out = tmp_path_factory.mktemp("stopped") / "train.json"
    out.write_text(json.dumps({"benchmark": "train_2cpu_1proc", "complete": True, "runs": [{"lever": "earlier"}]}))
    argv = ["benchmark", "train", *TINY_CLI, "--lever", "none", "channels_last", "--output", str(out)]
    with pytest.MonkeyPatch.context() as patch:
        _stopped_after_the_first(patch, argv)
    partial = out.with_name("train.partial.json")
    return argv, partial, json.loads(partial.read_text())


def _changed(record: dict, key: str, value) -> dict:
    """``record`` with ``value`` at the dotted ``key``."""
    record = json.loads(json.dumps(record))
    *parents, last = key.split(".")
    inner = record
    for parent in parents:
        inner = inner[parent]
    inner[last] = value
    return record


@pytest.mark.parametrize("change, difference", [
    ({"argv": ["--steps", "3"]}, "with another command_line ("),
    ({"key": "machine.torch", "value": "0.0.1"},
     f'with another machine.torch ("0.0.1" there, "{torch.__version__}" now)'),
    ({"key": "code_digest", "value": "0" * 64}, f'with another code_digest ("{"0" * 64}" there, '),
    ({"key": "settings.OMP_NUM_THREADS", "value": "7"}, 'with another settings.OMP_NUM_THREADS ("7" there, '),
])
def test_a_stopped_run_of_another_command_machine_code_or_settings_is_refused_before_measuring(
        change, difference, stopped_run, capsys, monkeypatch):
    """Its rows would be mixed with this run's in one table (until the ninety-fourth session this run left its own
    partial file beside it instead, and measured all); refused, naming what differs, with the file untouched."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    argv, partial, stopped = stopped_run
    record = _changed(stopped, change["key"], change["value"]) if "key" in change else stopped
    partial.write_text(json.dumps(record))
    monkeypatch.setattr(benchmark_train_module, "_measure_case", lambda *args: pytest.fail("measured"))
    assert main(argv[:-2] + change.get("argv", []) + argv[-2:]) == 2
    said = capsys.readouterr().err
    assert f"error: {partial} holds 1 configuration(s) a stopped run measured on {stopped['date']} {difference}" in said
    assert "run that command again to finish it, or move the file away to measure anew" in said
    assert json.loads(partial.read_text()) == record
    assert json.loads(Path(argv[-1]).read_text())["runs"] == [{"lever": "earlier"}]
    assert sorted(path.name for path in partial.parent.iterdir()) == ["train.json", "train.partial.json"]


@pytest.mark.parametrize("text", ["{not json", json.dumps({"benchmark": "train_2cpu_1proc", "complete": True,
                                                            "runs": []}),
                                  json.dumps({"benchmark": "infer_2cpu", "complete": False, "runs": []})])
def test_a_file_at_the_partial_path_that_is_no_stopped_run_is_refused(text, stopped_run, capsys, monkeypatch):
    """It would have been replaced by this run's results so far."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    argv, partial, _ = stopped_run
    partial.write_text(text)
    monkeypatch.setattr(benchmark_train_module, "_measure_case", lambda *args: pytest.fail("measured"))
    assert main(argv) == 2
    assert (f"error: {partial} is where this run keeps its results so far, and it holds no stopped run's results of "
            f"benchmark train: move it away, or give another --output") in capsys.readouterr().err
    assert partial.read_text() == text and json.loads(Path(argv[-1]).read_text())["runs"] == [{"lever": "earlier"}]


def test_a_picked_up_run_that_diverges_at_once_names_the_file_holding_the_configurations_kept(
        stopped_run, capsys, monkeypatch):
    """It said "the JSON": nothing measured by this run had been written, yet the stopped run's rows were kept."""
    import accelerated_seg.benchmark_train as benchmark_train_module
    from accelerated_seg.train import TrainingDiverged

    argv, partial, stopped = stopped_run
    partial.write_text(json.dumps(stopped))

    def diverged(*args):
        raise TrainingDiverged("the loss stayed non-finite")

    monkeypatch.setattr(benchmark_train_module, "_measure_case", diverged)
    assert main(argv) == 1
    assert (f"the loss stayed non-finite (the configurations measured before it are in {partial}, marked "
            f"incomplete)") in capsys.readouterr().err
    assert json.loads(partial.read_text()) == stopped


# What each allocator raises, and the words of the line: a GPU's OutOfMemoryError; the CPU's plain RuntimeError (a
# 256 PiB tensor, which it refuses itself); Python's (NumPy's) MemoryError.
_OUT_OF_MEMORY = {
    "a GPU's": ("ran out of memory (CUDA out of memory. Tried to allocate 2.00 GiB.): lower --batch or --patch, or "
                "free what another process holds there"),
    "torch's": ("ran out of the host's memory (DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                "288230376151711744 bytes. Error code 12 (Cannot allocate memory)): lower --batch or --patch, or free "
                "what other processes hold there"),
    "Python's": ("ran out of the host's memory (MemoryError): lower --batch or --patch, or free what other processes "
                 "hold there"),
}


@pytest.mark.parametrize("allocator", list(_OUT_OF_MEMORY))
def test_a_configuration_out_of_memory_is_one_line_naming_it_and_the_file_holding_those_before(
        allocator, stopped_run, capsys, monkeypatch):
    """torch's traceback until the ninety-fifth session, naming neither the configuration nor the file that keeps
    those measured before it; now one line, as a diverged loss says it. Its row is not written, so the same
    command run again measures it anew (memory another process held may be free by then). The host's memory
    (the CPU's allocator's RuntimeError, Python's MemoryError) gave torch's traceback until the ninety-sixth
    session; the allocator's words are kept from its name on."""
    import accelerated_seg.benchmark_train as benchmark_train_module

    argv, partial, stopped = stopped_run
    partial.write_text(json.dumps(stopped))

    def out_of_memory(*args):
        if allocator == "a GPU's":  # the CPU's build has the class too
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")
        if allocator == "torch's":
            torch.empty(2**58, dtype=torch.uint8)
        raise MemoryError()

    monkeypatch.setattr(benchmark_train_module, "_measure_case", out_of_memory)
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"error: --model unet --patch 16x16x16 --batch 2 --precision fp32 --lever channels_last "
        f"{_OUT_OF_MEMORY[allocator]} (the configurations measured before it are in {partial}, marked incomplete)\n")
    assert json.loads(partial.read_text()) == stopped


@pytest.mark.parametrize("source", ["alloc_cpu.cpp:127] err == 0", "alloc_cpu.cpp:90] data"])
def test_the_cpu_allocators_words_are_kept_from_its_name_on(source):
    """Linux's posix_memalign path (torch 2.13 on this host) and the path without it, which says "not enough"."""
    from accelerated_seg.results_so_far import OutOfMemory, out_of_memory_named

    words = ("can't allocate memory: you tried to allocate 8 bytes. Error code 12 (Cannot allocate memory)"
             if "127" in source else "not enough memory: you tried to allocate 8 bytes.")
    with pytest.raises(OutOfMemory) as raised, out_of_memory_named("--device cpu", "lower --roi"):
        raise RuntimeError(f"[enforce fail at {source}. DefaultCPUAllocator: {words}")
    assert str(raised.value) == (f"--device cpu ran out of the host's memory (DefaultCPUAllocator: {words}): lower "
                                 f"--roi, or free what other processes hold there")


def test_a_runtime_error_that_is_no_allocators_goes_on_as_it_was():
    from accelerated_seg.results_so_far import out_of_memory_named

    with pytest.raises(RuntimeError, match="^mat1 and mat2 shapes cannot be multiplied"):
        with out_of_memory_named("--device cpu", "lower --roi"):
            torch.ones(2, 3) @ torch.ones(2, 3)


@pytest.mark.parametrize("stop", ["out of memory", "diverged"])
def test_a_first_configuration_that_stops_the_run_says_nothing_was_measured(stop, tmp_path, capsys, monkeypatch):
    """A diverged first configuration said its predecessors were "in the JSON", which no one had written."""
    import accelerated_seg.benchmark_train as benchmark_train_module
    from accelerated_seg.train import TrainingDiverged

    def stopped(*args):
        if stop == "diverged":
            raise TrainingDiverged("the loss stayed non-finite")
        raise torch.cuda.OutOfMemoryError("CUDA out of memory.")

    monkeypatch.setattr(benchmark_train_module, "_measure_case", stopped)
    assert main(["benchmark", "train", *TINY_CLI, "--output", str(tmp_path / "train.json")]) == 1
    assert capsys.readouterr().err.endswith(" (no configuration was measured before it)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_run_stopped_twice_says_which_rows_each_stopped_run_measured(tmp_path, monkeypatch):
    """The rows lead ``runs`` in order; each stopped run's date and load average are kept beside its count."""
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.results_so_far import ResultsSoFar, code_digest

    monkeypatch.setattr("accelerated_seg.benchmark.provenance", lambda command: {"date": "2026-12-04",
                                                                               "command": command})
    record = {"settings": {"steps": 2}, "launch": {"WORLD_SIZE": None}}
    first = {"date": "2026-12-02", "configurations": 1, "load_average": {"before": [1.0]}}
    partial = tmp_path / "train.partial.json"
    partial.write_text(json.dumps({"benchmark": "train_2cpu_1proc", "date": "2026-12-03", "command_line": "c",
                                   "machine": machine_info(), "code_digest": code_digest(), **record,
                                   "load_average": {"before": [2.0]}, "complete": False,
                                   "resumed_from": [first], "runs": [{"row": 1}, {"row": 2}, {"row": 3}]}))
    so_far = ResultsSoFar(tmp_path / "train.json", "c")
    assert so_far.pick_up(record) == [{"row": 1}, {"row": 2}, {"row": 3}]
    written = json.loads(so_far.write("train_2cpu_1proc", {"complete": False, "runs": [{"row": n} for n in range(4)]})
                         .read_text())
    assert written["resumed_from"] == [first, {"date": "2026-12-03", "configurations": 2,
                                               "load_average": {"before": [2.0]}}]
    final = json.loads(so_far.finish("train_2cpu_1proc", {"complete": True, "runs": []}).read_text())
    assert final["resumed_from"] == written["resumed_from"] and not partial.exists()


def test_a_run_whose_configurations_were_all_measured_before_still_writes_its_result():
    """Nothing measured here said which process writes: the result was left unwritten on every one."""
    row = {"model": "unet", "lever": "none", "patch": [16, 16, 16], "batch_per_device": 2, "precision": "fp32"}
    results = benchmark_train(["unet"], [16], [2], ["fp32"], TINY, TimingSettings(steps=2, blocks=2),
                              measured_before=[row])
    assert results["runs"] == [row] and results["is_main_process"] is True


@pytest.mark.parametrize("kwargs, setting", [
    ({"precisions": ["fp16"]}, "--precision fp16"),
    ({"batches": [0]}, "--batch"),
    ({"models": ["unet9000"]}, "--model 'unet9000'"),
    ({"patches": [15]}, "--patch 15"),  # not divisible by the U-Net's stride 2
    ({"patches": [16, -16]}, "--patch must be at least 1 voxel along each axis .got -16.$"),  # "too small" before
    ({"patches": [(16, 0, 16)]}, "--patch must be at least 1 voxel along each axis .got .16, 0, 16..$"),
    ({"levers": ["turbo"]}, "--lever 'turbo'"),
    # measured twice over, rows apart only by noise
    ({"precisions": ["fp32", "bf16", "fp32"]}, "--precision fp32 is given twice: each value is one configuration"),
    ({"patches": [16, (16, 16, 16)]}, "--patch .16, 16, 16. is 16 again"),
    ({"levers": ["none", "compile+channels_last", "channels_last+compile"]},
     "--lever channels_last\\+compile is compile\\+channels_last again"),
    ({"levers": ["compile+turbo"]}, "--lever 'turbo' is not known.*joined by '\\+'"),
    ({"levers": ["none+compile"]}, "--lever none\\+compile: 'none' is the defaults alone"),
    ({"levers": ["compile+compile"]}, "a lever is named twice"),
    ({"levers": ["compile+compile_autotune"]}, "one compile mode at a time"),
    ({"levers": ["compile_autotune"], "timing": TimingSettings(compile_backend="aot_eager")},
     "--lever compile_autotune is an inductor mode"),
    ({"levers": ["compile_cudagraphs"]}, "--lever compile_cudagraphs needs a CUDA device"),
    ({"levers": ["none", "channels_last+compile"],  # the compilation was timed as the first block
      "timing": TimingSettings(warmup_blocks=0, steps=1, blocks=1, compile_backend="aot_eager")},
     "--lever channels_last\\+compile compiles both loops in their warm-up blocks; with --warmup-blocks 0"),
    ({"timing": TimingSettings(data="imagenet")}, "--data 'imagenet'"),
    ({"timing": TimingSettings(data="real", classes=5)}, "--data real trains on the phantoms"),
    ({"timing": TimingSettings(ddp_bucket_mb=0)}, "--ddp-bucket-mb"),
    ({"timing": TimingSettings(augment_on="gpu")}, "--augment-on gpu augments the real loader's patches"),
    ({"timing": TimingSettings(data="real", num_workers=-1)}, "--num-workers must not be negative"),
    ({"peak_tflops": 0.0}, "--peak-tflops must be a finite number > 0"),
    ({"peak_tflops": float("nan")}, "--peak-tflops must be a finite number > 0 .got nan"),  # MFU nan before
    ({"price_per_gpu_hour": -1.0}, "--price-per-gpu-hour must be a finite number >= 0"),
    ({"price_per_gpu_hour": float("inf")}, "--price-per-gpu-hour must be a finite number >= 0 .got inf"),
])
def test_a_bad_setting_is_one_error_naming_it(kwargs, setting):
    needs_cuda = kwargs.get("precisions") == ["fp16"] or kwargs.get("levers") == ["compile_cudagraphs"]
    if needs_cuda and torch.cuda.is_available():
        pytest.skip("allowed where CUDA is present")
    settings = {"models": ["unet"], "patches": [16], "batches": [2], "precisions": ["fp32"], **kwargs}
    with pytest.raises(ConfigError, match=setting.replace("(", r"\(")):
        benchmark_train(model_args=TINY, **settings)


def test_a_patch_too_small_for_the_network_is_refused_before_any_work():
    """The default U-Net halves 16³ four times: one voxel at the bottleneck, where instance norm
    cannot train. This was a traceback from the FLOP count's forward pass; now it is the check
    training runs before any data (models.check_trainable)."""
    with pytest.raises(ConfigError, match="--model unet --patch 16: model 'unet' cannot train on data.patch_size"):
        benchmark_train(["unet"], [16], [2], ["fp32"], None, TimingSettings(steps=1, blocks=1))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the check is the CPU's: a GPU says out of memory itself")
def test_a_step_beyond_the_hosts_memory_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    """On a CPU the out-of-memory killer ended such a benchmark in its first step, without a word;
    training refused the same step (cpu_step_fit.check_step_fits_host_memory). The largest batch is the one said."""
    import accelerated_seg.cpu_step_fit as cpu_step_fit
    import accelerated_seg.plan as plan

    peak = plan.measure_model("unet", (16, 16, 16), "fp32", 1, 3, TINY).peak["autocast"].at(4)
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: peak - 1)
    out = tmp_path / "train.json"
    assert main(["benchmark", "train", *TINY_CLI, "--batch", "1", "4", "--output", str(out)]) == 2
    assert re.fullmatch(r"error: --model unet --patch 16x16x16 --batch 4 --precision fp32 cannot be measured in this "
                        r"machine's memory: a training step holds at least 0\.\d\d GiB at its peak and 0\.\d\d GiB "
                        r"is available, .* Lower --patch or --batch \(`accelerated-seg plan` estimates what fits\)",
                        capsys.readouterr().err.strip())
    assert not out.exists()
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: peak)  # exactly fits
    assert len(check_settings(["unet"], [16], [1, 4], ["fp32"], TINY)) == 2
    # in one process, whatever WORLD_SIZE a cluster exports to it (launch_env)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    assert len(check_settings(["unet"], [16], [1, 4], ["fp32"], TINY)) == 2


def test_the_cli_reports_a_bad_setting_and_exits_2(capsys):
    assert main(["benchmark", "train", *TINY_CLI, "--batch", "0"]) == 2
    assert "--batch must be at least 1" in capsys.readouterr().err


def test_the_numbers_given_are_refused_before_torch_and_monai_import(tmp_path):
    """A --steps 0 waited 3-5 s for those imports before being refused (as plan's --batch 0 did)."""
    given = [["--steps", "0"], ["--blocks", "0"], ["--warmup-blocks", "-1"], ["--batch", "2", "0"], ["--patch", "0"],
             ["--classes", "1"], ["--epoch-samples", "0"], ["--num-workers", "-1"], ["--ddp-bucket-mb", "0"],
             ["--peak-tflops", "nan"], ["--price-per-gpu-hour", "-1"], ["--precision", "fp64"]]
    script = ("import sys; from accelerated_seg.cli import main\n"
              f"for options in {given!r}:\n"
              f"    assert main(['benchmark', 'train', '--output', {str(tmp_path / 'train.json')!r}, *options]) == 2\n"
              "print(sorted({'torch', 'monai'} & set(sys.modules)))")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"
    said = ran.stderr.strip().splitlines()
    assert [line.split()[1] for line in said] == [options[0] for options in given]
    assert not list(tmp_path.iterdir())


def test_workers_without_data_real_are_refused_before_torch_and_monai_import(tmp_path):
    """--num-workers without --data real waited 3 s and more for the imports before its refusal, where the
    numbers given (--num-workers -1 among them) were refused at once."""
    from refusals import run_probing_imports

    proc, imported = run_probing_imports("accelerated_seg.cli", "benchmark", "train", "--num-workers", "2",
                                         "--output", str(tmp_path / "train.json"), module=True)
    assert proc.returncode == 2 and imported == [], proc.stderr
    assert proc.stderr.strip() == ("error: --num-workers 2 are the real loader's workers (the synthetic patches are "
                                   "on the device already, read without workers): add --data real")
    assert not list(tmp_path.iterdir())


def test_augment_on_without_data_real_is_refused_before_torch_and_monai_import(tmp_path):
    """--augment-on cpu or gpu without --data real waited about 12 s on a busy host for the imports before its
    refusal; a --num-workers given as well is refused first, as the setting it goes with (--data real)."""
    from refusals import run_probing_imports

    for given, said in ((["--augment-on", "cpu"], "--augment-on cpu augments"),
                        (["--augment-on", "gpu", "--num-workers", "2"], "--num-workers 2 are")):
        proc, imported = run_probing_imports("accelerated_seg.cli", "benchmark", "train", *given,
                                             "--output", str(tmp_path / "train.json"), module=True)
        assert proc.returncode == 2 and imported == [], proc.stderr
        assert proc.stderr.strip().startswith(f"error: {said}"), proc.stderr
        assert proc.stderr.strip().endswith(": add --data real"), proc.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("option, said", [
    (["--lever", "none", "ddp_static_graph"], "--lever ddp_static_graph sets an option of DDP"),
    (["--lever", "ddp_bucket_view+fused_adamw"], "--lever ddp_bucket_view\\+fused_adamw sets an option of DDP"),
    (["--ddp-bucket-mb", "5"], "--ddp-bucket-mb 5 sets an option of DDP"),
])
def test_a_ddp_option_in_one_process_is_refused(option, said, capsys, tmp_path):
    """One process is no DDP, in either loop: the lever measured the defaults again under its name, and
    the JSON's ddp_options said static_graph or the bucket size were in effect."""
    out = tmp_path / "train.json"
    assert main(["benchmark", "train", *TINY_CLI, *option, "--output", str(out)]) == 2
    assert re.search(said, capsys.readouterr().err) and not out.exists()


def test_a_clusters_world_size_is_no_ddp(capsys, tmp_path, monkeypatch):
    """WORLD_SIZE alone, as some clusters export it to every process, is no launch (launch_env): one process
    still trains without DDP, and a DDP option is refused as in any other one-process run."""
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    out = tmp_path / "train.json"
    assert main(["benchmark", "train", *TINY_CLI, "--ddp-bucket-mb", "5", "--output", str(out)]) == 2
    assert "--ddp-bucket-mb 5 sets an option of DDP" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("option, said", [
    (["--augment-on", "cpu"], "--augment-on cpu augments the real loader's patches"),
    (["--num-workers", "4"], "--num-workers 4 are the real loader's workers"),
])
def test_a_real_data_option_without_data_real_is_refused(option, said, capsys, tmp_path):
    """With the synthetic patches there is no loader to place the augmentation in or to give workers:
    --augment-on cpu and --num-workers were measured as if not given, while the JSON's settings
    recorded them (only --augment-on gpu was refused)."""
    out = tmp_path / "train.json"
    assert main(["benchmark", "train", *TINY_CLI, *option, "--output", str(out)]) == 2
    assert said in capsys.readouterr().err and not out.exists()


def test_a_sharded_profile_that_cannot_take_effect_is_refused_before_any_work(monkeypatch):
    # An FSDP profile on a CPU: accelerate would quietly measure a single process instead.
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    with pytest.raises(ConfigError, match="asked for FSDP, which accelerate enables only on GPUs, so it is NOT in "
                                          "effect.*measure it where"):
        benchmark_train(["unet"], [16], [2], ["fp32"], TINY, TimingSettings(steps=1, blocks=1))


def _deepspeed_launch_of(json_file: Path, blocks: dict, monkeypatch) -> None:
    """This process as a DeepSpeed launch would export a profile naming ``json_file``, written with ``blocks``."""
    json_file.write_text(json.dumps({"zero_optimization": {"stage": 2}, **blocks}))
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    monkeypatch.setenv("ACCELERATE_DEEPSPEED_CONFIG_FILE", str(json_file))


def test_a_precision_the_deepspeed_json_overrides_is_refused_before_any_configuration(tmp_path, monkeypatch):
    """Beside a json switching bf16 on, accelerate trains bf16 whatever --precision says: the default fp32 was
    measured as bf16 (strategy "mixed precision bf16") in a row labelled fp32, against a plain loop in fp32
    (ratio 1.24 in a one-process launch on the CPU, the ninety-seventh session's probe)."""
    json_file = tmp_path / "ds.json"
    _deepspeed_launch_of(json_file, {"bf16": {"enabled": True}}, monkeypatch)
    with pytest.raises(ConfigError) as refused:
        benchmark_train(["unet"], [16], [2], ["bf16", "fp32"], TINY, TimingSettings(steps=1, blocks=1))
    assert str(refused.value) == (
        f"benchmark train's --precision fp32 asks for no mixed precision, and bf16.enabled is true in the DeepSpeed "
        f"json {json_file}, so accelerate would train bf16 all the same, without a word: to train fp32, write "
        f"\"bf16\": {{\"enabled\": false}} in {json_file}; to train bf16, give benchmark train's --precision bf16 in "
        f"its place. A row labelled fp32 would measure another precision")
    assert len(check_settings(["unet"], [16], [2], ["bf16"], TINY)) == 1  # the precision the json switches on
    _deepspeed_launch_of(json_file, {"bf16": {"enabled": "auto"}}, monkeypatch)  # takes --precision
    assert len(check_settings(["unet"], [16], [2], ["fp32", "bf16"], TINY)) == 2
    _deepspeed_launch_of(json_file, {"bf16": {"enabled": False}}, monkeypatch)  # trains fp32 whatever is asked
    with pytest.raises(ConfigError) as refused:
        check_settings(["unet"], [16], [2], ["fp32", "bf16"], TINY)
    assert str(refused.value).startswith(
        f"benchmark train's --precision bf16 asks for mixed precision bf16, and bf16.enabled is false in the "
        f"DeepSpeed json {json_file}, so accelerate would train fp32 all the same")
    assert str(refused.value).endswith("A row labelled bf16 would measure another precision")


def test_a_precision_that_does_not_run_is_refused_before_its_configuration_is_measured(tmp_path, monkeypatch):
    """A json's "bf16": {"enabled": false} keeps --precision bf16 from running (accelerate fills only a missing or
    "auto" block): DeepSpeed trains fp32, which the Accelerator's mixed_precision says once it is built."""
    from accelerated_seg.benchmark_train import TrainCase, precision_not_in_effect

    case = TrainCase("unet", {}, (16, 16, 16), 2, "bf16")
    assert precision_not_in_effect("bf16", case) is None
    assert precision_not_in_effect("no", case) == (
        "--model unet --patch 16x16x16 --batch 2 --precision bf16: accelerate runs fp32 (mixed precision no), so "
        "the row would be labelled bf16 and measure fp32. Measure it under a launch that runs --precision bf16")
    json_file = tmp_path / "ds.json"
    _deepspeed_launch_of(json_file, {"bf16": {"enabled": False}}, monkeypatch)
    assert precision_not_in_effect("no", case).endswith(
        f"measure fp32: the DeepSpeed json {json_file} decides the precision through its bf16 and fp16 blocks. Set "
        f"their \"enabled\" to \"auto\" (they then take --precision), or give the --precision they set")


def test_the_sharding_in_effect_is_recorded_and_names_the_file():
    from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin

    from accelerated_seg.benchmark_train import sharding_in_effect, result_name

    def under(distributed_type, **plugins):
        return SimpleNamespace(state=SimpleNamespace(distributed_type=distributed_type, **plugins))

    fsdp2 = FullyShardedDataParallelPlugin(fsdp_version=2, reshard_after_forward=True)
    assert sharding_in_effect(under(DistributedType.FSDP, fsdp_plugin=fsdp2), []) == {
        "fsdp_version": 2, "reshard_after_forward": True, "activation_checkpointing": False}
    fsdp1 = FullyShardedDataParallelPlugin(fsdp_version=1, reshard_after_forward="SHARD_GRAD_OP")
    fsdp1_sharding = sharding_in_effect(under(DistributedType.FSDP, fsdp_plugin=fsdp1), [])
    assert fsdp1_sharding["reshard_after_forward"] == "SHARD_GRAD_OP"
    zero3 = SimpleNamespace(zero_stage=3, offload_optimizer_device="cpu", offload_param_device="none")
    assert sharding_in_effect(under(DistributedType.DEEPSPEED, deepspeed_plugin=zero3), ["model.1", "model.2"]) == {
        "zero_stage": 3, "offload_optimizer_device": "cpu", "offload_param_device": "none", "zero3_leaf_blocks": 2}
    assert sharding_in_effect(under(DistributedType.MULTI_GPU), []) is None
    run = {"processes": 1, "strategy": "FSDP (FSDP) on 1 process(es), device cpu", "distributed_type": "FSDP"}
    assert result_name({"runs": [run]}) == f"train_{os.cpu_count()}cpu_1proc_fsdp"
    assert result_name({"runs": [{**run, "distributed_type": "MULTI_CPU"}]}) == f"train_{os.cpu_count()}cpu_1proc"


def test_weak_scaling_projection_by_hand():
    # 1 GB of gradients over 2 GPUs at 1 GB/s: each sends and receives 2 * 1/2 * 1 GB -> 1 s.
    assert ring_allreduce_seconds(1e9, 2, 1.0) == pytest.approx(1.0)
    assert ring_allreduce_seconds(1e9, 1, 1.0) == 0.0
    p = weak_scaling_projection(step_s=1.0, backward_s=0.6, gradient_bytes=1e9, gpus=2, bus_gb_s=1.0,
                                bucket_bytes=1e8)
    assert p["efficiency_no_overlap"] == pytest.approx(1 / 2)
    assert p["efficiency_overlap"] == pytest.approx(1 / 1.4)  # 0.4 s does not fit into backward
    hidden = weak_scaling_projection(1.0, 0.6, 1e9, 2, 100.0, bucket_bytes=1e8)  # 10 ms, all under backward
    assert hidden["efficiency_overlap"] == pytest.approx(1 / 1.001)  # but the last bucket (1 ms) is exposed
    assert weak_scaling_projection(1.0, 0.6, 1e9, 8, 1.0)["efficiency_no_overlap"] == pytest.approx(1 / (1 + 1.75))
    assert math.isclose(weak_scaling_projection(1.0, 0.6, 1e9, 1, 1.0)["efficiency_overlap"], 1.0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.distributed
def test_two_processes_report_the_global_rate_against_plain_ddp(tmp_path):
    out = tmp_path / "train_2proc.json"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           "--main_process_port", str(_free_port()), "-m", "accelerated_seg.cli", "benchmark", "train", *TINY_CLI,
           "--data", "real", "--num-workers", "1", "--lever", "none", "ddp_static_graph", "--ddp-bucket-mb", "1",
           "--output", str(out)]
    proc = run_bounded(cmd, env=env, timeout=240)
    assert out.is_file(), f"no JSON (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    record = json.loads(out.read_text())
    assert [run["lever"] for run in record["runs"]] == ["none", "ddp_static_graph"]
    assert [run["ddp_options"].get("static_graph", False) for run in record["runs"]] == [False, True]
    assert all(run["ddp_options"]["bucket_cap_mb"] == 1 for run in record["runs"])
    assert all(run["data"] == "real" and run["augment_on"] == "cpu" and 0 < run["ours"]["data_wait_pct"] < 100
               for run in record["runs"])
    run = record["runs"][0]
    assert "DDP (MULTI_CPU) on 2 process(es)" in run["strategy"] and run["distributed_type"] == "MULTI_CPU"
    assert run["plain_baseline"].startswith("torch.nn.parallel.DistributedDataParallel over 2 processes")
    assert run["processes"] == 2 and run["global_batch"] == 4
    assert run["ours"]["samples_per_s"] > 0 and run["plain"]["samples_per_s"] > 0
    assert run["allreduce"]["bytes"] == run["gradient_bytes"] and run["allreduce"]["backend"] == "gloo"
    assert record["launch"]["WORLD_SIZE"] == "2" and "--num_processes" in record["launch"]["launcher_command"]
    assert proc.stdout.count("ours/s") == 1  # only the main process prints the table


@pytest.mark.distributed
def test_under_two_processes_both_refuse_a_file_at_the_partial_path_and_one_says_it(tmp_path):
    """Every process reads the stopped run's file, so all decide alike: here both stop before measuring (one
    going on alone would wait in its first collective), and the line is said once above the launcher's report."""
    out = tmp_path / "train_2proc.json"
    partial = tmp_path / "train_2proc.partial.json"
    partial.write_text("{not a stopped run")
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           "--main_process_port", str(_free_port()), "-m", "accelerated_seg.cli", "benchmark", "train", *TINY_CLI,
           "--output", str(out)]
    proc = run_bounded(cmd, env=env, timeout=240)
    assert proc.returncode != 0 and not out.exists() and partial.read_text() == "{not a stopped run"
    said = [line for line in proc.stderr.splitlines() if line.startswith(f"error: {partial} is where this run keeps")]
    assert len(said) == 1, proc.stderr[-3000:]
    assert "ours/s" not in proc.stdout


# Rank 1 runs out of memory in the second configuration's plain warm-up block (its fourth plain block: one warm-up
# and two timed ones each), while rank 0 waits for it in that block's all-reduce. Its process is then held, as a rank
# on another node is to the others: its end breaks no collective of theirs, so only the stop itself ends them.
ONE_RANK_OUT_OF_MEMORY = """
import os, sys, time
import torch
import accelerated_seg.benchmark_train as benchmark_train
from accelerated_seg import cli

plain_blocks = 0
run_block = benchmark_train.run_block


def out_of_memory_on_rank_1(loop):
    global plain_blocks
    plain_blocks += 1
    if os.environ["RANK"] == "1" and plain_blocks == 4:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")
    return run_block(loop)


benchmark_train.run_block = out_of_memory_on_rank_1
status = cli.main(sys.argv[1:])
if os.environ["RANK"] == "1":
    time.sleep(600)
cli.end_process(status)
"""


@pytest.mark.distributed
def test_a_configuration_out_of_memory_on_one_rank_stops_every_rank_in_the_main_processs_line(tmp_path):
    """Rank 0 waited in its all-reduce for the process group's timeout (30 minutes), and the line came from rank 1,
    which writes no results: "no configuration was measured before it", the first configuration's row kept in the
    partial file all the same (until the ninety-sixth session). Now every rank stops at once, and the main process
    says the line."""
    script = tmp_path / "one_rank_out_of_memory.py"
    script.write_text(ONE_RANK_OUT_OF_MEMORY)
    out, partial = tmp_path / "train.json", tmp_path / "train.partial.json"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           "--main_process_port", str(_free_port()), str(script), "benchmark", "train", *TINY_CLI,
           "--lever", "none", "channels_last", "--output", str(out)]
    proc = run_bounded(cmd, env=env, timeout=150)
    assert proc.returncode != 0 and not out.exists()
    assert said_alone(proc) == [
        f"error: --model unet --patch 16x16x16 --batch 2 --precision fp32 --lever channels_last ran out of memory "
        f"(CUDA out of memory. Tried to allocate 2.00 GiB.): lower --batch or --patch, or free what another process "
        f"holds there (the configurations measured before it are in {partial}, marked incomplete)"], proc.stderr[-3000:]
    assert [run["lever"] for run in json.loads(partial.read_text())["runs"]] == ["none"]


@pytest.mark.distributed
def test_under_fsdp2_a_third_loop_shards_the_plain_network_by_hand_into_our_units(tmp_path):
    """FSDP2 really sharded over 2 CPU processes (benchmarks/fsdp_on_cpu.py), one unit per residual
    unit, activation checkpointing on: the plain FSDP2 loop gets the same units, wrappers included.
    Two configurations, so that the second Accelerator of the process is built under FSDP too (on an
    H200 it had no FSDP plugin: strategy._undo_fsdp_promotion)."""
    out = tmp_path / "train_fsdp2.json"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    model_args = {"channels": [4, 8], "strides": [2], "num_res_units": 1}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(ROOT / "configs" / "accelerate" / "fsdp2_blocks.yaml"), "--num_processes", "2",
           "--mixed_precision", "no", "--fsdp_activation_checkpointing", "true",
           "--main_process_port", str(_free_port()), str(ROOT / "benchmarks" / "fsdp_on_cpu.py"),
           "-m", "accelerated_seg.cli", "benchmark", "train", "--model", "unet", "--model-args", json.dumps(model_args),
           "--patch", "16", "--batch", "2", "--steps", "2", "--blocks", "2", "--lever", "none", "no_cudnn_benchmark",
           "--output", str(out)]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert out.is_file(), f"no JSON (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    runs = json.loads(out.read_text())["runs"]
    assert [run["lever"] for run in runs] == ["none", "no_cudnn_benchmark"]
    assert all(run["distributed_type"] == "FSDP" and run["sharding"]["fsdp_version"] == 2 for run in runs)
    run = runs[0]
    assert run["sharding"]["activation_checkpointing"]
    # Three loops per round, the order flipping every round.
    assert [b["loop"] for b in run["timeline"]] == ["ours", "plain", "plain_fsdp2", "plain_fsdp2", "plain", "ours"]
    hand = run["against_plain_fsdp2"]
    # The UNet's residual units (checkpoint-wrapped, as ours) and the root, children first, root last.
    assert hand["units"][-1] == "" and len(hand["units"]) > 2
    assert hand["local_parameter_share"] == pytest.approx(0.5, abs=0.05)  # each rank holds half
    assert hand["ratio_ours_to_plain_fsdp2"] == pytest.approx(
        run["ours"]["samples_per_s"] / run["plain_fsdp2"]["samples_per_s"], rel=1e-3)
    assert hand["ratio_plain_fsdp2_to_plain_ddp"] == pytest.approx(
        run["plain_fsdp2"]["samples_per_s"] / run["plain"]["samples_per_s"], rel=1e-3)
    assert len(hand["ratio_per_block"]) == 2 and hand["plain_fsdp2_step_breakdown_ms"]["step"] > 0
    assert "plain FSDP2 by hand" in proc.stdout


@pytest.mark.parametrize("name, peak", [
    ("NVIDIA H200", 989.4), ("NVIDIA H100 80GB HBM3", 989.4), ("NVIDIA H100 PCIe", 756.5),
    ("NVIDIA H200 NVL", None), ("NVIDIA H100 NVL", None), ("NVIDIA A100-SXM4-80GB", None),
])
def test_the_peak_for_mfu_is_the_named_gpus_or_none(name, peak, monkeypatch):
    """"H200" is contained in "NVIDIA H200 NVL", whose dense bf16 peak is lower than the SXM part's
    (the PCIe card at a lower power): its MFU was divided by the SXM's 989.4 TFLOP/s. A GPU the table
    does not hold gets no peak (--peak-tflops gives one), as the H100 NVL already did."""
    from accelerated_seg.flops import dense_peak_tflops

    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: name)
    assert dense_peak_tflops(torch.device("cuda"), "bf16", None) == peak
    assert dense_peak_tflops(torch.device("cuda"), "bf16", 123.0) == 123.0


def test_sigint_while_rank_0_of_a_launch_waits_in_the_rendezvous_ends_it_with_130(tmp_path):
    """A process posing as rank 0 of a 2-process launch (its launcher's environment, no rank 1: no launch needed)
    waits in the first configuration's rendezvous, in torch's C++ where no Python handler runs; a SIGINT there ends it
    at once with 130, saying nothing (interrupt_in_the_rendezvous), as ``train`` and ``predict``. Until the
    hundred-and-ninth session's review it waited for the agent's SIGKILL (30.4 s in a launch; here the store's 30 min):
    benchmarks/results/review_rendezvous_interrupt_r42/."""
    port = _free_port()
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "LOCAL_RANK": "0", "RANK": "0",
           "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("TORCHELASTIC_ERROR_FILE", None)
    rank0 = "from accelerated_seg.benchmark_train import fresh_accelerator; fresh_accelerator('fp32'); print('met')"
    with subprocess.Popen([sys.executable, "-c", rank0], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        deadline = time.monotonic() + 120
        while True:  # its store up: from then on it waits for rank 1, in torch's C++
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.05)
        time.sleep(0.5)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            stdout, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"not ended by SIGINT in 30 s: {process.communicate()}")
    assert process.returncode == EXIT_INTERRUPTED and stdout == "", (stdout, stderr)
    assert time.monotonic() - sent < 10  # measured 0.5 s: TAKEN_WITHIN_S and a busy machine's slack
