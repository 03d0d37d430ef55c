# python probe_4_predict_options.py > probe_4_predict_options.txt 2>&1   (after `source env.sh`, probe_0 run)
# Every PREDICT_OPTIONS name given to Segmentation(...), fit(...) and Dataset.from_files: told it goes to predict and
# evaluate? Training keywords that merely resemble one: no "give it to predict". Then the message's example calls,
# model.predict(x, ..., name=...) and model.evaluate(dataset, ..., name=...), run as written on a model fitted 1 step.
import csv, os
from accelerated_seg.config import ConfigError
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.estimator_settings import PREDICT_OPTIONS

T = os.environ["T"]
rows = [tuple(r) for r in list(csv.reader(open(f"{T}/mydata/cases.csv")))[1:]]
data = Dataset.from_files(rows, block_shape=16, n_classes=3, spacing=(3, 3, 3), num_workers=0)
values = {"overlap": 0.5, "tta": True, "precision": "fp32", "aggregate_on_cpu": True, "transforms_on_device": False,
          "device": "cpu", "keep_largest": True}
assert set(values) == set(PREDICT_OPTIONS), PREDICT_OPTIONS
args = dict(model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}, output_dir=f"{T}/est",
            trackers="none", progress_bar=False)


def said(what, call):
    try:
        call()
        print(f"{what}: taken")
    except (ConfigError, TypeError, ValueError) as error:
        print(f"{what}: {type(error).__name__}: {error}"[:400])


for name, value in values.items():
    said(f"Segmentation({name}={value!r})", lambda: Segmentation("unet", **{name: value}))
    said(f"fit({name}={value!r})", lambda: Segmentation("unet", **args).fit(data, steps=1, **{name: value}))
    said(f"Dataset.from_files({name}={value!r})",
         lambda: Dataset.from_files(rows, block_shape=16, n_classes=3, **{name: value}))
print("-- resembling training keywords")
for name, value in {"sw_overlap": 0.5, "keep_last": 1, "overlaps": 0.5, "tta_flips": True, "devices": 2,
                    "keep_largest_component": True, "val_tta": True, "device_map": "cpu"}.items():
    said(f"Segmentation({name}={value!r})", lambda: Segmentation("unet", **{name: value}))
print("-- the example calls, as the message writes them")
model = Segmentation("unet", **args)
model.fit(data, steps=1)
for name, value in values.items():
    said(f"model.predict(x, {name}={value!r})", lambda: model.predict(rows[0][0], **{name: value}).shape)
    said(f"model.evaluate(dataset, {name}={value!r})",
         lambda: model.evaluate(data, output_dir=f"{T}/est_eval", **{name: value})["mean"] if False else
         sorted(model.evaluate(data, output_dir=f"{T}/est_eval", **{name: value}))[:2])
