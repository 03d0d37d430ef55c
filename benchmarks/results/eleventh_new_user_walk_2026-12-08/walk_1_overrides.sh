# bash walk_1_overrides.sh > walk_1_overrides.txt 2>&1   (after walk_0_my_data.py)
# docs/configuration.md, "Overrides on the command line": the user's own experiment file trained as written, then
# changed on the command line; each override's syntax and refusal the section names; times by `time`.
source "$(dirname "$0")/env.sh"
HERE=/tmp/wt_h151/benchmarks/results/eleventh_new_user_walk_2026-12-08
cp $HERE/my_experiment.yaml $T/my_experiment.yaml
X=$T/my_experiment.yaml
R=$T/runs
set -x
# the experiment as written: 2 steps, validating at the second
time accelerated-seg train --config $X; echo "status $?"
ls -a $R/my_experiment
head -c 1500 $R/my_experiment/config.yaml; echo
# "--section.key value, with a space, works too; values are read as YAML ([64,64,64], null, true)"
accelerated-seg train --config $X --train.max_steps 1 --train.output_dir $R/space --data.spacing null \
    --train.overwrite true 2>&1 | grep -v '^  ' | tail -5; echo "status ${PIPESTATUS[0]}"
grep -A3 -E '^  (max_steps|spacing|overwrite):' $R/space/config.yaml | head -12
# "one per setting: --data.patch_size 64 64 64 (as plan --patch takes it) is refused, naming the setting and the list"
time accelerated-seg train --config $X --data.patch_size 64 64 64; echo "status $?"
# a path setting takes a byte that is not UTF-8 (a folder named in Latin-1); any other setting refuses it naming the byte
accelerated-seg train --config $X --train.max_steps=1 --train.output_dir=$R/caf$'\xe9' 2>&1 | tail -2
echo "status ${PIPESTATUS[0]}"; ls $R | od -c | grep -n 351 | head -2
time accelerated-seg train --config $X --train.trackers=caf$'\xe9'; echo "status $?"
time accelerated-seg train --config $X --model.args.act=caf$'\xe9'; echo "status $?"
# "Only train (and examples/train.py) takes overrides: check --config, cache --config and plan --config read the file
# alone, and refuse an override, naming it"
time accelerated-seg check --config $X --optim.lr=0.1; echo "status $?"
time accelerated-seg cache --config $X --train.max_steps 5; echo "status $?"
time accelerated-seg plan --config $X --data.patch_size=[32,32,32]; echo "status $?"
python examples/train.py --config $X --train.max_steps=1 --train.output_dir=$R/example 2>&1 | tail -3
echo "status ${PIPESTATUS[0]}"
# "Another network given as --model.name starts from its own defaults: the file's model.args ... are dropped ...; give
# --model.args (or one argument, --model.args.init_filters=8) with it"
accelerated-seg train --config $X --train.max_steps=1 --model.name=segresnet --train.output_dir=$R/segresnet \
    2>&1 | tail -2; echo "status ${PIPESTATUS[0]}"
grep -A2 '^model:' $R/segresnet/config.yaml
accelerated-seg train --config $X --train.max_steps=1 --model.name=segresnet --model.args.init_filters=8 \
    --train.output_dir=$R/segresnet8 2>&1 | tail -2; echo "status ${PIPESTATUS[0]}"
grep -A3 '^model:' $R/segresnet8/config.yaml
# without model.name: an argument over the file's keeps the others
accelerated-seg train --config $X --train.max_steps=1 --model.args.num_res_units=2 --train.output_dir=$R/units2 \
    2>&1 | tail -2; echo "status ${PIPESTATUS[0]}"
grep -A3 '^model:' $R/units2/config.yaml
