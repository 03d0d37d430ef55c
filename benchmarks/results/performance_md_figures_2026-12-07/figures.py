"""Every figure docs/performance.md quotes of a measurement, against the file under benchmarks/results/ it names or
implies: the figure computed anew from the file, shown as the page shows it, must be in the page's sentence or cell.
Run from the repository root (the hundred-and-twenty-seventh session, helper h149):

    python benchmarks/results/performance_md_figures_2026-12-07/figures.py > \
        benchmarks/results/performance_md_figures_2026-12-07/figures_<main|after>.txt

Each line: OK, MISMATCH (the file's figure is not in the page's text), NOT ON PAGE (the page does not say the
file's figure in the words checked: a figure that differs, or one reworded), NO FILE (the file the page names or implies is not in the repository). LEAD marks a line the
lead edits this session (reported, not mended here).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

ROOT = Path.cwd()
R = ROOT / "benchmarks" / "results"
PAGE = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
LEAD_WORDS = ("rows so far", "| AMD EPYC", "sessions on seven", "hundred-and-twenty-sixth", "hundred-and-twenty-seventh",
              "Every session at a glance")
counts = {"OK": 0, "MISMATCH": 0, "NOT ON PAGE": 0, "NO FILE": 0}


def d(value, places: int) -> str:
    """As the page rounds: half to even on the decimal the file holds."""
    return str(Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def pct(value, places: int = 1) -> str:
    return d(100 * value, places)


def load(path: str) -> dict:
    return json.loads((R / path).read_text(encoding="utf-8"))


def rows(path: str) -> list[dict]:
    return load(path)["runs"]


def row(path: str, lever: str = "none", **where) -> dict:
    return next(r for r in rows(path) if r.get("lever") == lever and all(r.get(k) == v for k, v in where.items()))


def sps(path: str, lever: str = "none", loop: str = "ours", **where) -> float:
    return row(path, lever, **where)[loop]["samples_per_s"]


def check(where: str, text: str, figures: list[str], files: list[str]) -> None:
    """``text``: words of the page (whitespace folded); each of ``figures`` must be in it."""
    missing_files = [f for f in files if not (R / f).exists()]
    lead = " LEAD" if any(w in text for w in LEAD_WORDS) else ""
    if missing_files:
        verdict = "NO FILE"
    elif text not in PAGE:
        verdict = "NOT ON PAGE"
    elif wrong := [f for f in figures if f not in text]:
        verdict = "MISMATCH"
        text = f"{text}  <- the files give {wrong}"
    else:
        verdict = "OK"
    counts[verdict] += 1
    print(f"{verdict}{lead} [{where}] {text[:300]} :: {', '.join(figures)} :: {', '.join(files or ['-'])}"
          + (f" (missing: {missing_files})" if missing_files else ""))


def span(values, places: int, sep: str = "–") -> str:
    low, high = d(min(values), places), d(max(values), places)
    return low if low == high else f"{low}{sep}{high}"


# ---------------------------------------------------------------------------------------------------------------
# The page's own inventory of the leases.
gpu_folders = sorted(p.name for p in R.glob("gpu_h*_session_*") if p.is_dir())
check("intro", "(two H100 and four H200 leases)",
      ["two H100 and four H200"] if ([f[:8] for f in gpu_folders].count("gpu_h100"),
                                      [f[:8] for f in gpu_folders].count("gpu_h200")) == (2, 4) else ["?"],
      gpu_folders)

# Where we stand: the targets table (the GPU figures the claims test checks are left to it; the rest here).
H200_27 = "gpu_h200_session_2026-11-27/"
one_gpu_27 = [r["ratio_ours_to_plain"] for f in ("train_mlperf_compile_channels_last_b4.json",
                                                  "train_mlperf_norm_layout_compiled_b4.json",
                                                  "train_mlperf_norm_layout_eager_b4.json") for r in rows(H200_27 + f)]
H100_23 = "gpu_h100_session_2026-11-23/"
h100_levers = [r["ratio_ours_to_plain"] for f in ("train_mlperf_b4.json", "train_mlperf_levers_b2.json",
                                                   "train_mlperf_precisions_b2.json") for r in rows(H100_23 + f)]
check("targets", "**0.999–1.000** (H200, four configurations of the MLPerf U-Net); 0.986–1.001 over every precision "
      "and lever (H100)", [f"**{span(one_gpu_27, 3)}** (H200, {['', 'one', 'two', 'three', 'four'][len(one_gpu_27)]}",
                           f"{span(h100_levers, 3)} over every"],
      [H200_27 + "train_mlperf_compile_channels_last_b4.json", H100_23 + "train_mlperf_levers_b2.json"])
plans = [load(f"{H100_23}plan_mlperf_b{b}.json")["measured_on_one_gpu"]["relative_error"] for b in (1, 2, 4)]
check("targets", "| `plan` within 15% of the measured peak | +1.2% to +4.3% (H100) |",
      [f"+{pct(min(plans))}% to +{pct(max(plans))}%"], [f"{H100_23}plan_mlperf_b{b}.json" for b in (1, 2, 4)])
strategies = {p["profile"]: p for f in ("strategies_h200.json", "strategies_h200_deepspeed.json")
              for p in load("gpu_h200_session_2026-11-30/" + f)["profiles"]}
check("targets", "FSDP1 trained, exported and resumed (H200), its ratio not measured",
      ["FSDP1 trained, exported and resumed"] if all(
          strategies[p]["export_loads_strict"] and "resume_max_abs_output_diff" in strategies[p]
          for p in ("fsdp_no_shard", "fsdp_shard_grad_op", "fsdp_full_shard")) else ["?"],
      ["gpu_h200_session_2026-11-30/strategies_h200.json"])

# The DDP and scaling rows and the session rows are the lead's this session: checked, reported.
sessions = sorted(p.name for p in (R / "train_2cpu").glob("session_*") if (p / "unet64_2proc_r1.json").exists())
newest = sessions[-1]
newest_ordinal = re.findall(rf"^## {newest.removeprefix('session_')} \((\S+) session\)",
                            (ROOT / "docs" / "performance_cpu_sessions.md").read_text(encoding="utf-8"), re.M)[0]
run2 = load(f"train_2cpu/{newest}/unet64_2proc_r1.json")["runs"][0]
check("targets (lead)", f"**{d(run2['ratio_ours_to_plain'], 3)}** in the {newest_ordinal} session "
      f"(per-block median {d(run2['ratio_median_of_blocks'], 3)})", [d(run2["ratio_ours_to_plain"], 3)],
      [f"train_2cpu/{newest}/unet64_2proc_r1.json"])
scaling = load(f"ddp_scaling_2cpu_unet64_{newest}.json")
check("targets (lead)", f"2 CPU processes measured "
      f"{pct(scaling['measured_scaling']['ours']['efficiency_median_of_repeats'])}% against a projected "
      f"{pct(scaling['model_check']['efficiency_overlap'])}% ({newest_ordinal} session",
      [pct(scaling["model_check"]["efficiency_overlap"])], [f"ddp_scaling_2cpu_unet64_{newest}.json"])

# GPU results: each lease in brief.
lev = H100_23 + "train_mlperf_levers_b2.json"
check("leases: fourteenth", f"defaults {d(sps(lev), 1)} samples/s; `train.compile` {d(sps(lev, 'compile'), 1)} "
      f"(batch 2), {d(sps(H100_23 + 'train_mlperf_b4.json', 'compile'), 1)} (batch 4: "
      f"{d(Decimal(d(sps(H100_23 + 'train_mlperf_b4.json', 'compile'), 2)) / 70, 2)} of 70)", [], [lev])
fsdp2_h100 = [rows(H100_23 + f)[0]["ratio_ours_to_plain"] for f in
              ("train_mlperf_fsdp.json", "train_mlperf_fsdp2_blocks_r1.json", "train_mlperf_fsdp2_blocks_r2.json")]
check("leases: fourteenth", f"ours/plain {span(h100_levers, 3)} in every precision and lever; FSDP2 "
      f"{span(fsdp2_h100, 2)}, ZeRO-2 {d(rows(H100_23 + 'train_mlperf_deepspeed_zero2.json')[0]['ratio_ours_to_plain'], 2)}"
      f", ZeRO-3 {d(rows(H100_23 + 'train_mlperf_deepspeed_zero3.json')[0]['ratio_ours_to_plain'], 2)}; data wait "
      f"{d(row(H100_23 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 1)}% before the "
      f"one-pass loader; `plan` +{pct(min(plans))}–{pct(max(plans))}%", [],
      [H100_23 + "train_mlperf_fsdp.json", H100_23 + "train_mlperf_realdata_augment_gpu_w8.json"])
def passed_of_all(log: str) -> str:
    """pytest's last line as "passed of all run" (r125: "N of N" from the passed count alone said nothing of a
    failure)."""
    last = re.findall(r"^\W*(\d+ (?:passed|failed).*?) in [\d.]+ ?s", (R / log).read_text(), re.M)[-1]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|error)", last)}
    return f"{counts.get('passed', 0)} of {sum(counts.values())}"


check("leases: fourteenth", f"CUDA tests {passed_of_all(H100_23 + 'cuda_tests.log')}", [], [H100_23 + "cuda_tests.log"])

H200_26 = "gpu_h200_session_2026-11-26/"
h200_26_ratios = [r["ratio_ours_to_plain"] for f in sorted((R / H200_26).glob("train_*.json"))
                  for r in rows(str(f.relative_to(R)))]
check("leases: twenty-eighth", f"defaults {d(sps(H200_26 + 'train_mlperf_cudnn_benchmark.json'), 1)}; compile "
      f"{d(sps(H200_26 + 'train_mlperf_target_b4.json', 'compile'), 1)} (batch 4), with channels-last at batch 8 "
      f"{d(sps(H200_26 + 'train_mlperf_target_b8.json', 'compile+channels_last'), 2)}; data wait "
      f"**{d(row(H200_26 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 2)}%**; ours/plain "
      f"{span(h200_26_ratios, 3)}", [], [H200_26 + "train_mlperf_target_b8.json"])
check("leases: twenty-eighth", "CUDA graphs failed with gradient accumulation inside torch",
      ["failed"] if "failed" in (R / H200_26 / "cuda_tests.log").read_text() else ["?"], [H200_26 + "cuda_tests.log"])

H200_26B = "gpu_h200_session_2026-11-26b/"
kernels = (R / H200_26B / "logs" / "kernels.log").read_text().splitlines()
top = next(line for line in kernels if "elementwise_kernel" in line).split()
check("leases: thirtieth", f"CUDA tests {passed_of_all(H200_26B + 'cuda_tests.log')}; "
      f"{d(float(top[-2].rstrip('%')), 0)}% of a compiled step in one ATen copy kernel "
      f"({d(float(top[-1]), 0)} launches)", [], [H200_26B + "logs/kernels.log", H200_26B + "cuda_tests.log"])
check("leases: thirtieth", f"FSDP2 {d(rows(H200_26B + 'train_mlperf_fsdp.json')[0]['ratio_ours_to_plain'], 3)}, "
      f"ZeRO-2 {d(rows(H200_26B + 'train_mlperf_deepspeed_zero2.json')[0]['ratio_ours_to_plain'], 3)}", [],
      [H200_26B + "train_mlperf_fsdp.json"])
behind = []
for name in ("bf16", "bf16_tta_none", "fp16", "fp32", "fp32_tta_none"):
    cuda = load(f"{H200_26B}infer_{name}.json")["devices"]["cuda"]
    behind.append(1000 / cuda["ours"]["volumes_per_s"] - 1000 / cuda["monai_sliding_window_inference"]["volumes_per_s"])
check("leases: thirtieth", "prediction 43–56 ms a volume behind MONAI's bare window",
      [f"{span(behind, 0)} ms"], [f"{H200_26B}infer_{n}.json" for n in ("bf16", "fp32")])
print(f"   (the H200's five infer files: ours behind MONAI's bare window by {[round(b, 1) for b in behind]} ms a volume)")

H100_26 = "gpu_h100_session_2026-11-26/"
same = [load(f"{H100_26}infer_{n}.json")["devices"]["cuda"]["ratio_ours_to_monai_same_output"]
        for n in ("bf16", "bf16_tta_none", "fp16", "fp32", "fp32_tta_none")]
target = H100_26 + "train_mlperf_target_b4.json"
check("leases: thirty-fourth", f"compile + channels-last, batch 4: {d(sps(target, 'compile+channels_last'), 2)} "
      f"({d(Decimal(d(sps(target, 'compile+channels_last'), 2)) / 70, 2)} of 70); compiled FSDP2 "
      f"{d(row(H100_26 + 'train_mlperf_fsdp_compile.json', 'compile')['ratio_ours_to_plain'], 3)}", [], [target])
check("leases: thirty-fourth", f"data wait {d(row(H100_26 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 2)}%; "
      f"prediction {span(same, 3)} of MONAI doing the same work; the folder pipeline "
      f"{d(load(H100_26 + 'predict_pipeline.json')['ratio_pipelined_to_sequential'], 2)}×", [],
      [H100_26 + "predict_pipeline.json"])

blocks = rows(H200_27 + "train_mlperf_fsdp2_blocks.json")[0]
check("leases: forty-sixth", f"**{d(sps(H200_27 + 'train_mlperf_compile_channels_last_b4.json', 'compile+channels_last'), 2)}** "
      f"(compile + channels-last, batch 4), ours/plain {span(one_gpu_27, 3)}", [], [H200_27])
check("leases: forty-sixth", f"`fsdp2_blocks.yaml` {d(blocks['ratio_ours_to_plain'], 3)}, ZeRO-3 "
      f"{d(rows(H200_27 + 'train_mlperf_deepspeed_zero3.json')[0]['ratio_ours_to_plain'], 3)}", [],
      [H200_27 + "train_mlperf_fsdp2_blocks.json"])
print(f"   (fsdp2_blocks.yaml on the H200: ratio_ours_to_plain {blocks['ratio_ours_to_plain']}, "
      f"ratio_median_of_blocks {blocks['ratio_median_of_blocks']}, samples/s {blocks['ours']['samples_per_s']} / "
      f"{blocks['plain']['samples_per_s']})")
on_device = load(H200_27 + "predict_pipeline_on_device.json")["pipelined"]["cases_per_s"]
on_host = load(H200_27 + "predict_pipeline.json")["pipelined"]["cases_per_s"]
check("leases: forty-sixth", "prediction with the transforms on the GPU (the default there since) 4.6× the cases/s",
      [f"{d(on_device / on_host, 1)}× the cases/s"], [H200_27 + "predict_pipeline_on_device.json"])

S30 = "gpu_h200_session_2026-11-30/"
fsdp1 = [strategies[p]["resume_max_abs_output_diff"] for p in ("fsdp_no_shard", "fsdp_shard_grad_op", "fsdp_full_shard")]
check("leases: sixty-fourth", f"resumed from step 10 of 20 (one process {d(strategies['single_gpu']['resume_max_abs_output_diff'], 4)} "
      f"from its uninterrupted run, FSDP2 {d(strategies['fsdp2']['resume_max_abs_output_diff'], 4)} and "
      f"{d(strategies['fsdp2_blocks']['resume_max_abs_output_diff'], 4)}, ZeRO-2 "
      f"{float(strategies['deepspeed_zero2']['resume_max_abs_output_diff'])}, ZeRO-3 "
      f"{strategies['deepspeed_zero3']['resume_max_abs_output_diff']:.1e}".replace("e-06", "e-6") + "); FSDP1 resumed "
      f"{span(fsdp1, 1)} from it", [], [S30 + "strategies_h200.json", S30 + "strategies_h200_deepspeed.json"])
tests_64 = re.search(r"(\d+) passed", " ".join(p.read_text() for p in (R / S30 / "logs").glob("*"))
                     + json.dumps(load(S30 + "session.json")))
check("leases: sixty-fourth", f"CUDA tests {tests_64[1]} passed", [], [S30 + "session.json"])

# The bullets under the leases: the layout copies and the backward's share.
check("leases: bullets", "with it 53 bf16 copies, 20%",
      ["53 bf16 copies"], [H100_26 + "logs/kernels_compile+channels_last.log"])

# torch.compile
fc = H100_26 + "train_mlperf_fsdp_compile.json"
check("torch.compile", f"Compiled FSDP2 ran at {d(sps(fc, 'compile'), 2)} samples/s against {d(sps(fc), 2)} eager on "
      "the H100 (`gpu_h100_session_2026-11-26/train_mlperf_fsdp_compile.json`)", [], [fc])
check("torch.compile", "12.8 s warm (`train_2cpu/compile_unet64_1proc.json`)",
      [f"{d(row('train_2cpu/compile_unet64_1proc.json', 'compile')['warmup_s']['ours'], 1)} s warm"],
      ["train_2cpu/compile_unet64_1proc.json"])

# bf16 and fp16 on a CPU
emu = load("cpu_bf16_emulation_2cpu.json")["results"]
by_isa = {isa: [r["bf16_over_fp32"] for r in emu if r["onednn_max_cpu_isa"] == isa] for isa in ("none", "AVX512_CORE", "AVX2")}
check("bf16 on a CPU", f"took {span(by_isa['AVX512_CORE'], 1)}× fp32's time with AVX-512 and "
      f"{span(by_isa['AVX2'], 0)}× with AVX2, where AVX512-BF16 made it {span(by_isa['none'], 2)}×", [],
      ["cpu_bf16_emulation_2cpu.json"])
demo = load("demo_bf16_vs_fp32_2cpu_session_2026-11-30b.json")["runs"]
check("bf16 on a CPU", f"({d(demo['bf16']['wall_s'], 1)} s and {d(demo['bf16']['validation_mean_dice']['600'], 3)} "
      f"against {d(demo['fp32']['wall_s'], 1)} s and {d(demo['fp32']['validation_mean_dice']['600'], 3)}:", [],
      ["demo_bf16_vs_fp32_2cpu_session_2026-11-30b.json"])
fp16 = [r["fp16_over_fp32"] for r in load("cpu_fp16_2cpu.json")["results"]]
check("bf16 on a CPU", f"its step took {span(fp16, 0)}× fp32's even on an AVX512-BF16 CPU", [], ["cpu_fp16_2cpu.json"])
two = load("cpu_bf16_two_voxels_2cpu.json")["runs"]
worst = max(r["garbage"] / r["calls"] for r in two)
check("bf16 on a CPU", f"came back as garbage or inf in up to {100 * worst:g}% of calls", [],
      ["cpu_bf16_two_voxels_2cpu.json"])
readme = (R / "bf16_cpu_two_voxel_runs_2026-11-30d" / "README.md").read_text()
before = [p for p in sorted((R / "bf16_cpu_two_voxel_runs_2026-11-30d").glob("before_*.log"))]
after = [p for p in sorted((R / "bf16_cpu_two_voxel_runs_2026-11-30d").glob("after_*.log"))]
nan_before = sum("nan" in p.read_text().lower() for p in before)
check("bf16 on a CPU", f"went NaN within ten steps in {nan_before} runs of {len(before)}", [],
      ["bf16_cpu_two_voxel_runs_2026-11-30d/README.md"])
check("bf16 on a CPU", f"(the non-finite step guard: {len(after)} runs of {len(after)} finish)", [],
      ["bf16_cpu_two_voxel_runs_2026-11-30d/README.md"])

# Sharded strategies
fsdp2_h200 = [rows(H200_26B + "train_mlperf_fsdp.json")[0]["ratio_ours_to_plain"], blocks["ratio_ours_to_plain"]]
cpu_fsdp2 = [rows(str(p.relative_to(R)))[0]["ratio_ours_to_plain"]
             for folder in ("session_2026-11-22f", "session_2026-11-22g")
             for p in sorted((R / "train_2cpu" / folder).glob("unet64_fsdp2*_2proc.json"))]
check("sharded", f"| FSDP2 (`fsdp.yaml`, `fsdp2_blocks.yaml`) | {span(fsdp2_h200, 3)} (H200), {span(fsdp2_h100, 2)} "
      f"(H100); compiled {d(row(fc, 'compile')['ratio_ours_to_plain'], 3)} | {span(cpu_fsdp2, 2)} |", [],
      [H200_26B + "train_mlperf_fsdp.json", H200_27 + "train_mlperf_fsdp2_blocks.json",
       "train_2cpu/session_2026-11-22f/unet64_fsdp2_2proc.json"])
E, D = "train_2cpu/session_2026-11-22e/", "train_2cpu/session_2026-11-22d/"
check("sharded", f"| ZeRO-2 | {d(rows(H200_26B + 'train_mlperf_deepspeed_zero2.json')[0]['ratio_ours_to_plain'], 3)} (H200), "
      f"{d(rows(H100_23 + 'train_mlperf_deepspeed_zero2.json')[0]['ratio_ours_to_plain'], 3)} (H100) | "
      f"{d(rows(E + 'unet64_zero2_2proc.json')[0]['ratio_ours_to_plain'], 2)} "
      f"({d(rows(D + 'unet64_zero2_1proc.json')[0]['ratio_ours_to_plain'], 2)} in one process)", [],
      [E + "unet64_zero2_2proc.json", D + "unet64_zero2_1proc.json"])
check("sharded", f"| ZeRO-3 | {d(rows(H200_27 + 'train_mlperf_deepspeed_zero3.json')[0]['ratio_ours_to_plain'], 3)} (H200), "
      f"{d(rows(H100_23 + 'train_mlperf_deepspeed_zero3.json')[0]['ratio_ours_to_plain'], 3)} (H100) | "
      f"{d(rows(E + 'unet64_zero3_leaf_blocks_2proc.json')[0]['ratio_ours_to_plain'], 2)} with blocks gathered whole "
      f"(the default; {d(rows(E + 'unet64_zero3_leaf_blocks_1proc.json')[0]['ratio_ours_to_plain'], 2)} in one process), "
      f"{d(rows(E + 'unet64_zero3_2proc.json')[0]['ratio_ours_to_plain'], 2)} with every layer hooked", [],
      [E + "unet64_zero3_2proc.json", E + "unet64_zero3_leaf_blocks_2proc.json"])
raw = [load(f"{E}deepspeed_without_accelerate_unet{n}.json") for n in (32, 64)]
host2 = [r["step_ms_median"]["zero2"] - r["step_ms_median"]["plain"] for r in raw]
host3 = [r["step_ms_median"]["zero3"] - r["step_ms_median"]["plain"] for r in raw]
calls = raw[1]["python_calls_per_step"]
check("sharded", "DeepSpeed's: about 40 ms of host work a step on the CPU", ["about 40 ms"] if all(
    35 <= h <= 45 for h in host2) else [f"{[round(h) for h in host2]} ms"], [E + "deepspeed_without_accelerate_unet64.json"])
check("sharded", "DeepSpeed's: about 150 ms of host work a step, which a GPU does not shrink", ["about 150 ms"] if all(
    135 <= h <= 165 for h in host3) else [f"{[round(h) for h in host3]} ms"], [E + "deepspeed_without_accelerate_unet64.json"])
check("sharded", f"hooks around every module, {int(calls['zero3'] / calls['plain'])} times the plain loop's Python calls "
      "a step", [], [E + "deepspeed_without_accelerate_unet64.json"])
check("sharded", f"one fetch per block instead of one per layer "
      f"({round(100 * (1 - calls['zero3_leaf_blocks'] / calls['zero3']), -1):.0f}% fewer Python calls)",
      [], [E + "deepspeed_without_accelerate_unet64.json"])

# CPU results: the networks' sizes.
first = {size: rows(f"train_2cpu/{size}_1proc_r1.json")[0] for size in ("unet64", "small32", "tiny16")}
check("CPU results", f"(`channels 16…256`, {d(first['unet64']['parameters'] / 1e6, 2)} M parameters, "
      f"{d(first['unet64']['flops_per_sample'] / 1e9, 2)} GFLOP per sample)", [], ["train_2cpu/unet64_1proc_r1.json"])
check("CPU results", f"a small U-Net (`channels [8, 16, 32]`, {round(first['small32']['parameters'] / 1e3)} k parameters) "
      f"at 32³; and a tiny one (`channels [4, 8]`, {first['tiny16']['parameters']:,} parameters)", [],
      ["train_2cpu/small32_1proc_r1.json", "train_2cpu/tiny16_1proc_r1.json"])
check("the MLPerf U-Net", f"(`unet3d_mlperf`, {d(rows(H200_27 + 'train_mlperf_compile_channels_last_b4.json')[0]['parameters'] / 1e6, 2)} M parameters)",
      [], [H200_27 + "train_mlperf_compile_channels_last_b4.json"])

# benchmark data's speedup by --batches
bd = {n: load(f"probes_2cpu_2026-11-30g/benchmark_data/d_{n}.json")["speedup_steady_state"] for n in (1, 30)}
check("benchmark data", f"(16³ phantoms: {d(bd[1], 0)}× at `--batches 1`, {d(bd[30], 1)}× at 30;", [],
      ["probes_2cpu_2026-11-30g/benchmark_data/d_1.json", "probes_2cpu_2026-11-30g/benchmark_data/d_30.json"])

# Scaling projection
proj = load("ddp_scaling_2cpu_unet64.json")
steps = proj["inputs"]["steps"]
check("scaling", f"Inputs: the measured CPU step (unet 64³, {d(steps[0]['step_ms'], 0)} ms, backward "
      f"{d(steps[0]['backward_ms'], 0)} ms, {d(steps[0]['gradient_bytes'] / 1e6, 1)} MB of gradients)", [],
      ["ddp_scaling_2cpu_unet64.json"])
check("scaling", f"the MLPerf U-Net ({d(steps[1]['gradient_bytes'] / 1e6, 2)} MB of fp32 gradients)", [],
      ["ddp_scaling_2cpu_unet64.json"])
check("scaling", f"a {steps[1]['step_ms']} ms step at batch 2 per GPU, {steps[2]['step_ms']} ms at batch 1", [],
      ["ddp_scaling_2cpu_unet64.json"])
for label, step_index in (("batch 2 (28.6 ms)", 1), ("batch 1 (14.3 ms)", 2)):
    here = [r for r in proj["projection"] if r["step"] == steps[step_index]["name"]]
    lines = []
    for link, name in (("NVLink", "NVLink 450"), ("PCIe", "PCIe 50")):
        for key, words in (("efficiency_no_overlap", "no overlap"), ("efficiency_overlap", "with overlap")):
            cells = " | ".join(f"{pct(r[key])}%" for r in here if r["interconnect"].startswith(link))
            lines.append(f"| … {words} | {name} | {cells} |")
    lines[0] = lines[0].replace("| … no overlap", f"| assumed: unet3d_mlperf 128³, {label}, no overlap")
    check("scaling table", " ".join(lines), [], ["ddp_scaling_2cpu_unet64.json"])
measured_rows = [r for r in proj["projection"] if r["step"] == steps[0]["name"]]
whole = {r["gpus"]: [] for r in measured_rows}
for r in measured_rows:  # NVLink first, then PCIe; the page writes 100.0% as 100%
    whole[r["gpus"]].append(f"{pct(r['efficiency_overlap']).removesuffix('.0') if pct(r['efficiency_overlap']) == '100.0' else pct(r['efficiency_overlap'])}%")
cells = " | ".join(" / ".join(pair) for pair in whole.values())
check("scaling table", f"| measured CPU step, unet 64³ ({d(steps[0]['step_ms'], 0)} ms) | NVLink 450 / PCIe 50 | {cells} |",
      [], ["ddp_scaling_2cpu_unet64.json"])
ar = {link: [d(r["allreduce_ms"], 2 if link == "NVLi" else 1) for r in proj["projection"]
             if r["step"] == steps[1]["name"] and r["interconnect"].startswith(link)] for link in ("NVLi", "PCIe")}
check("scaling", f"All-reduce per step for the MLPerf U-Net: {' / '.join(ar['NVLi'])} ms on NVLink, "
      f"{' / '.join(ar['PCIe'])} ms on PCIe", [], ["ddp_scaling_2cpu_unet64.json"])

# Levers, CPU column
comp = "train_2cpu/compile_unet64_1proc.json"
check("levers: compile", f"**+{pct(sps(comp, 'compile') / sps(comp) - 1, 0)}%** ({d(sps(comp, 'compile'), 3)} against "
      f"{d(sps(comp), 3)}); warm-up {d(row(comp, 'compile')['warmup_s']['ours'], 1)} s with inductor's cache warm",
      [], [comp])
ccl = "train_2cpu/session_2026-11-23o/compile_channels_last_unet64_1proc.json"
check("levers: compile+channels_last", f"**+{pct(sps(ccl, 'compile+channels_last') / sps(ccl, 'compile') - 1, 0)}%** "
      f"over compile alone ({d(sps(ccl, 'compile+channels_last'), 3)} against {d(sps(ccl, 'compile'), 3)})", [], [ccl])
lv = "train_2cpu/levers_unet64_1proc.json"
check("levers: channels_last", f"+{pct(sps(lv, 'channels_last') / sps(lv) - 1, 0)}% ({d(sps(lv, 'channels_last'), 3)} "
      f"against {d(sps(lv), 3)})", [], [lv])
opt = [row(lv, lever)["plain_step_breakdown_ms"]["optimizer"] for lever in ("none", "fused_adamw")]
check("levers: fused AdamW", f"optimizer phase {d(opt[0], 1)} → {d(opt[1], 1)} ms, samples/s within the noise", [], [lv])
norm_c, norm_e = "channels_last_norm_compiled_unet64_1proc.json", "channels_last_norm_unet64_1proc.json"
check("levers: channels-last norms", f"compiled +{pct(sps(norm_c, 'compile+channels_last+channels_last_norm', 'plain') / sps(norm_c, 'compile+channels_last', 'plain') - 1)}% "
      f"(plain loop; ours +{pct(sps(norm_c, 'compile+channels_last+channels_last_norm') / sps(norm_c, 'compile+channels_last') - 1)}%), "
      f"eager −{pct(1 - sps(norm_e, 'channels_last+channels_last_norm', 'plain') / sps(norm_e, 'channels_last', 'plain'), 0)}%",
      [], [norm_c, norm_e])
dl = "train_2cpu/ddp_levers_unet64_2proc.json"
ar_cpu = [r["allreduce"]["ms"] for r in rows(dl)]
step_cpu = [1000 * r["global_batch"] / r["ours"]["samples_per_s"] for r in rows(dl)]
check("levers: DDP bucket size", "the all-reduce is 20–25 ms of an 860–1000 ms step", [], [dl])
print(f"   (ddp_levers_unet64_2proc.json: all-reduce {[round(a, 1) for a in ar_cpu]} ms, our step "
      f"{[round(s) for s in step_cpu]} ms; the first session's unet64_2proc_r1-r3: all-reduce "
      f"{[round(rows(f'train_2cpu/unet64_2proc_r{n}.json')[0]['allreduce']['ms'], 1) for n in (1, 2, 3)]} ms, step "
      f"{[round(1000 * 4 / rows(f'train_2cpu/unet64_2proc_r{n}.json')[0]['ours']['samples_per_s']) for n in (1, 2, 3)]} ms)")
stream = "train_2cpu/data_stream_session_2026-11-23/"
waits = {k: [rows(f"{stream}realdata_unet64_1proc_{k}_r{n}.json")[0]["ours"]["data_wait_pct"] for n in (1, 2)]
         for k in ("before", "after")}
check("levers: the loader", f"with the real loader a 10-step block waits {span(waits['after'], 2)}% for data "
      f"({span(waits['before'], 1)}% with a pass per epoch)", [], [stream + "session.json"])
real = [rows(f"train_2cpu/realdata_unet64_{n}proc.json")[0]["ours"]["data_wait_pct"] for n in (1, 2)]
print(f"   (the files the section names for --data real, train_2cpu/realdata_unet64_1proc/2proc.json, made before the "
      f"one-pass loader: ours waits {real}%)")
bf = {s: (rows(f"train_2cpu/session_{s}/unet64_bf16_1proc.json")[0]["ours"]["samples_per_s"],
          statistics.median(rows(f"train_2cpu/session_{s}/unet64_1proc_r{n}.json")[0]["ours"]["samples_per_s"]
                            for n in (1, 2, 3) if (R / f"train_2cpu/session_{s}/unet64_1proc_r{n}.json").exists()))
      for s in ("2026-11-22c", "2026-11-25u", "2026-11-30b")}
ratios = [a / b for a, b in bf.values()]
check("levers: bf16", f"{d(min(ratios), 2)}–{d(max(ratios), 1)}× fp32's samples/s where the CPU has bf16 instructions "
      f"({d(bf['2026-11-25u'][0], 2)} against {d(bf['2026-11-25u'][1], 2)} on an EPYC with `avx512_bf16`)", [],
      ["train_2cpu/session_2026-11-25u/unet64_bf16_1proc.json"])
print(f"   (bf16 over fp32, ours, 1 process: {dict((s, round(a / b, 3)) for s, (a, b) in bf.items())})")

# Levers, GPU column
pr = H100_23 + "train_mlperf_precisions_b2.json"
check("levers: bf16 (GPU)", f"{d(sps(lev), 1)} samples/s against {d(sps(pr, precision='fp32'), 1)} for fp32 (TF32) on "
      f"the H100; H200 {d(sps(H200_26 + 'train_mlperf_cudnn_benchmark.json'), 1)}", [], [pr])
fp16_h200 = sps(H200_26 + "train_mlperf_target_fp16_b4.json", "compile+channels_last")
bf16_h200 = sps(H200_26 + "train_mlperf_target_b4.json", "compile+channels_last")
check("levers: fp16 (GPU)", f"{d(sps(pr, precision='fp16'), 1)} eager on the H100, "
      f"{pct(sps(pr, precision='fp16') / sps(lev) - 1, 0)}% above bf16; compiled, no faster than bf16 "
      f"({d(fp16_h200, 2)} against {d(bf16_h200, 2)}, H200)", [], [pr, H200_26 + "train_mlperf_target_fp16_b4.json"])
b4 = H100_23 + "train_mlperf_b4.json"
check("levers: compile (GPU)", f"**+{pct(sps(lev, 'compile') / sps(lev) - 1, 0)}%** at batch 2 ({d(sps(lev, 'compile'), 1)} "
      f"against {d(sps(lev), 1)}), +{pct(sps(b4, 'compile') / sps(b4) - 1, 0)}% at batch 4 (H100); warm-up with "
      f"compilation {d(row(lev, 'compile')['warmup_s']['ours'], 0)} s", [], [lev, b4])
t26 = H200_26 + "train_mlperf_target_b4.json"
check("levers: compile+channels_last (GPU)", f"+{pct(sps(t26, 'compile+channels_last') / sps(t26, 'compile') - 1)}% on "
      f"the H200 ({d(sps(t26, 'compile+channels_last'), 2)} against {d(sps(t26, 'compile'), 2)}), "
      f"+{pct(sps(target, 'compile+channels_last') / sps(target, 'compile') - 1)}% on the H100 "
      f"({d(sps(target, 'compile+channels_last'), 2)} against {d(sps(target, 'compile'), 2)}); batch 8: "
      f"{d(sps(H200_26 + 'train_mlperf_target_b8.json', 'compile+channels_last'), 2)}", [], [t26, target])
check("levers: channels_last (GPU)", f"**{pct(1 - sps(lev, 'channels_last') / sps(lev), 0)}% slower** "
      f"({d(sps(lev, 'channels_last'), 1)} against {d(sps(lev), 1)})", [], [lev])
eager = H200_27 + "train_mlperf_norm_layout_eager_b4.json"
compiled_norm = sps(H200_27 + "train_mlperf_norm_layout_compiled_b4.json", "compile+channels_last+channels_last_norm")
peaks = [row(eager, lv_)["ours"]["peak_allocated_gb"] for lv_ in ("channels_last", "channels_last+channels_last_norm")]
check("levers: channels-last norms (GPU)", f"H200: eager −{pct(1 - sps(eager, 'channels_last+channels_last_norm') / sps(eager, 'channels_last'))}% "
      f"with {d(peaks[1] / peaks[0], 2)}× the peak memory, compiled "
      f"−{pct(1 - compiled_norm / sps(H200_27 + 'train_mlperf_compile_channels_last_b4.json', 'compile+channels_last'))}%",
      [], [eager, H200_27 + "train_mlperf_norm_layout_compiled_b4.json"])
graphs = H200_26 + "train_mlperf_target_graphs_b4.json"
check("levers: CUDA graphs", f"+{pct(sps(graphs, 'compile_cudagraphs') / sps(graphs, 'compile') - 1)}% "
      f"({d(sps(graphs, 'compile_cudagraphs'), 2)} against {d(sps(graphs, 'compile'), 2)} compiled alone, H200)", [], [graphs])
cudnn = H200_26 + "train_mlperf_cudnn_benchmark.json"
check("levers: cuDNN", f"no effect on this network ({d(sps(cudnn), 2)} against {d(sps(cudnn, 'no_cudnn_benchmark'), 2)}, "
      f"H200); {d(row(cudnn)['warmup_s']['ours'] - row(cudnn, 'no_cudnn_benchmark')['warmup_s']['ours'], 1)} s more "
      "warm-up", [], [cudnn])
gopt = [row(lev, lever)["plain_step_breakdown_ms"]["optimizer"] for lever in ("none", "fused_adamw")]
check("levers: fused AdamW (GPU)", f"optimizer {d(gopt[0], 1)} → {d(gopt[1], 1)} ms per step, "
      f"+{pct(sps(lev, 'fused_adamw') / sps(lev) - 1)}% (noise)", [], [lev])
check("levers: the loader (GPU)", f"data wait {d(row(H200_26 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 2)}% "
      f"(H200), {d(row(H100_26 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 2)}% (H100)", [],
      [H200_26 + "train_mlperf_realdata_augment_gpu_w8.json"])
check("levers: GPU-side augmentation", f"data wait {d(row(H100_23 + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct'], 1)}% "
      f"on the GPU against {d(row(H100_23 + 'train_mlperf_realdata_augment_cpu_w8.json')['ours']['data_wait_pct'], 1)}% "
      "in 8 CPU workers", [], [H100_23 + "train_mlperf_realdata_augment_cpu_w8.json"])

# The Levers section's own account of its files
check("levers: files", "`levers_unet64_1proc.json` beside them (channels-last and fused AdamW), made by the first "
      "command under the table without `compile`, with `--steps 3 --blocks 3` (its JSON's `command`)",
      ["--steps 3 --blocks 3"] if "--steps 3 --blocks 3" in load(lv)["command"] else [load(lv)["command"]], [lv])

# CPU results: the sessions' figures, from the files through benchmarks/cpu_history.py (as its table is made).
sys.path.insert(0, str(ROOT / "benchmarks"))
import cpu_history  # noqa: E402

history = cpu_history.history()
ordinals = dict(re.findall(r"^## (\S+) \((\S+) session\)",
                           (ROOT / "docs" / "performance_cpu_sessions.md").read_text(encoding="utf-8"), re.M))
ordinals["first (r1-r3)"] = "first"
steady = cpu_history.steady(history)


def host(r: dict) -> str:  # the CPU cell as cpu_history.markdown writes it
    return cpu_history.markdown([r]).splitlines()[-1].split(" | ")[1]


hosts: dict[str, list[dict]] = {}
for r in history:
    hosts.setdefault(host(r), []).append(r)
for cpu, group in hosts.items():
    one = [r["unet64_ratio_1proc"] for r in group]
    two = [r["unet64_ratio_2proc"] for r in group]
    eff = [r["efficiency_2proc"] for r in group if not r.get("host_unsteady")]
    unsteady = "".join(f" ({pct(r['efficiency_2proc'])}% in {r['session'].removeprefix('session_')}, host unsteady)"
                       for r in group if r.get("host_unsteady"))
    check("CPU results: hosts", f"| {cpu} | {len(group)} | {span(one, 3)} | {span(two, 3)} | "
          f"{span([100 * e for e in eff], 1)}%{unsteady} |", [], ["train_2cpu/"])
outside = [(r, n) for r in history for n in (1, 2) if not 0.95 <= round(r[f"unet64_ratio_{n}proc"], 3) <= 1.10]
print("   (session medians of unet 64³ ours/plain outside 0.95–1.10: "
      + "; ".join(f"{ordinals.get(r['session'].removeprefix('session_'))} {n} proc {d(r[f'unet64_ratio_{n}proc'], 3)}"
                  for r, n in outside) + ")")
print(f"   ({len(hosts)} CPU cells in the table, of which some are one host named before the files recorded family "
      "and model: the page's count of hosts is the sessions' notes', not computed here)")
since_tenth = steady[[r["session"] for r in steady].index("session_2026-11-23j"):]  # the unsteady one left out
costs = {n: [r[f"fixed_cost_ms_{n}proc"] for r in since_tenth] for n in (1, 2)}
check("CPU results: how to read", f"{d(min(costs[1]), 1)} to {d(max(costs[1]), 1)} and {d(min(costs[2]), 1)} to "
      f"{d(max(costs[2]), 1)} ms over all of them".replace("-", "−"), [], ["train_2cpu/"])
every = {n: [r[f"fixed_cost_ms_{n}proc"] for r in history] for n in (1, 2)}
print(f"   (fixed cost per step over every session, the first nine and the unsteady hundredth too: "
      f"{min(every[1]):.1f} to {max(every[1]):.1f} ms in one process, {min(every[2]):.1f} to {max(every[2]):.1f} in two)")
avx2 = [r["fixed_cost_ms_2proc"] for r in steady if r.get("cpu_family_model") == "25/1"]
check("CPU results: how to read", f"({span(avx2, 1)} ms in two on the AVX2 EPYC, {span([c for c in avx2 if c >= 2.15], 1)} in "
      f"{['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'][sum(c >= 2.15 for c in avx2)]} of its "
      f"fifteen sessions" if len(avx2) == 15 else "?", [], ["train_2cpu/"])
for cpu, group in hosts.items():
    group = cpu_history.steady(group)
    eff = [100 * r["efficiency_2proc"] for r in group]
    projected = [100 * r["projection_2proc"] for r in group if r.get("projection_2proc") is not None]
    print(f"   ({cpu}: {ordinals.get(group[0]['session'].removeprefix('session_'))} to "
          f"{ordinals.get(group[-1]['session'].removeprefix('session_'))} session, efficiency {span(eff, 1)}% against "
          f"a projected {span(projected, 1) if projected else '-'}%)")
pairs = [e for r in steady for e in cpu_history.efficiency_per_pair(
    R / "train_2cpu" / (r["session"] if r["session"].startswith("session_") else ""))]
effs = [r["efficiency_2proc"] for r in steady]
check("CPU results: how to read", f"The 2-process efficiency of the record runs ({pct(min(effs))}–{pct(max(effs))}% "
      f"per session, {pct(min(pairs))}–{pct(max(pairs))}% in single repeat pairs)", [], ["train_2cpu/"])
projections = sorted(r["projection_2proc"] for r in history if r.get("projection_2proc") is not None)
check("CPU results: how to read", f"the projection from the measured all-reduce is {pct(projections[1])}–"
      f"{pct(projections[-1])}% in every session but one ({pct(projections[0])}%", [], ["ddp_scaling_2cpu_unet64.json"])
controlled = [r for r in steady if r.get("control_ddp_over_pair")]
over = [v for r in controlled for v in r["control_ddp_over_pair"]]
solo = [v for r in controlled for v in r["control_efficiency"]]
print(f"   (the control, our loop, steady sessions: DDP over two jobs {min(over):.3f}–{max(over):.3f}, DDP over the "
      f"solo runs {min(solo):.3f}–{max(solo):.3f})")
check("CPU results: how to read", f"the control shows DDP at {d(min(over), 2)}–{d(max(over), 2)} of two independent jobs", [],
      ["cpu_contention/"])
check("CPU results: how to read", f"Against the solo runs around it our DDP reaches {d(min(solo), 2)}–"
      f"{d(sorted(solo)[-2], 2)}, and {d(max(solo), 2)} once", [], ["cpu_contention/"])
unsteady_rows = [r for r in history if r.get("host_unsteady")]
for r in unsteady_rows:
    check("CPU results: how to read", f"so its 2-process efficiency read {pct(r['efficiency_2proc'])}%", [],
          [f"train_2cpu/{r['session']}/"])

print("\n" + ", ".join(f"{k}: {v}" for k, v in counts.items()))
sys.exit(0)
