# cd /tmp/r120 && bash /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_4_training_units.sh \
#   > /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_4_training_units.txt 2>&1
# Training's reading of a 2-channel case declaring mm at 0.02 mm beside cases at 2 mm, for data.spacing 2 mm: does it
# offer the case's own reading with an empty clause (": ;"), as predict's case did until 9f300c69?
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=${PYTHONPATH:-/tmp/wt_r120} OMP_NUM_THREADS=1
python - <<'PY'
import json, os, shutil
import nibabel as nib, numpy as np
root = "/tmp/r120/Task03_Units"
shutil.rmtree(root, ignore_errors=True)
for sub in ("imagesTr", "labelsTr"):
    os.makedirs(f"{root}/{sub}")
rng = np.random.default_rng(0)
for i in range(4):
    size = 0.02 if i == 0 else 2.0
    affine = np.diag([size, size, size, 1.0])
    label = np.zeros((16, 16, 16), np.uint8)
    label[4:10, 5:11, 4:10] = 1
    for channel in range(2):
        image = nib.Nifti1Image(rng.normal(100, 10, (16, 16, 16)).astype(np.float32) + 60 * label, affine)
        image.header.set_xyzt_units("mm")
        nib.save(image, f"{root}/imagesTr/p{i:02d}_{channel:04d}.nii.gz")
    lab = nib.Nifti1Image(label, affine)
    lab.header.set_xyzt_units("mm")
    nib.save(lab, f"{root}/labelsTr/p{i:02d}.nii.gz")
json.dump({"name": "Units", "channel_names": {"0": "T1", "1": "FLAIR"}, "labels": {"background": 0, "tumour": 1},
           "numTraining": 4, "file_ending": ".nii.gz"}, open(f"{root}/dataset.json", "w"))
PY
cat > /tmp/r120/units.yaml <<'Y'
data:
  dataset: /tmp/r120/Task03_Units
  spacing: [2, 2, 2]
Y
echo "== check --config (data.spacing 2 mm)"
accelerated-seg check --config /tmp/r120/units.yaml; echo "[status $?]"
echo "== train --data.spacing=[2,2,2]"
accelerated-seg train --data.dataset=/tmp/r120/Task03_Units --data.spacing=[2,2,2] --data.patch_size=[16,16,16] \
  --model.args.channels=[8,16,32] --model.args.strides=[2,2] --train.max_steps=1 --train.output_dir=/tmp/r120/runs_u \
  2>&1 | grep -v "^\s*$" | tail -8; echo "[status ${PIPESTATUS[0]}]"
echo "== the rewrite said, run on the files the error names and the label, then check again"
accelerated-seg check --config /tmp/r120/units.yaml 2>&1 | grep -o '/tmp/r120/Task03_Units/imagesTr/p00_000[01].nii.gz' | sort -u > /tmp/r120/named.txt
python - <<'PY'
import nibabel as nib, numpy as np
for path in [*open("/tmp/r120/named.txt").read().split(), "/tmp/r120/Task03_Units/labelsTr/p00.nii.gz"]:
    print("rewritten:", path)
    img = nib.load(path, mmap=False); img.header['xyzt_units'] = img.header['xyzt_units'] & 56 | nib.nifti1.unit_codes['mm']; nib.save(nib.Nifti1Image(np.asanyarray(img.dataobj), np.diag([1000, 1000, 1000, 1]) @ img.affine, img.header), path)
PY
accelerated-seg check --config /tmp/r120/units.yaml; echo "[status $?]"
