# bash walk_9_more_checkpoints.sh > walk_9_more_checkpoints.txt 2>&1   (after walk_4_checkpoints.sh: output/ck, steps
# 6 and 8, step_8's model.safetensors cut short there)
# checkpoints.md: "Going back to an older step" (resume step_6: the later step_8 and a later model/ set aside into
# checkpoints/superseded_by_resuming_step_6/, said); a resume at exactly train.max_steps ("nothing to train"); "One
# live run per folder" (a second run into a folder a run is training in, refused naming the holder).
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
S="--train.save_every=2 --train.val_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
S="$S --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 --data.num_workers=0"
tr_() { echo; echo "\$ accelerated-seg train --config configs/demo.yaml ... $*"
        accelerated-seg train --config configs/demo.yaml $S "$@" 2>&1 | tr '\r' '\n' | grep -v "^ *$" \
          | grep -av "it/s\]\|s/it\]\|^step [0-9]*: validation" | cut -c1-600 | tail -8; echo "status ${PIPESTATUS[0]}"; }
D="--train.output_dir=output/ck"
python -c "import json; print('model/ step', json.load(open('output/ck/model/config.json'))['step'])"
tr_ $D --train.max_steps=8 --optim.lr=0.001 --train.resume=output/ck/checkpoints/step_6
find output/ck/checkpoints -maxdepth 2 | sort
tr_ $D --train.max_steps=8 --optim.lr=0.001 --train.resume=latest
echo "=== one live run per folder ==="
rm -rf output/live
accelerated-seg train --config configs/demo.yaml $S --train.output_dir=output/live --train.max_steps=400 \
  --train.val_every=0 > live_first.out 2>&1 &
first=$!
for _ in $(seq 1 300); do [ -e output/live/.run.lock ] && ls output/live/checkpoints/step_* >/dev/null 2>&1 && break; sleep 0.2; done
tr_ --train.output_dir=output/live --train.max_steps=400 --train.val_every=0 --train.resume=latest
kill -TERM $first; wait $first; echo "first run: status $?"
tr '\r' '\n' < live_first.out | grep -a "preempted" | cut -c1-300
