# cd /tmp/walk_h130/py1 && PYTHONPATH=/tmp/wt_h130 XDG_CACHE_HOME=/tmp/walk_h130/xdg_cache python walk_12_loaded_fit_repr.py
# README "Python API": `model.save("brain_model"); model = Segmentation.load("brain_model")`, `model.fit(new_data,
# epochs=10)`, then `print(model)  # <Segmentation 'unet', model_args={...}: trained ... steps in ..., from brain_model;
# predicts with ...>`: snippet_1's saved demo/model loaded and fit for 2 steps (not 10 epochs) on its phantoms.
from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd

if __name__ == "__main__":
    phantoms = load_msd("demo/data/dataset.json")
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
    held_out = [(str(case.images[0]), str(case.label)) for case in phantoms.validation]
    new_data = Dataset.from_files(pairs, block_shape=32, n_classes=3, validation_pairs=held_out).batch(2)
    model = Segmentation.load("demo/model")
    model.fit(new_data, steps=2, warmup_steps=0, output_dir="demo/run_loaded", overwrite=True)
    print(model)
