"""``accelerated-seg predict`` under a launch, run as the command line runs it (``main()`` reading sys.argv), each
process of HELD_RANKS (``"1"``, ``"0,1"``) held in its checks, before the launch's processes meet, for 300 s: run by
test_inference_distributed and benchmarks/results/predict_sigusr1_2026-12-06/. In MARKS (a folder), each process
makes ``held.<rank>`` as it is held, and ``meeting.<rank>`` as it goes into the rendezvous (``process_state``)."""

import os
import sys
import time
from pathlib import Path

import accelerated_seg.predict_command as predict_command

checked, rank, marks = predict_command._checked_options, os.environ["RANK"], Path(os.environ["MARKS"])


def held_then_checked(args):
    if rank in os.environ.get("HELD_RANKS", "").split(","):
        (marks / f"held.{rank}").write_text(str(os.getpid()))
        time.sleep(300)
    options = checked(args)
    import accelerated_seg.inference_distributed as inference_distributed  # imported by the checks

    meet = inference_distributed.process_state

    def marked_then_met():
        (marks / f"meeting.{rank}").write_text(str(os.getpid()))
        return meet()

    inference_distributed.process_state = marked_then_met
    return options


predict_command._checked_options = held_then_checked

if __name__ == "__main__":
    sys.argv = ["accelerated-seg", *sys.argv[1:]]
    from accelerated_seg.cli import end_process, main

    end_process(main())
