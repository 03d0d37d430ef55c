"""Whether predict's build of the network is worth saving after Segmentation.load's: load builds the network
once without weights (exported_model.check_export_fits) and every predict builds it again with them
(load_exported). Times, for UNet and SwinUNETR with default arguments at 128^3, the build without weights,
the build with them, the whole load_exported, and one 128^3 forward (one sliding window of a predict), with
one torch thread, medians of 9 (the forward: of 3). Writes benchmarks/results/predict_build_cost.json."""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch
from accelerate import init_empty_weights

from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.exported_model import (build_exported_network, load_exported, read_export_config,
                                            shared_tensor_names, write_export)
from accelerated_seg.files import write_text_atomically
from accelerated_seg.models import build_from_spec, model_spec


def _median_seconds(work, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return round(statistics.median(runs), 4)


def _timed(name: str, folder: Path) -> dict:
    spec = model_spec(name, 1, 3, (128,) * 3, {})
    network = build_from_spec(spec)
    aliases = shared_tensor_names(network)
    write_export({key: value for key, value in network.state_dict().items() if key not in aliases}, spec.to_dict(),
                 {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
                  "patch_size": [128] * 3, "spacing": [1.0] * 3}, folder)
    config = read_export_config(folder)

    def without_weights():
        with init_empty_weights():
            build_exported_network(config, folder)

    seconds = {"build_without_weights_s": _median_seconds(without_weights, 9),
               "build_with_weights_s": _median_seconds(lambda: build_exported_network(config, folder), 9),
               "load_exported_s": _median_seconds(lambda: load_exported(folder), 9)}
    model, _ = load_exported(folder)
    window = torch.zeros(1, 1, 128, 128, 128)
    with torch.inference_mode():
        model(window)  # the first call's one-off allocations are no window's cost
        seconds["one_window_forward_s"] = _median_seconds(lambda: model(window), 3)
    return seconds


def main() -> None:
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as work:
        seconds = {name: _timed(name, Path(work) / name) for name in ("unet", "swinunetr")}
    for name, timed in seconds.items():
        print(name, timed)
    out = {"what": "Segmentation.load's build without weights (check_export_fits) and predict's with them "
                   "(load_exported, at every predict), beside one 128^3 window's forward; default arguments, "
                   "1 channel, 3 classes, one torch thread",
           **provenance(script_command()), "seconds": seconds}
    write_text_atomically("benchmarks/results/predict_build_cost.json", json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help, and no run on an unknown argument
    main()
