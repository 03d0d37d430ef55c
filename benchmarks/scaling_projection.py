"""Expected DDP weak-scaling efficiency on 2, 4 and 8 GPUs from a measured one-process step, and the
measured efficiency of N processes where a run under N processes is given.

    python benchmarks/scaling_projection.py --one benchmarks/results/train_2cpu/unet64_1proc_r*.json \\
        --measured benchmarks/results/train_2cpu/unet64_2proc_r*.json --output benchmarks/results/ddp_scaling_2cpu.json

Inputs, all ``accelerated-seg benchmark train`` JSON files (the first configuration in each; several
files are repeats, and medians over them are used):

- ``--one``: one process. Our loop's step time (per-device batch / samples/s), the plain loop's
  backward time (the window DDP can hide its all-reduce in) and the gradient bytes.
- ``--measured`` (optional): the same settings under N processes, on the same machine in the same session (files of
  two sessions are refused: ``refuse_another_session``), repeats in the same order as ``--one``. Gives the measured
  weak-scaling efficiency, global samples/s / (N x one-process samples/s), per repeat pair and from the medians, and
  the all-reduce bus bandwidth measured there, with which the model below is checked against the measurement.
- ``--assume NAME STEP_MS BACKWARD_MS GRADIENT_MB`` (optional, repeatable): a step not measured here,
  e.g. from a published GPU figure; labelled as an assumption in the output.

The model (``accelerated_seg.scaling.weak_scaling_projection``): a ring all-reduce moves
2(N-1)/N x gradient bytes through each GPU's link; without overlap the step grows by all of it;
with DDP's bucketed overlap only what does not fit into backward is exposed, and at least the last
25 MiB bucket. Latency, congestion, and the SMs NCCL takes from compute are left out: an upper bound.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accelerated_seg.benchmark import write_result  # noqa: E402
from accelerated_seg.files import check_script_output  # noqa: E402
from accelerated_seg.scaling import weak_scaling_projection  # noqa: E402

# Bus bandwidth of a large all-reduce (nccl-tests' "busbw") per interconnect, GB/s.
# NVLink 4 on an H100 SXM board: 18 links, 900 GB/s both directions = 450 GB/s each way, through the
# NVSwitch the same for 2, 4 or 8 GPUs of one board; large all-reduces reach about that.
# PCIe Gen5 x16: 64 GB/s each way on paper, about 50 GB/s achievable with peer-to-peer; less when the
# traffic goes through the host or GPUs share a switch uplink.
INTERCONNECTS = {"NVLink 4 (H100 SXM, NVSwitch)": 450.0, "PCIe Gen5 x16": 50.0}
GPU_COUNTS = (2, 4, 8)


def first_runs(paths) -> list[dict]:
    return [json.loads(Path(p).read_text())["runs"][0] for p in paths]


def read_result(parser, option: str, path) -> dict:
    """A `benchmark train` result holding a row at least, or one usage error naming the file, before anything is
    computed (an empty `runs` ended in an IndexError's traceback until the hundred-and-twenty-seventh session)."""
    try:
        result = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        parser.error(f"{option} {path} cannot be read ({type(error).__name__}: {error.strerror or error}); give "
                     "a `benchmark train` JSON")
    except ValueError as error:
        parser.error(f"{option} {path} is no JSON ({error}); give a `benchmark train` JSON")
    if not isinstance(result, dict) or not str(result.get("benchmark", "")).startswith("train_") \
            or not isinstance(result.get("runs"), list):
        parser.error(f"{option} {path} is not a `benchmark train` result (a JSON object with 'benchmark' "
                     "'train_...' and its 'runs'); give one")
    if not result["runs"] or not isinstance(result["runs"][0], dict):
        parser.error(f"{option} {path} holds no run ('runs' is {result['runs']!r}): give a `benchmark train` "
                     "result that measured a configuration at least")
    if lacking := unmeasured(result["runs"][0], option == "--measured"):
        parser.error(f"{option} {path}'s first run records no {', '.join(lacking)} (absent, null or not a positive "
                     "number): give a `benchmark train` result whose first configuration was measured to its end")
    return result


# What the projection and the efficiency read of a file's first run ("--measured" also its all-reduce): absent or
# null, each ended in a TypeError's or KeyError's traceback until the review of the hundred-and-twenty-seventh
# session (r125), and a samples/s of 0 in a ZeroDivisionError's, or an efficiency of 0.0% said as measured.
NUMBERS_READ = ("ours.samples_per_s", "plain.samples_per_s", "plain_step_breakdown_ms.forward_loss",
                "plain_step_breakdown_ms.backward", "processes")
NUMBERS_READ_OF_ONE = ("gradient_bytes", "batch_per_device")  # the projected step's
NUMBERS_READ_OF_SEVERAL = ("allreduce.ms", "allreduce.bus_bandwidth_gb_s")


def unmeasured(run: dict, several: bool) -> list[str]:
    """The fields of NUMBERS_READ, and of NUMBERS_READ_OF_SEVERAL (`several`, --measured) or NUMBERS_READ_OF_ONE
    (--one), that are no positive number."""
    lacking = []
    for field in (*NUMBERS_READ, *(NUMBERS_READ_OF_SEVERAL if several else NUMBERS_READ_OF_ONE)):
        value = run
        for key in field.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            lacking.append(field)
    # A tiny network's all-reduce may be recorded as 0.0 GB/s, rounded (the third session's tiny 16^3 of 2 processes:
    # 7,844 bytes in 50 ms): its bytes and time give it (measured_scaling), and its efficiency is a user's to read.
    bandwidth = run.get("allreduce") or {}
    if "allreduce.bus_bandwidth_gb_s" in lacking and bandwidth.get("bus_bandwidth_gb_s") == 0 \
            and isinstance(bandwidth.get("bytes"), (int, float)) and bandwidth["bytes"] > 0:
        lacking.remove("allreduce.bus_bandwidth_gb_s")
    return lacking


# What every file given must share for an efficiency to mean anything: a process count is all that may differ.
# The hundred-and-twenty-sixth session's walk (h145) paired performance.md's one-process command (2 torch threads)
# with its 2-process gloo command (1 thread each), and this script printed an efficiency of 368.6% without a word.
SAME_IN_THE_RUN = ("model", "model_args", "patch", "batch_per_device", "precision", "lever", "compile", "data",
                   "num_workers", "augment_on", "sharding")
SAME_IN_THE_SETTINGS = ("torch_threads", "in_channels", "classes")
# And the machine: until the review of the hundred-and-twenty-seventh session (r125) the third session's one
# process (a Xeon) against the hundred-and-twenty-seventh's two (an EPYC) read 173.8% without a word, as did an H200
# against H100s. A CPU's are compared where neither file is a GPU's, as torch threads are.
SAME_IN_THE_MACHINE = ("gpu", "cpu", "cpu_family_model", "cpu_capability")
ON_THE_CPU_ALONE = ("torch_threads", "cpu", "cpu_family_model", "cpu_capability")


def what_it_measured(parser, option: str, path) -> dict:
    """The settings an efficiency compares, as the file records them: a key that an older `benchmark train` did not
    record is left out (`lever`, `data`, `num_workers`, `augment_on`, `compile` in the earliest sessions' files)."""
    result = read_result(parser, option, path)
    run, settings, machine = result["runs"][0], result.get("settings") or {}, result.get("machine") or {}
    measured = {**{key: run[key] for key in SAME_IN_THE_RUN if key in run},
                **{key: settings[key] for key in SAME_IN_THE_SETTINGS if key in settings},
                **{key: machine[key] for key in SAME_IN_THE_MACHINE if key in machine},
                "processes": run.get("processes"), "session": session_of(result)}
    if device := re.search(r"device (\w+)", str(run.get("strategy", ""))):  # "device cpu:0", "device cuda"
        measured["device"] = device.group(1)
    return measured


def differences(got: dict, wanted: dict) -> list[str]:
    """The keys whose values differ, a key that one file does not record and the other records as null agreeing
    (both say there was none)."""
    # On a GPU torch's CPU threads do not make the step, and the routine's own pair differs in them: a one-GPU
    # run not launched has the cores' count (16 on the H200 of the forty-sixth session), `accelerate launch` of
    # N GPUs sets OMP_NUM_THREADS=1 where it is unset (r123, the hundred-and-twenty-sixth session's review).
    cuda = "cuda" in (got.get("device"), wanted.get("device"))
    other_network = got.get("model") != wanted.get("model")  # its arguments then say nothing more
    return [key for key in (*SAME_IN_THE_RUN, *SAME_IN_THE_SETTINGS, "device", *SAME_IN_THE_MACHINE)
            if not (key in ON_THE_CPU_ALONE and cuda) and not (key == "model_args" and other_network)
            and got.get(key) != wanted.get(key)]


def refuse_unlike_runs(parser, ones: list[str], manys: list[str]) -> None:
    """One clear error where the files measured other settings than the first --one, or where --one is not one
    process and --measured not several, before anything is computed or written."""
    first = ones[0]
    wanted = what_it_measured(parser, "--one", first)
    for option, paths in (("--one", ones), ("--measured", manys)):
        for path in paths:
            got = what_it_measured(parser, option, path)
            if differ := differences(got, wanted):
                said = [_difference(got, wanted, key) for key in differ]
                # A file of an older session lacks what `benchmark train` has recorded since: until the
                # hundred-and-twenty-seventh session this said "data 'synthetic' against None", and nothing more.
                unrecorded = [f"{where} does not record {', '.join(keys)}" for where, keys in
                              ((path, [key for key in differ if key not in got]),
                               (first, [key for key in differ if key not in wanted])) if keys]
                what_to_do = (f"{' and '.join(unrecorded)}, written by an older `benchmark train`: measure both in "
                              "one session with today's code" if unrecorded
                              else "measure both on one machine, in one session" if set(differ) & {*SAME_IN_THE_MACHINE}
                              else "give files of the same `benchmark train` settings")
                parser.error(f"{option} {path} measured other settings than --one {first} ({'; '.join(said)}): "
                             f"an efficiency needs runs that differ in their number of processes alone; {what_to_do}")
            one_wanted = option == "--one"
            if got["processes"] is not None and (got["processes"] == 1) != one_wanted:
                parser.error(f"{option} {path} is a run of {got['processes']} process(es): --one takes runs of one "
                             "process, --measured runs of several")
            if path != first:
                refuse_another_session(parser, option, path, got, first, wanted)


def _difference(got: dict, wanted: dict, key: str) -> str:
    """`key got against wanted`; of two networks' arguments, those that differ alone (a U-Net's are seven)."""
    if key == "model_args" and isinstance(got.get(key), dict) and isinstance(wanted.get(key), dict):
        mine, theirs = got[key], wanted[key]
        return "; ".join(f"{key} {name} {_value(mine, name)} against {_value(theirs, name)}"
                         for name in sorted({*mine, *theirs}, key=[*mine, *theirs].index)
                         if mine.get(name, ...) != theirs.get(name, ...))
    return f"{key} {_value(got, key)} against {_value(wanted, key)}"


def _value(measured: dict, key: str) -> str:
    """A value as its file has it: JSON's null, not Python's None."""
    if key not in measured:
        return "not recorded"
    return "null" if measured[key] is None else repr(measured[key])


# What a file records of the session that measured it: the `session_<NAME>` folder its command wrote it to
# (cpu_session.sh's SESSION, record_train_cpu.sh's OUT=.../session_<NAME>, since the third session), the day (no time
# of day), the commit of the code measured (since the session 2026-12-02g) and the stack's versions. Until the
# hundred-and-twenty-eighth session two sessions' files of one host CPU passed as one machine's: a pair of other
# code, under another load, days apart.
STACK = ("python", "torch", "cuda", "accelerate", "monai")


def session_of(result: dict) -> dict:
    """The session's name, date, commit (its first 8 characters) and stack, those the file records."""
    machine = result["machine"] if isinstance(result.get("machine"), dict) else {}
    recorded = {key: result[key] for key in ("date",) if key in result}
    if (name := session_name(result.get("command"))) is not None:
        recorded["session"] = name
    if "accelerated_seg_commit" in machine:
        commit = machine["accelerated_seg_commit"]
        recorded["commit"] = re.sub(r"^([0-9a-f]{8})[0-9a-f]{32}", r"\1", commit) if isinstance(commit, str) else commit
    return {**recorded, **{key: machine[key] for key in STACK if key in machine}}


def session_name(command) -> str | None:
    """NAME of the last `session_<NAME>` folder of the command's --output, or None."""
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:  # an unbalanced quote: its words as they stand
        words = command.split()
    outputs = [after for word, after in zip(words, words[1:]) if word == "--output"]
    outputs += [word.removeprefix("--output=") for word in words if word.startswith("--output=")]
    folders = [part for output in outputs[-1:] for part in Path(output).parent.parts if part.startswith("session_")]
    return folders[-1].removeprefix("session_") if folders else None


def _days_apart(got: dict, wanted: dict) -> int:
    """Days between the two files' dates, 0 where either records none or no ISO date."""
    try:
        return abs((date.fromisoformat(got["date"]) - date.fromisoformat(wanted["date"])).days)
    except (KeyError, TypeError, ValueError):
        return 0


def refuse_another_session(parser, option: str, path, got: dict, first, wanted: dict) -> None:
    """One usage error where the files are two sessions' (their session names differ, their dates are more than a day
    apart or their stacks differ), a warning on stderr where they share neither a session name nor a commit, as
    nothing else they record tells one session's pair (a session's own may straddle a commit: 2026-12-07h's did)."""
    mine, theirs = got["session"], wanted["session"]
    stack = [key for key in STACK if key in mine and key in theirs and mine[key] != theirs[key]]
    said = "; ".join(f"{key} {_value(mine, key)} against {_value(theirs, key)}"
                     for key in ("session", "date", "commit", *stack))
    if "cuda" in (got.get("device"), wanted.get("device")):
        how = "the one-GPU run, then its `accelerate launch`, as performance.md's \"Scaling projection\" shows"
    else:
        how = "`SESSION=<date and a letter> bash benchmarks/cpu_session.sh` measures the unet 64³ pair and projects it"
    names = {mine.get("session"), theirs.get("session")}
    if (None not in names and len(names) == 2) or _days_apart(mine, theirs) > 1 or stack:
        parser.error(f"{option} {path} is of another session than --one {first} ({said}): an efficiency needs runs of "
                     f"one session, one code under one load; measure both in one session ({how})")
    commits = {mine.get("commit"), theirs.get("commit")}
    if (len(names) == 1 and None not in names) or (len(commits) == 1 and None not in commits):
        return
    if None not in commits:
        commits_of = [str(of["commit"]).removesuffix("+modified") for of in (theirs, mine)]  # a checkout's changes
        why = (f"their commits differ, as two sessions' do and one session's may (`git diff --stat {commits_of[0]} "
               f"{commits_of[1]} -- accelerated_seg` says whether the code measured differs)")
    else:
        lacking = {where: " and no ".join(what for what, key in (("session name", "session"), ("commit", "commit"))
                                          if of.get(key) is None) for where, of in ((path, mine), (first, theirs))}
        if lacking[path] == lacking[first]:  # both lack the same: said once
            why = f"{path} and {first} record no {lacking[path]}"
        else:
            why = ", ".join(f"{where} records no {what}" for where, what in lacking.items() if what)
        why += " (written by an older `benchmark train`, or to no `session_<NAME>` folder)"
    print(f"{parser.prog}: warning: {option} {path} may be of another session than --one {first} ({said}): {why}; "
          f"taken as one session's: if they are two, measure both in one session ({how})", file=sys.stderr)


def median(values) -> float:
    return float(statistics.median(values))


def measured_step(runs: list[dict]) -> dict:
    """Step, backward and gradient size of one process: medians over repeated runs."""
    run = runs[0]
    sps = median(r["ours"]["samples_per_s"] for r in runs)
    where = str(run.get("strategy")).split(",")  # "single process (NO) on 1 process(es), device cpu, ..."
    return {"name": f"measured: {run['model']} {'x'.join(map(str, run['patch']))} batch {run['batch_per_device']} "
                    f"{run['precision']} ({where[1].strip() if len(where) > 1 else 'device not recorded'})",
            "step_ms": round(1000 * run["batch_per_device"] / sps, 3),
            "backward_ms": median(r["plain_step_breakdown_ms"]["backward"] for r in runs),
            "gradient_bytes": run["gradient_bytes"], "source": f"measured, median of {len(runs)} run(s)"}


def assumed_step(parser, name: str, step: str, backward: str, gradient_mb: str) -> dict:
    """An --assume's step, or one usage error: until the review of the hundred-and-twenty-seventh session (r125) a
    word for a number ended in a ValueError's traceback, and a step of 0, below 0 or NaN printed 0.0%, 397.7% or
    nan%."""
    numbers = {}
    for what, given in (("STEP_MS", step), ("BACKWARD_MS", backward), ("GRADIENT_MB", gradient_mb)):
        try:
            numbers[what] = float(given)
        except ValueError:
            numbers[what] = float("nan")
        if not 0 < numbers[what] < float("inf"):
            parser.error(f"--assume {name}: {what} {given!r} is not a number above 0; give --assume NAME STEP_MS "
                         "BACKWARD_MS GRADIENT_MB, e.g. --assume unet3d_mlperf 28.6 19.1 124.76")
    if numbers["BACKWARD_MS"] > numbers["STEP_MS"]:
        parser.error(f"--assume {name}: BACKWARD_MS {backward} is longer than its step, STEP_MS {step}: the backward "
                     "is a part of the step")
    return {"name": f"assumed: {name}", "step_ms": numbers["STEP_MS"], "backward_ms": numbers["BACKWARD_MS"],
            "gradient_bytes": numbers["GRADIENT_MB"] * 1e6, "source": "assumption, not measured here"}


def projection_rows(step: dict, interconnects: dict[str, float], gpu_counts=GPU_COUNTS) -> list[dict]:
    rows = []
    for link, bus_gb_s in interconnects.items():
        for gpus in gpu_counts:
            p = weak_scaling_projection(step["step_ms"] / 1000, step["backward_ms"] / 1000, step["gradient_bytes"],
                                        gpus, bus_gb_s)
            rows.append({"step": step["name"], "source": step["source"], "interconnect": link, "bus_gb_s": bus_gb_s,
                         "gpus": gpus, "allreduce_ms": p["allreduce_ms"],
                         "efficiency_no_overlap": round(p["efficiency_no_overlap"], 4),
                         "efficiency_overlap": round(p["efficiency_overlap"], 4)})
    return rows


def measured_scaling(ones: list[dict], manys: list[dict]) -> dict:
    """Speedup and weak-scaling efficiency of N processes over one, for our loop and for plain DDP."""
    n = manys[0]["processes"]
    scaling = {"processes": n, "repeats": min(len(ones), len(manys))}
    for loop in ("ours", "plain"):
        one = [r[loop]["samples_per_s"] for r in ones]
        many = [r[loop]["samples_per_s"] for r in manys]
        pairs = [m / (n * o) for o, m in zip(one, many)]  # runs next to each other in time
        scaling[loop] = {"one_process_samples_per_s": one, "n_process_samples_per_s": many,
                         "speedup": round(median(many) / median(one), 3),
                         "efficiency_from_medians": round(median(many) / (n * median(one)), 3),
                         "efficiency_per_repeat": [round(e, 3) for e in pairs],
                         "efficiency_median_of_repeats": round(median(pairs), 3)}
    # Forward carries no communication under DDP (no buffers to broadcast in these networks): its
    # slowdown is what sharing the machine's cores, caches and memory bandwidth costs.
    scaling["plain_forward_ms"] = {"one_process": median(r["plain_step_breakdown_ms"]["forward_loss"] for r in ones),
                                   "n_processes": median(r["plain_step_breakdown_ms"]["forward_loss"] for r in manys)}
    scaling["plain_backward_ms"] = {"one_process": median(r["plain_step_breakdown_ms"]["backward"] for r in ones),
                                    "n_processes": median(r["plain_step_breakdown_ms"]["backward"] for r in manys)}
    scaling["allreduce_ms"] = median(r["allreduce"]["ms"] for r in manys)
    # nccl-tests' bus bandwidth, 2(N-1)/N x bytes / time, from the bytes where the file rounded it to 0.0 GB/s
    scaling["allreduce_bus_gb_s"] = median(
        r["allreduce"]["bus_bandwidth_gb_s"]
        or float(f"{2 * (n - 1) / n * r['allreduce']['bytes'] / r['allreduce']['ms'] / 1e6:.3g}") for r in manys)
    scaling["allreduce_backend"] = manys[0]["allreduce"]["backend"]
    return scaling


def markdown(rows: list[dict]) -> str:
    lines = ["| step | interconnect (bus GB/s) | GPUs | all-reduce ms | efficiency, no overlap | with overlap |",
             "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['step']} | {r['interconnect']} ({r['bus_gb_s']:g}) | {r['gpus']} | {r['allreduce_ms']:g} | "
                     f"{r['efficiency_no_overlap']:.1%} | {r['efficiency_overlap']:.1%} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", nargs="+", required=True, help="benchmark train JSON of one process (repeats)")
    parser.add_argument("--measured", nargs="+", help="the same settings under N processes (repeats, same order)")
    parser.add_argument("--assume", nargs=4, action="append", default=[],
                        metavar=("NAME", "STEP_MS", "BACKWARD_MS", "GRADIENT_MB"),
                        help="a step not measured here (labelled as an assumption)")
    parser.add_argument("--output", help="write inputs, measured scaling and projection as JSON")
    args = parser.parse_args(argv)
    # A session reruns it over its own earlier file (r1 alone, then r1-r3): that is replaced; anything else refused.
    check_script_output(parser, args.output, result_key="projection")

    assumed = [assumed_step(parser, *given) for given in args.assume]
    refuse_unlike_runs(parser, args.one, args.measured or [])
    ones = first_runs(args.one)
    steps = [measured_step(ones), *assumed]
    results = {"inputs": {"one_process": args.one, "measured": args.measured, "steps": steps,
                          "interconnects_bus_gb_s": INTERCONNECTS}}
    if args.measured:
        manys = first_runs(args.measured)
        scaling = results["measured_scaling"] = measured_scaling(ones, manys)
        link = {f"{scaling['allreduce_backend']} here (measured)": scaling["allreduce_bus_gb_s"]}
        check = projection_rows(steps[0], link, (scaling["processes"],))[0]
        results["model_check"] = {**check, "measured_efficiency": scaling["ours"]["efficiency_median_of_repeats"]}
    results["projection"] = [row for step in steps for row in projection_rows(step, INTERCONNECTS)]
    print(markdown(results["projection"]))
    if args.measured:
        check, ours = results["model_check"], results["measured_scaling"]["ours"]
        print(f"\n{check['gpus']} processes here: measured speedup {ours['speedup']}, weak-scaling efficiency "
              f"{ours['efficiency_median_of_repeats']:.1%} (median of repeats; per repeat "
              f"{ours['efficiency_per_repeat']}); the model with the measured {check['bus_gb_s']} GB/s all-reduce "
              f"projects {check['efficiency_overlap']:.1%} with overlap, {check['efficiency_no_overlap']:.1%} without")
    if args.output:
        command = "python benchmarks/scaling_projection.py " + " ".join(sys.argv[1:] if argv is None else argv)
        print(f"wrote {write_result(Path(args.output).stem, results, args.output, command=command)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
