"""A live predict's lock, entered through a wrapper's __enter__ (no with statement of its own at the taking): is a
second predict into the same output, inside the first's with block, refused (as a live holder's must be) or does it
take the live lock over?
command: cd /tmp/wt_r111 && PYTHONPATH=/tmp/wt_r111 /work/main/.venv/bin/python \
  benchmarks/results/review_lock_takers_2026-12-07/probe_wrapper.py /tmp/r111_wrapper"""
import shutil
import sys
import warnings
from pathlib import Path

from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
out = root / "labels"


class Predicting:  # a user's own context manager around the package's
    def __enter__(self):
        self.held = holding_output_folder(out, [out])
        self.held.__enter__()
        return self

    def __exit__(self, *exc):
        return self.held.__exit__(*exc)


with Predicting():
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            with holding_output_folder(out, [out]):
                print("second predict into the live first's folder: RUN (the live lock taken over)")
        except ConfigError as error:
            print("second predict into the live first's folder: refused:", str(error)[:100])
    for warning in said:
        print("warning:", str(warning.message)[:140], f"({Path(warning.filename).name}:{warning.lineno})")
