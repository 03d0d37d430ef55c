"""``accelerated-seg`` as its console script runs it (``cli.main()``, early_signals' first seconds included), whose
process RANK is SIGNAL_RANK (0 in a process of its own) sends itself SIGINT from inside a weakref callback as it calls
SIGNAL_IN (``module:function``), as one Ctrl-C that lands while importlib's ``_get_module_lock.<locals>.cb`` runs
(an import finishing): CPython cannot let the KeyboardInterrupt out of the callback and hands it to
``sys.unraisablehook``. Where it lands there by chance in a real start, here it lands there every time. Run by
probe.py of this folder, alone or under ``accelerate launch``."""

import importlib
import os
import signal
import sys
import time
import weakref

from accelerated_seg.cli import end_process, main


def signalled_inside_a_weakref_callback() -> None:
    class Finalized:
        pass

    def callback(_reference) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        waiting_until = time.monotonic() + 0.5
        while time.monotonic() < waiting_until:  # the handler runs at one of these instructions, inside the callback
            pass

    finalized = Finalized()
    reference = weakref.ref(finalized, callback)
    del finalized  # the callback runs here
    assert reference() is None


def patched(where: str) -> None:
    module_name, name = where.split(":")
    module = importlib.import_module(module_name)
    original = getattr(module, name)

    def calling(*args, **kwargs):
        signalled_inside_a_weakref_callback()
        return original(*args, **kwargs)

    setattr(module, name, calling)


if __name__ == "__main__":
    import accelerated_seg

    if os.environ.get("RANK", "0") == "0":
        print(f"package: {accelerated_seg.__file__}", flush=True)  # which checkout's, for probe.py
    # Python's own SIGINT handler, as under a terminal (a background job inherits SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if os.environ.get("RANK", "0") == os.environ["SIGNAL_RANK"]:
        patched(os.environ["SIGNAL_IN"])
    sys.argv = ["accelerated-seg", *sys.argv[1:]]
    end_process(main())
