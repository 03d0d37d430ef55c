# bash walk_4_checkpoints.sh > walk_4_checkpoints.txt 2>&1   (after walk_3_model.sh: output/demo, steps 2 and 4)
# docs/checkpoints.md's sections h133 did not walk, where a CPU run of a minute shows them: Rotation's refusal of a
# step rotated away, "What may change on a resume" (a setting listed, max_steps' line, the optimizer refused before
# the imports, max_steps below the step), "A damaged or missing checkpoint", "A new run in a used folder"'s
# refusals of a folder no run wrote and of a file, "What step N means"' names.
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
S="--train.save_every=2 --train.val_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
S="$S --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 --data.num_workers=0"
tr_() { echo; echo "\$ accelerated-seg train --config configs/demo.yaml ... $*"; local t0=$(date +%s.%N)
        accelerated-seg train --config configs/demo.yaml $S "$@" 2>&1 | tr '\r' '\n' | grep -v "^ *$" \
          | grep -av "it/s\]\|s/it\]" | tail -12; local rc=${PIPESTATUS[0]}
        echo "status $rc ($(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s)"; }
rm -rf output/ck && cp -r output/demo output/ck
D="--train.output_dir=output/ck"
ls output/ck/checkpoints
echo "=== Rotation: a step rotated away ==="
tr_ $D --train.max_steps=4 --train.resume=output/ck/checkpoints/step_40
echo "=== What may change: optim.lr listed, max_steps 4 -> 8 said; the optimizer refused before the imports ==="
tr_ $D --train.max_steps=4 --train.resume=latest --optim.optimizer=sgd
tr_ $D --train.max_steps=1 --train.resume=latest
tr_ $D --train.max_steps=8 --train.resume=latest --optim.lr=0.001
ls output/ck/checkpoints
python -c "import json; print('resumes:', json.load(open('output/ck/run_info.json'))['resumes'])"
echo "=== A damaged or missing checkpoint ==="
truncate -s 100 output/ck/checkpoints/step_8/model.safetensors
tr_ $D --train.max_steps=10 --train.resume=latest
rm -rf output/empty_run && mkdir -p output/empty_run
tr_ --train.output_dir=output/empty_run --train.max_steps=4 --train.resume=latest
tr_ --train.output_dir=output/empty_run --train.max_steps=4 --train.resume=output/demo/model
echo "=== A new run in a used folder ==="
tr_ $D --train.max_steps=4
rm -rf output/project && mkdir -p output/project/model && echo '{}' > output/project/summary.json
tr_ --train.output_dir=output/project --train.max_steps=4
touch output/afile
tr_ --train.output_dir=output/afile --train.max_steps=4
