"""The hundred-and-fourteenth session's review: ``accelerated-seg predict`` under a launch where the main process meets a
peer gone's words (gloo's "Connection reset by peer", raised here in its last wait, as a reset of the network between
two nodes would) with every process alive, process 1 slow to answer the stop (SLOW=stopped: SIGSTOP for SLOW_S, as a
busy host or a long GC/IO would hold it; SLOW=blip: its watcher's next poll unanswered, as a store client being
replaced after a blip is, ranks_stop_together.ANSWER_S). Run by slow_to_answer.py."""

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(os.environ["PROBE_DIR"])


def slow_process_1_at_the_main_processs_last_wait() -> None:
    import accelerated_seg.inference_distributed as inference_distributed
    import accelerated_seg.ranks_stop_together as ranks_stop_together

    (HERE / f"pid_{os.environ['RANK']}").write_text(str(os.getpid()))
    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        if next(calls) == 2 and os.environ["RANK"] == "0":
            (HERE / "stop_at").write_text(repr(time.time()))
            if os.environ["SLOW"] == "stopped":
                pid = int((HERE / "pid_1").read_text())
                os.kill(pid, signal.SIGSTOP)
                subprocess.Popen(["sh", "-c", f"sleep {os.environ['SLOW_S']}; kill -CONT {pid}"],
                                 start_new_session=True)
            raise RuntimeError("[../third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:5847: "
                               "Connection reset by peer")
        wait(accelerator)

    inference_distributed.wait_for_every_process = wait_for_every_process
    if os.environ["RANK"] == "1" and os.environ["SLOW"] == "blip":
        polled = ranks_stop_together._polled

        def _polled(store):
            if (HERE / "stop_at").exists() and not (HERE / "hung").exists():
                (HERE / "hung").write_text("1")
                time.sleep(30)  # a client that no longer answers: _within gives up on it after ANSWER_S
            return polled(store)

        ranks_stop_together._polled = _polled


if __name__ == "__main__":
    slow_process_1_at_the_main_processs_last_wait()
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
