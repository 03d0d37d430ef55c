"""The CPU part of benchmarks/verify_strategies.py: the same training under the cpu profile and under
2-process gloo DDP, each export reloaded strictly into plain MONAI and compared, and each run resumed
from its half-way checkpoint under the same profile (the --resume-check the GPU run uses)."""

import importlib.util
from pathlib import Path

import pytest

from conftest import tiny_overrides

pytestmark = pytest.mark.distributed
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "verify_strategies.py"


def test_cpu_profiles_train_export_and_agree(tiny_dataset, tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("verify_strategies", SCRIPT)
    verify_strategies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(verify_strategies)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("PYTHONPATH", str(SCRIPT.parents[1]))
    overrides = tiny_overrides(tiny_dataset, "unused", **{
        "train.max_steps": 4, "train.val_every": 0, "train.save_every": 0, "train.global_batch_size": 4,
        "train.batch_size": "null",
        "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"})
    overrides = [o for o in overrides if not o.startswith("--train.output_dir")]
    records = verify_strategies.verify(verify_strategies.CPU_PROFILES, tmp_path, overrides, tolerance=1e-4, steps=4)
    assert [r["exit"] for r in records] == [0, 0], [r.get("error") for r in records]
    assert all(r["in_effect"] and r["export_loads_strict"] for r in records)
    assert "DDP (MULTI_CPU) on 2 process(es)" in records[1]["strategy"]
    assert records[1]["outputs_match"], records[1]["max_abs_output_diff"]
    # Resumed from step 2 under the same profile, the run ends where the uninterrupted one did.
    assert [r.get("resume_max_abs_output_diff", r.get("resume_error")) for r in records] == [0.0, 0.0]
