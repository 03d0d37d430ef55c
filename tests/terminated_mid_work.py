"""An ``accelerated-seg`` command that always runs in one process, sent SIGTERM (as a time limit sends it, to the
process) in the middle of its work, run by the tests of synth, evaluate, cache --prune and export:
``python terminated_mid_work.py COMMAND ARGS...``. The signal is sent on the main thread, which meets it at once.
``benchmark data`` sends itself none: it waits for the test's, sent to its process group as SLURM sends it."""

import importlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from accelerated_seg.cli import end_process, main


#: The signal sent, by its name, where it is not SIGTERM (SIGUSR1: a requeue's notice).
STOP_SIGNAL = "TERMINATED_MID_WORK_BY"


def run_terminated(*arguments: str, signum: int = signal.SIGTERM) -> subprocess.CompletedProcess:
    """``accelerated-seg ARGUMENTS`` run by this script in a process of its own, sent SIGTERM (``signum``) as
    ``TERMINATED`` says for its command."""
    return subprocess.run([sys.executable, str(Path(__file__).resolve()), *arguments], capture_output=True, text=True,
                          timeout=300, env={**os.environ, STOP_SIGNAL: signal.Signals(signum).name})


def terminated_at_call(number: int, function):
    """``function``, that sends SIGTERM (or ``STOP_SIGNAL``'s) to this process as it is called for the ``number``-th
    time, before it runs."""
    calls = 0

    def terminated_then_called(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == number:
            os.kill(os.getpid(), getattr(signal, os.environ.get(STOP_SIGNAL, "SIGTERM")))
        return function(*args, **kwargs)

    return terminated_then_called


def synth_terminated_as_the_third_file_is_written() -> None:
    import accelerated_seg.data.synthetic as synthetic

    synthetic.write_nifti = terminated_at_call(3, synthetic.write_nifti)


def evaluate_terminated_as_the_second_map_is_read() -> None:
    """read_label_map replaced wherever evaluate's modules call it (as test_evaluate's
    _replace_in_every_evaluate_module does)."""
    from accelerated_seg.label_map_reading import read_label_map

    terminated = terminated_at_call(2, read_label_map)
    for name in ("evaluate", "evaluate_cases", "evaluate_classes", "evaluate_grids", "evaluate_output",
                 "label_map_reading"):
        module = importlib.import_module(f"accelerated_seg.{name}")
        if hasattr(module, "read_label_map"):
            module.read_label_map = terminated


def prune_terminated_as_the_second_version_is_deleted() -> None:
    """remove_version renames a version aside, then deletes it: SIGTERM comes between the two for the second."""
    import accelerated_seg.data.cache_versions as cache_versions

    cache_versions.shutil = SimpleNamespace(rmtree=terminated_at_call(2, shutil.rmtree))


def export_terminated_once_the_weights_are_written() -> None:
    """The weights written into ``<output>.partial/``, before config.json: SIGTERM comes as their mode is set."""
    import accelerated_seg.exported_model as exported_model

    exported_model.with_the_usual_mode = terminated_at_call(1, exported_model.with_the_usual_mode)


#: What ``benchmark data`` prints once the workers of both its loaders run, then waiting for the test's SIGTERM.
BOTH_LOADERS_RUN = "both loaders run: waiting for SIGTERM"


def benchmark_data_waiting_once_both_loaders_run() -> None:
    """The timed blocks begin after the first epoch of each loader, whose workers (ours from the fork server, the
    MONAI tutorial's forked) then run: it says so and waits there for the SIGTERM that ends it."""
    import accelerated_seg.benchmark as benchmark

    def waiting(*args, **kwargs):
        print(BOTH_LOADERS_RUN, flush=True)
        time.sleep(300)
        raise AssertionError("no SIGTERM came in 300 s")

    benchmark._interleaved_rates = waiting


TERMINATED = {"synth": synth_terminated_as_the_third_file_is_written,
              "evaluate": evaluate_terminated_as_the_second_map_is_read,
              "cache": prune_terminated_as_the_second_version_is_deleted,
              "export": export_terminated_once_the_weights_are_written,
              "benchmark": benchmark_data_waiting_once_both_loaders_run}

if __name__ == "__main__":
    TERMINATED[sys.argv[1]]()
    end_process(main(sys.argv[1:]))
