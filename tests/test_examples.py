"""The runnable examples run (with few steps and small patches)."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from processes import run_bounded  # tests/ is on sys.path (rootdir-style test imports)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_estimator_example_fits_predicts_evaluates_saves_and_reloads(tmp_path):
    summary = _example("estimator").main(["--out", str(tmp_path), "--steps", "2", "--patch", "32"])
    assert summary["num_cases"] == 3
    assert (tmp_path / "saved_model" / "model.safetensors").is_file()


def test_fit_your_own_example_trains_a_monai_pipeline_and_resumes(tmp_path):
    first = _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "1", "--patch", "32"])
    assert first["step"] == 4 and Path(first["model"]).is_file()  # 8 cases x 1 batch each, 2 per step
    again = _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "2", "--patch", "32",
                                           "--resume", "latest"])
    assert again["step"] == 8


@pytest.mark.distributed
@pytest.mark.parametrize("strategy", ["ddp", "fsdp2"])
def test_fit_your_own_example_under_two_processes(tmp_path, strategy):
    """2-process DDP, and the shipped fsdp2.yaml really sharded (benchmarks/fsdp_on_cpu.py): the
    user's own SegResNet, optimizer and loader through fit(). Under FSDP2 this failed in prepare
    until wrapping.fsdp2_valid_units_only (SegResNet's down_layers is an nn.ModuleList)."""
    from test_distributed import ROOT, _free_port

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
              "--main_process_port", str(_free_port())]
    if strategy == "ddp":
        launch += ["--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no"]
    else:  # fit_your_own's SegResNet: its down_layers (1.1 M parameters) is above fsdp2.yaml's 1 M
        launch += ["--config_file", str(ROOT / "configs" / "accelerate" / "fsdp2.yaml"),
                   str(ROOT / "benchmarks" / "fsdp_on_cpu.py")]
    cmd = [*launch, str(EXAMPLES / "fit_your_own.py"), "--out", str(tmp_path), "--epochs", "1", "--patch", "32"]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # 8 cases over 2 ranks: 4 batches per rank, 2 per optimizer step; printed by the main process only.
    assert proc.stdout.count("optimizer steps") == 1 and "2 optimizer steps" in proc.stdout
    expected = {"ddp": "DDP (MULTI_CPU) on 2 process(es)", "fsdp2": "FSDP (FSDP) on 2 process(es)"}[strategy]
    assert expected in proc.stdout
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()
