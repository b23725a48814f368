"""Whatever people give the `ssdlab trace` commands — seeds, durations and other numbers, output
paths, source files with zero-length records or binary junk — the outcome is a result or a
one-line error that says what to do (exit 2), never a traceback, the internal-error path or a
refused value that starts the work anyway; and the results print their numbers as the rest of
the CLI does."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ssdlab.errors import UsageError
from ssdlab.trace.capture import capture
from ssdlab.trace.generate import generate
from ssdlab.trace.importers import FORMATS, TraceFormatError, import_trace, parse_text, quoted
from ssdlab.trace.model import (
    FLAG_PREFLUSH,
    FLAG_SYNC,
    OP_FLUSH,
    OP_READ,
    OP_WRITE,
    Provenance,
    TraceChunk,
    write_trace,
)
from ssdlab.units import number_slip

FIXTURES = Path(__file__).parent / "fixtures"
FILES = {"msr": "msr.csv", "alibaba": "alibaba.csv", "tencent": "tencent.csv", "systor17": "systor17.csv",
         "fiu": "fiu.txt", "blkparse": "blkparse.txt", "fio2": "fio2.log", "fio3": "fio3.log",
         "capture": "capture.txt"}
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# A device path that does not exist: even if a refusal failed, nothing could be traced.
NO_DEVICE = "/dev/ssdlab-test-no-such-device"
STARTED = "capture started (test)"
SMALL = ("--scale", "0.0002")  # 100 I/Os of the light profile
# Values as they arrive on the command line: numbers of every size and sign, special floats, junk.
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "-0", "1", "0.5", "1e3", "1e999", "-1e999", "nan", "inf", "-inf", "infinity", "", " 1",
                     "+1", "0x10", "1_000", "\u0661", "18446744073709551615", "18446744073709551616"]),
    st.text(max_size=12).filter(lambda t: "\x00" not in t),
)


def one_line_error(result: Any, *needles: str) -> str:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def result_or_one_line_error(result: Any) -> None:
    if result.code != 0:
        one_line_error(result)


@pytest.fixture
def no_capture(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """`capture` replaced by a stand-in that records the call and stops with STARTED: no test
    here traces a device, and a test sees whether a capture would have started."""
    import ssdlab.trace.capture as module

    calls: list[dict[str, Any]] = []

    def started(device: str, out_path: Path, **kwargs: Any) -> None:
        calls.append({"device": device, **kwargs})
        raise UsageError(STARTED)

    monkeypatch.setattr(module, "capture", started)
    return calls


# --- 1. seeds: 0 <= seed < 2^64, checked where --seed is parsed ----------------------------------


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", str(2**70), "1.5", "abc", "", "+1", " 1", "\u0661",
                                  "1e3", pytest.param("9" * 5000, id="5000-digits")])
def test_a_seed_outside_0_to_2_64_is_one_line(cli: Callable, tmp_path: Path, seed: str) -> None:
    out = tmp_path / "g.parquet"
    one_line_error(cli("trace", "generate", "light", "-o", str(out), *SMALL, f"--seed={seed}"),
                   "--seed must be a whole number below 2^64")
    assert not out.exists()


@pytest.mark.parametrize(("seed", "value"), [("0", 0), ("18446744073709551615", 2**64 - 1), ("007", 7)])
def test_every_seed_below_2_64_generates(cli: Callable, tmp_path: Path, seed: str, value: int) -> None:
    out = tmp_path / "g.parquet"
    result = cli("trace", "generate", "light", "-o", str(out), *SMALL, "--seed", seed)
    assert result.code == 0, result.stderr
    from ssdlab.trace.model import read_provenance

    assert read_provenance(out).params["seed"] == value


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70])
def test_generate_refuses_a_seed_outside_0_to_2_64(seed: int) -> None:
    with pytest.raises(UsageError, match=r"seed must be a whole number below 2\^64"):
        generate("light", seed=seed, scale=0.0002)


@FUZZ
@given(seed=NUMBERS)
def test_any_seed_gives_a_trace_or_one_line(cli: Callable, tmp_path: Path, seed: str) -> None:
    result = cli("trace", "generate", "light", "-o", str(tmp_path / "g.parquet"), *SMALL, f"--seed={seed}")
    valid = seed.isascii() and seed.isdigit() and int(seed) < 2**64
    event("generated" if valid else "refused")
    if valid:
        assert result.code == 0, result.stderr
    else:
        one_line_error(result, "--seed")


# --- 2. durations and the other numbers: finite, in range, checked before any work ------------


@pytest.mark.parametrize("seconds", ["-3", "0", "-0", "nan", "inf", "-inf", "1e999", "abc", "", "0x10"])
def test_capture_seconds_must_be_finite_and_above_0(cli: Callable, tmp_path: Path, no_capture: list[Any],
                                                    seconds: str) -> None:
    out = tmp_path / "c.parquet"
    one_line_error(cli("trace", "capture", "-d", NO_DEVICE, f"--seconds={seconds}", "-o", str(out)),
                   "--seconds", "above 0")
    assert no_capture == [] and list(tmp_path.iterdir()) == []


@FUZZ
@given(seconds=NUMBERS)
def test_any_capture_seconds_start_a_capture_or_give_one_line(cli: Callable, tmp_path: Path,
                                                              no_capture: list[Any], seconds: str) -> None:
    no_capture.clear()
    result = cli("trace", "capture", "-d", NO_DEVICE, f"--seconds={seconds}", "-o", str(tmp_path / "c.parquet"))
    try:  # float() takes `1_000` and full-width digits too, which no option does (units.number_slip)
        valid = math.isfinite(float(seconds)) and float(seconds) > 0 and number_slip(seconds) is None
    except ValueError:
        valid = False
    event("started" if valid else "refused")
    if valid:
        one_line_error(result, STARTED)
        assert no_capture[0]["seconds"] == float(seconds)
    else:
        one_line_error(result, "--seconds")
        assert no_capture == []


@pytest.mark.parametrize("seconds", [-3.0, 0.0, math.nan, math.inf])
def test_the_capture_function_refuses_a_bad_duration_first(tmp_path: Path, seconds: float) -> None:
    with pytest.raises(UsageError, match=r"^--seconds '[^']+': give a number of seconds above 0"):
        capture(NO_DEVICE, tmp_path / "c.txt", seconds=seconds)
    assert not (tmp_path / "c.txt").exists()


def test_an_unknown_capture_option_is_no_command_to_run(cli: Callable, tmp_path: Path,
                                                        no_capture: list[Any]) -> None:
    one_line_error(cli("trace", "capture", "-d", NO_DEVICE, "-o", str(tmp_path / "c.parquet"), "--secnds", "5"),
                   "'--secnds'", "after `--`")
    assert no_capture == []


@pytest.mark.parametrize(("option", "value"), [
    ("--scale", "nan"), ("--scale", "inf"), ("--scale", "-1"), ("--scale", "0"), ("--scale", "1.5"),
    ("--scale", "abc"), ("--fua-pct", "nan"), ("--fua-pct", "-1"), ("--fua-pct", "101"), ("--fua-pct", "inf"),
    # float() reads these as 0.01 and 30 (QA: numbers typed with `_` or full-width digits were taken)
    ("--scale", "0.0_1"), ("--fua-pct", "3_0"), ("--fua-pct", "\uff13\uff10"),
])
def test_generate_numbers_out_of_range_are_one_line(cli: Callable, tmp_path: Path, option: str, value: str) -> None:
    one_line_error(cli("trace", "generate", "light", "-o", str(tmp_path / "g.parquet"), f"{option}={value}"),
                   option)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "light.parquet"
    prov, chunks = generate("light", scale=0.0002)
    write_trace(path, chunks, prov)
    return path


@pytest.mark.parametrize("cap", ["1e20", "1e300", "3.7e9", "nan", "inf", "-1", "x", ""])
def test_replay_idle_cap_out_of_range_is_one_line(cli: Callable, small_trace: Path, cap: str) -> None:
    one_line_error(cli("trace", "replay", str(small_trace), "-t", "sim:?scale=0.05", f"--idle-cap={cap}"),
                   "--idle-cap")


@FUZZ
@given(option=st.sampled_from(["--fua-pct", "--idle-cap"]), value=NUMBERS)
def test_any_number_gives_a_result_or_one_line_naming_its_option(cli: Callable, tmp_path: Path, small_trace: Path,
                                                                 option: str, value: str) -> None:
    if option == "--idle-cap":
        result = cli("trace", "replay", str(small_trace), "-t", "sim:?scale=0.05", f"--idle-cap={value}")
    else:
        result = cli("trace", "generate", "light", *SMALL, "-o", str(tmp_path / "g.parquet"), f"--fua-pct={value}")
    result_or_one_line_error(result)
    event("result" if result.code == 0 else "refused")
    if result.code != 0:
        one_line_error(result, option)


# --- 3. output paths: named .parquet, in a directory, checked before anything is read ----------


def writers(tmp_path: Path, out: str) -> Iterator[list[str]]:
    src = tmp_path / "src.csv"
    src.write_text((FIXTURES / "msr.csv").read_text())
    yield ["trace", "generate", "light", *SMALL, "-o", out]
    yield ["trace", "import", str(src), "-f", "msr", "-o", out]
    yield ["trace", "capture", "-d", NO_DEVICE, "--seconds", "1", "-o", out]


@pytest.mark.parametrize("below", ["x.parquet", "sub/x.parquet"])
def test_an_output_below_a_file_says_its_parent_is_not_a_directory(cli: Callable, tmp_path: Path,
                                                                   no_capture: list[Any], below: str) -> None:
    (tmp_path / "afile").write_text("a file\n")
    for args in writers(tmp_path, str(tmp_path / "afile" / below)):
        one_line_error(cli(*args), f"{tmp_path / 'afile'} is a file, not a directory")
    assert no_capture == []


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_capture_refuses_a_raw_events_file_that_cannot_be_one(cli: Callable, tmp_path: Path, no_capture: list[Any],
                                                              kind: str) -> None:
    """The capture writes its raw events beside the trace (X.tracefs.txt): a FIFO there blocked it
    for ever (QA), a directory failed it after the capture."""
    raw = tmp_path / "c.tracefs.txt"
    os.mkfifo(raw) if kind == "fifo" else raw.mkdir()
    one_line_error(cli("trace", "capture", "-d", NO_DEVICE, "--seconds", "1", "-o", str(tmp_path / "c.parquet")),
                   str(raw))
    assert no_capture == []


@pytest.mark.parametrize("name", ["x.csv", "x", "x.parquet.txt", ".parquet", "dir.parquet", "."])
def test_an_output_not_named_parquet_is_refused(cli: Callable, tmp_path: Path, no_capture: list[Any],
                                                name: str) -> None:
    (tmp_path / "dir.parquet").mkdir()
    for args in writers(tmp_path, str(tmp_path / name)):
        one_line_error(cli(*args), ".parquet")
    assert no_capture == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.parquet", "src.csv"]


def test_an_output_named_parquet_in_capitals_is_written(cli: Callable, tmp_path: Path) -> None:
    assert cli("trace", "generate", "light", *SMALL, "-o", str(tmp_path / "X.PARQUET")).code == 0


def test_a_failed_import_leaves_the_file_already_there(cli: Callable, tmp_path: Path) -> None:
    out = tmp_path / "keep.parquet"
    assert cli("trace", "generate", "light", *SMALL, "-o", str(out)).code == 0
    before = out.read_bytes()
    bad = tmp_path / "bad.csv"
    bad.write_text("1,hm,1,Read,0,4096,10\n2,hm,1,Nope,0,4096,10\n")
    one_line_error(cli("trace", "import", str(bad), "-f", "msr", "-o", str(out)), "bad.csv:2")
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "keep.parquet"]  # no partial file left


def test_importing_a_file_onto_itself_is_refused(cli: Callable, tmp_path: Path) -> None:
    src = tmp_path / "t.parquet"
    src.write_text((FIXTURES / "msr.csv").read_text())
    one_line_error(cli("trace", "import", str(src), "-f", "msr", "-o", str(src)), "is the source")
    assert src.read_text() == (FIXTURES / "msr.csv").read_text()


@FUZZ
@given(name=st.text(min_size=1, max_size=20).filter(lambda t: "\x00" not in t))
def test_any_output_name_gives_a_trace_file_or_one_line(cli: Callable, tmp_path: Path, name: str) -> None:
    out = tmp_path / "outs" / name
    result = cli("trace", "generate", "light", *SMALL, "-o", str(out))
    result_or_one_line_error(result)
    event("written" if result.code == 0 else "refused")
    if result.code == 0:
        assert out.name.lower().endswith(".parquet") and out.is_file()


# --- 4. a read, write or trim of 0 bytes is no I/O: refused with its line --------------------------


ZERO_LENGTH = {
    "msr": "1,wdev,0,Write,0,0,1",
    "alibaba": "0,R,0,0,10",
    "tencent": "0,0,0,1,1",
    "systor17": "0.1,0.001,W,0,0,0",
    "fiu": "1 1 p 0 0 W 6 0 x",
    "blkparse": "  8,0    3        1     0.000000000   697  D  WS 3417048 + 0 [jbd2/sda3-8]",
    "fio2": "/dev/sdb trim 0 0",
    "fio3": "1 /dev/sdb write 0 0",
    "capture": "   dd-4242 [000] ..... 12345.001000: block_rq_issue: 252,0 R 0 () 4096 + 0 none,0,0 [dd]",
}


def test_every_format_has_a_zero_length_case() -> None:
    assert set(ZERO_LENGTH) == set(FORMATS)


HEADERS = {"fio2": "fio version 2 iolog\n", "fio3": "fio version 3 iolog\n",
           "systor17": "Timestamp,Response,IOType,LUN,Offset,Size\n", "capture": "# tracer: nop\n"}


@pytest.mark.parametrize("fmt", sorted(ZERO_LENGTH))
def test_a_zero_length_io_is_refused_with_its_line(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "zero.txt"
    src.write_text(HEADERS.get(fmt, "\n") + ZERO_LENGTH[fmt] + "\n")
    with pytest.raises(TraceFormatError, match=rf"zero\.txt:2: {fmt}: a (read|write|trim) of 0 bytes .*not an I/O"):
        import_trace(src, fmt, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_the_msr_zero_size_record_qa_found(cli: Callable, tmp_path: Path) -> None:
    src = tmp_path / "z.csv"
    src.write_text("1,wdev,0,Write,0,0,1\n")
    one_line_error(cli("trace", "import", str(src), "-f", "msr", "-o", str(tmp_path / "out.parquet")),
                   "z.csv:1: msr: a write of 0 bytes")
    assert not (tmp_path / "out.parquet").exists()


def test_an_empty_write_with_a_preflush_is_the_flush_it_is() -> None:
    # Kernels before REQ_OP_FLUSH issued a flush as an empty write with a preflush.
    blk = parse_text("  8,0    0        1     0.000000000   697  D FWS [jbd2/sda3-8]\n"
                     "  8,0    0        2     0.000100000     0  C FWS [0]\n", "blkparse")
    assert blk.op.tolist() == [OP_FLUSH] and blk.flags.tolist() == [FLAG_PREFLUSH | FLAG_SYNC]
    assert blk.length_bytes.tolist() == [0] and blk.completion_ns.tolist() == [100_000]
    cap = parse_text("  kworker/0:1H-97 [000] ..... 10.000000: block_rq_issue: 252,0 FWS 0 () 0 + 0 none,0,0 [kw]\n"
                     "  <idle>-0 [000] d.h1. 10.000200: block_rq_complete: 252,0 FWS () 0 + 0 none,0,0 [0]\n",
                     "capture")
    assert cap.op.tolist() == [OP_FLUSH] and cap.completion_ns.tolist() == [200_000]


@FUZZ
@given(fmt=st.sampled_from(sorted(FORMATS)), data=st.data())
def test_no_import_keeps_a_zero_length_io(fmt: str, data: st.DataObject) -> None:
    """Fixture lines with their numbers replaced by small ones, 0 often: a data I/O that
    survives the import moves at least one byte."""
    lines = (FIXTURES / FILES[fmt]).read_text().splitlines()
    small = st.sampled_from(["0", "0", "0", "1", "8"])
    lines = [re.sub(r"\b\d+\b", lambda m: data.draw(small) if data.draw(st.booleans()) else m[0], line)
             for line in lines]
    try:
        chunk = parse_text("\n".join(lines), fmt, "zeros")
    except TraceFormatError as error:
        assert "\n" not in str(error) and str(error).startswith("zeros:")
        event("refused")
    else:
        event("parsed")
        assert (chunk.length_bytes[chunk.op != OP_FLUSH] > 0).all()


# --- 5. file content in an error: escaped and short ------------------------------------------


# Undecodable bytes (read as U+FFFD), control characters, a line separator and other scripts, in
# every field a parser may quote (fio2 quotes the second).
JUNK = b"\xff\xfe\x00\x1b[31m\xc3\xa9\xe2\x80\xa8\x7fELF" + b"\xff" * 60
BINARY = b" ".join([JUNK] * 10) + b"\n" + b"\x00" * 100 + b"\n"
QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def readable(message: str, path: Path) -> None:
    """One line, printable, no U+FFFD, no quotation much over 40 characters."""
    assert "\n" not in message and "\ufffd" not in message and message.isprintable(), message
    assert all(len(q) <= 45 for q in QUOTED.findall(message.replace(str(path), ""))), message
    assert len(message) - len(str(path)) <= 180, message


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_binary_junk_is_quoted_escaped_and_short(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "junk.bin"
    src.write_bytes(BINARY)
    with pytest.raises(TraceFormatError) as caught:
        import_trace(src, fmt, tmp_path / "out.parquet")
    readable(str(caught.value), src)


@FUZZ
@given(fmt=st.sampled_from(sorted(FORMATS)), junk=st.binary(max_size=400))
def test_any_bytes_give_a_trace_or_a_readable_line(tmp_path: Path, fmt: str, junk: bytes) -> None:
    src = tmp_path / "junk.bin"
    src.write_bytes(junk)
    try:
        import_trace(src, fmt, tmp_path / "out.parquet")
    except UsageError as error:
        readable(str(error), src)


def test_a_line_too_long_for_any_trace_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    src = tmp_path / "zero.bin"
    src.write_bytes(b"\x00" * (1 << 18))  # /dev/zero's start: no newline at all
    with pytest.raises(TraceFormatError, match=r"zero\.bin:1: msr: a line of more than 65,536 characters"):
        import_trace(src, "msr", tmp_path / "out.parquet")


@pytest.mark.parametrize(("text", "shown"), [
    ("abc", "'abc'"), ("\x00\x1b[31m", "'\\x00\\x1b[31m'"), ("\ufffd é", "'\\ufffd \\xe9'"),
    ("x" * 100, "'" + "x" * 35 + "...'"),
])
def test_quoted(text: str, shown: str) -> None:
    assert quoted(text) == shown and len(quoted(text * 50)) <= 40


# --- 6. printed numbers: thousands separators, sizes in KiB..TiB, times in µs, ms or s -------


def test_stats_print_separators_and_units(cli: Callable, tmp_path: Path) -> None:
    n, mib = 1500, 1 << 20
    chunk = TraceChunk.from_columns({
        "timestamp_ns": np.arange(n) * 1_166_030_800, "op": np.full(n, OP_READ), "offset_bytes": np.arange(n) * mib,
        "length_bytes": np.full(n, mib), "flags": np.zeros(n), "pid": np.full(n, -1), "completion_ns": np.full(n, -1)})
    path = tmp_path / "t.parquet"
    write_trace(path, [chunk], Provenance(source_format="msr", source="test"))
    text = cli("trace", "stats", str(path)).stdout
    assert "1,500 over 1,747.9 s (29m08s)" in text
    assert "1,500 I/Os, 1.5 GiB" in text
    assert "mean 1.166 s" in text
    assert "footprint              │ 1.5 GiB" in text


def test_generate_and_replay_print_separators_and_units(cli: Callable, tmp_path: Path) -> None:
    out = tmp_path / "g.parquet"
    assert "Generated 1,500 I/Os" in cli("trace", "generate", "light", "--scale", "0.003", "-o", str(out)).stdout
    text = cli("trace", "replay", str(out), "-t", "sim:?scale=0.05").stdout
    # its records by kind, as the `trace` test's results count them (QA: a flush was among "I/Os replayed")
    counts = [re.search(rf"│ {label} +│ ([\d,]+) ", text) for label in
              (r"I/Os replayed \(reads and writes\)", "Flushes replayed", "Trims replayed")]
    assert all(counts) and sum(int(m[1].replace(",", "")) for m in counts if m) == 1500, text
    assert re.search(r"│ Data read and written +│ [\d.]+ MiB \(\d{1,3}(,\d{3})+ bytes\)", text), text
    # QA: rows read `read_lat_p99_9`, `bytes_moved`; they are named as the `trace` test's results name them
    assert re.search(r"│ Read latency p99\.9 +│ [\d,.]+ µs ", text), text
    assert text.index("Average data rate (bytes / busy time)") < text.index("Read latency p50"), text
    # not "0.0 s": three figures in s, or under a second in ms / µs
    assert re.search(r"│ Busy time \(≥ 1 I/O outstanding\) +│ (\d+\.\d{3} s|[1-9][\d.]* (ms|µs)) ", text), text
    assert "_" not in text, text


def test_statistics_of_nothing_are_no_figures(cli: Callable, tmp_path: Path) -> None:
    """QA: `trace stats` of an empty capture printed "CV 0.00" and "0.0 % of I/Os", and `audit fua`
    "0 of 0 writes (0.0 %)": figures of I/O that never happened. One I/O has no gaps to take an
    inter-arrival over; a flush alone, no read or write to take a share of."""
    def trace(name: str, ops: list[int], done_at_issue: bool = False) -> str:
        n = len(ops)
        chunk = TraceChunk.from_columns({
            "timestamp_ns": np.arange(n) * 1000, "op": np.array(ops), "offset_bytes": np.zeros(n),
            "length_bytes": np.full(n, 4096 if ops[:1] != [OP_FLUSH] else 0), "flags": np.zeros(n),
            "pid": np.full(n, -1), "completion_ns": np.arange(n) * 1000 if done_at_issue else np.full(n, -1)})
        write_trace(tmp_path / name, [chunk] if n else [], Provenance(source_format="capture", source="test"))
        return str(tmp_path / name)

    empty = cli("trace", "stats", trace("empty.parquet", [])).stdout
    for row in ("read share", "size mix", "sequential"):
        assert re.search(rf"│ {row} +│ — \(no reads or writes\)", empty), empty
    assert "— (fewer than two I/Os)" in empty and "CV" not in empty and "reuse" not in empty, empty
    assert "%" not in empty and "— (no I/O)" in empty, empty
    one = cli("trace", "stats", trace("one.parquet", [OP_READ])).stdout
    assert "— (fewer than two I/Os), peak/mean second 1.00" in one and "100.0 % of I/Os" in one, one
    flush = cli("trace", "stats", trace("flush.parquet", [OP_FLUSH, OP_FLUSH])).stdout
    assert "— (no reads or writes)" in flush and "mean 1.0 µs, CV 0.00" in flush, flush
    audit = cli("audit", "fua", trace("flush2.parquet", [OP_FLUSH])).stdout
    assert "no writes, so none carried FUA" in audit and "0.0" not in audit, audit
    assert re.search(r"│ all +│ +0 │ +0 │ +— │", audit), audit
    one_write = cli("audit", "fua", trace("w.parquet", [OP_WRITE])).stdout
    assert "0 of 1 write (0.0 %) carried FUA" in one_write, one_write  # (helper QA: "0 of 1 writes")
    assert "│ reads                  │ 1 I/O, 4 KiB" in one  # not "1 I/Os"
    instant = cli("trace", "stats", trace("instant.parquet", [OP_READ, OP_READ], done_at_issue=True)).stdout
    assert "— (no time with an I/O outstanding)" in instant, instant  # 0 / 0, not "no completion times"


def test_metric_row() -> None:
    from ssdlab.cli.trace import metric_row

    assert metric_row("bytes_moved", 159168512) == ("bytes_moved", "151.8 MiB (159,168,512 bytes)")
    assert metric_row("avg_data_rate_mb_s", 83501.55) == ("avg_data_rate", "83,501.6 MB/s")
    # one column of latencies in one unit (QA: 955.1 µs beside 6.96 ms and 1.98 ms), as the report
    assert metric_row("read_lat_p99_us", 1166030.8) == ("read_lat_p99", "1,166,030.8 µs")
    assert metric_row("read_lat_p50_us", 2500.0) == ("read_lat_p50", "2,500.0 µs")
    assert metric_row("over_10ms_pct", 0.25) == ("over_10ms", "0.25 %")
    assert metric_row("ios", 1234567) == ("ios", "1,234,567")


def test_paths_print_as_named_not_as_rich_markup(cli: Callable, tmp_path: Path) -> None:
    # '[/x]' would be a closing tag to rich; '[bold]' would vanish into bold text.
    (tmp_path / "a[").mkdir()
    src = tmp_path / "a[" / "y][bold].csv"
    src.write_text((FIXTURES / "msr.csv").read_text())
    out = tmp_path / "a[" / "x][bold].parquet"
    result = cli("trace", "import", str(src), "-f", "msr", "-o", str(out))
    assert result.code == 0 and f"from {src} (msr) into {out}" in result.stdout, result.stderr
    stats = cli("trace", "stats", str(out))
    assert stats.code == 0 and "x][bold].parquet" in stats.stdout and "y][bold].csv" in stats.stdout, stats.stderr
    generated = cli("trace", "generate", "light", *SMALL, "-o", str(out))
    assert generated.code == 0 and f"into {out}" in generated.stdout, generated.stderr
    replay = cli("trace", "replay", str(out), "-t", "sim:?scale=0.05")
    assert replay.code == 0 and "Replay of x][bold].parquet" in replay.stdout, replay.stderr


# --- 7. what was not measured shows "—", and an empty trace is refused as the `trace` test does ----


def test_a_metric_not_measured_is_a_dash() -> None:
    from ssdlab.cli.trace import metric_row

    assert metric_row("read_lat_p99_us", None) == ("read_lat_p99", "—")
    assert metric_row("read_over_10ms_pct", None) == ("read_over_10ms", "—")
    assert metric_row("avg_data_rate_mb_s", None) == ("avg_data_rate", "—")


def test_replay_of_a_write_only_trace_shows_no_read_figures(cli: Callable, tmp_path: Path) -> None:
    """QA: `trace replay` of a write-only trace printed read_avg_service 0.0 µs, read_lat_p99 0.0 µs."""
    src = tmp_path / "w.csv"
    src.write_text("1000000,hm,1,Write,0,4096,100\n2000000,hm,1,Write,8192,4096,100\n")
    assert cli("trace", "import", "-f", "msr", str(src), "-o", str(tmp_path / "w.parquet")).code == 0
    text = cli("trace", "replay", str(tmp_path / "w.parquet"), "-t", "sim:?scale=0.05").stdout
    for label in ("Average read service time", "Read latency p50", "Read latency p99", "Read latency p99.9",
                  "Reads above 10 ms"):
        assert re.search(rf"│ {re.escape(label)} +│ — +│", text), text  # no unit after "—" either
    assert re.search(r"│ Write latency p99 +│ [\d,.]+ µs", text), text


def test_replay_of_an_empty_trace_is_refused_as_the_trace_test_refuses_it(cli: Callable, tmp_path: Path) -> None:
    """QA: an empty capture replayed to a table of 0.0 with exit 0; `run --test trace` refuses it."""
    from ssdlab.methods import get_test

    path = tmp_path / "idle.parquet"
    write_trace(path, iter(()), Provenance(source_format="capture", source="idle"))
    one_line_error(cli("trace", "replay", str(path)), "the trace holds no I/Os")
    with pytest.raises(UsageError, match="the trace holds no I/Os"):
        get_test("trace").parse_params({"trace": str(path)})


def test_commands_given_a_source_file_say_to_import_it(cli: Callable) -> None:
    """QA: `audit fua` of a CSV did not suggest `trace import`, as the run path does."""
    src = str(FIXTURES / "msr.csv")
    for command in (("trace", "stats", src), ("trace", "replay", src), ("audit", "fua", src)):
        one_line_error(cli(*command), "is not an ssdlab trace (Parquet)", "convert it with `ssdlab trace import`")


def test_a_path_that_is_no_trace_file_is_named_with_what_is_expected(cli: Callable, tmp_path: Path) -> None:
    """Audit: `plan --test trace -p trace=nosuch.parquet` said "no such trace file" without the path;
    `trace stats adir` said to convert a directory with `ssdlab trace import`. Every command that
    reads a trace names the path and says a trace file is expected, not a conversion."""
    folder = tmp_path / "adir"
    folder.mkdir()
    (tmp_path / "alink").symlink_to(folder)
    for path, what in ((folder, "is a directory"), (tmp_path / "alink", "is a link to"), (Path("/dev/null"),
                                                                                       "is a character device")):
        for command in (("trace", "stats", str(path)), ("trace", "replay", str(path)), ("audit", "fua", str(path)),
                        ("plan", "--test", "trace", "-t", "sim:", "-p", f"trace={path}")):
            line = one_line_error(cli(*command), f"{path} {what}", "not a trace file; give an ssdlab trace file")
            assert "convert" not in line, line
    missing = tmp_path / "nosuch.parquet"
    one_line_error(cli("plan", "--test", "trace", "-t", "sim:", "-p", f"trace={missing}"),
                   f"parameter trace={missing} names no file (no such trace file); give an ssdlab trace file or "
                   "generated:heavy")
    one_line_error(cli("trace", "stats", str(missing)), f"no trace at {missing}")


def test_trace_replay_prints_the_percentiles_a_trace_test_records(cli: Callable, tmp_path: Path) -> None:
    """QA (statistics audit): the same replay gave write p99.9 162.8 µs in the trace test (fio's
    histogram bins, as the bundle keeps them) and 167.1 µs from `trace replay` (numpy on exact
    latencies, which took the 1999th of 2000 writes): one rule for both."""
    from ssdlab.bundle import Bundle
    from ssdlab.methods import get_test
    from ssdlab.report.contract import figure_with_unit
    from ssdlab.targets import parse_target

    target = "sim:?scale=0.05"
    run = cli("run", "--test", "trace-light", "-t", target, "-p", "scale=0.01", "--no-library", "--no-report",
              "-o", str(tmp_path / "b"))
    assert run.code == 0, run.stderr
    metrics = Bundle(tmp_path / "b").load_run().test("trace-light").metrics
    printed = cli("trace", "replay", str(tmp_path / "b" / "raw" / "trace-light" / "replay" / "trace.parquet"),
                  "-t", target).stdout
    keys = [f"{d}_lat_{p}_us" for d in ("read", "write") for p in ("p50", "p99", "p99_9")]
    specs = get_test("trace").metric_specs(get_test("trace").parse_params({"trace": "generated:light"}),
                                           parse_target(target).info())
    for key in [*keys, "read_avg_service_us", "write_avg_service_us"]:
        spec = specs.get(key)
        assert spec is not None
        value = figure_with_unit(spec, metrics)
        assert re.search(rf"│ {re.escape(spec.label)} +│ {re.escape(value)} ", printed), (key, value, printed)
