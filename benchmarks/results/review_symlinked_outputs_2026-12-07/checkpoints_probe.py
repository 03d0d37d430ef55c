"""Run: cd /tmp/wt_r97 && PYTHONPATH=/tmp/wt_r97:/tmp/wt_r97/tests /work/main/.venv/bin/python \
    benchmarks/results/review_symlinked_outputs_2026-12-07/checkpoints_probe.py /tmp/r97ckpt > <beside>/checkpoints.txt
(checkpoints.txt: with main's checkpoint.py, commit 0ca86a83; checkpoints_after.txt: branch r97.)
Checkpoints through links (not h110's change; the brief asks): checkpoints/ a link onto another folder, and a step
folder step_N that is a link (a user's, to a copy elsewhere), saved again / rotated away. test_preemption's _OneProcess
stands in for an Accelerator."""
import shutil
import sys
from pathlib import Path

from test_preemption import _OneProcess

from accelerated_seg.checkpoint import save_training_state

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
(root / "run").mkdir(parents=True)
(root / "elsewhere").mkdir()
(root / "run" / "checkpoints").symlink_to(root / "elsewhere")
for step in (1, 2):
    save_training_state(_OneProcess(), root / "run" / "checkpoints", step, 1, "config: yes\n")
print("checkpoints/ a link: link kept:", (root / "run" / "checkpoints").is_symlink(),
      "; elsewhere holds:", sorted(p.name for p in (root / "elsewhere").iterdir()))

(root / "run2" / "checkpoints").mkdir(parents=True)
save_training_state(_OneProcess(), root / "copies", 1, 1, "config: yes\n")
(root / "run2" / "checkpoints" / "step_1").symlink_to(root / "copies" / "step_1")
for step in (1, 2):
    try:
        save_training_state(_OneProcess(), root / "run2" / "checkpoints", step, 1, "config: yes\n")
        print(f"save step {step} over/after a linked step_1: saved")
    except Exception as error:  # noqa: BLE001 - the probe reports whatever it was
        print(f"save step {step} over/after a linked step_1: {type(error).__name__}: {error}")
    print("   run2/checkpoints holds:", sorted(p.name + ("@" if p.is_symlink() else "")
                                               for p in (root / "run2" / "checkpoints").iterdir()),
          "; copies/step_1 still there:", (root / "copies" / "step_1").is_dir())
