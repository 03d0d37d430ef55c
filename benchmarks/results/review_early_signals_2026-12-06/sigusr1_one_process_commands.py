"""SIGUSR1 (a requeue's notice, examples/slurm's --signal) to a one-process command in the middle of its work:
evaluate as its second map is read, export once its weights are in <output>.partial/ (tests/terminated_mid_work.py
sends it, as for SIGTERM's tests). h97 made synth take SIGUSR1 as its SIGTERM and left the others to its default.
Review r83. Run (PROBE_CODE: the code run, /work/main for before the fix):
  cd /tmp/wt_r83 && PROBE_CODE=/work/main PYTHONPATH=. /work/main/.venv/bin/python \
      benchmarks/results/review_early_signals_2026-12-06/sigusr1_one_process_commands.py
"""
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "early_signals_2026-12-06"))
from tiny import ENV, EXE, ROOT, dataset, tiny_overrides  # noqa: E402

root, data = dataset("r83u_")
subprocess.run([EXE, "train", *tiny_overrides(data, root / "run", train__max_steps=1, train__val_every=0)], env=ENV,
               check=True, capture_output=True)
labels = data.parent / "labelsTr"
shutil.copytree(labels, root / "predictions")
env = {**ENV, "TERMINATED_MID_WORK_BY": "SIGUSR1"}
for command in (["evaluate", str(root / "predictions"), str(labels), "--output", str(root / "evaluation")],
                ["export", str(root / "run"), "--output", str(root / "model")]):
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "terminated_mid_work.py"), *command], env=env,
                          capture_output=True, text=True, timeout=300)
    left = sorted(p.name for p in root.iterdir() if p.name not in ("data", "run", "predictions", "cache"))
    last = done.stderr.strip().splitlines()[-1][:160] if done.stderr.strip() else "(nothing)"
    print(f"{command[0]}: status {done.returncode}; beside the run: {left}; stderr's last line: {last}")
    for name in left:
        shutil.rmtree(root / name)
