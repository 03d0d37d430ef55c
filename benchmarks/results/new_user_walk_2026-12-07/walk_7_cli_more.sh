# bash walk_7_cli_more.sh > walk_7_cli_more.txt 2>&1   (after walk_1_demo.sh)
# The rest of the README's commands that run on the demo's run: the README's "Configuration" train line (its 600 steps
# cut to 2 by --train.max_steps=2 --optim.warmup_steps=0, the walk's only change), the override with a space, export
# of a run folder, and the resume the README offers on the finished demo.
source "$(dirname "$0")/env.sh"
set -x
/usr/bin/time -f "wall %e s" accelerated-seg train --config configs/demo.yaml --optim.lr=3e-4 --data.patch_size=[64,64,48] --model.name=segresnet \
    --train.output_dir=output/demo_segresnet --train.max_steps=2 --optim.warmup_steps=0 2>&1 | tr '\r' '\n' | grep -v -E "^ *[0-9]+%\|"; echo "status ${PIPESTATUS[0]}"
accelerated-seg train --config configs/demo.yaml --optim.lrr 1; echo "status $?"
accelerated-seg export output/demo --output demo_newest; echo "status $?"
/usr/bin/time -f "wall %e s" accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml --train.resume=latest 2>&1 | tr '\r' '\n' | grep -v -E "^ *[0-9]+%\|"; echo "status ${PIPESTATUS[0]}"
