"""A blip between process 1 and the launch's store, in a real launch of two (review of the hundred-and-seventh
session). Process 0 hosts the store (env://, as a launch without torch elastic's agent); process 1 reaches it
through a relay, whose connections are reset once both are inside ``stopping_together``: then process 0 raises an
error of the ones named (``error``) or both end normally (``normal``). Each process's status, the time from the
blip to the end, and its stderr: C++ tracebacks (torch prints one per failing store call) and lines with "error".

    PYTHONPATH=. .venv/bin/python benchmarks/results/store_blip_2026-12-05/two_processes.py [ROOT_OF_THE_PACKAGE]
"""

import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time


def rank(scenario, folder):
    import torch.distributed as dist

    from accelerated_seg.ranks_stop_together import stopping_together

    dist.init_process_group("gloo")
    open(os.path.join(folder, f"ready{dist.get_rank()}"), "w").close()
    try:
        with stopping_together((RuntimeError,), lambda message: f"{message} (the line)"):
            dist.barrier()
            while not os.path.exists(os.path.join(folder, "reset")):
                time.sleep(0.05)
            time.sleep(1.0)  # the watchers meet the reset connection
            if scenario == "error" and dist.get_rank() == 0:
                raise RuntimeError("process 0: a bug")
            dist.barrier()  # process 1 waits in a collective
    except RuntimeError as error:  # no watcher ended the process: said by the caller, as one process says it
        print(f"raised by the caller: {error}", file=sys.stderr)
        sys.exit(2)


class Relay:
    """Forwards each connection to the store; ``reset`` resets every one at once (RST), the store living on."""

    def __init__(self, port):
        self.port_to, self.listener, self.open = port, socket.create_server(("127.0.0.1", 0)), []
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            near, _ = self.listener.accept()
            while True:  # process 0's store may not listen yet
                try:
                    far = socket.create_connection(("127.0.0.1", self.port_to))
                    break
                except OSError:
                    time.sleep(0.05)
            self.open += [near, far]
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self.relay, args=(source, sink), daemon=True).start()

    @staticmethod
    def relay(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass

    def reset(self):
        for sock in self.open:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        self.open = []


def launch(scenario, package_root):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    relay = Relay(port)
    with tempfile.TemporaryDirectory() as folder:
        processes = [subprocess.Popen(
            [sys.executable, __file__, "--rank", scenario, folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, "RANK": str(number), "LOCAL_RANK": str(number), "WORLD_SIZE": "2",
                            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port if number == 0 else relay.port),
                            "OMP_NUM_THREADS": "1", "PYTHONPATH": package_root}) for number in (0, 1)]
        while not all(os.path.exists(os.path.join(folder, f"ready{number}")) for number in (0, 1)):
            time.sleep(0.1)
        time.sleep(1.0)
        relay.reset()
        open(os.path.join(folder, "reset"), "w").close()
        reset = time.monotonic()
        ended = [process.communicate(timeout=120)[1] for process in processes]
    print(f"{scenario}: statuses {[process.returncode for process in processes]}, "
          f"{time.monotonic() - reset:.1f} s from the blip to the end", flush=True)
    for number, stderr in enumerate(ended):
        said = [line[:110] for line in stderr.splitlines() if "error" in line.lower() and not line.startswith("frame")
                and "Exception raised" not in line]
        print(f"  process {number}: {stderr.count('Exception raised from')} C++ traceback(s); {said}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--rank"]:
        rank(*sys.argv[2:4])
    else:
        root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
        print(f"package from {root}", flush=True)
        for scenario in ("error", "normal"):
            launch(scenario, root)
