"""What two Ctrl-Cs from a terminal do to a launched predict whose main process is in its last wait, while process 1
is stuck where SIGINT does not reach Python (hundred-and-seventh session).

A terminal's Ctrl-C reaches the launcher (``accelerate launch``, torch's agent; its processes run in a session of
their own), which hands SIGINT to every process. Process 1, responsive, would stop at the first (an interrupt in the
work stops every process); here it has SIGINT blocked and sleeps 60 s before its last wait, as a process stuck in a
C call (a hung collective, a file system) would. The launcher's process group is sent SIGINT twice, 1 s apart, as
a terminal sends Ctrl-C; printed: when the launch ended after the second, its status, the lines said, what is in
the output folder. Run from the repository root:

    PYTHONPATH=.:tests .venv/bin/python benchmarks/results/last_wait_second_ctrl_c/terminal_ctrl_c_twice.py \
        > benchmarks/results/last_wait_second_ctrl_c/terminal_ctrl_c_twice.txt 2>&1

terminal_ctrl_c_twice_before.txt: the same on the code before the change (main at c7e20b3a), process 1's lateness
and the main process's pid put in accelerate's ``PartialState.wait_for_everyone``, the last wait until then.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and len(sys.argv) > 1:  # a launched process
    import slow_process_in_the_last_wait_predict as worker

    from accelerated_seg.cli import end_process, main

    if os.environ.get("RANK") == "1":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    worker.slow_in_the_last_wait_on_process_1()
    end_process(main(sys.argv[1:]))


from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402

root = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1,
                                       "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
write_synthetic_dataset(root / "data", num_cases=2, num_validation=0, seed=1, size_mm=(40.0, 40.0, 32.0),
                        spacing_mm=2.0)
scans = sorted(str(path) for path in (root / "data" / "imagesTr").glob("*.nii.gz"))
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "LAST_WAIT_SLOW_S": "60",
       "LAST_WAIT_ENTERED": str(root / "waiting")}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
       "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "29641", __file__,
       "predict", "--model", str(root / "model"), *scans, "--output", str(root / "out")]
with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                      start_new_session=True) as launch:
    while not (root / "waiting").exists() and launch.poll() is None:
        time.sleep(0.1)
    for press in range(2):
        time.sleep(press * 1.0)
        os.killpg(launch.pid, signal.SIGINT)
    second = time.monotonic()
    try:
        stdout, stderr = launch.communicate(timeout=120)
    finally:
        if launch.poll() is None:
            os.killpg(launch.pid, signal.SIGKILL)
print(f"ended {time.monotonic() - second:.2f} s after the second SIGINT, status {launch.returncode}")
print("lines said:", [line for line in stderr.splitlines() if line.startswith(("interrupt", "predict", "error"))])
print("exit codes in the launcher's report:", [line.strip() for line in stderr.splitlines() if "exitcode" in line])
print("output folder:", sorted(path.name for path in (root / "out").iterdir()))
shutil.rmtree(root)
