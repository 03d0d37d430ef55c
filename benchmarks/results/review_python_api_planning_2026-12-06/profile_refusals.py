"""The four rows of planning.md's profile table that h99 paraphrased, as plan says them now.

cd /tmp/wt_r87 && PYTHONPATH=/tmp/wt_r87 /work/main/.venv/bin/python \
    benchmarks/results/review_python_api_planning_2026-12-06/profile_refusals.py > \
    benchmarks/results/review_python_api_planning_2026-12-06/profile_refusals.txt 2>&1
"""
import json
import tempfile
from pathlib import Path

from accelerated_seg.config import ConfigError
from accelerated_seg.plan_profile import read_launch_profile

folder = Path(tempfile.mkdtemp())
(folder / "ds.json").write_text(json.dumps({"zero_optimization": {"stage": 2}}))
(folder / "ds_nozero.json").write_text(json.dumps({"bf16": {"enabled": True}}))
profiles = {
    "parallelism tp 2": "distributed_type: MULTI_GPU\nparallelism_config: {parallelism_config_tp_size: 2}\n",
    "fsdp_sync_module_states false": "distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, "
                                     "fsdp_sync_module_states: false}\n",
    "dynamo_config beside dynamo_backend": "distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\n"
                                           "dynamo_config: {dynamo_backend: INDUCTOR, dynamo_mode: max-autotune}\n",
    "json without zero_optimization": f"distributed_type: DEEPSPEED\ndeepspeed_config: "
                                      f"{{deepspeed_config_file: {folder / 'ds_nozero.json'}}}\n",
    "json beside zero_stage": f"distributed_type: DEEPSPEED\ndeepspeed_config: "
                              f"{{deepspeed_config_file: {folder / 'ds.json'}, zero_stage: 2}}\n",
    "zero_stage 5 without a json": "distributed_type: DEEPSPEED\ndeepspeed_config: {zero_stage: 5}\n",
}
for what, text in profiles.items():
    path = folder / "launch.yaml"
    path.write_text(text)
    try:
        read_launch_profile(path)
        print(f"{what}: taken")
    except ConfigError as error:
        print(f"{what}: {str(error).replace(str(folder), '<tmp>')}")
