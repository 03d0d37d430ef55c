"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the output folder takes no
file on process 1 alone, as where a node's own folder is read-only (the others' is writable)."""

import os
import sys
import time

import accelerated_seg.inference_outputs as inference_outputs
import accelerated_seg.predict_command as predict_command
from accelerated_seg.cli import end_process, main


def read_only_here(folder):
    return folder, "Read-only file system"


def said_late(say):
    """The main process says its error 0.5 s after the refusing one: the first to refuse says the line
    (launcher_report.say_the_error), which must name the process that refused whichever it is."""
    def late(message):
        time.sleep(0.5)
        say(message)
    return late


if __name__ == "__main__":
    if os.environ.get("RANK") == "1":
        inference_outputs.no_file_made_in = read_only_here  # where _check_folders_take_files looks it up
    else:
        predict_command.say_the_error = said_late(predict_command.say_the_error)
    end_process(main(sys.argv[1:]))
