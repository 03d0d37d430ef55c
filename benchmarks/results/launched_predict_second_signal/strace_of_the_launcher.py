"""Why a second signal ends `accelerate launch` with -15 (or -2), not 143 (130): strace of the launcher (torch 2.13's
elastic agent inside accelerate 1.16's launch, Python 3.11) given one SIGTERM, its 2 processes (stopping_worker.py)
stopping in 0.1 s. Its output (.txt): the launcher reaps them, then Python's finalization (Py_FinalizeEx ->
_PySignal_Fini) puts SIGTERM's default back, about 1 s before its exit_group(143); a second SIGTERM in that second
finds the default, and the launcher dies of it. Nothing of accelerated_seg runs in the launcher.

    PYTHONPATH=<package> .venv/bin/python strace_of_the_launcher.py <checkout's tests/>
"""
import os, signal, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
from test_distributed import _free_port

top = Path(tempfile.mkdtemp())
marker, trace = top / "running", top / "strace.txt"
cmd = ["strace", "-tt", "-k", "-e", "trace=rt_sigaction,exit_group,wait4", "-e", "signal=SIGTERM", "-o", str(trace),
       sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
       "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
       str(Path(__file__).with_name("stopping_worker.py")), str(marker)]
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "STOP_S": "0.1"}
strace = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL, start_new_session=True)
while not all(Path(f"{marker}.{rank}").exists() for rank in (0, 1)):
    time.sleep(0.05)
time.sleep(0.5)
launcher = int(Path(f"/proc/{strace.pid}/task/{strace.pid}/children").read_text().split()[0])
os.kill(launcher, signal.SIGTERM)
strace.wait()
lines = trace.read_text().splitlines()
first = next(number for number, line in enumerate(lines) if "--- SIGTERM" in line)
print("\n".join(line for line in lines[first:] if not line.startswith(" >") or "Py" in line or "exit" in line
                or "_Fini" in line))
