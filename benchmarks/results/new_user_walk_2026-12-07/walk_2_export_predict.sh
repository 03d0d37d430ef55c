# bash walk_2_export_predict.sh > walk_2_export_predict.txt 2>&1   (after walk_1_demo.sh)
# README "Checkpoints, resume, export" (export, the plain-MONAI load) and "Predict and evaluate", as written, on the
# demo's run; scans/ and labelsTs/ are the demo's 4 held-out phantoms, dataset.json the phantoms' own.
source "$(dirname "$0")/env.sh"
set -x
ls output/demo/checkpoints
accelerated-seg export output/demo/checkpoints/step_400 --output demo_step_400; echo "status $?"
ls demo_step_400
python - <<'PY'
import json, re
# README's block, extracted as written
text = open("/tmp/wt_h130/README.md").read()
block = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "load_file" in b][0]
print(block)
exec(compile(block, "README.md", "exec"))
print("loaded", type(net).__name__, "keys", len(state), "activation", config["output_activation"])
PY
SYN=output/demo/synthetic_data
python - <<'PY'
import json
d = json.load(open("output/demo/synthetic_data/dataset.json"))
print({k: (v if not isinstance(v, list) else f"{len(v)} entries, first {v[0]}") for k, v in d.items()})
PY
mkdir -p scans labelsTs
python - <<'PY'
import json, shutil, os
d = json.load(open("output/demo/synthetic_data/dataset.json"))
root = "output/demo/synthetic_data"
held = d.get("validation") or d.get("test") or []
for entry in held:
    image = entry["image"] if isinstance(entry["image"], str) else entry["image"][0]
    shutil.copy(os.path.join(root, image), "scans/")
    shutil.copy(os.path.join(root, entry["label"]), "labelsTs/" + os.path.basename(image))
shutil.copy(os.path.join(root, "dataset.json"), "dataset.json")
print(sorted(os.listdir("scans")), sorted(os.listdir("labelsTs")))
PY
cp scans/$(ls scans | head -1) scan.nii.gz
accelerated-seg predict --model output/demo/best_model scans/ --output predictions/; echo "status $?"
ls predictions
accelerated-seg predict --model output/demo/best_model scan.nii.gz --output scan_seg.nii.gz; echo "status $?"
ls -la scan_seg.nii.gz
mkdir -p fold0 fold1 && cp -r output/demo/best_model fold0/ && cp -r demo_step_400 fold1/best_model
accelerated-seg predict --model fold0/best_model --model fold1/best_model scans/ --output ens/; echo "status $?"
ls ens
accelerated-seg evaluate predictions/ labelsTs/ --labels dataset.json; echo "status $?"
ls predictions/evaluation; head -5 predictions/evaluation/metrics.csv; python -c "import json; s=json.load(open('predictions/evaluation/summary.json')); print({k: s[k] for k in list(s)[:8]})"
