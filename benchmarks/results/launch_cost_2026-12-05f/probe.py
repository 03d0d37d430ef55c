"""Per-launch cost of the tests' 2-process launch (tests/test_distributed.py's launch_two of dist_worker.py on
conftest's tiny dataset and settings): wall and CPU of the whole launch, of the launcher (what is not the ranks'),
and of each rank's phases: Python start to script start, imports, setup to the first step, steps, and teardown
(train() returned to the launcher's exit). "setup" ends at the first loss forward, which is the CPU memory check's
meta pass (cpu_step_fit.py); "steps" is the rest of train(). Each repeat launches three times: with the package's
and tests' __pycache__ folders deleted and PYTHONDONTWRITEBYTECODE=1 (every process compiles the package's modules
from source, as on the CI host before conftest.py unset it), then without it twice (the first writes the bytecode,
the second reuses it). Usage: python probe.py [repeats]; prints one JSON line a launch."""
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TESTS = ROOT / "tests"
sys.path[:0] = [str(ROOT), str(TESTS)]
os.environ.setdefault("OMP_NUM_THREADS", "1")
from conftest import tiny_overrides  # noqa: E402  (conftest sets PYTHONPATH as the suite has it)
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_launch(dataset, folder: Path, bytecode: bool) -> dict:
    env = {**os.environ, **({} if bytecode else {"PYTHONDONTWRITEBYTECODE": "1"}), "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "TESTS": str(TESTS),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           str(HERE / "probe_worker.py"), str(folder / "out"), *tiny_overrides(dataset, folder / "run")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    t1 = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, proc.stderr[-3000:]
    total_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    ranks = [json.loads(Path(folder / f"out.phases{r}.json").read_text()) for r in range(2)]
    result = {"bytecode": "written and reused" if bytecode else "compiled from source in each process",
              "wall_s": round(t1 - t0, 2), "cpu_s": round(total_cpu, 2)}
    for r, m in enumerate(ranks):
        result[f"rank{r}"] = {
            "launch_to_script_wall_s": round(m["start"]["wall"] - t0, 2),
            "import_wall_s": round(m["imported"]["wall"] - m["start"]["wall"], 2),
            "import_cpu_s": round(m["imported"]["cpu"] - m["start"]["cpu"], 2),
            "setup_wall_s": round(m["first_step"]["wall"] - m["imported"]["wall"], 2),
            "setup_cpu_s": round(m["first_step"]["cpu"] - m["imported"]["cpu"], 2),
            "steps_wall_s": round(m["trained"]["wall"] - m["first_step"]["wall"], 2),
            "steps_cpu_s": round(m["trained"]["cpu"] - m["first_step"]["cpu"], 2),
            "cpu_s": round(m["trained"]["cpu"], 2),
            "trained_to_launch_end_wall_s": round(t1 - m["trained"]["wall"], 2)}
    result["launcher_and_rank_starts_cpu_s"] = round(total_cpu - sum(m["trained"]["cpu"] for m in ranks), 2)
    return result


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        dataset = write_synthetic_dataset(Path(tmp) / "data", num_cases=9, num_validation=3, seed=0,
                                          size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        one_launch(dataset, Path(tmp) / "warm", bytecode=True)  # the cache of cases built, the bytecode written
        for n in range(repeats):
            for folder in [*(ROOT / "accelerated_seg").rglob("__pycache__"), *TESTS.rglob("__pycache__")]:
                shutil.rmtree(folder)
            for run, bytecode in (("source", False), ("first", True), ("reused", True)):
                print(json.dumps({"launch": run, **one_launch(dataset, Path(tmp) / f"{run}{n}", bytecode)}), flush=True)


if __name__ == "__main__":
    main()
