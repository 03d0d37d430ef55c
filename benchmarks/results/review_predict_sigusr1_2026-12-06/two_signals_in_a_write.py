"""Two stops to a one-process `accelerated-seg predict` while its second map is being written: the first signal sent
by the writing thread as the map's hidden temporary is whole and not yet renamed, the second (another signal, or the
same) 0.3 s later from that thread too, while the main thread, stopped by the first, waits for the write to finish.

Run (PROBE_CODE=/work/main for main's code; 2 CPU cores):
    cd /tmp/wt_r90 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/review_predict_sigusr1_2026-12-06/two_signals_in_a_write.py

Reports the status, the maps written and said, any hidden temporary left, and stderr's last line.
"""
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

CODE = os.environ.get("PROBE_CODE", str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, CODE)
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": CODE, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}

SIGNALLED_TWICE_IN_THE_SECOND_WRITE = """
import os, sys, time
import accelerated_seg.data.io as io
synced, calls = io.sync_file, []
def signalled_in_the_second(path):
    synced(path)
    calls.append(path)
    if len(calls) == 2:
        os.kill(os.getpid(), {first})
        time.sleep(0.3)  # the main thread stopped by the first, waiting for this write
        os.kill(os.getpid(), {second})
        time.sleep(1)
io.sync_file = signalled_in_the_second
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""

root = Path(tempfile.mkdtemp(prefix="r90p_"))
spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
             {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
scans = write_synthetic_dataset(root / "scans", num_cases=4, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                spacing_mm=2.0).parent / "imagesTr"

for first, second in ((signal.SIGUSR1, signal.SIGTERM), (signal.SIGTERM, signal.SIGUSR1),
                      (signal.SIGTERM, signal.SIGTERM), (signal.SIGUSR1, signal.SIGUSR1)):
    out = root / f"{first.name}_{second.name}"
    argv = ["accelerated-seg", "predict", "--model", str(root / "model"), str(scans), "--output", str(out)]
    code = SIGNALLED_TWICE_IN_THE_SECOND_WRITE.format(first=int(first), second=int(second), argv=argv)
    proc = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, cwd=CODE,
                          timeout=300)
    names = sorted(p.name for p in out.iterdir()) if out.exists() else []
    maps = [name for name in names if not name.startswith(".")]
    hidden = [name for name in names if name.startswith(".") and name != ".run.lock"]
    said = sum(": wrote " in line for line in proc.stdout.splitlines())
    last = proc.stderr.strip().splitlines()[-1][:220] if proc.stderr.strip() else "(nothing)"
    print(f"{first.name} then {second.name}: status {proc.returncode}; {len(maps)} map(s) ({said} said); "
          f"hidden {hidden}; stderr's last line: {last}", flush=True)
