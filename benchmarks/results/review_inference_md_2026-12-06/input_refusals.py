"""Run: PYTHONPATH=/tmp/wt_r82 python input_refusals.py /tmp/r82probe   (after setup_probe.py /tmp/r82probe)
docs/inference.md, "Inputs and cases": the table of inputs refused before torch and MONAI are imported, each
line as predict says it, and the command's wall time (the page: 0.3 s rather than 3-5 s)."""
import shutil
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1])
odd = root / "odd"
shutil.rmtree(odd, ignore_errors=True)
odd.mkdir()
(odd / "mha").mkdir()
(odd / "mha" / "a_0000.mha").write_bytes(b"x")
(odd / "._c.nii.gz").write_bytes(b"\x00\x05\x16\x07" + bytes(78))  # AppleDouble magic
(odd / "notes.json").write_text("{}")
(odd / "cases" / "c1").mkdir(parents=True)
shutil.copy(root / "data/imagesTr/case_000.nii.gz", odd / "cases" / "c1" / "image.nii.gz")


def predict(given, note):
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", "--model", "model", given,
                          "--output", "refused_out"], capture_output=True, text=True, cwd=root)
    took = time.perf_counter() - start
    print(f"$ predict --model model {given} --output refused_out   # {note}\nexit {run.returncode}, {took:.2f} s\n"
          f"{(run.stdout + run.stderr).strip()[-500:]}\n")


predict("odd/nothing_here.nii.gz", "a typo")
predict("odd/cases", "a folder of case folders")
predict("odd/mha", "a folder of .mha scans")
predict("odd/._c.nii.gz", "a resource fork by name")
predict("data/dataset.json", "a dataset.json")
predict("data", "the dataset's folder")
predict("model/config.json", "an export's config.json")
predict("odd/notes.json", "any other JSON")
predict("data/labelsTr", "a dataset's labelsTr/")
predict("data/labelsTr/case_000.nii.gz", "one of its label maps by name")
