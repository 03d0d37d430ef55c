"""Peak memory of prediction's transforms against the estimates that decide where they run.

    python benchmarks/transform_memory.py --output benchmarks/results/transform_memory_2cpu.json

``predict --transforms-on-device`` runs the preprocessing and the inverse on the GPU only where
``inference.preprocess_bytes`` / ``inverse_bytes`` fit in half of its free memory, so these must not
fall short of what the transforms allocate. Here each transform runs on the CPU in a fresh process
(the same tensors a GPU would hold) and its peak is the growth of the process's resident high-water
mark (``VmHWM``, reset just before through ``/proc/self/clear_refs``; Linux only): a 192 x 192 x 160
int16 scan, at 1 mm (no resampling) and at 0.8 x 0.8 x 2.5 mm (resampled to 1 mm), 3 classes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

# One measurement in a fresh process: argv = scan path, "preprocess" or "inverse".
#: What its result is ("what"): --output replaces only a file of that.
WHAT = "peak resident memory of each transform (CPU) against its estimate"
_MEASURE = """
import json, sys, torch
from accelerated_seg.inference import inverse_bytes, prepare_case, preprocess_bytes, preprocessed_on, restore_case

def high_water():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024

def reset():
    with open("/proc/self/clear_refs", "w") as marks:
        marks.write("5")

path, what = sys.argv[1], sys.argv[2]
prepared = prepare_case({"in_channels": 1, "spacing": [1.0, 1.0, 1.0]}, [path], read_only=True)
cpu = torch.device("cpu")
if what == "preprocess":
    estimate = preprocess_bytes(prepared)
    reset(); start = high_water()
    preprocessed_on(prepared, cpu)
else:
    prepared = preprocessed_on(prepared, cpu)
    probabilities = torch.softmax(torch.randn(3, *prepared.image.shape[1:]), 0)
    estimate = inverse_bytes(prepared, 3)
    reset(); start = high_water()
    restore_case(prepared, probabilities, keep_probabilities=False)
print(json.dumps({"peak_mib": round((high_water() - start) / 2**20, 1), "estimate_mib": round(estimate / 2**20, 1)}))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="what", kind=WHAT)
    import nibabel as nib
    import numpy as np

    results = []
    with tempfile.TemporaryDirectory() as folder:
        for spacing in ((1.0, 1.0, 1.0), (0.8, 0.8, 2.5)):
            values = (1000 + np.random.default_rng(0).normal(size=(192, 192, 160)) * 100).clip(1, None)
            path = Path(folder) / "scan.nii.gz"
            nib.save(nib.Nifti1Image(values.astype(np.int16), np.diag([*spacing, 1.0])), path)
            for what in ("preprocess", "inverse"):
                done = subprocess.run([sys.executable, "-c", _MEASURE, str(path), what], capture_output=True,
                                      text=True, check=True)
                measured = json.loads(done.stdout.strip().splitlines()[-1])
                results.append({"transform": what, "scan_spacing_mm": list(spacing), **measured,
                                "estimate_over_peak": round(measured["estimate_mib"] / measured["peak_mib"], 2)})
                print(json.dumps(results[-1]))
    from accelerated_seg.benchmark import machine_info  # the rule's record, missing before the 73rd session

    report = {"what": WHAT,
              "date": date.today().isoformat(), "machine": machine_info(),
              "command": " ".join(["python", "benchmarks/transform_memory.py", *(argv or sys.argv[1:])]),
              "scan": "int16 192x192x160, model spacing 1 mm, 3 classes", "results": results}
    if args.output:
        write_text_atomically(args.output, json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
