"""What a run stopped by a scheduler's signal (SIGTERM or SIGUSR1, ``checkpoint.PreemptionSignals``) says once its
training state is saved: where, and the ways on. Said by ``train``'s and ``fit``'s ends alike (configured_run.py,
train.py); in train.py until the hundred-and-eleventh session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .shell_words import shell_word

if TYPE_CHECKING:
    from .loop_state import Loop


def say_where_a_preempted_run_goes_on(loop: Loop) -> None:
    """What a run stopped by a scheduler's signal says once its state is saved: where, and the ways on in the
    caller's words (``loop.names``). Until the ninety-second session a fit said nothing, and the estimator
    was told to run the same command with --train.resume=latest."""
    step, names = loop.progress.step, loop.names
    # the folder inside the command line's export command, quoted; fit's export named in its sentence as it is
    # ("exports it to '/runs/my run'/model" after the hundred-and-nineteenth session, until review r91)
    run = loop.checkpoints_dir.parent
    model = names.model_of_the_state.format(folder=shell_word(run), export=run / "model", step=step)
    loop.accelerator.print(
        f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step {step} and the training state "
        f"is saved in {loop.checkpoints_dir / f'step_{step}'}: {names.resume_again} to continue, or {model}.")

