"""Segmentation.load in one thread while another builds a network (review r126; met by threads.py).

    OMP_NUM_THREADS=1 PYTHONPATH=.:tests python \
        benchmarks/results/review_own_warnings_take_out_2026-12-07/meta_race.py \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/meta_race.txt

``exported_model.check_export_fits`` (Segmentation.load's check) builds the network under accelerate's
``init_empty_weights``, which replaces ``torch.nn.Module.register_parameter`` for the whole process while it lasts:
a network that another thread builds meanwhile (predict_file's load of the model, a Segmentation.predict's) gets
parameters on the meta device. Thread A loops ``check_export_fits``; thread B loops ``build_from_spec`` of the
same network, counting the builds with a parameter on the meta device, for 20 s at most.
"""

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

from accelerated_seg.exported_model import check_export_fits
from accelerated_seg.models import ModelSpec, build_from_spec
from test_inference import export

root = Path(tempfile.mkdtemp(prefix="r126_meta_"))
model_dir = export(root / "model")
config = json.loads((model_dir / "config.json").read_text())
stop = threading.Event()
checks = [0]


def loop_checks():
    while not stop.is_set():
        check_export_fits(model_dir, config)
        checks[0] += 1


other = threading.Thread(target=loop_checks)
other.start()
builds = on_meta = 0
end = time.monotonic() + 20
while time.monotonic() < end and on_meta < 5:
    network = build_from_spec(ModelSpec.from_dict(config["model"]))
    builds += 1
    on_meta += any(parameter.device.type == "meta" for parameter in network.parameters())
stop.set()
other.join()
print(f"python {sys.version.split()[0]}; {checks[0]} checks of the export in one thread; {builds} builds in another, "
      f"{on_meta} of them with parameters on the meta device")
