# bash walk_3_demo.sh > walk_3_demo.txt 2>&1   (demo.md's command as written, in the walk's clone)
source "$(dirname "$0")/env.sh"
time accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml
ls output/demo output/demo/synthetic_data | head -40
