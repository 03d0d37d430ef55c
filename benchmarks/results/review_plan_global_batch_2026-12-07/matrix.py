"""Run: cd /tmp/wt_r129 && OMP_NUM_THREADS=1 PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_plan_global_batch_2026-12-07/matrix.py > benchmarks/results/review_plan_global_batch_2026-12-07/matrix_<when>.txt

plan --config X [--batch B] [--global-batch G] --gpus N (the real command line, plan.measure_model stubbed to record the
table's batch and stop: the refusals all come before it) against training's resolve_batch for
train --config X [--train.batch_size=B] [--train.global_batch_size=G] on N processes (load_config with those overrides,
then schedule.resolve_batch as configured_run._batch_plan calls it). Each cell: the table's per-GPU batch or plan's
refusal, training's per-device batch or its refusal. A cell is a DISAGREEMENT where one refuses and the other does not,
or the batches differ, or both refuse but plan's words say other numbers than training's (another multiple to choose).
"""
import contextlib
import io
import itertools
import re
import sys
import tempfile
from pathlib import Path

from accelerated_seg import plan
from accelerated_seg.cli import main
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.schedule import resolve_batch

CONFIGS = {"none": "{}", "batch_size 2": "{batch_size: 2}", "global 12": "{global_batch_size: 12}",
           "batch 2 + global 16": "{batch_size: 2, global_batch_size: 16}", "accum 2": "{grad_accum_steps: 2}",
           "global 12 + accum 2": "{global_batch_size: 12, grad_accum_steps: 2}",
           "batch 2 + accum 2": "{batch_size: 2, grad_accum_steps: 2}",
           "batch 1 + global 8 + accum 2": "{batch_size: 1, global_batch_size: 8, grad_accum_steps: 2}"}
OPTIONS = {"neither": (None, None), "--batch 2": (2, None), "--batch 3": (3, None), "--global-batch 24": (None, 24),
           "--global-batch 8": (None, 8), "--global-batch 12": (None, 12),
           "--batch 2 --global-batch 24": (2, 24), "--batch 3 --global-batch 8": (3, 8)}
GPUS = (1, 3, 4, 8)


class Stopped(Exception):
    pass


def stub(model, patch, precision, in_channels, classes, model_args, optim, smallest_batch):
    raise Stopped(smallest_batch)


plan.measure_model = stub


def planned(config, batch, global_batch, gpus):
    argv = ["plan", "--config", str(config), "--gpus", str(gpus), "--in-channels", "1", "--classes", "2"]
    argv += ["--batch", str(batch)] if batch else []
    argv += ["--global-batch", str(global_batch)] if global_batch else []
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(argv)
    except Stopped as stopped:
        return stopped.args[0], None
    return None, err.getvalue().strip() or f"status {status}"


def trained(config, batch, global_batch, gpus):
    overrides = ([f"--train.batch_size={batch}"] if batch else []) + (
        [f"--train.global_batch_size={global_batch}"] if global_batch else [])
    cfg = load_config(config, overrides)
    t, o = cfg.train, cfg.optim
    try:
        return resolve_batch(t.batch_size, t.global_batch_size, t.grad_accum_steps, gpus, o.lr, o.base_batch_size,
                             o.lr_scaling).per_device, None
    except ConfigError as error:
        return None, str(error)


def numbers(message):
    """What the refusal asks to choose: the 'multiple of N' it names."""
    return re.findall(r"multiple of (\d+)", message or "")


folder = Path(tempfile.mkdtemp())
faults = 0
for (name, train), (option, (batch, global_batch)), gpus in itertools.product(CONFIGS.items(), OPTIONS.items(), GPUS):
    config = folder / f"c{abs(hash(name))}.yaml"
    config.write_text(f"data: {{patch_size: [64, 64, 64]}}\nmodel: {{name: unet}}\ntrain: {train}\n")
    p_batch, p_error = planned(config, batch, global_batch, gpus)
    t_batch, t_error = trained(config, batch, global_batch, gpus)
    if p_error is None and t_error is None:
        verdict = "same" if p_batch == t_batch else "DISAGREEMENT (batch)"
    elif p_error and t_error:
        verdict = "both refuse" if numbers(p_error) == numbers(t_error) else "DISAGREEMENT (words: other numbers)"
    else:
        verdict = "DISAGREEMENT (" + ("plan refuses alone" if p_error else "training refuses alone") + ")"
    faults += verdict.startswith("DISAGREEMENT")
    print(f"[{name}] {option} --gpus {gpus}: plan {p_batch if p_error is None else 'refuses'}, "
          f"train {t_batch if t_error is None else 'refuses'}: {verdict}")
    if verdict.startswith("DISAGREEMENT") or p_error:
        if p_error:
            print(f"    plan:  {p_error.removeprefix('error: ').replace(str(config), 'X')}")
        if t_error:
            print(f"    train: {t_error}")
print(f"{faults} disagreement(s) in {len(CONFIGS) * len(OPTIONS) * len(GPUS)} cells", file=sys.stderr)
print(f"{faults} disagreement(s) in {len(CONFIGS) * len(OPTIONS) * len(GPUS)} cells")
