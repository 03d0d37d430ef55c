"""How many SIGINTs a rank of `accelerate launch` (torch 2.13's agent) receives for one terminal Ctrl-C: SIGINT to
the launcher's process group, as a terminal sends it. Checks the claim of h146's Fixed entry (torch starts each rank
in a session of its own, so the group's SIGINT does not reach a rank; the agent sends it on, once) against the older
Open entry's "twice". Each rank counts the SIGINTs its handler sees, writes the count and its session id, and stays
alive 3 s after the first so that a second one would be counted.

    cd <checkout> && .venv/bin/python \
        benchmarks/results/review_dropped_interrupt_rank_start_2026-12-07/sigints_per_rank.py
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rank(out: Path) -> None:
    count = [0]

    def handler(signum, frame):
        count[0] += 1

    signal.signal(signal.SIGINT, handler)
    (out / f"ready{os.environ['RANK']}").write_text(f"{os.getpid()} sid {os.getsid(0)} pgid {os.getpgid(0)}")
    deadline, first = time.monotonic() + 30, None
    while time.monotonic() < deadline and (first is None or time.monotonic() < first + 3):
        if count[0] and first is None:
            first = time.monotonic()
        time.sleep(0.01)
    (out / f"count{os.environ['RANK']}").write_text(str(count[0]))


def main() -> None:
    with tempfile.TemporaryDirectory() as top:
        top = Path(top)
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PROBE_OUT": str(top)}
        launch = subprocess.Popen([sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2",
                                   "--multi_gpu", "--num_machines", "1", "--mixed_precision", "no",
                                   "--dynamo_backend", "no", "--main_process_port", "29517", __file__, "rank"],
                                  env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
        deadline = time.monotonic() + 60
        while len(list(top.glob("ready*"))) < 2:
            assert time.monotonic() < deadline and launch.poll() is None, launch.stdout.read()
            time.sleep(0.05)
        print(f"launcher pid {launch.pid} (its own session, pgid {os.getpgid(launch.pid)})")
        for ready in sorted(top.glob("ready*")):
            print(f"{ready.name}: {ready.read_text()}")
        os.killpg(launch.pid, signal.SIGINT)  # a terminal's Ctrl-C: the launcher's whole process group
        output, _ = launch.communicate(timeout=90)
        for count in sorted(top.glob("count*")):
            print(f"{count.name}: {count.read_text()} SIGINT(s) seen")
        print(f"launcher status {launch.returncode}")
        print("\n".join(line for line in output.splitlines() if "signal" in line.lower())[-2000:])


if __name__ == "__main__":
    if sys.argv[1:] == ["rank"]:
        rank(Path(os.environ["PROBE_OUT"]))
    else:
        main()
