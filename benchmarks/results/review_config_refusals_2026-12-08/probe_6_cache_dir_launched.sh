# bash probe_6_cache_dir_launched.sh > probe_6_cache_dir_launched.txt 2>&1   (after `source env.sh`)
# A data.cache_dir below a file under a 2-process CPU launch of examples/train.py, and given to Dataset.from_files for
# fit (train()'s check, unchanged), and check --config of a train.output_dir below a file (check's scope: it names
# neither folder).
cd $T; set -o pipefail
echo "== launched"; ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 -q $PYTHONPATH/examples/train.py \
  --config $T/exp.yaml --data.cache_dir=$T/caches/afile/below 2>&1 | grep -E "error|traceback" | head -3; echo "status $?"
echo "== fit"; python - <<'PY' 2>&1 | grep -v Warn | tail -1
import csv, os
from accelerated_seg.estimator import Dataset, Segmentation
T = os.environ["T"]
rows = [tuple(r) for r in list(csv.reader(open(f"{T}/mydata/cases.csv")))[1:]]
data = Dataset.from_files(rows, block_shape=16, n_classes=3, num_workers=0, cache_dir=f"{T}/caches/afile/below")
Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2]}, output_dir=f"{T}/est2", trackers="none").fit(data, steps=1)
PY
echo "== check --config, output_dir below a file"
sed "s#^  output_dir: .*#  output_dir: $T/caches/afile/run#" $T/exp.yaml > $T/exp_out.yaml
accelerated-seg check --config $T/exp_out.yaml 2>&1 | tail -1; echo "status $?"
