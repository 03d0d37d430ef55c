"""Count how often oneDNN's bf16 weight gradient of a 3x3x3 convolution on the CPU comes back as
garbage, by the width of the volume it convolves and its channels, against the same gradient in fp32.

    python benchmarks/cpu_bf16_two_voxels.py --output benchmarks/results/cpu_bf16_two_voxels_2cpu.json

Each case builds one Conv3d (channels in = out, padding 1) and one input (batch 2) and output gradient
(scaled by 1e-3, as a loss's is small), computes the fp32 weight gradient once as the reference, then
the bf16 one ``--calls`` times from the same tensors; a call is garbage when its largest value is not
within 100x the reference's largest (a bf16 rounding is a few parts in a thousand). Each thread count
runs in its own process (``OMP_NUM_THREADS``, read once), ``--rounds`` times: the counts vary from
one process to the next. Written for the sixty-eighth session: the
default U-Net on 32^3 patches, whose deepest level is 2 voxels wide, turned its weights NaN within ten
bf16 steps on the CPU, and this narrowed it to the 2-voxel convolutions (``host_cpu.bf16_two_voxel_warning``).

``--device cuda`` counts the same on a GPU (cuDNN; ``--threads`` does not apply there), with cuDNN's
autotuning on as training has it (``train.cudnn_benchmark``): the loop checks the gradient norm on
the CPU only, since on a GPU that read waits for the backward every step, so this says whether cuDNN
needs the same guard (``gpu_session.sh geometry``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CASES = [(channels, width) for width in (1, 2, 3, 4) for channels in (32, 128, 256)]


def count_garbage(channels: int, width: int, calls: int, device: str = "cpu") -> dict:
    import torch

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True  # as training runs on a GPU; nothing on the CPU
    conv = torch.nn.Conv3d(channels, channels, 3, 1, 1).to(device)
    image = torch.randn(2, channels, width, width, width, device=device)
    upstream = torch.randn(2, channels, width, width, width, device=device) * 1e-3
    reference = torch.nn.grad.conv3d_weight(image, conv.weight.shape, upstream, padding=1)
    bound = 100 * float(reference.abs().max())
    garbage, largest = 0, 0.0
    for _ in range(calls):
        weight = conv.weight.detach().to(torch.bfloat16).requires_grad_(True)
        torch.nn.functional.conv3d(image.to(torch.bfloat16), weight, None, padding=1).backward(
            upstream.to(torch.bfloat16))
        value = float(weight.grad.float().abs().max())
        if not value <= bound:  # NaN counts too
            garbage += 1
            largest = max(largest, value)
    return {"channels": channels, "width": width, "calls": calls, "garbage": garbage,
            "largest_garbage": largest, "reference_largest": bound / 100}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="each case again in a new process (counts vary)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--output", required=True)
    parser.add_argument("--one", nargs=3, type=int, metavar=("CHANNELS", "WIDTH", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # a child process: one case, at the thread count its environment set
        print(json.dumps(count_garbage(*args.one, device=args.device)))
        return 0
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="what", kind=__doc__.split("\n\n")[0])
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("error: --device cuda: no CUDA device here", file=sys.stderr)
            return 2
        args.threads = args.threads[:1]  # the GPU's count does not depend on the host's threads

    from accelerated_seg.benchmark import machine_info

    rows = []
    for round_ in range(1, args.rounds + 1):
        for threads, (channels, width) in ((t, case) for t in args.threads for case in CASES):
            env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
            done = subprocess.run([sys.executable, __file__, "--output", "-", "--device", args.device, "--one",
                                   str(channels), str(width), str(args.calls)],
                                  env=env, capture_output=True, text=True, check=True)
            row = {"round": round_, "device": args.device, "threads": threads, **json.loads(done.stdout)}
            rows.append(row)
            print(f"round {round_} threads {threads} channels {channels:3d} width {width}: {row['garbage']:3d} of "
                  f"{row['calls']} "
                  f"garbage (largest {row['largest_garbage']:.3g})", flush=True)
    import re

    import torch

    onednn = re.search(r"MKL-DNN (v[\d.]+)", torch.__config__.show())
    record = {"what": __doc__.split("\n\n")[0], "command": " ".join([Path(sys.executable).name, *sys.argv]),
              "machine": machine_info(), "onednn": onednn and onednn.group(1),
              **({"cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name()}
                 if args.device == "cuda" else {}), "runs": rows}
    write_text_atomically(args.output, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
