"""The launched script of strace_of_the_launcher.py: says it is running (a file per RANK beside argv[1]), sleeps, and
on SIGTERM stops in STOP_S seconds with status 143, as a launched predict stops."""
import os
import signal
import sys
import time


def stop(signum, frame):
    time.sleep(float(os.environ.get("STOP_S", "1")))  # a stop that takes its time
    os._exit(143)


signal.signal(signal.SIGTERM, stop)
open(sys.argv[1] + f".{os.environ['RANK']}", "w").close()
time.sleep(60)
