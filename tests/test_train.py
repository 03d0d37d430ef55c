"""The training loop in one process: end to end, resume, non-finite losses, bad input."""

import errno
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import monai.networks.nets
import nibabel as nib
import numpy as np
import pytest
import torch
import yaml
from safetensors.torch import load_file

import accelerated_seg
from accelerated_seg.checkpoint import complete_checkpoints
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.spacing import median_spacing
from accelerated_seg.exported_model import load_exported
from accelerated_seg.inference import predict_file
from accelerated_seg.models import MODELS
from accelerated_seg.resume_network_and_data import check_resume_preprocessing
from accelerated_seg.schedule import lr_multiplier
from accelerated_seg.train import TrainingDiverged, train

from conftest import logged_scalars, tensorboard_curve, tensorboard_run, tensorboard_settings, tiny_overrides
from faults import folder_removed_at
from test_models import SMALL  # tests/ is on sys.path (rootdir-style test imports)


def test_end_to_end_train_validate_checkpoint_export_predict(tiny_config, tiny_dataset, tmp_path):
    out = tmp_path / "run"
    summary = train(tiny_config(out, train__max_steps=6, train__keep_last=2, train__trackers="tensorboard"))

    assert summary["step"] == 6 and summary["best_step"] > 0
    validation = json.loads((out / "metrics.json").read_text())["validation"]
    assert validation[-1]["step"] == 6 and math.isfinite(validation[-1]["train_loss"])  # the step's training loss
    assert [p.name for p in complete_checkpoints(out / "checkpoints")] == ["step_4", "step_6"]  # keep_last=2
    assert not list((out / "checkpoints").glob(".*partial"))
    assert (out / "config.yaml").is_file() and (out / "checkpoints" / "step_6" / "config.yaml").is_file()
    info = json.loads((out / "run_info.json").read_text())
    assert info["batch"]["global"] == 2 and "single process" in info["strategy"]
    assert {"torch_version", "monai_version", "accelerate_version", "python_version"} <= info.keys()  # README's
    # and the commit of the checkout the package runs from (this repository's, under test)
    head = subprocess.run(["git", "-C", str(Path(accelerated_seg.__file__).parent), "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    assert info["accelerated_seg_commit"].split("+")[0] == head and len(head) == 40
    # The saved config says what ran: data.augment_on=auto (the default) became cpu on this device.
    assert tiny_config(out).data.augment_on == "auto"
    assert load_config(out / "config.yaml").data.augment_on == "cpu"
    metrics = json.loads((out / "metrics.json").read_text())
    assert [v["step"] for v in metrics["validation"]] == [2, 4, 6]
    assert all(v["cases"] == 3 for v in metrics["validation"])
    grad_norms = logged_scalars(out, "train/grad_norm")  # log_every=1
    assert sorted(grad_norms) == [1, 2, 3, 4, 5, 6] and all(0 < v < float("inf") for v in grad_norms.values())

    # The export is the plain MONAI network: strict load from config.json alone, same outputs.
    config = json.loads((out / "model" / "config.json").read_text())
    assert config["labels"] == {"0": "background", "1": "ventricles", "2": "lesion"}
    assert config["patch_size"] == [16, 16, 16] and config["spacing"] == [2.0, 2.0, 2.0]
    assert config["spacing_set"] is True  # data.spacing set: predict takes a header's mm at its word (inference.py)
    assert config["spacing_unit"] is None  # the phantoms' headers declare no unit: predict judges no scan's by it
    # the cases' median voxel size, which predict refuses a scan declaring mm 100 times finer than (inference_reading)
    cases = load_msd(tiny_dataset)
    assert config["cases_median_spacing"] == list(median_spacing([case.images[0] for case in cases.training +
                                                                  cases.validation]))
    plain = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
    plain.load_state_dict(load_file(out / "model" / "model.safetensors"), strict=True)
    loaded, _ = load_exported(out / "model")
    x = torch.randn(1, 1, 16, 16, 16)
    torch.testing.assert_close(plain.eval()(x), loaded(x))

    # Prediction lands on every validation input's own grid (they include non-RAS and anisotropic ones).
    for case in load_msd(tiny_dataset).validation:
        pred_path = predict_file(out / "best_model", case.images, tmp_path / f"{case.id}_pred.nii.gz")
        image, pred = nib.load(case.images[0]), nib.load(pred_path)
        assert pred.shape == image.shape
        np.testing.assert_allclose(pred.affine, image.affine, atol=1e-5)
        assert set(np.unique(np.asanyarray(pred.dataobj))) <= {0, 1, 2}


def _described_anew(dataset_json, path: Path, **changes) -> Path:
    """A copy of ``dataset_json`` at ``path`` with ``changes``, its cases named by absolute paths, so that
    the shared dataset's folder stays as it is."""
    root, described = Path(dataset_json).parent, json.loads(Path(dataset_json).read_text()) | changes
    for key in ("training", "validation"):
        described[key] = [{role: str(root / file) for role, file in case.items()} for case in described[key]]
    path.write_text(json.dumps(described))
    return path


def test_a_ct_dataset_trains_ct_normalized_and_the_export_says_so(tiny_config, tiny_dataset, tmp_path, capsys):
    """data.normalization: auto reads the dataset's channel names: the Decathlon's CT tasks were z-scored
    and cropped to the voxels above 0 HU unless ct was given (sixty-seventh session)."""
    described = _described_anew(tiny_dataset, tmp_path / "dataset_ct.json", modality={"0": "CT"})
    out = tmp_path / "run"
    train(tiny_config(out, data__dataset=described, train__max_steps=1, train__val_every=0, train__save_every=0))
    preprocessing = json.loads((out / "model" / "config.json").read_text())["preprocessing"]
    assert (preprocessing["normalization"], preprocessing["crop_foreground"]) == ("ct", False)
    said = capsys.readouterr().out
    assert "reused; ct normalization (data.normalization: auto, from the channels' names); spacing " in said


def test_the_run_says_why_cases_are_built_again_and_what_else_the_cache_holds(tiny_config, tiny_dataset, tmp_path,
                                                                              capsys):
    """A no-op chmod -R rebuilt a probe's 2000 cases, and each setting tried left a whole copy of the
    dataset in the cache, without a word (seventy-fifth session)."""
    data = tmp_path / "data"  # a copy: the shared dataset's files must keep their status-change times
    shutil.copytree(Path(tiny_dataset).parent, data)
    settings = dict(train__max_steps=1, train__val_every=0, train__save_every=0,
                    data__cache_dir=str(tmp_path / "cache"), data__dataset=str(data / Path(tiny_dataset).name))
    train(tiny_config(tmp_path / "first", **settings))
    said = capsys.readouterr().out
    assert "had been cached before" not in said and "pre-flight checks:" not in said  # every case read
    changed = sorted((data / "labelsTr").iterdir())[0]
    os.chmod(changed, changed.stat().st_mode)  # the same mode: only the status-change time moves
    train(tiny_config(tmp_path / "second", data__spacing="[3, 3, 3]", **settings))
    said = capsys.readouterr().out
    assert "had been cached before" not in said  # another setting: all new, nothing built again
    # and the checks read again only the case whose file changed (check_records)
    assert "pre-flight checks: 8 of 9 case(s) unchanged since they passed, not read again" in said
    assert ("also holds 1 other preprocessed version(s) of this dataset (other settings or classes, or other "
            "preprocessing code)") in said
    prune = f"`accelerated-seg cache --config {tmp_path / 'second' / 'config.yaml'} --prune` removes those no live"
    assert prune in said  # the run's own config.yaml, overrides and all (its --config alone named another version)
    from accelerated_seg.cli import main

    assert main(["cache", "--config", str(tmp_path / "second" / "config.yaml")]) == 0
    listed = capsys.readouterr().out
    assert "2 preprocessed version(s)" in listed and listed.count("these settings' version") == 1
    assert "9 case(s)  these settings' version" in listed  # its cases, not its settings.json too
    train(tiny_config(tmp_path / "third", **settings))
    said = capsys.readouterr().out
    assert "1 case(s) built" in said and "1 of the 1 built had been cached before: their files changed since" in said
    assert "pre-flight checks: 9 of 9 case(s) unchanged" in said
    assert "also holds 1 other preprocessed version(s)" in said


@pytest.mark.parametrize("resume_step, dropout", [(3, 0.0), (8, 0.0), (3, 0.3)])
def test_resume_mid_epoch_matches_an_uninterrupted_run(tiny_config, tmp_path, resume_step, dropout):
    # 6 cases x 2 patches = 6 batches of 2 per epoch: step 3 is mid-epoch 0, step 8 mid-epoch 1.
    # Dropout: the resumed loader's first batch drew its workers' seed from torch's generator, just
    # restored, so every later mask was the next one (weights 2e-3 apart; the eighty-sixth session).
    full = tmp_path / "full"
    common = dict(train__max_steps=10, train__val_every=0, train__keep_last=10,
                  model__args=f"{{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, dropout: {dropout}}}")
    train(tiny_config(full, train__save_every=resume_step, **common))
    resumed = tmp_path / "resumed"
    shutil.copytree(full / "checkpoints" / f"step_{resume_step}", resumed / "checkpoints" / f"step_{resume_step}")
    summary = train(tiny_config(resumed, train__save_every=resume_step, train__resume="latest", **common))
    assert summary["step"] == 10
    a, b = load_file(full / "model" / "model.safetensors"), load_file(resumed / "model" / "model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), f"{key} differs after resume"


@pytest.mark.parametrize("batch, counted", [(3, 2), (1, 6)])  # 3 batches of 2 samples drawn before the resume
def test_a_resume_with_another_batch_draws_the_samples_the_uninterrupted_run_would_draw_next(
        tiny_config, tmp_path, monkeypatch, batch, counted):
    """The position was counted in the checkpoint's micro-batches and skipped in this run's: resumed
    at batch 1 steps trained samples again, at batch 4 whole epochs were never drawn (seventy-second
    session's probe). Now the stream goes on at the sample the checkpoint's run had reached."""
    from accelerated_seg.data.loader import PatchDataset

    drawn = []
    getitem = PatchDataset.__getitem__
    monkeypatch.setattr(PatchDataset, "__getitem__", lambda self, k: drawn.append(k) or getitem(self, k))
    common = dict(train__val_every=0, train__keep_last=10, train__save_every=3)
    train(tiny_config(tmp_path / "full", train__max_steps=6, **common))  # 6 cases x 2 patches: a 12-sample epoch
    uninterrupted = drawn[6:12]  # after 3 steps of 2
    resumed = tmp_path / "resumed"
    shutil.copytree(tmp_path / "full" / "checkpoints" / "step_3", resumed / "checkpoints" / "step_3")
    drawn.clear()
    train(tiny_config(resumed, train__max_steps=3 + 6 // batch, train__batch_size=batch, train__resume="latest",
                      **common))
    assert drawn[:6] == uninterrupted  # then one batch more: accelerate's loader looks one batch ahead
    progress = torch.load(resumed / "checkpoints" / f"step_{3 + 6 // batch}" / "custom_checkpoint_1.pkl",
                          weights_only=False)
    assert progress["batches_seen"] == counted + 6 // batch and progress["batch_samples"] == batch


def test_accumulation_over_smaller_batches_trains_on_the_samples_of_the_whole_batch(tiny_config, tmp_path,
                                                                                     monkeypatch, capsys):
    """Epochs were cut to whole micro-batches of all ranks: 1 process accumulating 2 batches of 2 kept 6
    of 6 patches an epoch, its windows across epochs, where batch 4 (or 2 processes of 2) kept 4, so
    the same global batch trained on other samples (eighty-fifth session's probe). Cut to whole
    optimizer steps, both draw the same samples in each step."""
    from accelerated_seg.data.loader import PatchDataset

    drawn = []
    getitem = PatchDataset.__getitem__
    monkeypatch.setattr(PatchDataset, "__getitem__", lambda self, k: drawn.append(k) or getitem(self, k))
    common = dict(train__max_steps=3, train__val_every=0, data__samples_per_volume=1)  # 6 cases: 6 patches
    train(tiny_config(tmp_path / "whole", train__batch_size=4, **common))
    whole, drawn[:] = drawn[:12], []
    assert ("note: an epoch's 6 patches make 1 optimizer step(s) of 4; the other 2 (33%) are in no step of that "
            "epoch") in capsys.readouterr().out
    train(tiny_config(tmp_path / "accumulated", train__batch_size=2, train__grad_accum_steps=2, **common))
    assert drawn[:12] == whole  # then one batch more: accelerate's loader looks one batch ahead
    # an epoch shorter than one step (6 patches, steps of 8) is cut to whole batches, its windows
    # running across epochs: refused as "fewer than one step's 8" in the session's first cut
    assert train(tiny_config(tmp_path / "long_steps", train__batch_size=2, train__grad_accum_steps=4,
                             **common))["step"] == 3
    # and its note names what an epoch is cut to: "3 optimizer step(s) of 2" where steps are of 8
    from accelerated_seg.training_data import patches_left_out_note

    assert patches_left_out_note(7, 2, 8).startswith("note: an epoch's 7 patches make 3 micro-batch(es) of 2 "
                                                      "(fewer than one optimizer step of 8")


def test_a_resume_with_other_patches_per_volume_keeps_the_share_of_the_epoch_done(tiny_config, tmp_path, capsys):
    """The position was counted in the new epochs: twice the patches per volume put the run back by
    half its epochs (eighty-fourth session's review). Half an epoch done stays half of the new one."""
    common = dict(train__val_every=0, train__keep_last=10, train__save_every=3)
    train(tiny_config(tmp_path / "full", train__max_steps=3, **common))  # 6 of 6 cases x 2 patches: half an epoch
    resumed = tmp_path / "resumed"
    shutil.copytree(tmp_path / "full" / "checkpoints" / "step_3", resumed / "checkpoints" / "step_3")
    capsys.readouterr()
    train(tiny_config(resumed, train__max_steps=4, data__samples_per_volume=4, train__resume="latest", **common))
    assert ("the data stream goes on where the checkpoint's run stood: 3 micro-batches of 2 samples (all processes) "
            "there, 6 of 2 here (epochs of 12 and of 24 samples)") in capsys.readouterr().out
    progress = torch.load(resumed / "checkpoints" / "step_4" / "custom_checkpoint_1.pkl", weights_only=False)
    assert progress["batches_seen"] == 6 + 1 and progress["epoch_length"] == 24


def test_the_data_position_in_other_batches_counts_samples_by_epoch():
    from accelerated_seg.data.sampling import position_in_other_batches

    assert position_in_other_batches(3, 2, 3, 12) == 2  # 6 samples into the epoch: 2 batches of 3
    assert position_in_other_batches(3, 2, 4, 12) == 1  # 6 samples: rounded down, 2 drawn again
    # epochs cut to whole global batches: 10 of 10 samples of an epoch of 10 is 8 of 8 with batch 4
    assert position_in_other_batches(5, 2, 4, 10) == 2
    assert position_in_other_batches(7, 2, 4, 10) == 2 + 1  # 1 epoch (10 samples) and 4 into the next
    assert position_in_other_batches(4, 3, 3, 10) == 4  # unchanged batch: unchanged position
    # another data.samples_per_volume: the epochs done kept, and the share of the current one
    assert position_in_other_batches(7, 2, 2, 20, old_epoch_length=10) == (20 + 8) // 2  # 1 epoch and 4 of 10
    assert position_in_other_batches(6, 4, 4, 12, old_epoch_length=24) == 12 // 4  # 24 of 24 is 12 of 12
    assert position_in_other_batches(4, 4, 4, 12, old_epoch_length=24) == 8 // 4  # 16 of 24 is 8 of 12
    # epochs cut to whole optimizer steps: 6 of 10 samples is 4 of 8 with steps of 4 (2 micro-batches of 2)
    assert position_in_other_batches(3, 2, 2, 10, new_step=4) == 4 // 2
    assert position_in_other_batches(5, 2, 2, 10, old_step=2, new_step=4) == 8 // 2  # an epoch of 10 is one of 8


def test_a_resumed_runs_tensorboard_curve_draws_each_step_once(tiny_config, tmp_path):
    """A run killed after its last checkpoint logged steps 4-6, and its resume logged them again:
    TensorBoard drew those points twice (sixty-ninth session). The killed course's are hidden now."""
    out, common = tmp_path / "run", dict(train__max_steps=6, train__save_every=3, train__val_every=0,
                                          train__trackers="tensorboard")
    train(tiny_config(out, **common))
    shutil.rmtree(out / "checkpoints" / "step_6")  # as if killed after logging step 6, before its save
    assert tensorboard_curve(out, "train/loss") == [1, 2, 3, 4, 5, 6]
    train(tiny_config(out, train__resume="latest", **common))
    assert tensorboard_curve(out, "train/loss") == [1, 2, 3, 4, 5, 6]  # was [1, 2, 3, 4, 5, 6, 4, 5, 6]
    assert len(list((out / "train").glob("events.out.tfevents*"))) == 2  # nothing deleted: hidden


def test_tensorboard_shows_a_runs_settings_beside_its_metrics(tiny_config, tmp_path):
    """accelerate's tracker wrote the settings into runs of their own (train/<time>/), which the HParams
    dashboard listed with empty metric columns (eighty-second session). They are the run's own now."""
    from tensorboard.plugins.hparams import metadata

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=2, train__trackers="tensorboard", optim__lr="0.003"))
    log = tensorboard_run(out / "train")
    hparams_tags = log.PluginTagToContent(metadata.PLUGIN_NAME)
    assert set(hparams_tags) == {metadata.SESSION_START_INFO_TAG}  # no experiment: its columns would be this run's
    assert {"train/loss", "val/mean_dice"} <= set(log.PluginTagToContent("scalars"))  # its metrics, in the same run
    settings = tensorboard_settings(out / "train")
    assert settings["optim.lr"] == 0.003 and settings["model.name"] == "unet"
    assert "train.resume" not in settings  # None is left out, not the string "None"
    assert not [path for path in (out / "train").iterdir() if path.is_dir()]  # no runs of settings alone


def test_a_resumes_changed_settings_are_noted_in_tensorboard(tiny_config, tmp_path):
    """TensorBoard keeps a run's first settings, so a resume's changes go in as text at its first step."""
    out, common = tmp_path / "run", dict(train__save_every=2, train__val_every=0, train__trackers="tensorboard")
    train(tiny_config(out, train__max_steps=2, **common))
    train(tiny_config(out, train__max_steps=4, train__resume="latest", optim__lr="0.002", **common))
    assert tensorboard_settings(out / "train")["optim.lr"] == 0.001  # the start's: TensorBoard keeps
    [note] = tensorboard_run(out / "train").Tensors("settings_changed_at_resume/text_summary")
    assert note.step == 3 and note.tensor_proto.string_val[0].decode().splitlines() == [
        "- optim.lr: 0.001 -> 0.002", "- train.max_steps: 2 -> 4"]  # the length is said apart when it prints
    assert tensorboard_curve(out, "train/loss") == [1, 2, 3, 4]


def test_run_info_keeps_each_resume_of_the_course_and_the_settings_it_changed(tiny_config, tmp_path):
    """The changed settings were printed and noted in TensorBoard alone; run_info.json, written anew at each
    start, said nothing of a resume, so a run folder read later did not say its rate had been lowered midway."""
    out, common = tmp_path / "run", dict(train__save_every=2, train__val_every=0, train__keep_last=3)
    step = str(out / "checkpoints" / "step_{}")

    def resumes():
        return json.loads((out / "run_info.json").read_text())["resumes"]

    train(tiny_config(out, train__max_steps=2, **common))
    assert resumes() == []
    train(tiny_config(out, train__max_steps=4, train__resume="latest", optim__lr="0.002", **common))
    lowered = {"checkpoint": str(step.format(2)), "step": 2,
               "settings_changed": {"optim.lr": [0.001, 0.002], "train.max_steps": [2, 4]}}
    assert resumes() == [lowered]
    train(tiny_config(out, train__max_steps=6, train__resume="latest", optim__lr="0.002", **common))
    assert resumes() == [lowered, {"checkpoint": str(step.format(4)), "step": 4,
                                   "settings_changed": {"train.max_steps": [4, 6]}}]
    # back to step 2 as it was written: the later course is set aside, and with it its resumes
    train(tiny_config(out, train__max_steps=2, train__resume=str(step.format(2)), **common))
    assert resumes() == [{"checkpoint": str(step.format(2)), "step": 2, "settings_changed": {}}]


def test_a_new_run_sets_aside_the_log_of_a_run_stopped_before_its_first_save(tiny_config, tmp_path, capsys):
    """A run stopped before its first save leaves nothing to resume, and the next run takes its folder:
    TensorBoard showed the stopped run's settings for the new run's (it keeps a run's first)."""
    out, common = tmp_path / "run", dict(train__max_steps=2, train__val_every=0, train__trackers="tensorboard")
    train(tiny_config(out, optim__lr="0.003", **common))
    for name in ("checkpoints", "model", "summary.json"):  # as if stopped before its first save
        shutil.rmtree(out / name) if (out / name).is_dir() else (out / name).unlink()
    first_log = sorted(path.name for path in (out / "train").iterdir())
    train(tiny_config(out, optim__lr="0.002", **common))
    [aside] = (out / "train").glob("earlier_run_*")
    # a TensorBoard left running keeps the run's first settings it read (TensorBoard's caching): said as it happens
    assert f"the TensorBoard log of an earlier run in {out}, which this run does not continue, is kept in " \
           f"{aside}; a TensorBoard server started before this run shows that run's settings for {out / 'train'} " \
           f"until it is restarted" in capsys.readouterr().out
    assert sorted(path.name for path in aside.iterdir()) == first_log  # moved whole, nothing lost
    assert tensorboard_settings(out / "train")["optim.lr"] == 0.002
    assert tensorboard_settings(aside)["optim.lr"] == 0.003  # a run of its own
    assert tensorboard_curve(out, "train/loss") == [1, 2]


def test_a_resume_of_another_folders_checkpoint_sets_aside_the_log_it_does_not_continue(tiny_config, tmp_path):
    """Resumed into a folder where a run stopped before its first save, another folder's checkpoint
    showed that stopped run's settings in TensorBoard's row, and its points before the resume's."""
    common = dict(train__val_every=0, train__save_every=2, train__trackers="tensorboard")
    train(tiny_config(tmp_path / "a", train__max_steps=2, optim__lr="0.003", **common))
    stopped = tmp_path / "b"
    train(tiny_config(stopped, train__max_steps=2, optim__lr="0.005", **common))
    for name in ("checkpoints", "model", "summary.json"):  # as if stopped before its first save
        shutil.rmtree(stopped / name) if (stopped / name).is_dir() else (stopped / name).unlink()
    train(tiny_config(stopped, train__max_steps=4, optim__lr="0.003",
                      train__resume=str(tmp_path / "a" / "checkpoints" / "step_2"), **common))
    [aside] = (stopped / "train").glob("earlier_run_*")
    assert tensorboard_settings(stopped / "train")["optim.lr"] == 0.003
    assert tensorboard_settings(aside)["optim.lr"] == 0.005
    assert tensorboard_curve(stopped, "train/loss") == [3, 4]  # the stopped run's 1 and 2 are in its own


class _LoggedPatches(torch.utils.data.Dataset):
    """Tiny patches whose every load is logged: which samples a loop drew, and how often each."""

    def __init__(self, length):
        self.length, self.loads = length, []

    def __len__(self):
        return self.length

    def __getitem__(self, k):
        self.loads.append(k)
        rng = torch.Generator().manual_seed(k)
        return {"image": torch.randn(1, 8, 8, 8, generator=rng),
                "label": torch.randint(0, 2, (1, 8, 8, 8), generator=rng, dtype=torch.uint8)}


def _stream_loop(tmp_path, epochs_per_pass):
    from accelerate import Accelerator
    from accelerate.utils import GradientAccumulationPlugin
    from torch.utils.data import DataLoader

    from accelerated_seg.data.sampling import EpochSampler
    from accelerated_seg.train import Loop, LoopSettings

    torch.manual_seed(0)
    accelerator = Accelerator(cpu=True, gradient_accumulation_plugin=GradientAccumulationPlugin(
        num_steps=1, sync_with_dataloader=False))
    data = _LoggedPatches(9)  # 4 batches of 2 per epoch; one sample left over each epoch
    loader = DataLoader(data, batch_size=2, drop_last=True,
                        sampler=EpochSampler(len(data), seed=0, epochs_per_pass=epochs_per_pass, whole_batches_of=2))
    model = torch.nn.Conv3d(1, 2, 3, padding=1)
    model, optimizer, loader = accelerator.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
    loss = monai.losses.DiceCELoss(to_onehot_y=True, softmax=True)
    settings = LoopSettings(max_steps=0, log_every=10**9, progress_bar=False)
    return Loop(accelerator, model, optimizer, loss, loader, settings, tmp_path / "checkpoints"), data


@pytest.mark.parametrize("epochs_per_pass, blocks", [(3, (3, 4, 4)), (3, (4, 4, 3)), (1, (4, 4, 3))],
                         ids=["ending-mid-epoch", "ending-at-epoch-ends", "ending-at-pass-ends"])
def test_further_run_loop_calls_go_on_with_the_same_batches_loading_none_twice(tmp_path, epochs_per_pass, blocks):
    """run_loop keeps its stream of batches: the benchmark's timed blocks, like one training run,
    go on with the same loader instead of starting it again (and reloading the batch it had
    prefetched) at every call; and a pass of several epochs draws what passes of one epoch draw."""
    from accelerated_seg.train import run_loop

    in_one, one_call = _stream_loop(tmp_path, epochs_per_pass=1)
    in_one.settings.max_steps = 11
    run_loop(in_one)
    in_blocks, loaded = _stream_loop(tmp_path, epochs_per_pass=epochs_per_pass)
    for steps in blocks:  # 4 batches per epoch: 3, 7, 11 end mid-epoch; 4, 8 at an epoch's end
        in_blocks.settings.max_steps += steps
        run_loop(in_blocks)
    assert in_blocks.progress.batches_seen == in_one.progress.batches_seen == 11
    drawn = 11 * 2
    assert loaded.loads[:drawn] == one_call.loads[:drawn]  # the same samples, in the same order
    # None loaded twice: a call that started the loader again mid-epoch would reload the batch the
    # loader had fetched ahead before the last call stopped.
    assert len(set(loaded.loads)) == len(loaded.loads)
    for name, weight in in_one.model.state_dict().items():
        assert torch.equal(weight, in_blocks.model.state_dict()[name]), name


def test_a_resumed_stream_keeps_the_prepared_loaders_non_blocking_copies():
    # accelerate 1.15's skip_first_batches drops them; a resumed run draws its whole rest from the
    # skipping loader, whose every host-to-GPU copy would then block. 1.16 keeps them: this test held
    # the defect as a fact, and failed on the release (eighty-sixth session); ours keeps them either way.
    from accelerate import Accelerator
    from accelerate.utils import DataLoaderConfiguration
    from torch.utils.data import DataLoader

    from accelerated_seg.accelerate_workarounds import skip_first_batches_as_prepared

    accelerator = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(non_blocking=True))
    loader = accelerator.prepare(DataLoader(list(range(12)), batch_size=2, drop_last=True))
    assert loader._non_blocking
    skipping = skip_first_batches_as_prepared(accelerator, loader, 2)
    assert skipping._non_blocking and skipping._drop_last == loader._drop_last
    assert [b.tolist() for b in skipping] == [[4, 5], [6, 7], [8, 9], [10, 11]]


def test_a_resumed_stream_of_a_shuffling_loader_keeps_the_epochs_order():
    # accelerate 1.13's skip_first_batches started the skipping loader at epoch 0: a shuffled resume
    # in a later epoch drew the rest of epoch 0's order (fit's seedable sampler is a function of the epoch).
    from accelerate import Accelerator
    from accelerate.utils import DataLoaderConfiguration
    from torch.utils.data import DataLoader

    from accelerated_seg.accelerate_workarounds import skip_first_batches_as_prepared

    accelerator = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True,
                                                                                 data_seed=7))
    loader = accelerator.prepare(DataLoader(list(range(12)), batch_size=2, shuffle=True, drop_last=True))
    loader.set_epoch(1)
    second_epoch = [b.tolist() for b in loader]
    loader.set_epoch(0)
    assert [b.tolist() for b in loader] != second_epoch  # the orders differ, so the check below can fail
    loader.set_epoch(1)  # as BatchStream sets each pass's epoch before it skips
    assert [b.tolist() for b in skip_first_batches_as_prepared(accelerator, loader, 2)] == second_epoch[2:]


@pytest.mark.parametrize("norm", ["", ", norm_name: batch"])
def test_a_network_registering_layers_twice_trains_resumes_exports_and_predicts(tiny_config, tiny_dataset, tmp_path,
                                                                               caplog, norm):
    """DynUNet (and so the MLPerf U-Net) registers most layers again under ``skip_layers``: the
    export writes each tensor once and every loader fills in the second name. With BatchNorm, whose
    ``num_batches_tracked`` torch fills in by itself, the resume and safetensors' ``load_model`` (the
    README's way until the eighty-fourth session) failed on "unexpected" keys."""
    dynunet = dict(model__name="dynunet", model__args=f"{{filters: [8, 16, 32]{norm}}}", train__val_every=2,
                   train__save_every=2, train__keep_last=5)
    full, resumed = tmp_path / "full", tmp_path / "resumed"
    train(tiny_config(full, train__max_steps=4, **dynunet))
    # accelerate's "Removed shared tensor {<the skip_layers names>}" at every checkpoint: expected, quiet
    assert not [r for r in caplog.records if "Removed shared tensor" in r.getMessage()]
    shutil.copytree(full / "checkpoints" / "step_2", resumed / "checkpoints" / "step_2")
    train(tiny_config(resumed, train__max_steps=4, train__resume="latest", **dynunet))
    a, b = load_file(full / "model" / "model.safetensors"), load_file(resumed / "model" / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    config = json.loads((full / "model" / "config.json").read_text())
    shared = config["shared_tensors"]
    assert shared and all(k.startswith("skip_layers.") and not v.startswith("skip_layers.") for k, v in shared.items())
    assert not set(shared) & set(a)  # written once, under the first name
    plain = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
    state = load_file(full / "model" / "model.safetensors")  # the README's way, strict
    state.update({second: state[first] for second, first in config.get("shared_tensors", {}).items()})
    plain.load_state_dict(state)
    assert config["output_activation"] == "softmax" and config["monai_version"] == monai.__version__
    loaded, _ = load_exported(full / "model")
    x = torch.randn(1, 1, 16, 16, 16)
    torch.testing.assert_close(plain.eval()(x), loaded(x))
    case = load_msd(tiny_dataset).validation[0]
    assert predict_file(full / "best_model", case.images, tmp_path / "pred.nii.gz").is_file()
    # init_from reads it too (the lr is 0, so the weights stay the export's)
    again = tmp_path / "again"
    train(tiny_config(again, train__max_steps=1, train__val_every=0, train__init_from=str(full / "model"),
                      optim__lr=0.0, optim__weight_decay=0.0,
                      **{k: v for k, v in dynunet.items() if k.startswith("model")}))
    c = load_file(again / "model" / "model.safetensors")
    batch_statistics = ("running_mean", "running_var", "num_batches_tracked")  # a training step moves them at lr 0
    assert all(torch.equal(a[k], c[k]) for k in a if not k.endswith(batch_statistics))
    # a damaged export given to init_from: one error naming its file (the JSON parser's, unnamed, before)
    damaged = tmp_path / "damaged"
    shutil.copytree(full / "model", damaged)
    (damaged / "config.json").write_text("{broken")
    with pytest.raises(DataError, match=f"{damaged / 'config.json'} is not valid JSON"):
        train(tiny_config(tmp_path / "from_damaged", train__max_steps=1, train__val_every=0,
                          train__init_from=str(damaged), **{k: v for k, v in dynunet.items() if k.startswith("model")}))


def test_only_the_networks_own_second_names_are_quiet_in_accelerates_shared_tensor_notice():
    import logging

    from accelerated_seg.exported_model import expect_shared_tensors

    expect_shared_tensors({"skip_layers.conv.weight": "input_block.conv.weight"})
    notices = logging.getLogger("accelerate.utils.other")

    def shown(names):
        record = notices.makeRecord(notices.name, logging.WARNING, __file__, 0,
                                    f"[RANK 0] Removed shared tensor {names} while saving.", None, None)
        return notices.filter(record)

    assert not shown({"skip_layers.conv.weight"}) and not shown({"module.skip_layers.conv.weight"})
    assert shown({"skip_layers.conv.weight", "decoder.tied.weight"})  # a tensor we do not know of shows
    assert shown(set()) and notices.filter(notices.makeRecord(notices.name, logging.WARNING, __file__, 0,
                                                              "another notice", None, None))


@pytest.mark.parametrize("name", list(MODELS))
def test_every_registry_network_trains_exports_and_segments(tiny_config, tiny_dataset, tmp_path, name):
    """One step of the real loop, the export and a prediction for each network: what a forward and
    backward of the network alone does not reach (DynUNet's export once failed after all its training)."""
    args, size = SMALL[name]
    out = tmp_path / name
    train(tiny_config(out, model__name=name, model__args=json.dumps(args), data__patch_size=f"[{size},{size},{size}]",
                      train__max_steps=1, train__val_every=0, train__save_every=0, train__sw_batch_size=1))
    load_exported(out / "model")
    case = load_msd(tiny_dataset).validation[0]
    prediction = nib.load(predict_file(out / "model", case.images, tmp_path / "prediction.nii.gz"))
    assert prediction.shape == nib.load(case.images[0]).shape


def test_weights_load_whichever_name_of_a_shared_tensor_was_written(tmp_path):
    from safetensors.torch import save_file

    from accelerated_seg.exported_model import load_weights, shared_tensor_names
    from accelerated_seg.models import build_from_spec, model_spec

    def net():
        return build_from_spec(model_spec("dynunet", 1, 3, (16,) * 3, {"filters": [8, 16, 32]}))

    source = net()
    state = source.state_dict()
    shared = shared_tensor_names(source)
    assert shared["skip_layers.downsample.conv1.conv.weight"] == "input_block.conv1.conv.weight"
    layouts = {"first names": {k: v for k, v in state.items() if k not in shared},
               "second names": {k: v for k, v in state.items() if k not in set(shared.values())},
               "both, as copies": {k: v.clone() for k, v in state.items()}}
    for layout, tensors in layouts.items():
        save_file(tensors, tmp_path / "w.safetensors")
        target = net()
        load_weights(target, tmp_path / "w.safetensors")
        assert all(torch.equal(target.state_dict()[k], state[k]) for k in state), layout
    without_head = {k: v for k, v in layouts["first names"].items() if not k.startswith("output_block")}
    save_file(without_head, tmp_path / "w.safetensors")
    with pytest.raises(DataError, match="w.safetensors does not hold the weights of the network .*Missing key.*output_"):
        load_weights(net(), tmp_path / "w.safetensors")  # still strict, and names the file


def _nan_loss_on_steps(monkeypatch, bad_calls):
    from monai.losses import DiceCELoss

    from faults import loss_forward_with, nan_on

    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(nan_on(bad_calls)))


def test_a_non_finite_step_is_skipped_and_training_goes_on(tiny_config, tmp_path, monkeypatch, capsys):
    _nan_loss_on_steps(monkeypatch, bad_calls={1})
    out = tmp_path / "run"
    summary = train(tiny_config(out, train__max_steps=4, train__val_every=0))
    assert summary["step"] == 4  # the skipped step is not counted: 4 good steps were taken
    # step 2's first try, which the next batch takes: until the 107th session "step 1", the step before it, whose
    # loss is logged at 1
    assert "step 2: non-finite loss on some rank, step skipped (1/5 in a row)" in capsys.readouterr().out
    assert [step for step, _ in json.loads((out / "metrics.json").read_text())["loss"]] == [1, 2, 3, 4]
    weights = load_file(out / "model" / "model.safetensors")
    assert all(torch.isfinite(w).all() for w in weights.values())


def test_non_finite_gradients_under_a_finite_loss_are_skipped_on_the_cpu(tiny_config, tmp_path, monkeypatch, capsys):
    """oneDNN's bf16 convolution gradient over 2-voxel volumes returned garbage and inf on the CPU; one
    such step, applied, made every weight NaN and the run's best_model/ a NaN network (sixty-eighth
    session). Here the second step's gradients are made NaN as they were."""
    from accelerate import Accelerator

    clip, calls = Accelerator.clip_grad_norm_, []

    def nan_on_the_second(self, parameters, max_norm, *args, **kwargs):
        parameters = list(parameters)
        calls.append(1)
        if len(calls) == 2:
            for parameter in parameters:
                parameter.grad.fill_(float("nan"))
        return clip(self, parameters, max_norm, *args, **kwargs)

    monkeypatch.setattr(Accelerator, "clip_grad_norm_", nan_on_the_second)
    out = tmp_path / "run"
    summary = train(tiny_config(out, train__max_steps=3, train__val_every=0))
    assert summary["step"] == 3 and len(calls) == 4  # the skipped update is not a step
    # the second step's first try, as every "step N" is the N-th step taken (until the 107th session "step 1")
    assert "step 2: gradient norm nan under a finite loss, step skipped (1/5 in a row)" in capsys.readouterr().out
    weights = load_file(out / "model" / "model.safetensors")
    assert all(torch.isfinite(w).all() for w in weights.values())


def test_weights_that_are_not_finite_are_never_exported(tiny_config, tmp_path, monkeypatch, capsys):
    """A best_model/ of NaN weights was written at a diverged run's first validation (sixty-eighth
    session). Training now says so and keeps the earlier export; `accelerated-seg export` refuses."""
    from accelerate import Accelerator

    import accelerated_seg.checkpoint_export as checkpoint_export
    from accelerated_seg.exported_model import NonFiniteWeights, export_model, write_state_as_export

    with pytest.raises(NonFiniteWeights, match=r"1 of 2 tensors of the weights at step 7 hold NaN or infinite values "
                                               r"\(the first: b\), so nothing was written to "):
        write_state_as_export({"a": torch.zeros(2), "b": torch.tensor([1.0, float("inf")])}, {}, {}, tmp_path / "x",
                              aliases={}, step=7)
    assert not (tmp_path / "x").exists()

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__save_every=2))
    before = (out / "model" / "model.safetensors").read_bytes()
    diverged = torch.nn.Linear(2, 2)
    with torch.no_grad():
        diverged.weight.fill_(float("nan"))
    assert export_model(Accelerator(cpu=True), diverged, None, {}, out / "model", aliases={}, step=3) is None
    assert "warning: 1 of 2 tensors of the weights at step 3 hold NaN" in capsys.readouterr().out
    assert (out / "model" / "model.safetensors").read_bytes() == before  # the earlier export is kept

    gathered = checkpoint_export._gathered_weights
    monkeypatch.setattr(checkpoint_export, "_gathered_weights", lambda checkpoint: {
        name: torch.full_like(tensor, float("nan")) if tensor.is_floating_point() else tensor
        for name, tensor in gathered(checkpoint).items()})
    with pytest.raises(DataError, match=r"step_2: .* hold NaN or infinite values .*; export an earlier checkpoint"):
        checkpoint_export.export_checkpoint(out / "checkpoints" / "step_2", tmp_path / "exported")
    assert not (tmp_path / "exported").exists()


def test_fp16_on_the_cpu_from_a_deepspeed_json_names_the_jsons_field(tmp_path, monkeypatch):
    """Under DeepSpeed a json's "fp16": {"enabled": true} decides the precision, whatever the launch asks (accelerate
    reports mixed precision fp16 from it): the refusal spoke of the launch's --mixed_precision alone."""
    from types import SimpleNamespace

    from accelerated_seg.preparation import check_launch

    json_file = tmp_path / "ds.json"
    json_file.write_text('{"zero_optimization": {"stage": 2}, "fp16": {"enabled": true}}')
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file)}.items():
        monkeypatch.setenv(name, value)
    accelerator = SimpleNamespace(device=torch.device("cpu"), mixed_precision="fp16")
    with pytest.raises(ConfigError) as refused:
        check_launch(accelerator, allow_fallback=False)
    assert str(refused.value).startswith(f"fp16.enabled is true in the DeepSpeed json {json_file}, which asks for "
                                         f"mixed precision fp16 on the CPU: ")
    assert str(refused.value).endswith('Set it false (or "auto", to take the launch\'s precision), or switch bf16 on '
                                       'there')
    json_file.write_text('{"zero_optimization": {"stage": 2}, "fp16": {"enabled": "auto"}}')  # the launch's fp16
    with pytest.raises(ConfigError) as refused:
        check_launch(accelerator, allow_fallback=False)
    assert str(refused.value).startswith("mixed precision fp16 on the CPU: ")


def test_fp16_on_the_cpu_is_refused_before_anything_is_written(tiny_config, tmp_path, monkeypatch):
    # accelerate would train it, with autocast and a gradient scaler on the CPU, at 15-24x fp32's step.
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "fp16")
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"mixed precision fp16 on the CPU: .*--mixed_precision bf16 "
                                          r"\(native on CPUs with AVX512-BF16 or AMX\) or --mixed_precision no"):
        train(tiny_config(out))
    assert not out.exists()


def test_the_cpu_fp16_refusal_names_the_keyword_that_takes_a_precision():
    # It said "in fit(), precision='bf16' or 'fp32'", a keyword neither fit has: Segmentation.fit refuses
    # precision= (Segmentation's own) and train.fit takes the launch's (a notebook journey, ninety-fifth session).
    from types import SimpleNamespace

    from accelerated_seg.preparation import check_launch

    with pytest.raises(ConfigError) as refused:
        check_launch(SimpleNamespace(device=torch.device("cpu"), mixed_precision="fp16"), allow_fallback=False)
    assert "Segmentation(precision='bf16') or 'fp32'" in str(refused.value)
    assert "fit()" not in str(refused.value)


def test_an_update_the_fp16_scaler_skipped_is_not_a_step(tiny_config, tmp_path, monkeypatch, capsys):
    # Training refuses fp16 on the CPU, so the scaler's verdict is stood in for: the first two optimizer
    # steps overflow (as they do while GradScaler's initial 2**16 scale comes down to size).
    from accelerate import Accelerator

    verdicts = iter([True, True])
    monkeypatch.setattr(Accelerator, "optimizer_step_was_skipped", property(lambda self: next(verdicts, False)))
    stepped = []
    monkeypatch.setattr(torch.optim.lr_scheduler.LambdaLR, "step",
                        lambda self, *a: stepped.append(1) or torch.optim.lr_scheduler.LRScheduler.step(self))
    out = tmp_path / "run"
    summary = train(tiny_config(out, train__max_steps=3, train__val_every=0, train__save_every=0))
    assert summary["step"] == 3  # three updates, after two skipped ones
    # both tries of the first step, logged at 1 once taken (until the hundred-and-seventh session "step 0")
    assert capsys.readouterr().out.count("step 1: fp16 gradients overflowed at this loss scale; update skipped") == 2
    assert len(stepped) == 1 + 3  # LambdaLR steps once when built, then once per real update
    metrics = json.loads((out / "metrics.json").read_text())
    assert [step for step, _ in metrics["loss"]] == [1, 2, 3]


def test_persistent_non_finite_loss_stops_without_a_nan_model(tiny_config, tmp_path, monkeypatch):
    _nan_loss_on_steps(monkeypatch, bad_calls=set(range(2, 1000)))
    out = tmp_path / "run"
    with pytest.raises(TrainingDiverged, match=r"3 optimizer steps in a row; the last good checkpoint is kept in "
                                               r".*checkpoints/step_2\. Lower optim.lr"):
        train(tiny_config(out, train__max_steps=20, train__val_every=0, train__save_every=1,
                          train__max_nonfinite_steps=3))
    assert not (out / "model").exists()
    kept = complete_checkpoints(out / "checkpoints")
    assert kept and kept[-1].name == "step_2"  # the last good state is still there
    # Without a checkpoint it named a folder that did not exist (sixty-eighth session)
    with pytest.raises(TrainingDiverged, match=r"in a row; no checkpoint was saved before \(train.save_every\)"):
        train(tiny_config(tmp_path / "unsaved", train__max_steps=20, train__val_every=0, train__save_every=0,
                          train__max_nonfinite_steps=3))
    # A checkpoints folder that cannot be listed is said so: its PermissionError was raised over the divergence
    # until the hundred-and-seventh session
    import accelerated_seg.train as train_module

    def unreadable(folder):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))

    monkeypatch.setattr(train_module, "complete_checkpoints", unreadable)
    with pytest.raises(TrainingDiverged, match=r"in a row; .*unreadable/checkpoints could not be read \(Permission "
                                               r"denied\), so no checkpoint is named\. Lower optim.lr"):
        train(tiny_config(tmp_path / "unreadable", train__max_steps=20, train__val_every=0, train__save_every=1,
                          train__max_nonfinite_steps=3))


def _broken_copy(tiny_dataset, tmp_path, damage):
    root = tmp_path / "broken"
    shutil.copytree(tiny_dataset.parent, root)
    target = load_msd(root / "dataset.json").training[1]
    damage(target)
    return root / "dataset.json", target


def _truncate(case):
    data = case.images[0].read_bytes()
    case.images[0].write_bytes(data[: len(data) // 2])


def _label_out_of_range(case):
    img = nib.load(case.label)
    data = np.asanyarray(img.dataobj).copy()
    data[0, 0, 0] = 3  # 3 classes declared: 0, 1, 2
    nib.save(nib.Nifti1Image(data, img.affine), case.label)


def _label_wrong_shape(case):
    img = nib.load(case.label)
    nib.save(nib.Nifti1Image(np.asanyarray(img.dataobj)[:-1], img.affine), case.label)


def test_a_run_without_validation_still_writes_its_curves_and_report(tiny_config, tmp_path):
    from accelerated_seg.report import write_report

    cfg = tiny_config(tmp_path / "run", train__max_steps=2, train__val_every=0, train__save_every=0)
    train(cfg)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert [step for step, _ in metrics["loss"]] == [1, 2] and metrics["validation"] == []
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["best_dice"] is None and summary["best_step"] is None  # -1.0 and -1 until the 72nd session
    assert write_report(cfg).stat().st_size > 0  # from the final model, without a validation curve


def test_summary_json_records_the_run_folder_absolute_as_config_yaml_does(tiny_config, tmp_path, monkeypatch):
    """A relative train.output_dir stayed relative in summary.json beside config.yaml's absolute one,
    meaningless read from another folder (ninety-second session's audit)."""
    monkeypatch.chdir(tmp_path)
    train(tiny_config("run", train__max_steps=1, train__val_every=0, train__save_every=0))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    saved = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert summary["output_dir"] == saved["train"]["output_dir"] == str(tmp_path / "run")


def test_the_report_curves_mark_a_lone_point_and_list_only_the_curves_drawn():
    """Before the twenty-ninth session a run that logged its loss once showed an empty panel (a line
    through one point draws nothing) whose legend listed a validation curve the run did not have."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from accelerated_seg.report import plot_curves

    fig, ax = plt.subplots()
    plot_curves(ax, {"loss": [[4, 1.8]], "validation": []})
    (loss,) = ax.get_lines()
    assert loss.get_marker() not in ("None", None, "") and list(loss.get_xdata()) == [4]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training loss (DiceCE)"]
    assert ax.get_title() == "training loss (no validation in this run)"
    ax.clear()
    plot_curves(ax, {"loss": [[1, 1.5], [2, 1.2]], "validation": [{"step": 2, "mean_dice": 0.4}]})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training loss (DiceCE)", "validation mean Dice"]
    assert ax.get_title() == "best mean Dice 0.400 at step 2"
    assert ax.get_ylabel() == "loss; mean Dice"  # one axis for both, unnamed before the seventy-fifth session
    ax.clear()
    plot_curves(ax, {"loss": [[1, 0.5]], "validation": []}, loss="tversky")  # was "DiceCE" whatever the loss
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training loss (Tversky)"]
    plt.close(fig)


def test_the_report_names_the_classes_its_colours_stand_for():
    """The reference and prediction were coloured by class with nothing saying which colour was which."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from accelerated_seg.report import draw_slices

    image = np.zeros((8, 8, 4), np.float32)
    label, pred = np.zeros((8, 8, 4), np.uint8), np.zeros((8, 8, 4), np.uint8)
    label[2:4, 2:4, 1], pred[2:4, 2:4, 1], pred[5, 5, 1] = 1, 1, 2
    label[0, 0, 3] = 3  # another slice: not listed
    fig, axes = plt.subplots(1, 3)
    draw_slices(axes, image, label, pred, 1, "case_0", {0: "background", 1: "ventricles", 2: "lesion"})
    assert [t.get_text() for t in axes[2].get_legend().get_texts()] == ["ventricles", "lesion"]
    colours = [tuple(h.get_facecolor()[:3]) for h in axes[2].get_legend().legend_handles]
    assert colours[0] != colours[1]
    plt.close(fig)


def test_the_report_names_non_contiguous_label_values_by_their_class_in_colours_apart():
    """Label values 0, 5, 13 were drawn under the names of classes 5 and 13 (none), and a 13-organ
    model's classes on one red-to-yellow scale looked alike (seventy-seventh session's probe)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from accelerated_seg.data.labels import as_class_indices as as_classes
    from accelerated_seg.report import draw_slices

    label = np.zeros((8, 8, 2), np.int16)
    label[1:3, 1:3, 0], label[5:7, 5:7, 0] = 5, 13
    classes = as_classes(label, {0: 0, 5: 1, 13: 2})
    assert sorted(np.unique(classes).tolist()) == [0, 1, 2] and as_classes(label, None) is label
    fig, axes = plt.subplots(1, 3)
    draw_slices(axes, np.zeros((8, 8, 2), np.float32), classes, classes, 0, "case_0",
                {0: "background", 1: "spleen", 2: "liver"})
    assert [t.get_text() for t in axes[2].get_legend().get_texts()] == ["spleen", "liver"]
    colours = [tuple(h.get_facecolor()[:3]) for h in axes[2].get_legend().legend_handles]
    plt.close(fig)
    assert colours[0] != colours[1]


def test_trackers_are_checked_and_a_missing_one_is_said(tiny_config, tmp_path, monkeypatch, capsys):
    import accelerate.tracking

    with pytest.raises(ConfigError, match="^setting train.trackers must be none, or tracker names accelerate "
                                          r"knows, .*; got 'tensorbord' \(did you mean 'tensorboard'\?\)$"):
        train(tiny_config(tmp_path / "typo", train__trackers="tensorbord"))
    assert not (tmp_path / "typo").exists()
    # Not installed: accelerate drops it (with a Python warning only when no tracker is left), so the
    # run says it in its own output (and goes on).
    monkeypatch.setattr(accelerate.tracking, "get_available_trackers", lambda: [])
    train(tiny_config(tmp_path / "run", train__trackers="tensorboard", train__max_steps=2, train__val_every=0))
    out = capsys.readouterr().out
    assert "warning: train.trackers names tensorboard, which is not installed here" in out
    assert "(pip install accelerated-seg[tensorboard])" in out
    from accelerated_seg.preparation import tracker_install_hint

    assert tracker_install_hint(["wandb", "tensorboard"]) == "pip install wandb accelerated-seg[tensorboard]"
    train(tiny_config(tmp_path / "two", train__trackers="[wandb, mlflow]", train__max_steps=1, train__val_every=0))
    assert ("warning: train.trackers names wandb, mlflow, which are not installed here, so nothing is logged to "
            "them (pip install wandb mlflow)") in capsys.readouterr().out


def test_a_dataset_without_validation_cases_trains_only_with_validation_off(tiny_config, tiny_dataset, tmp_path):
    manifest = load_msd(tiny_dataset)
    csv = tmp_path / "cases.csv"  # no split column, and nothing held out
    csv.write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in manifest.training))
    settings = dict(data__dataset=str(csv), data__validation_fraction=0, train__max_steps=2,
                    data__labels="{0: background, 1: ventricles, 2: lesion}")
    with pytest.raises(ConfigError, match="no validation cases.*set train.val_every=0"):
        train(tiny_config(tmp_path / "refused", **settings))
    assert not (tmp_path / "refused" / "checkpoints").exists()
    out = tmp_path / "run"
    assert train(tiny_config(out, train__val_every=0, **settings))["step"] == 2
    assert (out / "model" / "model.safetensors").is_file()
    one = tmp_path / "one.csv"  # one case, the default fraction 0.2: "hold cases out" pointed at a setting > 0
    one.write_text(f"image,label\n{manifest.training[0].images[0]},{manifest.training[0].label}\n")
    with pytest.raises(ConfigError, match=r"no validation cases \(fraction 0.2 .*set train.val_every=0 to train "
                                          r"without validation, or add cases: one case cannot be both trained on"):
        train(tiny_config(tmp_path / "one", **{**settings, "data__dataset": str(one),
                                               "data__validation_fraction": 0.2}))
    # A split column that marks every case for training: the fraction, which that split overrides, is no way on
    marked = tmp_path / "marked.csv"
    marked.write_text("image,label,split\n" + "".join(f"{c.images[0]},{c.label},train\n" for c in manifest.training))
    with pytest.raises(ConfigError, match=r"no validation cases \(given \(CSV 'split' column; "
                                          r"data.validation_fraction=0 not used\)\).*list validation "
                                          r"cases in the dataset's own split, or give the dataset without it"):
        train(tiny_config(tmp_path / "marked", **{**settings, "data__dataset": str(marked)}))


def test_a_manifest_given_without_validation_cases_is_told_what_splits_it_not_the_config(tiny_config, tiny_dataset,
                                                                                         tmp_path):
    """train never splits a manifest it is given again, but told one without validation cases to "give the dataset
    without it so that data.validation_fraction or data.num_folds holds cases out", or "data.validation_fraction >
    0", settings that split nothing there (until the ninety-fourth session). It is told of what made it."""
    from accelerated_seg.data.manifest import from_pairs, load_cases

    manifest, labels = load_msd(tiny_dataset), {0: "background", 1: "ventricles", 2: "lesion"}
    marked, plain = tmp_path / "marked.csv", tmp_path / "plain.csv"  # its own split, every case training; none
    marked.write_text("image,label,split\n" + "".join(f"{c.images[0]},{c.label},train\n" for c in manifest.training))
    plain.write_text("image,label\n" + "".join(f"{c.images[0]},{c.label}\n" for c in manifest.training))
    settings = dict(train__max_steps=2, data__labels="{0: background, 1: ventricles, 2: lesion}")
    given = load_cases(marked, labels=labels)
    with pytest.raises(ConfigError, match=r"list validation cases in the dataset's own split, or read it again "
                                          r"without it by load_cases\(\.\.\., validation_fraction=\.\.\. or num_folds="
                                          r"\.\.\.\), which hold cases out: train takes the split of a manifest given"
                                          r" as it is$"):
        train(tiny_config(tmp_path / "marked", **settings), manifest=given)
    fraction = load_cases(plain, validation_fraction=0, labels=labels)
    with pytest.raises(ConfigError, match=r"or hold cases out \(load_cases\(\.\.\., validation_fraction=\.\.\. > 0 "
                                          r"or num_folds=\.\.\.\), or the dataset's own split\): train takes the split "
                                          r"of a manifest given as it is$"):
        train(tiny_config(tmp_path / "fraction", **settings), manifest=fraction)
    pairs = from_pairs([(c.images, c.label) for c in manifest.training], labels=labels, validation_pairs=[])
    with pytest.raises(ConfigError, match=r"or give validation_pairs=\[\(image, label\), \.\.\.\] to from_pairs, or "
                                          r"leave validation_pairs out so that validation_fraction or num_folds holds "
                                          r"cases out$"):
        train(tiny_config(tmp_path / "pairs", **settings), manifest=pairs)
    # the same pairs read by load_cases, which takes no validation_pairs: told to give them to from_pairs as if it
    # were from_pairs (until the hundredth session); its own keywords, and from_pairs in its place
    read = load_cases([(c.images, c.label) for c in manifest.training], labels=labels, validation_fraction=0)
    with pytest.raises(ConfigError, match=r"or read the pairs again by load_cases\(pairs, validation_fraction=\.\.\. "
                                          r"> 0 or num_folds=\.\.\.\), which hold cases out, or list the held-out "
                                          r"pairs as from_pairs\(pairs, validation_pairs=\[\(image, label\), "
                                          r"\.\.\.\]\) in place of load_cases: train takes the split of a manifest "
                                          r"given as it is$"):
        train(tiny_config(tmp_path / "read", **settings), manifest=read)
    assert not any((tmp_path / name / "checkpoints").exists() for name in ("marked", "fraction", "pairs", "read"))


def test_a_patch_the_network_cannot_take_is_refused_before_the_demo_phantoms_are_written(tiny_config, tmp_path):
    """Refused once every case was read, the embedded phantoms written into the run's folder first
    (13.6 s in the eighty-fourth session's probe); the network and its patch need no case."""
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"data.patch_size \(18, 18, 18\) must be divisible by \(32, 32, 32\) for "
                                          r"model 'swinunetr'"):
        train(tiny_config(out, data__dataset="synthetic", model__name="swinunetr", model__args="{}",
                          data__patch_size="[18, 18, 18]"))
    assert not out.exists()


@pytest.mark.parametrize("setting, refusal", [
    ({"model__args": "{channels: [4, 8, 16], strides: [2, 2], in_channels: 2}"},
     r"model.args \['in_channels'\] contradict the run: in_channels is the number of image channels \(1\)"),
    ({"train__loss_args": "{weight: [1.0, 2.0]}"},
     r"train.loss=dice_ce with train.loss_args cannot score 3 classes \(background included\)"),
])
def test_model_args_and_a_class_weight_the_data_contradicts_are_refused_before_anything_is_written(
        tiny_config, tmp_path, setting, refusal):
    """The demo's channel and classes are known before its phantoms are written, and a dataset's on disk
    from its description: refused once the phantoms (24 in the demo, 14 MiB) were written into the new
    run folder, 29-36 s in (ninety-second session's audit); nothing written now."""
    out, cache = tmp_path / "run", tmp_path / "cache"
    with pytest.raises(ConfigError, match=refusal):
        train(tiny_config(out, data__dataset="synthetic", data__cache_dir=str(cache), **setting))
    assert not out.exists() and not cache.exists()


@pytest.mark.parametrize("model, args, patch, refusal", [
    ("unet", "{channels: [4, 8, 16, 32], strides: [2, 2]}", "[16, 16, 16]",
     r"model 'unet': MONAI's UNet refuses model.args.channels \[4, 8, 16, 32\] with model.args.strides \[2, 2\], "
     r"and builds no network of them: the length of `strides` should equal to `len\(channels\) - 1`. Change "
     r"model.args.channels or model.args.strides$"),
    ("swinunetr", "{feature_size: 16}", "[64, 32, 32]",
     r"MONAI's SwinUNETR refuses model.args.feature_size 16, and builds no network of them: feature_size should be "
     r"divisible by 12. Change model.args.feature_size$"),
])
def test_model_args_monai_refuses_are_refused_before_anything_is_written(tiny_config, tmp_path, model, args, patch,
                                                                         refusal):
    """MONAI's constructor needs no batch: it refused these only once the demo's phantoms (14 MiB) were written
    into the new run folder, 17-62 s in on 2 busy cores (ninety-third session's probe), with the forward pass that
    needs the per-device batch; nothing written now."""
    out, cache = tmp_path / "run", tmp_path / "cache"
    with pytest.raises(ConfigError, match=refusal):
        train(tiny_config(out, data__dataset="synthetic", data__cache_dir=str(cache), model__name=model,
                          model__args=args, data__patch_size=patch))
    assert not out.exists() and not cache.exists()


def test_a_stride_of_two_values_is_refused_before_anything_is_written(tiny_config, tmp_path):
    """An IndexError traceback from the patch check until the ninety-third session."""
    out, cache = tmp_path / "run", tmp_path / "cache"
    with pytest.raises(ConfigError, match=r"^model\.args\.strides\[3\] \(entry 4 of 4\) is \[2, 2\]"):
        train(tiny_config(out, data__dataset="synthetic", data__cache_dir=str(cache), model__name="dynunet",
                          model__args="{strides: [[1, 1, 1], [2, 2, 2], [2, 2, 2], [2, 2]]}",
                          data__patch_size="[32, 32, 32]"))
    assert not out.exists() and not cache.exists()


def test_model_args_monai_refuses_are_named_as_trains_caller_names_them(tiny_config, tmp_path):
    """train's names: the estimator's run names the arguments as its model_args, before anything is written."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES

    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"MONAI's SwinUNETR refuses model_args\['feature_size'\] 16, .*Change "
                                          r"model_args\['feature_size'\]$"):
        train(tiny_config(out, data__dataset="synthetic", model__name="swinunetr", model__args="{feature_size: 16}",
                          data__patch_size="[64, 32, 32]"), names=ESTIMATOR_NAMES)
    assert not out.exists()


@pytest.mark.parametrize("given, names, said", [
    ("{channels: [4, 8], strides: [2, 2, 2]}", None,
     "warning: model.args.strides [2, 2, 2] has 2 more value(s) than the 1 down-sampling step(s) between "
     "model.args.channels [4, 8]: MONAI's UNet leaves the last 2 unused, so the network down-samples by [2] alone. "
     "Give model.args.strides [2], or model.args.channels 2 more value(s) to down-sample by them all\n"),
    ("{channels: [4, 8, 16]}", "ESTIMATOR_NAMES",  # the default strides, four
     "warning: the default strides [2, 2, 2, 2] has 2 more value(s) than the 2 down-sampling step(s) between "
     "model_args['channels'] [4, 8, 16]: MONAI's UNet leaves the last 2 unused, so the network down-samples by "
     "[2, 2] alone. Give model_args['strides'] [2, 2], or model_args['channels'] 2 more value(s) to down-sample by "
     "them all\n"),
    ("{channels: [4, 8], strides: [2], norm: INSTANCE_NVFUSER}", "ESTIMATOR_NAMES",  # without apex
     "warning: model_args['norm'] INSTANCE_NVFUSER needs apex's InstanceNorm3dNVFuser (apex built with its CUDA "
     "extensions), which cannot be imported here; MONAI falls back to torch's nn.InstanceNorm3d, the network of "
     "model_args['norm'] INSTANCE, without apex's faster kernel. Install apex (https://github.com/NVIDIA/apex) for "
     "it, or give model_args['norm'] INSTANCE\n")])
def test_what_monai_builds_otherwise_than_model_args_say_is_said_once_before_anything_is_written(
        tiny_config, tmp_path, monkeypatch, capsys, given, names, said):
    """MONAI's UNet builds without the strides beyond its channels' steps, and nn.InstanceNorm3d for an nvfuser norm
    without apex, each with a UserWarning of its own words (from every build) that names no setting, and the run
    trained on (until the ninety-third session)."""
    import warnings

    import accelerated_seg.configured_run
    import accelerated_seg.model_folders

    out = tmp_path / "run"

    def stop_at_the_lock(*args, **kwargs):  # the first thing the run writes: the folder, for its lock
        raise SystemExit(f"at the lock, {out.exists()}")

    monkeypatch.setattr(accelerated_seg.configured_run, "holding_run_folder", stop_at_the_lock)
    run_names = getattr(accelerated_seg.model_folders, names) if names else accelerated_seg.model_folders.Names()
    with warnings.catch_warnings(), pytest.raises(SystemExit, match="at the lock, False"):
        warnings.filterwarnings("error", message=r".*(len\(strides\)|InstanceNorm3dNVFuser)")  # MONAI's own, raw
        train(tiny_config(out, data__dataset="synthetic", data__cache_dir=str(tmp_path / "cache"),
                          model__args=given), names=run_names)
    assert capsys.readouterr().out.count(said) == 1 and not out.exists()


def test_the_network_built_before_anything_is_written_is_not_built_again_for_its_forward_pass(
        tiny_config, tmp_path, monkeypatch):
    """SwinUNETR's network is built on the CPU and moved to the meta device, up to a second on 2 cores: the
    forward pass with the per-device batch takes the one built for the constructor's check."""
    import accelerated_seg.models
    from accelerated_seg.data.prepare import counts_before_writing
    from accelerated_seg.network_checks import checked_network_and_loss, network_before_writing

    # not an earlier test's pass of this network (models._PASSED_HERE), after which none is built to be reused
    monkeypatch.setattr(accelerated_seg.models, "_PASSED_HERE", set())
    cfg = tiny_config(tmp_path / "run", data__dataset="synthetic", model__name="swinunetr", model__args="{}",
                      data__patch_size="[64, 32, 32]")
    manifest = counts_before_writing(cfg.data, cfg.train.output_dir)
    built = network_before_writing(cfg, manifest)
    assert built.network is not None
    monkeypatch.setattr(accelerated_seg.models, "meta_network", lambda spec: pytest.fail("built again"))
    spec, _ = checked_network_and_loss(cfg, manifest, 2, built)
    assert spec == built.spec and not (tmp_path / "run").exists()


def test_a_network_the_estimator_checked_is_neither_built_nor_passed_through_again_by_training(
        tiny_config, tmp_path, monkeypatch):
    """The estimator's fit checks the network on its blocks before it writes anything (estimator_launch), and
    training then built it for the constructor's check and passed a batch through it again, in the same process
    (ninety-ninth session); a network or batch of its own is still built and checked."""
    import accelerated_seg.models
    from accelerated_seg.data.prepare import counts_before_writing
    from accelerated_seg.models import check_trainable, model_spec
    from accelerated_seg.network_checks import checked_network_and_loss, network_before_writing

    monkeypatch.setattr(accelerated_seg.models, "_PASSED_HERE", set(), raising=False)
    cfg = tiny_config(tmp_path / "run", data__dataset="synthetic")
    manifest = counts_before_writing(cfg.data, cfg.train.output_dir)
    spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_outputs, cfg.data.patch_size,
                      cfg.model.args)
    check_trainable(spec, cfg.data.patch_size, 2)  # as estimator_launch.check_the_network_fits_the_blocks does
    real = accelerated_seg.models.meta_network
    monkeypatch.setattr(accelerated_seg.models, "meta_network", lambda spec: pytest.fail("built again"))
    built = network_before_writing(cfg, manifest)
    assert checked_network_and_loss(cfg, manifest, 2, built)[0] == spec
    built_anew = []
    monkeypatch.setattr(accelerated_seg.models, "meta_network", lambda spec: built_anew.append(spec) or real(spec))
    checked_network_and_loss(cfg, manifest, 3, built)  # another batch: checked on a network built for it
    assert built_anew == [spec]


@pytest.mark.parametrize("damage, what", [
    (lambda case: case.images[0].unlink(), "image"),
    (lambda case: case.label.unlink(), "label"),
    (_label_wrong_shape, "label"),
    (_label_out_of_range, "label"),
    (_truncate, "image"),
])
def test_bad_input_stops_before_training_naming_the_file(tiny_config, tiny_dataset, tmp_path, damage, what):
    dataset_json, case = _broken_copy(tiny_dataset, tmp_path, damage)
    out = tmp_path / "run"
    with pytest.raises(DataError) as error:
        train(tiny_config(out, data__dataset=str(dataset_json)))
    named = case.images[0] if what == "image" else case.label
    assert str(named) in str(error.value)
    assert not (out / "checkpoints").exists() and not (out / "model").exists()


def test_the_command_line_reports_bad_input_in_one_line_without_a_traceback(tiny_dataset, tmp_path, capsys):
    from accelerated_seg.cli import main

    from conftest import tiny_overrides

    dataset_json, case = _broken_copy(tiny_dataset, tmp_path, _label_out_of_range)
    with pytest.raises(SystemExit) as stop:
        main(["train", *tiny_overrides(dataset_json, tmp_path / "run")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(case.label) in err and "Traceback" not in err
    assert err.count("error: ") == 1  # one error; a dataset's problems are listed under it, one per line


@pytest.mark.parametrize("resume, message", [("latest", "holds no complete checkpoint"),
                                             ("somewhere/step_3", "does not exist (nothing is there;"),
                                             ("README.md", "is not a checkpoint folder")])
def test_nothing_to_resume_from_is_one_line_before_any_data_work(tiny_dataset, tmp_path, capsys, resume, message):
    from accelerated_seg.cli import main

    from conftest import tiny_overrides

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        main(["train", *tiny_overrides(tiny_dataset, out, data__cache_dir=str(tmp_path / "cache")), "--resume", resume])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: train.resume=") and message in err and "Traceback" not in err
    assert not (tmp_path / "cache").exists() and not (out / "run_info.json").exists()


def test_a_file_named_checkpoints_in_the_output_dir_is_one_line_before_any_data_work(tiny_dataset, tmp_path,
                                                                                     capsys):
    # NotADirectoryError's traceback at the first save, after the training, before the twenty-eighth session
    from accelerated_seg.cli import main

    from conftest import tiny_overrides

    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoints").write_text("a file of the user's")
    with pytest.raises(SystemExit) as stop:
        main(["train", *tiny_overrides(tiny_dataset, out, data__cache_dir=str(tmp_path / "cache"))])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out / 'checkpoints'} is a file, where the run's checkpoints go: move it, or "
                          f"train into another --train.output_dir") and "Traceback" not in err
    assert not (tmp_path / "cache").exists() and not (out / "run_info.json").exists()


@pytest.mark.parametrize("rank", ["0", "1"])
def test_user_errors_exit_with_their_message_from_the_main_process_only(monkeypatch, capsys, rank):
    from accelerated_seg.cli import exit_on_user_error

    monkeypatch.setenv("RANK", rank)
    for error, code in ((ConfigError("train.batch_size must be at least 1"), 2), (DataError("case_1.nii.gz"), 2),
                        (TrainingDiverged("lower optim.lr"), 1)):
        with pytest.raises(SystemExit) as stop, exit_on_user_error():
            raise error
        assert stop.value.code == code
        assert capsys.readouterr().err == (f"error: {error}\n" if rank == "0" else "")
    with pytest.raises(KeyError), exit_on_user_error():  # a bug keeps its traceback
        raise KeyError("not the user's fault")
    with pytest.raises(RuntimeError, match="a bug"), exit_on_user_error():  # as does any other RuntimeError
        raise RuntimeError("a bug")


def test_a_launched_rank_even_alone_ends_without_the_interpreters_shutdown():
    # end_process: what a launched rank does last. DDP and DeepSpeed (in one process too) leave
    # gloo's threads running, and the interpreter's shutdown under them rarely aborted a rank after
    # a complete run (see end_process). A process no launcher started exits normally.
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = ("import atexit; atexit.register(lambda: print('shutdown ran')); "
            "from accelerated_seg.cli import end_process; print('written'); end_process(3)")
    plain_env = {k: v for k, v in os.environ.items() if k != "WORLD_SIZE"}
    for world_size, expected in (("2", "written\n"), ("1", "written\n"), (None, "written\nshutdown ran\n")):
        env = {**plain_env, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        if world_size is not None:
            env["WORLD_SIZE"] = world_size
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert (proc.returncode, proc.stdout) == (3, expected), (world_size, proc.stderr[-2000:])


def test_the_example_script_stops_with_one_line_on_a_bad_setting(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    from refusals import run_probing_imports

    # None of the training stack imported: a mistyped setting is refused at once rather than after
    # 8-14 s of importing on each rank.
    proc, imported = run_probing_imports(str(root / "examples" / "train.py"), "--config",
                                         str(root / "configs" / "demo.yaml"), f"--train.output_dir={tmp_path / 'run'}",
                                         "--train.batch_sise=2", env=env)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith("error: ") and "train.batch_sise" in proc.stderr and "Traceback" not in proc.stderr
    assert imported == [], imported
    assert not (tmp_path / "run").exists()
    # Nor an unknown network: it was refused after the demo data was written into the new run folder.
    proc, imported = run_probing_imports(str(root / "examples" / "train.py"), "--config",
                                         str(root / "configs" / "demo.yaml"), f"--train.output_dir={tmp_path / 'run'}",
                                         "--model.name=unte", env=env)
    assert proc.returncode == 2 and "setting model.name must be one of unet, " in proc.stderr, proc.stderr[-2000:]
    assert imported == [] and not (tmp_path / "run").exists(), imported
    # Nor a train.init_from that is no export: refused after the imports and the demo data, before.
    (tmp_path / "bert").mkdir()  # another program's folder of the same two file names
    (tmp_path / "bert" / "config.json").write_text('{"architectures": ["BertModel"]}')
    (tmp_path / "bert" / "model.safetensors").write_bytes(b"")
    (tmp_path / "cut").mkdir()  # an export whose weights a copy cut short
    (tmp_path / "cut" / "config.json").write_text('{"model": {"name": "unet"}}')
    (tmp_path / "cut" / "model.safetensors").write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{\"w\":")
    (tmp_path / "notes.pt").write_text("hello")  # a file, but no weights file: 3-12 s in, before
    # a clone without Git LFS: told so since the hundred-and-fifth session, before the imports as well
    (tmp_path / "lfs.pt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 7264\n")
    for init_from, message in ((tmp_path / "typo", f"train.init_from='{tmp_path / 'typo'}' must be an exported "
                                                   f"model folder (config.json + model.safetensors)"),
                               (tmp_path / "bert", "bert/config.json has no model section"),
                               (tmp_path / "cut", "cut/model.safetensors cannot be read as safetensors"),
                               (tmp_path / "notes.pt", "notes.pt cannot be read as a PyTorch weights file"),
                               (tmp_path / "lfs.pt", "lfs.pt: a Git LFS pointer")):
        for script, module in ((str(root / "examples" / "train.py"), False), ("accelerated_seg.cli", True)):
            proc, imported = run_probing_imports(script, *(["train"] if module else []), "--config",
                                                 str(root / "configs" / "demo.yaml"),
                                                 f"--train.output_dir={tmp_path / 'run'}",
                                                 f"--train.init_from={init_from}", env=env, module=module)
            assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, (
                script, proc.stderr[-2000:])
            assert imported == [] and not (tmp_path / "run").exists(), imported
    # Nor a folder that holds an earlier run (the quick start's demo a second time): 13.7 s in, before.
    (tmp_path / "earlier").mkdir()
    for name in ("run_info.json", "summary.json"):
        (tmp_path / "earlier" / name).write_text("{}")
    for script, module in ((str(root / "examples" / "train.py"), False), ("accelerated_seg.cli", True)):
        proc, imported = run_probing_imports(script, *(["train"] if module else []), "--config",
                                             str(root / "configs" / "demo.yaml"),
                                             f"--train.output_dir={tmp_path / 'earlier'}", env=env, module=module)
        assert proc.returncode == 2 and f"error: {tmp_path / 'earlier'} already holds a run (a finished run's " \
            f"summary.json), which a new run there would replace" in proc.stderr, (script, proc.stderr[-2000:])
        assert imported == [], imported
        assert sorted(path.name for path in (tmp_path / "earlier").iterdir()) == ["run_info.json", "summary.json"]
    # Nor a resume that names no checkpoint or a damaged one: 13-14 s in, after the imports, before.
    damaged = tmp_path / "elsewhere" / "checkpoints" / "step_3"
    damaged.mkdir(parents=True)
    (damaged / "model.safetensors").write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{\"w\":")  # cut short
    # Nor one that this run cannot continue (resume_config_changes.py): after the data work and the load, before.
    with_sgd = tmp_path / "sgd" / "checkpoints" / "step_2"
    with_sgd.mkdir(parents=True)
    from accelerated_seg.config import dump_config, load_config

    (with_sgd / "config.yaml").write_text(dump_config(load_config(root / "configs" / "demo.yaml",
                                                                  ["--optim.optimizer=sgd"])))
    for resume, message in (("latest", f"train.resume=latest but {tmp_path / 'run' / 'checkpoints'} holds no "
                                       f"complete checkpoint"),
                            (str(tmp_path / "run" / "checkpoints" / "step_99"), "does not exist"),
                            (str(damaged), f"checkpoint {damaged} is damaged: model.safetensors (SafetensorError"),
                            (str(with_sgd), "it was trained with optim.optimizer sgd and holds sgd's state, and this "
                                            "run asks for adamw")):
        for script, module in ((str(root / "examples" / "train.py"), False), ("accelerated_seg.cli", True)):
            proc, imported = run_probing_imports(script, *(["train"] if module else []), "--config",
                                                 str(root / "configs" / "demo.yaml"),
                                                 f"--train.output_dir={tmp_path / 'run'}", "--resume", resume,
                                                 env=env, module=module)
            assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, (
                script, resume, proc.stderr[-2000:])
            assert imported == [] and not (tmp_path / "run").exists(), imported
    # --resume "" (an unset shell variable) started a fresh run before the twenty-ninth session
    proc = subprocess.run([sys.executable, str(root / "examples" / "train.py"),
                           "--config", str(root / "configs" / "demo.yaml"), f"--train.output_dir={tmp_path / 'run'}",
                           "--resume", ""],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "argument --resume: an empty path ''" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "run").exists()


def test_a_sharded_profile_that_cannot_take_effect_is_an_error_unless_fallback_is_allowed(
        tiny_config, tmp_path, monkeypatch, capsys):
    # What `accelerate launch --config_file configs/accelerate/fsdp.yaml` exports, on a machine without GPUs.
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    refused = tmp_path / "refused"
    with pytest.raises(Exception, match=r"asked for FSDP, which accelerate enables only on GPUs, so it is NOT in "
                                        r"effect.*, or set "
                                        r"train.allow_strategy_fallback=true \(fit: allow_strategy_fallback=True\) "
                                        r"to run anyway\.$"):
        train(tiny_config(refused, train__max_steps=1, train__val_every=0))
    assert not (refused / "checkpoints").exists()

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=1, train__val_every=0, train__allow_strategy_fallback="true"))
    assert "asked for FSDP, which accelerate enables only on GPUs, so it is NOT in effect" in capsys.readouterr().out
    info = json.loads((out / "run_info.json").read_text())
    assert "FSDP" in info["strategy_warning"] and "single process" in info["strategy"]


def test_a_deepspeed_profile_under_accelerate_use_cpu_says_it_fell_back_and_why(tiny_config, tmp_path, monkeypatch,
                                                                               capsys):
    """accelerate sets no DeepSpeed up under ACCELERATE_USE_CPU; the strategy line said "single process
    (MULTI_CPU)" (a launch of one process) and the warning blamed GPUs and the variable alike, though
    DeepSpeed runs on CPU processes without it (ninety-second session)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.strategy import fallback_warning, strategy_in_effect

    # What `ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/deepspeed_zero2.yaml` exports
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    # in its one process accelerate 1.15 runs MULTI_CPU, a gloo group of one rank whose model it wraps in DDP
    launched = SimpleNamespace(state=SimpleNamespace(distributed_type=DistributedType.MULTI_CPU, num_processes=1),
                               device="cpu:0", mixed_precision="no")
    assert strategy_in_effect(launched) == (
        "DDP (MULTI_CPU) on 1 process(es), device cpu:0, mixed precision no, in place of DeepSpeed, which "
        "accelerate does not set up under ACCELERATE_USE_CPU=true")
    # the strategy line after "asked for DeepSpeed, but it is NOT in effect" said "in place of DeepSpeed" again, and
    # why after what ran (until the ninety-third session): what was asked for, and why not, once
    assert fallback_warning(launched) == (
        "the accelerate config asked for DeepSpeed, which accelerate does not set up under ACCELERATE_USE_CPU=true, "
        "so it is NOT in effect: this run is DDP (MULTI_CPU) on 1 process(es), device cpu:0, mixed precision no, "
        "without the memory savings and sharded checkpoints of DeepSpeed. Launch without ACCELERATE_USE_CPU to run "
        "DeepSpeed on the CPU.")
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__save_every=2,
                      train__allow_strategy_fallback="true"))
    said = capsys.readouterr().out
    line = ("single process (NO) on 1 process(es), device cpu, mixed precision no, in place of DeepSpeed, which "
            "accelerate does not set up under ACCELERATE_USE_CPU=true")
    assert f"strategy: {line}\n" in said and "Launch without ACCELERATE_USE_CPU" in said
    assert json.loads((out / "run_info.json").read_text())["strategy"] == line
    assert json.loads((out / "checkpoints" / "step_2" / "strategy.json").read_text())["strategy"] == line


def test_processes_that_accelerate_did_not_join_are_refused(tiny_config, tmp_path, monkeypatch):
    # A GPU profile launched with 2 processes where there is no GPU: each process would run alone.
    # WORLD_SIZE=2 and LOCAL_RANK, as torchrun gives them; set here, accelerate would init a process group of 2
    # and wait for the other rank (tests/test_examples.py launches it for real)
    monkeypatch.setattr("accelerated_seg.strategy.launched_processes", lambda: 2)
    out = tmp_path / "run"
    with pytest.raises(Exception, match="ACCELERATE_USE_CPU=true"):
        train(tiny_config(out))
    assert not (out / "checkpoints").exists()


def test_a_clusters_world_size_around_a_plain_run_is_no_launch(tiny_config, tmp_path, monkeypatch):
    """Some clusters export WORLD_SIZE to every process of a job (launch_env): a plain ``python`` run
    there was refused as "2 processes were launched but accelerate joined 1", whereas accelerate
    itself (no LOCAL_RANK) rightly runs it as one process."""
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    out = tmp_path / "run"
    train(tiny_config(out))
    assert (out / "model" / "model.safetensors").is_file()


def test_accelerate_profiles_are_valid_config_files():
    from pathlib import Path

    from accelerate.commands.config.config_args import load_config_from_file

    profiles = sorted((Path(__file__).parents[1] / "configs" / "accelerate").glob("*.yaml"))
    assert {p.stem for p in profiles} >= {"cpu", "single_gpu", "ddp", "fsdp", "deepspeed_zero2"}
    for profile in profiles:
        config = load_config_from_file(str(profile))
        assert config.main_training_function == "main", profile


def test_gradient_accumulation_equals_the_larger_batch(tiny_config, tmp_path):
    # bias: false for the reason given in test_distributed.py (instance norm cancels conv biases).
    args = "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"
    common = dict(train__max_steps=3, train__val_every=0, train__save_every=0, model__args=args)
    train(tiny_config(tmp_path / "big", train__batch_size=4, **common))
    train(tiny_config(tmp_path / "accum", train__batch_size=2, train__grad_accum_steps=2, **common))
    big = load_file(tmp_path / "big" / "model" / "model.safetensors")
    accum = load_file(tmp_path / "accum" / "model" / "model.safetensors")
    for key in big:
        torch.testing.assert_close(accum[key], big[key], rtol=0, atol=1e-5, msg=f"{key} differs")


def test_bf16_autocast_from_the_accelerate_config_and_fp32_export(tiny_config, tmp_path, monkeypatch, capsys):
    from accelerated_seg import host_cpu

    # What `mixed_precision: bf16` in an accelerate config file exports to the launched process.
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    # On a CPU without bf16 instructions (an AVX2 EPYC's flags), whatever this host has.
    (tmp_path / "cpuinfo").write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n")
    monkeypatch.setattr(host_cpu, "CPUINFO", tmp_path / "cpuinfo")
    out = tmp_path / "run"
    summary = train(tiny_config(out, train__max_steps=2))
    assert "mixed precision bf16" in summary["strategy"]
    said = capsys.readouterr().out
    assert said.index("warning: bf16 on this CPU is emulated") < said.index("preprocessed cache")  # before data work
    weights = load_file(out / "model" / "model.safetensors")
    assert all(w.dtype == torch.float32 and torch.isfinite(w).all() for w in weights.values())


def test_run_info_versions_of_a_package_without_a_distribution(monkeypatch):
    """MONAI from a source tree on PYTHONPATH has no dist-info: importlib.metadata raised on the main
    process alone, which then stopped while the other ranks waited (the session's review)."""
    from importlib.metadata import PackageNotFoundError

    import monai

    import accelerated_seg.installed_versions as installed_versions

    def no_distribution(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(installed_versions, "version", no_distribution)
    assert installed_versions.installed_version("monai") == monai.__version__
    assert installed_versions.installed_version("not_imported_anywhere") is None


def test_the_strategy_line_says_how_fsdp_and_deepspeed_shard():
    """"FSDP (FSDP) on 2 process(es)" alone hid an FSDP1 profile of accelerate config's running
    FULL_SHARD, and "DeepSpeed (DEEPSPEED)" a typo'd zero_stage running ZeRO-2 (seventy-fifth session)."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType
    from torch.distributed.fsdp import ShardingStrategy

    from accelerated_seg.strategy import strategy_in_effect

    def line(distributed_type, **plugins):
        state = SimpleNamespace(distributed_type=distributed_type, num_processes=2, **plugins)
        return strategy_in_effect(SimpleNamespace(state=state, device="cuda:0", mixed_precision="bf16"))

    no_offload = SimpleNamespace(offload_params=False)
    fsdp2 = SimpleNamespace(fsdp_version=2, reshard_after_forward=True, cpu_offload=no_offload)
    assert line(DistributedType.FSDP, fsdp_plugin=fsdp2) == (
        "FSDP (FSDP) on 2 process(es), device cuda:0, mixed precision bf16, FSDP2, resharding after forward")
    fsdp1 = SimpleNamespace(fsdp_version=1, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP,
                            cpu_offload=SimpleNamespace(offload_params=True))
    assert line(DistributedType.FSDP, fsdp_plugin=fsdp1).endswith(
        ", FSDP1, SHARD_GRAD_OP, parameters offloaded to the CPU")
    zero = {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "none"}}
    deepspeed = SimpleNamespace(deepspeed_config={"zero_optimization": zero}, zero_stage=3)
    assert line(DistributedType.DEEPSPEED, deepspeed_plugin=deepspeed).endswith(
        "mixed precision bf16, ZeRO-3, optimizer offloaded to cpu")
    assert line(DistributedType.MULTI_GPU).endswith("mixed precision bf16")  # DDP: nothing sharded


def test_an_fsdp1_profile_of_accelerate_configs_shards_as_it_says(monkeypatch):
    """accelerate config writes FSDP1's strategy as fsdp_reshard_after_forward, and accelerate launch
    exports its FULL_SHARD default as FSDP_SHARDING_STRATEGY, which the plugin prefers."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin
    from torch.distributed.fsdp import ShardingStrategy

    from accelerated_seg.strategy import honour_fsdp1_sharding

    monkeypatch.setenv("FSDP_SHARDING_STRATEGY", "FULL_SHARD")  # as accelerate launch exports them
    monkeypatch.setenv("FSDP_RESHARD_AFTER_FORWARD", "shard_grad_op")
    plugin = FullyShardedDataParallelPlugin(fsdp_version=1)
    assert plugin.sharding_strategy == ShardingStrategy.FULL_SHARD  # accelerate 1.15's reading
    accelerator = SimpleNamespace(distributed_type=DistributedType.FSDP, state=SimpleNamespace(fsdp_plugin=plugin))
    assert honour_fsdp1_sharding(accelerator) == (
        "FSDP1 shards as the profile's fsdp_reshard_after_forward says (SHARD_GRAD_OP; accelerate launch would have "
        "run its FULL_SHARD default)")
    assert plugin.sharding_strategy == ShardingStrategy.SHARD_GRAD_OP
    assert honour_fsdp1_sharding(accelerator) is None  # as asked now
    monkeypatch.setenv("FSDP_RESHARD_AFTER_FORWARD", "true")  # the shipped profiles: fsdp_sharding_strategy decides
    plugin.sharding_strategy = ShardingStrategy.NO_SHARD
    assert honour_fsdp1_sharding(accelerator) is None and plugin.sharding_strategy == ShardingStrategy.NO_SHARD
    monkeypatch.setenv("FSDP_SHARDING_STRATEGY", "NO_SHARD")  # both keys, two strategies
    monkeypatch.setenv("FSDP_RESHARD_AFTER_FORWARD", "hybrid_shard")
    with pytest.raises(ConfigError, match="names two FSDP sharding strategies: fsdp_sharding_strategy NO_SHARD and "
                                          "fsdp_reshard_after_forward HYBRID_SHARD; keep one of them"):
        honour_fsdp1_sharding(accelerator)


def test_a_multi_cpu_profile_launched_without_mpirun_is_said_to_run_one_process(monkeypatch):
    """accelerate launch's simple launcher runs one process for distributed_type MULTI_CPU unless mpirun
    is configured; it trained one, saying "single process (NO) on 1 process(es)" and no more."""
    from types import SimpleNamespace

    from accelerated_seg.strategy import lone_process_warning

    alone = SimpleNamespace(num_processes=1)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    assert lone_process_warning(alone) is None  # a one-process profile: no MASTER_ADDR
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")  # set by the launcher for num_processes > 1
    assert lone_process_warning(alone).startswith("this launch runs ONE process, and MASTER_ADDR is set without "
                                                  "WORLD_SIZE, as accelerate launch sets it for a profile of several")
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert lone_process_warning(SimpleNamespace(num_processes=2)) is None  # torchrun's processes


def test_deepspeed_is_told_our_batch_accumulation_and_clipping():
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.strategy import configure_deepspeed

    # A DeepSpeed plugin as accelerate 1.15 builds it from the shipped profiles: every entry 'auto'.
    shipped = {key: "auto" for key in ("gradient_accumulation_steps", "gradient_clipping",
                                       "train_micro_batch_size_per_gpu", "train_batch_size")}
    plugin = SimpleNamespace(deepspeed_config={**shipped, "zero_optimization": {"stage": 3}})
    accelerator = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED, num_processes=4,
                                  state=SimpleNamespace(deepspeed_plugin=plugin))
    assert configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0) is None
    assert plugin.deepspeed_config == {"gradient_accumulation_steps": 3, "gradient_clipping": 12.0,
                                       "train_micro_batch_size_per_gpu": 2, "train_batch_size": 24,
                                       "zero_optimization": {"stage": 3, GATHER: True}}  # for the exports
    # A profile of the user's own (accelerate config asks for both) had them replaced without a word
    plugin.deepspeed_config = {**shipped, "gradient_accumulation_steps": 4, "gradient_clipping": 1.0}
    note = configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0)
    assert note == ("note: the experiment config decides DeepSpeed's batch and clipping, and the exports need whole "
                    "weights, so the accelerate profile's (or its DeepSpeed json's) values are replaced: "
                    "gradient_accumulation_steps 4 -> 3 (train.grad_accum_steps or "
                    "train.global_batch_size); gradient_clipping 1.0 -> 12.0 (optim.max_grad_norm). Set those "
                    "settings to change them")
    plugin.deepspeed_config = {**shipped, "gradient_accumulation_steps": 3, "gradient_clipping": 12}
    assert configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0) is None  # the same
    ddp = SimpleNamespace(distributed_type=DistributedType.MULTI_GPU, num_processes=4, state=SimpleNamespace())
    assert configure_deepspeed(ddp, 2, 3, 12.0) is None  # not DeepSpeed: nothing to do, nothing touched
    # accelerate config's default answer (zero3_save_16bit_model: false): the run trained, then every
    # export failed in get_state_dict (seventy-fifth session's probe)
    plugin.deepspeed_config = {**shipped, "zero_optimization": {"stage": 3, GATHER: False}}
    note = configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0)
    assert note.endswith(f"values are replaced: zero_optimization.{GATHER} False -> true (the exports model/ and "
                         f"best_model/ gather the whole network). Set those settings to change them")
    assert plugin.deepspeed_config["zero_optimization"][GATHER] is True
    # An older template's name for it: DeepSpeed refuses both names together, in deepspeed.initialize
    for old_value, note in ((True, None), (False, "False -> true")):
        plugin.deepspeed_config = {**shipped, "zero_optimization": {"stage": 3, GATHER_BEFORE: old_value}}
        said = configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0)
        assert said is None if note is None else f"{GATHER} {note}" in said
        assert plugin.deepspeed_config["zero_optimization"] == {"stage": 3, GATHER: True}
        zero_config = pytest.importorskip("deepspeed.runtime.zero.config")  # the test extra installs it
        assert zero_config.get_zero_config(plugin.deepspeed_config).gather_16bit_weights_on_model_save
    plugin.deepspeed_config = {**shipped, "zero_optimization": {"stage": 2, GATHER: False}}
    assert configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0) is None  # not ZeRO-3
    # An HF-style json's optimizer and schedule: a traceback at prepare, after the data work, before
    for blocks in ({"optimizer": {"type": "AdamW"}}, {"optimizer": {}, "scheduler": {"type": "WarmupLR"}}):
        plugin.deepspeed_config = {**shipped, **blocks}
        with pytest.raises(ConfigError, match=r"the DeepSpeed config \(the accelerate profile's deepspeed_config_file, "
                                              r"or its deepspeed_config\) has 'optimizer'.* block\(s\), but the "
                                              r"experiment config decides the optimizer and learning-rate schedule"):
            configure_deepspeed(accelerator, per_device=2, accum_steps=3, max_grad_norm=12.0)


GATHER = "stage3_gather_16bit_weights_on_model_save"
GATHER_BEFORE = "stage3_gather_fp16_weights_on_model_save"


def test_resume_under_another_strategy_is_refused_before_training(tiny_config, tmp_path, monkeypatch):
    """Refused before the cases are read and accelerate's prepare: after both, until the ninety-sixth
    session (a bf16 resume of an fp32 ZeRO-3 checkpoint, tests/test_deepspeed_cpu.py)."""
    import accelerate

    import accelerated_seg.configured_run as configured_run

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0))
    layout = out / "checkpoints" / "step_2" / "strategy.json"
    saved = json.loads(layout.read_text())
    assert saved["format"] == "full" and saved["num_processes"] == 1
    # As if written under ZeRO-3: DeepSpeed's partitioned files cannot load into this launch.
    layout.write_text(json.dumps({**saved, "format": "deepspeed", "zero_stage": 3, "strategy": "DeepSpeed"}))

    def too_late(*args, **kwargs):
        raise AssertionError("the cases were read, or the model prepared, before the refusal")

    monkeypatch.setattr(configured_run, "checked_data", too_late)
    monkeypatch.setattr(accelerate.Accelerator, "prepare", too_late)
    with pytest.raises(ConfigError, match=r"cannot resume .*format deepspeed -> full.*accelerated-seg export "
                                          r".*step_2 --output <folder>, then --train.init_from=<folder>"):
        train(tiny_config(out, train__max_steps=4, train__val_every=0, train__resume="latest"))
    assert [p.name for p in complete_checkpoints(out / "checkpoints")] == ["step_2"]  # nothing written


def _as_4d_decathlon(tiny_dataset, root, volumes=2):
    """The tiny dataset as the Decathlon's BrainTumour stores it: each case's channels in one
    (x, y, z, channel) file, dataset.json listing that one file and declaring the channels."""
    content = json.loads(tiny_dataset.read_text())
    for split in ("training", "validation"):
        for entry in content[split]:
            image = nib.load(tiny_dataset.parent / entry["image"])
            values = np.asanyarray(image.dataobj).astype(np.float32)
            stacked = np.stack([values * (1 + k) for k in range(volumes)], axis=-1)  # channel k: k+1 times
            entry["image"] = f"./imagesTr/{Path(entry['image']).name}"
            (root / "imagesTr").mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(stacked, image.affine), root / entry["image"])
            entry["label"] = str((tiny_dataset.parent / entry["label"]).resolve())
    content["modality"] = {"0": "T1", "1": "T2"}
    (root / "dataset.json").write_text(json.dumps(content))
    return root / "dataset.json"


def test_a_decathlon_dataset_of_4d_channel_files_trains_and_predicts_as_downloaded(tiny_config, tiny_dataset,
                                                                                   tmp_path):
    """MSD BrainTumour and Prostate keep a case's channels in one 4D file; the pre-flight asked for
    them to be split before the twenty-seventh session."""
    dataset = _as_4d_decathlon(tiny_dataset, tmp_path / "msd4d")
    out = tmp_path / "run"
    train(tiny_config(out, data__dataset=str(dataset), data__cache_dir=str(tmp_path / "cache"),
                      train__max_steps=2, train__val_every=2))
    config = json.loads((out / "model" / "config.json").read_text())
    assert config["in_channels"] == 2 and config["channels"] == {"0": "T1", "1": "T2"}
    case = json.loads(dataset.read_text())["validation"][0]
    scan = nib.load(dataset.parent / case["image"])
    written = predict_file(out / "model", dataset.parent / case["image"], tmp_path / "pred.nii.gz")
    prediction = nib.load(written)
    assert prediction.shape == scan.shape[:3]
    np.testing.assert_allclose(prediction.affine, scan.affine, atol=1e-5)
    # examples/train.py's report draws the first channel (matplotlib's TypeError on the 4D file, after
    # the training, until the seventy-seventh session's probe)
    from accelerated_seg.report import write_report

    cfg = tiny_config(out, data__dataset=str(dataset), data__cache_dir=str(tmp_path / "cache"))
    assert write_report(cfg).stat().st_size > 0
    # A file of another channel count is one error naming it, in training's pre-flight as in predict
    three = _as_4d_decathlon(tiny_dataset, tmp_path / "msd4d_3", volumes=3)
    with pytest.raises(DataError, match=r"shape \(\d+, \d+, \d+, 3\) is 4D with 3 volumes, but dataset.json "
                                        r"declares 2 channels"):
        train(tiny_config(tmp_path / "run3", data__dataset=str(three), data__cache_dir=str(tmp_path / "cache")))
    with pytest.raises(DataError, match=r"is 4D with 3 volumes, but the model takes 2 channels and this one file"):
        predict_file(out / "model", three.parent / case["image"], tmp_path / "pred3.nii.gz")


def test_a_run_refused_by_the_data_check_leaves_no_new_folder_behind(tiny_config, tiny_dataset, tmp_path):
    """train.output_dir=new/run, refused by the pre-flight checks, left new/ behind, empty (ninety-first
    session): the lock's folder went, not the parents it made for it. A folder that was there stays."""
    (tmp_path / "data").mkdir()
    two_classes = _described_anew(tiny_dataset, tmp_path / "data" / "two_classes.json",
                                  labels={"0": "background", "1": "a"})
    (tmp_path / "kept").mkdir()
    for out in (tmp_path / "new" / "parent" / "run", tmp_path / "kept" / "new" / "run"):
        with pytest.raises(DataError, match=r"label values \[2\] are not declared"):
            train(tiny_config(out, data__dataset=two_classes, data__cache_dir=tmp_path / "cache"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "kept"] and not any((tmp_path / "kept").iterdir())


def test_resume_with_another_network_is_refused_naming_the_difference(tiny_config, tmp_path, monkeypatch):
    """Other model.args than the run that wrote the checkpoint: PyTorch's 'size mismatch' traceback
    from inside accelerate's load_state before the twenty-seventh session; refused from the two configs
    before the data work since the sixtieth (resume_network_and_data.check_resume_model_settings)."""
    import accelerated_seg.configured_run as configured_run

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0))
    checked_data = configured_run.checked_data

    def no_data_work(*args):
        raise AssertionError("the cases were checked before the refusal")

    monkeypatch.setattr(configured_run, "checked_data", no_data_work)
    wider = "{channels: [4, 12, 16], strides: [2, 2], num_res_units: 1}"
    with pytest.raises(ConfigError, match=r"cannot resume from .*step_2: it holds another network than this run "
                                          r"builds \(.*: \(8, 4, 3, 3, 3\) saved, \(12, 4, 3, 3, 3\) here"
                                          r".*\(and \d+ more\)\)\. model.name, model.args.* resume with its "
                                          r"config \(.*step_2/config.yaml\)"):
        train(tiny_config(out, model__args=wider, train__max_steps=4, train__val_every=0, train__resume="latest"))
    assert [p.name for p in complete_checkpoints(out / "checkpoints")] == ["step_2"]  # nothing written
    monkeypatch.setattr(configured_run, "checked_data", checked_data)
    # The same network resumes (the check leaves a matching state to accelerate)
    assert train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume="latest"))["step"] == 3
    # An argument that keeps every shape may change on a resume, as any other setting may.
    same_shapes = "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, dropout: 0.1}"
    resumed = train(tiny_config(out, model__args=same_shapes, train__max_steps=4, train__val_every=0,
                                train__resume="latest"))
    assert resumed["step"] == 4


def test_the_early_network_check_of_a_resume_takes_channels_and_classes_named_in_model_args(tmp_path):
    """check_resume_model_settings builds both networks with placeholder channels and classes; ones
    that model.args names (as the data decides them) are taken instead, not refused as contradicting."""
    import yaml

    from accelerated_seg.resume_network_and_data import check_resume_model_settings

    args = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1, "out_channels": 3}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"model": {"name": "unet", "args": args},
                                                          "data": {"patch_size": [16, 16, 16]}}))
    check_resume_model_settings(tmp_path, "unet", (16, 16, 16), {**args, "dropout": 0.1})  # same shapes
    with pytest.raises(ConfigError, match=r"cannot resume from .*: it holds another network than this run builds "
                                          r"\(model.2.0.conv.weight: \(8, 3, 3, 3, 3\) saved, \(8, 4, 3, 3, 3\) here"):
        check_resume_model_settings(tmp_path, "unet", (16, 16, 16), {**args, "out_channels": 4})


def test_resume_with_fewer_steps_than_the_checkpoint_is_refused_and_at_its_step_trains_nothing(tiny_config, tmp_path,
                                                                                                 capsys):
    """Before the twenty-eighth session both ended silently, and the lower train.max_steps went into the
    run's config.yaml, which then said the run had trained 1 step when its checkpoint and export had 2."""
    out = tmp_path / "run"
    first = train(tiny_config(out, train__max_steps=2, train__val_every=0))
    config_yaml = (out / "config.yaml").read_text()
    with pytest.raises(ConfigError, match=r"step_2 is at step 2, beyond the 1 optimizer step this run asks for "
                                          r"\(train.max_steps\): .*cannot go back. Ask for more than 2 steps.* new "
                                          r"run from its weights: accelerated-seg export .*step_2 --output <folder>, "
                                          r"then --train.init_from=<folder>"):
        train(tiny_config(out, train__max_steps=1, train__val_every=0, train__resume="latest"))
    assert (out / "config.yaml").read_text() == config_yaml  # nothing of the refused run written
    capsys.readouterr()
    again = train(tiny_config(out, train__max_steps=2, train__val_every=0, train__resume="latest"))
    assert again["step"] == 2 and again["losses"] == first["losses"]  # the checkpoint's own: no step taken
    assert "at step 2, which is train.max_steps already: nothing to train" in capsys.readouterr().out
    assert [p.name for p in complete_checkpoints(out / "checkpoints")] == ["step_2"]
    # A shorter train.max_steps at the checkpoint's step of a longer run trains nothing either: no
    # learning-rate note of a schedule that "goes on" (it followed "nothing to train" before)
    longer = tmp_path / "longer"
    train(tiny_config(longer, train__max_steps=3, train__save_every=2, train__val_every=0))
    capsys.readouterr()
    train(tiny_config(longer, train__max_steps=2, train__val_every=0,
                      train__resume=str(longer / "checkpoints" / "step_2")))
    said = capsys.readouterr().out
    assert "nothing to train" in said and "the learning-rate schedule" not in said


def test_folds_the_datasets_own_split_overrides_are_a_warning_on_the_console(tiny_config, tmp_path, capsys):
    """The phantoms' dataset.json lists its validation cases: data.num_folds is not used, and every
    fold of a cross-validation would train on that split (said only in run_info.json before)."""
    train(tiny_config(tmp_path / "run", train__max_steps=1, train__val_every=0, data__num_folds=2, data__fold=1))
    assert ("warning: the split is given (dataset.json 'validation'; data.num_folds=2 not used): the dataset gives "
            "its own, so every data.fold trains on that one split") in capsys.readouterr().out


# What each file's check says: its reader's error, or, for the text files whose sizes the checkpoint
# records (YAML cut at a line's end still parses, as a shorter config), the size it should have.
CUT_SIZE = r"\d+ bytes where \d+ were written"


@pytest.mark.parametrize("damaged, reader, cut_at_line_end", [
    ("model.safetensors", "SafetensorError: (.|\n)*", False),
    ("optimizer.bin", "BadZipFile: (.|\n)*", False),
    ("random_states_0.pkl", "BadZipFile: (.|\n)*", False),
    ("strategy.json", "JSONDecodeError: (.|\n)*", False),
    ("config.yaml", f"(Scanner|Parser)Error: (.|\n)*|{CUT_SIZE}", False),
    ("config.yaml", CUT_SIZE, True),  # parses: before the thirty-fourth session it passed as a shorter config
    ("preprocessing.json", f"JSONDecodeError: (.|\n)*|{CUT_SIZE}", False)])
def test_resume_from_a_checkpoint_with_a_file_cut_short_is_refused_naming_it(tiny_config, tmp_path, damaged, reader,
                                                                             cut_at_line_end):
    """A file cut short after the save (an interrupted copy): each was its reader's traceback before the
    thirtieth session, and a cut random state was skipped by accelerate, the run resuming without it."""
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    path = out / "checkpoints" / "step_2" / damaged
    kept = path.read_bytes()[: path.stat().st_size // 2]
    path.write_bytes(kept[: kept.rindex(b"\n") + 1] if cut_at_line_end else kept)
    with pytest.raises(DataError, match=rf"checkpoint .*step_2 is damaged: {re.escape(damaged)} \(({reader})\)\. "
                                        rf"A checkpoint is saved whole.*--train.resume=.*step_1 "):
        train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume="latest"))
    earlier = out / "checkpoints" / "step_1"
    assert train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume=str(earlier)))["step"] == 3


def test_a_checkpoint_of_another_run_gone_before_it_is_loaded_is_said_to_be_gone(tiny_config, tiny_dataset, tmp_path,
                                                                                 monkeypatch, capsys):
    """A resume from another run's checkpoint (the run lock holds this run's folder, not that one) found it,
    checked it, and loaded it after the data work: that run, still training, may rotate it away (keep_last)
    in between. Until the ninety-second session, gone while its files were checked it "is damaged", gone
    after that accelerate's ValueError traceback ("Tried to find ... but folder does not exist"), gone
    while it was loaded a FileNotFoundError's. Nothing of the new run is left."""
    import accelerate.checkpointing

    import accelerated_seg.configured_run as configured_run
    from accelerated_seg import checkpoint_files, resume, resume_network_and_data
    from accelerated_seg.cli import main

    other = tmp_path / "other"
    train(tiny_config(other, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    rotating, kept, out = other / "checkpoints" / "step_1", tmp_path / "kept", tmp_path / "run"
    shutil.copytree(rotating, kept)
    gone = (f"train.resume={str(rotating)!r} was removed after the resume found it ({other / 'checkpoints'} holds "
            f"step_2; a run still training there removes older checkpoints as it saves, keeping the newest "
            f"train.keep_last): give one of them, or 'latest'")
    for module, name, before in ((checkpoint_files, "check_safetensors_header", True),  # while its files are checked
                                 (configured_run, "resume_or_replace", False),
                                 (configured_run, "check_resume_model_settings", False),
                                 # after the cases' checks
                                 (resume_network_and_data, "check_resume_preprocessing", True),
                                 (resume_network_and_data, "check_resume_split", False),
                                 (resume, "check_resume_network", False),
                                 (accelerate.checkpointing, "load_model", False)):  # loaded: weights, not the rest
        shutil.copytree(kept, rotating, dirs_exist_ok=True)
        with monkeypatch.context() as patched:
            folder_removed_at(patched, module, name, rotating, before)
            with pytest.raises(ConfigError) as refused:
                train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume=str(rotating)))
        assert str(refused.value) == gone, name
        assert not out.exists(), name  # nothing of the run: no run_info.json, config.yaml, checkpoint or lock
    # the command line's: one line, after the checks before the imports, once the data work is done
    shutil.copytree(kept, rotating)
    folder_removed_at(monkeypatch, configured_run, "checked_data", rotating)
    with pytest.raises(SystemExit) as ended:
        main(["train", *tiny_overrides(tiny_dataset, out, train__max_steps=3, train__val_every=0,
                                       train__resume=str(rotating))])
    assert (ended.value.code, capsys.readouterr().err.strip().splitlines()[-1]) == (2, f"error: {gone}")
    assert not out.exists()


def test_a_runs_own_checkpoint_deleted_while_it_is_loaded_is_said_to_be_gone_and_nothing_is_changed(tiny_config,
                                                                                                   tmp_path,
                                                                                                   monkeypatch):
    """The run lock keeps another run out of the folder, but a user may still delete the checkpoint that
    --train.resume=latest found: said as gone, with the run's files as they were (before the ninety-second
    session, a FileNotFoundError traceback of its optimizer.bin)."""
    import accelerate.checkpointing

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    deleted = out / "checkpoints" / "step_2"
    before = {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file() and deleted not in
              path.parents}
    folder_removed_at(monkeypatch, accelerate.checkpointing, "load_model", deleted)
    with pytest.raises(ConfigError, match=re.escape(f"train.resume={str(deleted)!r} was removed after the resume "
                                                    f"found it ({deleted.parent} holds step_1; a run still training")):
        train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume="latest"))
    assert {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()} == before


@pytest.mark.parametrize("strategy", ["FSDP", "DEEPSPEED", "MULTI_GPU"])
def test_a_checkpoint_gone_in_a_load_with_collectives_is_refused_on_its_rank_without_a_collective_of_ours(
        tmp_path, monkeypatch, strategy):
    """FSDP's and DeepSpeed's loads hold collectives (a barrier, broadcasts, gathers): a rank that found the
    checkpoint gone before one of them and waited in on_every_rank's gather, while the others waited in the
    load's, kept every rank waiting (ninety-second session's review). There it is refused on its rank alone,
    as the launcher then ends the rest; under DDP, whose load is each rank's own, every rank is told."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    import accelerated_seg.resume as resume
    from accelerated_seg.model_folders import Names

    gathered = []
    monkeypatch.setattr(resume, "on_every_rank", lambda work: gathered.append(work) or [work()])
    checkpoint = tmp_path / "checkpoints" / "step_1"  # not there: deleted while the load read it

    def load_state(accelerator, model, folder):
        raise FileNotFoundError(folder / "optimizer.bin")

    monkeypatch.setattr(resume, "load_state_also_of_wrapped_aliases", load_state)
    loop = SimpleNamespace(accelerator=SimpleNamespace(distributed_type=DistributedType[strategy]), model=None,
                           optimizer=None, names=Names())
    with pytest.raises(ConfigError, match=re.escape(f"train.resume={str(checkpoint)!r} was removed after the resume "
                                                    f"found it")):
        resume._load_state(loop, checkpoint)
    assert len(gathered) == (strategy == "MULTI_GPU")


def test_a_resume_goes_on_from_a_checkpoint_gone_once_loaded_with_what_it_read_of_it(tiny_config, tmp_path,
                                                                                    monkeypatch, capsys):
    """Once its state is loaded, the run no longer needs the checkpoint; but its length was read after, and
    a resume from a checkpoint rotated away then recorded in run_info.json no change of train.max_steps,
    nor said what that did to the schedule (until the ninety-second session)."""
    import accelerated_seg.resume as resume

    other = tmp_path / "other"
    train(tiny_config(other, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    rotating, out = other / "checkpoints" / "step_1", tmp_path / "run"
    folder_removed_at(monkeypatch, resume, "load_state_also_of_wrapped_aliases", rotating)
    assert train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume=str(rotating)))["step"] == 3
    [resumed] = json.loads((out / "run_info.json").read_text())["resumes"]
    assert resumed["settings_changed"]["train.max_steps"] == [2, 3]
    assert "train.max_steps 2 -> 3: the learning-rate schedule" in capsys.readouterr().out


def test_resume_under_another_split_is_refused_before_the_preprocessing(tmp_path):
    """A resume with another data.fold went on (seventy-first session's probe): fold 1's weights were
    validated on cases they had trained on, the held-out Dice rose 0.758 -> 0.815, and one metrics
    curve and best_model mixed two validation sets. The checkpoint records its split now."""
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=6, num_validation=0, seed=0,
                                      size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    out = tmp_path / "run"

    def config(fold, **extra):
        return load_config(None, tiny_overrides(dataset, out, data__num_folds=3, data__fold=fold, **extra))

    train(config(0, train__max_steps=2))
    saved = json.loads((out / "checkpoints" / "step_2" / "split.json").read_text())
    assert saved["how"].startswith("fold 0 of 3") and len(saved["training"]) == 4 and len(saved["validation"]) == 2
    run_info = (out / "run_info.json").read_text()
    with pytest.raises(ConfigError, match=r"cannot resume from .*step_2: it was validated on other cases than this "
                                          r"run would be \(fold 0 of 3.* there, fold 1 of 3.* here: 2 validation "
                                          r"case\(s\) of this run that its weights trained on \(case_\d+, case_\d+\); "
                                          r"2 case\(s\) it validated on that this run does not "
                                          r".*data.fold.*config.yaml"):
        train(config(1, train__max_steps=3, train__resume="latest"))
    assert (out / "run_info.json").read_text() == run_info and not (out / "checkpoints" / "step_3").exists()
    assert train(config(0, train__max_steps=3, train__resume="latest"))["step"] == 3  # the same split resumes


def test_the_split_of_a_checkpoint_from_before_split_json_is_read_from_its_own_run_folder(tmp_path):
    """Read from the folder the resumed run trains into, a checkpoint of another run was compared with
    that folder's split, and one into a new folder not at all (seventy-first session's probe)."""
    from accelerated_seg.resume_network_and_data import check_resume_split

    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    assert check_resume_split(checkpoint, {"training": ["a"], "validation": ["b"]}) is None  # nothing recorded
    (tmp_path / "run" / "run_info.json").write_text(json.dumps(
        {"split": {"how": "fraction 0.2 (seed 0)", "training": ["a", "b"], "validation": ["c"]}}))
    with pytest.raises(ConfigError, match=r"1 validation case\(s\) of this run that its weights trained on \(b\); "
                                          r"1 case\(s\) it validated on that this run does not \(c\)"):
        check_resume_split(checkpoint, {"how": "fraction 0.2 (seed 1)", "training": ["a", "c"], "validation": ["b"]})
    # The same held-out cases, more to train on: a warning, as for any other changed setting.
    warning = check_resume_split(checkpoint, {"training": ["a", "b", "d"], "validation": ["c"]})
    assert warning.startswith("warning: resuming") and "1 added (d)" in warning and "left out" not in warning


def test_a_resume_whose_seeded_split_kept_apart_cases_sharing_an_image_is_told_why_and_what_to_give(tmp_path):
    """A run from before the seeded split kept cases that share an image together (its split differs from the
    one its settings make now) was told to "resume with the split that wrote it", which no setting makes any more
    (a review of the hundred-and-fifth session): the refusal says why and to give that split as the source's own."""
    from accelerated_seg.checkpoint import SPLIT_FILE
    from accelerated_seg.data.cases import Case
    from types import SimpleNamespace

    from accelerated_seg.data.cases import Manifest
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.data.splits import SplitSettings, cases_sharing_an_image, reject_duplicate_cases
    from accelerated_seg.model_folders import Names
    from accelerated_seg.resume_network_and_data import check_resume_data, check_resume_split

    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    (checkpoint / SPLIT_FILE).write_text(json.dumps(
        {"how": "fraction 0.5 (seed 0)", "training": ["s1", "s2"], "validation": ["s0_a", "s0_b"]}))
    # seed 0: the case-by-case split of before the grouping kept s0_a and s0_b on one side, as a run's had to:
    # reject_duplicate_cases refused one scan on both sides from 2026-11-26, before split.json was written. Seed 3's
    # split them apart, which no run saved, and its advice, followed, was refused as that leak
    now = {"how": "fraction 0.5 (seed 0)", "training": ["s1"], "validation": ["s0_a", "s0_b", "s2"]}
    cases = [Case(id=name, images=(tmp_path / image,), label=tmp_path / f"{name}_seg.nii.gz")
             for name, image in (("s0_a", "s0.nii.gz"), ("s1", "s1.nii.gz"), ("s0_b", "s0.nii.gz"), ("s2", "s2.nii.gz"))]
    with pytest.raises(ConfigError) as refused:
        check_resume_split(checkpoint, now, cases=cases, given_as="a 'validation' list in dataset.json")
    said = str(refused.value)
    assert ("The split settings, cases and their order are the same: since the hundred-and-fifth session the seeded "
            "split keeps cases that share an image file together (2 here: s0_a, s0_b), where it split them one by "
            "one before, so no setting makes the split that wrote it again. Resume with that split given as a "
            f"'validation' list in dataset.json: the 2 validation case(s) {checkpoint / SPLIT_FILE} records (s0_a, "
            "s0_b), or start this split as a new run") in said
    assert "Resume with the split that wrote it" not in said
    # without the cases, nothing blames the grouping; with other settings, they are the way
    with pytest.raises(ConfigError, match="but split otherwise: listed in another order than when it was saved"):
        check_resume_split(checkpoint, now)
    with pytest.raises(ConfigError, match="Resume with the split that wrote it"):
        check_resume_split(checkpoint, {**now, "how": "fraction 0.5 (seed 1)"}, cases=cases)
    # followed: the saved split given back as the source's own passes the leak check and resumes
    reject_duplicate_cases([cases[1], cases[3]], [cases[0], cases[2]], tmp_path / "dataset.json")
    assert check_resume_split(checkpoint, {"how": "given (dataset.json 'validation')", "training": ["s1", "s2"],
                                           "validation": ["s0_a", "s0_b"]}, cases=cases) is None
    assert [case.id for case in cases_sharing_an_image(cases)] == ["s0_a", "s0_b"]
    assert cases_sharing_an_image(cases[:2]) == []
    # as a resume meets it: this run's split, of a datalist.json, and the way on in its words
    training, validation, how = SplitSettings(validation_fraction=0.5, seed=0).split(cases)
    assert how == "fraction 0.5 (seed 0)" and {"s0_a", "s0_b"} <= {case.id for case in training + validation}
    manifest = Manifest(root=tmp_path, labels={0: "background", 1: "a"}, channels={0: "image"}, training=training,
                        validation=validation, split=how, source_file=tmp_path / "datalist.json")
    with pytest.raises(ConfigError, match=r"\(2 here: s0_a, s0_b\), .* Resume with that split given as a 'validation' "
                                          r"list in datalist.json: the 2 validation case\(s\)"):
        check_resume_data(SimpleNamespace(print=print), checkpoint, PreprocessSettings(), manifest, tmp_path / "new",
                          Names())


@pytest.mark.parametrize("source_format, given_as", [
    ("from_files", "validation_pairs to Dataset.from_files"), ("pairs", "validation_pairs to from_pairs"),
    ("load_cases", "validation_pairs to from_pairs, in place of load_cases"),
    ("csv", "the CSV's 'split' column ('validation' on those cases' rows, 'train' on the others)"),
    ("msd", "a 'validation' list in dataset.json")])
def test_a_resume_split_apart_before_the_grouping_is_told_the_way_of_its_own_source(tmp_path, source_format, given_as):
    """Pairs (Dataset.from_files, from_pairs) were told to give the saved split as "a 'validation' list in the
    dataset's JSON", a file they never had (a review of the hundred-and-fifth session): their validation_pairs."""
    from types import SimpleNamespace

    from accelerated_seg.checkpoint import SPLIT_FILE
    from accelerated_seg.data.cases import Case, Manifest
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.data.splits import SplitSettings
    from accelerated_seg.model_folders import Names
    from accelerated_seg.resume_network_and_data import check_resume_data

    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    (checkpoint / SPLIT_FILE).write_text(json.dumps(
        {"how": "fraction 0.5 (seed 0)", "training": ["s1", "s2"], "validation": ["s0_a", "s0_b"]}))
    cases = [Case(id=name, images=(tmp_path / image,), label=tmp_path / f"{name}_seg.nii.gz")
             for name, image in (("s0_a", "s0.nii.gz"), ("s1", "s1.nii.gz"), ("s0_b", "s0.nii.gz"), ("s2", "s2.nii.gz"))]
    training, validation, how = SplitSettings(validation_fraction=0.5, seed=0).split(cases)
    source_file = tmp_path / "dataset.json" if source_format == "msd" else None
    manifest = Manifest(root=tmp_path, labels={0: "background", 1: "a"}, channels={0: "image"}, training=training,
                        validation=validation, split=how, source_file=source_file, source_format=source_format)
    with pytest.raises(ConfigError) as refused:
        check_resume_data(SimpleNamespace(print=print), checkpoint, PreprocessSettings(), manifest, tmp_path / "new",
                          Names())
    assert f"Resume with that split given as {given_as}" in str(refused.value)
    assert "'validation' list in" not in str(refused.value) or source_format == "msd"


def test_a_split_recorded_as_dataset_json_resumes_under_its_files_name(tmp_path):
    """Manifest.split called every JSON "dataset.json" until the ninetieth session, and names the file given now
    ("datalist.json"): a run recorded in the old words resumes, the cases, not the words, being compared."""
    from accelerated_seg.checkpoint import SPLIT_FILE
    from accelerated_seg.resume_network_and_data import check_resume_split

    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    cases = {"training": ["a", "b"], "validation": ["c"]}
    (checkpoint / SPLIT_FILE).write_text(json.dumps({"how": "given (dataset.json 'validation')", **cases}))
    assert check_resume_split(checkpoint, {"how": "given (datalist.json 'validation')", **cases}) is None


def test_a_case_is_the_same_case_by_its_id_or_by_its_label_file(tmp_path):
    """Ids named after their folders (site1_p104_label) change when cases of another folder join: a
    resume that only added training cases was refused (seventy-first session's probe). Files change
    when the dataset moves, ids do not."""
    from accelerated_seg.checkpoint import SPLIT_FILE
    from accelerated_seg.resume_network_and_data import check_resume_split

    checkpoint = tmp_path / "run" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    (checkpoint / SPLIT_FILE).write_text(json.dumps(
        {"how": "given", "training": ["p100_label", "p101_label"], "validation": ["p104_label"],
         "labels": {"training": ["/d/site1/p100/label.nii.gz", "/d/site1/p101/label.nii.gz"],
                    "validation": ["/d/site1/p104/label.nii.gz"]}}))
    grown = {"how": "given", "training": ["site1_p100_label", "site1_p101_label", "site2_p200_label"],
             "validation": ["site1_p104_label"],
             "labels": {"training": ["/d/site1/p100/label.nii.gz", "/d/site1/p101/label.nii.gz",
                                     "/d/site2/p200/label.nii.gz"], "validation": ["/d/site1/p104/label.nii.gz"]}}
    warning = check_resume_split(checkpoint, grown)
    assert "1 added (site2_p200_label)" in warning and "left out" not in warning
    moved = {"how": "given", "training": ["p100_label", "p101_label"], "validation": ["p104_label"],
             "labels": {"training": ["/e/site1/p100/label.nii.gz", "/e/site1/p101/label.nii.gz"],
                        "validation": ["/e/site1/p104/label.nii.gz"]}}
    assert check_resume_split(checkpoint, moved) is None
    swapped = {**grown, "training": ["site1_p104_label", "site1_p101_label"], "validation": ["site1_p100_label"],
               "labels": {"training": ["/d/site1/p104/label.nii.gz", "/d/site1/p101/label.nii.gz"],
                          "validation": ["/d/site1/p100/label.nii.gz"]}}
    with pytest.raises(ConfigError, match=r"1 validation case\(s\) of this run that its weights trained on "
                                          r"\(site1_p100_label\); 1 case\(s\) it validated on that this run does "
                                          r"not \(p104_label\)"):
        check_resume_split(checkpoint, swapped)


def test_resume_from_a_checkpoint_with_a_state_file_deleted_is_refused_naming_it(tiny_config, tmp_path):
    """A state file deleted after the save (to make room, or left out of a copy): the weights, optimizer and
    progress were accelerate's FileNotFoundError or "Number of custom checkpoints ... does not match" after
    the data work, and a missing random state was skipped without a word. An export needs the weights alone."""
    from accelerated_seg.checkpoint_export import export_checkpoint

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    for name in ("model.safetensors", "optimizer.bin", "custom_checkpoint_0.pkl", "custom_checkpoint_1.pkl",
                 "random_states_0.pkl"):
        copy = tmp_path / f"without_{name}"
        shutil.copytree(out, copy)
        shutil.rmtree(copy / "cache", ignore_errors=True)
        (copy / "checkpoints" / "step_2" / name).unlink()
        with pytest.raises(DataError, match=rf"step_2 is damaged: {re.escape(name)} \(missing; \d+ bytes were "
                                            rf"written\)\. .*deleted afterwards.*--train.resume=.*step_1 "):
            train(tiny_config(copy, train__max_steps=3, train__val_every=0, train__resume="latest"))
    export_checkpoint(tmp_path / "without_optimizer.bin" / "checkpoints" / "step_2", tmp_path / "export")
    assert (tmp_path / "export" / "model.safetensors").is_file()


def test_every_ranks_random_states_are_expected_where_the_checkpoint_recorded_its_state(tmp_path, monkeypatch):
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    monkeypatch.setenv("LOCAL_RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")  # resumed by as many processes as wrote it

    step = tmp_path / "checkpoints" / "step_1"
    step.mkdir(parents=True)
    torch.save({}, step / "random_states_0.pkl")
    size = (step / "random_states_0.pkl").stat().st_size
    (step / "strategy.json").write_text(json.dumps({"format": "full", "num_processes": 2}))  # recorded no state
    check_checkpoint_files(step, whole_state=True)
    (step / "strategy.json").write_text(json.dumps({"format": "full", "num_processes": 2,
                                                    "state_bytes": {"random_states_0.pkl": size}}))
    check_checkpoint_files(step, for_export=True)  # an export reads the weights alone
    with pytest.raises(DataError, match=r"random_states_1.pkl \(missing; rank 1 wrote it\)"):
        check_checkpoint_files(step, whole_state=True)
    monkeypatch.delenv("WORLD_SIZE")  # one process reads random_states_0.pkl alone (accelerate's load_state)
    check_checkpoint_files(step, whole_state=True)
    monkeypatch.setenv("WORLD_SIZE", "2")
    torch.save({}, step / "random_states_1.pkl")
    check_checkpoint_files(step, whole_state=True)


def test_text_file_sizes_are_checked_only_where_the_checkpoint_recorded_them(tmp_path):
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    step = tmp_path / "checkpoints" / "step_1"
    step.mkdir(parents=True)
    (step / "config.yaml").write_text("train:\n  max_steps: 2\n")
    (step / "strategy.json").write_text(json.dumps({"format": "full"}))  # saved before sizes were recorded
    check_checkpoint_files(step)
    (step / "strategy.json").write_text(json.dumps({"format": "full", "file_bytes": {"config.yaml": 99}}))
    with pytest.raises(DataError, match=r"config.yaml \(22 bytes where 99 were written\)"):
        check_checkpoint_files(step)
    (step / "config.yaml").unlink()
    with pytest.raises(DataError, match=r"config.yaml \(missing; 99 bytes were written\)"):
        check_checkpoint_files(step)


def test_a_damaged_checkpoint_names_the_one_before_it_by_step_else_a_later_one(tmp_path):
    """An older checkpoint named and damaged (resuming from step_2 while step_4 exists) was told to resume
    from "the checkpoint before it, --train.resume=...step_4": the newest other one, a later checkpoint."""
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    checkpoints = tmp_path / "checkpoints"
    for step in (1, 2, 4, 10):  # step_10 before step_4 by name, after it by step
        (checkpoints / f"step_{step}").mkdir(parents=True)
    (checkpoints / "step_4" / "model.safetensors").write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{")  # cut short
    with pytest.raises(DataError, match=re.escape(f"resume from the checkpoint before it, --train.resume="
                                                  f"{checkpoints / 'step_2'} (resume= in fit)") + "$"):
        check_checkpoint_files(checkpoints / "step_4", whole_state=True)
    with pytest.raises(DataError, match=re.escape(f"or export the checkpoint before it, {checkpoints / 'step_2'}")
                       + "$"):
        check_checkpoint_files(checkpoints / "step_4", for_export=True)
    # Only later ones: the nearest named as what it is, after copying the damaged one again.
    (checkpoints / "step_2" / "model.safetensors").write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{")
    shutil.rmtree(checkpoints / "step_1")
    with pytest.raises(DataError, match=re.escape(f"copy it again from where it was written, or resume from a later "
                                                  f"checkpoint of the run, --train.resume={checkpoints / 'step_4'} "
                                                  f"(resume= in fit)") + "$"):
        check_checkpoint_files(checkpoints / "step_2", whole_state=True)
    with pytest.raises(DataError, match=re.escape(f"copy it again from where it was written, or export a later "
                                                  f"checkpoint of the run, {checkpoints / 'step_4'}") + "$"):
        check_checkpoint_files(checkpoints / "step_2", for_export=True)


def test_a_checkpoints_config_yaml_that_does_not_parse_is_named_in_one_line_with_the_place(tmp_path):
    """PyYAML's own text is several lines, quoting the file with a caret under the place: the damaged
    checkpoint's one error ran over five lines until the ninety-first session (an audit's probe)."""
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    step = tmp_path / "checkpoints" / "step_2"
    step.mkdir(parents=True)
    (step / "config.yaml").write_text("train:\n  max_steps: 4\n  global\n")  # cut inside a key
    with pytest.raises(DataError) as refused:
        check_checkpoint_files(step, whole_state=True)
    said = str(refused.value)
    assert "\n" not in said, said
    assert said.startswith(f"checkpoint {step} is damaged: config.yaml (ScannerError: could not find expected ':' "
                           f"at line 4, column 1). A checkpoint is saved whole"), said


def test_weights_of_older_preprocessing_code_are_refused_to_resume_and_named_to_predict_and_fine_tune(
        tiny_config, tmp_path, capsys):
    """The preprocessing code's version reached the cache's fingerprint alone: a checkpoint trained on
    volumes that older code prepared otherwise (the qform, before the sform placed the voxels) resumed
    on the new code's volumes without a word (seventy-sixth session's probe). Checkpoints and exports
    written before the version was recorded are not compared."""
    import warnings

    from accelerated_seg.data.preprocess_settings import CODE_VERSION_KEY, PREPROCESS_CHANGES, PREPROCESS_VERSION
    from accelerated_seg.ensemble import load_for_prediction

    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0))
    older = PREPROCESS_VERSION - 1
    since = f"{PREPROCESS_VERSION}: {PREPROCESS_CHANGES[PREPROCESS_VERSION]}"
    for path in (out / "model" / "config.json", out / "checkpoints" / "step_2" / "export.json"):
        written = path.read_text()  # the same number of bytes: the checkpoint's own record of its files holds
        assert json.loads(written)[CODE_VERSION_KEY] == PREPROCESS_VERSION
        path.write_text(written.replace(f'"{CODE_VERSION_KEY}": {PREPROCESS_VERSION}',
                                        f'"{CODE_VERSION_KEY}": {older}'))
    with pytest.warns(UserWarning, match=rf"model: its weights learned from volumes prepared otherwise than predict "
                                         rf"prepares them now \(the preprocessing code: version {older} there, "
                                         rf"{PREPROCESS_VERSION} here \({since}\)\): retrain it"):
        load_for_prediction(out / "model")
    capsys.readouterr()
    train(tiny_config(tmp_path / "tuned", train__init_from=str(out / "model"), train__max_steps=1, train__val_every=0))
    said = capsys.readouterr().out
    assert f"prepared otherwise than this run's (the preprocessing code: version {older} there" in said
    assert ("fine-tuning goes on under this run's, whose preprocessing code the fine-tuning adapts the weights "
            "to.") in said
    assert "set those data settings" not in said  # no setting brings the older code back
    with pytest.raises(ConfigError, match=rf"cannot resume from .*step_2: its weights were trained on volumes "
                                          rf"preprocessed otherwise \(the preprocessing code: version {older} saved, "
                                          rf"{PREPROCESS_VERSION} here \({since}\)\)\. Resume with the "
                                          rf"accelerated_seg version that wrote it \(commit [0-9a-f]{{40}}.*\), or "
                                          rf"train these weights on"):
        train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume="latest"))
    # as written before the version was recorded: not compared
    written = json.loads((out / "model" / "config.json").read_text())
    (out / "model" / "config.json").write_text(json.dumps({key: value for key, value in written.items()
                                                           if key != CODE_VERSION_KEY}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_for_prediction(out / "model")
    older_checkpoint = tmp_path / "older_checkpoint"
    older_checkpoint.mkdir()
    for name in ("preprocessing.json", "export.json"):
        written = json.loads((out / "checkpoints" / "step_2" / name).read_text())
        written.pop(CODE_VERSION_KEY, None)
        (older_checkpoint / name).write_text(json.dumps(written))
    check_resume_preprocessing(older_checkpoint, json.loads((older_checkpoint / "preprocessing.json").read_text()),
                               out)


def test_a_resume_that_binarizes_otherwise_names_false_not_none(tmp_path):
    """PreprocessSettings.to_dict leaves binarize out unless it is set, and a resume with data.binarize
    given or dropped was refused with "binarize: None saved, True here" (ninety-second session's README
    audit): absent is false."""
    settings = {"spacing": [3.0, 3.0, 3.0], "normalization": "zscore", "ct_window": [-1000.0, 1000.0],
                "crop_foreground": True, "label_map": None}
    (tmp_path / "step_2").mkdir()
    for saved, here, difference in ((settings, {**settings, "binarize": True}, "binarize: False saved, True here"),
                                    ({**settings, "binarize": True}, settings, "binarize: True saved, False here")):
        (tmp_path / "step_2" / "preprocessing.json").write_text(json.dumps(saved))
        with pytest.raises(ConfigError, match=rf"preprocessed otherwise \({difference}\)\. Resume with"):
            check_resume_preprocessing(tmp_path / "step_2", here, tmp_path)
    check_resume_preprocessing(tmp_path / "step_2", {**settings, "binarize": True}, tmp_path)


def test_a_run_resumed_in_its_moved_project_lists_no_changed_paths(tiny_dataset, tmp_path, capsys):
    """A project copied elsewhere (a cluster's scratch, another mount) and resumed there: its saved
    config names the old project's dataset, cache and run folder, and each was listed as changed."""
    def settings(project: Path, **extra) -> list[str]:
        return tiny_overrides(project / "data" / "dataset.json", project / "output" / "run", train__val_every=0,
                              **extra)

    project = tmp_path / "home" / "project"
    shutil.copytree(tiny_dataset.parent, project / "data")
    train(load_config(None, settings(project, train__max_steps=2)))
    moved = tmp_path / "scratch" / "project"
    moved.parent.mkdir()
    project.rename(moved)
    capsys.readouterr()
    train(load_config(None, settings(moved, train__max_steps=3, train__resume="latest")))
    said = capsys.readouterr().out
    assert (f"{moved}/output/run/checkpoints/step_2's run was written in {project}/output/run, which is "
            f"{moved}/output/run here") in said
    assert "resuming with settings other than" not in said and f"resumed from {moved}/output/run" in said


def test_resume_under_other_preprocessing_is_refused_and_other_settings_are_listed(tiny_config, tmp_path, capsys):
    """Before the twenty-ninth session a run resumed with another normalization (or spacing, crop, label
    mapping) trained its weights on differently prepared volumes, and a resume at max_steps rewrote the
    export's config.json with preprocessing its weights had never seen: predict then prepared scans so."""
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=0))
    export = (out / "model" / "config.json").read_text()
    saved = json.loads((out / "checkpoints" / "step_2" / "preprocessing.json").read_text())
    assert saved["normalization"] == "zscore" and saved["crop_foreground"] is True and len(saved["spacing"]) == 3
    cache = Path(tiny_config(out).data.cache_dir)
    cache_entries = sorted(cache.rglob("*"))
    for setting, difference in (("data__normalization", r"crop_foreground: True saved, False here; normalization: "
                                                         r"zscore saved, ct here"),
                                ("data__spacing", r"spacing: \[.*\] saved, \[3.0, 3.0, 3.0\] here")):
        value = "ct" if setting == "data__normalization" else "[3, 3, 3]"
        with pytest.raises(ConfigError, match=rf"cannot resume from .*step_2: its weights were trained on volumes "
                                              rf"preprocessed otherwise \({difference}\)\. Resume with .*config.yaml.*"
                                              rf"--train.init_from=.*model in another train.output_dir"):
            train(tiny_config(out, train__max_steps=2, train__val_every=0, train__resume="latest", **{setting: value}))
    assert (out / "model" / "config.json").read_text() == export
    assert sorted(cache.rglob("*")) == cache_entries  # refused before any volume was preprocessed
    capsys.readouterr()
    train(tiny_config(out, train__max_steps=3, train__val_every=0, train__resume="latest", optim__lr="0.002"))
    said = capsys.readouterr().out
    assert "resuming with settings other than" in said and "optim.lr 0.001 -> 0.002" in said
    assert "max_steps" not in said.split("resuming with settings other than")[1].splitlines()[0]
    train(tiny_config(out, train__max_steps=4, train__val_every=0, train__resume="latest", optim__lr="0.002"))
    said = capsys.readouterr().out
    assert "resuming with settings other than" not in said  # resumed as it was written, but longer:
    # the schedule is recomputed over the new length, and the rate jumps (without a word before the
    # seventy-fourth session): step 4 (index 3) at 0.002 along 4 steps, not along the 3 saved
    optim = tiny_config(out).optim
    assert (f"train.max_steps 3 -> 4: the learning-rate schedule (cosine, after {optim.warmup_steps} warm-up steps) "
            f"now decays over 4 steps, so training goes on at a rate of {0.002 * lr_multiplier(3, optim, 4):.3g} where "
            f"the checkpoint's own schedule gives {0.002 * lr_multiplier(3, optim, 3):.3g}") in said
    train(tiny_config(out, train__max_steps=5, train__val_every=0, train__resume="latest", optim__lr="0.002"))
    assert "train.max_steps 4 -> 5" in capsys.readouterr().out
    train(tiny_config(out, train__max_steps=5, train__val_every=0, train__resume="latest", optim__lr="0.002"))
    assert "the learning-rate schedule" not in capsys.readouterr().out  # the length it was written with: nothing


def test_counts_of_one_are_said_in_the_singular(tiny_config):
    """"after 1 warm-up steps", "the first 1 steps", "warmed up over 1 steps" (ninety-second session's
    audit of the README's train)."""
    from accelerated_seg.resume_config_changes import another_length_note
    from accelerated_seg.wording import counted

    assert [counted(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    assert counted(1, "process", "processes") == "1 process" and counted(3, "patch", "patches") == "3 patches"
    note = another_length_note(2, tiny_config(train__max_steps=1, optim__warmup_steps=1), 0.001, 0)  # saved: 2
    assert note.startswith("train.max_steps 2 -> 1: the learning-rate schedule (cosine, after 1 warm-up step) now "
                           "decays over 1 step, ")


def test_a_longer_run_resumed_inside_its_warm_up_says_the_rate_is_the_same(tiny_config, tmp_path):
    """Within the warm-up the rate does not depend on the length: the note read "a rate of 0.00055
    where the checkpoint's own schedule gives 0.00055" (seventy-fifth session's probe); without decay
    (min_lr_ratio 1) the length changes nothing, and nothing is said."""
    from accelerated_seg.resume_config_changes import another_length_note, saved_max_steps

    checkpoint = tmp_path / "step_10"
    checkpoint.mkdir()
    (checkpoint / "config.yaml").write_text("train:\n  max_steps: 10\n")
    cfg = tiny_config(train__max_steps=12, optim__warmup_steps=20)
    assert another_length_note(saved_max_steps(checkpoint), cfg, 0.001, 10) == (
        "train.max_steps 10 -> 12: the learning-rate schedule (cosine, after 20 warm-up steps) now decays over 12 "
        "steps, not 10; at step 10 both are still warming up, at a rate of 0.00055")
    undecayed = tiny_config(train__max_steps=12, optim__min_lr_ratio=1.0)
    assert another_length_note(10, undecayed, 0.001, 10) is None
    # resumed where the warm-up ends, both schedules are at their peak: "a rate of 0.002 where the checkpoint's own
    # schedule gives 0.002" (a resume of docs/checkpoints.md's, run in the ninety-third session)
    ending = tiny_config(train__max_steps=3, optim__warmup_steps=2)
    assert another_length_note(2, ending, 0.002, 2) == (
        "train.max_steps 2 -> 3: the learning-rate schedule (cosine, after 2 warm-up steps) now decays over 3 steps, "
        "not 2; at step 2, where the warm-up ends, both give a rate of 0.002, and this run's decays from there")


def test_resume_rules_between_layouts():
    from accelerated_seg.strategy import resume_conflict

    full = {"format": "full", "strategy": "single process", "num_processes": 1}
    ddp = {"format": "full", "strategy": "DDP", "num_processes": 2}
    fsdp = {"format": "fsdp", "strategy": "FSDP", "num_processes": 2, "fsdp_version": 2,
            "state_dict_type": "SHARDED_STATE_DICT"}
    zero2 = {"format": "deepspeed", "strategy": "DeepSpeed", "num_processes": 2, "zero_stage": 2, "bf16": False}
    assert resume_conflict(ddp, ddp) == (None, None)
    error, warning = resume_conflict(full, ddp)  # loads; the per-rank RNG states no longer match
    assert error is None and "1 -> 2 processes" in warning
    assert resume_conflict(fsdp, ddp)[0] and resume_conflict(ddp, fsdp)[0]
    assert "state_dict_type" in resume_conflict({**fsdp, "state_dict_type": "FULL_STATE_DICT"}, fsdp)[0]
    assert "zero_stage 2 -> 3" in resume_conflict(zero2, {**zero2, "zero_stage": 3})[0]
    assert "num_processes 2 -> 4" in resume_conflict(zero2, {**zero2, "num_processes": 4})[0]
    # DeepSpeed's bf16 optimizer files have other names: FileNotFoundError on every rank before
    assert "bf16 False -> True" in resume_conflict(zero2, {**zero2, "bf16": True})[0]
    assert resume_conflict({**zero2, "bf16": True}, zero2)[0]
    # Another precision: said (it was silent until the eighty-fourth session); fp16 from a checkpoint of
    # another precision, which holds no loss scale for accelerate's load_state to read, refused
    fp32, bf16, fp16 = ({**ddp, "mixed_precision": mixed} for mixed in ("no", "bf16", "fp16"))
    assert resume_conflict(fp32, bf16) == (None, "it was saved by DDP, this launch runs DDP: mixed precision "
                                                 "no -> bf16; training continues, but not exactly as the "
                                                 "original launch would have")
    assert "1 -> 2 processes, mixed precision no -> bf16" in resume_conflict({**fp32, **full}, bf16)[1]
    error, _ = resume_conflict(bf16, fp16)
    assert "(mixed precision bf16 -> fp16): the checkpoint holds no fp16 loss scale. Resume with " \
           "--mixed_precision bf16" in error
    assert resume_conflict(fp16, fp32)[0] is None and "fp16 -> no" in resume_conflict(fp16, fp32)[1]
    assert resume_conflict(ddp, fp16) == (None, None)  # a checkpoint from before the layout recorded it


def test_init_from_an_export_starts_from_its_weights_and_checks_the_network(tiny_config, tmp_path, monkeypatch,
                                                                           capsys):
    first = tmp_path / "first"
    train(tiny_config(first, train__max_steps=2, train__val_every=0))
    assert "no step moves the weights" not in capsys.readouterr().out
    # lr 0: the second run's weights never move, so its export must be the first run's export.
    second = tmp_path / "second"
    train(tiny_config(second, train__max_steps=2, train__val_every=0, train__init_from=str(first / "model"),
                      optim__lr=0.0, optim__weight_decay=0.0))
    # said since the hundred-and-fifth session, where it trained nothing without a word
    assert "warning: optim.lr=0.0: no step moves the weights" in capsys.readouterr().out
    a, b = load_file(first / "model" / "model.safetensors"), load_file(second / "model" / "model.safetensors")
    assert all(torch.equal(a[k], b[k]) for k in a)

    # Each difference named in the config's terms (the two whole specs, printed, before), and before the
    # Accelerator and the data work (the demo's phantoms were written into the refused run's folder, 19-20 s in)
    def not_reached(*args, **kwargs):
        raise AssertionError("the network was compared only after the Accelerator was made")

    with monkeypatch.context() as patched, pytest.raises(
            ConfigError, match=r"train.init_from=.* holds another network than this run builds \(model.args.channels: "
                               r"\[4, 8, 16\] in the export, \[4, 8\] here; model.args.strides: \[2, 2\] in the "
                               r"export, \[2\] here\): match model.name, model.args and the image channels to "
                               r"the run that exported it \(the classes may differ"):
        patched.setattr("accelerated_seg.configured_run.make_accelerator", not_reached)
        train(tiny_config(tmp_path / "other", train__init_from=str(first / "model"),
                          model__args="{channels: [4, 8], strides: [2], num_res_units: 1}"))
    with pytest.raises(ConfigError, match="exported model folder"):
        train(tiny_config(tmp_path / "missing", train__init_from=str(tmp_path)))


def test_a_fine_tuning_run_resumes_with_the_command_that_started_it(tiny_config, tmp_path, capsys):
    """A preempted run says 'run the same command with --resume latest', and a requeued SLURM job does
    exactly that: with train.init_from in the command it was refused ('give one of them') until the
    seventy-seventh session (a transfer-learning probe), so no fine-tuning run could be requeued."""
    from safetensors.torch import load_file

    pretrained = tmp_path / "pretrained"
    train(tiny_config(pretrained, train__max_steps=1, train__val_every=0, train__save_every=0))
    tuning = dict(train__init_from=str(pretrained / "model"), train__val_every=0, train__save_every=2,
                  train__max_steps=4)
    train(tiny_config(tmp_path / "cut", **{**tuning, "train__max_steps": 2}))
    assert "initial weights from" in capsys.readouterr().out
    train(tiny_config(tmp_path / "cut", **tuning, train__resume="latest"))
    said = capsys.readouterr().out
    assert f"its weights carry on, and train.init_from {pretrained / 'model'} is not loaded again" in said
    assert "initial weights from" not in said and "settings other than" not in said
    train(tiny_config(tmp_path / "whole", **tuning))
    whole, resumed = (load_file(tmp_path / run / "model" / "model.safetensors") for run in ("whole", "cut"))
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)


def test_speed_levers_on_the_cpu(tiny_config, tmp_path):
    # channels-last weights train and export the plain (contiguous) state dict.
    out = tmp_path / "channels_last"
    train(tiny_config(out, train__max_steps=2, train__val_every=0, train__channels_last="true"))
    loaded, _ = load_exported(out / "model")
    assert loaded(torch.randn(1, 1, 16, 16, 16)).shape == (1, 3, 16, 16, 16)
    # Fused AdamW (one kernel for all parameters) trains to the same weights as the default.
    common = dict(train__max_steps=2, train__val_every=0, train__save_every=0)
    train(tiny_config(tmp_path / "foreach", **common))
    train(tiny_config(tmp_path / "fused", optim__fused="true", **common))
    a = load_file(tmp_path / "foreach" / "model" / "model.safetensors")
    b = load_file(tmp_path / "fused" / "model" / "model.safetensors")
    # A convolution's bias right before an instance norm has no gradient (the norm subtracts each
    # channel's mean), only rounding noise of ~1e-9, which Adam divides by sqrt(v) + eps of the same
    # size: a step of up to lr made of noise, which the two kernels round differently on some CPUs
    # (measured: 8.8e-5 apart on an AVX2 host, within float rounding on the AVX-512 ones). Those
    # biases are held to the size of the two steps, every other tensor to float rounding.
    noise_only = biases_before_a_norm(a)
    two_steps = 2 * tiny_config(tmp_path / "fused").optim.lr
    for key in a:
        if key in noise_only:
            assert (a[key] - b[key]).abs().max() <= two_steps, key
        else:
            torch.testing.assert_close(a[key], b[key], rtol=1e-5, atol=1e-6, msg=key)


def biases_before_a_norm(weights: dict) -> set:
    """The names of the convolution biases of a MONAI U-Net that a norm follows (their block's ``adn.``):
    their gradient is rounding noise only."""
    found = {key for key in weights if key.endswith(".conv.bias")
             and any(other.startswith(key.removesuffix("conv.bias") + "adn.") for other in weights)}
    assert found and len(found) < len(weights)
    return found


def test_channels_last_norms_train_the_same_network_and_export_it_for_plain_monai(tiny_config, tmp_path, capsys):
    # InstanceNorm as the identical GroupNorm (norm_layout.py): the same parameter names, so the export
    # loads into the plain MONAI network, and the same function, so the run trains as without it.
    common = dict(train__max_steps=2, train__val_every=0, train__save_every=0, train__channels_last="true")
    train(tiny_config(tmp_path / "instance", **common))
    train(tiny_config(tmp_path / "group", train__channels_last_norm="true", **common))
    assert re.search(r"channels-last norms: \d+ InstanceNorm\(s\) run as GroupNorm", capsys.readouterr().out)
    a = load_file(tmp_path / "instance" / "model" / "model.safetensors")
    b = load_file(tmp_path / "group" / "model" / "model.safetensors")
    assert {k: v.shape for k, v in a.items()} == {k: v.shape for k, v in b.items()}
    # The two norms round differently. A bias a norm follows has no gradient but that rounding, which
    # Adam scales to a step of up to lr in either direction, so in two runs of two steps such biases end
    # up to 4 lr apart (2.6 lr measured with the float32 resampling, 1.6 before). Every other tensor
    # has a real gradient and agrees to float rounding (3e-4 lr measured).
    lr = tiny_config(tmp_path / "group").optim.lr
    noise_only = biases_before_a_norm(a)
    for key in a:
        if key in noise_only:
            assert (a[key] - b[key]).abs().max() <= 4 * lr, key
        else:
            torch.testing.assert_close(a[key], b[key], rtol=1e-5, atol=1e-5, msg=key)
    loaded, _ = load_exported(tmp_path / "group" / "model")
    assert any(isinstance(m, torch.nn.InstanceNorm3d) for m in loaded.modules())
    with pytest.raises(ConfigError, match="train.channels_last_norm .* needs train.channels_last: true"):
        tiny_config(tmp_path / "alone", train__channels_last_norm="true")


def test_deepspeeds_16_bit_engines_get_their_inputs_in_16_bit():
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import model_input_dtype

    def engine(bf16=False, fp16=False):
        return SimpleNamespace(bfloat16_enabled=lambda: bf16, fp16_enabled=lambda: fp16)

    deepspeed = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED)
    assert model_input_dtype(deepspeed, engine(bf16=True)) == torch.bfloat16  # its bf16 mode casts no input
    assert model_input_dtype(deepspeed, engine(fp16=True)) == torch.float16
    assert model_input_dtype(deepspeed, engine()) is None
    assert model_input_dtype(SimpleNamespace(distributed_type=DistributedType.MULTI_GPU), None) is None


def test_after_a_resume_the_schedule_drives_the_optimizer_deepspeed_steps():
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import schedule_the_stepping_optimizer

    weights = [torch.nn.Parameter(torch.zeros(2))]
    ours = torch.optim.AdamW(weights, lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(ours, lambda step: 0.5 ** step)
    # What ZeRO offload does: another optimizer over the same param-group dicts (a fresh run) ...
    offloaded = torch.optim.Adam(ours.param_groups)
    under = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED,
                            deepspeed_engine_wrapped=SimpleNamespace(engine=SimpleNamespace(basic_optimizer=offloaded)))
    schedule_the_stepping_optimizer(under, scheduler)
    assert scheduler.optimizer is ours  # the dicts are shared: nothing to do
    ours.step(), scheduler.step()
    assert offloaded.param_groups[0]["lr"] == 0.5
    # ... until a resume loads its state, which puts new dicts in place.
    offloaded.load_state_dict(offloaded.state_dict())
    assert offloaded.param_groups[0] is not ours.param_groups[0]
    schedule_the_stepping_optimizer(under, scheduler)
    assert scheduler.optimizer is offloaded
    offloaded.step(), scheduler.step()
    assert offloaded.param_groups[0]["lr"] == 0.25  # the rate reaches the optimizer that steps


def test_zero_offload_steps_the_optimizer_the_run_built():
    """accelerate's ZeRO-offload path puts DeepSpeedCPUAdam in place of any optimizer it has no CPU
    twin for: a run asking for SGD trained with Adam, and nothing said so."""
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import keep_the_optimizer_under_offload

    def launch(offload="cpu", distributed_type=DistributedType.DEEPSPEED):
        config = {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": offload}}}
        return SimpleNamespace(distributed_type=distributed_type, print=lambda *a: None,
                               state=SimpleNamespace(deepspeed_plugin=SimpleNamespace(deepspeed_config=config)))

    weights = [torch.nn.Parameter(torch.zeros(2))]
    sgd, adamw = torch.optim.SGD(weights, lr=0.1, momentum=0.9), torch.optim.AdamW(weights)
    offloaded = launch()
    keep_the_optimizer_under_offload(offloaded, sgd)
    assert offloaded.state.deepspeed_plugin.deepspeed_config["zero_force_ds_cpu_optimizer"] is False
    for accelerator, optimizer in ((launch(), adamw), (launch(offload="none"), sgd),
                                   (launch(distributed_type=DistributedType.MULTI_GPU), sgd)):
        keep_the_optimizer_under_offload(accelerator, optimizer)  # DeepSpeedCPUAdam is AdamW; nothing offloaded
        assert "zero_force_ds_cpu_optimizer" not in accelerator.state.deepspeed_plugin.deepspeed_config


def test_a_run_resumed_with_another_rate_and_weight_decay_trains_on_with_them(tiny_config, tmp_path, capsys):
    """Resumed with --optim.lr or --optim.weight_decay, a run listed the change and trained on with the
    checkpoint's values (torch's load_state_dict, LambdaLR's saved base rate) until the forty-eighth session."""
    from accelerated_seg.schedule import lr_multiplier

    out = tmp_path / "run"
    common = dict(train__val_every=0, train__trackers="tensorboard")
    train(tiny_config(out, train__max_steps=2, **common))
    capsys.readouterr()
    train(tiny_config(out, train__max_steps=4, train__resume="latest", optim__lr=0.002, optim__weight_decay=0.01,
                      **common))
    said = capsys.readouterr().out
    assert "this run's from here on: optim.lr 0.001 -> 0.002; optim.weight_decay 1e-05 -> 0.01" in said
    rates, optim = logged_scalars(out, "train/lr"), tiny_config(out).optim
    assert rates[2] == pytest.approx(0.001 * lr_multiplier(1, optim, 2))  # the first run's (step 2 after 1 step)
    assert rates[3] == pytest.approx(0.002 * lr_multiplier(2, optim, 4))
    group = torch.load(out / "checkpoints" / "step_4" / "optimizer.bin", weights_only=True)["param_groups"][0]
    assert (group["weight_decay"], group["initial_lr"]) == (0.01, 0.002)


def test_sgd_with_the_poly_schedule_trains_as_nnunet_does_and_resumes_only_as_sgd(tiny_config, tmp_path):
    """nnU-Net trains with SGD (Nesterov momentum 0.99) and a poly schedule; until the forty-eighth
    session a run could only choose AdamW with a cosine schedule."""
    from accelerated_seg.config import OptimConfig
    from accelerated_seg.schedule import lr_multiplier

    out = tmp_path / "run"
    nnunet = dict(optim__optimizer="sgd", optim__lr=0.01, optim__schedule="poly", optim__warmup_steps=0,
                  optim__min_lr_ratio=0, optim__weight_decay=3e-5, train__val_every=0, train__trackers="tensorboard")
    summary = train(tiny_config(out, train__max_steps=4, **nnunet))
    assert summary["step"] == 4
    # The rate each step trained at: until the seventieth session the next step's was logged, so the
    # first (0.01) never showed and the last point (0) was a rate no step used.
    rates = logged_scalars(out, "train/lr")
    schedule = OptimConfig(schedule="poly", warmup_steps=0, min_lr_ratio=0)
    assert rates == pytest.approx({step: 0.01 * lr_multiplier(step - 1, schedule, 4) for step in (1, 2, 3, 4)})
    assert rates[1] == pytest.approx(0.01) and rates[4] == pytest.approx(0.01 * 0.25 ** 0.9)
    saved = torch.load(out / "checkpoints" / "step_4" / "optimizer.bin", weights_only=True)
    group = saved["param_groups"][0]
    assert (group["momentum"], group["nesterov"], group["weight_decay"]) == (0.99, True, 3e-5)
    assert all(set(state) == {"momentum_buffer"} for state in saved["state"].values())
    load_exported(out / "model")

    export = (out / "model" / "model.safetensors").read_bytes()
    with pytest.raises(ConfigError, match=r"cannot resume from .*step_4: it was trained with optim.optimizer sgd and "
                                          r"holds sgd's state, and this run asks for adamw\. Resume with "
                                          r"optim.optimizer=sgd, or start a new run from its weights"):
        train(tiny_config(out, train__max_steps=6, train__resume="latest", **{**nnunet, "optim__optimizer": "adamw"}))
    assert (out / "model" / "model.safetensors").read_bytes() == export  # nothing of the refused run written
    assert train(tiny_config(out, train__max_steps=6, train__resume="latest", **nnunet))["step"] == 6
    # docs/checkpoints.md's table gives the refusal's ways on (the hundred-and-eighteenth session's rewrite gave none)
    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "checkpoints.md").read_text().split())
    assert ("each saying to resume with the checkpoint's value or (the optimizer, the regions, the phantoms) to start "
            "a new run from its weights with `train.init_from`") in page


def test_gpu_figures_follow_the_runs_device_not_the_machines(monkeypatch, tiny_dataset):
    """A CPU run on a machine with a GPU (ACCELERATE_USE_CPU, the gloo launches) pinned its batches
    and read the GPU's peak memory, starting a CUDA context for nothing and recording 0.0 as its peak
    (a review, seventy-seventh session)."""
    from accelerated_seg.data.loader import PatchDataset, train_loader
    from accelerated_seg.rank_figures import peak_memory_gb

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert peak_memory_gb(torch.device("cpu")) is None
    dataset = PatchDataset.__new__(PatchDataset)  # the loader reads only its length here
    monkeypatch.setattr(PatchDataset, "epoch_length", 8, raising=False)
    assert train_loader(dataset, 2, 0, seed=0, pin_memory=False).pin_memory is False
    assert train_loader(dataset, 2, 0, seed=0).pin_memory is True  # unsaid: where a GPU exists


def test_a_network_whose_shared_layers_are_checkpointed_resumes(tiny_config, tmp_path):
    """DynUNet's skip_layers share the encoder's blocks: with train.activation_checkpointing its
    checkpoints could never be resumed (safetensors against torch's checkpoint wrapper's renaming: a
    RuntimeError of missing and unexpected keys, seventy-seventh session's probe). The resumed run
    ends where the uninterrupted one does."""
    from safetensors.torch import load_file

    settings = dict(model__name="dynunet", model__args="{filters: [4, 8, 16]}", train__activation_checkpointing=True,
                    train__val_every=0, train__save_every=2, train__max_steps=3)
    train(tiny_config(tmp_path / "whole", **settings))
    train(tiny_config(tmp_path / "cut", **{**settings, "train__max_steps": 2}))
    summary = train(tiny_config(tmp_path / "cut", **settings, train__resume="latest"))
    assert summary["step"] == 3
    whole, resumed = load_file(tmp_path / "whole" / "model" / "model.safetensors"), \
        load_file(tmp_path / "cut" / "model" / "model.safetensors")
    assert whole.keys() == resumed.keys() and all(torch.equal(whole[k], resumed[k]) for k in whole)


def test_a_lenient_load_is_checked_tensor_by_tensor(tmp_path):
    from safetensors.torch import save_file

    from accelerated_seg.accelerate_workarounds import _check_every_tensor_loaded

    shared = torch.nn.Linear(2, 2)
    model = torch.nn.ModuleDict({"a": shared, "b": shared, "c": torch.nn.Linear(2, 1)})  # "b" is "a" again
    weights = {name: tensor.clone() for name, tensor in model.state_dict().items() if not name.startswith("b.")}
    save_file(weights, tmp_path / "whole.safetensors")
    _check_every_tensor_loaded(model, tmp_path / "whole.safetensors")  # every tensor, one name of each
    save_file({**weights, "c.bias": weights["c.bias"] + 1}, tmp_path / "other.safetensors")
    save_file({k: v for k, v in weights.items() if k != "c.weight"}, tmp_path / "short.safetensors")
    with pytest.raises(RuntimeError, match=r"other.safetensors does not load into this network whole \(not loaded: "
                                           r"c.bias\)"):
        _check_every_tensor_loaded(model, tmp_path / "other.safetensors")
    with pytest.raises(RuntimeError, match=r"\(not in the file: c.weight\)"):
        _check_every_tensor_loaded(model, tmp_path / "short.safetensors")


def test_training_pins_its_batches_only_when_it_runs_on_a_gpu(tiny_config, tmp_path, monkeypatch):
    import accelerated_seg.configured_run as configured_run

    asked, real = [], configured_run.train_loader
    monkeypatch.setattr(configured_run, "train_loader",
                        lambda *a, **k: asked.append(k.get("pin_memory")) or real(*a, **k))
    train(tiny_config(tmp_path / "run", train__max_steps=1, train__val_every=0, train__save_every=0))
    assert asked == [torch.cuda.is_available()]  # the run's device: a GPU wherever one is, here


@pytest.mark.cuda
def test_a_second_run_in_one_process_reports_its_own_peak_memory(tiny_config, tmp_path):
    """summary.json's peak was the process's: a run after a larger one (a notebook, folds one after
    another) reported the larger one's until the seventy-seventh session."""
    big = torch.empty(2**30, dtype=torch.uint8, device="cuda")  # 1 GiB, freed before the run
    del big
    summary = train(tiny_config(tmp_path / "run", train__max_steps=1, train__val_every=0, train__save_every=0))
    assert 0 < summary["peak_memory_gb"][0] < 0.5


def test_sum_over_ranks_of_one_process_is_the_tensor():
    from accelerated_seg.sum_over_ranks import SumOverRanks

    assert SumOverRanks(torch.tensor([1.5, 0.0, 2.0])).values() == [1.5, 0.0, 2.0]


@pytest.mark.cuda  # the point is not waiting for queued GPU work
def test_sum_over_ranks_does_not_wait_for_the_work_queued_after_it():
    from accelerated_seg.sum_over_ranks import SumOverRanks

    totals = torch.tensor([3.0, 1.0], device="cuda") * 2
    pending = SumOverRanks(totals)
    torch.cuda._sleep(2_000_000_000)  # about a second of GPU time queued behind the copy, like a backward
    assert pending.values() == [6.0, 2.0]
    assert not torch.cuda.current_stream().query()  # read while the queued work still runs
    torch.cuda.synchronize()


def test_a_cpu_run_whose_step_cannot_fit_in_memory_is_refused_before_anything_is_written(tiny_config, tmp_path,
                                                                                         monkeypatch):
    """On the CPU the out-of-memory killer ends such a run in its first step without a word (a 400³
    patch on 24 GiB, forty-third session). Here the machine "has" 1 MiB."""
    import accelerated_seg.cpu_step_fit

    monkeypatch.setattr(accelerated_seg.cpu_step_fit, "host_memory_available", lambda: 2**20)
    with pytest.raises(ConfigError, match=r"data.patch_size \[16, 16, 16\] at train.batch_size 2 cannot train in this "
                                          r"machine's memory: the forward and backward pass of unet at fp32 hold at "
                                          r"least 0\.\d\d GiB at their peak and 0.00 GiB is available"):
        train(tiny_config(tmp_path / "refused"))
    assert not (tmp_path / "refused").exists()
    # Activation checkpointing keeps less than the estimate counts: left to the run.
    assert train(tiny_config(tmp_path / "checkpointed", train__activation_checkpointing=True, train__max_steps=1,
                             train__val_every=0))["step"] == 1


def test_an_init_from_that_is_no_export_is_refused_before_an_earlier_run_is_replaced(tiny_dataset, tmp_path):
    """train.overwrite deletes the earlier run only for a run that can start: a train.init_from that is
    not there, or another program's folder, is refused first (in Python, where no command line has
    checked it), and the earlier run is kept whole."""
    from accelerated_seg.config import ConfigError, load_config
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.train import train

    run = tmp_path / "run"
    train(load_config(None, tiny_overrides(tiny_dataset, run, train__max_steps=1, train__val_every=0,
                                           train__save_every=0)))
    kept = {path: path.read_bytes() for path in run.rglob("*") if path.is_file() and path.name != ".run.lock"}
    (tmp_path / "bert").mkdir()
    (tmp_path / "bert" / "config.json").write_text('{"architectures": ["BertModel"]}')
    (tmp_path / "bert" / "model.safetensors").write_bytes(b"")
    for init_from, error, message in ((tmp_path / "typo", ConfigError, "must be an exported model folder"),
                                      (tmp_path / "bert", DataError, "has no model section")):
        with pytest.raises(error, match=message):
            train(load_config(None, tiny_overrides(tiny_dataset, run, train__overwrite="true",
                                                   train__init_from=str(init_from))))
    assert {path: path.read_bytes() for path in run.rglob("*") if path.is_file() and path.name != ".run.lock"} == kept


def test_a_checkpoint_s_validation_history_of_an_older_version_reads_with_today_s_names():
    """Before the seventy-second session a validation row named the step's training loss "loss"."""
    from accelerated_seg.train import Progress

    progress = Progress()
    progress.load_state_dict({"step": 4, "history": [{"step": 4, "loss": 0.7, "mean_dice": 0.5, "cases": 2}]})
    assert progress.history == [{"step": 4, "train_loss": 0.7, "mean_dice": 0.5, "cases": 2}]


def test_the_report_draws_only_annotated_voxels_and_picks_their_slice():
    """Sparse annotation: the ignore value counted as foreground chose a slice nobody annotated and
    drew the reference panel in one colour (seventy-third session)."""
    from accelerated_seg.report import annotated_slice

    label = np.full((6, 6, 8), 4, dtype=np.uint8)  # 4: unannotated
    label[:, :, 5] = 0
    label[2:4, 2:4, 5] = 1  # the one annotated slice, with its foreground
    drawn, z = annotated_slice(label, ignore_value=4)
    assert z == 5 and drawn.max() == 1 and (drawn[:, :, 0] == 0).all()
    assert annotated_slice(label, ignore_value=None)[1] == 0  # dense labels: every value above 0 counts


def test_the_report_draws_a_volume_stored_behind_size_1_axes_as_its_volume(tmp_path):
    """(x, y, z, 1, 1), which training reads as (x, y, z) since the ninety-ninth session: the report drew it as
    a 5D array, matplotlib's TypeError after the training."""
    from accelerated_seg.report import _canonical

    label = np.zeros((6, 6, 8), np.uint8)
    label[2:4, 2:4, 5] = 1
    nib.save(nib.Nifti1Image(label[..., None, None], np.diag([-1.0, 1.0, 2.0, 1.0])), tmp_path / "l.nii.gz")
    np.testing.assert_array_equal(_canonical(tmp_path / "l.nii.gz"), label[::-1])  # LAS stored, drawn RAS


def test_augmentation_on_the_gpu_asked_for_on_a_cpu_runs_as_asked_and_says_so(tiny_config, tmp_path, capsys):
    """data.augment_on: gpu on a CPU device moves the resampling into the training process: it ran so
    without a word (seventy-third session's probe)."""
    cfg = tiny_config(tmp_path / "run", data__augment_on="gpu", train__max_steps=1, train__val_every=0,
                      train__save_every=0)
    train(cfg)
    assert "note: data.augment_on: gpu on a cpu device resamples the patches in the training process" in \
        capsys.readouterr().out
    assert yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())["data"]["augment_on"] == "gpu"


def test_a_resume_onto_other_image_channels_is_refused_before_any_data_work(tiny_config, tiny_dataset, tmp_path):
    """MSD's BraTS and an nnU-Net conversion of it order the modalities differently: a resume onto the
    other trained on without a word (a probe saw its Dice collapse), and another number of
    channels failed only after the preprocessing, on tensor shapes (seventy-fourth session)."""
    dataset = _as_4d_decathlon(tiny_dataset, tmp_path / "msd4d")
    common = dict(data__cache_dir=str(tmp_path / "cache"), train__max_steps=2, train__val_every=0, train__save_every=2)
    out = tmp_path / "run"
    train(tiny_config(out, data__dataset=str(dataset), **common))
    swapped = json.loads(dataset.read_text()) | {"modality": {"0": "T2", "1": "T1"}}  # files as they were
    dataset.write_text(json.dumps(swapped))
    resume = dict(common, train__max_steps=4, train__resume="latest")
    cached = sorted((tmp_path / "cache").rglob("*"))
    with pytest.raises(ConfigError, match=r"other image channels than this run's data has \(channel 0: T1 there, T2 "
                                          r"here; channel 1: T2 there, T1 here\)\. Give the images in its order "
                                          r"\(T1, T2\)"):
        train(tiny_config(out, data__dataset=str(dataset), **resume))
    with pytest.raises(ConfigError, match=r"\(2 image channel\(s\) there \(T1, T2\), 1 here"):
        train(tiny_config(out, data__dataset=str(tiny_dataset), **resume))
    # The same names in other case or spacing are the same channels; names of their own are the user's
    # to judge (the same scans named anew), said but not refused
    from accelerated_seg.resume_network_and_data import check_resume_channels

    step_2 = out / "checkpoints" / "step_2"
    assert check_resume_channels(step_2, {0: " t1", 1: "T2 "}) is None
    assert check_resume_channels(step_2, {0: "T1w", 1: "T2w"}) == (
        f"warning: resuming {step_2}, whose weights learned from image channels named otherwise (channel 0: T1 "
        f"there, T1w here; channel 1: T2 there, T2w here): if these are other scans, not the same ones named anew, "
        f"stop and give the images in its order (T1, T2)")
    # A space inside a name is a name of its own: docs/checkpoints.md's "without case or spaces" (the
    # hundred-and-eighteenth session's rewrite) said otherwise, where the code sets aside the surrounding ones alone
    assert check_resume_channels(step_2, {0: "T 1", 1: "T2"}).startswith(
        f"warning: resuming {step_2}, whose weights learned from image channels named otherwise (channel 0: T1 there, "
        f"T 1 here)")
    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "checkpoints.md").read_text().split())
    assert "names compared without case or surrounding spaces" in page
    assert sorted((tmp_path / "cache").rglob("*")) == cached  # refused before any volume was preprocessed


def test_a_resume_onto_classes_named_in_another_order_is_refused_before_any_volume_is_preprocessed(
        tiny_config, tiny_dataset, tmp_path, capsys):
    """A dataset.json whose labels were listed anew between a run and its resume (its names swapped) went on
    without a word: each output kept learning its class under the other's name, metrics.json's per-class
    curves swapped at the resume and the export named each output after the other class."""
    data = tmp_path / "data"
    shutil.copytree(tiny_dataset.parent, data)
    dataset = data / tiny_dataset.name
    common = dict(data__dataset=str(dataset), data__cache_dir=str(tmp_path / "cache"), train__val_every=0,
                  train__save_every=2)
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, **common))
    declared = json.loads(dataset.read_text())
    dataset.write_text(json.dumps(declared | {"labels": {"0": "background", "1": "lesion", "2": "ventricles"}}))
    cached = sorted((tmp_path / "cache").rglob("*"))
    with pytest.raises(ConfigError, match=r"its outputs learned the same classes in another order than this run's "
                                          r"data names them \(class 1: ventricles there, lesion here; class 2: lesion "
                                          r"there, ventricles here\).*\(background, ventricles, lesion\)"):
        train(tiny_config(out, train__max_steps=4, train__resume="latest", **common))
    assert sorted((tmp_path / "cache").rglob("*")) == cached  # refused before any volume was preprocessed
    # Names of their own are the user's to judge (a class named anew): said, not refused
    dataset.write_text(json.dumps(declared | {"labels": {"0": "background", "1": "Ventricles ", "2": "tumour"}}))
    assert train(tiny_config(out, train__max_steps=3, train__resume="latest", **common))["step"] == 3
    assert ("whose outputs learned classes named otherwise (class 2: lesion there, tumour here): if these are other "
            "classes") in capsys.readouterr().out
    # Regions a dataset.json declares anew are other outputs (data.regions is compared as a setting)
    from accelerated_seg.resume_network_and_data import check_resume_classes

    step_3 = out / "checkpoints" / "step_3"
    regions = {"names": ["both"], "values": [[1, 2]], "order": [2]}
    with pytest.raises(ConfigError, match=r"other outputs than this run's data declares \(regions none there, "
                                          r"both: \[1, 2\] here\)"):
        check_resume_classes(step_3, {0: "background", 1: "ventricles", 2: "lesion"}, regions)


def test_a_resume_onto_the_same_regions_painted_in_another_order_or_named_in_another_case_goes_on(tmp_path):
    """The regions an output learned are its values, by name: a dataset.json's regions_class_order changed
    alone was refused as 'other outputs', with the same regions shown there and here, and a region's name
    in another case was refused where a class's goes on."""
    from accelerated_seg.regions import Regions
    from accelerated_seg.resume_network_and_data import check_resume_classes

    values, labels = [0, 1, 2, 3], {0: "background", 1: "edema", 2: "core", 3: "enhancing"}
    declared = {"whole": [1, 2, 3], "core": [2, 3], "enhancing": [3]}
    saved = Regions.declared(declared, values, "x").to_dict()
    step = tmp_path / "step_2"
    step.mkdir()
    (step / "export.json").write_text(json.dumps({"labels": {str(k): v for k, v in labels.items()},
                                                  "regions": saved}))
    assert check_resume_classes(step, labels, saved) is None
    repainted = Regions.declared(declared, values, "x", order=[2, 2, 3]).to_dict()
    warning = check_resume_classes(step, labels, repainted)
    assert "painted in another order" in warning and "[1, 2, 3] there, [2, 2, 3] here" in warning
    renamed = Regions.declared({"Whole ": [1, 2, 3], "CORE": [2, 3], "enhancing": [3]}, values, "x").to_dict()
    assert check_resume_classes(step, labels, renamed) is None
    other = Regions.declared({"whole": [1, 2, 3], "core": [2, 3], "active": [3]}, values, "x").to_dict()
    with pytest.raises(ConfigError, match=r"other outputs than this run's data declares"):
        check_resume_classes(step, labels, other)
    swapped = Regions.declared({"whole": [1, 2, 3], "enhancing": [3], "core": [2, 3]}, values, "x",
                               order=[1, 3, 2]).to_dict()
    with pytest.raises(ConfigError, match=r"other outputs than this run's data declares"):
        check_resume_classes(step, labels, swapped)


def test_a_patch_longer_than_every_case_along_an_axis_is_a_warning_with_a_patch_that_fits():
    """Thick-slice scans (12 slices at 5 mm) under the default 64^3 patch trained several times slower
    than under 64 x 64 x 16, to the same Dice, without a word (seventy-fourth session's probe)."""
    from accelerated_seg.data.patch_fit import patch_padding_warning

    thick = [np.array([64, 64, 12]), np.array([70, 66, 11])]
    assert patch_padding_warning([64, 64, 64], thick, (0.7, 0.7, 5.0)) == (
        "warning: data.patch_size [64, 64, 64] is longer than every preprocessed training case along axis 2 (at "
        "most 12 voxels at 0.7 x 0.7 x 5 mm): each patch is mostly padding there, which costs time and teaches "
        "nothing. A patch such as data.patch_size: [64, 64, 16] sees as much of each case")
    assert patch_padding_warning([64, 64, 16], thick, (0.7, 0.7, 5.0)) is None
    assert patch_padding_warning([64, 64, 64], [np.array([60, 64, 70])], None) is None  # within rounding to 16
    assert "axis 0, 2 (at most 12, 9 voxels)" in patch_padding_warning([32, 32, 32], [np.array([1, 12, 40, 9])], None)


def test_the_patch_a_padding_warning_suggests_is_one_the_network_takes():
    """The suggestion was each axis rounded up to 16 whatever the network: 32^3 for the MLPerf U-Net, which
    refuses it (one voxel at its 1/32 stage), and 48 for a network that divides by 32."""
    from accelerated_seg.data.patch_fit import patch_padding_warning
    from accelerated_seg.models import check_model_settings, network_takes_patch

    small = [np.array([23, 21, 25])]
    mlperf = network_takes_patch("unet3d_mlperf")
    said = patch_padding_warning([128, 64, 32], small, (1.5, 1.5, 2.0), network_takes=mlperf)
    assert said.endswith("A patch such as data.patch_size: [64, 32, 32] sees as much of each case"), said
    check_model_settings("unet3d_mlperf", (64, 32, 32))  # what it suggests trains
    said = patch_padding_warning([64, 64, 32], small, (1.5, 1.5, 2.0), network_takes=mlperf)
    assert said.endswith("No shorter patch suits the network (model.name, model.args): a smaller network or finer "
                         "data.spacing would"), said
    from accelerated_seg.model_folders import ESTIMATOR_NAMES  # the estimator's keywords, not the config's keys
    said = patch_padding_warning([64, 64, 32], small, (1.5, 1.5, 2.0), network_takes=mlperf, names=ESTIMATOR_NAMES)
    assert said.startswith("warning: block_shape [64, 64, 32] is longer"), said
    assert said.endswith("(Segmentation's model, model_args): a smaller network or finer spacing would"), said
    deep_unet = network_takes_patch("unet", {"channels": [4, 8, 16, 32, 64, 128], "strides": [2, 2, 2, 2, 2]})
    said = patch_padding_warning([96, 96, 96], [np.array([40, 40, 100])], None, network_takes=deep_unet)
    assert "data.patch_size: [64, 64, 96]" in said, said  # 48, a multiple of 16, is none of 32
    # a long patch over tiny cases: the MLPerf U-Net's smallest comes after more than 64 smaller candidates
    said = patch_padding_warning([256, 256, 256], [np.array([10, 10, 10])], None, network_takes=mlperf)
    assert said.endswith("data.patch_size: [32, 32, 64] sees as much of each case"), said
    # the demo's network takes every multiple of 16: the suggestion is as before
    demo = network_takes_patch("unet", {"channels": [16, 32, 64, 128], "strides": [2, 2, 2]})
    assert "data.patch_size: [64, 64, 16]" in patch_padding_warning([64, 64, 64], [np.array([64, 64, 12])], None,
                                                                     network_takes=demo)


def test_a_run_leaves_the_process_as_it_found_it(tiny_config, tmp_path, monkeypatch):
    """What runs after a run in the same process (a notebook, a search over settings) finds the global
    random generators as they were, no accelerate state of the run's, and no finished run kept alive.
    A random search drew the same learning rate after every fit (train.seed reseeded them), the user's
    own Accelerator(mixed_precision="no") after a bf16 run was refused, and each finished run with
    validation cases stayed in memory until the garbage collector's next pass."""
    import gc
    import random

    from accelerate import Accelerator

    from accelerated_seg.strategy import forget_the_last_accelerator

    def seeded():
        random.seed(1234)
        np.random.seed(1234)
        torch.manual_seed(1234)

    def draws():
        return random.random(), float(np.random.rand()), float(torch.rand(1))

    seeded()
    expected = draws()
    seeded()
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")  # as accelerate launch --mixed_precision bf16 sets it

    def accelerators() -> set[int]:
        return {id(thing) for thing in gc.get_objects() if type(thing) is Accelerator}

    gc.collect()
    gc.disable()
    try:
        earlier = accelerators()  # an earlier test's in this worker, still referenced, is not this run's
        summary = train(tiny_config(tmp_path / "run", train__max_steps=2, train__val_every=2))
        left_alive = accelerators() - earlier
    finally:
        gc.enable()
    assert summary["best_step"] == 2  # validated: the run had the validation callback
    assert draws() == expected
    assert not left_alive
    monkeypatch.delenv("ACCELERATE_MIXED_PRECISION")
    assert Accelerator(cpu=True, mixed_precision="no").mixed_precision == "no"
    # The caller's own Accelerator, made before a run, answers after it as before (its state is shared
    # with the run's, which emptied it)
    users = Accelerator(cpu=True)
    train(tiny_config(tmp_path / "after_the_users", train__max_steps=1, train__val_every=0))
    assert (users.device.type, users.mixed_precision, users.num_processes) == ("cpu", "no", 1)
    forget_the_last_accelerator()


def test_the_first_step_under_zero_offload_is_no_schedule_stepped_before_its_optimizer():
    """Under ZeRO offload our AdamW never steps: DeepSpeedCPUAdam steps its param groups. torch's scheduler,
    which looks for a call of the optimizer it was built on, said at the first step of every such run that
    `lr_scheduler.step()` came before `optimizer.step()` and the schedule's first value was skipped (neither
    was so; found running deepspeed_zero3_offload.yaml in the ninety-second session)."""
    import warnings
    from types import SimpleNamespace

    from accelerate.utils import DistributedType

    from accelerated_seg.preparation import schedule_the_stepping_optimizer

    ours = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(2))], lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(ours, lambda step: 0.5 ** step)
    offloaded = torch.optim.Adam(ours.param_groups)  # ZeRO offload's: over the same param-group dicts
    under = SimpleNamespace(distributed_type=DistributedType.DEEPSPEED,
                            deepspeed_engine_wrapped=SimpleNamespace(engine=SimpleNamespace(basic_optimizer=offloaded)))
    schedule_the_stepping_optimizer(under, scheduler)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        offloaded.step(), scheduler.step()
    assert offloaded.param_groups[0]["lr"] == 0.5
