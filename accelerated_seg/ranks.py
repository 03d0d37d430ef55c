"""Work that one rank or every rank does, whose result and whose error every rank receives.

A rank that raises while the others wait in a collective leaves them waiting until the launch's
timeout. These two helpers pass an error to every rank instead, so all of them fail alike with the
same message (a broken dataset, a setting that cannot work) and the launch ends at once.
"""

from __future__ import annotations

from accelerate import Accelerator, PartialState
from accelerate.utils import broadcast_object_list, gather_object


def on_main(accelerator: Accelerator | PartialState, work):
    """Run ``work`` on the main process only and give its result (or its error) to every rank.

    The other ranks wait in the broadcast; an error on the main process is raised on every rank,
    so none of them is left waiting for a process that has died.
    """
    outcome = [None, None]
    if accelerator.is_main_process:
        try:
            outcome = [work(), None]
        except Exception as error:  # noqa: BLE001 - re-raised below, on every rank
            outcome = [None, error]
    outcome = broadcast_object_list(outcome)
    if outcome[1] is not None:
        raise outcome[1]
    return outcome[0]


def on_every_rank(work) -> list:
    """Run ``work`` on every rank; returns every rank's result, or raises the first error on all ranks.

    It needs no accelerator: ``gather_object`` works on the global state.
    """
    try:
        outcome = (work(), None)
    except Exception as error:  # noqa: BLE001 - re-raised below, on every rank
        outcome = (None, error)
    outcomes = gather_object([outcome])
    errors = [error for _, error in outcomes if error is not None]
    if errors:
        raise errors[0]
    return [result for result, _ in outcomes]
