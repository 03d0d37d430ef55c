"""Run: PYTHONPATH=/tmp/wt_r82 python predict_bullets.py /tmp/r82probe   (after setup_probe.py /tmp/r82probe)
docs/inference.md, Predict's bullets: "An export or a run's folder given among the images (`predict output/demo/model
scans/` ...) is named, with the `--model` that takes it, before any image is read" - with --model missing (the old
page's case), and with --model given and an export among the images too."""
import shutil
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
shutil.rmtree(root / "other_model", ignore_errors=True)
shutil.copytree(root / "model", root / "other_model")


def predict(*args, note):
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", *args], capture_output=True,
                         text=True, cwd=root)
    print(f"$ predict {' '.join(args)}   # {note}\nexit {run.returncode}\n{(run.stdout + run.stderr).strip()[-600:]}\n")


predict("other_model", "data/imagesTr", "--output", "b1", note="no --model: the export among the images")
predict("--model", "model", "other_model", "data/imagesTr", "--output", "b2",
        note="--model given, another export among the images")
predict("--model", "model", "model", "data/imagesTr", "--output", "b3", note="--model given, itself among the images")
