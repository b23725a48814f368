"""fio's processes: started so that nothing of them outlives a workload (its jobs setsid() away
from it), and stopped so (engines/fio.py measures with them; trace/fio_replay.py replays)."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssdlab.errors import CAME_INTO_USE, EngineError, InUse
from ssdlab.targets.base import ReadingProcess, Target
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget
from ssdlab.targets.raid import Raid0Target
from ssdlab.targets.safety import Openers

# fio writes its results when told to stop; give it this long before killing it.
STOP_GRACE_S = 30.0
PR_SET_PDEATHSIG = 1
SIG_DFL_ADDRESS = ctypes.c_void_p(0)  # SIG_DFL as libc's signal() takes it


def held_file_comment(path: str, filename: str | None, mark: str) -> list[str]:
    """The word, as a comment opened by `mark`, on a fio given `filename` for the target's `path`:
    the descriptor ssdlab holds (FileTarget.fio_open), with the path it was opened by. A job file
    says it (';', engines/fio.py), and so does a replay's command file ('#', trace/fio_replay.py)."""
    if filename is None or filename == path:
        return []
    return [f"{mark} {filename}: {path}, held open by ssdlab (O_NOFOLLOW) while fio ran, so fio used the "
            "file ssdlab checked, whatever the path named by then"]


def stop_with_parent() -> Callable[[], None]:
    """A pre-exec hook: if ssdlab dies without cleaning up (SIGKILL), fio gets SIGINT and stops.

    SIGINT is also set back to its default action: a process started in the background by a
    script ignores it, fio inherits that, and a SIGINT arriving before fio installs its own
    handler would then be lost and fio would run its whole job alone. With the default
    action such an early SIGINT ends fio, as it does from a terminal.
    libc is loaded here, in the parent, so the forked child only makes the system calls.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    prctl, set_action = libc.prctl, libc.signal

    def hook() -> None:
        set_action(signal.SIGINT, SIG_DFL_ADDRESS)
        prctl(PR_SET_PDEATHSIG, signal.SIGINT)

    return hook


# fio's job processes call setsid(): each is a session and a process group of its own (ps shows a
# job's pgid and sid as its pid), so neither killing fio nor os.killpg() of its group reaches them.
# QA: fio killed outright left its job writing the device, reparented to pid 1; the resume ssdlab
# offered ran beside it, and on a file target that job made ssdlab refuse its own resume ("in use
# by pid N (fio)") until it ended. What each job still has open is what fio was given as stdout
# and stderr: a terminal, pipes or a file ssdlab made for this fio alone, so those find them.
FileKey = tuple[int, int]  # (st_dev, st_ino) of an open file
LEFTOVER_POLL_S = 0.05


def file_key(fd: int) -> FileKey:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _holds(pid: int, keys: frozenset[FileKey]) -> bool:
    """Whether process `pid` has one of the files `keys` open (False once it is gone or a zombie,
    whose files are closed)."""
    try:
        fds = os.scandir(f"/proc/{pid}/fd")
    except OSError:
        return False
    with fds:
        for fd in fds:
            try:
                st = os.stat(fd.path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in keys:
                return True
    return False


def holders(keys: frozenset[FileKey]) -> list[int]:
    """The processes other than this one that have one of the files `keys` open."""
    me = os.getpid()
    with os.scandir("/proc") as entries:
        pids = [int(e.name) for e in entries if e.name.isdigit() and int(e.name) != me]
    return [pid for pid in pids if _holds(pid, keys)]


def _kill_holder(pid: int, keys: frozenset[FileKey]) -> None:
    """SIGKILL `pid` if it still holds one of `keys`: through a pidfd, so a pid reused since the
    scan (by a process that holds none of fio's files) is never signalled."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return  # gone
    try:
        if _holds(pid, keys):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def end_leftovers(keys: frozenset[FileKey], grace_s: float = STOP_GRACE_S) -> list[int]:
    """Kill every process but this one that holds one of `keys` (fio's stdout and stderr: what is
    left of a fio that ended, its jobs) and wait until none holds them, for up to `grace_s` (a
    process killed in the middle of a direct I/O ends when the I/O does); the pids still there
    then, normally none. A fio that ended by itself waited for its jobs: nothing is left."""
    deadline = time.monotonic() + grace_s
    while left := holders(keys):
        if time.monotonic() >= deadline:
            return left
        for pid in left:
            _kill_holder(pid, keys)
        time.sleep(LEFTOVER_POLL_S)
    return []


def leftover_error(left: Sequence[int]) -> EngineError:
    pids = ", ".join(map(str, left))
    return EngineError(f"fio's job process (pid {pids}) did not end when killed; the target is still in use "
                       "until it does: wait for it to end before running on it again")


def exit_words(code: int) -> str:
    """'exit 1', or 'killed by SIGKILL' for fio ended by a signal (Popen's negative code)."""
    if code >= 0:
        return f"exit {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def run_fio_captured(argv: Sequence[str], timeout_s: float, cwd: Path | None = None,
                     watch: UseWatch | None = None) -> subprocess.CompletedProcess[str]:
    """subprocess.run(argv, capture_output=True, text=True) for a fio whose jobs must not outlive
    it: fio in a session of its own that stops if ssdlab dies (stop_with_parent); once fio has
    ended, or on a timeout, a stop or an error here, whatever of its jobs is left is killed
    (end_leftovers; they hold its pipes, which would otherwise keep communicate() waiting for
    them to the end of their work). A timeout raises subprocess.TimeoutExpired, as run() does;
    `watch` finding the device fio writes in use raises CameIntoUse, fio stopped at once."""
    proc = subprocess.Popen(list(argv), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True,
                            preexec_fn=stop_with_parent())
    assert proc.stdout is not None and proc.stderr is not None
    keys = frozenset({file_key(proc.stdout.fileno()), file_key(proc.stderr.fileno())})
    deadline = time.monotonic() + timeout_s
    try:
        out, err = _communicate(proc, keys, deadline, watch)
    except BaseException as error:  # a timeout, a stop: nothing of fio runs on
        if isinstance(error, KeyboardInterrupt | CameIntoUse):  # fio writes what it did so far, then ends
            stop_and_wait(proc)
        proc.kill()
        end_leftovers(keys)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        raise
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def stop_and_wait(proc: subprocess.Popen[Any]) -> None:
    """SIGINT makes fio stop its jobs and still write results and logs; wait for that, up to
    STOP_GRACE_S (a second stop ends the wait), then kill it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_S
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            continue
        except KeyboardInterrupt:
            break  # a second Ctrl-C: stop waiting
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _communicate(proc: subprocess.Popen[str], keys: frozenset[FileKey], deadline: float,
                 watch: UseWatch | None = None) -> tuple[str, str]:
    """proc.communicate() until `deadline` (subprocess.TimeoutExpired after it), killing fio's
    leftover jobs once fio itself has ended: they hold its pipes open; `watch` read on time."""
    while True:
        longest_s = min(1.0, max(0.0, deadline - time.monotonic()))
        try:
            return proc.communicate(timeout=watch.wait_s(longest_s) if watch else longest_s)
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
            if watch is not None:
                watch.check()
            if proc.poll() is not None:
                end_leftovers(keys)


# ---- a device that comes into use while fio writes it (docs/safety.md) ---------------------

# How often a write's device is read again for a use that began since (UseWatch). A reading takes
# about 1.6 ms of CPU on the development machine: about 0.5 % of one core over a write (docs/safety.md).
WATCH_PERIOD_S = 0.5
# Found in use, fio is stopped as Ctrl-C stops it (stop_and_wait: SIGINT, killed after STOP_GRACE_S),
# not killed outright: its jobs stop issuing I/O at the SIGINT (its writes were last seen 3 ms after
# it, on a loop device at 4 KiB QD32), and it then writes what it measured. fio killed outright
# writes nothing, and its jobs, each a session of its own, are not in its process group. QA: with
# mkfs running through a loop stacked on the target, fio took 15-27 s to end after its SIGINT,
# its I/O queued behind mkfs's; its job's write_bytes (/proc/PID/io) did not grow meanwhile.


# The scan for another writer of the device (a `dd of=/dev/X`, a second fio without --exclusive:
# O_EXCL does not stop them) stats every open file of every process, so its cost grows with the
# machine's open files: 3.8 ms of CPU at 87 processes (465 open files), 80 ms at 2,091 processes
# (10,500 open files: 2,000 `sleep`s) on the development machine. Read at every reading, that
# second case would take 16 % of one core beside fio. It is read as often as it stays within this
# share of one core, timed as it goes: at every reading (0.5 s) on an ordinary machine, about every
# 10 s with 2,000 processes (docs/safety.md).
WRITER_SCAN_SHARE = 0.01


class CameIntoUse(InUse):
    """The device fio writes came into use during the write: fio is stopped at once."""


def no_uses() -> Sequence[str]:
    """A workload that only reads refuses nothing: its watch looks for readers alone."""
    return ()


@dataclass
class UseWatch:
    """Reads `uses` (why the device is in use: BlockTarget.uses_while_writing) every `period_s`
    while fio writes, the first time as soon as it is asked (a use may have begun since the run's
    last check), and, as long as that scan's CPU stays within `writer_share` of one core (at every
    reading on an ordinary machine; WRITER_SCAN_SHARE), the other processes that have it open:
    `openers` (BlockTarget.openers_while_measuring: writers and readers in one scan), else
    `writers` alone. check() raises CameIntoUse once `uses` or a writer is found, a writer only
    when `writers` is given (the workload writes); without it, a writer is competing I/O as a
    reader is (ReadingProcess.writes). A reader refuses nothing: each one not said
    before (`said`, shared by the run's watches, which the caller fills with the readers said at
    the run's start) is told to `on_reader` once, and every reader seen during the workload is
    kept in `readers_seen`, for the measurement's record. The engine's loop that relays fio's
    output calls it (single-threaded: fio is stopped by the same code that started it)."""

    spec: str
    uses: Callable[[], Sequence[str]]
    writers: Callable[[], Sequence[str]] | None = None
    period_s: float = WATCH_PERIOD_S
    writer_share: float = WRITER_SCAN_SHARE
    openers: Callable[[], Openers] | None = None
    on_reader: Callable[[ReadingProcess], None] | None = None
    said: set[ReadingProcess] = field(default_factory=set)
    readers_seen: list[ReadingProcess] = field(default_factory=list)
    scan_cpu_s: list[float] = field(default_factory=list, repr=False)  # each scan's CPU, for its cost
    # The clock the period runs on (a test's own, so its readings do not depend on how soon a
    # loaded machine runs it: test_the_watch_reads_at_once_then_once_a_period_and_names_every_use).
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    _due_s: float = field(default=0.0, repr=False)  # clock() of the next reading
    _writers_due_s: float = field(default=0.0, repr=False)  # of the next scan for writers

    def wait_s(self, longest_s: float) -> float:
        """How long the caller may wait for fio's output before the next reading is due."""
        return min(longest_s, max(0.0, self._due_s - self.clock()))

    def check(self) -> None:
        now = self.clock()
        if now < self._due_s:
            return
        self._due_s = now + self.period_s
        reasons = [*self.uses(), *self._writers(now)]
        if reasons:
            # What was kept is the caller's to say (the runner: the bundle, with the resume command).
            raise CameIntoUse(f"{self.spec} {CAME_INTO_USE}: {'; '.join(reasons)}")

    def _writers(self, now: float) -> Sequence[str]:
        """The scan for writers (and readers) when it is due; the next one due once `writer_share`
        of the time since would have paid for this one's CPU (this thread's: fio's own is not ours)."""
        if (self.writers is None and self.openers is None) or now < self._writers_due_s:
            return ()
        began_s = time.thread_time()
        found = self._scan()
        spent_s = time.thread_time() - began_s
        self.scan_cpu_s.append(spent_s)
        self._writers_due_s = now + spent_s / self.writer_share
        return found

    def _scan(self) -> Sequence[str]:
        if self.openers is None:
            return self.writers() if self.writers is not None else ()
        found = self.openers()
        # Where a writer refuses nothing (a read, a scratch file), it competes as a reader does,
        # and changes what later reads read: told and kept the same way, in words that say it writes.
        competing = found.readers if self.writers is not None else (*found.readers, *found.writing)
        for reader in competing:
            self._seen(reader)
        return found.writers if self.writers is not None else ()

    def _seen(self, reader: ReadingProcess) -> None:
        if reader not in self.readers_seen:
            self.readers_seen.append(reader)
        if reader not in self.said:
            self.said.add(reader)
            if self.on_reader is not None:
                self.on_reader(reader)


def use_watch(target: Target, writes: bool, on_reader: Callable[[ReadingProcess], None] | None = None,
              said: set[ReadingProcess] | None = None) -> UseWatch | None:
    """The watch on a block device fio writes (docs/safety.md): ssdlab holds it O_EXCL for the
    write, but a loop device attached to it gets past that hold (QA: `losetup -f` on the target,
    then mkfs and mount on the new loop, while fio wrote on to the workload's end), and so does a
    program that opens it for writing without O_EXCL (`dd`), or that writes a loop target's
    backing file. A RAID-0's array and every member are watched so, each as a single device.
    The same scan finds another program that starts reading the target (or a loop's backing
    file) mid-run: no refusal, but its I/O competes with the test's. Given `on_reader` (told each
    reader not in `said` once), every measured workload is watched for readers, reads too and on
    a scratch file; without it, as before: only a block device written, and None otherwise. A
    read cannot harm a device in use (read-only tests run on mounted ones), so a read's watch
    refuses nothing. A file target's write refuses no use either: fio writes only its inode
    (FileTarget.fio_open), which is ssdlab's own scratch file (or one confirmed with --yes=PATH),
    swapon of it makes the kernel refuse fio's writes, and a loop attached to it maps only those
    bytes, nothing outside the file. The simulator writes memory."""
    shared = said if said is not None else set()
    if writes and isinstance(target, BlockTarget | Raid0Target):
        return UseWatch(target.spec, target.uses_while_writing, target.writers_while_writing,
                        openers=target.openers_while_measuring, on_reader=on_reader, said=shared)
    if on_reader is not None and isinstance(target, BlockTarget | Raid0Target | FileTarget):
        return UseWatch(target.spec, no_uses, openers=target.openers_while_measuring, on_reader=on_reader,
                        said=shared)
    return None
