"""A Ctrl-C that lands while Python imports is raised once the import is done (interrupts_between_imports).

A KeyboardInterrupt inside a package's import left it half imported, and every later fit of the notebook failed
(hundred-and-fourth session). The interrupts here are real ones: ``_thread.interrupt_main`` runs SIGINT's handler in
the main thread as Ctrl-C does; pytest runs each test in its process's main thread.
"""

import _thread
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelerated_seg.interrupts_between_imports import interrupts_between_imports, raises_keyboard_interrupt

# A module that is interrupted as it is imported, then goes on for a while: a package importing its submodules.
INTERRUPTED_AS_IT_IS_IMPORTED = "import _thread, time\n_thread.interrupt_main()\ntime.sleep(0.3)\nWHOLE = True\n"


@pytest.fixture
def python_handler():
    """SIGINT's handler Python's own for the test, as in a notebook's cell or a script; as it was after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture
def module_interrupted_as_imported(tmp_path, monkeypatch):
    """The name of a module, not imported yet, whose import is interrupted (INTERRUPTED_AS_IT_IS_IMPORTED)."""
    name = f"interrupted_as_imported_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(INTERRUPTED_AS_IT_IS_IMPORTED)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def _wait_for_the_interrupt():
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.01)
    pytest.fail("the interrupt held during the import was never raised")


def test_an_interrupt_in_an_import_is_raised_after_it_and_the_module_is_whole(python_handler,
                                                                             module_interrupted_as_imported):
    imported = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            imported.append(__import__(module_interrupted_as_imported))  # raised inside it before
            _wait_for_the_interrupt()
    assert imported[0].WHOLE and sys.modules[module_interrupted_as_imported] is imported[0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_it_the_interrupt_breaks_the_import(python_handler, module_interrupted_as_imported):
    """What the holding is for: Python raises the interrupt inside the module, whose import fails."""
    with pytest.raises(KeyboardInterrupt):
        __import__(module_interrupted_as_imported)
    assert module_interrupted_as_imported not in sys.modules


def test_an_interrupt_held_as_the_body_ends_is_raised_as_it_ends(python_handler, module_interrupted_as_imported,
                                                                  capsys):
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            __import__(module_interrupted_as_imported)  # returns before the handler asks again
    assert sys.modules[module_interrupted_as_imported].WHOLE
    assert "interrupt: a module is being imported; stopping once it is" in capsys.readouterr().err


def test_a_second_interrupt_in_an_import_is_raised_at_once(python_handler, tmp_path, monkeypatch, capsys):
    """An import that does not return (a module lock another thread never gives back, a download at import time)
    can still be stopped: until the hundred-and-fourth session's review every Ctrl-C was held for ever."""
    name = f"never_returns_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text("import _thread, time\n_thread.interrupt_main()\ntime.sleep(0.01)\n"
                                         "_thread.interrupt_main()\ntime.sleep(5)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            __import__(name)
    assert time.monotonic() - started < 2 and name not in sys.modules
    assert "Ctrl-C again to stop at once" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_outside_an_import_is_raised_at_once(python_handler, capsys):
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            _thread.interrupt_main()
            _wait_for_the_interrupt()
    assert time.monotonic() - started < 1 and not capsys.readouterr().err


def test_an_ignored_interrupt_or_a_callers_handler_is_left_as_it_is(python_handler):
    def callers_own(signum, frame):
        pass

    for handler in (signal.SIG_IGN, callers_own):
        signal.signal(signal.SIGINT, handler)
        with interrupts_between_imports():
            assert signal.getsignal(signal.SIGINT) is handler
        assert signal.getsignal(signal.SIGINT) is handler


def test_it_holds_nothing_off_the_main_thread(python_handler):
    seen = []

    def call():
        with interrupts_between_imports():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


def test_inside_its_handler_counts_as_pythons_own_and_nests(python_handler):
    """inference_distributed holds an interrupt to the end of its work where the handler raises as Python's does:
    inside an estimator's call too. A call inside another keeps the outer one's handler."""
    with interrupts_between_imports():
        outer = signal.getsignal(signal.SIGINT)
        assert outer is not signal.default_int_handler and raises_keyboard_interrupt(outer)
        with interrupts_between_imports():
            assert signal.getsignal(signal.SIGINT) is outer
        assert signal.getsignal(signal.SIGINT) is outer
    assert not raises_keyboard_interrupt(signal.SIG_IGN)


@pytest.mark.parametrize("method", ["fit", "predict", "evaluate", "Dataset.fit"])
def test_the_estimators_calls_hold_interrupts_during_imports(python_handler, monkeypatch, method):
    """Each call that may import for seconds (a session's first fit imports torch's compiler, datasets, ...) holds
    them from its start: seen in what it calls first."""
    from accelerated_seg import estimator, estimator_dataset
    from accelerated_seg.estimator import Dataset, Segmentation

    class Seen(Exception):
        pass

    def first_call():
        raise Seen(signal.getsignal(signal.SIGINT))

    for module in (estimator, estimator_dataset):
        monkeypatch.setattr(module, "give_back_an_import_lock_left_held", first_call)
    call = (lambda: Dataset.fit(None)) if method == "Dataset.fit" else getattr(Segmentation("unet"), method)
    with pytest.raises(Seen) as seen:
        call() if method == "Dataset.fit" else call(None)
    assert seen.value.args[0] is not signal.default_int_handler and raises_keyboard_interrupt(seen.value.args[0])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_call_made_while_its_own_script_is_imported_is_interrupted_at_once(python_handler, tmp_path, monkeypatch):
    """``import my_experiment`` whose module runs the fit: the import's frames lie below the call, and a Ctrl-C in
    the fit is raised at once, not held to its end."""
    name = f"experiment_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(
        "import _thread, time\n"
        "from accelerated_seg.interrupts_between_imports import interrupts_between_imports\n"
        "STARTED = time.monotonic()\n"
        "try:\n"
        "    with interrupts_between_imports():\n"
        "        _thread.interrupt_main()\n"
        "        while time.monotonic() < STARTED + 5:\n"
        "            time.sleep(0.01)\n"
        "except KeyboardInterrupt:\n"
        "    RAISED_AFTER = time.monotonic() - STARTED\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert __import__(name).RAISED_AFTER < 1
    finally:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("lands", ["as it stops asking", "once it stopped asking"])
def test_an_interrupt_as_the_call_ends_is_raised_and_the_handler_put_back(python_handler, monkeypatch, lands):
    """A Ctrl-C, or the timer's last ask, landing while the call puts Python's handler back: raised from there, it
    left the call's handler in place for the rest of the session (``signal.signal`` runs a pending one first)."""
    from accelerated_seg import interrupts_between_imports as module

    stop, landed = module._HeldDuringImports.stop, []

    def interrupted_stop(held):
        if lands == "as it stops asking" and not landed:
            landed.append(lands)  # first: the interrupt may be raised as interrupt_main returns
            _thread.interrupt_main()
        came = stop(held)
        if lands == "once it stopped asking" and not landed:
            landed.append(lands)
            _thread.interrupt_main()
        return came

    monkeypatch.setattr(module._HeldDuringImports, "stop", interrupted_stop)
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ask_left_from_a_second_interrupt_is_dropped_as_the_call_ends(python_handler, monkeypatch):
    """The timer's ask for an interrupt a second Ctrl-C raised already (the body caught it and returned) is not
    raised again as the call ends."""
    from accelerated_seg import interrupts_between_imports as module

    stop = module._HeldDuringImports.stop

    def asked_as_it_stops(held):
        stop(held)
        held.asked = True  # as _ask_again sets it, just before its interrupt_main
        _thread.interrupt_main()

    monkeypatch.setattr(module._HeldDuringImports, "stop", asked_as_it_stops)
    with interrupts_between_imports():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler



def test_the_held_interrupts_line_is_one_write_with_its_newline(python_handler, module_interrupted_as_imported,
                                                                 monkeypatch):
    """Under a launch the terminal's Ctrl-C reaches torch's agent too, which logs on the same stderr as it sends the
    interrupt on: ``print``'s line and newline, two writes, let its record land between them (docs/known_issues.md,
    "a launched stop's line could be cut by torch's agent's log line")."""
    writes = []
    monkeypatch.setattr(sys, "stderr", SimpleNamespace(write=lambda text: writes.append(text) or len(text),
                                                       flush=lambda: None))
    with pytest.raises(KeyboardInterrupt):
        with interrupts_between_imports():
            __import__(module_interrupted_as_imported)
    assert writes == ["interrupt: a module is being imported; stopping once it is (an import stopped half way leaves "
                      "its package broken for this session; Ctrl-C again to stop at once)\n"]


def test_a_second_ctrl_c_inside_the_first_ones_hold_stops_at_once_and_never_waits():
    """A second Ctrl-C lands between any two steps of the main thread, those of the first's handler among them: the
    handler takes its lock to start the timer that asks again, and a second Ctrl-C's handler there, raising it at
    once (``_raise``), waited for that lock, a plain Lock, for ever: the process held for good, every later Ctrl-C
    waiting for it too (review r130). Here the second's handler runs at each of the first's traced steps in turn
    (tests/held_interrupt_inside_itself.py, a process of its own, bounded): a KeyboardInterrupt is raised each time,
    by the second where the first has held its own, and nothing waits."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    script = Path(__file__).with_name("held_interrupt_inside_itself.py")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    raised = [step["raised"] for step in json.loads(done.stdout)]
    assert len(raised) > 5 and None not in raised and "inner" in raised, raised
