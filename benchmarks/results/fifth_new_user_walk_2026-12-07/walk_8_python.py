# python walk_8_python.py > walk_8_python.txt 2>&1   (run from the walk's clone with env.sh's environment;
# inference.md "### Python": its block's three calls as written (output/demo/best_model: the walk's demo run;
# runs/fold0..4: its five folds), each refusal its table quotes, a "~" path, predict_case with load_exported, the
# star import and the 58 names, a patch of one of them; the Segmentation.predict rows)
import os
import traceback
from unittest import mock

import numpy as np

from accelerated_seg.inference import predict_cases, predict_file

predict_cases("output/demo/best_model", ["scans/"], "predictions", tta="all", probabilities=True, progress=print)
predict_file("output/demo/best_model", "scan.nii.gz", "scan_seg.nii.gz", precision="bf16")
predict_cases([f"runs/fold{k}/best_model" for k in range(5)], ["scans/"], "predictions", keep_largest=[1])
print(sorted(os.listdir("predictions")), os.path.exists("scan_seg.nii.gz"))


def refused(what, call):
    try:
        call()
        print(f"-- {what}: NOT refused")
    except Exception as error:  # noqa: BLE001 - the walk prints whatever the call raises
        print(f"-- {what}: {type(error).__name__}: {error}")


M = "output/demo/best_model"
two = ["scans/case_000.nii.gz", "scans/case_001.nii.gz"]
refused("a folder as predict_file's output", lambda: predict_file(M, "scan.nii.gz", "p2d/"))
refused("several files for a one-channel model", lambda: predict_file(M, two, "two.nii.gz"))
refused("a folder as inputs", lambda: predict_file(M, "scans", "x.nii.gz"))
refused("an array as inputs", lambda: predict_file(M, np.zeros((8, 8, 8)), "x.nii.gz"))
refused("an output over an input", lambda: predict_file(M, "scan.nii.gz", "scan.nii.gz"))
refused("an output without .nii.gz", lambda: predict_file(M, "scan.nii.gz", "seg.npy"))
refused("a probabilities_output that is a folder",
        lambda: predict_file(M, "scan.nii.gz", "p3.nii.gz", probabilities_output="probs/"))
refused("a probabilities_output with no .nii.gz name",
        lambda: predict_file(M, "scan.nii.gz", "p3.nii.gz", probabilities_output="probs.npy"))
refused("probabilities_output at output's path",
        lambda: predict_file(M, "scan.nii.gz", "p3.nii.gz", probabilities_output="p3.nii.gz"))
refused("one file as predict_cases' output for several cases", lambda: predict_cases(M, ["scans/"], "one.nii.gz"))
refused("an output over an input (predict_cases)", lambda: predict_cases(M, ["scans/"], "scans"))
from accelerated_seg.estimator import Segmentation  # noqa: E402
model = Segmentation.load(M)
refused("several files as Segmentation.predict's x", lambda: model.predict(two))
refused("a folder as Segmentation.predict's x", lambda: model.predict("scans"))
print("predict_cases of one path given alone:", predict_cases(M, "scan.nii.gz", "alone"))
os.environ["HOME"] = os.getcwd()
print("~ paths:", predict_file("~/" + M, "~/scan.nii.gz", "~/home_seg.nii.gz"))

from accelerated_seg.exported_model import load_exported  # noqa: E402
from accelerated_seg.inference import PredictOptions, predict_case  # noqa: E402
net, config = load_exported(M)
print("predict_case:", predict_case(net, config, ["scan.nii.gz"], "case_seg.nii.gz", device="cpu",
                                    options=PredictOptions(tta="axes")))
namespace = {}
exec("from accelerated_seg.inference import *", namespace)
print("star import gives predict_cases, segment_cases, PredictInterrupted:",
      all(n in namespace for n in ("predict_cases", "segment_cases", "PredictInterrupted")),
      "; np, torch, read_channels:", [n for n in ("np", "torch", "read_channels") if n in namespace])
from accelerated_seg.inference import collect_cases  # noqa: E402,F401
import accelerated_seg.inference as inference  # noqa: E402
print("collect_cases importable; in dir():", "collect_cases" in dir(inference), "; names kept for old imports:", len(inference._HOME_OF))
try:
    with mock.patch("accelerated_seg.inference.collect_cases"):
        print("patch: NOT refused")
except AttributeError as error:
    print("patch: AttributeError:", error)
traceback  # noqa: B018
