"""Streaming importers: each source format, line by line, into the normalised model.

Every format's columns are documented beside its parser, with the source of that
documentation. A line that does not parse stops the import with one line naming the
file, the line number and what was wrong (TraceFormatError); nothing is guessed. So does a
read, write or trim of 0 bytes: it moves nothing, so it is not an I/O (replay refuses it).
File content quoted in an error is escaped and cut short (quoted), so a binary file gives a
readable line. Memory is bounded: records leave in chunks of IMPORT_CHUNK, and a line may
hold at most MAX_LINE_CHARS characters. The plain CSV formats are read a block of lines at a
time where every line of the block is plain (csv_blocks.py), with the records the line parsers
would give.

Records are written in time order (stable: equal times keep the source's order), with times
relative to the earliest: block traces from several CPUs come slightly out of order, and
blkparse users expect them sorted (_TimeOrder). One chunk is held back to sort in, so a record
may come up to a chunk of records late; one later than that is refused with its line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import islice
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ssdlab.errors import UsageError
from ssdlab.trace.csv_blocks import (
    BLOCK_LINES,
    LAYOUTS,
    Block,
    CsvLayout,
    device_texts,
    records,
    relative_units,
    scaled_ns,
    split_block,
)
from ssdlab.trace.model import (
    CHUNK_RECORDS,
    COLUMNS,
    FLAG_FUA,
    FLAG_META,
    FLAG_PREFLUSH,
    FLAG_SYNC,
    OP_FLUSH,
    OP_NAMES,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    OTHER_KINDS,
    ChunkBuilder,
    Provenance,
    TraceChunk,
    write_trace,
)
from ssdlab.units import counted, is_whole_number, number_slip

SECTOR = 512
# Records parsed into Python lists before they become numpy columns: 256 Ki keeps an
# import's peak memory (the whole process) at 150 to 340 MB whatever the source's size
# (measured 2026-11-29 on 0.3 to 1 M-line files: docs/traces.md).
IMPORT_CHUNK = 1 << 18
MAX_BYTES = 1 << 62  # offsets and lengths above this are not a block device
# No trace format has lines anywhere near this long; a longer one is binary data (or a
# disk, or /dev/zero), refused before it fills memory.
MAX_LINE_CHARS = 1 << 16
QUOTE_CHARS = 40  # file content in an error message: at most about this many characters


CUT_LINE = "the last line has no line end: the file may be cut short; remove that line or give the whole file"


class TraceFormatError(UsageError):
    """A source line that does not parse: `file:line: format: what is wrong`."""


class Record(NamedTuple):
    """One parsed line: a named tuple, made for every line of a trace, is cheaper to make than a
    frozen dataclass (which sets each field through object.__setattr__)."""

    ts_ns: int  # absolute in the source's clock; made relative to the first record on import
    op: int
    offset: int
    length: int
    flags: int = 0
    pid: int = -1
    completion_ns: int = -1  # absolute, same clock as ts_ns
    process: str | None = None


Device = str  # a device as the trace names it, normalised: "8,0" (MAJ,MIN), "hm,1", "1283", "/dev/sdb"


@dataclass(frozen=True)
class OtherRequests:
    """The requests of other kinds an import met (OP_OTHER): how many, and their bytes."""

    requests: int = 0
    size_bytes: int = 0

    def plus(self, nbytes: int) -> OtherRequests:
        return OtherRequests(self.requests + 1, self.size_bytes + nbytes)


class _State:
    """Per-import state a parser may keep (fio v2 clock, the device of the records)."""

    def __init__(self, field: DeviceField | None = None) -> None:
        self.clock_ns = 0
        self.done = False
        self.field = field  # the format's: what names a record's device, read by _keep
        self.device: Device | None = None  # the one device imported (--device), or the first seen
        self.chosen = False  # whether `device` was chosen: records of other devices are then skipped
        self.devices: set[Device] = set()  # every device the records name (at most MAX_DEVICES_SEEN)
        self.lost_events = 0  # events the tracing tool says it lost (tracefs "CPU:N [LOST K EVENTS]")

    @property
    def noun(self) -> str:
        """What the format calls a device, for messages."""
        return self.field.noun if self.field is not None else "device"


# A Tencent or Alibaba file holds thousands of volumes: the set that names them in an error stays bounded.
MAX_DEVICES_SEEN = 1 << 16
DEVICES_SHOWN = 8  # devices an error message lists


def device_text(dev: Device) -> str:
    """A device for a message and a command line: as the trace names it where that is plain,
    quoted (escaped, cut short) where it holds spaces, quotes or control characters."""
    return dev if re.fullmatch(r"[\w.,:/+@-]{1,64}", dev, re.ASCII) else quoted(dev)


def _natural(dev: Device) -> list[str | int]:
    """Sort key: 8,2 before 8,16; volume 7 before 1283."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", dev)]


def devices_text(devices: set[Device]) -> str:
    """The devices a trace names, in order, at most DEVICES_SHOWN of them."""
    shown = sorted(devices, key=_natural)
    more = len(shown) - DEVICES_SHOWN
    return ", ".join(device_text(d) for d in shown[:DEVICES_SHOWN]) + (f" and {more:,} more" if more > 0 else "")


def _on_device(state: _State, dev: Device) -> bool:
    """Whether a record of device `dev` is imported. A trace may hold several devices (blkparse -i
    of two, a tracefs capture unfiltered, an FIU trace of two disks, the Alibaba and Tencent files
    of thousands of volumes); their I/Os are never merged, nor their completions matched across
    them: without a chosen device the second one is refused."""
    if dev == state.device and dev in state.devices:  # every line of a one-device trace: nothing to note
        return True
    if len(state.devices) < MAX_DEVICES_SEEN:
        state.devices.add(dev)
    if state.device is None:
        state.device = dev
    if dev == state.device:
        return True
    if state.chosen:
        return False
    first, other = device_text(state.device), device_text(dev)
    raise ValueError(f"records of {state.noun} {other} after those of {first}: the trace holds more than one "
                     f"{state.noun}, and their I/Os are not merged; import one with --device {first} "
                     f"(or --device {other})")


@dataclass(frozen=True)
class DeviceField:
    """What names a record's device in a format: how its column(s) are read, for the records
    (_keep) and for a --device value (normalise) alike, and what messages call them."""

    noun: str  # device, disk, volume, LUN, file
    form: str  # the column(s) as the format's documentation names them
    example: str
    read: Callable[..., Device]  # the column(s) -> the device; ValueError where they are no such name
    columns: int = 1  # how many columns name it: a --device value gives them joined by a comma

    def normalise(self, text: str) -> Device:
        """A --device value, as a record naming that device reads (8,0 for 08,00)."""
        if self.columns == 1:
            return self.read(text)
        first, comma, second = text.strip().rpartition(",")
        if not comma:
            raise ValueError(f"{quoted(text)} has no comma")
        return self.read(first, second)


def _maj_min(major: str, minor: str) -> Device:
    major, minor = major.strip(), minor.strip()
    if not (major.isascii() and major.isdigit() and minor.isascii() and minor.isdigit()) or len(major + minor) > 20:
        raise ValueError(f"{quoted(major + ',' + minor)} is not two numbers")
    return f"{int(major)},{int(minor)}"


def _number(text: str) -> Device:
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 20:
        raise ValueError(f"{quoted(text)} is not a number")
    return str(int(text))


def _token(text: str) -> Device:
    """A name without spaces (a hostname, a LUN, a file name in a whitespace-separated line)."""
    text = text.strip()
    if not text or len(text) > 4096 or any(ch.isspace() for ch in text):
        raise ValueError(f"{quoted(text)} is not a name (empty, or with spaces)")
    return text


def _host_disk(host: str, disk: str) -> Device:
    return f"{_token(host)},{_number(disk)}"


MAJ_MIN = DeviceField("device", "MAJ,MIN", "8,0", _maj_min, columns=2)


def _keep(state: _State, *parts: str) -> bool:
    """Whether the record whose device columns are `parts` is imported (see _on_device), read as
    its format's DeviceField reads them (as --device is: chosen_device)."""
    field = state.field
    if field is None:  # a format whose records name no device: each is imported
        return True
    try:
        dev = _read_device(field.read, parts)
    except ValueError as error:
        raise ValueError(f"{field.form} {error}") from None
    return _on_device(state, dev)


@functools.lru_cache(maxsize=1 << 12)
def _read_device(read: Callable[..., Device], parts: tuple[str, ...]) -> Device:
    """`read(*parts)`, remembered: every line names its device, and most traces name a few (a
    refusal is not remembered, so each line that gives it raises it)."""
    return read(*parts)


LineParser = Callable[[str, _State], Record | None]  # None: a line to skip (header, comment)


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` (file content or a value typed by the user) for an error message: quoted and
    escaped as Python writes strings, but ASCII only (control characters, other scripts and
    undecodable bytes, read as U+FFFD, show as escapes), cut to about `limit` characters
    with an ellipsis, so a message stays one short line whatever the input holds."""
    shown = ascii(text)
    if len(shown) <= limit:
        return shown
    kept, size = [], 2  # the quotes
    for ch in text:
        size += len(ascii(ch)) - 2
        if size > limit - 3:  # room for the ellipsis
            break
        kept.append(ch)
    cut = ascii("".join(kept))
    return cut[:-1] + "..." + cut[-1]


def _int(text: str, what: str) -> int:
    plain = text.strip()
    if is_whole_number(plain):  # what every format writes: nothing else to check
        value = int(plain)
    else:
        try:
            _as_typed(text)
            value = int(plain, 0) if plain.lower().startswith("0x") else int(plain)
        except ValueError:
            raise ValueError(f"{what} {quoted(plain)} is not an integer") from None
    if not 0 <= value < MAX_BYTES:
        raise ValueError(f"{what} {value} is out of range")
    return value


def _on_sectors(rec: Record) -> bool:
    """Whether an I/O starts and ends on a 512-byte sector, as a block device's do."""
    return rec.offset % SECTOR == 0 and rec.length % SECTOR == 0


def _as_typed(text: str) -> None:
    """ValueError for a number int() and Decimal() read but no trace writes: `1_0`, full-width or
    other scripts' digits (units.number_slip)."""
    if number_slip(text) is not None:
        raise ValueError(text)


def _seconds_ns(text: str, what: str) -> int:
    """Decimal seconds to ns exactly (a float would lose the µs of an epoch timestamp)."""
    try:
        _as_typed(text)
        value = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"{what} {quoted(text.strip())} is not a number") from None
    if not value.is_finite() or not 0 <= value < 10**12:
        raise ValueError(f"{what} {quoted(text.strip())} is out of range")
    return int(value * 1_000_000_000)


def _fields(line: str, n: int, sep: str | None = ",") -> list[str]:
    parts = line.split(sep)
    if len(parts) < n:
        raise ValueError(f"expected {n} fields, found {len(parts)}")
    return parts


def _rw(text: str, reads: tuple[str, ...], writes: tuple[str, ...]) -> int:
    t = text.strip()
    if t in reads:
        return OP_READ
    if t in writes:
        return OP_WRITE
    raise ValueError(f"operation {quoted(t, 20)} is neither {reads[0]!r} nor {writes[0]!r}")


# --- MSR Cambridge ------------------------------------------------------------------
# SNIA IOTTA "MSR Cambridge Traces" (Narayanan et al., FAST'08), one CSV line per I/O:
#   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
# Timestamp: Windows filetime (100 ns ticks since 1601-01-01); Type: Read | Write;
# Offset, Size: bytes; ResponseTime: 100 ns ticks. The files have no header line; one naming
# the columns, as above, is skipped (as SYSTOR'17's is). Hostname,DiskNumber is the device (one
# file per disk as published; files joined together are not merged).
MSR_DISK = DeviceField("disk", "Hostname,DiskNumber", "hm,1", _host_disk, columns=2)


def parse_msr(line: str, state: _State) -> Record | None:
    if line.startswith("Timestamp"):
        return None
    f = _fields(line, 7)
    if not _keep(state, f[1], f[2]):
        return None
    ts = _int(f[0], "timestamp") * 100
    return Record(ts, _rw(f[3], ("Read",), ("Write",)), _int(f[4], "offset"), _int(f[5], "size"),
                  completion_ns=ts + _int(f[6], "response time") * 100)


# --- Alibaba block traces -------------------------------------------------------------
# github.com/alibaba/block-traces (2020, "io_traces.csv"), one CSV line per I/O:
#   device_id,opcode,offset,length,timestamp
# opcode: R | W; offset, length: bytes; timestamp: microseconds (Unix epoch). The one file holds
# every volume: device_id is the device.
ALIBABA_VOLUME = DeviceField("volume", "device_id", "0", _number)


def parse_alibaba(line: str, state: _State) -> Record | None:
    f = _fields(line, 5)
    if not _keep(state, f[0]):
        return None
    return Record(_int(f[4], "timestamp") * 1000, _rw(f[1], ("R",), ("W",)),
                  _int(f[2], "offset"), _int(f[3], "length"))


# --- Tencent CBS ----------------------------------------------------------------------
# SNIA IOTTA "Tencent Cloud Block Storage" (Zhang et al., ATC'20), one CSV line per I/O:
#   Timestamp,Offset,Size,IOType,VolumeID
# Timestamp: seconds (Unix epoch); Offset, Size: 512-byte sectors; IOType: 0 read, 1 write.
# A file holds every volume of its hour: VolumeID is the device.
TENCENT_VOLUME = DeviceField("volume", "VolumeID", "1283", _number)


def parse_tencent(line: str, state: _State) -> Record | None:
    f = _fields(line, 5)
    if not _keep(state, f[4]):
        return None
    return Record(_int(f[0], "timestamp") * 1_000_000_000, _rw(f[3], ("0",), ("1",)),
                  _int(f[1], "offset") * SECTOR, _int(f[2], "size") * SECTOR)


# --- SYSTOR'17 ------------------------------------------------------------------------
# SNIA IOTTA "SYSTOR '17 Traces" (Lee et al., SYSTOR'17), CSV with a header line:
#   Timestamp,Response,IOType,LUN,Offset,Size
# Timestamp: seconds (Unix epoch, fractional); Response: seconds; IOType: R | W;
# Offset, Size: bytes. LUN is the device.
SYSTOR_LUN = DeviceField("LUN", "LUN", "1", _token)


def parse_systor(line: str, state: _State) -> Record | None:
    if line.startswith("Timestamp"):
        return None
    f = _fields(line, 6)
    if not _keep(state, f[3]):
        return None
    ts = _seconds_ns(f[0], "timestamp")
    return Record(ts, _rw(f[2], ("R",), ("W",)), _int(f[4], "offset"), _int(f[5], "size"),
                  completion_ns=ts + _seconds_ns(f[1], "response"))


# --- FIU ------------------------------------------------------------------------------
# SNIA IOTTA "FIU IODedup / SRCMap" traces (Koller & Rangaswami, FAST'10), one
# space-separated line per I/O:
#   ts pid process lba size op major minor md5
# ts: ns; lba: 512-byte sectors; size: 512-byte blocks; op: R | W; major, minor: the device
# (as blkparse's MAJ,MIN).
def parse_fiu(line: str, state: _State) -> Record | None:
    f = _fields(line, 8, None)
    if not _keep(state, f[6], f[7]):
        return None
    return Record(_int(f[0], "timestamp"), _rw(f[5], ("R", "r"), ("W", "w")), _int(f[3], "lba") * SECTOR,
                  _int(f[4], "size") * SECTOR, pid=_int(f[1], "pid") % (1 << 31), process=f[2][:64])


# --- RWBS (blkparse and tracefs) -----------------------------------------------------
# The kernel's blk_fill_rwbs (kernel/trace/blktrace.c), which tracefs block events print:
# `F` if REQ_PREFLUSH; the operation: W write, D discard, DE secure erase, F flush (REQ_OP_FLUSH),
# R read, ZA/ZR/ZRA/ZF/ZO/ZC zone commands (6.16+), WZ write-zeroes (newer kernels), and `N` for
# every other operation: write-zeroes before that, zone commands before 6.16, driver passthrough
# (smartctl, nvme-cli); then F (REQ_FUA), A (readahead), S (sync), M (metadata), U (atomic).
# blkparse(1) writes its own (blkparse_fmt.c fill_rwbs, from the action bits): F for the flush
# bit, then D, W, R (with data) or N (without), then F A S M; so a flush is `FN` there, and
# `FF` in tracefs (blk-flush.c issues REQ_OP_FLUSH | REQ_PREFLUSH). `N` is never a flush by
# itself: an N with no preflush is another kind of request (OP_OTHER).
_RWBS = re.compile(r"^(F?)(DE|D|WZ|W|R|F|N|Z(?:RA|[ARFOC]))([FASMU]*)$")
_RWBS_OPS = {"R": OP_READ, "W": OP_WRITE, "D": OP_TRIM, "DE": OP_TRIM, "F": OP_FLUSH}
# A request of a kind no replay reproduces (write-zeroes, zone and driver commands): counted by
# the import, noted in the trace's provenance, never stored as a record.
OP_OTHER = -2
# A completion event (blkparse C, block_rq_complete): matched to its issue by _Import, never a record.
OP_COMPLETION = -1
# A requeue (blkparse R, block_rq_requeue): the driver gave the issued request back, and it is issued
# again (a second D, block_rq_issue) and completed once. _Import drops the issue it undoes, so the
# request is one I/O, at its last issue (QA: a requeued write was imported as two writes, one
# without a completion, which left the whole trace's queue depth unknown).
OP_REQUEUE = -3


@functools.lru_cache(maxsize=1 << 10)  # every line has one; a trace holds a few kinds (a refusal is not kept)
def parse_rwbs(rwbs: str) -> tuple[int, int]:
    m = _RWBS.match(rwbs)
    if m is None:
        if not rwbs.lstrip("F")[:1] or rwbs.lstrip("F")[0] not in "RWDFNZ":
            raise ValueError(f"RWBS {quoted(rwbs, 20)} names no operation")
        raise ValueError(f"RWBS {quoted(rwbs, 20)} is not in the kernel's form (F? operation F? A? S? M? U?)")
    # A preflush makes an empty W or N a flush (_empty_flush); a zone or write-zeroes command (Z…,
    # WZ) stays what it is, whatever precedes it (the fuzz test drew 'FZA', an empty zone append).
    flags = FLAG_PREFLUSH if m[1] and m[2] in ("W", "N", "R", "D", "DE", "F") else 0
    for ch in m[3]:
        flags |= {"F": FLAG_FUA, "S": FLAG_SYNC, "M": FLAG_META}.get(ch, 0)
    return _RWBS_OPS.get(m[2], OP_OTHER), flags


def _empty_flush(op: int, flags: int, nbytes: int) -> int:
    """A request with a preflush and no data is a flush ("If a request doesn't have data, only
    REQ_PREFLUSH makes sense, which indicates a simple flush request": block/blk-flush.c):
    blkparse shows a flush as `FN`, and kernels before REQ_OP_FLUSH (4.10) issued one as an
    empty write with REQ_FLUSH, `FWS` with no extent. Any other I/O of 0 bytes is left to the
    import to refuse; an N with data or without a preflush stays another kind of request."""
    empty = nbytes == 0 and flags & FLAG_PREFLUSH
    return OP_FLUSH if op in (OP_WRITE, OP_OTHER) and empty else op


# --- blkparse default text -------------------------------------------------------------
# blkparse(1) default output format "%D %2c %8s %5T.%9t %5p %2a %3d ": device maj,min,
# CPU, sequence, time (s.ns), pid, action, RWBS, then "sector + blocks [process]".
# The I/O is taken at its D (issue to driver) event; a C (complete) event of the same
# sector and size fills its completion time. The per-CPU summary at the end stops it.
# The action is a capital letter or two, or `m` (a message: an I/O scheduler's note, not an I/O).
_BLKPARSE = re.compile(
    r"^\s*(\d+),(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\.(\d{1,9})\s+(\d+)\s+([A-Za-z]{1,2})\s+(\S+)\s*(.*)$")
_EXTENT = re.compile(r"^(\d+) \+ (\d+)(?: \[(.*)\])?")


class _Blk(_State):
    def __init__(self, field: DeviceField | None = None) -> None:
        super().__init__(field)
        self.pending: dict[tuple[int, int], int] = {}  # (sector, blocks) -> index of its record


def parse_blkparse(line: str, state: _State) -> Record | None:
    if line.startswith("CPU") or line.startswith("Total"):
        state.done = True
        return None
    m = _BLKPARSE.match(line)
    if m is None:
        raise ValueError("not a blkparse event line (dev cpu seq time pid action rwbs ...)")
    ts = int(m[5]) * 1_000_000_000 + int(m[6].ljust(9, "0"))
    action, rwbs, rest = m[8], m[9], m[10]
    if not _keep(state, m[1], m[2]) or action not in ("D", "C", "R"):
        return None  # queue, merge, plug … events describe the same I/O; `m` lines are messages
    op, flags = parse_rwbs(rwbs)
    ext = _EXTENT.match(rest)
    sector, blocks, name = (int(ext[1]), int(ext[2]), ext[3]) if ext else (0, 0, None)
    op = _empty_flush(op, flags, blocks)
    if action in ("C", "R"):  # a completion or a requeue, matched by _Import to its issue
        return Record(ts, OP_COMPLETION if action == "C" else OP_REQUEUE, sector * SECTOR, blocks * SECTOR, flags=op)
    return Record(ts, op, sector * SECTOR, blocks * SECTOR, flags, pid=int(m[7]) % (1 << 31), process=name)


# --- fio iolog v2 / v3 -----------------------------------------------------------------
# fio(1) "I/O replay": v2 starts "fio version 2 iolog", lines `filename action [offset
# length]`; v3 starts "fio version 3 iolog", lines `timestamp filename action [offset
# length]` with timestamp in µs from the start (fio's iolog.c writes utime_since_now). Actions read, write, trim, sync,
# datasync (I/O); add, open, close (file management, skipped); v2 `wait` sleeps usec.
_FIO_OPS = {"read": OP_READ, "write": OP_WRITE, "trim": OP_TRIM, "sync": OP_FLUSH, "datasync": OP_FLUSH}


FIO_FILE = DeviceField("file", "filename", "/dev/sdb", _token)


def _fio_io(parts: list[str], ts_ns: int, state: _State) -> Record | None:
    action = parts[1]
    if action in ("add", "open", "close"):
        return None
    if action not in _FIO_OPS:
        raise ValueError(f"unknown fio iolog action {quoted(action, 20)}")
    if not _keep(state, parts[0]):  # one job's log may name several files
        return None
    op = _FIO_OPS[action]
    if op == OP_FLUSH:
        return Record(ts_ns, op, 0, 0)
    if len(parts) < 4:
        raise ValueError(f"fio iolog {action} needs an offset and a length")
    return Record(ts_ns, op, _int(parts[2], "offset"), _int(parts[3], "length"))


def _fio_header(line: str, version: int) -> bool:
    """Whether `line` is the iolog's header (checked to be this version's)."""
    if not line.startswith("fio version"):
        return False
    if f"version {version}" not in line:
        raise ValueError(f"header is not 'fio version {version} iolog'")
    return True


def parse_fio2(line: str, state: _State) -> Record | None:
    if _fio_header(line, 2):
        return None
    parts = line.split()
    if len(parts) < 2:
        raise ValueError("expected 'filename action [offset length]'")
    if parts[1] == "wait":
        state.clock_ns += _int(parts[2] if len(parts) > 2 else "", "wait usec") * 1000
        return None
    return _fio_io(parts, state.clock_ns, state)


def parse_fio3(line: str, state: _State) -> Record | None:
    if _fio_header(line, 3):
        return None
    parts = line.split()
    if len(parts) < 3:
        raise ValueError("expected 'timestamp filename action [offset length]'")
    return _fio_io(parts[1:], _int(parts[0], "timestamp") * 1_000, state)


# --- ssdlab capture (tracefs text) ------------------------------------------------------
# What `ssdlab trace capture` saves: the kernel's trace_pipe lines of the block events
# (include/trace/events/block.h):
#   block_rq_issue:    "MAJ,MIN RWBS BYTES (CMD) SECTOR + NR [IOPRIO] [COMM]"
#   block_rq_complete: "MAJ,MIN RWBS (CMD) SECTOR + NR [IOPRIO] [ERROR]"
# preceded by "TASK-PID [CPU] FLAGS SECONDS.USECS: EVENT:".
_TRACEFS = re.compile(r"^\s*(.*?)-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?(\d+)\.(\d{1,9}):\s+(block_rq_\w+):\s+(.*)$")
_RQ_ISSUE = re.compile(r"^(\d+),(\d+) (\S+) \d+ \(.*?\) (\d+) \+ (\d+)")
_RQ_DONE = re.compile(r"^(\d+),(\d+) (\S+) \(.*?\) (\d+) \+ (\d+)")
# The three above in one match, for the lines a capture is made of (a fifth of an import's time was these
# matches). Its header is an atomic group, so the body is read only where _TRACEFS ends the header,
# and the BYTES of an issue are optional: a line it matches with BYTES for an issue, or without them
# for a completion or a requeue, gives what the three give; any other line is read by the three.
_TRACEFS_RQ = re.compile(r"^(?>\s*(.*?)-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?(\d+)\.(\d{1,9}):\s+(block_rq_\w+):\s+)"
                         r"(\d+),(\d+) (\S+) (?:(\d+) )?\(.*?\) (\d+) \+ (\d+)")
_RQ_EVENTS = ("block_rq_issue", "block_rq_complete", "block_rq_requeue")


# trace_pipe's line where the ring buffer overran before the reader took the events (kernel/trace/trace.c,
# print_trace_line: "CPU:%d [LOST %lu EVENTS]"). QA: a capture of a busy loop device while the machine
# was loaded held 140 of them, and the import refused the whole capture at the first.
_TRACEFS_LOST = re.compile(r"^CPU:\s*(\d+)\s+\[LOST (\d+) EVENTS\]$")


def parse_tracefs(line: str, state: _State) -> Record | None:
    if line.startswith("#"):
        return None
    lost = _TRACEFS_LOST.match(line) if line.startswith("CPU:") else None
    if lost is not None:
        state.lost_events += int(lost[2])
        return None
    fields = _tracefs_fields(line)
    if fields is None:
        return None
    task, pid, ts, event, major, minor, rwbs, sector_text, blocks_text = fields
    if not _keep(state, major, minor):
        return None
    op, flags = parse_rwbs(rwbs)
    sector, blocks = int(sector_text), int(blocks_text)
    op = _empty_flush(op, flags, blocks)
    if event != "block_rq_issue":  # a completion or a requeue (the same format); flags carries the op here
        return Record(ts, OP_COMPLETION if event == "block_rq_complete" else OP_REQUEUE, sector * SECTOR,
                      blocks * SECTOR, flags=op)
    return Record(ts, op, sector * SECTOR, blocks * SECTOR, flags, pid=int(pid) % (1 << 31),
                  process=task.strip()[:64] or None)


TracefsFields = tuple[str, str, int, str, str, str, str, str, str]


def _tracefs_fields(line: str) -> TracefsFields | None:
    """An event line's task, pid, time (ns), event, MAJ, MIN, RWBS, SECTOR and NR; None for an event
    of another kind. ValueError for a line of neither."""
    fast = _TRACEFS_RQ.match(line)
    if fast is not None:
        task, pid, secs, frac, event, major, minor, rwbs, nbytes, sector, blocks = fast.groups()
        if (nbytes is not None) == (event == "block_rq_issue") and event in _RQ_EVENTS:
            return task, pid, _tracefs_ns(secs, frac), event, major, minor, rwbs, sector, blocks
    return _tracefs_fields_by_parts(line)


def _tracefs_fields_by_parts(line: str) -> TracefsFields | None:
    """_tracefs_fields as the header and then the event's body are read: what the one match gives."""
    m = _TRACEFS.match(line)
    if m is None:
        raise ValueError("not a tracefs block event line (TASK-PID [CPU] TIME: block_rq_…: …)")
    ts = _tracefs_ns(m[3], m[4])
    event, body = m[5], m[6]
    if event not in _RQ_EVENTS:
        return None
    ev = (_RQ_ISSUE if event == "block_rq_issue" else _RQ_DONE).match(body)
    if ev is None:
        raise ValueError(f"{event} body {quoted(body)} does not match the kernel's format")
    return m[1], m[2], ts, event, ev[1], ev[2], ev[3], ev[4], ev[5]


def _tracefs_ns(secs: str, frac: str) -> int:
    return int(secs) * 1_000_000_000 + int(frac.ljust(9, "0"))


@dataclass(frozen=True)
class Format:
    name: str
    parse: LineParser
    title: str
    device: DeviceField | None  # what names a record's device; None: the format names none
    state: Callable[[DeviceField | None], _State] = _State


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("msr", parse_msr, "MSR Cambridge CSV (SNIA IOTTA)", MSR_DISK),
    Format("alibaba", parse_alibaba, "Alibaba block traces CSV", ALIBABA_VOLUME),
    Format("tencent", parse_tencent, "Tencent CBS CSV (SNIA IOTTA)", TENCENT_VOLUME),
    Format("systor17", parse_systor, "SYSTOR'17 LUN traces CSV (SNIA IOTTA)", SYSTOR_LUN),
    Format("fiu", parse_fiu, "FIU IODedup/SRCMap text", MAJ_MIN),
    Format("blkparse", parse_blkparse, "blkparse default text output", MAJ_MIN, _Blk),
    Format("fio2", parse_fio2, "fio iolog version 2", FIO_FILE),
    Format("fio3", parse_fio3, "fio iolog version 3 (µs timestamps)", FIO_FILE),
    Format("capture", parse_tracefs, "ssdlab capture (tracefs block_rq_* text)", MAJ_MIN, _Blk),
)}


def _format(name: str) -> Format:
    if name not in FORMATS:
        raise UsageError(f"unknown trace format {name!r}; valid formats: {', '.join(FORMATS)}")
    return FORMATS[name]


# The range each column's type holds: every imported value is checked against it, so a
# derived value (a filetime in ns, a time relative to the first record) that no column
# can hold is refused with its line instead of overflowing in numpy.
_COLUMN_BOUNDS = tuple((name, int(np.iinfo(np.dtype(t)).min), int(np.iinfo(np.dtype(t)).max))
                       for name, t in COLUMNS.items())


# The same ranges by column, for the check every record takes (_check_row).
_TS, _OP, _OFFSET, _LENGTH, _FLAGS, _PID, _DONE = ((low, high) for _, low, high in _COLUMN_BOUNDS)


def _check_row(row: list[int]) -> None:
    ts, op, offset, length, flags, pid, done = row
    # Every record's values in one expression: a third of the loop's time below, which names the value.
    if (_TS[0] <= ts <= _TS[1] and _OP[0] <= op <= _OP[1] and _OFFSET[0] <= offset <= _OFFSET[1]
            and _LENGTH[0] <= length <= _LENGTH[1] and _FLAGS[0] <= flags <= _FLAGS[1]
            and _PID[0] <= pid <= _PID[1] and _DONE[0] <= done <= _DONE[1]):
        return
    for (name, low, high), value in zip(_COLUMN_BOUNDS, row, strict=True):
        if not low <= value <= high:
            raise ValueError(f"{name.rsplit('_', 1)[0]} {value} is out of range ({low}..{high})")


_INT64_MAX = int(np.iinfo(np.int64).max)
# A completion time not known (yet) while records are sorted: times are relative to the first
# record read until then, so a known one may be negative, even -1, the column's "unknown".
_NO_COMPLETION = int(np.iinfo(np.int64).min)


class _TimeOrder:
    """Hands chunks on in time order (see the module docstring): each chunk is sorted with the
    one held back before it, and the older half goes on. Times come relative to the first record
    read and leave relative to the earliest."""

    def __init__(self, path: Path, fmt: str, window: int) -> None:
        self.path, self.fmt, self.window = path, fmt, window
        self.held: TraceChunk | None = None
        self.held_lines: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.released_ns: int | None = None  # the latest time handed on
        self.shift_ns = 0  # the earliest time (the first handed on)

    def push(self, chunk: TraceChunk, lines: npt.NDArray[np.int64]) -> TraceChunk | None:
        merged = TraceChunk.concat([c for c in (self.held, chunk) if c is not None])
        lines = np.concatenate([self.held_lines, lines])
        order = np.argsort(merged.timestamp_ns, kind="stable")
        merged, lines = merged.take(order), lines[order]
        if self.released_ns is not None:
            late = merged.timestamp_ns < self.released_ns
            if late.any():
                raise TraceFormatError(
                    f"{self.path}:{int(lines[late].min())}: {self.fmt}: the record is earlier than records "
                    f"already imported, more than {self.window:,} records out of time order (an import sorts that "
                    "far); sort the source by time first")
        cut = len(merged) - len(chunk)  # the newest len(chunk) records wait for the next chunk
        self.held, self.held_lines = merged.take(np.arange(cut, len(merged))), lines[cut:]
        return self._hand_on(merged.take(np.arange(cut)), lines[:cut])

    def finish(self) -> TraceChunk | None:
        held, self.held = self.held, None
        return self._hand_on(held, self.held_lines) if held is not None else None

    def _hand_on(self, c: TraceChunk, lines: npt.NDArray[np.int64]) -> TraceChunk | None:
        if not len(c):
            return None
        if self.released_ns is None:
            self.shift_ns = int(c.timestamp_ns[0])
        self.released_ns = int(c.timestamp_ns[-1])
        known = c.completion_ns != _NO_COMPLETION
        latest = max(self.released_ns, int(c.completion_ns[known].max()) if known.any() else self.released_ns)
        if latest - self.shift_ns > _INT64_MAX:
            raise TraceFormatError(f"{self.path}:{int(lines[-1])}: {self.fmt}: the trace spans more than 2^63 ns "
                                   "(292 years); check the timestamps")
        done = np.where(known, c.completion_ns - self.shift_ns, -1)
        return TraceChunk.from_columns({**c.columns(), "timestamp_ns": c.timestamp_ns - self.shift_ns,
                                        "completion_ns": done})


class _Import:
    """One import in progress: relative time, completion matching, chunking."""

    def __init__(self, fmt: Format, path: Path, chunk_records: int, device: str | None = None) -> None:
        self.fmt, self.path, self.chunk_records = fmt, path, chunk_records
        self.state = fmt.state(fmt.device)
        if device is not None:
            self.state.device, self.state.chosen = chosen_device(fmt, device), True
        self.others = OtherRequests()
        self.builder = ChunkBuilder()
        self.t0: int | None = None
        self.processes: dict[str, str] = {}
        self.named_pids: set[int] = set()  # the keys of processes, as ints: asked of every record
        # Completions arrive after their issue; records wait here (bounded by the queue
        # depth of the traced device) before they are released into a chunk.
        self.open: dict[tuple[int, int, int], list[int]] = {}
        self.held: list[list[int]] = []
        self.skipped = 0
        self.lineno = 0  # the line being read
        # Reads, writes and trims so far, and whether each began and ended on a 512-byte sector:
        # a last line cut in its size (fio iologs, SNIA systor17 end with it) breaks that (_check_unended).
        self.data_records, self.sector_whole = 0, True
        self.lines: list[int] = []  # the line of each record in the builder
        self.held_lines: list[int] = []
        self.order = _TimeOrder(path, fmt.name, chunk_records)
        self.earliest_ns: int | None = None  # of the records fed, as the source gives it
        self.notes: list[str] = []  # for the provenance, and said by the import
        self.requeued = 0  # issues undone by a requeue (_requeue)

    def feed(self, rec: Record) -> None:
        """Take one parsed record; a value its column cannot hold is a ValueError (the
        caller names the line)."""
        if rec.op == OP_COMPLETION:
            self._complete(rec)
            return
        if rec.op == OP_REQUEUE:
            self._requeue(rec)
            return
        if rec.op == OP_OTHER:  # counted, not kept: see OtherRequests
            self.others = self.others.plus(rec.length)
            return
        self.earliest_ns = rec.ts_ns if self.earliest_ns is None else min(self.earliest_ns, rec.ts_ns)
        if self.t0 is None:
            self.t0 = rec.ts_ns  # times are relative to it until _TimeOrder makes them relative to the earliest
        if rec.length == 0 and rec.op != OP_FLUSH:
            raise ValueError(f"a {OP_NAMES[rec.op]} of 0 bytes moves nothing, so it is not an I/O; "
                             "remove the line or give its real size")
        if rec.op != OP_FLUSH:
            self.data_records += 1
            self.sector_whole = self.sector_whole and _on_sectors(rec)
        done = rec.completion_ns - self.t0 if rec.completion_ns >= 0 else _NO_COMPLETION
        row = [rec.ts_ns - self.t0, rec.op, rec.offset, rec.length, rec.flags, rec.pid, done]
        _check_row(row)
        if rec.process and rec.pid >= 0 and rec.pid not in self.named_pids:  # a process's first name is kept
            self.named_pids.add(rec.pid)
            self.processes[str(rec.pid)] = rec.process
        if self.fmt.state is _Blk:
            self.open.setdefault(self._key(rec.op, rec.offset, rec.length), []).append(len(self.held))
            self.held.append(row)
            self.held_lines.append(self.lineno)
            if len(self.held) >= self.chunk_records:  # a trace without completions: memory stays bounded
                self.release(keep=len(self.held) // 2)
        else:
            self.builder.add(*row)
            self.lines.append(self.lineno)

    @staticmethod
    def _key(op: int, offset: int, length: int) -> tuple[int, int, int]:
        """Completions are matched by operation and extent; flushes (no extent) in order."""
        return (op, -1, -1) if op == OP_FLUSH else (op, offset, length)

    def _complete(self, rec: Record) -> None:
        waiting = self.open.get(self._key(rec.flags, rec.offset, rec.length))
        if waiting and self.t0 is not None:
            index = waiting.pop(0)
            row = self.held[index]
            if rec.ts_ns - self.t0 < row[0]:  # never stored: a latency below 0 is no measurement
                raise ValueError(f"this completion ({rec.ts_ns / 1e9:.9f} s) is earlier than its issue on line "
                                 f"{self.held_lines[index]} ({(row[0] + self.t0) / 1e9:.9f} s): the events are "
                                 "out of time order; give the tool's time-sorted output")
            row[6] = rec.ts_ns - self.t0
            if not _DONE[0] <= row[6] <= _DONE[1]:  # the one value changed since feed checked the row
                _check_row(row)

    def _requeue(self, rec: Record) -> None:
        """Drop the latest issue of the requeued request: it is issued again, and that issue is the I/O."""
        waiting = self.open.get(self._key(rec.flags, rec.offset, rec.length))
        if not waiting:
            return  # its issue was before the trace began (or already released): nothing to undo
        self.held[waiting.pop()] = []
        self.requeued += 1

    def release(self, keep: int = 0) -> None:
        """Hand the held records on, in the order they came, but the newest `keep`: those stay,
        their completions still to be matched. Releasing every held record cut the completions
        of the I/Os in flight at each chunk, and one I/O without a completion leaves a trace's
        queue depth unknown (a capture of more than a chunk of I/Os had none). A record waits at
        most about a chunk of issues: one whose completion is later than that (or never comes)
        is released without it."""
        cut = max(1, len(self.held) - keep)
        for row, line in zip(self.held[:cut], self.held_lines[:cut], strict=True):
            if row:  # [] : an issue a requeue undid
                self.builder.add(*row)
                self.lines.append(line)
        self.held, self.held_lines = self.held[cut:], self.held_lines[cut:]
        self.open = {key: kept for key, waiting in self.open.items()
                     if (kept := [i - cut for i in waiting if i >= cut])}

    def _sorted(self) -> Iterator[TraceChunk]:
        """The builder's records, on through _TimeOrder."""
        lines, self.lines = np.array(self.lines, dtype=np.int64), []
        out = self.order.push(self.builder.take(), lines)
        if out is not None:
            yield out

    def _check_unended(self, rec: Record, lineno: int) -> None:
        """The record of the file's last line, which has no line end. Only its last field can be
        cut (a line cut before it has too few fields). A cut record is a wrong one, so it is refused
        where the cut shows: a time earlier than every record before it (a cut number is smaller:
        Alibaba ends with it), or a size or offset off the 512-byte sectors every read, write and
        trim before it kept (4096 cut to 409: fio iologs and systor17 end with the size). Else it
        is kept with a note: a cut response time (MSR) or device name reads as a whole one."""
        issue = rec.op not in (OP_COMPLETION, OP_OTHER, OP_REQUEUE)
        if issue and self.earliest_ns is not None and rec.ts_ns < self.earliest_ns:
            raise ValueError("its time is earlier than every record before it (a timestamp cut short)")
        if issue and rec.op != OP_FLUSH and self.data_records and self.sector_whole and not _on_sectors(rec):
            what = f"size, {rec.length:,} bytes," if rec.length % SECTOR else f"offset, {rec.offset:,},"
            raise ValueError(f"its {what} is not a whole number of 512-byte sectors, as every I/O's before it is "
                             "(a number cut short)")
        if issue:
            self.notes.append(f"line {lineno:,}, the file's last, has no line end: if the file was cut short, "
                              "that record may be cut too; check the end of the file")

    def _read_line(self, lineno: int, raw: str) -> bool:
        """Parse and feed one line; False once the format says the records have ended."""
        if len(raw) > MAX_LINE_CHARS and not raw.endswith("\n"):
            raise TraceFormatError(f"{self.path}:{lineno}: {self.fmt.name}: a line of more than "
                                   f"{MAX_LINE_CHARS:,} characters is not a trace record; give the "
                                   "trace as an uncompressed text file")
        line = raw.strip()
        # Only the file's last line can lack its end (a longer line is refused above): if the
        # file was cut short, so was it, and a cut number still parses (QA: an Alibaba line cut in
        # its timestamp became the earliest record, and the trace spanned 438,279 h).
        unended = not raw.endswith(("\n", "\r"))
        if self.state.done:
            return False
        if not line:
            return True
        try:
            self.lineno = lineno
            rec = self.fmt.parse(line, self.state)
            if rec is not None:
                if unended:
                    self._check_unended(rec, lineno)
                self.feed(rec)
        except (ValueError, IndexError, OverflowError) as error:
            # U+FFFD: bytes that are not UTF-8 (read with errors="replace").
            hint = "; the line is not text: give the trace as an uncompressed text file" if "\ufffd" in raw else ""
            hint = hint or (f"; {CUT_LINE}" if unended else "")  # binary data is no text cut short
            raise TraceFormatError(f"{self.path}:{lineno}: {self.fmt.name}: {error}{hint}") from None
        return True

    def _read_block(self, layout: CsvLayout, first: int, raws: list[str]) -> bool:
        """Feed the lines `raws`, numbered from `first`, as one block (csv_blocks) as _read_line would
        feed each; False, with nothing changed, where they must be read line by line."""
        table, field, state = split_block(layout, raws), self.state.field, self.state
        if table is None or field is None:
            return False
        texts, which = device_texts(layout, table)
        try:
            devices = [_read_device(field.read, parts) for parts in texts]
        except ValueError:
            return False
        imported = state.device or devices[0]  # the device chosen, the first seen, or this block's first
        if not state.chosen and any(dev != imported for dev in devices):
            return False  # the first line of a second device is refused (_on_device)
        kept = np.isin(which, [i for i, dev in enumerate(devices) if dev == imported])
        block = records(layout, table, kept)
        if block is None:
            return False
        timed = self._block_times(block, layout.time_ns) if len(block.time) else None
        if len(block.time) and timed is None:
            return False
        for dev in devices:  # the devices seen, in the order the lines name them
            _on_device(state, dev)
        self.lineno = first + len(raws) - 1
        if timed is not None:
            self._feed_block(block, *timed, (first + np.flatnonzero(kept)).tolist(), layout.time_ns)
        return True

    def _block_times(self, block: Block, time_ns: int) -> tuple[int, npt.NDArray[np.int64],
                                                                npt.NDArray[np.int64] | None] | None:
        """t0, and a block's issue and completion times in ns after it; None where one does not fit int64."""
        t0 = self.t0 if self.t0 is not None else int(block.time[0]) * time_ns
        units = relative_units(block.time, time_ns, t0)
        ts = None if units is None else scaled_ns(units, time_ns)
        done = None if units is None or block.response is None else scaled_ns(units + block.response, time_ns)
        if ts is None or (block.response is not None and done is None):
            return None
        return t0, ts, done

    def _feed_block(self, block: Block, t0: int, ts: npt.NDArray[np.int64], done: npt.NDArray[np.int64] | None,
                    lines: list[int], time_ns: int) -> None:
        """feed() of each of a block's records (reads and writes: no flush, no completion to match)."""
        earliest = int(block.time.min()) * time_ns
        self.earliest_ns = earliest if self.earliest_ns is None else min(self.earliest_ns, earliest)
        self.t0 = t0
        count = len(ts)
        self.data_records += count
        self.sector_whole = self.sector_whole and not ((block.offset_bytes | block.length_bytes) % SECTOR).any()
        self.builder.extend({
            "timestamp_ns": ts, "op": block.op, "offset_bytes": block.offset_bytes, "length_bytes": block.length_bytes,
            "flags": np.zeros(count, np.uint8), "pid": np.full(count, -1, np.int32),
            "completion_ns": done if done is not None else np.full(count, _NO_COMPLETION, np.int64)})
        self.lines.extend(lines)

    def _blocks(self, lines: Iterator[str], layout: CsvLayout | None) -> Iterator[tuple[int, list[str]]]:
        """The lines in blocks for _read_block, each with its first line's number (at most
        csv_blocks.BLOCK_LINES, and no more than fill the builder's chunk: a chunk ends where the line
        by line reading ends it); one by one where the format has no block reading (`layout` None)."""
        first = 1
        while True:
            room = self.chunk_records - len(self.builder)
            raws = list(islice(lines, 1 if layout is None else min(BLOCK_LINES, room)))
            if not raws:
                return
            yield first, raws
            first += len(raws)

    def chunks(self, lines: Iterator[str]) -> Iterator[TraceChunk]:
        state = self.state
        layout = LAYOUTS.get(self.fmt.name)
        for first, raws in self._blocks(lines, layout):
            if layout is not None and len(raws) > 1 and self._read_block(layout, first, raws):
                raws = []
            # A block holds no more lines than the chunk has room for (one where there is no block
            # reading), so the chunk fills at its end at the earliest: checked once a block is read.
            for lineno, raw in enumerate(raws, first):
                if not self._read_line(lineno, raw):
                    break
            if state.done:
                break
            if len(self.builder) >= self.chunk_records:
                yield from self._sorted()
        self.release()
        if self.requeued:
            self.notes.append(f"{counted(self.requeued, 'request')} requeued by the driver and issued again: each "
                              "imported once, at its last issue")
        if state.lost_events:
            self.notes.append(lost_words(state.lost_events))
        if len(self.builder):
            yield from self._sorted()
        last = self.order.finish()
        if last is not None:
            yield last


def lost_words(lost: int) -> str:
    """The note of a trace whose tracing tool lost events: what is missing from it."""
    return (f"the tracing tool lost {counted(lost, 'event')} (its buffer overran while the capture ran): the I/Os "
            "whose issue was lost are missing, and those whose completion was lost have no completion time; "
            "capture a shorter run or a quieter moment for a whole trace")


def chosen_device(fmt: Format, value: str) -> Device:
    """--device as `fmt` names its devices (8,0 for 08,00), or a one-line refusal saying what to give."""
    field = fmt.device
    if field is None:
        raise UsageError(f"--device applies to traces whose records name their device; a {fmt.name} trace names none")
    try:
        return field.normalise(value)
    except ValueError:
        raise UsageError(f"--device {quoted(value)}: give the {field.noun}'s {field.form} as the {fmt.name} trace "
                         f"names it, e.g. {field.example}") from None


def iter_import(path: Path, fmt: str, chunk_records: int = IMPORT_CHUNK, device: str | None = None,
                ) -> tuple[_Import, Iterator[TraceChunk]]:
    """The records of a source file as chunks (of `device` alone where given, as --device names
    it: see chosen_device); the _Import knows the processes seen."""
    job = _Import(_format(fmt), path, chunk_records, device)

    def lines() -> Iterator[str]:
        try:
            # utf-8-sig: a byte-order mark that a spreadsheet or Windows tool put first is dropped,
            # as CSV readers do (QA: every text format refused its first record, naming '\ufeff…').
            with path.open("r", encoding="utf-8-sig", errors="replace", newline=None) as handle:
                # At most one character more than a line may hold: a longer line is refused
                # (_Import.chunks) before it is read whole.
                while line := handle.readline(MAX_LINE_CHARS + 1):
                    yield line
        except FileNotFoundError:
            raise UsageError(f"no trace file at {path}") from None
        except IsADirectoryError:
            raise UsageError(f"{path} is a directory; give a trace file") from None

    return job, job.chunks(lines())


def import_trace(src: Path, fmt: str, dest: Path, chunk_records: int = IMPORT_CHUNK, empty_ok: bool = False,
                 device: str | None = None) -> Provenance:
    """Import `src` in format `fmt` into the trace file `dest` (streaming); of `device` (as --device
    gives it: "8,0", "hm,1", "1283") alone where given. A source with no records is refused
    unless `empty_ok` (a capture of an idle device is a result: no I/O)."""
    if dest.exists() and src.exists() and dest.samefile(src):
        raise UsageError(f"{dest} is the source being imported; give -o another file name")
    job, chunks = iter_import(src, fmt, chunk_records, device)

    def checked() -> Iterator[TraceChunk]:
        records = 0
        for chunk in chunks:
            records += len(chunk)
            yield chunk
        if records == 0 and not empty_ok:  # it would replay nothing: better said now than as a run without figures
            raise UsageError(f"{src} {_nothing_held(job, fmt, device)}")

    def provenance() -> Provenance:
        return Provenance(source_format=fmt, source=str(src), processes=job.processes,
                          other_requests=job.others.requests, other_bytes=job.others.size_bytes,
                          notes=tuple(job.notes))

    return write_trace(dest, checked(), provenance)


def _nothing_held(job: _Import, fmt: str, device: str | None) -> str:
    """What a source that gave no record holds instead, and what to do."""
    state = job.state
    if device is not None and state.device not in state.devices and state.devices and state.device is not None:
        return (f"holds no records of {state.noun} {device_text(state.device)}, so nothing was imported; its "
                f"records are of {devices_text(state.devices)}: give one of those to --device")
    if job.others.requests:
        return (f"holds only requests no replay reproduces ({counted(job.others.requests, 'request')} of "
                f"{OTHER_KINDS}), so nothing was imported")
    return f"holds no {fmt} records, so nothing was imported; check the file and -f"


def parse_text(text: str, fmt: str, name: str = "<text>") -> TraceChunk:
    """Parse source text held in memory (tests, small inputs)."""
    job = _Import(_format(fmt), Path(name), CHUNK_RECORDS)
    return TraceChunk.concat(job.chunks(iter(text.splitlines(keepends=True))))
