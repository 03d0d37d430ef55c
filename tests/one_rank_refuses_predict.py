"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the output folder takes no
file on process 1 alone, as where a node's own folder is read-only (the others' is writable)."""

import os
import sys

import accelerated_seg.inference_files as inference_files
from accelerated_seg.cli import end_process, main


def read_only_here(folder):
    return folder, "Read-only file system"


if __name__ == "__main__":
    if os.environ.get("RANK") == "1":
        inference_files.no_file_made_in = read_only_here
    end_process(main(sys.argv[1:]))
