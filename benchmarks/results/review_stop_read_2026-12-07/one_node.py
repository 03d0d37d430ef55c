"""h117's doubt (1): one node of 2 processes (one torch elastic agent, which keeps the launch's store), process 0
stopping the launch of its own (``bug``, ``sigterm``: ../stop_store_dies_in_end_2026-12-07/process_0_stops_predict.py),
process 1's ``_end`` held PROBE_END_DELAY_S before it reads the store (the same widening as that probe). Can the store
end before process 1 has read the main process's line, so that process 1 says a second line on the node?

Command (from the repository root), its output saved beside this file:
  PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/review_stop_read_2026-12-07/one_node.py \
    > benchmarks/results/review_stop_read_2026-12-07/one_node.txt 2>&1
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROBE = HERE.parent / "stop_store_dies_in_end_2026-12-07"
sys.path.insert(0, str(PROBE))
import probe  # noqa: E402  (sets the tests' environment too)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="one_node_"))
    predict_args = probe.predict_data(root / "predict")
    for case in ("bug", "sigterm"):
        for delay in ("0", "6"):
            work = root / f"{case}_{delay}"
            work.mkdir()
            mark = work / "marks"
            env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_RANK": "0",
                   "PROBE_STOP": case, "PROBE_MARK": str(mark),
                   "PYTHONPATH": os.pathsep.join([str(probe.WIDEN), str(probe.ROOT), str(probe.TESTS)])}
            if float(delay):
                env["PROBE_END_DELAY_S"] = delay
            started = time.time()
            node = subprocess.run(
                [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
                 "--num_machines", "1", "--main_process_port", str(probe.free_port()), "--mixed_precision", "no",
                 "--dynamo_backend", "no", str(PROBE / "process_0_stops_predict.py"), *predict_args,
                 "--output", str(work / "out")], env=env, capture_output=True, text=True, timeout=300)
            print(f"== {case}, process 1's _end held {delay} s: ended {time.time() - started:.1f} s after the launch; "
                  f"marks: {mark.read_text().strip().replace(chr(10), '; ') if mark.exists() else 'none'}")
            for row in probe.said(node):
                print(f"  {row[:400]}")
            sys.stdout.flush()
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
