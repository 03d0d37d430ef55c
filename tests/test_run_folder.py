"""A new run never replaces an earlier one in its output folder unless asked (run_folder.py; across a launch's
ranks, run_folder_ranks.py), and checkpoint folders are never deleted under their own names (checkpoint.py)."""

import errno
import fcntl
import json
import os
import re
import shutil
import time
import uuid
from pathlib import Path

import pytest
from safetensors import SafetensorError

from accelerated_seg.checkpoint import complete_checkpoints, save_training_state
from accelerated_seg.checkpoint_files import resolve_resume
from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError
from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import read_export_config
from accelerated_seg.files import STALE_AFTER_S
from accelerated_seg.run_folder import (check_before_the_imports, check_output_folder, delete_earlier_run, earlier_run,
                                       resume_or_replace)
from accelerated_seg.run_lock import LOCK_NAME, hold_run_folder
from accelerated_seg.train import train
from test_config import refused_in_a_fresh_process  # tests/ is on sys.path, as for conftest
from test_preemption import _OneProcess

ROOT = Path(__file__).resolve().parents[1]


def test_what_counts_as_an_earlier_run(tmp_path):
    assert earlier_run(tmp_path / "never_used") is None
    (tmp_path / "config.yaml").write_text("a run killed before its first save leaves only this\n")
    (tmp_path / "checkpoints" / ".step_2.partial").mkdir(parents=True)
    assert earlier_run(tmp_path) is None
    (tmp_path / "checkpoints" / "step_4").mkdir()
    assert earlier_run(tmp_path) == "checkpoints up to step_4"
    exported = tmp_path / "other" / "best_model"
    exported.mkdir(parents=True)
    (exported / "model.safetensors").write_bytes(b"weights")
    assert earlier_run(tmp_path / "other") == f"an exported model in {exported}"


def test_overwrite_deletes_only_a_runs_folder_and_never_what_the_new_run_loads(tmp_path):
    exported = tmp_path / "model"
    exported.mkdir()
    (exported / "model.safetensors").write_bytes(b"weights")
    assert check_output_folder(tmp_path / "new", overwrite=False) is False
    # A model/ folder of the user's own (no run_info.json, which every run writes first) is not a run.
    for overwrite in (False, True):
        with pytest.raises(ConfigError, match="no run_info.json, so it was not written by a training run"):
            check_output_folder(tmp_path, overwrite=overwrite)
    (tmp_path / "run_info.json").write_text("{}")
    with pytest.raises(ConfigError, match="already holds a run"):
        check_output_folder(tmp_path, overwrite=False)
    assert check_output_folder(tmp_path, overwrite=True) is True
    with pytest.raises(ConfigError, match=f"would delete {exported} with the earlier run in {tmp_path}, but this "
                                          f"run reads {exported} there"):  # train.init_from=<this run>/model
        check_output_folder(tmp_path, overwrite=True, reads=[exported])
    # Data of the user's in a folder the run also writes (the trackers' train/), or beside the run's outputs
    (tmp_path / "train" / "imagesTr").mkdir(parents=True)
    with pytest.raises(ConfigError, match=f"delete {tmp_path / 'train'} .* reads {tmp_path / 'train' / 'imagesTr'}"):
        check_output_folder(tmp_path, overwrite=True, reads=[tmp_path / "synthetic_data", tmp_path / "train/imagesTr"])
    assert check_output_folder(tmp_path, overwrite=True, reads=[tmp_path / "synthetic_data" / "dataset.json"])
    assert check_output_folder(tmp_path, overwrite=True, marker=None)  # fit: checkpoint_dir has no marker


@pytest.mark.parametrize("held", ["summary.json", "model/", "checkpoints/"])
def test_a_folder_no_run_wrote_is_not_offered_overwrite_which_would_refuse_it(tmp_path, capsys, held):
    """A project folder holding a summary.json of its own, an export copied in as its model/, or checkpoints, and no
    run_info.json, was told "already holds a run ... or set --train.overwrite=true to delete it first", and that
    overwrite then refused it as not a run's (the hundred-and-twenty-fifth session's helper h138, a new user's walk;
    fixed by its review r117). Told at once now, with or without overwrite, in each caller's words, the other ways
    on only; nothing deleted. A folder a run wrote (run_info.json) is offered overwrite as before."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES

    project = tmp_path / "project"
    if held == "summary.json":
        project.mkdir()
        (project / "summary.json").write_text("{}")
        found = "a finished run's summary.json"
    else:
        folder = project / ("model" if held == "model/" else "checkpoints/step_2")
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(b"weights")
        found = f"an exported model in {folder}" if held == "model/" else "checkpoints up to step_2"
    files = sorted(path.relative_to(project) for path in project.rglob("*"))

    def said(overwrite: str, resume: str, elsewhere: str) -> str:  # checkpoints: resume too
        way = f"continue it with {resume}, " if resume and held == "checkpoints/" else ""
        return (f"{project} holds {found} but no run_info.json, so it was not written by a training run and is not "
                f"deleted, even with {overwrite}: {way}train into {elsewhere}, or move {held} out of it")

    for overwrite in (False, True):
        with pytest.raises(ConfigError) as refused:
            check_output_folder(project, overwrite=overwrite)
        assert str(refused.value) == said("--train.overwrite=true", "--train.resume=latest",
                                          "another --train.output_dir")
        with pytest.raises(ConfigError) as refused:
            check_output_folder(project, overwrite=overwrite, names=ESTIMATOR_NAMES)
        assert str(refused.value) == said("Segmentation(..., overwrite=True)", "fit(..., resume='latest')",
                                          "Segmentation(output_dir=...) of its own")
        # the command line (and examples/train.py's check_before_the_imports): one line, status 2
        with pytest.raises(SystemExit) as stop:
            main(["train", "--config", str(ROOT / "configs" / "demo.yaml"), f"--train.output_dir={project}",
                  f"--train.overwrite={str(overwrite).lower()}"])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and "so it was not written by a training run" in err
    assert sorted(path.relative_to(project) for path in project.rglob("*")) == files
    if held == "summary.json":  # as checkpoints.md's "A new run in a used folder" quotes it
        page = " ".join((ROOT / "docs" / "checkpoints.md").read_text(encoding="utf-8").split())
        assert f"`…{said('--train.overwrite=true', '', 'another --train.output_dir')[len(str(project)):]}`" in page
    assert check_output_folder(project, overwrite=True, marker=None)  # fit's checkpoint_dir has no marker
    if held == "checkpoints/":  # a train.fit's (its config.yaml empty), which train's resume refuses, is not offered it
        (project / "checkpoints" / "step_2" / "config.yaml").write_text("")
        with pytest.raises(ConfigError) as refused:
            check_output_folder(project, overwrite=False)
        assert str(refused.value) == said("--train.overwrite=true", "", "another --train.output_dir")
    (project / "run_info.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"already holds a run .* or set --train.overwrite=true to delete it first"):
        check_output_folder(project, overwrite=False)
    assert check_output_folder(project, overwrite=True) is True


def test_overwrite_spares_a_set_aside_checkpoint_the_new_run_resumes(tmp_path):
    """Going back to an abandoned course (set aside by an earlier resume) in its own folder is a new run
    there: overwrite would delete the very checkpoint it resumes, so it is refused before any work."""
    (tmp_path / "run_info.json").write_text("{}")
    (tmp_path / "checkpoints" / "step_2").mkdir(parents=True)
    aside = tmp_path / "checkpoints" / "superseded_by_resuming_step_2" / "step_6"
    aside.mkdir(parents=True)
    with pytest.raises(ConfigError, match=f"would delete {tmp_path / 'checkpoints'} .* reads {aside}"):
        resume_or_replace(tmp_path, str(aside), overwrite=True)
    assert aside.is_dir()
    # Into another folder it resumes, and its own folder's run stays.
    assert resume_or_replace(tmp_path / "course_b", str(aside), overwrite=False) == (aside, False)


def test_a_run_into_a_folder_in_use_by_a_live_run_is_refused_before_it_writes(tiny_config, tmp_path):
    """A requeued job whose first attempt still runs, or the same job submitted twice: two runs wrote
    into one folder, each rotating away and replacing the other's checkpoints and exports."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    assert not (run / LOCK_NAME).exists()  # released with the run
    files = {p.relative_to(run): p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()}
    twin = tmp_path / "twin"
    live = [hold_run_folder(run), hold_run_folder(twin)]  # the first attempt, still running; a twin just started
    try:
        with pytest.raises(ConfigError, match=f"{run} is in use by another run .* another --train.output_dir"):
            train(tiny_config(run, train__max_steps=4, train__val_every=0, train__resume="latest"))
        with pytest.raises(ConfigError, match=f"{twin} is in use by another run"):
            train(tiny_config(twin, train__max_steps=2, train__val_every=0))
        # A new run into it, past the command line's first look (started while the live one was
        # importing): "already holds a run", resume or overwrite, before the seventy-third session
        with pytest.raises(ConfigError, match=f"{run} is in use by another run"):
            train(tiny_config(run, train__max_steps=2, train__val_every=0))
        assert [p.name for p in twin.iterdir()] == [LOCK_NAME]
        # The command line's first look names the live run, not the earlier one whose ways on (resume,
        # overwrite) then met the lock (sixty-seventh session)
        for override in ({}, {"train__overwrite": "true"}, {"train__resume": "latest"}):
            with pytest.raises(ConfigError, match=f"{run} is in use by another run"):
                check_before_the_imports(tiny_config(run, **override))
    finally:
        for lock in live:
            lock.release()
    assert {p.relative_to(run): p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()} == files
    assert train(tiny_config(run, train__max_steps=4, train__val_every=0, train__resume="latest"))["step"] == 4


@pytest.mark.parametrize("name", ["model", "best_model", "summary.json", "checkpoints", "."])
def test_a_dangling_link_where_a_run_writes_is_refused_before_any_work_in_the_writes_words(tiny_config, tmp_path,
                                                                                           name):
    """A run folder whose model/ (or summary.json, ...) is a link to storage not mounted: the export's write refuses
    it (files.written_through), and until the hundred-and-twenty-first session that came after the whole training,
    nothing exported; the run folder itself such a link was mkdir's FileExistsError at its lock. Refused now by the
    command line's first look and by train() before anything is written, in the write's words."""
    run = tmp_path / "run"
    link = run if name == "." else run / name
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(tmp_path / "unmounted" / name)
    said = (rf"{link} is a symbolic link to {tmp_path / 'unmounted' / name}, which does not exist \(a dangling "
            rf"link\), so nothing is written through it: mount or make what it names, or remove the link to write a "
            rf"file in its place")
    with pytest.raises(ConfigError, match=said):
        check_before_the_imports(tiny_config(run))
    with pytest.raises(ConfigError, match=said):
        train(tiny_config(run, train__max_steps=2, train__val_every=0))
    assert link.is_symlink() and not (tmp_path / "unmounted").exists()
    assert sorted(p.name for p in link.parent.iterdir()) == [link.name]  # nothing written beside it


def test_a_fold_without_folds_is_refused_before_the_imports(tiny_config, tiny_dataset, tmp_path):
    """data.fold without data.num_folds was refused once the cases were read, after torch and MONAI were
    imported and the demo's phantoms written (6.5-7.4 s in; ninety-second session's audit). A dataset
    that gives folds of its own is read for them: data.fold picks one of those."""
    run = tmp_path / "run"
    for dataset, held_out, refusal in (
            (tiny_dataset, 1, r"^data.fold=3 is set, but the dataset gives its own split"),  # the config's names
            ("synthetic", 1, r"the dataset gives its own split \(dataset.json 'validation'\)"),
            ("synthetic", 0, r"data.fold=3 is set but data.num_folds=0; set data.num_folds")):  # no list written
        with pytest.raises(DataError, match=refusal):
            check_before_the_imports(tiny_config(run, data__dataset=str(dataset), data__fold=3,
                                                 data__synthetic__num_validation=held_out))
    assert not run.exists()
    content = json.loads(Path(tiny_dataset).read_text())
    entries = content["training"] + content.pop("validation")
    content["training"] = [{key: str(Path(tiny_dataset).parent / value) for key, value in entry.items()}
                           | {"fold": index % 4} for index, entry in enumerate(entries)]
    folds = tmp_path / "folds.json"
    folds.write_text(json.dumps(content))
    check_before_the_imports(tiny_config(run, data__dataset=str(folds), data__fold=3))


def test_overwrite_deletes_the_runs_outputs_and_nothing_else(tmp_path):
    for folder in ("checkpoints/step_4", "model", "train", "synthetic_data/imagesTr", "cache"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("summary.json", "metrics.json", "config.yaml", "model/model.safetensors",
                 "synthetic_data/dataset.json"):
        (tmp_path / name).write_text("x")
    (tmp_path / ".earlier_run.old" / "checkpoints").mkdir(parents=True)  # a deletion killed midway
    delete_earlier_run(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "synthetic_data"]
    assert (tmp_path / "synthetic_data" / "dataset.json").is_file()


def test_a_second_run_into_a_used_folder_is_refused_before_any_work_unless_overwrite(tiny_config, tmp_path, capsys):
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=4, train__val_every=2))
    before = {p.relative_to(run): p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()}

    with pytest.raises(ConfigError, match="already holds a run .checkpoints up to step_4.") as refused:
        train(tiny_config(run, train__max_steps=2))
    for way in ("--train.resume=latest", "another --train.output_dir", "train.overwrite=true"):
        assert way in str(refused.value)
    # the run ended at its length (its export of its newest checkpoint's step): a resume alone trains nothing and
    # exports it again, so a longer one is offered (the resume alone until the hundred-and-twenty-eighth session)
    assert "continue it with --train.resume=latest and a larger train.max_steps, train into" in str(refused.value)
    assert {p.relative_to(run): p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()} == before
    shutil.copytree(run / "checkpoints" / "step_4", run / "checkpoints" / "step_5")  # resumed since, and stopped
    with pytest.raises(ConfigError) as refused:
        train(tiny_config(run, train__max_steps=2))
    assert "continue it with --train.resume=latest, train into" in str(refused.value), refused.value
    shutil.rmtree(run / "checkpoints" / "step_5")

    # Through the command line: one error line, exit 2.
    with pytest.raises(SystemExit) as stop:
        main(["train", "--config", str(ROOT / "configs" / "demo.yaml"), f"--train.output_dir={run}"])
    assert stop.value.code == 2 and "already holds a run" in capsys.readouterr().err

    # Resuming the folder's own run goes on with it, whatever overwrite says (a requeued SLURM job
    # adds --resume latest to a command line that may hold --train.overwrite=true).
    resumed = train(tiny_config(run, train__max_steps=6, train__val_every=2, train__resume="latest",
                                train__overwrite="true"))
    assert resumed["step"] == 6 and (run / "checkpoints" / "step_6").is_dir()

    # overwrite: a shorter run whose only checkpoint is step_2; the earlier step_6 would otherwise
    # be what --resume latest picks.
    summary = train(tiny_config(run, train__max_steps=2, train__val_every=2, train__overwrite="true"))
    assert summary["step"] == 2
    assert [p.name for p in complete_checkpoints(run / "checkpoints")] == ["step_2"]
    assert resolve_resume("latest", run / "checkpoints") == run / "checkpoints" / "step_2"


def test_a_new_run_never_replaces_files_of_another_programs(tiny_config, tmp_path):
    """train.output_dir=. in a project: its config.yaml was written over, and its model/ package
    swapped out and deleted by the first export, before the thirty-first session."""
    from accelerated_seg.model_folders import FIT_NAMES
    from accelerated_seg.run_folder import FIT_OUTPUTS

    project = tmp_path / "project"
    (project / "model").mkdir(parents=True)
    (project / "model" / "__init__.py").write_text("# the project's own code\n")
    (project / "config.yaml").write_text("# the project's settings\n")
    with pytest.raises(ConfigError, match=f"{project} holds model, config.yaml, which this run would replace, but "
                                          f"no run_info.json, so they are not a training run's: train into another"):
        train(tiny_config(project, train__max_steps=2))
    assert (project / "model" / "__init__.py").read_text() == "# the project's own code\n"
    assert sorted(p.name for p in project.iterdir()) == ["config.yaml", "model"]
    # fit writes only checkpoints/ and model/ into its checkpoint_dir
    with pytest.raises(ConfigError, match="holds model, which this run would replace, but they are not"):
        check_output_folder(project, False, marker=None, outputs=FIT_OUTPUTS, names=FIT_NAMES)
    (project / "model" / "__init__.py").unlink()
    (project / "model").rmdir()
    assert check_output_folder(project, False, marker=None, outputs=FIT_OUTPUTS, names=FIT_NAMES) is False
    # A run's own folder, killed before its first save: its files are the run's to replace
    (project / "run_info.json").write_text("{}")
    assert check_output_folder(project, False) is False


def test_a_new_run_never_adopts_a_folder_of_the_users_that_overwrite_would_delete(tiny_config, tmp_path):
    """A train/ (the trackers' folder) of the user's own, in a folder that held no run: the first run
    wrote its logs beside the user's files, and the second, with train.overwrite, deleted them all
    (sixty-seventh session's probe)."""
    project = tmp_path / "project"
    (project / "train").mkdir(parents=True)
    (project / "train" / "notes.txt").write_text("the user's\n")
    (project / "evaluation").mkdir()  # empty: nothing to lose
    with pytest.raises(ConfigError, match=f"{project} holds train, which this run would replace or write into, "
                                          "and --train.overwrite=true later delete with it, but no run_info.json, "
                                          "so they are not a training run's: train into another --train.output_dir"):
        train(tiny_config(project, train__max_steps=2))
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == [
        "evaluation", "train", "train/notes.txt"]
    (project / "train" / "notes.txt").unlink()
    assert train(tiny_config(project, train__max_steps=2, train__val_every=0))["step"] == 2

def test_overwrite_never_deletes_the_data_the_new_run_reads(tiny_dataset, tiny_config, tmp_path):
    """A dataset in <run>/train/ (the trackers' folder name, and a common one for data) was deleted
    with the earlier run by train.overwrite before the thirty-first session."""
    import shutil

    run = tmp_path / "run"
    data = run / "train"
    train(tiny_config(run, train__max_steps=2, train__trackers="none"))
    shutil.copytree(Path(tiny_dataset).parent, data)  # moved in after the run (a first run is refused: below)
    files = sorted(p.relative_to(data) for p in data.rglob("*.nii.gz"))
    with pytest.raises(ConfigError, match=f"train.overwrite=true would delete {data} with the earlier run in {run}, "
                                          f"but this run reads {data / 'dataset.json'} there"):
        train(tiny_config(run, data__dataset=data / "dataset.json", train__overwrite="true"))
    # Cases listed from elsewhere: found once the description is read, before they are preprocessed
    table = tmp_path / "cases.csv"
    table.write_text("image,label\n" + "".join(f"{data / 'imagesTr' / p.name},{data / 'labelsTr' / p.name}\n"
                                               for p in sorted((data / "labelsTr").iterdir())))
    with pytest.raises(ConfigError, match=f"would delete {data} .* reads {data / 'imagesTr'}"):
        train(tiny_config(run, data__dataset=table, data__binarize="true", train__overwrite="true"))
    assert sorted(p.relative_to(data) for p in data.rglob("*.nii.gz")) == files
    assert (run / "checkpoints" / "step_2").is_dir()  # nor the earlier run

def test_resuming_an_older_step_moves_the_later_checkpoints_out_of_latests_way(tiny_config, tmp_path, capsys):
    """Going back to step 2 of a run saved at 2, 4 and 6: the earlier course's step_6 stayed beside
    the new course's step_4 before the thirty-first session, and --resume latest (a requeued job)
    went back to it."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=6, train__val_every=0, train__keep_last=3))
    earlier = {p.name: (p / "config.yaml").stat().st_mtime_ns for p in complete_checkpoints(run / "checkpoints")}
    assert sorted(earlier) == ["step_2", "step_4", "step_6"]
    capsys.readouterr()

    assert json.loads((run / "model" / "config.json").read_text())["step"] == 6  # exports record their step

    train(tiny_config(run, train__max_steps=4, train__val_every=0, train__keep_last=3,
                      train__resume=str(run / "checkpoints" / "step_2")))
    aside = run / "checkpoints" / "superseded_by_resuming_step_2"
    assert f"the later checkpoints and exports of the earlier course are kept in {aside}" in capsys.readouterr().out
    assert [p.name for p in complete_checkpoints(run / "checkpoints")] == ["step_2", "step_4"]
    assert resolve_resume("latest", run / "checkpoints") == run / "checkpoints" / "step_4"  # this course's
    assert {p.name: (p / "config.yaml").stat().st_mtime_ns for p in aside.iterdir() if p.name.startswith("step")} == {
        "step_4": earlier["step_4"], "step_6": earlier["step_6"]}  # kept whole, not deleted
    assert json.loads((aside / "model" / "config.json").read_text())["step"] == 6
    assert json.loads((run / "model" / "config.json").read_text())["step"] == 4  # this course's export

    # A second return to step 2: its own folder; a resume of the latest moves nothing
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume=str(run / "checkpoints" / "step_2")))
    assert sorted(p.name for p in (run / "checkpoints" / "superseded_by_resuming_step_2_2").iterdir()) == [
        "model", "step_4"]
    train(tiny_config(run, train__max_steps=4, train__val_every=0, train__resume="latest"))
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "step_2", "step_4", "superseded_by_resuming_step_2", "superseded_by_resuming_step_2_2"]

    # The abandoned course goes on in a folder of its own (docs/checkpoints.md), from its step 6
    course_b = tmp_path / "course_b"
    train(tiny_config(course_b, train__max_steps=8, train__val_every=0, train__resume=str(aside / "step_6")))
    assert [p.name for p in complete_checkpoints(course_b / "checkpoints")] == ["step_8"]
    assert json.loads((course_b / "model" / "config.json").read_text())["step"] == 8
    assert (aside / "step_6").is_dir()

def test_a_resume_whose_best_export_is_not_there_chooses_the_best_model_anew(tiny_config, tmp_path, capsys):
    """A checkpoint resumed in another folder (or after its later course was set aside) brought back
    a best step whose export was nowhere: best_model/ stayed missing until a validation beat it, while
    summary.json named it (eighty-fourth session's probe)."""
    from accelerated_seg.checkpoint import exported_step

    run, other = tmp_path / "run", tmp_path / "other"
    train(tiny_config(run, train__max_steps=4, train__val_every=2, train__save_every=2, train__keep_last=3))
    best = json.loads((run / "summary.json").read_text())["best_step"]
    assert exported_step(run / "best_model") == best
    capsys.readouterr()
    train(tiny_config(other, train__max_steps=6, train__val_every=2, train__save_every=2,
                      train__resume=str(run / "checkpoints" / "step_4")))
    said = capsys.readouterr().out
    assert (f"warning: there is no best_model/ in {other}, and the checkpoint's best validation was step {best} "
            f"(mean Dice ") in said and f"{run / 'checkpoints' / f'step_{best}'} holds those weights" in said
    assert "best_model/ is chosen anew from this run's next validation on" in said
    summary = json.loads((other / "summary.json").read_text())
    assert summary["best_step"] == 6 == exported_step(other / "best_model")

    # The stopped run's export of a step after its newest checkpoint: the same course, said calmly
    shutil.rmtree(other / "checkpoints" / "step_6")
    shutil.copytree(run / "checkpoints" / "step_4", other / "checkpoints" / "step_4")
    train(tiny_config(other, train__max_steps=6, train__val_every=2, train__save_every=2, train__resume="latest"))
    said = capsys.readouterr().out
    assert "warning: " not in said and "note: best_model/ holds step 6, validated after step_4 by the run that " \
                                   "stopped" in said
    assert json.loads((other / "summary.json").read_text())["best_step"] == 6 == exported_step(other / "best_model")
    (other / "best_model" / "config.json").write_text("{}")  # before exports recorded their step: not judged
    assert exported_step(other / "best_model") == -1 and exported_step(tmp_path / "nowhere") is None

    # Resumed at train.max_steps, nothing validates to choose from: the checkpoint's best stays named
    # (summary.json's best_step was null, as if the run had never validated)
    done = tmp_path / "done"
    train(tiny_config(done, train__max_steps=4, train__val_every=2, train__resume=str(run / "checkpoints" / "step_4")))
    said = capsys.readouterr().out
    assert f"warning: there is no best_model/ in {done}, and the checkpoint's best validation was step {best}" in said
    assert f"Nothing is trained (train.max_steps is reached), so summary.json keeps step {best} as the best" in said
    assert json.loads((done / "summary.json").read_text())["best_step"] == best


def test_only_exports_of_a_later_step_are_set_aside(tmp_path):
    from accelerated_seg.checkpoint import set_aside_later_course

    for step in (2, 4):
        (tmp_path / "checkpoints" / f"step_{step}").mkdir(parents=True)
    for name, config in (("model", {"step": 4}), ("best_model", {"step": 2})):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(json.dumps(config))
    assert set_aside_later_course(tmp_path / "checkpoints" / "step_4", tmp_path) is None  # the latest: nothing later
    aside = set_aside_later_course(tmp_path / "checkpoints" / "step_2", tmp_path)
    assert sorted(p.name for p in aside.iterdir()) == ["model", "step_4"]
    assert (tmp_path / "best_model" / "config.json").is_file()  # step 2: this course's past, not the later one's
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")  # written before exports recorded their step: stays
    assert set_aside_later_course(tmp_path / "checkpoints" / "step_2", tmp_path) is None


def test_resuming_the_newest_checkpoint_keeps_the_exports_written_after_it(tmp_path):
    """A run stopped between a new best (step 6) and its next checkpoint: resuming step 4, its newest,
    continues the same course, whose best_model/ was moved aside as an abandoned course's (and the run
    had none until it validated step 6 again) until the sixty-ninth session."""
    from accelerated_seg.checkpoint import set_aside_later_course

    for step in (2, 4):
        (tmp_path / "checkpoints" / f"step_{step}").mkdir(parents=True)
    (tmp_path / "best_model").mkdir()
    (tmp_path / "best_model" / "config.json").write_text(json.dumps({"step": 6}))
    assert set_aside_later_course(tmp_path / "checkpoints" / "step_4", tmp_path) is None
    assert (tmp_path / "best_model" / "config.json").is_file()
    aside = set_aside_later_course(tmp_path / "checkpoints" / "step_2", tmp_path)  # an older one: another course
    assert sorted(p.name for p in aside.iterdir()) == ["best_model", "step_4"]

class _Killed(BaseException):
    """A kill -9: nothing after it runs, not even a ``finally``'s clean-up in the code under test."""


def test_a_set_aside_killed_between_its_moves_is_finished_whole_by_the_next_resume(tmp_path, monkeypatch):
    """A launcher's death kills its ranks (SIGKILL) until the loop runs, so in the middle of a set-aside
    too. With the exports moved after the checkpoints, a kill between them left the earlier course's
    model/ and best_model/ for the rerun, which found nothing later to set aside, took them for its own
    course's and overwrote them; a kill before left the course split over two folders."""
    from accelerated_seg.checkpoint import set_aside_later_course

    def earlier_course(run):
        for step in (2, 4, 6):
            (run / "checkpoints" / f"step_{step}").mkdir(parents=True)
        for name, step in (("model", 6), ("best_model", 5)):
            (run / name).mkdir()
            (run / name / "config.json").write_text(json.dumps({"step": step}))

    changes = ("mkdir", "touch", "rename", "unlink")
    real = {name: getattr(Path, name) for name in changes}
    killed_at = 0
    while True:  # a kill before each change of the folder in turn, until one run makes them all
        run = tmp_path / f"killed_at_{killed_at}"
        earlier_course(run)
        made = 0

        def until_the_kill(name):
            def change(path, *args, **kwargs):
                nonlocal made
                if made == killed_at:
                    raise _Killed
                made += 1
                return real[name](path, *args, **kwargs)
            return change

        with monkeypatch.context() as patch:
            for name in changes:
                patch.setattr(Path, name, until_the_kill(name))
            try:
                set_aside_later_course(run / "checkpoints" / "step_2", run)
                whole = True
            except _Killed:
                whole = False
        if not whole:
            aside = set_aside_later_course(run / "checkpoints" / "step_2", run)  # the same resume, run again
            assert aside in (None, run / "checkpoints" / "superseded_by_resuming_step_2"), killed_at
        assert sorted(p.name for p in run.iterdir()) == ["checkpoints"], killed_at  # no export of the earlier course
        assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
            "step_2", "superseded_by_resuming_step_2"], killed_at
        assert sorted(p.name for p in (run / "checkpoints" / "superseded_by_resuming_step_2").iterdir()) == [
            "best_model", "model", "step_4", "step_6"], killed_at  # whole, in one folder, no longer unfinished
        if whole:
            break
        killed_at += 1
    assert killed_at == 7  # the folder, its mark, four moves and the mark's removal: a kill before each


def test_a_checkpoint_is_renamed_away_before_it_is_deleted(tmp_path, monkeypatch):
    import shutil

    checkpoints = tmp_path / "checkpoints"
    save_training_state(_OneProcess(), checkpoints, 2, 1, "")
    save_training_state(_OneProcess(), checkpoints, 4, 1, "")
    (checkpoints / ".step_9.old").mkdir()  # a deletion killed midway: hidden, never resumed from
    assert resolve_resume("latest", checkpoints) == checkpoints / "step_4"

    deleted = []
    real_rmtree = shutil.rmtree
    monkeypatch.setattr(shutil, "rmtree", lambda path, *a, **k: (deleted.append(path.name), real_rmtree(path, *a, **k)))
    save_training_state(_OneProcess(), checkpoints, 4, 1, "replaced\n")  # the same step again (a resumed attempt)
    save_training_state(_OneProcess(), checkpoints, 6, 1, "")  # rotates step_4 away
    assert not any(name.startswith("step_") for name in deleted), deleted
    assert ".step_4.old" in deleted and ".step_9.old" in deleted
    assert sorted(p.name for p in checkpoints.iterdir()) == ["step_6"]


@pytest.mark.parametrize("override, message", [
    ({"model__name": "unte"}, "setting model.name must be one of unet, segresnet, .*; got 'unte'"),
    ({"model__args": "{out_channels: 5}"}, r"model.args \['out_channels'\] contradict the run: out_channels is the"),
    ({"model__args": "{}"}, "Expected more than 1 spatial element"),  # default U-Net: 16^3 leaves 1 voxel at the bottom
    ({"model__args": "{channels: [4, 8, 16, 32], strides: [2, 2]}"},
     r"MONAI's UNet refuses model.args.channels \[4, 8, 16, 32\] with model.args.strides"),
    ({"train__batch_size": 16}, "one epoch has 12 patches, fewer than one batch of every process's, 16"),
])
def test_a_refused_run_deletes_nothing_and_reads_no_volume(tiny_config, tmp_path, override, message):
    # train.overwrite deletes the earlier run only once nothing can refuse the new one: every check
    # of the model and the batch runs before it, and before the preprocessing reads a volume.
    run, cache = tmp_path / "run", tmp_path / "cache"
    for name in ("run_info.json", "checkpoints/step_4/model.safetensors", "model/model.safetensors"):
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text("the earlier run")
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    with pytest.raises(ConfigError, match=message):
        train(tiny_config(run, train__overwrite="true", data__cache_dir=str(cache), **override))
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before
    assert (run / "model" / "model.safetensors").read_text() == "the earlier run"
    assert not cache.exists()


@pytest.mark.parametrize("setting", ["train__output_dir", "data__cache_dir"])
@pytest.mark.parametrize("below", [False, True])
def test_a_file_where_a_folder_must_go_is_one_error_before_any_work(tiny_config, tmp_path, setting, below):
    """A file at the folder's path, or at a parent's, was an OSError traceback from the first mkdir."""
    taken = tmp_path / "taken"
    taken.write_text("a file of the user's")
    folder = taken / "sub" if below else taken
    settings = {"data__cache_dir": str(tmp_path / "cache"), setting: str(folder)}
    run = Path(settings.pop("train__output_dir", tmp_path / "run"))
    with pytest.raises(ConfigError, match=f"{setting.replace('__', '.')}='{folder}': {taken} is a file, so the "
                                          "folder cannot be made there"):
        train(tiny_config(run, **settings))
    assert taken.read_text() == "a file of the user's" and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("setting", ["train__output_dir", "data__cache_dir"])
def test_a_file_where_a_folder_must_go_is_refused_by_the_command_lines_first_look(tiny_config, tmp_path, setting):
    """The same refusal before torch and MONAI are imported (check_before_the_imports): a data.cache_dir below a file
    waited for them, 6 s, where a train.output_dir there was refused in 0.4 s (the eleventh new user's walk)."""
    taken = tmp_path / "taken"
    taken.write_text("a file of the user's")
    settings = {"data__cache_dir": str(tmp_path / "cache"), setting: str(taken / "sub")}
    run = Path(settings.pop("train__output_dir", tmp_path / "run"))
    with pytest.raises(ConfigError, match=f"^{setting.replace('__', '.')}='{taken / 'sub'}': {taken} is a file, so "
                                          "the folder cannot be made there; give a folder path$"):
        check_before_the_imports(tiny_config(run, **settings))


def test_a_run_with_an_export_but_no_checkpoint_is_not_offered_a_resume(tmp_path):
    """A run killed between its first export (best_model/ at the first validation) and its first
    checkpoint: a new run was told to resume it, and --resume latest to drop --resume, a loop whose
    only way out, overwrite, neither message named alone (sixty-ninth session)."""

    (tmp_path / "run_info.json").write_text("{}")  # a training run's folder
    (tmp_path / "best_model").mkdir()
    (tmp_path / "best_model" / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "checkpoints" / ".step_20.partial").mkdir(parents=True)  # the checkpoint the kill cut short
    with pytest.raises(ConfigError) as new_run:
        resume_or_replace(tmp_path, None, overwrite=False)
    assert "it saved no checkpoint to continue from" in str(new_run.value)
    assert "--train.resume" not in str(new_run.value) and "--train.overwrite=true" in str(new_run.value)
    with pytest.raises(ConfigError, match=r"--train.resume=latest, but .* holds no complete checkpoint to resume: its "
                                          r"run left an exported model in .*best_model and stopped before saving one.*"
                                          r"Start it again with --train.overwrite=true"):
        resume_or_replace(tmp_path, "latest", overwrite=False)
    assert resume_or_replace(tmp_path, None, overwrite=True) == (None, True)  # the way on that both name


def _error_line_of(run_training, capsys) -> str:
    """What the command line prints when ``run_training`` fails as a save does: one line, status 1."""
    from accelerated_seg.cli import exit_on_user_error

    with pytest.raises(SystemExit) as ended, exit_on_user_error():
        run_training()
    assert ended.value.code == 1
    return capsys.readouterr().err


@pytest.mark.parametrize("error", [
    RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 39616 vs 39504"),  # torch's, the optimizer
    # safetensors', the weights: no OSError, and a traceback until the seventy-third session
    SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)"),
], ids=["torch", "safetensors"])
def test_a_checkpoint_that_cannot_be_written_ends_the_run_with_one_line_naming_the_last_whole_one(
        tiny_config, tmp_path, monkeypatch, capsys, error):
    """A full disk in the middle of a save: torch said only "unexpected pos 39616 vs 39504", in a
    traceback the CLI calls a bug to report (sixty-ninth session). Now one line says which save
    failed, the free space there, and that step_2 is whole and resumable; nothing before is lost."""
    import accelerate

    real_save = accelerate.Accelerator.save_state

    def full_disk_at_step_4(self, output_dir=None, **kwargs):
        if "step_4" in str(output_dir):
            raise error
        return real_save(self, output_dir, **kwargs)

    monkeypatch.setattr(accelerate.Accelerator, "save_state", full_disk_at_step_4)
    run = tmp_path / "run"
    message = _error_line_of(lambda: train(tiny_config(run, train__max_steps=6, train__val_every=0)), capsys)
    assert message.startswith(f"error: saving the checkpoint step_4 into {run / 'checkpoints'} failed "
                              f"({type(error).__name__}: {error});")
    assert "GiB free there" in message and f"the newest whole checkpoint, {run / 'checkpoints' / 'step_2'}" in message
    assert [p.name for p in complete_checkpoints(run / "checkpoints")] == ["step_2"]
    monkeypatch.setattr(accelerate.Accelerator, "save_state", real_save)  # room made: the resume finishes
    assert train(tiny_config(run, train__max_steps=6, train__val_every=0, train__resume="latest"))["step"] == 6
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_4", "step_6"]  # the partial swept away


def test_a_read_only_checkpoints_folder_and_a_full_disk_at_an_export_end_the_run_with_one_line(
        tiny_config, tmp_path, monkeypatch, capsys):
    """The checkpoint's folder could not be made (read-only) and the export's weights could not be
    written (safetensors' 'No space left on device'): tracebacks before the seventy-second session."""
    from pathlib import Path

    from safetensors import SafetensorError

    import accelerated_seg.exported_model as exported_model

    from faults import checkpoint_folder_read_only

    real_mkdir = Path.mkdir
    checkpoint_folder_read_only(monkeypatch, 4)
    run = tmp_path / "run"
    message = _error_line_of(lambda: train(tiny_config(run, train__max_steps=6, train__val_every=0)), capsys)
    assert message.startswith(f"error: saving the checkpoint step_4 into {run / 'checkpoints'} failed (OSError: "
                              f"[Errno 30] Read-only file system:")
    assert f"the newest whole checkpoint, {run / 'checkpoints' / 'step_2'}, is untouched" in message
    monkeypatch.setattr(Path, "mkdir", real_mkdir)

    real_save_file = exported_model.save_file

    def full_disk_at_the_export(tensors, filename, *args, **kwargs):
        if "model.partial" in str(filename):
            raise SafetensorError('Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: '
                                  '"No space left on device" })')
        return real_save_file(tensors, filename, *args, **kwargs)

    monkeypatch.setattr(exported_model, "save_file", full_disk_at_the_export)
    message = _error_line_of(
        lambda: train(tiny_config(run, train__max_steps=6, train__val_every=0, train__resume="latest")), capsys)
    assert message.startswith(f"error: saving the export model/ (an earlier one there is kept) into {run} failed "
                              f"(SafetensorError: Error while serializing:")
    assert f"the newest whole checkpoint, {run / 'checkpoints' / 'step_6'}, is untouched" in message
    assert not (run / "model.partial").exists()  # half-written: it stayed until the ninety-second session
    monkeypatch.setattr(exported_model, "save_file", real_save_file)  # room made: the resume writes the export
    assert train(tiny_config(run, train__max_steps=6, train__val_every=0, train__resume="latest"))["step"] == 6
    assert (run / "model" / "model.safetensors").is_file() and not (run / "model.partial").exists()


def test_weights_files_get_the_mode_of_any_new_file(tiny_config, tmp_path):
    """safetensors writes owner-only files (0600) whatever the umask: the rest of a project's group
    could read a run's every file but its weights (sixty-ninth session)."""
    import stat

    from accelerated_seg.files import NEW_FILE_MODE

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=2))
    weights = [run / "model" / "model.safetensors", run / "best_model" / "model.safetensors",
               run / "checkpoints" / "step_2" / "model.safetensors"]
    assert {path: stat.S_IMODE(path.stat().st_mode) for path in weights} == dict.fromkeys(weights, NEW_FILE_MODE)
    assert NEW_FILE_MODE == stat.S_IMODE((run / "run_info.json").stat().st_mode)  # as every other file


def test_metrics_json_is_written_at_each_validation_and_summary_json_at_the_end_alone(tiny_config, tmp_path,
                                                                                       monkeypatch):
    """docs/checkpoints.md's table of a run folder had both written "at each validation and at the end" (the
    hundred-and-eighteenth session's rewrite; its review): summary.json is the end's alone, a preempted run's too, so a
    run stopped otherwise (Ctrl-C, a kill) has none, however many validations wrote metrics.json."""
    import signal

    import accelerated_seg.configured_run as configured_run
    from test_preemption import _signal_self_at

    real, seen = configured_run.write_metrics, []

    def write_metrics(accelerator, out, progress):
        real(accelerator, out, progress)
        seen.append((progress.step, (out / "metrics.json").is_file(), (out / "summary.json").is_file()))

    monkeypatch.setattr(configured_run, "write_metrics", write_metrics)
    common = dict(train__max_steps=4, train__val_every=2, train__save_every=0)
    train(tiny_config(tmp_path / "run", **common))
    assert seen == [(2, True, False), (4, True, False), (4, True, True)]  # two validations, then the end
    with monkeypatch.context() as patch:
        _signal_self_at(patch, call=2, signum=signal.SIGUSR1)  # in step 3, after the validation at 2
        assert train(tiny_config(tmp_path / "preempted", **common))["preempted"]
    assert json.loads((tmp_path / "preempted" / "summary.json").read_text())["preempted"]
    assert not (tmp_path / "preempted" / "model").exists()
    cells = [row.split("|")[1:-1] for row in (ROOT / "docs" / "checkpoints.md").read_text(encoding="utf-8").splitlines()
             if row.startswith("| `")]
    written = {cell[0].strip(): cell[2].strip() for cell in cells if "summary.json`" in cell[0] and len(cell) == 3}
    assert written == {"`summary.json`": "at the end, a preempted run's too (`\"preempted\": true`)"}


def test_ranks_that_see_the_run_folder_differently_are_refused_together(monkeypatch):
    """A stale listing on one node: rank 0 resumed step_6, rank 1 step_4, and they trained together
    with different step counts until they hung (sixty-ninth session)."""
    from types import SimpleNamespace

    import accelerated_seg.run_folder_ranks as run_folder_ranks

    others = [("/runs/a/checkpoints/step_4", False)]
    monkeypatch.setattr(run_folder_ranks, "on_every_rank", lambda work: [work(), *others])
    two = SimpleNamespace(num_processes=2)
    run_folder_ranks.check_the_ranks_agree_on_the_start(two, Path("/runs/a/checkpoints/step_4"), False)  # alike
    with pytest.raises(ConfigError, match=r"the ranks see the run folder differently \(rank 0: resume "
                                          r"/runs/a/checkpoints/step_6; rank 1: resume /runs/a/checkpoints/step_4\): "
                                          r"train.output_dir must be one folder that every node sees alike"):
        run_folder_ranks.check_the_ranks_agree_on_the_start(two, Path("/runs/a/checkpoints/step_6"), False)
    others[:] = [(None, False)]
    with pytest.raises(ConfigError, match=r"rank 0: a new run replacing the earlier one; rank 1: a new run\)"):
        run_folder_ranks.check_the_ranks_agree_on_the_start(two, None, True)


def test_a_checkpoint_without_another_ranks_files_is_refused(tmp_path):
    """A node whose train.output_dir was a folder of its own wrote its random states there; the
    checkpoints went on without them (sixty-ninth session)."""
    from accelerated_seg.checkpoint import _every_ranks_files_there

    partial = tmp_path / ".step_4.partial"
    partial.mkdir()
    (partial / "random_states_0.pkl").write_bytes(b"")
    _every_ranks_files_there(partial, 1)
    with pytest.raises(ConfigError, match=r"the checkpoint .step_4.partial lacks the files of rank\(s\) 1, which they "
                                          r"wrote into train.output_dir as they see it: .* every node sees"):
        _every_ranks_files_there(partial, 2)


@pytest.mark.parametrize("local_rank, rank, says", [("0", "0", True), ("0", "1", True), ("1", "1", False),
                                                    (None, "1", False), (None, None, True)])
def test_the_first_rank_of_each_node_says_the_error(monkeypatch, capsys, local_rank, rank, says):
    """Node 1 failing alone before the process group existed left only torchrun's exit code in its
    log (RANK 1 printed nothing), and node 0 waited 30 minutes in silence (sixty-ninth session)."""
    from accelerated_seg.cli import _end_with_the_message

    for name, value in (("LOCAL_RANK", local_rank), ("RANK", rank)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit):
        _end_with_the_message(ConfigError("no checkpoint"), 2)
    assert (capsys.readouterr().err == "error: no checkpoint\n") is says


def test_a_cache_that_the_main_process_does_not_share_with_the_other_ranks_is_refused(tiny_dataset, tmp_path):
    """Nodes with caches of their own (data.cache_dir's default is each machine's ~/.cache) failed with
    FileNotFoundError tracebacks from the case table (sixty-ninth session)."""
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.training_data import _every_case_in_the_cache, _every_table_seen

    manifest = load_msd(tiny_dataset)
    cases = manifest.training + manifest.validation
    cache = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)), 3)
    cache.build(cases, shard=(0, 2))  # rank 0's share here; rank 1's went into its node's own cache
    with pytest.raises(ConfigError, match=r"^4 case\(s\) that the other ranks preprocessed are not in .* as the main "
                                          r"process sees it \(.*, \.\.\.\): data.cache_dir must be a folder that every "
                                          r"node sees"):
        _every_case_in_the_cache(cache, cases)
    cache.build(cases, shard=(1, 2))
    _every_case_in_the_cache(cache, cases)
    with pytest.raises(ConfigError, match=r"the case table .*/elsewhere, which the main process wrote, is not there "
                                          r"as rank 1 sees it: data.cache_dir must be"):
        _every_table_seen([cache.write_table(cases), tmp_path / "elsewhere"], 1)


def test_a_case_whose_file_was_replaced_while_a_rank_built_it_is_no_cache_the_ranks_do_not_share(tiny_dataset,
                                                                                                 tmp_path, monkeypatch):
    """The source fingerprint is taken before the files are read, so a label replaced while its case was built
    leaves the case built but not current; the main process's look at the other ranks' cases took it for a
    cache folder the nodes do not share, and the run failed advising a shared filesystem."""
    import shutil

    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.training_data import _every_case_in_the_cache
    from faults import label_replaced_while_read

    shutil.copytree(tiny_dataset.parent, tmp_path / "data")
    manifest = load_msd(tmp_path / "data" / tiny_dataset.name)
    case = manifest.training[0]
    cache = PreprocessedCache(tmp_path / "cache", manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)), 3)
    label_replaced_while_read(monkeypatch, case.label)
    cache.build([case])
    assert not cache.is_current(case)
    _every_case_in_the_cache(cache, [case])  # built: the table reads it, and the next run builds it again
    assert cache.write_table([case]).is_dir()


def test_a_resume_sweeps_what_killed_writers_left_even_when_it_trains_nothing_more(tiny_config, tmp_path, capsys):
    """Only a save removed the hidden checkpoint folders a kill left, so a resume at train.max_steps
    already (nothing to train, nothing saved) kept a whole checkpoint's size of .step_N.old for good
    (seventy-fourth session's probe); the stale temporaries of the run's JSON were never removed."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    checkpoints = run / "checkpoints"
    shutil.copytree(checkpoints / "step_2", checkpoints / ".step_1.old")  # a rotation killed midway
    (checkpoints / ".step_3.partial").mkdir()  # a save killed midway
    stale = run / f".summary.json.{uuid.uuid4().hex}.tmp"
    fresh = run / f".metrics.json.{uuid.uuid4().hex}.tmp"  # a writer at work now, as far as anyone can tell
    users = run / ".my_notes.tmp"
    for path in (stale, fresh, users):
        path.write_text("{")
    os.utime(stale, (time.time() - 2 * STALE_AFTER_S,) * 2)
    capsys.readouterr()

    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume="latest"))
    out = capsys.readouterr().out
    assert f"removed what runs killed while writing left in {run}: " in out and ".step_1.old" in out
    assert sorted(p.name for p in checkpoints.iterdir()) == ["step_2"]
    assert not stale.exists() and fresh.exists() and users.exists()
    assert "nothing to train" in out



def test_a_run_sweeps_what_an_interrupted_export_left(tiny_config, tmp_path, capsys):
    """An export's temporary folder (model.partial) that a launch's interrupt or a kill left (os._exit during its
    write, or during the old export's deletion after the swap) stayed until that same export was written again:
    best_model.partial for good where no validation did better (found in the hundred-and-seventh session)."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    shutil.copytree(run / "model", run / "best_model.partial")  # the old export, being deleted after the swap
    (run / "model.partial").mkdir()  # an export being written
    (run / "model.partial" / "model.safetensors").write_bytes(b"half")
    capsys.readouterr()
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume="latest"))
    out = capsys.readouterr().out
    assert f"removed what runs killed while writing left in {run}: " in out, out
    assert "model.partial" in out and "best_model.partial" in out, out
    assert not (run / "model.partial").exists() and not (run / "best_model.partial").exists()
    assert (run / "model" / "model.safetensors").is_file() and not (run / "best_model").exists()


def test_a_folder_that_is_no_runs_keeps_its_own_model_previous(tiny_config, tmp_path):
    """A project's own model.previous/ (no run_info.json, no checkpoints/) is not an interrupted export's: the run's
    sweep, before the folder is judged, renamed it to model/ and the run was then refused as "already holds a run (an
    exported model in <project>/model)" (the hundred-and-seventh session's review). Refused now as before the sweep
    was added, the folder as it was."""
    project = tmp_path / "project"
    (project / "model.previous").mkdir(parents=True)
    (project / "model.previous" / "weights.pt").write_bytes(b"mine")
    with pytest.raises(ConfigError, match="not a training run's"):
        train(tiny_config(project, train__max_steps=2, train__val_every=0))
    assert sorted(path.name for path in project.iterdir()) == ["model.previous"]
    assert (project / "model.previous" / "weights.pt").read_bytes() == b"mine"


def test_a_refused_run_keeps_a_hand_made_model_previous_beside_a_whole_model_and_says_so(tiny_config, tmp_path,
                                                                                          capsys):
    """In a run's folder, a model.previous/ beside a whole model/ (no model.partial) is no replace killed between
    its renames: the sweep, before the run was judged and refused (no overwrite, no resume), deleted it until the
    hundred-and-eighth session. Left now, and named."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    (run / "model.previous").mkdir()
    (run / "model.previous" / "notes.txt").write_text("mine")
    capsys.readouterr()
    with pytest.raises(ConfigError, match="already holds a run"):
        train(tiny_config(run, train__max_steps=2, train__val_every=0))
    assert (run / "model.previous" / "notes.txt").read_text() == "mine"
    assert f"note: left alone in {run}, as it may be yours: model.previous/ beside a whole model/" in (
        capsys.readouterr().out)


def test_an_unlockable_run_folder_keeps_its_hidden_checkpoints(tiny_config, tmp_path, monkeypatch, capsys):
    """Without a lock another live run may be writing them: nothing is swept, and the run says why."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    (run / "checkpoints" / ".step_4.partial").mkdir()
    monkeypatch.setattr(fcntl, "flock", _refused_lock)
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume="latest"))
    assert "cannot be locked" in capsys.readouterr().out
    assert (run / "checkpoints" / ".step_4.partial").is_dir()


def _refused_lock(fd, operation):
    raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))  # Lustre without -o flock


def test_a_sweep_that_cannot_remove_a_leftover_warns_and_keeps_no_lock(tiny_config, tmp_path, monkeypatch, capsys):
    """A leftover the sweep may not delete (a colleague's, in a shared folder) raised past the lock's
    release: the run stopped, and the same process was then refused its own folder as "in use"."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))

    def refused(out):
        raise PermissionError(13, "Permission denied", str(out / "checkpoints" / ".step_1.old"))

    monkeypatch.setattr("accelerated_seg.run_folder_ranks.remove_killed_writers_leftovers", refused)
    capsys.readouterr()
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume="latest"))
    assert f"warning: what runs killed while writing left in {run} could not all be removed" in capsys.readouterr().out
    monkeypatch.undo()
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__resume="latest"))  # not "in use"


def test_a_resume_that_would_rewrite_the_demos_phantoms_or_go_back_is_refused_before_the_data_work(tmp_path):
    """A resume with another data.synthetic wrote other phantoms over the checkpoint's run's before any
    refusal (the split check's, after the data work), or with a new seed trained on other cases under
    the same names, unsaid; one beyond train.max_steps was refused only once the state was loaded."""
    from accelerated_seg.config import dump_config, load_config

    run = tmp_path / "run"
    settings = [f"--train.output_dir={run}", "--data.synthetic.num_cases=6", "--data.synthetic.num_validation=2"]
    checkpoint = run / "checkpoints" / "step_3"
    checkpoint.mkdir(parents=True)
    (checkpoint / "config.yaml").write_text(dump_config(load_config(None, [*settings, "--train.max_steps=3"])))
    (run / "run_info.json").write_text("{}")
    phantoms = run / "synthetic_data" / "dataset.json"
    phantoms.parent.mkdir()
    phantoms.write_text('{"as written": "by the checkpoint\'s run"}')
    resumed = [*settings, "--train.resume=latest", "--train.max_steps=6"]
    for change in ("--data.synthetic.seed=1", "--data.synthetic.num_validation=3"):
        key, value = change[2:].split("=")
        cfg = load_config(None, [*resumed, change])
        with pytest.raises(ConfigError, match=rf"cannot resume from {checkpoint}: its run trained on the embedded "
                                              rf"phantoms as {key}=\d, and this run asks for {key}={value}: other "
                                              rf"phantoms than its weights trained .* Resume with the checkpoint"):
            check_before_the_imports(cfg)
        with pytest.raises(ConfigError, match="other phantoms than its weights trained and were validated on"):
            train(cfg)
    assert phantoms.read_text() == '{"as written": "by the checkpoint\'s run"}'
    check_before_the_imports(load_config(None, resumed))  # as written: resumed
    # A dataset of its own: data.synthetic means nothing to it
    (tmp_path / "my.csv").write_text("image,label\n")  # there: a dataset not there is refused (test_examples.py)
    check_before_the_imports(load_config(None, [*resumed, "--data.synthetic.seed=1",
                                                f"--data.dataset={tmp_path / 'my.csv'}"]))
    shorter = load_config(None, [*settings, "--train.resume=latest", "--train.max_steps=2"])
    for check in (check_before_the_imports, train):
        with pytest.raises(ConfigError, match=rf"{checkpoint} is at step 3, beyond the 2 optimizer steps this run "):
            check(shorter)


def test_a_train_resume_of_a_fit_checkpoint_is_refused_before_the_data_work(tmp_path):
    """fit's checkpoints hold a network of the user's own, and an empty config.yaml: train's resume of one
    was refused only at the load, after the data work (the demo's phantoms written into the new run's
    folder), by the tensors' names, and sent the user to that empty file (an audit's probe, ninety-first
    session)."""
    from accelerated_seg.config import load_config

    checkpoint = tmp_path / "fit" / "checkpoints" / "step_2"
    checkpoint.mkdir(parents=True)
    (checkpoint / "config.yaml").write_text("")
    (checkpoint / "strategy.json").write_text("{}")
    run = tmp_path / "run"
    cfg = load_config(None, [f"--train.output_dir={run}", "--data.synthetic.num_cases=6",
                             "--data.synthetic.num_validation=2", f"--train.resume={checkpoint}"])
    for check in (check_before_the_imports, train):
        with pytest.raises(ConfigError, match=re.escape(
                f"cannot resume from {checkpoint}: it was saved by train.fit with a network of your own, which "
                f"this package cannot build: resume it with fit(..., resume={str(checkpoint)!r}) and that network")):
            check(cfg)
    assert not (run / "synthetic_data").exists()


@pytest.mark.parametrize("resume", ["latest", None])
def test_a_start_with_the_checkpoints_folder_unreadable_is_refused_in_one_line(tmp_path, monkeypatch, resume):
    """The interrupt's line of a run whose checkpoints/ could not be read says to resume "once it can be read
    again"; a resume (or a new start, which judges them too) tried before it can was a traceback from the listing
    until the hundred-and-seventh session's review (as ``nobody``, chmod 000: ``resume_or_replace``'s listing, before
    the imports). A refusal, before any work, naming the folder and why."""
    import accelerated_seg.run_folder as run_folder

    checkpoints = tmp_path / "run" / "checkpoints"
    (checkpoints / "step_2").mkdir(parents=True)

    def denied(folder):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))

    monkeypatch.setattr(run_folder, "complete_checkpoints", denied)
    with pytest.raises(ConfigError, match=re.escape(
            f"{checkpoints} could not be read (Permission denied), so the run there can be neither resumed nor "
            f"replaced yet: try again once it can be read (its permissions, a mount)")):
        resume_or_replace(tmp_path / "run", resume, overwrite=False)


def test_an_overwrite_says_it_deletes_a_model_previous_the_sweep_left_alone(tiny_config, tmp_path, capsys):
    """With train.overwrite the lock's note said model.previous/ beside a whole model/ was "left alone, as it may be
    yours", and the earlier run's deletion (model.previous is among TRAIN_OUTPUTS) then removed it, saying nothing
    (the hundred-and-eighth session's review). Overwrite still deletes it, as it deletes every name a run writes; the
    notes now say so, the first that a replacing run deletes it, the second that it did."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    (run / "model.previous").mkdir()
    (run / "model.previous" / "notes.txt").write_text("mine")
    capsys.readouterr()
    train(tiny_config(run, train__max_steps=2, train__val_every=0, train__overwrite=True))
    out = capsys.readouterr().out
    assert "a new run that replaces the earlier one here (overwrite) deletes it with that run" in out, out
    assert f"note: deleted with the earlier run in {run}, as overwrite deletes what a run writes there: " \
           f"model.previous/" in out, out
    assert not (run / "model.previous").exists() and (run / "model" / "model.safetensors").is_file()


def test_a_model_moved_aside_by_hand_is_neither_renamed_back_nor_replaced_unsaid(tiny_config, tmp_path, capsys):
    """`mv run/model run/model.previous` keeps the old model aside: no kill leaves a .previous with neither its
    export nor <export>.partial beside it, but the lock's sweep took it for a replace killed between its renames and
    renamed it back to model/, unsaid, where the resumed run's export then replaced it (and an overwrite deleted it;
    the hundred-and-eighth session's review). Left now, and named; the resumed run's export goes beside it."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    (run / "model").rename(run / "model.previous")
    (run / "model.previous" / "notes.txt").write_text("mine")
    capsys.readouterr()
    train(tiny_config(run, train__max_steps=4, train__val_every=0, train__resume="latest"))
    out = capsys.readouterr().out
    assert f"note: left alone in {run}, as it may be yours: model.previous/ with no model/ beside it" in out, out
    assert (run / "model.previous" / "notes.txt").read_text() == "mine"
    assert read_export_config(run / "model.previous")["step"] == 2 and read_export_config(run / "model")["step"] == 4


def test_data_labels_beside_the_embedded_phantoms_are_refused_before_the_imports_naming_their_classes(tmp_path):
    """data.labels with data.dataset: synthetic (the default) was refused after torch's and MONAI's imports (8-11 s)
    as any dataset.json's: "<run>/synthetic_data/dataset.json: labels are declared by dataset.json; ... or edit
    'labels' in dataset.json", a file not yet written, which the run writes itself (the eleventh new user's walk).
    Now by the command line's first look, naming data.labels, the phantoms' classes and the ways on; and in the same
    words by training's own reading where the phantoms are written already (a run into a folder a run used)."""
    from accelerated_seg.config import load_config
    from accelerated_seg.data.prepare import counts_before_writing
    from accelerated_seg.data.synthetic import LABELS, MODALITY

    run = tmp_path / "run"
    said = (rf"^data\.labels gives the classes of a CSV .*, and data\.dataset is synthetic: the embedded phantoms, "
            rf"which the run writes to {re.escape(str(run / 'synthetic_data'))}, declare their own \(0 background, "
            r"1 ventricles, 2 lesion\)\. Drop data\.labels, or give data\.dataset your own dataset$")
    labels = "--data.labels={0: background, 1: tumour}"
    with pytest.raises(DataError, match=said):
        check_before_the_imports(load_config(None, [f"--train.output_dir={run}", labels]))
    status, printed = refused_in_a_fresh_process(["train", f"--train.output_dir={run}", labels])
    assert status == "2 []", printed
    assert "declare their own" in printed and "edit 'labels'" not in printed and not run.exists()
    phantoms = run / "synthetic_data"  # written by an earlier run: as the phantoms' writer records them
    phantoms.mkdir(parents=True)
    (phantoms / "dataset.json").write_text(json.dumps({
        "labels": {str(value): name for value, name in LABELS.items()}, "modality": MODALITY, "training": [],
        "seed": 0, "generator": {"num_cases": 24, "num_validation": 4, "size_mm": [96.0, 96.0, 72.0],
                                 "spacing_mm": 1.5}}))
    with pytest.raises(DataError, match=said):
        counts_before_writing(load_config(None, [f"--train.output_dir={run}", labels]).data, run)
