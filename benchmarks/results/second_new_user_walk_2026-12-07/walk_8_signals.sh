# bash walk_8_signals.sh > walk_8_signals.txt 2>&1
# docs/checkpoints.md "Preemption" and "Ctrl-C": a scaled-down demo run (patch 16^3, 6 phantoms, save_every 5,
# max_steps 2000) sent SIGTERM once training steps, then resumed and sent SIGINT; the lines and statuses the page
# gives (SIGTERM: "preempted: ...", status 0, summary "preempted": true, no model/; Ctrl-C: "interrupted (Ctrl-C)
# after step N; the newest whole checkpoint is ...", status 130).
# set -m: a non-interactive shell starts its background jobs with SIGINT ignored (a first draft's Ctrl-C was
# never seen, the run trained to its end); with job control each job is its own group, SIGINT as a terminal sends it
set -m
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
S="--train.output_dir=output/signals --train.max_steps=2000 --train.save_every=5 --train.val_every=0"
S="$S --optim.warmup_steps=0 --data.patch_size=[16,16,16] --data.synthetic.num_cases=6"
S="$S --data.synthetic.num_validation=2 --data.num_workers=0"
rm -rf output/signals
wait_for_steps() {  # until the run has saved a checkpoint (its steps under way)
  for _ in $(seq 1 600); do ls output/signals/checkpoints/step_* >/dev/null 2>&1 && return; sleep 0.2; done
}
accelerated-seg train --config configs/demo.yaml $S > signal_term.out 2>&1 &
pid=$!; wait_for_steps; kill -TERM $pid; wait $pid; echo "SIGTERM: status $?"
grep -a "preempted\|error" signal_term.out | tr '\r' '\n' | grep -a "preempted:\|error"
python -c "import json; print('summary preempted:', json.load(open('output/signals/summary.json'))['preempted'])"
ls output/signals; ls output/signals/checkpoints
accelerated-seg train --config configs/demo.yaml $S --train.resume=latest > signal_int.out 2>&1 &
pid=$!; sleep 8; kill -INT $pid; wait $pid; echo "SIGINT: status $?"
tr '\r' '\n' < signal_int.out | grep -a "resumed from\|interrupted\|Traceback"
ls output/signals/checkpoints
