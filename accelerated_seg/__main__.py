"""``python -m accelerated_seg`` (and ``accelerate launch -m accelerated_seg ...``): the command line,
as ``python -m accelerated_seg.cli``, ending its process the way a launched rank must (``cli.end_process``)."""

from .cli import end_process, main

if __name__ == "__main__":
    end_process(main())
