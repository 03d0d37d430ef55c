"""Rank script: the process whose RANK is 1 sends SIGNAL (TERM) to TARGET (self | launcher) as it calls SIGNAL_IN,
once rank 0 is calling OTHERS_AT (or at once where OTHERS_AT is empty); writes the time into SIGNALLED_AT."""
import importlib, os, signal, sys, time
from pathlib import Path
from accelerated_seg.cli import end_process, main

def patched(where, before_the_call):
    module_name, name = where.split(":")
    module = importlib.import_module(module_name)
    original = getattr(module, name)
    def calling(*args, **kwargs):
        before_the_call()
        return original(*args, **kwargs)
    setattr(module, name, calling)

signalled = Path(os.environ["SIGNALLED_AT"])
def send():
    if os.environ["OTHERS_AT"]:
        deadline = time.monotonic() + 60
        while not Path(f"{signalled}.rank0_meeting").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    signalled.write_text(repr(time.time()))
    os.kill(os.getppid() if os.environ["TARGET"] == "launcher" else os.getpid(), getattr(signal, "SIG" + os.environ["SIGNAL"]))
    time.sleep(0.5)  # the signal's handler runs here

if __name__ == "__main__":
    print("package", importlib.import_module("accelerated_seg").__file__, "rank", os.environ["RANK"], flush=True)
    if os.environ["RANK"] == "1":
        patched(os.environ["SIGNAL_IN"], send)
    elif os.environ["OTHERS_AT"]:
        patched(os.environ["OTHERS_AT"], Path(f"{signalled}.rank0_meeting").touch)
    end_process(main(sys.argv[1:]))
