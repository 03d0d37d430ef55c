"""The estimator's precision= under ``accelerate launch`` (``estimator_launch.launch_precision``): which of the
precision given in code and the launch's wins, and which pairs are one error naming both; and torch's private
``_wrap`` a launched fit's process ends through."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelerated_seg import launched_profile
from accelerated_seg.config import ConfigError
from accelerated_seg.estimator_launch import launch_precision


def _launch(monkeypatch, exported: str, option: str | None = None, profile_line: str | None = None,
            profile: Path | None = None) -> None:
    """What accelerate launch exports (ACCELERATE_MIXED_PRECISION ``exported``), its own --mixed_precision
    (``option``) and the launched profile (``profile``, whose top-level precision is the line ``profile_line``)."""
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", exported)
    for name in ("ACCELERATE_USE_DEEPSPEED", "ACCELERATE_DEEPSPEED_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: option)
    if profile is not None and profile_line is not None:  # read from the file, as a rank reads it
        profile.write_text(f"distributed_type: 'NO'\n{profile_line}\n")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)


@pytest.mark.parametrize("precision, trained", [("bf16", "bf16"), ("fp16", "fp16"), ("fp32", "no")])
def test_the_precision_given_in_code_wins_over_the_launchs_default_no(monkeypatch, precision, trained):
    """accelerate launch exports "no" where neither --mixed_precision nor the profile says one: the user asked for
    nothing, and Segmentation(precision='bf16') was refused as "the launch asks for mixed_precision 'no'"."""
    _launch(monkeypatch, "no")
    assert launch_precision(precision) == trained
    assert launch_precision(None) == "no"


def test_the_launchs_own_mixed_precision_option_against_the_code_is_one_error_naming_both(monkeypatch):
    _launch(monkeypatch, "no", option="no")
    with pytest.raises(ConfigError, match=r"^fit: Segmentation\(precision='bf16'\), but accelerate launch's "
                                          r"--mixed_precision no asks for no mixed precision: give it once, either "
                                          r"by leaving precision out or by launching with --mixed_precision bf16$"):
        launch_precision("bf16")
    _launch(monkeypatch, "bf16", option="bf16")
    with pytest.raises(ConfigError, match=r"^fit: Segmentation\(precision='fp32'\), but accelerate launch's "
                                          r"--mixed_precision bf16 asks for mixed precision bf16: .* --mixed_precision "
                                          r"no$"):
        launch_precision("fp32")
    assert launch_precision("bf16") == "bf16"  # the same precision, given twice: no conflict


def test_the_profiles_own_mixed_precision_against_the_code_is_one_error_naming_the_file(monkeypatch, tmp_path):
    """A profile's mixed_precision: 'no' (configs/accelerate/cpu.yaml's) is a setting of the user's, not a default.
    Its setting is quoted as the file writes it, key: value (``mixed_precision 'no'`` until the hundredth session),
    as the refusal of one beside a DeepSpeed json quotes it."""
    profile = tmp_path / "cpu.yaml"
    _launch(monkeypatch, "no", profile_line="mixed_precision: 'no'", profile=profile)
    with pytest.raises(ConfigError, match=rf"^fit: Segmentation\(precision='bf16'\), but the accelerate config "
                                          rf"{profile}'s mixed_precision: 'no' asks for no mixed precision: give it "
                                          rf"once, either by leaving precision out or by launching with "
                                          rf"--mixed_precision bf16$"):
        launch_precision("bf16")
    # an older accelerate's fp16, any value of truth, read as mixed_precision fp16
    _launch(monkeypatch, "fp16", profile_line="fp16: 'yes'", profile=profile)
    with pytest.raises(ConfigError, match=rf"^fit: Segmentation\(precision='fp32'\), but the accelerate config "
                                          rf"{profile}'s fp16: 'yes' \(read as mixed_precision: 'fp16'\) asks for "
                                          rf"mixed precision fp16: .* --mixed_precision no$"):
        launch_precision("fp32")
    _launch(monkeypatch, "bf16", profile_line="mixed_precision: bf16", profile=profile)
    assert launch_precision("bf16") == "bf16"


def test_a_launch_precision_other_than_no_that_cannot_be_traced_is_still_refused(monkeypatch):
    """torchrun run directly, or a profile that cannot be read: ACCELERATE_MIXED_PRECISION bf16 was asked by
    someone, as "no" is the launch's default alone."""
    _launch(monkeypatch, "bf16")
    with pytest.raises(ConfigError, match=r"^fit: Segmentation\(precision='fp16'\), but the launch "
                                          r"\(ACCELERATE_MIXED_PRECISION\) asks for mixed precision bf16: .* "
                                          r"--mixed_precision fp16$"):
        launch_precision("fp16")


_BF16_JSON = '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}'
_FP16_JSON = '{"zero_optimization": {"stage": 2}, "fp16": {"enabled": true}}'


def _deepspeed_launch(monkeypatch, tmp_path, json_text: str) -> Path:
    json_file = tmp_path / "ds.json"
    json_file.write_text(json_text)
    _launch(monkeypatch, "no")  # no --mixed_precision, none in the profile beside the json
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    monkeypatch.setenv("ACCELERATE_DEEPSPEED_CONFIG_FILE", str(json_file))
    return json_file


def test_beside_a_deepspeed_json_the_code_passes_where_the_json_agrees_and_is_refused_where_it_does_not(
        monkeypatch, tmp_path):
    """A json switching fp16 on trains fp16 without a flag: Segmentation(precision='fp16') was refused as against
    the launch's "no". One switching the other precision on is refused at fit, before anything is written."""
    _deepspeed_launch(monkeypatch, tmp_path, _FP16_JSON)
    assert launch_precision("fp16") == "fp16"
    json_file = _deepspeed_launch(monkeypatch, tmp_path, _BF16_JSON)
    assert launch_precision("bf16") == "bf16"
    with pytest.raises(ConfigError, match=rf"^fit: Segmentation\(precision='fp16'\) asks for mixed precision fp16, "
                                          rf"and bf16.enabled is true in the DeepSpeed json {json_file}, which "
                                          rf"accelerate refuses"):
        launch_precision("fp16")
    with pytest.raises(ConfigError, match=rf"^fit: Segmentation\(precision='fp32'\) asks for no mixed precision, "
                                          rf"and bf16.enabled is true in the DeepSpeed json {json_file}"):
        launch_precision("fp32")


_FIT = """
import json, sys
from pathlib import Path
from accelerated_seg.data.formats.msd import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation

if __name__ == "__main__":
    root = Path.cwd()
    manifest = load_msd(write_synthetic_dataset(root / "data", num_cases=4, num_validation=1, seed=0,
                                                size_mm=(32.0, 32.0, 32.0), spacing_mm=2.0))
    pairs = [(str(case.images[0]), str(case.label)) for case in manifest.training]
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3, cache_dir=str(root / "cache"), num_workers=0,
                              spacing=(2.0, 2.0, 2.0)).batch(2)
    Segmentation("unet", model_args={"channels": [4, 8], "strides": [2], "num_res_units": 0}, output_dir="run",
                 precision="bf16", trackers="none", progress_bar=False, val_every=0, save_every=0).fit(data, steps=1)
    print(json.loads(Path("run/run_info.json").read_text())["strategy"])
"""


@pytest.mark.distributed  # a real accelerate launch, one process on the CPU
def test_a_one_process_launch_without_mixed_precision_trains_the_estimators_precision(tmp_path):
    """The launch exports ACCELERATE_MIXED_PRECISION=no from a profile that sets none: the fit was refused."""
    (tmp_path / "mine.yaml").write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\n"
                                        "num_processes: 1\nuse_cpu: true\n")
    (tmp_path / "fit_script.py").write_text(_FIT)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--config_file", "mine.yaml",
                           "fit_script.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1].endswith("mixed precision bf16"), done.stdout[-2000:]
    assert json.loads((tmp_path / "run" / "run_info.json").read_text())["strategy"].endswith("mixed precision bf16")


def test_a_precision_set_for_torchrun_run_directly_against_the_code_is_refused_as_the_launchs_option_is(monkeypatch):
    """torchrun exports no ACCELERATE_MIXED_PRECISION of its own: a "no" there was set for it, and
    Segmentation(precision='bf16') trained bf16 over it without a word, where accelerate launch --mixed_precision no
    was refused (until the ninety-eighth session)."""
    import psutil

    _launch(monkeypatch, "no")
    monkeypatch.setattr(psutil, "Process", lambda pid: type("Torchrun", (), {"cmdline": lambda self: [
        "/v/bin/python", "/v/bin/torchrun", "--nproc_per_node", "2", "fit.py"]})())
    with pytest.raises(ConfigError, match=r"^fit: Segmentation\(precision='bf16'\), but ACCELERATE_MIXED_PRECISION=no "
                                          r"\(set for torchrun, run without accelerate launch\) asks for no mixed "
                                          r"precision: give it once, either by leaving precision out or by launching "
                                          r"with ACCELERATE_MIXED_PRECISION=bf16$"):
        launch_precision("bf16")
    assert launch_precision("fp32") == "no"
    monkeypatch.delenv("ACCELERATE_MIXED_PRECISION")  # none set for it: the estimator's precision alone
    assert launch_precision("bf16") == "bf16"


#: torch's private function a launched fit's process ends through (``estimator_launch._exit_once_returned``).
PRIVATE_WRAP = "torch.distributed.elastic.multiprocessing.api._wrap"


def test_a_launched_process_ends_through_torchs_private_wrap_once_its_fit_returned(tmp_path):
    """``_exit_once_returned`` finds ``_wrap``'s frame and sets its ``queue_finished_reading_event``, so that a
    launched fit's process ends once it returned rather than wait for torch's agent, which after a signal only kills
    it 30 s later (until the hundred-and-third session). If torch renames or reshapes ``_wrap``, this says so by name,
    where otherwise fit would quietly return 30 s late again."""
    import inspect
    import multiprocessing
    import threading

    import torch
    from torch.distributed.elastic.multiprocessing import api

    from accelerated_seg.estimator_launch import _exit_once_returned

    wrap = getattr(api, "_wrap", None)
    parameters = inspect.signature(wrap).parameters if callable(wrap) else {}
    assert {"fn", "ret_vals", "queue_finished_reading_event"} <= set(parameters), (
        f"{PRIVATE_WRAP} changed in torch {torch.__version__} ({list(parameters)}): estimator_launch."
        f"_exit_once_returned sets its local queue_finished_reading_event: find what the launched process waits "
        f"for after its function returns now")
    context = multiprocessing.get_context("fork")
    returned, finished_reading = context.SimpleQueue(), context.Event()
    arguments = {"local_rank": 0, "fn": _exit_once_returned, "args": {0: ()}, "envs": {0: {}},
                 "stdout_redirects": {0: ""}, "stderr_redirects": {0: ""}, "ret_vals": {0: returned},
                 "queue_finished_reading_event": finished_reading, "numa_options": None}
    wrapped = threading.Thread(target=wrap, kwargs={name: arguments[name] for name in parameters}, daemon=True)
    wrapped.start()
    wrapped.join(30)
    assert not wrapped.is_alive(), (f"{PRIVATE_WRAP} still waits once its function returned: estimator_launch."
                                    f"_exit_once_returned no longer finds its frame or its event (torch "
                                    f"{torch.__version__})")
    assert finished_reading.is_set() and returned.get() is None  # what it returned, put all the same


_A_RANK_ENDED_HOLDING_TQDMS_LOCK = """
import os, sys, time
from tqdm import tqdm
from accelerated_seg.estimator_launch import _own_progress_bar_lock

class DatasetsBar(tqdm):  # as datasets' own tqdm: a subclass, its lock got once in the launching process
    pass

DatasetsBar.get_lock()
holder = os.fork()
if holder == 0:  # a rank of the fit before, ended (os._exit, as the watcher ends one) holding the shared lock
    DatasetsBar.get_lock().acquire()
    os._exit(0)
os.waitpid(holder, 0)
rank = os.fork()
if rank == 0:  # a rank of the next fit, forked from the same launching process
    if sys.argv[1] == "own":
        _own_progress_bar_lock()
    DatasetsBar(range(2), disable=False, file=open(os.devnull, "w")).close()
    os._exit(0)
deadline = time.monotonic() + 5
while time.monotonic() < deadline and os.waitpid(rank, os.WNOHANG) == (0, 0):
    time.sleep(0.05)
ended = os.waitpid(rank, os.WNOHANG) != (0, 0) if time.monotonic() >= deadline else True
if not ended:
    os.kill(rank, 9)
print("ended" if ended else "waiting")
"""


@pytest.mark.parametrize("lock, said", [("own", "ended"), ("shared", "waiting")])
def test_a_forked_rank_draws_its_bars_though_a_rank_before_it_ended_holding_tqdms_lock(lock, said):
    """A resume after an interrupted multi-GPU fit hung in its ranks' first bar (datasets' loading) in the
    hundred-and-fourteenth session's CI: tqdm's write lock, a semaphore shared with every forked process, left held by
    a rank of the interrupted fit. Each launched rank takes its own (``_own_progress_bar_lock``); the shared one,
    as before, still waits (the control: the hang is real)."""
    ran = subprocess.run([sys.executable, "-c", _A_RANK_ENDED_HOLDING_TQDMS_LOCK, lock], capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip() == said, ran.stderr[-2000:]
