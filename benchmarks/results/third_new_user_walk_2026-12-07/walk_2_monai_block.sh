# bash walk_2_monai_block.sh > walk_2_monai_block.txt 2>&1   (from_monai.md's plain-MONAI block, copied from the page
# as written, with only its first line's model_dir and scan set to the walk's run; its labels against predict's)
source "$(dirname "$0")/env.sh"
python - <<'PY' > block.py
import re
text = open("/tmp/wt_h134/docs/from_monai.md").read()
block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
block = block.replace('"output/demo/best_model", "scan.nii.gz"',
                      '"output/spleen/best_model", "data_walk/spleen/imagesTr/spleen_5.nii.gz"')
print(block)
print("import nibabel, numpy")
print("ours = nibabel.load('pred_spleen/spleen_5.nii.gz').get_fdata()")
print("print('block labels', tuple(labels.shape), 'values', torch.unique(labels).tolist())")
print("print('voxels differing from predict:', int((numpy.asarray(labels) != ours).sum()), 'of', ours.size)")
PY
accelerated-seg predict --help | head -5
accelerated-seg predict --model output/spleen/best_model data_walk/spleen/imagesTr/spleen_5.nii.gz --output pred_spleen 2>&1 | tail -3
ls pred_spleen
python block.py
