# bash walk_8_configuration_md.sh > walk_8_configuration_md.txt 2>&1   (after walk_1_demo.sh and walk_3_data_commands.sh)
# docs/configuration.md's refusals of the command line, as its prose shows them (each before any import).
source "$(dirname "$0")/env.sh"
set -x
accelerated-seg train --config configs/demo.yaml --data.patch_size 64 64 64; echo "status $?"
accelerated-seg train --config configs/demo.yaml --config configs/demo.yaml; echo "status $?"
accelerated-seg train --config configs/demo.yaml --train.epochs=3; echo "status $?"
accelerated-seg train --config configs/demo.yaml --train.lr=0.1; echo "status $?"
accelerated-seg train --config configs/demo.yaml --optim.lr=nan; echo "status $?"
accelerated-seg train --config configs/demo.yaml --train.trackers=tensorbord; echo "status $?"
accelerated-seg check --config my_experiment.yaml --optim.lr=0.1; echo "status $?"
accelerated-seg plan --model unet --patch 64,64,64; echo "status $?"
accelerated-seg benchmark train --precision fp32,bf16; echo "status $?"
accelerated-seg predict --model output/demo/best_model scans/ --output "$UNSET"; echo "status $?"
accelerated-seg predict --model output/demo scans/ --output p2/; echo "status $?"
accelerated-seg evaluate nothing/ labelsTs/; echo "status $?"
accelerated-seg train --config configs/demo.yaml; echo "status $?"
accelerated-seg train --config configs/kits19_mlperf.yaml; echo "status $?"
