"""Parameter types with bounds, as people type them: `--param span_bytes=16g`, `queue_depths=1,2,4`.

Every method parameter uses one of these types, so every value is checked the same way
before anything runs: text is turned into a value, then pydantic checks type and bounds
and names the parameter in its one-line error. The bounds are what the engines can carry
(64-bit offsets, fio's limits) and what a review could mean, not taste: a block under
512 B, a queue depth of zero, a runtime of NaN, of a year or under a millisecond are
refused. What depends on the target (a block size that is not a multiple of its logical
block, a region larger than it) is checked against the plan in planning.check_workloads.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic.fields import FieldInfo

from ssdlab.errors import UsageError
from ssdlab.units import GIB, MAX_SIZE_BYTES, parse_size

MAX_BYTES = MAX_SIZE_BYTES
# Larger transfers are not what any review measures; fio and the simulator take them whole.
MAX_BLOCK_BYTES = GIB
# A week: the longest any method here could sensibly run one phase.
MAX_SECONDS = 7 * 24 * 3600.0
# The shortest time the engines can be told: fio's job file counts whole milliseconds
# (engines/fio._seconds), and reads runtime=0ms as no time limit at all, running one whole pass
# over the region instead (fio 3.33, time_based=1). Well above it a window can still hold too few
# I/Os to mean anything: the runner says so after the run (measurement.MIN_QUEUE_TURNS).
MIN_SECONDS = 0.001
MAX_IODEPTH = 4096
MAX_JOBS = 256
# Methods add a point's number to the seed (seed + qd, + round, + read share) so points differ;
# 32 bits leave that sum far inside the 64 bits fio's randseed and the simulator carry.
MAX_SEED = (1 << 32) - 1


# What `--param NAME=none` gives a parameter that may be none (the docs say what none means for each).
NONE_WORDS = frozenset({"none", "null"})


def none_from_text(fields: Mapping[str, FieldInfo], data: Any) -> Any:
    """Let `--param cooldown_s=none` arrive as text: 'none' is None for a parameter that may be
    none, as the docs write it; for any other parameter it stays text and is refused as such."""
    if not isinstance(data, Mapping):
        return data
    return {name: None if _is_none_word(value) and _may_be_none(fields.get(name)) else value
            for name, value in data.items()}


def _is_none_word(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in NONE_WORDS


def _may_be_none(info: FieldInfo | None) -> bool:
    return info is not None and type(None) in typing.get_args(info.annotation)


def _split(value: str) -> list[str]:
    return [part for part in value.replace(" ", "").split(",") if part]


def size_from_text(value: Any) -> Any:
    """Let `--param span_bytes=16g` arrive as text, in the units `ssdlab` prints."""
    if not isinstance(value, str):
        return value
    try:
        return parse_size(value)
    except UsageError as err:  # a ValueError names the parameter in pydantic's message
        raise ValueError(str(err)) from None


def int_tuple(value: Any) -> Any:
    """Let `--param queue_depths=1,2,4` arrive as text."""
    if not isinstance(value, str):
        return value
    try:
        return tuple(int(part) for part in _split(value))
    except ValueError:
        raise ValueError("give whole numbers separated by commas, e.g. 1,2,4") from None


def text_tuple(value: Any) -> Any:
    """Let `--param passes=write,read` arrive as text."""
    return tuple(_split(value)) if isinstance(value, str) else value


def size_tuple(value: Any) -> Any:
    """Let `--param block_sizes_bytes=4k,128k` arrive as text."""
    return tuple(size_from_text(part) for part in _split(value)) if isinstance(value, str) else value


def _whole_sectors(value: int) -> int:
    if value % 512:
        raise ValueError("must be a multiple of 512 bytes")
    return value


Bytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=512, le=MAX_BYTES)]
BlockBytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=512, le=MAX_BLOCK_BYTES),
                       AfterValidator(_whole_sectors)]
OffsetBytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=0, le=MAX_BYTES)]
Seconds = Annotated[float, Field(ge=MIN_SECONDS, le=MAX_SECONDS, allow_inf_nan=False)]
QueueDepth = Annotated[int, Field(ge=1, le=MAX_IODEPTH)]
Jobs = Annotated[int, Field(ge=1, le=MAX_JOBS)]
Percent = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]
ReadPct = Annotated[int, Field(ge=0, le=100)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
QueueDepths = Annotated[tuple[QueueDepth, ...], BeforeValidator(int_tuple), Field(min_length=1, max_length=64)]
ReadPcts = Annotated[tuple[ReadPct, ...], BeforeValidator(int_tuple), Field(min_length=1, max_length=101)]
BlockSizes = Annotated[tuple[BlockBytes, ...], BeforeValidator(size_tuple), Field(min_length=1, max_length=64)]
