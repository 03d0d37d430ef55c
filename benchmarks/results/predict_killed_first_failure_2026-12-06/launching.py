"""What the probes beside this file launch with: tests/late_agent_launch.py (accelerate's launch, torch's agent noting
its first look that finds a process ended, held AGENT_LATE_S late) and a free port for the launch's store."""
import socket
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[3] / "tests" / "late_agent_launch.py"


def free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]
