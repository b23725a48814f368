"""A CSV trace read in blocks (trace/csv_blocks.py) imports exactly as read line by line: the same
records in the same chunks, the same notes and devices, or the same one-line refusal, for files
of plain lines and of lines built to leave the plain form (a header, blank, cut or quoted lines, a
second device, numbers written otherwise, sizes of 0, values no column holds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.trace import importers
from ssdlab.trace.importers import TraceFormatError, iter_import
from ssdlab.trace.model import COLUMNS, TraceChunk

# Each format's fields, in order: plain values (what most lines hold, so most blocks are read whole),
# and the forms the line parsers treat apart, one of which now and then takes a plain value's place.
NUMBER = (["7", "4096", "8192", "123456", "65536", "1000"],
          ["0", " 5", "0x10", "1_0", "\uff15", "", "-5", "9" * 19, "1" * 18, "100", "513"])
TIME = (["t"], ["", "x", "1_0", "9" * 19, "1" * 18, " 3", "0"])  # "t": the line's own, rising time
FIELDS = {
    "msr": [TIME, (["hm"], ["hm2", "a b", ""]), (["1"], ["01", "2", "x"]), (["Read", "Write"], ["read", "Read ", "R"]),
            NUMBER, NUMBER, NUMBER],
    "alibaba": [(["3"], ["03", "4", "x"]), (["R", "W"], ["r", "Read"]), NUMBER, NUMBER, TIME],
    "tencent": [TIME, NUMBER, NUMBER, (["0", "1"], ["2", "R"]), (["1283"], ["7", "x"])],
}
START = {"msr": 128166372003061629, "alibaba": 1577808000000000, "tencent": 1538323200}
OTHER_LINES = ["", "   ", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", "1,2", "1,2,3,4,5,6,7,8",
               '"1",2,3,4,5', "1,2,3,4,5\r"]
DEVICES = {"msr": [None, "hm,1", "hm,2"], "alibaba": [None, "3", "4"], "tencent": [None, "1283", "7"]}


@st.composite
def a_line(draw: st.DrawFn, fmt: str, time: int, odd: bool) -> str:
    """A plain line, or an odd one: a field in another form, or another kind of line."""
    fields = FIELDS[fmt]
    values = [draw(st.sampled_from(plain)) for plain, _ in fields]
    if odd:
        which = draw(st.integers(-1, len(fields) - 1))
        if which < 0:
            return draw(st.sampled_from(OTHER_LINES))
        values[which] = draw(st.sampled_from(fields[which][1]))
    return ",".join(str(time) if v == "t" else v for v in values)


def imported(path: Path, fmt: str, chunk_records: int, device: str | None) -> Any:
    """What an import gives: its chunks' columns, notes and devices, or its refusal."""
    try:
        job, chunks = iter_import(path, fmt, chunk_records, device)
        columns = [{name: getattr(c, name).tolist() for name in COLUMNS} for c in chunks]
    except TraceFormatError as error:
        return str(error)
    return columns, job.notes, sorted(job.state.devices), job.state.device


def line_by_line(monkeypatch: pytest.MonkeyPatch, *args: Any) -> Any:
    with monkeypatch.context() as m:
        m.setattr(importers, "LAYOUTS", {})
        return imported(*args)


@st.composite
def files(draw: st.DrawFn) -> tuple[str, str, str | None, int]:
    fmt = draw(st.sampled_from(sorted(FIELDS)))
    steps = draw(st.lists(st.integers(-50, 20_000), min_size=1, max_size=40))  # now and then a step back
    # A block is read whole only if every line of it is plain: one or two odd lines among plain ones
    # put an odd line in a block otherwise read whole.
    odd = set(draw(st.lists(st.integers(0, len(steps) - 1), max_size=2)))
    lines = [draw(a_line(fmt, START[fmt] + sum(steps[:i + 1]), i in odd)) for i in range(len(steps))]
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")  # a file whose last line is cut, or not
    return fmt, text, draw(st.sampled_from(DEVICES[fmt])), draw(st.sampled_from([3, 8, 64]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files())
def test_a_csv_trace_imports_in_blocks_as_it_does_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[str, str, str | None, int]) -> None:
    fmt, text, device, chunk_records = case
    path = tmp_path / f"{fmt}.csv"
    path.write_text(text)
    assert imported(path, fmt, chunk_records, device) == line_by_line(monkeypatch, path, fmt, chunk_records, device)


def odd_cases() -> list[tuple[str, int, str]]:
    """Every odd form of every field of every format, and every other kind of line."""
    cases = [(fmt, which, value) for fmt, fields in FIELDS.items() for which, (_, odd) in enumerate(fields)
             for value in odd]
    return cases + [(fmt, -1, line) for fmt in FIELDS for line in OTHER_LINES]


@pytest.mark.parametrize(("fmt", "which", "value"), odd_cases())
@pytest.mark.parametrize("device", [0, 1, 2])
def test_one_odd_line_among_plain_ones_imports_as_it_does_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, which: int, value: str, device: int) -> None:
    lines = []
    for i in range(8):
        values = [plain[i % len(plain)] for plain, _ in FIELDS[fmt]]
        if i == 5 and which >= 0:
            values[which] = value
        line = ",".join(str(START[fmt] + 1000 * i) if v == "t" else v for v in values)
        lines.append(value if i == 5 and which < 0 else line)
    path = tmp_path / f"{fmt}.csv"
    path.write_text("\n".join(lines) + "\n")
    args = (path, fmt, 64, DEVICES[fmt][device])
    assert imported(*args) == line_by_line(monkeypatch, *args)


SECOND_DEVICE = {"msr": {2: "2"}, "alibaba": {0: "4"}, "tencent": {4: "7"}}  # field -> value: DEVICES' third
SIZE_FIELD = {"msr": 5, "alibaba": 3, "tencent": 2}


@pytest.mark.parametrize("fmt", sorted(FIELDS))
@pytest.mark.parametrize("device", [0, 1, 2])
@pytest.mark.parametrize("second", ["a block each", "every other line", "every other line, with a size of 0"])
def test_two_devices_import_as_they_do_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, device: int, second: str) -> None:
    """A file of every volume (Alibaba, Tencent) names many in a block: with --device, the lines of
    the others are skipped unread, as the line parsers skip them."""
    lines = []
    for i in range(12):
        values = [plain[0] for plain, _ in FIELDS[fmt]]
        if (i >= 6) if second == "a block each" else i % 2:
            for which, value in SECOND_DEVICE[fmt].items():
                values[which] = value
            if second.endswith("size of 0"):
                values[SIZE_FIELD[fmt]] = "0"
        lines.append(",".join(str(START[fmt] + 1000 * i) if v == "t" else v for v in values))
    path = tmp_path / f"{fmt}.csv"
    path.write_text("\n".join(lines) + "\n")
    args = (path, fmt, 3 if second == "a block each" else 64, DEVICES[fmt][device])
    assert imported(*args) == line_by_line(monkeypatch, *args)


@pytest.fixture
def blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The records of each block read whole, as they are fed."""
    fed: list[int] = []
    feed_block = importers._Import._feed_block

    def counted(self: Any, block: Any, *args: Any) -> None:
        fed.append(len(block.time))
        feed_block(self, block, *args)

    monkeypatch.setattr(importers._Import, "_feed_block", counted)
    return fed


def test_plain_lines_are_read_in_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[int]) -> None:
    """Not a test that holds because every block fell back: a plain MSR file is read in blocks."""
    rng = np.random.default_rng(1)
    times = np.cumsum(rng.integers(1, 20_000, 5_000)) + 128166372003061629
    path = tmp_path / "plain.csv"
    path.write_text("".join(f"{t},hm,1,{'Read' if t % 3 else 'Write'},{int(o) * 4096},4096,{int(r)}\n"
                            for t, o, r in zip(times, rng.integers(0, 1 << 20, 5_000), rng.integers(1, 9_000, 5_000),
                                               strict=True)))
    whole = imported(path, "msr", 1_000, None)
    assert sum(blocks) == 5_000 and len(blocks) >= 5
    assert whole == line_by_line(monkeypatch, path, "msr", 1_000, None)
    chunk = TraceChunk.concat(iter_import(path, "msr", 1_000)[1])
    assert chunk.timestamp_ns[0] == 0 and chunk.completion_ns.min() > 0


def test_a_file_of_every_volume_is_read_in_blocks_for_the_one_chosen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[int]) -> None:
    """Alibaba's and Tencent's files interleave thousands of volumes: with --device, a block of many
    volumes is still read whole, the others' lines skipped (a size of 0 among them, unread)."""
    path = tmp_path / "volumes.csv"
    path.write_text("".join(f"{i % 7},{'RW'[i % 2]},{4096 * i},{0 if i % 7 == 5 else 4096},{1577808000000000 + i}\n"
                            for i in range(3_000)))
    whole = imported(path, "alibaba", 1_000, "3")
    assert sum(blocks) == len(range(3, 3_000, 7)) and len(blocks) >= 3
    assert whole == line_by_line(monkeypatch, path, "alibaba", 1_000, "3")
    assert whole[2] == [str(v) for v in range(7)]  # every volume seen


def test_the_volumes_kept_in_view_are_the_first_the_lines_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import keeps at most MAX_DEVICES_SEEN devices to name in a message: the first the lines name, read in
    blocks as line by line (here 4 of 9 volumes, named out of their order)."""
    monkeypatch.setattr(importers, "MAX_DEVICES_SEEN", 4)
    volumes = [9, 3, 7, 1, 8, 2, 6, 4, 5]
    path = tmp_path / "volumes.csv"
    path.write_text("".join(f"{volumes[i % 9]},R,{4096 * i},4096,{1577808000000000 + i}\n" for i in range(90)))
    whole = imported(path, "alibaba", 64, "3")
    assert whole == line_by_line(monkeypatch, path, "alibaba", 64, "3")
    assert whole[2] == ["1", "3", "7", "9"]
