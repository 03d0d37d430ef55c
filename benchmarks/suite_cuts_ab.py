"""The ninety-ninth session's two test-suite cuts, before against after, in one run on this host: pytest run
alone on (a) test_distributed's four refusals, four launches before and one launch of four runs after, and
(b) test_compile's inductor test with a cold inductor cache (a fresh TORCHINDUCTOR_CACHE_DIR each run, as CI
starts), before (a U-Net with residual units, the vector ISA probed by compiling) and after. "Before" is the
tests of ``--before`` (a commit) checked out in a worktree, with its own package; runs alternate.

    python benchmarks/suite_cuts_ab.py --before 52fee502 --repeats 3 \
        --output benchmarks/results/suite_cuts_2cpu_session_2026-12-04c.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelerated_seg.benchmark import machine_info  # noqa: E402
from accelerated_seg.files import check_script_output, write_text_atomically  # noqa: E402

CASES = {
    "four_refusals": {
        "before": ["tests/test_distributed.py::test_a_folder_in_use_by_another_run_is_refused_on_both_ranks_without_a_hang",
                   "tests/test_distributed.py::test_a_save_that_fails_on_the_main_process_alone_stops_both_ranks_with_"
                   "its_message",
                   "tests/test_distributed.py::test_a_checkpoint_gone_after_the_main_process_loaded_it_is_refused_on_"
                   "both_ranks_without_a_hang",
                   "tests/test_distributed.py::test_both_ranks_check_cases_and_refuse_a_broken_dataset_with_the_same_"
                   "whole_report"],
        "after": ["tests/test_distributed.py::test_refusals_reach_both_ranks_without_a_hang_one_run_after_another"]},
    "inductor_cold": {
        "before": ["tests/test_compile.py::test_inductor_compiled_fit_computes_the_same_loss"],
        "after": ["tests/test_compile.py::test_inductor_compiled_fit_computes_the_same_loss"]},
}


def _run(tree: Path, tests: list[str]) -> dict:
    """Wall and CPU seconds (this pytest and its children) of pytest on ``tests`` in ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "TORCHINDUCTOR_CACHE_DIR": tempfile.mkdtemp(prefix="inductor_")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=tree,
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {tree}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit whose tests are 'before'")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    # before anything is checked out or measured: a file there is replaced only when it is this script's own result
    check_script_output(parser, args.output, result_key="benchmark", kind="suite_cuts_2cpu")
    old = Path(tempfile.mkdtemp(prefix="suite_before_")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(old), args.before], cwd=ROOT, check=True,
                   capture_output=True)
    try:
        results = {case: {"before": [], "after": []} for case in CASES}
        for _ in range(args.repeats):
            for case, tests in CASES.items():
                results[case]["before"].append(_run(old, tests["before"]))
                results[case]["after"].append(_run(ROOT, tests["after"]))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=True)
    summary = {case: {side: {key: statistics.median(run[key] for run in runs) for key in ("wall_s", "cpu_s")}
                      for side, runs in sides.items()} for case, sides in results.items()}
    document = {"benchmark": "suite_cuts_2cpu", "date": date.today().isoformat(), "machine": machine_info(),
                "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
                "before_commit": args.before, "repeats": args.repeats, "tests": CASES, "runs": results,
                "medians": summary}
    write_text_atomically(Path(args.output), json.dumps(document, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
