# cd /tmp/r120 && PYTHONPATH=/tmp/wt_r120 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_3_monai_class.py > probe_3_monai_class.txt 2>&1
# An export's config.json with model.monai_class (or its args) hand-edited, by predict, check, load_exported and
# Segmentation.load
import contextlib
import io
import json
import shutil
from pathlib import Path

from accelerated_seg import Segmentation
from accelerated_seg.cli import main
from accelerated_seg.exported_model import load_exported

root = Path("/tmp/r120/p3")
shutil.rmtree(root, ignore_errors=True)
edits = {"UNetPlus": ("monai_class", "UNetPlus"), "torch": ("monai_class", "torch"),
         "UNet.forward": ("monai_class", "UNet.forward"), "empty": ("monai_class", ""), "number": ("monai_class", 3),
         "null": ("monai_class", None), "a function": ("monai_class", "get_efficientnet_image_size"),
         "no key": ("monai_class", KeyError), "another class, UNet's args": ("monai_class", "SegResNet"),
         "UNet, an arg misspelt": ("args", "misspelt"), "model a list": ("model", [1])}
scan = "output/demo/synthetic_data/imagesTr/" + sorted(p.name for p in
                                                        Path("output/demo/synthetic_data/imagesTr").iterdir())[0]
for title, (key, value) in edits.items():
    folder = root / title.replace(" ", "_").replace(",", "").replace("'", "")
    shutil.copytree("output/demo/best_model", folder)
    config = json.loads((folder / "config.json").read_text())
    if key == "model":
        config["model"] = value
    elif value is KeyError:
        del config["model"]["monai_class"]
    elif key == "args":
        config["model"]["args"]["channelz"] = config["model"]["args"].pop("channels")
    else:
        config["model"][key] = value
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    print(f"===== {title}")
    for command in (["predict", "--model", str(folder), scan, "--output", str(root / "out")],
                    ["check", "--model", str(folder)]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                status = main(command)
            except BaseException as error:
                status = f"raised {type(error).__name__}: {error}"
        print(f"  {command[0]}: status {status}: {err.getvalue().strip()[-400:]}")
    for name, call in (("load_exported", lambda: load_exported(folder)),
                       ("Segmentation.load", lambda: Segmentation.load(folder))):
        try:
            call()
            print(f"  {name}: loaded")
        except Exception as error:
            print(f"  {name}: {type(error).__name__}: {str(error)[-400:]}")
