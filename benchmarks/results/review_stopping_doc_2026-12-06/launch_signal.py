"""A signal to `accelerate launch ... train` (2 CPU processes) alone, at fixed delays after its start.

docs/stopping.md says SIGTERM before the launch's processes have met ends a rank at once, saving nothing, and that
SIGUSR1 to the launcher kills it; after they met, every rank saves. This reports the launch's status, the line said,
the checkpoints, and whether a traceback was printed. SIG names the signal (default SIGTERM); KEEP_SILENT, a folder
for the whole output of a launch that said no line. Run: cd /tmp/wt_r75 && SIG=SIGUSR1 PYTHONPATH=. \
    /work/main/.venv/bin/python benchmarks/results/review_stopping_doc_2026-12-06/launch_signal.py 12 [more delays]
"""
import os
import signal
import sys
import time
from pathlib import Path

from tiny import ENV, dataset, free_port, signalled, tiny_overrides

root, data = dataset("r75l_")
env = {**ENV, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
name = os.environ.get("SIG", "SIGTERM")
for delay in [float(d) for d in sys.argv[1:]] or [2.0, 5.0, 8.0, 11.0, 14.0]:
    out = root / f"run_{delay}"
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", "-m", "accelerated_seg", "train",
               *tiny_overrides(data, out, train__max_steps=100_000, train__val_every=0, train__save_every=0)]
    proc, stdout, stderr, took = signalled(command, getattr(signal, name), delay, env=env, new_session=True)
    said = [line[:110] for line in (stdout + stderr).splitlines() if line.startswith(("preempted", "interrupted"))]
    if not said and os.environ.get("KEEP_SILENT"):  # the whole output of a launch that said no line, to read
        keep = Path(os.environ["KEEP_SILENT"]) / f"silent_{delay}_{int(time.time())}.txt"
        keep.write_text(f"stdout:\n{stdout}\nstderr:\n{stderr}")
    saved = sorted(p.name for p in (out / "checkpoints").glob("step_*")) if (out / "checkpoints").exists() else []
    last = stderr.strip().splitlines()[-1][:160] if stderr.strip() else None
    print(f"{name} to the launcher at {delay} s: launch status {proc.returncode} after {took:.1f} s; said "
          f"{said or 'nothing'}; checkpoints {saved}; 'Traceback' in stderr: {'Traceback' in stderr}; "
          f"stderr's last line: {last}")
