"""h141's probes: one command run in /tmp/h141_probe (a fresh folder; each example writes its own phantoms under its
--out), its status as a program reads it (-15: killed by SIGTERM), its output read as it comes. H141_CODE: the
package's code and examples (the worktree /tmp/wt_h141 by default, /work/main for main's). Adapted from
r119_review_2026-12-07/probe_lib.py."""
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

HOME = Path("/tmp/h141_probe")
HOME.mkdir(exist_ok=True)
CODE = os.environ.get("H141_CODE", "/tmp/wt_h141")
ENV = {**os.environ, "PATH": "/work/main/.venv/bin:" + os.environ["PATH"], "PYTHONPATH": CODE,
       "XDG_CACHE_HOME": str(HOME / "xdg_cache"), "OMP_NUM_THREADS": "1"}
for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
    ENV.pop(name, None)
# tqdm's bar at its third step or later ("  3/400 [..."): a step's line
A_STEP = r"\b([3-9]|[1-9]\d+)/\d+ \["


class Run:
    def __init__(self, argv: list[str], label: str, env: dict | None = None):
        print(f"\n=== {label}\n$ {' '.join(argv)}", flush=True)
        self.started = time.monotonic()
        # SIGINT's default in the command, as a terminal's has it: a probe run in the background (nohup ... &)
        # inherits it ignored, which Python keeps (walk_1's first Ctrl-C, C, found the fit training on: 200 steps, 0)
        self.process = subprocess.Popen(argv, cwd=HOME, env={**ENV, **(env or {})}, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True,
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.out = bytearray()
        self.readers = [threading.Thread(target=self._read, args=(s,), daemon=True)
                        for s in (self.process.stdout, self.process.stderr)]
        for reader in self.readers:
            reader.start()

    def _read(self, stream):
        while chunk := os.read(stream.fileno(), 65536):
            self.out += chunk

    def text(self) -> str:
        return bytes(self.out).decode(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if found := re.search(pattern, self.text()):
                print(f"  [{time.monotonic() - self.started:.1f} s] saw {found.group(0)[:160]!r}", flush=True)
                return found.group(0)
            if self.process.poll() is not None:
                print(f"  ended ({self.process.returncode}) before {pattern!r}", flush=True)
                return ""
            time.sleep(0.02)
        print(f"  no {pattern!r} in {timeout} s", flush=True)
        return ""

    def group(self, sig, name=""):
        print(f"  [{time.monotonic() - self.started:.1f} s] {name or signal.Signals(sig).name} to the group",
              flush=True)
        os.killpg(self.process.pid, sig)

    def finish(self, timeout: float = 180, tail: int = 0) -> int:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            print(f"  STILL RUNNING after {timeout} s: killing the group", flush=True)
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for reader in self.readers:
            reader.join(5)
        print(f"  status {self.process.returncode} (as a program reads it), {time.monotonic() - self.started:.1f} s",
              flush=True)
        if tail:
            lines = [line for line in re.split(r"[\r\n]", self.text()) if line.strip() and not re.search(A_STEP, line)]
            print("  last lines (the bar's left out):\n    " + "\n    ".join(lines[-tail:]), flush=True)
        return self.process.returncode


def preempted_then_signalled_again(argv: list[str], label: str, attempts: int = 4) -> list[int]:
    """``argv`` stopped by SIGTERM to its group after a step's line, then a second SIGTERM 0.1 s after its
    ``preempted:`` line (the interpreter's shutdown): each attempt's status."""
    statuses = []
    for attempt in range(attempts):
        run = Run(argv(attempt) if callable(argv) else argv, f"{label} ({attempt + 1})")
        run.wait_for(A_STEP, timeout=300)
        run.group(signal.SIGTERM)
        if run.wait_for(r"preempted: [^\n]*", timeout=120):
            time.sleep(0.1)
            if run.process.poll() is None:
                run.group(signal.SIGTERM, "SIGTERM (second)")
            else:
                print("  ended before the second", flush=True)
        statuses.append(run.finish(tail=6))
    print(f"\n{label}: statuses {statuses}", flush=True)
    return statuses
