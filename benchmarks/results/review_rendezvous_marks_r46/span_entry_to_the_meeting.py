"""How long a launched rank of train is marked coming (interrupt_in_the_rendezvous._Marks) before it calls
init_process_group: a terminal's Ctrl-C in that gap makes the other rank's watcher wait for it (ON_THEIR_WAY_S at
most). 2-process CPU launch, tiny volumes (review r46).

    PYTHONPATH=<package> .venv/bin/python span_entry_to_the_meeting.py <checkout's tests/>
"""
import os, sys, tempfile
from pathlib import Path
TESTS = Path(sys.argv[1]).resolve(); sys.path.insert(0, str(TESTS))
from accelerated_seg.data.synthetic import write_synthetic_dataset
from conftest import tiny_overrides
from processes import run_bounded
from test_distributed import _free_port
top = Path(tempfile.mkdtemp())
data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                               spacing_mm=2.0)
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
       "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
       str(Path(__file__).with_name("span_entry_to_the_meeting_rank.py")), "train",
       *tiny_overrides(data, top / "out", **{"train.max_steps": 1, "train.val_every": 0})]
done = run_bounded(cmd, env=env, timeout=200)
print("status", done.returncode, [l for l in done.stderr.splitlines() if "span entry" in l])
