"""What a stopped ``benchmark data|infer|predict`` says it left: its result file whole, the devices measured so far
(``infer``), or nothing.

Each writes its result whole or not at all (``benchmark.write_result``: a temporary, then one rename), to --output or
to a file of its own under benchmarks/results/ (``benchmark.default_result_path``, claimed as it is first written);
``benchmark infer`` writes its devices measured so far first (``results_so_far.ResultsSoFar``), which the same
command picks up. A stop (Ctrl-C, SIGTERM, SIGUSR1) ended each saying nothing until the hundred-and-twenty-first
session, where every other command that writes says what is whole. Told by the files themselves: --output's identity
against the one noted as the command began (written_since.py), a claimed file's content.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .result_file_stop import ResultFile
from .written_since import WrittenSince, synced


class BenchmarkResult:
    """Where ``benchmark <target>`` writes its result (``output``: --output, None for a file of its own), as it stood
    as the command began; ``so_far``: infer's results so far, once made (set by the command). ``noted`` False: made
    for a stop that came before they were noted (as the command's try began), which wrote nothing."""

    def __init__(self, target: str, output: str | Path | None, noted: bool = True):
        self.target = target
        self.output = ResultFile(output, noted) if output else None
        self.so_far = None
        # the files of its own an earlier call in this process claimed (cli.main called from Python): not this one's
        # unless written since
        benchmark = sys.modules.get("accelerated_seg.benchmark")
        self._claimed_before = WrittenSince(*(benchmark.claimed_results() if benchmark is not None else []))
        if noted:
            self._claimed_before.note()

    def stopped_line(self, stopped: str) -> str:
        """The line of a stop, beginning with ``stopped`` ("benchmark data stopped by SIGTERM")."""
        if (written := self._written_whole()) is not None:
            synced(written)  # a stop between its rename and the sync of its folder
            return f"{stopped}: its result is written whole at {written}; nothing to redo"
        if self.so_far is not None and (kept := self.so_far.path or self.so_far.picked_up_from) is not None \
                and kept.is_file():
            # infer's devices measured before the stop, or picked up from an earlier stopped run: with --output its
            # X.partial.json is ``picked_up_from`` alone until this run writes there (``path``), which was said as
            # "nothing written to X ...; the same command measures again" until the hundred-and-twenty-first
            # session's review, of the devices the same command picks up
            return f"{stopped}: {self.so_far.kept_before_it()}; the same command picks them up and measures the rest"
        # without --output its file is one of its own, never an earlier result's
        where, earlier = ((f" to {self.output.path}", "; an earlier result there stays as it was")
                          if self.output is not None else ("", ""))
        return (f"{stopped}: nothing written{where} (its result is written whole at its end, or not at all{earlier}); "
                f"the same command measures again")

    def _written_whole(self) -> Path | None:
        """The result file this run wrote whole, None where it wrote none: --output written since the command began,
        or, without it, a file of its own (claimed under benchmarks/results/, or infer's picked up from a stopped run)
        holding the complete result: a claim is made empty, and removed where its write fails; infer's results so far
        go there too, marked incomplete."""
        if self.output is not None:
            return self.output.path if self.output.written() else None
        benchmark = sys.modules.get("accelerated_seg.benchmark")  # not imported yet: nothing measured or written
        own = [*(benchmark.claimed_results() if benchmark is not None else []),
               *([self.so_far.path] if self.so_far is not None and self.so_far.path is not None else [])]
        return next((path for path in own if (path not in self._claimed_before.paths
                                               or self._claimed_before.written(path)) and _complete(path)), None)


def _complete(path: Path) -> bool:
    """Whether the result file ``path`` holds a complete result (not empty, and not marked incomplete)."""
    import json

    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # an empty claim, gone, unreadable: no result there
        return False
    return isinstance(result, dict) and result.get("complete", True) is not False
