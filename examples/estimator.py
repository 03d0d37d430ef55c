"""The nobrainer-style estimator end to end on the embedded phantoms: fit, predict, evaluate, save, load.

    python examples/estimator.py                       # about 3 minutes on 2 CPU cores
    python examples/estimator.py --steps 20 --out /tmp/estimator_demo
    python examples/estimator.py --steps 20 --out /tmp/estimator_demo --resume latest   # after a stop

Stopped (a job's SIGTERM or SIGUSR1, Ctrl-C), the run keeps its newest checkpoint, and the same command with
``--resume latest`` continues it to its steps, then predicts, evaluates and saves as a run ended whole.

With ``--multi-gpu`` in a plain Python session it trains on every visible GPU through accelerate's
notebook launcher; under ``accelerate launch`` it uses the launched processes:

    accelerate launch --config_file configs/accelerate/ddp.yaml examples/estimator.py
"""

import argparse
import os
from pathlib import Path

import nibabel as nib
import numpy as np
from accelerate import PartialState
from accelerate.utils import parse_flag_from_env

from accelerated_seg import Dataset, Segmentation
from accelerated_seg.cli import end_process, exit_on_user_error
from accelerated_seg.config import ConfigError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset
from accelerated_seg.model_folders import complete_checkpoints, ended_at_its_length
from accelerated_seg.models import MODELS
from accelerated_seg.run_folder import earlier_run
from accelerated_seg.strategy import refuse_an_unjoined_launch
from accelerated_seg.wording import counted

# How the fit's messages (a stop's line, the run folder's refusals) name this script's ways on: its flags, in place of
# the estimator's keywords (fit(..., resume='latest'), Segmentation(..., overwrite=True)), which a stopped run said
# above this script's own line until the hundred-and-twenty-seventh session. A stop before its first checkpoint said
# fit's save_every, a resume at its last step max_steps, and a resume asking for fewer --steps than its checkpoint's
# step (or one that cannot go on with its data) fit's init_from, none a flag of this script's (that session's review,
# r128). renamed: over the estimator's own. The settings it has no flag for are said as its Segmentation(...) call
# below given them (set_in, giving), its patch as --patch and its precision as the launch's: a step too large for
# host memory said block_shape and activation_checkpointing=True, bf16 on a CPU Segmentation(precision='fp32') and
# predict(..., precision='fp32') (predict is fp32 here), a warm-up as long as the run fit(..., warmup_steps=0), until
# the hundred-and-twenty-eighth session.
SAVE_EVERY = 100  # optimizer steps between checkpoints (the estimator's default, given so that the names say it)
THE_CALL = "examples/estimator.py's Segmentation(...)"  # where a setting without a flag is given
EXAMPLE_NAMES = {"resume": "--resume latest", "resume_again": "run the same command with --resume latest",
                 "overwrite": "--overwrite", "overwrite_again": "--overwrite", "elsewhere": "another --out",
                 "folder": "the run folder under --out", "length": "--steps",
                 "renamed": (("train.save_every", f"it saves every {SAVE_EVERY} steps"),
                             ("train.max_steps", "--steps"), ("data.patch_size", "--patch"),
                             ("train.batch_size", "the batch size")),
                 "set_in": f"give {THE_CALL} {{setting}}", "giving": f"{{setting}} in {THE_CALL}",
                 "rate": f"the lr of {THE_CALL}",
                 "fp32": "accelerate launch's --mixed_precision no, whose precision this script trains in",
                 "predict_fp32": "",
                 "new_run_from_the_weights": ("none in this script, whose runs start from scratch; for a model of "
                                              "it, accelerated-seg export {checkpoint} --output <new folder>"),
                 "new_run_elsewhere": "none in this script, whose runs start from scratch (--overwrite)"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="output/estimator_demo",
                        help="phantoms, cache, run, prediction, evaluation and saved model go here")
    parser.add_argument("--overwrite", action="store_true", help="replace the run of an earlier invocation")
    parser.add_argument("--resume", choices=["latest"],
                        help="'latest' to continue a stopped run of an earlier invocation from its newest checkpoint")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps")
    parser.add_argument("--patch", type=int, default=64, help="training patch edge in voxels (block_shape)")
    parser.add_argument("--multi-gpu", action="store_true",
                        help="in a plain session, train on every visible GPU (with fewer than 2: in this process)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    _check_the_options(args)
    _refuse_an_earlier_run(out / "run", args.resume, args.overwrite)

    # Under accelerate launch every rank runs this script: one writes the files (the phantoms, the
    # prediction, the saved model) and the others wait, since a rank writing them too would overwrite
    # files that another is reading. In a plain session no process state is made here: --multi-gpu's
    # notebook launcher starts the processes later. (PartialState reads ACCELERATE_USE_CPU only when
    # told: without it CPU DDP would not join.)
    state = PartialState(cpu=parse_flag_from_env("ACCELERATE_USE_CPU")) if "WORLD_SIZE" in os.environ else None
    if state is not None:  # a GPU profile's processes on a machine without GPUs: each alone, each writing
        refuse_an_unjoined_launch(state)
    writes = state is None or state.is_main_process

    # Any list of (image, label) NIfTI pairs works; here the package writes its phantoms (once: rewritten
    # files are new sources to the preprocessing cache, built again each run).
    if writes:
        ensure_synthetic_dataset(out / "data", num_cases=12, num_validation=3)
    if state is not None:
        state.wait_for_everyone()
    phantoms = load_msd(out / "data" / "dataset.json")
    pairs = [(str(c.images[0]), str(c.label)) for c in phantoms.training]
    validation = [(str(c.images[0]), str(c.label)) for c in phantoms.validation]

    data = (Dataset.from_files(pairs, block_shape=(args.patch,) * 3, n_classes=3, validation_pairs=validation,
                               cache_dir=str(out / "cache"))
            .batch(2).augment("light"))
    model = Segmentation("unet", multi_gpu=args.multi_gpu, output_dir=str(out / "run"), trackers="none",
                         overwrite=args.overwrite, val_every=max(1, args.steps // 2), save_every=SAVE_EVERY)
    say = print if writes else (lambda *_: None)
    # A Ctrl-C ends here, fit having said its newest checkpoint and this script's way on (130)
    model.fit(data, steps=args.steps, resume=args.resume, names=EXAMPLE_NAMES)
    if model.summary["preempted"]:  # SIGTERM/SIGUSR1: the state is saved and said, the job is ending
        return model.summary
    say(f"trained {counted(model.summary['step'], 'step')}, best validation Dice {model.summary['best_dice']:.3f}")

    case = phantoms.validation[0]
    label_image = model.predict(str(case.images[0]))  # a nibabel image on the input's own grid
    assert label_image.shape == nib.load(case.images[0]).shape
    if writes:
        nib.save(label_image, out / f"{case.id}_seg.nii.gz")
    say(f"{case.id}: labels {sorted(np.unique(np.asanyarray(label_image.dataobj)).tolist())} "
        f"written to {out / f'{case.id}_seg.nii.gz'}")

    # Under a launch the main process predicts and scores; every rank gets the summary.
    summary = model.evaluate(data, output_dir=out / "evaluation")  # Dice, HD95, surface Dice
    say(f"evaluation: mean Dice {summary['overall']['dice']['mean']:.3f} over {summary['num_cases']} case(s)")

    if writes:
        model.save(out / "saved_model")
    if state is not None:
        state.wait_for_everyone()
    again = Segmentation.load(out / "saved_model").predict(str(case.images[0]))
    assert np.array_equal(np.asanyarray(again.dataobj), np.asanyarray(label_image.dataobj))
    say(f"saved to {out / 'saved_model'} and reloaded: same prediction")
    return summary


def _check_the_options(args) -> None:
    """Values that fit and Dataset.from_files refuse too, but after the phantoms (about 6 s) and in their
    keywords (steps, block_shape, "use (32, 32, 32)"), which this script's user does not write."""
    if args.steps < 1:
        raise ConfigError(f"--steps {args.steps}: give 1 or more optimizer steps")
    # The U-Net's default design, which this script trains: each stride halves the patch, and its
    # deepest stage needs more than one voxel to train, so the smallest patch is twice the divisor.
    halvings = len(MODELS["unet"]((args.patch,) * 3)[1]["strides"])
    divisor = 2 ** halvings
    if args.patch < 2 * divisor or args.patch % divisor:
        raise ConfigError(f"--patch {args.patch}: the U-Net halves the patch {halvings} times, and its deepest "
                          f"stage needs more than one voxel, so give a multiple of {divisor} from {2 * divisor} up "
                          f"({2 * divisor}, {3 * divisor}, {4 * divisor}, ...)")


def _refuse_an_earlier_run(run: Path, resume: str | None, overwrite: bool) -> None:
    """The run of an earlier invocation in ``run``, without --overwrite or --resume: the estimator refuses it too,
    but after the phantoms, and in its keywords (fit(..., resume='latest'), Segmentation(..., overwrite=True)),
    which this script's user does not write; and a --resume with no checkpoint there to continue from."""
    checkpoints = complete_checkpoints(run / "checkpoints")
    if resume and not checkpoints:
        raise ConfigError(f"--resume {resume}: {run} holds no checkpoint to continue from; run without --resume "
                          f"(with --overwrite where it holds an earlier run)")
    if not resume and not overwrite and (found := earlier_run(run)):
        # a stopped run (its newest checkpoint past its export, or no export) goes on; one that ended goes on only
        # for more --steps. One resumed for more after its end and stopped was told it had ended, its --resume left
        # unsaid, until the hundred-and-twenty-eighth session (its end's export was still there)
        ended = ended_at_its_length(run)
        go_on = ("--resume latest and more --steps to train it further, " if ended else
                 "--resume latest to continue it, " if checkpoints else "")
        raise ConfigError(f"{run} holds the run of an earlier invocation ({found}): give {go_on}--overwrite to "
                          f"replace it (and its prediction, evaluation and saved model), or another --out")


if __name__ == "__main__":
    with exit_on_user_error():  # a bad setting or file: its one-line message, not a traceback
        summary = main()
    # a launched rank ends without the interpreter's shutdown; a preempted one ignores a second notice (end_process)
    end_process(0, preempted=summary.get("preempted", False))
