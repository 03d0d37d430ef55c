"""What happens inside each loop's timed blocks of a `benchmark train` run, charged to the loop whose
block was running: Python's automatic garbage collections (`gc`: each timed through `gc.callbacks`;
"outside" is setup, the warm-up between loops and the benchmark's own `gc.collect()`), the Python
calls under cProfile (`profile`: the functions with the most time of their own, per loop), or the
torch operators under torch.profiler (`ops`: each operator's own time per step in both loops, side
by side, the largest differences first), or what the kernel saw (`rusage`: page faults, and user and
system CPU time, per step of each loop; its first block apart, where the loop that runs first touches
the process's memory for the first time), or where a step's device time goes (`kernels`: on a GPU the
CUDA kernels with the most device time per step, in each loop, and their share of it; on a CPU the
operators' own CPU time, which is the same question there; each loop's first block, the warm-up with
compilation, left out; and the time of each ``aten::copy_`` by its arguments' shapes and strides, which
names the tensors whose layout a step changes).

    PYTHONPATH=. python benchmarks/inside_blocks.py gc benchmark train --model unet --patch 32 --steps 20
    PYTHONPATH=. python benchmarks/inside_blocks.py profile benchmark train --model unet --patch 32 --steps 20
    PYTHONPATH=. python benchmarks/inside_blocks.py ops benchmark train --model unet --patch 32 --steps 20
    PYTHONPATH=. python benchmarks/inside_blocks.py rusage benchmark train --model unet --patch 32 --steps 20
    PYTHONPATH=. python benchmarks/inside_blocks.py kernels benchmark train --model unet3d_mlperf --patch 128 \
        --batch 4 --precision bf16 --lever compile+channels_last --steps 10 --blocks 1

The first word picks what to count; the rest are the arguments of `accelerated-seg`. The report goes to
stderr after the run. Written to look for a per-step cost of our loop that the ratio hides (eighteenth
session, docs/performance_cpu_sessions.md), for the operator where a gap of a few percent at one size
lives (nineteenth), and for the page faults that move the ratio on the CPU (nineteenth and twentieth;
docs/performance_history.md, "Page faults"), and for the kernels behind the MLPerf U-Net's backward on a GPU
(twenty-eighth session: 70% of a compiled step): a diagnostic, not a benchmark of its own.
"""

import cProfile
import gc
import io
import pstats
import resource
import shlex
import sys
import time
from collections import defaultdict

COUNTS = ("gc", "profile", "ops", "rusage", "kernels")
# Refused before the benchmark is imported: with it come torch and MONAI, 10-15 s on 2 cores.
USAGE = f"usage: inside_blocks.py {'|'.join(COUNTS)} <accelerated-seg arguments>"
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(USAGE + "\n\n" + __doc__)
    sys.exit(0)
if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] not in COUNTS):
    sys.exit(USAGE)

import torch  # noqa: E402  (after the usage check)

from accelerated_seg import benchmark, benchmark_train, cli  # noqa: E402

running = {"loop": "outside"}
steps = {"ours": 0, "plain": 0}
collections: dict[str, dict] = {}
profiles = {"ours": cProfile.Profile(), "plain": cProfile.Profile()}
started: list[float] = []
# ops: loop -> operator -> [own CPU microseconds, calls], summed over the loop's timed blocks
operators: dict[str, dict] = {"ours": defaultdict(lambda: [0.0, 0]), "plain": defaultdict(lambda: [0.0, 0])}
# rusage: loop -> "first" block or "later" blocks -> counter (and "steps"), summed. The first block
# apart: the loop whose warm-up runs first (ours) touches the process's working set for the first
# time there, and those one-time page faults are no cost of its steps.
RUSAGE_FIELDS = ("ru_minflt", "ru_majflt", "ru_utime", "ru_stime", "ru_nvcsw", "ru_nivcsw")
usage = {loop: {part: dict.fromkeys(("steps", *RUSAGE_FIELDS), 0.0) for part in ("first", "later")}
         for loop in ("ours", "plain")}
# kernels: loop -> kernel (or, without CUDA, operator) -> [own device microseconds, calls], summed over
# each loop's blocks after its first (the warm-up, where compilation and cuDNN's autotuning run)
kernels: dict[str, dict] = {"ours": defaultdict(lambda: [0.0, 0]), "plain": defaultdict(lambda: [0.0, 0])}
# and, on CUDA, the same device time charged to the operator that launched each kernel: a kernel's name
# (a strided copy, say) does not say which operator needed it
launchers: dict[str, dict] = {"ours": defaultdict(lambda: [0.0, 0]), "plain": defaultdict(lambda: [0.0, 0])}
# and the device time of aten::copy_ (on CUDA; own CPU time elsewhere) by its arguments: shape, dtype, and
# the source's and destination's strides, which name the tensors whose layout changes (thirty-fourth
# session, H100: 53 bf16 copies, innermost operator aten::copy_, took 20% of a compiled channels-last step)
copies: dict[str, dict] = {"ours": defaultdict(lambda: [0.0, 0]), "plain": defaultdict(lambda: [0.0, 0])}
kernel_steps = {"ours": 0, "plain": 0}


def _on_collection(phase: str, info: dict) -> None:
    if phase == "start":
        started.append(time.perf_counter())
        return
    entry = collections.setdefault(running["loop"], {"by_generation": [0, 0, 0], "seconds": 0.0})
    entry["by_generation"][info["generation"]] += 1
    entry["seconds"] += time.perf_counter() - started.pop()


def _under_rusage(counters: dict, block_steps: int, run, args):
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        return run(*args)
    finally:
        after = resource.getrusage(resource.RUSAGE_SELF)
        counters["steps"] += block_steps
        for name in RUSAGE_FIELDS:
            counters[name] += getattr(after, name) - getattr(before, name)


def _under_profiler(per_operator: dict, run, args):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
        result = run(*args)
    for event in profiler.key_averages():
        per_operator[event.key][0] += event.self_cpu_time_total
        per_operator[event.key][1] += event.count
    return result


def _under_device_profiler(per_kernel: dict, per_launcher: dict, per_copy: dict, run, args):
    """Own device time per kernel on CUDA (the profiler's CUDA activity), and per operator that launched
    kernels (an operator's own device time: its kernels, not its child operators'); own CPU time per
    operator elsewhere, where the operators are what runs on the device. And the same time of each
    ``aten::copy_`` by its arguments (``_copy_arguments``)."""
    on_cuda = torch.cuda.is_available()
    activities = [torch.profiler.ProfilerActivity.CPU]
    if on_cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities, record_shapes=True) as profiler:
        result = run(*args)
        if on_cuda:
            torch.cuda.synchronize()  # the block's last kernels inside the profile
    for event in profiler.key_averages():
        own = event.self_device_time_total if on_cuda else event.self_cpu_time_total
        is_kernel = event.device_type == torch.autograd.DeviceType.CUDA if on_cuda else True
        if is_kernel and own > 0:
            per_kernel[event.key][0] += own
            per_kernel[event.key][1] += event.count
        elif on_cuda and own > 0:  # a host operator whose own kernels ran for `own` microseconds
            per_launcher[event.key][0] += own
            per_launcher[event.key][1] += event.count
    for event in profiler.events():  # one per call, with its arguments (key_averages groups shapes only)
        if event.name == "aten::copy_" and event.device_type == torch.autograd.DeviceType.CPU:
            own = event.self_device_time_total if on_cuda else event.self_cpu_time_total
            if own > 0:
                entry = per_copy[_copy_arguments(event)]
                entry[0] += own
                entry[1] += 1
    return result


def _copy_arguments(event, callers: int = 3) -> str:
    """``dtype [shape] strides src -> dst, in caller < caller`` of a ``copy_(dst, src)`` call: the strides
    where this torch records them (``structured_input_strides``), and the operators it ran inside,
    innermost first (a copy inside ``aten::convolution_backward`` is a layout the convolution asked for;
    one with no operator around it was called by the compiled graph or the loop itself)."""
    shapes = event.input_shapes or [[], []]
    dtypes = getattr(event, "input_dtypes", None) or ["?", "?"]
    strides = getattr(event, "structured_input_strides", None)
    where = f"strides {strides[1]} -> {strides[0]}" if strides and len(strides) > 1 else "strides not recorded"
    kind = dtypes[1] if dtypes[1] == dtypes[0] else f"{dtypes[1]} -> {dtypes[0]}"
    inside, parent = [], event.cpu_parent
    while parent is not None and len(inside) < callers:
        inside.append(parent.name)
        parent = parent.cpu_parent
    return f"{kind} {shapes[1] if len(shapes) > 1 else shapes}: {where}, in {' < '.join(inside) or '-'}"


def _charged(loop: str, run, steps_of, what: str):
    def block(*args):
        block_steps = steps_of(*args)
        part = "later" if steps[loop] else "first"
        steps[loop] += block_steps
        running["loop"] = loop
        if what == "profile":
            profiles[loop].enable()
        try:
            if what == "rusage":
                return _under_rusage(usage[loop][part], block_steps, run, args)
            if what == "ops":
                return _under_profiler(operators[loop], run, args)
            if what == "kernels" and part == "later":
                kernel_steps[loop] += block_steps
                return _under_device_profiler(kernels[loop], launchers[loop], copies[loop], run, args)
            return run(*args)
        finally:
            if what == "profile":
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


def _report_operators(rows: int = 25) -> None:
    """Own CPU time per step of each operator in both loops, largest |ours - plain| first."""
    per_step = {loop: {op: (us / steps[loop], calls / steps[loop]) for op, (us, calls) in ops.items()}
                for loop, ops in operators.items() if steps[loop]}
    if len(per_step) < 2:
        return
    total = {loop: sum(us for us, _ in ops.values()) for loop, ops in per_step.items()}
    print(f"own CPU time per step: ours {total['ours'] / 1000:.2f} ms, plain {total['plain'] / 1000:.2f} ms "
          f"(ours {steps['ours']} steps, plain {steps['plain']})", file=sys.stderr)
    print(f"{'operator':48s} {'ours us':>10s} {'plain us':>10s} {'diff us':>9s} {'ours calls':>10s} "
          f"{'plain calls':>11s}", file=sys.stderr)
    names = set(per_step["ours"]) | set(per_step["plain"])
    def diff(op):
        return per_step["ours"].get(op, (0.0, 0))[0] - per_step["plain"].get(op, (0.0, 0))[0]
    for op in sorted(names, key=lambda op: -abs(diff(op)))[:rows]:
        ours_us, ours_calls = per_step["ours"].get(op, (0.0, 0))
        plain_us, plain_calls = per_step["plain"].get(op, (0.0, 0))
        print(f"{op[:48]:48s} {ours_us:10.1f} {plain_us:10.1f} {diff(op):+9.1f} {ours_calls:10.1f} "
              f"{plain_calls:11.1f}", file=sys.stderr)


def _report_kernels(rows: int = 25) -> None:
    """Each loop's kernels with the most own device time per step, with their share of that time, and
    on CUDA the operators that launched them. Names are printed whole, last on each row: CUDA kernel
    names are long templates whose end (the functor, the tile) tells kernels apart."""
    where = "CUDA kernels, own device time" if torch.cuda.is_available() else "operators, own CPU time"
    for loop, per_kernel in kernels.items():
        n = kernel_steps[loop]
        if not n:
            print(f"===== {loop}: no block after the first (give --blocks and keep a warm-up block)", file=sys.stderr)
            continue
        total = sum(us for us, _ in per_kernel.values())
        print(f"===== {loop}: {where}, {total / n / 1000:.2f} ms per step over {n} steps (the first block "
              f"left out)", file=sys.stderr)
        _print_rows("kernel", per_kernel, n, total, rows)
        if launchers[loop]:
            print(f"----- {loop}: the same device time by the operator that launched it", file=sys.stderr)
            _print_rows("operator", launchers[loop], n, total, rows)
        if copies[loop]:
            print(f"----- {loop}: aten::copy_ by its arguments (dtype, shape, source -> destination strides) "
                  f"and the operators it ran in", file=sys.stderr)
            _print_rows("copy", copies[loop], n, total, rows)


def _print_rows(what: str, per_name: dict, steps_profiled: int, total: float, rows: int) -> None:
    print(f"{'us/step':>10s} {'share':>6s} {'calls/step':>10s}  {what}", file=sys.stderr)
    for name, (us, calls) in sorted(per_name.items(), key=lambda item: -item[1][0])[:rows]:
        print(f"{us / steps_profiled:10.1f} {us / total:6.1%} {calls / steps_profiled:10.1f}  {name}", file=sys.stderr)


def _report_usage() -> None:
    """Page faults, context switches and CPU time per step of each loop's first block and of its later
    blocks, from getrusage."""
    for loop, part, counters in [(loop, part, usage[loop][part]) for part in ("first", "later") for loop in usage]:
        n = counters["steps"] or 1
        name = "first block" if part == "first" else "later blocks"
        print(f"rusage {loop}, {name} ({counters['steps']:.0f} steps): per step "
              f"{counters['ru_minflt'] / n:.1f} minor and "
              f"{counters['ru_majflt'] / n:.2f} major page faults, user {counters['ru_utime'] / n * 1000:.2f} ms, "
              f"system {counters['ru_stime'] / n * 1000:.2f} ms, context switches {counters['ru_nvcsw'] / n:.2f} "
              f"voluntary and {counters['ru_nivcsw'] / n:.2f} involuntary", file=sys.stderr)


def _write_as_instrumented(write, what: str):
    def written(name, results, output, command=None):
        results = {**results, "instrumented": f"{what}: timed under inside_blocks.py's instrument, not a plain "
                                              f"measurement; its ratios are not the benchmark's"}
        # the CLI's command names accelerated-seg, which would run the benchmark without this instrument
        return write(name, results, output,
                     "PYTHONPATH=. python benchmarks/inside_blocks.py " + shlex.join(sys.argv[1:]))
    return written


if __name__ == "__main__":
    what = sys.argv[1]  # one of COUNTS, or the usage check above has refused it
    if what == "gc":
        gc.callbacks.append(_on_collection)
    # The benchmark looks both block functions up in its module at each call, so replacing them there counts.
    benchmark_train.run_our_block = _charged("ours", benchmark_train.run_our_block, lambda loop, n: n, what)
    benchmark_train.run_block = _charged("plain", benchmark_train.run_block,
                                         lambda plain: plain.steps_per_block, what)
    # The result says how it was made: "accelerated-seg gc benchmark train ..." named a command that does
    # not exist, and nothing said that its blocks were timed under the instrument (seventy-third session)
    benchmark.write_result = _write_as_instrumented(benchmark.write_result, what)
    code = None
    try:
        code = cli.main(sys.argv[2:])
    finally:
        if code != 2:  # a refused configuration measured nothing: no report of zeros under its error
            {"gc": _report_collections, "profile": _report_profiles, "ops": _report_operators,
             "rusage": _report_usage, "kernels": _report_kernels}[what]()
    # the command's status (a refusal exited 0 until the hundred-and-thirteenth session's review); under a launcher
    # the rank leaves as the CLI's own entry point leaves it, past the gloo threads' abort at exit
    cli.end_process(code)
