"""The start-up cost of fsdp2_views.check_fsdp2_units: each registry network at 128^3 under fsdp2_blocks' policy,
5 repeats (median), one process, nothing else running. Writes benchmarks/results/fsdp2_view_check_cost.json."""
import argparse
import json
import statistics
import time

from accelerate.utils import FullyShardedDataParallelPlugin
from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.files import write_text_atomically
from accelerated_seg.fsdp2_views import check_fsdp2_units
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.wrapping import fill_fsdp_wrap_classes, fsdp2_valid_units_only


def main() -> None:
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
    # The machine and the command as this run had them (the command was written out, OMP_NUM_THREADS=1
    # included, whatever the run's; seventy-third session)
    out = {"what": "start-up cost of the FSDP2 view check (fsdp2_views.check_fsdp2_units: a deep copy of the network "
                   "to the meta device, one forward of a (2, 1, 128, 128, 128) batch, accelerate's FSDP2 policy over "
                   "the modules)",
           **provenance(script_command()), "seconds": seconds}
    write_text_atomically("benchmarks/results/fsdp2_view_check_cost.json", json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help, and no run on an unknown argument
    main()
