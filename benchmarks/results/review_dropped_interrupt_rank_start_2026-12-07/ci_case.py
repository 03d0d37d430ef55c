"""The CI run's case (tests/test_preemption.py::test_ctrl_c_while_a_rank_waits_in_the_rendezvous_ends_the_launch_at_
once_saying_so, docs/known_issues.md), with the SIGINT that reaches rank 1 made to land in a weakref callback, as one
landed in importlib's module-lock callback in that run: a terminal's Ctrl-C (SIGINT to the launcher's process group)
once rank 0 waits in the rendezvous and rank 1 checks its settings. Rank 1 sends it from inside a weakref callback
and spins there SPIN_S seconds (2), so that the agent's SIGINT, sent on to it, is handled inside the callback.
SIGNAL_TO=self: rank 1 signals itself instead; none: nobody. What the launch does, at the package on PYTHONPATH: main
before h146 (246ecb9e^, its accelerated_seg copied by git archive) or after. With PROBE_SHOW=1, the output's tail and
rank 1's trace: its package, the signal sent, the unraisable its hook saw (before h146; after, training's block keeps
it first), and who ended it with os._exit, where its main thread was then.

    cd <checkout> && PROBE_SHOW=1 PYTHONPATH=<package> .venv/bin/python \
        benchmarks/results/review_dropped_interrupt_rank_start_2026-12-07/ci_case.py [runs]
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

HERE = Path(__file__).resolve()
TESTS = Path.cwd() / "tests"
PACKAGE = os.environ.get("PYTHONPATH", "")  # read before conftest puts the tests' checkout in front of it


def rank_main() -> None:
    sys.path.insert(0, str(TESTS))
    import interrupted_before_the_processes_meet as worker
    from accelerated_seg.cli import end_process, main

    def in_a_callback() -> None:
        class Finalized:
            pass

        def callback(_reference):
            trace = open(os.environ["SIGNALLED_AT"] + ".trace", "a")
            trace.write(f"handler {signal.getsignal(signal.SIGINT)!r}, pid {os.getpid()} pgid {os.getpgid(0)}, "
                        f"parent {os.getppid()} pgid {os.getpgid(os.getppid())} at {time.time()}\n")
            trace.flush()
            to = os.environ.get("SIGNAL_TO", "group")
            if to == "group":
                os.killpg(os.getpgid(os.getppid()), signal.SIGINT)  # as the test's SIGNAL_TO=group
            elif to == "self":
                os.kill(os.getpid(), signal.SIGINT)
            trace.write(f"sent at {time.time()}\n")
            trace.flush()
            until = time.monotonic() + float(os.environ.get("SPIN_S", "2"))
            beat = 0.0
            while time.monotonic() < until:  # the agent's SIGINT is handled here, inside the callback
                if time.monotonic() > beat:
                    trace.write(f"spinning at {time.time()}\n")
                    trace.flush()
                    beat = time.monotonic() + 0.05
            print(f"rank 1: no SIGINT handled in the callback's {os.environ.get('SPIN_S', '2')} s; SIGINT's handler "
                  f"{signal.getsignal(signal.SIGINT)!r}", file=sys.stderr, flush=True)

        finalized = Finalized()
        reference = weakref.ref(finalized, callback)
        del finalized
        assert reference() is None

    def signalled() -> None:
        signalled_at, others = Path(os.environ["SIGNALLED_AT"]), int(os.environ["WORLD_SIZE"]) - 1
        deadline = time.monotonic() + 60
        while len(list(signalled_at.parent.glob(f"{signalled_at.name}.rank*_meeting"))) < others:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        worker.rank0_waits_in_the_rendezvous()
        signalled_at.write_text(repr(time.time()))
        in_a_callback()

    rank = os.environ["RANK"]
    if rank == "1":
        import atexit
        import traceback

        def noted(what: str) -> None:
            with open(os.environ["SIGNALLED_AT"] + ".trace", "a") as trace:
                trace.write(f"{what} at {time.time()}\n")

        default = sys.unraisablehook

        def hook(unraisable) -> None:
            noted(f"unraisable {unraisable.exc_type.__name__} (hook {sys.unraisablehook!r})")
            default(unraisable)

        sys.unraisablehook = hook
        atexit.register(noted, "atexit")
        exiting = os._exit

        def exit_noted(status):  # who ends rank 1 at once, and where its main thread is then
            main_frame = sys._current_frames().get(threading.main_thread().ident)
            noted(f"os._exit({status}) on thread {threading.current_thread().name}: "
                  + " < ".join(f"{frame.f_code.co_name}" for frame, _ in traceback.walk_stack(None))[:400]
                  + " || main thread in: "
                  + " < ".join(f"{frame.f_code.co_name}" for frame, _ in traceback.walk_stack(main_frame))[:600])
            exiting(status)

        os._exit = exit_noted
        import accelerated_seg

        noted(f"rank 1's package {accelerated_seg.__file__}")
        excepthook = sys.excepthook
        sys.excepthook = lambda *info: (noted("uncaught " + "".join(traceback.format_exception(*info))[-300:]),
                                        excepthook(*info))
        worker.patched("accelerated_seg.configured_run:_checks_before_anything_is_written", signalled)
    else:
        marker = Path(f"{os.environ['SIGNALLED_AT']}.rank{rank}_meeting")
        worker.patched("accelerated_seg.configured_run:make_accelerator", lambda: marker.write_text(str(os.getpid())))
    end_process(main(sys.argv[1:]))


def main(runs: int) -> None:
    sys.path.insert(0, str(TESTS))
    from accelerated_seg.data.synthetic import write_synthetic_dataset
    from conftest import tiny_overrides
    from test_distributed import _free_port

    import accelerated_seg
    print(f"package: {accelerated_seg.__file__}")
    with tempfile.TemporaryDirectory() as top:
        top = Path(top)
        data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0,
                                       size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
        for run in range(runs):
            out, signalled_at = top / f"out{run}", top / f"signalled{run}"
            env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PYTHONPATH": PACKAGE,
                   "SIGNALLED_AT": str(signalled_at), "R127_RANK": "1"}
            command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision",
                       "no", "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1",
                       "--dynamo_backend", "no", str(HERE), "train",
                       *tiny_overrides(data, out, **{"train.max_steps": 2, "train.val_every": 0})]
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=200,
                                  start_new_session=True)
            ended = time.time()
            output = done.stdout + done.stderr
            after = ended - float(signalled_at.read_text()) if signalled_at.is_file() else float("nan")
            print(f"run {run}: launch status {done.returncode}, ended {after:.1f} s after the signal (the launcher's "
                  f"end); lines {[line for line in done.stdout.splitlines() if 'interrupted' in line]}; "
                  f"'Exception ignored' {output.count('Exception ignored')}; tracebacks {output.count('Traceback')}; "
                  f"ranks' exit codes {re.findall(r'exitcode  : (-?[0-9]+)', output)}; "
                  f"SIGKILL {'forcefully exiting via' in output}; run folder written {out.exists()}", flush=True)
            if os.environ.get("PROBE_SHOW"):
                print("    " + "\n    ".join(output[-2500:].splitlines()))
                trace = Path(f"{signalled_at}.trace")
                if trace.is_file():
                    lines = trace.read_text().splitlines()
                    print("    rank 1's trace: " + " | ".join(lines[:1] + lines[2:]))


if __name__ == "__main__":
    if os.environ.get("R127_RANK"):
        rank_main()
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
