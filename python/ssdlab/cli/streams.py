"""The command line's stdout and stderr, guarded against a reader that went away.

`ssdlab run … | head -3` closes the pipe while the run goes on. A write then fails (EPIPE: Python
ignores SIGPIPE), wherever it is: inside rich (whose own answer is SystemExit(1), which no stop
handling sees: run.json stayed "running"), in print(), or in the flush at exit ("Exception ignored
… BrokenPipeError"). Every write of the CLI goes through sys.stdout and sys.stderr (rich's consoles
look them up at each write), so guarding those two is guarding them all: the first write that
finds its pipe closed points the stream at /dev/null, so nothing is tried there again, and is
told to the stop handling as a stop (errors.output_closed), which ends a run as SIGTERM does.

A run may write nothing for a long while (a test's line comes as it ends): a reader gone then
was found only at the next write, the test run to its end for no one. So, while a command runs
(watched_output), a thread watches the guarded streams that are pipes or sockets, and one whose
reader goes away is closed as a write would find it, the main thread told at once (errors.closures_told).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import socket
import stat
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import Any, TextIO, cast

from ssdlab.errors import check_closed_output, closures_told, output_closed, stops_held

WATCH_POLL_MS = 1000  # the watcher's longest wait between looks (a closure and its end wake it at once)
# Always reported by poll(), asked for or not: the write end of a pipe whose reader is gone has
# POLLERR (Linux), a socket whose peer went away POLLHUP or POLLERR.
READER_GONE = select.POLLERR | select.POLLHUP


class PipeGuard:
    """A standard stream that turns a closed pipe into a stop, once, and drops what follows."""

    def __init__(self, stream: TextIO, name: str) -> None:
        self.stream = stream
        self.name = name  # "stdout" or "stderr", as the stop names it
        self.gone = False
        self._closing = threading.Lock()  # a write and the watcher may find it closed at once: one tells it

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
        if self.found_closed():
            output_closed(self.name)  # last: it may raise the stop

    def found_closed(self) -> bool:
        """Its reader is gone: nothing is written to it from now on. True for the first to find
        it (a write, or the watcher), who tells it (output_closed)."""
        with self._closing:
            if self.gone:
                return False
            self.gone = True
        _to_devnull(self.stream)
        return True

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


def watched_fd(guard: PipeGuard) -> int | None:
    """The descriptor of a guarded stream whose reader can go away, so that it is watched: a pipe,
    a FIFO or a socket, open for writing. Never a terminal (closing it is SIGHUP's), a file or
    /dev/null: they have no reader to lose, and are never taken for closed."""
    try:
        fd = guard.stream.fileno()
        mode = os.fstat(fd).st_mode
        access = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except (OSError, ValueError):  # no descriptor (a test's capture), or a closed one
        return None
    if not (stat.S_ISFIFO(mode) or _stream_socket(fd, mode)) or access == os.O_RDONLY:
        return None
    return fd


def _stream_socket(fd: int, mode: int) -> bool:
    """A connected stream socket: its POLLHUP/POLLERR is its peer gone. A datagram socket's
    POLLERR is a passing network error (an ICMP unreachable), no reader lost."""
    if not stat.S_ISSOCK(mode):
        return False
    with socket.socket(fileno=os.dup(fd)) as sock:  # a copy: closing it leaves the stream's own
        return sock.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_STREAM


class OutputWatcher:
    """A thread that finds a watched stream's reader gone as it goes (poll()), and closes that
    stream as a write would find it (PipeGuard.found_closed, errors.output_closed). It ends when
    close() wakes it through a pipe, and is joined: no daemon thread is left for Python's
    finalization (with the simulator's PyO3 that can abort the program; the drive store thread is
    none either)."""

    def __init__(self, guards: Mapping[int, PipeGuard]) -> None:
        self.guards = dict(guards)
        self._wake_read, self._wake_write = os.pipe()  # not inherited by a child (fio): its own
        self.thread = threading.Thread(target=self._watch, name="ssdlab-output-watch", daemon=False)
        self.thread.start()

    def close(self) -> None:
        """Stop watching: closing the wake pipe's write end wakes the thread's poll() at once."""
        os.close(self._wake_write)
        self.thread.join()
        os.close(self._wake_read)

    def _watch(self) -> None:
        poller = select.poll()
        poller.register(self._wake_read, select.POLLIN)
        for fd in self.guards:
            poller.register(fd, 0)  # only what is always reported: READER_GONE, POLLNVAL
        # Also ends if the main thread has (it always closes this first; never a thread left waiting).
        while self.guards and threading.main_thread().is_alive():
            events = poller.poll(WATCH_POLL_MS)
            if any(fd == self._wake_read for fd, _ in events):
                return
            for fd, event in events:  # in the order registered: stdout's first when both share a pipe
                poller.unregister(fd)
                guard = self.guards.pop(fd)
                if event & READER_GONE and not event & select.POLLNVAL and guard.found_closed():
                    output_closed(guard.name)


@contextlib.contextmanager
def watched_output() -> Iterator[None]:
    """Inside guarded_output(), around the command: its guarded streams that are pipes or sockets
    are watched (OutputWatcher), so a reader that goes away stops the command at once, as
    SIGTERM does (a run: the running test too), not at its next write. The watcher is stopped as
    the block ends, stops held meanwhile (a closure it told then is only recorded: an exception on
    its way is not cut into); after a block that ended without one, that closure is raised, as the
    next write would have raised it."""
    guards = {fd: stream for stream in (sys.stdout, sys.stderr)
              if isinstance(stream, PipeGuard) and (fd := watched_fd(stream)) is not None}
    if not guards:
        yield
        return
    with closures_told() as told:
        watcher = OutputWatcher(guards) if told else None
        try:
            yield
        finally:
            if watcher is not None:
                with stops_held():
                    watcher.close()
        if watcher is not None:  # the block ended as it should: a closure it found as it did is a stop still
            check_closed_output()


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
