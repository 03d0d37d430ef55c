"""Your own MONAI pipeline, network, loss and optimizer through accelerated_seg's one training loop.

    python examples/fit_your_own.py
    ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 examples/fit_your_own.py
    accelerate launch --config_file configs/accelerate/ddp.yaml examples/fit_your_own.py      # GPUs
    python examples/fit_your_own.py --resume latest        # after a stop (a job's SIGTERM, Ctrl-C): continue its run

``fit`` brings what ``accelerated-seg train`` has (the accelerate strategy from the launch, gradient
accumulation, clipping, checkpoints, resume, preemption, non-finite-step handling) to pieces it did
not build: here a plain MONAI dictionary-transform pipeline and a SegResNet.
"""

import argparse
import dataclasses
from pathlib import Path

import torch
from accelerate import PartialState
from accelerate.utils import parse_flag_from_env, set_seed
from monai.data import CacheDataset, DataLoader
from monai.losses import DiceFocalLoss
from monai.networks.nets import SegResNet
from monai.transforms import (Compose, EnsureChannelFirstd, LoadImaged, NormalizeIntensityd, Orientationd,
                              RandCropByPosNegLabeld, Spacingd, SpatialPadd)

from accelerated_seg.cli import end_process, exit_on_user_error
from accelerated_seg.config import ConfigError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset
from accelerated_seg.model_folders import FIT_NAMES
from accelerated_seg.run_folder import FIT_OUTPUTS, resume_or_replace
from accelerated_seg.strategy import refuse_an_unjoined_launch
from accelerated_seg.train import fit
from accelerated_seg.wording import counted

# How this script's refusals and fit's messages (a stop's line, the run folder's refusals) name its ways on: its
# flags, in place of fit's keywords (resume='latest'), which a stopped run said above this script's own line until
# the hundred-and-twenty-seventh session. It has no --steps, so the way to a model of a stopped run's state edits fit's
# call here. A stop before its first checkpoint said fit's save_every, a resume fit's max_steps (another length, or at
# its last step), and a resume asking for fewer --epochs than its checkpoint's step fit's max_steps and checkpoint_dir
# (that session's review, r128).
SAVE_EVERY = 10  # optimizer steps between checkpoints
EXAMPLE_NAMES = dataclasses.replace(
    FIT_NAMES, resume="--resume=latest", elsewhere="another --out", overwrite="--overwrite", folder="--out",
    renamed=(("train.resume", "--resume"), ("train.save_every", f"it saves every {SAVE_EVERY} steps"),
             ("fit.max_steps", "the steps of --epochs"), ("train.max_steps", "the steps of --epochs")),
    resume_again="run the same command with --resume latest", overwrite_again="--overwrite", length="--epochs",
    model_of_the_state=("for a model of it now, give fit max_steps={step} in place of max_epochs in "
                        "examples/fit_your_own.py and run it with --resume latest, which trains nothing and exports "
                        "it to {export}"),
    new_run_from_the_weights=("none in this script, whose runs start from scratch; for a model of it, give fit "
                              "max_steps at its step in place of max_epochs in examples/fit_your_own.py and run it "
                              "with --resume latest, which trains nothing and exports it"),
    new_run_elsewhere="none in this script, whose runs start from scratch (--overwrite)",
    # the settings it has no flag for, said as its fit(...) call below given them (allow_strategy_fallback=True
    # where a launch's strategy fell back, told as fit's keyword until the hundred-and-twenty-eighth session)
    set_in="give examples/fit_your_own.py's fit(...) {setting}", rate="the lr of examples/fit_your_own.py's AdamW")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="output/fit_your_own", help="phantoms (data/) and the run (run/) go here")
    parser.add_argument("--overwrite", action="store_true", help="replace the run of an earlier invocation")
    parser.add_argument("--epochs", type=int, default=20, help="passes over the 8 phantoms (fit's max_epochs)")
    parser.add_argument("--patch", type=int, default=64, help="training patch edge in voxels")
    parser.add_argument("--resume", help="'latest' to continue from the newest checkpoint")
    args = parser.parse_args(argv)
    out = Path(args.out)
    _check_the_options(args)
    # fit refuses an earlier run there, or a resume with nothing to resume, in its keywords and after the
    # phantoms; the same check here says it in this script's flags, before anything is written
    resume_or_replace(out / "run", args.resume, args.overwrite, marker=None, outputs=FIT_OUTPUTS,
                      names=EXAMPLE_NAMES)  # a run that ended is offered a larger --epochs (its length)

    # One process writes the phantoms and the others wait: each rank writing them itself would
    # overwrite files that another rank is already reading. (PartialState does not read the launch's
    # ACCELERATE_USE_CPU by itself, as Accelerator does: without it, CPU DDP would not join.)
    state = PartialState(cpu=parse_flag_from_env("ACCELERATE_USE_CPU"))
    refuse_an_unjoined_launch(state)  # a GPU profile's processes without GPUs: each alone, each writing
    if state.is_main_process:
        ensure_synthetic_dataset(out / "data", num_cases=8, num_validation=0)  # once, not at every run
    state.wait_for_everyone()
    phantoms = load_msd(out / "data" / "dataset.json", validation_fraction=0.0)  # every case trains
    files = [{"image": str(c.images[0]), "label": str(c.label)} for c in phantoms.training]
    transforms = Compose([
        LoadImaged(keys=["image", "label"]), EnsureChannelFirstd(keys=["image", "label"]),
        Orientationd(keys=["image", "label"], axcodes="RAS", labels=None),
        Spacingd(keys=["image", "label"], pixdim=(1.5, 1.5, 1.5), mode=("bilinear", "nearest")),
        NormalizeIntensityd(keys="image", nonzero=True),
        # A scan smaller than the patch along an axis (the phantoms are 64 x 64 x 48) is padded first:
        # RandCropByPosNegLabeld refuses a patch larger than the image.
        SpatialPadd(keys=["image", "label"], spatial_size=(args.patch,) * 3),
        RandCropByPosNegLabeld(keys=["image", "label"], label_key="label", spatial_size=(args.patch,) * 3,
                               num_samples=2),
    ])
    # Shuffling is the loader's business; accelerate shards whatever order it yields over the processes.
    loader = DataLoader(CacheDataset(files, transforms, progress=False), batch_size=1, shuffle=True)

    # The same starting weights on every rank: DDP and DeepSpeed copy rank 0's, but FSDP2 keeps each
    # rank's own shards (fit refuses ranks that differ there; without the seed this example did).
    set_seed(0)
    model = SegResNet(spatial_dims=3, in_channels=1, out_channels=3, init_filters=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    # A Ctrl-C ends at fit, which has said its newest checkpoint and this script's way on (130); SIGTERM/SIGUSR1
    # returns preempted, said too: the state is saved (no weights exported to name), the job is ending
    result = fit(model, loader, DiceFocalLoss(to_onehot_y=True, softmax=True), optimizer,
                 max_epochs=args.epochs, checkpoint_dir=out / "run", grad_accum_steps=2, max_grad_norm=12.0,
                 save_every=SAVE_EVERY, log_every=2, resume=args.resume, overwrite=args.overwrite, names=EXAMPLE_NAMES)
    if not result["preempted"] and result["is_main_process"]:
        first, last = result["losses"][0][1], result["losses"][-1][1]
        print(f"{counted(result['step'], 'optimizer step')}, loss {first:.3f} -> {last:.3f}; "
              f"weights: {result['model']}")
    return result


def _check_the_options(args) -> None:
    """Values of the options that this script's pieces would refuse late: SegResNet halves the patch 3 times,
    and a patch of another size (or 0, the whole scan) trained until its skip connections met tensors of two
    sizes (a RuntimeError traceback); fit's max_epochs refusal came after the phantoms."""
    if args.epochs < 1:
        raise ConfigError(f"--epochs {args.epochs}: give 1 or more passes over the phantoms")
    if args.patch < 8 or args.patch % 8:
        raise ConfigError(f"--patch {args.patch}: SegResNet halves the patch 3 times, so give a multiple of 8 "
                          f"(32, 64, ...)")


if __name__ == "__main__":
    with exit_on_user_error():  # a bad setting or file: its one-line message, not a traceback
        result = main()
    # a launched rank ends without the interpreter's shutdown; a preempted one ignores a second notice (end_process)
    end_process(0, preempted=result["preempted"])
