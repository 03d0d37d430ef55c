"""Training with paths named in Latin-1 (a byte that is not UTF-8, which Linux allows and Python holds as a surrogate
escape, '\\udce9'): a data.cache_dir in such a folder ended training in a UnicodeEncodeError traceback once its cases
were preprocessed, and a path setting so named could not be given on the command line at all (YAML refuses the byte),
until the hundred-and-twenty-third session (benchmarks/results/latin1_training_paths_2026-12-07/)."""

import hashlib
import os

import numpy as np
import pytest

from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.cache import PreprocessedCache
from accelerated_seg.data.cache_versions import cached_datasets, record_source
from accelerated_seg.data.fingerprint import case_key, files_fingerprint
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.preprocess import PreprocessSettings
from accelerated_seg.files import by_a_utf8_name, stored_bytes
from accelerated_seg.printed_paths import paths_printable

from conftest import tiny_overrides  # tests/ is on sys.path

LATIN1 = os.fsdecode(b"\xe9tude")  # "\udce9tude"


def test_keys_of_ascii_and_utf8_paths_are_the_same_as_before(tmp_path):
    """No cache made before is built again: each key of a name str.encode took is the same bytes' hash."""
    for folder in ("plain", "données", "データ"):
        source = tmp_path / folder / "dataset.json"
        assert stored_bytes(str(source)) == str(source).encode()
        cache = PreprocessedCache(tmp_path / "cache", source, PreprocessSettings(), 3)
        assert cache.dir.parent.name == f"dataset.json-{hashlib.sha1(str(source.resolve()).encode()).hexdigest()[:8]}"
    # a version of before: its dataset folder's name and its settings' key, written down (main cb41d6be)
    cache = PreprocessedCache("/cache", "/data/Task01 données/dataset.json", PreprocessSettings(), 3)
    assert str(cache.dir.relative_to("/cache")) == "dataset.json-ae936475/8f9a8e778073618a"
    scan = tmp_path / "données" / "scan.nii.gz"
    scan.parent.mkdir(exist_ok=True)
    scan.write_bytes(b"x")
    stat = scan.stat()
    before = hashlib.sha1(f"{scan.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}|{stat.st_ctime_ns}"
                          .encode()).hexdigest()[:16]
    assert files_fingerprint([scan]) == before


def test_a_cache_in_a_folder_named_in_latin1_writes_and_reads_its_case_table(tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    folder = tmp_path / LATIN1 / "cache"
    cache = PreprocessedCache(folder, manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)), manifest.num_classes)
    assert cache.build(manifest.training) == len(manifest.training)
    table = cache.load_table(cache.write_table(manifest.training))  # UnicodeEncodeError before
    assert [os.fsdecode(name) for name in table["id"]] == [case.id for case in manifest.training]
    row = table[0]
    image, label = np.load(row["image"], mmap_mode="r"), np.load(row["label"], mmap_mode="r")
    assert os.fsdecode(row["image"]).startswith(str(cache.dir))
    assert image.shape[1:] == label.shape == tuple(row["shape"])
    assert cache.write_table(manifest.training) == cache.write_table(manifest.training)  # reused
    assert not list(folder.rglob(".*.partial"))
    assert [key.split(".")[0] for key in map(case_key, manifest.training)] == [c.id for c in manifest.training]
    # the dataset's folder is named by its source, kept as its bytes, which cache's listing reads back
    assert [found.source for found in cached_datasets(folder)] == [manifest.root.resolve()]


def test_a_dataset_named_in_latin1_is_recorded_as_its_bytes(tmp_path):
    source = tmp_path / LATIN1 / "dataset.json"
    (tmp_path / "cache" / "data-1").mkdir(parents=True)
    record_source(tmp_path / "cache" / "data-1", source)  # UnicodeEncodeError, not an OSError, before
    assert (tmp_path / "cache" / "data-1" / "source.txt").read_bytes() == os.fsencode(source)


def test_a_path_setting_given_with_a_byte_not_utf8_is_that_path_and_no_other_setting_takes_it():
    run = f"/runs/{LATIN1}/r\udce9sultats"
    cfg = load_config(None, [f"--train.output_dir={run}", f"--data.cache_dir='/scratch/{LATIN1} cache'",
                             f"--train.resume={run}/checkpoints/step_2"])
    assert (cfg.train.output_dir, cfg.data.cache_dir) == (run, f"/scratch/{LATIN1} cache")
    assert cfg.train.resume == f"{run}/checkpoints/step_2"
    with pytest.raises(ConfigError, match=r"override '--train\.seed=.*': byte 0xe9 is not UTF-8 .*only a path setting"):
        load_config(None, [f"--train.seed={LATIN1}"])
    with pytest.raises(ConfigError, match="not valid YAML"):  # YAML's own rules are kept for a path
        load_config(None, [f"--train.output_dir='/runs/{LATIN1}"])


def test_training_in_a_folder_named_in_latin1_names_its_run_folder_and_resumes(tiny_dataset, tmp_path, capsys,
                                                                                  monkeypatch):
    """The run folder by its relative name in a working folder so named: safetensors and TensorBoard take no path
    that is not UTF-8 (known_issues.md, Open), which the run folder's relative name is; the cache's absolute."""
    from accelerated_seg.train import train

    work = tmp_path / LATIN1
    work.mkdir()
    monkeypatch.chdir(work)
    shown = str(work).replace("\udce9", "\\xe9")  # as a strict terminal shows the byte (printed_paths.py)
    overrides = tiny_overrides(tiny_dataset, "run", train__max_steps=2, data__cache_dir=str(work / "cache"),
                               optim__warmup_steps=0)
    with paths_printable():  # as the command line's (printed_paths.py): pytest's capture is strict
        train(load_config(None, overrides))
        said = capsys.readouterr().out
        assert f"trained to step 2: the model is in {shown}/run/model" in said
        train(load_config(None, [*overrides, "--train.max_steps=4", "--train.resume=latest"]))
        said = capsys.readouterr().out
    assert "resumed from run/checkpoints/step_2" in said
    assert f"trained to step 4: the model is in {shown}/run/model" in said
    assert (work / "run" / "model" / "model.safetensors").is_file()


def test_a_run_folder_named_in_latin1_by_its_absolute_path_logs_resumes_exports_and_is_loaded(tiny_dataset, tmp_path,
                                                                                               capsys):
    """TensorBoard (its log, its settings' strings) and safetensors take no path that is not UTF-8: the run's trackers
    ended in a traceback, its resume in ``SafetensorError: Path ... is not valid UTF-8``, and its export was refused
    as damaged by predict; each opens such a folder by its /proc/self/fd name (files.by_a_utf8_name)."""
    from accelerated_seg.checkpoint_export import export_found_checkpoint
    from accelerated_seg.exported_model import load_exported
    from accelerated_seg.model_folders import check_safetensors_header
    from accelerated_seg.train import train

    run = tmp_path / LATIN1 / "run"
    overrides = tiny_overrides(tiny_dataset, run, train__max_steps=2, optim__warmup_steps=0,
                               train__trackers="tensorboard")
    with paths_printable():
        train(load_config(None, overrides))
        train(load_config(None, [*overrides, "--train.max_steps=4", "--train.resume=latest"]))
    assert "resumed from" in capsys.readouterr().out
    assert len(list((run / "train").glob("events.out.tfevents.*"))) == 2  # the first run's log and the resume's
    check_safetensors_header(run / "model" / "model.safetensors")
    model, _ = load_exported(run / "model")
    export_found_checkpoint(run / "checkpoints" / "step_4", tmp_path / LATIN1 / "mod\udce8le")
    assert (tmp_path / LATIN1 / "mod\udce8le" / "model.safetensors").is_file()


def test_by_a_utf8_name_opens_a_folder_named_in_latin1_and_leaves_other_paths_as_they_are(tmp_path):
    folder = tmp_path / LATIN1
    folder.mkdir()
    (folder / "weights").write_bytes(b"held")
    with by_a_utf8_name(folder) as name:
        assert name.startswith("/proc/self/fd/") and name.encode()
        assert open(f"{name}/weights", "rb").read() == b"held"
    with by_a_utf8_name(tmp_path / "données") as name:
        assert name == str(tmp_path / "données")


def test_a_setting_given_a_byte_not_utf8_is_refused_naming_the_byte_and_a_list_its_name_as_given():
    """The review's (r110): a setting that is not a path given such a byte was YAML's "unacceptable character
    #xdce9: special characters are not allowed", and a path setting given a list or mapping was refused naming the
    stand-in character it was read with (``got ['a\\U0010ffe9']``), which nobody typed."""
    for given in ("--model.name=u\udce9net", "--data.patch_size=[1\udc80, 2, 3]"):
        with pytest.raises(ConfigError) as refused:
            load_config(None, [given])
        assert str(refused.value) == (
            f"override {given!r}: byte 0x{'e9' if 'net' in given else '80'} is not UTF-8 (a name in Latin-1 or "
            f"Windows-1252?), which only a path setting takes (data.dataset, data.cache_dir, train.output_dir, "
            f"train.resume, train.init_from): give this setting's value in UTF-8")
    for given, said in ((f"[a{LATIN1}, b]", repr([f"a{LATIN1}", "b"])), (f"{{a: {LATIN1}}}", repr({"a": LATIN1}))):
        with pytest.raises(ConfigError) as refused:
            load_config(None, [f"--train.output_dir={given}"])
        assert str(refused.value) == f"setting train.output_dir must be str, got {said}"


def test_a_case_table_in_a_cache_named_in_latin1_is_written_in_the_cache_without_the_temporary_folder(
        tiny_dataset, tmp_path, monkeypatch):
    """The review's (r110): such a table was generated and saved in the temporary folder and moved into the cache,
    a copy where TMPDIR is another file system; a temporary folder gone (or full) ended training in a traceback (or
    said to give data.cache_dir room), and a killed writer's copy stayed there, where nothing sweeps it."""
    import tempfile

    manifest = load_msd(tiny_dataset)
    folder = tmp_path / LATIN1 / "cache"
    cache = PreprocessedCache(folder, manifest.root, PreprocessSettings(spacing=(2.0, 2.0, 2.0)), manifest.num_classes)
    cache.build(manifest.training)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))  # FileNotFoundError from mkdtemp before
    table = cache.load_table(cache.write_table(manifest.training))
    assert [os.fsdecode(name) for name in table["id"]] == [case.id for case in manifest.training]
    assert not (tmp_path / "gone").exists() and not list(folder.rglob(".*.partial"))


def test_by_a_utf8_name_names_a_file_in_an_error_by_its_path(tmp_path):
    """The review's (r110): an OSError raised by a file opened below such a folder's /proc/self/fd name said that
    name (a case table's failed write in a cache named in Latin-1: ``/proc/self/fd/7/.<table>...partial``)."""
    folder = tmp_path / LATIN1
    folder.mkdir()
    with pytest.raises(FileNotFoundError) as missing:
        with by_a_utf8_name(folder) as name:
            open(f"{name}/missing", "rb")
    assert missing.value.filename == str(folder / "missing")
    with pytest.raises(OSError) as refused:
        with by_a_utf8_name(folder) as name:
            os.rename(f"{name}/missing", f"{name}/other")
    assert (refused.value.filename, refused.value.filename2) == (str(folder / "missing"), str(folder / "other"))


def test_a_run_that_fails_to_write_its_metrics_does_not_say_it_trained(tiny_dataset, tmp_path, capsys, monkeypatch):
    """The review's (r110): the closing line, ``trained to step N: ... metrics.json in <run>``, was said after the
    export and before metrics.json and summary.json were written, so a run that then failed (a full disk) had said
    where its metrics were; now it is the run's last line, said once the run is whole."""
    from accelerated_seg import configured_run
    from accelerated_seg.train import train

    def full(*args):
        raise OSError(28, "No space left on device", str(tmp_path / "run" / "metrics.json"))

    overrides = tiny_overrides(tiny_dataset, tmp_path / "run", train__max_steps=1, train__val_every=0,
                               optim__warmup_steps=0)
    monkeypatch.setattr(configured_run, "write_metrics", full)
    with pytest.raises(OSError, match="No space left"):
        train(load_config(None, overrides))
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()  # the export came before
    assert "trained to step" not in capsys.readouterr().out
    monkeypatch.undo()
    train(load_config(None, [*overrides, "--train.overwrite=true"]))
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == (
        f"trained to step 1: the model is in {tmp_path / 'run' / 'model'}, its checkpoints, config.yaml and "
        f"metrics.json in {tmp_path / 'run'}")
