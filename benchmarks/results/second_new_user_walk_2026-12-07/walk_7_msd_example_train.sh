# bash walk_7_msd_example_train.sh > walk_7_msd_example_train.txt 2>&1
# data.md's Decathlon example as written ("validation": []) given to the demo's training; its ignore label's
# "declared" listing (a value 5 beside labels 0..2 and ignore 3); check's statuses (data.md says none).
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
set -x
accelerated-seg train --config configs/demo.yaml --data.dataset=data_walk/Task01_Tiny --train.output_dir=output/msd \
    --train.max_steps=1 --data.patch_size=[16,16,16]; echo "status $?"
ls output/msd 2>&1
python - <<'PY'
import json, shutil
from pathlib import Path
import nibabel as nib, numpy as np
d = Path("data_walk/wordings/ignore5")
shutil.rmtree(d, ignore_errors=True)
shutil.copytree("data_walk/Task01_Tiny", d)
data = json.loads((d / "dataset.json").read_text())
data["labels"] = {"0": "background", "1": "liver", "2": "tumour", "3": "ignore"}
(d / "dataset.json").write_text(json.dumps(data))
label = nib.load(d / "labelsTr/case_001.nii.gz")
array = np.asarray(label.dataobj).copy()
array[0, 0, 0] = 5
nib.save(nib.Nifti1Image(array, label.affine), d / "labelsTr/case_001.nii.gz")
PY
accelerated-seg check data_walk/wordings/ignore5 2>&1 | grep -o "declared: [^)]*)"; echo "status ${PIPESTATUS[0]}"
