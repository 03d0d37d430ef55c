"""The CPU run's check that one training step fits in the host's memory (cpu_step_fit.py): it refuses only a
step beyond what is available, measured at the run's own batch. Here since the ninety-sixth session; in
test_plan.py before, where the code was until the ninety-fifth."""

from functools import partial

import pytest

from accelerated_seg import cpu_step_fit, plan
from accelerated_seg.config import ConfigError


def test_the_host_memory_check_refuses_only_a_step_beyond_the_available_memory(monkeypatch):
    """The measured forward/backward peak is a lower bound of a step on the CPU: one step of the demo
    U-Net at 128³ and 160³, batch 2, grew the process by 1.34-1.35x the estimate in fp32 and 1.13x in
    bf16 (benchmarks/plan_cpu_peak.py, forty-third session)."""
    check = partial(cpu_step_fit.check_step_fits_host_memory, "unet", (32, 32, 32), "fp32", 1, 3, None, 2)
    peak = plan.measure_model("unet", (32, 32, 32), "fp32").peak["autocast"].at(2)
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: 2 * peak)
    check(processes=2)  # exactly fits
    with pytest.raises(ConfigError, match=r"at their peak in each process, 0.\d\d GiB in the 3 on this machine, "
                                          r"and 0.\d\d GiB is available"):
        check(processes=3)
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: None)
    check(processes=1000)  # no figure to check against


def test_the_host_memory_check_measures_at_the_runs_batch_where_batch_norm_needs_more_than_one_patch(monkeypatch):
    """A BatchNorm U-Net whose deepest stage is one voxel trains at a batch of 8 (the norm sees 8 values a channel),
    as training's own check of the network passes it; the CPU run's memory check measured the step at batches 1
    and 2, met batch norm's "Expected more than 1 value per channel" at 1, and refused the run in plan's words,
    "data.patch_size (--patch)", which train has no option for (a MONAI user's tutorial U-Net at a 16^3 patch,
    ninety-fourth session). It measures at the run's batch, whose peak the line through it and the next gives."""
    args = {"channels": [4, 8, 16, 32, 64], "strides": [2, 2, 2, 2], "num_res_units": 1, "norm": "batch"}
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: 2**40)
    cpu_step_fit.check_step_fits_host_memory("unet", (16, 16, 16), "fp32", 1, 3, args, 8, 1)
    with pytest.raises(ConfigError, match="Expected more than 1 value per channel"):  # batch 1 cannot train it
        cpu_step_fit.check_step_fits_host_memory("unet", (16, 16, 16), "fp32", 1, 3, args, 1, 1)
    at_8 = plan.measure_model("unet", (16, 16, 16), "fp32", model_args=args, smallest_batch=8).peak["autocast"]
    plain = {**args, "channels": [4, 8, 16, 32], "strides": [2, 2, 2]}  # at batches 1-2 and at 8-9: one line
    measured = partial(plan.measure_model, "unet", (16, 16, 16), "fp32", model_args=plain)
    assert measured().peak["autocast"].at(8) == measured(smallest_batch=8).peak["autocast"].at(8)
    assert at_8.at(8) > 0 and at_8.per_sample > 0


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_host_memory_check_makes_one_meta_pass_and_measures_the_peak_measure_model_gives(monkeypatch, precision):
    """The check needs one number, the peak at the run's batch under autocast; through plan.measure_model it made
    two meta passes in fp32 and four in bf16 (batch and batch + 1, each mode), before every CPU run's first step,
    until the hundred-and-eighth session. One pass gives the same number."""
    args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
    expected = plan.measure_model("unet", (16, 16, 16), precision, 1, 3, args, smallest_batch=2).peak["autocast"].at(2)
    passes, measure_step = [], plan.measure_step
    monkeypatch.setattr(plan, "measure_step", lambda *a, **k: passes.append(a[2]) or measure_step(*a, **k))
    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: expected * 2 - 1)
    assert cpu_step_fit.step_memory_shortfall("unet", (16, 16, 16), precision, 1, 3, args, 2, 2) == (expected,
                                                                                                      expected * 2 - 1)
    assert passes == [2]
