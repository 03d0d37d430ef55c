"""A launched one-process `train` (torchrun: WORLD_SIZE set, so cli.end_process ends it with exit_now since h111)
Ctrl-C'd (SIGINT to the rank) mid-training, its output through `| tee`: before h111 (0180126b~1, a SystemExit and
the interpreter's shutdown) and after (main). Checks the rank's status and the launcher's, the interrupted line
through the pipe, TensorBoard's event file (scalars recorded), the run folder's lock, pymp-* folders left, leaked
semaphores said.
Run (from the worktree): PYTHONPATH=. python \
    benchmarks/results/review_cli_main_stops_2026-12-07/launched_ctrl_c.py
"""
import glob, os, shlex, signal, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, "/tmp/wt_r98/tests")
from conftest import tiny_overrides  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402

root = Path(tempfile.mkdtemp(prefix="r98_"))
data = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                               spacing_mm=2.0)
VARIANTS = {"before (0180126b~1)": "/tmp/r98_before", "after (main 1e9a01e6)": "/work/main"}
for name, code in VARIANTS.items():
    out = root / name.split()[0]
    tmp = root / f"tmp_{name.split()[0]}"
    tmp.mkdir()
    args = tiny_overrides(data, out, train__max_steps=100000, train__val_every=0, train__save_every=5,
                          train__trackers="tensorboard", data__num_workers=2)
    env = dict(os.environ, PYTHONPATH=code, TMPDIR=str(tmp))
    command = (f"/work/main/.venv/bin/torchrun --nproc_per_node 1 --master_port {29000 + len(name)} "
               f"-m accelerated_seg train {shlex.join(args)} 2>&1 | tee {root}/{name.split()[0]}.log; "
               f"echo launcher_status=${{PIPESTATUS[0]}}")
    shell = subprocess.Popen(["bash", "-c", command], env=env, stdout=subprocess.PIPE, text=True,
                             start_new_session=True, cwd=root)  # not the worktree: -m puts the cwd first
    log = root / f"{name.split()[0]}.log"
    deadline = time.time() + 150
    while time.time() < deadline and not list(out.glob("checkpoints/step_10*")):
        time.sleep(0.5)
    time.sleep(2)
    ranks = subprocess.run(["pgrep", "-f", f"u -m accelerated_seg train.*{out}"], capture_output=True, text=True)
    rank_pids = [int(p) for p in ranks.stdout.split() if int(p) != shell.pid]
    # the rank: the python whose parent is torchrun
    rank = [p for p in rank_pids if "torchrun" not in Path(f"/proc/{p}/cmdline").read_text()][0]
    os.kill(rank, signal.SIGINT)
    tail = shell.communicate(timeout=120)[0]
    text = log.read_text()
    events = sorted(glob.glob(f"{out}/**/events.out.tfevents*", recursive=True))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    scalars = {}
    for e in events:
        acc = EventAccumulator(e); acc.Reload()
        scalars = {tag: len(acc.Scalars(tag)) for tag in acc.Tags()["scalars"]}
    print(f"== {name}")
    print("   launcher:", tail.strip().splitlines()[-1])
    print("   interrupted line through tee:", [l for l in text.splitlines() if "interrupted" in l])
    print("   last lines:", text.strip().splitlines()[-3:])
    print("   event files:", len(events), "sizes", [os.path.getsize(e) for e in events], "scalar counts:", scalars)
    print("   lock files left:", [str(p.relative_to(out)) for p in out.rglob("*lock*")])
    print("   pymp-* left in TMPDIR:", sorted(p.name for p in tmp.iterdir()))
    print("   leaked semaphore said:", "leaked semaphore" in text)
