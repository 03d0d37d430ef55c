# bash walk_6_second_run.sh > walk_6_second_run.txt 2>&1   (after walk_1_overrides.sh)
# docs/configuration.md, "A second run into a run's folder": the demo (scaled down: 3 phantoms, 1 step) run twice,
# the refusal timed by each entry point, then the three ways on.
source "$(dirname "$0")/env.sh"
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
SMALL=(--data.synthetic.num_cases=3 --data.synthetic.num_validation=1 --train.max_steps=1 --train.val_every=0
       --data.num_workers=0 --train.trackers=none --train.progress_bar=false)
accelerated-seg train --config configs/demo.yaml "${SMALL[@]}" 2>&1 | tail -3; echo "status ${PIPESTATUS[0]}"
ls output/demo
echo "== a second time"; t accelerated-seg train --config configs/demo.yaml "${SMALL[@]}"
echo "== examples/train.py"; t python examples/train.py --config configs/demo.yaml "${SMALL[@]}"
echo "== accelerate launch"; t accelerate launch --cpu examples/train.py --config configs/demo.yaml "${SMALL[@]}" 2>&1 | tail -4
echo "== resume latest to step 2"; accelerated-seg train --config configs/demo.yaml "${SMALL[@]}" --train.resume=latest --train.max_steps=2 2>&1 | grep -vE '^  ' | tail -4; echo "status ${PIPESTATUS[0]}"
echo "== overwrite"; accelerated-seg train --config configs/demo.yaml "${SMALL[@]}" --train.overwrite=true 2>&1 | grep -vE '^  ' | tail -3; echo "status ${PIPESTATUS[0]}"
