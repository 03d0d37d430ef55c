"""Python's cyclic garbage collector kept out of a process's start.

Importing the stack (torch, MONAI with pandas, accelerate) creates about 300,000 objects that
live as long as the process: modules, classes, functions. While they are created, CPython 3.11's
collector runs about 780 times, 5 of them over every tracked object, and once they exist every full
collection walks all of them again. Measured on 2 cores (benchmarks/results/gc_startup_2cpu.json):
0.82-0.87 s of collections in a 4.4-5.0 s ``import accelerated_seg.train``, and 0.73-0.88 s more in
a 4-step run of the tests' tiny config, mostly two full collections of 0.28-0.35 s each; with the
collector paused during the import and the imports frozen after it, none and 0.40-0.42 s (full
collections of 75-80 ms). That run through ``examples/train.py``, interpreter shutdown included,
took 9.1 s instead of 12.3 s (medians of five alternating pairs).

torch._dynamo (about 100,000 objects more) is part of the stack too: torch imports it at a process's
first optimizer, so ``accelerated_seg/optimizers.py`` imports it beforehand. Left to the optimizer, it
was made with the collector running: the tiny run's collections took 0.42-0.57 s instead of 0.14-0.16
(benchmarks/results/dynamo_import_2cpu.json). ``datasets``, through which every training process reads
its case table, likewise (``accelerated_seg/training_data.py``).

So a process that imports the stack to do one job (a rank of ``examples/train.py``, a command of
``accelerated-seg``) imports it inside ``importing_without_collection()``: the collector is paused
for the block, and what exists at its end is frozen (``gc.freeze``: set where collections never
look), as the gc module's documentation advises before forking, which the loader's workers are
(their collections then leave the frozen objects' pages unwritten). The block starts with a full
collection, so that what is frozen is alive: in a fresh process that is the modules, which live as
long as it anyway (the collection takes milliseconds there, before the imports); in a process that
ran other work first (a test process calling ``cli.main``), garbage from before is freed, not frozen.

A library call (``Segmentation.fit`` in a notebook) does not freeze: the user's own objects would be
frozen with the imports. The processes its fit forks (notebook_launcher's ranks) do, at once: what they inherit is
the launching process's, to be freed there (``forked_for_one_job``).
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def importing_without_collection():
    """Collect, pause the cyclic collector for the block (the imports), then freeze every object
    there is and let it run again; a collector the caller had disabled stays disabled."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def forked_for_one_job() -> None:
    """Freeze everything a process forked to run one job inherited (a rank notebook_launcher forks), before
    anything else: the objects are the launching process's, and so is their freeing.

    Garbage the launching process had not yet collected at the fork was freed by the rank's first full collection,
    finalizers and all: an earlier launch's rendezvous store, unreachable in a cycle of its traceback, whose
    destructor joins its server's thread, which lives in the launching process alone. The rank waited for it for
    ever, before its first step (a launched fit after two others in one test process, in the CI of the
    hundred-and-second and hundred-and-third sessions). The launching process collects before it launches too."""
    gc.freeze()
