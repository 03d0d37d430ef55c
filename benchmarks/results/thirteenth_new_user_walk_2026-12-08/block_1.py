# docs/python_api.md's Python block 1, as the page gives it
from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset

if __name__ == "__main__":  # the loader's workers import this script first: without the guard fit refuses it
    phantoms = load_msd(ensure_synthetic_dataset("demo/data", num_cases=6, num_validation=2))
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
    held_out = [(str(case.images[0]), str(case.label)) for case in phantoms.validation]
    data = Dataset.from_files(pairs, block_shape=32, n_classes=3, validation_pairs=held_out).batch(2).augment()
    model = Segmentation("unet", output_dir="demo/run").fit(data, steps=4, warmup_steps=0)
    label_image = model.predict(held_out[0][0])  # a nibabel image with the input's shape and affine
    summary = model.evaluate(data)  # Dice, HD95, surface Dice of the validation cases; also in summary.json
    model.save("demo/model")
    again = Segmentation.load("demo/model")
