"""Test helpers shared by in-process tests and the launched worker scripts.

Fault injection: a DiceCELoss.forward that misbehaves at chosen 0-based forward calls (a NaN loss, a
scheduler's signal). Probes: the gradients of the first optimizer step. Worker exit: write this rank's
result file, then leave without the interpreter teardown where gloo sometimes aborts after all work is done.
"""

import json
import os
import sys
from pathlib import Path


def loss_forward_with(hook):
    """A DiceCELoss.forward that passes each training step's loss through ``hook(call_index, loss)``."""
    import torch
    from monai.losses import DiceCELoss

    original, count = DiceCELoss.forward, {"n": 0}

    def forward(self, input, target):
        if input.device.type == "meta" or not torch.is_grad_enabled():  # not a training step: the CPU memory
            return original(self, input, target)  # check measuring one (plan), the loss's check (losses.check_loss)
        call, count["n"] = count["n"], count["n"] + 1
        return hook(call, original(self, input, target))

    return forward


def nan_on(calls):
    return lambda call, loss: loss * float("nan") if call in calls else loss


def signal_on(call_at: int, signum: int):
    def hook(call, loss):
        if call == call_at:
            os.kill(os.getpid(), signum)
        return loss

    return hook


def seed_in_training(path):
    """A loss hook that writes to ``path`` the seed of torch's generator at the first training step:
    the stream the network's dropout draws from."""
    import torch

    def hook(call, loss):
        if call == 0:
            Path(path).write_text(str(torch.initial_seed()))
        return loss

    return hook


def record_first_step_gradients(path) -> None:
    """Make AdamW save the gradients it steps with (parameter order) to ``path`` at its first step."""
    import torch

    original = torch.optim.AdamW.step

    def step(self, *args, **kwargs):
        if not Path(path).exists():
            torch.save([p.grad.detach().clone() for group in self.param_groups for p in group["params"]], path)
        return original(self, *args, **kwargs)

    torch.optim.AdamW.step = step


def write_result_and_exit(prefix, rank: int, result: dict) -> None:
    Path(f"{prefix}.rank{rank}.json").write_text(json.dumps(result))
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
    sys.stdout.flush(), sys.stderr.flush()
    os._exit(0)


def record_stop_signal_disposition(path, worker_id: int) -> None:
    """A user's ``worker_init_fn``: write to ``path`` whether this loader worker ignores SIGTERM."""
    import signal

    Path(path).write_text("ignored" if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN else "default")


def read_only_below(monkeypatch, folder) -> None:
    """Make ``folder`` and everything below it answer as a filesystem mounted read-only does (EROFS) to
    every open that would write or make a file, for this test: running as root, a chmod stops nothing."""
    import builtins
    import errno

    folder = Path(folder).absolute()
    real_open, real_os_open = builtins.open, os.open

    def below(path) -> bool:
        return isinstance(path, (str, os.PathLike)) and Path(os.fspath(path)).absolute().is_relative_to(folder)

    def refused(path):
        return OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))

    def open_read_only(path, mode="r", *args, **kwargs):
        if below(path) and any(c in mode for c in "wax+"):
            raise refused(path)
        return real_open(path, mode, *args, **kwargs)

    def os_open_read_only(path, flags, *args, **kwargs):
        if below(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise refused(path)
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", open_read_only)
    monkeypatch.setattr(os, "open", os_open_read_only)


def a_second_rank_resuming_elsewhere(monkeypatch) -> None:
    """The start's check as two ranks would meet it, on one process: rank 1 sees /elsewhere/step_4 to resume."""
    from types import SimpleNamespace

    import accelerated_seg.configured_run as configured_run
    import accelerated_seg.run_folder_ranks as run_folder_ranks
    import accelerated_seg.train as train_module

    # looked up in train (fit's start) and configured_run (train's), its agreement in run_folder_ranks
    agree = run_folder_ranks.check_the_ranks_agree_on_the_start
    for starts in (train_module, configured_run):
        monkeypatch.setattr(starts, "check_the_ranks_agree_on_the_start",
                            lambda accelerator, *start, **named: agree(SimpleNamespace(num_processes=2), *start,
                                                                       **named))
    monkeypatch.setattr(run_folder_ranks, "on_every_rank",
                        lambda work: [work(), ("/elsewhere/step_4", False)])


def checkpoint_folder_read_only(monkeypatch, step: int) -> None:
    """The checkpoint ``step_<step>``'s folder cannot be made, as in a ``checkpoints/`` gone read-only (EROFS);
    every other folder can."""
    import errno

    real_mkdir = Path.mkdir

    def read_only_at_that_step(self, *args, **kwargs):
        if self.name == f".step_{step}.partial":
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", read_only_at_that_step)


def label_replaced_while_read(monkeypatch, label: Path) -> None:
    """The cache build's reading of a case replaces ``label`` (a sync of the dataset beside the build)
    with a new file of the same bytes, once the old one has been read."""
    import accelerated_seg.data.cache as cache_module

    original = cache_module.preprocess

    def read_then_replaced(*args, **kwargs):
        transform = original(*args, **kwargs)

        def reading(data):
            read = transform(data)
            replacement = label.with_name("replacement.nii.gz")
            replacement.write_bytes(label.read_bytes())
            os.replace(replacement, label)  # a new file, written after the build read the old one
            return read
        return reading

    monkeypatch.setattr(cache_module, "preprocess", read_then_replaced)


def folder_removed_at(monkeypatch, module, name: str, folder: Path, before: bool = False) -> None:
    """``module.name`` removes ``folder`` after it returns (``before``: before it runs), as a run still
    training rotates a checkpoint away (keep_last) while another command reads it."""
    import shutil

    real = getattr(module, name)

    def removing(*args, **kwargs):
        if before:
            shutil.rmtree(folder, ignore_errors=True)
        result = real(*args, **kwargs)
        shutil.rmtree(folder, ignore_errors=True)
        return result

    monkeypatch.setattr(module, name, removing)
