"""What starting the training loader's workers from the fork server costs, against forking them from
the training process (the DataLoader's default on Linux, and ours until the twenty-third session).

    PYTHONPATH=. python benchmarks/worker_start.py --repeats 5 --output benchmarks/results/worker_start_2cpu.json
    PYTHONPATH=. python benchmarks/worker_start.py --train configs/demo.yaml --repeats 4 \
        --output benchmarks/results/worker_start_training_2cpu.json

Each measurement runs in a fresh Python process, as a training run starts: it imports torch and
MONAI, opens the patch dataset over a preprocessed cache of phantoms, then times

- `first_batch_s`: building the training loader (`data.loader.train_loader`, the same settings as
  training) and taking its first batch, with the workers started by `fork` or by `forkserver`. For
  the fork server this includes starting the server itself, which imports torch and MONAI once per
  training process (`data.workers.WORKER_PRELOAD`);
- `second_loader_s`: the same for a second loader in the same process (a benchmark's next
  configuration; the server is already running);
- `steady_batches_per_s`: the rate of the next batches of the first loader, to show that the
  workers run as fast either way once started.

With ``--train CONFIG`` it times whole short training runs instead, the cost as a user meets it:
`train_s`, ``train()`` of that config for 2 optimizer steps without validation, in a fresh
process, after one untimed run without workers has written the data and filled the preprocessing
cache; the workers forked or started from the fork server.

The variants alternate, run by run, so that a drift of the host's speed falls on both.
Why the fork server: docs/known_issues.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

METHODS = ("fork", "forkserver")
WARM_UP = "warm-up"  # --train's untimed first run, without workers


def _use_start_method(method: str) -> None:
    """Make train_loader start its workers by ``method``: "forkserver" is what it does already."""
    import multiprocessing

    from accelerated_seg.data import loader as loader_module

    if method == "fork":  # train_loader asks worker_start_method for its context
        fork = multiprocessing.get_context("fork")
        loader_module.worker_start_method = lambda num_workers: fork if num_workers else None


def _one(method: str, root: Path, patch: int, batch: int, workers: int, batches: int) -> dict:
    """One fresh process's measurement (run as ``--one``)."""
    # torch before the clock starts, as a training process has it by then; imported by name because the
    # import is the point, which pyflakes took for an unused one
    importlib.import_module("torch")

    from accelerated_seg.data import loader as loader_module
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.preprocess import PreprocessSettings

    manifest = load_msd(root / "phantoms" / "dataset.json")
    cache = PreprocessedCache(root / "cache", manifest.root, PreprocessSettings(spacing=(1.0, 1.0, 1.0)),
                              manifest.num_classes)
    table = cache.load_table(cache.write_table(manifest.training))
    dataset = loader_module.PatchDataset(table, (patch,) * 3, samples_per_volume=64, augment="light")

    _use_start_method(method)
    timings = {}
    start = time.perf_counter()
    first = iter(loader_module.train_loader(dataset, batch, workers, seed=0))
    next(first)
    timings["first_batch_s"] = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(batches):
        next(first)
    timings["steady_batches_per_s"] = batches / (time.perf_counter() - start)
    start = time.perf_counter()
    next(iter(loader_module.train_loader(dataset, batch, workers, seed=1)))
    timings["second_loader_s"] = time.perf_counter() - start
    return timings


def _one_training(method: str, config: Path, out: Path) -> dict:
    """One fresh process's short training run (run as ``--one-training``); with method ``WARM_UP``, one
    without loader workers, which only writes the data and fills the preprocessing cache."""
    from accelerated_seg import train as train_module
    from accelerated_seg.config import load_config

    overrides = [f"--train.output_dir={out}", "--train.overwrite=true", "--train.max_steps=2",
                 "--train.val_every=0", "--train.save_every=0", "--train.progress_bar=false"]
    if method == WARM_UP:  # no fork server to start (seconds of imports): nothing of it is timed
        overrides.append("--data.num_workers=0")
    else:
        _use_start_method(method)
    cfg = load_config(config, overrides)
    start = time.perf_counter()
    train_module.train(cfg)
    return {"train_s": time.perf_counter() - start, "num_workers": cfg.data.num_workers}


def _compare_training(args) -> dict:
    def run(method: str) -> dict:
        out = subprocess.run([sys.executable, __file__, "--one-training", method, "--train", str(args.train),
                              "--root", tmp], capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    with tempfile.TemporaryDirectory(prefix="worker_start_") as tmp:
        run(WARM_UP)  # untimed: writes the data and fills the preprocessing cache
        runs = {method: [] for method in METHODS}
        for repeat in range(args.repeats):
            for method in METHODS if repeat % 2 == 0 else METHODS[::-1]:
                runs[method].append(run(method))
    return runs


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per start method")
    parser.add_argument("--patch", type=int, default=64)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batches", type=int, default=20, help="batches timed after the first")
    parser.add_argument("--train", type=Path, metavar="CONFIG",
                        help="time short training runs of this config instead, workers forked or from the fork server")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--one", choices=METHODS, help=argparse.SUPPRESS)
    parser.add_argument("--one-training", choices=(*METHODS, WARM_UP), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from accelerated_seg.files import check_script_output

    check_script_output(parser, args.output, result_key="benchmark", kind=_result_name(args))
    if args.one:
        print(json.dumps(_one(args.one, args.root, args.patch, args.batch, args.workers, args.batches)))
        return
    if args.one_training:
        print(json.dumps(_one_training(args.one_training, args.train, args.root / "run")))
        return

    from accelerated_seg.benchmark import machine_info

    if args.train:
        runs = _compare_training(args)
        _report(_result_name(args), runs, args, machine_info())
        return
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    with tempfile.TemporaryDirectory(prefix="worker_start_") as tmp:
        root = Path(tmp)
        size_mm = (1.25 * args.patch,) * 3
        dataset_json = write_synthetic_dataset(root / "phantoms", num_cases=4, num_validation=0, seed=0,
                                               size_mm=size_mm, spacing_mm=1.0)
        manifest = load_msd(dataset_json)
        PreprocessedCache(root / "cache", manifest.root, PreprocessSettings(spacing=(1.0, 1.0, 1.0)),
                          manifest.num_classes).build(manifest.training)
        runs = {method: [] for method in METHODS}
        for repeat in range(args.repeats):
            for method in METHODS if repeat % 2 == 0 else METHODS[::-1]:
                out = subprocess.run([sys.executable, __file__, "--one", method, "--root", str(root),
                                      "--patch", str(args.patch), "--batch", str(args.batch),
                                      "--workers", str(args.workers), "--batches", str(args.batches)],
                                     capture_output=True, text=True, check=True)
                runs[method].append(json.loads(out.stdout.strip().splitlines()[-1]))
    _report(_result_name(args), runs, args, machine_info())


def _result_name(args) -> str:
    """The result's "benchmark": a --train run's is worker_start_training."""
    return "worker_start_training" if args.train else "worker_start"


def _report(name: str, runs: dict, args, machine: dict) -> None:
    summary = {variant: {key: round(statistics.median(run[key] for run in measured), 3) for key in measured[0]}
               for variant, measured in runs.items()}
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                if k not in ("one", "one_training", "root")}
    record = {"benchmark": name, "machine": machine, "command": " ".join(sys.argv), "settings": settings,
              "median": summary, "runs": runs}
    for variant, values in summary.items():
        print(f"{variant:>15}: " + ", ".join(f"{key} {value:g}" for key, value in values.items()))
    if args.output:
        from accelerated_seg.files import write_text_atomically

        write_text_atomically(args.output, json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
