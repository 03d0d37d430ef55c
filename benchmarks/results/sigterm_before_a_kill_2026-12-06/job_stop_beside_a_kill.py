"""Launched by the probes beside it, in the place of the script named first after it (its arguments following):
h87's ../predict_killed_first_failure_2026-12-06/killed_in_predict_worker.py, or tests/killed_in_training_cli.py,
whose process KILLED_RANK kills itself outright (SIGKILL, as the OOM killer). Here that process first sends SIGTERM to
torch's agent (its parent) and to each process beside it, at once, just before its SIGKILL: a job's stop racing the
kill (r78's ../review_reap_wait_2026-12-06/job_sigterm_with_the_kill_worker.py, JOB_AFTER unset). Each other process
notes in ENDS_LOG (time, rank, what) where its stop's end waits, patched here, not in the package: the stop it
publishes, its watcher's sight of it (``ranks_stop_together._Watcher._end``), each of that end's waits for the others
(``_wait_for``: for HELD, the others' files; LEFT, their reading of the line; SAID, the main process's line) and how it
ended, the roll call's lost processes, and the status it exits with."""
import ctypes
import os
import runpy
import signal
import sys
import time

kill = os.kill


def the_jobs_sigterm_just_before(pid, number):
    if pid == os.getpid() and number == signal.SIGKILL:
        from accelerated_seg.launched_sigterm import processes_beside_this_one

        # ignored here first, whatever the thread (through libc): the agent's SIGTERM, sent on as it takes the job's,
        # came back before this process's SIGKILL in 2 of 3 launches and its handler raised out of this loop, the
        # process stopping as for a stop of its own, never killed ("predict stopped by SIGTERM in process 1", the
        # first run: before_sigterm_not_ignored.txt)
        libc = ctypes.CDLL(None)
        libc.signal.argtypes, libc.signal.restype = [ctypes.c_int, ctypes.c_void_p], ctypes.c_void_p
        libc.signal(signal.SIGTERM, 1)  # SIG_IGN
        for other in (os.getppid(), *(processes_beside_this_one() or [])):
            kill(other, signal.SIGTERM)
    kill(pid, number)


def note(what: str) -> None:
    with open(os.environ["ENDS_LOG"], "a") as log:
        log.write(f"{time.time()!r} {os.environ.get('RANK')} {what}\n")


def noting_where_the_end_waits() -> None:
    from accelerated_seg import cli
    from accelerated_seg import ranks_stop_together as stop

    wait_for, end, publish, exit_now, lost = (stop._wait_for, stop._Watcher._end, stop._publish, stop.exit_now,
                                              stop.lost_processes)
    end_process = cli.end_process

    def waiting(condition, wait_s):
        keys = "/".join(name for name in ("HELD", "LEFT", "SAID") if name in condition.__code__.co_names)
        note(f"end waits for {keys} (at most {wait_s:g} s)")
        came = wait_for(condition, wait_s)
        note(f"end's wait for {keys} {'answered' if came else 'TIMED OUT'}")
        return came

    def ending(self, store, message, rank, ranks):
        note(f"watcher saw the stop: {message.splitlines()[0][:100]}")
        return end(self, store, message, rank, ranks)

    def publishing(watcher, error, *args, **kwargs):
        note(f"publishes {type(error).__name__}: {str(error).splitlines()[0][:100]}")
        return publish(watcher, error, *args, **kwargs)

    def exiting(status):
        note(f"exits {status} (the watcher's end)")
        exit_now(status)

    def roll_call(*args, **kwargs):
        answer = lost(*args, **kwargs)
        note(f"roll call: lost {answer}")
        return answer

    def ending_the_process(status):
        note(f"ends with {status} (cli.end_process)")
        end_process(status)

    stop._wait_for, stop._Watcher._end, stop._publish, stop.exit_now, stop.lost_processes = (
        waiting, ending, publishing, exiting, roll_call)
    cli.end_process = ending_the_process


if __name__ == "__main__":
    os.kill = the_jobs_sigterm_just_before
    if os.environ.get("RANK") != os.environ["KILLED_RANK"] and os.environ.get("ENDS_LOG"):
        noting_where_the_end_waits()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
