"""Is a SIGINT to a launched predict's main process held while it waits, its share written, in the gather of the
cases' failures? (hundred-and-seventh session)

Under --split cases each process segments its own cases and then every process gathers their failures
(``_segmented_on_every_process``): the main process, its share written, waits there for the others, before the last
wait that last_wait.py makes interruptible. Two CPU processes, four scans; process 1 sleeps 300 s in its second
case's network (tests/one_rank_bug_predict.py, ONE_RANK_ERROR=slow). Once the main process has written its two,
it is sent SIGINT twice, 1 s apart, to it alone; printed: whether the launch ended within 20 s of the second, and
what it said. Run from the repository root:

    PYTHONPATH=.:tests .venv/bin/python benchmarks/results/last_wait_second_ctrl_c/sigint_in_the_gather_of_failures.py \
        > benchmarks/results/last_wait_second_ctrl_c/sigint_in_the_gather_of_failures.txt 2>&1

sigint_in_the_gather_of_failures_before.txt: run before the wait for every process that now comes before that gather
(``wait_for_every_process``, in Python's steps), with last_wait.py in place: both SIGINTs held, nothing said.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

TESTS = Path(__file__).resolve().parents[3] / "tests"


def launched(launcher: int) -> dict[int, int]:
    """The pids of the launched processes (the launcher's children, each in a session of its own), by RANK."""
    pids = {}
    for child in Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split():
        environment = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
        pids.update({int(item[5:]): int(child) for item in environment if item.startswith(b"RANK=")})
    return pids


root = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1,
                                       "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
write_synthetic_dataset(root / "data", num_cases=4, num_validation=0, seed=1, size_mm=(40.0, 40.0, 32.0),
                        spacing_mm=2.0)
scans = []
for number, path in enumerate(sorted((root / "data" / "imagesTr").glob("*.nii.gz"))):
    scans.append(str(shutil.copy(path, root / f"small_{number}.nii.gz")))
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_ERROR": "slow",
       "ONE_RANK_STAGE": "case_prediction", "ONE_RANK_STARTED": str(root / "sleeping")}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
       "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "29651",
       str(TESTS / "one_rank_bug_predict.py"), "predict", "--model", str(root / "model"), *scans, "--output",
       str(root / "out"), "--split", "cases"]
with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                      start_new_session=True) as launch:
    while not (root / "sleeping").exists() and launch.poll() is None:
        time.sleep(0.1)
    time.sleep(2.0)  # the main process into the gather
    processes = launched(launch.pid)
    os.kill(processes[0], signal.SIGINT)
    first, killed = time.monotonic(), False
    try:
        stdout, stderr = launch.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:
        os.kill(processes[0], signal.SIGINT)
        try:
            stdout, stderr = launch.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            print("still running 20 s after the second SIGINT (process 1 sleeps 300 s); stopped by SIGKILL")
            for pid in processes.values():  # each in its own session: the launcher's group is not theirs
                os.kill(pid, signal.SIGKILL)
            os.killpg(launch.pid, signal.SIGKILL)
            stdout, stderr, killed = *launch.communicate(), True
    if not killed:
        print(f"ended {time.monotonic() - first:.2f} s after the first SIGINT, status {launch.returncode}")
print("lines said:", [line for line in stderr.splitlines() if line.startswith(("interrupt", "predict", "error"))])
print("output folder:", sorted(path.name for path in (root / "out").iterdir()))
shutil.rmtree(root)
