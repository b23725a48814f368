"""The normalised trace: one columnar table for every source format (docs/traces.md).

Columns (all numeric, so a trace is a few numpy arrays and a Parquet file):
- timestamp_ns  int64   issue time, ns from the first record of the source
- op            uint8   OP_READ, OP_WRITE, OP_TRIM, OP_FLUSH
- offset_bytes  int64   byte offset on the device (0 for a flush)
- length_bytes  int64   bytes moved (0 for a flush)
- flags         uint8   FLAG_FUA | FLAG_PREFLUSH | FLAG_SYNC | FLAG_META
- pid           int32   issuing process, -1 where the source has none
- completion_ns int64   completion time on the traced device, -1 where unknown
Process names live in the provenance (pid -> name), not in a string column.

The file is Parquet (pyarrow, zstd) written chunk by chunk, so a 50 M-record import never
holds the whole trace in memory; the provenance is JSON in the file's key-value metadata.
Its name ends in .parquet (check_trace_output); it is written beside its final name and
renamed into place when complete, so a failed write leaves an existing file as it was.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ssdlab.bundle import clear_for_writer, named_for
from ssdlab.errors import UsageError
from ssdlab.outputs import OutputKind, check_output_file, make_folder_for, remove_made_folders, what_is
from ssdlab.units import counted, human_size

OP_READ, OP_WRITE, OP_TRIM, OP_FLUSH = 0, 1, 2, 3
OP_NAMES = ("read", "write", "trim", "flush")
FLAG_FUA, FLAG_PREFLUSH, FLAG_SYNC, FLAG_META = 1, 2, 4, 8

COLUMNS: dict[str, type[np.generic]] = {
    "timestamp_ns": np.int64, "op": np.uint8, "offset_bytes": np.int64, "length_bytes": np.int64,
    "flags": np.uint8, "pid": np.int32, "completion_ns": np.int64,
}
PROVENANCE_KEY = b"ssdlab.trace.provenance"
IMPORT_HINT = "convert it with `ssdlab trace import`"  # what to do with a file that is not a trace
TRACE_SUFFIX = ".parquet"
CHUNK_RECORDS = 1 << 20  # records per chunk in memory and per Parquet row group


OTHER_KINDS = "write-zeroes, zone or driver commands"


def others_sentence(requests: int, size: str) -> str:
    """What an import did with the requests of other kinds (`size`: their bytes, formatted)."""
    them = "it" if requests == 1 else "them"
    return (f"{counted(requests, 'request')} of another kind ({OTHER_KINDS}; {size}) not imported: "
            f"no replay reproduces {them}")


class Provenance(BaseModel):
    """Where a trace came from and what the import did to it."""

    model_config = ConfigDict(frozen=True)

    source_format: str
    source: str  # a path, or "generated:heavy seed=1 scale=0.02"
    records: int = 0
    skipped_lines: int = 0
    # Requests of kinds no replay reproduces (RWBS `N`: write-zeroes, zone and driver commands),
    # counted by the import and not kept as records (trace.importers.OP_OTHER).
    other_requests: int = 0
    other_bytes: int = 0
    processes: dict[str, str] = Field(default_factory=dict)  # str(pid) -> name
    notes: tuple[str, ...] = ()
    params: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class TraceChunk:
    """A run of records as parallel numpy arrays (one per column of COLUMNS)."""

    timestamp_ns: npt.NDArray[np.int64]
    op: npt.NDArray[np.uint8]
    offset_bytes: npt.NDArray[np.int64]
    length_bytes: npt.NDArray[np.int64]
    flags: npt.NDArray[np.uint8]
    pid: npt.NDArray[np.int32]
    completion_ns: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.timestamp_ns.shape[0])

    def columns(self) -> dict[str, np.ndarray[Any, Any]]:
        return {name: getattr(self, name) for name in COLUMNS}

    def take(self, index: npt.NDArray[np.int64]) -> TraceChunk:
        """The records at `index`, in its order."""
        return TraceChunk.from_columns({name: column[index] for name, column in self.columns().items()})

    def in_time_order(self) -> TraceChunk:
        """The records sorted by issue time, stably (equal times keep their order); this chunk
        when it already is."""
        ts = self.timestamp_ns
        if len(ts) < 2 or bool((ts[1:] >= ts[:-1]).all()):
            return self
        return self.take(np.argsort(ts, kind="stable"))

    @classmethod
    def from_columns(cls, cols: Mapping[str, Any]) -> TraceChunk:
        return cls(**{name: np.asarray(cols[name], dtype=dtype) for name, dtype in COLUMNS.items()})

    @classmethod
    def concat(cls, chunks: Iterable[TraceChunk]) -> TraceChunk:
        parts = list(chunks)
        if not parts:
            return cls.from_columns({name: [] for name in COLUMNS})
        return cls.from_columns({name: np.concatenate([getattr(c, name) for c in parts]) for name in COLUMNS})


@dataclass
class ChunkBuilder:
    """Collects records one at a time (importers) and hands out full chunks."""

    rows: dict[str, list[int]] = field(default_factory=lambda: {name: [] for name in COLUMNS})

    def add(self, ts_ns: int, op: int, offset: int, length: int, flags: int = 0, pid: int = -1,
            completion_ns: int = -1) -> None:
        r = self.rows
        r["timestamp_ns"].append(ts_ns)
        r["op"].append(op)
        r["offset_bytes"].append(offset)
        r["length_bytes"].append(length)
        r["flags"].append(flags)
        r["pid"].append(pid)
        r["completion_ns"].append(completion_ns)

    def extend(self, columns: Mapping[str, npt.NDArray[Any]]) -> None:
        """Add whole columns of records at once (every column of COLUMNS, equally long)."""
        for name in COLUMNS:
            self.rows[name].extend(columns[name].tolist())

    def __len__(self) -> int:
        return len(self.rows["op"])

    def take(self) -> TraceChunk:
        chunk = TraceChunk.from_columns(self.rows)
        self.rows = {name: [] for name in COLUMNS}
        return chunk


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([(name, pa.from_numpy_dtype(dtype)) for name, dtype in COLUMNS.items()])


def is_trace_file(path: Path) -> bool:
    """Whether `path` is a trace file ssdlab wrote: Parquet with the provenance ssdlab writes,
    or every trace column (what replay reads). Only the footer is read."""
    try:
        pf = _open(path)
    except UsageError:  # no Parquet file there
        return False
    return PROVENANCE_KEY in (pf.metadata.metadata or {}) or not missing_columns(pf)


TRACE_KIND = OutputKind("a trace file ssdlab wrote", is_trace_file)


def check_trace_output(path: Path, kind: OutputKind | None = TRACE_KIND) -> None:
    """Refuse, before anything is written or captured, a path no trace file can be written
    to: one not named .parquet (trace files are Parquet), a directory or another non-file,
    one below a file, or an existing file that is not a trace ssdlab wrote (outputs.
    check_replaceable; `kind` None: not yet, as an import first says a source imported onto
    itself). Missing parent directories are fine (made when the trace is written)."""
    name = path.name.lower()
    if not path.is_dir() and (not name.endswith(TRACE_SUFFIX) or name == TRACE_SUFFIX):
        stem = path.stem if path.stem not in ("", ".", "..", TRACE_SUFFIX) else "trace"
        raise UsageError(f"{path}: trace files are Parquet; give an output name ending in {TRACE_SUFFIX}, "
                         f"e.g. {stem}{TRACE_SUFFIX}")
    check_output_file(path, f"trace{TRACE_SUFFIX}", kind)


class TraceWriter:
    """Streams chunks into a Parquet file; the provenance is written on close. The data goes
    to a hidden file beside `path`, renamed to `path` on close."""

    def __init__(self, path: Path) -> None:
        import pyarrow.parquet as pq

        check_trace_output(path)
        # A link to an existing file is written through, as report, compare and export do
        # (replacing the file under it would turn the link into a file of its own).
        self.path = path.resolve()
        self.records = 0
        self._made = make_folder_for(path, "-o")  # removed again by abort: a failed import leaves no folder
        try:
            self._partial = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
            clear_for_writer(self._partial)  # a predictable name: a link there would be written through
            with named_for(self.path):  # opened here, not by Arrow, so a refusal names the file asked for
                self._sink = open(self._partial, "wb")  # noqa: SIM115 (closed in close/abort)
        except BaseException:
            remove_made_folders(self._made)
            raise
        self._writer = pq.ParquetWriter(self._sink, _schema(), compression="zstd")

    def write(self, chunk: TraceChunk) -> None:
        import pyarrow as pa

        if len(chunk):
            with named_for(self.path):  # a full disk: the error names the trace, not the hidden file
                self._writer.write_table(pa.table(chunk.columns(), schema=_schema()))
            self.records += len(chunk)

    def abort(self) -> None:
        """Stop and remove the partial file (a failed or interrupted import); a file that
        was at `path` before stays as it was. Closing may fail again (a full disk, the failure
        being handled): the partial goes all the same, and the first failure is the one told."""
        for close in (self._writer.close, self._sink.close):
            with contextlib.suppress(OSError):
                close()
        self._partial.unlink(missing_ok=True)
        remove_made_folders(self._made)

    def close(self, provenance: Provenance) -> Provenance:
        final = provenance.model_copy(update={"records": self.records})
        try:
            with named_for(self.path):
                self._writer.add_key_value_metadata({PROVENANCE_KEY: final.model_dump_json().encode()})
                self._writer.close()
                self._sink.close()
                os.replace(self._partial, self.path)
        except BaseException:
            self.abort()
            raise
        return final


def write_trace(path: Path, chunks: Iterable[TraceChunk],
                provenance: Provenance | Callable[[], Provenance]) -> Provenance:
    """Write `chunks` to `path` (removed again on any error). `provenance` may be a callable
    when it is only known once the chunks are read (an importer's process names)."""
    writer = TraceWriter(path)
    try:
        for chunk in chunks:
            writer.write(chunk)
    except BaseException:
        writer.abort()
        raise
    return writer.close(provenance() if callable(provenance) else provenance)


def _open(path: Path) -> Any:
    import pyarrow.parquet as pq

    if path.exists() and not path.is_file():  # nothing to convert; and pyarrow would block on a FIFO
        raise UsageError(f"{path} is {what_is(path)}, not a trace file; give an ssdlab trace file ({TRACE_SUFFIX}, "
                         "made by `ssdlab trace import`, `generate` or `capture`)")
    try:
        return pq.ParquetFile(str(path))
    except FileNotFoundError:
        raise UsageError(f"no trace at {path}; import one with `ssdlab trace import`") from None
    except Exception as error:  # pyarrow raises ArrowInvalid and friends for non-Parquet files
        why = str(error).splitlines()[0].rstrip(".")
        raise UsageError(f"{path} is not an ssdlab trace (Parquet): {why}; {IMPORT_HINT}") from None


NO_PROVENANCE = "parquet"  # the source_format of a Parquet file with the trace columns and no provenance


def read_provenance(path: Path) -> Provenance:
    """The trace's provenance; for a Parquet file with every trace column but none (written by
    another tool), one naming the file: what replay reads, stats and audit read too (QA: `trace
    replay` replayed such a file that `trace stats` and `audit fua` refused). A provenance that
    does not read (not JSON, not UTF-8, fields of the wrong kind: edited or written by another
    tool) is treated as none, with a note saying so: the records are checked on their own as they
    are read (read_columns), and the provenance only describes them (QA: such a file crashed
    `trace stats`, `audit fua` and `run`)."""
    pf = check_trace(path)
    raw = (pf.metadata.metadata or {}).get(PROVENANCE_KEY)
    if raw is None:
        return _no_provenance(path, pf, "a Parquet file with the trace columns, not written by ssdlab: no provenance")
    try:
        return Provenance.model_validate(json.loads(raw))
    except (ValueError, TypeError) as error:  # JSONDecodeError, UnicodeDecodeError, ValidationError
        return _no_provenance(path, pf, f"its ssdlab provenance does not read ({_why_unreadable(error)}): "
                                        "read as a Parquet file with the trace columns and no provenance")


def _no_provenance(path: Path, pf: Any, note: str) -> Provenance:
    return Provenance(source_format=NO_PROVENANCE, source=str(path), records=pf.metadata.num_rows, notes=(note,))


def _why_unreadable(error: Exception) -> str:
    """One short line for a provenance that does not read."""
    from pydantic import ValidationError

    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where + ': ' if where else ''}{first['msg']}"
    return str(error).splitlines()[0]


def missing_columns(pf: Any) -> list[str]:
    """The trace columns an opened Parquet file lacks (none: replay can read it)."""
    return [name for name in COLUMNS if name not in pf.schema_arrow.names]


def check_trace(path: Path) -> Any:
    """The trace file opened, when it is one replay can read (Parquet with every column, each of
    numbers); a UsageError saying what it is instead. Cheap: only the footer is read."""
    import pyarrow as pa

    pf = _open(path)
    missing = missing_columns(pf)
    if missing:
        raise UsageError(f"{path} is not an ssdlab trace: columns {', '.join(missing)} missing; {IMPORT_HINT}")
    schema = pf.schema_arrow
    for name in COLUMNS:
        kind = schema.field(name).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise UsageError(f"{path}: its column {name} holds {kind}, not numbers; write it as integers "
                             f"({np.dtype(COLUMNS[name]).name}), as ssdlab writes trace files")
    return pf


def _first(mask: Any) -> int:
    """The index of the first true value of a boolean Arrow array (-1: none)."""
    import pyarrow.compute as pc

    return int(pc.index(mask, True).as_py())


def _column_values(column: Any, name: str, path: Path, first_record: int) -> np.ndarray[Any, Any]:
    """One column of a batch as its numpy type. Any integer type is taken whose values fit, and a
    float column whose values are whole, finite and fit (pandas writes a column of integers as
    float64 whenever one of them is missing): the values are what was meant, exactly below 2^53.
    A null, a fraction, a NaN or a value out of the column's range is refused naming its record
    (QA: a float64 trace crashed replay with a numpy cast error, nulls with an ArrowInvalid)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = np.dtype(COLUMNS[name])
    if column.null_count:
        index = _first(pc.is_null(column))
        raise UsageError(f"{path}: record {first_record + index + 1:,} has no {name} (null): every record needs a "
                         "value in every trace column; drop or fill such records and write the file again")
    info = np.iinfo(dtype)
    if pa.types.is_floating(column.type):
        bounds = pc.or_(pc.less(column, float(info.min)), pc.greater(column, float(info.max)))
        fraction = pc.or_(pc.invert(pc.is_finite(column)), pc.not_equal(pc.floor(column), column))
        index = _first(pc.fill_null(pc.or_(bounds, fraction), True))  # NaN compares to null: refused
    else:  # integers of any width and sign: compared as Python ints (Arrow will not mix uint64 and int64)
        extremes = pc.min_max(column)
        low, high = extremes["min"].as_py(), extremes["max"].as_py()
        inside = low is None or (info.min <= low and high <= info.max)
        index = -1 if inside else next(i for i, v in enumerate(column.to_pylist()) if not info.min <= v <= info.max)
    if index < 0:
        try:
            return np.asarray(column.cast(pa.from_numpy_dtype(dtype), safe=True).to_numpy(), dtype=dtype)
        except pa.ArrowInvalid:  # a float just past the range's end (2^63 as float64)
            index = _first(pc.greater_equal(pc.abs(column.cast(pa.float64())), float(info.max)))
    value = column[max(index, 0)].as_py()
    raise UsageError(f"{path}: record {first_record + max(index, 0) + 1:,}: {name} {value!r} is not a whole number "
                     f"from {info.min:,} to {info.max:,} ({dtype.name}); write the trace columns as ssdlab does")


def read_columns(path: Path, columns: list[str], chunk_records: int = CHUNK_RECORDS,
                 ) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    """`columns` of a trace file as numpy arrays of their types, chunk by chunk (bounded memory):
    the one place a trace's records are read. Each value is checked as it is read
    (_column_values; an op must be one of OP_NAMES), so a file another tool wrote is refused in
    one line naming the record, never met by numpy or the replay as a value they cannot take."""
    pf = check_trace(path)
    first = 0
    for batch in pf.iter_batches(batch_size=chunk_records, columns=columns):
        values = {name: _column_values(batch.column(name), name, path, first) for name in columns}
        _refuse_unknown(path, first, values)
        first += batch.num_rows
        yield values


FLAG_NAMES = {FLAG_FUA: "FUA", FLAG_PREFLUSH: "PREFLUSH", FLAG_SYNC: "SYNC", FLAG_META: "META"}
KNOWN_FLAGS = FLAG_FUA | FLAG_PREFLUSH | FLAG_SYNC | FLAG_META
NO_COMPLETION_NS = -1  # completion_ns where the trace does not know it


def _refuse_unknown(path: Path, first_record: int, values: dict[str, np.ndarray[Any, Any]]) -> None:
    """Refuse, naming the first such record, a value of the right type that no trace holds: an op
    beyond OP_NAMES, a flag bit ssdlab does not define (a replay would drop what it meant), a time
    before the trace's start (importers start a trace at 0), or a completion before its issue (a
    negative latency; blkparse input refuses it on import). Each column checked where it is read."""
    faults: list[tuple[np.ndarray[Any, Any], Callable[[int], str]]] = []
    if "op" in values:
        known = ", ".join(f"{code} {name}" for code, name in enumerate(OP_NAMES))
        faults.append((values["op"] >= len(OP_NAMES),
                       lambda i: f"op {int(values['op'][i])} is no operation ssdlab knows ({known})"))
    if "flags" in values:
        named = ", ".join(f"{bit} {name}" for bit, name in FLAG_NAMES.items())
        faults.append(((values["flags"] & np.uint8(0xFF ^ KNOWN_FLAGS)) != 0,
                       lambda i: f"flags {int(values['flags'][i])} hold a bit ssdlab does not define "
                                 f"(it knows {named})"))
    if "timestamp_ns" in values:
        faults.append((values["timestamp_ns"] < 0,
                       lambda i: f"timestamp_ns {int(values['timestamp_ns'][i]):,} is before the trace's start (0)"))
    if "timestamp_ns" in values and "completion_ns" in values:
        done, issued = values["completion_ns"], values["timestamp_ns"]
        faults.append(((done != NO_COMPLETION_NS) & (done < issued),
                       lambda i: f"its completion_ns ({int(done[i]):,}) is before its issue ({int(issued[i]):,}); "
                                 f"give {NO_COMPLETION_NS} where the completion is not known"))
    found = [(int(np.flatnonzero(mask)[0]), say) for mask, say in faults if mask.any()]
    if found:
        index, say = min(found, key=lambda item: item[0])
        raise UsageError(f"{path}: record {first_record + index + 1:,}: {say(index)}; drop or fix that record")


EMPTY_TRACE = "the trace holds no I/Os; give a trace with records"
# fio replays whole blocks of this many bytes, and keeps one such block of the span free
# (trace.fio_replay: lengths are rounded up to it, offsets remapped into the span less one).
FIO_ALIGN = 4096


def flushes_text(n: int, noun: str = "flush") -> str:
    """'1 flush', '2 flushes' (`noun` a word in -sh: 'preflush')."""
    return f"{n:,} {noun if n == 1 else noun + 'es'}"


def no_reads_or_writes(flushes: int, trims: int) -> str:
    """Why fio replays no trace without reads or writes, and what to do."""
    return (f"fio cannot replay a trace without reads or writes (it holds {flushes_text(flushes)} and "
            f"{counted(trims, 'trim')}): fio refuses an iolog of flushes alone, and drops trims; replay it on "
            "a sim: target")


# An idle stretch's length in log-spaced bins, 8 a decade from 1 ns to about 2.8 hours (longer ones
# in the last): what a replay's span under any idle cap is estimated from (TraceShape.replay_span_s),
# in bounded memory whatever the trace's length.
IDLE_BINS_PER_DECADE = 8
IDLE_BIN_EDGES_NS = 10.0 ** (np.arange(13 * IDLE_BINS_PER_DECADE + 1) / IDLE_BINS_PER_DECADE)


@dataclass(frozen=True)
class IdleGaps:
    """A trace's idle stretches by length (IDLE_BIN_EDGES_NS): how many, and their total, per bin."""

    counts: tuple[int, ...] = (0,) * len(IDLE_BIN_EDGES_NS)
    sums_ns: tuple[float, ...] = (0.0,) * len(IDLE_BIN_EDGES_NS)

    def cut_ns(self, cap_ns: float) -> float:
        """The time a cap of `cap_ns` cuts from these stretches: each longer one, less the cap. A bin
        the cap falls in is taken at its mean (its stretches are within a factor of 1.33 of it)."""
        return sum(max(total - count * cap_ns, 0.0) for count, total in zip(self.counts, self.sums_ns, strict=True))

    def plus(self, gaps_ns: npt.NDArray[np.int64]) -> IdleGaps:
        """These stretches with `gaps_ns` added (those of 0 ns or less are none)."""
        gaps = gaps_ns[gaps_ns > 0].astype(np.float64)
        if not len(gaps):
            return self
        where = np.clip(np.searchsorted(IDLE_BIN_EDGES_NS, gaps, side="right") - 1, 0, len(IDLE_BIN_EDGES_NS) - 1)
        counts = np.asarray(self.counts) + np.bincount(where, minlength=len(IDLE_BIN_EDGES_NS))
        sums = np.asarray(self.sums_ns) + np.bincount(where, weights=gaps, minlength=len(IDLE_BIN_EDGES_NS))
        return IdleGaps(tuple(int(c) for c in counts), tuple(float(t) for t in sums))


@dataclass(frozen=True)
class TraceShape:
    """What a replay needs to know of a trace before it starts: its records by kind, and its largest
    I/O; and what its replay's length is estimated from (planning.replay_estimate_s): its span, its
    idle stretches and its queue depth."""

    records: int
    reads_writes: int
    flushes: int
    trims: int
    largest_bytes: int  # of its reads, writes and trims (0: none)
    total_bytes: int = 0  # of all its records
    length_s: float = 0.0  # from its first issue to its last
    reads: int = 0
    completion_times: bool = False  # every record has its completion time (the next two need them)
    max_in_flight: int = 0  # most records outstanding at once: the traced device's queue depth
    idle: IdleGaps = field(default_factory=IdleGaps)  # stretches with nothing outstanding
    gaps: IdleGaps = field(default_factory=IdleGaps)  # every inter-arrival gap

    def replay_span_s(self, idle_cap_us: float | None) -> float:
        """The span of the trace's issue times as a replay keeps them: all of it, or with each idle
        stretch cut to `idle_cap_us` (trace.fio_replay.capped_times_ns: an idle stretch is one with
        nothing outstanding where the trace has every completion time, else every inter-arrival gap)."""
        if idle_cap_us is None:
            return self.length_s
        cut_ns = (self.idle if self.completion_times else self.gaps).cut_ns(idle_cap_us * 1000)
        return max(self.length_s - cut_ns / 1e9, 0.0)


def trace_shape(path: Path) -> TraceShape:
    """A trace file's TraceShape, reading it chunk by chunk (bounded memory). Every column is read,
    so a value no replay can take is refused here, before a run purges a drive (read_columns);
    so is a record no replay can move: a read, write or trim at a negative offset or of no bytes
    (QA: those passed `plan`, and the run failed after its purge).

    Read once while the file stays as it is: `plan` checks the replay (check_replayable) and
    estimates it (trace_totals) from one read (QA: plan read a trace file in full five times)."""
    try:
        stat = path.stat()
    except OSError:  # read_columns says what is wrong with it
        return chunks_shape(iter_trace(path), path)
    return _scanned_shape(path, path.resolve(), stat.st_mtime_ns, stat.st_size, stat.st_ino)


@functools.lru_cache(maxsize=4)
def _scanned_shape(path: Path, resolved: Path, mtime_ns: int, size: int, inode: int) -> TraceShape:
    """chunks_shape of the file as it was at that modification time, size and inode (the cache's
    key, with where `path`, as given for its messages, leads)."""
    return chunks_shape(iter_trace(path), path)


@dataclass
class _Timing:
    """The running state of a scan's timing across chunks (TraceShape's last four fields)."""

    last_ns: int | None = None  # the latest issue so far
    busy_until_ns: int | None = None  # the latest completion so far (known times only)
    open_done_ns: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    known: bool = True
    max_in_flight: int = 0
    idle: IdleGaps = field(default_factory=IdleGaps)
    gaps: IdleGaps = field(default_factory=IdleGaps)

    def add(self, chunk: TraceChunk) -> None:
        """A chunk's records, taken in issue order (a chunk that is not is sorted, as trace stats does)."""
        chunk = chunk.in_time_order()
        ts, done = chunk.timestamp_ns.astype(np.int64), chunk.completion_ns.astype(np.int64)
        before = ts[0] if self.last_ns is None else self.last_ns
        self.gaps = self.gaps.plus(np.diff(ts, prepend=before))
        self.last_ns = int(ts[-1])
        self.known = self.known and bool((done >= 0).all())
        if not self.known:
            return
        busy = np.maximum.accumulate(np.maximum(np.maximum(done, ts), self.busy_until_ns or int(ts[0])))
        self.idle = self.idle.plus(ts - np.concatenate([[self.busy_until_ns or int(ts[0])], busy[:-1]]))
        self.busy_until_ns = int(busy[-1])
        self.max_in_flight = max(self.max_in_flight, _most_in_flight(ts, done, self.open_done_ns))
        ends = np.concatenate([self.open_done_ns, done])
        self.open_done_ns = ends[ends > ts[-1]]


def _most_in_flight(issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64],
                    open_done_ns: npt.NDArray[np.int64]) -> int:
    """Most I/Os outstanding at once among these, with those still open from earlier chunks
    (`open_done_ns`, their completions) counted from the first issue; a completion before an
    issue at the same time (as trace.fio_replay.max_outstanding counts them)."""
    starts = np.concatenate([np.full(len(open_done_ns), issue_ns[0]), issue_ns])
    ends = np.concatenate([open_done_ns, done_ns])
    times = np.concatenate([starts, ends])
    steps = np.concatenate([np.ones(len(starts), dtype=np.int64), -np.ones(len(ends), dtype=np.int64)])
    order = np.lexsort((steps, times))
    return max(1, int(np.cumsum(steps[order]).max()))


def chunks_shape(chunks: Iterable[TraceChunk], path: Path) -> TraceShape:
    """The TraceShape of a trace's chunks (`path`: the file they come from, for its refusals)."""
    counts = np.zeros(len(OP_NAMES), dtype=np.int64)
    largest = records = moved = 0
    first: int | None = None
    last: int | None = None
    timing = _Timing()
    for chunk in chunks:
        op, length = chunk.op, chunk.length_bytes
        counts += np.bincount(op, minlength=len(OP_NAMES))[:len(OP_NAMES)]
        data = op != OP_FLUSH
        _refuse_unmovable(path, records, chunk, data)
        largest = max(largest, int(length[data].max()) if data.any() else 0)
        records += len(chunk)
        moved += int(length.sum())
        if len(chunk):
            low, high = int(chunk.timestamp_ns.min()), int(chunk.timestamp_ns.max())
            first, last = low if first is None else min(first, low), high if last is None else max(last, high)
            timing.add(chunk)
    known = timing.known and records > 0
    return TraceShape(records=records, reads_writes=int(counts[OP_READ] + counts[OP_WRITE]),
                      flushes=int(counts[OP_FLUSH]), trims=int(counts[OP_TRIM]), largest_bytes=largest,
                      total_bytes=moved, length_s=0.0 if first is None or last is None else float(last - first) / 1e9,
                      reads=int(counts[OP_READ]), completion_times=known,
                      max_in_flight=timing.max_in_flight if known else 0, idle=timing.idle if known else IdleGaps(),
                      gaps=timing.gaps)


def _refuse_unmovable(path: Path, first_record: int, chunk: TraceChunk, data: npt.NDArray[np.bool_]) -> None:
    """Refuse the first read, write or trim of `chunk` at a negative offset or of 0 bytes or fewer."""
    bad = np.flatnonzero(data & ((chunk.offset_bytes < 0) | (chunk.length_bytes <= 0)))
    if not len(bad):
        return
    i = int(bad[0])
    op, offset, length = OP_NAMES[chunk.op[i]], int(chunk.offset_bytes[i]), int(chunk.length_bytes[i])
    why = (f"its offset ({offset:,} bytes) is below 0" if offset < 0 else
           f"it moves {length:,} bytes, so it is not an I/O")
    raise UsageError(f"{path}: record {first_record + i + 1:,} (a {op}): {why}; no replay can issue it: drop or fix "
                     "that record")


def check_replayable(path: Path, span_bytes: int | None = None, *, fio: bool = False, where: str = "the target",
                     ) -> None:
    """Refuse, from the file alone and before anything is written, a trace no replay can
    measure: not an ssdlab trace, one with no records (a capture of an idle device); where the
    span it is replayed into is given (`span_bytes` of `where`), an I/O larger than the span;
    on fio (`fio`), one without reads or writes. The `trace` test's plan and `trace replay`
    refuse alike."""
    shape = trace_shape(path)
    if shape.records == 0:
        raise UsageError(f"{path}: {EMPTY_TRACE}")
    if fio and not shape.reads_writes:
        raise UsageError(f"{path}: {no_reads_or_writes(shape.flushes, shape.trims)}")
    if span_bytes is None or not shape.largest_bytes:
        return
    needed = -(-shape.largest_bytes // FIO_ALIGN) * FIO_ALIGN if fio else shape.largest_bytes
    room = span_bytes - FIO_ALIGN if fio else span_bytes
    if needed >= room:
        kept = f", less the {human_size(FIO_ALIGN)} fio keeps free" if fio else ""
        raise UsageError(f"{path}: its largest I/O ({human_size(shape.largest_bytes)}) does not fit {where} "
                         f"({human_size(span_bytes)}{kept}); replay it on a larger target or span, or cut the I/Os "
                         "that large from the trace")


def trace_totals(path: Path) -> tuple[int, int, float]:
    """(I/Os, bytes, seconds from the first issue to the last) of a trace file: what a plan
    estimates its replay from (planning.replay_estimate_s), from the read trace_shape keeps."""
    shape = trace_shape(path)
    return shape.records, shape.total_bytes, shape.length_s


def iter_trace(path: Path, chunk_records: int = CHUNK_RECORDS) -> Iterator[TraceChunk]:
    """The records of a trace file, chunk by chunk (bounded memory)."""
    for columns in read_columns(path, list(COLUMNS), chunk_records):
        yield TraceChunk.from_columns(columns)


def load_trace(path: Path) -> TraceChunk:
    """The whole trace in memory (for replay and small traces)."""
    return TraceChunk.concat(iter_trace(path))
