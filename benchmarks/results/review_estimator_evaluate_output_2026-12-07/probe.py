"""Segmentation.evaluate(data, output_dir=X) for the --output refusals h120 added to check_output_folder: is X told
as the command line tells --output? Command:
cd /tmp/wt_r104 && PYTHONPATH=<tree>:/tmp/wt_r104/tests python \
    benchmarks/results/review_estimator_evaluate_output_2026-12-07/probe.py
"""
import shutil, tempfile, warnings
from pathlib import Path

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.data.formats.msd import load_msd
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(tempfile.mkdtemp())
dataset = write_synthetic_dataset(root / "d", num_cases=3, num_validation=1, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
manifest = load_msd(dataset)
pairs = lambda cases: [(str(c.images[0]), str(c.label)) for c in cases]
data = Dataset.from_files(pairs(manifest.training), block_shape=16, n_classes=3,
                          validation_pairs=pairs(manifest.validation), num_workers=0, cache_dir=str(root / "cache"))
model = Segmentation.load(export(root / "model"))
(root / "loop").symlink_to(root / "loop")
(root / "dangling").symlink_to(root / "nowhere")
for name, out in {"a name of 300 bytes": root / ("a" * 300), "a link in a loop": root / "loop",
                  "a dangling link": root / "dangling", "through a loop": root / "loop" / "eval"}.items():
    try:
        model.evaluate(data, output_dir=out)
        said = "evaluated"
    except Exception as error:
        said = f"{type(error).__name__}: {error}"
    print(f"[{name}]\n    {said.replace(str(root), 'TMP')[:400]}")
shutil.rmtree(root, ignore_errors=True)
