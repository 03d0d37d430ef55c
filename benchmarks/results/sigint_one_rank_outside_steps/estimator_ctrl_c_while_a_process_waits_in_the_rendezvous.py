"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 timeout 300 .venv/bin/python \
    estimator_ctrl_c_while_a_process_waits_in_the_rendezvous.py <checkout's tests/>
Segmentation(multi_gpu=True).fit on 2 CPU processes (notebook_launcher); SIGINT to the launching process (a terminal's
Ctrl-C to a script, Jupyter's "interrupt kernel"), which torch's agent sends on to both, once rank 0 certainly waits in
the rendezvous (its key in the launch's store) and rank 1 checks its settings: seconds from the interrupt to fit's end,
what fit raised, what was said."""
import os, signal, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
from interrupted_before_the_processes_meet import rank0_waits_in_the_rendezvous

os.environ["ACCELERATE_USE_CPU"] = "true"
os.environ.pop("MASTER_PORT", None)
import accelerated_seg.estimator as estimator
import accelerated_seg.train as train_module
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.estimator import Dataset, Segmentation

top = Path(tempfile.mkdtemp())
marker, signalled = top / "rank0_meeting", top / "signalled_at"
checks, make = train_module._checks_before_anything_is_written, train_module.make_accelerator

def interrupted(*args, **kwargs):
    if os.environ.get("RANK") == "1":
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        rank0_waits_in_the_rendezvous()
        signalled.write_text(repr(time.time()))
        os.kill(os.getppid(), signal.SIGINT)  # the launching process, whose agent sends it on
    return checks(*args, **kwargs)

def meeting(*args, **kwargs):
    if os.environ.get("RANK") == "0":
        marker.touch()
    return make(*args, **kwargs)

train_module._checks_before_anything_is_written, train_module.make_accelerator = interrupted, meeting
estimator.gpus_to_launch = lambda: 2
manifest = load_msd(write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0,
                                            size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
pairs = lambda cases: [(str(c.images[0]), str(c.label)) for c in cases]
data = Dataset.from_files(pairs(manifest.training), block_shape=(16, 16, 16), n_classes=3,
                          validation_pairs=pairs(manifest.validation), cache_dir=str(top / "cache"), num_workers=0,
                          spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     multi_gpu=True, output_dir=str(top / "run"), trackers="none", progress_bar=False, val_every=0,
                     save_every=0)
try:
    model.fit(data, steps=2)
    raised = "nothing"
except BaseException as error:
    raised = f"{type(error).__name__}: {str(error)[:300]}"
ended = time.time()
after = f"{ended - float(signalled.read_text()):.1f} s" if signalled.exists() else "(no interrupt)"
print(f"estimator fit, the launching process interrupted: fit ended {after} after the interrupt; raised {raised}; repr {model!r}"[:900],
      flush=True)
