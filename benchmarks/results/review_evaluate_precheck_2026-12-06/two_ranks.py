"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/review_evaluate_precheck_2026-12-06/two_ranks.py <empty folder> > two_ranks.txt
Review of helper h106: under `accelerate launch` Segmentation.evaluate runs its checks on the main process alone
(ranks.on_main): does every rank get the header check's refusal (a validation case in metres) and return or raise
alike? Prepares a tiny model (tests/test_inference.export) and 3 phantoms (one rewritten in metres, header of no unit),
then launches this file twice over gloo (ACCELERATE_USE_CPU, 2 processes); each rank prints what evaluate gave it,
and the launch's status and time are printed. Then the same with every case fine: each rank's summary."""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1]).absolute()
if os.environ.get("RANK") is None:  # the launcher's side
    import nibabel as nib
    import numpy as np

    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from test_inference import export

    data = load_msd(write_synthetic_dataset(root / "data", num_cases=4, num_validation=2, seed=0,
                                            size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
    export(root / "model", spacing=(2.5,) * 3, cases_median_spacing=[2.0] * 3)
    (root / "metres" / "labels").mkdir(parents=True)
    pairs = [(str(c.images[0]), str(c.label)) for c in data.training]
    validation = [(str(c.images[0]), str(c.label)) for c in data.validation]
    rewritten = []
    for path, folder in zip(validation[1], ("", "labels")):  # the second case's image and label in metres
        image = nib.load(path)
        scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3] * 3 + [1.0]) @ image.affine)
        nib.save(scaled, root / "metres" / folder / Path(path).name)
        rewritten.append(str(root / "metres" / folder / Path(path).name))
    for name, cases in (("metres", [validation[0], tuple(rewritten)]), ("fine", validation)):
        (root / f"{name}.json").write_text(json.dumps({"pairs": pairs, "validation": cases}))
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2",
                               "--multi_gpu", "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend",
                               "no", "--main_process_port", str(port), __file__, str(root), name],
                              env=env, capture_output=True, text=True, timeout=300)
        print(f"== {name}: launch exit {done.returncode} in {time.perf_counter() - start:.1f} s")
        print("\n".join(line for line in done.stdout.splitlines() if line.startswith("rank")))
        if done.returncode:
            print(done.stderr[-1500:])
    sys.exit(0)

import warnings  # noqa: E402

from accelerated_seg.data.errors import DataError  # noqa: E402
from accelerated_seg.estimator import Dataset, Segmentation  # noqa: E402

warnings.simplefilter("ignore")
name = sys.argv[2]
given = json.loads((root / f"{name}.json").read_text())
dataset = Dataset.from_files([tuple(p) for p in given["pairs"]], block_shape=16, n_classes=3, num_workers=0,
                             validation_pairs=[tuple(p) for p in given["validation"]],
                             cache_dir=str(root / f"cache{os.environ['RANK']}"))
try:
    summary = Segmentation.load(root / "model").evaluate(dataset, output_dir=root / f"out_{name}")
    print(f"rank {os.environ['RANK']}: summary, num_cases {summary['num_cases']}", flush=True)
except DataError as error:
    print(f"rank {os.environ['RANK']}: {type(error).__name__}: {str(error).splitlines()[0]} / "
          f"{str(error).splitlines()[1][:120]}", flush=True)
