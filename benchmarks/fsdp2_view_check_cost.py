"""The start-up cost of fsdp2_views.check_fsdp2_units: each registry network at 128^3 under fsdp2_blocks' policy,
5 repeats (median), one process, nothing else running. Writes benchmarks/results/fsdp2_view_check_cost.json."""
import json
import platform
import statistics
import sys
import time

import accelerate
import monai
import torch
from accelerate.utils import FullyShardedDataParallelPlugin
from accelerated_seg.fsdp2_views import check_fsdp2_units
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.wrapping import fill_fsdp_wrap_classes, fsdp2_valid_units_only

fsdp2_valid_units_only()
seconds = {}
for name in ["unet", "segresnet", "swinunetr", "unetr", "dynunet", "unet3d_mlperf"]:
    model = build_from_spec(model_spec(name, 1, 3, (128,) * 3, {}))
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap")
    fill_fsdp_wrap_classes(plugin, model)
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        assert check_fsdp2_units(plugin, model, (2, 1, 128, 128, 128))
        runs.append(time.perf_counter() - t)
    seconds[name] = {"median_s": round(statistics.median(runs), 3), "runs_s": [round(r, 3) for r in runs],
                     "parameters": sum(p.numel() for p in model.parameters())}
    print(name, seconds[name])
out = {"what": "start-up cost of the FSDP2 view check (fsdp2_views.check_fsdp2_units: a deep copy of the network to the "
               "meta device, one forward of a (2, 1, 128, 128, 128) batch, accelerate's FSDP2 policy over the modules)",
       "machine": {"cpu": platform.processor() or "x86_64", "cores": 2, "python": sys.version.split()[0],
                   "torch": torch.__version__, "accelerate": accelerate.__version__, "monai": monai.__version__},
       "command": "PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fsdp2_view_check_cost.py",
       "seconds": seconds}
open("benchmarks/results/fsdp2_view_check_cost.json", "w").write(json.dumps(out, indent=1) + "\n")
