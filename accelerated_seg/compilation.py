"""``torch.compile`` of the prepared model, in place, so that nothing about the model's names changes.

accelerate can compile for us (``--dynamo_backend`` at launch, or ``Accelerator(dynamo_backend=...)``),
but it wraps the prepared model in an ``OptimizedModule``, whose state dict names every parameter
``_orig_mod.<name>``. ``accelerator.get_state_dict`` keeps that prefix (accelerate 1.15), so an
exported ``model.safetensors`` would no longer load into a plain MONAI network, and a run could not
be resumed with compilation switched the other way. ``nn.Module.compile`` compiles the same forward
without a wrapper: state-dict names, checkpoints and exports are identical with and without it.

Where it is applied follows PyTorch's guidance for each strategy: on the DDP wrapper (so Dynamo sees
DDP and splits the graph at gradient-bucket boundaries, keeping the all-reduce overlapped with
backward), on the FSDP-wrapped model (FSDP1 needs ``use_orig_params``), and through DeepSpeed's own
in-place ``engine.compile`` under DeepSpeed (as accelerate does).

The settings come from ``train.compile`` (``fit(compile=True)``), or else from the launch: a profile's
``dynamo_config`` or ``accelerate launch --dynamo_backend`` is honoured here instead of by accelerate
(``preparation.make_accelerator`` tells accelerate not to compile).
"""

from __future__ import annotations

from accelerate.utils import DistributedType, TorchDynamoPlugin

from .config import CompileConfig, ConfigError
from .model_folders import Names


def checked_settings(accelerator, requested: CompileConfig, names: Names = Names()) -> dict | None:
    """The torch.compile settings of a run (train.compile, or else the launch's), checked against the
    strategy before any data work; None for no compilation. ``names``: how the caller names train.compile
    (fit's and the estimator's keyword, compile, since the ninety-second session)."""
    settings = compile_settings(requested, names)
    if settings is not None:
        check_compilable(accelerator, names)
        # the mode is the run's own setting where it asked to compile (fit's compile=True asks for none), else the
        # launch's
        asked = requested is not None and requested.enabled
        check_cuda_graphs(accelerator, settings, names,
                          names.setting("train.compile.mode") if asked else "the launch's dynamo_mode")
        settings = settings_for_strategy(accelerator, settings)
    return settings


def compile_settings(requested: CompileConfig | None, names: Names = Names()) -> dict | None:
    """``torch.compile`` keyword arguments for this run, or None for no compilation.

    ``requested`` (train.compile) wins; when it is off, the launch's dynamo settings (accelerate reads
    them from ``ACCELERATE_DYNAMO_*``) decide.
    """
    if requested is not None and requested.enabled:
        _check_backend(requested.backend, names)
        kwargs = {"backend": requested.backend}
        if requested.mode != "default":
            if requested.backend != "inductor":
                raise ConfigError(f"{names.set_to('train.compile.mode', requested.mode)} is an inductor mode; with "
                                  f"{names.set_to('train.compile.backend', requested.backend)} leave the mode at "
                                  f"default")
            kwargs["mode"] = requested.mode
        return kwargs
    launch = TorchDynamoPlugin()  # reads the launch's environment
    if launch.backend.value.lower() == "no":
        return None
    kwargs = {"backend": launch.backend.value.lower()}
    if launch.mode not in (None, "default"):
        kwargs["mode"] = launch.mode
    if launch.fullgraph:
        kwargs["fullgraph"] = True
    if launch.dynamic is not None:
        kwargs["dynamic"] = launch.dynamic
    return kwargs


def _check_backend(name: str, names: Names = Names()) -> None:
    """An unknown backend would fail only at the first forward, after the data work: fail here."""
    import torch._dynamo

    known = torch._dynamo.list_backends(exclude_tags=())
    if name not in known:
        raise ConfigError(f"{names.setting('train.compile.backend')}={name!r} is not a torch.compile backend here; "
                          f"use inductor (or aot_eager / eager to check tracing): known are {', '.join(known)}")


def describe_compile(settings: dict) -> str:
    return "torch.compile in place (" + ", ".join(f"{k}={v}" for k, v in settings.items()) + ")"


def check_compilable(accelerator, names: Names = Names()) -> None:
    """Refuse, before training, a strategy whose compiled model would not train correctly."""
    if accelerator.distributed_type == DistributedType.FSDP:
        plugin = accelerator.state.fsdp_plugin
        if plugin.fsdp_version == 1 and not plugin.use_orig_params:
            raise ConfigError(f"torch.compile under FSDP1 needs fsdp_use_orig_params: true in the accelerate config "
                              f"(FSDP1 otherwise hands Dynamo flattened parameters); set it, use an FSDP2 profile, "
                              f"or switch {names.setting('train.compile')} off")


# inductor's modes that replay the forward and backward as CUDA graphs (on CUDA devices; elsewhere skipped)
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")


def check_cuda_graphs(accelerator, settings: dict, names: Names = Names(),
                      mode_from: str = "train.compile.mode, or the launch's dynamo_mode") -> None:
    """Refuse, before training, CUDA graphs together with gradient accumulation.

    CUDA graph trees install the backward's gradients as outputs of the replayed graph, and the next
    micro-batch's forward starts a new replay whose memory they share: the second backward of a window
    then adds into overwritten buffers and fails ("accessing tensor output of CUDAGraphs that has been
    overwritten by a subsequent run"; seen on an H200 in the twenty-eighth session, torch 2.11, and
    pytorch/pytorch#169545). The graphs bought +0.5% on the MLPerf U-Net at batch 4 there, so a larger
    per-device batch or the graph-free modes lose nothing measurable.

    ``names``: how the caller sets the accumulation (fit has no global batch; the estimator's are keywords),
    ``mode_from``: where the mode was set. Until the ninety-second session every caller was told of train's
    and fit's settings alike.
    """
    mode = settings.get("mode")
    accumulation = accelerator.gradient_accumulation_steps
    if mode in CUDA_GRAPH_MODES and accelerator.device.type == "cuda" and accumulation > 1:
        raise ConfigError(
            f"torch.compile mode {mode} ({mode_from}) replays the backward as CUDA graphs, which cannot accumulate "
            f"gradients over {accumulation} micro-batches per optimizer step (the graphs overwrite the earlier "
            f"micro-batch's gradients): set the accumulation to 1 ({_accumulation_of_one(names)}), or the mode to "
            f"default or max-autotune-no-cudagraphs")


def _accumulation_of_one(names: Names) -> str:
    """The caller's ways to one micro-batch per step: its grad_accum_steps, or a global batch of one micro-batch
    per process where it sets one (fit does not)."""
    one = names.set_to("train.grad_accum_steps", 1)
    if not names.global_batch:
        return one
    return (f"{one}, or a {names.setting('train.global_batch_size')} of {names.setting('train.batch_size')} x "
            f"processes")


def settings_for_strategy(accelerator, settings: dict) -> dict:
    """Static shapes under FSDP2 unless the settings name ``dynamic``.

    FSDP2's hooks end a graph at every FSDP unit, so each block's forward is traced on its own, and
    MONAI's blocks of one class share one forward: Dynamo recompiles it for each block's shapes. By
    default the second shape makes Dynamo retrace with symbolic sizes, and inductor (torch 2.13)
    then fails to compile the backward of those graphs (``ValueRangeError: Invalid ranges [0:-1]``),
    found with ``fsdp2_blocks.yaml`` over 2 CPU processes (benchmarks/fsdp_on_cpu.py). With static
    shapes the same run trains: each block shape compiles once, up to Dynamo's recompile limit (8
    per forward; the blocks beyond it run eagerly, and Dynamo says so).
    """
    is_fsdp2 = (accelerator.distributed_type == DistributedType.FSDP
                and accelerator.state.fsdp_plugin.fsdp_version == 2)
    return {**settings, "dynamic": False} if is_fsdp2 and "dynamic" not in settings else settings


def compile_in_place(accelerator, model, settings: dict) -> None:
    """Compile the forward of the prepared ``model`` (the object ``accelerator.prepare`` returned)."""
    if accelerator.distributed_type == DistributedType.DEEPSPEED:
        rest = {k: v for k, v in settings.items() if k != "backend"}
        model.compile(backend=settings["backend"], compile_kwargs=rest)  # DeepSpeedEngine.compile
    else:
        model.compile(**settings)  # nn.Module.compile: the module itself, no wrapper


def compile_prepared(accelerator, model, settings: dict | None) -> None:
    """Compile the prepared ``model`` in place where ``settings`` (``checked_settings``) ask, and say so."""
    if settings is None:
        return
    compile_in_place(accelerator, model, settings)
    accelerator.print(f"{describe_compile(settings)}: the first steps include the compilation")
