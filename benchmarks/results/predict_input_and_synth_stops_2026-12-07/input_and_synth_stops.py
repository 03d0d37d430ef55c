"""A one-process `predict --input` (one case) and `synth` stopped in each window of their work, and synth stopped from
Python (`cli.main([...])`): the status, the stopped line, what the folder holds.

Run (2 CPU cores; PROBE_CODE=<checkout> for another checkout's code, the worktree's own by default):
    cd /tmp/wt_h108 && PYTHONPATH=/tmp/wt_h108 /work/main/.venv/bin/python \
        benchmarks/results/predict_input_and_synth_stops_2026-12-07/input_and_synth_stops.py \
        > benchmarks/results/predict_input_and_synth_stops_2026-12-07/input_and_synth_stops_after.txt

Each run is the command line's own start (``main()`` reading sys.argv; tests/test_early_signals.py's snippets, of
this checkout, whatever PROBE_CODE is) in a process of its own, which sends itself the signal from a function of its work wrapped to do so: no sleep, the same
point every run. The windows of `predict --model M --input scan.nii.gz --output out.nii.gz`:
- ``loading the model``: as ``load_for_prediction`` is called (nothing written yet);
- ``in the map's write, before its rename``: once the map's hidden temporary is written whole (``io.sync_file``);
- ``in the map's write, after its rename``: as the folder is synced (``io.sync_directory``), the map in place;
- ``in the probabilities' write`` (with --probabilities): their temporary written whole, the label map in place;
- ``as the wrote line is said``: predict_file has returned, the map written (predict_command's ``print``);
- ``as the stops are put back``: after the wrote line, as SIGUSR1's default is put back (SIGTERM raised there);
- ``stale probabilities``: an earlier run's map and probabilities there, the run without --probabilities signalled
  as the new map's folder is synced, before the earlier probabilities (no longer its) are removed.
synth's: as ``data.synthetic`` is imported, as its third file is written, once dataset.json is written (the folder's
marker not yet removed), as its wrote line is said.
"""
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

CODE = os.environ.get("PROBE_CODE", str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, CODE)
sys.path.insert(1, str(Path(__file__).resolve().parents[3] / "tests"))  # this checkout's tests, for their snippets
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402
from test_early_signals import (AS_THE_COMMAND_LINE, SIGNAL_AT_THE_IMPORT,  # noqa: E402
                                SIGTERM_AS_SIGUSR1S_STOP_CHANGES)

ENV = {**os.environ, "PYTHONPATH": CODE, "OMP_NUM_THREADS": "1"}

#: Wraps ``module.name`` so that its ``call``-th call sends ``signum`` to this process before or after it runs.
SIGNALLED_AT_A_CALL = """
import importlib, os, sys
module = importlib.import_module({module!r})
wrapped, calls = getattr(module, {name!r}), []
def signalled(*args, **kwargs):
    calls.append(1)
    if len(calls) == {call} and not {after}:
        os.kill(os.getpid(), {signum})
    done = wrapped(*args, **kwargs)
    if len(calls) == {call} and {after}:
        os.kill(os.getpid(), {signum})
    return done
setattr(module, {name!r}, signalled)
"""

#: predict_command's (or cli's) ``print`` sending ``signum`` as a line beginning ``{begins}`` is said.
SIGNALLED_AS_A_LINE_IS_SAID = """
import builtins, importlib, os, sys
module = importlib.import_module({module!r})
def signalled_print(*args, **kwargs):
    if args and str(args[0]).startswith({begins!r}):
        os.kill(os.getpid(), {signum})
    builtins.print(*args, **kwargs)
module.print = signalled_print
"""

#: synth called from Python, SIGTERM as its third file is written: what ``cli.main`` gives back.
SYNTH_FROM_PYTHON = """
import os, signal, sys
import accelerated_seg.data.synthetic as synthetic
from accelerated_seg import cli
write, calls = synthetic.write_nifti, []
def signalled_at_the_third(*args, **kwargs):
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGTERM)
    return write(*args, **kwargs)
synthetic.write_nifti = signalled_at_the_third
try:
    print(f"cli.main returned {{cli.main({argv!r})!r}}")
except SystemExit as ended:
    print(f"cli.main raised SystemExit({{ended.code!r}})")
print("handlers after:", [str(signal.getsignal(s)) for s in (signal.SIGTERM, signal.SIGUSR1)])
"""


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=ENV,
                          cwd=CODE)


def folder(path: Path) -> str:
    if not path.exists():
        return "(none)"
    return " ".join(sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()))


def report(what: str, done: subprocess.CompletedProcess, where: Path) -> None:
    err = [line for line in done.stderr.splitlines() if line.strip()]
    said = [line for line in err if "stopped" in line or "interrupted" in line]
    out = [line[:120] for line in done.stdout.splitlines() if line.strip()][-2:]
    print(f"{what}:\n  status {done.returncode}; stdout's last lines {out}\n  stopped lines ({len(said)}): {said}\n"
          f"  files: {folder(where)}", flush=True)
    if not said and err:
        print(f"  stderr's last line: {err[-1][:300]}")


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="h108p_"))
    spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
                 {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
                 root / "model")
    scan = write_synthetic_dataset(root / "scans", num_cases=1, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                   spacing_mm=2.0).parent / "imagesTr" / "case_000.nii.gz"
    print(f"code: {CODE}\n")

    def predict(out: Path, probabilities: bool = False) -> list[str]:
        return ["accelerated-seg", "predict", "--model", str(root / "model"), "--input", str(scan), "--output",
                str(out / "seg.nii.gz"), *(["--probabilities"] if probabilities else [])]

    at_a_call = dict(after=False, call=1)
    windows = [
        ("loading the model", SIGNALLED_AT_A_CALL, dict(at_a_call, module="accelerated_seg.inference",
                                                        name="load_for_prediction"), False),
        ("in the map's write, before its rename", SIGNALLED_AT_A_CALL,
         dict(module="accelerated_seg.data.io", name="sync_file", call=1, after=True), False),
        ("in the map's write, after its rename", SIGNALLED_AT_A_CALL,
         dict(at_a_call, module="accelerated_seg.data.io", name="sync_directory"), False),
        ("in the probabilities' write (--probabilities)", SIGNALLED_AT_A_CALL,
         dict(module="accelerated_seg.data.io", name="sync_file", call=2, after=True), True),
        ("as the wrote line is said", SIGNALLED_AS_A_LINE_IS_SAID,
         dict(module="accelerated_seg.predict_command", begins="wrote "), False),
        ("as the wrote line is said (--probabilities)", SIGNALLED_AS_A_LINE_IS_SAID,
         dict(module="accelerated_seg.predict_command", begins="wrote "), True),
    ]
    for number, (what, prelude, where, probabilities) in enumerate(windows):
        for signum in ((signal.SIGTERM, signal.SIGUSR1, signal.SIGINT) if what == "as the wrote line is said"
                       else (signal.SIGTERM,)):
            out = root / f"predict_{number}_{signum.name}"
            done = run(prelude.format(signum=int(signum), **where)
                       + AS_THE_COMMAND_LINE.format(argv=predict(out, probabilities)))
            report(f"predict --input, {signum.name} {what}", done, out)
    out = root / "predict_put_back"
    done = run(SIGTERM_AS_SIGUSR1S_STOP_CHANGES.format(when="as_the_stops_are_put_back")
               + AS_THE_COMMAND_LINE.format(argv=predict(out)))
    report("predict --input, SIGTERM as the stops are put back (the wrote line said)", done, out)
    out = root / "predict_stale"
    earlier = run("import sys\n" + AS_THE_COMMAND_LINE.format(argv=predict(out, probabilities=True)))
    print(f"(an earlier run with --probabilities: status {earlier.returncode}, files: {folder(out)})")
    done = run(SIGNALLED_AT_A_CALL.format(signum=int(signal.SIGTERM), **dict(at_a_call, module="accelerated_seg.data.io",
                                                                             name="sync_directory"))
               + AS_THE_COMMAND_LINE.format(argv=predict(out)))
    report("predict --input without --probabilities over an earlier run's, SIGTERM as the map's folder is synced",
           done, out)

    print()
    synth = ["accelerated-seg", "synth", None, "--cases", "3", "--validation", "1"]
    synth_windows = [
        ("as data.synthetic is imported", SIGNAL_AT_THE_IMPORT, dict(module="accelerated_seg.data.synthetic")),
        ("as its third file is written", SIGNALLED_AT_A_CALL,
         dict(at_a_call, call=3, module="accelerated_seg.data.synthetic", name="write_nifti")),
        ("once dataset.json is written (marker still there)", SIGNALLED_AT_A_CALL,
         dict(at_a_call, after=True, module="accelerated_seg.data.synthetic", name="write_text_atomically")),
        ("as its wrote line is said", SIGNALLED_AS_A_LINE_IS_SAID, dict(module="accelerated_seg.cli", begins="wrote ")),
    ]
    for number, (what, prelude, where) in enumerate(synth_windows):
        out = root / f"synth_{number}"
        synth[2] = str(out)
        done = run(prelude.format(signum=int(signal.SIGTERM), **where) + AS_THE_COMMAND_LINE.format(argv=synth))
        report(f"synth, SIGTERM {what}", done, out)
    out = root / "synth_from_python"
    done = run(SYNTH_FROM_PYTHON.format(argv=["synth", str(out), "--cases", "3", "--validation", "1"]))
    report("synth from Python (cli.main([...])), SIGTERM as its third file is written", done, out)
    print("  stdout:", done.stdout.strip().splitlines())


if __name__ == "__main__":
    main()
