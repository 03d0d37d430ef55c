"""``accelerated-seg benchmark data|infer|predict|train``: each target's options checked before the imports
(an --output that would lose the measurement, a --model that is no export, benchmark train's numbers), then
benchmark.py, benchmark_predict.py or benchmark_train.py measures and the result is written.

What is measured is imported inside ``_measured``, after those checks, as the command line's imports are.
"""

from __future__ import annotations

import json
import os
import sys

from .benchmark_stop import BenchmarkResult
from .collector import importing_without_collection
from .launcher_report import say_the_error
from .predict_options import in_flag_words
from .written_since import said_if_stopped


def run(args, _) -> int:
    """The benchmark measured and its result written; a stop of ``data``, ``infer`` or ``predict`` (Ctrl-C, SIGTERM,
    SIGUSR1) says what it wrote (benchmark_stop.py: nothing said until the hundred-and-twenty-first session).
    ``train`` keeps SIGTERM's default, its configurations so far kept as each is measured (docs/stopping.md)."""
    if args.target == "train":
        return _measured(args, None)
    return said_if_stopped(f"benchmark {args.target}", lambda noted: BenchmarkResult(args.target, args.output, noted),
                           lambda result: _measured(args, result))


def _measured(args, result: BenchmarkResult | None) -> int:
    """The benchmark's checks, imports, measurement and result; its status. ``result``: where a stop looks for what
    was written (infer's results so far are set there), None for ``train``."""
    from .config import ConfigError, check_network_name
    from .data.errors import DataError
    from .files import RESULTS_FOLDER, check_default_output_folder, check_output_file
    from .model_folders import read_export_json

    try:  # before the measurement, and the imports (predict's --model says why)
        if args.output:  # the measurement would be lost
            check_output_file(args.output, "--output", result_key="benchmark", kind=f"{args.target}_")
        else:
            check_default_output_folder(RESULTS_FOLDER, "--output")
        if args.target in ("predict", "infer") and args.model:
            read_export_json(args.model)
        if args.target == "train":  # there --model names networks
            for name in args.model:
                check_network_name(name, "--model")
            _check_benchmark_train_numbers_given(args)
    except (ConfigError, FileNotFoundError, DataError) as error:
        say_the_error(str(error))  # every rank stops, one says why
        return 2
    with importing_without_collection():  # collector.py says why; what is measured runs after it
        import torch

        from .benchmark import benchmark_data, benchmark_infer, write_result
        from .data.workers import fork_server_stopped_where_started_inside
        from .results_so_far import OutOfMemory, ResultsSoFar

        if args.target == "train":
            from .benchmark_train import run_from_cli
        elif args.target == "predict":
            from .benchmark_predict import benchmark_predict
    if args.target == "train":
        return run_from_cli(args)
    if args.target == "predict":
        try:
            results = benchmark_predict(args.model, cases=args.cases, size=tuple(args.size), spacing=tuple(args.spacing),
                                        roi=args.roi, channels=args.channels, overlap=args.overlap,
                                        sw_batch_size=args.sw_batch_size, blocks=args.blocks, device=args.device,
                                        transforms_on_device=args.transforms_on_device)
        except (ValueError, OSError) as error:  # ConfigError and DataError are ValueErrors
            print(f"error: {in_flag_words(error)}", file=sys.stderr)
            return 2
        device = "cuda" if results["device"].startswith("cuda") else results["device"]
        path = write_result(f"predict_{device}_{os.cpu_count()}cpu", results, args.output, args.command_line)
        print(json.dumps({k: v for k, v in results.items() if k != "stage_ms_per_case"}, indent=1))
        print(f"wrote {path}")
        return 0
    if args.target == "infer":
        roi = None if args.roi is None else tuple(args.roi * 3 if len(args.roi) == 1 else args.roi)
        if roi is None and not args.model:
            roi = (64, 64, 64)
        name = f"infer_{os.cpu_count()}cpu{'' if args.precision == 'fp32' else f'_{args.precision}'}"
        so_far = ResultsSoFar(args.output, args.command_line, kind="infer")  # a device's entry once it is measured
        result.so_far = so_far

        def measured(partial: dict) -> None:
            device, entry = list(partial["devices"].items())[-1]
            print(f"{device}: ours / MONAI {entry['ratio_ours_to_monai']}  (so far in {so_far.write(name, partial)})",
                  flush=True)

        try:
            kept = so_far.pick_up({"torch_threads": torch.get_num_threads()})
            if kept:
                print(f"picked up {', '.join(kept)} from {so_far.picked_up_from}, measured by a stopped run of this "
                      f"command on {so_far.picked_up['date']} with this machine, code and settings; measuring the "
                      f"others (move the file away to measure all anew)", flush=True)
            results = benchmark_infer(args.model, size=tuple(args.size), roi=roi, overlap=args.overlap,
                                      sw_batch_size=args.sw_batch_size, tta=args.tta, blocks=args.blocks,
                                      volumes=args.volumes, devices=args.device, precision=args.precision,
                                      on_measured=measured, measured_before=kept)
        # a setting the device cannot run (fp16 on a CPU, an unknown TTA mode), a --model that is not an export,
        # a partial file of another run
        except (ValueError, OSError) as error:
            print(f"error: {in_flag_words(error)}", file=sys.stderr)
            return 2
        except OutOfMemory as error:  # torch's traceback until the ninety-fifth session
            print(f"error: {error} ({so_far.kept_before_it()})", file=sys.stderr)
            return 1
        path = so_far.finish(name, results)
        print(json.dumps(results, indent=1))
        print(f"wrote {path}")
        return 0
    try:
        # its loaders' workers are stopped inside: a server it started would outlive the command's exit
        with fork_server_stopped_where_started_inside():
            results = benchmark_data(cases=args.cases, size_mm=args.size_mm, spacing_mm=args.spacing_mm,
                                     patch=args.patch, workers=args.workers, batch=args.batch, batches=args.batches,
                                     blocks=args.blocks, data_dir=args.data_dir)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    path = write_result(f"data_{os.cpu_count()}cpu", results, args.output, args.command_line)
    print(json.dumps(results, indent=1))
    print(f"wrote {path}")
    return 0


def _check_benchmark_train_numbers_given(args) -> None:
    """benchmark train's numbers, checked before torch and MONAI import: a --steps 0 waited 3-5 s for them to
    be refused. benchmark_train_settings.check_settings checks them again with what needs the device or the network.
    --num-workers or --augment-on without --data real too, which waited for the imports (about 12 s on a busy
    host) until the ninety-fourth session."""
    from .benchmark_train_checks import check_augment_used, check_numbers, check_workers_used

    workers = 0 if args.num_workers is None else args.num_workers  # not given: the default, nothing amiss
    check_numbers(args.patch, args.batch, args.precision, args.steps, args.blocks, args.warmup_blocks, args.classes,
                  args.epoch_samples, workers, args.ddp_bucket_mb, args.peak_tflops, args.price_per_gpu_hour)
    check_workers_used(args.num_workers, args.data)  # after the numbers: a --num-workers -1 is refused as one
    check_augment_used(args.augment_on, args.data)  # ahead of the checks after the imports (a value given twice)
