"""synth stopped by SIGTERM as it imports its generator (data/synthetic.py, numpy, nibabel), into a folder that cannot
be looked into (a name too long, ENAMETOOLONG; a folder one may not search, EACCES, stood in for by os.stat raising it
for paths under it) and into a folder that holds the marker alone. Run as the command line runs it.

Command: for tree in /tmp/r100_before /tmp/wt_r100; do PYTHONPATH=$tree /work/main/.venv/bin/python \
    benchmarks/results/review_stop_lines_2026-12-07/synth_folder.py; done   (before: h114's parent, 26c879c8~1)
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = '''
import errno, os, signal, sys
if {eacces!r}:
    real_stat = os.stat
    def stat(path, *args, **kwargs):
        if str(path).startswith({folder!r} + "/"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)
    os.stat = stat
class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "accelerated_seg.data.synthetic":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None
sys.meta_path.insert(0, SignalOnImport())
sys.argv = ["accelerated-seg", "synth", {folder!r}, "--cases", "2", "--validation", "1"]
from accelerated_seg.cli import main
sys.exit(main())
'''
work = Path(tempfile.mkdtemp(prefix="r100_synth_"))
marker_alone = work / "marker_alone"
marker_alone.mkdir()
(marker_alone / ".phantoms_being_written").touch()
print("tree:", os.environ.get("PYTHONPATH"))  # the child runs in work/, so that PYTHONPATH is what it imports
for title, folder, eacces in (("a name too long", str(work / ("a" * 300)), False),
                              ("a folder one may not search", str(work / "locked"), True),
                              ("the marker alone", str(marker_alone), False)):
    done = subprocess.run([sys.executable, "-c", CHILD.format(folder=folder, eacces=eacces)], capture_output=True, cwd=work,
                          text=True)
    print(f"== {title}: status {done.returncode}")
    print("   " + "\n   ".join(done.stderr.strip().splitlines()[-3:]).replace("a" * 300, "a...a"))
