"""Capture a device's block I/O through tracefs (docs/traces.md, "Capture").

The kernel's block_rq_issue and block_rq_complete events (include/trace/events/block.h)
are enabled in a private tracefs instance (instances/ssdlab-PID, so nothing else tracing
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
import select
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ssdlab.bundle import replacing_text_file
from ssdlab.errors import UsageError
from ssdlab.outputs import write_attribute
from ssdlab.targets.spec import KINDS

TRACEFS = Path("/sys/kernel/tracing")
EVENTS = ("block/block_rq_issue", "block/block_rq_complete")
CLOCK = "global"  # one clock across CPUs; see the module docstring
READ_CHUNK = 1 << 16
POLL_S = 0.1


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


def _enable(inst: Path, major: int, minor: int) -> None:
    dev = (major << 20) | minor  # the kernel's internal dev_t, as the events record it
    for event in EVENTS:
        _write(inst / "events" / event / "filter", f"dev == {dev}")
        _write(inst / "events" / event / "enable", "1")


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
        finally:
            os.close(fd)
    return CaptureResult(lines=lines, seconds=time.monotonic() - start, command_status=status, clock=clock,
                         notes=notes)
