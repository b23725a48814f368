"""QA faults of the trace commands, each tested as a class: RWBS `N` is no flush, scheduler message
lines, traces of several devices, completions before their issue, refusals a trace file makes
visible before anything writes, a stopped capture, and the replay's and results' wording."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from loop_helpers import attached_loop
from ssdlab.trace.capture import CaptureResult
from ssdlab.trace.importers import OP_OTHER, TraceFormatError, import_trace, parse_rwbs, parse_text
from ssdlab.trace.model import (
    FLAG_PREFLUSH,
    OP_FLUSH,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    Provenance,
    TraceChunk,
    check_replayable,
    load_trace,
    read_provenance,
    write_trace,
)

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
MIB = 1 << 20


def one_line_error(result: Any, code: int, *needles: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.code == code and len(lines) == 1, (result.code, result.stderr)
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def issue(rwbs: str, sectors: int, dev: str = "7,0", at: str = "10.000100") -> str:
    """A tracefs block_rq_issue line as the kernel writes it."""
    return (f"  blkdiscard-1042 [000] ..... {at}: block_rq_issue: {dev} {rwbs} {sectors * 512} () 0 + {sectors} "
            "be,0,4 [blkdiscard]")


def trace_of(path: Path, ops: list[int], lengths: list[int]) -> Path:
    n = len(ops)
    chunk = TraceChunk.from_columns({
        "timestamp_ns": np.arange(n) * 1000, "op": ops, "offset_bytes": np.zeros(n), "length_bytes": lengths,
        "flags": np.zeros(n), "pid": np.full(n, -1), "completion_ns": np.full(n, -1)})
    write_trace(path, [chunk], Provenance(source_format="test", source="test"))
    return path


# --- M1: RWBS `N` (write-zeroes, zone and driver commands) is never a flush -------------------------


def test_write_zeroes_is_counted_as_another_request_not_a_flush(tmp_path: Path) -> None:
    """QA: `blkdiscard -z` of 4 MiB was "flushes 1 I/O, 4 MiB" (the kernel writes `N` for it)."""
    raw = tmp_path / "wz.txt"
    raw.write_text(issue("R", 8) + "\n" + issue("NS", 8192, at="10.000200") + "\n")
    prov = import_trace(raw, "capture", tmp_path / "wz.parquet")
    c = load_trace(tmp_path / "wz.parquet")
    assert c.op.tolist() == [OP_READ]  # the write-zeroes is no record: no replay reproduces it
    assert (prov.other_requests, prov.other_bytes) == (1, 4 * MIB)


@pytest.mark.parametrize(("text", "fmt"), [
    (issue("FF", 0), "capture"),  # blk-flush.c: REQ_OP_FLUSH | REQ_PREFLUSH
    (issue("F", 0), "capture"),  # REQ_OP_FLUSH
    ("  8,0 0 1 0.000100000 1 D FN [a]", "blkparse"),  # blkparse: the flush bit, no write bit, no data
    ("  8,0 0 1 0.000100000 1 D FWS [a]", "blkparse"),  # kernels before 4.10: an empty write with a preflush
])
def test_a_flush_in_each_form_the_tools_write_is_a_flush(text: str, fmt: str) -> None:
    assert parse_text(text, fmt).op.tolist() == [OP_FLUSH]


@pytest.mark.parametrize(("text", "fmt"), [
    (issue("N", 0), "capture"),  # a driver passthrough command (smartctl, nvme-cli): no preflush
    (issue("NS", 8192), "capture"),  # write-zeroes
    (issue("FN", 8), "capture"),  # data and a preflush, of no known operation
    (issue("ZRA", 0), "capture"),  # zone reset all (6.16+)
    (issue("WZ", 8), "capture"),  # write-zeroes, newer kernels
    ("  8,0 0 1 0.000100000 1 D N 0 + 0 [smartctl]", "blkparse"),
])
def test_any_other_request_is_no_record(text: str, fmt: str) -> None:
    assert len(parse_text(text, fmt)) == 0


RWBS_LETTERS = st.text(alphabet="FRWDNZEASMUCOX", min_size=0, max_size=6)


@FUZZ
@given(rwbs=RWBS_LETTERS, sectors=st.sampled_from([0, 8]))
def test_any_rwbs_is_a_record_no_record_or_one_line(rwbs: str, sectors: int) -> None:
    """Whatever the RWBS field holds: a record, none (another kind of request), or a one-line
    error; and a flush only where the kernel's operation is F, or a preflush comes without data."""
    try:
        c = parse_text(issue(rwbs, sectors), "capture", "x.txt")
    except TraceFormatError as error:
        assert "\n" not in str(error) and str(error).startswith("x.txt:1: capture:")
        event("refused")
        return
    if len(c) and c.op[0] == OP_FLUSH:
        event("flush")
        assert re.fullmatch(r"F?F[FASMU]*", rwbs) or (re.fullmatch(r"F[WN][FASMU]*", rwbs) and sectors == 0)
    if re.fullmatch(r"F?N[FASMU]*", rwbs) and sectors:
        assert len(c) == 0  # N with data is never a flush, nor invented as a write
    event("record" if len(c) else "other")


def test_parse_rwbs_follows_blk_fill_rwbs() -> None:
    assert parse_rwbs("FF") == (OP_FLUSH, FLAG_PREFLUSH)
    # An empty zone append or reset after a preflush is that command, not a flush (fuzz: 'FZA', 0 sectors)
    assert parse_rwbs("FZA") == (OP_OTHER, 0) and parse_rwbs("FWZ") == (OP_OTHER, 0)
    assert parse_rwbs("N")[0] == OP_OTHER and parse_rwbs("ZA")[0] == OP_OTHER and parse_rwbs("WZ")[0] == OP_OTHER
    assert parse_rwbs("WSU")[0] == OP_WRITE and parse_rwbs("DE")[0] == OP_TRIM


def test_stats_and_import_say_what_was_not_imported(cli: Callable, tmp_path: Path) -> None:
    raw = tmp_path / "wz.txt"
    raw.write_text(issue("W", 8) + "\n" + issue("NS", 8192, at="10.000200") + "\n")
    result = cli("trace", "import", str(raw), "-f", "capture", "-o", str(tmp_path / "wz.parquet"))
    assert result.code == 0 and "1 request of another kind (write-zeroes, zone or driver commands; 4 MiB) not " \
                                "imported" in result.stdout, result.stdout
    stats = cli("trace", "stats", str(tmp_path / "wz.parquet")).stdout
    assert re.search(r"flushes +│ 0 I/Os, 0 B", stats) and re.search(r"other requests +│ 1 request, 4 MiB", stats)
    only = tmp_path / "only.txt"
    only.write_text(issue("NS", 8192) + "\n")
    one_line_error(cli("trace", "import", str(only), "-f", "capture", "-o", str(tmp_path / "o.parquet")), 2,
                   "holds only requests no replay reproduces")


@pytest.mark.root
def test_a_captured_write_zeroes_is_no_flush(cli: Callable, tmp_path: Path) -> None:
    with attached_loop(tmp_path / "loop.img") as loop:
        out = tmp_path / "wz.parquet"
        result = cli("trace", "capture", "-d", loop, "-o", str(out), "--", "blkdiscard", "-z", "-o", "0", "-l",
                     str(4 * MIB), loop)
    assert result.code == 0, result.stderr
    assert "not imported" in result.stdout and not (load_trace(out).op == OP_FLUSH).any()
    assert read_provenance(out).other_bytes >= 4 * MIB


# --- M2: blkparse message lines (`m`) are skipped as other non-D/C events are -------------------------


def test_blkparse_scheduler_messages_are_skipped() -> None:
    c = parse_text("  8,0    1        0     0.000003000     0  m   N bfq697S / alloced\n"
                   "  8,0    1        6     0.000006000   697  D  WS 3417048 + 8 [jbd2/sda1-8]\n"
                   "  8,0    1        7     0.000100000     0  C  WS 3417048 + 8 [0]\n", "blkparse")
    assert c.op.tolist() == [OP_WRITE] and c.completion_ns.tolist() == [94_000]


# --- M4: a trace of several devices is never merged ----------------------------------------------------

TWO_DEVICES = ("  8,0    1        1     0.000000000  1234  D  W 2048 + 8 [a]\n"
               "  8,16   1        1     0.000010000  1234  D  W 2048 + 8 [a]\n"
               "  8,16   1        2     0.000050000  1234  C  W 2048 + 8 [0]\n"
               "  8,0    1        2     0.005000000  1234  C  W 2048 + 8 [0]\n")


@pytest.mark.parametrize(("fmt", "text"), [
    ("blkparse", TWO_DEVICES),
    ("capture", issue("W", 8, "8,0") + "\n" + issue("W", 8, "8,16", at="10.000200") + "\n"),
])
def test_a_trace_of_two_devices_is_refused_naming_them(cli: Callable, tmp_path: Path, fmt: str, text: str) -> None:
    src = tmp_path / "two.txt"
    src.write_text(text)
    one_line_error(cli("trace", "import", str(src), "-f", fmt, "-o", str(tmp_path / "t.parquet")), 2,
                   "8,16", "8,0", "--device 8,0")
    assert not (tmp_path / "t.parquet").exists()


def test_device_picks_one_device_and_its_completions(cli: Callable, tmp_path: Path) -> None:
    src = tmp_path / "two.txt"
    src.write_text(TWO_DEVICES)
    for device, done_ns in (("8,0", 5_000_000), ("8,16", 40_000)):
        out = tmp_path / f"{device}.parquet"
        assert cli("trace", "import", str(src), "-f", "blkparse", "-o", str(out), "--device", device).code == 0
        assert load_trace(out).completion_ns.tolist() == [done_ns]
    one_line_error(cli("trace", "import", str(src), "-f", "blkparse", "-o", str(tmp_path / "x.parquet"),
                       "--device", "8,17"), 2, "no records of device 8,17", "8,0, 8,16")
    one_line_error(cli("trace", "import", str(src), "-f", "blkparse", "-o", str(tmp_path / "x.parquet"),
                       "--device", "8"), 2, "--device '8'", "MAJ,MIN")
    # every other format's devices: tests/trace/test_trace_devices.py


# --- m7: a completion earlier than its issue is never stored ---------------------------------------------


def test_a_completion_before_its_issue_is_refused_with_its_line(tmp_path: Path) -> None:
    src = tmp_path / "b3.txt"
    src.write_text("  8,0    0        1     0.000000000  1  D  W 0 + 8 [a]\n"
                   "  8,0    1        1     0.000100000  1  D  R 800 + 8 [a]\n"
                   "  8,0    0        2     0.000090000  1  C  R 800 + 8 [0]\n")
    with pytest.raises(TraceFormatError, match=r"b3\.txt:3: blkparse: this completion .* is earlier than its issue "
                                               r"on line 2"):
        import_trace(src, "blkparse", tmp_path / "b3.parquet")


@FUZZ
@given(times=st.lists(st.integers(min_value=0, max_value=50), min_size=2, max_size=8))
def test_no_import_stores_a_completion_before_its_issue(times: list[int]) -> None:
    lines = [f"  8,0 0 {i} 0.0000{t:02d}000 1 {'D' if i % 2 == 0 else 'C'} W 0 + 8 [a]" for i, t in enumerate(times)]
    try:
        c = parse_text("\n".join(lines), "blkparse")
    except TraceFormatError:
        return
    known = c.completion_ns >= 0
    assert (c.completion_ns[known] >= c.timestamp_ns[known]).all()


# --- M3: what the file alone shows is refused before anything writes -------------------------------------


def test_an_io_larger_than_the_drive_is_refused_by_the_plan(cli: Callable, tmp_path: Path) -> None:
    huge = trace_of(tmp_path / "huge.parquet", [OP_WRITE, OP_WRITE], [4096, 32 << 30])
    for command in ("plan", "run"):
        one_line_error(cli(command, "--test", "trace", "-p", f"trace.trace={huge}", "-t", "sim:?capacity_gib=4"),
                       2, "its largest I/O (32 GiB) does not fit sim:?capacity_gib=4", "larger target")
    one_line_error(cli("trace", "replay", str(huge), "-t", "sim:?capacity_gib=4"), 2, "does not fit")


@pytest.mark.parametrize(("ops", "lengths", "words"), [
    ([OP_FLUSH, OP_TRIM], [0, 4096], "without reads or writes (it holds 1 flush and 1 trim)"),
    ([OP_WRITE, OP_WRITE], [4096, 2 << 30], "its largest I/O (2 GiB) does not fit file:"),
])
def test_a_fio_replay_the_file_rules_out_writes_nothing(cli: Callable, tmp_path: Path, ops: list[int],
                                                       lengths: list[int], words: str) -> None:
    """QA: the `trace` test purged (TRIMmed) the whole target, then refused the trace."""
    trace = trace_of(tmp_path / "t.parquet", ops, lengths)
    img = tmp_path / "f.img"
    for command in ("plan", "run"):
        one_line_error(cli(command, "--test", "trace", "-p", f"trace.trace={trace}", "-t", f"file:{img}?size=1g"),
                       2, words)
    assert not img.exists()


def test_check_replayable_fio_keeps_a_block_free(tmp_path: Path) -> None:
    trace = trace_of(tmp_path / "t.parquet", [OP_WRITE], [MIB - 4096])
    check_replayable(trace, MIB + 4096, fio=True)
    with pytest.raises(Exception, match="does not fit"):
        check_replayable(trace, MIB, fio=True)
    check_replayable(trace, MIB)  # the simulator keeps none


# --- m1: a capture stopped before its command finished says so ------------------------------------------


def test_a_stopped_capture_keeps_what_it_captured_and_says_the_command_did_not_finish(
        cli: Callable, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def stopped(device: str, out_path: Path, **_: object) -> CaptureResult:
        out_path.write_text(issue("W", 8) + "\n")
        raise KeyboardInterrupt

    monkeypatch.setattr("ssdlab.trace.capture.capture", stopped)
    out = tmp_path / "c.parquet"
    result = cli("trace", "capture", "-d", "/dev/vda", "-o", str(out), "--", "sleep", "20")
    assert result.code == 130 and "Captured 1 I/O of /dev/vda" in result.stdout
    assert result.stderr.strip() == "stopped: sleep 20 did not finish; the capture above holds its I/O until then"
    assert len(load_trace(out)) == 1


# --- m2, m3: the replay's rows and the results' durations in the words and units of `run` ----------------


def test_replay_counts_reads_and_writes_flushes_and_trims_as_run_does(cli: Callable, tmp_path: Path) -> None:
    trace = trace_of(tmp_path / "t.parquet", [OP_WRITE, OP_READ, OP_FLUSH, OP_TRIM, OP_WRITE], [4096, 4096, 0, 8192,
                                                                                              4096])
    out = cli("trace", "replay", str(trace), "-t", "sim:?scale=0.05").stdout
    rows = dict(re.findall(r"│ (\S[^│]*?) +│ +([^│]*?) +│", out))
    assert rows["I/Os replayed (reads and writes)"] == "3"
    assert rows["Flushes replayed"] == "1" and rows["Trims replayed"] == "1"
    assert "I/Os replayed" not in rows and re.fullmatch(r"[\d.,]+ (µs|ms|s)", rows["Idle time cut by the cap"])


def test_busy_and_idle_time_show_in_the_unit_that_keeps_them_short() -> None:
    from ssdlab.report.section_trace import with_durations
    from ssdlab.report.types import Table

    table = Table(key="k", title="t", header=("", "value", "unit"),
                  rows=(("Busy time", "0.0", "s"), ("Idle time cut", "0.0", "s"), ("Flushes", "1", "")),
                  row_keys=("busy_s", "idle_cut_s", "flushes"))
    shown = with_durations([table], {"busy_s": 75.7e-6, "idle_cut_s": 0.0013, "flushes": 1})[0]
    assert shown.rows == (("Busy time", "75.7", "µs"), ("Idle time cut", "1.30", "ms"), ("Flushes", "1", ""))


def test_a_replays_latencies_show_in_ms_or_s_in_trace_replay_as_in_the_runs_report(cli: Callable,
                                                                                  tmp_path: Path) -> None:
    """QA: `trace replay` printed "Read latency p99 53,399,177.1 µs" and "Average service time
    207,963.6 µs" (docs/traces.md: times in µs, ms or s); the run's report of the same trace says
    them alike."""
    from ssdlab.bundle import Bundle
    from ssdlab.engines.sim import SimEngine
    from ssdlab.report.section_trace import trace_section
    from ssdlab.runner import run_entries
    from ssdlab.suites import entry
    from ssdlab.targets import parse_target

    n = 1600  # 1 MiB writes issued at once: the last waits for all before it, well over a second
    burst = TraceChunk.from_columns({
        "timestamp_ns": np.zeros(n), "op": [OP_WRITE] * n, "offset_bytes": np.arange(n) << 20,
        "length_bytes": np.full(n, 1 << 20), "flags": np.zeros(n), "pid": np.full(n, -1),
        "completion_ns": np.full(n, -1)})
    trace = tmp_path / "burst.parquet"
    write_trace(trace, [burst], Provenance(source_format="test", source="test"))
    spec = "sim:sm951-nvme-256?scale=0.05"
    out = cli("trace", "replay", str(trace), "-t", spec).stdout
    printed = dict(re.findall(r"│ (\S[^│]*?) +│ +([^│]*?) +│", out))
    assert re.fullmatch(r"\d\.\d{3} s", printed["Write latency p99.9"]), printed
    assert re.fullmatch(r"\d{3}\.\d\d ms", printed["Average service time"]), printed
    record = run_entries(tmp_path / "b", parse_target(spec), SimEngine(), [entry("trace", trace=str(trace))])
    section = trace_section(Bundle(tmp_path / "b"), record.test("trace"))
    rows = {row[0]: f"{row[1]} {row[2]}" for table in section.tables for row in table.rows if len(row) == 3}
    for label in ("Write latency p99.9", "Average service time", "Write latency p50"):
        assert rows[label] == printed[label]


# --- nits: a Parquet without provenance, plurals, an MSR header --------------------------------------------


def test_a_parquet_without_provenance_is_read_by_stats_and_audit_as_replay_reads_it(cli: Callable,
                                                                                  tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    trace = trace_of(tmp_path / "t.parquet", [OP_WRITE, OP_FLUSH], [4096, 0])
    bare = tmp_path / "bare.parquet"
    pq.write_table(pq.read_table(trace).replace_schema_metadata(None), bare)
    stats = cli("trace", "stats", str(bare))
    assert stats.code == 0 and "1 flush" in stats.stdout and "1 flushes" not in stats.stdout, stats.stderr
    assert cli("audit", "fua", str(bare)).code == 0


def test_an_msr_header_line_is_skipped(tmp_path: Path) -> None:
    c = parse_text("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                   "128166372003061629,hm,1,Read,383496192,32768,1331\n", "msr")
    assert c.op.tolist() == [OP_READ]


def test_fio_refusal_words_flushes_in_the_singular(tmp_path: Path) -> None:
    trace = trace_of(tmp_path / "t.parquet", [OP_FLUSH], [0])
    with pytest.raises(Exception, match=r"it holds 1 flush and 0 trims"):
        check_replayable(trace, 1 << 30, fio=True)

