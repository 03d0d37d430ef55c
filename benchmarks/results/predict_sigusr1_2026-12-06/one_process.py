"""SIGUSR1 (and SIGTERM, to compare) to a one-process `accelerated-seg predict` once its imports are done.

Run (PROBE_CODE=/work/main for the code before the fix; 2 CPU cores):
    cd /tmp/wt_h101 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/predict_sigusr1_2026-12-06/one_process.py \
        > benchmarks/results/predict_sigusr1_2026-12-06/one_process_after.txt

A random-weight export and 6 tiny phantoms; predict runs as the command line runs it (``python -m accelerated_seg``,
its stdout unbuffered). Each case:
- ``SIGNAL after the first line``: the signal once predict's first "wrote" line is read (its imports done, the second
  case under way);
- ``SIGNAL inside the second write``: sent by the writing thread itself as the second map's hidden temporary is
  written whole and not yet renamed (``data.io.sync_file`` wrapped): what a stop in the middle of a map leaves.
Reports the status (as Python's subprocess reads it: -10 is a death by SIGUSR1), the seconds from the signal to the
end, the maps written, any hidden temporary left, and stderr's last line.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CODE = os.environ.get("PROBE_CODE", str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, CODE)
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402

# run in CODE: `python -m` and `python -c` put the working folder first on sys.path
ENV = {**os.environ, "PYTHONPATH": CODE, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}

#: Run as ``python -c``: the command line's own start (``main()`` reading sys.argv), the second map's write signalled
#: from the writing thread once its temporary is whole, before its rename.
SIGNALLED_IN_THE_SECOND_WRITE = """
import os, sys
import accelerated_seg.data.io as io
synced, calls = io.sync_file, []
def signalled_in_the_second(path):
    synced(path)
    calls.append(path)
    if len(calls) == 2:
        os.kill(os.getpid(), {signum})
        import time; time.sleep(1)  # the signal's default, or the main thread's handler, meanwhile
io.sync_file = signalled_in_the_second
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""

root = Path(tempfile.mkdtemp(prefix="h101p_"))
spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
             {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
scans = write_synthetic_dataset(root / "scans", num_cases=6, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                spacing_mm=2.0).parent / "imagesTr"


def report(what: str, out: Path, proc: subprocess.Popen, stdout: str, stderr: str, took: float,
           since: str = "the signal") -> None:
    names = sorted(p.name for p in out.iterdir()) if out.exists() else []
    maps = [name for name in names if not name.startswith(".")]
    hidden = [name for name in names if name.startswith(".") and name != ".run.lock"]
    wrote = sum(": wrote " in line for line in stdout.splitlines())
    last = stderr.strip().splitlines()[-1][:200] if stderr.strip() else "(nothing)"
    print(f"{what}: status {proc.returncode}, {took:.2f} s after {since}; {len(maps)} map(s) ({wrote} said); "
          f"hidden {hidden}; stderr's last line: {last}", flush=True)


def after_the_first_line(signum: signal.Signals) -> None:
    out = root / f"after_{signum.name}"
    command = [sys.executable, "-m", "accelerated_seg", "predict", "--model", str(root / "model"), str(scans),
               "--output", str(out)]
    proc = subprocess.Popen(command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=CODE)
    first = proc.stdout.readline()
    proc.send_signal(signum)
    sent = time.monotonic()
    stdout, stderr = proc.communicate(timeout=300)
    report(f"{signum.name} after the first line", out, proc, first + stdout, stderr, time.monotonic() - sent)


def inside_the_second_write(signum: signal.Signals) -> None:
    out = root / f"inside_{signum.name}"
    argv = ["accelerated-seg", "predict", "--model", str(root / "model"), str(scans), "--output", str(out)]
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", SIGNALLED_IN_THE_SECOND_WRITE.format(signum=int(signum), argv=argv)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=CODE)
    stdout, stderr = proc.communicate(timeout=300)
    report(f"{signum.name} inside the second write", out, proc, stdout, stderr, time.monotonic() - start,
           "its start")


for signum in (signal.SIGUSR1, signal.SIGTERM):
    after_the_first_line(signum)
    inside_the_second_write(signum)
