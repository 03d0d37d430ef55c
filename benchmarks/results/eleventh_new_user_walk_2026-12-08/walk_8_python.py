# python walk_8_python.py > walk_8_python.txt 2>&1   (after `source env.sh` and walk_1_overrides.sh)
# docs/configuration.md's Python side: config.py's own example (load_config with overrides), "A Config built in Python
# (the estimator, a notebook) is checked the same way, types and choices included, when training starts", the
# trackers' Python forms, the estimator's loss example, and the resolved config saved with the run.
import os
import time

from accelerated_seg.config import Config, ConfigError, TrainConfig, check_values, dump_config, load_config, \
    tracker_names

T = os.environ["T"]
cfg = load_config("configs/demo.yaml", ["--optim.lr=3e-4", "--train.max_steps=200"])  # config.py's docstring
print("load_config:", cfg.optim.lr, cfg.train.max_steps, cfg.data.patch_size)
for label, built in [("log_every 0", Config(train=TrainConfig(log_every=0))),
                     ("max_steps '3'", Config(train=TrainConfig(max_steps="3"))),
                     ("loss 'focal'", Config(train=TrainConfig(loss="focal"))),
                     ("trackers 'tensorbord'", Config(train=TrainConfig(trackers="tensorbord")))]:
    try:
        check_values(built)
        print(label, "-> accepted")
    except ConfigError as error:
        print(label, "->", error)
for given in ["tensorboard,wandb", ["tensorboard"], "none", [], None, False, "TensorBoard"]:
    try:
        print("trackers", repr(given), "->", tracker_names(given))
    except ConfigError as error:
        print("trackers", repr(given), "->", error)
# trainer-side: train(cfg) of a Config built in Python with a bad value, refused before anything is written
from accelerated_seg.train import train  # noqa: E402

bad = load_config(f"{T}/my_experiment.yaml", [f"--train.output_dir={T}/runs/python_bad"])
bad.train.log_every = 0
start = time.perf_counter()
try:
    train(bad)
except ConfigError as error:
    print(f"train(cfg) with log_every 0 -> {error} ({time.perf_counter() - start:.2f} s); folder made:",
          os.path.exists(f"{T}/runs/python_bad"))
# the estimator's forms the page gives
from accelerated_seg.estimator import Segmentation  # noqa: E402

for kwargs in [{"loss": "tversky", "loss_args": {"alpha": 0.3, "beta": 0.7}}, {"trackers": "tensorbord"},
               {"trackers": "TensorBoard"}, {"lr": 0.0}]:
    try:
        model = Segmentation("unet", **kwargs)
        print("Segmentation(", kwargs, ") ->", type(model).__name__)
    except (ConfigError, ValueError, TypeError) as error:
        print("Segmentation(", kwargs, ") ->", type(error).__name__, error)
# "The resolved config is saved with the run and with every checkpoint"
for path in [f"{T}/runs/my_experiment/config.yaml", *sorted(map(str, __import__("pathlib").Path(
        f"{T}/runs/my_experiment").glob("checkpoints/*/config.yaml")))]:
    print(path, os.path.exists(path))
print(os.listdir(f"{T}/runs/my_experiment"))
print(dump_config(load_config(f"{T}/runs/my_experiment/config.yaml"))[:300])
