"""The demo as a 5-fold cross-validation, then the folds' models predicting held-out cases alone and
together (``predict --model`` once per fold): what the ensemble gains, and what it costs in time.

    python benchmarks/ensemble_demo.py --steps 150 --output benchmarks/results/ensemble_demo_cpu.json

The demo's 20 training phantoms (configs/demo.yaml: U-Net, 48³ patches, 1.5 mm) are cut into 5
folds (``data.num_folds``), each fold's model trained on 16 of them for ``--steps`` steps and
validated on the other 4. Each fold's last-step export, and the ensemble of all five, then predict
``--test-cases`` phantoms of another seed (``predict_cases``), scored by ``evaluate_folders`` (mean
Dice over cases and foreground classes); the ensemble also with ``keep_largest`` for the lesion (one
piece in every phantom) and for every label (the ventricles are a pair). This is a measurement, not a test: about 2 minutes on 2 CPU
cores at 150 steps.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelerated_seg.config import load_config  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.evaluate import evaluate_folders  # noqa: E402
from accelerated_seg.files import check_script_output, write_text_atomically  # noqa: E402
from accelerated_seg.inference import predict_cases  # noqa: E402
from accelerated_seg.train import train  # noqa: E402
from record_demo import machine  # noqa: E402  (benchmarks/ is on sys.path as this script's folder)

FOLDS = 5


def k_fold_dataset(work: Path, test_cases: int) -> tuple[Path, list[Path], Path]:
    """The demo's phantoms, as a dataset.json of its 20 training cases alone (so that the folds apply);
    and a test set of ``test_cases`` other phantoms (seed 1): their images, and a folder of their labels."""
    dataset = write_synthetic_dataset(work / "data", num_cases=24, num_validation=4, seed=0)  # configs/demo.yaml's
    description = json.loads(dataset.read_text())
    del description["validation"]
    description["numValidation"] = 0
    folds_json = dataset.with_name("dataset_folds.json")
    folds_json.write_text(json.dumps(description, indent=1))
    test = write_synthetic_dataset(work / "test", num_cases=test_cases, num_validation=0, seed=1)
    labels = work / "test_labels"
    labels.mkdir()
    images = []
    for entry in json.loads(test.read_text())["training"]:
        images.append(test.parent / entry["image"])
        shutil.copy(test.parent / entry["label"], labels / Path(entry["label"]).name)
    return folds_json, images, labels


def mean_dice(predictions: Path, labels: Path, num_classes: int) -> float:
    summary = evaluate_folders(predictions, labels, num_classes=num_classes,
                               output_dir=predictions.with_name(predictions.name + "_evaluation"))
    return summary["overall"]["dice"]["mean"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=150, help="optimizer steps per fold")
    parser.add_argument("--test-cases", type=int, default=12, help="held-out phantoms (seed 1) to score on")
    parser.add_argument("--output", type=Path, required=True, help="JSON to write")
    args = parser.parse_args()
    check_script_output(parser, args.output, result_key="ensemble_test_mean_dice")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folds_json, test_images, test_labels = k_fold_dataset(work, args.test_cases)
        folds, models = [], []
        for fold in range(FOLDS):
            out = work / f"fold{fold}"
            cfg = load_config(ROOT / "configs" / "demo.yaml", [
                f"--data.dataset={folds_json}", f"--data.num_folds={FOLDS}", f"--data.fold={fold}",
                f"--data.cache_dir={work / 'cache'}", f"--train.output_dir={out}", f"--train.max_steps={args.steps}",
                f"--train.val_every={args.steps}", "--train.save_every=0", "--train.progress_bar=false",
                "--train.trackers=none"])
            start = time.perf_counter()
            summary = train(cfg)
            train_s = time.perf_counter() - start
            start = time.perf_counter()
            predict_cases(out / "model", test_images, work / f"pred{fold}", device="cpu")
            predict_s = time.perf_counter() - start
            num_classes = json.loads((out / "model" / "config.json").read_text())["num_classes"]
            folds.append({"fold": fold, "train_s": round(train_s, 1), "fold_validation_dice": summary["best_dice"],
                          "test_mean_dice": mean_dice(work / f"pred{fold}", test_labels, num_classes),
                          "predict_s": round(predict_s, 2)})
            models.append(out / "model")
            print(folds[-1], flush=True)
        start = time.perf_counter()
        predict_cases(models, test_images, work / "pred_ensemble", device="cpu")
        ensemble_s = time.perf_counter() - start
        ensemble = mean_dice(work / "pred_ensemble", test_labels, num_classes)
        # Post-processing measured as it should be chosen: the lesion is one piece, the ventricles a pair.
        post = {}
        for name, keep in (("lesion (2)", [2]), ("every label", True)):
            folder = work / f"pred_ensemble_keep_{len(post)}"
            predict_cases(models, test_images, folder, device="cpu", keep_largest=keep)
            post[name] = mean_dice(folder, test_labels, num_classes)
    members = [f["test_mean_dice"] for f in folds]
    record = {
        "date": date.today().isoformat(), "machine": machine(),
        "command": f"python benchmarks/ensemble_demo.py --steps {args.steps} --test-cases {args.test_cases} "
                   f"--output {args.output}",
        "setup": f"configs/demo.yaml, {FOLDS} folds of its 20 training cases (16 each), {args.steps} steps per fold; "
                 f"test: {args.test_cases} other phantoms (seed 1); mean Dice over cases and foreground classes "
                 f"(evaluate_folders)",
        "folds": folds,
        "members_test_mean_dice": {"mean": statistics.mean(members), "best": max(members), "worst": min(members)},
        "ensemble_test_mean_dice": ensemble,
        "ensemble_keep_largest_test_mean_dice": post,
        "ensemble_predict_s": round(ensemble_s, 2),
        "member_predict_s_median": statistics.median(f["predict_s"] for f in folds),
    }
    write_text_atomically(args.output, json.dumps(record, indent=1))
    print(json.dumps({k: record[k] for k in ("members_test_mean_dice", "ensemble_test_mean_dice",
                                             "ensemble_keep_largest_test_mean_dice", "ensemble_predict_s",
                                             "member_predict_s_median")}, indent=1))


if __name__ == "__main__":
    main()
