"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python train_label_in_micrometres.py <package> <empty folder>
`accelerated-seg train` on situation 4 of check_case_units.py (channel 0 no unit, channel 1 mm, label micrometres
with mm numbers): its exit and error lines."""
import contextlib, io, sys, runpy
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[1]) / "tests"))
from conftest import tiny_overrides
sys.argv = [sys.argv[0], sys.argv[2]]
ns = runpy.run_path(str(Path(__file__).with_name("check_case_units.py")), run_name="x")
from accelerated_seg.cli import main
root = Path(sys.argv[1]) / "train"
dataset = ns["cases"](root, [("unknown", 1.0), ("mm", 1.0), ("micron", 1.0)])
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(["train", *tiny_overrides(dataset, root / "run")])
    except SystemExit as ended:
        status = ended.code
print("train exit", status, [line[:160] for line in err.getvalue().splitlines() if "error" in line][:3])
