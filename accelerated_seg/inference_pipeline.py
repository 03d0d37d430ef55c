"""Overlap the host work of neighbouring cases with the network: prediction of many cases as a pipeline.

Each case passes three stages: ``prepare`` (read, check, preprocess: host), ``compute`` (the network)
and ``finish`` (invert onto the input's grid, class map, write: host; with predict's
``--transforms-on-device`` all but reading and writing join the network's stage). One after the other, a GPU
waits for the host most of the time: for a 192 x 192 x 160 scan the host stages take 0.4-1.6 s
(benchmarks/results/predict_tail_2cpu.json) and the network 32-173 ms on an H200
(docs/performance_history.md, the thirtieth session's). Here case ``i`` is computed on the calling thread while
case ``i + 1`` is prepared and case ``i - 1`` finished on two helper threads, so a case costs the longest stage
rather than the sum of the three. This is what nnU-Net's predictor does with its preprocessing workers and
export pool, with one case ahead and one behind, so at most three cases are held in memory.

The network stays on the calling thread: CUDA work and the collectives of a prediction whose windows
are shared between processes keep the order every process issues them in. The host stages spend
their time in zlib, NumPy and torch kernels, which release the GIL, so the threads run at once.

Nothing here knows about images: ``inference_cases.segment_cases`` supplies the stages (``inference``'s
one case's steps).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar

from .own_warnings import working_for

Item = TypeVar("Item")


def pipelined(items: Sequence[Item], prepare: Callable[[Item], Any], compute: Callable[[Item, Any], Any],
              finish: Callable[[Item, Any, Any], Any],
              yield_after_an_interrupt: bool = True) -> Iterator[tuple[Item, BaseException | None]]:
    """Run ``finish(item, prepared, compute(item, prepared))`` with ``prepared = prepare(item)`` for
    every item, overlapping neighbouring items' stages (module docstring).

    Yields ``(item, None)`` once an item is finished, or ``(item, error)`` with the exception of the
    stage that failed it; in the items' order, whatever order the stages end in. A failed item does not
    stop the others; the caller decides (stop iterating, and the helpers' work in flight is waited for,
    the rest never started). An interrupt (``KeyboardInterrupt``: Ctrl-C reaches the calling thread
    alone, in the network or a wait) lets the item being finished end, yields it, and is raised at the
    next step, or as the caller closes the generator (stopping at that item's error): every item finished is
    yielded, none is begun after (``_said_after_the_interrupt``).
    ``yield_after_an_interrupt=False`` raises it once that item has ended, without yielding it: for a caller
    whose handling of an item the other processes of a launch must join (predict's ``--split windows``, where
    the interrupted process alone entered a collective; hundredth session's review).

    Example:
        >>> [error for _, error in pipelined([1, 2], lambda x: x, lambda x, p: p * 10, lambda x, p, c: None)]
        [None, None]
    """
    items = list(items)
    # each stage's warnings recorded as this thread's, where a record is in progress (own_warnings.working_for)
    preparer = ThreadPoolExecutor(1, thread_name_prefix="prepare", initializer=working_for,
                                  initargs=(threading.get_ident(),))
    with preparer, _started_finisher() as finisher:
        ahead = preparer.submit(prepare, items[0]) if items else None
        behind: tuple[Item, Future] | None = None  # the previous item, being finished
        try:
            for index, item in enumerate(items):
                prepared_future = ahead
                ahead = preparer.submit(prepare, items[index + 1]) if index + 1 < len(items) else None
                try:
                    prepared = prepared_future.result()
                    computed = compute(item, prepared)
                except Exception as error:  # noqa: BLE001 - handed to the caller, in order
                    failed = (item, error)
                else:
                    failed = None
                if behind is not None:  # one item finishing at a time: memory for three items, not more
                    outcome, behind = _outcome(*behind), None  # cleared before it is said: said once
                    yield outcome
                if failed is not None:
                    yield failed
                else:
                    behind = (item, Future())  # held before it is handed on, for an interrupt in the handing
                    finisher.submit(_settle, behind[1], finish, item, prepared, computed)
                prepared = computed = None  # the finisher holds them now, and frees them when it is done
            if behind is not None:
                outcome, behind = _outcome(*behind), None
                yield outcome
        except KeyboardInterrupt:
            if (said := _said_after_the_interrupt(finisher, behind)) is not None and yield_after_an_interrupt:
                with _interrupt_on_closing():
                    yield said
            raise
        finally:  # the caller stopped early or failed: start nothing more, wait for what is running
            if ahead is not None:
                ahead.cancel()


def one_at_a_time(items: Sequence[Item], prepare: Callable[[Item], Any], compute: Callable[[Item, Any], Any],
                  finish: Callable[[Item, Any, Any], Any],
                  yield_after_an_interrupt: bool = True) -> Iterator[tuple[Item, BaseException | None]]:
    """``pipelined`` without the overlap: each item's three stages, then the next item's. One case in
    memory instead of three (``predict --sequential``). ``finish`` runs on a helper thread all the same,
    waited for, so that an interrupt is met as ``pipelined`` meets it: the item being finished ends, and
    is yielded, first (``yield_after_an_interrupt`` as in ``pipelined``). On this thread, until the hundredth
    session, an interrupt cut ``finish`` short and its item was not yielded: a case's label map written, say,
    its probabilities not, and nothing said."""
    with _started_finisher() as finisher:
        for item in items:
            try:
                prepared = prepare(item)
                computed = compute(item, prepared)
            except Exception as error:  # noqa: BLE001 - handed to the caller, as pipelined does
                yield item, error
                continue
            finishing: tuple[Item, Future] | None = (item, Future())  # held before it is handed on, as in pipelined
            try:  # the hand-over inside: an interrupt in it once the item is queued (hundredth session's review)
                finisher.submit(_settle, finishing[1], finish, item, prepared, computed)
                prepared = computed = None  # the finisher holds them now, as in pipelined
                outcome, finishing = _outcome(*finishing), None
            except KeyboardInterrupt:
                said = _said_after_the_interrupt(finisher, finishing)
                if said is not None and yield_after_an_interrupt:
                    with _interrupt_on_closing():
                        yield said
                raise
            yield outcome


@contextmanager
def _interrupt_on_closing() -> Iterator[None]:
    """Around the yield of the item finished after an interrupt: a caller that stops there (closes the generator,
    as raising that item's error does) gets the interrupt raised below it, not a quiet GeneratorExit. Until the
    hundredth session predict raised a writer's error of that case in the interrupt's place (exit 1, not 130)."""
    try:
        yield
    except GeneratorExit:  # the interrupt being handled is raised by the caller of this block
        pass


def _started_finisher() -> ThreadPoolExecutor:
    """The finishing stage's executor, its thread started: the first item's hand-over started it, and waited for
    it, and an interrupt in that wait left the item finishing on a thread that leaving did not wait for."""
    finisher = ThreadPoolExecutor(1, thread_name_prefix="finish", initializer=working_for,
                                  initargs=(threading.get_ident(),))
    finisher.submit(int).result()
    return finisher


def _settle(outcome: Future, finish: Callable[..., Any], *args) -> None:
    """``finish(*args)`` on the finisher's thread, its exception or None set on ``outcome``: a future made before
    the hand-over, so that an interrupt in the hand-over leaves the caller holding it."""
    try:
        finish(*args)
    except BaseException as error:  # noqa: BLE001 - handed to the caller, as the executor's own future does
        outcome.set_exception(error)
    else:
        outcome.set_result(None)


def _said_after_the_interrupt(finisher: ThreadPoolExecutor,
                              handed: tuple[Item, Future] | None) -> tuple[Item, BaseException | None] | None:
    """After an interrupt on the calling thread: the outcome of the item ``handed`` to the finisher and not yet
    yielded, once whatever the finisher was handed has run (leaving would wait for it all the same), so that the
    caller says it; None where there is none, or the interrupt came before it was handed on (it is never begun).
    Until the hundredth session such an item was finished as the interrupt went on, and not yielded: predict wrote
    its label map whole and said no "wrote" line of it."""
    finisher.shutdown()  # no more is handed on after an interrupt; what was handed runs to its end
    if handed is not None and handed[1].done():
        return _outcome(*handed)
    return None


def _outcome(item: Item, finishing: Future) -> tuple[Item, BaseException | None]:
    try:
        finishing.result()
    except Exception as error:  # noqa: BLE001 - handed to the caller, in order
        return item, error
    return item, None
