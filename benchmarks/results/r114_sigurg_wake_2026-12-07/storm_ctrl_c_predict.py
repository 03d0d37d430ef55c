"""tests/one_rank_bug_predict.py (process 1 asleep in its share of the second case; ONE_RANK_* as there), each
process's main thread sent the wake every STORM_S while its handler is installed (storm_predict.py): the stop's path
(the publish, the watcher's store calls, the line, the process group's end) under a wake storm. Run by
storm_ctrl_c.sh (beside it)."""
import runpy
import sys
from pathlib import Path

import storm_predict  # noqa: F401 - patches launched_sigterm._a_wake_for_the_main_thread

tests = str(Path(storm_predict.__file__).resolve().parents[3] / "tests")
sys.path.insert(0, tests)
runpy.run_path(f"{tests}/one_rank_bug_predict.py", run_name="__main__")
