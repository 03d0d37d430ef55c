"""CPU seconds (user+sys, this pytest and every process it waited for) of one pytest run."""
import json, resource, subprocess, sys, time
args = sys.argv[2:]
t = time.time()
proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--durations=40", *args],
                      capture_output=True, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
rec = {"args": args, "rc": proc.returncode, "cpu_s": round(r.ru_utime + r.ru_stime, 1),
       "user_s": round(r.ru_utime, 1), "wall_s": round(time.time() - t, 1),
       "load": open("/proc/loadavg").read().split()[:3], "tail": proc.stdout[-6000:]}
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(rec) + "\n")
print(json.dumps({k: v for k, v in rec.items() if k != "tail"}))
print(proc.stdout[-6000:])
