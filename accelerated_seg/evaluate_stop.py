"""What a stopped ``accelerated-seg evaluate`` says it left in its output folder.

evaluate writes metrics.csv and summary.json together at its end (``evaluate_output.write_evaluation``: each under a
temporary name, then each renamed into place), and a stop (Ctrl-C, SIGTERM, SIGUSR1) is raised on its main thread
wherever it comes: in its imports, its checks, its scoring, as the folder is synced, or as its lines are said once
both are in place. Between the two renames it is held until both are in place (``stops_held``, since the
hundred-and-twenty-first session's review r101), and evaluate called off the main thread is not stopped at all
(Python raises a stop on the main thread): no stop leaves the new metrics.csv beside an earlier summary.json, only a
kill, which says nothing. The line of one file in place and the other not (``stopped_line``, told by the files) is
for an interrupt raised inside the renames by no signal's handler (tests/test_early_signals.py raises one from
``os.replace``), not to say "written whole" of that. Until the hundred-and-twenty-first session a stop in its imports
or as its lines were said ended it saying nothing, and one once a file was in place said "nothing written". What is
written is told by the files themselves (written_since.py), against how they stood as the command began.
"""

from __future__ import annotations

import os
from pathlib import Path

from .written_since import WrittenSince, synced


class EvaluationFiles:
    """metrics.csv and summary.json in ``output`` as they stood as evaluate began (noted at once), to tell at a stop
    what has been written since. ``overwrite``: --overwrite was given (a rerun may need it: ``stopped_line``).
    ``noted`` False: made for a stop that came before they were noted (as the command's try began), which wrote
    nothing."""

    def __init__(self, output: Path, overwrite: bool, noted: bool = True):
        self.output, self.overwrite = output, overwrite
        self.metrics, self.summary = output / "metrics.csv", output / "summary.json"
        # an earlier evaluation's, which this one passed the checks of
        # os.path's test: Path.is_file raised at a name too long (ENAMETOOLONG) or in a folder not to be searched, a
        # traceback before evaluate_folders' refusal of --output (r100's probe, evaluate_long_output.sh)
        self.had_a_summary = noted and os.path.isfile(self.summary)
        self._since = WrittenSince(self.metrics, self.summary)
        if noted:
            self._since.note()

    def stopped_line(self, stopped: str) -> str:
        """The line of a stop, beginning with ``stopped`` ("evaluate stopped by SIGTERM": ``sigterm.stopped_by``)."""
        metrics, summary = self._since.written(self.metrics), self._since.written(self.summary)
        if not (metrics or summary):
            return (f"{stopped}: nothing written (both files are written together at the end; an earlier evaluation "
                    f"in {self.output} stays as it was)")
        # a stop between a rename and write_files_together's sync of the folder: the names made durable first
        synced(*(path for path, written in ((self.metrics, metrics), (self.summary, summary)) if written))
        if metrics and summary:
            return (f"{stopped}: its evaluation is written whole, metrics.csv and summary.json in {self.output} "
                    f"(every score is there); nothing to redo")
        # one of the two in place, the other not: an interrupt between their renames that no handler raised (a stop
        # is held there: stops_held)
        written, other = (self.metrics, self.summary) if metrics else (self.summary, self.metrics)
        left = "still holds an earlier evaluation's" if os.path.isfile(other) else "not there"
        # A metrics.csv without a summary.json is an earlier evaluation whose settings are not recorded, which the
        # same command refuses to replace without --overwrite (evaluate_output.check_earlier_evaluation)
        again = "the same command" if self.overwrite or self.had_a_summary else "the same command with --overwrite"
        return (f"{stopped}: {written.name} is written whole in {self.output}, but not {other.name} ({left}), so the "
                f"two do not belong together: {again} writes both again")
