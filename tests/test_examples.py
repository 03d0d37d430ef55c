"""The runnable examples run (with few steps and small patches)."""

import importlib.util
from pathlib import Path

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
