"""How soon a killed training rank's loader worker and fork server end (data.workers.end_with_the_rank).

    PYTHONPATH=. python benchmarks/killed_rank_cleanup.py      # writes benchmarks/results/killed_rank_cleanup_2cpu.json

Each repeat runs examples/train.py on small phantoms with one loader worker and a checkpoint every
step, waits for the first checkpoint (the worker has delivered batches by then), kills the rank with
SIGKILL, as the out-of-memory killer does, and times until the worker and the fork server have ended.
Before end_with_the_rank they never did (tests/test_workers.py waits 20 s for them). Linux: reads /proc.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 3
GIVE_UP_S = 30


def _parents() -> dict[int, int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return parents


def _fork_server_and_workers(rank: int) -> tuple[int, list[int]] | None:
    parents = _parents()
    for pid, parent in parents.items():
        try:
            if parent == rank and b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid, [child for child, of in parents.items() if of == pid]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return None


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def one_kill(dataset: Path, out: Path) -> dict:
    overrides = [f"--data.dataset={dataset}", f"--data.cache_dir={out.parent / 'cache'}", "--data.patch_size=[16,16,16]",
                 "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=1",
                 "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}",
                 "--train.max_steps=100000", "--train.val_every=0", "--train.save_every=1",
                 "--train.trackers=none", f"--train.output_dir={out}"]
    rank = subprocess.Popen([sys.executable, str(ROOT / "examples" / "train.py"), "--no-report", *overrides],
                            env={**os.environ, "OMP_NUM_THREADS": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not list((out / "checkpoints").glob("step_*")):
        if rank.poll() is not None:
            raise RuntimeError(f"the training run ended by itself (exit status {rank.returncode})")
        time.sleep(0.05)
    server, workers = _fork_server_and_workers(rank.pid)
    rank.kill()
    rank.wait()
    killed, ended = time.monotonic(), {}
    while len(ended) < 1 + len(workers) and time.monotonic() - killed < GIVE_UP_S:
        for pid in (server, *workers):
            if pid not in ended and not _running(pid):
                ended[pid] = round((time.monotonic() - killed) * 1000, 1)
        time.sleep(0.002)
    return {"workers": len(workers), "worker_ended_ms": [ended.get(pid) for pid in workers],
            "fork_server_ended_ms": ended.get(server)}


def main() -> None:
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.files import write_text_atomically

    with tempfile.TemporaryDirectory() as work:
        dataset = write_synthetic_dataset(Path(work) / "data", num_cases=9, num_validation=3,
                                          size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        kills = []
        for repeat in range(REPEATS):
            kills.append(one_kill(dataset, Path(work) / f"run{repeat}"))
            print(kills[-1])
    out = ROOT / "benchmarks" / "results" / "killed_rank_cleanup_2cpu.json"
    write_text_atomically(out, json.dumps({"benchmark": "killed_rank_cleanup",
                                           "command": "PYTHONPATH=. python benchmarks/killed_rank_cleanup.py",
                                           "machine": machine_info(), "gave_up_after_s": GIVE_UP_S, "kills": kills},
                                          indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()  # after the parser: --help (or a typo) ran the whole measurement and rewrote the committed result
