# bash walk_3b_loss_refusals.sh > walk_3b_loss_refusals.txt 2>&1   (after walk_3_warnings_network_loss.sh)
# walk_3's last refusals again, each into a folder of its own: in walk_3 `{gamma: 2.0}` (which dice_focal takes) trained
# into $R/none, and the refusals after it met that run instead (the script's mistake, not the package's).
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
R=$T/runs
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
echo "== dice_focal {to_onehot_y: false}"; t accelerated-seg train --config $X --train.output_dir=$R/none3b_1 --train.loss=dice_focal '--train.loss_args={to_onehot_y: false}'
echo "== dice_ce {gamma: 2.0}"; t accelerated-seg train --config $X --train.output_dir=$R/none3b_2 '--train.loss_args={gamma: 2.0}'
echo "== dice_ce {weight: [1.0, 2.0, 3.0, 4.0]}"; t accelerated-seg train --config $X --train.output_dir=$R/none3b_3 '--train.loss_args={weight: [1.0, 2.0, 3.0, 4.0]}'
echo "== kits19 train"; t accelerated-seg train --config configs/kits19_mlperf.yaml --train.output_dir=$R/none3b_4
ls -d $R/none3b_* 2>&1
