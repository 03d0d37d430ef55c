"""scaling_projection.py driven as a user would, on committed files and on hand-made broken ones: each case's exit
status, the number of lines it wrote to stderr, whether a traceback came, and its last line. Run from the repository
root (r125, the review of h149, the hundred-and-twenty-seventh session):

    python benchmarks/results/review_performance_md_figures_2026-12-07/refusals.py \
        > benchmarks/results/review_performance_md_figures_2026-12-07/refusals_<main|r125>.txt
"""

import contextlib
import copy
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

R = Path("benchmarks/results")
T = R / "train_2cpu"
S = T / "session_2026-12-07h"
H200 = R / "gpu_h200_session_2026-11-27"
H100 = R / "gpu_h100_session_2026-11-23"


spec = importlib.util.spec_from_file_location("scaling_projection", "benchmarks/scaling_projection.py")
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def run(label: str, *args) -> None:
    """main() in this process (a subprocess each costs 7 s of imports here); an exception that escapes it is what a
    user reads as a traceback. The last two cases run the command line itself."""
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = script.main([str(a) for a in args])
        verdict = f"rc {code}"
    except SystemExit as stop:
        verdict = f"rc {stop.code}"
    except Exception as error:  # noqa: BLE001 - what the user would read as a traceback
        verdict = f"TRACEBACK {type(error).__name__}: {error}"
    lines = [line for line in err.getvalue().strip().splitlines() if not line.startswith(("usage:", "  "))]
    last = lines[-1] if lines else (out.getvalue().strip().splitlines() or [""])[-1]
    print(f"- {label}: {verdict}, {len(lines)} line(s) besides the usage\n    {last}")


def command_line(label: str, *args) -> None:
    done = subprocess.run([sys.executable, "benchmarks/scaling_projection.py", *map(str, args)],
                          capture_output=True, text=True)
    print(f"- {label} (the command line): rc {done.returncode}, {'a traceback' if 'Traceback' in done.stderr else 'no traceback'}"
          f"\n{done.stderr}")


def made(folder: Path, name: str, base: Path, change) -> Path:
    """`base` changed in place by `change`, or the text `change` returns."""
    result = copy.deepcopy(json.loads(base.read_text()))
    text = change(result)
    path = folder / name
    path.write_text(text if isinstance(text, str) else json.dumps(result))
    return path


def as_gpu(result: dict, card: str, processes: int) -> dict:
    """An H200's one-process file given the card and the process count (no multi-GPU run is committed)."""
    run0 = result["runs"][0]
    result["machine"]["gpu"] = card
    run0["processes"] = processes
    run0["strategy"] = (f"DDP (MULTI_GPU) on {processes} process(es), device cuda, mixed precision bf16"
                        if processes > 1 else run0["strategy"])
    run0["allreduce"] = {"ms": 1.0, "bus_bandwidth_gb_s": 100.0, "backend": "nccl"}
    run0["ours"]["samples_per_s"] *= processes
    return result


one, two = S / "unet64_1proc_r1.json", S / "unet64_2proc_r1.json"
print("committed files:")
run("today's session, 1 and 2 processes", "--one", one, "--measured", two)
run("the page's command (globs), first session", "--one", *sorted(T.glob("unet64_1proc_r*.json")),
    "--measured", *sorted(T.glob("unet64_2proc_r*.json")))
run("small 32^3 against unet 64^3", "--one", S / "small32_1proc_r1.json", "--measured", two)
run("bf16 1proc against fp32 2proc", "--one", S / "unet64_bf16_1proc.json", "--measured", two)
run("bf16 pair", "--one", S / "unet64_bf16_1proc.json", "--measured", S / "unet64_bf16_2proc.json")
run("another host's 1proc (session_2026-11-22c) against today's 2proc", "--one",
    T / "session_2026-11-22c" / "unet64_1proc_r1.json", "--measured", two)
run("a ddp_scaling result (the script's own output) as --measured", "--one", one, "--measured",
    R / "ddp_scaling_2cpu_unet64.json")
run("an H200 file against a CPU file", "--one", H200 / "train_mlperf_compile_channels_last_b4.json", "--measured", two)
run("an H200 file alone (--one, no --measured)", "--one", H200 / "train_mlperf_compile_channels_last_b4.json")
run("a directory", "--one", one, "--measured", S)
C = R / "cpu_contention" / "session_2026-12-07h" / "r1"
run("the contention control's solo run against its DDP run", "--one", C / "solo_before.json", "--measured",
    C / "ddp_2proc.json")
run("the contention control's summary (another script's JSON)", "--one", one, "--measured", C / "summary.json")

with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    print("\nhand-made (in a temporary folder; names below are theirs):")
    gpu = H200 / "train_mlperf_compile_channels_last_b4.json"
    h200_1 = made(tmp, "h200_1proc.json", gpu, lambda r: as_gpu(r, "NVIDIA H200", 1))
    h200_8 = made(tmp, "h200_8proc.json", gpu, lambda r: as_gpu(r, "NVIDIA H200", 8))
    h100_8 = made(tmp, "h100_8proc.json", gpu, lambda r: as_gpu(r, "NVIDIA H100 80GB HBM3", 8))
    run("H200 1 GPU against H200 8 GPUs", "--one", h200_1, "--measured", h200_8)
    run("H200 1 GPU against H100 8 GPUs (two cards)", "--one", h200_1, "--measured", h100_8)

    def other_host(r):
        r["machine"].update(cpu="Intel(R) Xeon(R) Processor", cpu_family_model="6/207")
    run("today's 1proc against its 2proc on another host CPU", "--one", one, "--measured",
        made(tmp, "xeon_2proc.json", two, other_host))

    def small_net(r):
        r["runs"][0]["model_args"]["channels"] = [8, 16, 32]
        r["runs"][0]["model_args"]["strides"] = [2, 2]
        r["runs"][0]["parameters"] = 35000
        r["runs"][0]["gradient_bytes"] = 140000
    run("2proc of another network under the same name 'unet' (channels [8, 16, 32])", "--one", one, "--measured",
        made(tmp, "small_net_2proc.json", two, small_net))

    def fsdp(r):
        r["runs"][0].update(sharding="FSDP2", distributed_type="FSDP")
    run("2proc sharded (FSDP) against 1proc plain", "--one", one, "--measured", made(tmp, "fsdp_2proc.json", two, fsdp))
    run("no settings", "--one", one, "--measured", made(tmp, "no_settings.json", two, lambda r: r.pop("settings")))
    run("settings null", "--one", one, "--measured", made(tmp, "settings_null.json", two,
                                                          lambda r: r.update(settings=None)))
    run("empty runs", "--one", one, "--measured", made(tmp, "empty.json", two, lambda r: r.update(runs=[])))
    run("runs null", "--one", one, "--measured", made(tmp, "runs_null.json", two, lambda r: r.update(runs=None)))
    run("not JSON", "--one", one, "--measured", made(tmp, "notes.json", two, lambda r: "# notes\n"))
    run("a JSON list", "--one", one, "--measured", made(tmp, "list.json", two, lambda r: "[1, 2]"))
    run("empty file", "--one", one, "--measured", made(tmp, "blank.json", two, lambda r: ""))
    run("missing file", "--one", one, "--measured", tmp / "none.json")
    for key in ("ours", "allreduce", "plain_step_breakdown_ms", "processes", "strategy", "gradient_bytes"):
        run(f"--measured's run with '{key}' null", "--one", one, "--measured",
            made(tmp, f"{key}_null.json", two, lambda r, k=key: r["runs"][0].update({k: None})))
    for key in ("ours", "plain_step_breakdown_ms", "gradient_bytes", "strategy"):
        run(f"--one's run with '{key}' null", "--one", made(tmp, f"one_{key}_null.json", one,
                                                           lambda r, k=key: r["runs"][0].update({k: None})),
            "--measured", two)
    for key in ("ours", "allreduce"):
        run(f"--measured's run without '{key}'", "--one", one, "--measured",
            made(tmp, f"{key}_gone.json", two, lambda r, k=key: r["runs"][0].pop(k)))
    run("--measured's samples/s 0", "--one", one, "--measured", made(
        tmp, "zero.json", two, lambda r: r["runs"][0]["ours"].update(samples_per_s=0.0)))
    run("--one's samples/s 0", "--one", made(tmp, "one_zero.json", one,
                                            lambda r: r["runs"][0]["ours"].update(samples_per_s=0.0)),
        "--measured", two)

command_line("a directory", "--one", one, "--measured", S)
command_line("another host's 1proc against today's 2proc", "--one", T / "session_2026-11-22c" / "unet64_1proc_r1.json",
             "--measured", two)

print("\n--assume NAME STEP_MS BACKWARD_MS GRADIENT_MB (the docstring's, and ddp_scaling_2cpu_unet64.json's command):")
for assumed in (["28.6", "x", "124.76"], ["0", "0", "124.76"], ["-5", "3", "124.76"], ["nan", "19", "124.76"],
                ["28.6", "40", "124.76"], ["28.6", "19.1", "124.76"]):
    run(f"--assume m {' '.join(assumed)}", "--one", one, "--assume", "m", *assumed)
