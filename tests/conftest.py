"""Shared fixtures: a tiny synthetic dataset and a tiny training config, fast on 2 CPU cores."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# One thread per process: tests run 2-process jobs on a 2-core machine, and tiny convolutions
# gain nothing from more threads.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Every Python process a test starts imports this checkout's package, and starts without
# transformers as a default install does (tests/startup/sitecustomize.py says why). So do the
# test processes of `pytest -n 2`, which pytest-xdist starts after reading this file.
_TESTS = Path(__file__).resolve().parent
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(_TESTS.parent), str(_TESTS / "startup"), *filter(None, [os.environ.get("PYTHONPATH")])])
os.environ.setdefault("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS", "1")
# Bytecode written and reused, even where PYTHONDONTWRITEBYTECODE is set (as on the 2-core host of the fresh-clone
# CI): there every process a test starts (each rank of each launch, each command) compiled about 130 of the
# package's modules from source again, 0.4-0.6 s of CPU each, and each pytest-xdist process rewrote the asserts of
# every test file again, 7.5 s (benchmarks/results/launch_cost_2026-12-05f/). What is written is __pycache__
# folders in the checkout (.gitignore names them), written atomically, so processes running at once share them.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the processes started from here on
sys.dont_write_bytecode = False  # this one: its test files' rewritten asserts, the package's modules it imports

from accelerated_seg.config import load_config  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """Tests marked ``cuda`` are skipped where there is no CUDA device. The marker, rather than a
    skipif in each test, lets benchmarks/gpu_session.sh select them all with ``-m cuda``."""
    import torch

    if torch.cuda.is_available():
        return
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="needs a CUDA GPU"))


def logged_scalars(run_dir: Path, tag: str) -> dict[int, float]:
    """{step: value} of one scalar the TensorBoard tracker wrote under a run folder, each folder of event files
    read as TensorBoard reads it: its files in the order of their names, so that a step logged twice has the
    value the dashboard shows last (and a restart marker drops the points it hides). Files read one by one in
    the order the file system lists them (rglob's) gave either value."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values = {}
    for folder in sorted({events.parent for events in Path(run_dir).rglob("events.out.tfevents*")}):
        accumulator = EventAccumulator(str(folder))
        accumulator.Reload()
        if tag in accumulator.Tags()["scalars"]:
            values.update({event.step: event.value for event in accumulator.Scalars(tag)})
    return values


def tensorboard_curve(run_dir: Path, tag: str) -> list[int]:
    """The steps of one scalar's curve as TensorBoard draws it from a run's ``train/`` log: all its
    event files read in order, a restart marker (``purge_step``) hiding the earlier points from there."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(Path(run_dir) / "train"))
    accumulator.Reload()
    return [event.step for event in accumulator.Scalars(tag)]


def tensorboard_run(log_folder: Path):
    """The TensorBoard run of one log folder (a training run's own is its ``train/``), its event files
    read in order."""
    from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(log_folder))
    accumulator.Reload()
    return accumulator


def number_tensorboard_writers_from(monkeypatch, number: int) -> None:
    """The next TensorBoard writer of this process gets ``number`` in its event file's name, as if the process
    had started that many before it (tensorboard_settings.py says why the 10th matters)."""
    from tensorboard.summary.writer import event_file_writer

    monkeypatch.setattr(event_file_writer, "_global_uid", event_file_writer.AtomicCounter(number))


def tensorboard_settings(log_folder: Path) -> dict:
    """The settings TensorBoard's HParams dashboard shows for the run of one log folder."""
    from google.protobuf.json_format import MessageToDict
    from tensorboard.plugins.hparams import metadata

    content = tensorboard_run(log_folder).PluginTagToContent(metadata.PLUGIN_NAME)[metadata.SESSION_START_INFO_TAG]
    hparams = metadata.parse_session_start_info_plugin_data(content).hparams
    return {key: MessageToDict(value) for key, value in hparams.items()}


def assert_checkpoint_exports_as_training_did(run_dir: Path, output: Path) -> None:
    """``accelerated-seg export`` of the run's newest checkpoint (its last step) writes what training
    exported at that step to ``model/``: the same tensors, bit for bit, and the same config.json."""
    import json

    import torch
    from safetensors.torch import load_file

    from accelerated_seg.checkpoint_export import export_checkpoint

    checkpoint, _ = export_checkpoint(run_dir, output)
    trained = load_file(Path(run_dir) / "model" / "model.safetensors")
    exported = load_file(output / "model.safetensors")
    assert trained.keys() == exported.keys(), checkpoint
    assert all(torch.equal(trained[name], exported[name]) for name in trained), checkpoint
    config = json.loads((output / "config.json").read_text())
    assert config == json.loads((Path(run_dir) / "model" / "config.json").read_text())
    assert f"step_{config['step']}" == checkpoint.name


def made_once_for_the_test_processes(tmp_path_factory, name: str, make):
    """``make()``'s value (JSON), made by the first of `pytest -n 2`'s test processes that asks for it and read by
    the other, which waits for it: pytest-xdist shares no fixture between its processes, so a module fixture of
    launches whose tests were split over the two ran its launches twice (the offload tests' three, 27.3 s and
    25.6 s of setup, benchmarks/results/ci_time_2026-12-06a.json). Without xdist: ``make()``, as a fixture would.
    Paths in the value are in the maker's temporary folder, which both can read."""
    import fcntl
    import json

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's folder, above each test process's own
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, by the maker's exit too
        made = root / f"{name}.json"
        if made.is_file():
            return json.loads(made.read_text())
        value = make()
        made.write_text(json.dumps(value))
        return value


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory):
    """6 training + 3 validation phantoms of about 20x20x16 voxels (some anisotropic, some non-RAS).

    3 validation cases split unevenly over 2 ranks, so "each case counted once" is really tested.
    """
    root = tmp_path_factory.mktemp("tiny_data")
    return write_synthetic_dataset(root, num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                   spacing_mm=2.0)


def tiny_overrides(dataset_json, output_dir, **extra) -> list[str]:
    """Settings for a run of a few seconds: 16^3 patches, a 3-level U-Net, no workers."""
    settings = {
        "data.dataset": str(dataset_json),
        "data.cache_dir": str(Path(dataset_json).parent.parent / "cache"),
        "data.patch_size": "[16,16,16]",
        "data.spacing": "[2.0,2.0,2.0]",
        "data.samples_per_volume": 2,
        "data.num_workers": 0,
        "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}",
        "optim.warmup_steps": 2,
        "train.output_dir": str(output_dir),
        "train.max_steps": 4,
        "train.batch_size": 2,
        "train.val_every": 2,
        "train.save_every": 2,
        "train.log_every": 1,
        "train.progress_bar": "false",
        "train.trackers": "none",
        "train.sw_batch_size": 2,
    }
    settings.update({k.replace("__", "."): v for k, v in extra.items()})
    return [f"--{k}={v}" for k, v in settings.items()]


@pytest.fixture
def tiny_config(tiny_dataset, tmp_path):
    def make(output_dir=None, **extra):
        return load_config(None, tiny_overrides(tiny_dataset, output_dir or tmp_path / "run", **extra))
    return make


@pytest.fixture
def one_process_group(tmp_path):
    """A gloo process group of this test process alone: torch's FSDP on the CPU, without a launch."""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, whatever the suite inherited: a
    shell starts a background job (``pytest ... &``, nohup) with SIGINT ignored, which Python keeps."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(autouse=True)
def fresh_accelerate_state():
    """accelerate keeps process-wide singletons; each in-process training run starts clean. A run's
    process group outlives it until the process exits (preparation.end_run): here, until the test ends."""
    yield
    from accelerate.state import AcceleratorState, GradientState, PartialState

    from accelerated_seg.preparation import destroy_process_group

    destroy_process_group()

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()
