# bash walk_2_refusals.sh > walk_2_refusals.txt 2>&1   (after walk_1_overrides.sh)
# docs/configuration.md, "Settings refused or warned of", first two paragraphs: each refusal it names, made in the
# user's own experiment file or on the command line over it, status and time of each. A refusal writes nothing: the
# run folder $R/none must not exist after any of them (checked at the end).
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
R=$T/runs
B=$T/bad; mkdir -p $B
NEW=--train.output_dir=$R/none
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
# --- the file: empty, comments only, a syntax error, a tab, a key twice, a merge's key overridden, a joined colon
: > $B/empty.yaml; printf '# my experiment\n# nothing yet\n' > $B/comments.yaml
printf 'data:\n  patch_size: [16, 16, 16\ntrain:\n  max_steps: 2\n' > $B/syntax.yaml
printf 'data:\n\tpatch_size: [16, 16, 16]\n' > $B/tab.yaml
printf 'train:\n  max_steps: 2\n  batch_size: 1\n  max_steps: 20\n' > $B/twice.yaml
printf 'base: &base {max_steps: 2, batch_size: 1}\ntrain:\n  <<: *base\n  max_steps: 1\n' > $B/merge.yaml
sed 's/labels: {0: background, 1: ventricles, 2: lesion}/labels: {0:background, 1:ventricles, 2:lesion}/' $X > $B/joined.yaml
for f in empty comments syntax tab twice merge joined; do echo "== $f.yaml"; t accelerated-seg train --config $B/$f.yaml $NEW; done
# the merge file: 'base' is no section; the same without it
printf 'train:\n  <<: {max_steps: 2, batch_size: 1}\n  max_steps: 1\n  output_dir: %s/none\n' $R > $B/merge2.yaml
echo "== merge2.yaml (check --config reads the file alone)"; t accelerated-seg check --config $B/merge2.yaml
# --- unknown keys: the page's examples, on the command line and in the file
for o in --optim.lrr=1 --train.lr=0.1 --data.batch_size=2 --train.epochs=3 --train.gradient_accumulation_steps=2 \
         --train.mixed_precision=bf16 --data.roi_size=[16,16,16] --data.pixdim=[1,1,1] --train.val_interval=2 \
         --model.num_classes=3 --model.out_channels=3 --data.in_channels=1 --train.device=cuda --train.gpus=2 \
         --optim.name=sgd; do
  echo "== $o"; t accelerated-seg train --config $X $NEW $o
done
sed 's/  lr: 3.0e-3/  lrr: 3.0e-3/' $X > $B/lrr.yaml
echo "== lrr in the file"; t accelerated-seg train --config $B/lrr.yaml $NEW
# misspelt model.args and train.loss_args: "so are the closest names of misspelt model.args and train.loss_args"
echo "== model.args.chanels"; t accelerated-seg train --config $X $NEW --model.args.chanels=[4,8,16]
echo "== loss_args gama"; t accelerated-seg train --config $X $NEW --train.loss=dice_focal '--train.loss_args={gama: 2}'
# --- --config twice
echo "== --config twice"; t accelerated-seg train --config $X --config configs/demo.yaml $NEW
# --- wrongly typed values
for o in --train.max_steps=abc --train.batch_size=1.5 --train.overwrite=yes_please --data.patch_size=16 \
         --optim.lr=fast --train.progress_bar=0; do
  echo "== $o"; t accelerated-seg train --config $X $NEW $o
done
# --- numbers no run can work with
for o in --train.log_every=0 --train.max_steps=-1 --data.foreground_fraction=1.5 --data.patch_size=[0,16,16] \
         --data.ct_window=[100,-100] --optim.lr=nan --optim.lr=inf --train.seed=4294967296 --train.seed=-1 \
         "--data.num_folds=3 --data.fold=3"; do
  echo "== $o"; t accelerated-seg train --config $X $NEW $o
done
sed 's/  max_steps: 2/  max_steps: -1/' $X > $B/negative.yaml
echo "== max_steps -1 in the file"; t accelerated-seg train --config $B/negative.yaml $NEW
# --- trackers
for o in --train.trackers=tensorbord --train.trackers=TensorBoard "--train.trackers=[tensorbord, wandb]" \
         --train.trackers=tensorbord,wandbb; do
  echo "== $o"; t accelerated-seg train --config $X $NEW "$o"
done
# --- a file where a folder must be made; empty paths
: > $T/a_file
for o in --train.output_dir=$T/a_file/run --data.cache_dir=$T/a_file/cache --train.output_dir= --train.resume= \
         --train.init_from= --data.cache_dir= "--train.output_dir=''"; do
  echo "== $o"; t accelerated-seg train --config $X $NEW "$o"
done
sed "s|  output_dir: .*|  output_dir: ''|" $X > $B/empty_output.yaml
echo "== output_dir '' in the file"; t accelerated-seg train --config $B/empty_output.yaml
# --- an empty argument, an option's values joined by commas
UNSET=
echo "== predict --output \"\$UNSET\""; t accelerated-seg predict --model $R/my_experiment/model $T/mydata/scans/imagesTr --output "$UNSET"
echo "== plan --patch 64,64,64"; t accelerated-seg plan --model unet --patch 64,64,64
echo "== benchmark train --precision fp32,bf16"; t accelerated-seg benchmark train --precision fp32,bf16
echo "== check --config with an empty config path"; t accelerated-seg check --config "$UNSET"
# --- nothing written by any refusal above
ls $R/none 2>&1; ls -a $T/a_file 2>&1
