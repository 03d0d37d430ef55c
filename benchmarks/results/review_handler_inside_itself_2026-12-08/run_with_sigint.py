"""python /tmp/r130_run.py CMD...: CMD run with SIGINT at its default (a background job of a script has it ignored,
and Python then never raises KeyboardInterrupt)."""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])
