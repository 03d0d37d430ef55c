"""``benchmark train``'s Accelerator for each configuration: made exactly as training makes it
(``preparation.make_accelerator``) with the configuration's precision and DDP options, and refused where it
would not run what the configuration's row is labelled with (the launch's strategy falling back, a precision
the profile overrides, channels-last or compile where they cannot take effect), before any work.

Also here: the torch.compile settings of a compile lever as training derives them under this strategy
(``lever_compile_settings``), and how the strategy shards the run (``sharding_in_effect``), which the result records.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .benchmark_train_settings import TimingSettings, TrainCase, case_flags
from .config import ConfigError
from .host_cpu import emulated_bf16_warning


def fresh_accelerator(precision: str, ddp=None, cudnn_benchmark: bool = True):
    """An Accelerator configured exactly as training configures it (``preparation.make_accelerator``), with the
    benchmark's precision (each configuration its own, see ``strategy.next_accelerator_in``)."""
    from .interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous
    from .strategy import next_accelerator_in
    from .preparation import make_accelerator

    # The first configuration's makes the process group: a Ctrl-C as a launch's processes meet ends this one at once,
    # saying nothing, as one interrupted before it does (nothing measured yet). It waited in the rendezvous for the
    # agent's SIGKILL, 30.4 s, until the hundred-and-ninth session's review (benchmarks/results/
    # review_rendezvous_interrupt_r42/).
    with next_accelerator_in(precision), ending_on_an_interrupt_in_the_rendezvous(lambda: None):
        # writes nothing: no checkpoints, no trackers
        return make_accelerator(Path(tempfile.gettempdir()), "none", ddp, cudnn_benchmark)


def check_strategy(accelerator, case: TrainCase) -> None:
    """The strategy measured must be the one the launch asked for: training's checks, before any work."""
    from .compilation import check_compilable
    from .preparation import channels_last_error
    from .strategy import fallback_warning, launch_error

    if error := launch_error(accelerator):
        raise ConfigError(error)
    if warning := fallback_warning(accelerator):  # e.g. an FSDP profile on a CPU: accelerate runs DDP instead
        raise ConfigError(f"{warning} Its figures would be taken for the profile's: measure it where the profile "
                          "takes effect (a GPU), or launch with configs/accelerate/ddp.yaml or cpu.yaml.")
    if case.compile_mode is not None:
        check_compilable(accelerator)  # FSDP1 without use_orig_params cannot be compiled in place
    if case.uses("channels_last") and (error := channels_last_error(accelerator, f"--lever {case.lever}")):
        raise ConfigError(error)
    if problem := precision_not_in_effect(accelerator.mixed_precision, case):
        raise ConfigError(problem)
    if warning := emulated_bf16_warning(accelerator.device.type, case.precision):
        accelerator.print(f"warning: {warning} Both loops run the same emulated kernels: their ratio holds, "
                          "their rates are not bf16's.")


def precision_not_in_effect(mixed_precision: str, case: TrainCase) -> str | None:
    """Why the case cannot be measured where its Accelerator runs ``mixed_precision`` (accelerate's name), else None
    (it runs the case's precision): the row would be labelled with one precision and measure another. A guard behind
    ``benchmark_train_settings._check_precisions_against_the_json``, which since the ninety-seventh session also
    refuses a DeepSpeed json's ``"bf16": {"enabled": false}`` beside --precision bf16 (accelerate fills only a missing
    or "auto" block, and DeepSpeed trains fp32), for whatever else the Accelerator might run that the json does not
    tell before."""
    from .strategy import MIXED_PRECISION, PRECISION_OF_MIXED, requested_strategy

    if mixed_precision == MIXED_PRECISION[case.precision]:
        return None
    runs = PRECISION_OF_MIXED.get(mixed_precision, mixed_precision)
    said = (f"{case_flags(case)}: accelerate runs {runs} (mixed precision {mixed_precision}), so the row would be "
            f"labelled {case.precision} and measure {runs}")
    file = os.environ.get("ACCELERATE_DEEPSPEED_CONFIG_FILE", "none")
    if requested_strategy() == "DeepSpeed" and file != "none":
        return (f"{said}: the DeepSpeed json {file} decides the precision through its bf16 and fp16 blocks. Set "
                f"their \"enabled\" to \"auto\" (they then take --precision), or give the --precision they set")
    return f"{said}. Measure it under a launch that runs --precision {case.precision}"


def sharding_in_effect(accelerator, zero3_leaves: list[str]) -> dict | None:
    """How FSDP or DeepSpeed shards this run (None under DDP or one process): part of what is measured.
    ``zero3_leaves``: the blocks ZeRO-3 gathers whole (train.zero3_leaf_blocks)."""
    from accelerate.utils import DistributedType

    state = accelerator.state
    if state.distributed_type == DistributedType.FSDP:
        plugin = state.fsdp_plugin
        how = plugin.reshard_after_forward  # FSDP1: a ShardingStrategy (FULL_SHARD, ...); FSDP2: a bool
        return {"fsdp_version": plugin.fsdp_version, "reshard_after_forward": getattr(how, "name", how),
                "activation_checkpointing": bool(plugin.activation_checkpointing)}
    if state.distributed_type == DistributedType.DEEPSPEED:
        plugin = state.deepspeed_plugin
        return {"zero_stage": plugin.zero_stage, "offload_optimizer_device": plugin.offload_optimizer_device,
                "offload_param_device": plugin.offload_param_device, "zero3_leaf_blocks": len(zero3_leaves)}
    return None


def ddp_options(case: TrainCase, timing: TimingSettings):
    """The DDP options of this configuration: --ddp-bucket-mb and the case's DDP levers."""
    from .config import DDPConfig

    return DDPConfig(bucket_cap_mb=timing.ddp_bucket_mb, static_graph=case.uses("ddp_static_graph"),
                     gradient_as_bucket_view=case.uses("ddp_bucket_view"))


def lever_compile_settings(accelerator, case: TrainCase, timing: TimingSettings) -> dict | None:
    """The torch.compile keyword arguments of the case's compile lever, as training derives them from
    train.compile (static shapes under FSDP2 among them); None where the case does not compile."""
    from .compilation import compile_settings, settings_for_strategy
    from .config import CompileConfig

    if case.compile_mode is None:
        return None
    requested = CompileConfig(enabled=True, backend=timing.compile_backend, mode=case.compile_mode)
    return settings_for_strategy(accelerator, compile_settings(requested))


def is_fsdp2(accelerator) -> bool:
    from accelerate.utils import DistributedType

    return (accelerator.distributed_type == DistributedType.FSDP
            and accelerator.state.fsdp_plugin.fsdp_version == 2)
