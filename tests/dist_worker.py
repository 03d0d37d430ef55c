"""Run by the distributed tests under ``accelerate launch`` or ``torchrun``: train with the given
overrides and write this rank's outcome to ``<prefix>.rank<N>.json``; the test asserts on the files.

Environment knobs (test-only fault injection): NAN_RANK and NAN_CALLS make the loss NaN on that
rank for those 0-based forward calls. SIGNAL_RANK and SIGNAL_CALL make that rank send itself
SIGNAL (default SIGTERM) at that 0-based forward call, as a scheduler would before killing the job; SIGNAL_RANK and
SIGNAL_IN=<name>[:N] instead as that rank calls <name> (its N-th call) from accelerated_seg.train or
accelerated_seg.configured_run: a phase of the run outside its steps (cached_tables, resume_the_loop,
save_training_state, export_model).
KILL_IN_SAVE=N makes the N-th (1-based) ``save_state`` write one file, then SIGKILL its own process.
Each run's result holds "training_forwards": the training loss's forward calls this rank made in that run (its
micro-batches; a resume's are only the steps it had left).
GRADS_OUT=P saves the gradients of the first optimizer step to ``P.rank<N>.pt``.
SEED_OUT=P writes the seed of torch's generator at the first training step to ``P.rank<N>.txt``.
FULL_DISK_AT_EXPORT=1 makes the main process's export fail as a full disk would (the others write none).
CHECKPOINT_LISTING_FAILS=1 makes the listing of checkpoints/ that training's interrupt line and divergence error make
fail as a network mount gone would (ENOTCONN); the saves list as before.
GONE_AFTER_MAIN_LOADS=<checkpoint> deletes the checkpoint a resume loads once the main process has loaded it and
before rank 1 does, as another run's rotation (keep_last) would between the two.
THEN_RUNS=<json list of [prefix, overrides]> trains each of those runs too, one after another in the same processes
after the first, each rank's outcome in its own ``<prefix>.rank<N>.json``: refusals, resumes and a test's
uninterrupted reference that each had a launch of their own (each launch's start costs the suite seconds of its 2
cores), whose ranks must also stay in step for the next run. The fault knobs stay armed, counting on from the first
run: one spent there (a SIGNAL_CALL passed) does not fire. An entry's third item, {"GRADS_OUT": P}, also saves that
run's first optimizer step's gradients to ``P.rank<N>.pt``.
"""

import json
import os
import signal
import sys
import traceback
from pathlib import Path

from accelerated_seg.collector import importing_without_collection

with importing_without_collection():  # as examples/train.py imports the stack (collector.py says why)
    from monai.losses import DiceCELoss

from faults import (loss_forward_with, nan_on, record_first_step_gradients, seed_in_training, signal_on,
                    write_result_and_exit)  # tests/ is this script's folder


def kill_during_save(nth: int) -> None:
    from accelerate import Accelerator

    original, count = Accelerator.save_state, {"n": 0}

    def save_state(self, output_dir=None, **kwargs):
        count["n"] += 1
        if count["n"] == nth:  # a half-written checkpoint, as a node failure or SIGKILL would leave
            Path(output_dir, "model.safetensors").write_bytes(b"half written")
            os.kill(os.getpid(), signal.SIGKILL)
        return original(self, output_dir, **kwargs)

    Accelerator.save_state = save_state


def signal_in(name: str, signum: int) -> None:
    """Send ``signum`` to this process as the run calls ``name`` (``name:N``: the N-th time, 1-based), before the call:
    the name as train.py (the loop) and configured_run.py (train's setup and end) look it up, counted across both."""
    with importing_without_collection():
        import accelerated_seg.configured_run as configured_run
        import accelerated_seg.train as train_module

    name, _, nth = name.partition(":")
    count = {"n": 0}
    holders = [module for module in (train_module, configured_run) if hasattr(module, name)]
    assert holders, f"SIGNAL_IN={name}: neither accelerated_seg.train nor accelerated_seg.configured_run calls it"

    def signalling(original):
        def call(*args, **kwargs):
            count["n"] += 1
            if count["n"] == int(nth or 1):
                os.kill(os.getpid(), signum)
            return original(*args, **kwargs)
        return call

    for module in holders:
        setattr(module, name, signalling(getattr(module, name)))


def gone_after_main_loads(checkpoint: Path, rank: int) -> None:
    import shutil
    import time

    import accelerated_seg.resume as resume

    original, loaded = resume.load_state_also_of_wrapped_aliases, checkpoint.parent / "main_loaded"

    def load(*args, **kwargs):
        if rank == 0:
            original(*args, **kwargs)
            loaded.touch()
            return
        deadline = time.monotonic() + 60
        while not loaded.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        shutil.rmtree(checkpoint)
        original(*args, **kwargs)

    resume.load_state_also_of_wrapped_aliases = load


_TRAINING_FORWARDS = {"n": 0}  # this process's, over its runs


def counted(call: int, loss):
    _TRAINING_FORWARDS["n"] += 1
    return loss


def main() -> None:
    prefix, overrides = sys.argv[1], sys.argv[2:]
    # torchrun's RANK, else an MPI launcher's (mpirun, srun with PMI), which accelerate reads for MULTI_CPU
    rank = int(next((os.environ[key] for key in ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK") if key in os.environ), 0))
    DiceCELoss.forward = loss_forward_with(counted)
    if os.environ.get("NAN_RANK") == str(rank):
        DiceCELoss.forward = loss_forward_with(nan_on({int(c) for c in os.environ["NAN_CALLS"].split(",")}))
    if os.environ.get("SIGNAL_RANK") == str(rank) and os.environ.get("SIGNAL_IN"):
        signal_in(os.environ["SIGNAL_IN"], getattr(signal, os.environ.get("SIGNAL", "SIGTERM")))
    elif os.environ.get("SIGNAL_RANK") == str(rank):
        DiceCELoss.forward = loss_forward_with(
            signal_on(int(os.environ["SIGNAL_CALL"]), getattr(signal, os.environ.get("SIGNAL", "SIGTERM"))))
    if os.environ.get("SEED_OUT"):
        DiceCELoss.forward = loss_forward_with(seed_in_training(f"{os.environ['SEED_OUT']}.rank{rank}.txt"))
    if os.environ.get("GRADS_OUT"):
        record_first_step_gradients(f"{os.environ['GRADS_OUT']}.rank{rank}.pt")
    if os.environ.get("KILL_IN_SAVE"):
        kill_during_save(int(os.environ["KILL_IN_SAVE"]))
    if os.environ.get("FULL_DISK_AT_EXPORT"):
        import accelerated_seg.exported_model as exported_model

        def full_disk(*args, **kwargs):
            raise OSError(28, "No space left on device")

        exported_model.write_state_as_export = full_disk
    if os.environ.get("CHECKPOINT_LISTING_FAILS"):
        import errno

        import accelerated_seg.interrupted_run as interrupted_run
        import accelerated_seg.train as train_module

        def mount_gone(folder):
            raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN), str(folder))

        # the interrupt's line is built in interrupted_run, the divergence's error in train
        train_module.complete_checkpoints = interrupted_run.complete_checkpoints = mount_gone
    if os.environ.get("GONE_AFTER_MAIN_LOADS"):
        gone_after_main_loads(Path(os.environ["GONE_AFTER_MAIN_LOADS"]), rank)
    for then in json.loads(os.environ.get("THEN_RUNS", "[]")):
        Path(f"{prefix}.rank{rank}.json").write_text(json.dumps(outcome(overrides)))
        prefix, overrides, knobs = (*then, {})[:3]
        if knobs.get("GRADS_OUT"):  # armed once the runs before have stepped, so this run's first step is saved
            record_first_step_gradients(f"{knobs['GRADS_OUT']}.rank{rank}.pt")
    write_result_and_exit(prefix, rank, outcome(overrides))


def outcome(overrides: list[str]) -> dict:
    """This rank's result of training ``overrides``, else its error."""
    try:
        with importing_without_collection():
            from accelerated_seg.config import load_config
            from accelerated_seg.train import train

        before = _TRAINING_FORWARDS["n"]
        result = {"ok": True, **train(load_config(None, overrides))}
        result["training_forwards"] = _TRAINING_FORWARDS["n"] - before
    except Exception as error:  # noqa: BLE001 - the test reads the error from the file
        result = {"ok": False, "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
    return result


if __name__ == "__main__":
    main()
