"""Command: PYTHONPATH=/tmp/wt_r101 /work/main/.venv/bin/python two_files.py
Locks as two predicts hold them, taken in one process (flock excludes two open files alike in one process): (a) two
single-map predicts into two files of one folder; (b) a folder predict and a single-map predict into one of its maps,
each order; (c) what a single-map predict leaves in its folder after each ending (success, refusal, an error)."""
import tempfile
from pathlib import Path

import accelerated_seg
from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder

print("package:", Path(accelerated_seg.__file__).parent)
out = Path(tempfile.mkdtemp()) / "out"
out.mkdir()


def second(output, outputs):
    try:
        with holding_output_folder(output, outputs):
            return "not refused"
    except ConfigError as error:
        return "refused: " + str(error).split(":")[0].replace(str(out), "out")


with holding_output_folder(out / "a.nii.gz", [out / "a.nii.gz"]):
    print("(a) a.nii.gz held; predict into b.nii.gz:", second(out / "b.nii.gz", [out / "b.nii.gz"]))
    print("(a) a.nii.gz held; predict into a.nii.gz:", second(out / "a.nii.gz", [out / "a.nii.gz"]))
    print("(b) a.nii.gz held; folder predict into out/ writing a.nii.gz:", second(out, [out / "a.nii.gz"]))
with holding_output_folder(out, [out / "a.nii.gz"]):
    print("(b) out/ held; predict into out/a.nii.gz:", second(out / "a.nii.gz", [out / "a.nii.gz"]))
print("(c) left after success and refusals:", sorted(p.name for p in out.iterdir()))
try:
    with holding_output_folder(out / "c.nii.gz", [out / "c.nii.gz"]):
        raise RuntimeError("a case failed")
except RuntimeError:
    pass
print("(c) left after an error:", sorted(p.name for p in out.iterdir()))
