"""scaling_projection.py over two sessions' files of one host CPU, and over every pair the sessions compared, with the
script of the working tree or of main (h155, the hundred-and-twenty-eighth session). Run from the repository root:

    python benchmarks/results/scaling_sessions_2026-12-08/sessions.py [main] \
        > benchmarks/results/scaling_sessions_2026-12-08/sessions_<main|h155>.txt

1. Two sessions of one host: each session's unet64_1proc_r1.json against the next session's unet64_2proc_r1.json on
   the same CPU (name, family/model where recorded): what main printed of them, what this tree says.
2. Every session's own pairs (h149's count), the inputs of every committed ddp_scaling*.json and every committed pair
   of one and two processes by name (r125's pairs.py): taken, taken with a warning (its line) or refused (its line).
"""

import contextlib
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
from collections import Counter
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
    except SystemExit:
        return "refused: " + err.getvalue().strip().splitlines()[-1]
    except Exception as error:  # noqa: BLE001 - what main printed instead of a line
        return f"{type(error).__name__}: {error}"
    warned = [line for line in err.getvalue().splitlines() if "warning:" in line]
    efficiency = [line.split("weak-scaling efficiency ")[1].split(" ")[0] for line in out.getvalue().splitlines()
                  if "weak-scaling efficiency" in line]
    return ("taken" + (f" ({efficiency[0]})" if efficiency else "")
            + (f", warned {len(warned)}: {warned[0]}" if warned else ""))


def tally(title: str, cases: list[tuple[str, list[str]]], show_taken: bool = False) -> None:
    """Each case's arguments given to main(): how many taken (with a warning or not), refused, and the line of each
    not taken silently."""
    verdicts = [(label, said(args)) for label, args in cases]
    kinds = Counter("refused" if v.startswith("refused") else "warned" if "warned" in v else "taken" if
                    v.startswith("taken") else "traceback" for _, v in verdicts)
    print(f"{title}: {kinds['taken']} taken, {kinds['warned']} taken with a warning, {kinds['refused']} refused, "
          f"{kinds['traceback']} tracebacks")
    print("\n".join(f"{label}: {verdict}" for label, verdict in verdicts
                    if show_taken or not (verdict.startswith("taken") and "warned" not in verdict)))


def pair(one: Path, two: Path) -> tuple[str, list[str]]:
    return f"{one} / {two}", ["--one", str(one), "--measured", str(two)]


def host(path: Path) -> tuple:
    machine = json.loads(path.read_text()).get("machine") or {}
    return machine.get("cpu"), machine.get("cpu_family_model")


sessions = [folder for folder in sorted(train.glob("session_*")) if (folder / "unet64_1proc_r1.json").exists()
            and (folder / "unet64_2proc_r1.json").exists()]
by_host: dict[tuple, list[Path]] = {}
for folder in [train, *sessions]:
    by_host.setdefault(host(folder / "unet64_1proc_r1.json"), []).append(folder)
tally("1. each session's one process against the next session's two on the same host CPU",
      [pair(a / "unet64_1proc_r1.json", b / "unet64_2proc_r1.json")
       for folders in by_host.values() for a, b in zip(folders, folders[1:])], show_taken=True)

ones = [one for folder in [train, *sorted(train.glob("session_*"))]
        for one in sorted(folder.glob("unet64_1proc_r*.json"))]
tally("\n2. every session's own unet 64^3 pairs (h149's count)",
      [pair(one, one.with_name(one.name.replace("1proc", "2proc"))) for one in ones
       if one.with_name(one.name.replace("1proc", "2proc")).exists()])

results = sorted(Path("benchmarks/results").glob("ddp_scaling*.json"))
inputs = {result.name: json.loads(result.read_text())["inputs"] for result in results}
tally(f"\nthe inputs of every committed ddp_scaling*.json ({len(results)})",
      [(name, ["--one", *given["one_process"], *(["--measured", *given["measured"]] if given.get("measured") else [])])
       for name, given in inputs.items()])

tally("\nevery committed pair of one and two processes, by name",
      [pair(one, one.with_name(one.name.replace("1proc", "2proc")))
       for one in sorted(Path("benchmarks/results").rglob("*1proc*.json"))
       if one.with_name(one.name.replace("1proc", "2proc")).exists() and "1proc" in one.name])
