# bash walk_3_warnings_network_loss.sh > walk_3_warnings_network_loss.txt 2>&1   (after walk_1_overrides.sh)
# docs/configuration.md: the rest of "Settings refused or warned of" (optim.lr 0, the network checked once the cases
# are read, model.args MONAI refuses, strides of other than three numbers, the warnings of settings left without
# effect) and "The network and the loss". check --config reads the file alone (no overrides), so each variant is a
# file of its own under $T/var/.
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
R=$T/runs
V=$T/var; mkdir -p $V
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
# variant NAME 'python expression editing cfg (a dict)': $V/NAME.yaml from the experiment file
variant() { python - "$1" "$2" <<'PY'
import sys, yaml, os
cfg = yaml.safe_load(open(os.environ["T"] + "/my_experiment.yaml"))
exec(sys.argv[2])
cfg["train"]["output_dir"] = os.environ["T"] + "/runs/" + sys.argv[1]
yaml.safe_dump(cfg, open(os.environ["T"] + "/var/" + sys.argv[1] + ".yaml", "w"), sort_keys=False)
PY
}
# --- optim.lr 0: warned at the start of training and by check --config, not refused
variant lr0 'cfg["optim"]["lr"] = 0'
echo "== lr 0: check --config"; t accelerated-seg check --config $V/lr0.yaml
echo "== lr 0: train"; accelerated-seg train --config $V/lr0.yaml 2>&1 | grep -iE 'warning|error|exported|^step' ; echo "status ${PIPESTATUS[0]}"
# --- the network: model.args MONAI refuses; a one-voxel bottleneck; more strides than channels; strides of 2 numbers;
# INSTANCE_NVFUSER without apex; a channel list holding a word
variant monai_refuses 'cfg["model"]["args"] = {"channels": [4, 8, 16], "strides": [2]}'
variant bottleneck 'cfg["model"]["args"] = {"channels": [4, 8, 16, 32, 64], "strides": [2, 2, 2, 2]}'
variant more_strides 'cfg["model"]["args"] = {"channels": [4, 8], "strides": [2, 2, 2]}'
variant two_numbers 'cfg["model"]["args"] = {"channels": [4, 8, 16, 32, 64], "strides": [2, 2, 2, [2, 2]]}'
variant nvfuser 'cfg["model"]["args"]["norm"] = "INSTANCE_NVFUSER"'
variant word 'cfg["model"]["args"]["channels"] = [4, "x", 16]'
variant default_unet 'cfg["model"]["args"] = {}; cfg["data"]["patch_size"] = [24, 24, 24]'
variant in_channels 'cfg["model"]["args"]["in_channels"] = 2'
for v in monai_refuses bottleneck more_strides two_numbers nvfuser word default_unet in_channels; do
  echo "== check --config $v"; t accelerated-seg check --config $V/$v.yaml 2>&1 | grep -vE '^  '
done
for v in monai_refuses bottleneck two_numbers word; do
  echo "== train $v"; t accelerated-seg train --config $V/$v.yaml; ls $T/runs/$v 2>&1 | head -3
done
echo "== train more_strides (a warning, then it trains)"; accelerated-seg train --config $V/more_strides.yaml 2>&1 \
  | grep -E 'warning|error|^step' | head -5; echo "status ${PIPESTATUS[0]}"
# --- settings left without effect: each of the page's list, said by check --config
variant unused 'cfg["optim"].update(momentum=0.9, nesterov=False, poly_exponent=2.0, base_batch_size=4)
cfg["data"].update(synthetic={"num_cases": 8}, ct_window=[-100, 200], normalization="zscore", class_balanced=True,
                   foreground_fraction=0, augment="none", augment_on="cpu")
cfg["train"].update(compile={"backend": "aot_eager"}, val_tolerance_mm=2.0)'
variant unused_val 'cfg["train"].update(val_every=0, sw_overlap=0.5, val_distances=True)'
variant warmup 'cfg["optim"]["warmup_steps"] = 5; cfg["train"]["trackers"] = "wandb"'
for v in unused unused_val warmup; do
  echo "== check --config $v"; t accelerated-seg check --config $V/$v.yaml 2>&1 | grep -E 'warning|error|^status'
done
echo "== train warmup (tracker not installed?)"; accelerated-seg train --config $V/warmup.yaml 2>&1 \
  | grep -iE 'warning|error' | head -5; echo "status ${PIPESTATUS[0]}"
# --- "The network and the loss": the page's loss example, its refusals
accelerated-seg train --config $X --train.output_dir=$R/focal --train.max_steps=1 --train.loss=dice_focal \
  '--train.loss_args={gamma: 2.0, weight: [0.2, 1.0, 2.0]}' 2>&1 | grep -E 'error|warning|exported'; echo "status ${PIPESTATUS[0]}"
for a in '{sigmoid: true}' '{weight: [1.0, 2.0]}' '{gamma: 2.0}' '{to_onehot_y: false}'; do
  echo "== loss_args $a"; t accelerated-seg train --config $X --train.output_dir=$R/none --train.loss=dice_focal "--train.loss_args=$a"
done
echo "== dice_ce with gamma"; t accelerated-seg train --config $X --train.output_dir=$R/none "--train.loss_args={gamma: 2.0}"
echo "== loss unknown"; t accelerated-seg train --config $X --train.output_dir=$R/none --train.loss=focal
echo "== model unknown"; t accelerated-seg train --config $X --train.output_dir=$R/none --model.name=vnet
# dynunet: a patch under 16 voxels along every axis refused; deep_supr_num 3 on 32^3 told 64^3
variant dyn8 'cfg["model"] = {"name": "dynunet", "args": {}}; cfg["data"]["patch_size"] = [8, 8, 8]'
variant dyn_ds 'cfg["model"] = {"name": "dynunet", "args": {"deep_supervision": True, "deep_supr_num": 3}}
cfg["data"]["patch_size"] = [32, 32, 32]'
variant dyn_ds_ok 'cfg["model"] = {"name": "dynunet", "args": {"deep_supervision": True, "deep_supr_num": 1}}'
for v in dyn8 dyn_ds dyn_ds_ok; do echo "== check --config $v"; t accelerated-seg check --config $V/$v.yaml 2>&1 | grep -vE '^  '; done
echo "== train dyn_ds_ok"; accelerated-seg train --config $V/dyn_ds_ok.yaml --train.max_steps=1 2>&1 | grep -E 'error|warning|exported'; echo "status ${PIPESTATUS[0]}"
# "the default U-Net's four stride-2 stages need multiples of 16, the demo's three multiples of 8"
sed 's/patch_size: \[48, 48, 48\]/patch_size: [20, 20, 20]/' configs/demo.yaml > $V/demo20.yaml
echo "== demo at 20^3"; t accelerated-seg check --config $V/demo20.yaml 2>&1 | grep -E 'error|warning|^status' 
variant unet20 'cfg["model"]["args"] = {}; cfg["data"]["patch_size"] = [24, 24, 24]'
echo "== default unet at 24^3"; t accelerated-seg check --config $V/unet20.yaml 2>&1 | grep -E 'error|warning|^status'
# the KiTS19 experiment without its CSV; plan of it under fsdp.yaml
echo "== kits19 check"; t accelerated-seg check --config configs/kits19_mlperf.yaml
echo "== kits19 train"; t accelerated-seg train --config configs/kits19_mlperf.yaml --train.output_dir=$R/none
echo "== kits19 plan"; t accelerated-seg plan --config configs/kits19_mlperf.yaml --accelerate-config configs/accelerate/fsdp.yaml --in-channels 1 --classes 3
ls $R/none 2>&1
