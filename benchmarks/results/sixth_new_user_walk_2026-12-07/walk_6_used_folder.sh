# bash walk_6_used_folder.sh > walk_6_used_folder.txt 2>&1   (after walk_3_model.sh)
# checkpoints.md "A new run in a used folder": a folder no run wrote (no run_info.json) holding files of the names a
# run replaces is refused "the error naming them"; overwrite "deletes only a folder a run wrote". What the error
# offers for such a folder, and what that offer then does.
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
S="--train.max_steps=2 --train.val_every=0 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
S="$S --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 --data.num_workers=0"
tr_() { echo; echo "\$ accelerated-seg train --config configs/demo.yaml ... $*"
        accelerated-seg train --config configs/demo.yaml $S "$@" 2>&1 | tr '\r' '\n' | grep -av "it/s\]\|s/it\]" \
          | grep -a "error\|warning\|overwr\|trained to" | cut -c1-700; echo "status ${PIPESTATUS[0]}"; }
for form in summary model config; do
  rm -rf output/project_$form && mkdir -p output/project_$form
  case $form in
    summary) echo '{}' > output/project_$form/summary.json;;
    model) mkdir output/project_$form/model && echo x > output/project_$form/model/notes.txt;;
    config) echo 'a: 1' > output/project_$form/config.yaml; echo 'my notes' > output/project_$form/notes.txt;;
  esac
  tr_ --train.output_dir=output/project_$form
  tr_ --train.output_dir=output/project_$form --train.overwrite=true
  ls -a output/project_$form | tr '\n' ' '; echo
done
# an export copied into a project folder as its model/ (no run_info.json)
rm -rf output/project_export && mkdir -p output/project_export && cp -r output/demo/model output/project_export/model
tr_ --train.output_dir=output/project_export
tr_ --train.output_dir=output/project_export --train.overwrite=true
ls -a output/project_export | tr '\n' ' '; echo
