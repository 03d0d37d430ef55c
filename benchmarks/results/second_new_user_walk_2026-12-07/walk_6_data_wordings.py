# cd /tmp/walk_h133/clone/data_walk && PYTHONPATH=/tmp/wt_h133 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/walk_6_data_wordings.py \
#   > .../walk_6_data_wordings.txt
# docs/data.md's quoted refusals and lines, each made as the page says it arises (copies of make_data.py's datasets),
# `check` run on it, and the page's fragment looked for in what it printed: FOUND or MISSING.
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

ROOT = Path("wordings")
shutil.rmtree(ROOT, ignore_errors=True)
ROOT.mkdir()


def copy(name):
    target = ROOT / f"{name}_{len(list(ROOT.iterdir()))}"
    shutil.copytree(name, target)
    return target


def check(*args):
    done = subprocess.run(["accelerated-seg", "check", *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def claim(title, said, *fragments):
    status, out = said
    print(f"== {title} (status {status})\n{out.strip()}")
    for fragment in fragments:
        print(("FOUND" if fragment in out else "MISSING") + f": {fragment}")
    print()


d = copy("Task01_Tiny")
(d / "dataset.json").write_text((d / "dataset.json").read_text(), encoding="utf-16")
claim("dataset.json saved as UTF-16", check(d), "is saved as UTF-16 (a Windows editor's \"Unicode\"), not UTF-8: "
      "save it again as UTF-8")
d = copy("Task01_Tiny")
(d / "dataset.json").write_text('{"labels": {"0": "background", "1": "tumour",}, "training": []}')
claim("a trailing comma", check(d),
      "a comma before that '}', which JSON does not allow (a hand edit?); remove the comma")
d = copy("Task01_Tiny")
text = (d / "dataset.json").read_text()
(d / "dataset.json").write_text(text[:len(text) // 2])
claim("cut short", check(d), "it ends inside a string, object or list, so it was cut short; copy dataset.json again "
      "from the dataset's download, or regenerate it")
d = copy("Task01_Tiny")
(d / "dataset.json").write_text('{"labels": {"0": "background",\n "1": "tumour",\n "1": "liver"},\n'
                                + (d / "dataset.json").read_text().split('"modality"', 1)[1].join(['"modality"', ""]))
claim("a key given twice", check(d), "key '1' given twice in labels", "of which nnU-Net's and MONAI's json.load takes "
      "the last without a word: keep one")
d = copy("Task01_Tiny")
data = json.loads((d / "dataset.json").read_text())
data["training"][1]["image"] = "./"
(d / "dataset.json").write_text(json.dumps(data))
claim("an image './'", check(d), "'training' entry 1: \"image\" is './', the folder itself; give the file's path")
d = copy("Task01_Tiny")
data = json.loads((d / "dataset.json").read_text())
shutil.copy(d / "imagesTr/case_000.nii.gz", d / "imagesTr/._case_000.nii.gz")
(d / "imagesTr/._case_000.nii.gz").write_bytes(b"\x00\x05\x16\x07" + b"\0" * 100)
data["training"][0]["image"] = "./imagesTr/._case_000.nii.gz"
(d / "dataset.json").write_text(json.dumps(data))
claim("a macOS resource fork listed", check(d), "a macOS resource fork (an AppleDouble \"._\" file")
d = copy("Dataset001_Tiny")
data = json.loads((d / "dataset.json").read_text())
data["numTraining"] = "2"
(d / "dataset.json").write_text(json.dumps(data))
claim("numTraining a string", check(d), "numTraining")
d = copy("Dataset001_Tiny")
data = json.loads((d / "dataset.json").read_text())
data["file_ending"] = ".mha"
(d / "dataset.json").write_text(json.dumps(data))
claim("file_ending .mha", check(d), "SimpleITK.WriteImage(SimpleITK.ReadImage('case_0000.mha'), 'case_0000.nii.gz')")
d = copy("Dataset001_Tiny")
for path in sorted((d / "labelsTr").iterdir()):
    path.rename(path.with_name(path.name.replace(".nii.gz", ".NII.GZ")))
claim("labels ending .NII.GZ", check(d), "no label files ending in .nii.gz, but 2 ending in .NII.GZ",
      "rename those ending in .NII.GZ to end in .nii.gz")
d = copy("Dataset001_Tiny")
data = json.loads((d / "dataset.json").read_text())
data["labels"] = []
(d / "dataset.json").write_text(json.dumps(data))
claim("labels not a mapping", check(d), '{"background": 0, "tumour": 1}')
d = copy("Dataset001_Tiny")
shutil.copy(d / "imagesTr/case_a_0000.nii.gz", d / "imagesTr/case_a_0003.nii.gz")
claim("an undeclared channel file", check(d), "case_a_0003")
d = copy("study")
(d / "cases.csv").write_text((d / "cases.csv").read_text().replace(",", ";"))
claim("a CSV of semicolons", check(d / "cases.csv"), "semicolon")
d = copy("study")
(d / "cases.csv").write_bytes("image_0,image_1,label,split,age\nt1/a.nii.gz,t2/a.nii.gz,seg/a.nii.gz,train,41 \xf6\n"
                              .encode("latin-1"))
claim("a Latin-1 CSV", check(d / "cases.csv"), "is not UTF-8 text (byte 0xf6 on line 2: saved as Latin-1 or "
      "Windows-1252?): save it again as UTF-8 (a spreadsheet's 'CSV UTF-8')")
d = copy("study")
(d / "cases.csv").write_text("image_0,image_1,label,spilt\nt1/a.nii.gz,t2/a.nii.gz,seg/a.nii.gz,train\n")
claim("a column 'spilt'", check(d / "cases.csv"), "spilt")
d = copy("study")
(d / "cases.csv").write_text("image_0,image_1,label,split\nt1/a.nii.gz,t2/a.nii.gz\n")
claim("a row ending early", check(d / "cases.csv"), "line 2: the row ends after 2 cell(s), without its 'label' cell")
d = copy("study")
label = nib.load(d / "seg/a.nii.gz")
nib.save(nib.Nifti1Image(np.asarray(label.dataobj) * 2, label.affine), d / "seg/a.nii.gz")
claim("an undeclared label value", check(d / "cases.csv"), "label values [2] are not declared")
d = copy("Task01_Tiny")
data = json.loads((d / "dataset.json").read_text())
data["labels"] = {"0": "background", "1": "liver", "2": "tumour", "3": "ignore"}
(d / "dataset.json").write_text(json.dumps(data))
claim("an ignore label", check(d), "3 = ignore (unannotated)")
d = copy("Task01_Tiny")
label = nib.load(d / "labelsTr/case_001.nii.gz")
array = np.asarray(label.dataobj).copy()
array[0, 0, 0] = 255
nib.save(nib.Nifti1Image(array, label.affine), d / "labelsTr/case_001.nii.gz")
claim("255 without an ignore label", check(d), "255")
d = copy("Task01_Tiny")
data = json.loads((d / "dataset.json").read_text())
del data["validation"]
(d / "dataset.json").write_text(json.dumps(data))
config = ROOT / "fold.yaml"
config.write_text(f"data:\n  dataset: {d}\n  num_folds: 5\n  fold: 5\n")
claim("fold out of range", check("--config", config), "data.fold=5 is out of range for data.num_folds=5; use 0..4")
config.write_text(f"data:\n  dataset: {d}\n  num_folds: 5\n")
claim("more folds than cases", check("--config", config), "data.num_folds=5 but there are only 4 case(s); use at most "
      "4 folds")
sys.stdout.flush()
