"""What each place names as "the step" for one training run stopped by Ctrl-C mid-epoch and one finished, with
and without gradient accumulation (hundred-and-seventh session): the interrupt's line, the checkpoint folders, the
TensorBoard scalars' steps, metrics.json's loss rows, the progress bar's count and the Progress a checkpoint holds.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/results/step_numbers_2026-12-05/probe.py > .../probe.txt

Tiny runs (16^3 patches, 6 batches of 2 per epoch), as tests/conftest.py's tiny_overrides. Ctrl-C is sent during
the 0-based forward call 4 without accumulation (step 5's forward) and 9 with grad_accum_steps=2 (step 5's second
micro-batch); a NaN loss in forward call 2 (step 3's first try) shows what a skipped step's line names.
"""
import contextlib
import io
import json
import signal
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from conftest import tiny_overrides  # noqa: E402
from faults import loss_forward_with, signal_on  # noqa: E402

from accelerated_seg.config import load_config  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.train import train  # noqa: E402


def tensorboard_steps(run: Path) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    steps = {}
    for events in sorted((run / "train").rglob("events.out.tfevents.*")):
        accumulated = EventAccumulator(str(events.parent))
        accumulated.Reload()
        for tag in accumulated.Tags()["scalars"]:
            if tag in ("train/loss", "val/mean_dice"):
                steps[tag] = [event.step for event in accumulated.Scalars(tag)]
    return steps


def probe(dataset: Path, run: Path, accumulation: int, interrupt_at: int | None, nan_at: int | None = None) -> None:
    from monai.losses import DiceCELoss

    from faults import nan_on

    cfg = load_config(None, tiny_overrides(dataset, run, train__max_steps=6, train__save_every=2, train__val_every=3,
                                           train__log_every=1, train__trackers="tensorboard",
                                           train__progress_bar="true", train__grad_accum_steps=accumulation,
                                           train__keep_last=10))
    original = DiceCELoss.forward
    if interrupt_at is not None:
        DiceCELoss.forward = loss_forward_with(signal_on(interrupt_at, signal.SIGINT))
    if nan_at is not None:
        DiceCELoss.forward = loss_forward_with(nan_on({nan_at}))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            train(cfg)
    except KeyboardInterrupt as interrupted:
        print(f"  KeyboardInterrupt.step (the estimator's record): {interrupted.step}")
    finally:
        DiceCELoss.forward = original
    said = [line for line in out.getvalue().splitlines() if "interrupted (Ctrl-C)" in line]
    print(f"  line: {said[0][:60] if said else None}")
    for line in out.getvalue().splitlines():
        if "skipped" in line:
            print(f"  skip line: {line}")
    bar = [part for part in err.getvalue().replace("\r", "\n").splitlines() if "/6 [" in part]
    print(f"  progress bar's last count: {bar[-1].split('|')[-1].split('[')[0].strip() if bar else None}")
    checkpoints = sorted((run / "checkpoints").glob("step_*"), key=lambda p: int(p.name[5:]))
    print(f"  checkpoint folders: {[p.name for p in checkpoints]}")
    if checkpoints:
        saved = torch.load(checkpoints[-1] / "custom_checkpoint_1.pkl", weights_only=False)
        print(f"  {checkpoints[-1].name}'s Progress: step {saved['step']}, batches_seen {saved['batches_seen']}, "
              f"loss rows at {[row[0] for row in saved['losses']]}")
    print(f"  TensorBoard steps: {tensorboard_steps(run)}")
    if (run / "metrics.json").is_file():
        metrics = json.loads((run / "metrics.json").read_text())
        print(f"  metrics.json loss rows at {[row[0] for row in metrics['loss']]}"
              f", validations at {[row['step'] for row in metrics['validation']]}")
    if (run / "summary.json").is_file():
        print(f"  summary.json step: {json.loads((run / 'summary.json').read_text()).get('step')}")


def main() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    root = Path(tempfile.mkdtemp())
    dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0,
                                      size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    for accumulation in (1, 2):
        for interrupt_at in ({1: 4, 2: 9}[accumulation], None):
            what = "finished" if interrupt_at is None else f"Ctrl-C in forward call {interrupt_at}"
            print(f"grad_accum_steps={accumulation}, {what}:")
            probe(dataset, root / f"run_{accumulation}_{interrupt_at}", accumulation, interrupt_at)
    print("grad_accum_steps=1, NaN loss in forward call 2, finished:")
    probe(dataset, root / "run_nan", 1, None, nan_at=2)


if __name__ == "__main__":
    main()
