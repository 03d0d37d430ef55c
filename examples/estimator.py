"""The nobrainer-style estimator end to end on the embedded phantoms: fit, predict, evaluate, save, load.

    python examples/estimator.py                       # about 3 minutes on 2 CPU cores
    python examples/estimator.py --steps 20 --out /tmp/estimator_demo

With ``--multi-gpu`` in a plain Python session it trains on every visible GPU through accelerate's
notebook launcher; under ``accelerate launch`` it uses the launched processes.
"""

import argparse
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="output/estimator_demo")
    parser.add_argument("--overwrite", action="store_true", help="replace the run of an earlier invocation")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps")
    parser.add_argument("--patch", type=int, default=64)
    parser.add_argument("--multi-gpu", action="store_true")
    args = parser.parse_args(argv)
    out = Path(args.out)

    # Any list of (image, label) NIfTI pairs works; here the package writes its phantoms.
    phantoms = load_msd(write_synthetic_dataset(out / "data", num_cases=12, num_validation=3))
    pairs = [(str(c.images[0]), str(c.label)) for c in phantoms.training]
    validation = [(str(c.images[0]), str(c.label)) for c in phantoms.validation]

    data = (Dataset.from_files(pairs, block_shape=(args.patch,) * 3, n_classes=3, validation_pairs=validation,
                               cache_dir=str(out / "cache"))
            .batch(2).augment("light"))
    model = Segmentation("unet", multi_gpu=args.multi_gpu, output_dir=str(out / "run"), trackers="none",
                         overwrite=args.overwrite, val_every=max(1, args.steps // 2))
    model.fit(data, steps=args.steps)
    print(f"trained {model.summary['step']} steps, best validation Dice {model.summary['best_dice']:.3f}")

    case = phantoms.validation[0]
    label_image = model.predict(str(case.images[0]))  # a nibabel image on the input's own grid
    nib.save(label_image, out / f"{case.id}_seg.nii.gz")
    assert label_image.shape == nib.load(case.images[0]).shape
    print(f"{case.id}: labels {sorted(np.unique(np.asanyarray(label_image.dataobj)).tolist())} "
          f"written to {out / f'{case.id}_seg.nii.gz'}")

    summary = model.evaluate(data, output_dir=out / "evaluation")  # Dice, HD95, surface Dice
    print(f"evaluation: mean Dice {summary['overall']['dice']['mean']:.3f} over {summary['num_cases']} case(s)")

    reloaded = Segmentation.load(model.save(out / "saved_model"))
    again = reloaded.predict(str(case.images[0]))
    assert np.array_equal(np.asanyarray(again.dataobj), np.asanyarray(label_image.dataobj))
    print(f"saved to {out / 'saved_model'} and reloaded: same prediction")
    return summary


if __name__ == "__main__":
    main()
