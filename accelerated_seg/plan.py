"""Per-GPU memory before launch: which strategy fits, and the batch split that reaches a global batch.

    facts = measure_model("unet3d_mlperf", patch=(128, 128, 128), precision="bf16")
    table = estimate(facts, batch=2, gpus=8)             # {strategy: Estimate}
    proposals = propose(facts, gpus=8, gpu_memory_gib=80, global_batch=32)

Two kinds of numbers go into an estimate:

- **Measured** (``measure_model``): what one training step's forward and backward keep alive. The
  network runs on the ``meta`` device, where tensors have shapes and dtypes but no memory, so a
  128^3 patch costs nothing. Autograd's saved tensors are counted with
  ``torch.autograd.graph.saved_tensors_hooks`` (deduplicated by storage), and every tensor the step
  creates is followed from allocation to release, which gives the peak. Mixed precision is
  reproduced by ``_CudaAutocast``, because ``torch.autocast`` does not act on meta tensors.
- **Counted** (``estimate``): parameters, gradients, optimizer state and communication buffers,
  from the parameter count and what DDP, FSDP and DeepSpeed are documented (and read) to allocate.
  See docs/planning.md for every formula and its source.

Nothing here needs a GPU, except ``measure_peak_on_gpu``, which checks an estimate against
``torch.cuda.max_memory_allocated``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import weakref
from dataclasses import dataclass, field

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

from .config import ConfigError, OptimConfig
from .hand_edited import KeyGivenTwice, loads_once
from .losses import training_loss
from .models import ModelSpec, build_from_spec, check_trainable, meta_network, model_spec
from .optimizers import build_optimizer, state_bytes_per_parameter
from .plan_checks import check_choice, check_network_inputs, check_settings
from .regions import Regions
from .schedule import resolve_batch
from .wrapping import deepspeed_bucket_elements

GIB = 1024**3
PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
STRATEGIES = ("ddp", "fsdp_full_shard", "fsdp_shard_grad_op", "fsdp_no_shard", "zero1", "zero2", "zero3",
              "zero3_offload")
COMPONENTS = ("parameters", "gradients", "optimizer", "activations", "workspace", "communication", "overhead")

# Memory the CUDA runtime takes outside PyTorch's allocator: the context with cuBLAS/cuDNN handles
# (about 0.5-0.75 GiB on an H100 with CUDA 12), and NCCL's communicator buffers when there are
# several GPUs. torch.cuda.max_memory_allocated does not see it; nvidia-smi does. An assumption
# until checked on a GPU (docs/planning.md).
CUDA_CONTEXT_BYTES = int(0.75 * GIB)
NCCL_BUFFER_BYTES = int(0.5 * GIB)
# Share of the GPU kept free for the caching allocator's fragmentation (reserved minus allocated)
# and cuDNN workspaces, which are not modelled.
SAFETY_MARGIN = 0.10

# What the strategies allocate with our profiles (configs/accelerate/*.yaml): FSDP wraps every
# submodule of >= 1M parameters; ZeRO's gradient bucket is the model's size, as training sets it
# (wrapping.deepspeed_bucket_elements: accelerate writes none for MONAI networks, which have no
# model.config.hidden_size, and DeepSpeed's default would be 5e8 elements); the ZeRO-3 prefetch
# bucket keeps DeepSpeed's default.
FSDP_MIN_NUM_PARAMS = 1_000_000
DEEPSPEED_PREFETCH_BUCKET = 50_000_000  # elements; zero_optimization.stage3_prefetch_bucket_size


# --------------------------------------------------------------------------------------------
# Measuring one step's activations on the meta device


@dataclass(frozen=True)
class StepMemory:
    """Bytes one forward + backward keeps alive, apart from parameters and their gradients.

    saved: tensors autograd saves for backward (the activations), deduplicated by storage.
    peak: the most bytes alive at any moment of forward + backward: the saved tensors, the input
        batch, gradients of activations in flight and the loss's temporaries.
    weight_copies: low-precision copies of the weights that autocast makes once per forward (part
        of ``saved``; FSDP's mixed precision gathers low-precision weights instead).
    """

    saved: int
    peak: int
    weight_copies: int = 0


class _CudaAutocast(TorchFunctionMode):
    """CUDA autocast's casting rules for tensors on any device (``torch.autocast`` skips meta).

    Like autocast it acts above autograd, so autograd saves the cast tensors, and it casts each
    weight once per forward. The op lists are the main entries of PyTorch's CUDA autocast op
    reference; ``einsum`` stands for the ``bmm`` it runs inside, which autocast catches there.
    tests/test_plan.py checks the result against a real ``torch.autocast`` run on the CPU, whose
    rules agree for convolutions and instance norm (CPU autocast does not put group/layer norm and
    softmax in fp32, CUDA autocast does).
    """

    LOW_PRECISION = {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                     "linear", "matmul", "__matmul__", "mm", "bmm", "addmm", "baddbmm", "addbmm", "mv",
                     "einsum", "prelu", "scaled_dot_product_attention"}
    FLOAT32 = {"softmax", "log_softmax", "softmin", "layer_norm", "group_norm", "norm", "normalize", "sum", "prod",
               "cumsum", "exp", "log", "pow", "rsqrt", "reciprocal", "softplus", "cdist", "cosine_similarity"}

    def __init__(self, dtype: torch.dtype):
        super().__init__()
        self.dtype = dtype
        self._weight_cache: dict[int, torch.Tensor] = {}
        self.weight_copy_bytes = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in self.LOW_PRECISION:
            args, kwargs = tree_map(lambda t: self._cast(t, self.dtype), (args, kwargs or {}))
        elif name in self.FLOAT32:
            args, kwargs = tree_map(lambda t: self._cast(t, torch.float32), (args, kwargs or {}))
        return func(*args, **(kwargs or {}))

    def __exit__(self, *exc):
        self._weight_cache.clear()  # autocast drops its cache on exit; copies not saved for backward die here
        return super().__exit__(*exc)

    def _cast(self, t, dtype):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.dtype in (dtype, torch.float64):
            return t
        if not (t.is_leaf and t.requires_grad):
            return t.to(dtype)
        if id(t) not in self._weight_cache:  # weights: one copy per forward, as autocast's cache
            self._weight_cache[id(t)] = t.to(dtype)
            self.weight_copy_bytes += self._weight_cache[id(t)].nbytes
        return self._weight_cache[id(t)]


class _LiveBytes(TorchDispatchMode):
    """Follows every storage that an op creates from allocation to release.

    Storages are told apart by a serial number, not ``id()``: Python reuses the id of a freed
    object, and a new storage at an old id would be mistaken for the old one.
    """

    def __init__(self):
        super().__init__()
        self.events: list[tuple[int, int | None]] = []  # (serial, bytes) on allocation, (serial, None) on release
        self.serial_of: dict[int, int] = {}  # id(storage) -> serial, for storages alive now

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and id(t.untyped_storage()) not in self.serial_of:
                storage = t.untyped_storage()
                serial = len(self.events)
                self.serial_of[id(storage)] = serial
                self.events.append((serial, storage.nbytes()))
                weakref.finalize(storage, self._released, id(storage), serial)
        return out

    def _released(self, storage_id: int, serial: int) -> None:
        self.serial_of.pop(storage_id, None)
        self.events.append((serial, None))

    def peak(self, leave_out: set[int]) -> int:
        """Most bytes alive at once, leaving out the storages with serials in ``leave_out``."""
        alive, now, peak = {}, 0, 0
        for serial, nbytes in self.events:
            if nbytes is None:
                now -= alive.pop(serial, 0)
            elif serial not in leave_out:
                alive[serial] = nbytes
                now += nbytes
                peak = max(peak, now)
        return peak


def measure_step(model: nn.Module, in_channels: int, batch: int, patch, precision: str,
                 mode: str = "autocast", loss_fn: nn.Module | None = None) -> StepMemory:
    """Run one forward + loss + backward of ``model`` and count what it keeps alive.

    Args:
        model: the network, on the meta device (free) or a real one (``torch.autocast`` is then
            used for mixed precision where that device supports it; tests compare the two).
        in_channels: image channels of the input.
        batch: samples in the step.
        patch: spatial size of one sample.
        precision: ``fp32``, ``bf16`` or ``fp16``.
        mode: ``autocast`` (accelerate's mixed precision: fp32 weights, low-precision convolutions)
            or ``low_precision`` (DeepSpeed: weights and input cast to the low precision).

        loss_fn: training's loss for the network (``losses.training_loss``; default: one output).

    Returns:
        StepMemory: bytes saved for backward, peak bytes, autocast's weight copies.
    """
    loss_fn = loss_fn or training_loss()

    device = next(model.parameters()).device
    dtype = PRECISIONS[precision]
    if mode == "low_precision":
        model = model.to(dtype)
    keep_out = {id(t.untyped_storage()) for t in [*model.parameters(), *model.buffers()]}
    saved: dict[int, int] = {}

    def count_saved(t):
        storage = t.untyped_storage()
        if id(storage) not in keep_out:  # weights are counted as parameters, not activations
            saved[id(storage)] = storage.nbytes()  # saved tensors stay alive, so their ids stay unique
        return t

    autocast = _autocast_for(device, dtype) if mode == "autocast" and dtype != torch.float32 else None
    live = _LiveBytes()
    with live:
        image = torch.zeros(batch, in_channels, *patch, device=device)  # the data loader's float32 batch
        label = torch.zeros(batch, 1, *patch, dtype=torch.uint8, device=device)
        if mode == "low_precision":
            image = image.to(dtype)
        with torch.autograd.graph.saved_tensors_hooks(count_saved, lambda t: t):
            with autocast or contextlib.nullcontext():
                logits = model(image)
            # accelerate returns the outputs in fp32 and the loss runs outside autocast (train.py).
            loss = loss_fn(logits.float() if autocast else logits, label)
        saved_bytes = sum(saved.values())
        loss.backward()
        gradients = {live.serial_of[id(p.grad.untyped_storage())] for p in model.parameters() if p.grad is not None}
    copies = getattr(autocast, "weight_copy_bytes", 0)
    return StepMemory(saved=saved_bytes, peak=live.peak(leave_out=gradients), weight_copies=copies)


def _autocast_for(device: torch.device, dtype: torch.dtype):
    if device.type == "meta":
        return _CudaAutocast(dtype)
    return torch.autocast(device.type, dtype=dtype)


# --------------------------------------------------------------------------------------------
# What a model brings: parameter counts, FSDP units, activations as a function of the batch


@dataclass(frozen=True)
class PerBatch:
    """Bytes that grow linearly with the batch: ``fixed + per_sample * batch``.

    Fitted from measurements at two batches one apart, 1 and 2 unless the network needs more (tests check
    that batch 3 lands on the line). The fixed part is what one step holds once whatever the batch, such as
    autocast's weight copies.
    """

    fixed: int
    per_sample: int

    def at(self, batch: int) -> int:
        return self.fixed + self.per_sample * batch

    @classmethod
    def through(cls, at_first: int, at_next: int, first: int = 1) -> "PerBatch":
        """The line through ``at_first`` bytes at batch ``first`` and ``at_next`` at ``first + 1``."""
        per_sample = at_next - at_first
        return cls(fixed=at_first - first * per_sample, per_sample=per_sample)


@dataclass(frozen=True)
class ModelFacts:
    spec: ModelSpec
    patch: tuple[int, int, int]
    precision: str
    parameters: int  # all parameter elements
    trainable: int  # those with gradients and optimizer state
    buffer_bytes: int  # e.g. BatchNorm statistics, replicated everywhere
    largest_fsdp_unit: int  # parameters of the largest unit that size-based wrapping makes
    largest_tensor: int  # elements of the largest parameter tensor
    saved: dict[str, PerBatch] = field(default_factory=dict)  # mode -> bytes saved for backward
    peak: dict[str, PerBatch] = field(default_factory=dict)  # mode -> peak bytes of forward + backward
    weight_copies: int = 0  # autocast's low-precision weight copies (bytes, once per step)
    optim: OptimConfig = field(default_factory=OptimConfig)  # whose state is counted (optim.optimizer)


def measure_model(name: str, patch, precision: str = "bf16", in_channels: int = 1, classes: int = 3,
                  model_args: dict | None = None, optim: OptimConfig | None = None,
                  smallest_batch: int = 1) -> ModelFacts:
    """Build the network on the meta device and measure what a training step keeps alive.

    Args:
        name: registry name (``models.MODELS``).
        patch: training patch, three sizes.
        precision: ``fp32``, ``bf16`` or ``fp16``.
        in_channels: image channels.
        classes: output channels: classes, background included, or regions (one may be all).
        model_args: overrides of the registry defaults (``model.args``).
        optim: the run's optimizer settings, for the state it keeps (default: AdamW's).
        smallest_batch: the batch the step is measured at, and the next: the run's own, where one patch cannot
            train (BatchNorm over a one-voxel bottleneck needs two; the host memory check).

    Returns:
        ModelFacts for ``estimate`` and ``propose``. Takes about a second at 128^3.
    """
    check_choice("precision (--precision)", precision, PRECISIONS)
    patch = tuple(int(p) for p in patch)
    check_network_inputs(patch, in_channels, classes)
    spec = _trainable_spec(name, in_channels, classes, patch, model_args, smallest_batch)
    model = meta_network(spec)
    units = fsdp_units(model)
    modes = ("autocast",) if precision == "fp32" else ("autocast", "low_precision")
    saved, peak, copies = {}, {}, 0
    for mode in modes:
        # each step on a copy of the one network built (a step casts it, low_precision, and leaves its gradients):
        # a meta-device copy is built anew as it was, and SwinUNETR's build takes 0.3-1 s on 2 cores, four of
        # them at bf16 until the ninety-ninth session
        one, two = (measure_step(copy.deepcopy(model), in_channels, b, patch, precision, mode, _loss_of(spec, classes))
                    for b in (smallest_batch, smallest_batch + 1))
        saved[mode] = PerBatch.through(one.saved, two.saved, smallest_batch)
        peak[mode] = PerBatch.through(one.peak, two.peak, smallest_batch)
        copies = max(copies, one.weight_copies)
    return ModelFacts(
        spec=spec, patch=patch, precision=precision,
        parameters=sum(p.numel() for p in model.parameters()),
        trainable=sum(p.numel() for p in model.parameters() if p.requires_grad),
        buffer_bytes=sum(b.nbytes for b in model.buffers()),
        largest_fsdp_unit=max(units), largest_tensor=max(p.numel() for p in model.parameters()),
        saved=saved, peak=peak, weight_copies=copies, optim=optim or OptimConfig())


def measure_peak(name: str, patch, precision: str, in_channels: int, classes: int, model_args: dict | None,
                 batch: int) -> int:
    """The peak bytes of one training step's forward and backward at ``batch`` under accelerate's mixed
    precision: ``measure_model(...).peak["autocast"].at(batch)``, the same number, from the one meta pass that
    gives it. The CPU run's memory check (cpu_step_fit.py) needs only this; through measure_model it made two
    passes in fp32 and four in bf16, a fixed cost before every CPU run's first step (in its main process, the
    others waiting): on the tests' tiny U-Net at 16^3, 0.16-0.20 s of CPU in fp32 and 0.25 s in bf16, one pass
    0.09-0.10 s and 0.06 s (benchmarks/results/launch_cost_2026-12-05f/memory_check_probe.py).
    """
    check_choice("precision (--precision)", precision, PRECISIONS)
    patch = tuple(int(p) for p in patch)
    check_network_inputs(patch, in_channels, classes)
    spec = _trainable_spec(name, in_channels, classes, patch, model_args, batch)
    return measure_step(meta_network(spec), in_channels, batch, patch, precision, "autocast",
                        _loss_of(spec, classes)).peak


def _loss_of(spec: ModelSpec, classes: int) -> nn.Module:
    """Training's loss for a measured step. One output is a region's (a sigmoid), scored as training scores it:
    with the softmax loss of classes, MONAI warned "single channel prediction, `softmax=True` ignored" (and of
    to_onehot_y) at each such plan, and at the start of each CPU run of one region (its memory check)."""
    return training_loss(spec, regions=Regions(("region",), ((1,),), (1,)) if classes == 1 else None)


def _trainable_spec(name: str, in_channels: int, classes: int, patch, model_args: dict | None,
                    batch: int = 1) -> ModelSpec:
    """The network's spec, checked as training checks it at ``batch`` (a patch it cannot divide, or too small for
    it: training's error, not a traceback of the measurement), its errors naming plan's options beside the settings
    as this module's own do: "data.patch_size (65, 64, 64) must be divisible" named no --patch."""
    try:
        spec = model_spec(name, in_channels, classes, patch, model_args)
        check_trainable(spec, patch, batch)
    except ConfigError as error:
        message = str(error)
        for setting, option in (("data.patch_size", "--patch"), ("model.args", "--model-args")):
            # after the argument where one is named: model.args.filters (--model-args)
            message = re.sub(rf"{re.escape(setting)}(\.\w+)?", lambda named: f"{named[0]} ({option})", message, count=1)
        raise ConfigError(message) from None
    return spec


def fsdp_units(model: nn.Module, min_num_params: int = FSDP_MIN_NUM_PARAMS) -> list[int]:
    """Parameter counts of the units FSDP's size-based auto-wrap makes of ``model``, root last.

    The rule of ``torch.distributed.fsdp.wrap.size_based_auto_wrap_policy``: walking bottom-up, a
    module becomes a unit when the parameters not already in a unit below it number at least
    ``min_num_params`` (never a ModuleList/ModuleDict; nothing inside MultiheadAttention); the
    root unit holds what is left. A module registered twice (DynUNet lists its blocks both in
    ``downsamples``/``upsamples`` and in ``skip_layers``) is counted once.
    """
    in_units: set[int] = set()  # ids of parameters already in a unit
    visited: set[int] = set()
    units: list[int] = []

    def outside_units(module: nn.Module) -> list[nn.Parameter]:
        return [p for p in module.parameters() if id(p) not in in_units]

    def make_unit(params: list[nn.Parameter]) -> None:
        in_units.update(id(p) for p in params)
        units.append(sum(p.numel() for p in params))

    def visit(module: nn.Module) -> None:
        small = sum(p.numel() for p in outside_units(module)) < min_num_params
        if id(module) in visited or small or isinstance(module, nn.MultiheadAttention):
            return
        visited.add(id(module))
        for child in module.children():
            visit(child)
        rest = outside_units(module)
        if sum(p.numel() for p in rest) >= min_num_params and not isinstance(module, (nn.ModuleList, nn.ModuleDict)):
            make_unit(rest)

    for child in model.children():
        visit(child)
    make_unit(outside_units(model))
    return units


# --------------------------------------------------------------------------------------------
# Per-GPU estimate for each strategy


@dataclass(frozen=True)
class Estimate:
    """One strategy's bytes per GPU, by component (``COMPONENTS``).

    ``total`` is what the GPU needs: everything held through the step, plus the larger of the
    forward/backward peak (activations + workspace) and the optimizer step's temporaries, which
    never coincide. ``allocated`` leaves out the memory outside PyTorch's allocator (``overhead``):
    it is the figure to compare with ``torch.cuda.max_memory_allocated``.
    """

    strategy: str
    components: dict[str, int]
    step_temporaries: int

    @property
    def total(self) -> int:
        c = self.components
        held = c["parameters"] + c["gradients"] + c["optimizer"] + c["communication"] + c["overhead"]
        return held + max(c["activations"] + c["workspace"], self.step_temporaries)

    @property
    def allocated(self) -> int:
        return self.total - self.components["overhead"]

    def fits(self, gpu_memory_gib: float) -> bool:
        return self.total <= usable_bytes(gpu_memory_gib)


def usable_bytes(gpu_memory_gib: float) -> float:
    """One GPU's memory less the share ``SAFETY_MARGIN`` leaves free (what the plan's JSON records as its margin)."""
    return gpu_memory_gib * GIB * (1.0 - SAFETY_MARGIN)


def estimate(facts: ModelFacts, batch: int, gpus: int) -> dict[str, Estimate]:
    """Per-GPU memory of every strategy in ``STRATEGIES`` at a per-device ``batch`` on ``gpus`` GPUs."""
    check_settings(batch=batch, gpus=gpus)
    return {s: _estimate_one(s, facts, batch, gpus) for s in STRATEGIES}


def _estimate_one(strategy: str, facts: ModelFacts, batch: int, gpus: int) -> Estimate:
    states = _model_states(strategy, facts, gpus)
    step_temporaries = states.pop("step_temporaries")
    deepspeed = strategy.startswith("zero")
    mode = "low_precision" if deepspeed and facts.precision != "fp32" else "autocast"
    saved, peak = facts.saved[mode].at(batch), facts.peak[mode].at(batch)
    if strategy.startswith("fsdp"):
        # FSDP's mixed precision gathers the weights in low precision, so autocast copies nothing;
        # the gathered weights are under communication.
        saved, peak = saved - facts.weight_copies, peak - facts.weight_copies
    overhead = CUDA_CONTEXT_BYTES + (NCCL_BUFFER_BYTES if gpus > 1 else 0)
    components = {**states, "activations": saved, "workspace": peak - saved, "overhead": overhead}
    components = {k: int(round(components[k])) for k in COMPONENTS}
    return Estimate(strategy, components, int(round(step_temporaries)))


def _model_states(strategy: str, facts: ModelFacts, gpus: int) -> dict[str, float]:
    """Parameters, gradients, optimizer state, communication buffers and optimizer-step temporaries.

    P trainable parameters, N GPUs, ``low`` bytes per element of the training precision (2 for
    bf16/fp16, 4 for fp32). S bytes of optimizer state per parameter: AdamW's two fp32 moments (8),
    SGD's momentum buffer (4; 0 without momentum). torch's foreach AdamW makes one moment-sized
    temporary in its step, and foreach SGD one gradient-sized for its weight decay. Sources in
    docs/planning.md.
    """
    P, N, U = facts.trainable, gpus, facts.largest_fsdp_unit
    S = state_bytes_per_parameter(facts.optim)
    low = 4 if facts.precision == "fp32" else 2
    mixed = low < 4
    buffers = facts.buffer_bytes
    # A unit's unsharded gradient as FSDP reduces it: in fp32 (wrapping.fsdp_mixed_precision), and
    # under mixed precision also the low-precision gradient it is cast from.
    reduced_unit = 4 * U + (low * U if mixed else 0)
    if strategy == "ddp":
        # accelerate's autocast keeps fp32 weights and gradients. DDP's buckets are a second copy
        # of the gradients (gradient_as_bucket_view is off); one process runs without DDP.
        return dict(parameters=4 * P + buffers, gradients=4 * P, optimizer=S * P,
                    communication=4 * P if N > 1 else 0, step_temporaries=4 * P)
    if strategy == "fsdp_no_shard":
        # Whole fp32 weights, plus their low-precision copy for forward/backward under mixed precision.
        return dict(parameters=4 * P + (low * P if mixed else 0) + buffers, gradients=4 * P, optimizer=S * P,
                    communication=reduced_unit, step_temporaries=4 * P)
    if strategy == "fsdp_shard_grad_op":
        # Sharded fp32 weights; the gathered low-precision weights stay from forward to backward.
        return dict(parameters=4 * P / N + low * P + buffers, gradients=4 * P / N, optimizer=S * P / N,
                    communication=reduced_unit, step_temporaries=4 * P / N)
    if strategy == "fsdp_full_shard":
        # One unit gathered for compute and the next prefetched (BACKWARD_PRE), plus one unit's
        # unsharded gradient before its reduce-scatter.
        return dict(parameters=4 * P / N + buffers, gradients=4 * P / N, optimizer=S * P / N,
                    communication=2 * low * U + reduced_unit, step_temporaries=4 * P / N)
    # DeepSpeed: the module itself is in the training precision; the optimizer keeps an fp32 master
    # partition (4 bytes) beside its state (S). The contiguous-gradients bucket is allocated
    # at its full reduce_bucket_size, which training sizes to the model.
    bucket = low * deepspeed_bucket_elements(P)
    gathered = low * min(P, DEEPSPEED_PREFETCH_BUCKET + facts.largest_tensor)
    master_and_moments = (4 + S) * P / N
    step = 8 * P / N  # the fp32 copy of the gradient partition and the optimizer's temporary
    if strategy == "zero1":
        # Whole low-precision gradients until the accumulation boundary, then this rank's partition.
        return dict(parameters=low * P + buffers, gradients=low * P + low * P / N, optimizer=master_and_moments,
                    communication=bucket, step_temporaries=step)
    if strategy == "zero2":
        return dict(parameters=low * P + buffers, gradients=low * P / N, optimizer=master_and_moments,
                    communication=bucket, step_temporaries=step)
    if strategy == "zero3":
        return dict(parameters=low * P / N + buffers, gradients=low * P / N, optimizer=master_and_moments,
                    communication=bucket + gathered, step_temporaries=step)
    if strategy == "zero3_offload":
        # Partitions, gradients and optimizer live in CPU RAM; the GPU holds gathered weights and the bucket.
        return dict(parameters=buffers, gradients=0, optimizer=0, communication=bucket + gathered,
                    step_temporaries=0)
    raise ConfigError(f"strategy {strategy!r} is not known; choose one of: {', '.join(STRATEGIES)}")


def cpu_memory_for_offload(facts: ModelFacts, gpus: int) -> int:
    """CPU RAM per process that zero3_offload needs: the partitions of weights, master, optimizer state, gradients."""
    low = 4 if facts.precision == "fp32" else 2
    return int(facts.trainable * (low + 4 + state_bytes_per_parameter(facts.optim) + low) / gpus)


# --------------------------------------------------------------------------------------------
# Proposal: the largest batch that fits, and the accumulation that reaches the global batch


@dataclass(frozen=True)
class Proposal:
    strategy: str
    largest_fitting_batch: int  # 0: not even one sample fits
    per_device: int = 0
    accum_steps: int = 0
    estimate: Estimate | None = None  # at per_device

    def describe(self, gpus: int) -> str:
        if not self.largest_fitting_batch:
            return "does not fit even at batch 1 per GPU"
        return (f"{self.per_device} per GPU x {gpus} GPU(s) x {self.accum_steps} accumulation step(s) = global "
                f"{self.per_device * gpus * self.accum_steps}; {_gib(self.estimate.total)} per GPU "
                f"(largest batch that fits: {self.largest_fitting_batch}"
                # the search stops there: more may fit (it said 1024 as if that were the limit)
                f"{' or more, where the search stops' if self.largest_fitting_batch >= MAX_PROPOSED_BATCH else ''})")


MAX_PROPOSED_BATCH = 1024


def propose(facts: ModelFacts, gpus: int, gpu_memory_gib: float,
            global_batch: int | None = None) -> dict[str, Proposal]:
    """For every strategy, the largest per-device batch that fits and how to reach ``global_batch``.

    Args:
        facts: from ``measure_model``.
        gpus: processes, one per GPU.
        gpu_memory_gib: memory of one GPU in GiB (an "80 GB" H100 reports about 79.1 GiB).
        global_batch: samples per optimizer step over all GPUs (``train.global_batch_size``), or
            None for the largest batch without accumulation.

    Returns:
        {strategy: Proposal}: the per-device batch (at most the largest that fits) and the
        accumulation steps, split by ``schedule.resolve_batch``'s rules (global = per-device x
        GPUs x accumulation, exactly).
    """
    check_settings(gpus=gpus, gpu_memory_gib=gpu_memory_gib, global_batch=global_batch)
    return {s: _propose_one(s, facts, gpus, gpu_memory_gib, global_batch) for s in STRATEGIES}


def _propose_one(strategy, facts, gpus, gpu_memory_gib, global_batch) -> Proposal:
    def fits(batch):
        return _estimate_one(strategy, facts, batch, gpus).fits(gpu_memory_gib)

    largest = 0  # memory grows with the batch, so count up until the next one no longer fits
    while largest < MAX_PROPOSED_BATCH and fits(largest + 1):
        largest += 1
    if largest == 0:
        return Proposal(strategy, 0)
    per_device = largest
    if global_batch:  # the largest batch that fits and divides each GPU's share of the global batch
        share = global_batch // gpus
        per_device = max(b for b in range(1, min(largest, share) + 1) if share % b == 0)
    plan = resolve_batch(per_device, global_batch, None, gpus, lr=1.0, base_batch_size=1, lr_scaling="none")
    return Proposal(strategy, largest, plan.per_device, plan.accum_steps,
                    _estimate_one(strategy, facts, plan.per_device, gpus))


# --------------------------------------------------------------------------------------------
# Checking an estimate on a GPU


def require_cuda() -> None:
    if not torch.cuda.is_available():
        raise ConfigError("--measure runs a real training step and needs a CUDA GPU, and none is visible "
                          "(torch.cuda.is_available() is False); drop --measure to get the estimate alone")


def measure_peak_on_gpu(facts: ModelFacts, batch: int) -> int:
    """``torch.cuda.max_memory_allocated`` over real training steps on one GPU (no DDP).

    Two steps of forward, DiceCE loss, backward and the run's optimizer, as in train.py under accelerate's
    mixed precision: the second has the optimizer state allocated, as the estimate assumes.
    Compare with ``estimate(...)["ddp"].allocated`` at ``gpus=1``.
    """
    require_cuda()
    device, dtype = torch.device("cuda"), PRECISIONS[facts.precision]
    model = build_from_spec(facts.spec).to(device)
    optimizer = build_optimizer(model.parameters(), facts.optim, lr=1e-4)
    loss_fn = training_loss(facts.spec)
    image = torch.randn(batch, facts.spec.args["in_channels"], *facts.patch, device=device)
    label = torch.randint(0, facts.spec.args["out_channels"], (batch, 1, *facts.patch), device=device,
                          dtype=torch.uint8)
    torch.cuda.reset_peak_memory_stats()
    for _ in range(2):
        with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
            logits = model(image)
        loss_fn(logits.float(), label).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()


def compare_with_measured(facts: ModelFacts, batch: int, measured: int) -> dict:
    """The single-GPU estimate of what PyTorch allocates next to the measured peak."""
    estimated = _estimate_one("ddp", facts, batch, gpus=1).allocated
    return {"measured_max_memory_allocated_bytes": measured, "estimated_allocated_bytes": estimated,
            "relative_error": (estimated - measured) / measured}


# --------------------------------------------------------------------------------------------
# Reports


def to_dict(facts: ModelFacts, estimates: dict[str, Estimate], batch: int, gpus: int, gpu_memory_gib: float,
            proposals: dict[str, Proposal] | None = None, global_batch: int | None = None,
            comparison: dict | None = None) -> dict:
    """Everything in plain JSON data (bytes as integers, GiB alongside)."""
    usable = usable_bytes(gpu_memory_gib)
    out = {
        "model": facts.spec.to_dict(), "patch": list(facts.patch), "precision": facts.precision,
        "optimizer": facts.optim.optimizer,
        "optimizer_state_bytes_per_parameter": state_bytes_per_parameter(facts.optim),
        "batch_per_gpu": batch, "gpus": gpus, "gpu_memory_gib": gpu_memory_gib, "margin": SAFETY_MARGIN,
        "parameters": facts.parameters, "trainable_parameters": facts.trainable,
        "largest_fsdp_unit_parameters": facts.largest_fsdp_unit,
        "zero3_offload_cpu_ram_per_process_gib": cpu_memory_for_offload(facts, gpus) / GIB,
        "strategies": {s: {"bytes": e.components, "step_temporaries_bytes": e.step_temporaries,
                           "total_bytes": e.total, "total_gib": e.total / GIB, "allocated_bytes": e.allocated,
                           "fits": e.total <= usable} for s, e in estimates.items()},
    }
    if proposals is not None:
        out["global_batch"] = global_batch
        out["proposals"] = {s: {"largest_fitting_batch": p.largest_fitting_batch, "per_device": p.per_device,
                                "accum_steps": p.accum_steps,
                                "total_gib": p.estimate.total / GIB if p.estimate else None}
                            for s, p in proposals.items()}
    if comparison is not None:
        out["measured_on_one_gpu"] = comparison
    return out


def format_table(facts: ModelFacts, estimates: dict[str, Estimate], batch: int, gpus: int,
                 gpu_memory_gib: float, marked: str | None = None) -> str:
    """The table of GiB per GPU; ``marked``: the strategy row of the launch's accelerate profile."""
    usable = usable_bytes(gpu_memory_gib)
    header = (f"{facts.spec.name} ({facts.parameters / 1e6:.2f} M parameters), patch "
              f"{'x'.join(map(str, facts.patch))}, batch {batch} per GPU, {facts.precision}, "
              f"{_optimizer(facts.optim)}, {gpus} GPU(s) of "
              f"{gpu_memory_gib:g} GiB ({_gib(usable)} usable after a {SAFETY_MARGIN:.0%} margin); GiB per GPU")
    names = ["params", "grads", "optim", "activ", "work", "comm", "overhead"]
    lines = [header, f"{'strategy':<20}" + "".join(f"{n:>9}" for n in names) + f"{'total':>9}  fits"]
    for strategy, e in estimates.items():
        cells = "".join(f"{e.components[c] / GIB:>9.2f}" for c in COMPONENTS)
        lines.append(f"{strategy:<20}{cells}{e.total / GIB:>9.2f}  {'yes' if e.total <= usable else 'NO'}"
                     + (PROFILE_MARK if strategy == marked else ""))
    lines.append(f"activ: saved for backward (measured); work: the rest of the forward/backward peak; ddp with "
                 f"1 GPU is plain single-GPU training. zero3_offload needs "
                 f"{_gib(cpu_memory_for_offload(facts, gpus))} of CPU RAM per process.")
    return "\n".join(lines)


def _optimizer(optim: OptimConfig) -> str:
    if optim.optimizer == "sgd":
        return f"SGD (momentum {optim.momentum:g})" if optim.momentum else "SGD (no momentum)"
    return "AdamW"


def format_proposals(proposals: dict[str, Proposal], gpus: int, global_batch: int | None,
                     marked: str | None = None) -> str:
    target = f"global batch {global_batch}" if global_batch else "the largest batch without accumulation"
    lines = [f"proposal for {target}:"]
    lines += [f"  {s:<20}{p.describe(gpus)}{PROFILE_MARK if s == marked else ''}" for s, p in proposals.items()]
    if not any(p.largest_fitting_batch for p in proposals.values()):  # eight rows of "does not fit", and no way on
        lines.append("no strategy fits one sample per GPU: lower --patch, plan for GPUs of more memory "
                     "(--gpu-memory), or set train.activation_checkpointing, which this table does not model")
    return "\n".join(lines)


#: How the table and the proposals point at the launch's own strategy (``plan --accelerate-config``).
PROFILE_MARK = "  <- the accelerate profile's"


def format_comparison(comparison: dict) -> str:
    return (f"measured on this GPU (one process, batch as above): torch.cuda.max_memory_allocated "
            f"{_gib(comparison['measured_max_memory_allocated_bytes'])}, estimated "
            f"{_gib(comparison['estimated_allocated_bytes'])} (ddp at 1 GPU without the overhead), relative error "
            f"{comparison['relative_error']:+.1%}")


def parse_model_args(text: str | None) -> dict | None:
    """``--model-args`` of plan and of benchmark train: a JSON object of ``model.args``, or None where it is not given.

    Raises:
        ConfigError: not JSON, not an object, or a key given twice (hand_edited's words, which json.loads took the
            last of until the hundred-and-twenty-fourth session). benchmark_train_settings kept a copy of its own,
            which said it as ``--model-args`` and took ``''`` as none, until review r113.
    """
    if text is None:
        return None
    try:
        value = loads_once(text, "--model-args (model.args)")
    except KeyGivenTwice as error:
        raise ConfigError(str(error)) from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"--model-args (model.args) is not valid JSON ({error}): {text!r}") from None
    if not isinstance(value, dict):
        raise ConfigError(f"--model-args (model.args) must be a JSON object such as '{{\"dropout\": 0.1}}', "
                          f"got {text!r}")
    return value


def _gib(nbytes: float) -> str:
    return f"{nbytes / GIB:.2f} GiB"
