"""Run examples/train.py with an FSDP profile really in effect on CPU processes: a verification
harness, not a way to train.

    ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/fsdp2.yaml --num_processes 2 \
        --mixed_precision no benchmarks/fsdp_on_cpu.py --config configs/demo.yaml ...
    ACCELERATE_USE_CPU=true accelerate launch ... benchmarks/fsdp_on_cpu.py -m accelerated_seg.cli benchmark train ...
    ACCELERATE_USE_CPU=true accelerate launch ... benchmarks/fsdp_on_cpu.py examples/fit_your_own.py ...

accelerate (1.15) enables FSDP only for GPU-like devices: on CPU processes an FSDP launch becomes
plain gloo DDP (MULTI_CPU), and a user's run says so or stops (strategy.py). PyTorch's FSDP2 itself
runs on CPU tensors over gloo. This script lifts accelerate's gate, and only it: the launch's FSDP
plugin is installed on the process-wide AcceleratorState as accelerate would do on a GPU, and then
examples/train.py runs unchanged. So our whole FSDP path, accelerate's FSDP2 prepare (units from our
block classes), sharded save_state/load_state through torch.distributed.checkpoint and the gathered
export, runs with parameters really sharded over the processes, which no CPU run otherwise
reaches. What stays for a GPU: NCCL, mixed precision on CUDA, memory and speed.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from accelerate.state import AcceleratorState, PartialState
from accelerate.utils import DistributedType

TRAIN_SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "train.py"
_accelerate_init = AcceleratorState.__init__


def _init_with_fsdp_on_cpu(self, *args, fsdp_plugin=None, **kwargs):
    _accelerate_init(self, *args, fsdp_plugin=fsdp_plugin, **kwargs)
    # AcceleratorState is a process-wide singleton that later constructions re-initialise; the plugin
    # the Accelerator passed the first time is kept on it.
    fsdp_plugin = fsdp_plugin or self.__dict__.get("fsdp_plugin")
    if fsdp_plugin is not None and self.distributed_type == DistributedType.MULTI_CPU:
        self.distributed_type = DistributedType.FSDP  # what accelerate sets for MULTI_GPU
        if self._mixed_precision != "no":
            fsdp_plugin.set_mixed_precision(self._mixed_precision)
        self.fsdp_plugin = fsdp_plugin
        # and, as accelerate does, the process-wide PartialState is promoted with it: an Accelerator
        # built after a reset of the state then finds FSDP there, not MULTI_CPU, and (on a GPU as
        # here) gets no plugin unless the promotion is undone (strategy.next_accelerator_in)
        PartialState._shared_state["distributed_type"] = DistributedType.FSDP


def _run() -> None:
    if sys.argv[1:2] == ["-m"]:  # a module, as python -m runs it (e.g. the benchmark command)
        module = sys.argv[2]
        sys.argv = [module, *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    elif sys.argv[1:2] and sys.argv[1].endswith(".py"):  # another script (e.g. examples/fit_your_own.py)
        sys.argv = sys.argv[1:]
        sys.path.insert(0, str(Path(sys.argv[0]).resolve().parent))  # as python script.py would
        runpy.run_path(sys.argv[0], run_name="__main__")
    else:
        sys.argv[0] = str(TRAIN_SCRIPT)
        runpy.run_path(str(TRAIN_SCRIPT), run_name="__main__")


if __name__ == "__main__":
    AcceleratorState.__init__ = _init_with_fsdp_on_cpu
    try:
        _run()
        code = 0
    except SystemExit as stop:  # the script's own exit status (examples/train.py exits 2 on a bad setting)
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    # Leave without the interpreter's teardown, as the test workers do: a gloo group torn down there
    # can abort a rank after all of its work was written (docs/strategies.md, "Known problem").
    # Everything the run writes is on disk by now; an exception above still exits the usual way.
    sys.stdout.flush(), sys.stderr.flush()
    os._exit(code)
