"""Where `accelerated-seg check --config` and `accelerated-seg plan --config` spend their start on a dataset
that is present, and whether importing torch._dynamo in a background thread shortens it.

    PYTHONPATH=. python benchmarks/check_plan_startup.py --rounds 5 \
        --output benchmarks/results/check_plan_startup_2cpu.json

The dataset: 8 phantoms (`accelerated-seg synth`) in a temporary folder, with configs/demo.yaml's
experiment pointed at them. Three parts, each command in fresh processes:

- `imports`: one run of each command under ``-X importtime`` with a meta-path hook that records the
  Python stack at the first import of torch._dynamo and of sympy: who asked for them, and their
  cumulative import times (``-X importtime``'s, a little above a plain run's).
- `networks`: for each registry network, which of the two its meta-device construction and its
  forward pass import (a process each), to see whether any network's meta pass does without them.
- `rounds`: each command as it is, and with a daemon thread importing torch._dynamo started before
  the command line runs, alternately; wall time (perf_counter around the child) and CPU time (user +
  system, RUSAGE_CHILDREN), and whether the two printed the same.

Found in the hundredth session (check_plan_startup_2cpu.json, run beside other work: 1-minute load
average 6-7 on the 2 cores, so its wall times spread widely): no safe cut. Every registry network's
meta pass imports sympy (a meta kernel's torch._check imports torch.fx.experimental.symbolic_shapes)
and torch._dynamo (a torch._refs decomposition wrapped in torch._disable_dynamo imports it at its
first call), in its construction or its forward pass; neither import has a torch setting, and check
and plan need that pass. The thread saves nothing measurable: the imports hold the GIL (CPU medians
of 5: check 8.29 s as it is against 9.02 s threaded, plan 9.27 s against 8.19 s).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.files import check_script_output

ROOT = Path(__file__).resolve().parents[1]
WATCHED = ("torch._dynamo", "sympy")
TIMED = ("torch", "monai", "torch._dynamo", "torch.fx.experimental.symbolic_shapes", "sympy")


def _child(mode: str, argv: list[str]) -> None:
    """Run in the measured process: the command line ``argv`` (or, for ``network``, one network's
    meta pass), after what ``mode`` adds."""
    if mode == "stack":
        _record_first_imports(os.environ["STARTUP_STACKS"])
    elif mode == "threaded":
        import importlib
        import threading

        threading.Thread(target=importlib.import_module, args=("torch._dynamo",), daemon=True).start()
    elif mode == "network":
        return _network_imports(argv[0])
    import runpy

    sys.argv = ["accelerated-seg", *argv]
    runpy.run_module("accelerated_seg.cli", run_name="__main__")


def _record_first_imports(path: str) -> None:
    """Append to ``path``, at the first import of each of WATCHED, the stack that asked for it (the
    package's frames and torch's, without importlib's)."""
    import traceback

    class Finder:
        def find_spec(self, name, _path=None, _target=None):
            if name in WATCHED and name not in sys.modules:
                frames = [f"{frame.filename.split('site-packages/')[-1].replace(str(ROOT) + '/', '')}:"
                          f"{frame.lineno} {frame.line}" for frame in traceback.extract_stack()
                          if "<frozen" not in frame.filename and frame.filename != __file__
                          and "runpy" not in frame.filename and "torch/nn/modules" not in frame.filename]
                with open(path, "a", encoding="utf-8") as out:
                    out.write(json.dumps({"module": name, "stack": frames}) + "\n")
            return None

    sys.meta_path.insert(0, Finder())


def _network_imports(name: str) -> None:
    """Print which of WATCHED the meta-device construction and the forward pass of ``name`` import."""
    import torch

    from accelerated_seg.models import meta_network, model_spec

    def loaded():
        return {module for module in WATCHED if module in sys.modules}

    spec = model_spec(name, 1, 3, (64, 64, 64), {})
    before = loaded()
    network = meta_network(spec).train()
    built = loaded()
    network(torch.empty(2, 1, 64, 64, 64, device="meta"))
    print(json.dumps({"construction": sorted(built - before), "forward": sorted(loaded() - built)}))


def _run(mode: str, argv: list[str], env: dict, importtime: bool = False) -> dict:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *(["-X", "importtime"] if importtime else []), __file__, "--child",
                           mode, "--", *argv], capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime
    return {"rc": done.returncode, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "stdout": done.stdout,
            "stderr": done.stderr}


def _imports(argv: list[str], env: dict, folder: Path) -> dict:
    stacks = folder / f"stacks_{argv[0]}.jsonl"
    done = _run("stack", argv, env | {"STARTUP_STACKS": str(stacks)}, importtime=True)
    cumulative = {}
    for line in done["stderr"].splitlines():  # "import time: self | cumulative | name", the first of each
        if (found := re.match(r"import time:\s+\d+ \|\s+(\d+) \| *(\S+)$", line)) and found[2] in TIMED:
            cumulative.setdefault(found[2], round(int(found[1]) / 1e6, 3))
    first = [json.loads(line) for line in stacks.read_text().splitlines()] if stacks.exists() else []
    return {"rc": done["rc"], "importtime_cumulative_s": cumulative, "first_imports": first}


def _summary(runs: list[dict]) -> dict:
    return {key: {"runs": [run[key] for run in runs], "median": round(statistics.median(run[key] for run in runs), 3)}
            for key in ("wall_s", "cpu_s")} | {"rc": sorted({run["rc"] for run in runs})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="runs of each command in each variant")
    parser.add_argument("--output", help="the result's file (default: a new file under benchmarks/results/)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("argv", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child, args.argv)
    check_script_output(parser, args.output, result_key="benchmark", kind="check_plan_startup")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "synth", str(folder / "data"), "--cases", "8",
                        "--validation", "2"], env=env, cwd=ROOT, check=True, capture_output=True)
        config = (ROOT / "configs" / "demo.yaml").read_text().replace(
            "dataset: synthetic", f"dataset: {folder / 'data' / 'dataset.json'}").replace(
            "output_dir: output/demo", f"output_dir: {folder / 'run'}")
        (folder / "experiment.yaml").write_text(config)
        commands = {name: [name, "--config", str(folder / "experiment.yaml")] for name in ("check", "plan")}
        imports = {name: _imports(argv, env, folder) for name, argv in commands.items()}
        print(json.dumps(imports, indent=1), flush=True)
        from accelerated_seg.models import MODELS

        networks = {}
        for name in MODELS:
            done = _run("network", [name], env)
            networks[name] = json.loads(done["stdout"]) if done["rc"] == 0 else {"error": done["stderr"][-500:]}
            print(name, networks[name], flush=True)
        rounds = {name: {"as_is": [], "threaded": []} for name in commands}
        for index in range(args.rounds):
            for name, argv in commands.items():
                order = ("as_is", "threaded") if index % 2 == 0 else ("threaded", "as_is")
                for variant in order:
                    rounds[name][variant].append(_run(variant if variant == "threaded" else "plain", argv, env))
                    print(name, variant, {k: rounds[name][variant][-1][k] for k in ("rc", "wall_s", "cpu_s")},
                          flush=True)
    result = {"what": __doc__.split("\n\n")[0].replace("\n", " "), "dataset": "8 phantoms (synth), configs/demo.yaml",
              "imports": imports, "networks": networks,
              "rounds": {name: {variant: _summary(runs) for variant, runs in variants.items()}
                         | {"same_output": len({run["stdout"] for runs in variants.values() for run in runs}) == 1}
                         for name, variants in rounds.items()}}
    print(f"wrote {write_result('check_plan_startup', result, args.output, command=script_command())}")


if __name__ == "__main__":
    main()
