"""bf16 on a CPU without bf16 instructions: emulated, much slower than fp32, and said so; and bf16
convolutions over 2-voxel volumes, whose gradient oneDNN gets wrong at times, named before training."""

import re
from types import SimpleNamespace

import numpy as np
import pytest

from accelerated_seg import host_cpu
from accelerated_seg.host_cpu import bf16_instructions, bf16_two_voxel_warning, emulated_bf16_warning

# The first processor's lines of /proc/cpuinfo on three hosts of this project's sessions, and an Arm one.
ZEN5 = ["processor\t: 0", "cpu family\t: 26", "model\t\t: 2", "model name\t: AMD EPYC",
        "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni"]
ZEN3 = ["processor\t: 0", "cpu family\t: 25", "model\t\t: 1", "model name\t: AMD EPYC", "flags\t\t: fpu sse2 avx2 fma"]
SAPPHIRE_RAPIDS = ["processor\t: 0", "model name\t: Intel(R) Xeon(R) Processor",
                   "flags\t\t: avx2 avx512f avx512_bf16 amx_bf16 amx_tile"]
GRAVITON3 = ["processor\t: 0", "Features\t: fp asimd sve bf16 i8mm", "CPU implementer\t: 0x41"]


def test_native_bf16_is_read_from_x86_flags_and_arm_features():
    assert bf16_instructions(ZEN5) == ["avx512_bf16"]
    assert bf16_instructions(SAPPHIRE_RAPIDS) == ["amx_bf16", "avx512_bf16"]
    assert bf16_instructions(GRAVITON3) == ["bf16"]
    assert bf16_instructions(ZEN3) is None
    assert bf16_instructions(["flags\t\t: fpu avx512f avx512bw"]) is None  # AVX-512 alone emulates bf16


def test_only_a_cpu_known_to_lack_bf16_instructions_is_warned_of():
    warning = emulated_bf16_warning("cpu", "bf16", ZEN3)
    assert "bf16 on this CPU is emulated" in warning and "--mixed_precision no" in warning
    assert "--precision fp32" in warning and "12-18x" in warning
    for lines in (ZEN5, SAPPHIRE_RAPIDS, GRAVITON3, []):  # [] : no /proc/cpuinfo (macOS, Windows), unknown
        assert emulated_bf16_warning("cpu", "bf16", lines) is None
    assert emulated_bf16_warning("cpu", "fp32", ZEN3) is None and emulated_bf16_warning("cuda", "bf16", ZEN3) is None


@pytest.fixture
def cpu_without_bf16(tmp_path, monkeypatch):
    """This process reads ZEN3's /proc/cpuinfo, whatever the host."""
    fake = tmp_path / "cpuinfo"
    fake.write_text("\n".join(ZEN3) + "\n")
    monkeypatch.setattr(host_cpu, "CPUINFO", fake)


def test_prediction_in_bf16_on_such_a_cpu_warns_and_fp32_does_not(cpu_without_bf16, recwarn):
    import torch

    from accelerated_seg.inference import check_precision

    with pytest.warns(UserWarning, match="bf16 on this CPU is emulated"):
        check_precision("bf16", torch.device("cpu"))
    recwarn.clear()
    check_precision("fp32", torch.device("cpu"))
    check_precision("bf16", torch.device("meta"))  # not a CPU: not this warning's
    assert not [w for w in recwarn if "emulated" in str(w.message)]


def test_bf16_training_on_the_cpu_names_the_convolutions_over_two_voxels(tiny_config, tmp_path, monkeypatch, capsys):
    """oneDNN's bf16 weight gradient over a 2-voxel volume came back as garbage in up to 18% of calls
    (benchmarks/results/cpu_bf16_two_voxels_2cpu.json): the default U-Net on 32^3 patches, 2 voxels at
    its bottom, turned NaN within ten steps. The run says which convolutions, and what to change."""
    from accelerated_seg.models import convolutions_over_two_voxels, model_spec
    from accelerated_seg.train import train

    unet = model_spec("unet", 1, 2, [32, 32, 32], {})
    bottom = convolutions_over_two_voxels(unet, (32, 32, 32))
    assert bottom and all(name.startswith("model.1.submodule.1.submodule.1.submodule") for name in bottom)
    assert convolutions_over_two_voxels(model_spec("unet", 1, 2, [48, 48, 48], {}), (48, 48, 48)) == []
    assert bf16_two_voxel_warning("cpu", "no", bottom, (32, 32, 32)) is None
    assert bf16_two_voxel_warning("cuda", "bf16", bottom, (32, 32, 32)) is None
    assert bf16_two_voxel_warning("cpu", "bf16", [], (48, 48, 48)) is None

    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    train(tiny_config(tmp_path / "run", data__patch_size="[8,8,8]", train__max_steps=1, train__val_every=0))
    assert re.search(r"warning: bf16 on the CPU with data.patch_size \(8, 8, 8\): \d+ convolution\(s\) of the network "
                     r"see a volume 2 voxels wide \(model\.1\.submodule\.1\.", capsys.readouterr().out)
    train(tiny_config(tmp_path / "wide", train__max_steps=1, train__val_every=0))  # 16^3: 4 voxels at the bottom
    assert "2 voxels wide" not in capsys.readouterr().out


def test_bf16_warnings_name_the_estimators_precision_and_block_shape(cpu_without_bf16, tiny_dataset, tmp_path,
                                                                     capsys):
    """Segmentation(precision='bf16') on the CPU was told `bf16 on the CPU with data.patch_size (8, 8, 8) ... Train
    in fp32 (--mixed_precision no)` and `fp32 is faster here (--mixed_precision no; --precision fp32 for
    predict)` until the ninety-second session: its ways are its keywords."""
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset, Segmentation

    pairs = [(str(case.images[0]), str(case.label)) for case in load_msd(tiny_dataset).training]
    data = Dataset.from_files(pairs, block_shape=(8, 8, 8), n_classes=3, cache_dir=str(tmp_path / "cache"),
                              num_workers=0).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(tmp_path / "run"), precision="bf16", val_every=0, save_every=0,
                         trackers="none", progress_bar=False)
    model.fit(data, steps=1)
    said = capsys.readouterr().out
    assert re.search(r"warning: bf16 on the CPU with block_shape \(8, 8, 8\): \d+ convolution\(s\)", said)
    assert "Train in fp32 (Segmentation(precision='fp32')), or on a patch whose" in said
    assert "fp32 is faster here (Segmentation(precision='fp32'); predict(..., precision='fp32'))" in said
    assert "--mixed_precision" not in said and "data.patch_size" not in said
    # its predict and evaluate in bf16 were told `--precision fp32 for predict` until the ninety-second session
    with pytest.warns(UserWarning, match=re.escape("fp32 is faster here (predict(..., precision='fp32'));")) as told:
        model.predict(np.random.default_rng(0).random((12, 12, 12)) + 1, precision="bf16")
    with pytest.warns(UserWarning, match=re.escape("fp32 is faster here (evaluate(..., precision='fp32'));")) as also:
        model.evaluate(data, output_dir=str(tmp_path / "scores"), precision="bf16")
    assert not [w for w in [*told, *also] if "--precision" in str(w.message) or "--mixed" in str(w.message)]


def test_fits_bf16_warning_leaves_predict_out(cpu_without_bf16, tmp_path, monkeypatch, capsys):
    """fit's network is its user's, which accelerated-seg predict cannot build: `--precision fp32 for predict` was
    said to it until the ninety-second session. Its precision is the launch's, as the command line's."""
    from accelerated_seg.train import fit
    from test_fit import _pieces  # tests/ is on sys.path

    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "fit", progress_bar=False)
    said = capsys.readouterr().out
    assert "bf16 on this CPU is emulated" in said and "fp32 is faster here (--mixed_precision no); " in said


def test_the_estimators_way_to_fp32_is_spelt_once():
    """predict(..., precision='fp32') was spelt both in ESTIMATOR_NAMES, which fit's bf16 warning names, and in the
    estimator's own _fp32_in, which its predict's and evaluate's named (until the ninety-third session)."""
    from accelerated_seg import estimator
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, estimator_fp32

    assert ESTIMATOR_NAMES.predict_fp32 == estimator_fp32("predict") == "predict(..., precision='fp32')"
    assert estimator_fp32("evaluate") == "evaluate(..., precision='fp32')"
    assert not hasattr(estimator, "_fp32_in")


def test_predict_cases_and_predict_distributed_name_the_callers_way_to_fp32(cpu_without_bf16, tmp_path):
    """Called from Python, both named the command line's `--precision fp32 for predict`, with no way to be told the
    caller's, as predict_file is (until the ninety-third session). The warning comes before the model is read."""
    import torch

    from accelerated_seg.inference import predict_cases
    from accelerated_seg.inference_distributed import predict_distributed
    from accelerated_seg.inference_files import InputCase

    one_process = SimpleNamespace(num_processes=1, process_index=0, device=torch.device("cpu"), is_main_process=True)
    given = "predict_cases(..., precision='fp32')"
    for predicts, inputs in ((predict_cases, ["scan.nii.gz"]), (predict_distributed, ["scan.nii.gz"]),
                             (predict_distributed, [InputCase("case", (tmp_path / "scan.nii.gz",))])):
        options = {"device": "cpu"} if predicts is predict_cases else {"accelerator": one_process}
        with pytest.warns(UserWarning, match=re.escape(f"fp32 is faster here ({given});")), \
                pytest.raises(FileNotFoundError):  # no model there: said after the warning
            predicts(tmp_path / "no_model", inputs, tmp_path / "out", precision="bf16", fp32_setting=given, **options)
