"""Command: cd <checkout> && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    benchmarks/results/stop_lines_2026-12-07/stop_lines.py > benchmarks/results/stop_lines_2026-12-07/<before|after>.txt
Helper h114 (the hundred-and-twenty-first session): what a one-process command says, and its status, when Ctrl-C,
SIGTERM or SIGUSR1 stops it in each window of its work: evaluate, synth, plan (with and without --json), check,
cache's listing and benchmark predict. Each row runs the command as the command line runs it (``cli.main()`` reading
sys.argv, in a process of its own, PYTHONPATH the checkout's), the signal sent by the process to itself as a chosen
function is called or a module first imported (as tests/test_early_signals.py times it); HOME and XDG_CACHE_HOME
point into the row's own folder, beside the data's; the last column names each file under the probe's folder (the
data, every row's) that the row made or replaced.
Run at main (before.txt: PYTHONPATH=/work/main) and at branch h114 (after.txt)."""
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

#: The signal sent as ``module`` is first imported.
AT_THE_IMPORT = """
import os, sys
class SignalAtTheImport:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
        return None
sys.meta_path.insert(0, SignalAtTheImport())
"""
#: The signal sent as ``module.name`` is called for the ``call``-th time, before it runs (``after``: once it ran).
AT_THE_CALL = """
import importlib, os
module = importlib.import_module({module!r})
called, calls = getattr(module, {name!r}), []
def signalled(*args, **kwargs):
    calls.append(1)
    if len(calls) == {call} and not {after}:
        os.kill(os.getpid(), {signum})
    done = called(*args, **kwargs)
    if len(calls) == {call} and {after}:
        os.kill(os.getpid(), {signum})
    return done
setattr(module, {name!r}, signalled)
"""
#: The signal sent as a module's ``print`` says a line that begins with ``start`` (or holds ``within``).
AT_THE_LINE = """
import builtins, importlib, os
module = importlib.import_module({module!r})
def signalled_print(*args, **kwargs):
    if args and (str(args[0]).startswith({start!r}) and {start!r} or {within!r} and {within!r} in str(args[0])):
        os.kill(os.getpid(), {signum})
    builtins.print(*args, **kwargs)
module.print = signalled_print
"""
AS_THE_COMMAND_LINE = """
import sys
sys.argv = {argv!r}
from accelerated_seg.cli import end_process, main
end_process(main())
"""


def files_in(folder: Path) -> dict[str, tuple]:
    """Each file under ``folder`` (the probe's whole folder: the data, every row's), with what a new file in its
    place changes."""
    return {str(path.relative_to(folder.parent)): (path.stat().st_ino, path.stat().st_mtime_ns, path.stat().st_size)
            for path in folder.rglob("*") if path.is_file()}


def row(command: str, window: str, argv: list[str], folder: Path, code: str) -> None:
    before = files_in(folder.parent)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HOME": str(folder / "home"),
           "XDG_CACHE_HOME": str(folder / "home" / ".cache")}
    done = subprocess.run([sys.executable, "-c", code + AS_THE_COMMAND_LINE.format(argv=["accelerated-seg", *argv])],
                          capture_output=True, text=True, timeout=300, env=env, cwd=folder)
    said = " | ".join(done.stderr.strip().splitlines()[-1:]) or "(nothing said)"
    if "Traceback" in done.stderr:
        said = "TRACEBACK: " + done.stderr.strip().splitlines()[-1]
    after = files_in(folder.parent)
    written = sorted(f"{path}{'' if path not in before else ' (replaced)'}" for path in after
                     if before.get(path) != after[path])
    print(f"| {command} | {window} | {done.returncode} | {said} | {', '.join(written) or '-'} |", flush=True)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="stop_lines_"))
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    data = write_synthetic_dataset(root / "data", num_cases=2, num_validation=1, size_mm=(16.0, 16.0, 16.0),
                                   spacing_mm=4.0)
    labels = data.parent / "labelsTr"
    term, intr, usr1 = int(signal.SIGTERM), int(signal.SIGINT), int(signal.SIGUSR1)
    print("| command | window | status | last line on stderr | files made or replaced |")
    print("|---|---|---|---|---|")

    def evaluate_row(window: str, code: str, earlier: bool = False) -> None:
        folder = Path(tempfile.mkdtemp(dir=root))
        subprocess.run(["cp", "-r", str(labels), str(folder / "predictions")], check=True)
        argv = ["evaluate", str(folder / "predictions"), str(labels), "--output", str(folder / "evaluation")]
        if earlier:  # an earlier evaluation of the same folders there
            subprocess.run([sys.executable, "-m", "accelerated_seg", *argv], capture_output=True, check=True)
        row("evaluate", window, argv, folder, code)

    for signum in (term, intr, usr1):
        evaluate_row(f"its imports ({signal.Signals(signum).name})",
                     AT_THE_IMPORT.format(module="accelerated_seg.evaluate", signum=signum))
    evaluate_row("scoring, 2nd map read (SIGTERM)", AT_THE_CALL.format(
        module="accelerated_seg.label_map_reading", name="read_label_map", call=2, after=False, signum=term) +
        "import accelerated_seg.evaluate, accelerated_seg.label_map_reading as r\n"
        "for name in ('evaluate', 'evaluate_cases', 'evaluate_classes', 'evaluate_grids', 'evaluate_output'):\n"
        "    m = importlib.import_module('accelerated_seg.' + name)\n"
        "    if hasattr(m, 'read_label_map'): m.read_label_map = r.read_label_map\n")
    evaluate_row("between metrics.csv's rename and summary.json's (SIGTERM)", AT_THE_CALL.format(
        module="os", name="replace", call=1, after=True, signum=term))
    evaluate_row("between the renames, an earlier evaluation there (SIGTERM)", AT_THE_CALL.format(
        module="os", name="replace", call=1, after=True, signum=term), earlier=True)
    evaluate_row("both renamed, folder being synced (SIGUSR1)", AT_THE_CALL.format(
        module="accelerated_seg.files", name="sync_directory", call=1, after=False, signum=usr1))
    evaluate_row("as its last line is said (Ctrl-C)", AT_THE_LINE.format(
        module="accelerated_seg.evaluate_command", start="", within=" case(s), mean Dice ", signum=intr))

    def synth_row(window: str, code: str, unfinished: bool) -> None:
        folder = Path(tempfile.mkdtemp(dir=root))
        argv = ["synth", str(folder / "phantoms"), "--cases", "2", "--validation", "1"]
        if unfinished:  # an earlier synth stopped as its third file was written
            row("synth", "(the earlier synth, stopped at its 3rd file)", argv, folder, AT_THE_CALL.format(
                module="accelerated_seg.data.synthetic", name="write_nifti", call=3, after=False, signum=term))
        row("synth", window, argv, folder, code)

    synth_row("its import, a new folder (SIGTERM)", AT_THE_IMPORT.format(
        module="accelerated_seg.data.synthetic", signum=term), unfinished=False)
    synth_row("its import, over an earlier unfinished folder (SIGTERM)", AT_THE_IMPORT.format(
        module="accelerated_seg.data.synthetic", signum=term), unfinished=True)
    synth_row("its import, over an earlier unfinished folder (Ctrl-C)", AT_THE_IMPORT.format(
        module="accelerated_seg.data.synthetic", signum=intr), unfinished=True)

    plan = ["plan", "--model", "unet", "--patch", "32", "32", "32"]
    proposals = AT_THE_CALL.format(module="accelerated_seg.plan", name="propose", call=1, after=False, signum=term)
    for window, json_given, code in (
            ("its proposals (SIGTERM)", False, proposals), ("its proposals (SIGTERM)", True, proposals),
            ("as its wrote line is said (Ctrl-C)", True, AT_THE_LINE.format(
                module="accelerated_seg.plan_command", start="wrote ", within="", signum=intr))):
        folder = Path(tempfile.mkdtemp(dir=root))
        row("plan --json" if json_given else "plan", window,
            [*plan, *(["--json", str(folder / "plan.json")] if json_given else [])], folder, code)

    folder = Path(tempfile.mkdtemp(dir=root))
    row("check", "its report (SIGTERM)", ["check", str(data)], folder, AT_THE_CALL.format(
        module="accelerated_seg.check_command", name="_print_the_report", call=1, after=False, signum=term))
    folder = Path(tempfile.mkdtemp(dir=root))
    row("check", "its reading of the cases (Ctrl-C)", ["check", str(data)], folder, AT_THE_CALL.format(
        module="accelerated_seg.check_command", name="_read_as_training_reads", call=1, after=False, signum=intr))
    folder = Path(tempfile.mkdtemp(dir=root))
    row("cache", "its listing (SIGTERM)", ["cache"], folder, AT_THE_CALL.format(
        module="accelerated_seg.cache_command", name="_every_cached_dataset", call=1, after=False, signum=term))
    folder = Path(tempfile.mkdtemp(dir=root))
    row("cache", "a dataset's listing (SIGUSR1)", ["cache", str(data)], folder, AT_THE_CALL.format(
        module="accelerated_seg.cache_command", name="_cached_versions", call=1, after=False, signum=usr1))
    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec

    model = root / "model"
    spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
                 {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [4.0, 4.0, 4.0]}, model)
    bench = ["benchmark", "predict", "--model", str(model), "--cases", "2", "--size", "16", "16", "16", "--spacing",
             "4", "4", "4"]
    for window, code in (("its measurement (SIGTERM)", AT_THE_CALL.format(
            module="accelerated_seg.benchmark_predict", name="benchmark_predict", call=1, after=False, signum=term)),
            ("as its wrote line is said (Ctrl-C)", AT_THE_LINE.format(
                module="accelerated_seg.benchmark_command", start="wrote ", within="", signum=intr))):
        folder = Path(tempfile.mkdtemp(dir=root))
        row("benchmark predict --output", window, [*bench, "--output", str(folder / "predict.json")], folder, code)
    print(f"(folders under {root})")


if __name__ == "__main__":
    main()
