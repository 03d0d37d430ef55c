"""``accelerated-seg predict`` under a launch, process 1 held for 300 s just after its ``process_state()`` has returned
(the processes have met; it is still inside said_once_until_the_processes_meet), process 0 gone on into the steps:
run by as_the_processes_meet.py. MARKS (a folder): ``met.<rank>`` made by each process as its meeting returns."""

import os
import sys
import time
from pathlib import Path

import accelerated_seg.predict_command as predict_command

checked, rank, marks = predict_command._checked_options, os.environ["RANK"], Path(os.environ["MARKS"])


def checked_then_held_after_the_meeting(args):
    options = checked(args)
    import accelerated_seg.inference_distributed as inference_distributed  # imported by the checks

    meet = inference_distributed.process_state

    def met_then_held():
        state = meet()
        (marks / f"met.{rank}").write_text(str(os.getpid()))
        if rank == "1":
            time.sleep(300)
        return state

    inference_distributed.process_state = met_then_held
    return options


predict_command._checked_options = checked_then_held_after_the_meeting

if __name__ == "__main__":
    sys.argv = ["accelerated-seg", *sys.argv[1:]]
    from accelerated_seg.cli import end_process, main

    end_process(main())
