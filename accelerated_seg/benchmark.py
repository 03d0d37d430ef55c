"""Benchmarks: measured side by side with a baseline in the same run, written as JSON with the
machine and the command. Speed goals live here, never in timed tests.

    accelerated-seg benchmark data --cases 12 --patch 96 --workers 2
    accelerated-seg benchmark infer --size 128 128 96 --roi 64 --overlap 0.5 --sw-batch-size 4

``data``: our training loader (preprocessing cache + memory-mapped patch sampling) against the MONAI
tutorial pipeline on the same files, cores and patch size: LoadImaged -> EnsureChannelFirstd ->
Orientationd -> Spacingd -> NormalizeIntensityd -> CropForegroundd -> RandCropByPosNegLabeld, the
deterministic part in a CacheDataset. Both without augmentation, so the numbers compare the data
path itself. Reports the cold first epoch (preprocessing/caching included) and steady-state patches/s, timed in
alternating blocks (the median and every block are recorded: on a shared machine load drifts).

``infer``: the network part of our prediction (sliding window + TTA + softmax) against MONAI's
``sliding_window_inference`` with the same window settings, volumes/s in alternating blocks.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from .files import RESULTS_FOLDER, file_in_the_way, unwritable, write_text_atomically
from .host_cpu import bf16_instructions, cpu_generation, cpuinfo_field, cpuinfo_lines, load_average
from .host_memory import memory_available


def machine_info() -> dict:
    from . import __version__
    from .code_commit import run_commit
    from .installed_versions import installed_version

    lines = cpuinfo_lines()
    return {"cpu": cpuinfo_field(lines, "model name") or platform.processor(),
            "cpu_family_model": cpu_generation(lines), "cores": os.cpu_count(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "cpu_bf16": bf16_instructions(lines),  # without them bf16 autocast is emulated: host_cpu.py
            "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
            # the distributions' versions, none imported for it (installed_versions.py)
            "python": platform.python_version(), "torch": installed_version("torch"), "cuda": torch.version.cuda,
            "accelerate": installed_version("accelerate"), "monai": installed_version("monai"),
            # the code measured: the version is 0.1.0 at every commit (code_commit.py), as run_info.json records it
            "accelerated_seg_version": __version__, "accelerated_seg_commit": run_commit()}


def check_host_memory(need: int, settings: str, holds: str, lower: str) -> None:
    """A ConfigError where ``need`` bytes, a lower bound of what ``holds`` in host memory, exceed what this
    process can still take (``host_memory.memory_available``). A volume that large was a MemoryError or
    torch's allocator traceback, or, where the first allocation was granted, the out-of-memory killer's
    SIGKILL later in the run, with nothing written."""
    from .config import ConfigError

    available = memory_available()
    if available is not None and need > available:
        raise ConfigError(f"{settings}: {holds} at least {need / 2**30:.2f} GiB and {available / 2**30:.2f} GiB "
                          f"is available; {lower}")


def _first_epoch(iterator, batches: int) -> float:
    start = time.perf_counter()
    for _ in range(batches):
        next(iterator)
    return time.perf_counter() - start


def _interleaved_rates(pipelines: dict, batches: dict, drain: dict, blocks: int) -> dict:
    """Patches/s of each pipeline in alternating timed blocks, so drifts in machine load hit both.

    ``drain`` batches are taken untimed before each block: they were prefetched while the other
    pipeline ran.
    """
    rates = {name: [] for name in pipelines}
    for _ in range(blocks):
        for name, iterator in pipelines.items():
            for _ in range(drain[name]):
                next(iterator)
            start, patches = time.perf_counter(), 0
            for _ in range(batches[name]):
                patches += len(next(iterator)["image"])
            rates[name].append(round(patches / (time.perf_counter() - start), 2))
    return rates


def _forever(loader):
    epoch = 0
    while True:
        if hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)
        yield from loader
        epoch += 1


def benchmark_data(cases: int = 12, size_mm=(160.0, 160.0, 128.0), spacing_mm: float = 1.0, patch: int = 96,
                   workers: int = 2, batch: int = 4, batches: int = 15, samples_per_volume: int = 4,
                   blocks: int = 5, data_dir: str | None = None) -> dict:
    """Patches/s of our training loader against MONAI's tutorial pipeline (module docstring), on
    ``cases`` phantoms written under ``data_dir`` (kept and reused) or a temporary folder (removed).

    Raises:
        ValueError: a setting that cannot work, naming it, before anything is written.
    """
    for name, value, least in (("--cases", cases, 1), ("--patch", patch, 1), ("--workers", workers, 0),
                               ("--batch", batch, 1), ("--batches", batches, 1), ("--blocks", blocks, 1),
                               ("samples_per_volume", samples_per_volume, 1)):
        if value < least:
            raise ValueError(f"{name} must be at least {least:g} (got {value})")
    # `not 0 < x < inf`, not `x <= 0`: NaN compares false both ways; a NaN size passed the patch check
    # below (min() kept the NaN) and the benchmark ran on, on 1-voxel-wide phantoms, until stopped
    for name, values in (("--spacing-mm", [spacing_mm]), ("--size-mm", list(size_mm))):
        if not all(0 < value < math.inf for value in values):
            raise ValueError(f"{name} must be finite millimetres > 0 (got {' '.join(f'{v:g}' for v in values)})")
    if batch > cases * samples_per_volume:  # else the sampler's own error, naming neither, once the cache was built
        raise ValueError(f"--batch {batch} is more patches than an epoch of the phantoms gives (--cases {cases}, "
                         f"{samples_per_volume} patches from each): lower --batch or raise --cases")
    if data_dir is not None and (blocking := file_in_the_way(data_dir)):  # said as the phantoms' folder before
        raise ValueError(f"--data-dir {data_dir}: {blocking} is a file; give a folder for the phantoms and their "
                         f"cache (made if missing)")
    if data_dir is not None and (why := unwritable(data_dir)):  # mkdir's traceback as the phantoms were written
        raise ValueError(f"--data-dir {data_dir} cannot be written ({why}); give a folder you can write for the "
                         f"phantoms and their cache, or leave --data-dir out for a temporary one")
    smallest = min(size_mm) / spacing_mm
    if patch > smallest:
        raise ValueError(f"--patch {patch} is larger than the phantoms ({smallest:g} voxels along their shortest "
                         f"axis at --spacing-mm {spacing_mm:g}): lower --patch or raise --size-mm")
    # Writing a phantom holds its voxel grid as int64 indices and float64 coordinates (data/synthetic.py),
    # 48 bytes a voxel at least; MONAI's CacheDataset then keeps every case's float32 image.
    voxels = math.prod(max(round(mm / spacing_mm), 1) for mm in size_mm)
    check_host_memory(max(48, 4 * cases) * voxels,
                      f"--cases {cases} --size-mm {' '.join(f'{mm:g}' for mm in size_mm)} --spacing-mm {spacing_mm:g}",
                      "the phantoms, as each is written and then in MONAI's cache, hold",
                      "lower --size-mm or --cases, or raise --spacing-mm")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the workers use the cores; the consumer only collates
    work = Path(data_dir or tempfile.mkdtemp(prefix="accelerated_seg_bench_"))
    try:
        with contextlib.ExitStack() as stopping:  # each loader's workers, before their folder goes (_measure_data)
            return _measure_data(stopping, work, cases, size_mm, spacing_mm, patch, workers, batch, batches,
                                 samples_per_volume, blocks)
    finally:
        torch.set_num_threads(threads)
        if data_dir is None:  # our own temporary folder; a --data-dir is kept for the next run
            shutil.rmtree(work, ignore_errors=True)


def _shortest_monai_crop(table) -> int:
    """The shortest axis of the phantoms as MONAI's tutorial pipeline crops them. Its CropForegroundd comes
    after NormalizeIntensityd, so it keeps the box of the voxels above the mean of the nonzero ones (above 0
    once z-scored), where ours takes the box of those above 0 before the scaling: 12 voxels where ours kept
    16, for 32 mm phantoms at 2 mm. Read from our z-scored arrays, whose values are MONAI's."""
    shortest = math.inf
    for case in table:
        kept = np.load(case["image"], mmap_mode="r").max(axis=0) > 0  # any channel, as CropForegroundd
        for axis in range(3):
            along = np.flatnonzero(kept.any(axis=tuple(other for other in range(3) if other != axis)))
            shortest = min(shortest, int(along[-1] - along[0] + 1) if along.size else 0)
    return shortest


def _measure_data(stopping: contextlib.ExitStack, work: Path, cases, size_mm, spacing_mm, patch, workers, batch,
                  batches, samples_per_volume, blocks) -> dict:
    """``benchmark_data``'s measurement, in ``work``. Each loader's workers are stopped as ``stopping`` closes,
    however the measurement ends, before ``work`` is removed: stopped by Ctrl-C or SIGTERM, the benchmark left them
    to the interpreter's exit, after removing it, until the hundred-and-fifth session (a worker then read a table no
    longer there: a FileNotFoundError traceback in 3 runs of 36, none in 36 since,
    benchmarks/results/stop_benchmark_data_workers_left_2cpu_*.json). A worker still starting as the stop comes
    belongs to no loader yet, and may meet it still."""
    from monai.data import CacheDataset, DataLoader
    from monai.transforms import (Compose, CropForegroundd, EnsureChannelFirstd, LoadImaged, NormalizeIntensityd,
                                  Orientationd, RandCropByPosNegLabeld, Spacingd)

    from .data.cache import PreprocessedCache
    from .data.loader import PatchDataset, train_loader
    from .data.manifest import load_cases
    from .data.preprocess import PreprocessSettings, case_dict
    from .data.synthetic import write_synthetic_dataset
    from .data.workers import spare_the_workers, stop_workers

    source = work / "data" / "dataset.json"
    # A --data-dir's phantoms are reused only where they are the ones asked for: other --cases or sizes
    # measured the old ones without a word before the seventy-first session.
    phantoms = {"cases": cases, "size_mm": list(size_mm), "spacing_mm": spacing_mm}
    asked = work / "phantoms.json"
    if not source.is_file() or not asked.is_file() or json.loads(asked.read_text()) != phantoms:
        write_synthetic_dataset(source.parent, num_cases=cases, num_validation=0, seed=0, size_mm=tuple(size_mm),
                                spacing_mm=spacing_mm)
        write_text_atomically(asked, json.dumps(phantoms))
    manifest = load_cases(source, validation_fraction=0.0)
    spacing = (spacing_mm,) * 3
    results = {"cases": len(manifest.training), "patch": [patch] * 3, "workers": workers, "batch": batch,
               "size_mm": list(size_mm), "spacing_mm": spacing_mm, "batches_per_block": batches, "blocks": blocks}

    # Ours: preprocessing cache (cold: any cache from an earlier run is removed), then patches
    # sliced from memory maps. Only a cache this benchmark made is removed: a --data-dir's own
    # "cache" folder, whatever it held, was deleted before the seventy-first session.
    cache_dir, ours_mark = work / "cache", work / "cache" / ".benchmark_data_cache"
    if cache_dir.exists() and not ours_mark.is_file():
        raise ValueError(f"{cache_dir} is not a cache this benchmark made, and the benchmark empties its cache "
                         f"for a cold start: give another --data-dir, or move that folder")
    shutil.rmtree(cache_dir, ignore_errors=True)
    cache_dir.mkdir(parents=True)
    ours_mark.touch()
    start = time.perf_counter()
    cache = PreprocessedCache(cache_dir, manifest.root, PreprocessSettings(spacing=spacing), manifest.num_classes)
    cache.build(manifest.training, workers=workers)  # MONAI's CacheDataset below also caches with `workers`
    table = cache.load_table(cache.write_table(manifest.training))
    preprocessing = time.perf_counter() - start
    # The phantoms as cropped to their foreground, by either pipeline: MONAI's random crop of a larger patch
    # stopped in a worker with a traceback, after ours had been measured (the field of view was checked, not
    # this; then our crop alone, which MONAI's is tighter than, until the ninety-third session).
    if (smallest := min(min(int(min(shape)) for shape in table["shape"]), _shortest_monai_crop(table))) < patch:
        raise ValueError(f"--patch {patch} is larger than the phantoms once cropped to their foreground "
                         f"({smallest} voxels along the shortest axis): lower --patch or raise --size-mm")
    ours = train_loader(PatchDataset(table, (patch,) * 3, samples_per_volume, 0.67, augment="none"),
                        batch, workers, seed=0)
    stopping.callback(stop_workers, ours)
    ours_batches = iter(_forever(ours))
    first_epoch = _first_epoch(ours_batches, len(ours))
    results["ours"] = {"cold_first_epoch_s": round(preprocessing + first_epoch, 2),
                       "preprocessing_s": round(preprocessing, 2)}

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
    # Each item gives samples_per_volume patches from one cached volume; with batch == samples_per_volume
    # both loaders hand over the same number of patches per batch (the per-batch transfer between
    # worker and main process is a large part of the cost on few cores).
    monai_loader = DataLoader(monai_set, batch_size=max(1, batch // samples_per_volume), shuffle=True,
                              num_workers=workers, persistent_workers=workers > 0)
    # Its forked workers leave SIGTERM to this process, as ours do, MONAI's seeding kept (as train.fit does to a
    # user's loader). torch's handler in a forked worker ends it on a SIGTERM from any process but its parent, as
    # SLURM's to the whole job: torch's SIGCHLD handler then raised "DataLoader worker ... is killed by signal" in
    # the clean-up of the benchmark that SIGTERM stopped (status 1, two tracebacks; the hundred-and-second session).
    spare_the_workers(monai_loader)
    stopping.callback(stop_workers, monai_loader)
    monai_batches = iter(_forever(monai_loader))
    first_epoch = _first_epoch(monai_batches, len(monai_loader))
    results["monai_tutorial"] = {"cold_first_epoch_s": round(caching + first_epoch, 2), "caching_s": round(caching, 2)}

    # Steady state: alternating blocks of the same number of patches each.
    monai_per_batch = max(1, batch // samples_per_volume) * samples_per_volume
    rates = _interleaved_rates({"ours": ours_batches, "monai_tutorial": monai_batches},
                               batches={"ours": batches, "monai_tutorial": max(1, batches * batch // monai_per_batch)},
                               drain={"ours": 4 * workers + 1, "monai_tutorial": 2 * workers + 1}, blocks=blocks)
    for name, block_rates in rates.items():
        results[name]["patches_per_s_blocks"] = block_rates
        results[name]["patches_per_s"] = float(statistics.median(block_rates))
    results["speedup_steady_state"] = round(results["ours"]["patches_per_s"]
                                            / results["monai_tutorial"]["patches_per_s"], 2)
    results["speedup_steady_state_per_block"] = [round(a / b, 2) for a, b in zip(rates["ours"], rates["monai_tutorial"])]
    results["speedup_cold_first_epoch"] = round(results["monai_tutorial"]["cold_first_epoch_s"]
                                                / results["ours"]["cold_first_epoch_s"], 2)
    # Batches our workers make while the untimed drain runs are ready when the block starts, free to
    # it: few timed batches of a fast patch read high (16^3 phantoms: 173x at --batches 1, 27.6x at 3,
    # 7.3x at 30, seventy-first session's probe). Said in the result, not corrected.
    ready = (ours.prefetch_factor or 0) * workers  # None without workers
    if batches < 4 * ready:
        results["note"] = (f"--batches {batches}: our loader may hold up to {ready} batches ready when a block "
                           f"starts, made while the drain ran; with few timed batches that reads high where patches "
                           f"are quick to make: use --batches {4 * ready} or more to see how much")
    return results


def _refuse_a_device_twice(devices: list[str]) -> None:
    """Each device is measured once: `--device cpu cpu` measured the CPU twice over, in twice the time, and the
    second measurement replaced the first in the result (ninety-third session's probe)."""
    from .config import ConfigError

    # cuda is cuda:0; the CPU is one device whatever index is written after it (torch takes cpu:1 as the CPU)
    chosen = [(device.type, 0 if device.type == "cpu" else device.index or 0) for device in map(torch.device, devices)]
    for number, device in enumerate(chosen):
        if device in chosen[:number]:
            first = devices[chosen.index(device)]
            again = "is given twice" if devices[number] == first else f"is {first} again"
            raise ConfigError(f"--device {devices[number]} {again}: each device is measured once, and a second "
                              f"measurement would replace the first in the result; give it once (more --blocks "
                              f"measure it longer)")


DEMO_UNET = {"channels": [16, 32, 64, 128], "strides": [2, 2, 2], "num_res_units": 1}  # configs/demo.yaml


def benchmark_infer(model_dir: str | None = None, size=(128, 128, 96), roi=(64, 64, 64), overlap: float = 0.5,
                    sw_batch_size: int = 4, tta: str = "none", blocks: int = 5, volumes: int = 1,
                    devices: list[str] | None = None, precision: str = "fp32",
                    on_measured: Callable[[dict], None] | None = None, measured_before: dict | None = None) -> dict:
    """Volumes/s of our prediction's network part against MONAI's ``sliding_window_inference``.

    Ours is ``inference.mirrored_probabilities``: the Gaussian sliding window of every TTA pass
    (``sliding_window_logits``, i.e. MONAI's ``sliding_window_inference`` with mode="gaussian"),
    the autocast wrapper, softmax and the TTA average. The baseline calls
    ``monai.inferers.sliding_window_inference`` with the same roi, overlap, sw_batch_size and
    mode="gaussian" once per TTA pass on the flipped volume. Both run on the same random volume in
    alternating timed blocks of ``volumes`` volumes (after one untimed warm-up each); the median
    and every block are recorded. Without ``model_dir`` the model is the demo's U-Net with random
    weights (``roi`` is its patch).

    ``precision`` (fp32, bf16, fp16 on CUDA only) applies to both: ours through ``--precision`` of
    prediction (autocast windows, float32 stitching), MONAI's as its users write it, the whole
    ``sliding_window_inference`` call under ``torch.autocast``.

    A third run, ``monai_same_output``, is MONAI's sliding window written out for what ours returns:
    each pass's softmax, flipped back, averaged, and handed to the host (prediction resamples the
    probabilities onto the scan's grid there). ``ratio_ours_to_monai_same_output`` is therefore our
    wrapping's own cost, and ``host_handover_ms`` (on a GPU) times that last copy by itself: on an
    H200 ours ran a constant ~50 ms per volume behind the bare sliding window.

    Each device is measured on its own (both ways alternating on it), so a stopped run's entries are
    kept as they are: ``measured_before`` holds them by device name (``results_so_far``), and
    ``on_measured`` gets the results so far (``complete`` False) after each device but the last. A device
    that runs out of memory raises ``results_so_far.OutOfMemory`` naming it, its entry unwritten.
    """
    from .exported_model import load_exported
    from .inference import PredictOptions, check_precision, default_device, mirror_axes, output_channels
    from .config import ConfigError
    from .models import ModelSpec, build_from_spec, check_trainable, model_spec
    from .results_so_far import out_of_memory_named

    for flag, sizes in (("--size", size), ("--roi", roi or ())):
        if len(sizes) not in (0, 3):  # a 2-value --roi once reached the model check as a 2D patch
            raise ConfigError(f"{flag} takes three edges in voxels (--roi also one, for a cube), got {len(sizes)}: "
                              f"{' '.join(map(str, sizes))}")
        if any(int(edge) < 1 for edge in sizes):
            raise ConfigError(f"{flag} needs sizes of at least 1 voxel, got {tuple(sizes)}")
    for flag, value in (("--blocks", blocks), ("--volumes", volumes), ("--sw-batch-size", sw_batch_size)):
        if value < 1:
            raise ConfigError(f"{flag} must be at least 1 (got {value})")
    devices = devices or (["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"])
    for device_name in devices:  # a device this machine lacks, a precision it cannot run: one error first
        check_precision(precision, default_device(device_name))
    _refuse_a_device_twice(devices)
    torch.manual_seed(0)  # the same random volume (and demo weights) in every run
    if model_dir:
        model, config = load_exported(model_dir)
        in_channels, classes, name = config["in_channels"], config["num_classes"], str(model_dir)
        roi = tuple(config["patch_size"]) if roi is None else tuple(roi)
        # a --roi the export's network cannot take was a traceback from inside the warm-up's sliding window
        with _roi_refused_by(f"the network of --model {model_dir}", roi):
            check_trainable(ModelSpec.from_dict(config["model"]), roi)
    else:
        in_channels, classes, name = 1, 3, "unet (demo args, random weights)"
        with _roi_refused_by("the demo U-Net used without --model", roi):
            spec = model_spec("unet", in_channels, classes, list(roi), DEMO_UNET)
            check_trainable(spec, roi)
        model = build_from_spec(spec)
    model.eval()
    options = PredictOptions(sw_batch_size=sw_batch_size, overlap=overlap, tta=tta, precision=precision)
    flips = mirror_axes(tta)
    # The float32 volume and its probabilities, which MONAI's same-output run hands to the host; on the CPU
    # both padded to one window, as the sliding window pads a smaller volume (--roi 100000: a traceback).
    padded = any(torch.device(d).type == "cpu" for d in devices)
    on_host = [max(edge, window) for edge, window in zip(size, roi)] if padded else size
    outputs = output_channels(config) if model_dir else classes
    check_host_memory(4 * (in_channels + outputs) * math.prod(on_host),
                      f"--size {' '.join(map(str, size))} --roi {' '.join(map(str, roi))}",
                      f"the volume{' (padded to one window)' if padded else ''} and its {outputs} outputs' "
                      f"probabilities hold", "lower --size or --roi")
    image = torch.randn(1, in_channels, *size)
    results = {"model": name, "volume": list(size), "roi": list(roi), "overlap": overlap, "precision": precision,
               "sw_batch_size": sw_batch_size, "tta": tta, "passes_per_volume": len(flips),
               "torch_threads": torch.get_num_threads(), "volumes_per_block": volumes,
               # as benchmark train's, so that a stopped run's is kept beside its devices (resumed_from)
               "load_average": {"before": load_average(), "after": None,
                                "guards": "both ways alternate block by block on each device after an untimed "
                                          "warm-up; medians of blocks; every block recorded; load average before "
                                          "and after"},
               "complete": False, "devices": {}}
    for device_name in devices:
        if measured_before and device_name in measured_before:
            results["devices"][device_name] = measured_before[device_name]
            continue
        # a device out of memory stops the run in one line, its entry unwritten, so a rerun measures it anew
        with out_of_memory_named(f"--device {device_name}", "lower --size, --roi or --sw-batch-size"):
            results["devices"][device_name] = _measure_device(model, image, torch.device(device_name), roi, options,
                                                              blocks, volumes, classes)
        results["load_average"]["after"] = load_average()
        if on_measured is not None and len(results["devices"]) < len(devices):
            on_measured(results)
    results["complete"] = True
    return results


def _measure_device(model, image: torch.Tensor, device: torch.device, roi, options, blocks: int, volumes: int,
                    classes: int) -> dict:
    """One device's entry of ``benchmark_infer``: ours, MONAI's bare sliding window and MONAI's with our output
    on ``image``, each warmed up, then timed in alternating blocks of ``volumes`` volumes. Nothing of it is
    kept until all is measured: a run stopped inside measures the device anew when run again."""
    from monai.inferers import sliding_window_inference

    from .inference import PRECISIONS, mirror_axes, mirrored_probabilities

    overlap, sw_batch_size, precision = options.overlap, options.sw_batch_size, options.precision
    flips, size = mirror_axes(options.tta), image.shape[2:]
    model.to(device)
    volume = image.to(device)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    @torch.no_grad()
    def ours():
        return mirrored_probabilities(model, volume, roi, options, device)

    @torch.no_grad()
    def monai():
        dtype = PRECISIONS[precision]
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            for axes in flips:
                sliding_window_inference(volume.flip(axes) if axes else volume, tuple(roi), sw_batch_size, model,
                                         overlap=overlap, mode="gaussian")

    @torch.no_grad()
    def monai_same_output():
        dtype = PRECISIONS[precision]
        total = None
        for axes in flips:
            with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                logits = sliding_window_inference(volume.flip(axes) if axes else volume, tuple(roi), sw_batch_size,
                                                  model, overlap=overlap, mode="gaussian")
            probs = torch.softmax(logits.float(), dim=1)
            probs = probs.flip(axes) if axes else probs
            total = probs if total is None else total.add_(probs)
        return (total / len(flips)).cpu()

    runs = {"ours": ours, "monai_sliding_window_inference": monai, "monai_same_output": monai_same_output}
    for run in runs.values():  # warm-up: allocator, kernels, caches
        run(), sync()
    rates = {key: [] for key in runs}
    for _ in range(blocks):
        for key, run in runs.items():
            start = time.perf_counter()
            for _ in range(volumes):
                run()
            sync()
            rates[key].append(round(volumes / (time.perf_counter() - start), 4))
    entry = {key: {"volumes_per_s": float(statistics.median(r)), "volumes_per_s_blocks": r}
             for key, r in rates.items()}
    entry["ratio_ours_to_monai"] = round(entry["ours"]["volumes_per_s"]
                                         / entry["monai_sliding_window_inference"]["volumes_per_s"], 3)
    entry["ratio_per_block"] = [round(a / b, 3) for a, b in zip(rates["ours"],
                                                              rates["monai_sliding_window_inference"])]
    entry["ratio_ours_to_monai_same_output"] = round(entry["ours"]["volumes_per_s"]
                                                     / entry["monai_same_output"]["volumes_per_s"], 3)
    entry["ratio_same_output_per_block"] = [round(a / b, 3) for a, b in zip(rates["ours"],
                                                                          rates["monai_same_output"])]
    entry["host_handover_ms"] = _host_handover_ms((1, classes, *size), device)
    if device.type == "cuda":
        entry["gpu"] = torch.cuda.get_device_name(device)
    return entry


@contextlib.contextmanager
def _roi_refused_by(network: str, roi):
    """A ConfigError inside, of a window ``network`` cannot take (not divisible by its strides, too small
    for its norms: ``models.check_trainable``), said as one of --roi."""
    from .config import ConfigError

    try:
        yield
    except ConfigError as error:
        raise ConfigError(f"--roi {' '.join(map(str, roi))} does not suit {network}: {error}") from None


def _host_handover_ms(shape, device: torch.device) -> float | None:
    """Median milliseconds of 5 copies of one volume of float32 probabilities of ``shape`` from ``device`` to
    the host, as prediction's last step on the device does; None on the CPU, where nothing moves."""
    if device.type == "cpu":
        return None
    probs = torch.rand(shape, device=device)
    times = []
    for _ in range(5):
        torch.cuda.synchronize(device)
        start = time.perf_counter()
        probs.cpu()  # synchronous: returns once the copy is done
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 2)


def script_command() -> str:
    """How a script under benchmarks/ was run, for ``write_result``: its thread count, if set, and its
    arguments, as the command to run it again from the repository's root."""
    threads = os.environ.get("OMP_NUM_THREADS")
    return (f"OMP_NUM_THREADS={threads} " if threads else "") + "PYTHONPATH=. python " + shlex.join(sys.argv)


# The default result files this process writes, by name: a run's partial results and its final ones go
# to one file, and a second run's to another.
_CLAIMED: dict[str, Path] = {}


def default_result_path(name: str) -> Path:
    """``benchmarks/results/<name>.json``, or ``<name>_2.json``, ``_3``, ... where an earlier run's result
    lies: a second run without ``--output`` replaced the first's (a probe in the seventy-eighth session),
    often a result measured on another machine. ``--output`` names the file to (re)write.

    The name is claimed by making its file, empty, which fails where another process has made it: two
    runs that chose at the same moment, each before the other had written, chose one name until the
    ninety-first session. The caller writes the result over the claim at once (``write_result``)."""
    if name not in _CLAIMED:
        RESULTS_FOLDER.mkdir(parents=True, exist_ok=True)
        _CLAIMED[name] = _claim_free_name(RESULTS_FOLDER, name)
    return _CLAIMED[name]


def claimed_results() -> list[Path]:
    """The default result files this process has claimed (``default_result_path``), each empty until its result is
    written over it: where a stopped benchmark looks for what it wrote (benchmark_stop.py)."""
    return list(_CLAIMED.values())


def _claim_free_name(folder: Path, stem: str) -> Path:
    """``folder/<stem>.json``, or ``<stem>_2.json``, ``_3``, ... the first that nothing holds, made empty."""
    path, number = folder / f"{stem}.json", 2
    while not _made_anew(path):
        path, number = folder / f"{stem}_{number}.json", number + 1
    return path


def _made_anew(path: Path) -> bool:
    """Make an empty file at ``path``; False where something is there already."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return False
    return True


def write_result(name: str, results: dict, output: str | Path | None, command: str | None = None) -> Path:
    """Write ``results`` with the date, the machine and the command that produced them, to ``output``,
    or to a file of this run's own under benchmarks/results (``default_result_path``)."""
    text = json.dumps({"benchmark": name, **provenance(command), **results}, indent=1)
    if output:
        return write_text_atomically(output, text)  # a killed run leaves the earlier result
    claimed_now = name not in _CLAIMED
    path = default_result_path(name)
    try:
        return write_text_atomically(path, text)
    except BaseException:
        if claimed_now:  # no empty file left behind, and the name is free again
            path.unlink(missing_ok=True)
            del _CLAIMED[name]
        raise


def provenance(command: str | None = None) -> dict:
    """The date, the machine and the command (default: this ``accelerated-seg`` command line) that a
    result file records beside its figures (benchmarks, and ``plan --json``)."""
    command = command or "accelerated-seg " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    return {"date": date.today().isoformat(), "machine": machine_info(), "command": command}
