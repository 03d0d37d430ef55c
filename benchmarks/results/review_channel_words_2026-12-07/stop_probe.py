"""Run as: cd <worktree> && PYTHONPATH=<worktree> timeout 300 /work/main/.venv/bin/python \
    benchmarks/results/review_channel_words_2026-12-07/stop_probe.py <empty folder> \
    > benchmarks/results/review_channel_words_2026-12-07/stop_probe.txt
Review of h119, question (a): a Ctrl-C (SIGINT) while _damaged_files reads a file whole (one of several gzip members,
which this tree reads whole; a truncated one too) is raised as KeyboardInterrupt, as for any other read, not caught as
the file's damage nor dropped: a child reads such a file again and again and is sent SIGINT after 1.5 s."""
import signal
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1]).absolute()
root.mkdir(parents=True, exist_ok=True)
child = r'''
import gzip, sys
from pathlib import Path
import nibabel as nib, numpy as np
from accelerated_seg import inference_reading
root = Path(sys.argv[1])
voxels = np.random.default_rng(0).normal(size=(192, 192, 128)).astype(np.float32)
nib.save(nib.Nifti1Image(voxels, np.eye(4)), root / "whole.nii.gz")
content = gzip.decompress((root / "whole.nii.gz").read_bytes())
members = root / "members.nii.gz"
members.write_bytes(gzip.compress(content[:352], 1) + gzip.compress(content[352:], 1))
header = nib.load(members)
print("reading", flush=True)
reads = 0
try:
    while True:
        said = inference_reading._damaged_files([members], [header])
        reads += 1
except KeyboardInterrupt:
    print(f"KeyboardInterrupt raised after {reads} whole reads; said of the file so far: {said if reads else None}",
          flush=True)
    raise
'''
process = subprocess.Popen([sys.executable, "-c", child, str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
assert process.stdout.readline().strip() == "reading"
time.sleep(1.5)
process.send_signal(signal.SIGINT)
out, err = process.communicate(timeout=60)
print(f"exit status {process.returncode}")
print(out.strip())
print("stderr's last line:", err.strip().splitlines()[-1] if err.strip() else "")
print("'Exception ignored' (an interrupt dropped) in stderr:", "Exception ignored" in err)
