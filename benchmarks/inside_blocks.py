"""What happens inside each loop's timed blocks of a `benchmark train` run, charged to the loop whose
block was running: Python's automatic garbage collections (`gc`: each timed through `gc.callbacks`;
"outside" is setup, the warm-up between loops and the benchmark's own `gc.collect()`), or the Python
calls under cProfile (`profile`: the functions with the most time of their own, per loop).

    PYTHONPATH=. python benchmarks/inside_blocks.py gc benchmark train --model unet --patch 32 --steps 20
    PYTHONPATH=. python benchmarks/inside_blocks.py profile benchmark train --model unet --patch 32 --steps 20

The first word picks what to count; the rest are the arguments of `accelerated-seg`. The report goes to
stderr after the run. Written to look for a per-step cost of our loop that the ratio hides (eighteenth
session, docs/performance_cpu_sessions.md): a diagnostic, not a benchmark of its own.
"""

import cProfile
import gc
import io
import pstats
import sys
import time

from accelerated_seg import benchmark_train, cli

running = {"loop": "outside"}
steps = {"ours": 0, "plain": 0}
collections: dict[str, dict] = {}
profiles = {"ours": cProfile.Profile(), "plain": cProfile.Profile()}
started: list[float] = []


def _on_collection(phase: str, info: dict) -> None:
    if phase == "start":
        started.append(time.perf_counter())
        return
    entry = collections.setdefault(running["loop"], {"by_generation": [0, 0, 0], "seconds": 0.0})
    entry["by_generation"][info["generation"]] += 1
    entry["seconds"] += time.perf_counter() - started.pop()


def _charged(loop: str, run, steps_of, profiled: bool):
    def block(*args):
        steps[loop] += steps_of(*args)
        running["loop"] = loop
        if profiled:
            profiles[loop].enable()
        try:
            return run(*args)
        finally:
            if profiled:
                profiles[loop].disable()
            running["loop"] = "outside"
    return block


def _report_collections() -> None:
    for loop, entry in collections.items():
        per_step = f", {entry['seconds'] / steps[loop] * 1e6:.1f} us per step over {steps[loop]} steps" \
            if steps.get(loop) else ""
        print(f"gc {loop}: collections by generation {entry['by_generation']}, "
              f"{entry['seconds'] * 1000:.1f} ms{per_step}", file=sys.stderr)
    for loop in steps:
        if loop not in collections:
            print(f"gc {loop}: no collection in {steps[loop]} steps", file=sys.stderr)


def _report_profiles() -> None:
    for loop, profile in profiles.items():
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(15)
        print(f"===== {loop}: {steps[loop]} steps\n{text.getvalue()}", file=sys.stderr)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what not in ("gc", "profile"):
        sys.exit("usage: inside_blocks.py gc|profile <accelerated-seg arguments>")
    if what == "gc":
        gc.callbacks.append(_on_collection)
    # The benchmark looks both block functions up in its module at each call, so replacing them there counts.
    profiled = what == "profile"
    benchmark_train._run_our_block = _charged("ours", benchmark_train._run_our_block,
                                              lambda loop, n: n, profiled)
    benchmark_train.run_block = _charged("plain", benchmark_train.run_block,
                                         lambda plain: plain.steps_per_block, profiled)
    try:
        cli.main(sys.argv[2:])
    finally:
        _report_collections() if what == "gc" else _report_profiles()
