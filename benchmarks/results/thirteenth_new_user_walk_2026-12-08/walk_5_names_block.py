# source env.sh && cd $T/w2 && python $HERE/walk_5_names_block.py > $HERE/walk_5_names_block.txt 2>&1
# "## A fit that stops"'s block (block_2.py) with the `args` and `data` it leaves to the script: run twice, the second
# refused in the script's words (the page: `continue it with --resume latest, train into another --out, or set
# --overwrite to delete it first`); then "Which weights a fit starts from": a second fit's note, overwrite=True, a
# loaded estimator's fine-tuning fit, print(model)'s `from ...`.
import argparse
from pathlib import Path

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]
data = Dataset.from_files(good[:5], block_shape=16, n_classes=3, validation_pairs=[good[5]]).batch(2)
if __name__ == "__main__":  # the page's main guard, as walk_2a learnt
    args = argparse.Namespace(out="names_out", overwrite=False, resume=None, steps=2)
    source = (Path(__file__).parent / "block_2.py").read_text()
    source = source.replace('Segmentation("unet", ',
                            'Segmentation("unet", model_args={"channels": [4, 8], "strides": [2]}, '
                            'trackers="none", progress_bar=False, warmup_steps=0, ')  # tiny, quiet: the one change
    for attempt in (1, 2):
        print(f"=== the block, run {attempt}")
        try:
            exec(compile(source, "block_2.py", "exec"), {"args": args, "data": data, "__name__": "__main__"})
            print("-> ran")
        except Exception as error:  # noqa: BLE001
            print(f"-> {type(error).__name__}: {error}")

    tiny = {"channels": [4, 8], "strides": [2]}
    quiet = {"trackers": "none", "progress_bar": False, "warmup_steps": 0}
    model = Segmentation("unet", model_args=tiny, output_dir="w5/run", **quiet)
    model.fit(data, steps=2)
    print("print(model) after the first fit:", model)
    print("=== a second fit of the same estimator into the same folder")
    try:
        model.fit(data, steps=2)
    except Exception as error:  # noqa: BLE001
        print(f"-> {type(error).__name__}: {error}")
    print("=== the same with overwrite=True (the page: a note line, a new network)")
    model.fit(data, steps=2, overwrite=True)
    print("print(model):", model)
    print("=== init_from=str(model.model_dir), output_dir=<another folder> (the note's way on)")
    model.fit(data, steps=2, init_from=str(model.model_dir), output_dir="w5/run2")
    print("print(model):", model)
    model.save("w5/saved")
    loaded = Segmentation.load("w5/saved", output_dir="w5/run3", **quiet)
    print("print(loaded):", loaded)
    binary = Dataset.from_files(good[:5], block_shape=16, validation_pairs=[good[5]]).binarize().batch(2)
    print("=== a loaded model fine-tuned on 2 classes, head_only_steps=1")
    loaded.fit(binary, steps=2, head_only_steps=1)
    print("print(loaded):", loaded)
    print("=== init_from that is no export")
    try:
        Segmentation("unet", model_args=tiny, output_dir="w5/run4", **quiet).fit(data, steps=1, init_from="cases")
    except Exception as error:  # noqa: BLE001
        print(f"-> {type(error).__name__}: {error}")
    print("=== init_into on a unet")
    try:
        Segmentation("unet", model_args=tiny, output_dir="w5/run5", **quiet).fit(data, steps=1, init_from="w5/saved",
                                                                                 init_into="swinViT")
    except Exception as error:  # noqa: BLE001
        print(f"-> {type(error).__name__}: {error}")
