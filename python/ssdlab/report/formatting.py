"""One way to print numbers in tables: by the unit a metric's name ends with."""

from __future__ import annotations

import math
from typing import Any

from ssdlab.units import decimal_capacity, format_size, is_number

MISSING = "—"

# Metric-name suffix -> (format spec, unit shown after the number).
SUFFIX_FORMATS: tuple[tuple[str, str, str], ...] = (
    ("_mb_s", ",.1f", "MB/s"),
    ("_iops", ",.0f", "IOPS"),
    ("_lat_us", ",.1f", "µs"),
    ("_us", ",.1f", "µs"),
    ("_ms", ",.2f", "ms"),
    ("_pct", ",.1f", "%"),
    ("_gb", ",.2f", "GB"),
    ("_s", ",.1f", "s"),
)


def has_suffix(name: str, suffix: str) -> bool:
    """`read_mb_s` and plain `mb_s` both end in the unit `_mb_s`."""
    return name.endswith(suffix) or name == suffix[1:]


def metric_unit(name: str) -> str:
    for suffix, _, unit in SUFFIX_FORMATS:
        if has_suffix(name, suffix):
            return unit
    return ""


def format_number(value: float, spec: str = "") -> str:
    if math.isnan(value):
        return MISSING
    if spec:
        return format(value, spec)
    if isinstance(value, int):
        return f"{value:,d}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


# Unit -> format spec of the number (the unit is shown beside it, once per column or row).
UNIT_FORMATS = {"IOPS": ",.0f", "MB/s": ",.1f", "µs": ",.1f", "ms": ",.3f", "%": ",.1f", "GB": ",.2f",
                "s": ",.1f", "points": ",.0f", "times": ",.2f"}
# Units whose whole numbers are still shown with decimals (a latency of 80 µs is 80.0).
FRACTIONAL_UNITS = frozenset({"MB/s", "µs", "ms", "%", "GB"})


def format_in_unit(unit: str, value: Any) -> str:
    """A value as a table cell in its unit, without the unit (the column or row says it)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not is_number(value):
        return str(value)
    if unit == "bytes":
        return format_size(int(value))
    if isinstance(value, int) and unit not in FRACTIONAL_UNITS:
        return f"{value:,d}"
    return format_number(float(value), UNIT_FORMATS.get(unit, ""))


def format_metric(name: str, value: Any) -> str:
    """A metric of a method this ssdlab does not know, by the unit its name ends with."""
    return format_in_unit("bytes" if name.endswith("_bytes") else metric_unit(name), value)


def format_pct_change(value: float | None) -> str:
    if value is None or math.isnan(value):
        return MISSING
    return f"{value:+.1f} %"


def format_bytes_decimal(size_bytes: int | None) -> str:
    """Capacity as drive labels print it (decimal), with the binary size and bytes beside."""
    if size_bytes is None:
        return MISSING
    return f"{decimal_capacity(size_bytes)} ({size_bytes / 2**30:,.1f} GiB, {size_bytes:,} bytes)"
