"""``accelerated-seg``: the command line over the same pieces the Python API uses.

    accelerated-seg synth data/                      # write the embedded phantom dataset
    accelerated-seg check data/dataset.json          # pre-flight checks only
    accelerated-seg train --config configs/demo.yaml --optim.lr=3e-4
    accelerated-seg predict --model output/model --input x.nii.gz --output y.nii.gz

``train`` runs in this process; for several processes or GPUs start ``examples/train.py`` with
``accelerate launch`` (the strategy comes from the accelerate config file).
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="accelerated-seg", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("train", help="train as configured (this process; use accelerate launch for more)")
    p.add_argument("--config", help="experiment YAML; further --section.key=value arguments override it")
    p.add_argument("--resume", help="'latest' or a checkpoint folder (same as --train.resume=...)")

    p = commands.add_parser("synth", help="write the procedural phantom dataset (NIfTI + dataset.json)")
    p.add_argument("out_dir")
    p.add_argument("--cases", type=int, default=24)
    p.add_argument("--validation", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)

    p = commands.add_parser("check", help="pre-flight checks of a dataset.json and every file it lists")
    p.add_argument("dataset")

    p = commands.add_parser("predict", help="segment a NIfTI image with an exported model")
    p.add_argument("--model", required=True, help="exported model folder (config.json + model.safetensors)")
    p.add_argument("--input", required=True, nargs="+", help="image file(s), one per channel")
    p.add_argument("--output", required=True, help="label map to write (.nii.gz)")
    p.add_argument("--overlap", type=float, default=0.5)
    p.add_argument("--sw-batch-size", type=int, default=4)
    p.add_argument("--device", default=None)

    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "train":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return COMMANDS[args.command](args, rest)


def _train(args, overrides) -> int:
    from .config import load_config
    from .train import train

    if args.resume:
        overrides = [*overrides, f"--train.resume={args.resume}"]
    train(load_config(args.config, overrides))
    return 0


def _synth(args, _) -> int:
    from .data.synthetic import write_synthetic_dataset

    path = write_synthetic_dataset(args.out_dir, num_cases=args.cases, num_validation=args.validation, seed=args.seed)
    print(f"wrote {path}")
    return 0


def _check(args, _) -> int:
    from .data.checks import check_manifest
    from .data.errors import DataError
    from .data.manifest import load_msd

    try:
        manifest = load_msd(args.dataset)
        report = check_manifest(manifest)
    except DataError as error:
        print(error, file=sys.stderr)
        return 1
    for warning in report.warnings:
        print(f"warning: {warning}")
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    cases = len(manifest.training) + len(manifest.validation)
    print(f"{cases} case(s), {len(report.errors)} error(s), {len(report.warnings)} warning(s)")
    return 1 if report.errors else 0


def _predict(args, _) -> int:
    from .inference import predict_file

    out = predict_file(args.model, args.input, args.output, device=args.device,
                       sw_batch_size=args.sw_batch_size, overlap=args.overlap)
    print(f"wrote {out}")
    return 0


COMMANDS = {"train": _train, "synth": _synth, "check": _check, "predict": _predict}

if __name__ == "__main__":
    sys.exit(main())
