"""A closed output found as it closes (cli/streams.py's watcher), told to the main thread as a
signal is (errors.closures_told), and the first stop naming the stop whatever comes after it.

The runs themselves (a long test whose pipe closes, exit 141, resumed) are in test_interrupt.py;
here the parts, in this process: what is watched, what is told where, and which stop is named.
"""

from __future__ import annotations

import os
import pty
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from ssdlab import errors
from ssdlab.cli import streams
from ssdlab.cli.streams import OutputWatcher, PipeGuard, watched_fd
from ssdlab.errors import (
    Stopped,
    check_stop,
    closed_output_held,
    closures_told,
    output_closed,
    signal_reason,
    stop_reason,
    stop_received,
    stop_signals,
    stoppable,
    stops_held,
)

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)
CLOSED_STDOUT = "the output was closed (stdout: broken pipe)"


@pytest.fixture
def stop_handling(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The CLI's stop handling in this process, then pytest's handlers and a clean record back
    (stop_signals() keeps its handlers once a stop came: the program is ending)."""
    before = {sig: signal.getsignal(sig) for sig in HANDLED}
    # As a terminal's program has it: a run started in the background (CI, `make test &`) inherits
    # SIGINT ignored, and stop_signals() leaves an ignored signal ignored (a fresh clone's run failed so).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(errors, "_stops", errors._Stops())
    yield
    for sig, handler in before.items():
        if handler is not None:
            signal.signal(sig, handler)


def guard_on(fd: int, name: str = "stdout") -> PipeGuard:
    return PipeGuard(open(fd, "w", closefd=False), name)  # the descriptor stays the test's to close


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    os.close(read)
    os.close(write)


# ---- the first stop names the stop ------------------------------------------------------------


def test_a_stop_signal_after_a_closed_output_is_named_as_the_closed_output(stop_handling: None) -> None:
    """QA: stdout closed as the run's report was written (held: the bookkeeping goes on), then a
    SIGTERM: the line said 'terminated (SIGTERM)' and the exit status was 141, the closed
    pipe's. The first stop decides both."""
    with stop_signals():
        with pytest.raises(Stopped) as raised, closed_output_held():
            output_closed("stdout")  # held here
            signal.raise_signal(signal.SIGTERM)  # not held: raised, as the first stop
        assert (str(raised.value), stop_received()) == (CLOSED_STDOUT, signal.SIGPIPE)


def test_a_stop_signal_after_an_output_another_thread_found_closed_is_named_as_it(stop_handling: None) -> None:
    """A display's refresh found stdout closed, and this thread acted on it (held it, as the
    bookkeeping of a run goes on); a SIGTERM after that is raised as the closed output, the first stop."""
    with stop_signals(), stops_held():
        finder = threading.Thread(target=output_closed, args=("stdout",))
        finder.start()
        finder.join()
        with pytest.raises(Stopped) as raised, stoppable():  # the closed output is raised as it begins
            pass
        with pytest.raises(Stopped) as later:
            signal.raise_signal(signal.SIGTERM)
            check_stop()
        assert (str(raised.value), str(later.value), stop_received()) == (CLOSED_STDOUT, CLOSED_STDOUT,
                                                                          signal.SIGPIPE)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_before_this_thread_knew_of_a_closed_output_is_the_stop(stop_handling: None,
                                                                                signum: int) -> None:
    """QA: Ctrl-C on `ssdlab run … | tee log` reaches ssdlab and tee; tee's end was found closed by
    the watcher while the simulator held the main thread, and the run was recorded as stopped by
    "the output was closed" (exit 141), not by the Ctrl-C (130). A stop signal handled before
    this thread acted on a closed output is the stop: it most likely took the reader away."""
    with stop_signals(), stops_held():
        with pytest.raises(KeyboardInterrupt) as raised, stoppable():  # the engine measuring
            finder = threading.Thread(target=output_closed, args=("stdout",))  # told to no one yet
            finder.start()
            finder.join()
            signal.raise_signal(signum)
        assert (stop_reason(raised.value), stop_received()) == (signal_reason(signum), signum)


def test_a_closed_output_after_a_stop_signal_leaves_the_signal_named(stop_handling: None) -> None:
    """The other way round: a SIGTERM held while the run writes run.json, then stdout found closed;
    the stop raised is the SIGTERM, which names the exit status (143)."""
    with stop_signals(), stops_held():
        signal.raise_signal(signal.SIGTERM)
        output_closed("stdout")
        with pytest.raises(Stopped) as raised:
            check_stop()
        assert (str(raised.value), stop_received()) == ("terminated (SIGTERM)", signal.SIGTERM)


# ---- told to the main thread at once ----------------------------------------------------------


def close_from_a_thread(after_s: float = 0.2) -> threading.Thread:
    def find() -> None:
        time.sleep(after_s)
        output_closed("stdout")

    finder = threading.Thread(target=find)
    finder.start()
    return finder


def test_an_output_another_thread_finds_closed_cuts_a_wait_short(stop_handling: None) -> None:
    """Told as a signal is, the main thread stops even in a wait no bytecode runs in (a lock:
    the multi-host fio engine waits so), not once the wait is over."""
    with stop_signals(), closures_told() as told:
        assert told
        finder = close_from_a_thread()
        began = time.monotonic()
        with pytest.raises(Stopped) as raised:
            threading.Event().wait(120)
        finder.join()
    assert time.monotonic() - began < 60  # not the wait's end
    assert str(raised.value) == CLOSED_STDOUT


def test_an_output_another_thread_finds_closed_is_held_where_a_signal_is(stop_handling: None) -> None:
    with stop_signals(), closures_told(), stops_held():
        close_from_a_thread(after_s=0).join()
        time.sleep(0.2)  # bytecode runs: the handler has run, and held it
        assert stop_received() == signal.SIGPIPE
        with pytest.raises(Stopped) as raised:
            check_stop()
    assert str(raised.value) == CLOSED_STDOUT


def test_a_sigpipe_of_another_pipe_is_no_stop(stop_handling: None) -> None:
    """A write to a child's pipe that closed (fio's) sends SIGPIPE too while the handler is in:
    that write fails with EPIPE as before, and nothing stops."""
    with stop_signals(), closures_told():
        signal.raise_signal(signal.SIGPIPE)
        time.sleep(0.05)
        assert stop_received() is None
    assert signal.getsignal(signal.SIGPIPE) is signal.SIG_IGN  # as Python has it, once over


# ---- what is watched --------------------------------------------------------------------------


def test_a_terminal_a_file_and_dev_null_are_never_watched(tmp_path: Path) -> None:
    """They have no reader to lose: a terminal closing is SIGHUP's, a file and /dev/null take
    every write. Never taken as closed, so never watched."""
    master, slave = pty.openpty()
    streams_: list[IO[str]] = [open(slave, "w"), (tmp_path / "out.txt").open("w"),  # noqa: SIM115
                               open(os.devnull, "w")]  # noqa: SIM115
    try:
        assert [watched_fd(PipeGuard(stream, "stdout")) for stream in streams_] == [None, None, None]
    finally:
        for stream in streams_:
            stream.close()
        os.close(master)


def test_pipes_and_sockets_open_for_writing_are_watched(pipe: tuple[int, int]) -> None:
    read, write = pipe
    left, right = socket.socketpair()
    with left, right:
        assert watched_fd(guard_on(write)) == write
        assert watched_fd(guard_on(left.fileno())) == left.fileno()
        assert watched_fd(guard_on(read)) is None  # a read end: nothing is written to it


def test_a_datagram_socket_is_not_watched() -> None:
    """A datagram socket has no reader to lose: its POLLERR is a passing network error (an ICMP
    unreachable), which must not stop a run."""
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with left, right:
        assert watched_fd(guard_on(left.fileno())) is None
        assert left.fileno() >= 0 and left.send(b"x") == 1  # the stream's own descriptor is left open


def test_a_pipe_still_open_or_a_terminal_is_not_taken_as_closed(stop_handling: None, pipe: tuple[int, int],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that is there (but reads nothing: a full pipe is no closed one) and a terminal:
    the watcher says nothing, and it ends at once when told, not at its next look."""
    monkeypatch.setattr(streams, "WATCH_POLL_MS", 60_000)
    _, write = pipe
    os.set_blocking(write, False)
    try:
        while True:
            os.write(write, b"x" * 65536)  # full
    except BlockingIOError:
        pass
    master, slave = pty.openpty()
    try:
        guards = {write: guard_on(write), slave: guard_on(slave, "stderr")}
        watcher = OutputWatcher(guards)
        time.sleep(1.5)
        began = time.monotonic()
        watcher.close()
        assert time.monotonic() - began < 30  # woken, not at its next look a minute on
        assert not watcher.thread.is_alive()
        assert not any(guard.gone for guard in guards.values())
        assert stop_received() is None
    finally:
        os.close(master)
        os.close(slave)


def test_a_pipe_whose_reader_goes_away_is_closed_and_told(stop_handling: None) -> None:
    """Found with no write: the stream is pointed at /dev/null (nothing is written to it again,
    nor flushed at exit) and the stop is recorded as a write's would be."""
    read, write = os.pipe()
    guard = guard_on(write)
    watcher = OutputWatcher({write: guard})
    try:
        os.close(read)
        deadline = time.monotonic() + 30
        # Both: the watcher marks the stream gone, then records the stop (PipeGuard._closed), so a
        # check between the two saw no stop (a fresh clone's run, under load).
        while (not guard.gone or stop_received() is None) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert guard.gone and stop_received() == signal.SIGPIPE
        assert os.path.samestat(os.fstat(write), os.stat(os.devnull))
        assert not guard.found_closed()  # found once: a write finding it after tells nothing more
    finally:
        watcher.close()
        os.close(write)


@pytest.mark.parametrize("command", [["plan", "--test", "quick", "-t", "fake:"],
                                     ["run", "-t", "fake:", "--test", "quick", "--json", "-p", "runs=1", "--no-report",
                                      "--no-library"]])
def test_a_command_started_with_stdout_closed_is_refused(tmp_path: Path, command: list[str]) -> None:
    """QA: `ssdlab run --json … >&-` and `ssdlab plan … >&-` exited 0 having printed nothing
    anywhere (Python gives a closed descriptor's stream as None, and rich then writes nowhere)."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python"),
           "SSDLAB_LIBRARY": str(tmp_path / "lib.db")}
    out = ["-o", str(tmp_path / "b")] if command[0] == "run" else []
    proc = subprocess.run([sys.executable, "-m", "ssdlab", *command, *out], env=env, stdin=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False, timeout=120,
                          preexec_fn=lambda: os.close(1))  # the child's stdout, closed before exec
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: stdout is closed"), proc.stderr
    assert ">/dev/null" in proc.stderr and not (tmp_path / "b").exists()
