"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 ACCELERATE_USE_CPU=true timeout 240 \
    /work/main/.venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no --main_process_port 29661 \
    benchmarks/results/channel_order_review_r115_2026-12-07/launched_command_one_refuses.py <folder made by
    launched_one_refuses.py> \
    > benchmarks/results/channel_order_review_r115_2026-12-07/launched_command_one_refuses_main.txt 2>&1
Review r115: `accelerated-seg predict --model model Task/imagesTs --output out` under a launch of 2 processes whose
process 1 alone reads Task/dataset.json as another order (MRI1, MRI0; the main process MRI0, MRI1, the model's): the
command compares before its imports, each process alone (predict_command._check_outputs_before_the_imports)."""
import os
import sys
import time
from pathlib import Path

import accelerated_seg.inference_inputs as inference_inputs
from accelerated_seg.cli import main

root = Path(sys.argv[1]).absolute()
if os.environ.get("RANK") == "1":
    inference_inputs._channels_declared_in = lambda declaration: {0: "MRI1", 1: "MRI0"}  # main's reader
    _declared = inference_inputs._declared_channels  # the worktree's (review r115: no _channels_declared_in)
    inference_inputs._declared_channels = lambda folder, read: (None if _declared(folder, read) is None
                                                                 else {0: "MRI1", 1: "MRI0"})
start = time.monotonic()
try:
    status = main(["predict", "--model", str(root / "model"), str(root / "Task" / "imagesTs"), "--output",
                   str(root / "out_command")])
finally:
    print(f"PROBE rank {os.environ.get('RANK')} after {time.monotonic() - start:.1f} s", flush=True)
sys.exit(status)
