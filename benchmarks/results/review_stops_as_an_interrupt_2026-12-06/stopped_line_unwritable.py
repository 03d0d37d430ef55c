"""A one-process predict stopped by SIGTERM as its second map is written (three cases), its stopped line written to a
closed stderr (``2>&-``) or to a pipe whose reader has gone (``2>&1 | head -1``): does it hang, or traceback?
Also cli.main([...]) called twice in one Python process: each call's SIGTERM and SIGUSR1 handlers, found and left.

    cd /tmp/wt_r93 && PYTHONPATH=/tmp/wt_r93:/tmp/wt_r93/tests /work/main/.venv/bin/python \
        benchmarks/results/review_stops_as_an_interrupt_2026-12-06/stopped_line_unwritable.py
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

SIGNALLED = """
import os, signal, sys
import accelerated_seg.data.io as io
synced, calls = io.sync_file, []
def signalled_in_the_second(path):
    synced(path)
    calls.append(path)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.{signal})
io.sync_file = signalled_in_the_second
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""

TWICE = """
import signal
from accelerated_seg.cli import main
def handlers():
    return [str(signal.getsignal(s)) for s in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)]
print("before", handlers())
for call in (1, 2):
    try:
        status = main({argv!r})
    except SystemExit as end:
        status = f"SystemExit {{end.code}}"
    print(f"call {{call}}: status {{status}}, after", handlers())
"""


def main():
    from test_early_signals import tiny_model_and_scans

    tmp = Path(tempfile.mkdtemp())
    model, scans = tiny_model_and_scans(tmp, cases=3)
    python = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    for name, redirect in [("stderr closed (2>&-)", "2>&-"), ("stderr to a gone reader (2>&1 | head -1)",
                                                                 "2>&1 | head -1"),
                            ("stderr alone to a gone reader", "2>&1 >/dev/null | (sleep 1; true)")]:
        for signum in ("SIGTERM", "SIGUSR1"):
            out = tmp / f"out_{signum}_{len(redirect)}"
            code = SIGNALLED.format(signal=signum, argv=["accelerated-seg", "predict", "--model", str(model),
                                                         str(scans), "--output", str(out)])
            script = tmp / "predict_stopped.py"  # not code.py: it would hide the standard module
            script.write_text(code)
            shell = f"{python} {script} {redirect}; echo \"status ${{PIPESTATUS[0]}}\""
            started = time.monotonic()
            done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120, env=env)
            left = sorted(p.name for p in out.iterdir()) if out.exists() else []
            print(f"{name:42s} {signum}: {time.monotonic() - started:.1f} s, {done.stdout.strip()[-600:]!r}, "
                  f"files {left}, stderr {done.stderr.strip()[-300:]!r}", flush=True)
    for argv in (["check", "--help-nothing"], ["synth", str(tmp / "synth"), "--cases", "1", "--validation", "0"]):
        done = subprocess.run([python, "-c", TWICE.format(argv=argv)], capture_output=True, text=True, timeout=300,
                              env=env)
        print(f"cli.main({argv[0]} ...) twice:", done.stdout.strip().replace("\n", " | "),
              done.stderr.strip()[-200:], flush=True)


if __name__ == "__main__":
    main()
