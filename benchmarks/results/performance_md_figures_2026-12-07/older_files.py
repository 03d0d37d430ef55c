"""scaling_projection.py's refusal over the committed files: every session's unet 64³ pairs (each repeat r of one
process with r of two) still taken or refused as before, and pairs across sessions, an older session's file against
today's, said with what the older one does not record. Run from the repository root (h149, the
hundred-and-twenty-seventh session), on main and on branch h149:

    PYTHONPATH=. python benchmarks/results/performance_md_figures_2026-12-07/older_files.py \
        > benchmarks/results/performance_md_figures_2026-12-07/older_files_<main|h149>.txt
"""

import contextlib
import importlib.util
import io
from pathlib import Path

spec = importlib.util.spec_from_file_location("scaling_projection", "benchmarks/scaling_projection.py")
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
print(f"every session's own pairs: {taken} taken, {len(refused)} refused")
print("\n".join(refused))
print("\nacross sessions:")
newest = sorted(train.glob("session_*"))[-1]
for one, two in [(train / "unet64_1proc_r1.json", newest / "unet64_2proc_r1.json"),
                 (newest / "unet64_1proc_r1.json", train / "unet64_2proc_r1.json"),
                 (train / "session_2026-11-22c" / "unet64_1proc_r1.json", newest / "unet64_2proc_r1.json"),
                 (Path("benchmarks/results/gpu_h200_session_2026-11-27/train_mlperf_compile_channels_last_b4.json"),
                  newest / "unet64_2proc_r1.json")]:
    print(f"- {one} / {two}: {said(['--one', str(one), '--measured', str(two)])}")
