# source env.sh && cd $T/w2 && python $HERE/walk_4_settings_prose.py > $HERE/walk_4_settings_prose.txt 2>&1
# "## Settings, and how a wrong one is told": the prose's refusals (the table's are
# tests/test_python_api_md_claims.py's),
# each run as a user would write it; and that nothing was written (runs/prose absent after).
import time
from pathlib import Path

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]
data = Dataset.from_files(good[:5], block_shape=16, n_classes=3, validation_pairs=[good[5]])
OUT = "runs/prose"
tiny = {"channels": [4, 8], "strides": [2]}


def told(given):
    start = time.monotonic()
    try:
        eval(given, {"Segmentation": Segmentation, "Dataset": Dataset, "data": data, "pairs": good, "OUT": OUT,
                     "tiny": tiny})
        print(f"=== {given}\n-> not refused")
    except Exception as error:  # noqa: BLE001 - what a user sees
        print(f"=== {given}\n-> {type(error).__name__} ({time.monotonic() - start:.2f} s): {error}")


if __name__ == "__main__":  # the page's main guard, as walk_2a learnt
    for given in [
        "Segmentation('unet', roi_size=96)", "Segmentation('unet', spatial_size=96)",
        "Segmentation('unet', pixdim=1.5)",
        "Segmentation('unet', val_interval=2)", "Segmentation('unet', amp=True)", "Segmentation('unet', gpus=2)",
        "Segmentation('unet', learnin_rate=1e-3)", "Segmentation('unet', compile={'mode': 'max-autotun'})",
        "Segmentation('unet', compile={'mod': 'default'})", "Segmentation('unet', ddp={'find_unused': True})",
        "Segmentation('unet', loss='dicece')", "Segmentation('unet', loss='DiceCE')",
        "Segmentation('unet', optimizer='adamw')",
        "Segmentation('unet', schedule='cosin')", "Segmentation('unet', precision='BF16')",
        "Segmentation('unet', tta='flip')",
        "Segmentation('unet', multi_gpu='yes')", "Segmentation('unet', output_dir='')",
        "Segmentation('unet', output_dir=None)",
        "Dataset.config(data, lr=-1)", "data.config(lr=-1)", "Dataset.from_files(pairs, roi_size=16)",
        "Dataset.from_files(pairs, patch_size=16)", "Dataset.from_files(pairs, labels={0: 'bg'})",
        "Dataset.from_files(pairs, pixdim=1.5)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(data, dataset_train=data)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(dataset_train=data)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(data, data)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(data, epochs=1, steps=2)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(data, steps=0)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(data.batch(64), steps=1)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT, batch_size=3).fit(data.batch(2), steps=1)",
        "Segmentation('unet', output_dir=OUT).fit(Dataset.from_files(pairs[:5], block_shape=8, n_classes=3), steps=1)",
        "Segmentation('unet', model_args=tiny, output_dir=OUT).fit(Dataset.from_files(pairs[:5], block_shape=16, "
        "n_classes=3, validation_pairs=[]), steps=1)",
        "data.fit(data.config(lr=1e-3), lr=2e-3)",
        "data.batch(2).fit(data.config())",
        "data.binarize()", "data.batch(0)", "data.augment('strong')",
        "Dataset.from_files(pairs, class_names=['bg', 'a'], n_classes=3)",
        "Dataset.from_files(pairs, class_names=['bg', 'a', 'a'], n_classes=3)",
        "Dataset.from_files(pairs, class_names=['bg', 'a', 'ignore'], n_classes=3)",
        "Dataset.from_files(pairs, channel_names=['T1', 'T2'], n_classes=3)",
        "Dataset.from_files(pairs, label_values=[0, 2, 1])",
        "Dataset.from_files(pairs, ignore_value=2, n_classes=3)",
        "Dataset.from_files(pairs, block_shape=0)", "Dataset.from_files(pairs, block_shape=16.5)",
        "Dataset.from_files(pairs, validation_fraction=1.5)",
        "Dataset.from_files(pairs[0], n_classes=3)", "Dataset.from_files('cases', n_classes=3)",
        "Dataset.from_files([p[0] for p in pairs], n_classes=3)",
    ]:
        told(given)
    print("runs/prose after:", Path(OUT).exists() and sorted(str(p) for p in Path(OUT).rglob("*")))
