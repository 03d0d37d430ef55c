"""The start of a launch alone, as tests/test_deepspeed_cpu.py's _launch and test_inference_distributed's
launch_two make one: the launcher and its ranks importing what tests/dist_worker.py and predict import, then
ending (os._exit, as the workers do). Each row: wall and CPU seconds (user+sys of the launch and all it
waited for). Run from the repository root: python benchmarks/results/ci_time_h69_2026-12-06/bare_launch.py"""
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
import test_deepspeed_cpu  # noqa: E402
import test_inference_distributed  # noqa: E402

script = Path(tempfile.mkdtemp()) / "imports_only.py"
script.write_text("import os\nfrom accelerated_seg.collector import importing_without_collection\n"
                  "with importing_without_collection():\n    import accelerated_seg.train, monai.losses\n"
                  "from accelerated_seg.accelerate_workarounds import skip_deepspeeds_shared_memory_op\n"
                  "skip_deepspeeds_shared_memory_op()  # as preparation.py does: no deepspeed_shm_comm build\n"
                  "from accelerate import Accelerator\nAccelerator()\nos._exit(0)\n")


def measured(name, launch):
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    proc = launch()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"launch": name, "rc": proc.returncode, "wall_s": round(time.time() - start, 2),
                      "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
                      "load": open("/proc/loadavg").read().split()[:3]}), flush=True)


os.environ.pop("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS", None)
for _ in range(2):
    measured("deepspeed_zero3, 1 process", lambda: test_deepspeed_cpu._launch(
        "deepspeed_zero3", "--mixed_precision", "no", str(script)))
    measured("deepspeed_zero3, 2 processes", lambda: test_deepspeed_cpu._launch(
        "deepspeed_zero3", "--mixed_precision", "no", str(script), processes=2))
    measured("multi_gpu on CPU (gloo), 2 processes", lambda: test_inference_distributed.launch_two(
        script, [str(script)]))
