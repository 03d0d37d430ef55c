# Command: cd <worktree> && PYTHONPATH=<tree> /work/main/.venv/bin/python \
#   benchmarks/results/review_r116_2026-12-07/newer_accelerate.py \
#   > benchmarks/results/review_r116_2026-12-07/newer_accelerate_<at>.txt 2>&1
# (<tree>: /work/main for main, the worktree for after.) An accelerate newer than 1.16 that adds a tracker
# ("newtracker"), and an older one lacking one of config.ACCELERATE_TRACKERS ("swanlab"), simulated: its release
# (importlib.metadata) and LoggerType.list() patched. Is the right run taken with the settings, and is the wrong one refused, in what words?
import importlib.metadata

import accelerate.utils

from accelerated_seg import config, preparation

real_list = accelerate.utils.LoggerType.list
for release, known, given in (("1.17.0", [*real_list(), "newtracker"], "tensorboard,newtracker"),
                              ("1.13.0", [name for name in real_list() if name != "swanlab"], "swanlab")):
    importlib.metadata.version = lambda name, release=release: release
    preparation.LoggerType.list = classmethod(lambda cls, known=known: known)
    for what, call in (("with the settings", lambda: config.load_config(None, [f"--train.trackers={given}"])),
                       ("the Accelerator's", lambda: preparation._trackers(given))):
        try:
            call()
            print(f"accelerate {release}, {given!r}, {what}: taken")
        except Exception as error:  # noqa: BLE001 (a probe)
            print(f"accelerate {release}, {given!r}, {what}: {type(error).__name__}: {str(error)[-120:]}")
