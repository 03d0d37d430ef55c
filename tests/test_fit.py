"""The functional ``fit``: a user's own model, loader, loss and optimizer through the same loop."""

import functools
import importlib.util
import os
import re
import shutil
import time

import pytest
import torch
from monai.losses import DiceCELoss
from monai.networks.nets import UNet
from safetensors.torch import load_file
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.checkpoint import complete_checkpoints
from accelerated_seg.config import ConfigError
from accelerated_seg.data.workers import init_training_worker
from accelerated_seg.train import fit

from conftest import number_tensorboard_writers_from, tensorboard_curve, tensorboard_run, tensorboard_settings
from faults import folder_removed_at


def _pieces(seed=0, shuffle=False, dropout=0.0, own_generator=False, num_res_units=1):
    """A plain MONAI U-Net (initialised from ``seed``), AdamW, and 3 batches of 2 random (image,
    label) pairs, in a fixed order or shuffled each epoch; ``own_generator``: the loader has one."""
    images = torch.randn(6, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))
    labels = (images > 0.5).long()
    loader = DataLoader(TensorDataset(images, labels), batch_size=2, shuffle=shuffle,
                        generator=torch.Generator().manual_seed(0) if own_generator else None)
    torch.manual_seed(seed)
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=num_res_units, dropout=dropout)
    return model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters(), lr=1e-2)


def test_a_loader_without_a_single_batch_is_refused_before_an_earlier_run_is_deleted(tmp_path):
    model, loader, loss, optimizer = _pieces()
    fit(model, loader, loss, optimizer, max_steps=1, checkpoint_dir=tmp_path, progress_bar=False)
    one_sample = DataLoader(TensorDataset(*loader.dataset[:1]), batch_size=2, drop_last=True)
    with pytest.raises(ConfigError, match="fit: the loader yields no batches"):
        fit(model, one_sample, loss, optimizer, max_steps=1, checkpoint_dir=tmp_path, overwrite=True,
            progress_bar=False)
    assert (tmp_path / "model" / "model.safetensors").is_file()  # the earlier run's export is kept


def test_fit_into_a_checkpoint_dir_in_use_by_a_live_run_is_refused(tmp_path):
    from accelerated_seg.run_lock import hold_run_folder

    live = hold_run_folder(tmp_path / "busy")
    try:
        with pytest.raises(ConfigError, match="is in use by another run .* or train into another checkpoint_dir"):
            fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "busy", progress_bar=False)
    finally:
        live.release()
    assert not (tmp_path / "busy").exists()  # nothing written: the holder's empty folder went with it


def test_fit_trains_checkpoints_and_exports_a_plain_state_dict(tmp_path):
    model, loader, loss, optimizer = _pieces()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    # 3 batches per epoch, 2 per optimizer step: windows run across the epoch boundary -> 3 steps.
    result = fit(model, loader, loss, optimizer, max_epochs=2, grad_accum_steps=2, checkpoint_dir=tmp_path,
                 log_every=1, progress_bar=False)
    assert result["step"] == 3 and not result["preempted"]
    assert [s for s, _ in result["losses"]] == [1, 2, 3]
    assert [p.name for p in complete_checkpoints(tmp_path / "checkpoints")] == ["step_3"]
    fresh = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1)
    fresh.load_state_dict(load_file(result["model"]), strict=True)
    assert any(not torch.equal(before[k], v) for k, v in fresh.state_dict().items())  # it did learn


def test_fit_records_its_run_in_its_checkpoints_and_writes_no_train_run_marker(tmp_path):
    """What docs/checkpoints.md says fit records (looked at in the hundred-and-sixth session): its settings and its
    launch in each checkpoint, no run_info.json, which would make the folder a train run's that train's overwrite
    deletes (it refuses it, saying so)."""
    import json

    from accelerated_seg.run_folder import resume_or_replace

    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path, progress_bar=False)
    checkpoint = tmp_path / "checkpoints" / "step_1"
    assert json.loads((checkpoint / "fit_settings.json").read_text())["fit.optimizer"] == "AdamW"
    assert json.loads((checkpoint / "strategy.json").read_text())["num_processes"] == 1
    assert not (tmp_path / "run_info.json").exists()
    with pytest.raises(ConfigError, match="holds checkpoints up to step_1 but no run_info.json, so it was not written "
                                          "by a training run"):
        resume_or_replace(tmp_path, None, True)


# Dropout without a generator of the loader's own: each pass drew its workers' seed from torch's
# generator, so the resumed pass drew one number more and every later dropout mask was the next one
@pytest.mark.parametrize("shuffle, dropout, own_generator",
                         [(False, 0.0, False), (True, 0.0, False), (False, 0.3, True), (False, 0.3, False)])
def test_fit_resumed_mid_run_ends_bit_identical(tmp_path, shuffle, dropout, own_generator):
    pieces = functools.partial(_pieces, shuffle=shuffle, dropout=dropout, own_generator=own_generator)
    full = fit(*pieces(), max_steps=5, checkpoint_dir=tmp_path / "full", save_every=2, keep_last=5, progress_bar=False)
    # As a new process would: other initial weights and another torch seed (an unseeded script's
    # next process has one), restored from the checkpoint with the data position and the shuffle's
    # seed. step_4 is mid-way through the second epoch, whose shuffled order must be the one the
    # uninterrupted run drew.
    resumed = fit(*pieces(seed=1), max_steps=5, checkpoint_dir=tmp_path / "resumed",
                  resume=str(tmp_path / "full" / "checkpoints" / "step_4"), progress_bar=False)
    assert resumed["step"] == 5
    _assert_the_same_weights(full["model"], resumed["model"])


def _assert_the_same_weights(file_a, file_b):
    a, b = load_file(file_a), load_file(file_b)
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), f"{key} differs after resume"


class _NoisyDataset(torch.utils.data.Dataset):
    """The 6 samples of ``_pieces``, each drawn with noise from the generators of the process that
    draws it (a loader worker's: seeded by the pass), as a random augmentation draws."""

    def __init__(self):
        self.images = torch.randn(6, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = self.images[i]
        return image + 0.3 * torch.rand(image.shape), (image > 0.5).long()


def test_fit_resumed_at_an_epochs_end_draws_the_same_augmentations_in_the_loaders_workers(tmp_path):
    """Each pass over a loader drew its workers' seed from the loader's generator, and a resumed run's
    generator (one of its own here, as docs/checkpoints.md advised for dropout) started again: the
    resumed epoch's workers drew the first epoch's noise (weights 0.024 apart in a probe of 2 workers)."""
    def pieces(seed):
        model, _, loss, optimizer = _pieces(seed)
        loader = DataLoader(_NoisyDataset(), batch_size=2, num_workers=1, multiprocessing_context="forkserver",
                            generator=torch.Generator().manual_seed(0))
        return model, loader, loss, optimizer

    full = fit(*pieces(0), max_steps=6, save_every=3, checkpoint_dir=tmp_path / "full", progress_bar=False)
    resumed = fit(*pieces(1), max_steps=6, checkpoint_dir=tmp_path / "resumed", progress_bar=False,
                  resume=str(tmp_path / "full" / "checkpoints" / "step_3"))
    _assert_the_same_weights(full["model"], resumed["model"])


def test_fit_logs_to_the_trackers_it_is_given_and_a_resume_draws_each_step_once(tmp_path):
    """fit(trackers="tensorboard") logged nothing before the seventieth session: the Accelerator was
    given the tracker, but it was never started."""
    model, loader, loss, optimizer = _pieces()
    fit(model, loader, loss, optimizer, max_steps=3, save_every=2, log_every=1, checkpoint_dir=tmp_path,
        trackers="tensorboard", progress_bar=False)
    assert tensorboard_curve(tmp_path, "train/loss") == [1, 2, 3]
    assert set(tensorboard_curve(tmp_path, "train/samples_per_s")) == {1, 2, 3}
    shutil.rmtree(tmp_path / "checkpoints" / "step_3")  # killed after logging step 3, before its save
    fit(*_pieces(), max_steps=3, save_every=2, log_every=1, checkpoint_dir=tmp_path, trackers="tensorboard",
        resume="latest", progress_bar=False)
    assert tensorboard_curve(tmp_path, "train/loss") == [1, 2, 3]


def test_a_fit_resumes_changed_settings_are_said_and_noted_in_tensorboard(tmp_path, capsys, monkeypatch):
    """TensorBoard keeps a run's first settings, so train's resumes write their changes as text; fit's checkpoints
    held no settings to compare with, and its resumes noted and said nothing (ninetieth session). What it says names
    fit's keywords (max_steps), not the trackers' fit.max_steps (until the ninety-second session). The resume's
    log, started in the same second as the run's by the process's 10th writer, was read first where 9 writers had
    started before the run's (until the ninety-third session)."""
    number_tensorboard_writers_from(monkeypatch, 9)
    def pieces():  # a schedule moves the lr each step: the resume's own is no change of settings
        model, loader, loss, optimizer = _pieces()
        return model, loader, loss, optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    model, loader, loss, optimizer, schedule = pieces()
    fit(model, loader, loss, optimizer, scheduler=schedule, max_steps=2, log_every=1, checkpoint_dir=tmp_path,
        trackers="tensorboard", progress_bar=False)
    model, loader, loss, optimizer, schedule = pieces()
    fit(model, loader, loss, optimizer, scheduler=schedule, max_steps=4, max_grad_norm=1.0, log_every=1,
        checkpoint_dir=tmp_path, trackers="tensorboard", resume="latest", progress_bar=False)
    assert tensorboard_settings(tmp_path / "train")["fit.max_steps"] == 2  # the start's: TensorBoard keeps
    [note] = tensorboard_run(tmp_path / "train").Tensors("settings_changed_at_resume/text_summary")
    assert note.step == 3 and note.tensor_proto.string_val[0].decode().splitlines() == [
        "- fit.max_grad_norm: 0.0 -> 1.0", "- fit.max_steps: 2 -> 4"]
    assert (f"resuming with settings other than {tmp_path / 'checkpoints' / 'step_2'}'s, this run's from here on: "
            f"max_grad_norm 0.0 -> 1.0; max_steps 2 -> 4\n") in capsys.readouterr().out
    assert tensorboard_curve(tmp_path, "train/loss") == [1, 2, 3, 4]


def test_a_fit_resumed_with_an_optimizer_of_other_settings_says_the_checkpoints_go_on(tmp_path, capsys):
    """torch's load_state_dict puts the saved param groups' settings back: a fit resumed with an optimizer built
    at another rate trains on at the checkpoint's (as docs/checkpoints.md says), and nothing said so at run time."""
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path, progress_bar=False)  # AdamW at 0.01, weight decay 0.01
    model, loader, loss, _ = _pieces()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    capsys.readouterr()
    fit(model, loader, loss, optimizer, max_steps=2, checkpoint_dir=tmp_path, resume="latest", progress_bar=False)
    said = capsys.readouterr().out
    assert (f"the optimizer state loaded from {tmp_path / 'checkpoints' / 'step_1'} carries its own lr 0.01, "
            f"weight_decay 0.01 (the optimizer given to this resume had lr 0.001, weight_decay 0.05), and training "
            f"goes on with it: a resume continues its checkpoint's optimizer. To train on with other settings, start "
            f"a new run from its weights: resume with max_steps=1 to export them to {tmp_path / 'model'}") in said
    assert optimizer.param_groups[0]["lr"] == 1e-2  # the rate it trained at: the checkpoint's, as before
    assert "this run's from here on: max_steps 1 -> 2\n" in said  # the rate is no setting the run changed
    fit(*_pieces(), max_steps=3, checkpoint_dir=tmp_path, resume="latest", progress_bar=False)
    assert "carries its own" not in capsys.readouterr().out  # the optimizer it was written with


@pytest.mark.parametrize("schedule", ["lambda", "one_cycle"])
def test_a_scheduled_fit_resumed_says_the_schedules_base_rate_goes_on_not_the_steps(tmp_path, capsys, schedule):
    """Under a schedule the rate in the optimizer is the step's, and differs at every resume: the base rate
    (LambdaLR's base_lrs, from the checkpoint too) is compared, and OneCycleLR's cycled momentum is the step's."""
    def pieces(lr):
        model, loader, loss, _ = _pieces()
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        return model, loader, loss, optimizer, (
            torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5 ** step) if schedule == "lambda" else
            torch.optim.lr_scheduler.OneCycleLR(optimizer, lr, total_steps=4))

    model, loader, loss, optimizer, scheduler = pieces(1e-2)
    fit(model, loader, loss, optimizer, scheduler=scheduler, max_steps=2, checkpoint_dir=tmp_path, progress_bar=False)
    capsys.readouterr()
    model, loader, loss, optimizer, scheduler = pieces(1e-2)
    fit(model, loader, loss, optimizer, scheduler=scheduler, max_steps=3, checkpoint_dir=tmp_path, resume="latest",
        progress_bar=False)
    assert "carry their own" not in capsys.readouterr().out  # the same schedule, at a later step
    model, loader, loss, optimizer, scheduler = pieces(1e-3)
    fit(model, loader, loss, optimizer, scheduler=scheduler, max_steps=4, checkpoint_dir=tmp_path, resume="latest",
        progress_bar=False)
    said = capsys.readouterr().out
    brought_back = ("base lr 0.01 (the optimizer given to this resume had base lr 0.001)" if schedule == "lambda" else
                    "base lr 0.0004, max_lr 0.01, min_lr 4e-08 (the optimizer given to this resume had base lr 4e-05, "
                    "max_lr 0.001, min_lr 4e-09)")  # OneCycleLR's start and end: max_lr / 25, then / 10^4
    assert (f"the optimizer state and schedule loaded from {tmp_path / 'checkpoints' / 'step_3'} carry their own "
            f"{brought_back}") in said


def test_fits_overwrite_sets_the_replaced_runs_log_aside_and_a_tensor_lr_is_a_setting(tmp_path, capsys):
    """fit's overwrite keeps train/, and TensorBoard keeps a run's first settings: the new run's row
    showed the replaced run's. An lr given as a tensor failed in torch's hparams (IndexError)."""
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path, trackers="tensorboard", progress_bar=False)
    model, loader, loss, _ = _pieces()
    optimizer = torch.optim.Adam(model.parameters(), lr=torch.tensor(3e-3))
    fit(model, loader, loss, optimizer, max_steps=1, checkpoint_dir=tmp_path, trackers="tensorboard",
        overwrite=True, progress_bar=False)
    [aside] = (tmp_path / "train").glob("earlier_run_*")
    assert f"the TensorBoard log of an earlier run in {tmp_path}, which this run does not continue, is kept in " \
           f"{aside}" in capsys.readouterr().out
    assert tensorboard_settings(tmp_path / "train")["fit.lr"] == pytest.approx(3e-3)
    assert tensorboard_settings(tmp_path / "train")["fit.optimizer"] == "Adam"
    assert tensorboard_settings(aside)["fit.optimizer"] == "AdamW"


def test_fits_trackers_take_the_forms_train_trackers_takes_and_a_typo_names_fits_argument(tmp_path):
    """A list, None or False (as train.trackers takes them from YAML) was an AttributeError traceback in
    fit: 'list' object has no attribute 'split' (seventy-sixth session's probe)."""
    fit(*_pieces(), max_steps=1, log_every=1, checkpoint_dir=tmp_path / "list", trackers=["tensorboard"],
        progress_bar=False)
    assert tensorboard_curve(tmp_path / "list", "train/loss") == [1]
    for off in (None, False, []):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / f"off_{off}", trackers=off, progress_bar=False)
        assert not (tmp_path / f"off_{off}" / "train").exists()
    with pytest.raises(ConfigError, match="^fit's trackers must be none, or tracker names accelerate knows, "
                                          r".*; got 'tensorbord' \(did you mean 'tensorboard'\?\)$"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "typo", trackers=["tensorbord"], progress_bar=False)
    with pytest.raises(ConfigError, match="^fit's trackers must be tracker names, comma separated or a list"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "typo", trackers=1, progress_bar=False)


def test_fit_resumed_with_fewer_steps_than_its_checkpoint_is_refused(tmp_path):
    fit(*_pieces(), max_steps=2, checkpoint_dir=tmp_path / "run", progress_bar=False)
    # in fit's own words since the hundred-and-fourth session (every caller's settings in one parenthesis before)
    with pytest.raises(ConfigError, match=r"step_2 is at step 2, beyond the 1 optimizer step this run asks for "
                                          r"\(fit's max_steps or max_epochs\): .* new run from its weights: resume "
                                          r"it under the launch that wrote it with max_steps at its step"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False,
            resume=str(tmp_path / "run" / "checkpoints" / "step_2"))


def test_a_fit_resumes_checkpoint_gone_before_it_is_loaded_is_said_to_be_gone_in_fits_words(tmp_path, monkeypatch,
                                                                                           capsys):
    """Another fit still training may rotate the checkpoint a fit resumes away (keep_last) after it was found:
    until the ninety-second session, gone after that accelerate's ValueError traceback, gone while it was
    loaded a FileNotFoundError's; and gone once loaded, the settings it saved were read after, and the
    resume said and noted no change. Nothing of the new fit is left where it is refused."""
    import accelerate.checkpointing

    import accelerated_seg.resume as resume
    import accelerated_seg.train as train_module

    other, out = tmp_path / "other", tmp_path / "run"
    fit(*_pieces(), max_steps=2, save_every=1, keep_last=2, checkpoint_dir=other, progress_bar=False)
    rotating, kept = other / "checkpoints" / "step_1", tmp_path / "kept"
    shutil.copytree(rotating, kept)
    gone = (f"resume={str(rotating)!r} was removed after the resume found it ({other / 'checkpoints'} holds step_2; "
            f"a run still training there removes older checkpoints as it saves, keeping the newest keep_last): give "
            f"one of them, or 'latest'")
    for module, name in ((train_module, "resume_or_replace"), (resume, "check_resume_network"),
                         (accelerate.checkpointing, "load_model")):  # loaded: its weights, not the rest
        shutil.copytree(kept, rotating, dirs_exist_ok=True)
        with monkeypatch.context() as patched:
            folder_removed_at(patched, module, name, rotating)
            with pytest.raises(ConfigError) as refused:
                fit(*_pieces(), max_steps=3, checkpoint_dir=out, progress_bar=False, resume=str(rotating))
        assert str(refused.value) == gone, name
        assert not out.exists(), name
    shutil.copytree(kept, rotating, dirs_exist_ok=True)
    folder_removed_at(monkeypatch, resume, "load_state_also_of_wrapped_aliases", rotating)
    capsys.readouterr()
    assert fit(*_pieces(), max_steps=3, checkpoint_dir=out, progress_bar=False, resume=str(rotating))["step"] == 3
    assert "from here on: max_steps 2 -> 3" in capsys.readouterr().out


def test_a_fit_resume_with_nothing_there_is_refused_in_fits_own_words(tmp_path):
    """A rotated-away or mistyped step, or 'latest' in an empty checkpoint_dir: fit was told of train.resume,
    train.output_dir and train.keep_last, settings it has none of (until the ninety-first session)."""
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    gone = tmp_path / "run" / "checkpoints" / "step_9"
    with pytest.raises(ConfigError, match=re.escape(f"resume={str(gone)!r} does not exist ({gone.parent} holds "
                                                    f"step_1; keep_last keeps the newest")) as refused:
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False, resume=str(gone))
    assert "train." not in str(refused.value)
    with pytest.raises(ConfigError, match=re.escape(f"resume='latest' but {tmp_path / 'new' / 'checkpoints'} holds "
                                                    f"no complete checkpoint: check fit's checkpoint_dir, or drop "
                                                    f"resume to start a new run")):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "new", progress_bar=False, resume="latest")


def test_fits_ranks_that_see_the_checkpoint_dir_differently_are_told_of_fits_checkpoint_dir(tmp_path, monkeypatch):
    """Two ranks, one of which sees another checkpoint: fit was told train.output_dir must be one folder
    (until the ninety-first session)."""
    from faults import a_second_rank_resuming_elsewhere

    a_second_rank_resuming_elsewhere(monkeypatch)
    with pytest.raises(ConfigError, match=r"the ranks see the run folder differently \(rank 0: a new run; rank 1: "
                                          r"resume /elsewhere/step_4\): fit's checkpoint_dir must be one folder "
                                          r"that every node sees alike") as refused:
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert "train." not in str(refused.value)


def test_a_fit_resume_under_another_layout_or_at_its_end_speaks_fits_words(tmp_path, capsys, monkeypatch):
    """A checkpoint this launch cannot read sent fit to `--train.init_from=<folder>` after an export that cannot
    build fit's network, and a resume at its step said `which is train.max_steps already` (until the
    ninety-first session); it is refused before accelerate's prepare."""
    import json

    import accelerate

    fit(*_pieces(), max_steps=2, checkpoint_dir=tmp_path / "run", progress_bar=False)
    capsys.readouterr()
    again = fit(*_pieces(), max_steps=2, checkpoint_dir=tmp_path / "run", progress_bar=False, resume="latest")
    assert again["step"] == 2
    assert "at step 2, which is max_steps already: nothing to train; the export is written from it" in (
        capsys.readouterr().out)
    layout = tmp_path / "run" / "checkpoints" / "step_2" / "strategy.json"
    # As if written under ZeRO-3: DeepSpeed's partitioned files cannot load into this launch.
    layout.write_text(json.dumps({**json.loads(layout.read_text()), "format": "deepspeed", "zero_stage": 3,
                                  "strategy": "DeepSpeed"}))

    def too_late(*args, **kwargs):
        raise AssertionError("accelerate's prepare ran before the refusal")  # until the ninety-sixth session

    monkeypatch.setattr(accelerate.Accelerator, "prepare", too_late)
    with pytest.raises(ConfigError, match=r"cannot resume .*format deepspeed -> full.* start a new run from its "
                                          r"weights: resume it under the launch that wrote it with max_steps at its "
                                          r"step, .* load that model.safetensors into your network "
                                          r"\(safetensors.torch.load_model\) and fit it into another "
                                          r"checkpoint_dir") as refused:
        fit(*_pieces(), max_steps=4, checkpoint_dir=tmp_path / "run", progress_bar=False, resume="latest")
    assert "train." not in str(refused.value)


def test_a_fit_stopped_by_ctrl_c_is_told_of_fits_keywords(tmp_path, monkeypatch, capsys, ctrl_c_raises):
    """`run the same command with --train.resume=latest`, `(train.save_every)`: until the ninety-first session."""
    import signal

    from monai.losses import DiceCELoss

    from faults import loss_forward_with, signal_on

    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGINT)))  # step 3's forward
    with pytest.raises(KeyboardInterrupt):
        fit(*_pieces(), max_steps=9, checkpoint_dir=tmp_path / "run", save_every=2, progress_bar=False)
    assert (f"interrupted (Ctrl-C) after step 2; the newest whole checkpoint is "
            f"{tmp_path / 'run' / 'checkpoints' / 'step_2'}: call fit again with resume='latest' to continue from "
            f"it") in capsys.readouterr().out
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(0, signal.SIGINT)))
    with pytest.raises(KeyboardInterrupt):
        fit(*_pieces(), max_steps=9, checkpoint_dir=tmp_path / "early", save_every=2, progress_bar=False)
    said = capsys.readouterr().out
    assert "after step 0; no checkpoint was saved yet (save_every), so a new run starts over" in said
    assert "train." not in said


def test_a_fit_resume_of_a_trains_checkpoint_is_refused_before_the_load_in_fits_words(tiny_config, tmp_path):
    """train's checkpoint holds the network its config.yaml builds: the load refused it by its tensors' names,
    sending the user to another train.output_dir (until the ninety-first session)."""
    from accelerated_seg.train import train

    train(tiny_config(tmp_path / "run", train__max_steps=1))
    checkpoint = tmp_path / "run" / "checkpoints" / "step_1"
    with pytest.raises(ConfigError, match=re.escape(
            f"fit: cannot resume from {checkpoint}: it was saved by a run of accelerated-seg train (or the "
            f"estimator, Segmentation.fit), whose network its config.yaml builds, not by fit with a network of your "
            f"own. Resume it with that run: accelerated-seg train --config {checkpoint / 'config.yaml'} "
            f"--train.resume={checkpoint}")) as refused:
        fit(*_pieces(), max_steps=2, checkpoint_dir=tmp_path / "mine", progress_bar=False, resume=str(checkpoint))
    assert f"{tmp_path / 'run' / 'model' / 'model.safetensors'}" in str(refused.value)
    assert "train.output_dir" not in str(refused.value)
    assert not (tmp_path / "mine" / "checkpoints").exists()  # nothing of the fit's written


def test_a_fit_resume_with_another_network_is_refused_in_fits_words(tmp_path):
    """"Resume with its config (.../config.yaml), or start the new network in another train.output_dir": an
    empty file and a setting fit has none of (until the ninety-first session)."""
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    images, labels = torch.randn(4, 1, 16, 16, 16), torch.zeros(4, 1, 16, 16, 16, dtype=torch.long)
    wider = UNet(3, 1, 2, channels=(8, 16), strides=(2,), num_res_units=1)
    with pytest.raises(ConfigError, match=r"fit: cannot resume from .*step_1: it holds another network than the one "
                                          r"given \(.*\): resume it with the network that wrote it, or fit the new "
                                          r"network into another checkpoint_dir") as refused:
        fit(wider, DataLoader(TensorDataset(images, labels), batch_size=2), DiceCELoss(to_onehot_y=True, softmax=True),
            torch.optim.AdamW(wider.parameters()), max_steps=2, checkpoint_dir=tmp_path / "run", progress_bar=False,
            resume="latest")
    assert "train." not in str(refused.value)


def test_the_workers_of_a_users_loader_leave_the_stop_signals_to_the_rank_and_keep_their_own_init(tmp_path):
    """Preemption signals reach loader workers too (docs/checkpoints.md); fit spares a user's loader's
    workers as train spares its own, and still runs the loader's own worker_init_fn after that."""
    import functools

    from faults import record_stop_signal_disposition

    model, loader, loss, optimizer = _pieces()
    record = tmp_path / "worker_sigterm.txt"
    users = DataLoader(loader.dataset, batch_size=2, num_workers=1, multiprocessing_context="forkserver",
                       worker_init_fn=functools.partial(record_stop_signal_disposition, record))
    fit(model, users, loss, optimizer, max_steps=2, checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert record.read_text() == "ignored"  # the user's own init ran, after ours
    # and the workers end with this process however it ends (test_workers.py kills a training rank)
    assert users.worker_init_fn.func is init_training_worker and users.worker_init_fn.keywords["rank_pid"] == os.getpid()


@pytest.mark.parametrize("below", [False, True])
def test_a_file_where_the_checkpoint_dir_must_go_is_refused_before_training(tmp_path, below):
    """An OSError at the first save, once the steps were trained, before the check moved into
    resume_or_replace (shared with train and the estimator)."""
    taken = tmp_path / "taken"
    taken.write_text("a file of the user's")
    with pytest.raises(ConfigError, match=f"fit's checkpoint_dir='{taken / 'sub' if below else taken}': {taken} is "
                                          "a file, so the folder cannot be made there"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=taken / "sub" if below else taken, progress_bar=False)
    assert taken.read_text() == "a file of the user's"


def test_a_file_named_checkpoints_in_the_run_folder_is_refused_before_training(tmp_path):
    """NotADirectoryError at the first save, after the training, before the twenty-eighth session."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoints").write_text("a file of the user's")
    with pytest.raises(ConfigError, match=r"run/checkpoints is a file, where the run's checkpoints go: move it, or "
                                          r"train into another checkpoint_dir"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert (tmp_path / "run" / "checkpoints").read_text() == "a file of the user's"


def test_fit_needs_exactly_one_length(tmp_path):
    with pytest.raises(ConfigError, match="max_epochs and max_steps"):
        fit(*_pieces(), checkpoint_dir=tmp_path)


@pytest.mark.parametrize("setting, message", [
    ({"max_steps": 0}, "max_steps must be >= 1, got 0"),
    ({"max_steps": 3, "log_every": 0}, "log_every must be >= 1, got 0"),
    ({"max_steps": 3, "grad_accum_steps": 0}, "grad_accum_steps must be >= 1"),
    ({"max_epochs": 1, "keep_last": 0}, "keep_last must be >= 1"),
])
def test_fit_refuses_an_impossible_setting_before_any_work(tmp_path, setting, message):
    with pytest.raises(ConfigError, match=f"fit: {message}"):
        fit(*_pieces(), checkpoint_dir=tmp_path / "run", **setting)
    assert not (tmp_path / "run").exists()  # nothing was started, nothing written


def _other_optimizer(model):
    return torch.optim.AdamW(UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1).parameters(), lr=1e-2)


@pytest.mark.parametrize("optimizer, scheduler, message", [
    # a notebook's model cell run again, its optimizer's not: it trained nothing and exported the initial weights
    (_other_optimizer, None, "the optimizer holds none of the model's parameters"),
    # torch's TypeError at the first step
    (None, lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o), "scheduler ReduceLROnPlateau waits for a "
                                                                     "validation metric"),
    # torch's ValueError ("Tried to step 4 times") at step 4, in the middle of training
    (None, lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=3), "the scheduler OneCycleLR is built "
                                                                                 "for total_steps=3, but the run "
                                                                                 "takes 6 optimizer steps"),
    # one inside a ChainedScheduler or a SequentialLR: the same ValueError in the middle of training
    (None, lambda o: torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.OneCycleLR(
        o, 0.1, total_steps=3)]), "the scheduler OneCycleLR inside ChainedScheduler is built for total_steps=3, but "
                                  "the run takes 6 optimizer steps"),
    (None, lambda o: torch.optim.lr_scheduler.SequentialLR(o, [
        torch.optim.lr_scheduler.LinearLR(o, total_iters=2),
        torch.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=3)], [2]),
     r"the scheduler OneCycleLR inside SequentialLR is built for total_steps=3, but the run takes 6 optimizer steps "
     r"\(.*\), 4 of them under it: build it with total_steps=4"),
])
def test_fit_refuses_an_optimizer_or_scheduler_its_loop_cannot_step_before_any_work(tmp_path, optimizer, scheduler,
                                                                                      message):
    model, loader, loss, own = _pieces()
    fit(model, loader, loss, own, max_steps=1, checkpoint_dir=tmp_path, progress_bar=False)
    stepped = optimizer(model) if optimizer else own
    with pytest.raises(ConfigError, match=f"fit: {message}"):
        fit(model, loader, loss, stepped, scheduler=scheduler(stepped) if scheduler else None, max_epochs=2,
            checkpoint_dir=tmp_path, overwrite=True, progress_bar=False)
    assert [p.name for p in complete_checkpoints(tmp_path / "checkpoints")] == ["step_1"]  # the earlier run is kept
    assert (tmp_path / "model" / "model.safetensors").is_file()


def test_a_resume_holds_the_checkpoints_schedule_to_the_run_not_the_one_built(tmp_path):
    """After a resume the scheduler is the checkpoint's, whatever it was built with: built anew for the longer
    run as the message asked, it was refused again, still asked to be built so."""
    model, loader, loss, optimizer = _pieces()
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=2)
    fit(model, loader, loss, optimizer, scheduler=schedule, max_steps=2, checkpoint_dir=tmp_path, progress_bar=False,
        save_every=1, keep_last=2)
    before = sorted(path.name for path in tmp_path.iterdir())
    checkpoints = sorted(path.name for path in (tmp_path / "checkpoints").iterdir())
    model, loader, loss, optimizer = _pieces()
    longer = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=4)
    with pytest.raises(ConfigError, match=r"built for total_steps=2 \(as .*step_2 restored it\), but the run takes 4 "
                                          r"optimizer steps .*: a resume goes on with the schedule its checkpoint "
                                          r"saved") as refused:
        fit(model, loader, loss, optimizer, scheduler=longer, max_steps=4, checkpoint_dir=tmp_path, resume="latest",
            progress_bar=False)
    assert "build it with total_steps" not in str(refused.value)
    # resuming an older step, refused so, leaves the later course where it was (it was moved aside first)
    model, loader, loss, optimizer = _pieces()
    later = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=4)
    older_step = tmp_path / "checkpoints" / "step_1"
    with pytest.raises(ConfigError, match="built for total_steps=2"):
        fit(model, loader, loss, optimizer, scheduler=later, max_steps=4, checkpoint_dir=tmp_path, resume=older_step,
            progress_bar=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == before
    assert sorted(path.name for path in (tmp_path / "checkpoints").iterdir()) == checkpoints
    # the other way round: a schedule built shorter is replaced by the checkpoint's, which carries the run
    model, loader, loss, optimizer = _pieces()
    fit(model, loader, loss, optimizer, scheduler=torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=4),
        max_steps=2, checkpoint_dir=tmp_path / "long", progress_bar=False)
    model, loader, loss, optimizer = _pieces()
    shorter = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=2)
    assert fit(model, loader, loss, optimizer, scheduler=shorter, max_steps=4, checkpoint_dir=tmp_path / "long",
               resume="latest", progress_bar=False)["step"] == 4
    assert shorter.total_steps == 4


class _Stream(torch.utils.data.IterableDataset):
    """A streaming dataset, as MONAI's are, that says nothing of its length."""

    def __iter__(self):
        return iter([(torch.zeros(1, 16, 16, 16), torch.zeros(1, 16, 16, 16, dtype=torch.long))] * 4)


@pytest.mark.parametrize("loader, message", [
    (lambda batches: list(batches), "loader must be a torch.utils.data.DataLoader, got a list"),
    (lambda batches: (batch for batch in batches), "loader must be a torch.utils.data.DataLoader, got a generator"),
    (lambda _: DataLoader(_Stream(), batch_size=2), "the loader's _Stream has no length"),
])
def test_fit_refuses_a_loader_it_cannot_count_or_shard_in_one_line(tmp_path, loader, message):
    """A list of batches or a generator was an AttributeError ('batch_size'), a loader without a length
    torch's TypeError (seventy-third session)."""
    model, batches, loss, optimizer = _pieces()
    with pytest.raises(ConfigError, match=f"fit: {message}"):
        fit(model, loader(batches), loss, optimizer, max_steps=2, checkpoint_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_an_accumulation_window_across_the_epoch_boundary_weighs_every_sample_equally(tmp_path):
    # 3 samples, 1 per micro-batch, 2 micro-batches per step: step 2 takes sample 2 of epoch 0 and
    # sample 0 of epoch 1. accelerate's default would step after sample 2 alone, with half its weight.
    # The same steps as batches of 2 without accumulation must give the same parameters.
    images = torch.randn(3, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))
    labels = (images > 0.5).long()
    order = [0, 1, 2, 0, 1, 2]  # the micro-batch stream over two epochs, regrouped in pairs below

    def run(dataset, batch_size, accum, out):
        torch.manual_seed(0)
        model = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1, bias=False)  # see test_distributed
        result = fit(model, DataLoader(dataset, batch_size=batch_size, shuffle=False),
                     DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters(), lr=1e-2),
                     max_steps=3, grad_accum_steps=accum, checkpoint_dir=out, progress_bar=False)
        return load_file(result["model"])

    accumulated = run(TensorDataset(images, labels), 1, 2, tmp_path / "accum")
    paired = run(TensorDataset(images[order], labels[order]), 2, 1, tmp_path / "pairs")
    for key in paired:
        torch.testing.assert_close(accumulated[key], paired[key], rtol=0, atol=1e-5, msg=key)


def test_fit_refuses_a_sharded_profile_that_cannot_take_effect_unless_allowed(tmp_path, monkeypatch):
    """Told of train.allow_strategy_fallback=true before its own keyword (until the ninety-second session)."""
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")  # an FSDP profile launched where there is no GPU
    with pytest.raises(ConfigError, match=r"asked for FSDP, which accelerate enables only on GPUs, so it is NOT in "
                                          r"effect.*, or set "
                                          r"allow_strategy_fallback=True to run anyway\.$"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "refused", progress_bar=False)
    assert not (tmp_path / "refused" / "checkpoints").exists()
    result = fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False,
                 allow_strategy_fallback=True)
    assert result["step"] == 1


@pytest.mark.skipif(torch.cuda.is_available(), reason="accelerate builds this FSDP1 launch where a GPU is visible")
def test_an_fsdp1_profile_accelerate_cannot_build_without_a_gpu_is_one_clear_error(tmp_path, monkeypatch):
    # What `accelerate launch --config_file configs/accelerate/fsdp_full_shard.yaml` exports.
    for name, value in (("ACCELERATE_USE_FSDP", "true"), ("FSDP_VERSION", "1"), ("FSDP_SYNC_MODULE_STATES", "true")):
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match="FSDP1 with fsdp_sync_module_states: true, which accelerate can set up "
                                          "only on a GPU.*configs/accelerate/cpu.yaml"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False,
            allow_strategy_fallback=True)  # no fallback exists: accelerate itself cannot start
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("sharding, resharding, message", [
    ("SHARD_GRAD_OP", "true", r"for fsdp_sharding_strategy SHARD_GRAD_OP, an FSDP1 setting that FSDP2 ignores: it "
                              r"would run fsdp_reshard_after_forward: true, which shards as FULL_SHARD\. Remove "
                              r"fsdp_sharding_strategy and set fsdp_reshard_after_forward: false$"),
    ("NO_SHARD", "false", r"for fsdp_sharding_strategy NO_SHARD, .* FSDP2 has no NO_SHARD: .*fsdp_no_shard.yaml"),
    ("4", "true", r"for fsdp_sharding_strategy HYBRID_SHARD, .* FSDP2 has no HYBRID_SHARD"),  # as its number
])
def test_an_fsdp2_profile_naming_an_fsdp1_sharding_strategy_is_one_clear_error(tmp_path, monkeypatch, sharding,
                                                                              resharding, message):
    """accelerate's FSDP2 plugin does not read fsdp_sharding_strategy: SHARD_GRAD_OP ran resharding after
    forward, as FULL_SHARD, without a word (ninety-third session's probe). Judged before the fallback, which
    a GPU would not take."""
    for name, value in (("ACCELERATE_USE_FSDP", "true"), ("FSDP_VERSION", "2"), ("FSDP_SHARDING_STRATEGY", sharding),
                        ("FSDP_RESHARD_AFTER_FORWARD", resharding)):
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=r"^the accelerate config asks FSDP2 \(fsdp_version: 2\) " + message):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False,
            allow_strategy_fallback=True)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("environment", [
    {"FSDP_VERSION": "2", "FSDP_SHARDING_STRATEGY": "FULL_SHARD", "FSDP_RESHARD_AFTER_FORWARD": "true"},  # fsdp2.yaml
    {"FSDP_VERSION": "2", "FSDP_SHARDING_STRATEGY": "SHARD_GRAD_OP", "FSDP_RESHARD_AFTER_FORWARD": "false"},  # agree
    {"FSDP_VERSION": "1", "FSDP_SHARDING_STRATEGY": "NO_SHARD"},  # FSDP1 reads it
])
def test_an_fsdp_sharding_strategy_fsdp2_would_run_as_asked_is_not_refused(monkeypatch, environment):
    from accelerated_seg.strategy import fsdp2_sharding_error

    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert fsdp2_sharding_error() is None


@pytest.mark.parametrize("batches, got", [
    ([{"img": torch.zeros(1, 16, 16, 16), "seg": torch.zeros(1, 16, 16, 16, dtype=torch.long)}] * 2,
     r"dicts with the keys \['img', 'seg'\]"),
    ([(torch.zeros(1, 16, 16, 16), torch.zeros(1, 16, 16, 16, dtype=torch.long), 0)] * 2, "lists of 3 items"),
    ([torch.zeros(1, 16, 16, 16)] * 2, "batches of type Tensor"),
])
def test_a_loader_yielding_something_else_than_images_and_labels_is_one_clear_error(tmp_path, batches, got):
    """A KeyError 'image' or an unpacking ValueError from inside the loop before the twenty-ninth session."""
    model, _, criterion, optimizer = _pieces()
    with pytest.raises(ConfigError, match=rf"^fit: the loader yields {got}; each batch must be a dict with 'image' "
                                          r"and 'label' .* or an \(image, label\) pair$"):
        fit(model, DataLoader(batches, batch_size=2), criterion, optimizer, max_steps=1,
            checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert complete_checkpoints(tmp_path / "run" / "checkpoints") == []


def test_mixed_precision_fp8_is_one_clear_error_before_any_work(tmp_path, monkeypatch):
    """accelerate's bare ValueError ("requires transformer_engine or MS-AMP") before the twenty-ninth session;
    with those installed it would convert only linear layers of these convolutional networks."""
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "fp8")  # an accelerate config's mixed_precision: fp8
    with pytest.raises(ConfigError, match=r"the launch asks for fp8 \(ACCELERATE_MIXED_PRECISION=fp8, as the launch "
                                          r"exports it\), which accelerated_seg does not train with: .*Choose bf16 "
                                          r"\(or fp16\)"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert not (tmp_path / "run").exists()


def test_a_launch_accelerate_did_not_join_is_refused_before_the_run_folder_is_locked(tmp_path, monkeypatch):
    """A GPU profile's 2 processes on a machine without GPUs are each a lone main process, and each took
    the folder's lock: the one that lost the race was told its sibling rank was "another run" (in 1 of 4
    launches of the eighty-fourth session's probe), not that the profile needs GPUs."""
    import accelerated_seg.run_folder_ranks as run_folder_ranks

    def sibling_holds_it(out, elsewhere):  # the rank that lost the race to its sibling
        raise ConfigError(f"{out} is in use by another run")

    monkeypatch.setattr(run_folder_ranks, "hold_run_folder", sibling_holds_it)
    # A launch of 2 (WORLD_SIZE and LOCAL_RANK, which in this process would make accelerate init a group of 2
    # and wait for the other rank): accelerate joined this process alone
    monkeypatch.setattr("accelerated_seg.strategy.launched_processes", lambda: 2)
    with pytest.raises(ConfigError, match=r"^2 processes were launched but accelerate joined 1 .*needs GPUs"):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)


@pytest.mark.parametrize("environment, json_text, message", [
    ({"ACCELERATE_DEEPSPEED_ZERO_STAGE": "4"}, None,
     r"asks for DeepSpeed zero_stage 4, and ZeRO has stages 0 to 3 .*set deepspeed_config.zero_stage"),
    ({}, None, r"deepspeed_config_file .*ds.json cannot be read \(FileNotFoundError"),
    ({}, '{"zero_optimization": {"stage": 2},}', r"the DeepSpeed json .*ds.json is not valid JSON \(Expecting "
                                                 r"property name enclosed in double quotes: line 1 column 36 \(char "
                                                 r"35\)\): a comma before that '}', which JSON does not allow"),
    ({}, '{"bf16": {"enabled": true}}', r"ds.json has no zero_optimization block, which accelerate needs"),
    ({}, '{"zero_optimization": {"stage": 4}}', r"ds.json asks for zero_optimization.stage 4, and ZeRO has stages 0"),
    # a typo in the deepspeed_config section, which accelerate launch dropped without a word (ninety-third session)
    ({"ACCELERATE_DEEPSPEED_ZERO_STAGE": "2", "ACCELERATE_CONFIG_DS_FIELDS": "zero_stage,offload_optimizer_devices"},
     None, r"deepspeed_config has offload_optimizer_devices \(did you mean offload_optimizer_device\?\), which "
           r"accelerate launch does not know and would ignore"),
    ({"ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file,zero_stage,mixed_precision"},
     '{"zero_optimization": {"stage": 2}}', r"names a DeepSpeed json \(.*ds.json\) and also sets zero_stage beside "
                                            r"it, which accelerate refuses"),
    # the launch's precision, which it took from the profile: said on its own, once the fields are gone
    ({"ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file,mixed_precision", "ACCELERATE_MIXED_PRECISION": "bf16"},
     '{"zero_optimization": {"stage": 2}}', r"names a DeepSpeed json \(.*ds.json\) and also sets mixed_precision: "
                                            r"'bf16' at its top, which accelerate refuses beside a json"),
])
def test_a_deepspeed_launch_accelerate_would_refuse_is_one_clear_error_before_any_work(
        tmp_path, monkeypatch, environment, json_text, message):
    """Each was a traceback from accelerate or DeepSpeed (eighty-fourth session's probe); a zero_stage
    of 4 was printed as "ZeRO-4" and refused by DeepSpeed at prepare, after the whole data work."""
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    monkeypatch.delenv("ACCELERATE_USE_CPU", raising=False)
    monkeypatch.delenv("ACCELERATE_CONFIG_DS_FIELDS", raising=False)
    if "ACCELERATE_DEEPSPEED_ZERO_STAGE" not in environment:
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_CONFIG_FILE", str(tmp_path / "ds.json"))
        if json_text is not None:
            (tmp_path / "ds.json").write_text(json_text)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False)
    assert not (tmp_path / "run").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="with a GPU accelerate picks the backend itself")
@pytest.mark.parametrize("environment", [
    {"WORLD_SIZE": "2", "LOCAL_RANK": "0"},  # DDP: accelerate handles it (ACCELERATE_USE_CPU, gloo)
    {"ACCELERATE_USE_DEEPSPEED": "true", "WORLD_SIZE": "1", "LOCAL_RANK": "0"},  # one DeepSpeed process
    {"ACCELERATE_USE_DEEPSPEED": "true", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "ACCELERATE_USE_CPU": "true"},
])
def test_only_a_multi_process_deepspeed_launch_without_a_gpu_is_joined_over_gloo(environment, monkeypatch):
    """The joining itself (2 ranks forming one ZeRO run) is tests/test_deepspeed_cpu.py's; here: it
    leaves every other launch to accelerate, creating no process group."""
    from accelerated_seg.strategy import join_deepspeed_ranks_over_gloo

    for name in ("ACCELERATE_USE_DEEPSPEED", "ACCELERATE_USE_FSDP", "ACCELERATE_USE_CPU", "WORLD_SIZE", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert join_deepspeed_ranks_over_gloo() is False
    assert not torch.distributed.is_initialized()


class _SlowDataset(torch.utils.data.Dataset):
    """Random 16^3 samples that each take ``delay`` seconds to "load"."""

    def __init__(self, delay: float, length: int = 6):
        self.delay, self.length = delay, length
        self.images = torch.randn(length, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        time.sleep(self.delay)
        return {"image": self.images[i], "label": (self.images[i] > 0.5).to(torch.uint8)}


def test_the_loop_reports_throughput_and_how_long_it_waited_for_data(tmp_path):
    def run(delay, out):
        model, _, loss, optimizer = _pieces()
        loader = DataLoader(_SlowDataset(delay), batch_size=2)
        # save_every=1: checkpointing every step runs paused, outside the measured time.
        # log_every = one epoch of 3 batches: accelerate's loader fetches one batch ahead, so a window
        # that is not a whole epoch can be charged a neighbour's loading.
        return fit(model, loader, loss, optimizer, max_steps=6, log_every=3, save_every=1, checkpoint_dir=out,
                   progress_bar=False)["speed"]

    starved, fed = run(0.1, tmp_path / "slow"), run(0.0, tmp_path / "fast")
    assert [step for step, _, _ in starved] == [3, 6]
    # 0.2 s of loading per batch of 2, 0.6 s per window of 3 steps (6 samples): that much is charged
    # to waiting, however long the compute took (a share would depend on the machine's load: 55% was
    # seen under heavy CPU steal), and no more than 10 samples/s can arrive.
    def waited_s(speed):
        return [wait / 100 * 6 / rate for _, rate, wait in speed]

    assert all(0.55 < s < 1.0 for s in waited_s(starved)), (waited_s(starved), starved)
    assert all(rate < 10.5 for _, rate, _ in starved), starved
    # Fed, the wait is only the loader's own fixed cost (starting the iterator, collating), again in
    # seconds, not as a share: on a fast host the compute of a window took 28 ms, and the first
    # window's 8.6 ms of start-up was 30% of it (CI, 2026-11-27).
    assert all(s < 0.1 for s in waited_s(fed)), (waited_s(fed), fed)
    assert min(rate for _, rate, _ in fed) > max(rate for _, rate, _ in starved)


def test_optimizer_steps_do_not_search_sys_path_for_packages(tmp_path, monkeypatch):
    """accelerate 1.15 looks for the LOMO optimizer package twice in every optimizer step, each a
    search of sys.path (accelerate_workarounds.look_up_lomo_once): the loop asks once per process."""
    searched = []
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: searched.append(name) or find_spec(name, *a, **k))
    fit(*_pieces(), max_steps=6, checkpoint_dir=tmp_path, progress_bar=False)
    # prepare asks once, the first step once (and then never again in this process); unfixed,
    # every step asks twice: 13 times here.
    assert searched.count("lomo_optim") <= 2, searched


def test_the_figures_of_every_rank_come_out_of_one_gather_under_their_tracker_names():
    from accelerated_seg.rank_figures import figures_by_name

    nan = float("nan")
    assert figures_by_name([[9.5, 1.0], [10.5, 4.0]]) == {"train/samples_per_s": 20.0, "train/data_wait_pct": 4.0}
    gpus = figures_by_name([[30.0, 2.0, 10.5, 12.0, nan], [31.0, 0.5, 11.0, 12.5, 97.0]])
    assert gpus == {"train/samples_per_s": 61.0, "train/data_wait_pct": 2.0,
                    "gpu/rank0/peak_allocated_gb": 10.5, "gpu/rank0/peak_reserved_gb": 12.0,  # no NVML there
                    "gpu/rank1/peak_allocated_gb": 11.0, "gpu/rank1/peak_reserved_gb": 12.5,
                    "gpu/rank1/utilisation_pct": 97.0}


def test_wandb_and_mlflow_runs_are_named_after_the_run_folder_and_wandb_writes_into_it(tmp_path, monkeypatch):
    """Neither is installed here: what accelerate is asked to start them with. Without names they were
    W&B's generated ones, and W&B's files went into the working directory (seventy-sixth session's probe)."""
    from accelerate import Accelerator

    asked = {}
    monkeypatch.setattr(Accelerator, "init_trackers", lambda self, project, config=None, init_kwargs=None:
                        asked.update(project=project, init_kwargs=init_kwargs))
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "my_run", progress_bar=False)
    assert asked["project"] == "train"
    assert asked["init_kwargs"]["wandb"] == {"name": "my_run", "dir": str(tmp_path / "my_run")}
    assert asked["init_kwargs"]["mlflow"] == {"run_name": "my_run"}
    assert asked["init_kwargs"]["tensorboard"] == {"purge_step": 1}
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "scratch"))  # the user's environment is not overridden
    fit(*_pieces(), max_steps=1, checkpoint_dir=tmp_path / "second", progress_bar=False)
    assert asked["init_kwargs"]["wandb"] == {"name": "second"}


class _Overriding:
    """``real`` with the attributes ``overrides`` names replaced: a launch seen as another's by one call."""

    def __init__(self, real, **overrides):
        self._real = real
        self.__dict__.update(overrides)

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_a_fit_checkpoint_without_another_ranks_files_is_told_of_fits_checkpoint_dir(tmp_path, monkeypatch):
    """A fit's checkpoint that lacked a rank's files said train.output_dir must be one folder (until the
    ninety-first session)."""
    import accelerated_seg.train as train_module

    save = train_module.save_training_state  # as if saved by two ranks, one of which wrote elsewhere
    monkeypatch.setattr(train_module, "save_training_state", lambda accelerator, *args: save(
        _Overriding(accelerator, state=_Overriding(accelerator.state, num_processes=2)), *args))
    with pytest.raises(ConfigError, match=r"the checkpoint .step_1.partial lacks the files of rank\(s\) 1, which "
                                          r"they wrote into fit's checkpoint_dir as they see it: fit's checkpoint_dir "
                                          r"must be one folder that every node sees") as refused:
        fit(*_pieces(), max_steps=2, checkpoint_dir=tmp_path / "run", save_every=1, progress_bar=False)
    assert "train." not in str(refused.value)


def test_a_fit_checkpoint_that_cannot_be_written_says_to_call_fit_again(tmp_path, monkeypatch):
    """A full disk or a read-only folder at a fit's checkpoint said `run the same command with
    --train.resume=latest` (until the ninety-first session)."""
    from accelerated_seg.checkpoint import CheckpointNotSaved

    from faults import checkpoint_folder_read_only

    checkpoint_folder_read_only(monkeypatch, 4)
    run = tmp_path / "run"
    with pytest.raises(CheckpointNotSaved, match=re.escape(
            f"the newest whole checkpoint, {run / 'checkpoints' / 'step_2'}, is untouched: make room (or make the "
            f"folder writable) and call fit again with resume='latest' to continue from it")) as refused:
        fit(*_pieces(), max_steps=6, checkpoint_dir=run, save_every=2, progress_bar=False)
    assert "train." not in str(refused.value)


def test_a_preempted_fit_whose_checkpoints_folder_went_away_says_so_in_one_line(tmp_path, monkeypatch):
    """A network mount gone before a preempted fit's save (SIGTERM): the save fails, and so does the listing of the
    checkpoints its error names the newest of, whose OSError was raised over that error (a traceback about listing
    the checkpoints) until the hundred-and-seventh session."""
    import errno
    import signal
    from pathlib import Path

    import accelerated_seg.checkpoint as checkpoint_module
    from accelerated_seg.checkpoint import CheckpointNotSaved

    from faults import loss_forward_with, signal_on

    gone, real_mkdir, real_listing = [], Path.mkdir, checkpoint_module.complete_checkpoints

    def mount_gone(path):
        gone.append(path)
        return OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN), str(path))

    def mkdir(self, *args, **kwargs):
        if self.name == ".step_3.partial":
            raise mount_gone(self)
        return real_mkdir(self, *args, **kwargs)

    def listing(folder):
        if gone:
            raise mount_gone(folder)
        return real_listing(folder)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(checkpoint_module, "complete_checkpoints", listing)
    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(2, signal.SIGTERM)))  # step 3's forward
    checkpoints = tmp_path / "run" / "checkpoints"
    with pytest.raises(CheckpointNotSaved, match=re.escape(
            f"{checkpoints} could not be read (Transport endpoint is not connected) either, so no checkpoint is "
            f"named: once it can be read and written again, call fit again with resume='latest' to continue from "
            f"its newest whole checkpoint")):
        fit(*_pieces(), max_steps=6, checkpoint_dir=tmp_path / "run", save_every=2, progress_bar=False)


def test_a_fit_whose_loss_stays_non_finite_is_told_of_save_every_and_its_optimizers_lr(tmp_path, monkeypatch):
    """`(train.save_every)` and `Lower optim.lr`, which fit has not: until the ninety-first session."""
    from accelerated_seg.train import TrainingDiverged

    from faults import loss_forward_with, nan_on

    monkeypatch.setattr(DiceCELoss, "forward", loss_forward_with(nan_on(set(range(1000)))))
    with pytest.raises(TrainingDiverged, match=r"non-finite for 5 optimizer steps in a row; no checkpoint was saved "
                                               r"before \(save_every\)\. Lower the lr of the optimizer given to fit "
                                               r"or check the data") as refused:
        fit(*_pieces(), max_steps=9, checkpoint_dir=tmp_path / "run", save_every=0, progress_bar=False)
    assert "train." not in str(refused.value) and "optim." not in str(refused.value)


def test_a_fit_stopped_by_a_schedulers_signal_says_where_and_how_it_goes_on_in_fits_words(tmp_path, monkeypatch,
                                                                                         capsys):
    """train says where a preempted run's state is and how to go on; a fit said nothing (until the ninety-second
    session), and its user read `"preempted": True` with no checkpoint named. Resuming an older step said `out of
    --resume latest's way`."""
    import signal

    from faults import loss_forward_with, signal_on

    run = tmp_path / "run"
    with monkeypatch.context() as patched:
        patched.setattr(DiceCELoss, "forward", loss_forward_with(signal_on(1, signal.SIGTERM)))  # step 2's forward
        result = fit(*_pieces(), max_steps=6, checkpoint_dir=run, save_every=1, progress_bar=False)
    assert result["preempted"] and result["step"] == 2 and not (run / "model").exists()
    said = capsys.readouterr().out
    assert (f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step 2 and the training state is "
            f"saved in {run / 'checkpoints' / 'step_2'}: call fit again with resume='latest' to continue, or for a "
            f"model of it now, call fit again with resume='latest' and max_steps=2, which trains nothing and exports "
            f"it to {run}/model.") in said
    fit(*_pieces(), max_steps=2, checkpoint_dir=run, resume="latest", progress_bar=False)  # the way it names
    assert (run / "model" / "model.safetensors").is_file()
    fit(*_pieces(), max_steps=2, checkpoint_dir=run, resume=str(run / "checkpoints" / "step_1"), progress_bar=False)
    said += (resumed := capsys.readouterr().out)
    assert re.search(r"resuming step_1: the later checkpoints and exports of the earlier course are kept in \S+, out "
                     r"of the way of resume='latest'", resumed), resumed
    assert "train." not in said and "--resume" not in said


def test_checkpoints_md_gives_fits_resume_draws_as_measured():
    """docs/checkpoints.md's table of a fit resume's distance from the uninterrupted run, row by row against
    benchmarks/results/fit_resume_draws_2cpu.json: the hundred-and-eighteenth session's rewrite made it a table and left
    "–" (not measured, as read) where the file holds a mid-epoch figure (persistent workers 0.021; MONAI's DataLoader
    without workers 0.018; its review)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    figures = json.loads((root / "benchmarks/results/fit_resume_draws_2cpu.json").read_text())[
        "max_abs_weight_difference_by_resumed_step"]

    def said(case: str, *steps: int) -> str:
        values = [figures[case][str(step)] for step in steps]
        return "bit-identical" if not any(values) else ", ".join(f"{value:#.2g}" for value in values)

    running = ("noise, no workers", "noise, 2 workers", "noise, 2 workers, own generator",
               "noise, 2 workers, own generator, shuffled")
    mid = [figures[case]["4"] for case in running]
    monai, sample = "MONAI DataLoader, Randomizable noise", "per-sample generator, 2"
    expected = {
        "a running generator, 0 or 2 workers": [f"{min(mid):#.2g}–{max(mid):#.2g}",
                                                {said(case, 3, 6) for case in running}.pop()],
        "the same, `persistent_workers=True`": [said("noise, 2 persistent workers", 4),
                                                said("noise, 2 persistent workers", 3, 6)],
        "a `Randomizable` dataset's own state, MONAI's `DataLoader`, `num_workers=0` / 2 workers": [
            f"{said(f'{monai}, no workers', 4)} / {said(f'{monai}, 2 workers', 4)}",
            f"{said(f'{monai}, no workers', 3, 6)} / {said(f'{monai}, 2 workers', 3, 6)}"],
        "a generator of the sample's own (below), 2 workers; with `persistent_workers=True`": [
            f"{said(f'{sample} workers', 4)}; {said(f'{sample} persistent workers', 4)}",
            f"{said(f'{sample} workers', 3, 6)}; {said(f'{sample} persistent workers', 3, 6)}"]}
    page = (root / "docs" / "checkpoints.md").read_text(encoding="utf-8").split("### Resuming `fit`")[1]
    rows = {cells[0]: cells[1:] for cells in ([cell.strip() for cell in line.split("|")[1:-1]]
                                              for line in page.splitlines() if line.startswith("| "))
            if cells[0] in expected}
    assert rows == expected
