"""Run a command, sample RSS/fds/threads of the process tree every INTERVAL s."""
import os, subprocess, sys, time, json
interval = float(os.environ.get("INTERVAL", "3"))
log = open(sys.argv[1], "w")
cmd = sys.argv[2:]
p = subprocess.Popen(cmd, stdout=open(sys.argv[1] + ".out", "w"), stderr=subprocess.STDOUT)
def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open(f"/proc/{d}/stat").read()
                ppid = int(st.rsplit(")", 1)[1].split()[1])
                if ppid == pid: out.append(int(d))
            except Exception: pass
    return out
def tree(pid):
    res = [pid]
    for c in children(pid): res += tree(c)
    return res
def info(pid):
    try:
        s = open(f"/proc/{pid}/status").read()
        d = dict(l.split(":", 1) for l in s.splitlines() if ":" in l)
        rss = int(d["VmRSS"].split()[0]) // 1024
        thr = int(d["Threads"])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        name = open(f"/proc/{pid}/cmdline").read().replace("\0", " ")[:60]
        return dict(pid=pid, rss_mb=rss, threads=thr, fds=fds, name=name)
    except Exception:
        return None
t0 = time.time()
while p.poll() is None:
    rows = [i for i in (info(q) for q in tree(p.pid)) if i]
    # last step from output
    try:
        txt = open(sys.argv[1] + ".out").read()
    except Exception: txt = ""
    ck = os.environ.get("OUTDIR", "") + "/checkpoints"
    steps = [int(n[5:]) for n in os.listdir(ck) if n.startswith("step_")] if os.path.isdir(ck) else []
    du = sum(os.path.getsize(os.path.join(a, f)) for a, _, fs in os.walk(os.environ.get("OUTDIR", "/nonexistent")) for f in fs if os.path.exists(os.path.join(a, f))) // 1024
    log.write(json.dumps({"ckpt": max(steps, default=0), "nck": len(steps), "du_kb": du, "t": round(time.time() - t0, 1), "procs": rows}) + "\n"); log.flush()
    time.sleep(interval)
print("rc", p.returncode)
