"""Overlap the host work of neighbouring cases with the network: prediction of many cases as a pipeline.

Each case passes three stages: ``prepare`` (read, check, preprocess: host), ``compute`` (the network)
and ``finish`` (invert onto the input's grid, class map, write: host; with predict's
``--transforms-on-device`` all but reading and writing join the network's stage). One after the other, a GPU
waits for the host most of the time: for a 192 x 192 x 160 scan the host stages take 0.4-1.6 s
(benchmarks/results/predict_tail_2cpu.json) and the network 32-173 ms on an H200
(docs/performance.md). Here case ``i`` is computed on the calling thread while case ``i + 1`` is
prepared and case ``i - 1`` finished on two helper threads, so a case costs the longest stage rather
than the sum of the three. This is what nnU-Net's predictor does with its preprocessing workers and
export pool, with one case ahead and one behind, so at most three cases are held in memory.

The network stays on the calling thread: CUDA work and the collectives of a prediction whose windows
are shared between processes keep the order every process issues them in. The host stages spend
their time in zlib, NumPy and torch kernels, which release the GIL, so the threads run at once.

Nothing here knows about images: ``inference`` supplies the stages.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterator, Sequence, TypeVar

Item = TypeVar("Item")


def pipelined(items: Sequence[Item], prepare: Callable[[Item], Any], compute: Callable[[Item, Any], Any],
              finish: Callable[[Item, Any, Any], Any]) -> Iterator[tuple[Item, BaseException | None]]:
    """Run ``finish(item, prepared, compute(item, prepared))`` with ``prepared = prepare(item)`` for
    every item, overlapping neighbouring items' stages (module docstring).

    Yields ``(item, None)`` once an item is finished, or ``(item, error)`` with the exception of the
    stage that failed it; in the items' order, whatever order the stages end in. A failed item does not
    stop the others; the caller decides (stop iterating, and the helpers' work in flight is waited for,
    the rest never started).

    Example:
        >>> [error for _, error in pipelined([1, 2], lambda x: x, lambda x, p: p * 10, lambda x, p, c: None)]
        [None, None]
    """
    items = list(items)
    with ThreadPoolExecutor(1, thread_name_prefix="prepare") as preparer, \
            ThreadPoolExecutor(1, thread_name_prefix="finish") as finisher:
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
                    yield _outcome(*behind)
                    behind = None
                if failed is not None:
                    yield failed
                else:
                    behind = (item, finisher.submit(finish, item, prepared, computed))
                prepared = computed = None  # the finisher holds them now, and frees them when it is done
            if behind is not None:
                yield _outcome(*behind)
        finally:  # the caller stopped early or failed: start nothing more, wait for what is running
            if ahead is not None:
                ahead.cancel()


def one_at_a_time(items: Sequence[Item], prepare: Callable[[Item], Any], compute: Callable[[Item, Any], Any],
                  finish: Callable[[Item, Any, Any], Any]) -> Iterator[tuple[Item, BaseException | None]]:
    """``pipelined`` without the overlap: each item's three stages, then the next item's. One case in
    memory instead of three (``predict --sequential``)."""
    for item in items:
        try:
            prepared = prepare(item)
            finish(item, prepared, compute(item, prepared))
        except Exception as error:  # noqa: BLE001 - handed to the caller, as pipelined does
            yield item, error
            continue
        yield item, None


def _outcome(item: Item, finishing: Future) -> tuple[Item, BaseException | None]:
    try:
        finishing.result()
    except Exception as error:  # noqa: BLE001 - handed to the caller, in order
        return item, error
    return item, None
