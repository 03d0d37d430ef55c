"""evaluate's last write meeting a full disk (ENOSPC made by a patched write_files_together, for the output folder
alone, or for every folder: $TMPDIR on the same full disk) in a child process whose stdout is strict
(PYTHONIOENCODING=utf-8:strict) or the C locale's (LC_ALL=C: UTF-8 mode); then the `mv` the error line suggests, run
as printed, by bash, and evaluate run again: where did the files go, and are they this evaluation? Command:
cd /tmp/wt_r107 && PYTHONPATH=/tmp/wt_r107 /work/main/.venv/bin/python \
    benchmarks/results/r107_2026-12-07/mv_as_suggested.py > benchmarks/results/r107_2026-12-07/<out>.txt 2>&1
(<out> mv_as_suggested_main.txt with PYTHONPATH=/tmp/r107_main, a `git archive` of main cb41d6be's accelerated_seg/
and tests/; mv_as_suggested_after.txt as above, with review r107's fixes)
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

CHILD = r"""
import errno, os, sys
from pathlib import Path
import accelerated_seg.evaluate_output as evaluate_output
write = evaluate_output.write_files_together
where = os.environ["FULL"]
def full_there(target, writers):
    if where == "everywhere" or Path(target) == Path(sys.argv[sys.argv.index("--output") + 1]):
        raise OSError(int(os.environ.get("ERRNO", errno.ENOSPC)), os.strerror(int(os.environ.get("ERRNO", errno.ENOSPC))))
    return write(target, writers)
evaluate_output.write_files_together = full_there
from accelerated_seg.cli import main
sys.argv[0] = "accelerated-seg"
sys.exit(main())
"""


def shown(data: bytes, root: str) -> list[str]:
    return data.decode("utf-8", "backslashreplace").replace(root, "TMP").strip().splitlines()


with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    for where in ("pred", "labels"):
        os.makedirs(root / where)
        for case in ("a", "b"):
            volume = np.zeros((16, 16, 16), np.uint8)
            volume[4:10, 4:10, 4:10] = 1
            if where == "pred" and case == "b":
                volume[4:12, 4:10, 4:10] = 1
            nib.save(nib.Nifti1Image(volume, np.eye(4)), root / where / f"{case}.nii.gz")
    names = set()
    for title, name, env, full, error in [
            ("plain folder, strict stdout", b"evaluation", {"PYTHONIOENCODING": "utf-8:strict"}, "output", 28),
            ("Latin-1 folder made before, strict stdout", b"r\xe9sultats", {"PYTHONIOENCODING": "utf-8:strict"}, "output", 28),
            ("Latin-1 folder, LC_ALL=C", b"r\xe9sultats_c", {"LC_ALL": "C"}, "output", 28),
            ("folder with a quote, strict stdout", b"it's here", {"PYTHONIOENCODING": "utf-8:strict"}, "output", 28),
            ("$TMPDIR full too", b"both_full", {"PYTHONIOENCODING": "utf-8:strict"}, "everywhere", 28),
            ("permission denied (EACCES), not a full disk", b"read_only", {"PYTHONIOENCODING": "utf-8:strict"},
             "output", 13)]:
        output = os.fsencode(str(root)) + b"/" + name
        names.add(name)
        if "made before" in title:
            os.makedirs(output)
        tmp = root / f"tmp_{len(os.listdir(root))}"
        tmp.mkdir()
        env = {**os.environ, "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp), "FULL": full, "ERRNO": str(error), **env}
        done = subprocess.run([sys.executable, "-c", CHILD, "evaluate", str(root / "pred"), str(root / "labels"),
                               "--num-classes", "2", "--output", output], env=env, capture_output=True, cwd=root)
        print(f"[{title}] status {done.returncode}")
        for line in shown(done.stdout, folder)[-1:]:
            print(f"    stdout: {line}")
        errors = shown(done.stderr, folder)
        for line in errors[-1:]:
            print(f"    stderr: {line}")
        mv = [line for line in done.stderr.decode("utf-8", "surrogateescape").splitlines() if ", then " in line]
        if not mv:
            print("    no command suggested; the temporary folder:", sorted(os.listdir(tmp)))
            continue
        command = mv[-1].split(", then ", 1)[1]
        ran = subprocess.run(["bash", "-c", command], capture_output=True, cwd=root)
        print(f"    bash -c <the command as printed>: status {ran.returncode} {shown(ran.stderr, folder)}")
        print("    the output folder:", sorted(os.listdir(output)) if os.path.isdir(output) else "not there")
        made = sorted(entry for entry in os.listdir(root) if entry not in ("pred", "labels") and
                      not entry.startswith("tmp_") and os.fsencode(entry) not in names)
        if made:
            print("    made by the mv instead:", made, [sorted(os.listdir(root / entry)) for entry in made
                                                         if (root / entry).is_dir()])
        if os.path.isdir(output):
            again = subprocess.run([sys.executable, "-m", "accelerated_seg", "evaluate", str(root / "pred"),
                                    str(root / "labels"), "--num-classes", "2", "--output", output],
                                   env={**env, "PYTHONIOENCODING": "utf-8"}, capture_output=True)
            print(f"    evaluate again into it: status {again.returncode}: {shown(again.stdout, folder)[-1:]}"
                  f"{shown(again.stderr, folder)[-1:]}")
