"""Run as: .venv/bin/python sigterm_around_the_processes_meet.py [name filter...], BEFORE_TREE and AFTER_TREE naming
two checkouts (the hundred-and-eighth session's review: git archive bcf5cf4b, and its branch r40).
SIGTERM to rank 1 or to the launcher of a 2-process accelerated-seg train, before the processes meet (rank 1 in
its settings' checks, rank 0 making its Accelerator) or after (rank 1 in _where_the_run_starts): status, seconds
from the signal to the launch's end, lines said, checkpoints saved; for the tree before h44 and after."""
import os, socket, subprocess, sys, tempfile, time
from pathlib import Path
trees = {"before_h44": os.environ["BEFORE_TREE"], "after_h44": os.environ["AFTER_TREE"]}
sys.path.insert(0, trees["after_h44"])
from accelerated_seg.data.synthetic import write_synthetic_dataset  # the package of the first tree below

top = Path(tempfile.mkdtemp())
data = write_synthetic_dataset(top / "data", num_cases=6, num_validation=2, seed=0, size_mm=(40.0, 40.0, 32.0),
                               spacing_mm=2.0)
def port():
    with socket.socket() as s:
        s.bind(("", 0)); return s.getsockname()[1]
scenarios = {"before_meet": ("accelerated_seg.train:_checks_before_anything_is_written", "accelerated_seg.train:make_accelerator"),
             "after_meet": ("accelerated_seg.train:_where_the_run_starts", "")}
wanted = sys.argv[1:] or None
for tree_name, tree in trees.items():
    for when, (signal_in, others_at) in scenarios.items():
        for target in ("rank1", "launcher"):
            name = f"{tree_name}/{when}/{target}"
            if wanted and not any(w in name for w in wanted):
                continue
            out, signalled = top / name.replace("/", "_"), top / (name.replace("/", "_") + ".at")
            env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL": "TERM",
                   "TARGET": "launcher" if target == "launcher" else "self", "SIGNAL_IN": signal_in,
                   "OTHERS_AT": others_at, "SIGNALLED_AT": str(signalled), "PYTHONPATH": tree}
            cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
                   "--main_process_port", str(port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
                   str(Path(__file__).with_name("sigterm_around_the_processes_meet_rank.py")), "train", f"--data.dataset={data}", f"--data.cache_dir={top}/cache",
                   "--data.patch_size=[16,16,16]", "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=0",
                   "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}", f"--train.output_dir={out}",
                   "--train.max_steps=200", "--train.batch_size=2", "--train.val_every=0", "--train.save_every=0",
                   "--train.progress_bar=false", "--train.trackers=none"]
            try:
                run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
                status, text = run.returncode, run.stdout + run.stderr
            except subprocess.TimeoutExpired as e:
                status, text = "timeout", (e.stdout or b"").decode() + (e.stderr or b"").decode()
            ended = time.time()
            after = f"{ended - float(signalled.read_text()):.1f} s" if signalled.exists() else "no signal"
            pkg = sorted({l.split()[1] for l in text.splitlines() if l.startswith("package ")})
            said = [l[:140] for l in text.splitlines() if l.startswith(("preempted", "interrupted", "error:"))]
            codes = [l.strip() for l in text.splitlines() if "exitcode" in l]
            ckpts = sorted(p.name for p in (out / "checkpoints").glob("step_*")) if (out / "checkpoints").exists() else []
            print(f"{name}: status {status}, ended {after} after the signal; said {said}; exitcodes {codes}; "
                  f"checkpoints {ckpts}; package {pkg}", flush=True)
