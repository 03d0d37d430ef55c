"""Run: cd /tmp/wt_h103 && PYTHONPATH=/tmp/wt_h103 /work/main/.venv/bin/python \
    benchmarks/results/suggested_commands_quoting_2026-12-06/probe.py /tmp/h103probe > <beside this file>/<name>.txt
(before.txt: the same script with PYTHONPATH at a worktree of main, 272d01b4.)

Part 1, the commands error lines suggest, with folders whose names hold a space, a quote, `$` and `;`: each command
said (the text of the line from its `accelerated-seg`, `--model`, `--train.resume=` ... on) is given to bash as it
would be pasted, with the program replaced by `printf '[%s]'`, and the words bash reads are compared with the paths
meant. Part 2, a folder holding an export's files whose config.json is broken, among predict's images, as evaluate's
PRED and LABELS, and as export's input; and the folders review r86 kept as images. Each command's status, its last
line, and whether torch was imported before it refused (tests/refusals.py).
Setup: review_inference_md's setup_probe.py (a tiny random-weight export, data/imagesTr, data/labelsTr)."""
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
setup = Path(__file__).resolve().parents[1] / "review_inference_md_2026-12-06" / "setup_probe.py"
subprocess.run([sys.executable, str(setup), str(root)], check=True, capture_output=True)
PROBE = "import runpy, sys; sys.argv = ['accelerated-seg', *sys.argv[1:]]\ntry:\n    " \
        "runpy.run_module('accelerated_seg.cli', run_name='__main__', alter_sys=True)\nfinally:\n    " \
        "print('torch imported' if 'torch' in sys.modules else 'torch not imported', file=sys.stderr)"
ODD = ["my model", "it's", "a$HOME;b"]  # a space; a quote; a variable and a command's end


def command(*args, note) -> str:
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=root)
    took = time.monotonic() - start
    lines = (run.stdout + run.stderr).strip().splitlines()
    print(f"$ accelerated-seg {' '.join(args)}   # {note}\nexit {run.returncode}, {took:.1f} s\n"
          + "\n".join(lines[-2:]))
    return "\n".join(lines)


def pasted(said: str, start: str, end: str, meant: list[str]) -> None:
    """The command in ``said`` from ``start`` up to ``end``, as bash reads it: its words against ``meant``."""
    line = next(line for line in said.splitlines() if start in line)  # not the lines after it
    text = line[line.index(start):]
    text = text[:text.index(end)] if end else text
    text = re.sub(r"<[^<>]*>", "PLACEHOLDER", text)  # <folder>, <scans>: the user's to fill in, not redirections
    program = "f() { printf '[%s]\\n' \"$@\"; }; f "  # the words bash passes to a program
    words = subprocess.run(["bash", "-c", program + text.replace("accelerated-seg ", "", 1)],
                           capture_output=True, text=True, cwd=root)
    read = [line[1:-1] for line in words.stdout.splitlines()]
    ok = all(word in read for word in meant)
    print(f"  pasted: {text}\n  bash read {read}{' ; stderr: ' + words.stderr.strip() if words.stderr else ''}\n"
          f"  {'OK' if ok else 'WRONG'}: the paths meant {meant} {'are' if ok else 'are not all'} single words\n")


print("== Part 1: suggested commands, folder names with a space, a quote, $ and ;")
for odd in ODD:
    shutil.copytree(root / "model", root / f"{odd} export")
    shutil.copytree(root / "data" / "imagesTr", root / f"{odd} scans")
    for name in ("model", "best_model"):
        shutil.copytree(root / "model", root / f"{odd} run" / name)
    (root / f"{odd} run" / "checkpoints" / "step_2").mkdir(parents=True)
    (root / f"{odd} run" / "checkpoints" / "step_2" / "strategy.json").write_text("{}")
    (root / f"{odd} percase" / "case_000").mkdir(parents=True)
    shutil.copy(root / "data" / "imagesTr" / "case_000.nii.gz", root / f"{odd} percase" / "case_000" / "image.nii.gz")
    (root / f"{odd} out").mkdir()
for odd in ODD:
    print(f"--- {odd!r}")
    said = command("predict", "--model", "model", f"{odd} export", f"{odd} scans", "--output", f"{odd} out", "--tta",
                   note="an ensemble's second member without its --model")
    pasted(said, "accelerated-seg predict", " --tta)", ["model", f"{odd} export", f"{odd} scans", f"{odd} out"])
    said = command("predict", f"{odd} run", "data/imagesTr", "--output", "o", note="a run's folder, no --model")
    pasted(said, "--model", " (accelerated-seg", [f"{odd} run/best_model"])
    said = command("evaluate", f"{odd} export", "data/labelsTr", note="an export as PRED")
    pasted(said, "accelerated-seg predict", "), then", [f"{odd} export"])
    pasted(said, "accelerated-seg evaluate", "", ["data/labelsTr"])
    said = command("evaluate", f"{odd} export", f"{odd} scans", note="an export as PRED, LABELS with the odd name")
    pasted(said, "accelerated-seg evaluate", "", [f"{odd} scans"])
    said = command("predict", "--model", f"{odd} run/checkpoints/step_2", "data/imagesTr", "--output", "o",
                   note="a training-state checkpoint as --model")
    pasted(said, "accelerated-seg export", " --output", [f"{odd} run/checkpoints/step_2"])
    said = command("predict", "--model", f"{odd} run/checkpoints", "data/imagesTr", "--output", "o",
                   note="a run's checkpoints/ as --model")
    if "accelerated-seg export" in said:
        pasted(said, "accelerated-seg export", " --output", [f"{odd} run/checkpoints/step_2"])
    said = command("predict", "--model", "model", f"{odd} export/config.json", "--output", "o",
                   note="an export's config.json among the images")
    pasted(said, "--model", "", [f"{odd} export"])
    said = command("predict", "--model", "model", f"{odd} percase", "--output", "o", note="scans in subfolders")
    pasted(said, "such as ", "", [f"{odd} percase/*/image.nii.gz"])
    said = command("predict", "--model", "model", "--input", "data/imagesTr/case_000.nii.gz", "--output",
                   f"{odd} out", note="--input with --output a folder")
    pasted(said, "give e.g. ", ", or", [f"{odd} out/case_000.nii.gz"])
    pasted(said, "with --output ", " to write", [f"{odd} out"])
    said = command("train", f"{odd}.yaml", note="an experiment file given without --config")
    pasted(said, "--config", "", [f"{odd}.yaml"])

print("== Part 1b: suggestions made inside training and fit, called directly")
from accelerated_seg.config import ConfigError  # noqa: E402
from accelerated_seg.model_folders import ESTIMATOR_NAMES, Names  # noqa: E402
from accelerated_seg.resume_config_changes import refuse_a_train_checkpoint_in_fit  # noqa: E402

for odd in ODD:
    checkpoint = root / f"{odd} run" / "checkpoints" / "step_2"
    (checkpoint / "config.yaml").write_text("model: {name: unet}\n")
    try:
        refuse_a_train_checkpoint_in_fit(checkpoint)
    except ConfigError as error:
        print(f"fit of {odd!r}'s checkpoint: {str(error)[-330:]}")
        pasted(str(error), "accelerated-seg train --config", " (Segmentation", [str(checkpoint / "config.yaml")])
    said = Names().way_to_a_new_run_from(checkpoint)
    print(f"Names().way_to_a_new_run_from: {said}")
    pasted(said, "accelerated-seg export", " --output", [str(checkpoint)])
    said = Names().elsewhere_from(root / f"{odd} run" / "model")
    print(f"Names().elsewhere_from: {said}")
    pasted(said, "--train.init_from", " in another", [f"--train.init_from={root / f'{odd} run' / 'model'}"])
    print(f"ESTIMATOR_NAMES.elsewhere_from: {ESTIMATOR_NAMES.elsewhere_from(root / f'{odd} run' / 'model')}\n")

print("== Part 2: an export's files with a broken config.json where images are expected")
model_config = (root / "model" / "config.json").read_text()
broken = {"cut_short": model_config[:len(model_config) // 2],
          "edited": model_config.replace('"model": {', '"model": {,', 1),
          "latin1": model_config.replace("lesion", "l\xe9sion").encode("latin-1"),
          "other_programs": json.dumps({"model_type": "vit", "architectures": ["ViTModel"]})}
for name, text in broken.items():
    shutil.copytree(root / "model", root / name)
    (root / name / "config.json").write_bytes(text if isinstance(text, bytes) else text.encode())
for name in broken:
    command("predict", "--model", "model", name, "data/imagesTr", "--output", "b1", note=f"config.json {name}")
command("predict", "cut_short", "data/imagesTr", "--output", "b2", note="no --model, config.json cut short")
command("evaluate", "edited", "data/labelsTr", note="as PRED, config.json edited")
command("evaluate", "data/labelsTr", "other_programs", note="as LABELS, another program's config.json")
command("export", "cut_short", "--output", "e1", note="as export's input, config.json cut short")
command("export", "other_programs", "--output", "e2", note="as export's input, another program's config.json")
print("-- kept as images (review r86), and good commands")
(root / "percase" / "case_000").mkdir(parents=True)
shutil.copy(root / "data" / "imagesTr" / "case_000.nii.gz", root / "percase" / "case_000" / "image.nii.gz")
(root / "percase" / "config.json").write_text("{not json")
shutil.copytree(root / "percase", root / "hf")
(root / "hf" / "config.json").write_text(json.dumps({"model_type": "vit"}))
(root / "hf" / "model.safetensors").write_bytes(b"")
(root / "viewer_only").mkdir()
(root / "viewer_only" / "config.json").write_text(json.dumps({"viewer": {"window": [0, 80]}}))
shutil.copytree(root / "data", root / "data_with_run")
shutil.copytree(root / "cut_short", root / "data_with_run" / "model")
command("predict", "--model", "model", "percase", "--output", "k1", note="scans in subfolders, a broken config.json")
command("predict", "--model", "model", "hf", "--output", "k2", note="another program's model files, scans below")
command("predict", "--model", "model", "viewer_only", "--output", "k3", note="another program's config.json alone")
command("predict", "--model", "model", "data_with_run", "--output", "k4",
        note="a dataset folder, a broken export in it")
command("predict", "--model", "model", "data/imagesTr", "--output", "k5", note="good: the scans alone")
command("export", "model", "--output", "e3", note="a whole export as export's input")
