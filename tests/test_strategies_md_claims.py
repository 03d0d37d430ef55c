"""What docs/strategies.md says of the shipped profiles and of two refusals, against configs/accelerate/ and the
code. The hundred-and-eighteenth session's rewrite (h98) left the page naming no FSDP1 profile while three of its
rows and its status table spoke of "the FSDP1 profiles"; told a user without a GPU to launch `fsdp2.yaml`, itself
refused there, where the error names cpu.yaml, ddp.yaml and a one-process fallback; refused `train.sync_batchnorm`
"on CPU processes", where one process runs it unchanged; gave the shipped profiles' comments as the source of a rule
they do not state; and said plan refuses each "where plan can see it", where plan reads a DeepSpeed json and passes
its optimizer block (its review, r85)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8")
TEXT = " ".join(PAGE.split())
PROFILES = {path.name: yaml.safe_load(path.read_text(encoding="utf-8"))
            for path in sorted((ROOT / "configs" / "accelerate").glob("*.yaml"))}


def _fsdp1_profiles() -> set[str]:
    return {name.removesuffix(".yaml") for name, profile in PROFILES.items()
            if profile.get("distributed_type") == "FSDP" and profile["fsdp_config"].get("fsdp_version") == 1}


def _profile_row(name: str) -> list[str]:
    """The profile table's row of ``name``; fsdp.yaml shares fsdp2.yaml's."""
    return _row(f"`{name}`" if name != "fsdp.yaml" else "`fsdp2.yaml` (= `fsdp.yaml`)")


def _row(first_cell_start: str) -> list[str]:
    rows = [line for line in PAGE.splitlines() if line.startswith(f"| {first_cell_start}")]
    assert len(rows) == 1, (first_cell_start, rows)
    return [cell.strip() for cell in rows[0].strip("|").split(" | ")]


def test_the_page_names_the_fsdp1_profiles_as_configs_accelerate_holds_them():
    said = re.search(r"The (\w+) FSDP1 profiles \(([^;]*);", TEXT)
    assert said is not None
    named = set(re.findall(r"`(\w+)`", said[2]))
    assert named == _fsdp1_profiles(), (named, _fsdp1_profiles())
    assert said[1] == {2: "two", 3: "three", 4: "four", 5: "five"}[len(named)]
    refused = _row("the FSDP1 profiles")[0]
    assert set(re.findall(r"`(\w+)`", refused)) == _fsdp1_profiles(), refused
    # "FSDP1" in the profile table's limits marks exactly those profiles
    for name in PROFILES:
        limits = _profile_row(name)[-1]
        assert ("FSDP1" in limits) == (name.removesuffix(".yaml") in _fsdp1_profiles()), (name, limits)


def test_every_shipped_profile_has_its_row():
    for name in PROFILES:
        assert len(_profile_row(name)) == 5, name


# The one-process way out the FSDP1 refusal names: a string compared, no launch. Kept out of the test's body, where
# tests/test_suite_markers.py takes "--num_processes" for a launch that needs the distributed marker.
ONE_PROCESS = "--num_processes 1"


def test_the_fsdp1_refusals_way_out_is_the_profiles_the_error_names(monkeypatch):
    from accelerated_seg import strategy

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for key in list(__import__("os").environ):
        if key.startswith(("ACCELERATE_", "FSDP_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    monkeypatch.setenv("FSDP_VERSION", "1")
    monkeypatch.setenv("FSDP_SYNC_MODULE_STATES", "true")
    error = strategy.construction_error()
    assert error is not None and "which accelerate can set up only on a GPU" in error, error
    what, why, to_do = _row("the FSDP1 profiles")
    assert "which accelerate can set up only on a GPU" in why
    assert set(re.findall(r"[\w]+\.yaml", to_do)) == set(re.findall(r"[\w]+\.yaml", error)), (to_do, error)
    assert ("ACCELERATE_USE_CPU=true" in to_do) == ("ACCELERATE_USE_CPU=true" in error)
    assert ONE_PROCESS in to_do and ONE_PROCESS in error


@pytest.mark.parametrize("processes", [1, 2])
def test_sync_batchnorm_is_refused_on_cpu_processes_only_where_there_are_several(processes):
    from accelerated_seg.config import ConfigError
    from accelerated_seg.wrapping import convert_sync_batchnorm

    model = torch.nn.Sequential(torch.nn.Conv3d(1, 2, 3), torch.nn.BatchNorm3d(2))
    row = _row("`train.activation_checkpointing` without blocks")[0]
    if processes == 1:
        assert convert_sync_batchnorm(model, torch.device("cpu"), 1) is model
        assert "`train.sync_batchnorm` on several CPU processes" in row, row
    else:
        with pytest.raises(ConfigError, match="needs GPUs"):
            convert_sync_batchnorm(model, torch.device("cpu"), processes)


def test_the_shipped_profiles_set_the_precision_as_the_page_says():
    said = re.search(r"as every shipped profile but `(\w+\.yaml)` sets it, the DeepSpeed ones too: they name no json",
                     TEXT)
    assert said is not None
    assert {name for name, p in PROFILES.items() if p.get("mixed_precision") != "bf16"} == {said[1]}
    deepspeed = [p for p in PROFILES.values() if p.get("distributed_type") == "DEEPSPEED"]
    assert deepspeed and not any("deepspeed_config_file" in (p.get("deepspeed_config") or {}) for p in deepspeed)


def test_plan_passes_a_json_optimizer_block_as_the_page_says_and_training_refuses_it(tmp_path):
    """The page said every refusal is plan's too "where plan can see it"; plan reads the json (its stage and precision)
    but leaves its optimizer and scheduler blocks to training."""
    from accelerated_seg.plan_profile import read_launch_profile

    assert "it passes a json's `optimizer`/`scheduler` blocks" in TEXT
    (tmp_path / "ds.json").write_text('{"zero_optimization": {"stage": 2}, "optimizer": {"type": "AdamW"}}')
    (tmp_path / "ds.yaml").write_text(f"distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 2\n"
                                      f"deepspeed_config:\n  deepspeed_config_file: {tmp_path / 'ds.json'}\n")
    assert read_launch_profile(tmp_path / "ds.yaml").strategy == "zero2"  # training: strategy.configure_deepspeed


def test_the_gpu_part_runs_the_profiles_the_page_lists():
    """The page said "every single-GPU profile (and fsdp2_blocks with activation checkpointing)": the GPU part leaves
    out deepspeed_zero3_offload and runs deepspeed_zero3 with activation checkpointing too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("verify_strategies", ROOT / "benchmarks" / "verify_strategies.py")
    verify_strategies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(verify_strategies)
    said = re.search(r"On a GPU it runs the single-GPU profiles (.*?) \(not (.*?)\), and (.*?) again with activation "
                     r"checkpointing, (\d+) steps each", TEXT)
    assert said is not None
    plain = {p[0] for p in verify_strategies.GPU_PROFILES if len(p) < 5}
    levered = {p[0] for p in verify_strategies.GPU_PROFILES
               if len(p) > 4 and "--train.activation_checkpointing=true" in p[4]}
    assert set(re.findall(r"`(\w+)`", said[1])) == plain
    assert set(re.findall(r"`(\w+)`", said[2])) == {name.removesuffix(".yaml") for name in PROFILES} - plain - {
        "cpu", "ddp", "fsdp", "fsdp_hybrid", "multi_node"}
    assert set(re.findall(r"`(\w+)`", said[3])) == levered
    source = (ROOT / "benchmarks" / "verify_strategies.py").read_text(encoding="utf-8")
    assert re.search(rf'"--steps", type=int, default={said[4]}\)', source), said[4]


def _launch_env(monkeypatch, **variables) -> None:
    """What accelerate launch exports, as ``variables``, and nothing else of accelerate's or FSDP's."""
    for key in list(__import__("os").environ):
        if key.startswith(("ACCELERATE_", "FSDP_")):
            monkeypatch.delenv(key)
    for key, value in variables.items():
        monkeypatch.setenv(key, value)


def test_the_refusals_of_a_profile_this_machine_cannot_run_name_the_file_the_launch_read(monkeypatch, tmp_path):
    """The page's first rows ("FSDP without GPUs", "the FSDP1 profiles ... without a GPU", "a GPU profile with N
    processes and no GPU") and FSDP2's sharding strategy: their errors said "the accelerate config" and named no file,
    where the profile's other refusals (and plan's of the FSDP2 one) name the one the launch read (twelfth new user's
    walk, 2026-12-08). Where a rank cannot tell it, the words stay as they were."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg import launched_profile, strategy

    profile = tmp_path / "my_fsdp.yaml"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    _launch_env(monkeypatch, ACCELERATE_USE_FSDP="true", FSDP_VERSION="1", FSDP_SYNC_MODULE_STATES="true")
    assert strategy.construction_error().startswith(f"the accelerate config {profile} asks for FSDP1 with "
                                                    f"fsdp_sync_module_states: true, which accelerate can set up")
    # an FSDP2 profile naming an FSDP1 sharding strategy (the table's FSDP2 row): plan named the file, training not
    _launch_env(monkeypatch, ACCELERATE_USE_FSDP="true", FSDP_VERSION="2", FSDP_SHARDING_STRATEGY="SHARD_GRAD_OP",
                FSDP_RESHARD_AFTER_FORWARD="true")
    assert strategy.construction_error().startswith(f"{profile}: the accelerate config asks FSDP2 (fsdp_version: 2) "
                                                    f"for fsdp_sharding_strategy SHARD_GRAD_OP")
    _launch_env(monkeypatch, ACCELERATE_USE_FSDP="true", FSDP_VERSION="2", ACCELERATE_USE_CPU="true")
    ddp = SimpleNamespace(state=SimpleNamespace(distributed_type=DistributedType.MULTI_CPU, num_processes=2),
                          device="cpu:0", mixed_precision="no")
    assert strategy.fallback_warning(ddp).startswith(f"the accelerate config {profile} asked for FSDP, which "
                                                     f"accelerate enables only on GPUs, so it is NOT in effect")
    _launch_env(monkeypatch, ACCELERATE_USE_FSDP="true", FSDP_VERSION="2")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "0")
    alone = SimpleNamespace(num_processes=1, distributed_type=DistributedType.NO)
    assert f"(distributed type NO): this accelerate config {profile} needs GPUs and none" in \
        strategy.launch_error(alone)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: None)
    assert "(distributed type NO): this accelerate config needs GPUs and none" in strategy.launch_error(alone)


def test_the_channels_last_refusal_names_profiles_that_run_what_it_says():
    """`train.channels_last` under FSDP2 or DeepSpeed: the page's "DDP or FSDP1 (named)". The error named FSDP1's as
    "fsdp.yaml's fsdp_version: 1 profiles", and fsdp.yaml is FSDP2's, refused there itself (twelfth new user's
    walk, 2026-12-08): each profile it names is one that keeps channels-last weights."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import channels_last_error

    deepspeed = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED, state=SimpleNamespace())
    error = channels_last_error(deepspeed)
    named = re.findall(r"(\w+)\.yaml", error)
    assert named, error
    for name in named:
        profile = PROFILES[f"{name}.yaml"]
        kept = profile["distributed_type"] in ("MULTI_GPU", "NO") or (
            profile["distributed_type"] == "FSDP" and profile["fsdp_config"].get("fsdp_version") == 1)
        assert kept, (name, error)
    assert "DDP or FSDP1 (named)" in _row("`train.channels_last` under FSDP2 or DeepSpeed")[-1]
