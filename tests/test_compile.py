"""torch.compile in place: settings from the config or the launch, unchanged names, same training."""

import re
from types import SimpleNamespace

import pytest
import torch
from accelerate.utils import DistributedType
from monai.networks.nets import UNet
from safetensors.torch import load_file

from accelerated_seg.compilation import check_compilable, check_cuda_graphs, compile_settings, settings_for_strategy
from accelerated_seg.config import CompileConfig, ConfigError, load_config
from accelerated_seg.train import fit

from test_fit import _pieces  # tests/ is on sys.path


@pytest.fixture
def no_launch_dynamo(monkeypatch):
    for name in ("BACKEND", "MODE", "USE_FULLGRAPH", "USE_DYNAMIC", "USE_REGIONAL_COMPILATION"):
        monkeypatch.delenv(f"ACCELERATE_DYNAMO_{name}", raising=False)
    return monkeypatch


def test_settings_from_the_experiment_config(no_launch_dynamo):
    assert compile_settings(CompileConfig()) is None
    assert compile_settings(CompileConfig(enabled=True)) == {"backend": "inductor"}
    cfg = load_config(None, ["--train.compile.enabled=true", "--train.compile.mode=max-autotune-no-cudagraphs"])
    assert compile_settings(cfg.train.compile) == {"backend": "inductor", "mode": "max-autotune-no-cudagraphs"}
    with pytest.raises(ConfigError, match="train.compile.mode=max-autotune is an inductor mode"):
        compile_settings(CompileConfig(enabled=True, backend="aot_eager", mode="max-autotune"))
    with pytest.raises(ConfigError, match="train.compile.backend='inductr' is not a torch.compile backend"):
        compile_settings(CompileConfig(enabled=True, backend="inductr"))


def test_the_launchs_dynamo_settings_are_honoured_in_place(no_launch_dynamo):
    # What `accelerate launch --dynamo_backend inductor --dynamo_mode max-autotune` exports.
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "INDUCTOR")
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_MODE", "max-autotune")
    assert compile_settings(CompileConfig()) == {"backend": "inductor", "mode": "max-autotune"}
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "NO")
    assert compile_settings(CompileConfig()) is None


def test_fsdp1_without_orig_params_is_refused_before_training():
    def accelerator(version, orig):
        plugin = SimpleNamespace(fsdp_version=version, use_orig_params=orig)
        return SimpleNamespace(distributed_type=DistributedType.FSDP, state=SimpleNamespace(fsdp_plugin=plugin))

    with pytest.raises(ConfigError, match="fsdp_use_orig_params: true"):
        check_compilable(accelerator(1, False))
    check_compilable(accelerator(1, True))
    check_compilable(accelerator(2, False))  # FSDP2 keeps the parameters as they are


def test_cuda_graphs_with_gradient_accumulation_are_refused_before_training(no_launch_dynamo):
    # On an H200 (twenty-eighth session) the second backward of an accumulation window failed inside
    # the CUDA graph trees; the combination is refused where the graphs run, and nowhere else.
    from accelerated_seg.compilation import checked_settings

    def accelerator(device="cuda", accumulation=2):
        return SimpleNamespace(device=torch.device(device), gradient_accumulation_steps=accumulation,
                               distributed_type=DistributedType.NO)

    for mode in ("reduce-overhead", "max-autotune"):
        with pytest.raises(ConfigError, match=f"mode {mode} .* cannot accumulate gradients over 2 micro-batches"):
            check_cuda_graphs(accelerator(), {"backend": "inductor", "mode": mode})
    with pytest.raises(ConfigError, match="train.grad_accum_steps"):  # as train() and fit() check their settings
        checked_settings(accelerator(accumulation=4), CompileConfig(enabled=True, mode="reduce-overhead"))
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "INDUCTOR")  # the launch's mode is checked the same way
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_MODE", "reduce-overhead")
    with pytest.raises(ConfigError, match="the launch's dynamo_mode"):
        checked_settings(accelerator(), CompileConfig())
    check_cuda_graphs(accelerator(accumulation=1), {"backend": "inductor", "mode": "reduce-overhead"})
    check_cuda_graphs(accelerator("cpu"), {"backend": "inductor", "mode": "reduce-overhead"})  # inductor skips them
    for settings in ({"backend": "inductor"}, {"backend": "inductor", "mode": "max-autotune-no-cudagraphs"}):
        check_cuda_graphs(accelerator(), settings)


def test_cuda_graphs_refused_name_each_callers_own_ways(no_launch_dynamo):
    """Every caller was told `(train.compile.mode, or the launch's dynamo_mode)` and `(train.grad_accum_steps or
    fit's grad_accum_steps, or a train.global_batch_size of batch_size x processes)` until the ninety-second
    session: fit has no compile mode nor global batch, and the estimator's settings are keywords."""
    from accelerated_seg.compilation import checked_settings
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES

    accelerator = SimpleNamespace(device=torch.device("cuda"), gradient_accumulation_steps=2,
                                  distributed_type=DistributedType.NO)
    asked = CompileConfig(enabled=True, mode="reduce-overhead")
    with pytest.raises(ConfigError, match=re.escape(
            "mode reduce-overhead (train.compile.mode) replays the backward as CUDA graphs")) as train_s:
        checked_settings(accelerator, asked)
    assert ("set the accumulation to 1 (train.grad_accum_steps=1, or a train.global_batch_size of train.batch_size x "
            "processes), or the mode to default") in str(train_s.value)
    with pytest.raises(ConfigError, match=re.escape("mode reduce-overhead (compile.mode) replays")) as estimator_s:
        checked_settings(accelerator, asked, ESTIMATOR_NAMES)
    assert ("set the accumulation to 1 (grad_accum_steps=1, or a global_batch_size of batch_size x processes)"
            in str(estimator_s.value))
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "INDUCTOR")  # fit's compile=True has no mode of its own
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_MODE", "max-autotune")
    with pytest.raises(ConfigError, match=re.escape("mode max-autotune (the launch's dynamo_mode) replays")) as fit_s:
        checked_settings(accelerator, CompileConfig(enabled=False), FIT_NAMES)
    assert "set the accumulation to 1 (grad_accum_steps=1), or the mode" in str(fit_s.value)
    assert not [said for said in (estimator_s, fit_s) if "train." in str(said.value) or "fit's" in str(said.value)]


def test_fsdp2_compiles_with_static_shapes_unless_the_settings_say_otherwise():
    def accelerator(distributed_type, version=2):
        plugin = SimpleNamespace(fsdp_version=version)
        return SimpleNamespace(distributed_type=distributed_type, state=SimpleNamespace(fsdp_plugin=plugin))

    inductor = {"backend": "inductor"}
    assert settings_for_strategy(accelerator(DistributedType.FSDP), inductor) == {**inductor, "dynamic": False}
    assert settings_for_strategy(accelerator(DistributedType.FSDP), {**inductor, "dynamic": True})["dynamic"]
    assert settings_for_strategy(accelerator(DistributedType.FSDP, version=1), inductor) == inductor
    assert settings_for_strategy(accelerator(DistributedType.MULTI_GPU), inductor) == inductor


def test_a_compiled_run_exports_plain_names_and_resumes_without_compilation(tmp_path, no_launch_dynamo):
    eager = fit(*_pieces(), max_steps=4, checkpoint_dir=tmp_path / "eager", progress_bar=False)
    # The launch asks for compilation (aot_eager: traced and run through AOTAutograd, no code generated).
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "AOT_EAGER")
    compiled = fit(*_pieces(), max_steps=4, checkpoint_dir=tmp_path / "compiled", save_every=2, keep_last=5,
                   progress_bar=False)
    a, b = load_file(eager["model"]), load_file(compiled["model"])
    assert a.keys() == b.keys()  # no "_orig_mod." anywhere
    for key in a:
        torch.testing.assert_close(b[key], a[key], rtol=0, atol=1e-6, msg=f"{key} differs")
    # The training state written while compiled resumes in a run that does not compile.
    no_launch_dynamo.setenv("ACCELERATE_DYNAMO_BACKEND", "NO")
    resumed = fit(*_pieces(seed=1), max_steps=4, checkpoint_dir=tmp_path / "resumed", progress_bar=False,
                  resume=str(tmp_path / "compiled" / "checkpoints" / "step_2"))
    c = load_file(resumed["model"])
    for key in a:
        torch.testing.assert_close(c[key], a[key], rtol=0, atol=1e-6, msg=f"{key} differs after resume")


def test_inductor_compiled_fit_computes_the_same_loss(tmp_path, no_launch_dynamo):
    """With CI's cold cache inductor built 18 shared libraries with g++ here: 8 were the U-Net's kernels (5 without
    residual units) and 10 its probes of which vector instructions the compiler builds, 4 of them compiling ATen's
    vector headers, which the test takes from /proc/cpuinfo instead, as TORCHINDUCTOR_VEC_ISA_OK=1 does (since the
    ninety-ninth session: pytest on it alone 24.1 CPU-seconds before, 14.6 after, in
    benchmarks/results/suite_cuts_2cpu_session_2026-12-04c.json). The kernels are generated, vectorised and built as in
    any run; the probes are inductor's own."""
    import torch._inductor.config

    no_launch_dynamo.setattr(torch._inductor.config.cpp, "vec_isa_ok", True)
    eager = fit(*_pieces(num_res_units=0), max_steps=2, checkpoint_dir=tmp_path / "eager", log_every=1,
                progress_bar=False)
    compiled = fit(*_pieces(num_res_units=0), max_steps=2, checkpoint_dir=tmp_path / "inductor", log_every=1,
                   progress_bar=False, compile=True)  # generated C++ kernels on the CPU: fused, so equal up to rounding
    # both steps logged by both (a zip of two empty lists compared nothing)
    assert [step for step, _ in compiled["losses"]] == [step for step, _ in eager["losses"]] == [1, 2]
    for (step, loss), (_, reference) in zip(compiled["losses"], eager["losses"]):
        assert loss == pytest.approx(reference, rel=1e-4), f"step {step}"
    fresh = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=0)
    fresh.load_state_dict(load_file(compiled["model"]), strict=True)


@pytest.mark.cuda  # CUDA graphs: inductor skips them on other devices
def test_cuda_graphs_train_through_validation_as_eager_does(tiny_config, tmp_path, no_launch_dynamo):
    # mode=reduce-overhead replays the forward and backward as CUDA graphs, whose outputs live in
    # memory the next replay overwrites: the loop must use each step's logits before the next
    # forward, also across the validation's no-grad forwards in between. (With accumulation the graphs
    # fail in torch itself, and training refuses the combination: the test above.)
    from accelerated_seg.train import train

    common = dict(train__max_steps=4, train__grad_accum_steps=1, train__batch_size=2, train__val_every=2,
                  train__save_every=0)
    eager = train(tiny_config(tmp_path / "eager", **common))
    graphs = train(tiny_config(tmp_path / "graphs", train__compile__enabled="true",
                               train__compile__mode="reduce-overhead", **common))
    assert [step for step, _ in graphs["losses"]] == [1, 2, 3, 4]
    for (step, loss), (_, reference) in zip(graphs["losses"], eager["losses"]):
        assert loss == pytest.approx(reference, rel=1e-2), f"step {step}"  # fused kernels: equal up to rounding
    assert graphs["best_dice"] == pytest.approx(eager["best_dice"], abs=0.02)
