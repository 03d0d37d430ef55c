"""The refusals python_api.md quotes, as the package says them now.

cd /tmp/h99run && PYTHONPATH=/tmp/wt_h99 /work/main/.venv/bin/python \
    /tmp/wt_h99/benchmarks/results/python_api_planning_rewrite_2026-12-06/messages.py > messages.txt  (in /tmp/h99run,
    after ex1.py there wrote demo/)
"""
from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd

phantoms = load_msd("demo/data/dataset.json")
pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
data = Dataset.from_files(pairs, block_shape=32, n_classes=3)
model = Segmentation.load("demo/model")
tries = {
    "Segmentation(batch_size=0)": lambda: Segmentation("unet", batch_size=0),
    "augment(on='tpu')": lambda: data.augment(on="tpu"),
    "fit(data, epoch=2)": lambda: Segmentation("unet").fit(data, epoch=2),
    "Segmentation(learning_rate=1)": lambda: Segmentation("unet", learning_rate=1),
    "Segmentation(lr=-1)": lambda: Segmentation("unet", lr=-1),
    "Segmentation(model='unett')": lambda: Segmentation("unett"),
    "Segmentation(model='UNet')": lambda: Segmentation("UNet"),
    "Segmentation('unet', channels=[1])": lambda: Segmentation("unet", channels=[1]),
    "Segmentation(num_workers=2)": lambda: Segmentation("unet", num_workers=2),
    "Segmentation(epochs=3)": lambda: Segmentation("unet", epochs=3),
    "from_files(n_class=3)": lambda: Dataset.from_files(pairs, n_class=3),
    "from_files(n_classes=1)": lambda: Dataset.from_files(pairs, n_classes=1),
    "shuffle()": lambda: data.shuffle(),
    "repeat()": lambda: data.repeat(),
    "predict(overlap=2)": lambda: model.predict(pairs[0][0], overlap=2),
    "predict(overlapp=0.5)": lambda: model.predict(pairs[0][0], overlapp=0.5),
    "evaluate(data, overlap=2)": lambda: model.evaluate(data, overlap=2),
    "predict(batch of 2)": lambda: model.predict(__import__("numpy").zeros((2, 1, 8, 8, 8))),
    "evaluate(pairs)": lambda: model.evaluate(pairs),
    "save('x/model.safetensors')": lambda: model.save("x/model.safetensors"),
    "save('')": lambda: model.save(""),
    "Segmentation.load('demo/run')": lambda: Segmentation.load("demo/run"),
    "Segmentation().predict": lambda: Segmentation("unet").predict(pairs[0][0]),
    "model_args={'channel': ...}": lambda: Segmentation("unet", model_args={"channel": [8, 16]}),
    "model_args={'channels': 'x'}": lambda: Segmentation("unet", model_args={"channels": "x"}),
    "predict([two paths]) of a one-channel model": lambda: model.predict([pairs[0][0], pairs[1][0]]),
    "predict(path, 'out.nii.gz')": lambda: model.predict(pairs[0][0], "out.nii.gz"),
    "predict(a single slice)": lambda: model.predict(__import__("numpy").zeros((16, 16, 1))),
    "Segmentation(eval_size=0.2)": lambda: Segmentation("unet", eval_size=0.2),
    "Segmentation(channels_last='yes')": lambda: Segmentation("unet", channels_last="yes"),
    "Dataset.config(lr=-1)": lambda: data.config(lr=-1),
    "from_files(block_shape=(32, 32))": lambda: Dataset.from_files(pairs, block_shape=(32, 32)),
    "Segmentation(block_shape=32)": lambda: Segmentation("unet", block_shape=32),
    "fit(train, validate)": lambda: Segmentation("unet").fit(data, data),
}
for name, call in tries.items():
    try:
        call()
        print(f"{name}: no error")
    except BaseException as error:  # noqa: BLE001 - each message is what is recorded
        print(f"{name}: {type(error).__name__}: {error}")
