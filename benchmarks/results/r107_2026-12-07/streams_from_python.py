"""cli.main called from Python with the caller's streams in various states (a strict TextIOWrapper, pytest-like
line-buffered one, a StringIO, one already closed, an object with no reconfigure), the command ending normally, in a
refusal, argparse's SystemExit, a KeyboardInterrupt, a stop signal (SIGTERM) and a bug's exception: are the streams'
error handlers, line buffering and write_through put back, and what reached them? Command:
cd /tmp/wt_r107 && PYTHONPATH=/tmp/wt_r107 /work/main/.venv/bin/python \
    benchmarks/results/r107_2026-12-07/streams_from_python.py > benchmarks/results/r107_2026-12-07/<out>.txt 2>&1
"""
import io
import os
import signal
import sys

import accelerated_seg.cli as cli

LATIN1 = os.fsdecode(b"/nowhere/r\xe9sultats")


def ending(how):
    def command(args, rest):
        print(f"wrote {LATIN1}")
        print(f"error: {LATIN1}: a line on stderr", file=sys.stderr)
        if how == "bug":
            raise RuntimeError("a bug")
        if how == "interrupt":
            raise KeyboardInterrupt
        if how == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)
        return 0
    return command


def strict(line_buffering=False, write_through=False):
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", line_buffering=line_buffering,
                            write_through=write_through)


class NoReconfigure(io.TextIOBase):  # an IPython OutStream-like stream: takes any text, has no reconfigure
    def __init__(self):
        self.text = []

    def write(self, text):
        self.text.append(text)
        return len(text)


def described(stream):
    if isinstance(stream, io.TextIOWrapper) and not stream.closed:
        return f"errors={stream.errors} line_buffering={stream.line_buffering} write_through={stream.write_through}"
    return type(stream).__name__ + (" (closed)" if getattr(stream, "closed", False) else "")


def closed():
    stream = strict()
    stream.close()
    return stream


for streams in ("strict", "line-buffered", "stringio", "no-reconfigure", "closed stderr"):
    for how in ("ok", "argparse", "bug", "interrupt", "sigterm"):
        make = {"strict": strict, "line-buffered": lambda: strict(True, True), "stringio": io.StringIO,
                "no-reconfigure": NoReconfigure, "closed stderr": strict}[streams]
        out, err = make(), (closed if streams == "closed stderr" else make)()
        before = described(out), described(err)
        saved = sys.stdout, sys.stderr
        cli.COMMANDS["synth"] = ending(how)
        sys.stdout, sys.stderr = out, err
        try:
            status = cli.main(["synth", "--bogus"] if how == "argparse" else ["synth", "x"])
        except BaseException as error:  # noqa: B036
            status = f"raised {type(error).__name__}"
        finally:
            sys.stdout, sys.stderr = saved
        after = described(out), described(err)
        print(f"[{streams}, {how}] {status}; put back: {before == after}{'' if before == after else f' {before} -> {after}'}")
