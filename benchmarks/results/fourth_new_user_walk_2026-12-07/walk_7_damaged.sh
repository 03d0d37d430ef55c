# bash walk_7_damaged.sh > walk_7_damaged.txt 2>&1
# inference.md "### A damaged export": each damage of make_damaged.py given to predict as --model (timed: the
# refusals before torch in 0.2 s), then the UTF-16 one on every path the page names (predict's images, evaluate
# --labels, export's input, train.init_from, Segmentation.load).
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
set -x
python $H/make_damaged.py
for d in not_json no_in_channels no_model_args args_do_not_build utf16 latin1 trailing_comma cut_short quote_left_out \
         binary bom lfs_pointer weights_cut two_exports channels_edited bad_values unknown_network unknown_class newer_format; do
  /usr/bin/time -f "[%e s]" accelerated-seg predict --model damaged/$d scans/scan1.nii.gz --output out_damaged/$d.nii.gz
  echo "[status $?]"
done
# a config.json of another export (2 channels) given 2-channel scans: the weights' check
st accelerated-seg predict --model damaged/two_exports brats_model/../t1.nii.gz --output out_x
st accelerated-seg predict --model damaged/two_exports two --output out_two_exports
st accelerated-seg predict --model output/demo/best_model damaged/utf16 --output out_x
st accelerated-seg evaluate out_any scans --labels damaged/utf16/config.json
st accelerated-seg export damaged/utf16 --output out_export_utf16
st accelerated-seg train --config configs/demo.yaml --train.init_from=damaged/utf16 --train.output_dir=runs/init_utf16
python -c "from accelerated_seg.estimator import Segmentation; Segmentation.load('damaged/utf16')" 2>&1 | tail -1
python -c "from accelerated_seg.estimator import Segmentation; Segmentation.load('damaged/two_exports')" 2>&1 | tail -1
python -c "from accelerated_seg.estimator import Segmentation; Segmentation.load('damaged/unknown_network')" 2>&1 | tail -1
st accelerated-seg train --config configs/demo.yaml --train.init_from=damaged/lfs_pointer --train.output_dir=runs/init_lfs
