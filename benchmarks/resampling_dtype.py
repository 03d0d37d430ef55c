"""Time MONAI's resampling (``Spacing``, linear) in float64, its default, and in float32, which our
preprocessing asks for, by the number of channels resampled.

    python benchmarks/resampling_dtype.py --output benchmarks/results/resampling_dtype_2cpu.json

A 192 x 192 x 160 float32 volume at 0.8 x 0.8 x 2.5 mm resampled to 1 mm (154 x 154 x 398), as
``benchmark predict --spacing 0.8 0.8 2.5`` and ``prepare_case_ab.py`` do: one channel as the read
stage resamples an image, three as the write stage's inverse resamples a 3-class prediction. The two
dtypes alternate ``--rounds`` times; each time is the best of ``--repeats`` calls, and the result is
the median over rounds. Written for the thirty-sixth session, to say why float32 took a third off
the inverse but little off the read stage.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch
from monai.data import MetaTensor
from monai.transforms import Spacing

from accelerated_seg.benchmark import machine_info
from accelerated_seg.files import check_script_output, write_text_atomically

#: What its result is ("what"): --output replaces only a file of that.
WHAT = "ms of MONAI's Spacing (bilinear) per call, float64 against float32, by channels"
DTYPES = {"float64": torch.float64, "float32": torch.float32}


def best_ms(transform: Spacing, image: MetaTensor, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        transform(image)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="calls per round; the best is kept")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    check_script_output(parser, args.output, result_key="what", kind=WHAT)
    affine = torch.diag(torch.tensor([0.8, 0.8, 2.5, 1.0], dtype=torch.float64))
    generator = torch.Generator().manual_seed(0)
    rows = []
    for channels in args.channels:
        image = MetaTensor(torch.randn(channels, 192, 192, 160, generator=generator), affine=affine)
        transforms = {name: Spacing(pixdim=(1.0, 1.0, 1.0), mode="bilinear", dtype=dtype)
                      for name, dtype in DTYPES.items()}
        rounds: dict[str, list[float]] = {name: [] for name in DTYPES}
        for _ in range(args.rounds):
            for name, transform in transforms.items():
                rounds[name].append(round(best_ms(transform, image, args.repeats), 1))
        median = {name: statistics.median(ms) for name, ms in rounds.items()}
        rows.append({"channels": channels, "ms_per_round": rounds, "ms_median": median,
                     "float32_over_float64": round(median["float32"] / median["float64"], 3)})
        print(json.dumps(rows[-1]))
    result = {"what": WHAT,
              "command": " ".join(["python", "benchmarks/resampling_dtype.py",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "volume": "float32 192x192x160 at 0.8x0.8x2.5 mm to 1 mm (154x154x398)",
              "torch_threads": torch.get_num_threads(), "machine": machine_info(), "results": rows}
    if args.output:
        write_text_atomically(args.output, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
