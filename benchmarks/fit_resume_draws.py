"""Does a resumed ``accelerated_seg.train.fit`` (a loader of the user's own) end with the weights of
the uninterrupted run? The figures of docs/checkpoints.md, "Resume", for each kind of random draw a
dataset or network makes: noise in ``__getitem__`` from torch's and numpy's generators, in loader
workers or not, with the loader's own generator or not, shuffled or not, persistent workers, a
generator of the sample's own (the docs' recipe), MONAI's DataLoader with a Randomizable dataset, and
dropout.

Each case: a tiny U-Net, 6 volumes of 16^3, batch 2 (3 steps an epoch), 9 steps with a checkpoint at
every step, then a run of other starting weights resumed from steps 3 and 6 (an epoch's end) and 4
(mid-epoch) to step 9; the largest absolute weight difference from the uninterrupted run. Run it
against another checkout with PYTHONPATH to compare two versions of fit.

    PYTHONPATH=. python benchmarks/fit_resume_draws.py --output benchmarks/results/fit_resume_draws_2cpu.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from monai.transforms import Randomizable

# name: (workers, loader's own generator, shuffle, draws, persistent workers, dropout, MONAI DataLoader)
CASES = {
    "noise, 2 workers, own generator": (2, True, False, "global", False, 0.0, False),
    "noise, 2 workers, own generator, shuffled": (2, True, True, "global", False, 0.0, False),
    "noise, 2 workers": (2, False, False, "global", False, 0.0, False),
    "noise, no workers": (0, False, False, "global", False, 0.0, False),
    "noise, 2 persistent workers": (2, False, False, "global", True, 0.0, False),
    "per-sample generator, 2 workers": (2, False, False, "per-sample", False, 0.0, False),
    "per-sample generator, 2 workers, shuffled": (2, False, True, "per-sample", False, 0.0, False),
    "per-sample generator, 2 persistent workers": (2, False, False, "per-sample", True, 0.0, False),
    "dropout 0.3, no workers": (0, False, False, "none", False, 0.3, False),
    "dropout 0.3, 2 workers": (2, False, False, "none", False, 0.3, False),
    "MONAI DataLoader, Randomizable noise, no workers": (0, False, False, "monai", False, 0.0, True),
    "MONAI DataLoader, Randomizable noise, 2 workers": (2, False, False, "monai", False, 0.0, True),
    "no random draws": (0, False, False, "none", False, 0.0, False),
}
STEPS, RESUMED_FROM = 9, (3, 4, 6)


class Volumes(torch.utils.data.Dataset, Randomizable):
    """6 fixed volumes; each read adds noise as ``draws`` says. At module level: forkserver workers
    unpickle it by name."""

    def __init__(self, draws: str):
        self.draws = draws
        self.images = torch.randn(6, 1, 16, 16, 16, generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return len(self.images)

    def randomize(self, data=None):
        pass

    def __getitem__(self, index):
        image = self.images[index]
        if self.draws == "global":  # torch's and numpy's generators, as most augmentation code draws
            image = image + 0.3 * torch.rand(image.shape) + float(np.random.rand())
        elif self.draws == "per-sample":  # the docs' recipe: seeded by the pass's worker seed and the sample
            info = torch.utils.data.get_worker_info()
            sample = torch.Generator().manual_seed(info.seed - info.id + index)
            image = image + 0.3 * torch.rand(image.shape, generator=sample)
        elif self.draws == "monai":  # the dataset's own MONAI random state, as a MONAI random transform's
            image = image + 0.3 * torch.as_tensor(self.R.uniform(size=image.shape), dtype=image.dtype)
        return image, (self.images[index] > 0.5).long()


def _pieces(seed: int, case: tuple):
    from monai.data import DataLoader as MonaiLoader
    from monai.losses import DiceCELoss
    from monai.networks.nets import UNet
    from torch.utils.data import DataLoader

    workers, own_generator, shuffle, draws, persistent, dropout, monai_loader = case
    options = dict(batch_size=2, shuffle=shuffle, num_workers=workers, persistent_workers=persistent,
                   **({"multiprocessing_context": "forkserver"} if workers else {}))
    if own_generator:
        options["generator"] = torch.Generator().manual_seed(0)
    loader = (MonaiLoader if monai_loader else DataLoader)(Volumes(draws), **options)
    torch.manual_seed(seed)
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1, dropout=dropout)
    return model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters(), lr=1e-2)


def measure(case: tuple, folder: Path) -> dict[str, float]:
    """{resumed from step: largest absolute weight difference at step STEPS}."""
    from safetensors.torch import load_file

    from accelerated_seg.train import fit

    whole = fit(*_pieces(0, case), max_steps=STEPS, checkpoint_dir=str(folder / "whole"), save_every=1,
                keep_last=STEPS, progress_bar=False)
    differences = {}
    for step in RESUMED_FROM:
        resumed = fit(*_pieces(1, case), max_steps=STEPS, checkpoint_dir=str(folder / f"from_{step}"),
                      resume=str(folder / "whole" / "checkpoints" / f"step_{step}"), progress_bar=False)
        a, b = load_file(whole["model"]), load_file(resumed["model"])
        differences[str(step)] = max((a[name] - b[name]).abs().max().item() for name in a)
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    import accelerated_seg
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="benchmark", kind="fit_resume_draws")

    code = Path(accelerated_seg.__file__).parent
    commit = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or None
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for index, (name, case) in enumerate(CASES.items()):
            results[name] = measure(case, Path(scratch) / str(index))
            print(f"{name}: " + ", ".join(f"from step {s}: {d:.3g}" for s, d in results[name].items()), flush=True)
    write_text_atomically(args.output, json.dumps({
        "benchmark": "fit_resume_draws",
        "command": "PYTHONPATH=<checkout> python " + " ".join(sys.argv),
        "code": {"package": str(code), "commit": commit},
        "machine": {"torch": torch.__version__, "cpu_threads": torch.get_num_threads()},
        "how": f"tiny U-Net, 6 volumes of 16^3, batch 2 (3 steps an epoch), {STEPS} steps; resumed from steps "
               f"{list(RESUMED_FROM)} (3 and 6 end an epoch) by a run of other starting weights; the largest "
               f"absolute weight difference from the uninterrupted run at step {STEPS}",
        "cases": {name: dict(zip(("workers", "own_generator", "shuffle", "draws", "persistent_workers", "dropout",
                                  "monai_dataloader"), case)) for name, case in CASES.items()},
        "max_abs_weight_difference_by_resumed_step": results,
    }, indent=1) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
