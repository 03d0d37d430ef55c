"""A run as the loop reads and advances it: ``Loop`` (the prepared pieces), its ``LoopSettings`` and its ``Progress``,
which every checkpoint saves. ``train.run_loop`` is the loop over them; ``train``, ``fit`` (train.py and
configured_run.py) and the training benchmark build them. In train.py until the hundred-and-eleventh session, which
moved them here so that the run's setup from a Config (configured_run.py) builds a ``Loop`` without importing the loop's
module; they are still importable from ``accelerated_seg.train``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch
from accelerate import Accelerator

from .batch_stream import BatchStream
from .loop_clock import LoopClock
from .model_folders import Names


@dataclass
class Progress:
    """Where the run is; saved in every checkpoint (registered with ``register_for_checkpointing``)."""

    step: int = 0  # optimizer steps taken
    batches_seen: int = 0  # per-rank micro-batches consumed: the position in the data stream
    best_dice: float = -1.0
    best_step: int = -1
    losses: list = field(default_factory=list)  # (step, mean training loss) every log_every steps
    speed: list = field(default_factory=list)  # (step, global samples/s, data wait % of the most starved rank)
    history: list = field(default_factory=list)  # validation results
    shuffle_seed: int | None = None  # fit(): the seed of a shuffling loader's orders (preparation.seed_the_shuffle)
    # fit(): the seed of every pass's loader workers (preparation.seed_this_pass_of_the_workers); a checkpoint
    # of a version that kept none leaves the resumed run its own (the loaded state has no such key)
    worker_seed: int | None = None
    # train(): global samples in one micro-batch (per-device batch x processes) while batches_seen was
    # counted, so that a resume under another batch or number of processes finds the same place
    batch_samples: int | None = None
    epoch_length: int | None = None  # train(): samples in one epoch while batches_seen was counted
    step_samples: int | None = None  # train(): global samples in one optimizer step, to which epochs were cut

    def state_dict(self) -> dict:
        return asdict(self)

    def load_state_dict(self, state: dict) -> None:
        # None: saved before the seventy-second session (batch_samples), the eighty-fifth (the others)
        self.__dict__.update({"batch_samples": None, "epoch_length": None, "step_samples": None, **state})
        for row in self.history:  # named "loss" before the seventy-second session: the step's training loss
            if "loss" in row:
                row["train_loss"] = row.pop("loss")


@dataclass
class LoopSettings:
    max_steps: int  # optimizer steps
    log_every: int = 10
    val_every: int = 0  # 0: never validate
    save_every: int = 0  # 0: the caller saves at the end only
    keep_last: int = 2
    max_grad_norm: float = 0.0  # 0: no clipping
    max_nonfinite_steps: int = 5
    progress_bar: bool = True


@dataclass
class Loop:
    """A prepared run: what ``run_loop`` reads and advances. Everything here went through
    ``accelerator.prepare`` except the schedule (stepped once per optimizer step, see schedule.py)."""

    accelerator: Accelerator
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: Callable
    train_dl: torch.utils.data.DataLoader
    settings: LoopSettings
    checkpoints_dir: Path
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None
    config_yaml: str = ""  # saved into every checkpoint
    # train's JSON files saved into every checkpoint, by name (checkpoint.save_training_state): its resolved
    # preprocessing, its split and its export's config.json less the step
    records: dict = field(default_factory=dict)
    progress: Progress = field(default_factory=Progress)
    # Called at validation steps with the step's mean training loss (validate, record, export best).
    on_validation: Callable[[float], None] | None = None
    last_saved: int = -1  # step of the newest training state this run wrote or resumed from
    clock: LoopClock = field(default_factory=LoopClock)
    # How the messages of a resume and a Ctrl-C name the caller's settings: FIT_NAMES for fit (until the
    # ninety-first session a fit was told of train.max_steps, train.save_every and --train.init_from)
    names: Names = field(default_factory=Names)
    # The batches from where the last run_loop call stopped, kept so that a further call (the
    # benchmark's blocks) goes on with the same loader workers instead of restarting them.
    stream: BatchStream | None = None
