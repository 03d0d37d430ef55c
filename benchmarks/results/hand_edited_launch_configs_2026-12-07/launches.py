"""Real launches: `accelerate launch --config_file FILE examples/train.py` with a hand-edited profile or DeepSpeed
json, one process on the CPU, a training of 1 step on 4 tiny phantoms (the hundred-and-twenty-third session, h122).

    cd /tmp/wt_h122 && PYTHONPATH=/tmp/wt_h122 /work/main/.venv/bin/python \
        benchmarks/results/hand_edited_launch_configs_2026-12-07/launches.py \
        > benchmarks/results/hand_edited_launch_configs_2026-12-07/launches_<before|after>.txt 2>&1

(before: PYTHONPATH=/tmp/h122_main, a `git archive` of main's accelerated_seg, examples and tests)

Each line: the edit, the launch's status, its seconds, and the last line of its stderr that is our error line (or
torchrun's report of it), else the last that says an error (the launcher's traceback's last line where accelerate
refused the file before any code of ours ran), else "trained".
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import accelerated_seg
from accelerated_seg.data.synthetic import write_synthetic_dataset

ROOT = Path(accelerated_seg.__file__).resolve().parents[1]  # the checkout PYTHONPATH names: its examples/train.py
ACCELERATE = Path(sys.executable).with_name("accelerate")
CPU = ("compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nuse_cpu: true\nnum_machines: 1\nnum_processes: 1\n"
       "machine_rank: 0\nmixed_precision: 'no'\nmain_training_function: main\n")
CPU_JSON = ('{\n  "compute_environment": "LOCAL_MACHINE",\n  "distributed_type": "NO",\n  "use_cpu": true,\n'
            '  "num_processes": 1,\n  "mixed_precision": "no",\n}\n')  # a trailing comma
DEEPSPEED = ("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 1\n"
             "machine_rank: 0\ndeepspeed_config:\n  deepspeed_config_file: {json}\nmain_training_function: main\n")
DS_JSON = '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}\n'
LAUNCHES = {  # name: (profile's file name, its bytes, the DeepSpeed json's bytes or None)
    "profile.yaml with a BOM": ("p.yaml", b"\xef\xbb\xbf" + CPU.encode(), None),
    "profile.yaml in UTF-16": ("p.yaml", CPU.encode("utf-16"), None),
    "profile.yaml with a Latin-1 comment": ("p.yaml", ("# r\xe9glages\n" + CPU).encode("latin-1"), None),
    "profile.yaml with mixed_precision twice": ("p.yaml", CPU.replace("mixed_precision: 'no'", "mixed_precision: "
                                                                      "bf16\nmixed_precision: 'no'").encode(), None),
    "profile.json with a BOM": ("p.json", b"\xef\xbb\xbf" + CPU_JSON.replace(",\n}", "\n}").encode(), None),
    "profile.json with a trailing comma": ("p.json", CPU_JSON.encode(), None),
    "ds.json with a BOM": ("p.yaml", None, b"\xef\xbb\xbf" + DS_JSON.encode()),
    "ds.json in UTF-16": ("p.yaml", None, DS_JSON.encode("utf-16")),
    "ds.json with stage twice": ("p.yaml", None, DS_JSON.replace('"stage": 2', '"stage": 2, "stage": 3').encode()),
}

with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    data = write_synthetic_dataset(tmp / "data", num_cases=4, num_validation=1, seed=0, size_mm=(32.0, 32.0, 32.0),
                                   spacing_mm=2.0)
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    for number, (name, (file_name, profile_bytes, json_bytes)) in enumerate(LAUNCHES.items()):
        folder = tmp / f"launch_{number}"
        folder.mkdir()
        profile = folder / file_name
        if json_bytes is not None:
            (folder / "ds.json").write_bytes(json_bytes)
            profile_bytes = DEEPSPEED.format(json=folder / "ds.json").encode()
        profile.write_bytes(profile_bytes)
        command = [str(ACCELERATE), "launch", "--config_file", str(profile), str(ROOT / "examples" / "train.py"),
                   "--no-report", f"--data.dataset={data}", f"--data.cache_dir={tmp / 'cache'}",
                   "--data.patch_size=[16,16,16]", "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=0",
                   "--model.args={channels: [4, 8], strides: [2], num_res_units: 1}", "--train.max_steps=1",
                   "--train.val_every=0", "--train.save_every=0", "--train.progress_bar=false",
                   "--train.trackers=none", f"--train.output_dir={folder / 'run'}"]
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=folder, timeout=600)
        lines = [line for line in done.stderr.splitlines() if "rror" in line]
        ours = [line for line in lines if "error: " in line]  # our one line, or torchrun's report of it
        lines = ours or [line for line in lines if "CalledProcessError" not in line] or lines
        print(f"{name}: rc={done.returncode} {time.monotonic() - start:.1f} s: "
              f"{lines[-1].strip() if lines else 'trained' if done.returncode == 0 else done.stderr[-300:]}")
