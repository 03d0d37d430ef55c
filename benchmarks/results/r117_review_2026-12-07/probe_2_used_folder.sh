# cd /tmp/wt_r117 && bash benchmarks/results/r117_review_2026-12-07/probe_2_used_folder.sh \
#   > benchmarks/results/r117_review_2026-12-07/probe_2_used_folder_<at>.txt 2>&1   (at: main, or after the fix)
# r117: h138's Open item (walk_6_used_folder.sh) through the three callers: `accelerated-seg train`, examples/train.py
# and Segmentation.fit(overwrite=...): a folder no run wrote (no run_info.json) holding a summary.json, an export's
# model/ or checkpoints; with and without overwrite; then a folder a run DID write (run_info.json): offered overwrite.
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=${PYTHONPATH:-/tmp/wt_r117} OMP_NUM_THREADS=1
W=$(mktemp -d); cd $W; cp -r /tmp/wt_r117/configs .
S="--train.max_steps=2 --train.val_every=0 --data.patch_size=[16,16,16] --data.synthetic.num_cases=4"
S="$S --data.synthetic.num_validation=1 --data.num_workers=0"
make() { rm -rf $W/p && mkdir -p $W/p && case $1 in
    summary) echo '{}' > p/summary.json;;
    export) mkdir p/model && echo w > p/model/model.safetensors && echo '{}' > p/model/config.json;;
    checkpoints) mkdir -p p/checkpoints/step_2 && echo '{"step": 2}' > p/checkpoints/step_2/training_state.json
                 echo w > p/checkpoints/step_2/model.safetensors;;
    run) echo '{}' > p/summary.json && echo '{}' > p/run_info.json;;
  esac; }
for form in summary export checkpoints run; do
  for how in "accelerated-seg train" "python /tmp/wt_r117/examples/train.py"; do
    for over in "" "--train.overwrite=true"; do
      [ $form = run ] && [ -n "$over" ] && continue  # it would train: check_output_folder's answer below instead
      make $form; echo; echo "## $form: \$ $how --config configs/demo.yaml ... --train.output_dir=p $over"
      $how --config configs/demo.yaml $S --train.output_dir=p $over 2>&1 | grep -a "error" | cut -c1-600
      echo "status ${PIPESTATUS[0]}; p holds: $(cd p && find . -type f | sort | tr '\n' ' ')"
    done
  done
done
python - <<'PY'
from pathlib import Path
from accelerated_seg.run_folder import check_output_folder
import os, shutil, tempfile
p = Path(tempfile.mkdtemp()) / "p"; p.mkdir()
(p / "summary.json").write_text("{}"); (p / "run_info.json").write_text("{}")
print("\n## run: check_output_folder(p, overwrite=True) ->", check_output_folder(p, overwrite=True))
PY
python - <<'PY' 2>&1 | grep -v Warning
# Segmentation.fit(overwrite=...) into a folder no run wrote holding a summary.json
import tempfile
from pathlib import Path
from accelerated_seg.config import ConfigError
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.estimator import Dataset, Segmentation
root = Path(tempfile.mkdtemp())
m = load_msd(write_synthetic_dataset(root / "d", num_cases=4, num_validation=1, seed=0, size_mm=(32.0, 32.0, 32.0),
                                     spacing_mm=2.0))
pairs = lambda cases: [(str(c.images[0]), str(c.label)) for c in cases]
data = Dataset.from_files(pairs(m.training), block_shape=(16, 16, 16), n_classes=3,
                          validation_pairs=pairs(m.validation),
                          cache_dir=str(root / "cache"), num_workers=0)
(root / "p").mkdir(); (root / "p" / "summary.json").write_text("{}")
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "p"), trackers="none", progress_bar=False, val_every=0, save_every=0)
for overwrite in (False, True):
    try:
        model.fit(data, steps=1, overwrite=overwrite); print("trained")
    except ConfigError as e:
        print(f"\n## estimator: fit(overwrite={overwrite})\n{str(e).replace(str(root), '…')}")
print("p holds:", sorted(x.name for x in (root / "p").iterdir()))
PY
rm -rf $W
