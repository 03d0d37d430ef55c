"""The optimizer a run builds (optim.optimizer) and the state the memory plan counts for it."""

import pytest
import torch

from accelerated_seg.config import ConfigError, OptimConfig, load_config
from accelerated_seg.optimizers import build_optimizer, state_bytes_per_parameter


def _stepped(optim: OptimConfig) -> tuple[torch.optim.Optimizer, int]:
    model = torch.nn.Sequential(torch.nn.Conv3d(1, 4, 3), torch.nn.InstanceNorm3d(4, affine=True),
                                torch.nn.Conv3d(4, 2, 1))
    optimizer = build_optimizer(model.parameters(), optim, lr=0.01)
    model(torch.randn(1, 1, 6, 6, 6)).square().mean().backward()
    optimizer.step()
    return optimizer, sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("optim", [OptimConfig(), OptimConfig(optimizer="sgd"),
                                   OptimConfig(optimizer="sgd", fused=True),
                                   OptimConfig(optimizer="sgd", momentum=0.0, nesterov=False)],
                         ids=["adamw", "sgd", "sgd_fused", "plain_sgd"])
def test_the_state_the_plan_counts_is_the_state_torch_keeps(optim):
    optimizer, parameters = _stepped(optim)
    kept = sum(value.nbytes for state in optimizer.state.values() for value in state.values()
               if torch.is_tensor(value) and value.numel() > 1)  # AdamW's step counter is a scalar
    assert kept == state_bytes_per_parameter(optim) * parameters


def test_sgd_is_built_as_nnunet_trains():
    optimizer, _ = _stepped(OptimConfig(optimizer="sgd", weight_decay=3e-5))
    group = optimizer.param_groups[0]
    assert isinstance(optimizer, torch.optim.SGD)
    assert (group["lr"], group["momentum"], group["nesterov"], group["weight_decay"]) == (0.01, 0.99, True, 3e-5)
    adamw, _ = _stepped(OptimConfig(fused=True))
    assert isinstance(adamw, torch.optim.AdamW) and adamw.param_groups[0]["fused"]


@pytest.mark.parametrize("override, message", [
    ("--optim.optimizer=adam", r"optim.optimizer"),
    ("--optim.momentum=1.0", r"setting optim.momentum must be >= 0.0 and < 1.0, got 1.0"),
    ("--optim.momentum=nan", r"setting optim.momentum must be >= 0.0 and < 1.0"),
    ("--optim.poly_exponent=-1", r"setting optim.poly_exponent must be >= 0"),
    ("--optim.schedule=step", r"optim.schedule"),
])
def test_impossible_optimizer_settings_name_the_setting(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])


def test_nesterov_without_momentum_is_refused_before_torch_refuses_it():
    with pytest.raises(ConfigError, match=r"optim.nesterov needs a momentum .*optim.nesterov: false for plain SGD"):
        load_config(None, ["--optim.optimizer=sgd", "--optim.momentum=0"])
    assert load_config(None, ["--optim.optimizer=sgd", "--optim.momentum=0", "--optim.nesterov=false"])
    assert load_config(None, ["--optim.momentum=0"])  # AdamW: SGD's settings are not used


@pytest.mark.parametrize("optimizer", ["adamw", "sgd"])
def test_after_a_resume_the_optimizer_steps_with_the_runs_settings(optimizer):
    """torch's load_state_dict brings the saved weight decay (and momentum) back, and LambdaLR its
    saved base rate: a run resumed with other settings said so and trained on with the old ones."""
    from accelerated_seg.optimizers import continue_with_the_runs_settings
    from accelerated_seg.schedule import lr_multiplier

    weights = [torch.nn.Parameter(torch.ones(3))]

    def built(optim, lr):
        built_optimizer = build_optimizer(weights, optim, lr)
        return built_optimizer, torch.optim.lr_scheduler.LambdaLR(
            built_optimizer, lambda step: lr_multiplier(step, optim, max_steps=10))

    saved_optim = OptimConfig(optimizer=optimizer, weight_decay=1e-5, momentum=0.99, warmup_steps=2)
    first, first_schedule = built(saved_optim, lr=1e-3)
    for _ in range(3):
        weights[0].grad = torch.ones(3)
        first.step(), first_schedule.step()
    now = OptimConfig(optimizer=optimizer, weight_decay=1e-2, momentum=0.9, nesterov=False, warmup_steps=2)
    resumed, schedule = built(now, lr=2e-3)
    resumed.load_state_dict(first.state_dict()), schedule.load_state_dict(first_schedule.state_dict())
    assert resumed.param_groups[0]["weight_decay"] == 1e-5 and schedule.base_lrs == [1e-3]  # the saved ones
    continue_with_the_runs_settings(schedule, lr=2e-3)
    group = resumed.param_groups[0]
    assert group["weight_decay"] == 1e-2 and group["lr"] == pytest.approx(2e-3 * lr_multiplier(3, now, 10))
    if optimizer == "sgd":
        assert (group["momentum"], group["nesterov"]) == (0.9, False)
    # the moments are kept (a zip with an emptied state compared nothing)
    kept, saved = resumed.state[weights[0]], first.state[weights[0]]
    assert saved and kept.keys() == saved.keys() and all(torch.equal(kept[key], saved[key]) for key in saved)
    weights[0].grad = torch.ones(3)
    resumed.step(), schedule.step()
    assert schedule.get_last_lr() == [pytest.approx(2e-3 * lr_multiplier(4, now, 10))]


@pytest.mark.parametrize("make", [
    lambda params: torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1),
    lambda params: torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1, fused=True),
    lambda params: torch.optim.AdamW(params, lr=torch.tensor(1e-2), weight_decay=0.1, foreach=False),
    lambda params: torch.optim.SGD(params, lr=1e-2, momentum=0.99, nesterov=True, weight_decay=0.1),
], ids=["adamw", "adamw_fused", "adamw_tensor_rate", "sgd_nesterov"])
def test_built_optimizer_state_leaves_weights_rates_and_gradients_as_they_were(make):
    """The state an FSDP1 resume reads into (accelerate_workarounds.build_optimizer_state): one step at
    rate 0 on zero gradients makes it for every parameter that trains, and moves nothing."""
    from accelerated_seg.accelerate_workarounds import build_optimizer_state

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    net[2].requires_grad_(False)  # frozen: no state, as in a run that never steps it
    net[1].weight.grad = torch.ones_like(net[1].weight)  # a gradient already there is kept
    optimizer = make([{"params": net[0].parameters()}, {"params": [*net[1].parameters(), *net[2].parameters()],
                                                         "lr": 0.5}])
    before = {name: p.detach().clone() for name, p in net.named_parameters()}
    rates = [group["lr"] for group in optimizer.param_groups]

    build_optimizer_state(optimizer)

    trained = [*net[0].parameters(), *net[1].parameters()]
    assert set(optimizer.state) == set(trained)
    assert all(torch.equal(p, before[name]) for name, p in net.named_parameters())
    assert [group["lr"] for group in optimizer.param_groups] == [1e-2, 0.5]
    assert all(group["lr"] is rate for group, rate in zip(optimizer.param_groups, rates))  # a tensor's too
    assert torch.equal(net[1].weight.grad, torch.ones_like(net[1].weight))
    assert all(p.grad is None for p in [*net[0].parameters(), net[1].bias, *net[2].parameters()])
    state = {name: value.clone() for name, value in optimizer.state[net[0].weight].items()}
    build_optimizer_state(optimizer)  # it has state: untouched
    assert all(torch.equal(optimizer.state[net[0].weight][name], value) for name, value in state.items())


def test_only_an_fsdp1_resume_from_a_sharded_state_is_read_again():
    """FSDP2 builds its state itself, a full state dict is read whole, and without FSDP nothing reads
    into a template: the optimizer is left to accelerate (no state is made, nothing is read)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin

    from accelerated_seg.accelerate_workarounds import load_fsdp1_optimizer_state

    for distributed_type, plugin in [
            (DistributedType.NO, None), (DistributedType.MULTI_CPU, None),
            (DistributedType.FSDP, FullyShardedDataParallelPlugin(fsdp_version=2)),
            (DistributedType.FSDP, FullyShardedDataParallelPlugin(fsdp_version=1, state_dict_type="FULL_STATE_DICT"))]:
        optimizer = torch.optim.AdamW(torch.nn.Linear(2, 1).parameters())
        run = SimpleNamespace(distributed_type=distributed_type, state=SimpleNamespace(fsdp_plugin=plugin))
        load_fsdp1_optimizer_state(run, None, optimizer, "no checkpoint here")
        assert not optimizer.state


def test_deepspeeds_cpu_adam_is_given_its_step_count_once_per_step_with_one_pair_of_betas():
    """replay_cpu_adams_step_count after a ZeRO-Offload load: the steps up to the checkpoint's, in
    order, on empty tensors; nothing where the optimizer's parameters are at different steps, or its
    groups have betas of their own (the C++ side takes pow at every step there, resumed or not: a
    replay with the first group's betas made such a resume inexact, a reviewer's 2.4e-7), nor for
    another optimizer; another binding leaves the resume as it was."""
    from accelerated_seg.accelerate_workarounds import replay_cpu_adams_step_count

    class Binding:
        def __init__(self):
            self.calls = []

        def adam_update(self, opt_id, step, lr, beta1, beta2, eps, weight_decay, bias_correction, *tensors):
            assert all(t.numel() == 0 and t.dtype == torch.float32 for t in tensors) and len(tensors) == 4
            self.calls.append((opt_id, step, beta1, beta2))

    class DeepSpeedCPUAdam(torch.optim.Adam):
        def __init__(self, groups):
            super().__init__(groups, lr=1e-3)
            self.ds_opt_adam, self.opt_id = Binding(), 7

    a, b = torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))
    optimizer = DeepSpeedCPUAdam([{"params": [a]}, {"params": [b], "lr": 1e-2}])
    optimizer.state[a]["step"], optimizer.state[b]["step"] = torch.tensor(3.0), 3
    replay_cpu_adams_step_count(optimizer)
    assert optimizer.ds_opt_adam.calls == [(7, 1, 0.9, 0.999), (7, 2, 0.9, 0.999), (7, 3, 0.9, 0.999)]
    for unreplayable in ({"steps": (3, 4)}, {"betas": (0.8, 0.99)}):
        betas = unreplayable.get("betas", (0.9, 0.999))
        optimizer = DeepSpeedCPUAdam([{"params": [a]}, {"params": [b], "betas": betas}])
        optimizer.state[a]["step"], optimizer.state[b]["step"] = unreplayable.get("steps", (3, 3))
        replay_cpu_adams_step_count(optimizer)
        assert optimizer.ds_opt_adam.calls == []
    plain = torch.optim.Adam([a])
    plain.state[a]["step"] = 3
    replay_cpu_adams_step_count(plain)  # no binding: nothing to do

    def changed_binding(*args):
        raise TypeError("adam_update(): incompatible function arguments")

    optimizer = DeepSpeedCPUAdam([a])
    optimizer.state[a]["step"] = 2
    optimizer.ds_opt_adam.adam_update = changed_binding
    replay_cpu_adams_step_count(optimizer)  # goes on as before the replay


def test_adamw_stepping_deepspeed_cpu_adams_saved_groups_keeps_its_decoupled_weight_decay():
    """A ZeRO-Offload checkpoint holds DeepSpeedCPUAdam's param groups (``adamw_mode``, ``bias_correction``,
    no ``decoupled_weight_decay``); resumed under a profile without offload, torch's AdamW steps them. Its
    load sets ``decoupled_weight_decay`` for any groups (torch 2.13): were it Adam's default False, the decay
    would go into the gradient as an L2 term from the first resumed step on, without a word. A guard on
    torch (checked in the ninety-sixth session; nothing of ours changed)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import complete_the_loaded_optimizer

    def adamw(weight):
        return torch.optim.AdamW([weight], lr=0.1, weight_decay=0.5)

    def stepped(weight, optimizer):
        weight.grad = torch.full_like(weight, 0.01)
        optimizer.step()
        return weight.detach().clone()

    straight_weight = torch.nn.Parameter(torch.ones(4))
    straight = adamw(straight_weight)
    stepped(straight_weight, straight)
    saved = straight.state_dict()
    for group in saved["param_groups"]:  # as DeepSpeedCPUAdam(adamw_mode=True) saves them
        group.update(bias_correction=True, adamw_mode=True)
        for key in ("decoupled_weight_decay", "maximize", "foreach", "capturable", "differentiable", "fused"):
            group.pop(key)
    resumed_weight = torch.nn.Parameter(straight_weight.detach().clone())
    resumed = adamw(resumed_weight)
    resumed.load_state_dict(saved)
    engine = SimpleNamespace(basic_optimizer=resumed)
    complete_the_loaded_optimizer(SimpleNamespace(distributed_type=DistributedType.DEEPSPEED,
                                                  deepspeed_engine_wrapped=SimpleNamespace(engine=engine)))
    assert resumed.param_groups[0]["decoupled_weight_decay"] is True
    assert torch.equal(stepped(resumed_weight, resumed), stepped(straight_weight, straight))
