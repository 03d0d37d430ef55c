"""The garbage collector paused while a process imports the stack, and the imports frozen after it
(accelerated_seg/collector.py)."""

import gc
import importlib.util
import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import accelerated_seg.train
from accelerated_seg import cli
from accelerated_seg.collector import importing_without_collection
from conftest import tiny_overrides

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def nothing_frozen():
    """Objects frozen by an earlier test set back, and this test's set back after it: a test that
    waits for an object to be collected must not find it frozen."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.enable()


def test_the_collector_is_paused_in_the_block_and_runs_after_it_with_what_existed_frozen(nothing_frozen):
    held = [[] for _ in range(100)]  # objects the collector tracks, made before the block
    with importing_without_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(held)  # every object there was, these among them
    assert all(not gc.is_finalized(item) for item in held)  # still there: frozen is not freed


def test_building_the_optimizer_imports_nothing_the_stack_had_not(tmp_path):
    """torch imports torch._dynamo (about 100,000 objects) at a process's first optimizer; the training
    stack imports it beforehand (accelerated_seg/optimizers.py), so that a run makes those objects with
    the collector paused, and freezes them, as it does the rest of the stack's."""
    code = ("import json, sys\n"
            "from accelerated_seg.collector import importing_without_collection\n"
            "with importing_without_collection():\n"
            "    from accelerated_seg.train import train\n"
            "frozen, imported = __import__('gc').get_freeze_count(), set(sys.modules)\n"
            "import torch\n"
            "from accelerated_seg.config import OptimConfig\n"
            "from accelerated_seg.optimizers import build_optimizer\n"
            "build_optimizer(torch.nn.Linear(2, 2).parameters(), OptimConfig(), 1e-3)\n"
            "print(json.dumps({'frozen': frozen, 'dynamo': 'torch._dynamo' in imported,\n"
            "                  'later': sorted(set(sys.modules) - imported)}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["dynamo"] and seen["later"] == [], seen
    assert seen["frozen"] > 350_000, seen  # the stack's ~300,000 objects and torch._dynamo's


class _Node:
    pass


def test_garbage_from_before_the_block_is_freed_not_frozen(nothing_frozen):
    node = _Node()
    node.itself = node  # a cycle: only the collector frees it
    gone = weakref.ref(node)
    del node
    with importing_without_collection():
        pass
    assert gone() is None


def test_a_failed_import_still_lets_the_collector_run_again(nothing_frozen):
    with pytest.raises(ModuleNotFoundError):
        with importing_without_collection():
            importlib.import_module("accelerated_seg_no_such_module")
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled(nothing_frozen):
    gc.disable()
    with importing_without_collection():
        pass
    assert not gc.isenabled()


def _train_recording_the_collector(seen: dict):
    def train(cfg, manifest=None):
        seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())
        return {"is_main_process": False, "preempted": False}
    return train


def test_the_train_command_imports_the_stack_without_collection(nothing_frozen, monkeypatch, tiny_dataset,
                                                                   tmp_path):
    seen = {}
    monkeypatch.setattr(accelerated_seg.train, "train", _train_recording_the_collector(seen))
    assert cli.main(["train", *tiny_overrides(tiny_dataset, tmp_path / "run")]) == 0
    assert seen["enabled"] and seen["frozen"] > 10_000  # the process's modules, classes, functions


def test_the_training_example_imports_the_stack_without_collection(nothing_frozen, monkeypatch, tiny_dataset,
                                                                     tmp_path):
    seen = {}
    monkeypatch.setattr(accelerated_seg.train, "train", _train_recording_the_collector(seen))
    spec = importlib.util.spec_from_file_location("train_example", ROOT / "examples" / "train.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    monkeypatch.setattr(sys, "argv", ["train.py", "--no-report", *tiny_overrides(tiny_dataset, tmp_path / "run")])
    example.main()
    assert seen["enabled"] and seen["frozen"] > 10_000


def _recording_the_collector(seen: dict, returns=None, raises=None):
    def command_work(*args, **kwargs):
        seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())
        if raises is not None:
            raise raises
        return returns
    return command_work


@pytest.mark.parametrize("command", ["predict", "evaluate", "benchmark train"])
def test_the_other_commands_that_import_the_stack_import_it_without_collection(command, nothing_frozen, monkeypatch,
                                                                                 tmp_path):
    import accelerated_seg.benchmark_train
    import accelerated_seg.evaluate
    import accelerated_seg.inference_cases
    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec

    seen = {}
    if command == "predict":  # the work stubbed after the checks of the model folder (config.json) and inputs
        spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
        write_export(build_from_spec(spec).state_dict(), spec.to_dict(), {"in_channels": 1, "num_classes": 2},
                     tmp_path / "model")
        (tmp_path / "scans").mkdir()
        (tmp_path / "scans" / "case_0.nii.gz").write_bytes(b"")  # found by its name; the stub reads nothing
        # where predict_command takes it from
        monkeypatch.setattr(accelerated_seg.inference_cases, "predict_cases", _recording_the_collector(seen, []))
        argv = ["predict", "--model", str(tmp_path / "model"), str(tmp_path / "scans"), "--output", str(tmp_path)]
    elif command == "evaluate":
        monkeypatch.setattr(accelerated_seg.evaluate, "evaluate_folders",
                            _recording_the_collector(seen, raises=ValueError("no summary: stubbed")))
        argv = ["evaluate", str(tmp_path), str(tmp_path), "--num-classes", "2"]
    else:
        monkeypatch.setattr(accelerated_seg.benchmark_train, "run_from_cli", _recording_the_collector(seen, 0))
        argv = ["benchmark", "train", "--model", "unet"]
    cli.main(argv)  # evaluate's stub ends it with an error (status 2), after recording
    assert seen["enabled"] and seen["frozen"] > 10_000
