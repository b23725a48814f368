"""Capture a device's block I/O through tracefs (docs/traces.md, "Capture").

The kernel's block_rq_issue, block_rq_complete and block_rq_requeue events
(include/trace/events/block.h) are enabled in a private tracefs instance (instances/ssdlab-PID, so nothing else tracing
on the machine is disturbed), filtered to the device's dev_t, and their trace_pipe lines are
saved as text. The instance's trace clock is set to `global`: the default, `local`, is each
CPU's own clock, so an I/O issued on one CPU and completed on another could show a completion
before its issue, and the issues of two CPUs out of order; `global` is one clock for all CPUs
(Documentation/trace/ftrace.rst, "trace_clock"). Where it cannot be set, the capture keeps the
instance's clock and says so (CaptureResult.notes). `import_trace(..., "capture")` turns the
lines into a trace. The device itself is never opened: capture is read-only. Root only. The
instance is removed on every exit, Ctrl-C included, and tracefs is unmounted again if this
capture mounted it.
"""

from __future__ import annotations

import codecs
import math
import os
import re
import select
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO

from ssdlab.bundle import replacing_text_file
from ssdlab.errors import UsageError
from ssdlab.outputs import write_attribute
from ssdlab.targets.spec import KINDS

TRACEFS = Path("/sys/kernel/tracing")
# A requeue too: a request the driver gives back is issued again, and the import counts it once
# (trace.importers.OP_REQUEUE); without the requeue event it would be two I/Os.
ISSUE_EVENT = "block/block_rq_issue"
EVENTS = (ISSUE_EVENT, "block/block_rq_complete", "block/block_rq_requeue")
CLOCK = "global"  # one clock across CPUs; see the module docstring
READ_CHUNK = 1 << 16
POLL_S = 0.1
# After the capture's time or command, issues stop being recorded and the completions of the I/Os
# still in flight are waited for (as completions are recorded before issues are, _enable): until
# the device is quiet for QUIET_S, at most DRAIN_S. QA: a `--seconds` capture of a busy device
# ended with I/Os in flight, and one I/O without its completion (1 of 78,626 at QD 8) made the
# whole trace's queue depth unknown and its fio replay fall back to 32 lanes.
QUIET_S = 0.1
DRAIN_S = 0.5  # a busy device is never quiet: its later completions are of I/Os not captured, and ignored
# A new instance's ring buffer holds ~1.4 MB per CPU (buffer_size_kb 1410 here), about 20,000 block
# events: a loop device at QD 8 (~100,000 issues and completions a second) filled it while the reader
# waited for a busy CPU, and tracefs lost 507 events at once (CI flake, 2026-11-28: 140 "[LOST N
# EVENTS]" lines in 0.5 s). The buffer is grown to BUFFER_KB per CPU, the instance's memory bounded by
# BUFFER_TOTAL_KB over all CPUs; where the kernel refuses it, the default stays and losses are said.
BUFFER_KB = 16 * 1024
BUFFER_TOTAL_KB = 256 * 1024


def check_seconds(seconds: float) -> float:
    """A capture's duration: finite and above 0 (a negative one would end at once, NaN never)."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise UsageError(f"--seconds '{seconds:g}': give a number of seconds above 0, e.g. 60")
    return seconds


@dataclass(frozen=True)
class CaptureResult:
    lines: int
    seconds: float
    command_status: int | None
    clock: str = CLOCK  # the tracefs trace clock the event times are of
    notes: tuple[str, ...] = ()  # for the user: a clock other than CLOCK


def device_dev(device: str) -> tuple[int, int]:
    """(major, minor) of a block device node; partitions are refused (events name the disk)."""
    try:
        st = os.stat(device)
    except OSError as err:
        if device.partition(":")[0] in KINDS:  # `fake:`, `sim:`, `file:/x`: read as a path it is "No such file"
            raise UsageError(f"{device!r} is an ssdlab target, not a device node; block events are seen on a "
                             "block device: give one such as /dev/nvme0n1") from None
        raise UsageError(f"{device}: {err.strerror}; give a block device such as /dev/nvme0n1") from None
    import stat

    if not stat.S_ISBLK(st.st_mode):
        raise UsageError(f"{device} is not a block device; give one such as /dev/nvme0n1")
    name = Path(os.path.realpath(device)).name
    if (Path("/sys/class/block") / name / "partition").exists():
        raise UsageError(f"{device} is a partition; capture its disk (block events name the whole disk)")
    return os.major(st.st_rdev), os.minor(st.st_rdev)


def _write(path: Path, text: str) -> None:
    write_attribute(path, text)


@contextmanager
def tracefs_instance(root: Path = TRACEFS) -> Iterator[Path]:
    """A private tracefs instance, mounting tracefs first if needed; always cleaned up."""
    mounted = False
    if not (root / "instances").is_dir():
        done = subprocess.run(["mount", "-t", "tracefs", "nodev", str(root)], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            raise UsageError(f"tracefs is not mounted at {root} and mounting it failed: {done.stderr.strip()}")
        mounted = True
    inst = root / "instances" / f"ssdlab-{os.getpid()}"
    inst.mkdir(exist_ok=True)
    try:
        yield inst
    finally:
        for event in EVENTS:
            enable = inst / "events" / event / "enable"
            if enable.exists():
                _write(enable, "0")
        inst.rmdir()
        if mounted:
            subprocess.run(["umount", str(root)], capture_output=True, check=False)


def _current_clock(text: str) -> str | None:
    """The clock in use, from a trace_clock file ("[local] global counter ..."), bracketed."""
    return next((word[1:-1] for word in text.split() if word.startswith("[") and word.endswith("]")), None)


def set_clock(inst: Path, clock: str = CLOCK) -> tuple[str, tuple[str, ...]]:
    """Set the instance's trace clock to `clock` where the kernel offers it: the clock then in use,
    and a note where that is not `clock` (the capture still runs: its times are then per CPU)."""
    path = inst / "trace_clock"
    try:
        offered = path.read_text()
        if clock in offered.replace("[", " ").replace("]", " ").split():
            _write(path, clock)
            offered = path.read_text()
    except OSError as err:
        return "unknown", (f"the capture's times are of tracefs's default clock: its trace_clock could not be set "
                           f"to {clock} ({err.strerror or err}); completions on another CPU than their issue may show "
                           "out of order",)
    used = _current_clock(offered) or "unknown"
    if used == clock:
        return used, ()
    return used, (f"the capture's times are of tracefs's {used} clock, per CPU ({clock} is not offered by this "
                  "kernel); completions on another CPU than their issue may show out of order",)


def grow_buffer(inst: Path, cpus: int | None = None) -> int | None:
    """Grow the instance's per-CPU buffer (BUFFER_KB, at most BUFFER_TOTAL_KB over `cpus`) where it is
    smaller; the size then in use, or None where it could not be read. Before any event: a resize
    empties the buffer."""
    path = inst / "buffer_size_kb"
    want_kb = min(BUFFER_KB, BUFFER_TOTAL_KB // max(1, cpus or os.cpu_count() or 1))
    try:
        now_kb = _kb(path.read_text())
        if now_kb is not None and now_kb < want_kb:
            _write(path, str(want_kb))
            now_kb = _kb(path.read_text())
    except OSError:
        return None  # the default buffer stays: an overrun is still counted and said (lost_note)
    return now_kb


def _kb(text: str) -> int | None:
    """buffer_size_kb's size: "1410", or "7 (expanded: 1408)" of a buffer not yet in use (its size then)."""
    found = re.match(r"\s*(\d+)", text)
    return int(found[1]) if found else None


def _enable(inst: Path, major: int, minor: int) -> None:
    """Filter every event to the device, and enable the issues last: an I/O issued before its
    completion event was on would have no completion. QA: enabled in turn, issue first, the I/Os
    issued in the moment before completions were recorded (7 at QD 8) had none, and one such
    record leaves a trace's queue depth unknown."""
    dev = (major << 20) | minor  # the kernel's internal dev_t, as the events record it
    for event in EVENTS:
        _write(inst / "events" / event / "filter", f"dev == {dev}")
    for event in (*(e for e in EVENTS if e != ISSUE_EVENT), ISSUE_EVENT):
        _write(inst / "events" / event / "enable", "1")


def _drain(inst: Path, fd: int, out: IO[str]) -> int:
    """Stop recording issues and take the completions (and requeues) still to come: the I/Os in
    flight when the capture ended. Until no event came for QUIET_S, or DRAIN_S at most."""
    _write(inst / "events" / ISSUE_EVENT / "enable", "0")
    end = time.monotonic() + DRAIN_S
    lines, quiet_until = 0, time.monotonic() + QUIET_S
    while True:
        stop = min(end, quiet_until)
        if time.monotonic() >= stop:
            return lines
        more = _pump(fd, out, partial(_past, stop))
        if more:
            lines, quiet_until = lines + more, time.monotonic() + QUIET_S


def _past(moment: float) -> bool:
    return time.monotonic() >= moment


def lost_events(inst: Path) -> int:
    """Events tracefs lost in this instance: written over before they were read (`overrun`, a
    reader that fell behind a full buffer) or not recorded (`dropped events`), over every CPU
    (per_cpu/cpuN/stats). A lost issue is a missing I/O and a lost completion a wrong latency:
    the capture says so rather than pass a partial trace for a whole one."""
    lost = 0
    for stats in inst.glob("per_cpu/cpu*/stats"):
        try:
            text = stats.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.strip() in ("overrun", "dropped events") and value.strip().isdigit():
                lost += int(value)
    return lost


def lost_note(lost: int) -> tuple[str, ...]:
    """The note of a capture that lost events (lost_events), or none."""
    if not lost:
        return ()
    return (f"tracefs lost {lost:,} block events of this capture (its buffer overran: the capture fell behind "
            "the device), so the trace misses I/Os or completions: capture a shorter run or a quieter moment",)


def _pump(fd: int, out: IO[str], done: Callable[[], bool]) -> int:
    """Copy trace_pipe to `out` until done(); returns the number of lines."""
    lines, tail = 0, ""
    # Incremental: a task name's UTF-8 character split between two reads stays one character
    # (decoding each read alone made it two U+FFFD).
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while True:
        finished = done()
        ready, _, _ = select.select([fd], [], [], 0 if finished else POLL_S)
        if ready:
            data = decoder.decode(os.read(fd, READ_CHUNK))
            text = tail + data
            keep = text.rsplit("\n", 1)
            tail = keep[1] if len(keep) > 1 else text
            complete = keep[0] + "\n" if len(keep) > 1 else ""
            out.write(complete)
            lines += complete.count("\n")
            continue
        if finished:
            return lines


def capture(device: str, out_path: Path, *, seconds: float | None = None, command: Sequence[str] = (),
            root: Path = TRACEFS) -> CaptureResult:
    """Capture `device`'s block events for `seconds`, or while `command` runs, into out_path."""
    if seconds is not None:
        check_seconds(seconds)
    if os.geteuid() != 0:
        raise UsageError("capture needs root (tracefs); run it with sudo")
    if (seconds is None) == (not command):
        raise UsageError("give either --seconds N or -- COMMAND")
    major, minor = device_dev(device)
    out_path.parent.mkdir(parents=True, exist_ok=True)  # as the trace file's writer does
    start = time.monotonic()
    status: int | None = None
    # A temporary file renamed to out_path at the end, Ctrl-C included: a link or device node
    # put there after the command's check is replaced, never written through.
    with tracefs_instance(root) as inst, replacing_text_file(out_path) as out:
        clock, notes = set_clock(inst)  # before any event: a clock change empties the buffer
        grow_buffer(inst)
        _write(inst / "trace", "")  # start empty
        _enable(inst, major, minor)
        fd = os.open(inst / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        try:
            if command:
                proc = subprocess.Popen(list(command))
                try:
                    lines = _pump(fd, out, lambda: proc.poll() is not None)
                finally:
                    if proc.poll() is None:
                        proc.terminate()
                        proc.wait()
                status = proc.returncode
            else:
                end = start + float(seconds or 0)
                lines = _pump(fd, out, lambda: time.monotonic() >= end)
            seconds_captured = time.monotonic() - start
            lines += _drain(inst, fd, out)
            notes = (*notes, *lost_note(lost_events(inst)))
        finally:
            os.close(fd)
    return CaptureResult(lines=lines, seconds=seconds_captured, command_status=status, clock=clock,
                         notes=notes)
