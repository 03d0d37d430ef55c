# cd /tmp/wt_r123 && PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/r123_review_2026-12-07/probe_unwritable.py > benchmarks/results/r123_review_2026-12-07/probe_unwritable.txt 2>&1
"""files.unwritable's wording through its callers: /proc (nothing may be made there, even by root), a folder
that exists and refuses (simulated: root writes anywhere), an OSError without strerror, and each caller's line."""
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

from accelerated_seg import files
from accelerated_seg.files import check_output_file, unwritable

tmp = Path(tempfile.mkdtemp())
print("/proc/x:", unwritable("/proc/x"))
print("/proc:", unwritable("/proc"))
print("relative, missing below an existing folder:", unwritable("no/such/folder"))


def refusing(error):
    def make(*args, **kwargs):
        raise error
    return mock.patch.object(files.tempfile, "NamedTemporaryFile", make)


with refusing(PermissionError(13, "Permission denied", str(tmp / ".write_test_abc"))):
    print("read-only existing folder:", unwritable(tmp))
    print("read-only, a folder to be made in it:", unwritable(tmp / "new"))
    try:
        check_output_file(tmp / "train.json", "--output", result_key="runs")
    except Exception as error:
        print("check_output_file:", error)
with refusing(OSError("a reason without errno")):
    print("OSError without strerror:", unwritable(tmp))
with refusing(OSError()):
    print("OSError without anything:", repr(unwritable(tmp)))
py = sys.executable
for args in (["benchmark", "train", "--output", "/proc/x/train.json"], ["benchmark", "data", "--data-dir", "/proc/x"],
             ):
    done = subprocess.run([py, "-m", "accelerated_seg.cli", *args], capture_output=True, text=True)
    print(" ".join(args), "-> exit", done.returncode, done.stderr.strip().splitlines()[-1:])
from accelerated_seg.checkpoint_files import check_export_output  # noqa: E402
try:
    check_export_output(Path("/proc/x/model"), tmp / "run" / "checkpoints" / "step_4")
except Exception as error:
    print("export to /proc/x/model:", error)
