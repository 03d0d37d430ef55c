"""A fork (a DataLoader worker's, a launched rank's) of a process holding a predict's lock: does the child take its
parent's lock over, or let it go as the child collects its copy?
command: cd /tmp/wt_r111 && PYTHONPATH=/tmp/wt_r111 /work/main/.venv/bin/python \
  benchmarks/results/review_lock_takers_2026-12-07/probe_fork.py /tmp/r111_fork (branch r111 at 5753edb5)"""
import gc
import os
import shutil
import sys
from pathlib import Path

from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder
from accelerated_seg.run_lock import live_holder

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
out = root / "labels"

with holding_output_folder(out, [out]):
    read, write = os.pipe()
    if (child := os.fork()) == 0:
        try:
            with holding_output_folder(out, [out]):
                said = "child: RUN (its parent's lock taken over)"
        except ConfigError as error:
            said = f"child: refused ({str(error)[:60]}...)"
        said += f"; child's live_holder: {'names the parent' if live_holder(out) else 'None'}"
        gc.collect()
        os.write(write, said.encode())
        os._exit(0)
    os.waitpid(child, 0)
    print(os.read(read, 1000).decode())
    print("parent after the child: lock file", "there" if (out / ".run.lock").exists() else "GONE",
          "; live_holder", "names the parent" if live_holder(out) else "None (the lock lost)")
print("after the parent's with:", sorted(p.name for p in root.rglob("*")))
