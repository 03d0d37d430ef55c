"""How long each signal has Python's default between early_signals' handover and the command's own handler, and what
a signal there does. Each command runs in a process of its own with ``signal.signal`` wrapped to log when each of
SIGTERM/SIGUSR1/SIGINT is set to what (perf_counter); the gap is from its default put back by ``handed_over`` to the
command's handler set. Then SIGUSR1 sent inside train's gap (as PreemptionSignals.__enter__ asks
``processes_yet_to_meet``, between the two), and SIGTERM inside predict's (as its ``sigterm_as_an_interrupt`` begins).
Review r83 of h97's change. Run:
  cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/review_early_signals_2026-12-06/handover_gaps.py
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "early_signals_2026-12-06"))
from tiny import ENV, dataset, tiny_overrides  # noqa: E402

LOGGED = """
import signal, sys, time
names = {signal.SIGTERM: "SIGTERM", signal.SIGUSR1: "SIGUSR1", signal.SIGINT: "SIGINT"}
log, setting = [], signal.signal
def logged(signum, handler):
    previous = setting(signum, handler)
    if signum in names:
        default = handler is signal.SIG_DFL or handler is signal.default_int_handler
        log.append((time.perf_counter(), names[signum], "default" if default else getattr(handler, "__qualname__", "?")))
    return previous
signal.signal = logged
def gaps():
    opened = {}
    for at, name, handler in log:
        if handler == "default" and name not in opened:
            opened[name] = at
        elif name in opened:
            print(f"{name}: default for {1e6 * (at - opened.pop(name)):.0f} us before {handler}", file=sys.stderr)
"""
INJECTED = {
    "train": "import accelerated_seg.checkpoint as c, os\nasked = c.processes_yet_to_meet\n"
             "c.processes_yet_to_meet = lambda: (os.kill(os.getpid(), signal.SIGUSR1), asked())[1]\n",
}
root, data = dataset("r83g_")
for name, argv, inject in (("train", ["train", *tiny_overrides(data, root / "run", train__max_steps=2,
                                                                train__val_every=0)], ""),
                           ("train, SIGUSR1 sent in its gap", ["train", *tiny_overrides(data, root / "run2",
                            train__max_steps=2, train__val_every=0)], INJECTED["train"])):
    code = LOGGED + inject + f"sys.argv = {['accelerated-seg', *argv]!r}\nfrom accelerated_seg.cli import end_process, main\n" \
        "status = main()\ngaps()\nend_process(status)\n"
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=300,
                          cwd=ENV["PYTHONPATH"])  # -c puts the working folder first on sys.path
    said = [line for line in done.stderr.splitlines() if "us before" in line or "before it began" in line]
    preempted = [line[:90] for line in done.stdout.splitlines() if line.startswith("preempted")]
    print(f"{name}: status {done.returncode}; {said or '(no gap logged)'}; {preempted or 'not preempted'}")
