"""Exceptions raised inside ssdlab; only the CLI turns them into messages and exit codes.

Also how a stop signal (Ctrl-C, SIGTERM, SIGHUP) becomes one of them (`stop_signals`), and where:
anywhere, or inside `stops_held()` only where the code asks (`check_stop`, `stoppable`). The first
stop names the stop whatever came after it: its exception, hence the bundle's and the message's
words, and the CLI's exit status.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal


class SsdlabError(Exception):
    """A failure the user can act on. str(err) is one line that says what to do."""

    exit_code = 2


class UsageError(SsdlabError):
    """Bad input: a target string, a workload, an option."""


class TargetError(SsdlabError):
    """The target cannot be opened or inspected."""


class SafetyError(SsdlabError):
    """A write was refused by the safety rules (docs/safety.md)."""

    exit_code = 3


class InUse(SafetyError):
    """The target became in use during the run (mounted, held, mapped): the run stops before it
    writes again, keeping what it measured; it resumes once the target is free."""


# How a stop by the watch is told in words (the measurement's `error`, the message). The runner does
# not read them: the measurement says why it stopped (Measurement.stopped_by, stop_cause).
CAME_INTO_USE = "came into use during the write, so fio was stopped at once and nothing more is written to it"


class EngineError(SsdlabError):
    """An engine (fio, simulator) failed or is missing."""

    exit_code = 4


class BundleError(SsdlabError):
    """A result bundle is missing, malformed or of an unknown schema."""


def json_error_text(err: json.JSONDecodeError) -> str:
    """Where and why JSON did not parse, in words: "Expecting ',' delimiter at line 3 column 5".
    Some of json's messages end in "at", the place to follow ("Unterminated string starting at",
    "Invalid control character at"): QA read "starting at at line 71"."""
    where = f"line {err.lineno} column {err.colno}"
    return f"{err.msg} {where}" if err.msg.endswith(" at") else f"{err.msg} at {where}"


class Interrupted(SsdlabError):
    """The run was stopped (Ctrl-C or a signal); what was measured is kept."""

    exit_code = 130


class Stopped(KeyboardInterrupt):
    """A SIGTERM or SIGHUP: the run stops as on Ctrl-C, and the signal is named, not 'the user'
    (`reason`: what sent it, when the signal's own name does not say it: a closed output)."""

    def __init__(self, signum: int, reason: str | None = None) -> None:
        self.signum = signum
        name = signal.Signals(signum).name
        super().__init__(reason or f"{(signal.strsignal(signum) or name).lower()} ({name})")


class Cancelled(KeyboardInterrupt):
    """Stops the run-ahead's second runner (runahead.py) when the user stops the run: raised
    from its observer, it ends that runner as Ctrl-C would, and is told as Ctrl-C is."""


USER_STOP = "interrupted by the user"  # a Ctrl-C, as bundles and messages tell it


def stop_reason(error: BaseException) -> str:
    """How a stop is told in a bundle and a message: the signal that sent it, else Ctrl-C."""
    return str(error) if isinstance(error, Stopped) else USER_STOP


def stop_notes(error: BaseException) -> tuple[str, ...]:
    """What an engine said of the work a stop cut off (its notes on the stop, add_note), for the
    stopped test's notes."""
    return tuple(note for note in getattr(error, "__notes__", ()) if isinstance(note, str))


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# SIGQUIT (Ctrl-\) is left to its default action, on purpose: it is the terminal's "quit now" for
# a program that does not stop as asked, and ssdlab holds stops (a second Ctrl-C while the first is
# answered: saving a large simulated drive, writing the report). It ends the run as a crash does,
# with nothing lost that a resume does not redo: every bundle write is atomic, fio is stopped as
# its parent dies (fio_process.stop_with_parent), the bundle's lock goes with the process, and
# run.json, still "running", resumes (the report says the run stopped without saving its status).
# A write whose reader went away (`ssdlab run … | head`) stops as a stop signal does, told as the
# signal the system sends for it: Python ignores SIGPIPE, so the write fails (EPIPE) instead, and
# the CLI's guard on stdout and stderr reports it (output_closed); its watcher finds the reader
# gone without a write. No handler is installed for SIGPIPE but inside closures_told(), and that
# one acts only on an output found closed: a pipe to a child process (fio, ssh) that closes is
# that engine's to deal with, no stop.
OUTPUT_CLOSED = signal.SIGPIPE
OUTPUT_CLOSED_WORDS = "the output was closed"  # how a stop by a closed output is told (stop_error)

# Why a workload stopped early, as its measurement records it (Measurement.stopped_by): the user
# (Ctrl-C, or the run-ahead half stopped with the run), a stop signal (SIGTERM, SIGHUP, a closed
# output), the engine's watch finding the device in use (InUse: the run then waits for the device
# to be free, not for the user), or an error in the engine's own callback (the simulator's).
StopCause = Literal["user", "signal", "in_use", "error"]


def stop_cause(error: BaseException) -> StopCause:
    """Why `error`, the exception that stopped a workload, stopped it."""
    if isinstance(error, InUse):
        return "in_use"
    if isinstance(error, Stopped):
        return "signal"
    return "user" if isinstance(error, KeyboardInterrupt) else "error"


def stop_cause_in_words(reason: str | None) -> StopCause:
    """Why a stopped measurement written before measurements recorded it (Measurement.stopped_by)
    stopped, from its `error` as that ssdlab wrote it (USER_STOP, a Stopped's words, CAME_INTO_USE;
    anything else was an error the engine met). For those files only: the words are no contract."""
    text = reason or ""
    if CAME_INTO_USE in text:
        return "in_use"
    if text == USER_STOP:
        return "user"
    named = tuple(f"({sig.name})" for sig in STOP_SIGNALS)
    return "signal" if text.endswith(named) or text.startswith(OUTPUT_CLOSED_WORDS) else "error"



@dataclass
class _Stops:
    """What the stop handler saw. Python runs signal handlers in the main thread only, so only
    that thread's blocks count."""

    received: list[int] = field(default_factory=list)  # every stop signal, in order
    closed: list[str] = field(default_factory=list)  # the outputs found closed (OUTPUT_CLOSED), in order
    closed_told: int = 0  # how many of them the main thread has acted on (raised or held)
    raised: bool = False  # the first was raised: the program is stopping
    hold_later: bool = False  # a stop after the first is held (hold_later_stops)
    held: int = 0  # stops_held() blocks open
    closed_held: int = 0  # closed_output_held() blocks open
    stoppable: int = 0  # stoppable() blocks open (inside held ones)


_stops = _Stops()


def stop_error(signum: int) -> KeyboardInterrupt:
    """What a stop signal raises: Ctrl-C's own exception, or a Stopped that names the signal (or
    the output found closed)."""
    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    if signum == OUTPUT_CLOSED:
        return Stopped(signum, f"{OUTPUT_CLOSED_WORDS} ({(_stops.closed or ['output'])[0]}: broken pipe)")
    return Stopped(signum)


def _on_stop(signum: int, frame: object) -> None:
    if only_output_closed() and _stops.closed_told == 0:
        # Every stop so far is an output another thread found closed that this thread has not
        # acted on yet: the signal came first as far as the program knows, and it is most likely
        # what took the reader away. QA: Ctrl-C on `ssdlab run … | tee log` reaches both; tee's
        # end was found closed while the simulator held this thread, and the run was recorded as
        # stopped by "the output was closed" with exit status 141, not by the user's Ctrl-C.
        _stops.received.insert(0, signum)
    else:
        _stops.received.append(signum)
    _raise_unless_held(signum)


def _raise_unless_held(signum: int) -> None:
    """In the main thread, as a stop (`signum`) comes: raise the stop, unless it is held here."""
    if _closed_held(signum) or (not _stops.stoppable and (_stops.held or (_stops.raised and _stops.hold_later))):
        return  # held: check_stop() raises it where the program can act on it
    _stops.raised = True
    raise _first_stop_error(signum)


def _first_stop_error(signum: int) -> KeyboardInterrupt:
    """What a stop raises: the first stop's exception, whichever raises it. The first ended the
    run (a stop after it is one the program was already answering, or one that only cut its
    bookkeeping short), and it names the exit status (cli._stop_code): the words must name the same
    stop. Every closed output so far is then acted on (_on_closed_elsewhere). `signum`: the one
    coming, should none be recorded yet (another thread records them)."""
    _stops.closed_told = len(_stops.closed)
    return stop_error(_stops.received[0] if _stops.received else signum)


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """The CLI's handling of Ctrl-C, SIGTERM and SIGHUP: a stop is raised where the program is —
    a kill, a CI timeout or a closed terminal stop as Ctrl-C does, named — but inside
    stops_held(), and after the first when hold_later_stops() was called. A signal the program
    was started with ignored stays ignored: Ctrl-C in a background job, as Python leaves it, and
    SIGHUP under `nohup`, whose whole point is a run that outlives its terminal. The
    handlers from before are put back if no stop came; after one, the program is on its way out
    and its last steps (the message, atexit hooks) are not cut short either."""
    global _stops
    _stops = _Stops()
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _on_stop)
    try:
        yield
    finally:
        if _stops.received:  # on its way out: any stop from now on is held (and not raised later)
            _stops = _Stops(raised=True, hold_later=True)
        else:
            for sig, handler in before.items():
                if handler is not None:  # None: not set from Python; nothing to put back
                    signal.signal(sig, handler)


def output_closed(stream: str) -> None:
    """`stream` (stdout, stderr) was found with its reader gone, by a write or by the watcher of
    cli/streams.py: a stop, raised or held where a stop signal would be. In another thread (the
    watcher, a display's refresh) it is recorded, and the main thread, where alone a stop is
    handled, is told as a signal tells it, at once, while closures_told() lasts (else at its next
    check_stop())."""
    _stops.closed.append(stream)
    _stops.received.append(OUTPUT_CLOSED)
    if _main_thread():
        _stops.closed_told = len(_stops.closed)
        _raise_unless_held(OUTPUT_CLOSED)
    elif signal.getsignal(OUTPUT_CLOSED) is _on_closed_elsewhere:  # never SIG_DFL: that would kill the program
        main = threading.main_thread().ident
        if main is not None:
            signal.pthread_kill(main, OUTPUT_CLOSED)


@contextlib.contextmanager
def closures_told() -> Iterator[bool]:
    """While it lasts (inside stop_signals()), an output another thread finds closed is told to
    the main thread by OUTPUT_CLOSED, a signal: acted on at once wherever that thread is, as a stop
    signal is, a wait in a system call (a lock, a select) cut short too. Yields whether it is: not
    when SIGPIPE was not ignored as the program began (Python ignores it; an embedding program may
    not), whose own handling is then left alone."""
    if not _main_thread() or signal.getsignal(OUTPUT_CLOSED) is not signal.SIG_IGN:
        yield False
        return
    signal.signal(OUTPUT_CLOSED, _on_closed_elsewhere)
    try:
        yield True
    finally:
        # signal.signal() first runs the handlers of signals come already: one told before the
        # teller stopped is acted on, held (no stop cuts into putting the handler back), not
        # dropped with a warning.
        with stops_held():
            signal.signal(OUTPUT_CLOSED, signal.SIG_IGN)


def check_closed_output() -> None:
    """check_stop(), where only closed outputs came and none was raised: one found as a command
    ended, while stops were held (its output's watcher stopping), is raised as the write after it
    would have raised it. A stop signal held and never raised is left as it was."""
    if only_output_closed() and not _stops.raised:
        check_stop()


def _on_closed_elsewhere(signum: int, frame: object) -> None:
    """OUTPUT_CLOSED's handler in closures_told(): an output another thread found closed is acted
    on as a stop signal is. A SIGPIPE the system sent for a write to any other closed pipe (a
    child's: that write fails with EPIPE, as with SIGPIPE ignored) finds none new: no stop."""
    if len(_stops.closed) > _stops.closed_told:
        _stops.closed_told = len(_stops.closed)
        _raise_unless_held(OUTPUT_CLOSED)


@contextlib.contextmanager
def closed_output_held() -> Iterator[None]:
    """Work that needs no terminal, done whole whatever the output does (a measured run's library
    entry and report: files, which a reader that went away, `ssdlab run … | head -3`, does not
    stop): a closed output found in it is only recorded, neither raised nor by check_stop(); the
    block's caller raises it after (check_stop()). A stop signal is as outside it: a user who
    stops the program is obeyed, as before."""
    if only_output_closed():  # one raised before it (the runner's, as the run ended) is taken back,
        _stops.raised = False  # or a stop signal in the block would be held as one after the first
    _stops.closed_held += 1
    try:
        yield
    finally:
        _stops.closed_held -= 1


def _closed_held(signum: int) -> bool:
    """A closed output inside closed_output_held(): not raised there."""
    return signum == OUTPUT_CLOSED and _stops.closed_held > 0


def only_output_closed() -> bool:
    """A stop was received and every one was a closed output, no stop signal: no one asked the
    program to stop, a reader only went away."""
    return bool(_stops.received) and all(signum == OUTPUT_CLOSED for signum in _stops.received)


def hold_later_stops() -> None:
    """From now on a stop after the first is held (`ssdlab run`): the first stops the run, and
    what stopping takes — marking the bundle, the report, the message — runs to its end
    whatever comes next (but in stoppable() blocks: a second Ctrl-C ends fio's grace period)."""
    _stops.hold_later = True


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """A block a stop signal must not cut into at any bytecode (a run: a stop raised between
    writing a record and handing it back would lose it): a stop is held, and raised where the
    block asks, by check_stop() and inside stoppable(). Only with stop_signals() installed."""
    if not _main_thread():
        yield
        return
    _stops.held += 1
    try:
        yield
    finally:
        _stops.held -= 1


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """A wait a stop may cut into, inside stops_held() (an engine measuring): a stop held until
    now is raised as it begins, and one that comes during it at once; also a later one, so a
    second Ctrl-C ends fio's grace period."""
    if not _main_thread():
        yield
        return
    check_stop()
    _stops.stoppable += 1
    try:
        yield
    finally:
        _stops.stoppable -= 1


def stop_received() -> int | None:
    """The first stop signal the handler saw (raised or held), or None."""
    return _stops.received[0] if _stops.received else None


def signal_reason(signum: int) -> str:
    """stop_reason() of what the signal raises."""
    return stop_reason(stop_error(signum))


def check_stop() -> None:
    """In the main thread, raise the stop received if one was: held, or raised and swallowed on
    its way (a stop is never lost), but a closed output inside closed_output_held() (a stop after
    it is raised, named by the first: _first_stop_error). Call it where new work begins."""
    pending = next((signum for signum in _stops.received if not _closed_held(signum)), None)
    if pending is not None and _main_thread():
        _stops.raised = True
        raise _first_stop_error(pending)


class FileSystemError(SsdlabError):
    """The file system refused what ssdlab needed of it (a full disk, permissions, a read-only
    mount): nothing to do with ssdlab's code, and put right outside it."""


def os_error_text(err: OSError) -> str:
    """'No space left on device: /path/run.json': what the system said, and where when known."""
    where = f": {err.filename}" if err.filename else ""
    return f"{err.strerror or err}{where}"


def os_error_line(err: OSError) -> str:
    """An OSError as the CLI's one line says it (after 'error:'): what the system said, and what to
    check. `run --json` gives a refusal the same words."""
    return f"{os_error_text(err)}; check the path, its permissions and free space"


class InternalError(SsdlabError):
    """A bug in ssdlab itself: the run is marked failed and the details are saved."""

    exit_code = 70


def reworded(err: SsdlabError, text: str) -> SsdlabError:
    """An error of `err`'s kind that says `text`, with its exit code. A kind made with more than a
    message (MissingBundle, the audit's CommandFailed) gives way to the nearest kind above it made
    with one, so the words added (a test's name, the resume hint) are never dropped."""
    for kind in type(err).__mro__:
        if not issubclass(kind, SsdlabError):
            break
        try:
            new = kind(text)
        except TypeError:
            continue
        new.exit_code = err.exit_code  # an instance's own (CommandFailed's) or its kind's
        return new
    return err


def with_left(err: SsdlabError, left: str) -> SsdlabError:
    """The error that stopped the run (or refused it), with what tidying up left after it ("; "
    and the words: Runner._tidy, a --host probe's files), never instead of it."""
    return reworded(err, f"{err}{left}")
