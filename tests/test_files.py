"""The writers of files.py (and data/io's write_nifti, exported_model's write_export) at a path that is a symbolic
link: each writes through it, the link's target replaced and the link kept, as nibabel's own save, shutil.copy and
cp do (benchmarks/results/symlinked_outputs_2026-12-07); a dangling link or a loop is refused, nothing written.
Until the hundred-and-twentieth session the rename replaced the link itself, and its target kept the old file."""

import errno
import os
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from accelerated_seg.data.io import write_nifti
from accelerated_seg.exported_model import write_export
from accelerated_seg.files import replace_atomically, write_files_together, write_text_atomically, written_through

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links as POSIX makes them")


def _write_json(path: Path) -> None:
    write_text_atomically(path, '{"new": 1}')


def _write_png_like(path: Path) -> None:  # report.py's way: a writer given the temporary
    replace_atomically(path, lambda temporary: temporary.write_text('{"new": 1}'))


def _write_together(path: Path) -> None:  # evaluate's outputs, the estimator's export copies
    write_files_together(path.parent, {path.name: lambda temporary: temporary.write_text('{"new": 1}')})


def _write_map(path: Path) -> None:
    write_nifti(path, np.ones((2, 2, 2), np.uint8), np.eye(4))


def _new(path: Path) -> bool:
    if path.name.endswith(".nii.gz"):
        return bool(np.asarray(nib.load(path).dataobj).all())
    return path.read_text() == '{"new": 1}'


def _hidden(*folders: Path) -> list[str]:
    return sorted(p.name for folder in folders for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("write, name", [(_write_json, "run_info.json"), (_write_png_like, "summary.json"),
                                         (_write_together, "metrics.json"), (_write_map, "seg.nii.gz")])
def test_a_file_written_at_a_symbolic_link_replaces_the_links_target_and_keeps_the_link(tmp_path, write, name):
    store, out = tmp_path / "store", tmp_path / "out"
    store.mkdir()
    out.mkdir()
    target = store / name
    if name.endswith(".nii.gz"):
        write_nifti(target, np.zeros((2, 2, 2), np.uint8), np.eye(4))
    else:
        target.write_text('{"old": 1}')
    old = target.stat().st_ino
    (out / name).symlink_to(Path("..") / "store" / name)  # relative, as `ln -s ../store/x` makes it
    write(out / name)
    assert (out / name).is_symlink() and os.readlink(out / name) == os.path.join("..", "store", name)
    assert _new(target) and target.stat().st_ino != old  # a new file renamed over the target: whole or absent
    assert _hidden(store, out) == []  # no temporary left in either folder


def test_a_link_to_a_link_is_followed_to_the_end_and_a_plain_path_is_its_own(tmp_path):
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "one.json").symlink_to(tmp_path / "real.json")
    (tmp_path / "two.json").symlink_to(tmp_path / "one.json")
    assert written_through(tmp_path / "two.json") == (tmp_path / "real.json").resolve()
    assert written_through(tmp_path / "plain.json") == tmp_path / "plain.json"  # not there yet: itself
    write_text_atomically(tmp_path / "two.json", '{"new": 1}')
    assert (tmp_path / "two.json").is_symlink() and (tmp_path / "one.json").is_symlink()
    assert (tmp_path / "real.json").read_text() == '{"new": 1}'


def test_a_link_onto_another_filesystem_is_written_through_there(tmp_path):
    """The temporary goes beside the target, so the rename stays on the target's filesystem (tmpfs here)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no /dev/shm on another filesystem than the test's folder")
    store = shm / f"accelerated_seg_test_{os.getpid()}"
    store.mkdir()
    try:
        (store / "seg.nii.gz").write_bytes(b"old")
        (tmp_path / "seg.nii.gz").symlink_to(store / "seg.nii.gz")
        _write_map(tmp_path / "seg.nii.gz")
        assert (tmp_path / "seg.nii.gz").is_symlink() and _new(store / "seg.nii.gz")
        assert _hidden(store, tmp_path) == []
    finally:
        for path in store.iterdir():
            path.unlink()
        store.rmdir()


@pytest.mark.parametrize("write", [_write_json, _write_png_like, _write_together, _write_map])
@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_dangling_link_or_a_loop_is_refused_naming_it_and_nothing_is_written(tmp_path, write, kind):
    """A dangling link (shared storage not mounted) became a regular file in the link's place; a loop was written
    over too. Refused as cp refuses a dangling link, naming the link and what to do."""
    link = tmp_path / "seg.nii.gz"
    if kind == "dangling":
        link.symlink_to(tmp_path / "unmounted" / "seg.nii.gz")
        words, code = r"is a symbolic link to \S+unmounted/seg.nii.gz, which does not exist \(a dangling link\)", \
            errno.ENOENT
    else:
        (tmp_path / "other.nii.gz").symlink_to(link)
        link.symlink_to(tmp_path / "other.nii.gz")
        words, code = r"is a symbolic link in a loop", errno.ELOOP
    with pytest.raises(OSError, match=rf"{link} {words}") as raised:
        write(link)
    assert raised.value.errno == code and raised.value.filename == str(link)
    assert link.is_symlink() and not (tmp_path / "unmounted").exists() and _hidden(tmp_path) == []


def test_a_folder_given_as_a_link_takes_the_file_in_the_folder_it_names(tmp_path):
    """`--output out/` with out a link to a folder: the file is made in the target folder and the link stays
    (right before the hundred-and-twentieth session too: the rename is within the folder, through the link)."""
    (tmp_path / "store").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "store")
    _write_json(tmp_path / "out" / "run_info.json")
    _write_map(tmp_path / "out" / "seg.nii.gz")
    assert (tmp_path / "out").is_symlink()
    assert _new(tmp_path / "store" / "run_info.json") and _new(tmp_path / "store" / "seg.nii.gz")


def test_an_export_into_a_folder_given_as_a_link_replaces_the_folder_it_names_and_keeps_the_link(tmp_path):
    """Until the hundred-and-twentieth session the link was put aside as `<export>.previous` (left there: rmtree
    refuses a link) and a new folder took its name; the link's target kept the old model."""
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "v3"
    write_export({"weight": torch.zeros(2)}, {"name": "unet", "args": {}}, {}, target)
    (tmp_path / "run").mkdir()
    link = tmp_path / "run" / "best_model"
    link.symlink_to(target)
    write_export({"weight": torch.ones(2)}, {"name": "unet", "args": {}}, {}, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert torch.equal(load_file(target / "model.safetensors")["weight"], torch.ones(2))
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["best_model"]
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["v3"]  # no .partial nor .previous


def test_an_export_to_a_dangling_link_is_refused_before_anything_is_written(tmp_path):
    link = tmp_path / "model"
    link.symlink_to(tmp_path / "unmounted" / "model")
    with pytest.raises(OSError, match=rf"{link} is a symbolic link to \S+, which does not exist"):
        write_export({"weight": torch.ones(2)}, {"name": "unet", "args": {}}, {}, link)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"] and link.is_symlink()


def test_what_a_killed_export_through_a_link_left_is_put_right_beside_the_links_target(tmp_path):
    """The export through a link is written beside the folder it names (``<target>.partial``), so the next run's
    sweep of its run folder (``remove_interrupted_exports``) looks there, not beside the link."""
    from accelerated_seg.exported_model import remove_interrupted_exports

    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "v3"
    write_export({"weight": torch.zeros(2)}, {"name": "unet", "args": {}}, {}, target)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "model").symlink_to(target)
    (tmp_path / "shared" / "v3.partial").mkdir()  # a kill as the export was written
    (tmp_path / "shared" / "v3.partial" / "config.json").write_text("half")
    assert remove_interrupted_exports(tmp_path / "run") == [tmp_path / "shared" / "v3.partial"]
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["v3"]
    assert (tmp_path / "run" / "model").is_symlink()


def _earlier_predicted_map(path: Path) -> None:
    """A label map as predict writes it (its header marked), so that a failed case's removal takes it."""
    from accelerated_seg.predict_marks import label_map_descrip

    labels, header = np.ones((2, 2, 2), np.uint8), nib.Nifti1Header()
    header["descrip"] = label_map_descrip(labels)
    write_nifti(path, labels, np.eye(4), header=header)


@pytest.mark.parametrize("removal", ["failed case", "other ending", "probabilities"])
def test_an_earlier_map_removed_at_a_link_is_removed_at_its_target_too(tmp_path, removal):
    """A failed case removes an earlier run's map at its output (and, in a folder of cases, the one under the other
    ending, and a map written without probabilities their stale ones): at a link, the map is the link's target,
    removed with the link. Until the hundred-and-twentieth session's review the link alone went, the line said
    "removed", and the target kept the earlier run's map, where the user read it."""
    from accelerated_seg.inference import _remove_earlier_probabilities
    from accelerated_seg.inference_outputs import remove_earlier_prediction, remove_under_the_other_ending

    (tmp_path / "store").mkdir()
    (tmp_path / "out").mkdir()
    name = {"failed case": "seg.nii.gz", "other ending": "seg.nii", "probabilities": "seg_probs.nii.gz"}[removal]
    target, link = tmp_path / "store" / name, tmp_path / "out" / name
    _earlier_predicted_map(target)
    link.symlink_to(target)
    if removal == "failed case":
        assert remove_earlier_prediction(link) == " (an earlier run's seg.nii.gz removed: it was not this run's)"
    elif removal == "other ending":
        remove_under_the_other_ending(tmp_path / "out" / "seg.nii.gz")
    else:
        _remove_earlier_probabilities(tmp_path / "out" / "seg.nii.gz")
    assert not link.is_symlink() and not target.exists()


def test_a_killed_writes_temporary_beside_a_links_target_is_swept(tmp_path):
    """A write through a link makes its temporary beside the target (files.written_through): predict's sweep of
    what a killed run left looks there as well as in the output's folder. It looked in the link's folder alone until
    the hundred-and-twentieth session's review, and the target's folder kept each killed write's temporary."""
    import uuid

    from accelerated_seg.files import STALE_AFTER_S
    from accelerated_seg.inference_outputs import clear_stale_temporaries

    (tmp_path / "store").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "seg.nii.gz").symlink_to(tmp_path / "store" / "seg.nii.gz")
    stale = tmp_path / "store" / f".seg.nii.gz.{uuid.uuid4().hex}.tmp.nii.gz"
    stale.write_bytes(b"half a map")
    long_ago = os.stat(stale).st_mtime - STALE_AFTER_S - 60
    os.utime(stale, (long_ago, long_ago))
    clear_stale_temporaries([tmp_path / "out" / "seg.nii.gz"])
    assert not stale.exists()


def test_two_outputs_linked_to_one_file_are_refused_naming_the_links(tmp_path):
    """Two cases' maps that are symbolic links to one file would both be written through to it: refused before any
    case, as two outputs of one path are, naming the links and what to do. Until the hundred-and-twentieth session's
    review the line said a map and a <case>_probs had one name, and to rename an input or leave out --probabilities."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference_outputs import check_outputs

    (tmp_path / "store").mkdir()
    (tmp_path / "out").mkdir()
    _earlier_predicted_map(tmp_path / "store" / "seg.nii.gz")
    for name in ("a.nii.gz", "b.nii.gz"):
        (tmp_path / "out" / name).symlink_to(tmp_path / "store" / "seg.nii.gz")
    with pytest.raises(DataError) as refused:
        check_outputs([], [tmp_path / "out" / "a.nii.gz", tmp_path / "out" / "b.nii.gz"])
    out = tmp_path / "out"
    assert str(refused.value) == (
        f"{tmp_path / 'store' / 'seg.nii.gz'} would be written twice by this prediction: {out / 'a.nii.gz'}, "
        f"{out / 'b.nii.gz'} are symbolic links to it, and each output is written through its link: "
        f"point each at a file of its own, or remove the links")


def _chain(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """out/<name> -> mid/<name> -> final/<name>, the second link relative, as `ln -s ../final/x` makes it."""
    for folder in ("out", "mid", "final"):
        (tmp_path / folder).mkdir(exist_ok=True)
    first, middle, last = tmp_path / "out" / name, tmp_path / "mid" / name, tmp_path / "final" / name
    middle.symlink_to(Path("..") / "final" / name)
    first.symlink_to(middle)
    return first, middle, last


@pytest.mark.parametrize("removal", ["failed case", "other ending", "probabilities"])
def test_an_earlier_map_removed_at_a_link_of_links_takes_our_link_and_the_file_and_leaves_the_users_middle_one(
        tmp_path, removal):
    """out -> mid -> final, and other -> mid: the removal of an earlier run's map at ``out`` removes ``out`` and the
    file, and leaves ``mid`` (the user's, outside the output) naming it, dangling as ``other`` is: a write through
    either is refused, none makes a regular file where the user's link was. The hundred-and-twenty-first session
    removed ``mid`` too: a write at it then made a file in its place, ``final`` left empty, and ``other`` dangled all
    the same (its review, benchmarks/results/review_output_links_2026-12-07/chain_*.txt)."""
    from accelerated_seg.inference import _remove_earlier_probabilities
    from accelerated_seg.inference_outputs import remove_earlier_prediction, remove_under_the_other_ending

    name = {"failed case": "seg.nii.gz", "other ending": "seg.nii", "probabilities": "seg_probs.nii.gz"}[removal]
    first, middle, last = _chain(tmp_path, name)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / name).symlink_to(middle)
    _earlier_predicted_map(last)
    if removal == "failed case":
        assert remove_earlier_prediction(first) == f" (an earlier run's {name} removed: it was not this run's)"
    elif removal == "other ending":
        remove_under_the_other_ending(tmp_path / "out" / "seg.nii.gz")
    else:
        _remove_earlier_probabilities(tmp_path / "out" / "seg.nii.gz")
    assert not first.is_symlink() and not first.exists() and not last.exists()
    assert os.readlink(middle) == str(Path("..") / "final" / name)
    for link in (middle, tmp_path / "other" / name):
        with pytest.raises(OSError, match="dangling link"):
            write_text_atomically(link, "new")
        assert link.is_symlink(), link
    assert not last.exists()


def _said_alike_by_link_problem_and_predict(link: Path, said: str) -> None:
    """``files.link_problem``'s sentence for ``link`` is ``said``, and predict's checks refuse it in those words."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.files import link_problem
    from accelerated_seg.inference_outputs import check_outputs

    assert link_problem(link) == said
    with pytest.raises(DataError) as refused:
        check_outputs([], [link])
    assert str(refused.value) == f"{said}; or give --output another path"


def test_a_link_of_links_dangling_at_its_end_is_refused_naming_each_link_and_what_is_missing(tmp_path):
    """other -> mid -> final with ``final`` gone (as a failed case's removal at a link to ``mid`` leaves it): the
    refusal said "other is a symbolic link to mid, which does not exist" of ``mid``, a link there for ``ls`` to see,
    until the hundred-and-twenty-second session. Now each link on the way is named, and what is missing at the end,
    to make or mount; one link to nothing is said as before."""
    from accelerated_seg.files import link_problem

    first, middle, last = _chain(tmp_path, "seg.nii.gz")
    said = (f"{first} is a symbolic link to {middle}, which is a symbolic link to ../final/seg.nii.gz, which does not "
            f"exist (a dangling link at the end of the chain), so nothing is written through it: mount or make {last}, "
            f"or remove {first} to write a file in its place")
    _said_alike_by_link_problem_and_predict(first, said)
    with pytest.raises(OSError, match="dangling link at the end of the chain"):
        write_text_atomically(first, "new")
    assert first.is_symlink() and middle.is_symlink() and not last.exists()
    middle.unlink()  # the middle link itself gone: one link to nothing
    assert link_problem(first) == (f"{first} is a symbolic link to {middle}, which does not exist (a dangling link), "
                                   f"so nothing is written through it: mount or make what it names, or remove the "
                                   f"link to write a file in its place")


def test_every_writer_through_a_link_of_links_replaces_the_last_file_and_keeps_every_link(tmp_path):
    """out -> mid -> final: a map, a JSON and an export are each written at ``final``, both links kept as they were
    (their targets' text unchanged), nothing left beside any of them."""
    def export(weight):
        return lambda path: write_export({"weight": weight}, {"name": "unet", "args": {}}, {}, path)

    written = {}
    for name, old, write in (("seg.nii.gz", lambda path: path.write_bytes(b"old"), _write_map),
                             ("summary.json", lambda path: path.write_text('{"old": 1}'), _write_json),
                             ("model", export(torch.zeros(2)), export(torch.ones(2)))):
        first, middle, last = _chain(tmp_path, name)
        old(last)
        written[name] = (first, middle, os.readlink(first), os.readlink(middle))
        write(first)
    for name, (first, middle, first_names, middle_names) in written.items():
        assert first.is_symlink() and middle.is_symlink(), name
        assert (os.readlink(first), os.readlink(middle)) == (first_names, middle_names), name
    assert _new(tmp_path / "final" / "seg.nii.gz") and _new(tmp_path / "final" / "summary.json")
    assert torch.equal(load_file(tmp_path / "final" / "model" / "model.safetensors")["weight"], torch.ones(2))
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == ["model", "seg.nii.gz", "summary.json"]
    assert _hidden(tmp_path / "out", tmp_path / "mid") == []


def test_a_link_into_a_folder_this_user_cannot_open_is_refused_before_any_work(tmp_path, monkeypatch):
    """A link whose target lies behind a folder this user may not open (stat answers EACCES; simulated, as the tests
    may run as root, whom no mode shuts out: benchmarks/results/review_output_links_2026-12-07/unreachable_*.txt ran
    as nobody) passed the link checks until the hundred-and-twenty-first session's review: predict's checks ended in
    a PermissionError traceback, training met it at its export's write, after the work. Now each check refuses it in
    one line naming the link, what it names and what to do."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.run_folder import refuse_dangling_links

    (tmp_path / "locked").mkdir()
    (tmp_path / "run").mkdir()
    link = tmp_path / "run" / "seg.nii.gz"
    link.symlink_to(tmp_path / "locked" / "seg.nii.gz")
    stat = os.stat

    def shut_out(path, *args, **kwargs):
        if str(path) == str(link) or str(path).startswith(str(tmp_path / "locked")):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", shut_out)
    said = (f"{link} is a symbolic link to {tmp_path / 'locked' / 'seg.nii.gz'}, which this user cannot reach (a "
            f"folder on the way is not open to it: Permission denied), so nothing is written through it: get access "
            f"to that folder, or point the link elsewhere")
    _said_alike_by_link_problem_and_predict(link, said)
    with pytest.raises(ConfigError, match="; or train into another --train.output_dir$"):
        refuse_dangling_links(tmp_path / "run", ["seg.nii.gz"])
