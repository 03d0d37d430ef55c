"""The log a run stopped before its first save left in a new run's folder, set aside whole."""

import os
import time

from accelerated_seg.tensorboard_settings import set_aside_earlier_run


def _log(folder, started: int, *extra: str):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"events.out.tfevents.{started}.host.1.0").write_bytes(b"events")
    for name in extra:  # what an older version wrote beside it: accelerate's runs of settings alone
        (folder / name).mkdir()
        (folder / name / "hparams.yml").write_text("lr: 0.1\n")


def test_the_stopped_runs_log_moves_whole_into_a_folder_named_after_its_start(tmp_path):
    log = tmp_path / "train"
    _log(log, 1764626400, "1764626401.5")
    aside = set_aside_earlier_run(log)
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S", time.localtime(1764626400))
    assert aside == log / f"earlier_run_{stamp}"
    assert sorted(os.listdir(aside)) == ["1764626401.5", "events.out.tfevents.1764626400.host.1.0"]
    assert (aside / "1764626401.5" / "hparams.yml").read_text() == "lr: 0.1\n"
    assert os.listdir(log) == [aside.name]
    assert set_aside_earlier_run(log) is None  # nothing logged since: nothing to move


def test_earlier_set_aside_runs_stay_and_names_do_not_collide(tmp_path):
    log = tmp_path / "train"
    _log(log, 1764626400)
    first = set_aside_earlier_run(log)
    _log(log, 1764626400)  # a second stopped run, its first file named alike (the same second)
    second = set_aside_earlier_run(log)
    assert second == log / f"{first.name}_2" and sorted(os.listdir(log)) == [first.name, second.name]
    assert os.listdir(first) == os.listdir(second) == ["events.out.tfevents.1764626400.host.1.0"]


def test_a_folder_without_event_files_is_left_alone(tmp_path):
    assert set_aside_earlier_run(tmp_path / "missing") is None
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "notes.txt").write_text("x")
    assert set_aside_earlier_run(tmp_path / "train") is None
    assert os.listdir(tmp_path / "train") == ["notes.txt"]


def test_settings_of_any_type_are_written_as_tensorboard_takes_them(tmp_path):
    """torch's hparams failed on a 0-dim tensor (an lr given as torch.tensor(1e-3): IndexError)."""
    import numpy as np
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from accelerated_seg.tensorboard_settings import record_settings
    from conftest import tensorboard_settings

    with SummaryWriter(tmp_path) as writer:
        record_settings(writer, {"lr": torch.tensor(0.5), "decay": np.float32(0.25), "sizes": [1, 2],
                                 "name": "unet", "clip": None, "on": True}, step=1)
    assert tensorboard_settings(tmp_path) == {"lr": 0.5, "decay": 0.25, "sizes": "[1, 2]", "name": "unet", "on": True}


def test_a_boolean_setting_is_a_boolean_in_the_dashboard(tmp_path):
    """torch's hparams tests a value for a number before a bool, and a bool is an int to Python: every
    on/off setting (train.channels_last, train.compile.enabled, ...) was recorded as the number 1 or 0
    (the test above compared 1.0 with True, which Python finds equal)."""
    from torch.utils.tensorboard import SummaryWriter

    from accelerated_seg.tensorboard_settings import record_settings
    from conftest import tensorboard_settings

    with SummaryWriter(tmp_path) as writer:
        record_settings(writer, {"on": True, "off": False, "steps": 4, "lr": 0.5}, step=1)
    settings = tensorboard_settings(tmp_path)
    assert settings["on"] is True and settings["off"] is False
    assert settings["steps"] == 4 and settings["lr"] == 0.5 and not isinstance(settings["steps"], bool)


def test_a_log_started_in_the_same_second_as_the_last_is_read_after_it_past_the_tenth_writer(tmp_path, monkeypatch):
    """TensorBoard reads a folder's event files in the order of their names, and the 10th writer's file
    (".10") sorted before the 9th's (".9") started in the same second: the second writer's settings were the
    dashboard's (test_fit's resume with changed settings failed so, depending on the tests before it)."""
    from torch.utils.tensorboard import SummaryWriter

    from accelerated_seg.tensorboard_settings import record_settings, start_in_a_later_second
    from conftest import number_tensorboard_writers_from, tensorboard_settings

    number_tensorboard_writers_from(monkeypatch, 9)
    for max_steps in (2, 4):
        start_in_a_later_second(tmp_path)
        with SummaryWriter(tmp_path) as writer:
            record_settings(writer, {"max_steps": max_steps}, step=1)
    first, second = sorted(os.listdir(tmp_path))
    assert first.endswith(".9") and second.endswith(".10")
    assert tensorboard_settings(tmp_path) == {"max_steps": 2}


def test_only_an_event_file_of_this_second_is_waited_for(tmp_path):
    from accelerated_seg.tensorboard_settings import start_in_a_later_second

    start = time.time()
    start_in_a_later_second(tmp_path / "missing")
    _log(tmp_path / "earlier", int(start) - 1)
    start_in_a_later_second(tmp_path / "earlier")
    _log(tmp_path / "later", int(start) + 3600)  # written before the clock was set back an hour
    start_in_a_later_second(tmp_path / "later")
    assert time.time() - start < 0.5
    now = int(time.time())
    _log(tmp_path / "now", now)
    start_in_a_later_second(tmp_path / "now")
    assert int(time.time()) == now + 1


def test_logged_scalars_reads_a_folders_event_files_in_the_order_of_their_names(tmp_path, monkeypatch):
    """A step logged in two event files of one folder has the later file's value, as the dashboard shows it,
    whatever order the file system lists the files in (the helper took rglob's order until the ninety-third
    session: a reversed listing, as here, gave the earlier file's value)."""
    from pathlib import Path

    from torch.utils.tensorboard import SummaryWriter

    from conftest import logged_scalars

    for started, value in ((100, 1.0), (200, 2.0)):
        with SummaryWriter(tmp_path / str(started)) as writer:
            writer.add_scalar("train/lr", value, 1)
        [written] = (tmp_path / str(started)).iterdir()
        written.rename(tmp_path / f"events.out.tfevents.{started}.host.1.0")
    rglob = Path.rglob
    monkeypatch.setattr(Path, "rglob", lambda self, pattern: iter(sorted(rglob(self, pattern), reverse=True)))
    assert logged_scalars(tmp_path, "train/lr") == {1: 2.0}
