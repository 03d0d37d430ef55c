"""The cost of exported_model.check_export_fits (the network config.json describes, built without weights,
against model.safetensors' header) beside a whole load_exported, for the registry networks at 128^3 with
their default arguments: 15 repeats each (median), one process. Segmentation.load and train.init_from run
the check; docs/inference.md quotes these figures. Writes benchmarks/results/export_check_cost.json."""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.exported_model import (check_export_fits, load_exported, read_export_config, shared_tensor_names,
                                            write_export)
from accelerated_seg.files import write_text_atomically
from accelerated_seg.models import build_from_spec, model_spec

REPEATS = 15


def _median_seconds(work) -> tuple[float, list[float]]:
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return round(statistics.median(runs), 4), [round(run, 4) for run in runs]


def main() -> None:
    seconds = {}
    with tempfile.TemporaryDirectory() as work:
        for name in ["unet", "segresnet", "swinunetr", "unetr", "dynunet", "unet3d_mlperf"]:
            spec = model_spec(name, 1, 3, (128,) * 3, {})
            folder = Path(work) / name
            metadata = {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
                        "patch_size": [128] * 3, "spacing": [1.0] * 3}
            network = build_from_spec(spec)
            aliases = shared_tensor_names(network)  # DynUNet's skip layers name its blocks twice: written once
            tensors = {key: value for key, value in network.state_dict().items() if key not in aliases}
            write_export(tensors, spec.to_dict(), metadata, folder)
            config = read_export_config(folder)
            check, check_runs = _median_seconds(lambda: check_export_fits(folder, config))
            load, load_runs = _median_seconds(lambda: load_exported(folder))
            seconds[name] = {"check_median_s": check, "load_median_s": load, "check_runs_s": check_runs,
                             "load_runs_s": load_runs,
                             "weights_mb": round((folder / "model.safetensors").stat().st_size / 2**20, 1)}
            print(name, {key: value for key, value in seconds[name].items() if not key.endswith("runs_s")})
    out = {"what": "exported_model.check_export_fits (a build under accelerate's init_empty_weights and the "
                   "safetensors header's shapes) against load_exported (build, the same check, the strict load), "
                   "each registry network with default arguments at 128^3, 1 channel, 3 classes",
           **provenance(script_command()), "seconds": seconds}
    write_text_atomically("benchmarks/results/export_check_cost.json", json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help, and no run on an unknown argument
    main()
