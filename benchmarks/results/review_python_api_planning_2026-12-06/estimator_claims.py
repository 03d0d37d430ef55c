"""python_api.md's tables and prose against what the estimator does now: the signatures the table gives, and
the refusals it paraphrases or names without quoting.

cd /tmp/r87p && PYTHONPATH=/tmp/wt_r87 /work/main/.venv/bin/python \
    /tmp/wt_r87/benchmarks/results/review_python_api_planning_2026-12-06/estimator_claims.py > \
    /tmp/wt_r87/benchmarks/results/review_python_api_planning_2026-12-06/estimator_claims.txt 2>&1
"""
import inspect

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset

if __name__ == "__main__":
    phantoms = load_msd(ensure_synthetic_dataset("demo/data", num_cases=4, num_validation=1))
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
    data = Dataset.from_files(pairs, block_shape=32, n_classes=3)
    for name, function in (("Segmentation", Segmentation.__init__), ("Segmentation.save", Segmentation.save),
                           ("Segmentation.load", Segmentation.load), ("Dataset.batch", Dataset.batch)):
        print(f"signature {name}{inspect.signature(function)}")
    tries = {
        # the table's signature: Segmentation(..., precision=None, output_dir=None, ...)
        "Segmentation('unet', output_dir=None)": lambda: Segmentation("unet", output_dir=None),
        # the table's names: save(folder), .batch(n)
        "model.save(folder='x')": lambda: Segmentation("unet").save(folder="x"),
        "data.batch(n=2)": lambda: data.batch(n=2),
        "data.shuffle()": lambda: data.shuffle(),
        "data.repeat()": lambda: data.repeat(),
        "Segmentation('unet', amp=True)": lambda: Segmentation("unet", amp=True),
        "Segmentation('unet', gpus=2)": lambda: Segmentation("unet", gpus=2),
        "Segmentation('unet', val_interval=5)": lambda: Segmentation("unet", val_interval=5),
        "Segmentation('unet', roi_size=96)": lambda: Segmentation("unet", roi_size=96),
        "Segmentation('unet', pixdim=1.5)": lambda: Segmentation("unet", pixdim=1.5),
        "Segmentation('unet', precision='BF16')": lambda: Segmentation("unet", precision="BF16"),
        "Segmentation('unet', loss='DiceCE')": lambda: Segmentation("unet", loss="DiceCE"),
        "Segmentation('unet', learnin_rate=1)": lambda: Segmentation("unet", learnin_rate=1),
        "Segmentation('unet', multi_gpu='yes')": lambda: Segmentation("unet", multi_gpu="yes"),
        "Segmentation('unet', output_dir='')": lambda: Segmentation("unet", output_dir=""),
        "fit(dataset_train=data)": lambda: Segmentation("unet").fit(dataset_train=data),
        "Segmentation('unet', compile={'enabld': True})": lambda: Segmentation("unet", compile={"enabld": True}),
        "Segmentation('unet', batch_size=2).fit(data.batch(4))":
            lambda: Segmentation("unet", batch_size=2, output_dir="/tmp/r87p/never").fit(data.batch(4)),
    }
    for what, call in tries.items():
        try:
            call()
            print(f"{what}: taken")
        except Exception as error:  # the line the user sees
            print(f"{what}: {type(error).__name__}: {error}")
