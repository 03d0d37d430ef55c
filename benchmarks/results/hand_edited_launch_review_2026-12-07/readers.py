"""`accelerated-seg plan --accelerate-config FILE` (and accelerate's own reading of FILE) for the review's edits of a
profile and a DeepSpeed json (review r109, the hundred-and-twenty-third session):

    cd /tmp/wt_r109 && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
        benchmarks/results/hand_edited_launch_review_2026-12-07/readers.py \
        > benchmarks/results/hand_edited_launch_review_2026-12-07/readers_<at_main|after>.txt 2>&1

(at main: PYTHONPATH=/tmp/r109_main, a `git archive` of main 6deb21cf; after: PYTHONPATH=/tmp/wt_r109)
Each edit: what accelerate's load_config_from_file makes of the profile (the launcher's reading), then plan's last line.
"""
import contextlib
import io
import tempfile
from pathlib import Path

from accelerate.commands.config.config_args import load_config_from_file

from accelerated_seg.cli import main

DDP = Path(__file__).resolve().parents[3] / "configs" / "accelerate" / "ddp.yaml"
PROFILE = DDP.read_text()
DEEPSPEED = ("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 2\n"
             "machine_rank: 0\nmixed_precision: bf16\ndeepspeed_config:\n  deepspeed_config_file: {json}\n")
DS_JSON = ('{{\n  "zero_optimization": {{\n    "stage": 2,\n{inner}    "contiguous_gradients": true\n  }},\n'
           '  "bf16": {{"enabled": true}}\n}}\n')
EDITS = {  # name: (profile text, DeepSpeed json text or None)
    "yaml: dynamo_mode slipped out of dynamo_config": (
        PROFILE + "dynamo_config:\n  dynamo_backend: INDUCTOR\ndynamo_mode: max-autotune\n", None),
    "yaml: fsdp_offload_params slipped out of fsdp_config": (
        PROFILE.replace("MULTI_GPU", "FSDP") + "fsdp_config:\n  fsdp_version: 2\nfsdp_offload_params: true\n", None),
    "yaml: zero_stage slipped out of deepspeed_config": (
        PROFILE.replace("MULTI_GPU", "DEEPSPEED") + "deepspeed_config:\n  offload_optimizer_device: none\n"
                                                    "zero_stage: 3\n", None),
    "yaml: mixed_precision bf16 twice (alike)": (PROFILE.replace("mixed_precision: bf16",
                                                                 "mixed_precision: bf16\nmixed_precision: bf16"), None),
    "yaml: cut at the end of the line before mixed_precision": (PROFILE.split("\nmixed_precision")[0] + "\n", None),
    "yaml: cut at the end of the line before distributed_type": (PROFILE.split("\ndistributed_type")[0] + "\n", None),
    "ds json: stage twice, on lines of their own": (DEEPSPEED, DS_JSON.format(inner='    "stage": 3,\n')),
    "ds json: device twice in offload_optimizer": (
        DEEPSPEED, DS_JSON.format(inner='    "offload_optimizer": {"device": "cpu", "device": "none"},\n')),
    "ds json: a key twice in a list's object": (DEEPSPEED, DS_JSON.format(inner='    "x": [{"a": 1, "a": 2}],\n')),
}

with tempfile.TemporaryDirectory() as tmp:
    for number, (name, (profile_text, json_text)) in enumerate(EDITS.items()):
        profile = Path(tmp) / f"p{number}.yaml"
        if json_text is not None:
            (Path(tmp) / f"ds{number}.json").write_text(json_text)
            profile_text = profile_text.format(json=Path(tmp) / f"ds{number}.json")
        profile.write_text(profile_text)
        try:
            read = load_config_from_file(str(profile))
            launch = f"read: distributed_type {read.distributed_type}, mixed_precision {read.mixed_precision}"
        except Exception as error:  # noqa: BLE001 - the launcher's traceback, its last line
            launch = f"refused: {type(error).__name__}: {str(error).splitlines()[0][:150]}"
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(profile)])
        said = (err.getvalue().strip() or out.getvalue().strip()).splitlines()
        print(f"{name}\n    accelerate launch's reading: {launch.replace(tmp, '<tmp>')}\n    plan (status {status}): "
              f"{said[-1].replace(tmp, '<tmp>') if said else ''}")
        if status == 0:
            print("    plan's first line: " + said[0].replace(tmp, "<tmp>"))
