"""What prediction does on the host around the network, timed on the CPU: where it runs on a GPU machine
too. Before the network the scan is read and preprocessed; after it the probabilities are handed to
the host for the inverse spatial transforms (``_to_input_grid``) and the class map.

    PYTHONPATH=. python benchmarks/predict_tail.py [--output benchmarks/results/predict_tail_2cpu.json]

For a 192 x 192 x 160 scan with 3 classes (the size of `benchmark infer --size 192 192 160`), once on
the preprocessing grid (1 mm scan, 1 mm target: the inverse only undoes orientation and cropping)
and once resampled (0.8 x 0.8 x 2.5 mm scan to 1 mm: the inverse interpolates the probabilities):

- ``read_verify_ms``: ``read_nifti(verify_stream=True)``, prediction's check of the whole file first;
- ``preprocess_ms``: the preprocessing transform from the file (read again, orient, resample, crop,
  normalise);
- ``invert_ms``: ``_to_input_grid`` (MONAI's Invertd on the probabilities);
- ``argmax_ms`` against ``class_map_ms``: ``torch.argmax`` over the class axis against
  ``max(dim).indices``, which prediction and validation use since the thirty-first session;
- ``lookup_int64_ms`` against ``lookup_written_type_ms``: class index -> label value, through the
  int64 values as before, and through values already in the written type.

Medians of ``--repeats`` after one untimed pass; written with the machine and the command.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np
import torch

from accelerated_seg.benchmark import write_result
from accelerated_seg.data.io import read_nifti
from accelerated_seg.data.preprocess import PreprocessSettings, preprocess
from accelerated_seg.files import check_script_output
from accelerated_seg.inference import _to_input_grid, class_map, class_values, label_dtype

SHAPE = (192, 192, 160)
GRIDS = {"same_grid": (1.0, 1.0, 1.0), "resampled": (0.8, 0.8, 2.5)}  # scan spacing; the target is 1 mm


def median_ms(work, repeats: int) -> float:
    work()  # untimed: first touch of the result's pages
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def measure(spacing, folder: Path, repeats: int, classes: int = 3) -> dict:
    rng = np.random.default_rng(0)
    scan = folder / "scan.nii.gz"  # int16, as CT and most MR scans are stored
    nib.save(nib.Nifti1Image((rng.normal(size=SHAPE) * 100).astype(np.int16), np.diag([*spacing, 1.0])), scan)
    settings = PreprocessSettings(spacing=(1.0, 1.0, 1.0), label_map=((0, 0), (1, 1), (4, 2)))  # BraTS-like 4
    transform = preprocess(keys=["image"], settings=settings)
    image = transform({"image": str(scan)})["image"]
    probabilities = torch.softmax(torch.randn(classes, *image.shape[1:], generator=torch.Generator().manual_seed(0)), 0)
    restored = _to_input_grid(probabilities, image, transform)
    indices = class_map(restored).numpy()
    values = class_values(settings, classes)
    written = values.astype(label_dtype(values))
    return {"scan_spacing_mm": list(spacing), "preprocessed_grid": list(image.shape[1:]), "scan_grid": list(SHAPE),
            "read_verify_ms": median_ms(lambda: np.asanyarray(read_nifti(scan, verify_stream=True).dataobj), repeats),
            "preprocess_ms": median_ms(lambda: transform({"image": str(scan)}), repeats),
            "invert_ms": median_ms(lambda: _to_input_grid(probabilities, image, transform), repeats),
            "argmax_ms": median_ms(lambda: restored.argmax(0), repeats),
            "class_map_ms": median_ms(lambda: class_map(restored), repeats),
            "same_classes": bool(torch.equal(restored.argmax(0), class_map(restored))),
            "lookup_int64_ms": median_ms(lambda: values[indices], repeats),
            "lookup_written_type_ms": median_ms(lambda: written[indices], repeats)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    # No default path: a plain rerun replaced the committed result of that name until the ninety-first session
    parser.add_argument("--output", help="the result's file (default: benchmarks/results/predict_tail_<threads>cpu"
                                         ".json, or _2, _3, ... beside one there)")
    args = parser.parse_args(argv)
    check_script_output(parser, args.output, result_key="benchmark", kind="predict_tail")
    with tempfile.TemporaryDirectory() as folder:
        results = {name: measure(spacing, Path(folder), args.repeats) for name, spacing in GRIDS.items()}
    results["torch_threads"] = torch.get_num_threads()
    for name, entry in results.items():
        print(name, entry)
    path = write_result(f"predict_tail_{torch.get_num_threads()}cpu", results, args.output,
                        command="PYTHONPATH=. python benchmarks/predict_tail.py " + " ".join(sys.argv[1:]))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
