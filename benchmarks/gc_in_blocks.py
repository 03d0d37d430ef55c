"""How much of each loop's timed blocks Python's automatic garbage collection takes, in a
`benchmark train` run: every collection is timed (`gc.callbacks`) and charged to the loop whose block
was running, or to "outside" (setup, warm-up between loops, the benchmark's own `gc.collect()`).

    PYTHONPATH=. python benchmarks/gc_in_blocks.py benchmark train --model unet --patch 32 --steps 20 --blocks 10

Takes the arguments of `accelerated-seg` and prints one line per loop to stderr after the run. Written
to test whether collections triggered by one loop's allocations could be charged to it (eighteenth
session, docs/performance_cpu_sessions.md): a diagnostic, not a benchmark of its own.
"""

import gc
import sys
import time

from accelerated_seg import benchmark_train, cli

running = {"loop": "outside"}
counts: dict[str, dict] = {}
started: list[float] = []


def _entry(loop: str) -> dict:
    return counts.setdefault(loop, {"collections": [0, 0, 0], "seconds": 0.0, "steps": 0})


def _on_collection(phase: str, info: dict) -> None:
    if phase == "start":
        started.append(time.perf_counter())
        return
    entry = _entry(running["loop"])
    entry["collections"][info["generation"]] += 1
    entry["seconds"] += time.perf_counter() - started.pop()


def _charged(loop: str, run, steps_of):
    def block(*args):
        _entry(loop)["steps"] += steps_of(*args)
        running["loop"] = loop
        try:
            return run(*args)
        finally:
            running["loop"] = "outside"
    return block


gc.callbacks.append(_on_collection)
# The benchmark looks both block functions up in its module at each call, so replacing them there counts.
benchmark_train._run_our_block = _charged("ours", benchmark_train._run_our_block, lambda loop, steps: steps)
benchmark_train.run_block = _charged("plain", benchmark_train.run_block, lambda plain: plain.steps_per_block)

if __name__ == "__main__":
    try:
        cli.main(sys.argv[1:])
    finally:
        for loop, entry in counts.items():
            per_step = f", {entry['seconds'] / entry['steps'] * 1e6:.1f} us per step over {entry['steps']} steps" \
                if entry["steps"] else ""
            print(f"gc {loop}: collections by generation {entry['collections']}, "
                  f"{entry['seconds'] * 1000:.1f} ms{per_step}", file=sys.stderr)
