"""What a command that writes one result file, whole or not at all, at its end says when a stop ends it.

``plan --json`` prints its table and writes the same figures to the file named (``files.write_text_atomically``: a
temporary, then one rename); without that file it writes nothing, and a stop ends it saying nothing, as it ends
``check`` and ``cache``'s listing: there is nothing to tell of, their output being what was printed. With it, a stop
ended it saying nothing until the hundred-and-twenty-first session, where every other command that writes says what
is whole: stopped before the rename, nothing is written (an earlier file there stays as it was); after it, as the
folder is synced or the ``wrote`` line is said, the file is whole. Told by the file itself (written_since.py).
``benchmark data|infer|predict``'s --output is looked at so too (benchmark_stop.py).
"""

from __future__ import annotations

from pathlib import Path

from .written_since import WrittenSince, synced


class ResultFile:
    """The result file ``path`` as it stood as the command began (noted at once), to tell at a stop whether it has
    been written since. ``noted`` False: made for a stop that came before it was noted (as the command's try began),
    which wrote nothing. ``again``: what the same command does where the file is not written ("writes it")."""

    def __init__(self, path: str | Path, noted: bool = True, again: str = "writes it"):
        self.path, self.again = Path(path), again
        self._since = WrittenSince(self.path)
        if noted:
            self._since.note()

    def written(self) -> bool:
        """Whether the file has been written since the command began."""
        return self._since.written(self.path)

    def stopped_line(self, stopped: str) -> str:
        """The line of a stop, beginning with ``stopped`` ("plan stopped by SIGTERM": ``sigterm.stopped_by``)."""
        if not self.written():
            return (f"{stopped}: nothing written to {self.path} (written whole or not at all; an earlier file there "
                    f"stays as it was); the same command {self.again}")
        synced(self.path)  # a stop between its rename and the sync of its folder: the name made durable first
        return f"{stopped}: {self.path} is written whole; nothing to redo"
