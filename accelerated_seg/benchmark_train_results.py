"""``benchmark train``'s result: the whole of it so far (``sweep_results``), what it was measured under
(``measured_under``: the settings and the launch, which a stopped run's rows must agree with to be kept), what
the plain loop is under this launch (``plain_baseline``), the timed blocks as the row keeps them
(``blocks_recorded``), each loop's figures from them (``loop_figures``; ``loop_summary``: samples/s, TFLOP/s,
MFU, the time and cost of an epoch, peak memory), the steps either loop met with non-finite gradients, ours
against another loop (``ours_against``: the ratio of their rates, block by block, and as a time per step), and
the result said: its file name (``result_name``), its table (``format_table``) and a note where non-finite
steps make a rate unclean (``nonfinite_note``).

The driver (``benchmark_train.py``) assembles each configuration's row from these; nothing here measures.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import asdict
from pathlib import Path

import torch

from .benchmark_train_settings import TimingSettings
from .host_cpu import load_average


def sweep_results(timing: TimingSettings, price_per_gpu_hour, epoch_samples, peak_tflops, load_before,
             runs: list[dict], complete: bool) -> dict:
    """``benchmark_train``'s result for the configurations measured so far."""
    return {**measured_under(timing, price_per_gpu_hour, epoch_samples, peak_tflops),
            "load_average": {"before": load_before, "after": load_average(),
                             "guards": "loops alternate block by block (the order flipping every round) after "
                                       "untimed warm-up; medians of blocks; every block recorded; load average "
                                       "before and after"},
            "complete": complete, "runs": list(runs)}


def measured_under(timing: TimingSettings, price_per_gpu_hour, epoch_samples, peak_tflops) -> dict:
    """The result's ``settings`` and ``launch``: what, beside the command and the machine, decides its rows
    (a stopped run's rows are kept only where they agree: ``results_so_far``)."""
    return {"settings": {**asdict(timing), "price_per_gpu_hour": price_per_gpu_hour, "epoch_samples": epoch_samples,
                         "peak_tflops_given": peak_tflops, "torch_threads": torch.get_num_threads(),
                         "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
                         # glibc's malloc settings decide how often CPU steps page-fault their memory back
                         # (docs/performance_history.md, "Page faults"), so a CPU figure needs them beside it.
                         "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES")},
            "launch": _launch()}


def _launch() -> dict:
    """How the processes were started: the launcher's command line (the parent process of a worker
    under ``accelerate launch``/``torchrun``) and the environment that decides the strategy."""
    import shlex

    launch = {name: os.environ.get(name) for name in ("WORLD_SIZE", "ACCELERATE_USE_CPU", "OMP_NUM_THREADS",
                                                      "ACCELERATE_USE_FSDP", "ACCELERATE_USE_DEEPSPEED")}
    parent = Path(f"/proc/{os.getppid()}/cmdline")
    if "LOCAL_RANK" in os.environ and parent.is_file():  # started by a launcher, even with one process
        launch["launcher_command"] = " ".join(shlex.quote(a) for a in parent.read_text().split("\0") if a)
    return launch


def plain_baseline(accelerator) -> str:
    """What the plain loop is under this launch. It never shards: under FSDP or DeepSpeed the ratio
    is what the sharded strategy costs on top of our loop's own overhead (the issue's >= 0.90 target).
    Under FSDP2 the third loop (``against_plain_fsdp2``) splits that cost between FSDP2 and us."""
    if accelerator.num_processes > 1:
        return (f"torch.nn.parallel.DistributedDataParallel over {accelerator.num_processes} processes "
                "(no sharding), bare forward/loss/backward/clip/step/zero_grad")
    return "the bare network in one process, forward/loss/backward/clip/step/zero_grad"


def loop_summary(name, rates, timeline, flops, peak, processes, price, epoch_samples) -> dict:
    rate = float(statistics.median(rates))
    summary = {"samples_per_s": round(rate, 4), "samples_per_s_blocks": [round(r, 4) for r in rates],
               "achieved_tflops": _significant(flops * rate / 1e12),
               "mfu": _significant(flops * rate / (peak * 1e12 * processes)) if peak else None,
               "epoch_s": round(epoch_samples / rate, 2),
               **_cost(rate, processes, price, epoch_samples)}
    memory = [b for b in timeline if b["loop"] == name and b.get("peak_allocated_gb") is not None]
    summary["peak_allocated_gb"] = max((b["peak_allocated_gb"] for b in memory), default=None)
    summary["peak_above_block_start_gb"] = max((b["peak_above_start_gb"] for b in memory), default=None)
    return summary


def blocks_recorded(timeline: list[dict], warmup: dict) -> dict:
    """Every timed block, as the row keeps it, and the warm-up's seconds."""
    return {"timeline": [{"loop": b["loop"], "block": b["block"], "seconds": round(b["seconds"], 4),
                          "data_wait_s": round(b["data_wait_s"], 4)} for b in timeline],
            # untimed warm-up blocks, whole: with --lever compile, the compilation is in here
            "warmup_s": {name: round(seconds, 4) for name, seconds in warmup.items()}}


def loop_figures(loops: dict, accelerator, timeline: list[dict], samples_per_block: int, flops: int, peak,
                 price, epoch_samples: int) -> dict:
    """The figures of each of ``loops`` (by the names their blocks ran under, in that order): its rate over its
    timed blocks and what follows from it (``loop_summary``), the share of its blocks spent waiting for data, and
    its steps with non-finite gradients."""
    figures = {}
    for name in loops:  # in block order (the timeline flips the loops' order every round)
        rates = [samples_per_block / b["seconds"] for b in sorted(timeline, key=lambda b: b["block"])
                 if b["loop"] == name]
        figures[name] = loop_summary(name, rates, timeline, flops, peak, accelerator.num_processes, price,
                                     epoch_samples)
        own = [b for b in timeline if b["loop"] == name]
        # Share of the block time spent blocked on the next batch (the slowest rank's per block).
        figures[name]["data_wait_pct"] = round(100 * sum(b["data_wait_s"] for b in own)
                                               / sum(b["seconds"] for b in own), 3)
    # Steps with non-finite gradients: ours skips each and runs another in its place, which samples/s
    # does not count; the plain loop steps it anyway. Said per loop, so that a rate they skew is seen.
    for name, loop in loops.items():
        figures[name].update(nonfinite_record(loop, accelerator))
    return figures


def ours_against(ours: dict, other: dict, samples_per_step: int, ratio_name: str) -> dict:
    """Our loop's rate against another loop's (their figures): the ratio of their medians (as ``ratio_name``),
    block by block, and as a time per optimizer step of ``samples_per_step`` samples."""
    per_block = [round(a / b, 4) for a, b in zip(ours["samples_per_s_blocks"], other["samples_per_s_blocks"])]
    step_ms = [1000 * samples_per_step / loop["samples_per_s"] for loop in (ours, other)]
    return {ratio_name: round(ours["samples_per_s"] / other["samples_per_s"], 4), "ratio_per_block": per_block,
            # Each block's pair ran back to back, so their ratio is the least disturbed by load elsewhere.
            "ratio_median_of_blocks": round(float(statistics.median(per_block)), 4),
            # The same as a time: what our loop adds to (or, within noise, saves on) each optimizer step.
            "overhead_ms_per_step": round(step_ms[0] - step_ms[1], 3)}


def _cost(samples_per_s: float, processes: int, price_per_gpu_hour, epoch_samples: int) -> dict:
    """Cost of an epoch and of 1000 samples on ``processes`` devices at ``price_per_gpu_hour`` each."""
    if price_per_gpu_hour is None:
        return {"cost_per_epoch": None, "cost_per_1000_samples": None}
    per_second = price_per_gpu_hour * processes / 3600
    return {"cost_per_epoch": _significant(per_second * epoch_samples / samples_per_s),
            "cost_per_1000_samples": _significant(per_second * 1000 / samples_per_s)}


def _significant(x: float) -> float:
    """Rounded to 4 significant figures: MFU on a CPU and costs of tiny runs are small numbers."""
    return float(f"{x:.4g}")


def nonfinite_record(loop, accelerator) -> dict:
    """The steps ``loop`` met with non-finite gradients: skipped by run_loop's (each consumed its
    batches without advancing the step), stepped anyway by a plain one. (benchmarks/harness_checks.py
    puts either kind of loop in either place.)"""
    if hasattr(loop, "nonfinite_steps"):
        return {"nonfinite_steps": loop.nonfinite_steps}
    return {"skipped_steps": loop.progress.batches_seen // accelerator.gradient_accumulation_steps - loop.progress.step}


def nonfinite_note(run: dict) -> str | None:
    """A line when either loop met non-finite gradients in the run: its rate is then not a clean one."""
    skipped = run["ours"].get("skipped_steps", 0) + run["plain"].get("skipped_steps", 0)
    stepped = run["ours"].get("nonfinite_steps", 0) + run["plain"].get("nonfinite_steps", 0)
    if not (skipped or stepped):
        return None
    return (f"note: {run['model']} {'x'.join(map(str, run['patch']))} {run['precision']}: ours skipped {skipped} "
            f"step(s) with non-finite gradients (and ran another in each one's place), the plain loop stepped "
            f"{stepped} such step(s); the rates and their ratio are not clean")


def result_name(results: dict) -> str:
    """File name stem: train_<device>_<N>proc[_fsdp|_deepspeed], e.g. train_2cpu_1proc or
    train_nvidia-h100-80gb-hbm3_1proc_fsdp."""
    run = results["runs"][0]
    if torch.cuda.is_available() and "cuda" in run["strategy"]:
        device = torch.cuda.get_device_name().lower().replace(" ", "-")
    else:
        device = f"{os.cpu_count()}cpu"
    sharded = {"FSDP": "_fsdp", "DEEPSPEED": "_deepspeed"}.get(run.get("distributed_type"), "")
    return f"train_{device}_{run['processes']}proc{sharded}"


def format_table(results: dict) -> str:
    """One line per configuration: rates, ratio, plain step breakdown, memory, FLOPs, MFU, cost."""
    header = (f"{'model':<14}{'lever':>22}{'patch':>10}{'batch':>6}{'prec':>6}{'procs':>6}{'ours/s':>9}{'plain/s':>9}"
              f"{'ratio':>7}{'wait%':>7}{'data ms':>9}{'fwd ms':>9}{'bwd ms':>9}{'opt ms':>9}{'peak GB':>9}"
              f"{'GFLOP/smp':>10}{'MFU':>9}{'$/1k':>9}")
    lines = [header]
    for run in results["runs"]:
        phases = run["plain_step_breakdown_ms"]
        ours = run["ours"]
        lines.append(
            f"{run['model']:<14}{run['lever']:>22}{'x'.join(map(str, run['patch'])):>10}{run['batch_per_device']:>6}"
            f"{run['precision']:>6}{run['processes']:>6}{ours['samples_per_s']:>9.3f}"
            f"{run['plain']['samples_per_s']:>9.3f}{run['ratio_ours_to_plain']:>7.3f}{ours['data_wait_pct']:>7.2f}"
            f"{phases['data_wait']:>9.2f}{phases['forward_loss']:>9.1f}{phases['backward']:>9.1f}"
            f"{phases['optimizer']:>9.1f}{_or_dash(ours['peak_allocated_gb'], '.2f'):>9}"
            # MFU in significant figures, as the JSON keeps it: on a CPU (--peak-tflops) it is a small number,
            # which three decimals printed as 0.000 (the ninth new user's walk, hundred-and-twenty-sixth session)
            f"{run['flops_per_sample'] / 1e9:>10.2f}{_or_dash(ours['mfu'], '.3g'):>9}"
            f"{_or_dash(ours['cost_per_1000_samples'], '.4f'):>9}")
        if hand := run.get("against_plain_fsdp2"):
            lines.append(f"  plain FSDP2 by hand ({len(hand['units'])} units): "
                         f"{run['plain_fsdp2']['samples_per_s']:.3f}/s; ours/it {hand['ratio_ours_to_plain_fsdp2']:.3f} "
                         f"(median of blocks {hand['ratio_median_of_blocks']:.3f}); "
                         f"it/plain DDP {hand['ratio_plain_fsdp2_to_plain_ddp']:.3f}")
        if run["allreduce"]:
            a = run["allreduce"]
            lines.append(f"  all-reduce of {a['bytes'] / 2**20:.1f} MiB ({a['backend']}): {a['ms']:.2f} ms, "
                         f"bus bandwidth {a['bus_bandwidth_gb_s']:.2f} GB/s")
    return "\n".join(lines)


def _or_dash(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)
