"""``accelerated-seg export``: a training-state checkpoint made into the model training exports.

One process here; FSDP2's sharded checkpoints are exported in tests/test_strategies.py and DeepSpeed's
ZeRO-2 and ZeRO-3 ones in tests/test_deepspeed_cpu.py, each against the run's own export.
"""

import json
import os
import re
import shutil
import signal
import sys
from importlib import import_module
from pathlib import Path

import monai.networks.nets
import numpy as np
import pytest
import torch
from safetensors.torch import load_file, load_model

from accelerated_seg.checkpoint_files import EXPORT_DESCRIPTION_FILE
from accelerated_seg.checkpoint_export import export_checkpoint
from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.exported_model import read_export_config
from accelerated_seg.inference import predict_file
from accelerated_seg.model_folders import LAYOUT_FILE
from accelerated_seg.run_lock import LOCK_NAME, hold_run_folder
from accelerated_seg.train import train

from conftest import assert_checkpoint_exports_as_training_did
from faults import folder_removed_at
from terminated_mid_work import run_terminated


def test_any_checkpoint_becomes_the_model_training_exported_at_its_step(tiny_config, tiny_dataset, tmp_path, capsys):
    """DynUNet, whose layers are registered twice (skip_layers): the export writes each tensor once."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=4, train__val_every=0, train__save_every=2, train__keep_last=5,
                      model__name="dynunet", model__args="{filters: [4, 8, 16]}"))
    # The run folder: its newest checkpoint, step_4, which training also exported to model/.
    assert_checkpoint_exports_as_training_did(run, tmp_path / "model_4")

    # An earlier step, which training never exported, from the command line.
    assert main(["export", str(run / "checkpoints" / "step_2"), "--output", str(tmp_path / "model_2")]) == 0
    assert f"exported {run / 'checkpoints' / 'step_2'} to {tmp_path / 'model_2'}" in capsys.readouterr().out
    config = read_export_config(tmp_path / "model_2")
    assert config["step"] == 2 and config["shared_tensors"]
    plain = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
    load_model(plain, tmp_path / "model_2" / "model.safetensors")  # the README's way, strict
    at_2, at_4 = load_file(tmp_path / "model_2" / "model.safetensors"), load_file(run / "model" / "model.safetensors")
    assert any(not torch.equal(at_2[name], at_4[name]) for name in at_2)  # two more steps of training
    case = load_msd(tiny_dataset).validation[0]
    assert predict_file(tmp_path / "model_2", case.images, tmp_path / "pred.nii.gz").is_file()


def test_export_refuses_before_writing_anything(tiny_config, tmp_path):
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    step = run / "checkpoints" / "step_2"

    # Nothing in the way is replaced: a file, a folder with something in it (an empty one is used).
    (tmp_path / "taken.nii.gz").write_bytes(b"a scan")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    for taken in (tmp_path / "taken.nii.gz", tmp_path / "taken"):
        with pytest.raises(ConfigError, match="already exists: give a new folder"):
            export_checkpoint(step, taken)
    assert (tmp_path / "taken.nii.gz").read_bytes() == b"a scan" and (tmp_path / "taken" / "notes.txt").is_file()
    (tmp_path / "empty").mkdir()
    assert export_checkpoint(step, tmp_path / "empty")[1] == tmp_path / "empty"
    # Nor is one begun where it cannot be made: below a file it was mkdir's traceback, after reading the checkpoint.
    with pytest.raises(ConfigError, match=r"taken.nii.gz/sub cannot be made: .*taken.nii.gz is a file"):
        export_checkpoint(step, tmp_path / "taken.nii.gz" / "sub")
    with pytest.raises(ConfigError, match=r"the exported model cannot be written to /proc/accelerated_seg_export"):
        export_checkpoint(step, Path("/proc/accelerated_seg_export"))  # a folder no one may make
    # Nor is a model put where training's rotation deletes.
    with pytest.raises(ConfigError, match="whose folders training rotates away"):
        export_checkpoint(step, run / "checkpoints" / "model")
    # Not a checkpoint: an export (it said "is not a checkpoint"), a data folder, a run without complete checkpoints.
    with pytest.raises(ConfigError, match=r"model is an exported model already .* export makes one of a checkpoint"):
        export_checkpoint(run / "model", tmp_path / "out")
    with pytest.raises(ConfigError, match="is not a checkpoint: give a <run>/checkpoints/step_N folder"):
        export_checkpoint(tmp_path / "taken", tmp_path / "out")
    (tmp_path / "unsaved" / "checkpoints" / ".step_3.partial").mkdir(parents=True)
    with pytest.raises(ConfigError, match="holds no complete checkpoint"):
        export_checkpoint(tmp_path / "unsaved", tmp_path / "out")

    def copy(name):
        shutil.copytree(step, tmp_path / name / "step_2")
        return tmp_path / name / "step_2"

    # A damaged checkpoint: the damaged file named, as a resume names it.
    damaged = copy("damaged")
    with open(damaged / "model.safetensors", "r+b") as weights:
        weights.truncate(100)
    with pytest.raises(DataError, match="is damaged: model.safetensors .*: copy it again from where it was written$"):
        export_checkpoint(damaged, tmp_path / "out")
    # and the run's checkpoint before it named, to export instead (it said "resume from the checkpoint before it")
    shutil.copytree(step, damaged.parent / "step_1")
    with pytest.raises(DataError, match=re.escape(f"where it was written, or export the checkpoint before it, "
                                                  f"{damaged.parent / 'step_1'}") + "$"):
        export_checkpoint(damaged, tmp_path / "out")
    # A description of another network than the weights (edited to the same size, so not "damaged").
    other = copy("other")
    description = json.loads((other / EXPORT_DESCRIPTION_FILE).read_text())
    assert description["model"]["args"]["channels"] == [4, 8, 16]
    description["model"]["args"]["channels"] = [5, 8, 16]
    (other / EXPORT_DESCRIPTION_FILE).write_text(json.dumps(description, indent=1))
    with pytest.raises(DataError, match=r"its weights are not the network its export.json describes \(.*saved"):
        export_checkpoint(other, tmp_path / "out")
    # Saved before checkpoints recorded what an export needs: the way to an export named.
    older = copy("older")
    (older / EXPORT_DESCRIPTION_FILE).unlink()
    layout = json.loads((older / LAYOUT_FILE).read_text())
    del layout["file_bytes"][EXPORT_DESCRIPTION_FILE]
    (older / LAYOUT_FILE).write_text(json.dumps(layout))
    (older / "config.yaml").write_bytes(b"\xff\xfe")  # unchecked by the export: damaged past decoding, no traceback
    with pytest.raises(ConfigError, match="cannot be exported. Resume the run from it .* --train.max_steps"):
        export_checkpoint(older, tmp_path / "out")
    assert not (tmp_path / "out").exists()

    # predict (and Segmentation.load) or init_from given the checkpoint instead of a model: how to make one.
    with pytest.raises(FileNotFoundError, match=f"accelerated-seg export {step} --output"):
        read_export_config(step)
    with pytest.raises(ConfigError, match=f"accelerated-seg export {step} --output"):
        train(tiny_config(tmp_path / "again", train__max_steps=1, train__val_every=0, train__init_from=str(step)))


def test_an_export_into_a_run_folder_a_live_run_holds_is_refused_naming_its_process(tiny_config, tmp_path, capsys):
    """export into a run's best_model/ (or its model/ before the first export) took no lock: begun while the run
    exported, both replaces wrote <export>.partial, each deleting the other's (until the hundred-and-eighth session).
    It takes the run folder's lock now, as a second training run does; here the test holds it, as a run would."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))  # no validation: no best_model/ yet
    step = run / "checkpoints" / "step_2"
    live = hold_run_folder(run)
    try:
        with pytest.raises(SystemExit) as ended:  # the command: one line, no traceback
            main(["export", str(step), "--output", str(run / "best_model")])
        assert ended.value.code == 2
        refusal = capsys.readouterr().err
        assert f"{run} is in use by another run (process {os.getpid()} on " in refusal, refusal
        assert "or export into another --output folder" in refusal and len(refusal.strip().splitlines()) == 1
        with pytest.raises(ConfigError, match=f"process {os.getpid()} on "):  # the Python function alike
            export_checkpoint(step, run / "best_model")
        assert not (run / "best_model").exists() and not (run / "best_model.partial").exists()
    finally:
        live.release()
    assert main(["export", str(step), "--output", str(run / "best_model")]) == 0  # once the run has ended
    assert read_export_config(run / "best_model")["step"] == 2 and not (run / LOCK_NAME).exists()


def test_an_export_into_a_folder_a_live_predict_holds_is_refused_for_a_reason_that_fits(tiny_config, tmp_path):
    """Predict's lock on its --output is the same run lock, and the export cannot tell a predict from a training run
    by it: refused, as in a training run's folder, but the reason said the run's own exports would write over it
    (a predict writes none; the hundred-and-eighth session's review). Now the reason fits either holder."""
    from accelerated_seg.inference_files import holding_output_folder

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    predictions = tmp_path / "predictions"
    with holding_output_folder(predictions, []):  # what a predict --output predictions holds while it runs
        with pytest.raises(ConfigError) as refused:
            export_checkpoint(run / "checkpoints" / "step_2", predictions / "model")
    reason = str(refused.value)
    assert f"{predictions} is in use by another run (process {os.getpid()} on " in reason, reason
    assert "the run's own exports" not in reason, reason
    assert "an export is not written into a folder another run holds (the lock does not say whether a training run," \
           " whose exports write <export>.partial as this one does, or a predict)" in reason, reason
    assert not (predictions / "model").exists()


def test_an_export_into_a_run_folder_that_cannot_be_locked_says_so(tiny_config, tmp_path, monkeypatch):
    """Where the filesystem has no flock (Lustre without -o flock) train goes on unguarded and warns; the export
    went on unguarded and said nothing (the hundred-and-eighth session's review). It warns now, as train does."""
    import errno
    import fcntl

    from accelerated_seg.own_warnings import AcceleratedSegWarning

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))

    def no_flock(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_flock)
    with pytest.warns(AcceleratedSegWarning, match=rf"{re.escape(str(run))} cannot be locked \(its filesystem does not "
                      r"lock files .*\), so a run writing its exports there meanwhile would not be refused"):
        assert main(["export", str(run / "checkpoints" / "step_2"), "--output", str(run / "best_model")]) == 0
    assert read_export_config(run / "best_model")["step"] == 2 and not (run / LOCK_NAME).exists()


def test_a_damaged_file_that_the_export_does_not_read_does_not_refuse_it(tiny_config, tmp_path, capsys):
    """A checkpoint's config.yaml edited into invalid YAML, or cut short, refused ``accelerated-seg export``
    ("is damaged: config.yaml (ScannerError: ...)"), as did an optimizer state cut short, though the
    export reads export.json, strategy.json and the weights alone (a user's report). A resume, which
    reads them, refuses them still (test_train.py names what it says)."""
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    config = (run / "checkpoints" / "step_2" / "config.yaml").read_text()
    damage = [("config.yaml", "data: [unclosed\n"),  # invalid YAML
              # cut at a line's end: it parses, and is refused by the size strategy.json recorded
              ("config.yaml", config[: config.index("\n", len(config) // 2) + 1]),
              ("optimizer.bin", None)]  # cut short
    for number, (name, text) in enumerate(damage):
        copy = tmp_path / f"run_{number}"
        shutil.copytree(run, copy)
        path = copy / "checkpoints" / "step_2" / name
        if text is None:
            path.write_bytes(path.read_bytes()[:100])
        else:
            path.write_text(text)
        with pytest.raises(DataError, match=f"is damaged: {name}"):
            check_checkpoint_files(path.parent, whole_state=True)  # the resume's check
        assert_checkpoint_exports_as_training_did(copy, tmp_path / f"model_{number}")
        assert main(["export", str(copy), "--output", str(tmp_path / f"cli_{number}")]) == 0, capsys.readouterr().err
        assert f"exported {path.parent} to {tmp_path / f'cli_{number}'}" in capsys.readouterr().out


def test_a_checkpoint_without_export_json_is_refused_before_torch_and_monai_import(tmp_path):
    """train.fit's checkpoints (an empty config.yaml) and those of runs from before export.json were
    refused by ``accelerated-seg export`` only after torch, accelerate and MONAI had imported, though
    the refusal needs the checkpoint's files alone (until the ninetieth session)."""
    from refusals import run_probing_imports

    for name, config, message in (("fit", "", "was saved by train.fit with a network of your own, which this "
                                              "package cannot build: load it with accelerator.load_state("),
                                  ("older", "train:\n  max_steps: 4\n", "has no export.json: checkpoints saved "
                                                                         "before accelerated_seg recorded it"),
                                  ("bare", None, "has no export.json: checkpoints saved before")):
        step = tmp_path / name / "checkpoints" / "step_4"
        step.mkdir(parents=True)
        (step / LAYOUT_FILE).write_text("{}")
        if config is not None:
            (step / "config.yaml").write_text(config)
        proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(tmp_path / name), "--output",
                                             str(tmp_path / "out"), module=True)
        assert proc.returncode == 2 and proc.stderr.startswith(f"error: {step} {message}"), proc.stderr
        assert imported == [], (name, imported)
        with pytest.raises(ConfigError, match=re.escape(message)):  # the same refusal from Python
            export_checkpoint(step, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    # an export.json of whole JSON that describes no network: a KeyError traceback after the imports before
    for name, description in (("empty", "{}"), ("partial", '{"model": {"name": "unet", "args": {}}}'),
                              ("listed", "[]")):
        step = tmp_path / name / "checkpoints" / "step_4"
        step.mkdir(parents=True)
        (step / LAYOUT_FILE).write_text("{}")
        (step / EXPORT_DESCRIPTION_FILE).write_text(description)
        proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(step), "--output",
                                             str(tmp_path / "out"), module=True)
        said = f"error: {step / EXPORT_DESCRIPTION_FILE} describes no network (a 'model' with its name, monai_class"
        assert proc.returncode == 2 and proc.stderr.startswith(said), proc.stderr
        assert imported == [], (name, imported)
    assert not (tmp_path / "out").exists()


def test_an_output_in_the_way_is_refused_before_torch_and_monai_import(tmp_path):
    """An --output that exists, is inside checkpoints/ or cannot be made was refused by ``accelerated-seg
    export`` only after torch, accelerate and MONAI had imported, though it needs the file system alone
    (until the ninetieth session)."""
    from refusals import run_probing_imports

    step = tmp_path / "run" / "checkpoints" / "step_4"
    step.mkdir(parents=True)
    (step / LAYOUT_FILE).write_text("{}")
    (step / EXPORT_DESCRIPTION_FILE).write_text('{"model": {}}')
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("kept")
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "unmounted_model").symlink_to(tmp_path / "unmounted" / "model")  # met at the write, after the reading
    for output, message in ((tmp_path / "taken", "taken already exists: give a new folder"),
                            (tmp_path / "unmounted_model", f"{tmp_path / 'unmounted_model'} is a symbolic link to "
                             f"{tmp_path / 'unmounted' / 'model'}, which does not exist (a dangling link), so nothing "
                             f"is written through it: mount or make what it names, or remove the link to write a "
                             f"file in its place; or give another folder for the exported model"),
                            (step.parent / "model", "whose folders training rotates away: give a folder outside it"),
                            (tmp_path / "a_file" / "model", "a_file is a file; give a folder path"),
                            (Path("/proc/accelerated_seg_export"), "cannot be written to /proc/accelerated_seg_export")):
        proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(step), "--output", str(output),
                                             module=True)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
        assert imported == [], (output, imported)
    assert not (step.parent / "model").exists()


def test_a_checkpoint_without_its_weights_or_deepspeed_is_refused_before_torch_and_monai_import(tmp_path,
                                                                                                   monkeypatch):
    """A checkpoint whose weights were deleted or left out of a copy, and a ZeRO checkpoint where DeepSpeed
    is not installed, were refused by ``accelerated-seg export`` only after torch, accelerate and MONAI had
    imported, though both need the file system alone (until the ninety-first session). A file cut short is
    still named first: neither a copy's missing weights nor installing DeepSpeed is the way on then."""
    import os
    import zipfile

    from refusals import run_probing_imports

    network = {"name": "unet", "monai_class": "UNet", "args": {"spatial_dims": 3, "in_channels": 1, "out_channels": 2,
                                                              "channels": [4, 8], "strides": [2]}}

    def checkpoint(name: str, layout: dict | None, description: str = json.dumps({"model": network})):
        step = tmp_path / name / "checkpoints" / "step_4"
        (step.parent / "step_2").mkdir(parents=True)  # the one to export instead
        step.mkdir()
        (step / EXPORT_DESCRIPTION_FILE).write_text(description)
        if layout is not None:
            (step / LAYOUT_FILE).write_text(json.dumps(layout))
        return step

    def zero_partitions(step: Path, partition: bytes | None = None):
        (step / "pytorch_model").mkdir()
        (step / "latest").write_text("pytorch_model")
        with zipfile.ZipFile(step / "pytorch_model" / "mp_rank_00_model_states.pt", "w"):
            pass  # a whole (empty) torch.save archive, as far as the export's check of the files reads
        if partition is not None:
            (step / "pytorch_model" / "zero_pp_rank_0_mp_rank_00_optim_states.pt").write_bytes(partition)
        return step

    zero = {"format": "deepspeed", "zero_stage": 3, "strategy": "DeepSpeed (DEEPSPEED) on 2 process(es)"}
    instead = "copy it again from where it was written, or export the checkpoint before it, "
    cases = [(checkpoint("full", {"format": "full", "strategy": "DDP (MULTI_GPU) on 2 process(es)"}), DataError,
              "holds none of the weight files accelerate writes (model.safetensors, pytorch_model_fsdp_0/, "
              "pytorch_model_fsdp.bin, DeepSpeed's pytorch_model/) (saved by DDP (MULTI_GPU) on 2 process(es)): "
              + instead),
             (checkpoint("unrecorded", None), DataError, "holds none of the weight files accelerate writes ("),
             (checkpoint("zero_emptied", zero), DataError,
              "lacks the weight files DeepSpeed writes (pytorch_model/ and latest missing; pytorch_model/ holds "
              "the weights, 'latest' names that folder): " + instead),
             # cut short (the saved sizes were not recorded here): damaged, whatever else it lacks
             (checkpoint("cut", {"format": "full"}, description='{"model": {"name": "un'), DataError,
              "is damaged: export.json (JSONDecodeError"),
             (zero_partitions(checkpoint("zero_cut", zero), partition=b"PK\x03\x04 cut"), DataError,
              "is damaged: pytorch_model/zero_pp_rank_0_mp_rank_00_optim_states.pt (BadZipFile")]
    # DeepSpeed's checkpoint with its files, where DeepSpeed is not installed (hidden: the tests' environment has it)
    cases.append((zero_partitions(checkpoint("zero", zero)), ConfigError,
                  "was saved by DeepSpeed, whose files only DeepSpeed reads: install the deepspeed extra "
                  "(pip install 'accelerated_seg[deepspeed]'), then export it again"))
    without_deepspeed = {**os.environ, "ACCELERATED_SEG_TESTS_WITHOUT": "deepspeed"}  # tests/startup/sitecustomize.py
    for step, error, message in cases:
        proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(step), "--output",
                                             str(tmp_path / "out"), module=True, env=without_deepspeed)
        said = f"error: {'checkpoint ' * ('is damaged' in message)}{step} {message}"
        assert proc.returncode == 2 and proc.stderr.startswith(said), proc.stderr
        assert imported == [], (step, imported)
    monkeypatch.setitem(sys.modules, "deepspeed", None)  # as if not installed, here too
    for step, error, message in cases:
        with pytest.raises(error, match=re.escape(message)):  # the same refusal from Python
            export_checkpoint(step, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_export_json_whose_network_cannot_be_built_is_refused_naming_it(tmp_path, capsys):
    """Its args edited by hand, or a monai_class this MONAI lacks: a TypeError or AttributeError traceback
    from building the network (until the ninety-first session)."""
    from safetensors.numpy import save_file

    for name, model, said in (("args", {"args": {}}, "UNet cannot be built (TypeError: UNet.__init__() missing"),
                              ("class", {"monai_class": "UNetto"}, "UNetto cannot be built (AttributeError: ")):
        step = tmp_path / name / "checkpoints" / "step_4"
        step.mkdir(parents=True)
        (step / LAYOUT_FILE).write_text('{"format": "full"}')
        described = {"name": "unet", "monai_class": "UNet", "args": {"spatial_dims": 3, "in_channels": 1,
                                                                      "out_channels": 2, "channels": [4, 8],
                                                                      "strides": [2]}}
        (step / EXPORT_DESCRIPTION_FILE).write_text(json.dumps({"model": {**described, **model}}))
        save_file({"model.0.conv.weight": np.zeros(2, np.float32)}, str(step / "model.safetensors"))
        message = f"{step / EXPORT_DESCRIPTION_FILE}: its network {said}"
        with pytest.raises(DataError, match=re.escape(message)):
            export_checkpoint(step, tmp_path / "out")
        with pytest.raises(SystemExit) as ended:  # the command: one line, no traceback
            main(["export", str(step), "--output", str(tmp_path / "out")])
        assert ended.value.code == 2 and capsys.readouterr().err.startswith(f"error: {message}")
    assert not (tmp_path / "out").exists()


def test_a_strategy_json_that_is_no_layout_is_a_damaged_checkpoint(tmp_path):
    """Whole JSON but not an object ([], a number), which no save writes: the export's and the resume's
    AttributeError traceback ("'list' object has no attribute 'get'") until the ninety-first session."""
    from accelerated_seg.checkpoint_files import check_checkpoint_files
    from refusals import run_probing_imports

    step = tmp_path / "run" / "checkpoints" / "step_4"
    step.mkdir(parents=True)
    (step / LAYOUT_FILE).write_text("[]")
    (step / EXPORT_DESCRIPTION_FILE).write_text('{"model": {"name": "unet", "monai_class": "UNet", "args": {}}}')
    message = f"checkpoint {step} is damaged: strategy.json (a JSON list, not the object of its layout)"
    proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(step), "--output", str(tmp_path / "out"),
                                         module=True)
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {message}"), proc.stderr
    assert imported == [], imported
    with pytest.raises(DataError, match=re.escape(message)):  # the resume's check of the files
        check_checkpoint_files(step, whole_state=True)


def test_a_deepspeed_checkpoint_without_deepspeed_names_the_extra(tmp_path, monkeypatch):
    from accelerated_seg.checkpoint_export import _gathered_weights

    step = tmp_path / "step_4"
    (step / "pytorch_model").mkdir(parents=True)
    (step / "latest").write_text("pytorch_model")
    (step / LAYOUT_FILE).write_text(json.dumps({"format": "deepspeed", "zero_stage": 3}))
    monkeypatch.setitem(sys.modules, "deepspeed.utils.zero_to_fp32", None)  # as if not installed, or broken
    with pytest.raises(ConfigError, match=r"was saved by DeepSpeed.*pip install 'accelerated_seg\[deepspeed\]'"):
        _gathered_weights(step)


@pytest.mark.parametrize("stage, bf16, partitions", [
    (2, False, ["mp_rank_00_model_states.pt", "zero_pp_rank_0_mp_rank_00_optim_states.pt",
                "zero_pp_rank_1_mp_rank_00_optim_states.pt"]),
    (3, True, ["zero_pp_rank_0_mp_rank_00_model_states.pt", "zero_pp_rank_1_mp_rank_00_model_states.pt",
               "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt", "bf16_zero_pp_rank_1_mp_rank_00_optim_states.pt"])])
def test_a_deepspeed_checkpoint_without_a_ranks_partition_is_damaged_for_the_export_and_the_resume(
        tmp_path, stage, bf16, partitions):
    """Its tag folder there but a rank's file gone (one deleted, left out of a copy): zero_to_fp32's
    FileNotFoundError traceback at the export after the imports, and DeepSpeed's on resume after the data
    work, until the ninety-first session (an audit's probe). The names are DeepSpeed's, as 2-process
    ZeRO-2 in fp32 and ZeRO-3 in bf16 write them."""
    import zipfile

    from accelerated_seg.checkpoint_files import check_checkpoint_files
    from refusals import run_probing_imports

    step = tmp_path / "run" / "checkpoints" / "step_4"
    (step / "pytorch_model").mkdir(parents=True)
    (step / "latest").write_text("pytorch_model")
    (step / LAYOUT_FILE).write_text(json.dumps({"format": "deepspeed", "num_processes": 2, "zero_stage": stage,
                                                "bf16": bf16}))
    for name in partitions:
        zipfile.ZipFile(step / "pytorch_model" / name, "w").close()  # a whole torch archive, for the check
    check_checkpoint_files(step, whole_state=True)
    check_checkpoint_files(step, for_export=True)
    for name in partitions:
        (step / "pytorch_model" / name).rename(tmp_path / name)
        rank = int(ranked.group(1)) if (ranked := re.search(r"zero_pp_rank_(\d+)", name)) else 0  # ZeRO-1/2's model
        message = f"checkpoint {step} is damaged: pytorch_model/{name} (missing; rank {rank} wrote it)"
        for whole_state, for_export in ((True, False), (False, True)):
            with pytest.raises(DataError, match=re.escape(message)):
                check_checkpoint_files(step, whole_state=whole_state, for_export=for_export)
        (tmp_path / name).rename(step / "pytorch_model" / name)
    (step / "pytorch_model" / partitions[-1]).unlink()
    proc, imported = run_probing_imports("accelerated_seg.cli", "export", str(step), "--output", str(tmp_path / "out"),
                                         module=True)
    assert proc.returncode == 2 and f"pytorch_model/{partitions[-1]} (missing; rank 1 wrote it)" in proc.stderr
    assert imported == [], imported


def test_a_checkpoint_rotated_away_before_or_while_it_is_read_is_said_to_be_gone(tiny_config, tmp_path, monkeypatch):
    """An export of a run still training: the checkpoint it named was deleted by the run's rotation,
    and the export said "is not a checkpoint", or "holds none of the weight files accelerate writes"
    when it went while being read (seventy-third session's probe)."""
    import accelerated_seg.checkpoint_export as checkpoint_export

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    never = rf"does not exist \({run / 'checkpoints'} holds step_2; train.keep_last keeps the newest checkpoints only, "
    never += "and a run still training deletes"
    with pytest.raises(ConfigError, match="step_1 " + never):
        export_checkpoint(run / "checkpoints" / "step_1", tmp_path / "out")
    # found, then gone: said so, not "does not exist", which sent the user looking for a typo (ninety-third session)
    gone = (rf"was removed after the export found it \({run / 'checkpoints'} holds step_2; a run still training "
            rf"there removes older checkpoints as it saves, keeping the newest train.keep_last\): give one of them, "
            rf"or the run folder for its newest$")
    rotating = run / "checkpoints" / "step_3"
    shutil.copytree(run / "checkpoints" / "step_2", rotating)
    real = checkpoint_export._gathered_weights

    def rotated_while_read(checkpoint):
        shutil.rmtree(checkpoint)
        return real(checkpoint)

    monkeypatch.setattr(checkpoint_export, "_gathered_weights", rotated_while_read)
    with pytest.raises(ConfigError, match="step_3 " + gone):
        export_checkpoint(rotating, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_checkpoint_rotated_away_between_the_commands_checks_is_said_to_be_gone(tiny_config, tmp_path, monkeypatch,
                                                                                   capsys):
    """The command checks the checkpoint before torch imports, and export_checkpoint reads it after: a run
    still training may delete it anywhere between. Until the ninety-second session, gone after it was
    found it "has no export.json" (saved before the forty-fifth session), gone after that "holds none of
    the weight files", gone during the checks "is damaged" (every file missing), and DeepSpeed's gone
    before its weights were gathered a ValueError traceback. Nothing is left at --output."""
    import accelerated_seg.checkpoint_export as checkpoint_export
    from accelerated_seg import checkpoint_files, model_folders

    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=2, train__val_every=0))
    rotating, output = run / "checkpoints" / "step_3", tmp_path / "out"
    gone = (f"error: {rotating} was removed after the export found it ({run / 'checkpoints'} holds step_2; a run "
            f"still training there removes older checkpoints as it saves, keeping the newest train.keep_last): give "
            f"one of them, or the run folder for its newest")

    for module, name, before in ((model_folders, "checkpoint_folder", False),
                                 (checkpoint_files, "check_safetensors_header", True),  # while checked
                                 (checkpoint_files, "check_checkpoint_files", False),
                                 (checkpoint_files, "read_export_description", False),
                                 (checkpoint_files, "weights_to_export", False)):
        shutil.copytree(run / "checkpoints" / "step_2", rotating)
        with monkeypatch.context() as patched:
            folder_removed_at(patched, module, name, rotating, before)
            with pytest.raises(SystemExit) as ended:
                main(["export", str(rotating), "--output", str(output)])
        assert (ended.value.code, capsys.readouterr().err.strip()) == (2, gone), name
        assert sorted(path.name for path in tmp_path.iterdir()) == ["run"], name  # nothing at --output
    with pytest.raises(SystemExit) as ended:  # never there: a typo, or rotated away before the command started
        main(["export", str(run / "checkpoints" / "step_1"), "--output", str(output)])
    assert (ended.value.code, capsys.readouterr().err.strip()) == (
        2, f"error: {run / 'checkpoints' / 'step_1'} does not exist ({run / 'checkpoints'} holds step_2; "
           f"train.keep_last keeps the newest checkpoints only, and a run still training deletes older ones as it "
           f"saves): give one of them, or the run folder for its newest")

    pytest.importorskip("deepspeed", reason="the test extra installs DeepSpeed")
    # DeepSpeed's checkpoint gone once checked, before its weights are gathered: its reader's ValueError
    shutil.copytree(run / "checkpoints" / "step_2", rotating)
    monkeypatch.setattr(checkpoint_export, "weights_to_export", lambda checkpoint: checkpoint_files.DEEPSPEED_WEIGHTS)
    folder_removed_at(monkeypatch, checkpoint_export, "weights_to_export", rotating, before=True)
    with pytest.raises(ConfigError, match=re.escape(gone.removeprefix("error: "))):
        export_checkpoint(rotating, output)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
def test_sigterm_stops_export_as_ctrl_c_does_leaving_nothing_half_written(tiny_config, tmp_path):
    """A time limit's SIGTERM once the weights are written into ``<output>.partial/``: export ends as on Ctrl-C, status
    143, nothing left at --output or beside it. Until the hundred-and-second session it ended at once, status -15,
    the ``.partial`` folder left beside the output."""
    run = tmp_path / "run"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    output = tmp_path / "model"
    done = run_terminated("export", str(run), "--output", str(output))
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"export stopped by SIGTERM: nothing written to {output} (an export is written whole or not at all); the same "
        f"command exports it")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]
    # docs/checkpoints.md gave the Ctrl-C line for SIGTERM's too (the hundred-and-eighteenth session's rewrite)
    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "checkpoints.md").read_text().split())
    assert "; `export stopped by SIGTERM: ...`, 143)" in page


def test_ctrl_c_after_the_export_took_its_name_says_it_is_written_whole(tiny_config, tmp_path, monkeypatch, capsys):
    """Ctrl-C once the export is in place (before the line that says so): the export is whole, and export says so,
    status 130. It said nothing until the hundred-and-second session, whether the export was there or not."""
    import accelerated_seg.exported_model as exported_model

    run, output = tmp_path / "run", tmp_path / "model"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    swapped_in = exported_model.replace_folder

    def interrupted_once_in_place(*args):
        swapped_in(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(exported_model, "replace_folder", interrupted_once_in_place)
    # returned: raised as SystemExit(130) until the hundred-and-twentieth session
    assert main(["export", str(run), "--output", str(output)]) == 128 + signal.SIGINT
    assert capsys.readouterr().err.strip() == f"export interrupted: the export in {output} is written whole"
    assert read_export_config(output)["model"] and load_file(output / "model.safetensors")


def test_ctrl_c_while_torch_and_monai_import_says_nothing_was_written(tiny_config, tmp_path, monkeypatch, capsys):
    """The seconds of the import, after the checks, said nothing on Ctrl-C (the review of c38e42d2, in the
    hundred-and-second session)."""
    import sys
    import types

    class Importing(types.ModuleType):
        def __getattr__(self, name):
            raise KeyboardInterrupt

    run, output = tmp_path / "run", tmp_path / "model"
    train(tiny_config(run, train__max_steps=1, train__val_every=0))
    monkeypatch.setitem(sys.modules, "accelerated_seg.checkpoint_export", Importing("checkpoint_export"))
    # returned: raised as SystemExit(130) until the hundred-and-twentieth session
    assert main(["export", str(run), "--output", str(output)]) == 128 + signal.SIGINT
    assert capsys.readouterr().err.strip() == (f"export interrupted: nothing written to {output} (an export is "
                                               f"written whole or not at all); the same command exports it")
    assert not output.exists()


def test_the_export_functions_are_still_found_where_they_were_before_checkpoint_py_was_split():
    # docs showed checkpoint.load_exported; user code that imports it from there must keep working
    import accelerated_seg.checkpoint as checkpoint
    from accelerated_seg import exported_model, initial_weights

    for name, module in checkpoint._MOVED.items():
        assert getattr(checkpoint, name) is getattr(import_module(f"accelerated_seg.{module}"), name)
    from accelerated_seg.checkpoint import load_exported, load_initial_weights

    assert (load_exported, load_initial_weights) == (exported_model.load_exported, initial_weights.load_initial_weights)
    with pytest.raises(AttributeError, match="no attribute 'check_resume_split'"):  # internal names moved for good
        checkpoint.check_resume_split
