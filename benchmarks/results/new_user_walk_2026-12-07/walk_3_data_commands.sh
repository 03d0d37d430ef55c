# bash walk_3_data_commands.sh > walk_3_data_commands.txt 2>&1
# README "Data" block's commands as written (synth, check, check --config, check of a CSV, cache), plus --version.
# my_experiment.yaml and cases.csv are what a user would write: the demo's config on the synth'd phantoms, and a CSV
# of their files (label values 0, 1, 2 named as the README's example names them).
source "$(dirname "$0")/env.sh"
set -x
accelerated-seg --version
accelerated-seg synth data/phantoms --cases 24; echo "status $?"
ls data/phantoms; ls data/phantoms/imagesTr | wc -l
accelerated-seg check data/phantoms/dataset.json; echo "status $?"
sed -e 's#dataset: synthetic#dataset: data/phantoms/dataset.json#' -e '/synthetic: {/d' -e 's#output/demo#output/my_experiment#' \
    configs/demo.yaml > my_experiment.yaml
cat my_experiment.yaml
accelerated-seg check --config my_experiment.yaml; echo "status $?"
python - <<'PY'
import json
d = json.load(open("data/phantoms/dataset.json"))
with open("cases.csv", "w") as f:
    f.write("image,label\n")
    for e in d["training"]:
        f.write(f"data/phantoms/{e['image']},data/phantoms/{e['label']}\n")
PY
head -3 cases.csv
accelerated-seg check cases.csv --labels '{0: background, 1: liver, 2: tumour}'; echo "status $?"
accelerated-seg cache --config my_experiment.yaml --prune; echo "status $?"
accelerated-seg cache; echo "status $?"
accelerated-seg cache --prune; echo "status $?"
echo "=== README Configuration: refusals"
accelerated-seg train --config configs/demo.yaml --optim.lrr=1; echo "status $?"
accelerated-seg train --config configs/demo.yaml --train.log_every=0; echo "status $?"
