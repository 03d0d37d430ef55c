import math

import pytest

from accelerated_seg.config import ConfigError, OptimConfig
from accelerated_seg.model_folders import ESTIMATOR_NAMES, Names
from accelerated_seg.schedule import (held_then_warmed, lr_multiplier, lr_multipliers, resolve_batch, warmup_warning,
                                      zero_lr_warning)


def plan(batch=None, global_batch=None, accum=None, n=1, rule="none", base=2):
    return resolve_batch(batch, global_batch, accum, n, 1e-3, base, rule)


def test_per_device_batch_given():
    p = plan(batch=3, accum=2, n=4)
    assert (p.per_device, p.accum_steps, p.global_batch) == (3, 2, 24)


def test_global_batch_with_per_device_resolves_accumulation():
    p = plan(batch=2, global_batch=16, n=2)
    assert (p.per_device, p.accum_steps, p.global_batch) == (2, 4, 16)


def test_global_batch_alone_resolves_per_device():
    p = plan(global_batch=16, n=4)
    assert (p.per_device, p.accum_steps) == (4, 1)
    p = plan(global_batch=16, n=4, accum=2)
    assert (p.per_device, p.accum_steps) == (2, 2)


@pytest.mark.parametrize("kwargs", [
    dict(batch=3, global_batch=16, n=2),  # 16 not a multiple of 6
    dict(batch=2, global_batch=16, n=2, accum=3),  # contradicts the resolved 4
    dict(global_batch=6, n=4),  # 6 not divisible by 4 processes
    dict(batch=0),
])
def test_impossible_requests_name_the_settings(kwargs):
    with pytest.raises(ConfigError, match="train\\."):
        plan(**kwargs)


def test_an_accumulation_that_contradicts_a_divisible_global_batch_says_which_it_should_be():
    """It said "choose a global batch that is a multiple of 2" for a global batch of 4 (seventieth session)."""
    with pytest.raises(ConfigError, match=r"train.global_batch_size 4 = train.batch_size 2 x 1 process\(es\) x 2 "
                                          r"accumulation step\(s\), not the 3 of train.grad_accum_steps; drop one"):
        plan(batch=2, global_batch=4, n=1, accum=3)


def test_a_global_batch_the_batch_and_processes_cannot_split_says_what_splits_and_the_settings_set():
    """With train.grad_accum_steps set, one global batch splits: "a multiple of 16" was said of 2 x 8 x 2 steps,
    and 48 was then refused for its 3 steps. Without it, "x train.grad_accum_steps ?" and "drop one of the three
    settings" where two were set (review r129, hundred-and-twenty-seventh session)."""
    with pytest.raises(ConfigError) as error:
        plan(batch=2, global_batch=24, n=8, accum=2)
    assert str(error.value) == ("train.global_batch_size 24 cannot be split into train.batch_size 2 x 8 process(es) x "
                                "train.grad_accum_steps 2; choose a global batch of 32, or drop one of the three "
                                "settings")
    assert plan(batch=2, global_batch=32, n=8, accum=2).accum_steps == 2  # the one it names splits
    with pytest.raises(ConfigError) as error:
        plan(batch=2, global_batch=24, n=8)
    assert str(error.value) == ("train.global_batch_size 24 cannot be split into train.batch_size 2 x 8 process(es) x "
                                "accumulation steps; choose a global batch that is a multiple of 16, or drop "
                                "train.batch_size or train.global_batch_size")


def test_lr_scaling_rules():
    assert plan(global_batch=8, rule="none").lr == pytest.approx(1e-3)
    assert plan(global_batch=8, rule="linear").lr == pytest.approx(4e-3)
    assert plan(global_batch=8, rule="sqrt").lr == pytest.approx(2e-3)
    with pytest.raises(ConfigError, match="optim.lr_scaling"):
        plan(global_batch=8, rule="cubic")


def test_warmup_then_cosine_to_floor():
    optim = OptimConfig(schedule="cosine", warmup_steps=10, min_lr_ratio=0.01)
    f = [lr_multiplier(s, optim, 110) for s in range(111)]
    assert f[0] == pytest.approx(0.1) and f[9] == pytest.approx(1.0)
    assert f[10] == pytest.approx(1.0)
    assert f[60] == pytest.approx(0.01 + 0.99 * 0.5)
    assert f[110] == pytest.approx(0.01)
    assert all(a >= b for a, b in zip(f[10:], f[11:]))  # monotone decay after warm-up
    assert not any(math.isnan(x) for x in f)


def test_warmup_then_poly_as_nnunet_decays():
    # nnU-Net's PolyLRScheduler: lr * (1 - progress) ** 0.9, here after the same warm-up and to a floor.
    optim = OptimConfig(schedule="poly", poly_exponent=0.9, warmup_steps=10, min_lr_ratio=0.0)
    f = [lr_multiplier(s, optim, 110) for s in range(111)]
    assert f[0] == pytest.approx(0.1) and f[9] == pytest.approx(1.0) and f[10] == pytest.approx(1.0)
    assert f[60] == pytest.approx(0.5 ** 0.9)
    assert f[110] == 0.0
    assert all(a >= b for a, b in zip(f[10:], f[11:]))
    floored = OptimConfig(schedule="poly", warmup_steps=0, min_lr_ratio=0.01)
    assert lr_multiplier(0, floored, 100) == pytest.approx(1.0)
    assert lr_multiplier(100, floored, 100) == pytest.approx(0.01)
    assert lr_multiplier(50, floored, 100) == pytest.approx(0.01 + 0.99 * 0.5 ** 0.9)
    # poly_exponent 0 holds the rate (a constant schedule), 1 is a straight line
    assert lr_multiplier(99, OptimConfig(schedule="poly", poly_exponent=0, warmup_steps=0), 100) == 1.0
    line = OptimConfig(schedule="poly", poly_exponent=1.0, warmup_steps=0, min_lr_ratio=0.0)
    assert lr_multiplier(25, line, 100) == pytest.approx(0.75)


def test_head_only_steps_hold_the_rest_then_warm_it_up_as_a_run_starts():
    optim = OptimConfig(schedule="cosine", warmup_steps=10, min_lr_ratio=0.0)
    whole, rest = lr_multipliers(optim, 110, head_only_steps=30)
    assert [whole(s) for s in range(111)] == [lr_multiplier(s, optim, 110) for s in range(111)]  # the output layers
    assert [rest(s) for s in range(30)] == [0.0] * 30
    assert rest(30) == pytest.approx(0.1 * lr_multiplier(30, optim, 110))  # a new warm-up, from step 30
    assert rest(39) == pytest.approx(lr_multiplier(39, optim, 110))  # then the run's own rate
    assert [rest(s) for s in range(40, 111)] == [whole(s) for s in range(40, 111)]
    no_warmup = OptimConfig(warmup_steps=0)
    assert held_then_warmed(5, no_warmup, 100, 5) == lr_multiplier(5, no_warmup, 100)  # the full rate at once
    assert len(lr_multipliers(optim, 110)) == 1  # one group when nothing is held


def test_a_rate_of_zero_is_warned_of_in_the_callers_words():
    """optim.lr=0 trains nothing and exports the weights it started from: accepted without a word until the
    hundred-and-fifth session, and warned of, not refused, as the init_from tests train at 0 to compare weights."""
    assert zero_lr_warning(OptimConfig(lr=0.0), Names()) == (
        "warning: optim.lr=0.0: no step moves the weights (batch norms' running statistics alone change), so the "
        "run exports the weights it starts from, train.init_from's or untrained ones; give optim.lr > 0 to train")
    assert zero_lr_warning(OptimConfig(lr=0.0), ESTIMATOR_NAMES).startswith("warning: lr=0.0: no step moves")
    assert "init_from's or untrained ones; give lr > 0 to train" in zero_lr_warning(OptimConfig(lr=0), ESTIMATOR_NAMES)
    assert zero_lr_warning(OptimConfig(lr=1e-9), Names()) is None


def test_a_warm_up_as_long_as_the_run_is_warned_of_in_the_callers_words():
    """The learning rate would rise for the whole run and never decay; said by the run's settings or by the
    estimator's keywords (since the ninety-second session)."""
    assert warmup_warning(OptimConfig(warmup_steps=4), 2, 1e-3, Names()) == (
        "warning: optim.warmup_steps=4 is not below train.max_steps=2: the learning rate rises for the whole run, "
        "reaches 50% of 0.001 and never decays; give fewer warm-up steps (--optim.warmup_steps=0 for none) or a "
        "longer run (train.max_steps)")
    # with the way on, in the caller's words, since the hundred-and-fourth session: the estimator's first short fit
    # warned of a default warm-up its user never set, and said nothing of what to give
    assert warmup_warning(OptimConfig(warmup_steps=20), 20, 2e-3, ESTIMATOR_NAMES) == (
        "warning: warmup_steps=20 is not below max_steps=20: the learning rate rises for the whole run, "
        "reaches 100% of 0.002 and never decays; give fewer warm-up steps (fit(..., warmup_steps=0) for none) or a "
        "longer run (fit's epochs or steps)")
    assert warmup_warning(OptimConfig(warmup_steps=19), 20, 1e-3, Names()) is None
