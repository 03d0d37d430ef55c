"""Two "nodes" (two torchrun agents on this machine, c10d rendezvous on 127.0.0.1): a launched `accelerated-seg
predict` whose process on one node is killed outright (SIGKILL, as the OOM killer would) while held in its checks,
before the launch's processes meet; the process on the other node waits in the rendezvous. What does the other node's
process say, and with what status, when its agent ends it? said_once_until_the_processes_meet counts the processes
beside it on its own node alone (/proc): there, none has ended.

Run (2 CPU cores):
    cd /tmp/wt_r90 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/review_predict_sigusr1_2026-12-06/two_nodes_one_killed.py [NPROC_PER_NODE ...]

Reports each agent's status and the seconds from the kill to its end, the lines said by each node's processes and
each node's exit codes in torch's table.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CODE = os.environ.get("PROBE_CODE", str(ROOT))
sys.path.insert(0, CODE)
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402

HELD = str(ROOT / "tests" / "predict_held_before_the_processes_meet.py")
ENV = {**os.environ, "PYTHONPATH": CODE, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}

root = Path(tempfile.mkdtemp(prefix="r90n_"))
spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
             {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
scans = write_synthetic_dataset(root / "scans", num_cases=2, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                spacing_mm=2.0).parent / "imagesTr"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(number: int, per_node: int) -> None:
    out, marks = root / f"out_{number}", root / f"marks_{number}"
    marks.mkdir()
    last = str(2 * per_node - 1)  # the last rank, held in its checks, then killed
    port = free_port()
    agents = []
    for node in range(2):
        command = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc_per_node", str(per_node),
                   "--rdzv_backend", "c10d", "--rdzv_endpoint", f"127.0.0.1:{port}", "--rdzv_id", f"r90_{number}",
                   HELD, "predict", "--model", str(root / "model"), str(scans), "--output", str(out)]
        agents.append(subprocess.Popen(command, env={**ENV, "HELD_RANKS": last, "MARKS": str(marks)}, cwd=CODE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       start_new_session=True))
    deadline = time.monotonic() + 120
    others = [str(rank) for rank in range(2 * per_node - 1)]
    while not ((marks / f"held.{last}").exists() and all((marks / f"meeting.{r}").exists() for r in others)):
        assert time.monotonic() < deadline and all(a.poll() is None for a in agents), "not held"
        time.sleep(0.05)
    time.sleep(0.5)  # the others into torch's wait
    os.kill(int((marks / f"held.{last}").read_text()), signal.SIGKILL)
    killed = time.monotonic()
    for node, agent in enumerate(agents):
        try:
            stdout, stderr = agent.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(agent.pid, signal.SIGKILL)
            stdout, stderr = agent.communicate()
        took = time.monotonic() - killed
        lines = [line for line in stderr.splitlines() if "before it began" in line and "traceback" not in line]
        codes = re.findall(r"rank\s*:\s*(\d+).*?\n.*?exitcode\s*:\s*(-?\d+)", stderr)
        print(f"{per_node} per node, agent {node}: status {agent.returncode} {took:.2f} s after the kill; said "
              f"{lines or 'nothing'}; exit codes in its table {codes or 'none'}", flush=True)


for number, per_node in enumerate([int(arg) for arg in sys.argv[1:]] or [1, 2]):
    run(number, per_node)
