# bash walk_4_builder.sh > walk_4_builder.txt 2>&1
# docs/data.md "The Python builder": the block with the pairs of make_data.py's sub-01..sub-04, block_shape
# (32, 32, 32) for their 32^3 volumes (16^3 is refused for the default U-Net, saying so), max_steps=2 in place of
# 2000; then "Speed"'s command scaled down by its
# own options (2 cases of 32 mm, 16^3 patch, 1 block of 2 batches).
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
cd data_walk && python /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/make_data.py
cat > builder.py <<'PY'
from accelerated_seg.estimator import Dataset

if __name__ == "__main__":  # loader workers import the script again (data.num_workers, 2 by default)
    pairs = [(f"sub-0{i}/T1w.nii.gz", f"sub-0{i}/mask.nii.gz") for i in range(1, 5)]
    data = Dataset.from_files(pairs, block_shape=(32, 32, 32), n_classes=2).batch(4).binarize().augment()
    loader = data.loader()                       # the training loop's own pipeline, in this process
    batch = next(iter(loader))
    print(sorted(batch) if isinstance(batch, dict) else type(batch), [tuple(v.shape) for v in batch.values()]
          if isinstance(batch, dict) else "")
    summary = data.fit(data.config(max_steps=2, output_dir="runs/brain"))   # the one training loop
    print({k: summary[k] for k in list(summary)[:6]})
PY
set -x
python builder.py; echo "status $?"
ls runs/brain
accelerated-seg benchmark data --cases 2 --size-mm 32 32 32 --patch 16 --batches 2 --blocks 1 --output bench_data.json
echo "status $?"
