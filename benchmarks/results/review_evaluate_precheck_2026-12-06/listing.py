"""Run as: cd <worktree> && PYTHONPATH=<package's worktree>:<worktree>/tests OMP_NUM_THREADS=1 \
    /work/main/.venv/bin/python benchmarks/results/review_evaluate_precheck_2026-12-06/listing.py <empty folder>
(listing_before.txt: the package at b301db27, h106's change; listing_after.txt: branch r92.)
Review of helper h106: its header check raised alone, before the pre-flight check read the other validation cases.
Three validation cases: one in metres (a header of no unit), one whose image is gzip-truncated (its geometry fine), one
a 2D slice in metres. Printed: evaluate's refusal, a line per problem, and whether output_dir was made."""
import gzip
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
print("package:", Path(accelerated_seg.__file__).parent)
data = load_msd(write_synthetic_dataset(root / "data", num_cases=5, num_validation=3, seed=0,
                                        size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
validation = [(str(c.images[0]), str(c.label)) for c in data.validation]
(root / "given" / "labels").mkdir(parents=True)
metres = np.diag([1e-3, 1e-3, 1e-3, 1.0])
given = []
for index, (image, label) in enumerate(validation):
    pair = []
    for path, folder in ((image, ""), (label, "labels")):
        source, target = nib.load(path), root / "given" / folder / Path(path).name
        voxels = np.asanyarray(source.dataobj)
        if index == 0:  # in metres
            nib.save(nib.Nifti1Image(voxels, metres @ source.affine), target)
        elif index == 1 and folder == "":  # truncated
            whole = gzip.compress(gzip.decompress(Path(path).read_bytes()))
            target.write_bytes(whole[: len(whole) // 2])
        elif index == 1:
            nib.save(source, target)
        else:  # a 2D slice in metres
            nib.save(nib.Nifti1Image(voxels[:, :, 0], metres @ source.affine), target)
        pair.append(str(target))
    given.append(tuple(pair))
dataset = Dataset.from_files([(str(c.images[0]), str(c.label)) for c in data.training], block_shape=16, n_classes=3,
                             validation_pairs=given, num_workers=0, cache_dir=str(root / "cache"))
try:
    Segmentation.load(export(root / "model", spacing=(2.5,) * 3)).evaluate(dataset, output_dir=root / "out")
    print("scored")
except DataError as error:
    for line in str(error).splitlines():
        print(line[:170])
print("output_dir made:", (root / "out").exists())
