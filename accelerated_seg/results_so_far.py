"""A benchmark's results so far, beside its result file, and the rerun that picks them up.

``benchmark train --output X.json`` writes its results after each configuration to ``X.partial.json``
and, once all are measured, the complete result to X.json, removing the partial file: X.json holds a
complete result (this run's, or an earlier one until this run completes), never a part of one. A run
stopped on the way (a device's time limit, Ctrl-C, a diverged configuration) leaves X.partial.json,
and the same command run again keeps the configurations it holds and measures the others. That is
sound because each configuration is measured on its own: both loops built anew and timed against
each other in alternating blocks, so its row does not lean on the rows before it. It holds only where
the rows would have been measured alike: the same command line, machine, versions, code and
settings; a partial file that differs in any of them is refused before anything is measured, naming
the difference, as is a file there that is no stopped run's. Until the ninety-fourth session each
rerun wrote its own ``X.partial_2.json``, ``_3``, ... beside the last, which only their times told
apart, and measured everything again. Without ``--output`` a run writes into a new file of its own
under benchmarks/results (``complete`` false until the end), and the same command run again goes on
in the newest such file a stopped run of it left (a new ``_2`` file before); a stopped run's file of
another command is that run's own, and left alone.

``benchmark infer`` (``kind="infer"``) keeps its results so far the same way, one device at a time since the
ninety-fourth session: each device's entry (under ``devices``) is measured on its own, both ways timed against
each other in alternating blocks on that device, so a stopped run's entry stands as the rows of train's do.

A row (a configuration, a device) that runs out of its device's memory stops the run in one line naming it
(``out_of_memory_named``, since the ninety-fifth session; torch's traceback before), as a diverged loss does, and
so does one that runs out of the host's memory (since the ninety-sixth session). Its
row is not written, as none stopped halfway is: the same command run again measures it anew, where memory another
process held may be free; a run with lower settings is another command, whose rows the stopped run's are not.

    so_far = ResultsSoFar(output, command)  # kind="infer" for benchmark infer
    kept = so_far.pick_up(record)  # the stopped run's rows, or none; a ConfigError for another run's
    ... so_far.write(name, partial) after each configuration, so_far.finish(name, results) at the end
    ... on an error that stops it: f"{error} ({so_far.kept_before_it()})"
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from pathlib import Path

from . import benchmark  # its functions looked up at each call: benchmarks/ scripts wrap write_result
from .files import RESULTS_FOLDER


#: Each benchmark whose results so far are kept: the key of its rows, what one row measured, what holds them.
ROWS = {"train": ("runs", "configuration", list), "infer": ("devices", "device", dict)}


class ResultsSoFar:
    """Where a run's results go after each configuration (``write``) and whole at its end (``finish``).

    With ``output``, the results so far go to ``<stem>.partial.json`` beside it, which ``finish`` removes
    once the complete result has replaced whatever was at ``output``. Without it the run writes to a file
    of its own under benchmarks/results (``benchmark.default_result_path``), first partial, then whole, or
    to the one a stopped run of it left there (``pick_up``). ``kind`` is the benchmark (``ROWS``)."""

    def __init__(self, output: str | Path | None, command: str, kind: str = "train"):
        self.output = Path(output) if output else None
        self.command = command
        self.kind = kind
        self.rows, self.row_word, self._holder = ROWS[kind]
        self.path: Path | None = None  # where the results so far went; None until the first write
        self.picked_up: dict | None = None  # the stopped run's record whose configurations this run kept

    @property
    def partial_path(self) -> Path | None:
        return self.output.parent / f"{self.output.stem}.partial.json" if self.output else None

    def pick_up(self, record: dict) -> list[dict] | dict:
        """The configurations (``runs``; infer's ``devices``, a dict) a stopped run of this command left in
        ``partial_path`` (without ``output``, in a file of its own: ``_pick_up_own_file``), none ([] or {})
        where there is none. ``record`` holds what this run's results will say beside the command and machine
        (``settings``, ``launch``; infer's ``torch_threads``). Raises ConfigError where the file at
        ``partial_path`` is anything else."""
        from .config import ConfigError

        if self.output is None:
            return self._pick_up_own_file(record)
        path = self.partial_path
        if not path.exists():
            return self._holder()
        earlier = _stopped_run(path, self.kind)
        if earlier is None:
            raise ConfigError(f"{path} is where this run keeps its results so far, and it holds no stopped run's "
                              f"results of benchmark {self.kind}: move it away, or give another --output")
        if difference := _first_difference(self._said_by_this_run(record), earlier):
            runs = len(earlier[self.rows])
            raise ConfigError(f"{path} holds {runs} {self.row_word}(s) a stopped run measured on {earlier['date']} "
                              f"with another {difference}; kept, they would be mixed with this run's rows: "
                              f"run that command again to finish it, or move the file away to measure anew")
        self.picked_up = earlier
        return earlier[self.rows]

    def _pick_up_own_file(self, record: dict) -> list[dict] | dict:
        """Without --output: the newest file under benchmarks/results that a stopped run of this command left
        (``complete`` false), whose name the rest of this run writes to; none where there is none. The files of
        other commands, machines or code are other runs' own, never refused or touched."""
        now = self._said_by_this_run(record)
        newest_first = sorted(RESULTS_FOLDER.glob(f"{self.kind}_*.json"), key=lambda p: p.stat().st_mtime,
                              reverse=True)
        for path in newest_first:
            if (earlier := _stopped_run(path, self.kind)) is not None and _first_difference(now, earlier) is None:
                self.picked_up, self.path = earlier, path
                return earlier[self.rows]
        return self._holder()

    def _said_by_this_run(self, record: dict) -> dict:
        """What this run's results so far will say that a stopped run's must say alike to be picked up."""
        return {"command_line": self.command, "machine": benchmark.machine_info(), "code_digest": code_digest(),
                **record}

    @property
    def picked_up_from(self) -> Path | None:
        """The file whose configurations this run kept; None where it measures them all."""
        return None if self.picked_up is None else self.partial_path or self.path

    def write(self, name: str, results: dict) -> Path:
        """The results so far, with what a rerun compares (``pick_up``) beside them: the command line as given
        (``command`` is what the writer says, which a script under benchmarks/ rewrites as its own) and the
        code's digest."""
        record = {**results, **self._picked_up_from(), "command_line": self.command, "code_digest": code_digest()}
        self.path = benchmark.write_result(name, record, self.path or self.partial_path, self.command)
        return self.path

    def finish(self, name: str, results: dict) -> Path:
        """Write the complete ``results`` where the run's result belongs, and remove the partial file."""
        path = benchmark.write_result(name, {**results, **self._picked_up_from()}, self.output or self.path,
                                      self.command)
        if self.partial_path is not None:
            self.partial_path.unlink(missing_ok=True)  # also a picked-up one where nothing was left to measure
        return path

    def kept_before_it(self) -> str:
        """Where the rows measured before an error that stopped the run are kept, for its one line."""
        if (kept := self.path or self.picked_up_from) is None:  # "the JSON", which nothing had written, before
            return f"no {self.row_word} was measured before it"
        return f"the {self.row_word}s measured before it are in {kept}, marked incomplete"

    def _picked_up_from(self) -> dict:
        """``resumed_from``: the stopped runs whose configurations lead ``runs``, in order, each with its date,
        load average and number of configurations; nothing where this run measured them all."""
        if self.picked_up is None:
            return {}
        before = self.picked_up.get("resumed_from", [])
        count = f"{self.row_word}s"  # "configurations" in train's, "devices" in infer's
        own = len(self.picked_up[self.rows]) - sum(each[count] for each in before)
        return {"resumed_from": [*before, {"date": self.picked_up["date"], count: own,
                                           "load_average": self.picked_up.get("load_average")}]}


class OutOfMemory(RuntimeError):
    """A row's measurement that ran out of its device's memory, said as the row's flags and what to lower."""


#: What the CPU's allocator says when it cannot allocate (a plain RuntimeError): torch 2.13's words, and those of
#: its path without posix_memalign ("not enough memory").
HOST_OUT_OF_MEMORY = ("DefaultCPUAllocator: can't allocate memory", "DefaultCPUAllocator: not enough memory")


@contextlib.contextmanager
def out_of_memory_named(row: str, lower: str):
    """Inside, running out of memory becomes ``OutOfMemory`` naming ``row`` (its flags, e.g. ``--device cuda``) and
    what to ``lower``, torch's words kept; the caller says it in one line. A GPU's allocator raises torch's
    OutOfMemoryError; the CPU's a plain RuntimeError (``HOST_OUT_OF_MEMORY``), and Python and NumPy a
    MemoryError: both the host's memory, said so, since the ninety-sixth session (torch's traceback before). The
    out-of-memory killer stops a process without an error: that is not seen here."""
    import torch

    try:
        yield
    except torch.OutOfMemoryError as error:
        raise OutOfMemory(f"{row} ran out of memory ({error}): {lower}, or free what another process holds "
                          f"there") from error
    except (RuntimeError, MemoryError) as error:
        if (said := _host_out_of_memory(error)) is None:
            raise
        raise OutOfMemory(f"{row} ran out of the host's memory ({said}): {lower}, or free what other processes "
                          f"hold there") from error


def _host_out_of_memory(error: RuntimeError | MemoryError) -> str | None:
    """torch's or Python's words for ``error`` where it is the host's memory running out, else None: the
    allocator's from its own name on (the "[enforce fail at alloc_cpu.cpp:127] err == 0." before it is torch's
    source line)."""
    text = str(error)
    if isinstance(error, MemoryError):
        return text or type(error).__name__  # Python's own says nothing
    starts = [text.find(words) for words in HOST_OUT_OF_MEMORY if words in text]
    return text[min(starts):] if starts else None


def _stopped_run(path: Path, kind: str) -> dict | None:
    """The record at ``path`` where it is one of benchmark ``kind``'s results so far (incomplete), else None."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    rows, _, holder = ROWS[kind]
    if not isinstance(record, dict) or record.get("complete") is not False or not isinstance(record.get(rows), holder):
        return None
    return record if str(record.get("benchmark", "")).startswith(f"{kind}_") else None


def _first_difference(now: dict, earlier: dict, prefix: str = "") -> str | None:
    """The first key of ``now`` whose value ``earlier`` does not share, said as "<key> (<there> there, <now>
    now)"; None where all agree. Nested dicts name the innermost key (machine.torch)."""
    for key, value in now.items():
        there = earlier.get(key) if isinstance(earlier, dict) else None
        if isinstance(value, dict) and isinstance(there, dict):
            if found := _first_difference(value, there, f"{prefix}{key}."):
                return found
        elif json.loads(json.dumps(value)) != there:  # tuples written as lists
            return f"{prefix}{key} ({json.dumps(there)} there, {json.dumps(value)} now)"
    return None


@functools.cache
def code_digest(package: Path = Path(__file__).resolve().parent) -> str:
    """SHA-256 of the package's Python files, names and contents: the commit a result records says
    "+modified" for any edit, and nothing for a package installed from a folder, so it cannot tell
    whether the code of a stopped run is this run's."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
