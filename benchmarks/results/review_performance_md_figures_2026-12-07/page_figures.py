"""docs/performance.md's figures that h149 did not mend (20 of them), and each of its four mends, computed here from
the files with plain json (not with figures.py), each set beside the page's words. Run from the repository root
(r125, the review of h149, the hundred-and-twenty-seventh session):

    python benchmarks/results/review_performance_md_figures_2026-12-07/page_figures.py \
        > benchmarks/results/review_performance_md_figures_2026-12-07/page_figures.txt

Each line: the page's words, whether they are on the page (folded whitespace), and the files' figures.
"""

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, "benchmarks")
R = Path("benchmarks/results")
PAGE = " ".join(Path("docs/performance.md").read_text(encoding="utf-8").split())


def runs(path):
    return json.loads((R / path).read_text())["runs"]


def one(path, lever="none", **where):
    return next(r for r in runs(path) if r["lever"] == lever and all(r[k] == v for k, v in where.items()))


def sps(path, lever="none", loop="ours", **where):
    return one(path, lever, **where)[loop]["samples_per_s"]


def show(n, words, files_say):
    print(f"{n}. {'on the page' if words in PAGE else 'NOT ON THE PAGE'}: {words!r}\n     files: {files_say}")


H100a, H100b = "gpu_h100_session_2026-11-23/", "gpu_h100_session_2026-11-26/"
H200a, H200b, H200c = "gpu_h200_session_2026-11-26/", "gpu_h200_session_2026-11-26b/", "gpu_h200_session_2026-11-27/"
print("Figures h149 did not mend:")
plan = [json.loads((R / f"{H100a}plan_mlperf_b{b}.json").read_text())["measured_on_one_gpu"]["relative_error"]
        for b in (1, 2, 4)]
show(1, "+1.2% to +4.3% (H100)", f"plan's relative error b1/b2/b4 {plan}")
c = "train_2cpu/compile_unet64_1proc.json"
show(2, "**+12%** (2.307 against 2.061); warm-up 12.8 s", f"{sps(c, 'compile'):.4f} / {sps(c):.4f} = "
     f"{sps(c, 'compile') / sps(c):.4f}; warm-up {one(c, 'compile')['warmup_s']}")
c = "train_2cpu/session_2026-11-23o/compile_channels_last_unet64_1proc.json"
show(3, "**+24%** over compile alone (3.173 against 2.554)", f"{sps(c, 'compile+channels_last'):.4f} / "
     f"{sps(c, 'compile'):.4f} = {sps(c, 'compile+channels_last') / sps(c, 'compile'):.4f}")
c = "train_2cpu/levers_unet64_1proc.json"
show(4, "+29% (2.870 against 2.220)", f"{sps(c, 'channels_last'):.4f} / {sps(c):.4f} = "
     f"{sps(c, 'channels_last') / sps(c):.4f}")
show(5, "optimizer phase 42.1 → 17.6 ms", "plain loop's optimizer phase "
     f"{one(c)['plain_step_breakdown_ms']['optimizer']} / {one(c, 'fused_adamw')['plain_step_breakdown_ms']['optimizer']}"
     f"; ours/plain samples/s with fused {sps(c, 'fused_adamw') / sps(c):.3f} of none's")
nc, ne = "channels_last_norm_compiled_unet64_1proc.json", "channels_last_norm_unet64_1proc.json"
show(6, "compiled +5.5% (plain loop; ours +7.8%), eager −8%", "plain "
     f"{sps(nc, 'compile+channels_last+channels_last_norm', 'plain') / sps(nc, 'compile+channels_last', 'plain'):.4f}, "
     f"ours {sps(nc, 'compile+channels_last+channels_last_norm') / sps(nc, 'compile+channels_last'):.4f}; eager plain "
     f"{sps(ne, 'channels_last+channels_last_norm', 'plain') / sps(ne, 'channels_last', 'plain'):.4f}, ours "
     f"{sps(ne, 'channels_last+channels_last_norm') / sps(ne, 'channels_last'):.4f}")
lv, pr = H100a + "train_mlperf_levers_b2.json", H100a + "train_mlperf_precisions_b2.json"
show(7, "25.1 samples/s against 17.9 for fp32 (TF32) on the H100; H200 27.4", f"H100 bf16 {sps(lv):.3f} (levers file), precisions "
     f"file fp32 {sps(pr, precision='fp32'):.3f} (it holds fp32 and fp16 alone); H200 "
     f"{sps(H200a + 'train_mlperf_cudnn_benchmark.json'):.3f}")
show(8, "28.8 eager on the H100, 15% above bf16; compiled, no faster than bf16 (55.18 against 55.30, H200)",
     f"fp16 {sps(pr, precision='fp16'):.3f} / bf16 {sps(lv):.3f} = {sps(pr, precision='fp16') / sps(lv):.4f}"
     f"; H200 compiled fp16 "
     f"{sps(H200a + 'train_mlperf_target_fp16_b4.json', 'compile+channels_last'):.3f}, bf16 "
     f"{sps(H200a + 'train_mlperf_target_b4.json', 'compile+channels_last'):.3f}")
b4 = H100a + "train_mlperf_b4.json"
show(9, "**+81%** at batch 2 (45.4 against 25.1), +51% at batch 4 (H100); warm-up with compilation 37 s",
     f"{sps(lv, 'compile'):.3f}/{sps(lv):.3f} = {sps(lv, 'compile') / sps(lv):.4f}; batch 4 "
     f"{sps(b4, 'compile') / sps(b4):.4f}; warm-up {one(lv, 'compile')['warmup_s']}")
t, t1 = H200a + "train_mlperf_target_b4.json", H100b + "train_mlperf_target_b4.json"
show(10, "+2.0% on the H200 (55.30 against 54.23), +2.7% on the H100 (50.81 against 49.48); batch 8: 56.25",
     f"H200 {sps(t, 'compile+channels_last'):.3f}/{sps(t, 'compile'):.3f} = "
     f"{sps(t, 'compile+channels_last') / sps(t, 'compile'):.4f}; H100 {sps(t1, 'compile+channels_last'):.3f}/"
     f"{sps(t1, 'compile'):.3f} = {sps(t1, 'compile+channels_last') / sps(t1, 'compile'):.4f}; batch 8 "
     f"{sps(H200a + 'train_mlperf_target_b8.json', 'compile+channels_last'):.3f}")
show(11, "**27% slower** (18.3 against 25.1)", f"{sps(lv, 'channels_last'):.3f}/{sps(lv):.3f} = "
     f"{sps(lv, 'channels_last') / sps(lv):.4f}")
g = H200a + "train_mlperf_target_graphs_b4.json"
show(12, "+0.5% (54.39 against 54.14 compiled alone, H200)", f"{sps(g, 'compile_cudagraphs'):.3f}/"
     f"{sps(g, 'compile'):.3f} = {sps(g, 'compile_cudagraphs') / sps(g, 'compile'):.4f}")
cd = H200a + "train_mlperf_cudnn_benchmark.json"
show(13, "no effect on this network (27.44 against 27.43, H200); 2.8 s more warm-up", f"{sps(cd):.3f} / "
     f"{sps(cd, 'no_cudnn_benchmark'):.3f}; warm-up {one(cd)['warmup_s']} against "
     f"{one(cd, 'no_cudnn_benchmark')['warmup_s']}")
show(14, "optimizer 1.1 → 0.5 ms per step, +0.7% (noise)", "plain optimizer "
     f"{one(lv)['plain_step_breakdown_ms']['optimizer']} / {one(lv, 'fused_adamw')['plain_step_breakdown_ms']['optimizer']}"
     f"; {sps(lv, 'fused_adamw') / sps(lv):.4f}")
show(15, "data wait 0.31% (H200), 0.42% (H100)", f"{one(H200a + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct']}"
     f" / {one(H100b + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct']}")
show(16, "data wait 10.8% on the GPU against 34.6% in 8 CPU workers", "H100 "
     f"{one(H100a + 'train_mlperf_realdata_augment_gpu_w8.json')['ours']['data_wait_pct']} / "
     f"{one(H100a + 'train_mlperf_realdata_augment_cpu_w8.json')['ours']['data_wait_pct']}")
p = json.loads((R / "ddp_scaling_2cpu_unet64.json").read_text())["inputs"]["steps"]
show(17, "the measured CPU step (unet 64³, 859 ms, backward 526 ms, 19.2 MB of gradients)",
     f"{p[0]['step_ms']} ms, backward {p[0]['backward_ms']}, {p[0]['gradient_bytes']} B; MLPerf {p[1]['gradient_bytes']} B")
ds = "train_2cpu/data_stream_session_2026-11-23/"
w = {k: [runs(f"{ds}realdata_unet64_1proc_{k}_r{n}.json")[0]["ours"]["data_wait_pct"] for n in (1, 2)]
     for k in ("before", "after")}
show(18, "a 10-step block waits 0.54–0.58% for data (3.6–4.3% with a pass per epoch)", f"{w}")
f = {s: runs(f"train_2cpu/{s}_1proc_r1.json")[0] for s in ("unet64", "small32", "tiny16")}
show(19, "4.81 M parameters, 9.43 GFLOP per sample", f"{f['unet64']['parameters']} parameters, "
     f"{f['unet64']['flops_per_sample']} FLOP; small {f['small32']['parameters']}, tiny {f['tiny16']['parameters']}")
e, cn = H200c + "train_mlperf_norm_layout_eager_b4.json", H200c + "train_mlperf_norm_layout_compiled_b4.json"
show(20, "H200: eager −5.5% with 1.94× the peak memory, compiled −1.4%", "eager "
     f"{sps(e, 'channels_last+channels_last_norm') / sps(e, 'channels_last'):.4f}, peak "
     f"{one(e, 'channels_last+channels_last_norm')['ours']['peak_allocated_gb'] / one(e, 'channels_last')['ours']['peak_allocated_gb']:.4f}"
     f"; compiled {sps(cn, 'compile+channels_last+channels_last_norm'):.3f} against "
     f"{sps(H200c + 'train_mlperf_compile_channels_last_b4.json', 'compile+channels_last'):.3f} = "
     f"{sps(cn, 'compile+channels_last+channels_last_norm') / sps(H200c + 'train_mlperf_compile_channels_last_b4.json', 'compile+channels_last'):.4f}"
     f" (its own file's compile+channels_last: {sps(cn, 'compile+channels_last') if any(r['lever'] == 'compile+channels_last' for r in runs(cn)) else 'none'})")

print("\nh149's mends:")
b = runs(H200c + "train_mlperf_fsdp2_blocks.json")[0]
show("M1", "| FSDP2 (`fsdp.yaml`, `fsdp2_blocks.yaml`) | 0.978–0.982 (H200)", f"fsdp2_blocks {b['ratio_ours_to_plain']} "
     f"({b['ours']['samples_per_s']}/{b['plain']['samples_per_s']} = {b['ours']['samples_per_s'] / b['plain']['samples_per_s']:.5f}), "
     f"per-block median {b['ratio_median_of_blocks']}; fsdp.yaml {runs(H200b + 'train_mlperf_fsdp.json')[0]['ratio_ours_to_plain']}")
show("M1b", "`fsdp2_blocks.yaml` 0.978", "(the leases' table)")
two = json.loads((R / "cpu_bf16_two_voxels_2cpu.json").read_text())["runs"]
show("M2", "in up to 18.5% of calls", f"{[(r['garbage'], r['calls'], round(100 * r['garbage'] / r['calls'], 2)) for r in two]}")
import cpu_history  # noqa: E402

hist = cpu_history.history()
avx2 = [(r["session"], round(r["fixed_cost_ms_2proc"], 2)) for r in hist if r.get("cpu_family_model") == "25/1"]
show("M3", "(0.6–3.1 ms in two on the AVX2 EPYC, 2.2–3.1 in seven of its fifteen sessions,",
     f"{len(avx2)} sessions: {sorted(c for _, c in avx2)}")
older_avx2 = [round(r["fixed_cost_ms_2proc"], 2) for r in hist if r.get("cpu_capability") == "AVX2"
              and not r.get("cpu_family_model")]
print(f"     the AVX2 EPYC's cell without family and model (5 sessions): {sorted(older_avx2)}")
fp32 = {s: statistics.median(runs(f"train_2cpu/session_{s}/unet64_1proc_r{n}.json")[0]["ours"]["samples_per_s"]
                             for n in (1, 2, 3) if (R / f"train_2cpu/session_{s}/unet64_1proc_r{n}.json").exists())
        for s in ("2026-11-22c", "2026-11-25u", "2026-11-30b")}
bf = {s: runs(f"train_2cpu/session_{s}/unet64_bf16_1proc.json")[0]["ours"]["samples_per_s"] for s in fp32}
show("M4", "bf16 the sessions' `unet64_bf16_1proc.json` against their fp32 runs (third, twenty-second and sixty-sixth "
     "sessions: 1.44, 1.50, 1.35)", f"{ {s: round(bf[s] / fp32[s], 3) for s in fp32} } (fp32: median of the "
     f"session's 1proc repeats); 2026-11-25u: {bf['2026-11-25u']:.3f} against {fp32['2026-11-25u']:.3f}")
show("M4b", "(5.76 against 3.85 on an EPYC with `avx512_bf16`)", "as above")
for s in fp32:
    r1 = runs(f"train_2cpu/session_{s}/unet64_1proc_r1.json")[0]["ours"]["samples_per_s"]
    print(f"     {s}: bf16 over the first repeat's fp32 alone {bf[s] / r1:.3f}; machine "
          f"{json.loads((R / f'train_2cpu/session_{s}/unet64_bf16_1proc.json').read_text())['machine'].get('cpu_bf16')}")
