"""The new user's script of the walk (h141), as docs/stopping.md's "The estimator and notebooks" has one fit: the
phantoms that `accelerated-seg synth data --cases 10 --validation 2` wrote, a small U-Net, a checkpoint every 5 steps.
Under `if __name__ == "__main__":`: its first version, without, was refused at once by fit (the loader's workers
import the main script: "... starts training outside `if __name__ == "__main__":` ... or set num_workers=0").

    python walk_user_fit.py [--resume] [--validate] [--steps N]

Run in the walk's folder by walk_1_script.py and walk_3_import.py; prints what the estimator says after fit (repr,
predict, evaluate, save), as a user would look."""
import glob
import sys

from accelerated_seg import Dataset, Segmentation


def main():
    images, labels = sorted(glob.glob("data/imagesTr/*.nii.gz")), sorted(glob.glob("data/labelsTr/*.nii.gz"))
    pairs = list(zip(images, labels))
    data = Dataset.from_files(pairs[:-2], block_shape=(32, 32, 32), n_classes=3, validation_pairs=pairs[-2:],
                              cache_dir="cache").batch(2)
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 200
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir="runs/segmentation", trackers="none", save_every=5,
                         val_every=5 if "--validate" in sys.argv else 0, overwrite="--resume" not in sys.argv)
    print("WALK fit begins", flush=True)
    try:
        model.fit(data, steps=steps, resume="latest" if "--resume" in sys.argv else None)
    finally:
        print(f"WALK summary: {model.summary and {k: model.summary.get(k) for k in ('step', 'preempted')}}")
        print(f"WALK repr: {model!r}")
        for name, call in (("predict", lambda: model.predict(pairs[-1][0])),
                           ("evaluate", lambda: model.evaluate(data)), ("save", lambda: model.save("saved_model"))):
            try:
                call()
                print(f"WALK {name}: ok")
            except Exception as error:  # what the page says each refuses with
                print(f"WALK {name}: {type(error).__name__}: {error}")


if __name__ == "__main__":
    main()
