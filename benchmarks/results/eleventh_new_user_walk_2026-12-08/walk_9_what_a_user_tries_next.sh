# bash walk_9_what_a_user_tries_next.sh > walk_9_what_a_user_tries_next.txt 2>&1   (after walk_1_overrides.sh)
# What a researcher writing their own experiment tries beyond the page's examples: a setting given twice on the command
# line, a dotted key into a mapping setting (data.labels, train.loss_args), a section given a value, top-level keys of
# their own, YAML 1.1's readings (1e3, yes/no, a class named "no"), check --config of them; each read by load_config
# alone where that is what matters (no training), printing what the run would get.
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
R=$T/runs
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
show() { python - "$@" <<'PY'
import sys
from accelerated_seg.config import ConfigError, load_config
*overrides, what = sys.argv[1:]
try:
    cfg = load_config(sys.argv[1] if sys.argv[1].endswith(".yaml") else None, [o for o in overrides if not o.endswith(".yaml")])
    print("read:", what, "=", eval("cfg." + what))
except ConfigError as error:
    print("error:", error)
PY
}
echo "== a setting given twice on the command line"; show $X --train.max_steps=1 --train.max_steps=5 train.max_steps
echo "== a dotted key into data.labels"; show $X --data.labels.3=tumour data.labels
echo "== a dotted key into train.loss_args"; show $X --train.loss_args.gamma=2.0 train.loss_args
echo "== a section given a value"; show $X --train=5 train
echo "== model.args whole, quoted"; show $X '--model.args={channels: [4, 8, 16, 32], strides: [2, 2, 2]}' model.args
echo "== max_steps 1e3"; show $X --train.max_steps=1e3 train.max_steps
echo "== lr 1e-3 (YAML 1.1 reads it as a string)"; show $X --optim.lr=1e-3 optim.lr
echo "== overwrite yes"; show $X --train.overwrite=yes train.overwrite
printf 'data:\n  dataset: %s\n  labels: {0: background, 1: yes, 2: no}\n' "$T/mydata/cases.csv" > $T/yes_no.yaml
echo "== classes named yes and no"; show $T/yes_no.yaml data.labels
printf 'name: my_experiment\ndata:\n  patch_size: [16, 16, 16]\n' > $T/named.yaml
echo "== a top-level key of one's own"; show $T/named.yaml data.patch_size
printf 'train:\n  compile: true\n' > $T/compile.yaml
echo "== train.compile: true"; show $T/compile.yaml train.compile
printf 'data:\n  patch_size: 16\n' > $T/patch16.yaml
echo "== patch_size: 16"; show $T/patch16.yaml data.patch_size
printf 'data:\n  spacing: 1.5\n' > $T/spacing.yaml
echo "== spacing: 1.5"; show $T/spacing.yaml data.spacing
echo "== --train.output_dir with ~"; show $X '--train.output_dir=~/runs/x' train.output_dir
echo "== an override without --"; show $X train.max_steps=3 train.max_steps
echo "== an override with no value at the end"; show $X --train.max_steps train.max_steps
echo "== override of a key under a null section"; printf 'train:\n' > $T/null_train.yaml; show $T/null_train.yaml --train.max_steps=3 train.max_steps
echo "== synthetic with data.labels, train"; t accelerated-seg train --config $T/synth_labels.yaml --train.output_dir=$R/synth_labels
ls $R/synth_labels 2>&1
echo "== data.labels with a CSV of 3 classes, given on the command line"; show --data.dataset=$T/mydata/cases.csv '--data.labels={0: background, 1: ventricles, 2: lesion}' data.labels
