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


def tally(title: str, cases: list[tuple[str, list[str]]]) -> None:
    """Each case's arguments given to main(): how many taken, and the line of each that is not."""
    verdicts = [(label, said(args)) for label, args in cases]
    others = [f"{label}: {verdict}" for label, verdict in verdicts if verdict != "taken"]
    print(f"{title}: {len(verdicts) - len(others)} taken, {len(others)} refused")
    print("\n".join(others))


def pair(one: Path, two: Path) -> tuple[str, list[str]]:
    return f"{one} / {two.name}", ["--one", str(one), "--measured", str(two)]


ones = [one for folder in [train, *sorted(train.glob("session_*"))]
        for one in sorted(folder.glob("unet64_1proc_r*.json"))]
tally("every session's own unet 64^3 pairs (h149's count)",
      [pair(one, one.with_name(one.name.replace("1proc", "2proc"))) for one in ones
       if one.with_name(one.name.replace("1proc", "2proc")).exists()])

results = sorted(Path("benchmarks/results").glob("ddp_scaling*.json"))
inputs = {result.name: json.loads(result.read_text())["inputs"] for result in results}
tally(f"\nthe inputs of every committed ddp_scaling*.json ({len(results)})",
      [(name, ["--one", *given["one_process"], *(["--measured", *given["measured"]] if given.get("measured") else [])])
       for name, given in inputs.items()])

# Every committed pair of one and two processes of every size, repeats matched by name (`unet64_bf16_1proc.json` with
# `unet64_bf16_2proc.json`, `small32_1proc_r2.json` with `small32_2proc_r2.json`, and so on), and whatever is not taken.
tally("\nevery committed pair of one and two processes, by name",
      [pair(one, one.with_name(one.name.replace("1proc", "2proc")))
       for one in sorted(Path("benchmarks/results").rglob("*1proc*.json"))
       if one.with_name(one.name.replace("1proc", "2proc")).exists() and "1proc" in one.name])
