"""Run: cd <package root> && PYTHONPATH=<package root>:<package root>/tests OMP_NUM_THREADS=1 \
    /work/main/.venv/bin/python benchmarks/results/output_locks_left_2026-12-07/probe.py /tmp/h118probe_<name> \
    > benchmarks/results/output_locks_left_2026-12-07/<name>.txt 2>&1
(before.txt: <package root> /tmp/wt_h118 at main 9abb0bbc, before any change; after.txt: branch h118.)
The "Left" items of known_issues.md's entry "predict's lock missed outputs through links ...": (1) two single-map
predicts whose map names share their first 245 bytes, (2) a single map's probabilities file, written by two predicts
(and predict --input's map, which locked nothing), (3) the line of a link of links whose middle link dangles, (4) a
stop between hold_run_folder's flock and its return. A first predict is held by holding_output_folder in this process
(flock excludes a second open of one file in one process too, as two_files.py of the review showed) or, where said,
in a subprocess; the second is a real predict (predict_cases, predict_file, or the command line's main)."""
import contextlib
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.files import link_problem
from accelerated_seg.inference import predict_cases, predict_file
from accelerated_seg.inference_outputs import holding_output_folder, probabilities_path
from accelerated_seg.run_lock import file_lock_name
from test_inference import export

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
root.mkdir(parents=True)
print("package:", Path(__import__("accelerated_seg").__file__).parent)
write_synthetic_dataset(root / "scans", num_cases=1, num_validation=1, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
image = root / "scans" / "imagesTr" / "case_000.nii.gz"
model = export(root / "model")


def short(text: str) -> str:
    text = str(text).replace(str(root), "<root>")
    return re.sub(r"(s|n)\1{19,}", lambda run: f"<{len(run.group())} {run.group()[0]}>", text)


def refused_or_not(predict) -> str:
    """What the second predict met: refused (its line, cut after the holder) or not."""
    try:
        predict()
        return "NOT refused"
    except ConfigError as error:
        line = short(error)
        return "refused: " + (line[:line.index("(process")] + "(process ...) ..." if "(process" in line else line)


def held(output: Path, *more: Path):
    """What a live single-map predict into ``output`` (writing ``more`` too) holds."""
    return holding_output_folder(output, [output, *more])


def command(*argv: str) -> str:
    """The command line's status and its last line on stderr."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = main(list(argv))
    lines = err.getvalue().strip().splitlines() or out.getvalue().strip().splitlines()
    return f"status {status}: {short(lines[-1]) if lines else '(nothing said)'}"


print("== 1: two single-map predicts into two files whose names share their first 245 bytes")
long = root / "long"
long.mkdir()
stem = "s" * 245
first, second = long / f"{stem}_1.nii.gz", long / f"{stem}_2.nii.gz"
print(f"   names of {len(first.name.encode())} bytes; their locks' names of",
      [len(file_lock_name(path).encode()) for path in (first, second)], "bytes, one name:",
      file_lock_name(first) == file_lock_name(second))
with held(first):
    print("   A holds ..._1.nii.gz; B predicts ..._2.nii.gz:",
          refused_or_not(lambda: predict_cases(model, [image], second)))
    print("   A holds ..._1.nii.gz; B predicts ..._1.nii.gz:",
          refused_or_not(lambda: predict_cases(model, [image], first)))
other_ending = long / f"{'n' * 246}.nii", long / f"{'n' * 246}.nii.gz"
with held(other_ending[0]):
    print("   A holds <246 n>.nii; B predicts <246 n>.nii.gz:",
          refused_or_not(lambda: predict_cases(model, [image], other_ending[1])))
try:
    predict_cases(model, [image], long / f"{stem}_3.nii.gz")
    print("   1b one predict alone into <245 s>_3.nii.gz (254 bytes), no --probabilities: written")
except OSError as error:
    print(f"   1b one predict alone into <245 s>_3.nii.gz (254 bytes), no --probabilities: {type(error).__name__}: "
          f"{short(error)}; the map written: {(long / f'{stem}_3.nii.gz').exists()}")
print("   left in long/:", sorted(p.name[:12] + "..." + p.name[-12:] for p in long.iterdir()))

print("== 2: a single map's --probabilities file (<map>_probs.nii.gz beside it), written by two predicts")
probs = root / "probs"
probs.mkdir()
print("   probabilities of seg.nii and of seg.nii.gz:", probabilities_path(probs / "seg.nii").name,
      probabilities_path(probs / "seg.nii.gz").name)
with held(probs / "seg.nii", probs / "seg_probs.nii.gz"):
    before = sorted(p.name for p in probs.iterdir())
    print("   2a A: --output seg.nii --probabilities; B: --output seg.nii.gz --probabilities:",
          refused_or_not(lambda: predict_cases(model, [image], probs / "seg.nii.gz", probabilities=True)))
    print(f"      probs/ before B: {before}, after: {sorted(p.name for p in probs.iterdir())}")
for name in ("seg.nii.gz", "seg_probs.nii.gz"):
    (probs / name).unlink(missing_ok=True)
with held(probs / "x.nii.gz", probs / "x_probs.nii.gz"):
    print("   2b A: --output x.nii.gz --probabilities; B: --output x_probs.nii.gz (its map is A's probabilities):",
          refused_or_not(lambda: predict_cases(model, [image], probs / "x_probs.nii.gz")))
with held(probs / "x_probs.nii.gz"):
    print("   2c A: --output x_probs.nii.gz; B: --output x.nii.gz --probabilities:",
          refused_or_not(lambda: predict_cases(model, [image], probs / "x.nii.gz", probabilities=True)))
with held(probs / "y.nii.gz", probs / "y_probs.nii.gz"):
    print("   2d A: --output y.nii.gz --probabilities; B: predict_file(..., 'z.nii.gz', "
          "probabilities_output='y_probs.nii.gz'):",
          refused_or_not(lambda: predict_file(model, image, probs / "z.nii.gz",
                                              probabilities_output=probs / "y_probs.nii.gz")))
with held(probs / "in.nii.gz"):
    print("   2e A: --output in.nii.gz; B: the same file by predict --input:",
          command("predict", "--model", str(model), "--input", str(image), "--output", str(probs / "in.nii.gz")))
with held(probs / "w.nii.gz", probs / "w_probs.nii.gz"):
    print("   2f A: --output w.nii.gz --probabilities; B: predict --input ... --output w_probs.nii.gz:",
          command("predict", "--model", str(model), "--input", str(image), "--output",
                  str(probs / "w_probs.nii.gz")))
print("   left in probs/:", sorted(p.name for p in probs.iterdir()))

print("== 3: out/seg.nii.gz -> mid/seg.nii.gz -> final/seg.nii.gz, and other/seg.nii.gz -> mid/seg.nii.gz")
for folder in ("out", "mid", "final", "other"):
    (root / folder).mkdir()
mid = root / "mid" / "seg.nii.gz"
mid.symlink_to(Path("..") / "final" / "seg.nii.gz")
(root / "out" / "seg.nii.gz").symlink_to(mid)
(root / "other" / "seg.nii.gz").symlink_to(mid)
print("   3a final/seg.nii.gz gone (mid dangles: as a failed case's removal at out leaves it):")
print("      link_problem(other):", short(link_problem(root / "other" / "seg.nii.gz")))
print("      predict --output other/seg.nii.gz:",
      command("predict", "--model", str(model), str(image), "--output", str(root / "other" / "seg.nii.gz")))
mid.unlink()
print("   3b mid/seg.nii.gz itself gone:")
print("      link_problem(out):", short(link_problem(root / "out" / "seg.nii.gz")))

print("== 4: a stop (KeyboardInterrupt) between hold_run_folder's flock and its return, in a process that goes on")
STOPPED = """
import socket, sys
from pathlib import Path
from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder
output = Path(sys.argv[1])
real = socket.gethostname
def stop():  # run once the flock is taken, as the holder is written: a Ctrl-C's handler raising there
    raise KeyboardInterrupt
socket.gethostname = stop
try:
    with holding_output_folder(output, [output]):
        print("   held: the stop missed the window")
except KeyboardInterrupt as interrupt:
    sys.last_value = interrupt  # as IPython (a notebook) keeps the last exception, and its traceback's frames
socket.gethostname = real
print("   left beside the map after the stop:", sorted(p.name for p in output.parent.iterdir())
      if output.parent.exists() else "(no folder: the lock made it, and removed it)")
try:
    with holding_output_folder(output, [output]):
        print("   the same predict again, in that process: not refused")
except ConfigError as error:
    print("   the same predict again, in that process: refused:", str(error)[:str(error).index("):") + 1])
"""
out4 = root / "stopped" / "seg.nii.gz"
done = subprocess.run([sys.executable, "-c", STOPPED, str(out4)], cwd=root, capture_output=True, text=True)
print(short(done.stdout.rstrip()), short(done.stderr.strip()[-300:]))
print("   left after that process ended:", sorted(p.name for p in out4.parent.iterdir())
      if out4.parent.exists() else "(no folder)")
with held(out4):
    pass
print("   left after the next predict into it:", sorted(p.name for p in out4.parent.iterdir())
      if out4.parent.exists() else "(no folder)")
