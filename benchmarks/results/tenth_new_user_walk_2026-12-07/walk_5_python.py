"""python walk_5_python.py > walk_5_python.txt 2>&1   (after `source env.sh`)

docs/planning.md's "From Python" block as written, timed ("about a second"), then each number the page states of
unet3d_mlperf at 128^3 in bf16, recomputed from what the package measures and counts: 31,190,243 parameters, the
largest FSDP unit of 5.53 M (640 -> 320), 1.753 GiB saved and 2.189 GiB peak per sample, "about 320 channels ... ~1.67
GiB" by hand, the exact linearity in the batch, the model state of ~0.5 GiB, DeepSpeed's default bucket of 0.93 GiB
in bf16, the table's components and total by the formulas of "Parameters, gradients, optimizer, communication".
"""
import time

t0 = time.perf_counter()
from accelerated_seg import plan  # noqa: E402

t1 = time.perf_counter()
facts = plan.measure_model("unet3d_mlperf", (128, 128, 128), "bf16")  # about a second
t2 = time.perf_counter()
table = plan.estimate(facts, batch=2, gpus=8)  # {strategy: Estimate}
best = plan.propose(facts, gpus=8, gpu_memory_gib=80, global_batch=32)
t3 = time.perf_counter()
print(f"import {t1 - t0:.1f} s, measure_model {t2 - t1:.1f} s, estimate + propose {t3 - t2:.2f} s")
print(type(table).__name__, sorted(table), type(best["ddp"]).__name__, best["ddp"].describe(8))

GIB = 2**30
print("parameters", f"{facts.parameters:,}", "trainable", f"{facts.trainable:,}")
print("largest FSDP unit", facts.largest_fsdp_unit, f"{facts.largest_fsdp_unit / 1e6:.2f} M",
      "= 640*320*27 + 320 =", 640 * 320 * 27 + 320)
for mode in facts.saved:
    s, p = facts.saved[mode], facts.peak[mode]
    print(f"{mode}: saved per sample {s.per_sample / GIB:.3f} GiB (fixed {s.fixed / GIB:.3f}), "
          f"peak per sample {p.per_sample / GIB:.3f} GiB (fixed {p.fixed / GIB:.3f})")
print("by hand: 320 x 128^3 x 2 B =", f"{320 * 128**3 * 2 / GIB:.3f} GiB", "x (1 + 1/4 + 1/16 + ...) =",
      f"{320 * 128**3 * 2 / GIB * 4 / 3:.3f} GiB")
# linearity: a third batch on the line
three = plan.measure_step(plan.meta_network(facts.spec), 1, 3, facts.patch, "bf16", "autocast",
                          plan._loss_of(facts.spec, 3))
print("batch 3 measured: saved", three.saved, "line", facts.saved["autocast"].at(3), "; peak", three.peak,
      "line", facts.peak["autocast"].at(3))
P = facts.trainable
print(f"model state (fp32 weights + grads + AdamW's 2 moments = 16 B x P): {16 * P / GIB:.3f} GiB")
print(f"DeepSpeed default bucket 5e8 elements: bf16 {5e8 * 2 / GIB:.2f} GiB, fp32 {5e8 * 4 / GIB:.2f} GiB; "
      f"training's: {plan.deepspeed_bucket_elements(P)} elements")
# the table by the page's formulas at N = 8, low = 2, S = 8
N, low, S, U = 8, 2, 8, facts.largest_fsdp_unit
R = 4 * U + low * U
page = {"ddp": (4 * P, 4 * P, S * P, 4 * P), "fsdp_full_shard": (4 * P / N, 4 * P / N, S * P / N, 2 * low * U + R),
        "zero3": (low * P / N, low * P / N, (4 + S) * P / N,
                  low * plan.deepspeed_bucket_elements(P) + low * min(P, 5e7 + facts.largest_tensor))}
for name, (par, gr, opt, comm) in page.items():
    e = table[name].components
    print(f"{name}: page's formulas params {par / GIB:.3f} grads {gr / GIB:.3f} optim {opt / GIB:.3f} "
          f"comm {comm / GIB:.3f} | table {e['parameters'] / GIB:.3f} {e['gradients'] / GIB:.3f} "
          f"{e['optimizer'] / GIB:.3f} {e['communication'] / GIB:.3f}; total {table[name].total / GIB:.2f}")
