"""Command: cd <checkout> && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    benchmarks/results/stop_lines_2026-12-07/benchmark_rows.py > benchmarks/results/stop_lines_2026-12-07/benchmark_rows_<before|after>.txt
Helper h114: stop_lines.py's rows for benchmark infer and benchmark data (tiny sizes), run as that probe runs its
rows (stop_lines.row). For infer's results so far, its measurement is stood in for by one that hands the command a
first device's results (ONE_DEVICE_KEPT_THEN_SIGINT): a CPU-only machine measures one device."""
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stop_lines import AT_THE_CALL, AT_THE_LINE, row  # noqa: E402

#: benchmark_infer stood in for by one that hands the command a first device's results so far (which it writes as
#: after a real device), then sends SIGINT: a CPU-only machine measures one device, and the command refuses it twice.
ONE_DEVICE_KEPT_THEN_SIGINT = """
import os, signal
import accelerated_seg.benchmark as benchmark
def one_device_kept_then_stopped(*args, on_measured=None, **kwargs):
    on_measured({"devices": {"cpu": {"ratio_ours_to_monai": 1.0}}, "complete": False})
    os.kill(os.getpid(), signal.SIGINT)
    raise AssertionError("not stopped")
benchmark.benchmark_infer = one_device_kept_then_stopped
"""

root = Path(tempfile.mkdtemp(prefix="benchmark_rows_"))
term, intr = int(signal.SIGTERM), int(signal.SIGINT)
infer = ["benchmark", "infer", "--size", "32", "32", "32", "--roi", "16", "--blocks", "1", "--sw-batch-size", "1"]
print("| command | window | status | last line on stderr | files made or replaced |")
print("|---|---|---|---|---|")
for window, devices, code in (
        ("its measurement (SIGTERM)", ["cpu"], AT_THE_CALL.format(
            module="accelerated_seg.benchmark", name="benchmark_infer", call=1, after=False, signum=term)),
        ("a device measured and kept, then (Ctrl-C)", ["cpu"], ONE_DEVICE_KEPT_THEN_SIGINT),
        ("as its wrote line is said (Ctrl-C)", ["cpu"], AT_THE_LINE.format(
            module="accelerated_seg.benchmark_command", start="wrote ", within="", signum=intr))):
    folder = Path(tempfile.mkdtemp(dir=root))
    row("benchmark infer --output", window, [*infer, "--device", *devices, "--output", str(folder / "infer.json")],
        folder, code)
data = ["benchmark", "data", "--cases", "4", "--size-mm", "64", "64", "64", "--spacing-mm", "4", "--patch", "8",
        "--workers", "0", "--batch", "1", "--batches", "1", "--blocks", "1"]
for window, code in (("its measurement (SIGTERM)", AT_THE_CALL.format(
        module="accelerated_seg.benchmark", name="benchmark_data", call=1, after=False, signum=term)),
        ("as its wrote line is said (Ctrl-C)", AT_THE_LINE.format(
            module="accelerated_seg.benchmark_command", start="wrote ", within="", signum=intr))):
    folder = Path(tempfile.mkdtemp(dir=root))
    row("benchmark data --output", window, [*data, "--data-dir", str(folder / "d"), "--output",
                                            str(folder / "data.json")], folder, code)
# Without --output: a file of its own under benchmarks/results/ of the working directory (the row's folder)
folder = Path(tempfile.mkdtemp(dir=root))
row("benchmark infer", "a device measured and kept, then (Ctrl-C)", [*infer, "--device", "cpu"], folder,
    ONE_DEVICE_KEPT_THEN_SIGINT)
for window, code in (("its measurement (SIGTERM)", AT_THE_CALL.format(
        module="accelerated_seg.benchmark", name="benchmark_data", call=1, after=False, signum=term)),
        ("as its wrote line is said (Ctrl-C)", AT_THE_LINE.format(
            module="accelerated_seg.benchmark_command", start="wrote ", within="", signum=intr))):
    folder = Path(tempfile.mkdtemp(dir=root))
    row("benchmark data", window, [*data, "--data-dir", str(folder / "d")], folder, code)
print(f"(folders under {root})")
