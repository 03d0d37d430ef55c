"""Run: cd /tmp/wt_r86 && PYTHONPATH=/tmp/wt_r86 /work/main/.venv/bin/python \
    benchmarks/results/review_model_among_images_2026-12-06/unreadable.py /tmp/r86probe > <beside this file>/unreadable.txt
A folder among predict's images whose config.json can be reached but which cannot be listed (mode 311: this machine's
probes run as root, which lists anything, so the listing's PermissionError is raised by a patched Path.iterdir):
the inputs' own check says such an OSError as an error line (_checked_options' except); the model check, before it?"""
import sys
from pathlib import Path

from accelerated_seg.cli import main

root = Path(sys.argv[1])
(root / "noread").mkdir(exist_ok=True)
(root / "noread" / "config.json").write_text((root / "model" / "config.json").read_text())
listing = Path.iterdir


def refused(self):
    if self.name == "noread":
        raise PermissionError(13, "Permission denied", str(self))
    return listing(self)


Path.iterdir = refused
try:
    print("status", main(["predict", "--model", str(root / "model"), str(root / "noread"), str(root / "data/imagesTr"),
                          "--output", str(root / "o_noread")]))
except BaseException as error:  # what a user would see: a traceback
    print(f"raised {type(error).__name__}: {error}")
