"""Launched by killed_in_predict.py: ``accelerated-seg predict``, process KILLED_RANK SIGKILLing itself (as the OOM
killer does) at KILL_WHERE, its time written to KILLED_AT first: ``inference``, in its share of a case's windows (the
second batch; under --split windows the others then wait for it in the case's reduction), or ``write``, as its first
label map's write begins (under --split cases each process writes its own cases), or ``last_wait``, as it comes to
predict's last wait for every process, where the others wait for it (tests/killed_at_the_last_wait_predict.py's)."""
import os
import signal
import sys
import time
from pathlib import Path


def killed() -> None:
    at = Path(os.environ["KILLED_AT"])  # whole before the probe reads it
    at.with_suffix(".part").write_text(repr(time.time()))
    at.with_suffix(".part").rename(at)
    os.kill(os.getpid(), signal.SIGKILL)


def killed_at(where: str) -> None:
    if where == "last_wait":
        sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
        from killed_at_the_last_wait_predict import killed_as_it_comes_to_the_last_wait

        killed_as_it_comes_to_the_last_wait()
    elif where == "inference":
        import accelerated_seg.inference_distributed as inference_distributed

        share = inference_distributed.WindowShare.__call__

        def killed_in_its_share(self, windows):
            if self.calls == 1:
                killed()
            return share(self, windows)

        inference_distributed.WindowShare.__call__ = killed_in_its_share
    else:
        import accelerated_seg.inference as inference

        inference.write_nifti = lambda *args, **kwargs: killed()


def noted_as_it_ends(log: str) -> None:
    """A survivor's end noted in ``log`` (time, rank, how): ``peer_death`` (gloo's error first; where it returned,
    the stop goes on) or ``end_at_once`` (SIGTERM's default, by peer_death or the agent's SIGTERM)."""
    from accelerated_seg import last_wait, launched_sigterm, peer_death, ranks_stop_together

    def note(what: str) -> None:
        with open(log, "a") as out:
            out.write(f"{time.time()!r} {os.environ.get('RANK')} {what}\n")

    looked, ending = peer_death.ended_at_once_where_a_process_beside_died, launched_sigterm.end_at_once

    def looking(error):
        note(f"peer_death looks: {type(error).__name__}")
        try:
            looked(error)
        except BaseException as raised:  # an interrupt (the agent's SIGTERM, as a stop's) in the look
            note(f"peer_death raised {type(raised).__name__}: {raised}")
            raise
        note("peer_death returned")

    def ending_at_once():
        note("end_at_once")
        ending()

    peer_death.ended_at_once_where_a_process_beside_died, launched_sigterm.end_at_once = looking, ending_at_once
    note(f"runs {peer_death.__file__}")
    for module, name in ((launched_sigterm, "one_has_ended"), (last_wait, "every_process_came_to_the_last_wait"),
                         (ranks_stop_together, "an_error_is_published")):
        def asked(*args, _call=getattr(module, name), _name=name):
            answer = _call(*args)
            note(f"{_name}: {answer}")
            return answer

        setattr(module, name, asked)


if __name__ == "__main__":
    if os.environ.get("RANK") == os.environ["KILLED_RANK"]:
        killed_at(os.environ["KILL_WHERE"])
    elif os.environ.get("ENDS_LOG"):
        noted_as_it_ends(os.environ["ENDS_LOG"])
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
