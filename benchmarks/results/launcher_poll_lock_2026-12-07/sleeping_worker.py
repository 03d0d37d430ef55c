"""A launched process that marks its start and sleeps, ended by the agent's SIGTERM (its default action)."""
import os
import sys
import time
from pathlib import Path

Path(sys.argv[1], f"started_{os.environ['RANK']}").write_text(str(os.getpid()))
time.sleep(300)
