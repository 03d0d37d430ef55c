"""Whether os.fsencode (h124) changed a mark or digest that a resumed predict --continue or an evaluate rerun compares
across versions: predict_marks._as_it_stands and evaluate_output._files_digest of files named in ASCII, in UTF-8
(caf\u00e9, \u65e5\u672c) and in Latin-1, and files.temporary_name's cut of a long UTF-8 name, under the code before
h124 (0bf3ac7e, a `git archive` in /tmp/r107_before) and main cb41d6be's (/tmp/r107_main), or this branch's
(/tmp/wt_r107, in marks_across_versions_after.txt), in this locale (C.UTF-8) and LC_ALL=C. Command:
cd /tmp/wt_r107 && /work/main/.venv/bin/python benchmarks/results/r107_2026-12-07/marks_across_versions.py [after] \
    > benchmarks/results/r107_2026-12-07/marks_across_versions[_after].txt 2>&1
"""
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys
from pathlib import Path
from accelerated_seg.predict_marks import _as_it_stands
from accelerated_seg.evaluate_output import _files_digest
from accelerated_seg.files import temporary_name, NAME_MAX
folder = Path(sys.argv[1])
for name in sorted(os.listdir(folder)):
    path = folder / name
    try:
        mark = _as_it_stands(path).hex()[:40]
    except Exception as error:
        mark = type(error).__name__
    try:
        digest = _files_digest([path], {path: b"x"})[:16]
    except Exception as error:
        digest = type(error).__name__
    print(os.fsencode(name)[:12], mark, digest)
long = "\u65e5" * 90
cut = temporary_name(long)
print("temporary_name of 90 CJK characters:", len(os.fsencode(cut)), "bytes (NAME_MAX", NAME_MAX, ")",
      os.fsencode(cut)[:3].hex(), "..", os.fsencode(cut)[-45:-43].hex())
"""

with tempfile.TemporaryDirectory() as folder:
    for name in (b"plain.nii.gz", "caf\u00e9.nii.gz".encode(), "\u65e5\u672c.nii.gz".encode(), b"c\xe9.nii.gz"):
        path = os.fsencode(folder) + b"/" + name
        with open(path, "wb") as file:
            file.write(b"x")
        os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    for label, root in [("before h124, 0bf3ac7e", "/tmp/r107_before"), ("main cb41d6be", "/tmp/r107_main")] + (
            [("this branch", "/tmp/wt_r107")] if sys.argv[1:] == ["after"] else []):
        for env in ({}, {"LC_ALL": "C"}):
            done = subprocess.run([sys.executable, "-c", CHILD, folder], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": root, **env}, cwd="/")
            print(f"[{label}{', LC_ALL=C' if env else ''}]")
            print("   ", (done.stdout + done.stderr[-300:]).strip().replace("\n", "\n    "))
