"""The command line's stdout and stderr, guarded against a reader that went away.

`ssdlab run … | head -3` closes the pipe while the run goes on. A write then fails (EPIPE: Python
ignores SIGPIPE), wherever it is: inside rich (whose own answer is SystemExit(1), which no stop
handling sees: run.json stayed "running"), in print(), or in the flush at exit ("Exception ignored
… BrokenPipeError"). Every write of the CLI goes through sys.stdout and sys.stderr (rich's consoles
look them up at each write), so guarding those two is guarding them all: the first write that
finds its pipe closed points the stream at /dev/null, so nothing is tried there again, and is
told to the stop handling as a stop (errors.output_closed), which ends a run as SIGTERM does.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO, cast

from ssdlab.errors import output_closed, stops_held


class PipeGuard:
    """A standard stream that turns a closed pipe into a stop, once, and drops what follows."""

    def __init__(self, stream: TextIO, name: str) -> None:
        self.stream = stream
        self.name = name  # "stdout" or "stderr", as the stop names it
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._closed()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._closed()

    def _closed(self) -> None:
        self.gone = True
        _to_devnull(self.stream)
        output_closed(self.name)  # last: it may raise the stop

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding…: the stream's own
        return getattr(self.stream, name)


def _to_devnull(stream: TextIO) -> None:
    """What the stream still holds in its buffer goes to /dev/null when Python flushes it at exit,
    instead of failing there again."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # no descriptor (a test's capture): nothing is flushed to a pipe
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def flush_output() -> None:
    """Flush stdout and stderr (through their guards, inside guarded_output())."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


@contextlib.contextmanager
def guarded_output() -> Iterator[None]:
    """sys.stdout and sys.stderr guarded (PipeGuard) for the block, inside stop_signals(). What
    the block left unflushed is flushed as it ends, a closed pipe then only recorded (the exit
    status and line are decided by then), so the flush at exit has nothing left to fail on."""
    before = sys.stdout, sys.stderr
    guards = [PipeGuard(stream, name) for stream, name in ((before[0], "stdout"), (before[1], "stderr"))
              if stream is not None]  # None: started with that descriptor closed; rich writes nowhere
    for guard in guards:
        setattr(sys, guard.name, cast(TextIO, guard))
    try:
        yield
    finally:
        with stops_held():
            flush_output()
        sys.stdout, sys.stderr = before
