"""Handlers after stops_as_an_interrupt left by an exception, a KeyboardInterrupt, a SystemExit; cli.main([synth ...])
called twice in one process, each stopped by SIGTERM as its second case file is written: the second call's SIGTERM is
taken as the first's was, and the defaults are back after each.

    cd /tmp/wt_r93 && PYTHONPATH=/tmp/wt_r93 /work/main/.venv/bin/python \
        benchmarks/results/review_stops_as_an_interrupt_2026-12-06/exit_paths.py
"""
import os, signal, tempfile
from pathlib import Path
from accelerated_seg.sigterm import stops_as_an_interrupt
def handlers():
    return [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGUSR1)]
for exc in (RuntimeError("x"), KeyboardInterrupt(), SystemExit(3)):
    try:
        with stops_as_an_interrupt():
            raise exc
    except BaseException as e:
        print(type(e).__name__, "->", handlers())
import accelerated_seg.data.synthetic as synthetic
from accelerated_seg.cli import main
written = synthetic.write_nifti
calls = []
def stopped_at_the_second(*a, **k):
    calls.append(1)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGTERM)
    return written(*a, **k)
synthetic.write_nifti = stopped_at_the_second
tmp = Path(tempfile.mkdtemp())
for call in (1, 2):
    calls.clear()
    try:
        status = main(["synth", str(tmp / f"s{call}"), "--cases", "2", "--validation", "0"])
    except SystemExit as end:  # synth's stop ends so (cli._synth)
        status = f"SystemExit {end.code}"
    print(f"call {call}: status {status}, after", handlers())
