# source env.sh && cd $T/w2 && python $HERE/walk_9b_partial_state.py > $HERE/walk_9b_partial_state.txt 2>&1
# walk 9 found accelerate's PartialState set after Dataset.fit: set by which call? Printed before and after each.
import shutil
from pathlib import Path

from accelerate.state import AcceleratorState, PartialState

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]


def state(when):
    print(f"{when}: AcceleratorState {'set' if AcceleratorState._shared_state else 'none'}, "
          f"PartialState {'set' if PartialState._shared_state else 'none'}")


if __name__ == "__main__":
    shutil.rmtree("w9b", ignore_errors=True)
    state("at the start")
    data = Dataset.from_files(good[:5], block_shape=16, n_classes=3, validation_pairs=[good[5]]).batch(2)
    state("after from_files")
    model = Segmentation("unet", model_args={"channels": [4, 8], "strides": [2]}, output_dir="w9b/run",
                         trackers="none", progress_bar=False, warmup_steps=0)
    model.fit(data, steps=1)
    state("after Segmentation.fit")
    model.predict(good[5][0])
    state("after predict")
    model.evaluate(data, output_dir="w9b/eval")
    state("after evaluate")
    data.fit(max_steps=1, output_dir="w9b/run2", trackers="none", progress_bar=False, warmup_steps=0)
    state("after Dataset.fit")
    data.loader(num_workers=0)
    state("after loader")
