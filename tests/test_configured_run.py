"""train.py's split (hundred-and-eleventh session): train(cfg)'s setup from its Config in configured_run.py, the loop's
state in loop_state.py, a preempted run's line in preempted_run.py. The loop's module imports them, never the reverse,
and every name importable from accelerated_seg.train before still is. That the run itself is unchanged is what the
rest of the suite checks (and benchmarks/results/configured_run_split_h60/: the same weights before and after)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_train_setup_and_loop_state_import_without_the_loops_module():
    """A cycle would make configured_run.py need train.py (whose import needs configured_run.py) to build a Loop."""
    code = ("import sys\n"
            "import accelerated_seg.configured_run, accelerated_seg.loop_state, accelerated_seg.preempted_run\n"
            "print('accelerated_seg.train' in sys.modules)\n")
    imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert imported.returncode == 0, imported.stderr[-3000:]
    assert imported.stdout.strip() == "False"


def test_every_name_importable_from_train_before_the_split_still_is():
    import accelerated_seg.configured_run as configured_run
    import accelerated_seg.loop_state as loop_state
    import accelerated_seg.train as train_module

    assert set(train_module.__all__) == {"TrainingDiverged", "Progress", "LoopSettings", "Loop", "ConfiguredRun",
                                         "train", "fit", "run_loop"}
    assert all(hasattr(train_module, name) for name in train_module.__all__)
    assert (train_module.Loop, train_module.LoopSettings, train_module.Progress) == (
        loop_state.Loop, loop_state.LoopSettings, loop_state.Progress)
    assert train_module.ConfiguredRun is configured_run.ConfiguredRun
