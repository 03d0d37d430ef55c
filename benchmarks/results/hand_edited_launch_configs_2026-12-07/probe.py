"""An accelerate config file (YAML and .json) and a DeepSpeed json edited by hand and saved otherwise: what each path
that reads them says (the hundred-and-twenty-third session, helper h122).

    cd /tmp/wt_h122 && PYTHONPATH=/tmp/wt_h122 /work/main/.venv/bin/python \
        benchmarks/results/hand_edited_launch_configs_2026-12-07/probe.py \
        > benchmarks/results/hand_edited_launch_configs_2026-12-07/<before|after>.txt 2>&1

Paths, for each edit of each file:
  accelerate  accelerate's own reading of the file: `load_config_from_file` (what `accelerate launch --config_file`
              does before any code of ours runs) for a profile; `HfDeepSpeedConfig` (what the Accelerator's DeepSpeed
              plugin does in each rank) for a DeepSpeed json
  plan        `accelerated-seg plan --accelerate-config FILE` (a profile naming the DeepSpeed json, for the json)
  ranks       `strategy.construction_error()` as a launched rank calls it before the Accelerator is built
              (train, examples/train.py, fit and benchmark train alike: preparation.make_accelerator), the launched
              profile being FILE (launched_profile.launched_config_file), the launch's variables set as accelerate
              launch exports them
`check` reads no accelerate config or DeepSpeed json (grep: no reader of either in cli.check or checks.py); the
estimator's fit reads them only through make_accelerator, as the ranks here. Real launches: launches.py.
"""
import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

from accelerated_seg import launched_profile, strategy
from accelerated_seg.cli import main

PROFILE = """\
# A hand-edited profile: one process on the CPU
compute_environment: LOCAL_MACHINE
distributed_type: 'NO'
use_cpu: true
num_machines: 1
num_processes: 1
machine_rank: 0
mixed_precision: 'no'
dynamo_config:
  dynamo_backend: 'NO'
main_training_function: main
"""
PROFILE_JSON = json.dumps({"compute_environment": "LOCAL_MACHINE", "distributed_type": "NO", "use_cpu": True,
                           "num_machines": 1, "num_processes": 1, "machine_rank": 0, "mixed_precision": "no",
                           "main_training_function": "main"}, indent=2) + "\n"
DEEPSPEED = json.dumps({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "none"}},
                        "bf16": {"enabled": False}, "gradient_clipping": 1.0}, indent=2) + "\n"

BINARY = b"PK\x03\x04\x14\x00\x00\x00\x08\x00"  # a zip's header: a profile "saved" as an archive
YAML_EDITS = {
    "as_written": lambda t: t.encode(),
    "bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "utf16_bom": lambda t: t.encode("utf-16"),
    "utf16_no_bom": lambda t: t.encode("utf-16-le"),
    "latin1_comment": lambda t: t.replace("one process", "un processus, réglé", 1).encode("latin-1"),
    "binary": lambda t: BINARY + t.encode()[:40],
    "tab_indent": lambda t: t.replace("  dynamo_backend", "\tdynamo_backend").encode(),
    "bad_indent": lambda t: t.replace("  dynamo_backend: 'NO'\n", "  dynamo_backend: 'NO'\n dynamo_mode: default\n"
                                      ).encode(),
    "section_key_at_top": lambda t: t.replace("  dynamo_backend: 'NO'\n", "  dynamo_backend: 'NO'\ndynamo_mode: "
                                                                         "default\n").encode(),
    "flow_cut_short": lambda t: t.replace("dynamo_config:\n  dynamo_backend: 'NO'\nmain_training_function: main\n",
                                          "dynamo_config: {dynamo_backend: 'NO'").encode(),
    "cut_mid_line": lambda t: t.encode()[:t.index("num_processes") + 7],
    "cut_at_line_end": lambda t: t.encode()[:t.index("mixed_precision")],
    "key_twice": lambda t: t.replace("mixed_precision: 'no'\n", "mixed_precision: bf16\n").replace(
        "main_training_function", "mixed_precision: 'no'\nmain_training_function").encode(),
}
JSON_EDITS = {
    "as_written": lambda t: t.encode(),
    "bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "utf16_bom": lambda t: t.encode("utf-16"),
    "utf16_no_bom": lambda t: t.encode("utf-16-le"),
    "latin1_path": lambda t: t.replace('"none"', '"/donn\xe9es/nvme"', 1).replace('"main"', '"entra\xeener"'
                                                                                   ).encode("latin-1"),
    "binary": lambda t: BINARY + t.encode()[:40],
    "trailing_comma": lambda t: (t.rstrip()[:-1].rstrip() + ",\n}\n").encode(),
    "cut_short": lambda t: t.encode()[:len(t) // 2],
    "missing_comma": lambda t: t.replace(",\n", "\n", 1).encode(),
    "key_twice": lambda t: (t.replace('"stage": 2,', '"stage": 2, "stage": 3,') if '"stage"' in t else
                            t.replace('"mixed_precision": "no",', '"mixed_precision": "bf16", "mixed_precision": "no",')
                            ).encode(),
}


def said(call):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = call()
        if isinstance(result, int):
            lines = [line for line in out.getvalue().splitlines() if line.startswith("error")]
            return f"rc={result} " + (" | ".join(lines) if lines else "(no error line)")
        return "None (nothing said)" if result is None else f"read ({type(result).__name__})" if not isinstance(
            result, str) else f"said: {result}"
    except SystemExit as e:
        return f"exit {e.code}: " + out.getvalue().strip().splitlines()[-1] if out.getvalue().strip() else ""
    except Exception as e:  # noqa: BLE001 - the probe reports whatever comes
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"{type(e).__name__}: {first}"


def launch_variables(**set_):
    for name in [name for name in os.environ if name.startswith("ACCELERATE_")]:
        del os.environ[name]
    os.environ.update(set_)


def accelerate_reads_profile(path):
    from accelerate.commands.config.config_args import load_config_from_file
    return load_config_from_file(str(path))


def accelerate_reads_deepspeed_json(path):
    from accelerate.utils.deepspeed import HfDeepSpeedConfig
    return HfDeepSpeedConfig(str(path))


def plan(path):
    return main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(path)])


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    for kind, base, edits in (("profile.yaml", PROFILE, YAML_EDITS), ("profile.json", PROFILE_JSON, JSON_EDITS)):
        for edit, make in edits.items():
            if edit == "latin1_path":
                edit = "latin1_value"
            path = tmp / edit / kind
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(make(base))
            print(f"=== {kind} {edit}")
            print("  accelerate:", said(lambda: accelerate_reads_profile(path)))
            print("  plan      :", said(lambda: plan(path)))
            launch_variables(ACCELERATE_MIXED_PRECISION="no", ACCELERATE_USE_CPU="true")
            launched_profile.launched_config_file = lambda: path
            print("  ranks     :", said(strategy.construction_error))
    for edit, make in JSON_EDITS.items():
        path = tmp / f"ds_{edit}" / "ds.json"
        path.parent.mkdir()
        path.write_bytes(make(DEEPSPEED))
        profile = path.parent / "deepspeed.yaml"
        profile.write_text(f"compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 1\n"
                           f"num_processes: 2\nmachine_rank: 0\ndeepspeed_config:\n  deepspeed_config_file: {path}\n"
                           f"main_training_function: main\n")
        print(f"=== ds.json {edit}")
        print("  accelerate:", said(lambda: accelerate_reads_deepspeed_json(path)))
        print("  plan      :", said(lambda: plan(profile)))
        launch_variables(ACCELERATE_MIXED_PRECISION="no", ACCELERATE_USE_DEEPSPEED="true",
                         ACCELERATE_DEEPSPEED_CONFIG_FILE=str(path), ACCELERATE_CONFIG_DS_FIELDS="deepspeed_config_file")
        launched_profile.launched_config_file = lambda: profile
        print("  ranks     :", said(strategy.construction_error))
