"""Command: python benchmarks/results/review_process_lost_order_2026-12-06/exit_time.py GB  (run for 1.5, 4, 8; output in
exit_time.txt): how long after a SIGKILL a process holding GB of touched memory is seen exiting (PF_EXITING, what
processes_beside reads) and becomes a zombie (its exit done, its sockets and its sentinel closed before)."""
import os, signal, sys, time, subprocess
gb = float(sys.argv[1])
p = subprocess.Popen([sys.executable, "-c", f"import time; b=bytearray(int({gb}*2**30)); b[::4096]=b'x'*len(b[::4096]); print('ok',flush=True); time.sleep(100)"], stdout=subprocess.PIPE)
p.stdout.readline()
def st(pid):
    try:
        f=open(f"/proc/{pid}/stat").read().rpartition(")")[2].split(); return f[0], int(f[6]) & 4
    except OSError: return None
t=time.monotonic(); os.kill(p.pid, signal.SIGKILL); first_exiting=None
while True:
    s=st(p.pid)
    if s and s[1] and first_exiting is None: first_exiting=time.monotonic()-t
    if s is None or s[0]=='Z': break
print(f"{gb} GB: PF_EXITING seen {first_exiting}, zombie after {time.monotonic()-t:.3f} s")
p.wait()
