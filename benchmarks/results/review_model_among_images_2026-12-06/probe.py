"""Run: cd /tmp/wt_r86 && PYTHONPATH=/tmp/wt_r86 /work/main/.venv/bin/python \
    benchmarks/results/review_model_among_images_2026-12-06/probe.py /tmp/r86probe > <beside this file>/<name>.txt
Review r86 of h100's model_among_images: folders that must still be read as images, links, patterns, slashes,
--model's own folder written otherwise, --continue, a launched predict's rank 1 (WORLD_SIZE=2, as
tests/test_inference_distributed.py), evaluate. Each command's status and its last lines.
Setup: review_inference_md's setup_probe.py (a tiny random-weight export, data/imagesTr), then the folders below."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
setup = Path(__file__).resolve().parents[1] / "review_inference_md_2026-12-06" / "setup_probe.py"
subprocess.run([sys.executable, str(setup), str(root)], check=True, capture_output=True)
for name in ("model", "best_model"):
    shutil.copytree(root / "model", root / "run" / name)
shutil.copytree(root / "model", root / "other_model")
scan = root / "data" / "imagesTr" / "case_000.nii.gz"
# a folder per case, with another program's config.json (a viewer's, a converter's) at its top
(root / "percase" / "case_000").mkdir(parents=True)
shutil.copy(scan, root / "percase" / "case_000" / "image.nii.gz")
(root / "percase" / "config.json").write_text(json.dumps({"viewer": {"window": [0, 80]}}))
# a Hugging Face-like model folder's files beside scans in subfolders
(root / "hf" / "case_000").mkdir(parents=True)
shutil.copy(scan, root / "hf" / "case_000" / "image.nii.gz")
(root / "hf" / "config.json").write_text(json.dumps({"model_type": "vit", "architectures": ["ViTModel"]}))
(root / "hf" / "model.safetensors").write_bytes(b"")
# a dataset folder (dataset.json, imagesTr) into which a training run wrote its exports
shutil.copytree(root / "data", root / "data_with_run")
shutil.copytree(root / "model", root / "data_with_run" / "model")
os.symlink(root / "model", root / "link_to_model")
# a glob over a folder holding an export and scans
(root / "mixed").mkdir()
shutil.copy(scan, root / "mixed")
shutil.copytree(root / "model", root / "mixed" / "fold1")
# an accelerated_seg config.json without its weights (a copy cut short)
(root / "half_export").mkdir()
shutil.copy(root / "model" / "config.json", root / "half_export")

PROBE = "import runpy, sys; sys.argv = ['accelerated-seg', *sys.argv[1:]]\ntry:\n    " \
        "runpy.run_module('accelerated_seg.cli', run_name='__main__', alter_sys=True)\nfinally:\n    " \
        "print('torch imported' if 'torch' in sys.modules else 'torch not imported', file=sys.stderr)"
SCRIPT = root / "predict.py"  # main() as a script calls it: cli's __main__ ends a launched process with os._exit
SCRIPT.write_text("import sys\nfrom accelerated_seg.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def command(*args, note, env=None, script=False):
    start = time.monotonic()
    how = [str(SCRIPT)] if script else ["-c", PROBE]
    run = subprocess.run([sys.executable, *how, *args], capture_output=True, text=True, cwd=root, env=env)
    took = time.monotonic() - start
    lines = (run.stdout + run.stderr).strip().splitlines()
    print(f"$ accelerated-seg {' '.join(args)}   # {note}\nexit {run.returncode}, {took:.1f} s\n"
          + "\n".join(lines[-3:]) + "\n")


P = ("predict", "--model", "model")
command(*P, "percase", "--output", "o1", note="scans in subfolders, another program's config.json beside them")
command(*P, "hf", "--output", "o2", note="a Hugging Face-like config.json + model.safetensors, scans in subfolders")
command(*P, "data_with_run", "--output", "o3", note="a dataset folder a run wrote its model/ into")
command(*P, "link_to_model", "data/imagesTr", "--output", "o4", note="a link to --model's folder among the images")
command(*P, "model/", "data/imagesTr", "--output", "o5", note="--model's folder with a trailing slash")
command(*P, str(root / "model"), "data/imagesTr", "--output", "o6", note="--model's folder, absolute")
command(*P, "mixed/*", "--output", "o7", note="a pattern over a scan and an export (the export is no file)")
command(*P, "half_export", "data/imagesTr", "--output", "o8", note="an accelerated_seg config.json, no weights")
command("predict", "--model", "run/best_model", "run", "data/imagesTr", "--output", "o9",
        note="the run whose best_model is --model")
command(*P, "other_model", "data/imagesTr", "--output", "o10", "--continue", "--tta",
        note="--continue and --tta: the ensemble's command drops them?")
for rank in (0, 1):
    env = {**os.environ, "WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": str(rank),
           "TORCHELASTIC_ERROR_FILE": str(root / f"error_{rank}.json")}
    command(*P, "other_model", "data/imagesTr", "--output", "o11", env=env, script=True,
            note=f"launched, rank {rank} of 2 (each node's first rank says a refusal, say_the_error)")
    report = root / f"error_{rank}.json"
    print(f"launcher's report of rank {rank}: {report.read_text()[:200] if report.exists() else 'none written'}\n")
    command(*P, "data/missing", "--output", "o12", env=env, script=True,
            note=f"launched, rank {rank}, an input not found (the refusals' way, for comparison)")
command("evaluate", "data/labelsTr", "run", note="a run's folder as LABELS, meant as --labels for class names")
