"""Is `plan`'s measured forward/backward peak a lower bound of a training step's memory on the CPU?

    PYTHONPATH=. python benchmarks/plan_cpu_peak.py            # writes benchmarks/results/plan_cpu_peak_2cpu.json

`train` refuses a CPU run whose step cannot fit in the machine's memory (cpu_step_fit.check_step_fits_host_memory),
on the strength of that bound: it must never refuse a run that would have fitted. Each case runs in
a fresh process (the peak resident size only grows), builds the demo U-Net (configs/demo.yaml's
model.args), and takes one step, forward, DiceCE and backward, at batch 2; the growth of the
process's peak resident memory over the step is set against the estimate. A ratio above 1 is the
bound holding.
"""

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

DEMO_UNET = {"channels": [16, 32, 64, 128], "strides": [2, 2, 2], "num_res_units": 1}
CASES = [(128, "fp32"), (160, "fp32"), (160, "bf16")]
BATCH = 2


def one_step(patch: int, precision: str) -> dict:
    import torch
    from monai.losses import DiceCELoss

    from accelerated_seg.models import build_from_spec, model_spec
    from accelerated_seg.plan import measure_model

    shape = (patch,) * 3
    estimate = measure_model("unet", shape, precision, 1, 3, DEMO_UNET).peak["autocast"].at(BATCH)
    model = build_from_spec(model_spec("unet", 1, 3, shape, DEMO_UNET))
    image, label = torch.randn(BATCH, 1, *shape), torch.randint(0, 3, (BATCH, 1, *shape))
    loss_function = DiceCELoss(to_onehot_y=True, softmax=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
        loss = loss_function(model(image).float(), label)
    loss.backward()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    return {"patch": list(shape), "batch": BATCH, "precision": precision, "estimate_gib": round(estimate / 2**30, 3),
            "peak_rss_growth_gib": round(grown / 2**30, 3), "ratio": round(grown / estimate, 3)}


def main() -> None:
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.files import write_text_atomically

    cases = []
    for patch, precision in CASES:
        done = subprocess.run([sys.executable, __file__, "--one", str(patch), precision], capture_output=True,
                              text=True, check=True)
        cases.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(cases[-1])
    out = Path("benchmarks/results/plan_cpu_peak_2cpu.json")
    write_text_atomically(out, json.dumps({"benchmark": "plan_cpu_peak",
                                           "command": "PYTHONPATH=. python benchmarks/plan_cpu_peak.py",
                                           "machine": machine_info(), "model": {"name": "unet", "args": DEMO_UNET},
                                           "cases": cases}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_step(int(sys.argv[2]), sys.argv[3])))
    else:  # after the parser: --help (or a typo) ran the whole measurement and rewrote the committed result
        argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
        main()
