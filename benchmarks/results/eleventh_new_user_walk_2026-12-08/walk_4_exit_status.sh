# bash walk_4_exit_status.sh > walk_4_exit_status.txt 2>&1   (after walk_1_overrides.sh)
# docs/configuration.md, "When a run stops: one error line, and the exit status": each refusal and status it names,
# timed; the launchers' reports (torchrun, accelerate launch, -q) of one refusal; a run that diverges.
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
R=$T/runs
NEW=--train.output_dir=$R/none4  # its own: walk_3 left a run in $R/none
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
echo "== examples/train.py, unknown key"; t python examples/train.py --config $X $NEW --optim.lrr=1
echo "== model.name vnet"; t accelerated-seg train --config $X $NEW --model.name=vnet
echo "== init_from a CSV"; t accelerated-seg train --config $X $NEW --train.init_from=$T/mydata/cases.csv
echo "== init_from a run folder"; t accelerated-seg train --config $X $NEW --train.init_from=$R/my_experiment
echo "== resume of nothing"; t accelerated-seg train --config $X $NEW --train.resume=$T/nowhere
echo "== resume latest in a fresh folder"; t accelerated-seg train --config $X $NEW --train.resume=latest
echo "== data.fold without num_folds (demo)"; t accelerated-seg train --config configs/demo.yaml $NEW --data.fold=1
echo "== data.fold without num_folds (my CSV)"; t accelerated-seg train --config $X $NEW --data.fold=1
echo "== model.args name the class does not take"; t accelerated-seg train --config $X $NEW --model.args.chanels=[4,8,16]
echo "== model.args [8, x]"; t accelerated-seg train --config $X $NEW '--model.args.channels=[8, x, 16]'
ls $R/none4 2>&1
# a training that diverges: status 1
accelerated-seg train --config $X --train.output_dir=$R/diverge --optim.lr=1e30 --optim.max_grad_norm=0 \
  --train.max_steps=6 --train.max_nonfinite_steps=1 --train.val_every=0 2>&1 | grep -vE '^  ' | tail -4; echo "status ${PIPESTATUS[0]}"
# predict, export, plan, benchmark, evaluate refusals
echo "== predict --model run folder"; t accelerated-seg predict --model $R/my_experiment $T/mydata/scans/imagesTr --output $T/p1
echo "== predict --model config.json"; t accelerated-seg predict --model $R/my_experiment/model/config.json $T/mydata/scans/imagesTr --output $T/p1
echo "== export of a folder without checkpoint"; t accelerated-seg export $T/mydata --output $T/exp1
echo "== plan without --patch"; t accelerated-seg plan --model unet
echo "== benchmark train vnet"; t accelerated-seg benchmark train --model vnet
echo "== evaluate missing"; t accelerated-seg evaluate $T/nothing $T/mydata/scans/labelsTr
# check: status 1 when it finds problems (a case cut short)
mkdir -p $T/broken && cp $T/mydata/scans/imagesTr/case_000.nii.gz $T/broken/cut.nii.gz
truncate -s 300 $T/broken/cut.nii.gz
(head -1 $T/mydata/cases.csv; echo "$T/broken/cut.nii.gz,$(sed -n 2p $T/mydata/cases.csv | cut -d, -f2)"; sed -n 3,6p $T/mydata/cases.csv) > $T/broken/cases.csv
echo "== check of a CSV holding a cut case"; t accelerated-seg check $T/broken/cases.csv --labels '{0: background, 1: ventricles, 2: lesion}' 2>&1 | grep -vE '^  '
# the one-process commands under a launch of 2: every rank refuses, status 2, nothing written
echo "== check under a 2-process launch"
t env ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 -m accelerated_seg check $T/mydata/cases.csv 2>&1 | tail -6
echo "== synth under a 2-process launch"
t env ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 -m accelerated_seg synth $T/launched_synth 2>&1 | tail -3
ls $T/launched_synth 2>&1
# a refusal under torchrun (2 processes): our line, then the launcher's summary with it
echo "== torchrun, unknown key"
t env ACCELERATE_USE_CPU=true torchrun --nproc_per_node 2 -m accelerated_seg train --config $X $NEW --optim.lrr=1 2>&1 | grep -vE '^\s*$' | tail -14
# accelerate launch of one process: its CalledProcessError after ours, status 1; -q leaves our line
echo "== accelerate launch, one process"
t accelerate launch --cpu -m accelerated_seg train --config $X $NEW --optim.lrr=1 2>&1 | tail -14
echo "== accelerate launch -q, one process"
t accelerate launch -q --cpu -m accelerated_seg train --config $X $NEW --optim.lrr=1 2>&1 | tail -4
