# python walk_5_load_export.py > walk_5_load_export.txt 2>&1  (in the walk's clone; from_monai.md's table, last row:
# the export "loads into the plain MONAI network (`load_exported`, or `safetensors.torch.load_model`)")
import json
import subprocess

import monai.networks.nets
from safetensors.torch import load_model

try:
    from accelerated_seg import load_exported  # the page's bare name, as a new user tries it
except ImportError as error:
    print("from accelerated_seg import load_exported:", error)
from accelerated_seg.exported_model import load_exported

for run in ["output/spleen", "output/dynunet"]:
    if run == "output/dynunet":  # a network that registers a tensor twice (shared_tensors in config.json)
        subprocess.run(["accelerated-seg", "train", "--config", "spleen_tutorial.yaml", "--model.name=dynunet",
                        "--model.args={}", "--train.output_dir=output/dynunet", "--train.max_steps=1",
                        "--train.val_every=1"], check=True, capture_output=True)
    net, config = load_exported(f"{run}/best_model")
    print(run, "load_exported ->", type(net).__name__, "shared_tensors:", config.get("shared_tensors"))
    plain = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
    try:
        print(run, "safetensors load_model (strict) ->", load_model(plain, f"{run}/best_model/model.safetensors"))
    except RuntimeError as error:
        print(run, "safetensors load_model (strict) ->", type(error).__name__, str(error)[:300])
