# bash walk_9_launched.sh > walk_9_launched.txt 2>&1   (inference.md "Several processes": the page's CPU (gloo) launch
# as written, 2 processes, on the walk's 4 scans (the demo run as output/demo/best_model), its maps against one
# process's byte for byte; --split windows with --tta axes on one scan against predict_file (labels identical,
# probabilities within 1e-5); --device under a launch; predict_distributed's block, in one process and launched)
source "$(dirname "$0")/env.sh"
rm -rf predictions
/usr/bin/time -f "  %e s" env ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --mixed_precision no \
    -m accelerated_seg.cli predict --model output/demo/best_model scans/ --output predictions/ 2>&1 | grep -v Warning
echo "status ${PIPESTATUS[0]}"
accelerated-seg predict --model output/demo/best_model scans/ --output p_single/ > /dev/null; echo "status $?"
python -c "
import glob
print('launched maps byte for byte one process\'s:', all(open(f, 'rb').read() == open(f.replace('p_single', 'predictions'), 'rb').read() for f in glob.glob('p_single/*.nii.gz')), len(glob.glob('predictions/*')))"
echo "== --split windows --tta axes, one scan"
rm -rf one_scan p_win && mkdir one_scan && cp -p scan.nii.gz one_scan/
ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --mixed_precision no \
    -m accelerated_seg.cli predict --model output/demo/best_model one_scan/ --output p_win/ --split windows --tta axes \
    --probabilities 2>&1 | grep -v Warning; echo "status ${PIPESTATUS[0]}"
python - <<'PY'
import nibabel as nib, numpy as np
from accelerated_seg.inference import predict_file
predict_file("output/demo/best_model", "scan.nii.gz", "pf_scan.nii.gz", tta="axes", probabilities_output="pf_scan_probs.nii.gz")
a, b = np.asanyarray(nib.load("pf_scan.nii.gz").dataobj), np.asanyarray(nib.load("p_win/scan.nii.gz").dataobj)
pa, pb = nib.load("pf_scan_probs.nii.gz").get_fdata(), nib.load("p_win/scan_probs.nii.gz").get_fdata()
print("windows: labels identical", bool((a == b).all()), "; probabilities' largest difference", float(np.abs(pa - pb).max()))
PY
echo "== --device under a launch"
/usr/bin/time -f "  %e s" env ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --mixed_precision no \
    -m accelerated_seg.cli predict --model output/demo/best_model scans/ --output p_dev/ --device cpu 2>&1 | grep -v Warning | tail -5
echo "== predict_distributed's block, one process"
rm -rf predictions
python -c '
from accelerated_seg.inference_distributed import predict_distributed

print(predict_distributed("output/demo/best_model", ["scans/"], "predictions", split="auto", tta="all"))'; echo "status $?"
echo "== predict_distributed's block, launched (2 processes)"
rm -rf predictions
cat > pd.py <<'PY'
from accelerated_seg.inference_distributed import predict_distributed

print(predict_distributed("output/demo/best_model", ["scans/"], "predictions", split="auto", tta="all"))
PY
ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --mixed_precision no pd.py 2>&1 | grep -v Warning
echo "status ${PIPESTATUS[0]}"
