"""r119's probes: one command in /tmp/r119_probe (data/phantoms, tiny.yaml and output/model_run copied from h139's walk,
configs/ and examples/ from the worktree), its status as a program reads it (-15: killed by SIGTERM), its output read
as it comes. R119_CODE: the package's code (the worktree, or /work/main for main's)."""
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

HOME = Path("/tmp/r119_probe")
CODE = os.environ.get("R119_CODE", "/tmp/wt_r119")
ENV = {**os.environ, "PATH": "/work/main/.venv/bin:" + os.environ["PATH"], "PYTHONPATH": CODE,
       "XDG_CACHE_HOME": str(HOME / "xdg_cache"), "OMP_NUM_THREADS": "1"}
for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
    ENV.pop(name, None)
LAUNCH = ["/work/main/.venv/bin/python", "-m", "accelerate.commands.launch", "--config_file",
          "configs/accelerate/ddp.yaml", "--mixed_precision", "no", "--num_processes", "2"]


class Run:
    def __init__(self, argv: list[str], label: str, env: dict | None = None):
        print(f"\n=== {label}\n$ {' '.join(argv)}", flush=True)
        self.started = time.monotonic()
        self.process = subprocess.Popen(argv, cwd=HOME, env={**ENV, **(env or {})}, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True)
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

    def finish(self, timeout: float = 180) -> int:
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
        return self.process.returncode
