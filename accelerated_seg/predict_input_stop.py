"""What a stopped one-process ``predict --input`` (one case: --output is the label map's own path) says it left.

Its case is written on the main thread, where a stop is raised wherever it comes: before the label map's write,
inside it (before its rename nothing is there: ``data.io.write_nifti`` removes its hidden temporary; after it, as the
folder is synced, the map is in place), between the label map and its probabilities (seconds: theirs is the larger
write), once ``predict_file`` has returned, as its ``wrote`` line is said, or as the command puts its handling of
SIGTERM and SIGUSR1 back. Until the hundred-and-twentieth session every one of them said ``no file is half-written; the
same command predicts the case``, of a case written whole. What is written is told by the files themselves
(``OneCaseFiles``, through written_since.py): each output's identity as it stands, against the one noted before
``predict_file`` began, a write putting a new file in its place (``os.replace``), never changing one in place.
"""

from __future__ import annotations

import os
from pathlib import Path

from .written_since import WrittenSince, synced


class OneCaseFiles:
    """The label map (``output``) and, with --probabilities, the probabilities (``probabilities``) of one case, as
    they stood before its prediction began (``note_before``), to tell at a stop what has been written since."""

    def __init__(self, output: str | Path, probabilities: str | Path | None):
        # predict_file expands a leading "~" of a path given quoted; the same files are looked at here
        self.output = Path(os.path.expanduser(output))
        self.probabilities = Path(os.path.expanduser(probabilities)) if probabilities is not None else None
        self._since = WrittenSince(self.output, self.probabilities)  # noted: the prediction has begun

    def note_before(self) -> None:
        """Each output as it stands, just before the case's prediction."""
        self._since.note()

    def written(self, path: Path | None) -> bool:
        """Whether ``path`` has been written since ``note_before``."""
        return self._since.written(path)

    def stopped_line(self, stopped: str) -> str:
        """The line of a stop, beginning with ``stopped`` ("predict stopped by SIGTERM": ``sigterm.stopped_by``)."""
        if not self.written(self.output):
            return f"{stopped}: no file is half-written; the same command predicts the case"
        # A stop between a file's rename and its folder's fsync (write_nifti's last step) left the name not yet
        # durable, said "nothing to redo" all the same until that session's review: the folder is synced here.
        synced(self.output, self.probabilities if self.written(self.probabilities) else None)
        if self.probabilities is not None:
            if not self.written(self.probabilities):  # the stop came in their write: nothing of them is in place
                # an earlier run's there stay: they were said to be "not its probabilities" alone until that
                # session's review, beside a map they are no longer the probabilities of
                left = " still holds an earlier run's, no longer its" if self.probabilities.is_file() else ""
                return (f"{stopped}: the label map is written whole at {self.output}, but not its probabilities "
                        f"({self.probabilities}{left}); no file is half-written: the same command predicts the case "
                        f"again")
            return (f"{stopped}: the label map and its probabilities are written whole at {self.output} and "
                    f"{self.probabilities}; nothing to redo")
        if stale := self._earlier_probabilities():  # the stop came before write_case removed them
            return (f"{stopped}: the label map is written whole at {self.output}; the probabilities an earlier run "
                    f"wrote beside it ({stale}) are no longer its: the same command predicts the case again and "
                    f"removes them")
        return f"{stopped}: the label map is written whole at {self.output}; nothing to redo"

    def _earlier_probabilities(self) -> Path | None:
        """An earlier run's probabilities beside the label map written without them, which ``write_case`` removes
        once the map is in place (``_remove_earlier_probabilities``, with the same test); None where there are none.
        os.path's test, as there: Path.is_file raised "File name too long" where the map's name (250-255 bytes) leaves
        no room for ``_probs``, in this line's place, until the hundred-and-twenty-second session's review."""
        from .inference_outputs import probabilities_path
        from .predict_marks import written_by_predict

        stale = probabilities_path(self.output)
        return stale if os.path.isfile(stale) and written_by_predict(stale) is None else None
