"""What h118's one-map locks leave, say and miss (no model: the locks and the stop line alone).

usage: probe.py ROOT   (ROOT: an empty folder)
1. a single-map predict with --probabilities into a folder not there yet, that writes nothing (a failed case, a stop)
2. the stop line of predict --input once its map of 254 bytes is written, without --probabilities
3. a 254-byte map's lock as an older version names it (cut alone) and as this one does: do the two see each other?
4. predict_file into a temporary folder (Segmentation.predict of an array) where the filesystem has no flock
"""

from __future__ import annotations

import errno
import sys
import warnings
from pathlib import Path

from accelerated_seg.inference_outputs import holding_output_folder
from accelerated_seg.predict_input_stop import OneCaseFiles
from accelerated_seg.run_lock import LOCK_NAME, file_lock_name, hold_run_folder

ROOT = Path(sys.argv[1])


def listed(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


print("== 1: predict --input new/seg.nii.gz --probabilities, nothing written")
output = ROOT / "one" / "new" / "seg.nii.gz"
with holding_output_folder(output, [output, output.parent / "seg_probs.nii.gz"]):
    print(f"   inside: {listed(ROOT / 'one')}")
print(f"   after: {listed(ROOT / 'one')}")

print("== 2: predict --input --output <245 s>_3.nii.gz stopped once its map is written")
output = ROOT / "two" / f"{'s' * 245}_3.nii.gz"
output.parent.mkdir()
files = OneCaseFiles(output, None)
files.note_before()
output.write_bytes(b"a map")
try:
    print(f"   {files.stopped_line('predict interrupted').replace(str(output), '<map>')}")
except OSError as error:
    print(f"   {type(error).__name__}: [Errno {error.errno}] {error.strerror} (in the line's place)")

print("== 3: one 254-byte map locked by an older version (its name cut to 245 bytes) and by this one")
output = ROOT / "three" / f"{'s' * 245}_1.nii.gz"
older = f".{output.name.encode()[:255 - len(f'.{LOCK_NAME}'.encode())].decode(errors='ignore')}{LOCK_NAME}"
newer = file_lock_name(output)
print(f"   older's lock name == this one's: {older == newer}")
first = hold_run_folder(output.parent, name=older)
try:
    second = hold_run_folder(output.parent, name=newer)
    print("   both held at once: the two predicts would both write the map, neither refused")
    second.release()
except Exception as error:  # noqa: BLE001
    print(f"   refused: {error}")
first.release()

print("== 4: predict_file's lock in a temporary folder that cannot be locked (flock: ENOLCK)")


def no_flock(*args):
    raise OSError(errno.ENOLCK, "No locks available")


import fcntl  # noqa: E402

real, fcntl.flock = fcntl.flock, no_flock
output = ROOT / "four" / "tmpabc123" / "prediction.nii.gz"
try:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with holding_output_folder(output, [output, None]):
            pass
finally:
    fcntl.flock = real
for warning in said:
    print(f"   warning: {str(warning.message).replace(str(ROOT), '<root>')}")
print(f"   left: {listed(ROOT / 'four')}")
