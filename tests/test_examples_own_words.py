"""examples/estimator.py's and examples/fit_your_own.py's own words where their fit warns of, or refuses, a setting
the script has no flag for, and where a rerun meets a run that ended. Each script hands its fit ``names=``
(``EXAMPLE_NAMES``, read here from the script) so that its stops and refusals say its flags; until the
hundred-and-twenty-eighth session (its helper h154, the Left of the session before's entries) the fit's warnings of
another launch and its memory refusal still said the estimator's keywords: bf16 on a CPU without bf16 instructions
``Segmentation(precision='fp32'); predict(..., precision='fp32')``, a step too large for host memory ``block_shape``
and ``set activation_checkpointing=True``, a warm-up as long as the run ``fit(..., warmup_steps=0)``, a launch's
strategy fallen back ``set allow_strategy_fallback=True``; and fit_your_own.py's refusal of a rerun over a run that
ended offered ``continue it with --resume=latest``, which there only exports it again. The probes are in
benchmarks/results/examples_own_words_2026-12-08/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from accelerated_seg.config import ConfigError
from test_stopping_md_examples import _the_scripts_top

# /proc/cpuinfo of a CPU without bf16 instructions (AVX2 alone), where bf16 autocast is emulated
NO_BF16 = ["processor\t: 0", "model name\t: a CPU without bf16", "flags\t\t: fpu sse2 avx avx2"]


def _the_estimator_examples_fit(tiny_dataset, tmp_path: Path, block: int):
    """A Segmentation and Dataset as examples/estimator.py makes them (unet, batch 2, no precision of its own: the
    launch's), tiny, and the names the script gives its fit."""
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset, Segmentation

    pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(tiny_dataset).training]
    data = Dataset.from_files(pairs, block_shape=block, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache"), spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), val_every=0, trackers="none", progress_bar=False)
    return model, data, _the_scripts_top("estimator")["EXAMPLE_NAMES"]


def test_the_estimator_examples_fit_warns_of_bf16_and_its_warm_up_in_the_scripts_words(tiny_dataset, tmp_path,
                                                                                       monkeypatch, capsys):
    """Launched in bf16 (``accelerate launch --mixed_precision bf16``: ACCELERATE_MIXED_PRECISION) on a CPU without
    bf16 instructions, on a patch whose deepest level is 2 voxels, for fewer steps than the estimator's warm-up: each
    warning names the launch's precision, --patch and the script's Segmentation(...) call, none of the estimator's
    keywords. Until the hundred-and-twenty-eighth session: ``Segmentation(precision='fp32'); predict(...,
    precision='fp32')``, ``block_shape (8, 8, 8)``, ``fit(..., warmup_steps=0)``."""
    import accelerated_seg.host_cpu as host_cpu

    monkeypatch.setattr(host_cpu, "cpuinfo_lines", lambda: NO_BF16)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    model, data, names = _the_estimator_examples_fit(tiny_dataset, tmp_path, 8)  # 8 -> 4 -> 2 voxels
    model.fit(data, steps=1, names=names)
    said = capsys.readouterr().out
    launch = "accelerate launch's --mixed_precision no, whose precision this script trains in"
    assert f"fp32 is faster here ({launch}); bf16 pays on GPUs" in said, said[-3000:]
    assert ("warning: bf16 on the CPU with --patch (8, 8, 8): 1 convolution(s) of the network see a volume 2 voxels "
            "wide") in said and f"Train in fp32 ({launch}), or on a patch" in said, said[-3000:]
    assert ("warning: warmup_steps=20 is not below --steps=1: the learning rate rises for the whole run, reaches 5% of "
            "0.001 and never decays; give fewer warm-up steps (warmup_steps=0 in examples/estimator.py's "
            "Segmentation(...) for none) or a longer run (--steps)") in said.splitlines(), said[-3000:]
    assert not re.search(r"precision='|block_shape|fit\(", said), said[-3000:]


def test_the_estimator_examples_step_beyond_host_memory_is_refused_with_its_flag_and_its_call(tiny_dataset, tmp_path,
                                                                                              monkeypatch):
    """The CPU step that host memory cannot hold, refused before the training: --patch, the batch and the script's
    Segmentation(...) call to give activation_checkpointing. Until the hundred-and-twenty-eighth session: ``block_shape
    [16, 16, 16] at batch_size 2 ... Lower block_shape or batch_size, or set activation_checkpointing=True``."""
    import accelerated_seg.cpu_step_fit as cpu_step_fit

    monkeypatch.setattr(cpu_step_fit, "host_memory_available", lambda: 1024)  # a kilobyte: no step fits
    model, data, names = _the_estimator_examples_fit(tiny_dataset, tmp_path, 16)
    with pytest.raises(ConfigError) as refused:
        model.fit(data, steps=1, names=names)
    assert re.fullmatch(r"--patch \[16, 16, 16\] at the batch size 2 cannot train in this machine's memory: .* Lower "
                        r"--patch or the batch size, or give examples/estimator.py's Segmentation\(\.\.\.\) "
                        r"activation_checkpointing=True \(`accelerated-seg plan` estimates a patch and batch\)",
                        str(refused.value)), refused.value
    assert not (tmp_path / "run" / "checkpoints").exists()


def _tiny_pieces():
    """A network, loader, loss and optimizer for fit, of a few 16^3 volumes."""
    from monai.losses import DiceCELoss
    from monai.networks.nets import UNet
    from torch.utils.data import DataLoader, TensorDataset

    images = torch.randn(4, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))
    torch.manual_seed(0)
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,))
    return (model, DataLoader(TensorDataset(images, (images > 0.5).long()), batch_size=2),
            DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()))


@pytest.mark.parametrize("example", ["estimator", "fit_your_own"])
def test_a_fit_examples_launch_whose_strategy_falls_back_is_told_the_scripts_call(example, tiny_dataset, tmp_path,
                                                                                  monkeypatch):
    """An FSDP profile launched where there is no GPU (accelerate runs DDP): the refusal names the script's own call
    to give allow_strategy_fallback=True, which it has no flag for. Until the hundred-and-twenty-eighth session:
    ``or set allow_strategy_fallback=True to run anyway``, a keyword the script's user does not write."""
    from accelerated_seg.train import fit

    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    if example == "estimator":
        model, data, names = _the_estimator_examples_fit(tiny_dataset, tmp_path, 16)
        call = "examples/estimator.py's Segmentation(...)"
        with pytest.raises(ConfigError) as refused:
            model.fit(data, steps=1, names=names)
    else:
        call = "examples/fit_your_own.py's fit(...)"
        with pytest.raises(ConfigError) as refused:
            fit(*_tiny_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False,
                names=_the_scripts_top(example)["EXAMPLE_NAMES"])
    assert str(refused.value).endswith(f"with ACCELERATE_USE_CPU=true), or give {call} allow_strategy_fallback=True "
                                       f"to run anyway."), refused.value
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_fit_your_owns_rerun_over_a_run_that_ended_offers_a_longer_run_and_over_a_stopped_one_its_resume(tmp_path):
    """examples/fit_your_own.py run again without --resume over a run that ended: its refusal offers --resume=latest
    with a larger --epochs, which trains it on (--resume latest alone resumes it at its last step: nothing to train,
    the export written again, which the refusal offered as ``continue it with --resume=latest`` until the
    hundred-and-twenty-eighth session); over a run resumed since and stopped, --resume=latest alone. Refused before
    the phantoms."""
    from accelerated_seg.train import fit

    script = _the_scripts_top("fit_your_own")
    run = tmp_path / "run"
    fit(*_tiny_pieces(), max_steps=2, checkpoint_dir=run, progress_bar=False, names=script["EXAMPLE_NAMES"])
    with pytest.raises(ConfigError) as refused:
        script["main"](["--out", str(tmp_path), "--epochs", "1", "--patch", "32"])
    assert str(refused.value) == (f"{run} already holds a run (checkpoints up to step_2), which a new run there would "
                                  f"replace: continue it with --resume=latest and a larger --epochs, train into "
                                  f"another --out, or set --overwrite to delete it first"), refused.value
    (run / "checkpoints" / "step_3").mkdir()  # a longer resume of it, stopped after step 3: not ended
    with pytest.raises(ConfigError) as refused:
        script["main"](["--out", str(tmp_path), "--epochs", "1", "--patch", "32"])
    assert "continue it with --resume=latest, train into another --out" in str(refused.value), refused.value
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]  # no phantoms written


def test_the_estimator_examples_patch_longer_than_its_cases_is_said_as_its_flag_and_the_sizes_alone():
    """examples/estimator.py's default --patch 64 over its phantoms (at most 48 voxels along axis 2): the warning names
    --patch and suggests the sizes, which --patch, one edge, cannot take as ``--patch=(64, 64, 48)``, as it said once
    the script named its patch --patch (the hundred-and-twenty-eighth session); the estimator keeps its keyword."""
    from accelerated_seg.data.patch_fit import patch_padding_warning
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, callers_names

    names = callers_names(_the_scripts_top("estimator")["EXAMPLE_NAMES"], ESTIMATOR_NAMES, "fit")
    said = patch_padding_warning((64, 64, 64), [(64, 64, 48)], (1.5, 1.5, 1.5), names=names)
    assert said.startswith("warning: --patch [64, 64, 64] is longer than every") and said.endswith(
        "A patch such as (64, 64, 48) sees as much of each case"), said
    said = patch_padding_warning((64, 64, 64), [(64, 64, 48)], (1.5, 1.5, 1.5), names=ESTIMATOR_NAMES)
    assert said.endswith("A patch such as block_shape=(64, 64, 48) sees as much of each case"), said
