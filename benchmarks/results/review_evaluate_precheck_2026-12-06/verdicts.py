"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/review_evaluate_precheck_2026-12-06/verdicts.py <empty folder> > verdicts_<before|after>.txt
(verdicts_before.txt: h106's change, b301db27; verdicts_after.txt: branch r92.)
Review of helper h106 (hundred-and-nineteenth session): does Segmentation.evaluate's header check
(estimator_predict_checks.check_evaluation_headers) give, for each kind of validation case, the verdict predict gives
the same files? Each case is given (1) to Segmentation.evaluate alone, as a Dataset of that one validation case (its
refusal's first problem line, and whether estimator_predict_checks.check_evaluation_headers raised it, "[header
check]": at b301db27 its own refusals alone, on r92 those listed with the pre-flight check's; else the error's type),
and (2) to
predict_file, the same model (its refusal's first line, or 'segmented'). Models: tests/test_inference.export, spacing
2.5 set and the training cases' median 2 x 2 x 2 recorded; in_channels 2 for the two-channel kinds; spacing None for
'no spacing'. Printed per kind: SAME/DIFFERENT verdict, and whether the words agree."""
import gzip
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.inference import predict_file
import accelerated_seg.estimator_predict_checks as checks
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
data = load_msd(write_synthetic_dataset(root / "data", num_cases=3, num_validation=1, seed=0,
                                        size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
image0, label0 = str(data.training[0].images[0]), str(data.training[0].label)
train = [(image0, label0)]
one = export(root / "model1", spacing=(2.5,) * 3, cases_median_spacing=[2.0] * 3)
two = export(root / "model2", in_channels=2, spacing=(2.5,) * 3, cases_median_spacing=[2.0] * 3)
none = export(root / "model0", spacing=None)
kinds = root / "kinds"
kinds.mkdir()


def save(name, array, affine, unit="mm", gz=True):
    image = nib.Nifti1Image(np.asarray(array, dtype=np.float32), affine)
    image.header.set_xyzt_units(unit)
    path = kinds / f"{name}.nii{'.gz' if gz else ''}"
    nib.save(image, path)
    return str(path)


src, lab = nib.load(image0), nib.load(label0)
voxels, labels, mm = np.asanyarray(src.dataobj), np.asanyarray(lab.dataobj), src.affine
metres = np.diag([1e-3] * 3 + [1.0]) @ mm


def case(name, channels, label_affine=None, label_unit="mm", label_shape=None):
    """channels: [(array, affine, unit)]; the label on the first channel's grid."""
    paths = [save(f"{name}_{index:04d}", array, affine, unit) for index, (array, affine, unit) in enumerate(channels)]
    label = labels if label_shape is None else labels.reshape(label_shape)
    label_path = save(f"{name}_label", label, channels[0][1] if label_affine is None else label_affine, label_unit)
    return paths, label_path


def truncated(path):
    raw = gzip.decompress(Path(path).read_bytes())
    Path(path).write_bytes(gzip.compress(raw)[: len(gzip.compress(raw)) // 2])
    return path


nan = voxels.copy()
nan[0, 0, 0] = np.nan
cases = {
    "fine (2 mm)": (one, case("fine", [(voxels, mm, "mm")])),
    "metres, no unit": (one, case("m_unknown", [(voxels, metres, "unknown")], label_unit="unknown")),
    "metres, header mm": (one, case("m_mm", [(voxels, metres, "mm")])),
    "2D file, metres": (one, case("flat", [(voxels[:, :, 0], metres, "unknown")], label_unit="unknown")),
    "(x,y,z,1,1), metres": (one, case("five", [(voxels[..., None, None], metres, "unknown")], label_unit="unknown")),
    "NaN voxel, metres": (one, case("nan_m", [(nan, metres, "unknown")], label_unit="unknown")),
    "all zero, metres": (one, case("zero_m", [(np.zeros_like(voxels), metres, "unknown")], label_unit="unknown")),
    "gzip truncated, metres": (one, case("trunc_m", [(voxels, metres, "unknown")], label_unit="unknown")),
    "gzip truncated, fine": (one, case("trunc", [(voxels, mm, "mm")])),
    "no spacing model, metres": (none, case("nosp", [(voxels, metres, "unknown")], label_unit="unknown")),
    "2 ch: ch0 fine, ch1 metres": (two, case("c1m", [(voxels, mm, "mm"), (voxels, metres, "unknown")])),
    "2 ch: ch0 metres, ch1 fine": (two, case("c0m", [(voxels, metres, "unknown"), (voxels, mm, "mm")],
                                            label_unit="unknown")),
    "2 ch: ch0 metres, ch1 metres mm": (two, case("c01", [(voxels, metres, "unknown"), (voxels, metres, "mm")],
                                                 label_unit="unknown")),
    "2 ch: ch0 mm, ch1 metres declaring mm": (two, case("c1mm", [(voxels, mm, "mm"), (voxels, metres, "mm")])),
    "2 ch: ch0 metres declaring mm, ch1 mm": (two, case("c0mm", [(voxels, metres, "mm"), (voxels, mm, "mm")])),
}
# the 2D case's label: a 2D map on its grid
flat_paths, _ = cases["2D file, metres"][1]
cases["2D file, metres"] = (one, (flat_paths, save("flat_label", labels[:, :, 0], metres, "unknown")))
for name in ("gzip truncated, metres", "gzip truncated, fine"):
    truncated(cases[name][1][0][0])


def first_line(text):
    return text.splitlines()[0] if text else text


def evaluate_says(model_dir, paths, label):
    image = paths if len(paths) > 1 else paths[0]
    train_image = [image0, str(data.training[1].images[0])] if len(paths) > 1 else image0
    dataset = Dataset.from_files([(train_image, label0)], block_shape=16, n_classes=3,
                                 validation_pairs=[(image, label)], num_workers=0, cache_dir=str(root / "cache"))
    header = None
    original = checks.check_evaluation_headers

    def spied(*args, **keywords):
        nonlocal header
        try:
            original(*args, **keywords)
        except DataError as error:
            header = str(error)
            raise
    checks.check_evaluation_headers = spied
    import accelerated_seg.estimator as estimator
    estimator.check_evaluation_headers = spied
    try:
        Segmentation.load(model_dir).evaluate(dataset, output_dir=root / "out" / Path(paths[0]).name)
        return "scored", ""
    except (DataError, Exception) as error:  # noqa: BLE001 - any refusal, its type said
        said = str(error)
        lines = said.splitlines()
        problem = lines[1].split(": ", 1)[1] if len(lines) > 1 and lines[1].startswith("  - ") else lines[0]
        return ("refused", f"[{'header check' if header is not None else type(error).__name__}] {problem}")
    finally:
        estimator.check_evaluation_headers = checks.check_evaluation_headers = original


def predict_says(model_dir, paths):
    try:
        predict_file(model_dir, paths, root / "p.nii.gz")
        return "segmented", ""
    except Exception as error:  # noqa: BLE001
        return "refused", f"[{type(error).__name__}] {first_line(str(error))}"


for name, (model_dir, (paths, label)) in cases.items():
    (ev, ev_said), (pr, pr_said) = evaluate_says(model_dir, paths, label), predict_says(model_dir, paths)
    same = "SAME" if (ev == "refused") == (pr == "refused") else "DIFFERENT"
    words = "" if ev_said.split("] ", 1)[-1][:90] == pr_said.split("] ", 1)[-1][:90] else " (words differ)"
    print(f"== {name}: {same} verdict{words}\n   evaluate: {ev} {ev_said[:260]}\n   predict:  {pr} {pr_said[:260]}")
