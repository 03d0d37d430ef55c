"""Review r48's probe of h60's split of train.py (2be1f778) against its parent (32313e7f): the same runs, with the
package found first on PYTHONPATH, their printed lines and exported weights compared.

    python split_scenarios.py <package root> <tests folder> <work folder> <output.json>

A: 2 processes (gloo), data.num_workers=2, SIGTERM to rank 1 at its 5th training forward (step 5): preempted after
   that step, the state saved; then in the same processes a resume to 6 steps, validation at 3 and 6 (THEN_RUNS).
B: fit() in one process, SIGUSR1 at its 3rd forward: preempted; fit again with resume="latest" to 5 steps.
"""
import hashlib, json, os, re, subprocess, sys, socket, time
from pathlib import Path

package, tests, work, output = (Path(a) for a in sys.argv[1:5])
work.mkdir(parents=True, exist_ok=True)
env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join([str(package), str(tests)])}
result = {}

def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else None

def lines(text, root):
    keep = ("preempted", "interrupted", "resum", "step ", "warning")
    return [re.sub(r"\d+\.\d+ s\b", "<t> s", l.replace(str(root), "<w>")) for l in text.splitlines()
            if l.startswith(keep)]

# --- A
sys.path[:0] = [str(package), str(tests)]
from conftest import tiny_overrides  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
dataset = write_synthetic_dataset(work / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
out = work / "a_run"
common = {"train.val_every": 3, "train.save_every": 2, "data.num_workers": 2}
first = tiny_overrides(dataset, out, **{**common, "train.max_steps": 6})
then = [[str(work / "a_resumed"), tiny_overrides(dataset, out, **{**common, "train.max_steps": 6,
                                                                   "train.resume": "latest"})]]
with socket.socket() as s:
    s.bind(("", 0)); port = s.getsockname()[1]
started = time.time()
launch = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision",
                         "no", "--main_process_port", str(port), "--multi_gpu", "--num_machines", "1",
                         "--dynamo_backend", "no", str(tests / "dist_worker.py"), str(work / "a_first"), *first],
                        env={**env, "ACCELERATE_USE_CPU": "true", "SIGNAL_RANK": "1", "SIGNAL_CALL": "4",
                             "THEN_RUNS": json.dumps(then)}, capture_output=True, text=True, timeout=600)
ranks = {}
for name in ("a_first", "a_resumed"):
    for r in (0, 1):
        p = work / f"{name}.rank{r}.json"
        if p.is_file():
            d = json.loads(p.read_text())
            ranks[f"{name}.rank{r}"] = {k: d.get(k) for k in ("ok", "step", "preempted", "best_step", "best_dice",
                                                              "losses", "error")}
result["A"] = {"status": launch.returncode, "s": round(time.time() - started, 1), "lines": lines(launch.stdout, work),
               "ranks": ranks, "model": digest(out / "model" / "model.safetensors"),
               "best_model": digest(out / "best_model" / "model.safetensors"),
               "checkpoints": sorted(p.name for p in (out / "checkpoints").iterdir()) if (out / "checkpoints").is_dir()
               else None, "stderr_tail": launch.stderr.splitlines()[-3:]}

# --- B
B = r'''
import os, signal, sys, torch, json
from accelerated_seg.train import fit
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Conv3d(1, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv3d(4, 2, 1))
g = torch.Generator().manual_seed(0)
x = torch.randn(16, 1, 8, 8, 8, generator=g); y = (x > 0).long()
loader = torch.utils.data.DataLoader(list(zip(x, y)), batch_size=2, shuffle=True, num_workers=int(sys.argv[2]),
                                     generator=torch.Generator().manual_seed(1))
calls = {"n": 0}
def criterion(logits, label):
    calls["n"] += 1
    if calls["n"] == 3 and sys.argv[3] == "signal":
        os.kill(os.getpid(), signal.SIGUSR1)
    return torch.nn.functional.cross_entropy(logits, label[:, 0])
opt = torch.optim.SGD(net.parameters(), lr=0.1)
r = fit(net, loader, criterion, opt, max_steps=5, checkpoint_dir=sys.argv[1], save_every=2, log_every=1,
        progress_bar=False, resume=None if sys.argv[3] == "signal" else "latest")
print("RESULT", json.dumps({k: r[k] for k in ("step", "preempted", "losses")}))
'''
result["B"] = {}
for workers in ("0", "2"):
    fout = work / f"b_fit_w{workers}"
    runs = []
    for mode in ("signal", "resume"):
        done = subprocess.run([sys.executable, "-c", B, str(fout), workers, mode], env=env, capture_output=True,
                              text=True, timeout=300, cwd=work)
        runs.append({"status": done.returncode, "lines": lines(done.stdout, work),
                     "result": [json.loads(l[7:]) for l in done.stdout.splitlines() if l.startswith("RESULT ")],
                     "stderr_tail": done.stderr.splitlines()[-2:] if done.returncode else []})
    result["B"][f"workers={workers}"] = {"runs": runs, "model": digest(fout / "model" / "model.safetensors")}
output.write_text(json.dumps(result, indent=1))
print(json.dumps(result)[:3000])
