"""How a launched ``predict`` (either ``--split``) stops every process at once on one process's error, said in one line.

Under split=windows every process runs each case's windows and meets the others in the case's reduction; the main
process alone writes. One process's error (out of memory, a bug, a file it alone reads differently, Ctrl-C) left
the others in that collective until the process group's timeout (30 minutes). ``WrittenWhole`` publishes it to
every process through ``ranks_stop_together`` from where it arises (a case's reading or network stage, which the
pipeline would hand on only after the case before it; or anywhere else in the work), and gives the line the main
process says: the error, with the cases written whole (each written under the lock the line is said under, so no
file is half-written) and what a rerun does. Moved out of inference_distributed.py in the ninety-eighth session.
Since the ninety-ninth it covers the whole of predict_distributed's work after the checks, under either split: before
the split (moving the model, the folder's lock, --continue's reading), where the others waited in the next
collective, and under split=cases, where each process writes its own cases under its own such lock, and notes them
for the main process's line; and an interrupt in the checks or the gather of their errors, and what follows the work
until the last wait for every process, the checks' errors still raised alike (``raised_alike``). Named
windows_stop.py until the hundredth session, when it had served both splits for a session.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path

from .config import ConfigError
from .data.errors import DataError
from .sigterm import INTERRUPTS, stop_signal, stopped_by


#: What lowers the memory a case's windows take, said with a process's out of memory under split=windows.
LOWER_FOR_MEMORY = "lower --sw-batch-size, or give --aggregate-on-cpu (the GPU's) or --sequential (the host's)"


def named_out_of_memory(error: BaseException, row: str):
    """``error`` as results_so_far's OutOfMemory naming ``row`` and what to lower, where it is running out of the
    device's or the host's memory (``out_of_memory_named``); else None."""
    from .results_so_far import OutOfMemory, out_of_memory_named

    if isinstance(error, OutOfMemory):  # named already, where it was raised
        return error
    try:
        with out_of_memory_named(row, LOWER_FOR_MEMORY):
            raise error
    except OutOfMemory as named:
        return named
    except BaseException:  # noqa: BLE001 - not out of memory: the caller's to handle
        return None


class WrittenWhole:
    """The cases the main process has written under split=windows (every process under split=cases, the others'
    noted in the store), for the line that stops every process (``ranks_stop_together``): each case's writing holds
    the lock that line is said under, so the line names each case whose files are whole, and no write starts after it
    (the process is ending)."""

    def __init__(self, output: Path, rank: int, continued: bool = False, to_write: Sequence[str] = ()):
        # to_write: the ids of the cases this run writes, in the order of its inputs (predict_distributed's result)
        self.output, self.rank, self.cases, self.said, self.to_write = output, rank, [], False, list(to_write)
        # split=cases: each process writes its own cases, which the main process's line names from the others' notes
        self.each_process_writes = False
        # what the line says to do: with --continue given, the same command (until the ninety-eighth session it
        # said to give --continue, given already); "{}": the others, counted where the line can (``in_full``)
        self.again = ("the same command, with its --continue, passes over them and predicts {}" if continued
                      else "the same command with --continue predicts {}")
        self.stages: dict[str, int] = {}  # how many of a case's stages (reading, network) have begun here
        self.passed: set[str] = set()  # the stages this process has said it passed (``met_by_every_rank``)
        self.here = threading.local()  # the stage running on this thread
        self.lock = threading.Lock()  # stopping_together's, once entered
        # an error that stops no more processes: every process raises it alike (raised_alike), or an inner
        # any_error_stops_every_process has stopped them with it
        self.handled: BaseException | None = None
        self.counting = threading.Lock()

    @contextlib.contextmanager
    def writing(self, job):
        from .ranks_stop_together import note_for_the_line, writes_for_the_line

        with self.lock:
            if not self.said and self.each_process_writes and self.rank != 0 and not self.cases:
                self.said = not writes_for_the_line()  # the main process waits for it, or says the line without it
            if not self.said:
                yield
                self.cases.append(job[0].id)
                if self.each_process_writes and self.rank != 0:  # for the main process's line
                    note_for_the_line(job[0].id)
                return
        threading.Event().wait()  # the line is said and this process about to end: no file begun

    @contextlib.contextmanager
    def stopping_every_process(self, job):
        """Around a case's reading and network: this process's error stops every process at once. The pipeline
        would hand it on after the case before it, and the main process, in this case's reduction, would wait for
        this one in that case's collective (``stop_every_rank``). Out of memory is named with what to lower; any
        other error with the process, the case and, for a bug, its traceback, as ``--split cases`` reports a case.
        A file's unusable voxels (DataError) every process meets alike as a rule, and all go on to the next case;
        where the others read it (``met_by_every_rank``), it stops them too. Until the ninety-seventh session only
        out of memory stopped them: a bug, a file one process read differently or an interrupt on one process left
        the others in that reduction for the process group's timeout (30 minutes)."""
        from .peer_death import ended_at_once_where_a_process_beside_died, said_by_a_peer_gone
        from .ranks_stop_together import met_by_every_rank, stop_every_rank

        row = f"process {self.rank}, case {job[0].id}"
        with self.counting:  # the reading and network stages run on two threads
            self.stages[job[0].id] = self.stages.get(job[0].id, 0) + 1
            stage = self.here.stage = f"{job[0].id}/{self.stages[job[0].id]}"
        try:
            yield
        except DataError as error:  # alike on every process as a rule (the same file), which then go on
            if not met_by_every_rank(stage, met=True):
                stop_every_rank(RuntimeError(f"{row}: {error} (not on every process: do they all see the same "
                                             f"files?)"))
            raise
        except BaseException as error:  # noqa: BLE001 - an interrupt on one process stops them all too
            ended_at_once_where_a_process_beside_died(error)  # a case's reduction broken by a death (peer_death.py)
            if (named := named_out_of_memory(error, row)) is not None:
                stop_every_rank(named)
                raise named from error
            stop_every_rank(_stopping(error, row), peer_gone=said_by_a_peer_gone(error))
            raise
        else:
            self.reducing()
        finally:
            self.here.stage = None

    def reducing(self) -> None:
        """This thread's stage has passed a case's checks: its network enters the case's reduction, or it ended.
        Said at the reduction, a process that met a file's unusable voxels in the network's stage (on the GPU)
        alone learns it at once: the others, in the reduction, waited MET_WAIT_S (60 s) until the ninety-eighth
        session."""
        from .ranks_stop_together import met_by_every_rank

        if (stage := getattr(self.here, "stage", None)) is not None and stage not in self.passed:
            self.passed.add(stage)
            met_by_every_rank(stage, met=False)

    @contextlib.contextmanager
    def raised_alike(self, *kinds: type[BaseException]):
        """Inside ``any_error_stops_every_process``, around a step whose errors of ``kinds`` every process raises
        alike: the checks' errors, handed to every process by the gather before it (``_raise_what_the_checks_met``;
        the refusals alone until the ninety-ninth session), or the folder lock's refusal, by ``ranks.on_main``. Such
        an error passes as it is, stopping no one; anything else (an interrupt on one process, in the step or in that
        gather) is this process's own, and stops every process: the others waited for it in the gather, or the next
        collective, until the process group's timeout (until the ninety-ninth session)."""
        try:
            yield
        except kinds as error:
            self.handled = error
            raise

    @contextlib.contextmanager
    def entered_alike(self, context):
        """Around the work, ``context`` (the output folder's lock, ``holding_output_folder``), whose refusal every
        process raises alike (``ranks.on_main`` hands the main process's to all): entered ``raised_alike``, so
        anything else in entering it (an interrupt on one process, which left the others in on_main's broadcast
        until the ninety-ninth session) stops every process, as does one in its exit (the lock's release), inside
        ``any_error_stops_every_process``."""
        with contextlib.ExitStack() as stack:
            with self.raised_alike(Exception):
                stack.enter_context(context)
            yield

    @contextlib.contextmanager
    def any_error_stops_every_process(self):
        """Around the work: an error of this process's own outside a case's stages (setting up, the main process's
        writing, an interrupt on the main thread) stops every process as one in a stage does. Until the
        ninety-eighth session it was said by this process alone, the others left in a collective. An error every
        process raises alike (``raised_alike``) passes as it is, and so does one an inner such scope has met (the
        work's, inside the folder's lock, which is held while the line is said)."""
        try:
            yield
        except BaseException as error:  # noqa: BLE001 - an interrupt stops them all too
            if error is not self.handled:
                self.handled = error
                self.stop_every_process(error, f"process {self.rank}")
            raise

    def stop_every_process(self, error: BaseException, where: str) -> BaseException:
        """Stop every process with ``error``, met ``where``; where it cannot (no store), returns it for the caller to
        raise, out of memory named. A collective broken by the death of another process (gloo's "Connection reset by
        peer") ends this one at once instead, as the agent's SIGTERM after that death does (``peer_death``): it stopped
        every process, the main process 13-14 s later with gloo's traceback, until the hundred-and-eleventh session."""
        from .peer_death import ended_at_once_where_a_process_beside_died, said_by_a_peer_gone
        from .ranks_stop_together import stop_every_rank

        ended_at_once_where_a_process_beside_died(error)
        # a peer on another node gone: the main process names it lost, waiting for none that does not answer
        # (lost_processes; 14-15 s, then gloo's error, until the hundred-and-fourteenth session)
        peer_gone = said_by_a_peer_gone(error)
        error = named_out_of_memory(error, where) or error
        stop_every_rank(_stopping(error, where), peer_gone=peer_gone)
        return error

    def in_full(self, message: str) -> str:
        """The stopping line: ``message`` and the cases written whole (called under ``self.lock``); a traceback
        in ``message`` goes under the line."""
        from .ranks_stop_together import notes

        self.said = True
        self.cases += notes() if self.each_process_writes else []  # the other processes', written whole (ninety-ninth)
        self.cases = self.in_input_order(self.cases)
        line, newline, traceback_lines = message.partition("\n")
        if not self.cases:
            return f"{line} (no case was written){newline}{traceback_lines}"
        if len(self.cases) == len(self.to_write):  # none left for a rerun to predict
            return f"{line} (every case is written whole in {self.output}){newline}{traceback_lines}"
        # Counted as one process's line counts them ("1 of 2 case(s)"), of every case this run writes, all processes'
        # (split=cases: the others' as they noted them), the names kept: they say which are done. Until the
        # hundred-and-tenth session the names alone, which a user counted by hand on a list of hundreds.
        if not self.to_write:  # not known yet (a line from before the cases were listed names none anyway)
            return (f"{line} (written whole: {', '.join(self.cases)} in {self.output}; no file is half-written, and "
                    f"{self.again.format('the others')}){newline}{traceback_lines}")
        left = len(self.to_write) - len(self.cases)
        return (f"{line} ({len(self.cases)} of {len(self.to_write)} case(s) written whole: {', '.join(self.cases)} in "
                f"{self.output}; no file is half-written, and {self.again.format(f'the {left} not yet written')})"
                f"{newline}{traceback_lines}")

    def in_input_order(self, cases: list[str]) -> list[str]:
        """``cases`` in the order of the inputs, as predict_distributed returns them, so a user reads which are done:
        under split=cases the main process's came first, then the others' as they were written (until the
        ninety-ninth session). A case not among ``to_write`` goes last."""
        position = {case: index for index, case in enumerate(self.to_write)}
        return sorted(cases, key=lambda case: position.get(case, len(position)))


def _stopping(error: BaseException, where: str) -> BaseException:
    """What stops every process for ``error`` met ``where`` (``process 1, case small_1``): out of memory as named;
    ``predict interrupted in <where>`` for Ctrl-C or a scheduler's SIGINT, asked for (a KeyboardInterrupt: said as
    no error, status 130; the cases written whole follow, as predict says them when interrupted in one process), and
    ``predict stopped by SIGTERM in <where>`` for a stop's SIGTERM (status 143; launched_sigterm.py), ``predict stopped
    by SIGUSR1 in <where>`` for a requeue's SIGUSR1 (status 138, since the hundred-and-twentieth session);
    stdout's reader gone (``| head``: a BrokenPipeError, no error either, left for the launcher's table alone, status
    141 as SIGPIPE's, where it was "error: process 0: [Errno 32] Broken pipe" until the hundred-and-second session); a
    file's or a setting's error, or one of the file system, in one line; a bug with its type and traceback."""
    from .results_so_far import OutOfMemory

    if isinstance(error, OutOfMemory):
        return error
    if isinstance(error, KeyboardInterrupt):  # SIGTERM's a Terminated still (SIGUSR1's alike), for each status (143)
        return INTERRUPTS.get(stop_signal(error), KeyboardInterrupt)(f"{stopped_by('predict', error)} in {where}")
    if isinstance(error, BrokenPipeError):  # an OSError, but not the file system's
        return BrokenPipeError(f"predict stopped in {where}: the reader of its output went away")
    if isinstance(error, (DataError, ConfigError, OSError)):
        return RuntimeError(f"{where}: {error}")
    words = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    under = "\n" + "".join(traceback.format_exception(error)).rstrip("\n") if isinstance(error, Exception) else ""
    return RuntimeError(f"{where}: {words}{under}")
