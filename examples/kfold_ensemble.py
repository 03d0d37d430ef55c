"""k-fold cross-validation, then the folds' ensemble on held-out cases, as nnU-Net trains and predicts.

    python examples/kfold_ensemble.py                                # 5 folds of the phantoms, then the ensemble
    python examples/kfold_ensemble.py --folds 3 --train.max_steps=200
    accelerate launch --config_file configs/accelerate/ddp.yaml examples/kfold_ensemble.py   # each fold on every GPU

Each fold is one ``train`` run of the same experiment with ``data.num_folds`` and ``data.fold``: a
seeded k-fold split of the training cases, each fold validating on its own share and exporting its
best model (``fold<k>/best_model``). The ensemble then segments cases that no fold saw with every
fold's model at once, the mean of their probabilities (the same as ``accelerated-seg predict --model
fold0/best_model --model fold1/best_model ...``), and ``evaluate`` scores it and each fold alone
against the reference labels. Further ``--section.key=value`` arguments override the experiment
config for every fold, as for ``examples/train.py``; ``--train.resume=latest`` continues an interrupted
run: each fold with a checkpoint resumes from it (a finished one trains nothing), the others start.
Without validation (``--train.val_every=0``) each fold's final model joins the ensemble.
"""

import argparse
import json
import re
from pathlib import Path

from accelerate import PartialState
from accelerate.utils import parse_flag_from_env

from accelerated_seg.cli import end_process, exit_on_user_error
from accelerated_seg.config import ConfigError, joined_overrides, load_config
from accelerated_seg.data.synthetic import ensure_synthetic_dataset
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.files import write_text_atomically
from accelerated_seg.inference import predict_cases
from accelerated_seg.model_folders import Names, complete_checkpoints
from accelerated_seg.run_folder import TRAIN_RUN_MARKER
from accelerated_seg.strategy import refuse_an_unjoined_launch
from accelerated_seg.train import train
from accelerated_seg.wording import counted

ROOT = Path(__file__).resolve().parents[1]
# How train's messages name the ways on: every fold's folder is under --out, and --train.output_dir is refused
# (a rerun was told to "train into another --train.output_dir" until the ninety-third session); a stop's line names
# this command alone, not a Python call besides ("(resume='latest' from Python)" until the hundred-and-twenty-seventh)
KFOLD_NAMES = Names(elsewhere="another --out", new_run_elsewhere="--train.init_from={export} with another --out",
                    folder="the fold's folder under --out",
                    resume_again="run the same command with --train.resume=latest",
                    overwrite_again="--train.overwrite=true")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs" / "demo.yaml"), help="the experiment of every fold")
    parser.add_argument("--out", default="output/kfold",
                        help="phantoms (data/, and test/ held out), their preprocessing cache (cache/), one run "
                             "folder per fold (fold<k>/), predictions/ and evaluation/ (dice.json)")
    parser.add_argument("--folds", type=int, default=5, help="folds (data.num_folds), trained one after another")
    parser.add_argument("--cases", type=int, default=20, help="phantoms to cross-validate on")
    parser.add_argument("--test-cases", type=int, default=4, help="phantoms no fold sees, for the ensemble")
    args, overrides = parser.parse_known_args(argv)
    out, overrides = Path(args.out), joined_overrides(overrides)
    if any(re.match(r"--train\.output_dir\b", o) for o in overrides):  # every fold would share one folder
        raise ConfigError("--train.output_dir: each fold trains in a folder of its own under --out "
                          "(<out>/fold<k>); give --out instead")
    resume = [o for o in overrides if re.match(r"--train\.resume\b", o)]
    if any(o not in ("--train.resume=latest", "--train.resume=null") for o in resume):
        raise ConfigError(f"{resume[0]}: each fold resumes from a checkpoint of its own; give --train.resume=latest")
    overrides = [o for o in overrides if o not in resume]
    _check_the_counts(args)
    # The experiment read once before the phantoms are written: a wrong --config or a mistyped setting waited
    # for 24 phantoms (17 s) before its error
    _fold_config(args, out, overrides, fold=0)

    # The main process writes the phantoms while the others wait (PartialState reads the launch; on
    # CPU processes ACCELERATE_USE_CPU must be passed on, as the Accelerator would read it).
    state = PartialState(cpu=parse_flag_from_env("ACCELERATE_USE_CPU"))
    refuse_an_unjoined_launch(state)  # a GPU profile's processes without GPUs: each alone, each writing
    if state.is_main_process:
        # No validation list in the training set's dataset.json: a listed split would win over the folds.
        # Written once: rewritten files are new sources to the preprocessing cache, built again each run.
        for folder, cases, seed in ((out / "data", args.cases, 0), (out / "test", args.test_cases, 1)):
            ensure_synthetic_dataset(folder, num_cases=cases, num_validation=0, seed=seed)
    state.wait_for_everyone()

    models = []
    for fold in range(args.folds):
        fold_dir = out / f"fold{fold}"
        # A resume asked for applies to the folds that have a checkpoint; the others start, over what a
        # fold stopped before its first checkpoint left (its best_model, its log), which training
        # would otherwise refuse to replace.
        if complete_checkpoints(fold_dir / "checkpoints"):
            fold_resume = resume
        else:
            fold_resume = ["--train.overwrite=true"] if resume and (fold_dir / TRAIN_RUN_MARKER).is_file() else []
        cfg = _fold_config(args, out, [*overrides, *fold_resume], fold)
        summary = train(cfg, names=KFOLD_NAMES)  # the whole fold, on every process of the launch
        if summary["preempted"]:  # SIGTERM/SIGUSR1: the state is saved, the job is ending; train said the way on
            rest = "the folds after it and the ensemble" if fold < args.folds - 1 else "the ensemble"
            state.print(f"fold {fold} stopped with its state saved, before {rest}")
            return summary
        if cfg.train.val_every:
            state.print(f"fold {fold}: best validation mean Dice {summary['best_dice']:.4f} at step "
                        f"{summary['best_step']}")
            models.append(fold_dir / "best_model")
        else:  # no validation, no best model: the final one
            state.print(f"fold {fold}: trained {counted(summary['step'], 'step')} without validation; its final "
                        f"model joins")
            models.append(fold_dir / "model")

    results = {}
    if state.is_main_process:  # prediction of a few cases: one process is enough
        test_images, test_labels = out / "test" / "imagesTr", out / "test" / "labelsTr"
        # Scored as the folds were trained and validated: the classes, regions or merged foreground of
        # their exported config.json (the test phantoms' dataset.json scored a region or binarized
        # model on the phantoms' classes: 0.33 for 0.59, seventy-third session)
        dataset_json = models[0] / "config.json"
        predictions = {f"fold{k}": [model] for k, model in enumerate(models)} | {"ensemble": models}
        for name, members in predictions.items():
            predict_cases(members, [test_images], out / "predictions" / name)
            scores = evaluate_folders(out / "predictions" / name, test_labels, dataset_json=dataset_json,
                                      output_dir=out / "evaluation" / name)
            results[name] = scores["overall"]["dice"]["mean"]
            print(f"{name}: mean Dice {results[name]:.4f} on {scores['num_cases']} held-out case(s)")
        write_text_atomically(out / "evaluation" / "dice.json", json.dumps(results, indent=1))
    state.wait_for_everyone()
    return results


def _check_the_counts(args) -> None:
    """Refuse folds, cases and held-out cases that cannot make a cross-validation, in this example's flags:
    --folds 0 ended in an IndexError traceback, and the others were refused by train or the phantoms' writer
    in words of settings this example sets for its user (data.num_folds, synth --cases)."""
    if args.folds < 2:
        raise ConfigError(f"--folds {args.folds}: k-fold cross-validation needs 2 or more folds")
    if args.cases < args.folds:
        raise ConfigError(f"--cases {args.cases} is fewer than --folds {args.folds}: each fold validates on a "
                          f"share of the cases of its own; give at least as many cases as folds")
    if args.test_cases < 1:
        raise ConfigError(f"--test-cases {args.test_cases}: the ensemble is scored on held-out phantoms; give 1 or "
                          f"more")


def _fold_config(args, out: Path, overrides: list[str], fold: int):
    """The experiment of fold ``fold``: its split, its folder under --out, then the user's overrides."""
    # The cache under --out too (it went to ~/.cache, outside the folder the help names; a
    # --data.cache_dir given still wins, as it comes after)
    return load_config(args.config, [f"--data.dataset={out / 'data' / 'dataset.json'}",
                                     f"--data.cache_dir={out / 'cache'}",
                                     f"--data.num_folds={args.folds}", f"--data.fold={fold}",
                                     f"--train.output_dir={out / f'fold{fold}'}", *overrides])


if __name__ == "__main__":
    with exit_on_user_error():  # a bad setting or file: its one-line message, not a traceback
        results = main()
    # a launched rank ends without the interpreter's shutdown; a preempted one ignores a second notice (end_process)
    end_process(0, preempted=results.get("preempted", False))
