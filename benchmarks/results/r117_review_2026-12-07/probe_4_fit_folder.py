# cd /tmp/wt_r117 && PYTHONPATH=/tmp/wt_r117 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   benchmarks/results/r117_review_2026-12-07/probe_4_fit_folder.py \
#   > benchmarks/results/r117_review_2026-12-07/probe_4_fit_folder_<at>.txt 2>&1   (at: first fix b90d2ca9, or after)
# r117: a train.fit's checkpoint_dir (checkpoints, no run_info.json) given to `accelerated-seg train`: is the resume the
# refusal offers a true way on? train's resume refuses a fit's checkpoint, so it must not be offered.
import io, sys, tempfile, contextlib, warnings
from pathlib import Path
sys.path.insert(0, "/tmp/wt_r117/tests")
warnings.simplefilter("ignore")
from test_fit import _pieces
from accelerated_seg.cli import main
from accelerated_seg.train import fit
root = Path(tempfile.mkdtemp())
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    fit(*_pieces(), max_steps=1, checkpoint_dir=root / "fitted", progress_bar=False)
print("fit's folder:", sorted(p.name for p in (root / "fitted").iterdir()))
for extra in ([], ["--train.overwrite=true"], ["--train.resume=latest"]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(["train", "--config", "/tmp/wt_r117/configs/demo.yaml", f"--train.output_dir={root / 'fitted'}",
                  *extra])
        except SystemExit as stop:
            status = stop.code
    print(f"\n$ accelerated-seg train --config configs/demo.yaml --train.output_dir=fitted {' '.join(extra)}")
    print(f"status {status}: " + " ".join(line.replace(str(root), "…") for line in err.getvalue().splitlines()
                                          if "error" in line))
