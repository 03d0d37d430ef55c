"""``benchmark predict``: prediction of a folder of scans end to end, pipelined against one case at a time.

    accelerated-seg benchmark predict --cases 4 --size 192 192 160 --spacing 0.8 0.8 2.5

Both are ``inference_cases.predict_cases`` on the same scans, model and settings: the default, which reads
the next case and writes the previous one while the network runs (``inference_pipeline``), and
``sequential=True``. They run in alternating timed blocks of the whole folder (after one untimed
pass each), and their outputs are compared byte for byte. The three stages are also timed alone,
one case after another (``prepare_case``, ``case_prediction``, ``write_case``): one at a time a
case costs their sum, pipelined at best the longest, so ``stage_bound`` is the most the pipeline can
give on a machine with a core to spare for each stage. Each stage is also timed inside the timed
blocks of both ways (``stage_ms_in_blocks``): where the pipeline falls short of the bound,
``stage_slowdown_pipelined`` says which stage slowed when the others ran beside it (on a GPU machine,
1.30x against a bound of 2.09x in the thirty-fourth session).

The scans are random int16 volumes (positive, so the foreground crop keeps them whole) written with
the given voxel spacing; the model preprocesses to 1 mm, so a spacing other than 1 mm makes the
prediction resample on the way in and out, as a clinical scan does. Without ``--model`` the network
is a U-Net with random weights: the demo's channels by default, or smaller ones (``--channels 4 8``)
for the regime of a GPU machine, where the network takes a fraction of the host's time.
"""

from __future__ import annotations

import functools
import hashlib
import math
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import nibabel as nib
import numpy as np
import torch

from .benchmark import DEMO_UNET, check_host_memory
from .config import ConfigError
from .exported_model import read_export_config


#: The default U-Net's window edge (``--roi``) where no ``--model`` is given.
DEFAULT_ROI = 64

def benchmark_predict(model_dir: str | Path | None = None, cases: int = 4, size=(192, 192, 160),
                      spacing=(1.0, 1.0, 1.0), roi: int | None = None, channels: Sequence[int] | None = None,
                      overlap: float = 0.5, sw_batch_size: int = 4, blocks: int = 3, device: str | None = None,
                      seed: int = 0, transforms_on_device: bool = True) -> dict:
    """Cases/s of ``predict_cases`` pipelined and one case at a time (module docstring).

    Raises:
        ConfigError: a setting that cannot work, naming it, before anything is written.
    """
    from .inference import PredictOptions, default_device, runs_transforms_on_device

    # --cases 2 at least: one case has nothing to overlap with
    # --roi 0 is no window: it measured the default 64 without a word (`roi or 1`) until the seventy-first session
    for flag, value, least in (("--cases", cases, 2), ("--blocks", blocks, 1), ("--roi", 1 if roi is None else roi, 1),
                               ("--sw-batch-size", sw_batch_size, 1)):
        if value < least:
            raise ConfigError(f"{flag} must be at least {least} (got {value})")
    # Else measured with the export's network and window, without a word (--roi was dropped so until
    # the seventieth session).
    for flag, what, given in (("--channels", "channels", channels), ("--roi", "window edge", roi)):
        if model_dir is not None and given:
            raise ConfigError(f"{flag} sets the default U-Net's {what}; with --model the export's network and "
                              f"window are used: drop one of the two")
    # one value was MONAI's "the length of `channels` should be no less than 2. Change model.args", a 0 "Invalid
    # channel dimensions" of data.patch_size after three of torch's warnings: words the command has not
    if channels is not None and (len(channels) < 2 or min(channels) < 1):
        raise ConfigError(f"--channels takes the default U-Net's channels, one per stage: two or more of at least 1 "
                          f"(e.g. --channels 4 8), got {' '.join(map(str, channels))}")
    roi = DEFAULT_ROI if roi is None else roi
    if len(size) != 3 or min(size) < 1:
        raise ConfigError(f"--size takes three edges of at least 1 voxel, got {' '.join(map(str, size))}")
    if len(spacing) != 3 or not all(math.isfinite(mm) and mm > 0 for mm in spacing):  # nan: nibabel's traceback
        raise ConfigError(f"--spacing takes three finite voxel sizes in mm above 0, got {' '.join(map(str, spacing))}")
    # a bad --overlap before any file is written
    options = PredictOptions(sw_batch_size=sw_batch_size, overlap=overlap,
                             transforms_on_device=transforms_on_device)
    device = default_device(device)
    lower = "lower --size" if model_dir else "lower --size or --roi"  # an export's window is its own
    with tempfile.TemporaryDirectory(prefix="benchmark_predict_") as work:
        work = Path(work)
        if model_dir is None:
            model_dir, network = _random_unet_export(work / "model", roi, channels, seed)
        else:
            network = str(model_dir)
        export = read_export_config(model_dir)  # a broken or foreign export fails here
        in_channels, window = export["in_channels"], export["patch_size"]
        _check_host_memory(size, window, in_channels, export, device, lower)
        scans = _write_scans(work / "scans", cases, size, spacing, seed, in_channels)
        stages = _stage_times(model_dir, scans, device, options, work / "stages")
        rates, in_blocks = _interleaved(model_dir, scans, device, options, blocks, work)
        same = _digests(work / "pipelined") == _digests(work / "sequential")
    ratios = [round(p / s, 3) for p, s in zip(rates["pipelined"], rates["sequential"])]
    medians = {stage: float(statistics.median(times)) for stage, times in stages.items()}
    in_blocks_ms = {way: {stage: round(float(statistics.median(times)), 1) for stage, times in per_stage.items()}
                    for way, per_stage in in_blocks.items()}
    return {
        "model": network, "cases": cases, "scan_size": list(size), "scan_spacing_mm": list(spacing),
        "roi": window,  # the sliding window measured: the export's, or --roi's for the default U-Net
        "overlap": overlap, "sw_batch_size": sw_batch_size,
        # what ran, not what was asked: on a CPU everything is on the host whatever the option
        "transforms_on_device": runs_transforms_on_device(device, options),
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "stage_ms_median": {stage: round(ms, 1) for stage, ms in medians.items()},
        "stage_ms_per_case": stages,
        "stage_bound": round(sum(medians.values()) / max(medians.values()), 3),
        "sequential": {"cases_per_s": float(statistics.median(rates["sequential"])),
                       "cases_per_s_blocks": rates["sequential"]},
        "pipelined": {"cases_per_s": float(statistics.median(rates["pipelined"])),
                      "cases_per_s_blocks": rates["pipelined"]},
        "ratio_pipelined_to_sequential": float(statistics.median(ratios)),
        "ratio_per_block": ratios,
        "stage_ms_in_blocks": in_blocks_ms,
        "stage_slowdown_pipelined": {stage: round(ms / in_blocks_ms["sequential"][stage], 3)
                                     for stage, ms in in_blocks_ms["pipelined"].items()},
        "same_outputs": same,
    }


def _check_host_memory(size, window, in_channels: int, export: dict, device: torch.device, lower: str) -> None:
    """Refuse scans whose writing or prediction cannot fit in the host's memory (``check_host_memory``): each
    random scan is drawn in float64, two copies of it at once (``_write_scans``; numpy's MemoryError
    before); on the CPU its prediction holds at least one window of float32 image and probabilities,
    as the sliding window pads a smaller volume to it (--roi 100000: torch's allocator traceback)."""
    from .inference import output_channels

    need = 16 * math.prod(size)
    if device.type == "cpu":
        need = max(need, 4 * (in_channels + output_channels(export)) * math.prod(window))
    check_host_memory(need, f"--size {' '.join(map(str, size))}, window {'x'.join(map(str, window))}",
                      "writing each random scan, or predicting it, holds", lower)


def _write_scans(folder: Path, cases: int, size, spacing, seed: int, in_channels: int = 1) -> list[list[Path]]:
    """int16 scans, positive (the foreground crop keeps them whole), with ``spacing`` mm voxels; for a
    model of several channels one file per channel, named as predict groups them (``<case>_0000``...).
    Returns each case's files."""
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    scans = []
    for index in range(cases):
        names = [f"scan_{index:03d}"] if in_channels == 1 else [f"scan_{index:03d}_{c:04d}" for c in range(in_channels)]
        scans.append([])
        for name in names:
            values = (1000 + rng.normal(size=tuple(size)) * 100).clip(1, None).astype(np.int16)
            scans[-1].append(folder / f"{name}.nii.gz")
            nib.save(nib.Nifti1Image(values, np.diag([*map(float, spacing), 1.0])), scans[-1][-1])
    return scans


def _random_unet_export(folder: Path, roi: int, channels: Sequence[int] | None, seed: int) -> tuple[Path, str]:
    """An export of a U-Net with random weights, preprocessing to 1 mm, as training writes one."""
    from .exported_model import write_export
    from .data.preprocess import PreprocessSettings
    from .models import build_from_spec, check_trainable, model_spec

    args = dict(DEMO_UNET)
    if channels:
        args.update(channels=list(channels), strides=[2] * (len(channels) - 1))
    patch = [roi] * 3
    try:  # the window must suit the network: divisible by its strides, deep enough for its norm
        spec = model_spec("unet", 1, 3, patch, args)
        check_trainable(spec, patch)
    except ConfigError as error:
        raise ConfigError(f"--roi {roi} with --channels {' '.join(map(str, args['channels']))}: {error}") from None
    torch.manual_seed(seed)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "one", "2": "two"}, "channels": {"0": "image"}, "in_channels": 1,
                "num_classes": 3, "patch_size": patch, "spacing": [1.0, 1.0, 1.0],
                "preprocessing": PreprocessSettings(spacing=(1.0, 1.0, 1.0)).to_dict()}
    write_export(tensors, spec.to_dict(), metadata, folder)
    return folder, f"unet channels {args['channels']} (random weights)"


def _stage_times(model_dir, scans: list[list[Path]], device: torch.device, options,
                 out: Path) -> dict[str, list[float]]:
    """Milliseconds of each stage for each case, one stage after the other (one untimed case first)."""
    from .exported_model import load_exported
    from .inference import case_prediction, prepare_case, runs_transforms_on_device, write_case

    model, config = load_exported(model_dir)
    model.to(device)
    out.mkdir()
    times: dict[str, list[float]] = {"prepare": [], "network": [], "write": []}
    for number, channels in enumerate([scans[0], *scans]):
        clock = _StageClock(device)
        read_only = runs_transforms_on_device(device, options)  # as predict_cases prepares on that road
        prepared = clock.time("prepare", lambda: prepare_case(config, channels, read_only=read_only))
        prediction = clock.time("network", lambda: case_prediction(model, config, prepared, device=device,
                                                                   options=options))
        clock.time("write", lambda: write_case(prepared, prediction, out / channels[0].name))
        if number:  # the first is a warm-up
            for stage, ms in clock.ms.items():
                times[stage].append(ms)
    return times


class _StageClock:
    def __init__(self, device: torch.device):
        self.device, self.ms = device, {}

    def time(self, stage: str, work):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        start = time.perf_counter()
        result = work()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self.ms[stage] = round((time.perf_counter() - start) * 1000, 1)
        return result


def _interleaved(model_dir, scans: list[list[Path]], device: torch.device, options, blocks: int,
                 work: Path) -> tuple[dict[str, list[float]], dict[str, dict[str, list[float]]]]:
    """Cases/s of each way in alternating timed blocks of the whole folder, after one untimed pass each;
    and the milliseconds of each stage of each case in those blocks, by way."""
    from .inference_cases import predict_cases

    def run(way: str) -> float:
        start = time.perf_counter()
        predict_cases(model_dir, [scans[0][0].parent], work / way, device=device, overlap=options.overlap,
                      sw_batch_size=options.sw_batch_size,
                      transforms_on_device=options.transforms_on_device,
                      sequential=way == "sequential")
        return time.perf_counter() - start

    ways = ("sequential", "pipelined")
    for way in ways:
        run(way)
    rates: dict[str, list[float]] = {way: [] for way in ways}
    in_blocks = {way: {"prepare": [], "network": [], "write": []} for way in ways}
    for _ in range(blocks):
        for way in ways:
            with _stages_timed(in_blocks[way]):
                rates[way].append(round(len(scans) / run(way), 4))
    return rates, in_blocks


# Prediction's three stages, as ``inference_cases.segment_cases`` calls them: it looks each up in its module at
# every case, so a timed stand-in put there is what both ways run (tests/test_benchmark.py checks it).
_STAGE_FUNCTIONS = {"prepare": "prepare_case", "network": "case_prediction", "write": "write_case"}


@contextmanager
def _stages_timed(into: dict[str, list[float]]) -> Iterator[None]:
    """While inside, append the milliseconds of every call of each stage to ``into[stage]`` (from any
    thread: the pipeline runs prepare and write on helpers). The network stage hands its probabilities
    (or with transforms_on_device the class map) to the host, which waits for the device, so its wall
    time is the device's too."""
    from . import inference_cases

    def timed(stage: str, function):
        @functools.wraps(function)
        def stage_timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                into[stage].append(round((time.perf_counter() - start) * 1000, 1))
        return stage_timed

    originals = {name: getattr(inference_cases, name) for name in _STAGE_FUNCTIONS.values()}
    for stage, name in _STAGE_FUNCTIONS.items():
        setattr(inference_cases, name, timed(stage, originals[name]))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(inference_cases, name, function)


def _digests(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}
