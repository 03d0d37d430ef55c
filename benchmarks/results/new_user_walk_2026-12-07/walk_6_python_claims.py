# cd /tmp/walk_h130/py1 && PYTHONPATH=/tmp/wt_h130 XDG_CACHE_HOME=/tmp/walk_h130/xdg_cache python \
# cd /tmp/walk_h130/py1 && PYTHONPATH=/tmp/wt_h130 XDG_CACHE_HOME=/tmp/walk_h130/xdg_cache python walk_6_python_claims.py
# docs/python_api.md's and README's Python claims that need no training, on snippet_1's saved model (demo/model) and
# phantoms (demo/data): each call as the page shows it, and what the page says it prints or raises.
import warnings

import nibabel as nib

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd


def said(title, call):
    print(f"--- {title}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
            print("returned:", result if not hasattr(result, "shape") else f"{type(result).__name__} {result.shape}")
        except Exception as error:  # noqa: BLE001 - the walk prints what a user would see
            print(f"raised {type(error).__name__}: {error}")
    for warning in caught:
        print(f"warning ({warning.category.__name__}): {warning.message}")


if __name__ == "__main__":
    phantoms = load_msd("demo/data/dataset.json")
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training + phantoms.validation]
    said("README: print(Dataset.from_files(pairs, block_shape=(128, 128, 128), n_classes=2).batch(4).binarize()"
         ".augment())", lambda: Dataset.from_files(pairs, block_shape=(128, 128, 128), n_classes=3).batch(4)
         .binarize().augment())
    model = Segmentation.load("demo/model")
    said("print(model) of a loaded model", lambda: model)
    path = pairs[0][0]
    image = nib.load(path)
    said("predict(path)", lambda: model.predict(path))
    said("predict(nib.load(path))", lambda: model.predict(image))
    said("predict(array, affine=...)", lambda: model.predict(image.get_fdata(), affine=image.affine))
    said("predict(array) without affine (page: warns of 1 mm)", lambda: model.predict(image.get_fdata()))
    said("predict(path, 'out.nii.gz') (page: told to nib.save)", lambda: model.predict(path, "out.nii.gz"))
    said("predict(batch of 2) (page's message)", lambda: model.predict(image.get_fdata()[None].repeat(2, 0)[:, None]))
    said("predict(single slice) (page: warned)", lambda: model.predict(image.get_fdata()[:16, :16, :1]))
    said("save('x/model.safetensors') (page's message)", lambda: model.save("x/model.safetensors"))
    said("Segmentation.load('demo/run') (page: names the exports)", lambda: Segmentation.load("demo/run"))
    data = Dataset.from_files(pairs[:4], block_shape=32, n_classes=3, validation_pairs=pairs[4:])
    said("data.shuffle()", lambda: data.shuffle())
    said("data.repeat()", lambda: data.repeat())
    said("Dataset.config(lr=-1)", lambda: data.config(lr=-1))
