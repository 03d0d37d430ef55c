"""The walk's helpers (h139): commands run as a user's terminal runs them, in a fresh folder standing for a clone
(/tmp/walk_h139/clone: configs/ and examples/ copied; the package from the worktree by PYTHONPATH; the project's
venv; a fresh XDG_CACHE_HOME). Each command is its own session (start_new_session=True), so os.killpg sends a
group's signal as a terminal's Ctrl-C does; the signal is timed after a line the run prints, not by sleep alone."""
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import psutil

WALK = Path("/tmp/walk_h139")
CLONE = WALK / "clone"
WT = Path("/tmp/wt_h139")
CODE = os.environ.get("WALK_CODE", str(WT))  # the package's code: the worktree's, or main's (/work/main) for a before
ENV = {**os.environ, "PATH": "/work/main/.venv/bin:" + os.environ["PATH"], "PYTHONPATH": CODE,
       "XDG_CACHE_HOME": str(WALK / "xdg_cache"), "OMP_NUM_THREADS": "1"}
LAUNCH = "ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/ddp.yaml --mixed_precision no " \
         "--num_processes 2"
KEYWORDS = re.compile(r"interrupt|stopped|preempted|Traceback|rror|Failed|resumed|wrote|lost|began|whole|"
                      r"exception|Exception|signal|did not exit|exported")


def setup():
    CLONE.mkdir(parents=True, exist_ok=True)
    for sub in ("configs", "examples"):
        if not (CLONE / sub).exists():
            shutil.copytree(WT / sub, CLONE / sub)
    os.chdir(CLONE)


class Run:
    """One command, its output read as it comes (both streams, with the time each chunk came)."""

    def __init__(self, command: str, label: str = ""):
        self.command, self.label = command, label
        print(f"\n=== {label}\n$ {command}", flush=True)
        self.started = time.monotonic()
        self.process = subprocess.Popen(["bash", "-c", command], cwd=CLONE, env=ENV, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True)
        self.out, self.err = bytearray(), bytearray()
        self.readers = [threading.Thread(target=self._read, args=(self.process.stdout, self.out), daemon=True),
                        threading.Thread(target=self._read, args=(self.process.stderr, self.err), daemon=True)]
        for reader in self.readers:
            reader.start()
        self.signalled_at = None

    @staticmethod
    def _read(stream, into):
        while chunk := os.read(stream.fileno(), 65536):
            into += chunk

    def text(self) -> str:
        return (bytes(self.out) + b"\n" + bytes(self.err)).decode(errors="replace").replace("\r", "\n")

    def wait_for(self, pattern: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                print(f"  [{time.monotonic() - self.started:.1f} s] saw {found.group(0)!r}", flush=True)
                return found.group(0)
            if self.process.poll() is not None:
                print(f"  ended ({self.process.returncode}) before {pattern!r}", flush=True)
                return ""
            time.sleep(0.05)
        print(f"  no {pattern!r} in {timeout} s", flush=True)
        return ""

    def processes(self) -> list[psutil.Process]:
        """Every process under the command's shell: the launcher, its ranks (torch starts each in a session of its
        own), a pipe's reader."""
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def ranks(self) -> list[psutil.Process]:
        found = []
        for child in self.processes():
            try:
                line = " ".join(child.cmdline())
            except psutil.Error:
                continue
            if "accelerated_seg" in line or "accelerated-seg" in line or "examples/train.py" in line:
                if "accelerate launch" not in line and "accelerate.commands" not in line and \
                        not line.startswith("bash") and "/bin/accelerate " not in line:
                    found.append(child)
        return found

    def launcher(self) -> psutil.Process:
        for child in [psutil.Process(self.process.pid), *self.processes()]:
            try:
                line = " ".join(child.cmdline())
                if "accelerate launch" in line and not line.startswith("bash"):
                    return child
            except psutil.Error:
                pass
        raise RuntimeError("no launcher")

    def group(self, sig, name=""):
        self.signalled_at = time.monotonic()
        print(f"  [{self.signalled_at - self.started:.1f} s] {name or signal.Signals(sig).name} to the group",
              flush=True)
        os.killpg(self.process.pid, sig)

    def to(self, pid: int, sig, name=""):
        self.signalled_at = time.monotonic()
        print(f"  [{self.signalled_at - self.started:.1f} s] {signal.Signals(sig).name} to pid {pid} {name}",
              flush=True)
        os.kill(pid, sig)

    def finish(self, timeout: float = 180, show=KEYWORDS) -> int:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            print(f"  STILL RUNNING after {timeout} s: killing the group", flush=True)
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for reader in self.readers:
            reader.join(5)
        ended = time.monotonic()
        since = f", {ended - self.signalled_at:.1f} s after the signal" if self.signalled_at else ""
        print(f"  status {self.process.returncode} (the shell's), {ended - self.started:.1f} s in all{since}")
        for name, data in (("stdout", self.out), ("stderr", self.err)):
            for line in data.decode(errors="replace").replace("\r", "\n").splitlines():
                if show.search(line):
                    print(f"  {name}| {line[:1500]}")
        return self.process.returncode


def files(folder, hidden_only=False):
    """The files under ``folder``, hidden names (a leading dot, .partial, .tmp) marked."""
    folder = CLONE / folder
    if not folder.exists():
        print(f"  {folder.relative_to(CLONE)}: not there")
        return
    names = sorted(str(p.relative_to(CLONE)) for p in folder.rglob("*"))
    hidden = [n for n in names if any(part.startswith(".") or ".partial" in part or part.endswith(".tmp")
                                      for part in Path(n).parts)]
    if not hidden_only:
        shown = [n for n in names if n.count("/") <= 3][:60]
        print(f"  {folder.relative_to(CLONE)}: {len(names)} entries: " + " ".join(shown))
    print(f"  hidden names left: {hidden or 'none'}")
