"""Where the training loop's time goes: waiting for the next batch, and the rest of the step.

``run_loop`` reads its batches through ``LoopClock.timed`` and runs logging, validation and
checkpointing ``paused``; at every log step the window since the previous one becomes
``train/samples_per_s`` and ``train/data_wait_pct``. The training benchmark reads the same clock, and
times the plain loop's loader with it, so both loops' waits are measured the same way.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field


@dataclass
class LoopClock:
    """Where the loop's time goes: waiting for the next batch, and the rest of the step.

    At every log step the window since the previous one is reported as ``train/data_wait_pct`` and
    ``train/samples_per_s``, so a starved device shows while it trains. Logging, validation and
    checkpointing run ``paused`` and are not counted. Host time: on a GPU the loop synchronises once
    per optimizer step, on the step's loss after its forward, so the GPU may still be running the
    backward and the optimizer while the host waits for the next batch. The waits are an upper
    bound on the GPU's starvation.
    """

    waited_total_s: float = 0.0  # since the loop was built: what the training benchmark reads
    window_start: float = field(default_factory=time.perf_counter)
    window_waited_s: float = 0.0
    window_paused_s: float = 0.0
    window_samples: int = 0  # on this rank

    def timed(self, batches):
        """Yield ``batches``, adding the time each ``next`` blocks to the waits."""
        iterator = iter(batches)
        while True:
            start = time.perf_counter()
            try:
                batch = next(iterator)
            except StopIteration:
                return
            waited = time.perf_counter() - start
            self.waited_total_s += waited
            self.window_waited_s += waited
            yield batch

    def count(self, samples: int) -> None:
        self.window_samples += samples

    @contextlib.contextmanager
    def paused(self):
        start = time.perf_counter()
        try:
            yield
        finally:  # only the part after a window restarted inside the pause counts against the new window
            self.window_paused_s += time.perf_counter() - max(start, self.window_start)

    def restart(self) -> None:
        self.window_start = time.perf_counter()
        self.window_waited_s = self.window_paused_s = 0.0
        self.window_samples = 0

    def close_window(self) -> tuple[float, float]:
        """(this rank's samples/s, its % of the time waiting for data) in the window; restarts it."""
        active = time.perf_counter() - self.window_start - self.window_paused_s
        rates = (self.window_samples / active, 100 * self.window_waited_s / active) if active > 0 else (0.0, 0.0)
        self.restart()
        return rates
