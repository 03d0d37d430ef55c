"""A terminal's Ctrl-C before the processes meet: SIGINT to the agent of a 2-process CPU launch of accelerated-seg train,
which sends it on to every rank, once rank 0 is making its Accelerator and rank 1 checks its settings
(tests/interrupted_before_the_processes_meet.py, SIGNAL_TO=launcher). From the environment (hundred-and-ninth session):
SIGNAL_TO=group (the launcher's process group, as a terminal sends it) or rank0 (rank 0 alone), and AND_RANK0_WAITING=1
(the signal once rank 0 certainly waits in the rendezvous, in torch's C++). Hundred-and-tenth session: AFTER_SIGNAL_S
(how long the signalling rank 1 waits after the signal before going on to the rendezvous) and SHOW_TRACEBACKS=1
(the output from its first traceback, where there are two: whose the second is). Its review (r46): SIGNAL_IN
(``module:function`` where rank 1 signals; torch.distributed:init_process_group is inside the span, marked coming).

    [AND_RANK0_WAITING=1 SIGNAL_TO=group] PYTHONPATH=<package> .venv/bin/python \
        ctrl_c_to_the_launcher_before_the_processes_meet.py <checkout's tests/>
"""
import os, re, sys, time, tempfile
from pathlib import Path
PACKAGE = os.environ.get("PYTHONPATH", "")
TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
from accelerated_seg.data.synthetic import write_synthetic_dataset
from conftest import tiny_overrides
from processes import run_bounded
from test_distributed import _free_port
top = Path(tempfile.mkdtemp())
data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1",
       "SIGNAL_IN": os.environ.get("SIGNAL_IN", "accelerated_seg.train:_checks_before_anything_is_written"),
       "OTHERS_AT": "accelerated_seg.train:make_accelerator",
       "SIGNALLED_AT": str(top / "s"), "SIGNAL_TO": os.environ.get("SIGNAL_TO", "launcher"), "PYTHONPATH": PACKAGE}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
       "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
       str(TESTS / "interrupted_before_the_processes_meet.py"), "train", *tiny_overrides(data, top / "out", **{"train.max_steps": 2, "train.val_every": 0})]
done = run_bounded(cmd, env=env, timeout=200)
out = done.stdout + done.stderr
print("status", done.returncode, "after", round(time.time() - float((top / "s").read_text()), 1), "s; lines",
      [l for l in done.stdout.splitlines() if "interrupted" in l], "codes", re.findall(r"exitcode  : (-?[0-9]+)", out),
      "tracebacks", out.count("Traceback"))
if os.environ.get("SHOW_TRACEBACKS") == "1" and out.count("Traceback") > 1:  # hundred-and-tenth session: whose?
    print(out[out.index("Traceback"):][:6000])
