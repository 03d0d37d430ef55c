"""A signal to a launched `examples/train.py` (2 CPU processes) in its ranks' first seconds (their imports), to one
rank alone too (TO=one: the first rank found). Review r83's copy of h97's launched_first_seconds.py, which launched
`-m accelerated_seg train` and signalled both ranks or the group; here the script, and one rank: does the launch end
soon, or wait for the rendezvous with the rank that ended?

Each case TO:SIGNAL@SECONDS: the signal sent SECONDS after the launch's two ranks have started.

TO=group: to the launcher's process group, as a terminal's Ctrl-C or Slurm's signal to every process; TO=ranks: to
the two ranks alone (found as the agent's children), as examples/slurm/node_task.sh passes a requeue's SIGUSR1 on.
Reports the launch's status, the lines said and the checkpoints. The hundred-and-eighteenth session's (h97). Run
(PROBE_CODE=/work/main for the code before the fix): cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_early_signals_2026-12-06/launched_example_one_rank.py [one:SIGINT@0.5 ...]
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "early_signals_2026-12-06"))
from tiny import ENV, ROOT, dataset, free_port, tiny_overrides  # noqa: E402
from launched_first_seconds_children import children  # noqa: E402

root, data = dataset("h97l_")
env = {**ENV, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
for case in sys.argv[1:] or ["one:SIGINT@0.5", "one:SIGTERM@0.5", "one:SIGUSR1@0.5", "group:SIGINT@0.5"]:
    to, rest = case.split(":")
    name, delay = rest.split("@")
    out = root / f"run_{to}_{name}_{delay}"
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
               "--main_process_port", str(free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
               "no", str(ROOT / "examples" / "train.py"),
               *tiny_overrides(data, out, train__max_steps=400, train__val_every=0, train__save_every=0)]
    start = time.monotonic()
    # run in the code's own folder: `-m accelerated_seg` puts the working folder first on the ranks' sys.path
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=env["PYTHONPATH"])
    ranks: list[int] = []
    while len(ranks) < 2:  # the delay counts from the ranks' start: the launcher's own imports come first
        time.sleep(0.02)
        ranks = children(proc.pid)
        assert proc.poll() is None and time.monotonic() - start < 60, "no ranks started"
    time.sleep(float(delay))
    since = time.monotonic() - start
    if to == "group":
        os.killpg(proc.pid, getattr(signal, name))
    elif to == "one":
        os.kill(ranks[0], getattr(signal, name))
    else:
        for rank in ranks:
            os.kill(rank, getattr(signal, name))
    stdout, stderr = proc.communicate(timeout=300)
    said = [line[:150] for line in (stdout + stderr).splitlines()
            if "before it began" in line or "exitcode" in line or line.startswith(("preempted", "interrupted", "error"))]
    saved = sorted(p.name for p in (out / "checkpoints").glob("step_*")) if (out / "checkpoints").exists() else []
    print(f"{name} to the {to} {delay} s after the ranks started ({since:.1f} s in): launch status {proc.returncode} after "
          f"{time.monotonic() - start:.1f} s; said {said or 'nothing'}; checkpoints {saved}; 'Traceback' in stderr: "
          f"{'Traceback' in stderr}")
