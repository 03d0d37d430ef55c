# bash probe_7_labels_phantoms_written.sh > probe_7_labels_phantoms_written.txt 2>&1   (after `source env.sh`)
# data.labels beside the embedded phantoms once a run has written them (the demo trained, then data.labels added):
# check --config, train and cache --config, in whose words?
cd $T && rm -rf runs; set -o pipefail
sed -e "s#^  dataset: .*#  dataset: synthetic#" -e "/^  labels: /d" $T/exp.yaml > $T/syn_nolabels.yaml
sed -e "s#^  dataset: .*#  dataset: synthetic#" -e "s#^  labels: .*#  labels: {0: background, 1: a, 2: b}#" $T/exp.yaml > $T/syn.yaml
echo "== train without data.labels (writes the phantoms)"
accelerated-seg train --config $T/syn_nolabels.yaml 2>&1 | tail -1; echo "status $?"
ls $T/runs/exp/synthetic_data | head -3
for c in "check --config" "train --train.overwrite=true --config" "cache --config"; do
  echo "== $c (data.labels given)"; accelerated-seg $c $T/syn.yaml 2>&1 | grep -v Warn | tail -1; echo "status $?"
done
