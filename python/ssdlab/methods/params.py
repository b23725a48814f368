"""Parameter types with bounds, as people type them: `--param span_bytes=16g`, `queue_depths=1,2,4`.

Every method parameter uses one of these types, so every value is checked the same way
before anything runs: text is turned into a value, then pydantic checks type and bounds,
and param_refusal says what it refused in one line: the parameter, the value as given, what
is wrong with it and what to give (never pydantic's own words). The bounds are what the engines can carry
(64-bit offsets, fio's limits) and what a review could mean, not taste: a block under
512 B, a queue depth of zero, a runtime of NaN, of a year or under a millisecond are
refused. What depends on the target (a block size that is not a multiple of its logical
block, a region larger than it) is checked against the plan in planning.check_workloads.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from ssdlab.analysis.steady_state import PTS_WINDOW_ROUNDS
from ssdlab.units import (
    GIB,
    MAX_SIZE_BYTES,
    MIB,
    SizeError,
    format_size,
    is_number,
    number_slip,
    parse_size,
    unit_from_name,
)

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
    none, as the docs write it; for any other parameter it stays text and is refused as such. A
    number's text is checked first (numbers_as_typed), here since every reading of a parameter's
    text comes through here (the model's and planning.same_value's)."""
    if not isinstance(data, Mapping):
        return data
    numbers_as_typed(fields, data)
    return {name: None if _is_none_word(value) and _may_be_none(fields.get(name)) else value
            for name, value in data.items()}


def numbers_as_typed(fields: Mapping[str, FieldInfo], data: Mapping[str, Any]) -> None:
    """Refuse a number parameter's text that pydantic and int() would read, but not as typed:
    `runtime_s=1_0` as 10, a full-width 5 as 5 (units.number_slip). A text parameter (a trace's path)
    may hold either."""
    for name, value in data.items():
        info = fields.get(name)
        slip = number_slip(value) if isinstance(value, str) and info is not None and _holds_numbers(info) else None
        if slip is not None:
            raise ParamValueError(slip, field=name)


def _holds_numbers(info: FieldInfo) -> bool:
    found = list(_annotations(info))
    return any(item in (int, float) for item in found) and str not in found


def _is_none_word(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in NONE_WORDS


def _may_be_none(info: FieldInfo | None) -> bool:
    return info is not None and type(None) in typing.get_args(info.annotation)


class ParamValueError(ValueError):
    """A value a parameter cannot take, in the words of its one-line refusal (param_refusal):
    `what` follows the value as given ('is not a size'); `item`, the value of a list it is about;
    `give`, what to give instead ("": what the parameter's type takes); `field`, the parameter a
    check of several names (a model's own check has no location of its own)."""

    def __init__(self, what: str, *, item: str | None = None, give: str = "", field: str | None = None) -> None:
        super().__init__(what)
        self.what, self.item, self.give, self.field = what, item, give, field


def _split(value: str) -> list[str]:
    """A list as typed, one value between each pair of commas (spaces around it left out, not
    those inside it: QA read `queue_depths=1 6` as 16). An empty value is refused (QA:
    `queue_depths=1,,2` ran 1 and 2 in silence, whatever was meant between them); nothing at all
    is the empty list, which the list's own length check refuses."""
    parts = [part.strip() for part in value.split(",")]
    if parts == [""]:
        return []
    if "" in parts:
        raise ParamValueError("has an empty value (two commas in a row, or one at an end)")
    return parts


def size_from_text(value: Any) -> Any:
    """Let `--param span_bytes=16g` arrive as text, in the units `ssdlab` prints."""
    if not isinstance(value, str):
        return value
    try:
        return parse_size(value)
    except SizeError as err:  # said after the parameter and its value (param_refusal)
        raise ParamValueError(err.what) from None


def int_tuple(value: Any) -> Any:
    """Let `--param queue_depths=1,2,4` arrive as text."""
    if not isinstance(value, str):
        return value
    return tuple(_whole(part) for part in _split(value))


def _whole(part: str) -> int:
    """One item of a list of whole numbers, as a single value of one is taken: `2.0` is 2 (QA:
    `runs=2.0` was taken, `queue_depths=1,2.0` refused). Never `1_6` or full-width digits, which int() takes."""
    slip = number_slip(part)
    if slip is not None:
        raise ParamValueError(slip, item=part)
    try:
        return int(part)
    except ValueError:
        pass
    try:
        number = float(part)
    except ValueError:
        number = math.nan
    if not number.is_integer():
        raise ParamValueError("is not a whole number", item=part) from None
    return int(number)


def text_tuple(value: Any) -> Any:
    """Let `--param passes=write,read` arrive as text."""
    return tuple(_split(value)) if isinstance(value, str) else value


def size_tuple(value: Any) -> Any:
    """Let `--param block_sizes_bytes=4k,128k` arrive as text."""
    return tuple(_size_item(part) for part in _split(value)) if isinstance(value, str) else value


def _size_item(part: str) -> Any:
    try:
        return size_from_text(part)
    except ParamValueError as err:
        raise ParamValueError(err.what, item=part) from None


def _whole_sectors(value: int) -> int:
    if value % 512:
        raise ParamValueError("is not a whole number of 512-byte sectors", give="a multiple of 512 bytes, e.g. 4k")
    return value


def _whole_milliseconds(value: float) -> float:
    """A run's time as fio's job file takes it (engines/fio._seconds counts whole milliseconds): a
    time between two is refused, not rounded, so both engines run the time the plan prints (QA:
    runtime_s=0.0015 printed 0.0015s, ran 2 ms under fio and 1.5 ms on the simulator)."""
    if abs(value * 1000 - round(value * 1000)) > 1e-6 * max(1.0, value * 1000):
        raise ParamValueError("is not a whole number of milliseconds (fio's job files count whole ms)",
                              give=f"{round(value * 1000) / 1000:g} or another time in whole milliseconds")
    return value


@dataclass(frozen=True)
class Why:
    """Why a parameter's bounds are where they are, and the unit they count in: the one-line
    refusal of a value outside them says it (param_refusal). `unit`: "" takes the unit the
    parameter's name says (units.unit_from_name), as a list's items cannot."""

    low: str = ""
    high: str = ""
    unit: str = ""


SECTOR_WHY = "a sector, the least a drive reads or writes"
BEYOND_DRIVES_WHY = "1 EiB is beyond any drive, and every engine's offsets stay within 64 bits"
SHARE_WHY = "a share of the whole"
SECONDS_WHY = Why(low="fio's job files count whole milliseconds, and fio reads 0 ms as no time limit at all",
                  high="a week is the longest any method here could sensibly run one phase", unit="s")
BYTES_WHY = Why(low=SECTOR_WHY, high=BEYOND_DRIVES_WHY, unit="bytes")
BLOCK_WHY = Why(low=SECTOR_WHY, high="no review measures larger transfers", unit="bytes")
OFFSET_WHY = Why(high=BEYOND_DRIVES_WHY, unit="bytes")
# methods/_prep.SPAN_ALIGN_BYTES: a region or span is cut to whole MiB, so under 1 MiB none is left.
REGION_FLOOR_BYTES = MIB
REGION_WHY = Why(low="a test region is cut to whole MiB, so every block size up to 1 MiB divides it",
                 high=BEYOND_DRIVES_WHY, unit="bytes")
PERCENT_WHY = Why(low=SHARE_WHY, high=SHARE_WHY, unit="%")
OP_PCT_WHY = Why(high="at 100 % no span would be left to write")
WINDOW_ROUNDS_WHY = Why(low=f"the SNIA PTS judges steady state over windows of {PTS_WINDOW_ROUNDS} rounds")
SEED_WHY = Why(high="methods add a point's number to the seed, and 32 bits keep that sum within the 64 bits fio "
                    "and the simulator carry")

Bytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=512, le=MAX_BYTES), BYTES_WHY]
BlockBytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=512, le=MAX_BLOCK_BYTES),
                       AfterValidator(_whole_sectors), BLOCK_WHY]
# A region or span cut to whole MiB (quick's test region, a span through _prep.usable_span_bytes):
# its floor is 1 MiB, not a sector, so the refusal of 0 names the bound that holds (QA: `size_bytes=0`
# said "under 512B, the least it takes", and 512 was then refused as under 1 MiB).
RegionBytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=REGION_FLOOR_BYTES, le=MAX_BYTES), REGION_WHY]
OffsetBytes = Annotated[int, BeforeValidator(size_from_text), Field(ge=0, le=MAX_BYTES), OFFSET_WHY]
Seconds = Annotated[float, Field(ge=MIN_SECONDS, le=MAX_SECONDS, allow_inf_nan=False),
                    AfterValidator(_whole_milliseconds), SECONDS_WHY]


def _no_time_is_none(value: Any) -> Any:
    """An idle of no time is no idle: 0 reads as none (QA: `cooldown_s=0` was refused with fio's
    millisecond reason, which no idle has)."""
    try:
        return None if float(value) == 0 else value
    except (TypeError, ValueError):  # not a number: the type's own refusal says so
        return value


# Times that are no fio job have no millisecond floor (QA: `cooldown_s=0.0005` was refused with fio's
# job-file reason). An idle is a sleep (engines/fio_steps.idle) or the simulator's nanosecond clock
# moving on (Drive::idle), both honour any length above 0; an analysis window is a span of the
# logged series, which takes at least one period of it whatever its length (window_samples).
IDLE_WHY = Why(low="an idle is a length of time, and 0 or none is no idle",
               high=SECONDS_WHY.high, unit="s")
WINDOW_WHY = Why(low="a window is a length of time", high=SECONDS_WHY.high, unit="s")
# An idle's length (a cool-down): 0 or none for no idle, else any time above 0 up to a week. Its
# floor is 0 itself, which it takes (as none: _no_time_is_none, before the bound): what the bound
# declares (the parameter tables, the refusals) is what it refuses, below 0 (fresh66: a check of
# every bound sent 0, under a floor declared "above 0", and it ran).
IdleSeconds = Annotated[Annotated[float, Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False), IDLE_WHY] | None,
                        BeforeValidator(_no_time_is_none)]
# A span of a run's logged series the analysis judges (consistency's steady-state window).
WindowSeconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False), WINDOW_WHY]
QueueDepth = Annotated[int, Field(ge=1, le=MAX_IODEPTH)]
Jobs = Annotated[int, Field(ge=1, le=MAX_JOBS)]
Percent = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False), PERCENT_WHY]
ReadPct = Annotated[int, Field(ge=0, le=100), PERCENT_WHY]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED), SEED_WHY]
QueueDepths = Annotated[tuple[QueueDepth, ...], BeforeValidator(int_tuple), Field(min_length=1, max_length=64)]
ReadPcts = Annotated[tuple[ReadPct, ...], BeforeValidator(int_tuple), Field(min_length=1, max_length=101)]
BlockSizes = Annotated[tuple[BlockBytes, ...], BeforeValidator(size_tuple), Field(min_length=1, max_length=64)]


# What each unit's values are called in a refusal's advice ("give a number of seconds from …").
UNIT_NOUNS = {"s": "a number of seconds", "bytes": "a size", "%": "a percentage", "µs": "a number of microseconds"}
BOUND_WORDS = {"greater_than_equal": "is under {bound}, the least it takes", "greater_than": "is not above {bound}",
               "less_than_equal": "is over {bound}, the most it takes", "less_than": "is not under {bound}",
               "finite_number": "is not a finite number"}


def param_refusal(model: type[BaseModel], error: ErrorDetails, raw: Mapping[str, Any]) -> str | None:
    """The refusal of a value a parameter cannot take, in one line for `test NAME: ` to lead: the
    parameter and its value as given (and the value of a list at fault), what is wrong with it
    (outside a bound, with the bound's unit and why it is there: Why; not a number; not one of
    the choices …), and the values to give. QA: `runtime_s=0.0005` said "Input should be greater
    than or equal to 0.001", `runtime_s=1s` "Input should be a valid number", with no unit and no
    way out. None for a check of several parameters that names none (its own words say it)."""
    fault = (error.get("ctx") or {}).get("error")
    own = fault if isinstance(fault, ParamValueError) else None
    loc = error["loc"]
    name = str(loc[0]) if loc else own.field if own is not None else None
    info = model.model_fields.get(name) if name else None
    if name is None or info is None:
        return None
    found = list(_annotations(info))
    why = next((item for item in found if isinstance(item, Why)), Why())
    unit = why.unit or unit_from_name(name)
    given = raw.get(name, error["input"] if loc else _typed(info.default, unit))
    item = own.item if own is not None and own.item is not None else \
        _typed(error["input"], unit) if len(loc) > 1 else None
    what = own.what if own is not None else _fault_words(error, found, unit, why, str(given), name)
    each = item is not None
    if own is not None and own.give:
        give = f"each {own.give}" if each else own.give
    else:
        most = (error.get("ctx") or {}).get("max_length") if error["type"] == "too_long" else None
        give = _takes(info, found, unit, each=each, most=most)
    lead = f"parameter {name}={given}" + (f": {item}" if item is not None else "")
    return f"{lead} {what}; give {give}"


# A value of the wrong type, in words that follow it (pydantic's error types).
TYPE_WORDS = {"float_parsing": "is not a number", "float_type": "is not a number",
              "int_parsing": "is not a whole number", "int_type": "is not a whole number",
              "int_from_float": "is not a whole number", "bool_parsing": "is not true or false",
              "bool_type": "is not true or false", "string_too_short": "is empty"}
# What a parameter's unit is typed after a number as, by mistake (`runtime_s=1s`, `read_pct=50%`).
UNIT_SLIPS = {"s": ("s", "sec"), "%": ("%",), "µs": ("µs", "us")}


def _fault_words(error: ErrorDetails, found: list[Any], unit: str, why: Why, given: str, name: str) -> str:
    """What is wrong with the value, in words that follow it: 'is under 0.001 s, the least it
    takes: …', 'is not a number', 'is not best or mean', 'has 65 values, more than the 64 it takes'."""
    kind, ctx = error["type"], error.get("ctx") or {}
    words = BOUND_WORDS.get(kind)
    if words is not None:
        bound = next(iter(ctx.values()), None)
        said = words.format(bound=_with_unit(bound, unit) if bound is not None else "")
        reason = {"greater_than_equal": why.low, "greater_than": why.low, "less_than_equal": why.high,
                  "less_than": why.high}.get(kind, "")
        return f"{said}: {reason}" if reason else said
    if kind in TYPE_WORDS:
        return TYPE_WORDS[kind] + _unit_slip(str(error["input"]), unit, name)
    if kind == "literal_error":
        return f"is not {_or_words(_choices(found))}"
    if kind == "too_short":
        return "is empty" if not given.strip() else \
            f"has {ctx.get('actual_length')} values, fewer than the {ctx.get('min_length')} it takes"
    if kind == "too_long":
        return f"has {ctx.get('actual_length')} values, more than the {ctx.get('max_length')} it takes"
    # a check of our own that says it in its own words (a plain ValueError: pydantic prefixes them)
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"is refused: {message}" if kind == "value_error" else "is not a value it takes"


def _unit_slip(text: str, unit: str, name: str) -> str:
    """' (runtime_s is in s already: write 1)' for a number typed with the unit its name gives it."""
    for slip in UNIT_SLIPS.get(unit, ()):
        number = text.strip().removesuffix(slip).strip()
        if number != text.strip() and _is_float_text(number):
            return f" ({name} is in {unit} already: write {number})"
    return ""


def _is_float_text(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _takes(info: FieldInfo, found: list[Any], unit: str, each: bool, most: int | None = None) -> str:
    """The values a parameter takes, as its refusal's advice says them: 'a number of seconds from
    0.001 to 604800', 'true or false', 'best or mean', 'each a whole number from 1 to 4096' (a
    value of a list), 'one or more values separated by commas, each …' (the list; `most`: 'at
    most 64 values …', for a list of too many)."""
    choices = _choices(found)
    if choices:
        one = _or_words(choices)
    elif any(item is bool for item in found):
        one = "true or false"
    elif any(item is str for item in found):
        one = f"text, e.g. {info.default}" if info.default else "text"
    else:
        whole = any(item is int for item in found)
        one = f"{UNIT_NOUNS.get(unit, 'a whole number' if whole else 'a number')} {_range_words(found, unit)}"
    if each:
        one = f"each {one}"
    elif _is_list(info):
        count = f"at most {most}" if most is not None else "one or more"
        one = f"{count} values separated by commas, each {one}"
    return f"{one}, or none" if _may_be_none(info) else one


def _choices(found: list[Any]) -> tuple[str, ...]:
    """A Literal's values (`aggregate`: best, mean)."""
    return next((tuple(str(arg) for arg in typing.get_args(item)) for item in found
                 if typing.get_origin(item) is typing.Literal), ())


def _or_words(choices: tuple[str, ...]) -> str:
    return " or ".join(choices) if len(choices) < 3 else f"{', '.join(choices[:-1])} or {choices[-1]}"


def _is_list(info: FieldInfo) -> bool:
    return any(typing.get_origin(arg) is tuple for arg in (info.annotation, *typing.get_args(info.annotation)))


def _annotations(info: FieldInfo) -> Iterator[Any]:
    """Everything a field's type and bounds are made of, its optional or list value's included:
    its bounds (annotated_types), its Why, the types it holds."""
    def walk(item: Any) -> Iterator[Any]:
        yield item
        if isinstance(item, FieldInfo):
            for inner in item.metadata:
                yield from walk(inner)
        else:
            for arg in typing.get_args(item):
                yield from walk(arg)

    for item in info.metadata:
        yield from walk(item)
    yield from walk(info.annotation)


def _range_words(found: list[Any], unit: str) -> str:
    """'from 0.001 to 604800', 'from 0 to under 100', 'above 0, up to 1': the values a field takes,
    in what it can be given as."""
    low = next((item for item in found if isinstance(item, Ge | Gt)), None)
    high = next((item for item in found if isinstance(item, Le | Lt)), None)
    low_words = "" if low is None else \
        f"from {_typed(low.ge, unit)}" if isinstance(low, Ge) else f"above {_typed(low.gt, unit)}"
    if high is None:
        return low_words
    exclusive = isinstance(high, Lt)
    high_words = f"under {_typed(high.lt, unit)}" if isinstance(high, Lt) else _typed(high.le, unit)
    if low is None:
        return high_words if exclusive else f"up to {high_words}"
    joint = " to " if isinstance(low, Ge) else " and " if exclusive else ", up to "
    return f"{low_words}{joint}{high_words}"


def _typed(value: Any, unit: str) -> str:
    """A bound as it may be given: a size in the units `--param` takes (4KiB, 1GiB), a number never
    with an exponent (3.6e9 µs is 3600000000)."""
    if not is_number(value):
        return str(value)
    if unit == "bytes" and isinstance(value, int):
        return f"{value >> 60}EiB" if value and value % (1 << 60) == 0 else format_size(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # exact: a float rounds 2^64 - 1 (a trace seed's bound) up to 2^64
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.6f}".rstrip("0").rstrip(".")


def _with_unit(value: Any, unit: str) -> str:
    """A bound with its unit: '0.001 s', '100 %', '512B'."""
    text = _typed(value, unit)
    return text if unit in ("", "bytes") else f"{text} {unit}"
