"""The hundred-and-eleventh session moved train(cfg)'s setup out of train.py (configured_run.py, loop_state.py,
preempted_run.py) without changing what it does. This probe trains the same tiny run (tests/conftest.py's
tiny_overrides: 9 phantoms, 16^3 patches, 6 steps, validation at steps 3 and 6, a checkpoint at step 3 resumed to 8)
with the package found first on PYTHONPATH, and writes what the run returned and the export's weights' digest, so
that two checkouts' outputs can be compared byte for byte.

    PYTHONPATH=<checkout>:tests python same_run_before_and_after.py <work folder> <output.json>
"""

import hashlib
import json
import sys
from pathlib import Path

from conftest import tiny_overrides
from accelerated_seg.config import load_config
from accelerated_seg.data.synthetic import write_synthetic_dataset

import accelerated_seg

work, output = Path(sys.argv[1]), Path(sys.argv[2])
dataset = write_synthetic_dataset(work / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
from accelerated_seg.train import train  # noqa: E402

run = work / "run"
first = train(load_config(None, tiny_overrides(dataset, run, **{"train.max_steps": 6, "train.val_every": 3,
                                                               "train.save_every": 3, "train.progress_bar": "false"})))
resumed = train(load_config(None, tiny_overrides(dataset, run, **{"train.max_steps": 8, "train.val_every": 3,
                                                                 "train.save_every": 3, "train.resume": "latest",
                                                                 "train.progress_bar": "false"})))
keep = ("step", "preempted", "best_dice", "best_step", "global_batch", "lr", "strategy", "losses")
result = {"package": accelerated_seg.__file__,
          "first": {k: first[k] for k in keep}, "resumed": {k: resumed[k] for k in keep},
          "model_sha256": hashlib.sha256((run / "model" / "model.safetensors").read_bytes()).hexdigest(),
          "best_model_sha256": hashlib.sha256((run / "best_model" / "model.safetensors").read_bytes()).hexdigest(),
          "metrics": json.loads((run / "metrics.json").read_text())}
output.write_text(json.dumps(result, indent=1))
print(json.dumps({k: result[k] for k in ("package", "model_sha256", "best_model_sha256")}))
