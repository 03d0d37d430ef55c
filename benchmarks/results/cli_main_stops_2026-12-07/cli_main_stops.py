"""What ``accelerated_seg.cli.main([...])``, called from Python, does when a command is stopped: for each command, each
window (its first import, its work, its last line) and each signal, whether it returned the stop's status, raised
SystemExit with it, or something else (the process killed, another exception), with the stop lines said (how many)
and whether SIGTERM's, SIGUSR1's and SIGINT's handlers were as found after.

Run (PROBE_CODE=/work/main for the code before the fix; 2 CPU cores, about 6 minutes):
    cd /tmp/wt_h111 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/cli_main_stops_2026-12-07/cli_main_stops.py [COMMAND ...] \
        > benchmarks/results/cli_main_stops_2026-12-07/cli_main_stops_after.txt

Each case runs in a process of its own that calls ``cli.main(ARGV)`` (with Python's default handlers, as a notebook or
script has them) and sends itself the signal:
- ``import``: as the first module the command imports is found (its lazy imports; those of the parsing, before the
  command's handling of signals is in, done before);
- ``work``: as a function of its work is called (tests/terminated_mid_work.py's for synth, evaluate, export; the ones
  named in ``WORK`` for the rest: as the checks, the listing, the plan's measure, the
  benchmark, the cases or the training loop begin);
- ``last line``: as its last print (counted in a run without a signal) is called, before it prints.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CODE = Path(os.environ.get("PROBE_CODE", ROOT))
SIGNALS = {"SIGINT": 2, "SIGTERM": 15, "SIGUSR1": 10}

CHILD = r"""
import builtins, json, os, signal, sys
sys.path.insert(0, {tests!r})
window, signum, argv, prints = {window!r}, {signum}, {argv!r}, {prints}
found = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)]
from accelerated_seg import cli
cli.build_parser(), cli._setting_overrides([])  # the parsing's own imports, before the command's handling is in
if window == "import":
    class SignalAtTheFirstImport:
        def find_spec(self, name, path=None, target=None):
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signum)
            return None
    sys.meta_path.insert(0, SignalAtTheFirstImport())
elif window == "work":
{work}
printed, real_print = [0], builtins.print
def counting_print(*args, **kwargs):
    if kwargs.get("file") in (None, sys.stdout):
        printed[0] += 1
        if window == "last line" and printed[0] == prints:
            os.kill(os.getpid(), signum)
    return real_print(*args, **kwargs)
builtins.print = counting_print
try:
    outcome = "returned %s" % cli.main(argv)
except SystemExit as stop:
    outcome = "raised SystemExit(%s)" % stop.code
except BaseException as error:
    outcome = "other: raised %s" % type(error).__name__
as_found = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)] == found
real_print("PROBE " + json.dumps([outcome, as_found, printed[0]]), file=sys.__stdout__, flush=True)
"""

#: The work window of the commands tests/terminated_mid_work.py has none for: a function patched in the child.
WORK = {
    "check": "import accelerated_seg.check_command as m\n    m._read_as_training_reads = "
             "terminated_at_call(1, m._read_as_training_reads)",
    "cache": "import accelerated_seg.data.manifest as m\n    m.load_manifest = terminated_at_call(1, m.load_manifest)",
    "plan": "import accelerated_seg.plan as m\n    m.measure_model = terminated_at_call(1, m.measure_model)",
    "benchmark": "import accelerated_seg.benchmark as m\n    m.benchmark_infer = "
                 "terminated_at_call(1, m.benchmark_infer)",
    "predict": "import accelerated_seg.inference_cases as m\n    m.predict_cases = "
               "terminated_at_call(1, m.predict_cases)",
    "train": "import accelerated_seg.train as m\n    m.run_loop = terminated_at_call(1, m.run_loop)",
}
FROM_TERMINATED_MID_WORK = {"synth": "synth_terminated_as_the_third_file_is_written",
                            "evaluate": "evaluate_terminated_as_the_second_map_is_read",
                            "export": "export_terminated_once_the_weights_are_written"}


def work_hook(command: str, signum: int) -> str:
    lines = [f"os.environ['TERMINATED_MID_WORK_BY'] = {signal_name(signum)!r}",
             "from terminated_mid_work import terminated_at_call"]
    if command in FROM_TERMINATED_MID_WORK:
        lines += [f"import terminated_mid_work; terminated_mid_work.{FROM_TERMINATED_MID_WORK[command]}()"]
    else:
        lines += WORK[command].split("\n    ")
    return "\n".join("    " + line for line in lines)


def signal_name(signum: int) -> str:
    return next(name for name, number in SIGNALS.items() if number == signum)


def fixtures(tmp: Path) -> dict:
    """A tiny dataset, a random-weight export and its scans, and a one-step training run to export."""
    sys.path.insert(0, str(CODE))
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import tiny_overrides

    from accelerated_seg.config import load_config
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from accelerated_seg.exported_model import write_export
    from accelerated_seg.models import build_from_spec, model_spec
    from accelerated_seg.train import train

    dataset = write_synthetic_dataset(tmp / "data", num_cases=5, num_validation=1, seed=0, size_mm=(40.0, 40.0, 32.0),
                                      spacing_mm=2.0)
    model = tmp / "model"
    spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
                 {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [4.0, 4.0, 4.0]}, model)
    scans = write_synthetic_dataset(tmp / "scans", num_cases=2, num_validation=0, size_mm=(16.0, 16.0, 16.0),
                                    spacing_mm=4.0).parent / "imagesTr"
    shutil.copytree(Path(dataset).parent / "labelsTr", tmp / "predictions")  # evaluate refuses one folder twice
    run = tmp / "run"
    train(load_config(None, tiny_overrides(dataset, run, train__max_steps=1, train__val_every=0)))
    return {"dataset": dataset, "model": model, "scans": scans, "run": run,
            "train": tiny_overrides(dataset, tmp / "train_run", train__max_steps=2, train__val_every=0)}


def argv(command: str, made: dict, out: Path) -> list[str]:
    labels, predictions = str(Path(made["dataset"]).parent / "labelsTr"), str(Path(made["run"]).parent / "predictions")
    return {"synth": ["synth", str(out), "--cases", "2", "--validation", "1"],
            "check": ["check", str(made["dataset"])],
            "cache": ["cache", str(made["dataset"])],
            "evaluate": ["evaluate", predictions, labels, "--labels", str(made["dataset"]), "--output", str(out)],
            "export": ["export", str(made["run"]), "--output", str(out)],
            "plan": ["plan", "--model", "unet", "--patch", "32", "32", "32", "--batch", "1"],
            "benchmark": ["benchmark", "infer", "--size", "16", "16", "16", "--roi", "16", "--volumes", "1",
                          "--blocks", "1", "--device", "cpu", "--output", str(out) + ".json"],
            "predict": ["predict", "--model", str(made["model"]), str(made["scans"]), "--output", str(out)],
            "train": ["train", *made["train"], f"--train.output_dir={out}"]}[command]  # a run of its own each


def run_case(command: str, window: str, signum: int, made: dict, out: Path, prints: int) -> dict:
    code = CHILD.format(tests=str(ROOT / "tests"), window=window, signum=signum, argv=argv(command, made, out),
                        prints=prints, work=work_hook(command, signum) if signum else "    pass")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CODE), str(ROOT / "tests")]), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env,
                          cwd=out.parent)
    probe = [line for line in done.stdout.splitlines() if line.startswith("PROBE ")]
    said = [line for line in done.stderr.splitlines()
            if any(word in line for word in ("interrupted", "stopped by", "preempted", "before it began"))]
    said += [line for line in done.stdout.splitlines() if "preempted" in line or "interrupted" in line]
    if probe:
        outcome, as_found, printed = json.loads(probe[0][6:])
    else:
        outcome, as_found, printed = f"other: process ended {done.returncode}", None, None
    traceback = "Traceback" in done.stderr
    return {"outcome": outcome, "handlers as found": as_found, "printed": printed, "said": said,
            "traceback": traceback, "stderr_tail": done.stderr.strip().splitlines()[-3:]}


def main(commands: list[str]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="cli_main_stops_"))
    made = fixtures(tmp)
    print(f"code: {CODE}; python {sys.version.split()[0]}")
    print("command | window | signal | outcome | handlers as found | stop lines said (count) | traceback")
    for command in commands:
        out = tmp / f"{command}_clean"
        clean = run_case(command, "none", 0, made, out, 0)
        prints = clean["printed"] or 0
        print(f"{command} | no signal | - | {clean['outcome']} | {clean['handlers as found']} | {prints} prints |"
              f" {clean['traceback']}", flush=True)
        for window in ("import", "work", "last line"):
            if window == "last line" and not prints:
                continue
            for name in ("SIGINT", "SIGTERM", "SIGUSR1"):
                out = tmp / f"{command}_{window.replace(' ', '_')}_{name}"
                got = run_case(command, window, SIGNALS[name], made, out, prints)
                said = "; ".join(got["said"]) or "nothing"
                print(f"{command} | {window} | {name} | {got['outcome']} | {got['handlers as found']} | "
                      f"({len(got['said'])}) {said} | {got['traceback']}", flush=True)
                if got["traceback"] or got["outcome"].startswith("other"):
                    print(f"    stderr: {got['stderr_tail']}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["synth", "check", "cache", "evaluate", "export", "plan", "benchmark", "predict", "train"])
