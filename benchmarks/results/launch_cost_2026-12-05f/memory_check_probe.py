"""CPU seconds of the CPU run's host-memory check on the tests' tiny settings (U-Net [4, 8, 16], 16^3 patch, batch
2): through plan.measure_model as before (two meta passes in fp32, four in bf16) and through plan.measure_peak
(one). Alternating, in one process after a warm-up of each; prints one JSON line. ``--cold <way> <precision>``:
the CPU seconds of that way's first call in this fresh process, as a run's check is."""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from accelerated_seg.collector import importing_without_collection  # noqa: E402

with importing_without_collection():
    from accelerated_seg import plan  # noqa: E402

ARGS = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
WAYS = {"measure_model": lambda p: plan.measure_model("unet", (16, 16, 16), p, 1, 3, ARGS,
                                                      smallest_batch=2).peak["autocast"].at(2),
        "measure_peak": lambda p: plan.measure_peak("unet", (16, 16, 16), p, 1, 3, ARGS, 2)}
if sys.argv[1:2] == ["--cold"]:
    start = time.process_time()
    WAYS[sys.argv[2]](sys.argv[3])
    print(json.dumps({"cold": sys.argv[2], "precision": sys.argv[3], "cpu_s": round(time.process_time() - start, 3)}))
    sys.exit()
result = {}
for precision in ("fp32", "bf16"):
    peaks = {name: way(precision) for name, way in WAYS.items()}  # warm-up, and the two agree
    assert len(set(peaks.values())) == 1, peaks
    times = {name: [] for name in WAYS}
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        for name, way in WAYS.items():
            start = time.process_time()
            way(precision)
            times[name].append(round(time.process_time() - start, 3))
    result[precision] = {name: {"cpu_s": sorted(t), "median": sorted(t)[len(t) // 2]} for name, t in times.items()}
print(json.dumps(result))
