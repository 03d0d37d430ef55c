"""What the probes of this folder share: a tiny phantom dataset in a fresh temporary folder, the environment naming
this worktree's code (or PROBE_CODE's, a checkout to compare with: the code before a fix), the accelerated-seg
command, and a signal sent at a delay. Copied from review_stopping_doc_2026-12-06/ (the hundred-and-eighteenth
session's review r75) by the hundred-and-eighteenth session, PROBE_CODE added.

Each probe's argument SIGNAL@SECONDS (SIGUSR1@3) is a signal and how long after the command's start it is sent.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402,F401 - the probes' training settings

__all__ = ["ENV", "EXE", "ROOT", "dataset", "free_port", "signalled", "signals_at", "tiny_overrides"]

ENV = {**os.environ, "PYTHONPATH": os.environ.get("PROBE_CODE", str(ROOT))}
EXE = str(Path(sys.executable).parent / "accelerated-seg")


def dataset(prefix: str, cases: int = 9, size_mm=(40.0, 40.0, 32.0)) -> tuple[Path, Path]:
    """A fresh folder and the dataset.json of ``cases`` phantoms (3 of them validation) in it."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    return root, write_synthetic_dataset(root / "data", num_cases=cases, num_validation=3, seed=0, size_mm=size_mm,
                                         spacing_mm=2.0)


def signals_at(arguments: list[str], default: list[str]) -> list[tuple[signal.Signals, float]]:
    """SIGNAL@SECONDS arguments (``default`` where none is given) as (signal, delay) pairs."""
    return [(getattr(signal, name), float(at)) for name, at in (a.split("@") for a in (arguments or default))]


def signalled(command: list[str], sig: signal.Signals, delay: float, env=None, stderr=subprocess.PIPE,
              new_session: bool = False) -> tuple[subprocess.Popen, str, str, float]:
    """``command`` run, sent ``sig`` ``delay`` s after its start; its process, stdout, stderr and seconds in all."""
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env or ENV, stdout=subprocess.PIPE, stderr=stderr, text=True,
                            start_new_session=new_session)
    time.sleep(delay)
    proc.send_signal(sig)
    stdout, err = proc.communicate(timeout=300)
    return proc, stdout, err or "", time.monotonic() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
