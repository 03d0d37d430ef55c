"""Command: cd <checkout> && PYTHONPATH=<checkout>:<checkout>/tests python \
    benchmarks/results/estimator_process_lost_three_2026-12-06/three_processes.py [RUNS] > <output>.txt 2>&1
The hundred-and-sixteenth session (helper h82): the estimator's own launch (Segmentation(..., multi_gpu=True).fit,
notebook_launcher's THREE CPU processes, gloo, 6 steps, save_every=2), process KILL_RANK (0, 1, 2) SIGKILLing itself
at KILL_WHERE: ``loss:2`` (its third step's forward: step_2 saved) or ``save:4`` (the save of step_4, as its files are
flushed: .step_4.partial written, step_2 the newest whole). RUNS launches of each (default 3), each in a child process
of this script (the one run: KILL_RANK and KILL_WHERE set). Each run reports: what fit raised and its fields, how long
after the kill; which processes wrote the stopped step, which step, and in which order (``write_stopped_step``
wrapped in the launched processes); the processes' lines (``error: process N ... was lost``); torch's log records of
the death in the launching process's stderr (``failed (exitcode: -9)``, its traceback, ``Terminating process``); and
whether fit(..., resume='latest') continues to step 6.
Set from the environment since its review (r73, benchmarks/results/review_process_lost_order_2026-12-06/), each off
by default: BALLAST_GB (the killed process holds that much memory, touched, as it dies), AGENT_LATE_S (torch's agent
polls that much later), WHERES and RANKS (comma-separated: the kills run), PROCESSES (3 by default)."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


#: Printed between the fit that loses a process and its resume, on stdout and stderr.
RESUME = "=== fit(..., resume='latest') ==="


def one_run() -> None:
    os.environ.update(ACCELERATE_USE_CPU="true", OMP_NUM_THREADS="1")
    import accelerated_seg.estimator as estimator
    import accelerated_seg.interrupted_run as interrupted_run
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from faults import loss_forward_with
    from monai.losses import DiceCELoss
    from test_estimator import _tiny_segmentation

    top = Path(tempfile.mkdtemp(prefix="estimator_process_lost_three_"))
    ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                 spacing_mm=2.0)
    estimator.gpus_to_launch = lambda: int(os.environ.get("PROCESSES", "3"))
    kill_rank, (kind, _, number) = os.environ["KILL_RANK"], os.environ["KILL_WHERE"].partition(":")
    killed_at, writes = top / "killed", top / "writes"

    def die():
        # BALLAST_GB: memory the killed process holds, whose freeing its exit waits for, as a real training process's
        # (GBs of host memory, a GPU's context): it is seen exiting (PF_EXITING) at once, a zombie only after that
        ballast = bytearray(int(float(os.environ.get("BALLAST_GB", "0")) * 2**30))
        ballast[::4096] = b"x" * len(ballast[::4096])
        killed_at.write_text(repr(time.time()))
        os.kill(os.getpid(), signal.SIGKILL)

    forward = DiceCELoss.forward
    if kind == "loss":
        def at_forward(call, loss):  # in the launched processes
            if call == int(number) and os.environ.get("RANK") == kill_rank:
                die()
            return loss

        DiceCELoss.forward = loss_forward_with(at_forward)
    else:
        from accelerated_seg import checkpoint

        flush = checkpoint.sync_folder

        def flushing(folder):
            if folder.name == f".step_{number}.partial" and os.environ.get("RANK") == kill_rank:
                die()
            return flush(folder)

        checkpoint.sync_folder = flushing
    write = interrupted_run.write_stopped_step

    def noted(path, step):  # who writes the stopped step, and when
        with open(writes, "a") as out:
            out.write(json.dumps({"rank": os.environ.get("RANK"), "step": step, "at": time.time()}) + "\n")
        write(path, step)

    interrupted_run.write_stopped_step = noted
    if float(os.environ.get("AGENT_LATE_S", "0")) > 0:
        # AGENT_LATE_S: torch's agent (in this launching process) polls its processes that much later than its 0.1 s,
        # as an agent held up would (a busy machine, a notebook kernel's other threads)
        from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent

        monitor = LocalElasticAgent._monitor_workers

        def late(self, *args, **kwargs):
            time.sleep(float(os.environ["AGENT_LATE_S"]))
            return monitor(self, *args, **kwargs)

        LocalElasticAgent._monitor_workers = late
    model, data = _tiny_segmentation(ds, top, multi_gpu=True, save_every=2)
    result = {}
    try:
        model.fit(data, steps=6)
        result["fit"] = f"returned, step {model.summary['step']}"
    except BaseException as error:  # noqa: BLE001 - what a user sees
        result["after_kill_s"] = round(time.time() - float(killed_at.read_text()), 2)
        result["fit"] = f"{type(error).__name__}: {error}"
        result["fields"] = {name: str(getattr(error, name)) for name in ("process", "step", "checkpoint")
                            if hasattr(error, name)}
    kill = float(killed_at.read_text()) if killed_at.exists() else 0.0
    result["writes"] = ([{**(w := json.loads(line)), "at": round(w["at"] - kill, 2)}
                         for line in writes.read_text().splitlines()] if writes.exists() else [])
    result["checkpoints"] = sorted(p.name for p in (top / "run" / "checkpoints").iterdir())
    DiceCELoss.forward = forward
    if kind != "loss":
        checkpoint.sync_folder = flush
    print(RESUME, flush=True)
    print(RESUME, file=sys.stderr, flush=True)
    try:
        model.fit(data, steps=6, resume="latest")
        result["resume"] = f"returned, step {model.summary['step']}"
    except BaseException as error:  # noqa: BLE001
        result["resume"] = f"{type(error).__name__}: {str(error)[:300]}"
    print("RESULT " + json.dumps(result), flush=True)


def matrix(runs: int) -> None:
    here = Path(__file__).resolve()
    for where in os.environ.get("WHERES", "loss:2,save:4").split(","):
        for rank in os.environ.get("RANKS", "0,1,2").split(","):
            for run in range(runs):
                started = time.time()
                done = subprocess.run([sys.executable, str(here)], capture_output=True, text=True, timeout=600,
                                      env={**os.environ, "KILL_RANK": rank, "KILL_WHERE": where})
                first_fit = done.stdout.split(RESUME)[0] + done.stderr.split(RESUME)[0]  # the fit that lost a process
                result = next((json.loads(line[7:]) for line in done.stdout.splitlines()
                               if line.startswith("RESULT ")), {"fit": f"no result, rc {done.returncode}"})
                torch_lines = [re.sub(r"^.*?\] ", "", line)[:110] for line in first_fit.splitlines()
                               if re.search(r"^[EWI]\d{4} .*(torch/|spawn\.py)", line)]
                lines = [line[:90] for line in first_fit.splitlines() if "error: process" in line]
                print(f"== kill process {rank} at {where}, run {run + 1}/{runs} ({time.time() - started:.0f} s): "
                      f"fit {result.get('fit', '')[:230]}")
                print(f"   fields {result.get('fields')}, {result.get('after_kill_s')} s after the kill; "
                      f"checkpoints {result.get('checkpoints')}; resume {result.get('resume')}")
                print(f"   stopped step written by {result.get('writes')}")
                print(f"   processes' lines ({len(lines)}): {lines}")
                print(f"   torch's lines in the launching process's log ({len(torch_lines)}): "
                      f"{torch_lines}", flush=True)


if __name__ == "__main__":
    if "KILL_RANK" in os.environ:
        one_run()
    else:
        matrix(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
