"""How long after `accelerate launch ... train` (2 CPU processes) starts do its processes meet?

docs/stopping.md says SIGTERM "in a launch's first second or so, before its processes have met (the imports, the
settings' checks)" ends a rank at once, saving nothing; after, every rank saves. This sends SIGTERM to the launcher
at a fixed delay and reports the launch's status, whether `preempted:` was said, and the checkpoints.
Run: cd /tmp/wt_r75 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_stopping_doc_2026-12-06/launch_meet_window.py
"""
import os, signal, socket, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

root = Path(tempfile.mkdtemp(prefix="r75l_"))
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


for delay in [float(d) for d in sys.argv[1:]] or [2.0, 5.0, 8.0, 11.0, 14.0]:
    out = root / f"run_{delay}"
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           "-m", "accelerated_seg", "train", *tiny_overrides(dataset, out, train__max_steps=100_000,
                                                             train__val_every=0, train__save_every=0)]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    said = [line[:110] for line in stdout.splitlines() if line.startswith(("preempted", "interrupted"))]
    checkpoints = sorted(p.name for p in (out / "checkpoints").glob("step_*")) if (out / "checkpoints").exists() else []
    print(f"SIGTERM to the launcher at {delay} s: launch status {proc.returncode} after "
          f"{time.monotonic() - start:.1f} s; said {said or 'nothing'}; checkpoints {checkpoints}; "
          f"'Traceback' in stderr: {'Traceback' in stderr}")
