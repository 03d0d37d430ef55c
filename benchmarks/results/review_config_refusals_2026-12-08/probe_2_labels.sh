# bash probe_2_labels.sh > probe_2_labels.txt 2>&1   (after `source env.sh`)
# data.labels beside data.dataset: synthetic through each entry point: train, check --config, examples/train.py,
# train(cfg) in Python, a 2-process CPU launch; labels as the phantoms' own classes; labels {} ; a CSV with labels
# trains (probe_1).
cd $T && rm -rf runs
REPO=$PYTHONPATH
syn() { sed -e "s#^  dataset: .*#  dataset: synthetic#" -e "s#^  labels: .*#  labels: $1#" $T/exp.yaml > $T/syn.yaml; }
t() { echo "== $*"; s=$(date +%s.%N); set -o pipefail; "$@" 2>&1 | grep -v Warning | tail -2; echo "status $? $(echo "$(date +%s.%N) - $s" | bc) s"; }
syn "{0: background, 1: ventricles, 2: lesion}"
t accelerated-seg train --config $T/syn.yaml
t accelerated-seg check --config $T/syn.yaml
t python $REPO/examples/train.py --config $T/syn.yaml
t python -c "from accelerated_seg.config import load_config; from accelerated_seg.train import train; train(load_config('$T/syn.yaml'))"
t env ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 -q $REPO/examples/train.py --config $T/syn.yaml
ls $T/runs/exp 2>&1 | head -3
syn "{}"
t accelerated-seg train --config $T/syn.yaml
t accelerated-seg check --config $T/syn.yaml
syn "{0: background, 1: tumour}"
t accelerated-seg train --config $T/syn.yaml --data.binarize=true
