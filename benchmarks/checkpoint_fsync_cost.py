"""What flushing a checkpoint to the disk costs a save: ``save_training_state`` with its fsyncs
(``files.sync_folder`` and ``sync_directory``, seventy-fourth session) against the same save with
them turned off, in one process, alternating, each save starting from a disk with nothing left to
write (``os.sync()`` first). The state of each network is its weights, AdamW's two moments after one
step, and the RNG and scheduler files, as a run saves them.

Without the fsyncs a save returns once the files are in the page cache, and the kernel writes them
out in the following seconds anyway; the seconds ``os.sync()`` then takes are measured too, so the
difference reads as when the disk work happens (inside the save, or behind the next steps), not as
work added. Writes benchmarks/results/checkpoint_fsync_cost_<tag>.json with the machine, the
filesystem of ``--folder`` and the command.

    PYTHONPATH=. python benchmarks/checkpoint_fsync_cost.py --folder /path/on/the/runs/disk --tag 2cpu
"""
import argparse
import os
import shutil
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import torch
from accelerate import Accelerator

from accelerated_seg import checkpoint
from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.models import build_from_spec, model_spec

NETWORKS = {"unet": {}, "segresnet": {}, "swinunetr": {}}


def filesystem_of(folder: Path) -> dict:
    """The mount that holds ``folder`` (/proc/mounts' longest matching mount point): its type and device."""
    best = {"mount_point": "", "type": None, "device": None}
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return best
    resolved = str(folder.resolve())
    for line in lines:
        device, mount_point, kind = line.split()[:3]
        inside = resolved == mount_point or resolved.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) > len(best["mount_point"]):
            best = {"mount_point": mount_point, "type": kind, "device": device}
    return best


@contextmanager
def fsyncs(on: bool):
    """The save as it is (on) or with every flush a no-op (off)."""
    if on:
        yield
        return
    with mock.patch.object(checkpoint, "sync_folder", lambda folder: None), \
            mock.patch.object(checkpoint, "sync_directory", lambda folder: None):
        yield


def prepared_state(accelerator: Accelerator, name: str):
    """A network and AdamW after one step, prepared: what a run's save writes."""
    model = build_from_spec(model_spec(name, 1, 3, (64,) * 3, NETWORKS[name]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
    for parameter in model.parameters():
        parameter.grad = torch.randn_like(parameter)
    optimizer.step()
    return sum(p.numel() for p in model.parameters())


def timed_save(accelerator: Accelerator, folder: Path, step: int, flushed: bool) -> dict:
    os.sync()  # nothing of an earlier save is left for this one to wait for
    start = time.perf_counter()
    with fsyncs(flushed):
        saved = checkpoint.save_training_state(accelerator, folder, step, keep_last=1, config_yaml="{}\n")
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    os.sync()  # what the kernel still had to write after the save returned
    return {"save_s": seconds, "then_sync_s": time.perf_counter() - start,
            "bytes": sum(p.stat().st_size for p in saved.rglob("*") if p.is_file())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, required=True,
                        help="a scratch folder on the disk whose cost is measured (made, and removed after)")
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=list(NETWORKS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tag", default="2cpu", help="the result's file name: checkpoint_fsync_cost_<tag>.json")
    args = parser.parse_args()
    scratch = args.folder / "checkpoint_fsync_cost_scratch"
    if scratch.exists():
        sys.exit(f"{scratch} exists: give a --folder without it (it is removed after the run)")
    results = {}
    try:
        for name in args.networks:
            accelerator = Accelerator(cpu=True)
            parameters = prepared_state(accelerator, name)
            runs = {True: [], False: []}
            for repeat in range(args.repeats):
                for flushed in ((True, False) if repeat % 2 == 0 else (False, True)):
                    runs[flushed].append(timed_save(accelerator, scratch / name, repeat + 1, flushed))
            shutil.rmtree(scratch / name)

            def median(key, flushed):
                return round(statistics.median(run[key] for run in runs[flushed]), 3)

            results[name] = {
                "parameters": parameters, "checkpoint_bytes": runs[True][0]["bytes"],
                "save_s_with_fsync": median("save_s", True), "save_s_without_fsync": median("save_s", False),
                "sync_after_s_with_fsync": median("then_sync_s", True),
                "sync_after_s_without_fsync": median("then_sync_s", False),
                "save_ratio_with_over_without": round(median("save_s", True) / median("save_s", False), 2),
                "runs": {("with_fsync" if flushed else "without_fsync"): [
                    {key: round(value, 4) if isinstance(value, float) else value for key, value in run.items()}
                    for run in runs[flushed]] for flushed in (True, False)}}
            print(name, {key: value for key, value in results[name].items() if key != "runs"}, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    record = {"what": "seconds of save_training_state with its fsyncs against without them (median of the repeats, "
                      "alternating), each after os.sync(); then_sync_s: what os.sync() took right after the save",
              "filesystem": filesystem_of(args.folder), "repeats": args.repeats, "networks": results}
    out = write_result(f"checkpoint_fsync_cost_{args.tag}", record, None, command=script_command())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
