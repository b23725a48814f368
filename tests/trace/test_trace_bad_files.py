"""QA (bad inputs): Parquet trace files with every column but values of the wrong kind, nulls, unknown
ops or a damaged provenance; records no replay can issue, which `plan` passed and the run met after
its purge; and a text trace cut off mid-line. Each is one line saying what to do, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ssdlab.errors import UsageError
from ssdlab.trace.importers import TraceFormatError, import_trace, parse_text
from ssdlab.trace.model import (
    NO_PROVENANCE,
    OP_READ,
    OP_WRITE,
    PROVENANCE_KEY,
    check_replayable,
    load_trace,
    read_provenance,
)

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = {"timestamp_ns": [0, 1_000_000, 2_000_000], "op": [OP_WRITE, OP_READ, OP_READ],
        "offset_bytes": [1 << 20, 8192, 0], "length_bytes": [4096, 65536, 512], "flags": [0, 0, 0],
        "pid": [-1, -1, -1], "completion_ns": [133_200, 3_500_000, 2_100_000]}
TYPES = {"timestamp_ns": pa.int64(), "op": pa.uint8(), "offset_bytes": pa.int64(), "length_bytes": pa.int64(),
         "flags": pa.uint8(), "pid": pa.int32(), "completion_ns": pa.int64()}


def parquet(path: Path, metadata: dict[bytes, bytes] | None = None, **columns: Any) -> Path:
    """A Parquet file with every trace column: GOOD's values as ssdlab types them, but `columns`
    (pyarrow arrays, or lists typed as GOOD's column is)."""
    arrays = {name: columns.get(name, pa.array(values, TYPES[name])) for name, values in GOOD.items()}
    arrays = {name: a if isinstance(a, pa.Array) else pa.array(a, TYPES[name]) for name, a in arrays.items()}
    table = pa.table(arrays)
    pq.write_table(table.replace_schema_metadata(metadata), path)
    return path


def one_line(result: Any, *needles: str) -> str:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1, (result.code, result.stderr)
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


BAD_VALUES = {  # file -> (columns, what the one line says)
    "nan": ({"offset_bytes": pa.array([0.0, float("nan"), 512.0])}, "record 2: offset_bytes nan is not a whole number"),
    "fraction": ({"timestamp_ns": pa.array([0.0, 0.5, 1.0])}, "record 2: timestamp_ns 0.5 is not a whole number"),
    "strings": ({"timestamp_ns": pa.array(["0", "1000000", "2000000"])}, "column timestamp_ns holds string"),
    "nulls": ({"offset_bytes": pa.array([0, None, 512], pa.int64())}, "record 2 has no offset_bytes (null)"),
    "op9": ({"op": [OP_WRITE, 9, OP_READ]}, "record 2: op 9 is no operation ssdlab knows"),
    "op300": ({"op": pa.array([1, 0, 300], pa.int64())}, "record 3: op 300 is not a whole number from 0 to 255"),
    "u64": ({"timestamp_ns": pa.array([0, 1, 2**64 - 1], pa.uint64())}, "record 3: timestamp_ns 18446744073709551615"),
    # QA: values of the right type that no trace holds were taken (replay dropped the flag, stats
    # counted a negative latency or a span from before the trace's start)
    "flag16": ({"flags": [0, 16, 0]}, "record 2: flags 16 hold a bit ssdlab does not define"),
    "before0": ({"timestamp_ns": [-5, 1_000_000, 2_000_000]}, "record 1: timestamp_ns -5 is before the trace's start"),
    "done_first": ({"completion_ns": [133_200, 500_000, 2_100_000]},
                   "record 2: its completion_ns (500,000) is before its issue (1,000,000)"),
}


@pytest.mark.parametrize("case", BAD_VALUES)
def test_a_parquet_trace_with_values_of_the_wrong_kind_is_one_line_everywhere(cli: Callable, tmp_path: Path,
                                                                              case: str) -> None:
    """QA: a float64, string, null or op-9 column crashed stats, audit, replay and plan (`internal error`)."""
    columns, words = BAD_VALUES[case]
    trace = parquet(tmp_path / f"{case}.parquet", **columns)
    for args in (("trace", "stats"), ("audit", "fua"), ("trace", "replay")):
        one_line(cli(*args, str(trace), *(("-t", "sim:") if args[1] == "replay" else ())), str(trace), words)
    img = tmp_path / "f.img"
    for command in ("plan", "run"):  # refused before the run purges anything
        one_line(cli(command, "--test", "trace", "-p", f"trace.trace={trace}", "-t", f"file:{img}?size=1g"), words)
    assert not img.exists()


def test_whole_floats_and_other_integer_types_read_as_the_trace_they_hold(tmp_path: Path) -> None:
    """pandas writes a column of integers as float64 when one is missing: whole values read exactly."""
    want = load_trace(parquet(tmp_path / "good.parquet"))
    floats = {name: pa.array(np.asarray(values, dtype=np.float64)) for name, values in GOOD.items()}
    int32 = {name: pa.array(values, pa.int32()) for name, values in GOOD.items()}
    for columns in (floats, int32):
        got = load_trace(parquet(tmp_path / "other.parquet", **columns))
        for name, column in want.columns().items():
            assert got.columns()[name].dtype == column.dtype and (got.columns()[name] == column).all(), name


@pytest.mark.parametrize("raw", [b"{not json", b"[1,2]", b"\xff\xfe\x00", b'{"records":"x","source_format":5}'])
def test_a_damaged_provenance_reads_as_a_parquet_file_without_one(cli: Callable, tmp_path: Path, raw: bytes) -> None:
    """QA: JSONDecodeError, ValidationError, UnicodeDecodeError. docs/traces.md: a Parquet file with the
    trace columns and no ssdlab provenance is read by every command; a damaged one is none."""
    trace = parquet(tmp_path / "t.parquet", {PROVENANCE_KEY: raw})
    prov = read_provenance(trace)
    assert prov.source_format == NO_PROVENANCE and prov.records == 3
    assert "provenance does not read" in prov.notes[0] and "\n" not in prov.notes[0]
    result = cli("trace", "stats", str(trace))
    assert result.code == 0 and "(parquet)" in result.stdout, result.stderr
    assert cli("audit", "fua", str(trace)).code == 0


def test_a_good_provenance_still_reads(tmp_path: Path) -> None:
    raw = json.dumps({"source_format": "msr", "source": "x.csv", "records": 3}).encode()
    assert read_provenance(parquet(tmp_path / "t.parquet", {PROVENANCE_KEY: raw})).source_format == "msr"


@pytest.mark.parametrize(("column", "values", "words"), [
    ("offset_bytes", [0, -512, 0], "record 2 (a read): its offset (-512 bytes) is below 0"),
    ("length_bytes", [4096, 4096, 0], "record 3 (a read): it moves 0 bytes, so it is not an I/O"),
    ("length_bytes", [-4096, 4096, 512], "record 1 (a write): it moves -4,096 bytes"),
])
def test_a_record_no_replay_can_issue_is_refused_by_the_plan(cli: Callable, tmp_path: Path, column: str,
                                                            values: list[int], words: str) -> None:
    """QA: negative offsets and lengths of 0 or less passed `plan`; the run purged, then failed."""
    trace = parquet(tmp_path / "t.parquet", **{column: values})
    with pytest.raises(UsageError, match="drop or fix that record"):
        check_replayable(trace, 1 << 30)
    img = tmp_path / "f.img"
    for command in ("plan", "run"):
        one_line(cli(command, "--test", "trace", "-p", f"trace.trace={trace}", "-t", f"file:{img}?size=1g"), words)
    assert not img.exists()
    one_line(cli("trace", "replay", str(trace), "-t", "sim:"), words)


def test_a_flush_of_no_bytes_at_offset_0_is_replayable(tmp_path: Path) -> None:
    trace = parquet(tmp_path / "t.parquet", op=[OP_WRITE, 3, OP_READ], length_bytes=[4096, 0, 512])
    check_replayable(trace, 1 << 30)


# --- a text trace cut off mid-line ------------------------------------------------------------------


def test_a_last_line_cut_in_its_timestamp_is_refused(tmp_path: Path) -> None:
    """QA: an Alibaba line cut in its timestamp (its last field) became the earliest record: a 438,279 h trace."""
    text = (FIXTURES / "alibaba.csv").read_text().splitlines()
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join(text[:2]) + "\n" + text[2][:-9])
    with pytest.raises(TraceFormatError, match=r"cut.csv:3: alibaba: its time is earlier than every record.*"
                                               "has no line end"):
        import_trace(cut, "alibaba", tmp_path / "t.parquet")
    assert not (tmp_path / "t.parquet").exists()


def test_a_last_line_cut_short_of_its_fields_says_the_file_looks_cut(tmp_path: Path) -> None:
    cut = tmp_path / "cut.csv"
    cut.write_text((FIXTURES / "msr.csv").read_text().splitlines()[0] + "\n128166372003061629,wdev,0,Re")
    with pytest.raises(TraceFormatError, match=r"cut.csv:2: msr: expected 7 fields.*may be cut short; remove"):
        import_trace(cut, "msr", tmp_path / "t.parquet")


@pytest.mark.parametrize(("fmt", "fixture", "whole"), [
    ("systor17", "systor17.csv", "1487248250.116062,0.001000,W,1,3720589312,8192"),
    ("fio3", "fio3.log", "12 /dev/sdb write 8192 4096"),
])
def test_a_last_line_cut_in_its_size_is_refused(tmp_path: Path, fmt: str, fixture: str, whole: str) -> None:
    """QA: a last line cut in its size (the last field of systor17 and fio iologs) imported with only a
    note, a wrong record: 8192 bytes cut to 819 is off the sectors every I/O before it kept."""
    lines = [line for line in (FIXTURES / fixture).read_text().splitlines(keepends=True) if " close" not in line]
    source = tmp_path / "cut.txt"
    source.write_text("".join(lines) + whole[:-1])
    size = whole[:-1].replace(",", " ").split()[-1]
    with pytest.raises(TraceFormatError, match=rf"{fmt}: its size, {size} bytes, is not a whole number of 512-byte "
                                               r"sectors.*has no line end"):
        import_trace(source, fmt, tmp_path / "t.parquet")
    source.write_text("".join(lines) + whole)  # whole, without its line end: imported, with the note
    assert import_trace(source, fmt, tmp_path / "t.parquet").records == len(load_trace(tmp_path / "t.parquet"))


def test_a_complete_last_line_without_its_line_end_is_imported_with_a_note(cli: Callable, tmp_path: Path) -> None:
    whole = (FIXTURES / "alibaba.csv").read_text()
    source = tmp_path / "nonl.csv"
    source.write_text(whole.rstrip("\n"))
    result = cli("trace", "import", "-f", "alibaba", str(source), "-o", str(tmp_path / "t.parquet"))
    assert result.code == 0, result.stderr
    assert "has no line end: if the file was cut short" in result.stdout
    want = parse_text(whole, "alibaba")
    got = load_trace(tmp_path / "t.parquet")
    assert (got.timestamp_ns == want.timestamp_ns).all() and len(got) == len(want)
    assert "no line end" in read_provenance(tmp_path / "t.parquet").notes[0]
    # with its line end: no note
    assert cli("trace", "import", "-f", "alibaba", str(FIXTURES / "alibaba.csv"), "-o",
               str(tmp_path / "u.parquet")).stdout.count("Note:") == 0
