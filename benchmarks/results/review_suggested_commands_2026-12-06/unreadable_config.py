"""Run: cd /tmp/wt_r91 && PYTHONPATH=/tmp/wt_r91 /work/main/.venv/bin/python \
    benchmarks/results/review_suggested_commands_2026-12-06/unreadable_config.py /tmp/r91probe \
    > <beside>/unreadable_config_after.txt
(unreadable_config_before.txt: the same with PYTHONPATH at `git archive 2d199bd0 accelerated_seg`, main before r91)
(needs broken_export_edges.py's setup in /tmp/r91probe first)

An export's config.json that cannot be read (chmod 000, another user's export): this machine's sessions run as
root, whom chmod 000 does not stop, so its reading is made to raise PermissionError as a non-root user's would
(Path.read_text patched for that one file), in this process: predict with it as --model and among the images,
evaluate's PRED, export's input. The last line each says, and whether a traceback escaped."""
import contextlib
import io
import shutil
import sys
import traceback
from pathlib import Path
from unittest import mock

from accelerated_seg.cli import main

root = Path(sys.argv[1])
folder = root / "unreadable"
shutil.rmtree(folder, ignore_errors=True)
shutil.copytree(root / "model", folder)
real_read_text = Path.read_text


def read_text(self, *args, **kwargs):
    if self == folder / "config.json" or self.resolve() == (folder / "config.json").resolve():
        raise PermissionError(13, "Permission denied", str(self))
    return real_read_text(self, *args, **kwargs)


for args in (["predict", "--model", str(folder), str(root / "data/imagesTr"), "--output", str(root / "u1")],
             ["predict", "--model", str(root / "model"), str(folder), "--output", str(root / "u2")],
             ["evaluate", str(folder), str(root / "data/labelsTr")],
             ["export", str(folder), "--output", str(root / "u3")]):
    err = io.StringIO()
    with mock.patch.object(Path, "read_text", read_text), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as end:
            status = end.code
        except BaseException:
            status = "TRACEBACK " + traceback.format_exc().strip().splitlines()[-1]
    lines = err.getvalue().strip().splitlines()
    print(f"$ accelerated-seg {' '.join(args)}\nstatus {status}\n{lines[-1] if lines else ''}\n")
