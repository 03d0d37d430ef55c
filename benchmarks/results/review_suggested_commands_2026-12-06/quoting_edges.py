"""Run: cd /tmp/wt_r91 && PYTHONPATH=/tmp/wt_r91 /work/main/.venv/bin/python \
    benchmarks/results/review_suggested_commands_2026-12-06/quoting_edges.py > <beside>/quoting_edges_after.txt
(quoting_edges_before.txt: the same with PYTHONPATH at `git archive 2d199bd0 accelerated_seg`, main before r91)

Review r91 of h103's quoting: the suggestions h103's probe did not read back. Each line said with a folder whose
name holds a space or a quote (or a Windows path), and how its reader reads it: bash for a command (words as
printf '[%s]' prints them), Python's ast.literal_eval for a Python call's string argument."""
import ast
import re
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace

from accelerated_seg.data.errors import DataError
from accelerated_seg.inference_inputs import expand_inputs
from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES, Names
from accelerated_seg.predict_names import (ESTIMATOR_PREDICT_NAMES, PREDICT_CASE_NAMES, PREDICT_FILE_NAMES,
                                           PredictNames)
from accelerated_seg.preempted_run import say_where_a_preempted_run_goes_on


def bash_words(text: str) -> list[str]:
    run = subprocess.run(["bash", "-c", "f() { printf '[%s]\\n' \"$@\"; }; f " + text], capture_output=True, text=True)
    return [line[1:-1] for line in run.stdout.splitlines()] + ([f"STDERR {run.stderr.strip()}"] if run.stderr else [])


def python_string(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError) as error:
        return f"NOT PYTHON ({type(error).__name__})"


print("== 1. a preempted run's way to a model of its state, as fit and the command line say it")
for names, who in ((FIT_NAMES, "fit"), (Names(), "train"), (ESTIMATOR_NAMES, "estimator")):
    for run in (Path("/runs/my run"), Path("/runs/plain")):
        said = []
        loop = SimpleNamespace(progress=SimpleNamespace(step=40), names=names, checkpoints_dir=run / "checkpoints",
                               accelerator=SimpleNamespace(print=said.append))
        say_where_a_preempted_run_goes_on(loop)
        print(f"{who}, {run}: ...{said[0][-150:]}")
print()

print("== 2. a folder given as one case's --output: the several-cases form, with a quote or a Windows path")
for names, who in ((PredictNames(), "command"), (PREDICT_FILE_NAMES, "predict_file"),
                   (ESTIMATOR_PREDICT_NAMES, "Segmentation.predict"), (PREDICT_CASE_NAMES, "predict_case")):
    for folder in ("/data/it's out", r"C:\new\out", "/data/plain"):
        said = names.several_cases_into(folder)
        if names.keyword:
            argument = re.search(r", ('.*'|\".*\")\)$", said)
            read = python_string(argument.group(1)) if argument else "?"
            print(f"{who}: {said}\n  Python reads the folder as {read!r}: {'OK' if read == folder else 'WRONG'}")
        else:
            read = bash_words(said.split("--output ", 1)[1])
            print(f"{who}: {said}\n  bash reads {read}: {'OK' if read == [folder] else 'WRONG'}")
print()

print("== 3. a folder of per-case subfolders from Python (predict_cases' inputs): the pattern to give")
with tempfile.TemporaryDirectory() as tmp:
    for name in ("it's scans", "my scans"):
        (Path(tmp) / name / "case_000").mkdir(parents=True)
        (Path(tmp) / name / "case_000" / "image.nii.gz").write_bytes(b"")
        try:
            expand_inputs([str(Path(tmp) / name)])
        except DataError as error:
            said = str(error).split("such as ", 1)[1]
            meant = str(Path(tmp) / name / "*" / "image.nii.gz")
            read_py, read_sh = python_string(said), bash_words(said)
            print(f"{name}: ...such as {said}\n  Python reads {read_py!r}: {'OK' if read_py == meant else 'WRONG'}"
                  f"\n  bash reads {read_sh}: {'OK' if read_sh == [meant] else 'WRONG'}")
print()

print("== 4. cache's line naming <folder> below a cache")
import contextlib  # noqa: E402
import io  # noqa: E402

from accelerated_seg.cli import main  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    for name in ("cache dir", "cache"):
        version = Path(tmp) / name / "Task09-0123abcd" / "fedcba9876543210"  # a dataset's version, as test_cache's
        version.mkdir(parents=True)
        (version / "settings.json").write_text("{}")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["cache", "--cache-dir", str(Path(tmp) / name)])
        said = next(line for line in out.getvalue().splitlines() if "lists a dataset's versions" in line)
        print(said.replace(tmp, "<tmp>"))
