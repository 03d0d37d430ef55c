"""Run in the place of ``python -m accelerate.commands.launch`` by test_inference_distributed and the probes of
benchmarks/results/predict_killed_first_failure_2026-12-06/: accelerate's launch in this process, and torch's agent
with it (torch 2.13's LocalElasticAgent, its processes in a SubprocessContext), whose first look that finds a process
ended is noted in AGENT_LOG (one JSON line: the time, the local ranks ended at that look); each look held AGENT_LATE_S
later than its 0.1 s (an agent held up: a busy machine, a notebook kernel's threads), as the review of the
hundred-and-sixteenth session held the estimator's agent (benchmarks/results/review_process_lost_order_2026-12-06/).
With AGENT_AFTER_THE_KILL_S, its first look once KILLED_AT is written (a test's process killing itself notes the time
there first) is held until that long after the kill: AGENT_LATE_S alone left the look's phase to chance, the first
look after the kill 0-1.1 s after it, and where it came before a survivor ended a survivor could not be named first
with or without ``peer_death``'s wait for the reap (test_inference_distributed's test passed with that wait off in 1
of 5 runs at load 10-11: the review of the hundred-and-seventeenth session,
benchmarks/results/review_reap_wait_2026-12-06/)."""
import json
import os
import sys
import time
from pathlib import Path

from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent
from torch.distributed.elastic.multiprocessing.api import SubprocessContext

LATE_S = float(os.environ.get("AGENT_LATE_S", "0"))
AFTER_THE_KILL_S = float(os.environ.get("AGENT_AFTER_THE_KILL_S", "0"))
monitor, capture, noted = LocalElasticAgent._monitor_workers, SubprocessContext._capture_process_failures, []


def held_late(self, *args, **kwargs):
    if LATE_S:
        time.sleep(LATE_S)
    if AFTER_THE_KILL_S and not noted and (killed := Path(os.environ.get("KILLED_AT", "/nonexistent"))).exists():
        time.sleep(max(0.0, float(killed.read_text()) + AFTER_THE_KILL_S - time.time()))
    return monitor(self, *args, **kwargs)


def noting_the_first_end(self, done_local_ranks):
    capture(self, done_local_ranks)  # reaps each ended process (Popen.poll) and adds its local rank
    if done_local_ranks and not noted and os.environ.get("AGENT_LOG"):
        noted.append(True)
        with open(os.environ["AGENT_LOG"], "a") as log:
            log.write(json.dumps({"at": time.time(), "ended": sorted(done_local_ranks)}) + "\n")


LocalElasticAgent._monitor_workers = held_late
SubprocessContext._capture_process_failures = noting_the_first_end

if __name__ == "__main__":
    from accelerate.commands.launch import main

    sys.argv = ["accelerate-launch", *sys.argv[1:]]
    main()
