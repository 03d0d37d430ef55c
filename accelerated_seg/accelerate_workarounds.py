"""Where accelerate costs the training loop time it need not, or a resume what it drew, and the
smallest fix.

Each workaround names the accelerate version it was found in and what it costs there. The lookup
changes only how often accelerate computes an answer; the skipping loader keeps what the prepared
one was given; the filters drop one log line that says nothing about the run, and torch's
deprecation notice of two collectives DeepSpeed calls, which came at every ZeRO-3 step; DeepSpeed on
CPU processes starts without compiling an op that training never calls; an FSDP1 resume gets its
optimizer's state back; a network whose checkpointed layers are registered twice resumes at all; a
resume under ZeRO-Offload steps on as the uninterrupted run would, to the bit.
(The FSDP2 wrapping fix lives with the other wrapping rules: ``wrapping.fsdp2_valid_units_only``.)
"""

from __future__ import annotations

import functools
import importlib
import logging
import warnings
from pathlib import Path

from .files import by_a_utf8_name


def look_up_lomo_once() -> None:
    """Decide once per process whether the LOMO optimizer package is installed.

    accelerate (1.15) asks ``is_lomo_available()`` twice in every ``AcceleratedOptimizer.step``, and
    each call searches ``sys.path`` for the ``lomo_optim`` package (``importlib.util.find_spec``: a
    ``stat`` per path entry) and reads its metadata if found. On this project's 2-core machine that is
    about 65 µs a call, and it was the largest part of our loop's fixed cost per step: with the answer
    cached, the loop's overhead over a bare PyTorch loop at a 1-parameter network fell from 0.52 to
    0.32–0.33 of the bare step (benchmarks/fixed_step_cost.py; docs/performance_history.md, eighth session).
    On a cluster whose Python
    environment sits on a network filesystem, each ``stat`` is a metadata request, made by every rank
    at every step. Whether a package is installed does not change while a job runs.
    """
    from accelerate import optimizer

    if hasattr(optimizer.is_lomo_available, "cache_info"):
        return
    optimizer.is_lomo_available = functools.cache(optimizer.is_lomo_available)


def skip_first_batches_as_prepared(accelerator, loader, batches: int):
    """``accelerator.skip_first_batches(loader, batches)``, keeping the prepared loader's options.

    accelerate (1.15) builds the skipping ``DataLoaderShard`` without the prepared one's
    ``non_blocking`` (``DataLoaderConfiguration(non_blocking=True)``) and ``_drop_last``. A resumed
    run draws the rest of its run from that loader (one pass covers the run, ``EpochSampler``), so
    without this every step's copy of a pinned batch to the GPU would block the host until done.

    accelerate 1.13 also starts it at ``iteration`` 0 (1.15 passes the prepared loader's). Its first
    ``__iter__`` sets that epoch on the sampler, so a seedable shuffling sampler (``fit``'s) drew
    epoch 0's order for the rest of a later epoch: a resumed ``fit`` saw other batches than the run
    it continued (tests/test_fit.py's shuffled resume, run with accelerate 1.13).
    """
    skipping = accelerator.skip_first_batches(loader, batches)
    for option in ("_non_blocking", "_drop_last", "iteration"):
        if hasattr(loader, option) and hasattr(skipping, option):
            setattr(skipping, option, getattr(loader, option))
    return skipping


#: What DeepSpeed logs when it finds no GPU, and the name of the logger it logs it to (deepspeed 0.19).
DEEPSPEED_CPU_GUESS = ("Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to "
                       "detect it.")
DEEPSPEED_LOGGER = "DeepSpeed"


def _not_deepspeeds_cpu_guess(record: logging.LogRecord) -> bool:
    return record.getMessage() != DEEPSPEED_CPU_GUESS


def quiet_deepspeeds_cpu_guess() -> None:
    """Drop DeepSpeed's warning that it found no GPU, in runs that did not ask for one.

    accelerate (1.15) imports deepspeed, where it is installed, in every ``unwrap_model`` to recognise
    a ``DeepSpeedEngine``, whatever the strategy: so a CPU run without DeepSpeed imports it at its
    first validation, and that first import, finding no GPU, logged "Setting accelerator to CPU. If
    you have GPU or other accelerator, we were unable to detect it." as a WARNING in the middle of the
    progress bar. The run states its device itself (the ``strategy:`` line, and ``launch_error``
    refuses a GPU launch that found none), so the line only alarms. It is filtered out by its exact
    text on DeepSpeed's logger (``logging.getLogger`` gives the same object before deepspeed makes
    it); any other DeepSpeed message still shows. Only where torch sees no GPU: nothing else
    would log it.
    """
    import torch

    logger = logging.getLogger(DEEPSPEED_LOGGER)
    if torch.cuda.is_available() or _not_deepspeeds_cpu_guess in logger.filters:
        return
    logger.addFilter(_not_deepspeeds_cpu_guess)


# torch (2.13) deprecates the collectives DeepSpeed (0.19) moves ZeRO-3's partitions with.
DEEPSPEEDS_DEPRECATED_COLLECTIVES = (r"`torch\.distributed\.(all_gather_into_tensor|reduce_scatter_tensor)` "
                                     r"is deprecated")


def quiet_deepspeeds_deprecated_collectives() -> None:
    """Drop torch's FutureWarning about the two collectives DeepSpeed moves ZeRO-3's partitions with.

    Python shows such a warning once per code location, but forgets what it showed whenever any code
    changes the warning filters (``warnings.catch_warnings`` does, on leaving), and something in
    ZeRO-3's step does so: a 2-process ZeRO-3 run printed the pair again at every step, 34 lines in
    8 steps, about 8,000 in a 1,000-step run (seventieth session). The "once" action does not help:
    CPython keeps its memory in the same per-module registry that the change clears. The notice is
    for DeepSpeed to act on, not for the run, so it is dropped by its text; every other warning shows.
    """
    warnings.filterwarnings("ignore", message=DEEPSPEEDS_DEPRECATED_COLLECTIVES, category=FutureWarning)


def skip_deepspeeds_shared_memory_op() -> None:
    """Start DeepSpeed on CPU processes without compiling its shared-memory all-reduce.

    DeepSpeed (0.19) builds a C++ op, ``deepspeed_shm_comm``, when its torch backend starts on a
    machine without GPUs: a JIT compile of about 75 s on 2 cores of an AVX-512 host and 145 s on an
    AVX2 one, at the first launch in every new Python environment (the test suite's DeepSpeed tests
    waited for it in each fresh CI clone, the other test process waiting on the build's lock). Only
    DeepSpeed's inference tensor parallelism calls it (``inference_all_reduce``, which without the op
    falls back to the process group's all_reduce); ZeRO's gradients and partitions travel through
    torch.distributed over gloo either way. Only where torch sees no GPU: nothing else builds it.
    """
    import torch

    if torch.cuda.is_available():
        return
    # The module by its import name: the attribute deepspeed.comm.torch is the torch package, which
    # deepspeed.comm re-exports (``import deepspeed.comm.torch as backend`` gives torch itself).
    backend = importlib.import_module("deepspeed.comm.torch")  # the caller knows DeepSpeed is the strategy
    backend.build_shm_op = _no_shared_memory_op


def _no_shared_memory_op():
    return None  # what build_shm_op returns where the op cannot be built: the process group's all_reduce


def load_fsdp1_optimizer_state(accelerator, model, optimizer, checkpoint) -> None:
    """After ``accelerator.load_state(checkpoint)`` under FSDP1: read the optimizer's saved state, which
    accelerate leaves unread without a word.

    accelerate (1.15) reads an FSDP1 optimizer's sharded state (any ``fsdp_state_dict_type`` but
    FULL_STATE_DICT; the shipped FSDP1 profiles save SHARDED_STATE_DICT) into the template
    ``FSDP.optim_state_dict(model, optimizer)``, and torch.distributed.checkpoint reads only the
    entries a template has. A resumed run's optimizer has taken no step and holds no state, so the
    template holds the parameter groups alone: AdamW's moments and step count, SGD's momentum buffers,
    started again from zero while the weights, the schedule and the data position resumed. Found on
    one H200 (benchmarks/results/gpu_h200_session_2026-11-30/): the three FSDP1 profiles, resumed from
    half way, ended 5.6-5.9 away from their uninterrupted runs (largest output difference), against
    0.0015 for FSDP2, whose path builds the state first (torch's ``get_optimizer_state_dict``), and
    0.0012 for one process. On CPU processes the resumed AdamW's step count read 10 at step 20.

    So the optimizer first gets state to read into (``build_optimizer_state``), and the load is done
    again, as accelerate does it, with one change: torch's planner, finding entries of the checkpoint
    that a rank's template lacks (a parameter of which the rank holds no part: a PReLU's single weight
    over 2 ranks), guesses a checkpoint of torch 2.3 or older and asks for keys in that old form,
    which this checkpoint does not have ("Missing key in checkpoint state_dict:
    optimizer.param_groups"). ``_planner_for_current_keys`` does not guess.
    """
    from accelerate.utils import DistributedType
    from accelerate.utils.constants import OPTIMIZER_NAME
    from torch.distributed import checkpoint as dcp
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp import StateDictType

    if accelerator.distributed_type != DistributedType.FSDP:
        return
    plugin = accelerator.state.fsdp_plugin
    if plugin.fsdp_version != 1 or plugin.state_dict_type == StateDictType.FULL_STATE_DICT:
        return  # FSDP2 builds the state itself; a full state dict is read whole, not into a template
    bare = getattr(optimizer, "optimizer", optimizer)  # accelerate's wrapper would count a step
    build_optimizer_state(bare)
    accelerator.wait_for_everyone()
    with FSDP.state_dict_type(model, plugin.state_dict_type, plugin.state_dict_config,
                              plugin.optim_state_dict_config):
        saved = {"optimizer": FSDP.optim_state_dict(model, bare)}
        dcp.load(saved, storage_reader=dcp.FileSystemReader(Path(checkpoint) / f"{OPTIMIZER_NAME}_0"),
                 planner=_planner_for_current_keys())
        bare.load_state_dict(FSDP.optim_state_dict_to_load(model=model, optim=bare,
                                                            optim_state_dict=saved["optimizer"]))
    accelerator.wait_for_everyone()


def _planner_for_current_keys():
    from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner, create_default_local_load_plan

    class PlannerForCurrentKeys(DefaultLoadPlanner):
        """torch's load planner without its guess at checkpoints of torch 2.3 or older (which flattened
        lists of settings into one key): this project's checkpoints are all of a later torch."""

        def create_local_plan(self):
            return create_default_local_load_plan(self.state_dict, self.metadata, not self.allow_partial_load)

    return PlannerForCurrentKeys()


def build_optimizer_state(optimizer) -> None:
    """One step at rate 0 on zero gradients, so that ``optimizer`` holds its state for every parameter
    that trains (nothing if it holds some already); each group's rate and every gradient are restored."""
    import torch

    if optimizer.state:
        return
    rates = [group["lr"] for group in optimizer.param_groups]
    given = [p for group in optimizer.param_groups for p in group["params"] if p.requires_grad and p.grad is None]
    try:
        for group in optimizer.param_groups:
            group["lr"] = 0.0  # torch's optimizers take a float rate whatever they were built with
        for parameter in given:
            parameter.grad = torch.zeros_like(parameter)
        optimizer.step()
    finally:
        for group, rate in zip(optimizer.param_groups, rates):
            group["lr"] = rate
        for parameter in given:
            parameter.grad = None


def load_state_also_of_wrapped_aliases(accelerator, model, checkpoint: str | Path) -> None:
    """``accelerator.load_state``, also for a network whose shared layers are wrapped for activation
    checkpointing (found with accelerate 1.15, safetensors 0.7, torch 2.13).

    safetensors' ``load_model`` reconciles the names of shared tensors it did not save by the names
    ``model.state_dict()`` gives, which torch's ``CheckpointWrapper`` strips of its
    ``_checkpoint_wrapped_module.`` prefix, against ``load_state_dict``'s missing keys, which keep it:
    a DynUNet (its ``skip_layers`` share the encoder's blocks) or the MLPerf U-Net trained with
    ``train.activation_checkpointing`` saved its checkpoints and could never resume from them, a
    RuntimeError of "missing" and "unexpected" keys that are one tensor under two names (seventy-
    seventh session's probe). Such a model loads without that strictness, and is then checked here
    tensor by tensor against the file: every saved tensor in place, every tensor of the model saved
    under one of its names. Models without the wrapper, and DeepSpeed's and FSDP's own formats, load
    as accelerate loads them.

    A shared BatchNorm (or an InstanceNorm that tracks running statistics) failed the same way without
    the wrapper (eighty-fourth session's probe: DynUNet or the MLPerf U-Net with ``norm_name: batch``):
    torch's norm layer fills in a ``num_batches_tracked`` missing from the state dict itself, so the
    second name is never "missing", and safetensors then calls it "unexpected". Those load the same way.
    """
    from accelerate.utils import DistributedType

    weights = Path(checkpoint) / "model.safetensors"
    wrapped = any(type(module).__name__ == "CheckpointWrapper" for module in model.modules())
    # their own formats first: a sharded network's state_dict would gather (FSDP1's nested units)
    if accelerator.distributed_type in (DistributedType.DEEPSPEED, DistributedType.FSDP) or not weights.is_file() \
            or not (wrapped or _shares_tracked_batch_counts(accelerator.unwrap_model(model))):
        with by_a_utf8_name(checkpoint) as name:  # safetensors takes a path in UTF-8 alone (files.py)
            accelerator.load_state(name)
        return
    with by_a_utf8_name(checkpoint) as name:
        accelerator.load_state(name, strict=False)
    _check_every_tensor_loaded(accelerator.unwrap_model(model), weights)  # saved without DDP's "module."


def _shares_tracked_batch_counts(model) -> bool:
    """Whether ``model`` registers a norm layer's ``num_batches_tracked`` under two names."""
    seen: set[int] = set()
    for name, value in model.state_dict(keep_vars=True).items():
        if name.endswith("num_batches_tracked"):
            if id(value) in seen:
                return True
            seen.add(id(value))
    return False


def _check_every_tensor_loaded(model, weights: Path) -> None:
    import torch
    from safetensors.torch import load_file

    with by_a_utf8_name(weights) as name:
        saved, current = load_file(name), model.state_dict()
    unknown = [name for name in saved if name not in current]
    differ = [name for name in saved if name in current and not torch.equal(current[name].detach().cpu(), saved[name])]
    loaded = {current[name].data_ptr() for name in saved if name in current}
    unsaved = [name for name, tensor in current.items() if tensor.numel() and tensor.data_ptr() not in loaded]
    if unknown or differ or unsaved:
        listed = "; ".join(f"{what}: {', '.join(names[:3])}{' …' if len(names) > 3 else ''}"
                           for what, names in (("not in the network", unknown), ("not loaded", differ),
                                               ("not in the file", unsaved)) if names)
        raise RuntimeError(f"{weights} does not load into this network whole ({listed})")


def replay_cpu_adams_step_count(optimizer) -> None:
    """Bring a freshly loaded DeepSpeedCPUAdam's bias correction to where the uninterrupted run's is
    (found with DeepSpeed 0.19.8); any other optimizer is left alone.

    The optimizer's C++ side keeps beta1^t and beta2^t as float32 running products, multiplied by
    beta at each step, and computes them with ``pow`` where the step it is given does not follow
    its last or the betas are not its last (deepspeed/ops/csrc/includes/cpu_adam.h,
    ``IncrementStep``). A resumed run's optimizer is new, so its first step takes ``pow``, and
    1 - beta^t rounds otherwise than from the product at some steps (beta2 0.999: t = 3, 6, 19 and
    on; beta1 0.9: t = 14, 16, 31, ...). A ZeRO-3-offload resume therefore matched the
    uninterrupted run only to float32 rounding, up to 2e-4 in biases before an instance norm (their
    gradient is about 0, and Adam scales its rounding up; seventieth session), where ZeRO-2 and
    ZeRO-3 without offload resume exactly. So after the load the steps up to the checkpoint's are
    given to the C++ side once more, in order, each on empty tensors: the products are built as the
    uninterrupted run built them, and no number is touched
    (benchmarks/deepspeed_cpu_adam_resume.py measures both). Its binding is the one
    ``DeepSpeedCPUAdam.step`` calls; where a DeepSpeed changes it, the resume goes on as before.
    """
    if type(optimizer).__name__ != "DeepSpeedCPUAdam" or not hasattr(optimizer, "ds_opt_adam"):
        return
    import torch

    steps = {int(state["step"]) for state in optimizer.state.values() if "step" in state}
    if len(steps) != 1 or len({tuple(group["betas"]) for group in optimizer.param_groups}) != 1:
        # Nothing stepped yet, or steps it cannot replay as one; or groups with betas of their own,
        # for which the C++ side takes pow at every step (the betas change between calls), resumed too.
        return
    group, nothing = optimizer.param_groups[0], torch.empty(0, dtype=torch.float32)
    beta1, beta2 = group["betas"]
    try:
        for step in range(1, steps.pop() + 1):
            optimizer.ds_opt_adam.adam_update(optimizer.opt_id, step, group["lr"], beta1, beta2, group["eps"],
                                              group["weight_decay"], group.get("bias_correction", True),
                                              nothing, nothing, nothing, nothing)
    except (TypeError, RuntimeError):  # another binding: its next step takes pow, as it did before
        return
