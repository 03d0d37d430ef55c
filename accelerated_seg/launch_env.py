"""How many processes the launch that started this one holds, read from the launcher's environment.

Torch-free, for what is judged before the imports (``cli``, ``predict_command``, ``checkpoint_files``) as well as after
(``processes_yet_to_meet`` alone imports torch, when called).
"""

from __future__ import annotations

import os


def launched_processes() -> int:
    """The processes of the launch that started this one, 1 outside a launch. ``WORLD_SIZE`` alone is no
    launcher's mark (some clusters export it to every process, ``checkpoint.PreemptionSignals``): the
    launchers that accelerate uses (torchrun, DeepSpeed's, srun and mpirun through it) give each rank
    ``LOCAL_RANK`` too."""
    return int(os.environ.get("WORLD_SIZE", "1")) if "LOCAL_RANK" in os.environ else 1


def processes_yet_to_meet() -> bool:
    """Whether this process is one of a launch of several whose process group has not started yet (imports torch)."""
    import torch.distributed as dist

    return launched_processes() > 1 and not (dist.is_available() and dist.is_initialized())
