"""A training-state checkpoint loaded into the prepared loop (``train`` and ``fit`` alike): checked
against this run on every rank before the load, loaded (each rank its files, or the strategy's
collective load), and what the resume says of it: the settings this run changed, where the data
stream goes on in this launch's batches, and, for ``fit``, the optimizer settings the load brought back.

What a checkpoint must agree with is checked in resume_config_changes.py (its config, from the two
configs alone) and resume_network_and_data.py (its network and data, with torch); which checkpoint a
run resumes, in checkpoint_files.py (the one ``train.resume`` names) and run_folder.py (resume or
replace), agreed by every rank in run_folder_ranks.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from accelerate.utils import DistributedType

from .accelerate_workarounds import load_fsdp1_optimizer_state, load_state_also_of_wrapped_aliases
from .checkpoint_files import gone_if_rotated_away
from .data.sampling import position_in_other_batches
from .optimizers import param_group_settings, settings_the_load_brought_back
from .preparation import complete_the_loaded_optimizer
from .ranks import on_every_rank
from .resume_config_changes import beyond_max_steps, changed_settings_note, check_resume_settings, run_folder_moved
from .resume_network_and_data import check_resume_layout, check_resume_network

if TYPE_CHECKING:
    from .loop_state import Loop


def resume_the_loop(loop: Loop, checkpoint: Path) -> dict:
    """Load ``checkpoint`` into the loop, saying what differs from its run; the settings this run
    changed, ``{key: (saved, now)}``.

    Its run may still be training and rotate it away (``keep_last``), or a user delete it, at any time
    until its state is loaded: that is one refusal in the caller's words (``gone_if_rotated_away``),
    before anything of this run is written. Whatever is read of it after the load was read before. Each
    rank checks and loads its own files, so it may go between theirs: every rank then raises the refusal
    (``_load_state`` says where it cannot), where the ranks that had loaded it waited for the others at the
    next barrier (gloo: "Connection closed by peer", on the main process) until the ninety-second session."""
    def checked() -> dict:
        with gone_if_rotated_away(checkpoint, loop.names):
            return _check_the_checkpoint(loop, checkpoint)

    changed = on_every_rank(checked)[loop.accelerator.process_index]
    _load_state(loop, checkpoint)
    # load_state also puts back accelerate's micro-batch counter (Accelerator.step), which decides
    # where an accumulation window ends: step % accumulation == 0. A checkpoint is taken at the end of
    # a window, so this run's first window starts at 0 whatever the checkpoint's accumulation was.
    # Restored, a resume with other gradient accumulation (another global batch or number of
    # processes) cut its first window short (half the micro-batches, the loss logged halved), and a
    # rank without its own RNG file (more processes than the checkpoint's) kept 0 while rank 0 took
    # the saved count, so their windows stayed apart for the whole run (seventy-fourth session).
    loop.accelerator.step = 0
    complete_the_loaded_optimizer(loop.accelerator)
    loop.last_saved = step = loop.progress.step
    max_steps = loop.settings.max_steps
    if step > max_steps:  # before anything of this run is written (config.yaml, trackers, export)
        raise beyond_max_steps(checkpoint, step, max_steps, loop.names)
    loop.accelerator.print(f"resumed from {checkpoint} at step {step}" + (
        f", which is {loop.names.setting('train.max_steps')} already: nothing to train; {loop.names.written_at_the_end} "
        f"written from it"
        if step == max_steps else ""))
    return changed


def _check_the_checkpoint(loop: Loop, checkpoint: Path) -> dict:
    """The checks of ``checkpoint`` against this run before its load (resume_the_loop): none has a collective."""
    if warning := check_resume_layout(checkpoint, loop.accelerator, loop.names):  # raises where it cannot work
        loop.accelerator.print(warning)
    changed = check_resume_settings(checkpoint, loop.config_yaml, loop.names)  # checked before the data work too
    check_resume_network(checkpoint, loop.accelerator, loop.model, loop.names)
    if moved := run_folder_moved(checkpoint):
        loop.accelerator.print(f"{checkpoint}'s run was written in {moved[0]}, which is {moved[1]} here: the paths "
                               f"it saved that moved with it are compared as moved")
    if changed:  # this run's optimizer settings take over after the load (continue_with_the_runs_settings)
        loop.accelerator.print(changed_settings_note(checkpoint, changed, loop.names))
    return changed


def _load_state(loop: Loop, checkpoint: Path) -> None:
    """Load ``checkpoint``'s state into the loop, refused as gone (``gone_if_rotated_away``) where it went.

    Under DDP each rank reads its files alone, so a rank that finds it gone tells the others (on_every_rank).
    FSDP's and DeepSpeed's loads hold collectives (accelerate's barrier before FSDP's, rank 0's broadcast of
    a full state dict, ZeRO-3's gathers): a rank refused before one of them would wait in on_every_rank's
    gather while the others waited in it, for good or until NCCL's timeout, where it now ends alone and the
    launcher ends the rest."""
    def load() -> None:
        with gone_if_rotated_away(checkpoint, loop.names):
            load_state_also_of_wrapped_aliases(loop.accelerator, loop.model, checkpoint)
            load_fsdp1_optimizer_state(loop.accelerator, loop.model, loop.optimizer, checkpoint)

    if loop.accelerator.distributed_type in (DistributedType.FSDP, DistributedType.DEEPSPEED):
        load()
    else:
        on_every_rank(load)


def continue_the_data_stream(loop: Loop, epoch_length: int, batch_samples: int, step_samples: int) -> None:
    """After a resume: ``batches_seen`` in this launch's micro-batches and epochs, where the
    checkpoint's run counted them in others (another per-device batch, number of processes or
    accumulation, another ``data.samples_per_volume``)."""
    progress = loop.progress
    saved, progress.batch_samples = progress.batch_samples, batch_samples
    saved_length, progress.epoch_length = progress.epoch_length or epoch_length, epoch_length  # None: as here
    # None: epochs were cut to whole micro-batches of all ranks (before the eighty-fifth session)
    saved_step, progress.step_samples = progress.step_samples or saved, step_samples
    if saved is None or (saved, saved_length, saved_step) == (batch_samples, epoch_length, step_samples):
        return  # None: an older checkpoint, which does not say
    counted = progress.batches_seen
    progress.batches_seen = position_in_other_batches(counted, saved, batch_samples, epoch_length, saved_length,
                                                      saved_step, step_samples)
    if (saved, saved_length) == (batch_samples, epoch_length) and progress.batches_seen == counted:
        return  # another accumulation, the place unchanged: nothing to say
    epochs = "" if saved_length == epoch_length else f" (epochs of {saved_length} and of {epoch_length} samples)"
    loop.accelerator.print(f"the data stream goes on where the checkpoint's run stood: {counted} micro-batches of "
                           f"{saved} samples (all processes) there, {progress.batches_seen} of {batch_samples} "
                           f"here{epochs}")


def loaded_optimizer_note(loop: Loop, checkpoint: Path, given: list[dict], out: Path) -> str | None:
    """What ``fit``'s resume says where the optimizer state loaded from ``checkpoint`` replaced the
    param-group settings the optimizer it was ``given`` had (``param_group_settings`` before the load);
    else None, and None where nothing trains.

    A resume goes on with the checkpoint's optimizer as it was, rate and all (the documented behaviour,
    unchanged): torch's ``load_state_dict`` puts the saved settings back, a schedule's state its base
    rate. Until the ninety-first session nothing said so at run time: a ``fit`` resumed with an optimizer
    built at a new rate trained on at the old one, unsaid. ``train`` puts its own settings back after the load instead
    (``continue_with_the_runs_settings``). Not noted in TensorBoard's ``settings_changed_at_resume``:
    no setting of the run changed, the checkpoint's goes on.
    """
    scheduled = loop.scheduler is not None
    brought_back = settings_the_load_brought_back(given, param_group_settings(loop.optimizer, scheduled))
    if not brought_back or loop.progress.step >= loop.settings.max_steps:
        return None
    loaded = ", ".join(f"{name} {_shown(value)}" for name, (value, _) in brought_back.items())
    had = ", ".join(f"{name} {_shown(value)}" for name, (_, value) in brought_back.items())
    loaded_from = (f"optimizer state and schedule loaded from {checkpoint} carry their" if scheduled else
                   f"optimizer state loaded from {checkpoint} carries its")
    return (f"the {loaded_from} own {loaded} (the optimizer given to this resume had {had}), and training goes "
            f"on with it: a resume continues its checkpoint's optimizer. To train on with other settings, start a "
            f"new run from its weights: resume with max_steps={loop.progress.step} to export them to {out / 'model'}, "
            f"load its model.safetensors into your network (safetensors.torch.load_model) and fit it with a new "
            f"optimizer into another checkpoint_dir")


def _shown(value) -> str:
    """A setting as a note shows it: a rate as 4e-08, not the 4.0000000000000004e-08 of OneCycleLR's division."""
    if isinstance(value, float):
        return f"{value:.12g}"
    if isinstance(value, (tuple, list)):
        shown = ", ".join(_shown(each) for each in value)
        return f"({shown})" if isinstance(value, tuple) else f"[{shown}]"
    return str(value)
