"""Run in the place of ``python -m accelerate.commands.launch`` by test_inference_distributed: accelerate's launch in
this process, torch's agent with it, which keeps the launch's store on the main process's node; once the agent's run
has failed (a process of its ended with an error, or killed), it is held AGENT_LINGERS_S before it ends, and the store
with it, where it ends 0.3-1.3 s after its process's death as a rule (later on a busy machine): a process on another
node then publishes its stop in a store still alive, and its watcher reaches its end before the store ends (the
hundred-and-twenty-first session: benchmarks/results/flaky_lost_at_once_2026-12-07/)."""
import os
import sys
import time

import torch.distributed.launcher.api as launcher_api

launch_agent = launcher_api.launch_agent


def lingering(*args, **kwargs):
    try:
        return launch_agent(*args, **kwargs)
    except BaseException:  # its frames, the agent's store with them, kept alive while it is held
        time.sleep(float(os.environ.get("AGENT_LINGERS_S", "0")))
        raise


launcher_api.launch_agent = lingering  # looked up at each call by elastic_launch, torchrun's run

if __name__ == "__main__":
    from accelerate.commands.launch import main

    sys.argv = ["accelerate-launch", *sys.argv[1:]]
    main()
