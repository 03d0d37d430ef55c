# source env.sh && mkdir -p $T/w1 && cd $T/w1 \
#   (time python $HERE/walk_1_first_block.py) > $HERE/walk_1_first_block.txt 2>&1
# The page's first block run as a script (block_1.py, as the page gives it), then what a researcher checks next: the
# two lines print() gives, the objects returned, the files written, and the export in a plain MONAI network.
import inspect
import json
import runpy
import time
from pathlib import Path

import nibabel as nib
import numpy as np

here = Path(__file__).parent
start = time.monotonic()
ns = runpy.run_path(str(here / "block_1.py"), run_name="__main__")
print(f"--- block_1.py ran in {time.monotonic() - start:.0f} s")
data, model, label_image, summary, again = (ns[k] for k in ("data", "model", "label_image", "summary", "again"))
held_out = ns["held_out"]
print("print(data):", data)
print("print(model):", model)
print("print(again):", again)
scan = nib.load(held_out[0][0])
print("label_image:", type(label_image).__name__, label_image.shape, "input", scan.shape,
      "same affine:", np.allclose(label_image.affine, scan.affine), "dtype", label_image.get_data_dtype(),
      "values", np.unique(np.asanyarray(label_image.dataobj)).tolist())
print("summary:", type(summary).__name__, sorted(summary)[:20])
print("summary.json beside it:", sorted(str(p) for p in Path("demo/run").rglob("summary.json")))
print("demo/model:", sorted(p.name for p in Path("demo/model").iterdir()))
print("fit returned the estimator:", ns["model"] is model)
# the export in a plain MONAI network: config.json's model args, then safetensors' load_model (strict)
import monai.networks.nets as nets
from safetensors.torch import load_model

config = json.loads(Path("demo/model/config.json").read_text())
print("config.json keys:", sorted(config), "model:", config["model"])
net = getattr(nets, config["model"]["monai_class"])(**config["model"]["args"])
print("load_model strict:", load_model(net, "demo/model/model.safetensors"))
from accelerated_seg.exported_model import load_exported

plain, cfg = load_exported("demo/model")
print("load_exported:", type(plain).__module__, type(plain).__name__, sorted(cfg)[:8])
# the loaded estimator predicts what the trained one predicted
print("again predicts the same:", np.array_equal(np.asanyarray(again.predict(held_out[0][0]).dataobj),
                                                  np.asanyarray(label_image.dataobj)))
print("signature of Segmentation:", inspect.signature(type(model)))
