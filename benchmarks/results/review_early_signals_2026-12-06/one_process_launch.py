"""A launch of ONE process (`accelerate launch --num_processes 1 -m accelerated_seg train`, the usual single-GPU sbatch
line) sent SIGTERM in its rank's first seconds (its imports): to the rank alone (a wrapper passing a stop on) or to
the launcher's process group (scancel, a time limit). early_signals keeps a launched rank's SIGTERM default (for
torch's agent to end the ranks left when one has ended): with one process there are none, and its PreemptionSignals
records SIGTERM from train()'s start (processes_yet_to_meet is False). Review r83 of h97's change.
LAUNCHER=torchrun: `torchrun --nproc_per_node 1` (which marks its rank, TORCHELASTIC_RUN_ID) in place of accelerate's
launch (whose one process is a plain child, no launcher's mark). Run: cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_early_signals_2026-12-06/one_process_launch.py [rank:SIGTERM@0.5 group:SIGTERM@0.5]
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "early_signals_2026-12-06"))
from tiny import ENV, dataset, free_port, tiny_overrides  # noqa: E402
from launched_first_seconds_children import children  # noqa: E402

root, data = dataset("r83l_")
env = {**ENV, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
for case in sys.argv[1:] or ["rank:SIGTERM@0.5", "group:SIGTERM@0.5"]:
    to, rest = case.split(":")
    name, delay = rest.split("@")
    out = root / f"run_{to}_{name}_{delay}"
    launcher = ([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "1", "--master_port",
                 str(free_port())] if os.environ.get("LAUNCHER") == "torchrun" else
                [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "1", "--mixed_precision", "no",
                 "--main_process_port", str(free_port()), "--num_machines", "1", "--dynamo_backend", "no"])
    command = [*launcher, "-m", "accelerated_seg", "train",
               *tiny_overrides(data, out, train__max_steps=400, train__val_every=0, train__save_every=0)]
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=env["PYTHONPATH"])
    ranks: list[int] = []
    while not ranks:
        time.sleep(0.02)
        ranks = children(proc.pid)
        assert proc.poll() is None and time.monotonic() - start < 60, "no rank started"
    time.sleep(float(delay))
    if to == "group":
        os.killpg(proc.pid, getattr(signal, name))
    else:
        os.kill(ranks[0], getattr(signal, name))
    stdout, stderr = proc.communicate(timeout=300)
    said = [line[:140] for line in (stdout + stderr).splitlines()
            if "before it began" in line or "exitcode" in line or line.startswith(("preempted", "error"))]
    saved = sorted(p.name for p in (out / "checkpoints").glob("step_*")) if (out / "checkpoints").exists() else []
    print(f"{name} to the {to} {delay} s after the rank started: launch status {proc.returncode} after "
          f"{time.monotonic() - start:.1f} s; said {said or 'nothing'}; checkpoints {saved}; "
          f"'Traceback' in stderr: {'Traceback' in stderr}")
