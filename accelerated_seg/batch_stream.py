"""The prepared training loader as one stream of batches, pass after pass, positioned by the batches
drawn: where ``run_loop`` takes each micro-batch from, where a resume puts it back (a count of
batches, ``Progress.batches_seen``), and what a further ``run_loop`` call (the benchmark's next block)
goes on drawing from with the loader's workers still running (``Loop.stream``). In train.py until
the ninety-fifth session.
"""

from __future__ import annotations

import itertools

from accelerate import Accelerator

from .accelerate_workarounds import skip_first_batches_as_prepared
from .config import ConfigError
from .data.workers import stop_workers
from .preparation import seed_this_pass_of_the_workers


class BatchStream:
    """The prepared training loader's batches from ``start`` on, pass after pass, without end.

    ``position`` counts the batches drawn, per rank, as ``Progress.batches_seen`` does: the
    position in the data stream, which is all a resume needs. A pass is ``len(train_dl)`` batches
    (with our training loader, every epoch of the run: ``EpochSampler``); a start inside a pass
    skips its first batches by index, without loading them (accelerate's ``skip_first_batches``,
    with the prepared loader's options kept: ``skip_first_batches_as_prepared``).
    Between passes the loader's workers stop and refill, so the fewer passes the better.
    ``worker_seed`` (fit's): each pass seeds its workers from it (``seed_this_pass_of_the_workers``);
    None leaves the loader's generator as it is (``train_loader``'s own, for the one pass of ``train``).
    """

    def __init__(self, accelerator: Accelerator, train_dl, start: int, worker_seed: int | None = None):
        if len(train_dl) == 0:
            raise ConfigError("the training loader yields no batches: it holds fewer samples than one batch "
                              "(per process, with drop_last)")
        self.position = start
        self._loader = train_dl
        self._batches = self._passes(accelerator, train_dl, *divmod(start, len(train_dl)), worker_seed)

    @staticmethod
    def _passes(accelerator: Accelerator, train_dl, first_pass: int, skip: int, worker_seed: int | None):
        for number in itertools.count(first_pass):
            train_dl.set_epoch(number)  # our sampler's pass; a shuffling sampler's epoch
            if worker_seed is not None:
                seed_this_pass_of_the_workers(train_dl, worker_seed, accelerator.process_index, number)
            yield from skip_first_batches_as_prepared(accelerator, train_dl, skip) if skip else train_dl
            skip = 0

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self._batches)
        self.position += 1
        return batch

    def close(self) -> None:
        """End the stream and stop the loader's workers (``data.workers.stop_workers``)."""
        self._batches.close()  # ends the pass in progress, whichever loader it draws from (a resume's skipping one)
        stop_workers(self._loader)
