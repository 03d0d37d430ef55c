"""Checks of `benchmark train`'s harness itself, rather than of either loop: does it read 1.0 for two
identical loops, and does a loop's lead stay with the loop when the two trade places in the run?

    PYTHONPATH=. python benchmarks/harness_checks.py same benchmark train --model unet --patch 64 --steps 5 --blocks 10
    PYTHONPATH=. python benchmarks/harness_checks.py swapped benchmark train --model unet --patch 64 --steps 5 --blocks 10

The first word picks the check; the rest are the arguments of `accelerated-seg`.

- `same` (an A/A test): ours' place runs a second plain loop, built where ours is built, from ours'
  copy of the network. The run's ratio is then plain against plain: anything beyond the spread of
  the blocks is the harness's, not a loop's.
- `swapped`: the two loops trade places. The plain loop gets the first copy of the network, is built
  first, warms up first and runs first in every even round; our loop takes the second of each. A
  lead that follows the loop is the loop's; one that follows the place is the harness's (memory
  placement, the order of first touch).

Each run's JSON gets a `harness_check` entry with what ran in each place and the ratio of the two
loops themselves (`ours_over_plain`: 1.0 for `same` when the harness is fair; for `swapped` the
inverse of the places' ratio). Written in the twenty-second session, when our loop had been 3-8%
ahead of plain at unet 64³ in every one-process record and control run of two sessions
(docs/performance_cpu_sessions.md, 2026-11-25u). Synthetic data, one process or DDP: the real
loader's seed and FSDP2's third loop are outside these checks.
"""

import shlex
import sys

CHECKS = ("same", "swapped")
USAGE = "usage: harness_checks.py same|swapped benchmark train <arguments> (synthetic data)"


def _uses_real_data(arguments: list[str]) -> bool:
    return "--data=real" in arguments or any(a == "--data" and b == "real" for a, b in zip(arguments, arguments[1:]))


def _usage_is_wrong(arguments: list[str]) -> bool:
    return not arguments or arguments[0] not in CHECKS or _uses_real_data(arguments[1:])


# Refused before the benchmark is imported: with it come torch and MONAI, 10-15 s on 2 cores.
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__ + "\n" + USAGE)
    sys.exit(0)
if __name__ == "__main__" and _usage_is_wrong(sys.argv[1:]):
    sys.exit(USAGE)

from accelerated_seg import benchmark, benchmark_train, cli  # noqa: E402  (after the usage check)

PRECISION_OF = {"no": "fp32", "bf16": "bf16", "fp16": "fp16"}  # accelerate's mixed_precision -> ours

build_ours, build_plain = benchmark_train.our_loop, benchmark_train.make_plain_loop
run_ours, run_plain = benchmark_train.run_our_block, benchmark_train.run_block
breakdown_of = benchmark_train.step_breakdown
built_in_ours_place = []  # the plain loops built in ours' place, one per configuration


def _plain_in_ours_place(accelerator, model, dataset, batch, optim=None, workers=0, seed=0, loss_fn=None):
    plain = build_plain(model, dataset, batch, PRECISION_OF[accelerator.mixed_precision], accelerator, optim, workers,
                        loss_fn=loss_fn)
    built_in_ours_place.append(plain)
    return plain


def _ours_in_plain_place(model, dataset, batch, precision, accelerator, optim=None, workers=0, sharded=False,
                         loss_fn=None):
    if sharded:
        raise SystemExit("harness_checks.py: FSDP2's hand-sharded plain loop is outside these checks")
    loop = build_ours(accelerator, model, dataset, batch, optim, workers, loss_fn=loss_fn)
    # What run_block reads of a plain loop: one block is timing.steps steps, the dataset's one pass.
    loop.steps_per_block = len(dataset) // (batch * accelerator.num_processes)
    return loop


def _install(check: str) -> None:
    """Replace the benchmark's loop builders and block runners in its module (it looks them up there
    at each call), so that `_measure_case` itself runs unchanged."""
    if check == "same":
        benchmark_train.our_loop = _plain_in_ours_place
        benchmark_train.run_our_block = lambda loop, steps: run_plain(loop)
    else:
        benchmark_train.our_loop = _plain_in_ours_place
        benchmark_train.make_plain_loop = _ours_in_plain_place
        benchmark_train.run_our_block = lambda loop, steps: run_plain(loop)
        benchmark_train.run_block = lambda loop: run_ours(loop, loop.steps_per_block)
        # The plain loop's phases, timed after the blocks, of the plain loop wherever it ran.
        benchmark_train.step_breakdown = lambda loop, accelerator: breakdown_of(built_in_ours_place[-1], accelerator)


def _annotate(check: str, measure, ratios: list):
    places = ({"first place (labelled ours)": "a second plain loop, on ours' copy",
               "second place (labelled plain)": "the plain loop"} if check == "same" else
              {"first place (labelled ours)": "the plain loop, on the first copy, built and warmed up first",
               "second place (labelled plain)": "our loop (run_loop), on the second copy"})

    def measured(*args, **kwargs):
        results = measure(*args, **kwargs)
        for run in results["runs"]:
            ratio = run["ratio_ours_to_plain"]
            run["harness_check"] = {"check": check, "places": places,
                                    "ours_over_plain": round(ratio if check == "same" else 1 / ratio, 4)}
            if results["is_main_process"]:
                ratios.append(run["harness_check"]["ours_over_plain"])  # printed after the table
        return results
    return measured


def _write_with_this_command(write):
    def written(name, results, output, command=None):  # the CLI's command names accelerated-seg, not this script
        return write(name, results, output,
                     "PYTHONPATH=. python benchmarks/harness_checks.py " + shlex.join(sys.argv[1:]))
    return written


if __name__ == "__main__":
    check = sys.argv[1]  # one of CHECKS, or the usage check above has refused it
    _install(check)
    ratios: list[float] = []
    benchmark_train.benchmark_train = _annotate(check, benchmark_train.benchmark_train, ratios)
    benchmark.write_result = _write_with_this_command(benchmark.write_result)
    code = cli.main(sys.argv[2:])
    what = "plain over plain (1.0 if the harness is fair)" if check == "same" else "ours over plain, places swapped"
    for ratio in ratios:  # the table above labels the places, not the loops
        print(f"{check}: {what}: {ratio:.4f}")
    # Under a launcher, as the CLI's own entry point: the rank leaves with os._exit once all is written, where
    # sys.exit let the gloo threads DDP leaves behind abort it at exit (1 of 4 two-process CPU runs, exit -6).
    cli.end_process(code)
