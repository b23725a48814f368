"""Importers: one fixture per format written from the format's documentation (the
columns are described in ssdlab.trace.importers), plus garbage that must give one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.errors import UsageError
from ssdlab.trace.importers import FORMATS, OP_OTHER, TraceFormatError, import_trace, parse_rwbs, parse_text
from ssdlab.trace.model import (
    FLAG_FUA,
    FLAG_PREFLUSH,
    FLAG_SYNC,
    OP_FLUSH,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    iter_trace,
    load_trace,
    read_provenance,
)

FIXTURES = Path(__file__).parent / "fixtures"
FILES = {"msr": "msr.csv", "alibaba": "alibaba.csv", "tencent": "tencent.csv", "systor17": "systor17.csv",
         "fiu": "fiu.txt", "blkparse": "blkparse.txt", "fio2": "fio2.log", "fio3": "fio3.log",
         "capture": "capture.txt"}


def parsed(fmt: str):  # type: ignore[no-untyped-def]
    return parse_text((FIXTURES / FILES[fmt]).read_text(), fmt)


def test_every_format_has_a_fixture() -> None:
    assert set(FILES) == set(FORMATS)


def test_msr_filetime_and_response_time() -> None:
    c = parsed("msr")
    assert c.timestamp_ns.tolist() == [0, 1_000_000, 2_000_000]  # 10000 ticks of 100 ns = 1 ms
    assert c.op.tolist() == [OP_WRITE, OP_READ, OP_WRITE]
    assert c.offset_bytes.tolist() == [1741086720, 8192, 1741090816]
    assert c.length_bytes.tolist() == [4096, 65536, 4096]
    assert c.completion_ns.tolist() == [133_200, 1_000_000 + 2_500_000, 2_000_000 + 100_000]


def test_alibaba_microseconds() -> None:
    c = parsed("alibaba")
    assert c.timestamp_ns.tolist() == [0, 100_000, 1_000_000]
    assert c.op.tolist() == [OP_READ, OP_WRITE, OP_READ]
    assert c.length_bytes.tolist() == [4096, 16384, 512]
    assert (c.completion_ns == -1).all()


def test_tencent_sectors_and_seconds() -> None:
    c = parsed("tencent")
    assert c.offset_bytes.tolist() == [24578 * 512, 24586 * 512, 1024 * 512]
    assert c.length_bytes.tolist() == [8 * 512, 16 * 512, 512]
    assert c.op.tolist() == [OP_WRITE, OP_READ, OP_WRITE]
    assert c.timestamp_ns.tolist() == [0, 0, 1_000_000_000]


def test_systor_header_and_fractional_seconds() -> None:
    c = parsed("systor17")
    assert c.timestamp_ns.tolist() == [0, 136_000]
    assert c.completion_ns.tolist() == [304_000, 136_000 + 1_000_000]
    assert c.op.tolist() == [OP_READ, OP_WRITE]


def test_fiu_pid_process_and_sectors(tmp_path: Path) -> None:
    c = parsed("fiu")
    assert c.pid.tolist() == [4892, 4892]
    assert c.offset_bytes.tolist() == [904265560 * 512, 904265568 * 512]
    assert c.length_bytes.tolist() == [4096, 8192]
    prov = import_trace(FIXTURES / "fiu.txt", "fiu", tmp_path / "t.parquet")
    assert prov.processes == {"4892": "syslogd"}


def test_blkparse_issue_events_completions_and_flags() -> None:
    c = parsed("blkparse")
    assert c.op.tolist() == [OP_WRITE, OP_WRITE, OP_READ, OP_FLUSH]
    assert c.flags.tolist() == [FLAG_SYNC, FLAG_PREFLUSH | FLAG_FUA | FLAG_SYNC, 0, FLAG_PREFLUSH]
    assert c.offset_bytes.tolist()[:3] == [3417048 * 512, 3417056 * 512, 2048 * 512]
    assert c.timestamp_ns.tolist() == [0, 6_000, 996_000, 1_996_000]
    assert c.completion_ns.tolist()[:3] == [96_000, 296_000, 1_496_000]


def test_fio_v2_waits_and_v3_microseconds() -> None:
    v2 = parsed("fio2")
    assert v2.op.tolist() == [OP_WRITE, OP_READ, OP_FLUSH, OP_TRIM]
    assert v2.timestamp_ns.tolist() == [0, 1_500_000, 1_500_000, 1_500_000]
    v3 = parsed("fio3")
    assert v3.op.tolist() == [OP_WRITE, OP_READ, OP_FLUSH]
    assert v3.timestamp_ns.tolist() == [0, 2_000, 4_000]


def test_capture_tracefs_lines() -> None:
    c = parsed("capture")
    assert c.op.tolist() == [OP_WRITE, OP_READ]
    assert c.flags.tolist() == [FLAG_FUA | FLAG_SYNC, 0]
    assert c.length_bytes.tolist() == [4096, 131072]
    assert c.completion_ns.tolist() == [300_000, 1_900_000]
    assert c.pid.tolist() == [205, 4242]


@pytest.mark.parametrize(("rwbs", "op", "flags"), [
    ("R", OP_READ, 0), ("WS", OP_WRITE, FLAG_SYNC), ("FWFS", OP_WRITE, FLAG_PREFLUSH | FLAG_FUA | FLAG_SYNC),
    ("WFS", OP_WRITE, FLAG_FUA | FLAG_SYNC), ("D", OP_TRIM, 0), ("FN", OP_OTHER, FLAG_PREFLUSH),
    ("FF", OP_FLUSH, FLAG_PREFLUSH),
    ("DE", OP_TRIM, 0), ("RA", OP_READ, 0), ("WM", OP_WRITE, 8),
])
def test_rwbs(rwbs: str, op: int, flags: int) -> None:
    assert parse_rwbs(rwbs) == (op, flags)


def test_import_streams_in_chunks_and_keeps_provenance(tmp_path: Path) -> None:
    src = tmp_path / "big.csv"
    src.write_text("".join(f"0,R,{i * 4096},4096,{1000 + i}\n" for i in range(1000)))
    dest = tmp_path / "big.parquet"
    prov = import_trace(src, "alibaba", dest, chunk_records=128)
    assert prov.records == 1000
    assert read_provenance(dest).records == 1000
    assert read_provenance(dest).source_format == "alibaba"
    sizes = [len(c) for c in iter_trace(dest, chunk_records=100)]
    assert sum(sizes) == 1000 and max(sizes) <= 128
    whole = load_trace(dest)
    assert np.array_equal(whole.offset_bytes, np.arange(1000) * 4096)
    assert np.array_equal(whole.timestamp_ns, np.arange(1000) * 1000)


def test_error_names_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "bad.csv"
    src.write_text("0,R,0,4096,10\n0,X,0,4096,11\n")
    with pytest.raises(TraceFormatError, match=r"bad\.csv:2: alibaba: operation 'X'"):
        import_trace(src, "alibaba", tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_a_byte_order_mark_is_dropped(tmp_path: Path, fmt: str) -> None:
    """QA: a CSV saved by a spreadsheet or a Windows tool starts with a UTF-8 BOM, and every text
    format refused its first record, naming '\\ufeff…' as its timestamp or device."""
    src = tmp_path / FILES[fmt]
    src.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / FILES[fmt]).read_bytes())
    with_mark = import_trace(src, fmt, tmp_path / "bom.parquet")
    without = import_trace(FIXTURES / FILES[fmt], fmt, tmp_path / "plain.parquet")
    assert with_mark.records == without.records > 0
    assert load_trace(tmp_path / "bom.parquet").timestamp_ns.tolist() == \
        load_trace(tmp_path / "plain.parquet").timestamp_ns.tolist()


@pytest.mark.parametrize(("fmt", "line", "field"), [
    ("alibaba", "0,R,0,4096,1_000", "timestamp"), ("alibaba", "0,R,4_096,4096,1000", "offset"),
    ("msr", "128166372003061629,hm,1,Read,0,4096,1\uff10", "response time"),
    ("tencent", "1_538323200,0,8,1,1", "timestamp"),
    ("systor17", "1487248250.1_15926,0.000304,R,1,3720585216,4096", "timestamp"),
])
def test_a_number_in_no_digits_a_trace_writes_is_refused(fmt: str, line: str, field: str) -> None:
    """int() and Decimal() read `1_000` as 1000 and full-width digits as theirs: no trace writes either."""
    with pytest.raises(TraceFormatError, match=f"{fmt}: {field} .* is not an? "):
        parse_text(line + "\n", fmt)


def test_a_source_with_no_records_imports_nothing(tmp_path: Path) -> None:
    src = tmp_path / "empty.csv"
    src.write_text("")
    with pytest.raises(UsageError, match=r"empty\.csv holds no msr records, so nothing was imported"):
        import_trace(src, "msr", tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_time_beyond_a_64_bit_column_is_refused_with_its_line(tmp_path: Path) -> None:
    # Hypothesis found it: MSR filetimes are 100 ns ticks since 1601, so two records far
    # enough apart leave a relative time in ns that no 64-bit column holds.
    src = tmp_path / "far.csv"
    src.write_text("1,hm,1,Read,0,4096,10\n128166372003061629,hm,1,Read,0,4096,10\n")
    with pytest.raises(TraceFormatError, match=r"far\.csv:2: msr: timestamp .* out of range"):
        import_trace(src, "msr", tmp_path / "out.parquet")


@settings(max_examples=40, deadline=None)
@given(fmt=st.sampled_from(sorted(FORMATS)), text=st.text(max_size=300))
def test_garbage_gives_a_result_or_one_line(fmt: str, text: str) -> None:
    try:
        chunk = parse_text(text, fmt, "garbage")
    except TraceFormatError as error:
        msg = str(error)
        assert "\n" not in msg and msg.startswith("garbage:")
    else:
        assert (chunk.length_bytes >= 0).all() and (chunk.timestamp_ns >= 0).all()


@settings(max_examples=40, deadline=None)
@given(fmt=st.sampled_from(sorted(FORMATS)), data=st.data())
def test_mutated_fixture_lines_give_a_result_or_one_line(fmt: str, data: st.DataObject) -> None:
    lines = (FIXTURES / FILES[fmt]).read_text().splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    pos = data.draw(st.integers(0, len(lines[i])))
    junk = data.draw(st.text(max_size=8))
    lines[i] = lines[i][:pos] + junk + lines[i][pos + data.draw(st.integers(0, 4)):]
    try:
        parse_text("\n".join(lines), fmt, "mutated")
    except TraceFormatError as error:
        assert "\n" not in str(error) and str(error).startswith("mutated:")


# --- time order: sorted on import (stable), within a chunk of records -----------------------

UNSORTED_MSR = "1000000,hm,1,Read,0,4096,100\n3000000,hm,1,Write,8192,4096,100\n2000000,hm,1,Write,4096,4096,100\n"


def test_an_import_sorts_records_by_time(tmp_path: Path) -> None:
    """QA: a record later in the file but earlier in time was kept where it was (the importer
    refused only records earlier than the first), so stats saw a negative gap; replay sorts."""
    src = tmp_path / "uns.csv"
    src.write_text(UNSORTED_MSR)
    import_trace(src, "msr", tmp_path / "uns.parquet")
    c = load_trace(tmp_path / "uns.parquet")
    assert c.timestamp_ns.tolist() == [0, 100_000_000, 200_000_000]
    assert c.offset_bytes.tolist() == [0, 4096, 8192]
    assert c.completion_ns.tolist() == [10_000, 100_010_000, 200_010_000]


def test_a_record_earlier_than_the_first_is_sorted_in_and_times_start_at_the_earliest() -> None:
    """Block traces from several CPUs come slightly out of order: what blkparse users expect is
    the trace sorted, from its earliest record (equal times keep the file's order)."""
    c = parse_text("2000000,hm,1,Read,0,4096,100\n1000000,hm,1,Write,8192,4096,100\n"
                   "2000000,hm,1,Write,4096,4096,100\n", "msr")
    assert c.timestamp_ns.tolist() == [0, 100_000_000, 100_000_000]
    assert c.op.tolist() == [OP_WRITE, OP_READ, OP_WRITE] and c.offset_bytes.tolist() == [8192, 0, 4096]
    assert c.completion_ns.tolist() == [10_000, 100_010_000, 100_010_000]
    # A completion time that was not known stays unknown (-1), whatever the shift.
    blk = parse_text("  8,0 1 1 2.000000000 7 D W 16 + 8 [a]\n  8,0 0 2 1.000000000 8 D R 0 + 8 [b]\n", "blkparse")
    assert blk.timestamp_ns.tolist() == [0, 1_000_000_000] and blk.completion_ns.tolist() == [-1, -1]


@pytest.mark.parametrize("fmt", ["alibaba", "blkparse"])
def test_a_record_out_of_order_by_more_than_a_chunk_is_refused_with_its_line(tmp_path: Path, fmt: str) -> None:
    times = [5, 6, 7, 8, 1, 9, 10, 11, 12, 2]  # 1 comes 4 records late: sorted in; 2 comes 8 late
    lines = {"alibaba": "0,R,{o},4096,{t}\n", "blkparse": "  8,0 0 {t} {t}.000000000 7 D R {o} + 8 [a]\n"}
    src = tmp_path / "late.txt"
    src.write_text("".join(lines[fmt].format(t=t, o=8 * i) for i, t in enumerate(times)))
    with pytest.raises(TraceFormatError, match=rf"late\.txt:10: {fmt}: the record is earlier than records already "
                                               r"imported, .*; sort the source by time first"):
        import_trace(src, fmt, tmp_path / "out.parquet", chunk_records=3)
    assert not (tmp_path / "out.parquet").exists()
    src.write_text("".join(lines[fmt].format(t=t, o=8 * i) for i, t in enumerate(times[:-1])))
    import_trace(src, fmt, tmp_path / "out.parquet", chunk_records=3)
    assert np.all(np.diff(load_trace(tmp_path / "out.parquet").timestamp_ns) >= 0)
