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
    print(data)  # walk: the page's <Dataset: 4 training and 2 validation cases, ...>
    print(model)  # walk: the page's <Segmentation 'unet': trained 4 steps in .../demo/run, ...>
    print(type(label_image).__name__, label_image.shape)  # walk
    print({k: summary[k] for k in list(summary)[:6]})  # walk
    print(again)  # walk
