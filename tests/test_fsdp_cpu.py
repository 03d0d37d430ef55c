"""FSDP mechanics on the CPU: torch's FSDP1 and FSDP2 run over a 1-process gloo group.

accelerate enables FSDP only on GPUs, so the training loop cannot run it here; these tests take the
pieces the loop hands to accelerate (wrap policies from accelerate's own plugin, our block classes,
our mixed-precision policy, activation checkpointing) and apply them with torch's FSDP directly:
wrapping, forward/backward and a full state dict that loads strictly into the plain MONAI network.
With one process FSDP1 runs its NO_SHARD path and nothing is really sharded: what multi-GPU sharding
does to memory is for the GPU verification (benchmarks/verify_strategies.py). FSDP1's optimizer
resume also runs over 2 spawned processes, where a rank holds no part of some parameters.
"""

import functools
import os
import sys

import pytest
import torch
import torch.nn as nn
from accelerate.utils import FullyShardedDataParallelPlugin
from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy, get_module_children_bottom_up
from safetensors.torch import save_file

from accelerated_seg.config import ConfigError
from accelerated_seg.exported_model import load_weights, shared_tensor_names
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.wrapping import (
    check_fsdp1_wrappable,
    checkpoint_blocks,
    fill_fsdp_wrap_classes,
    fsdp2_valid_units_only,
    fsdp_mixed_precision,
    is_container,
    modules_entangled_outside,
    shared_modules,
    size_deepspeed_buckets,
)

from test_models import SMALL  # tests/ is on sys.path (rootdir-style test imports)


def _small(name):
    args, size = SMALL[name]
    spec = model_spec(name, 1, 3, (size,) * 3, args)
    return spec, size


def _step(model, size):
    model(torch.randn(2, 1, size, size, size)).float().square().mean().backward()


def test_fsdp1_wraps_a_unet_by_size_with_our_precision_policy_and_exports_strictly(one_process_group):
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    spec, size = _small("unet")
    model = build_from_spec(spec)
    plugin = FullyShardedDataParallelPlugin(fsdp_version=1, auto_wrap_policy="size_based_wrap", min_num_params=1000)
    check_fsdp1_wrappable(plugin, model)
    fsdp_mixed_precision(plugin, "bf16")
    plugin.set_auto_wrap_policy(model)  # what accelerate does inside prepare
    wrapped = FSDP(model, auto_wrap_policy=plugin.auto_wrap_policy, mixed_precision=plugin.mixed_precision_policy,
                   device_id=torch.device("cpu"), use_orig_params=True)
    assert sum(isinstance(m, FSDP) for m in wrapped.modules()) > 1  # units below the root
    _step(wrapped, size)
    state = get_model_state_dict(wrapped, options=StateDictOptions(full_state_dict=True))
    plain = build_from_spec(spec)
    plain.load_state_dict(state, strict=True)
    assert all(v.dtype == torch.float32 for v in state.values())  # fp32 master weights, bf16 compute


@pytest.mark.parametrize("name", ["dynunet", "unet3d_mlperf"])
def test_fsdp1_on_a_network_with_twice_registered_modules_is_refused(one_process_group, name):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy

    spec, _ = _small(name)
    assert shared_modules(build_from_spec(spec))
    # What would happen: torch's recursive wrapping meets the shared blocks twice.
    with pytest.raises(AssertionError, match="already wrapped"):
        FSDP(build_from_spec(spec), auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=100),
             device_id=torch.device("cpu"))
    with pytest.raises(ConfigError, match="FSDP1 cannot wrap DynUNet.*FSDP2 profile"):
        check_fsdp1_wrappable(FullyShardedDataParallelPlugin(fsdp_version=1), build_from_spec(spec))
    check_fsdp1_wrappable(FullyShardedDataParallelPlugin(fsdp_version=2), build_from_spec(spec))  # FSDP2: fine


@pytest.mark.parametrize("name, checkpointed", [("swinunetr", False), ("swinunetr", True), ("unet3d_mlperf", False)])
def test_fsdp2_shards_every_block_and_exports_strictly(one_process_group, name, checkpointed, tmp_path):
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
    from torch.distributed.fsdp import FSDPModule, fully_shard

    spec, size = _small(name)
    model = build_from_spec(spec)
    reference = build_from_spec(spec)
    reference.load_state_dict(model.state_dict())
    if checkpointed:
        checkpoint_blocks(model)
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap")
    names = fill_fsdp_wrap_classes(plugin, model)
    policy = fsdp2_prepare_auto_wrap_policy(plugin, model)  # accelerate's FSDP2 policy from our class names
    for module in get_module_children_bottom_up(model)[:-1]:  # as accelerate's fsdp2_prepare_model does
        if policy(module) and not isinstance(module, FSDPModule):
            fully_shard(module)
    fully_shard(model)
    # fully_shard swaps a module's class for FSDP<Class>(Class); look through checkpoint wrappers too.
    units = {cls.__name__ for m in model.modules() if isinstance(m, FSDPModule) and m is not model
             for cls in type(getattr(m, "_checkpoint_wrapped_module", m)).__mro__ if cls.__name__ in names}
    assert units == set(names)
    assert all(any(isinstance(m, FSDPModule) for m in (b, *b.children())) for b in model.modules()
               if type(b).__name__ in names)  # every block is its own unit (or wrapped in one)
    _step(model, size)
    state = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    plain = build_from_spec(spec)
    plain.load_state_dict(state, strict=True)
    # What export_model writes: a tensor registered twice (the MLPerf U-Net's skip_layers) once, under
    # the names of the plain network, read before prepare (FSDP2's sharded network has the same ones).
    shared = shared_tensor_names(plain)
    assert bool(shared) == (name == "unet3d_mlperf") and shared == shared_tensor_names(model)
    save_file({k: v.contiguous() for k, v in state.items() if k not in shared}, tmp_path / "model.safetensors")
    load_weights(plain, tmp_path / "model.safetensors")
    for key, value in reference.state_dict().items():  # one step of nothing but backward: weights unchanged
        torch.testing.assert_close(plain.state_dict()[key], value)


def test_deepspeed_buckets_are_capped_at_the_model_size_unless_the_profile_chose():
    spec, _ = _small("unet")
    model = build_from_spec(spec)
    parameters = sum(p.numel() for p in model.parameters())
    config = {"zero_optimization": {"stage": 2}}
    assert size_deepspeed_buckets(config, model) == {"reduce_bucket_size": parameters,
                                                     "allgather_bucket_size": parameters}
    assert config["zero_optimization"]["reduce_bucket_size"] == parameters
    chosen = {"zero_optimization": {"stage": 3, "reduce_bucket_size": 12345, "allgather_bucket_size": "auto"}}
    assert size_deepspeed_buckets(chosen, model) == {"allgather_bucket_size": parameters}
    assert chosen["zero_optimization"]["reduce_bucket_size"] == 12345
    assert parameters % 2 == 0  # the case above; an odd count is rounded up: ZeRO-1/2 assert a multiple of 2
    odd = torch.nn.Linear(6, 9)  # 54 weights + 9 biases = 63 parameters
    assert size_deepspeed_buckets({}, odd) == {"reduce_bucket_size": 64, "allgather_bucket_size": 64}


def test_shard_like_gives_a_fresh_copy_the_units_and_wrappers_of_a_prepared_network(one_process_group):
    """The benchmark's plain FSDP2 loop (plain_loop.shard_like) must shard exactly as accelerate
    did: here "prepared" is sharded as accelerate's FSDP2 prepare does it, with activation checkpointing."""
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
    from torch.distributed.fsdp import FSDPModule, fully_shard

    from accelerated_seg.plain_loop import shard_like

    spec, size = _small("unet")
    prepared, fresh = build_from_spec(spec), build_from_spec(spec)
    blocks = [name for name, module in prepared.named_modules() if type(module).__name__ == "ResidualUnit"]
    assert len(blocks) > 1
    for name in blocks:
        prepared.set_submodule(name, checkpoint_wrapper(prepared.get_submodule(name), preserve_rng_state=False))
    for name in reversed(blocks):
        fully_shard(prepared.get_submodule(name))
    fully_shard(prepared)

    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, reshard_after_forward=True)
    units = shard_like(fresh, prepared, plugin)

    def structure(model):
        return [(name, type(module).__name__) for name, module in model.named_modules()]

    assert structure(fresh) == structure(prepared)  # wrappers and FSDP classes at the same names
    assert units == [*reversed(blocks), ""]  # children before parents, the root last
    assert all(isinstance(fresh.get_submodule(name), FSDPModule) for name in units)
    _step(fresh, size)  # and it trains


@pytest.mark.parametrize("name", ["segresnet", "swinunetr", "unetr", "dynunet", "unet3d_mlperf"])
def test_fsdp2_size_based_policy_passes_over_containers_of_every_network_at_full_size(name):
    """The shipped fsdp.yaml (size-based, 1 M parameters) on each registry network at its real size:
    accelerate's policy picks an nn.ModuleList (fully_shard refuses it); after
    fsdp2_valid_units_only it picks no container and still finds units."""
    from accelerate.utils import fsdp_utils

    model = build_from_spec(model_spec(name, 1, 3, (96, 96, 96), {}))
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="size_based_wrap",
                                            min_num_params=1_000_000)
    plugin.set_auto_wrap_policy(model)
    modules = get_module_children_bottom_up(model)[:-1]
    fsdp2_valid_units_only()
    fsdp2_valid_units_only()  # idempotent: one wrapper, not two
    accelerates_own = fsdp_utils.fsdp2_prepare_auto_wrap_policy.__wrapped__
    assert not hasattr(accelerates_own, "__wrapped__")
    assert any(is_container(m) for m in modules if accelerates_own(plugin, model)(m))
    policy = fsdp_utils.fsdp2_prepare_auto_wrap_policy(plugin, model)
    chosen = [m for m in modules if policy(m)]
    assert chosen and not any(is_container(m) for m in chosen)


@pytest.mark.parametrize("name", ["unet", "segresnet", "swinunetr", "unetr", "dynunet", "unet3d_mlperf"])
def test_fsdp2_size_based_policy_shards_every_network_at_full_size_root_included(one_process_group, name):
    """accelerate's whole FSDP2 sequence under the shipped fsdp.yaml (units bottom-up, then the root).

    Picking no container was not enough: the root's fully_shard failed for DynUNet and the MLPerf
    U-Net (first seen on an H100) because their skip layers, above 1 M parameters, became units and
    made DTensors of blocks the root reaches again by their other names. The MLPerf U-Net (a DynUNet)
    then trains a step, and its full state dict loads strictly into the plain network."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
    from torch.distributed.fsdp import FSDPModule, fully_shard

    from accelerate.utils import fsdp_utils

    spec = model_spec(name, 1, 3, (96, 96, 96), {})
    model = build_from_spec(spec)
    entangled = modules_entangled_outside(model)
    assert bool(entangled) == (name in ("dynunet", "unet3d_mlperf"))
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="size_based_wrap",
                                            min_num_params=1_000_000)
    plugin.set_auto_wrap_policy(model)
    fsdp2_valid_units_only()
    policy = fsdp_utils.fsdp2_prepare_auto_wrap_policy(plugin, model)
    units = 0
    for module in get_module_children_bottom_up(model)[:-1]:  # as accelerate's fsdp2_prepare_model does
        if policy(module) and not isinstance(module, FSDPModule):
            fully_shard(module)
            units += 1
    fully_shard(model)
    assert units > 0 and not any(isinstance(model.get_submodule(n), FSDPModule) for n, m in model.named_modules()
                                 if id(m) in entangled and n)
    if name == "unet3d_mlperf":  # DynUNet with the MLPerf settings; DynUNet itself shards the same way
        _step(model, 64)  # the smallest size whose bottleneck still has more than 1 voxel
        state = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
        build_from_spec(spec).load_state_dict(state, strict=True)


def test_modules_entangled_outside_are_the_ancestors_of_blocks_registered_twice():
    shared = nn.Linear(2, 2)
    inner = nn.Sequential(shared, nn.ReLU())  # holds `shared`, which the model also registers itself
    model = nn.Module()
    model.shared, model.inner, model.own = shared, nn.Sequential(inner), nn.Sequential(nn.Linear(2, 2))
    model.act = inner[1]  # a shared module without parameters entangles nothing
    assert modules_entangled_outside(model) == {id(inner), id(model.inner)}



def _fsdp1_adamw(spec, **fsdp):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    torch.manual_seed(0)
    model = FSDP(build_from_spec(spec), device_id=torch.device("cpu"), use_orig_params=True, **fsdp)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)


def _fsdp1_run_with(plugin):
    """What ``accelerator.load_state`` asks of the Accelerator under FSDP1."""
    from types import SimpleNamespace

    import torch.distributed as dist
    from accelerate.utils import DistributedType

    return SimpleNamespace(distributed_type=DistributedType.FSDP, state=SimpleNamespace(fsdp_plugin=plugin),
                           process_index=dist.get_rank(), wait_for_everyone=dist.barrier)


def _fsdp1_save_and_resume(folder, state_dict_type, **fsdp):
    """Three AdamW steps under FSDP1, accelerate's save of the optimizer; then a fresh network and
    optimizer loaded as a resume loads them (accelerate's load, then ours). Returns both optimizers'
    states on this rank, and whether loading moved a weight or left a gradient."""
    from accelerate.utils import FullyShardedDataParallelPlugin
    from accelerate.utils.fsdp_utils import load_fsdp_optimizer, save_fsdp_optimizer

    from accelerated_seg.accelerate_workarounds import load_fsdp1_optimizer_state

    spec, size = _small("unet")  # its PReLUs hold one weight each: over 2 ranks one holds none of it
    plugin = FullyShardedDataParallelPlugin(fsdp_version=1, state_dict_type=state_dict_type)
    run = _fsdp1_run_with(plugin)
    model, optimizer = _fsdp1_adamw(spec, **fsdp)
    for _ in range(3):
        _step(model, size)
        optimizer.step()
        optimizer.zero_grad()
    save_fsdp_optimizer(plugin, run, optimizer, model, folder)

    resumed_model, resumed = _fsdp1_adamw(spec, **fsdp)
    weights = [p.detach().clone() for p in resumed_model.parameters()]
    # a str, as accelerator.load_state passes it: accelerate 1.13 and 1.14 test `in` on the folder
    load_fsdp_optimizer(plugin, run, resumed, resumed_model, str(folder))  # what accelerator.load_state does
    load_fsdp1_optimizer_state(run, resumed_model, resumed, folder)
    moved = any(not torch.equal(p, w) or p.grad is not None for p, w in zip(resumed_model.parameters(), weights))
    return optimizer.state_dict(), resumed.state_dict(), moved


def _plain_logger_for_accelerates_fsdp_utils(set_attribute=setattr):
    """accelerate's own save and load run here without an Accelerator, which its logger would want;
    ``set_attribute``: how to set it (a test's ``monkeypatch.setattr`` undoes it afterwards)."""
    import logging

    from accelerate.utils import fsdp_utils

    set_attribute(fsdp_utils, "logger", logging.getLogger("accelerate.utils.fsdp_utils"))


def _assert_same_optimizer_state(saved, loaded, moved):
    assert not moved  # the state was made without moving a weight or leaving a gradient
    assert len(loaded["state"]) == len(saved["state"]) > 0
    for index, state in saved["state"].items():
        assert float(loaded["state"][index]["step"]) == 3
        for key in ("exp_avg", "exp_avg_sq"):
            assert torch.equal(loaded["state"][index][key], state[key])
    assert [g["lr"] for g in loaded["param_groups"]] == [1e-3]


@pytest.mark.parametrize("state_dict_type", ["SHARDED_STATE_DICT", "FULL_STATE_DICT"])
def test_fsdp1_resume_reads_the_saved_optimizer_state_into_a_fresh_optimizer(one_process_group, tmp_path,
                                                                              state_dict_type, monkeypatch):
    """accelerate reads FSDP1's sharded optimizer state into a template made from the optimizer as it
    is; a resumed run's has no state, so the moments were left unread (the H200's 5.6-5.9 output
    difference after a resume): load_fsdp1_optimizer_state reads them."""
    _plain_logger_for_accelerates_fsdp_utils(monkeypatch.setattr)
    _assert_same_optimizer_state(*_fsdp1_save_and_resume(tmp_path, state_dict_type))


def _fsdp1_resume_on_rank(rank, folder):
    import torch.distributed as dist

    _plain_logger_for_accelerates_fsdp_utils()  # this process's own
    dist.init_process_group("gloo", init_method=f"file://{folder / 'store'}", rank=rank, world_size=2)
    try:
        result = _fsdp1_save_and_resume(folder / "checkpoint", "SHARDED_STATE_DICT")
        torch.save(result, folder / f"rank{rank}.pt")
    finally:
        dist.destroy_process_group()
    # Its result written, the rank leaves as the package's ranks do (cli.end_process): FSDP keeps gloo's threads
    # past destroy_process_group, and one aborted at interpreter exit, "terminate called without an active
    # exception" (SIGABRT; the CI of the ninety-second session; docs/strategies.md's known problem)
    sys.stdout.flush(), sys.stderr.flush()
    os._exit(0)


def test_fsdp1_resume_over_two_ranks_reads_the_parameters_one_rank_holds_none_of(tmp_path):
    """Over 2 ranks a PReLU's single weight lies on one rank: the other's template lacks its moments,
    and torch's planner then guessed an old checkpoint and asked for keys it does not have ("Missing
    key in checkpoint state_dict: optimizer.param_groups"). Every rank reads its own part."""
    import torch.multiprocessing as mp

    mp.spawn(_fsdp1_resume_on_rank, args=(tmp_path,), nprocs=2)
    for rank in range(2):
        _assert_same_optimizer_state(*torch.load(tmp_path / f"rank{rank}.pt", weights_only=False))


class _RanksThatGather:
    """An Accelerator stand-in of two ranks whose gather returns this rank's row and the other's."""

    def __init__(self, other):
        self.num_processes, self.device, self.other = 2, torch.device("cpu"), other

    def gather(self, tensor):
        return torch.cat([tensor, self.other(tensor)])


def test_ranks_that_hold_different_starting_weights_are_refused_where_nothing_syncs_them():
    """FSDP2 without a sync keeps each rank's own shards: ranks built from different random states
    trained a mix of initialisations without a word (SwinUNETR on the CPU, seventieth session)."""
    from accelerated_seg.preparation import check_the_ranks_start_alike

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv3d(1, 4, 3), nn.Conv3d(4, 2, 1))
    check_the_ranks_start_alike(_RanksThatGather(lambda row: row.clone()), model)  # alike: nothing said
    with pytest.raises(ConfigError, match=r"the ranks hold different starting weights \(the sums of their parameters: "
                                          r"rank 0: .*, rank 1: .*\).* from the same seed"):
        check_the_ranks_start_alike(_RanksThatGather(lambda row: row + 1), model)  # another digest, another sum


def test_ranks_of_the_same_weights_start_alike_whatever_their_thread_count():
    """The ranks compared float64 sums of the weights, whose last bit depends on how many threads share
    the reduction: nodes under other OMP_NUM_THREADS would have been refused as holding different
    weights (until the seventy-seventh session). The other rank here is this one under one thread."""
    from accelerated_seg.preparation import check_the_ranks_start_alike

    torch.manual_seed(0)
    model = nn.ParameterList([nn.Parameter(torch.randn(n)) for n in (5_000_000, 3_000_000, 1_234_567)])
    threads, seen = torch.get_num_threads(), []
    try:
        torch.set_num_threads(1)
        check_the_ranks_start_alike(_RanksThatGather(lambda row: seen.append(row.clone()) or row.clone()), model)
        torch.set_num_threads(2)
        check_the_ranks_start_alike(_RanksThatGather(lambda row: seen[0]), model)
    finally:
        torch.set_num_threads(threads)
