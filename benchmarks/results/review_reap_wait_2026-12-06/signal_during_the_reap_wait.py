"""Command: cd /tmp/wt_r78 && PYTHONPATH=/tmp/wt_r78 /work/main/.venv/bin/python \
    benchmarks/results/review_reap_wait_2026-12-06/signal_during_the_reap_wait.py [RUNS]
Review of h87 (r78): is a launched predict's process deaf while it waits for the agent's reap (peer_death's
_reaped_by_the_agent)? This script plays the agent: it starts a sibling that is killed (SIGKILL) and left a zombie
(never reaped here until the end), and a survivor ("the process beside it") that enters launched_sigterm's span with
the zombie as the process beside it, and calls peer_death.ended_at_once_where_a_process_beside_died(gloo's reset) on
its main thread or on a thread of its own. SIGNAL_AFTER_S later the "agent" sends it SIGTERM (the agent's, or a job's)
or SIGINT (a user's Ctrl-C). Printed: the survivor's status and its end after the signal."""
import signal
import subprocess
import sys
import time

SURVIVOR = r'''
import os, sys, threading, time
from accelerated_seg import launched_sigterm, peer_death
zombie, where = int(sys.argv[1]), sys.argv[2]
launched_sigterm.processes_beside_this_one = lambda: [zombie]
with launched_sigterm.sigterm_as_an_interrupt_unless_one_has_ended():
    print("in", flush=True)
    gloo = RuntimeError("[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error: Connection reset by peer")
    try:
        if where == "main":
            peer_death.ended_at_once_where_a_process_beside_died(gloo)
        else:
            t = threading.Thread(target=peer_death.ended_at_once_where_a_process_beside_died, args=(gloo,))
            t.start(); t.join()
    except BaseException as e:
        print("raised", type(e).__name__, flush=True)
        raise
    print("returned", flush=True)
'''

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for where in ("main", "thread"):
    for sig in (signal.SIGTERM, signal.SIGINT):
        for _ in range(runs):
            dead = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            dead.kill()
            while open(f"/proc/{dead.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
                time.sleep(0.005)
            # the survivor is this script's child too: the zombie's sibling, as the agent's processes are
            surv = subprocess.Popen([sys.executable, "-c", SURVIVOR, str(dead.pid), where], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            assert surv.stdout.readline().strip() == "in"
            time.sleep(1.5)  # the look has seen the death (DEATH_SEEN_S), the survivor is in the reap wait
            sent = time.monotonic()
            surv.send_signal(sig)
            status = surv.wait(30)
            took = time.monotonic() - sent
            out, err = surv.communicate()
            print(f"wait on {where:6} {sig.name:7}: status {status:4}, ended {took:.2f} s after the signal; "
                  f"said {out.split()!r} {err.strip().splitlines()[-1:]!r}", flush=True)
            dead.wait()
