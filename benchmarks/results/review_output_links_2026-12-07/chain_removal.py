"""Command: cd /tmp/wt_r101 && PYTHONPATH=<tree> /work/main/.venv/bin/python \
    benchmarks/results/review_output_links_2026-12-07/chain_removal.py
out/seg.nii.gz -> mid/seg.nii.gz -> final/seg.nii.gz, and other/seg.nii.gz -> mid/seg.nii.gz (another folder's link to
mid, the case h113's Fixed entry names). A failed case's removal of out's earlier map (files.remove_written); then: what
is left of each, and what a write through other's link and one through mid's do."""
import tempfile
from pathlib import Path

import accelerated_seg
from accelerated_seg.files import remove_written, write_text_atomically

print("package:", Path(accelerated_seg.__file__).parent)
root = Path(tempfile.mkdtemp())
for folder in ("out", "mid", "final", "other"):
    (root / folder).mkdir()
(root / "final" / "seg.nii.gz").write_text("earlier map")
(root / "mid" / "seg.nii.gz").symlink_to(root / "final" / "seg.nii.gz")
(root / "out" / "seg.nii.gz").symlink_to(root / "mid" / "seg.nii.gz")
(root / "other" / "seg.nii.gz").symlink_to(root / "mid" / "seg.nii.gz")
remove_written(root / "out" / "seg.nii.gz")


def state(path):
    return "link" + (" (dangling)" if not path.exists() else "") if path.is_symlink() else (
        "file" if path.exists() else "none")


for name in ("out", "mid", "final", "other"):
    print(f"after removal: {name}/seg.nii.gz: {state(root / name / 'seg.nii.gz')}")
for writer in ("other", "mid"):
    try:
        write_text_atomically(root / writer / "seg.nii.gz", "new")
        print(f"write through {writer}/seg.nii.gz: written; {writer}: {state(root / writer / 'seg.nii.gz')}, "
              f"final: {state(root / 'final' / 'seg.nii.gz')}")
    except OSError as error:
        print(f"write through {writer}/seg.nii.gz: refused: {error.strerror.replace(str(root), '<root>')}")
