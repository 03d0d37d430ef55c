"""Does leaving ``ending_on_an_interrupt_in_the_rendezvous`` (signal.set_wakeup_fd(previous), which restores
warn_on_full_buffer=True) change what a running asyncio loop had, as in Jupyter? A launched rank's span (LOCAL_RANK,
WORLD_SIZE=2) run inside a coroutine, asyncio's wakeup fd set by loop.add_signal_handler(SIGUSR1); then that fd's
buffer filled and one SIGUSR1 sent: Python's handler warns ("Exception ignored ... BlockingIOError") only where the
flag is True. Run once without the span (SPAN=0: asyncio's own setting) and once with it (SPAN=1).

    SPAN=0|1 LOCAL_RANK=0 RANK=0 WORLD_SIZE=2 PYTHONPATH=<package> .venv/bin/python wakeup_fd_under_a_running_asyncio_loop.py
"""
import asyncio, os, signal

from accelerated_seg.interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous


async def main() -> None:
    loop = asyncio.get_running_loop()
    got = []
    loop.add_signal_handler(signal.SIGUSR1, got.append, "SIGUSR1")
    if os.environ.get("SPAN") == "1":
        with ending_on_an_interrupt_in_the_rendezvous(lambda: print("line", flush=True)):
            os.kill(os.getpid(), signal.SIGUSR1)  # inside the span: given on to asyncio's fd
    await asyncio.sleep(0.2)
    print("asyncio's handler ran for the SIGUSR1 sent inside the span:", got, flush=True)
    csock = loop._csock  # the end Python's handler writes to
    filled = 0
    try:
        while True:
            filled += csock.send(b"\0" * 4096)
    except BlockingIOError:
        pass
    os.kill(os.getpid(), signal.SIGUSR1)  # the buffer full: warned on stderr where warn_on_full_buffer is True
    await asyncio.sleep(0)


asyncio.run(main())
