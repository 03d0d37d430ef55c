"""scaling_projection.py's refusals over what the sessions compared: h149's count (every session's unet 64^3 pairs, each
repeat r of one process with r of two) and the inputs of every committed ddp_scaling*.json (the pairs each session
wrote its efficiency from). Run from the repository root (r125), with the script of the working tree or of main:

    python benchmarks/results/review_performance_md_figures_2026-12-07/pairs.py [main] \
        > benchmarks/results/review_performance_md_figures_2026-12-07/pairs_<main|r125>.txt
"""

import contextlib
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

source = Path("benchmarks/scaling_projection.py")
if sys.argv[1:] == ["main"]:
    source = Path(tempfile.mkdtemp()) / "scaling_projection.py"
    source.write_text(subprocess.run(["git", "show", "main:benchmarks/scaling_projection.py"], capture_output=True,
                                     text=True, check=True).stdout)
    sys.path.insert(0, str(Path.cwd()))
spec = importlib.util.spec_from_file_location("scaling_projection", source)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)
train = Path("benchmarks/results/train_2cpu")


def said(args: list[str]) -> str:
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            script.main(args)
        return "taken"
    except SystemExit:
        return "refused: " + err.getvalue().strip().splitlines()[-1]
    except Exception as error:  # noqa: BLE001 - what main printed instead of a line
        return f"{type(error).__name__}: {error}"


taken, refused = 0, []
for folder in [train, *sorted(train.glob("session_*"))]:
    for one in sorted(folder.glob("unet64_1proc_r*.json")):
        two = folder / one.name.replace("1proc", "2proc")
        if two.exists():
            verdict = said(["--one", str(one), "--measured", str(two)])
            taken += verdict == "taken"
            if verdict != "taken":
                refused.append(f"{one} / {two.name}: {verdict}")
print(f"every session's own unet 64^3 pairs (h149's count): {taken} taken, {len(refused)} refused")
print("\n".join(refused))

taken, refused = 0, []
results = sorted(Path("benchmarks/results").glob("ddp_scaling*.json"))
for result in results:
    inputs = json.loads(result.read_text())["inputs"]
    args = ["--one", *inputs["one_process"], *(["--measured", *inputs["measured"]] if inputs.get("measured") else [])]
    verdict = said(args)
    taken += verdict == "taken"
    if verdict != "taken":
        refused.append(f"{result.name}: {verdict}")
print(f"\nthe inputs of every committed ddp_scaling*.json ({len(results)}): {taken} taken, {len(refused)} refused")
print("\n".join(refused))

# Every committed pair of one and two processes of every size, repeats matched by name (`unet64_bf16_1proc.json` with
# `unet64_bf16_2proc.json`, `small32_1proc_r2.json` with `small32_2proc_r2.json`, and so on), and whatever is not taken.
taken, refused = 0, []
for one in sorted(Path("benchmarks/results").rglob("*1proc*.json")):
    two = one.with_name(one.name.replace("1proc", "2proc"))
    if two.exists() and two != one:
        verdict = said(["--one", str(one), "--measured", str(two)])
        taken += verdict == "taken"
        if verdict != "taken":
            refused.append(f"{one} / {two.name}: {verdict}")
print(f"\nevery committed pair of one and two processes, by name: {taken} taken, {len(refused)} not")
print("\n".join(refused))
