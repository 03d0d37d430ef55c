# source env.sh && cd $T/w1 && python $HERE/walk_7_functions.py > $HERE/walk_7_functions.txt 2>&1
# "## The functions": each called as the table says, on walk 1's phantoms and demo/model; what each returns.
import inspect
from pathlib import Path

import torch

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.exported_model import load_exported
from accelerated_seg.inference import predict_case, predict_cases, predict_file

for f in (predict_file, predict_cases, predict_case, evaluate_folders):
    print(f"{f.__module__}.{f.__name__}{inspect.signature(f)}")
phantoms = load_msd("demo/data/dataset.json")
case = phantoms.validation[0]
print("predict_file ->", predict_file("demo/model", [str(case.images[0])], "f7/one.nii.gz"))
got = predict_cases("demo/model", [str(c.images[0]) for c in phantoms.validation], "f7/cases")
print("predict_cases ->", type(got).__name__, got)
model, config = load_exported("demo/model")
print("predict_case ->", predict_case(model, config, [str(case.images[0])], "f7/case.nii.gz",
                                      device=torch.device("cpu")))
labels = Path("f7/labels")
labels.mkdir(exist_ok=True)
for c in phantoms.validation:
    (labels / Path(c.images[0]).name.replace("_0000", "")).write_bytes(Path(c.label).read_bytes())
print("labels:", sorted(p.name for p in labels.iterdir()),
      "predictions:", sorted(p.name for p in Path("f7/cases").iterdir()))
try:
    summary = evaluate_folders("f7/cases", labels, output_dir="f7/eval")
    print("evaluate_folders ->", type(summary).__name__, sorted(summary)[:12])
    print("written:", sorted(p.name for p in Path("f7/eval").iterdir()))
except Exception as error:  # noqa: BLE001
    print(f"evaluate_folders -> {type(error).__name__}: {error}")
