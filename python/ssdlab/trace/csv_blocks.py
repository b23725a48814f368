"""Blocks of a CSV trace's lines read at once: pyarrow's CSV reader and vectorised checks, for the
formats whose lines are plain comma-separated numbers and a device (MSR Cambridge, Alibaba,
Tencent CBS), the large public traces.

The line parsers in importers.py define each format; a block is read here only when every line
of it is of the plain form they read without a question (each line ended, with the format's
number of fields; in the lines of the device imported, ASCII digits of at most 18, the operation
as the format spells it, a size above 0), and it then gives the records they give. Any other block
(a header, a blank or cut line, a second device where none was chosen, a number written otherwise,
a size of 0, a value no column holds) is read line by line, so a refusal or a note is always the
line parsers' own.
tests/trace/test_csv_blocks.py holds the two readings to the same output on generated files.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

BLOCK_LINES = 1 << 13  # lines a block holds at most: a block read line by line costs at most this many
# At most 18 digits: below 10^18, so below importers.MAX_BYTES (2^62) and int64 whatever they hold.
_PLAIN_NUMBER = r"^[0-9]{1,18}$"
_INT64_MAX = int(np.iinfo(np.int64).max)


@dataclass(frozen=True)
class CsvLayout:
    """Where a format's line puts each value, and its units, as its line parser reads them."""

    fields: int
    time: int
    time_ns: int  # ns per unit of the time column
    op: int
    reads: str  # the operation column's words, as the format writes them
    writes: str
    offset: int
    length: int
    size_bytes: int  # bytes per unit of offset and length
    device: tuple[int, ...]  # the columns that name the device, in the order DeviceField.read takes them
    response: int | None = None  # a response time, in time units, where the format has one


LAYOUTS = {
    "msr": CsvLayout(7, time=0, time_ns=100, op=3, reads="Read", writes="Write", offset=4, length=5, size_bytes=1,
                     device=(1, 2), response=6),
    "alibaba": CsvLayout(5, time=4, time_ns=1000, op=1, reads="R", writes="W", offset=2, length=3, size_bytes=1,
                         device=(0,)),
    "tencent": CsvLayout(5, time=0, time_ns=1_000_000_000, op=3, reads="0", writes="1", offset=1, length=2,
                         size_bytes=512, device=(4,)),
}


@dataclass(frozen=True)
class Block:
    """The records of a block's lines of the device imported: times in the time column's units (not
    yet ns, which may not fit int64 before they are made relative), the rest as stored."""

    time: npt.NDArray[np.int64]
    op: npt.NDArray[np.uint8]
    offset_bytes: npt.NDArray[np.int64]
    length_bytes: npt.NDArray[np.int64]
    response: npt.NDArray[np.int64] | None


def split_block(layout: CsvLayout, raw_lines: list[str]) -> Any | None:
    """`raw_lines` as a pyarrow table of text, a column per field; None unless every line is ended
    and holds the format's number of fields."""
    import pyarrow as pa
    from pyarrow import csv

    text = "".join(raw_lines)  # with quoting off, as the line parsers split: a quote is text
    # A line holds one line end at most, at its end: as many as lines, and each line is ended.
    if not raw_lines or text.count("\n") != len(raw_lines):
        return None
    names = [f"c{i}" for i in range(layout.fields)]
    try:
        table = csv.read_csv(io.BytesIO(text.encode()), read_options=csv.ReadOptions(column_names=names),
                             parse_options=csv.ParseOptions(quote_char=False, ignore_empty_lines=False),
                             convert_options=csv.ConvertOptions(column_types=dict.fromkeys(names, pa.string())))
    except pa.ArrowException:  # a line with another number of fields
        return None
    return table if table.num_rows == len(raw_lines) else None


def device_texts(layout: CsvLayout, table: Any) -> tuple[list[tuple[str, ...]], npt.NDArray[np.intp]]:
    """The device columns' distinct texts, in the order the lines first name them, and which of them
    each line names. A file of every volume (Alibaba, Tencent) names many in a block."""
    import pyarrow.compute as pc

    columns = [table.column(i) for i in layout.device]
    # Joined by a comma, which no field holds (it splits them); Arrow's dictionary codes follow first appearance.
    joined = columns[0] if len(columns) == 1 else pc.binary_join_element_wise(*columns, ",")
    encoded = joined.combine_chunks().dictionary_encode()
    texts = [tuple(str(text).split(",")) for text in encoded.dictionary.to_pylist()]
    return texts, encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp)


def records(layout: CsvLayout, table: Any, kept: npt.NDArray[np.bool_]) -> Block | None:
    """The records of the `kept` lines, or None where any of them is not of the plain form (above)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = table.filter(pa.array(kept))
    numbers = [layout.time, layout.offset, layout.length] + ([layout.response] if layout.response is not None else [])
    if not all(pc.all(pc.match_substring_regex(table.column(i), _PLAIN_NUMBER)).as_py() for i in numbers):
        return None
    op = table.column(layout.op)
    is_write = pc.equal(op, layout.writes)
    if not pc.all(pc.or_(is_write, pc.equal(op, layout.reads))).as_py():
        return None
    ints = {i: pc.cast(table.column(i), pa.int64()).to_numpy() for i in numbers}
    offset, length = ints[layout.offset], ints[layout.length]
    limit = _INT64_MAX // layout.size_bytes  # a size or offset in bytes that int64 holds
    if len(length) and ((length == 0).any() or offset.max() > limit or length.max() > limit):
        return None
    return Block(time=ints[layout.time], op=is_write.to_numpy(zero_copy_only=False).astype(np.uint8),
                 offset_bytes=offset * layout.size_bytes, length_bytes=length * layout.size_bytes,
                 response=ints[layout.response] if layout.response is not None else None)


def relative_units(time: npt.NDArray[np.int64], time_ns: int, t0_ns: int) -> npt.NDArray[np.int64] | None:
    """`time` (in units of `time_ns` ns) in units after `t0_ns`; None where `t0_ns` is not a whole
    number of units (it came from another clock)."""
    if t0_ns % time_ns or not 0 <= t0_ns // time_ns <= _INT64_MAX:
        return None
    return time - t0_ns // time_ns  # both in 0..2^63 (time below 10^18): the difference fits


def scaled_ns(units: npt.NDArray[np.int64], time_ns: int) -> npt.NDArray[np.int64] | None:
    """`units` in ns; None where one would not fit int64."""
    bound = _INT64_MAX // time_ns
    if len(units) and (units.max() > bound or units.min() < -bound):
        return None
    return units * time_ns
