# source env.sh && for P in /work/main /tmp/wt_h153; do PYTHONPATH=$P python $HERE/walk_11_predict_options.py; done \
#   > $HERE/walk_11_predict_options.txt 2>&1
# Walk 4's `tta=` to the constructor, with predict's other options: main (before) and this branch (after the fix).
import accelerated_seg
from accelerated_seg import Segmentation

print("=== the package from", accelerated_seg.__file__)
for keyword in ("tta='axes'", "overlap=0.5", "keep_largest=True", "device='cpu'", "aggregate_on_cpu=True",
                "transforms_on_device=False"):
    try:
        eval(f"Segmentation('unet', {keyword})")
        print(keyword, "-> not refused")
    except Exception as error:  # noqa: BLE001 - what a user sees
        print(keyword, "->", str(error)[:300])
