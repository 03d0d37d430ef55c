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
    assert all(torch.equal(a, b) for a, b in zip(resumed.state[weights[0]].values(), first.state[weights[0]].values()))
    weights[0].grad = torch.ones(3)
    resumed.step(), schedule.step()
    assert schedule.get_last_lr() == [pytest.approx(2e-3 * lr_multiplier(4, now, 10))]
