# bash walk_10_quiet_launch.sh > walk_10_quiet_launch.txt 2>&1   (after walk_1_demo.sh)
# docs/configuration.md: "accelerate launch -q (quiet) leaves our message alone, still with status 1" - the quick
# start's second launch with -q, beside walk_1's without it (its line, then accelerate's traceback repeating it).
source "$(dirname "$0")/env.sh"
set -x
accelerate launch -q --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml; echo "status $?"
accelerate --version
