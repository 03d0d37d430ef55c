"""``accelerated-seg train`` (cli.main) whose process KILL_RANK SIGKILLs itself at KILL_WHERE, the time written to
KILL_AT first: ``loss:N`` (the N-th training loss forward, 0-based), ``save:N`` (the save of step_N, as its files are
flushed: .step_N.partial written), ``reset:N`` (gloo's words for a network's reset raised at the N-th
forward, the process alive), ``state:N`` (as accelerate's save_state of step_N begins), ``validate:N`` (the N-th validation, 0-based, as it starts), ``export`` (the final
export, as it starts). The review of the hundred-and-fifteenth session (h77's peer_gone for training)."""
import os
import signal
import sys
import time
from pathlib import Path


def die():
    Path(os.environ["KILL_AT"]).write_text(repr(time.time()))
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    where = os.environ["KILL_WHERE"]
    if os.environ.get("RANK") == os.environ["KILL_RANK"]:
        kind, _, number = where.partition(":")
        if kind == "loss":
            from monai.losses import DiceCELoss
            from faults import loss_forward_with

            DiceCELoss.forward = loss_forward_with(lambda call, loss: die() if call == int(number) else loss)
        elif kind == "reset":  # every process alive: gloo's words for a network's reset, raised by this one
            from monai.losses import DiceCELoss
            from faults import loss_forward_with

            def reset(call, loss):
                if call == int(number):
                    Path(os.environ["KILL_AT"]).write_text(repr(time.time()))
                    raise RuntimeError("[gloo/transport/tcp/pair.cc:537] Read error [10.0.0.2]:5847: Connection reset "
                                       "by peer")
                return loss

            DiceCELoss.forward = loss_forward_with(reset)
        elif kind == "save":
            from accelerated_seg import checkpoint

            flush = checkpoint.sync_folder
            checkpoint.sync_folder = lambda folder: die() if folder.name == f".step_{number}.partial" else flush(folder)
        elif kind == "state":  # as accelerate's save_state of step_N begins (FSDP: before DCP's collectives)
            import accelerate

            save_state = accelerate.Accelerator.save_state

            def saving(self, output_dir=None, *args, **kwargs):
                if str(output_dir).endswith(f".step_{number}.partial"):
                    die()
                return save_state(self, output_dir, *args, **kwargs)

            accelerate.Accelerator.save_state = saving
        elif kind == "validate":
            from accelerated_seg import configured_run

            validate, calls = configured_run.validate, [0]

            def validating(*args, **kwargs):
                calls[0] += 1
                if calls[0] - 1 == int(number):
                    die()
                return validate(*args, **kwargs)

            configured_run.validate = validating
        elif kind == "export":
            from accelerated_seg import configured_run

            configured_run.export_model = lambda *args, **kwargs: die()
    from accelerated_seg.cli import end_process, main

    end_process(main(["train", *sys.argv[1:]]))
