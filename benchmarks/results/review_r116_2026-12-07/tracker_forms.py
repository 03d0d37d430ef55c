# Command: cd <worktree> && PYTHONPATH=$PWD /work/main/.venv/bin/python \
#   benchmarks/results/review_r116_2026-12-07/tracker_forms.py \
#   > benchmarks/results/review_r116_2026-12-07/tracker_forms_<at>.txt 2>&1
# The forms a tracker setting takes, by the command line, a config file and config.tracker_names (fit's and the
# estimator's): which are taken (and as what), which refused (and in what words).
import tempfile
from pathlib import Path

from accelerated_seg.config import ConfigError, load_config, tracker_names

for given in ["tensorboard", "TensorBoard", "tensorboard, wandb", " tensorboard ,wandb ", "all", "none", "",
              "[]", "[tensorboard, wandb]", "tensorboard,,wandb", "none,tensorboard", "tensorbord,wanb"]:
    try:
        taken = load_config(None, ['--train.trackers=' + given]).train.trackers
        print(f"--train.trackers={given!r:26} taken: {taken!r}")
    except ConfigError as refused:
        print(f"--train.trackers={given!r:26} refused: {refused}")
with tempfile.TemporaryDirectory() as folder:
    for text in ["[tensorboard, wandb]", "tensorboard", "[]", "null", "[TensorBoard]", "[tensorbord]", "1", "{a: 1}"]:
        path = Path(folder) / "c.yaml"
        path.write_text(f"train:\n  trackers: {text}\n")
        try:
            print(f"file trackers: {text!r:24} taken: {load_config(path).train.trackers!r}")
        except ConfigError as refused:
            print(f"file trackers: {text!r:24} refused: {refused}")
from accelerate.tracking import GeneralTracker  # noqa: E402
from accelerate.utils import LoggerType  # noqa: E402


class Mine(GeneralTracker):
    name = "mine"
    requires_logging_directory = False

    def __init__(self):
        super().__init__()

    @property
    def tracker(self):
        return None

    def store_init_configuration(self, values):
        pass

    def log(self, values, step, **kwargs):
        pass


for given in [["tensorboard"], ("wandb",), None, False, [], LoggerType.TENSORBOARD, [LoggerType.TENSORBOARD],
              [Mine()], "all"]:
    try:
        print(f"tracker_names({given!r}) -> {tracker_names(given, 'fit: trackers')!r}")
    except ConfigError as refused:
        print(f"tracker_names({given!r}) refused: {refused}")
