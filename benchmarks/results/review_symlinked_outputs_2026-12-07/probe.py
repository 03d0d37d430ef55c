"""Run: cd /tmp/wt_r97 && PYTHONPATH=/tmp/wt_r97 /work/main/.venv/bin/python \
    benchmarks/results/review_symlinked_outputs_2026-12-07/probe.py /tmp/r97probe > <beside this file>/<name>.txt
(before.txt: PYTHONPATH=/tmp/r97main, main's package at 0ca86a83 checked out there; after.txt: branch r97.)
Review r97 of h110 (outputs written through symbolic links): what a failed case's removal of an earlier run's map,
the stale-temporary sweep, a relative link, a target's mode and two links to one target do."""
import os
import shutil
import stat
import sys
import time
import uuid
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.io import write_nifti
from accelerated_seg.files import STALE_AFTER_S, write_text_atomically
from accelerated_seg.inference_outputs import clear_stale_temporaries, remove_earlier_prediction, check_outputs
from accelerated_seg.predict_marks import label_map_descrip, written_by_predict

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
(root / "store").mkdir(parents=True)
(root / "out").mkdir()

print("== 1: a failed case's remove_earlier_prediction at out/seg.nii.gz -> store/seg.nii.gz (an earlier run's map)")
target, link = root / "store" / "seg.nii.gz", root / "out" / "seg.nii.gz"
labels = np.ones((2, 2, 2), np.uint8)
header = nib.Nifti1Header()
header["descrip"] = label_map_descrip(labels)  # as predict marks its own label map
write_nifti(target, labels, np.eye(4), header=header)
print("   written_by_predict(target) is None (predict's own):", written_by_predict(target) is None)
link.symlink_to(target)
print("   said:", repr(remove_earlier_prediction(link)))
print("   link still there:", link.is_symlink(), "; target (the earlier run's map) still there:", target.is_file())

print("== 2: clear_stale_temporaries([out/seg.nii.gz]) with a killed write's temporary beside the link's target")
shutil.rmtree(root / "out"); (root / "out").mkdir()
link.symlink_to(target)
stale = root / "store" / f".seg.nii.gz.{uuid.uuid4().hex}.tmp.nii.gz"
stale.write_bytes(b"x" * 1000)
old = time.time() - STALE_AFTER_S - 60
os.utime(stale, (old, old))
clear_stale_temporaries([link])
print("   the stale temporary beside the target still there:", stale.exists())

print("== 3: a relative link target (out/rel.json -> ../store/rel.json) written from another cwd")
(root / "store" / "rel.json").write_text('{"old": 1}')
(root / "out" / "rel.json").symlink_to(Path("..") / "store" / "rel.json")
os.chdir("/")
write_text_atomically(root / "out" / "rel.json", '{"new": 1}')
print("   link kept:", (root / "out" / "rel.json").is_symlink(), "; store/rel.json reads",
      (root / "store" / "rel.json").read_text(), "; stray files in / :", [p for p in Path("/").glob("rel.json*")])

print("== 4: the mode of a file written through a link vs the old target's (0o640 before)")
os.chmod(root / "store" / "rel.json", 0o640)
write_text_atomically(root / "out" / "rel.json", '{"newer": 1}')
print("   mode after:", oct(stat.S_IMODE((root / "store" / "rel.json").stat().st_mode)))
p = root / "plain.json"; p.write_text("{}"); os.chmod(p, 0o640); write_text_atomically(p, "{}")
print("   a plain path's mode after the same write (for comparison):", oct(stat.S_IMODE(p.stat().st_mode)))

print("== 5: two links to one target as two cases' outputs in one predict")
target = root / "store" / "one.nii.gz"
_ = target.exists() or write_nifti(target, labels, np.eye(4), header=header)
(root / "out" / "a.nii.gz").symlink_to(target)
(root / "out" / "b.nii.gz").symlink_to(target)
try:
    check_outputs([], [root / "out" / "a.nii.gz", root / "out" / "b.nii.gz"])
    print("   not refused")
except Exception as error:  # noqa: BLE001 - the probe reports whatever it was
    print(f"   refused: {error}")
