# source env.sh && cd $T/w1 \
#   python $HERE/walk_3_predict_evaluate_save.py > $HERE/walk_3_predict_evaluate_save.txt 2>&1
# After walk 1 (its demo/model, demo/run and phantoms): "## predict", "## evaluate" and "## save and load" tried as the
# page says, each input and refusal it names, the line printed held against the page's quote.
import shutil
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd

model = Segmentation.load("demo/model")
phantoms = load_msd("demo/data/dataset.json")
scan_path = str(phantoms.validation[0].images[0])
scan = nib.load(scan_path)
x = scan.get_fdata(dtype=np.float32)


def said(title, call):
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            got = call()
            shown = (f"{type(got).__name__} {getattr(got, 'shape', '')}" if not isinstance(got, dict)
                     else f"dict {sorted(got)[:10]}")
            print(f"=== {title}\n-> {shown}")
        except Exception as error:  # noqa: BLE001 - what a user sees
            print(f"=== {title}\n-> {type(error).__name__}: {error}")
    for w in raised:
        print(f"   warning: {w.message}")


said("predict(path)", lambda: model.predict(scan_path))
said("predict(nib image)", lambda: model.predict(scan))
said("predict(array X,Y,Z) no affine", lambda: model.predict(x))
said("predict(array, affine=scan.affine)", lambda: model.predict(x, affine=scan.affine))
said("predict(array (1,X,Y,Z))", lambda: model.predict(x[None], affine=scan.affine))
said("predict(array (X,Y,Z,1))", lambda: model.predict(x[..., None], affine=scan.affine))
said("predict(array (X,Y,Z,1,1))", lambda: model.predict(x[..., None, None], affine=scan.affine))
said("predict(torch tensor)", lambda: __import__("torch").from_numpy(x).shape and
     model.predict(__import__("torch").from_numpy(x), affine=scan.affine))
said("predict([array]) a list of one array per channel", lambda: model.predict([x], affine=scan.affine))
said("predict (2,1,8,8,8): page quotes 'predict: an array of shape (2, 1, 8, 8, 8); give (X, Y, Z), or (C, X, Y, Z) "
     "with the model's 1 channel(s) first (a batch of 2: give one case, x[0], per call)'",
     lambda: model.predict(np.zeros((2, 1, 8, 8, 8), np.float32)))
said("predict (X,Y,Z,1,2) NIfTI vector layout: told x[:, :, :, 0]",
     lambda: model.predict(np.zeros((16, 16, 16, 1, 2), np.float32)))
said("predict 5D last axis 1 (2,16,16,16,1): told x[..., 0]", lambda: model.predict(np.zeros((2, 16, 16, 16, 1))))
said("predict single slice (16,16,1): warned 'predict: the array: a single slice, shape (16, 16, 1): ...'",
     lambda: model.predict(np.zeros((16, 16, 1), np.float32)))
said("predict an empty array", lambda: model.predict(np.zeros((0, 16, 16), np.float32)))
said("predict a NaN", lambda: model.predict(np.full((16, 16, 16), np.nan, np.float32)))
said("predict a singular affine", lambda: model.predict(np.zeros((16, 16, 16), np.float32), affine=np.zeros((4, 4))))
said("predict a folder", lambda: model.predict("demo/data"))
said("predict a missing file", lambda: model.predict("demo/nope.nii.gz"))
said("predict two paths to a one-channel model", lambda: model.predict([scan_path, scan_path]))
said("predict(path, 'out.nii.gz')", lambda: model.predict(scan_path, "out.nii.gz"))
said("predict(path, output_path='out.nii.gz')", lambda: model.predict(scan_path, output_path="out.nii.gz"))
said("predict(image, affine=...)", lambda: model.predict(scan, affine=scan.affine))
said("predict(path, affine=...)", lambda: model.predict(scan_path, affine=scan.affine))
said("predict(dict)", lambda: model.predict({"image": scan_path}))
said("predict(path, overlapp=0.5)", lambda: model.predict(scan_path, overlapp=0.5))
said("predict(path, overlap=0.5, tta=True, keep_largest=True)",
     lambda: model.predict(scan_path, overlap=0.5, tta=True, keep_largest=True))
print("files in the working folder now:", sorted(p.name for p in Path(".").iterdir()))

held_out = [(str(c.images[0]), str(c.label)) for c in phantoms.validation]
test_set = Dataset.from_files([], validation_pairs=held_out, n_classes=3, block_shape=32)
print("print(test_set):", test_set)
said("evaluate(test set) default output_dir (demo/model was loaded: where does evaluation/ go?)",
     lambda: model.evaluate(test_set))
print("evaluation folders:", sorted(str(p) for p in Path(".").rglob("evaluation")))
said("evaluate(test set, output_dir='eval_b')", lambda: model.evaluate(test_set, output_dir="eval_b"))
print("eval_b:", sorted(p.name for p in Path("eval_b").iterdir()))
said("evaluate(data, overlap=2): 'evaluate: overlap must be in [0, 1), got 2'", lambda: model.evaluate(test_set,
                                                                                                     overlap=2))
said("evaluate(pairs given directly)", lambda: model.evaluate(held_out))
said("fit(test set)", lambda: Segmentation("unet", output_dir="runs/test_set").fit(test_set, steps=1))
said("test_set.loader()", lambda: test_set.loader())
wrong = Dataset.from_files([], validation_pairs=held_out, n_classes=2, block_shape=32)
said("evaluate(a test set of n_classes=2 on a 3-class model)", lambda: model.evaluate(wrong, output_dir="eval_c"))

# save and load
said("save('x/model.safetensors'): page 'save: x/model.safetensors names a .safetensors file, but a model is saved "
     "as a folder ...: give a folder path, e.g. x/model'", lambda: model.save("x/model.safetensors"))
said("save('x/model.h5')", lambda: model.save("x/model.h5"))
said("save('x/weights.pt')", lambda: model.save("x/weights.pt"))
said("save('')", lambda: model.save(""))
said("save('demo/run') (a run's folder)", lambda: model.save("demo/run"))
Path("foreign").mkdir(exist_ok=True)
Path("foreign/config.json").write_text('{"architectures": ["BertModel"]}')
said("save('foreign') (another program's config.json)", lambda: model.save("foreign"))
print("foreign/config.json kept:", Path("foreign/config.json").read_text())
said("save('new/deep/model') into new folders", lambda: model.save("new/deep/model"))
print("new/deep/model:", sorted(p.name for p in Path("new/deep/model").iterdir()))
said("Segmentation.load('demo/run'): page 'give demo/run/best_model or demo/run/model'",
     lambda: Segmentation.load("demo/run"))
said("Segmentation.load('demo/model', model='segresnet')", lambda: Segmentation.load("demo/model", model="segresnet"))
said("Segmentation.load('demo/model', channels=[4, 8])", lambda: Segmentation.load("demo/model", channels=[4, 8]))
said("Segmentation.load('demo/model', model_args={})", lambda: Segmentation.load("demo/model", model_args={}))
said("Segmentation.load('nowhere')", lambda: Segmentation.load("nowhere"))
said("Segmentation.load('demo/model/model.safetensors')", lambda: Segmentation.load("demo/model/model.safetensors"))
print("repr of the loaded:", model)
shutil.rmtree("x", ignore_errors=True)
