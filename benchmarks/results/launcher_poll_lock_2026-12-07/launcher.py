"""``accelerate launch`` itself, run in this process; with WIDEN_S set, each Popen's ``_waitpid_lock`` pauses that
many seconds once taken without blocking, as ``Popen.poll`` takes it (widen_poll.py). Nothing else changes: the
agent is torch's, run by accelerate as ``accelerate launch`` runs it."""
import os
import sys

from widen_poll import widen_every_popen

if os.environ.get("WIDEN_S") and float(os.environ["WIDEN_S"]):
    widen_every_popen(float(os.environ["WIDEN_S"]))

from accelerate.commands.launch import main  # noqa: E402

sys.argv[0] = "accelerate-launch"
main()
