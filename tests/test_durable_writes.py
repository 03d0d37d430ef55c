"""Every writer syncs its data to the disk before renaming it into place, and the folder after.

A rename alone is atomic but not durable: after a power loss the filesystem may keep the new name on
an empty file (files.py). The order is what matters, so the tests record fsync calls (by the path
the descriptor is open on) and renames in one list.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from accelerated_seg.checkpoint import save_training_state
from accelerated_seg.data.cache import PreprocessedCache
from accelerated_seg.data.io import write_nifti
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.preprocess import PreprocessSettings
from accelerated_seg.exported_model import write_export
from accelerated_seg import files
from accelerated_seg.files import replace_folder, write_text_atomically
from test_preemption import _OneProcess  # tests/ is on sys.path, as for conftest

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/self/fd (Linux)")


@pytest.fixture
def events(monkeypatch):
    """("sync", path) and ("rename", source, target) in the order they happen."""
    happened = []
    real_fsync, real_replace, real_rename = os.fsync, os.replace, Path.rename

    def fsync(descriptor):
        happened.append(("sync", os.readlink(f"/proc/self/fd/{descriptor}")))
        real_fsync(descriptor)

    def replace(source, target):
        happened.append(("rename", str(Path(source).resolve()), str(Path(target).resolve())))
        real_replace(source, target)

    def rename(self, target):
        happened.append(("rename", str(self.resolve()), str(Path(target).resolve())))
        return real_rename(self, target)

    def exchange(first, second, real_exchange=files._exchange):  # a swap gives the new one its name too
        swapped = real_exchange(first, second)
        if swapped:
            happened.append(("rename", str(Path(first).resolve()), str(Path(second).resolve())))
        return swapped

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(Path, "rename", rename)
    monkeypatch.setattr(files, "_exchange", exchange)
    return happened


def assert_synced_before_named(events, final: Path) -> None:
    """``final`` (a file, or a folder and every file in it) was synced under its temporary name
    before the rename that gave it its name, and its folder's entries after."""
    final = final.resolve()
    renames = [i for i, event in enumerate(events) if event[0] == "rename" and event[2] == str(final)]
    assert renames, f"{final} was never renamed into place"
    at, temporary = renames[-1], Path(events[renames[-1]][1])
    synced_before = {event[1] for event in events[:at] if event[0] == "sync"}
    files = [final] if final.is_file() else [path for path in final.rglob("*") if path.is_file()]
    assert files
    for path in files:
        assert str(temporary / path.relative_to(final) if final.is_dir() else temporary) in synced_before, path
    if final.is_dir():
        assert str(temporary) in synced_before  # its entries: the files' names
    assert ("sync", str(final.parent)) in events[at + 1:]


def test_a_json_and_a_nifti_are_on_the_disk_before_they_take_their_names(events, tmp_path):
    write_text_atomically(tmp_path / "metrics.json", "{}")
    assert_synced_before_named(events, tmp_path / "metrics.json")
    write_nifti(tmp_path / "out" / "label.nii.gz", np.zeros((4, 4, 4), np.uint8), np.eye(4))
    assert_synced_before_named(events, tmp_path / "out" / "label.nii.gz")


def test_a_checkpoint_and_an_export_are_on_the_disk_before_they_take_their_names(events, tmp_path):
    checkpoints = tmp_path / "run" / "checkpoints"
    save_training_state(_OneProcess(), checkpoints, 3, 1, "config: yes\n", records={"split.json": {"a": 1}})
    assert_synced_before_named(events, checkpoints / "step_3")

    for attempt in range(2):  # the second replaces the first (through model.previous)
        write_export({"weight": torch.full((2,), float(attempt))}, {"name": "unet", "args": {}}, {},
                     tmp_path / "run" / "model")
        assert_synced_before_named(events, tmp_path / "run" / "model")


def test_a_case_table_is_on_the_disk_before_it_takes_its_name(events, tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    cache = PreprocessedCache(tmp_path, manifest.root, PreprocessSettings(), manifest.num_classes)
    cache.build(manifest.training)
    assert_synced_before_named(events, cache.paths(manifest.training[0])["image.npy"])
    assert_synced_before_named(events, cache.write_table(manifest.training))


@pytest.mark.parametrize("can_swap", [True, False])
def test_a_replaced_folder_is_never_missing_where_the_filesystem_can_swap(tmp_path, monkeypatch, can_swap):
    # best_model/ is replaced while a user may be predicting with it: renamed away and the new one
    # renamed in, a reader in between found no model (and a kill just then left none).
    probe = [tmp_path / "a", tmp_path / "b"]
    for folder in probe:
        folder.mkdir()
    if can_swap and not files._exchange(*probe):
        pytest.skip("this filesystem cannot swap two folders (renameat2 RENAME_EXCHANGE)")
    if not can_swap:
        monkeypatch.setattr(files, "_exchange", lambda first, second: False)
    final, renames = tmp_path / "best_model", []
    real_rename = Path.rename
    monkeypatch.setattr(Path, "rename", lambda self, target: renames.append(self.name) or real_rename(self, target))
    for content in ("old", "new"):
        new = tmp_path / "best_model.partial"
        new.mkdir()
        (new / "config.json").write_text(content)
        replace_folder(new, final)
    assert (final / "config.json").read_text() == "new"
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("best")) == ["best_model"]
    # the name was taken away from the old folder only where no swap exists
    assert ("best_model" in renames) == (not can_swap)



@pytest.mark.parametrize("left, whole, kept", [
    ({"best_model": "old", "best_model.partial": None}, "old", []),  # killed writing the new one, or deleting the old
    # killed deleting the old one (no swap), or a hand's best_model.previous/: left, which a refused run deleted
    ({"best_model": "new", "best_model.previous": "old"}, "new", ["best_model.previous"]),
    ({"best_model.previous": "old", "best_model.partial": "new"}, "new", []),  # killed between the renames (no swap)
    # no kill leaves this (between the renames the .partial is there): a hand's `mv best_model best_model.previous`,
    # left, where it was renamed back to best_model/ for the run's next export to replace (the 108th session's review)
    ({"best_model.previous": "old"}, None, ["best_model.previous"])])
def test_what_an_interrupted_replace_left_is_put_right_keeping_a_whole_folder(tmp_path, left, whole, kept):
    """A launch's interrupt ends every rank at once (os._exit), wherever the main process is in an export's
    replace_folder: until the hundred-and-seventh session its <export>.partial stayed (a kill's too) until the
    same export was written again; none is left now, nor is the export there whole before lost. A .previous beside
    a whole export, or alone, may be a hand's: left (the hundred-and-eighth session)."""
    for name, content in left.items():
        (tmp_path / name).mkdir()
        if content is not None:
            (tmp_path / name / "config.json").write_text(content)
    final = tmp_path / "best_model"
    removed = files.finish_an_interrupted_replace(tmp_path / "best_model.partial", final)
    assert (final / "config.json").read_text() == whole if whole is not None else not final.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == [*(["best_model"] if whole else []), *kept]
    assert {path.name for path in removed} <= set(left) - {"best_model"}
    assert all((tmp_path / name / "config.json").read_text() == left[name] for name in kept)


def test_a_swap_leaves_a_previous_folder_it_did_not_make(tmp_path):
    """The swap makes no <final>.previous, so one beside the export is a hand's (or an old-way kill's): it was
    deleted at every export of that name until the hundred-and-eighth session."""
    probe = [tmp_path / "a", tmp_path / "b"]
    for folder in probe:
        folder.mkdir()
    if not files._exchange(*probe):
        pytest.skip("this filesystem cannot swap two folders (renameat2 RENAME_EXCHANGE)")
    (tmp_path / "model.previous").mkdir()
    (tmp_path / "model.previous" / "mine.txt").write_text("mine")
    for content in ("old", "new"):
        (tmp_path / "model.partial").mkdir()
        (tmp_path / "model.partial" / "config.json").write_text(content)
        replace_folder(tmp_path / "model.partial", tmp_path / "model")
    assert (tmp_path / "model" / "config.json").read_text() == "new"
    assert (tmp_path / "model.previous" / "mine.txt").read_text() == "mine"


def test_an_export_behind_a_link_is_replaced_the_old_way_and_its_target_left_alone(tmp_path):
    # Swapped, the link itself moved and the old export's cleanup failed on it ("Cannot call rmtree
    # on a symbolic link"), after the new export was in place: the save was reported failed. replace_folder itself
    # still takes a link so; its caller write_export follows one first since the hundred-and-twentieth session, the
    # link's target replaced (tests/test_files.py).
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "config.json").write_text("old")
    final = tmp_path / "best_model"
    final.symlink_to(target)
    new = tmp_path / "best_model.partial"
    new.mkdir()
    (new / "config.json").write_text("new")
    replace_folder(new, final)
    assert not final.is_symlink() and (final / "config.json").read_text() == "new"
    assert (target / "config.json").read_text() == "old"  # what the link pointed to is the user's


@pytest.mark.parametrize("code, kept", [(22, True), (9, True), (5, False)])  # EINVAL, EBADF: kept; EIO: raised
def test_a_filesystem_that_cannot_flush_keeps_the_write_and_an_io_error_is_raised(tmp_path, monkeypatch, code, kept):
    def refuse(descriptor):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", refuse)
    if kept:
        write_text_atomically(tmp_path / "metrics.json", "{}")
        assert (tmp_path / "metrics.json").read_text() == "{}"
    else:
        with pytest.raises(OSError, match=os.strerror(code)):
            write_text_atomically(tmp_path / "metrics.json", "{}")
        assert not (tmp_path / "metrics.json").exists()


def test_files_replaced_together_are_all_copied_before_any_is_renamed(tmp_path, monkeypatch):
    import shutil

    from accelerated_seg.files import replace_files_together

    sources = tmp_path / "sources"
    sources.mkdir()
    for name in ("model.safetensors", "config.json"):
        (sources / name).write_text(f"new {name}")
    real_copy = shutil.copy2

    def full_at_the_second(source, target, **kwargs):
        if Path(source).name == "config.json":
            raise OSError(28, "No space left on device")
        return real_copy(source, target, **kwargs)

    monkeypatch.setattr(shutil, "copy2", full_at_the_second)
    both = {name: sources / name for name in ("model.safetensors", "config.json")}
    with pytest.raises(OSError):
        replace_files_together(tmp_path / "new" / "deeper" / "model", both)
    # A failed save into a new folder leaves no empty folder, nor the new parents made for it (the
    # estimator's runs/ stayed until the ninety-second session), and none that was there before is removed.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sources"]
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    with pytest.raises(OSError):
        replace_files_together(earlier / "model", both)
    assert earlier.is_dir() and not any(earlier.iterdir())


def test_an_export_that_fails_to_be_written_leaves_nothing_half_written(tmp_path, monkeypatch):
    """A full disk while the weights are written: the half-written model.safetensors stayed in
    <export>.partial/, with the parents made for it, until the ninety-second session."""
    from accelerated_seg import exported_model

    def full_disk(tensors, path, metadata=None):
        Path(path).write_bytes(b"half a model")
        raise OSError(28, "No space left on device")

    earlier = tmp_path / "run" / "model"
    write_export({"weight": torch.zeros(2)}, {"name": "unet", "args": {}}, {"step": 1}, earlier)
    monkeypatch.setattr(exported_model, "save_file", full_disk)
    for out_dir in (tmp_path / "new" / "deeper" / "model", earlier):
        with pytest.raises(OSError, match="No space left on device"):
            write_export({"weight": torch.ones(2)}, {"name": "unet", "args": {}}, {"step": 2}, out_dir)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]
    assert sorted(path.name for path in (tmp_path / "run").iterdir()) == ["model"]  # the earlier one, whole
    assert json.loads((earlier / "config.json").read_text())["step"] == 1


def test_a_file_renamed_away_while_its_folder_is_synced_is_passed_over(tmp_path, monkeypatch):
    """Every rank syncs a checkpoint's folder while another rank's safetensors writer may still rename
    its own temporary away: the FileNotFoundError ended a probe's 2-process run at a save
    (seventy-seventh session). That file is its writer's to sync; the others still are."""
    folder = tmp_path / ".step_3.partial"
    folder.mkdir()
    for name in ("model.safetensors", ".tmp3bQBc0", "random_states_1.pkl"):
        (folder / name).write_bytes(b"x")
    synced, real = [], files.sync_file

    def renamed_meanwhile(path):
        if Path(path).name == ".tmp3bQBc0":
            Path(path).rename(folder / "optimizer.bin")
        real(path)
        synced.append(Path(path).name)

    monkeypatch.setattr(files, "sync_file", renamed_meanwhile)
    files.sync_folder(folder)
    assert synced == ["model.safetensors", "random_states_1.pkl"]


def test_a_step_folder_that_is_a_link_is_replaced_and_rotated_away_keeping_what_it_names(tmp_path):
    """A step folder a user made a symbolic link (to a copy elsewhere): a save of that step again replaces it and a
    later save rotates it away, each removing the link and keeping the copy it names, outside the run folder. Until
    the hundred-and-twentieth session's review the first ended in "OSError: Cannot call rmtree on a symbolic link"
    after its checkpoint was named, and every save after it in NotADirectoryError at the rotation."""
    copies, checkpoints = tmp_path / "copies", tmp_path / "run" / "checkpoints"
    save_training_state(_OneProcess(), copies, 1, 1, "config: yes\n")
    checkpoints.mkdir(parents=True)
    (checkpoints / "step_1").symlink_to(copies / "step_1")
    save_training_state(_OneProcess(), checkpoints, 1, 1, "config: yes\n")
    assert sorted(path.name for path in checkpoints.iterdir()) == ["step_1"]
    assert not (checkpoints / "step_1").is_symlink() and (copies / "step_1" / "model.safetensors").is_file()
    os.replace(checkpoints / "step_1", tmp_path / "ours")
    (checkpoints / "step_1").symlink_to(copies / "step_1")
    save_training_state(_OneProcess(), checkpoints, 2, 1, "config: yes\n")
    assert sorted(path.name for path in checkpoints.iterdir()) == ["step_2"]
    assert (copies / "step_1" / "model.safetensors").is_file()
