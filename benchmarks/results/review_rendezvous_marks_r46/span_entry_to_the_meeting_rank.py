"""A launched rank of span_entry_to_the_meeting.py: accelerated-seg train, timing its entry into the span
(interrupt_in_the_rendezvous._Marks, the "coming" mark) and its call of init_process_group."""
import os, sys, time
import torch.distributed as dist
import accelerated_seg.interrupt_in_the_rendezvous as m
from accelerated_seg.cli import end_process, main
t = {}
init = m._Marks.__init__
def marks_init(self):
    t["enter"] = time.monotonic(); init(self); t["marked"] = time.monotonic()
m._Marks.__init__ = marks_init
ipg = dist.init_process_group
def timed(*a, **k):
    t["ipg"] = time.monotonic()
    r = ipg(*a, **k)
    print(f"rank {os.environ['RANK']}: marks {1000 * (t['marked'] - t['enter']):.1f} ms, span entry to "
          f"init_process_group {1000 * (t['ipg'] - t['marked']):.1f} ms, "
          f"meeting {1000 * (time.monotonic() - t['ipg']):.1f} ms", file=sys.stderr, flush=True)
    return r
dist.init_process_group = timed
end_process(main(sys.argv[1:]))
