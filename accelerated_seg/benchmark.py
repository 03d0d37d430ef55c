"""Benchmarks: measured side by side with a baseline in the same run, written as JSON with the
machine and the command. Speed goals live here, never in timed tests.

    accelerated-seg benchmark data --cases 12 --patch 96 --workers 2

``data``: our training loader (preprocessing cache + memory-mapped patch sampling) against the MONAI
tutorial pipeline on the same files, cores and patch size: LoadImaged -> EnsureChannelFirstd ->
Orientationd -> Spacingd -> NormalizeIntensityd -> CropForegroundd -> RandCropByPosNegLabeld, the
deterministic part in a CacheDataset. Both without augmentation, so the numbers compare the data
path itself. Reports the cold first epoch (preprocessing/caching included) and steady-state patches/s.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import torch


def machine_info() -> dict:
    import accelerate
    import monai

    cpu = platform.processor()
    if Path("/proc/cpuinfo").is_file():
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), cpu)
    return {"cpu": cpu, "cores": os.cpu_count(),
            "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
            "python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "accelerate": accelerate.__version__, "monai": monai.__version__}


def _patches_per_second(loader, batches: int, warmup: int) -> tuple[float, float]:
    """(seconds for the first ``warmup`` batches, steady-state patches/s over the next ``batches``)."""
    iterator = iter(_forever(loader))
    start = time.perf_counter()
    for _ in range(warmup):
        next(iterator)
    first = time.perf_counter() - start
    start, patches = time.perf_counter(), 0
    for _ in range(batches):
        patches += len(next(iterator)["image"])
    return first, patches / (time.perf_counter() - start)


def _forever(loader):
    epoch = 0
    while True:
        if hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)
        yield from loader
        epoch += 1


def benchmark_data(cases: int = 12, size_mm=(160.0, 160.0, 128.0), spacing_mm: float = 1.0, patch: int = 96,
                   workers: int = 2, batch: int = 2, batches: int = 60, samples_per_volume: int = 4,
                   data_dir: str | None = None) -> dict:
    from monai.data import CacheDataset, DataLoader
    from monai.transforms import (Compose, CropForegroundd, EnsureChannelFirstd, LoadImaged, NormalizeIntensityd,
                                  Orientationd, RandCropByPosNegLabeld, Spacingd)

    from .data.cache import PreprocessedCache
    from .data.loader import PatchDataset, train_loader
    from .data.manifest import load_cases
    from .data.preprocess import PreprocessSettings, case_dict
    from .data.synthetic import write_synthetic_dataset

    torch.set_num_threads(1)  # the workers use the cores; the consumer only collates
    work = Path(data_dir or tempfile.mkdtemp(prefix="accelerated_seg_bench_"))
    source = work / "data" / "dataset.json"
    if not source.is_file():
        write_synthetic_dataset(source.parent, num_cases=cases, num_validation=0, seed=0, size_mm=tuple(size_mm),
                                spacing_mm=spacing_mm)
    manifest = load_cases(source, validation_fraction=0.0)
    spacing = (spacing_mm,) * 3
    results = {"cases": len(manifest.training), "patch": [patch] * 3, "workers": workers, "batch": batch}

    # Ours: preprocessing cache (cold), then patches sliced from memory maps.
    start = time.perf_counter()
    cache = PreprocessedCache(work / "cache", source, PreprocessSettings(spacing=spacing), manifest.num_classes)
    cache.build(manifest.training)
    table = cache.load_table(cache.write_table(manifest.training))
    preprocessing = time.perf_counter() - start
    ours = train_loader(PatchDataset(table, (patch,) * 3, samples_per_volume, 0.67, augment="none"),
                        batch, workers, seed=0)
    epoch_batches = len(ours)
    first_epoch, ours_rate = _patches_per_second(ours, batches, warmup=epoch_batches)
    results["ours"] = {"cold_first_epoch_s": round(preprocessing + first_epoch, 2),
                       "preprocessing_s": round(preprocessing, 2), "patches_per_s": round(ours_rate, 2)}
    del ours

    # MONAI tutorial pipeline on the same files.
    deterministic = [LoadImaged(["image", "label"]), EnsureChannelFirstd(["image", "label"]),
                     Orientationd(["image", "label"], axcodes="RAS", labels=None),
                     Spacingd(["image", "label"], pixdim=spacing, mode=("bilinear", "nearest")),
                     NormalizeIntensityd("image", nonzero=True, channel_wise=True),
                     CropForegroundd(["image", "label"], source_key="image", allow_smaller=True)]
    random_crop = RandCropByPosNegLabeld(["image", "label"], label_key="label", spatial_size=(patch,) * 3, pos=2,
                                         neg=1, num_samples=samples_per_volume)
    start = time.perf_counter()
    monai_set = CacheDataset([case_dict(c) for c in manifest.training], Compose(deterministic + [random_crop]),
                             cache_rate=1.0, num_workers=workers, progress=False)
    caching = time.perf_counter() - start
    # Each item gives samples_per_volume patches; batch/samples items make the same patches per batch.
    monai_loader = DataLoader(monai_set, batch_size=max(1, batch // samples_per_volume), shuffle=True,
                              num_workers=workers, persistent_workers=workers > 0)
    first_epoch, monai_rate = _patches_per_second(monai_loader, max(1, batches * batch // samples_per_volume),
                                                  warmup=len(monai_loader))
    results["monai_tutorial"] = {"cold_first_epoch_s": round(caching + first_epoch, 2),
                                 "caching_s": round(caching, 2), "patches_per_s": round(monai_rate, 2)}
    results["speedup_steady_state"] = round(ours_rate / monai_rate, 2)
    results["speedup_cold_first_epoch"] = round(results["monai_tutorial"]["cold_first_epoch_s"]
                                                / results["ours"]["cold_first_epoch_s"], 2)
    return results


def write_result(name: str, results: dict, output: str | Path | None) -> Path:
    path = Path(output or Path("benchmarks") / "results" / f"{name}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"benchmark": name, "date": date.today().isoformat(), "machine": machine_info(),
              "command": "accelerated-seg " + " ".join(shlex.quote(a) for a in sys.argv[1:]), **results}
    path.write_text(json.dumps(record, indent=1))
    return path
