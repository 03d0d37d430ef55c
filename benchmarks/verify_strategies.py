"""Run the same short training under each accelerate profile, export, reload, compare.

    python benchmarks/verify_strategies.py --resume-check --out benchmarks/results/strategies_<device>.json  # GPU
    python benchmarks/verify_strategies.py --cpu --out /tmp/strategies_cpu.json                        # CPU part

For every profile that fits on this machine, a few training steps are launched through
`accelerate launch` (one process per profile on a single GPU, since NCCL refuses two ranks on one
GPU; on the CPU 2 gloo processes for DDP, for FSDP2 through benchmarks/fsdp_on_cpu.py, which lifts
accelerate's GPU-only gate, and, when DeepSpeed is installed, for ZeRO-2 and ZeRO-3, all in fp32).
Each export (config.json + model.safetensors) is loaded
into the plain MONAI network with strict=True and compared on a fixed input with the reference run:
the first profile, or a single process. Recorded per profile: the strategy the run reports as in
effect (a fallback is a failure here), the export check, the largest output difference, wall time,
and each rank's peak GPU memory when the run reports it; and whether ``accelerated-seg export`` of
the run's last checkpoint, in this process, gives bit for bit the model the run exported
(``checkpoint_export_identical``: every layout, FSDP1's included on a GPU).

``--profiles`` picks some of them; the JSON is rewritten after each profile, and each launch prints a
line when it starts and ends, so a run cut short by a device's time limit keeps what finished and
shows where it was; ``--launch-timeout`` stops a launch that hangs, with the workers it started.

With ``--resume-check`` each profile also saves a training state half way, a second run resumes it
under the same profile (the load_state path where FSDP and DeepSpeed users hit walls) and finishes;
its export is compared with the uninterrupted run's (``resume_max_abs_output_diff``: 0 on the CPU,
small on a GPU where cuDNN and bf16 reductions are not bit-deterministic).

fp32 profiles agree with the reference only to training noise after a few steps (different
reduction orders): ``--tolerance``, 0.05, which a resume is held to as well. bf16 profiles differ
more (FSDP and DeepSpeed cast the parameters themselves to bf16, one process keeps them fp32 under
autocast): on one H200 the profiles' exports differed from one process by 0.08-0.37 after 20
steps, while a resume that lost its optimizer state ended 5.6-5.9 from its own run. So the GPU part
holds profiles to ``--mixed-tolerance``, 1.0, between the two; the exact N-process ≡ 1-process
parity is a CPU test (tests/test_distributed.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (profile, processes, extra environment, what must be reported as in effect)
# A 5th element adds overrides: the same profile with a memory lever on. A 6th runs that script in
# place of examples/train.py (FSDP_ON_CPU).
GPU_PROFILES = [
    ("single_gpu", 1, {}, "single process"),
    ("fsdp_no_shard", 1, {}, "FSDP"),
    ("fsdp_shard_grad_op", 1, {}, "FSDP"),
    ("fsdp_full_shard", 1, {}, "FSDP"),
    ("fsdp2", 1, {}, "FSDP"),
    ("fsdp2_blocks", 1, {}, "FSDP"),
    ("fsdp2_blocks", 1, {}, "FSDP", ["--train.activation_checkpointing=true"]),
    ("deepspeed_zero1", 1, {}, "DeepSpeed"),
    ("deepspeed_zero2", 1, {}, "DeepSpeed"),
    ("deepspeed_zero3", 1, {}, "DeepSpeed"),
    # The export under activation checkpointing: fp32 master weights under the plain network's names.
    ("deepspeed_zero3", 1, {}, "DeepSpeed", ["--train.activation_checkpointing=true"]),
]
CPU_PROFILES = [
    ("cpu", 1, {}, "single process"),
    ("ddp", 2, {"ACCELERATE_USE_CPU": "true"}, "DDP"),
]
# ZeRO really sharded over 2 gloo ranks (strategy.join_deepspeed_ranks_over_gloo). ACCELERATE_USE_CPU
# must be unset (None: removed from the environment), since it switches DeepSpeed off.
CPU_DEEPSPEED_PROFILES = [
    ("deepspeed_zero2", 2, {"ACCELERATE_USE_CPU": None}, "DeepSpeed (DEEPSPEED) on 2 process(es)"),
    ("deepspeed_zero3", 2, {"ACCELERATE_USE_CPU": None}, "DeepSpeed (DEEPSPEED) on 2 process(es)"),
]


# FSDP2 really sharded over 2 gloo processes: accelerate enables FSDP only on GPUs, and
# benchmarks/fsdp_on_cpu.py lifts that gate (and nothing else) around examples/train.py.
TRAIN_SCRIPT = ROOT / "examples" / "train.py"
FSDP_ON_CPU = ROOT / "benchmarks" / "fsdp_on_cpu.py"
CPU_FSDP_PROFILES = [
    ("fsdp2", 2, {"ACCELERATE_USE_CPU": "true"}, "FSDP (FSDP) on 2 process(es)", [], FSDP_ON_CPU),
    ("fsdp2_blocks", 2, {"ACCELERATE_USE_CPU": "true"}, "FSDP (FSDP) on 2 process(es)", [], FSDP_ON_CPU),
]


def cpu_profiles() -> list[tuple]:
    """The CPU part: one process, DDP, FSDP2 (through FSDP_ON_CPU), and the DeepSpeed profiles when
    DeepSpeed is installed."""
    import importlib.util

    return (CPU_PROFILES + CPU_FSDP_PROFILES
            + (CPU_DEEPSPEED_PROFILES if importlib.util.find_spec("deepspeed") else []))


# Seconds one launch may take before it is stopped and recorded as timed out (--launch-timeout); None: no limit.
LAUNCH_TIMEOUT: float | None = None


def run_profile(profile: str, processes: int, env: dict, out: Path, overrides: list[str], fp32: bool = False,
                keep_stdout: bool = False, script: Path = TRAIN_SCRIPT, launch_args: list[str] = ()) -> dict:
    """One launch of ``script``; ``env`` entries override the environment, None removes one; ``fp32``:
    whatever the profile's mixed precision (the CPU part compares every profile with a single fp32
    process); ``keep_stdout``: the run's printed lines in the record (``stdout``); ``launch_args``:
    more options for ``accelerate launch`` (e.g. ``--fsdp_min_num_params 1000``). A line is printed when
    the launch starts and when it ends, so that a run cut short by a time limit shows where it was."""
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(ROOT / "configs" / "accelerate" / f"{profile}.yaml"), "--num_processes", str(processes),
           "--main_process_port", str(29600 + hash(profile) % 300), *launch_args]
    if fp32 or env.get("ACCELERATE_USE_CPU"):
        cmd += ["--mixed_precision", "no"]
    cmd += [str(script), "--no-report", f"--train.output_dir={out}", *overrides]
    if not any(o.startswith("--train.resume") for o in overrides):  # a scratch folder: training refuses to
        shutil.rmtree(out, ignore_errors=True)  # replace an earlier invocation's run there
    environment = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    start, launched_at = time.perf_counter(), time.time()
    print(f"launch {out.name}: {profile}, {processes} process(es)", flush=True)
    proc = _run_bounded(cmd, environment, LAUNCH_TIMEOUT)
    record = {"profile": profile, "processes": processes, "command": " ".join(cmd[2:]), "exit": proc.returncode,
              "wall_s": round(time.perf_counter() - start, 1), **({"stdout": proc.stdout} if keep_stdout else {})}
    print(f"  ended {out.name}: exit {proc.returncode} after {record['wall_s']} s", flush=True)
    if proc.returncode != 0 and aborted_after_finishing(proc.stderr, out / "summary.json", launched_at):
        record["exit"] = 0
        record["aborted_at_exit"] = ("a rank got SIGABRT after the run wrote summary.json: the known gloo teardown "
                                     "abort (docs/strategies.md, 'Known problem'), not a failure of the run")
    if record["exit"] != 0:
        record["error"] = (proc.stderr or proc.stdout)[-2000:]
        return record
    info = json.loads((out / "run_info.json").read_text())
    record["strategy"] = info["strategy"]
    record["strategy_warning"] = info["strategy_warning"]
    summary = out / "summary.json"
    if summary.is_file():
        record["peak_memory_gb"] = json.loads(summary.read_text()).get("peak_memory_gb")
    return record


def _run_bounded(cmd: list[str], environment: dict, timeout: float | None) -> subprocess.CompletedProcess:
    """``cmd`` run to its end, or stopped after ``timeout`` seconds with its whole process group (the
    launcher and the workers it started, which would otherwise hold the GPU), as exit 124. The launch
    has a process group of its own, so that this can stop all of it; it therefore no longer shares
    ours, and when this process is stopped (SIGTERM from ``timeout``, turned into SystemExit by
    ``_exit_on_sigterm``; Ctrl-C) it stops the launch's group itself."""
    with subprocess.Popen(cmd, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            return subprocess.CompletedProcess(cmd, 124, stdout, stderr + f"\ntimed out after {timeout} s")
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _exit_on_sigterm() -> None:
    """SIGTERM (``timeout``'s, a device's time limit) as SystemExit, so that the launch running then is
    stopped with this process (``_run_bounded``) rather than left holding the GPU."""
    def stop(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def aborted_after_finishing(stderr: str, summary: Path, launched_at: float) -> bool:
    """The launch failed only because a rank was aborted at interpreter exit: SIGABRT in the
    launcher's report, and this launch's run had already written its summary (the last file
    ``train`` writes, atomically)."""
    return "Signal 6 (SIGABRT)" in stderr and summary.is_file() and summary.stat().st_mtime >= launched_at


def export_outputs(model_dir: Path, seed: int = 0):
    """Outputs of the plain MONAI network loaded strictly from the export, on a fixed input."""
    import torch
    from safetensors.torch import load_model

    import monai.networks.nets as nets

    config = json.loads((model_dir / "config.json").read_text())
    net = getattr(nets, config["model"]["monai_class"])(**config["model"]["args"])
    load_model(net, model_dir / "model.safetensors", strict=True)  # the README's way: every key, no extra
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1, config["in_channels"], *config["patch_size"], generator=generator)
    with torch.no_grad():
        return net.eval()(x)


def checkpoint_export_identical(out: Path) -> bool:
    """``accelerated-seg export`` of the run's last checkpoint, gathered in this one process from whatever
    layout the launch wrote, is bit for bit the model the run exported (tensors and config.json)."""
    import tempfile

    import torch
    from safetensors.torch import load_file

    from accelerated_seg.checkpoint_export import export_checkpoint

    with tempfile.TemporaryDirectory() as tmp:
        _, exported = export_checkpoint(out, Path(tmp) / "model")
        ours, trained = load_file(exported / "model.safetensors"), load_file(out / "model" / "model.safetensors")
        same_config = json.loads((exported / "config.json").read_text()) == json.loads(
            (out / "model" / "config.json").read_text())
        return same_config and ours.keys() == trained.keys() and all(torch.equal(ours[k], trained[k]) for k in ours)


def verify(profiles, work: Path, overrides: list[str], tolerance: float, steps: int | None = None,
           fp32: bool = False, resume_profiles: set[str] | None = None, after_each=None,
           reference=None) -> list[dict]:
    """Run every profile; with ``steps`` (the run's max_steps) also the resume check, for the profiles
    named in ``resume_profiles`` (default: all); ``fp32`` as in ``run_profile``. Every run with
    ``steps`` saves a training state half way, checked or not. ``after_each(records)`` is called after
    every profile (a run cut short by a time limit keeps what finished). ``reference``: the outputs
    (``export_outputs``) every profile is compared with, of a run made without a launch (a test trains its
    one process in its own, saving that launch's start); by default the first profile's."""
    records = []
    for profile, processes, env, expected, *more in profiles:
        extra = more[0] if more else []
        script = more[1] if len(more) > 1 else TRAIN_SCRIPT
        out = work / "_".join([profile, *(e.lstrip("-").split("=")[0].split(".")[-1] for e in extra)])
        halfway = [f"--train.save_every={steps // 2}", f"--train.keep_last={steps}"] if steps else []
        record = run_profile(profile, processes, env, out, [*overrides, *extra, *halfway], fp32, script=script)
        record["overrides"] = extra
        if script != TRAIN_SCRIPT:
            record["script"] = script.name
        if record["exit"] == 0:
            record["in_effect"] = expected in record["strategy"] and not record["strategy_warning"]
            outputs = export_outputs(out / "model")
            record["export_loads_strict"] = True
            try:  # a layout export cannot gather is a finding of this run, not the end of the others
                record["checkpoint_export_identical"] = checkpoint_export_identical(out)
            except Exception as error:  # noqa: BLE001 - recorded, and fails the check below
                record["checkpoint_export_identical"] = False
                record["checkpoint_export_error"] = f"{type(error).__name__}: {error}"[-2000:]
            if reference is None:
                reference, record["reference"] = outputs, True
            else:
                record["max_abs_output_diff"] = float((outputs - reference).abs().max())
                record["outputs_match"] = record["max_abs_output_diff"] <= tolerance
            if steps and (resume_profiles is None or profile in resume_profiles):
                record.update(resume_check(profile, processes, env, out, [*overrides, *extra, *halfway],
                                           steps // 2, outputs, fp32, script))
        records.append(record)
        print(json.dumps({k: v for k, v in record.items() if k not in ("command", "error")}), flush=True)
        if after_each:
            after_each(records)
    return records


def resume_check(profile: str, processes: int, env: dict, out: Path, overrides: list[str], step: int,
                 uninterrupted, fp32: bool = False, script: Path = TRAIN_SCRIPT) -> dict:
    """Resume the half-way training state of ``out`` in a fresh folder, finish, compare the exports."""
    resumed = out.with_name(out.name + "_resumed")
    shutil.rmtree(resumed, ignore_errors=True)
    shutil.copytree(out / "checkpoints" / f"step_{step}", resumed / "checkpoints" / f"step_{step}")
    record = run_profile(profile, processes, env, resumed, [*overrides, "--train.resume=latest"], fp32, script=script)
    if record["exit"] != 0:
        return {"resume_error": record["error"]}
    diff = float((export_outputs(resumed / "model") - uninterrupted).abs().max())
    return {"resume_max_abs_output_diff": diff, "resume_wall_s": record["wall_s"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", action="store_true",
                        help="the CPU part, in fp32: cpu, then 2 gloo processes of DDP, FSDP2 (fsdp2, fsdp2_blocks) "
                             "and, when DeepSpeed is installed, ZeRO-2 and ZeRO-3")
    parser.add_argument("--work", default="output/verify_strategies")
    parser.add_argument("--out", help="JSON file for the results")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="largest |output difference| accepted: between fp32 profiles, and after a resume")
    parser.add_argument("--mixed-tolerance", type=float, default=1.0,
                        help="largest |output difference| accepted between mixed-precision profiles (the GPU part)")
    parser.add_argument("--resume-check", action="store_true", help="also resume each profile from half way")
    parser.add_argument("--launch-timeout", type=float, metavar="SECONDS",
                        help="stop a launch that takes longer and record it as timed out (exit 124)")
    parser.add_argument("--profiles", nargs="+", metavar="PROFILE",
                        help="only these profiles, by name without .yaml (fsdp2: configs/accelerate/fsdp2.yaml), "
                             "in the list's order; default: all that fit")
    parser.add_argument("overrides", nargs="*", help="extra --section.key=value for every run")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # this checkout's accelerated_seg writes the result
    from accelerated_seg.files import check_script_output

    # its own earlier result is rewritten (as after each profile here), any other file refused
    check_script_output(parser, args.out, result_key="benchmark", kind="strategies", setting="--out")
    _exit_on_sigterm()
    global LAUNCH_TIMEOUT
    LAUNCH_TIMEOUT = args.launch_timeout
    # One global batch for every profile: then all runs train on the same samples per step and their
    # exports are comparable (per-device batch = global / processes).
    overrides = ["--config", str(ROOT / "configs" / "demo.yaml"), f"--train.max_steps={args.steps}",
                 "--train.global_batch_size=4", "--train.batch_size=null",
                 "--train.val_every=0", "--train.save_every=0", "--train.progress_bar=false", "--train.trackers=none",
                 "--optim.warmup_steps=2", *args.overrides]
    profiles = cpu_profiles() if args.cpu else GPU_PROFILES
    if args.profiles:
        unknown = set(args.profiles) - {p[0] for p in profiles}
        if unknown:
            parser.error(f"--profiles: {sorted(unknown)} not among {[p[0] for p in profiles]}")
        profiles = [p for p in profiles if p[0] in args.profiles]

    def write(records):
        from accelerated_seg.benchmark import write_result

        write_result("strategies", {"profiles": records}, args.out,
                     command="python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]))

    records = verify(profiles, Path(args.work), overrides, args.tolerance if args.cpu else args.mixed_tolerance,
                     steps=args.steps if args.resume_check else None, fp32=args.cpu,
                     after_each=write if args.out else None)
    return 0 if all_passed(records, args.tolerance) else 1


def all_passed(records: list[dict], resume_tolerance: float) -> bool:
    """Every launch ended, with its strategy in effect, its export equal to the checkpoint's, its
    outputs within the comparison's tolerance, and its resume within ``resume_tolerance``."""
    return all(r["exit"] == 0 and r.get("in_effect") and r.get("outputs_match", True)
               and r.get("checkpoint_export_identical", True)
               and r.get("resume_max_abs_output_diff", 0.0) <= resume_tolerance for r in records)


if __name__ == "__main__":
    sys.exit(main())
